// hog against scikit-image 0.26's goldens (tests/golden/cases_feature_hog.py): uint8, float64 and
// float32 images, RGB with channel_axis -1 and 0, every block_norm, odd and 1-pixel cells,
// transform_sqrt, feature_vector, visualize. The cell histograms are scikit-image's bit for bit;
// the features differ only by the block sums' order: 1e-12 relative for float64 outputs, 1e-6 for
// float32; the drawings (sums of histogram values) 1e-12 / 1e-6. Then bad arguments and the GPU
// tier (device == CPU within the same tolerances; the device's atan2/hypot may differ in the last
// bit, which moves a vote only for an angle within an ulp of a bin edge).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "cuskimage/ndimage.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

Array golden(const std::string& name) { return cusktest::load_golden("feature_hog/" + name + ".npy"); }

double tol(const Array& a) { return a.dtype() == DType::float32 ? 1e-6 : 1e-12; }

void run_goldens(const Device& dev, const Stream& s) {
  const auto n = golden("hog_ncases").to_vector<std::int64_t>()[0];
  ASSERT_GT(n, 0);
  for (std::int64_t c = 0; c < n; ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    const auto p = golden("hog_p_" + std::to_string(c)).to_vector<double>();
    const Array img = golden("hog_img_" + std::to_string(static_cast<int>(p[0]))).to(dev, s);
    ft::HogOptions o;
    o.orientations = static_cast<int>(p[1]);
    o.pixels_per_cell = {static_cast<std::int64_t>(p[2]), static_cast<std::int64_t>(p[3])};
    o.cells_per_block = {static_cast<std::int64_t>(p[4]), static_cast<std::int64_t>(p[5])};
    o.block_norm = static_cast<ft::HogBlockNorm>(static_cast<int>(p[6]));
    o.visualize = p[7] != 0, o.transform_sqrt = p[8] != 0, o.feature_vector = p[9] != 0;
    if (!std::isnan(p[10])) o.channel_axis = static_cast<int>(p[10]);
    const ft::HogResult r = ft::hog(img, o, s);
    const Array want = golden("hog_out_" + std::to_string(c));
    const Array got = cusktest::host_copy(r.features);
    EXPECT_EQ(got.dtype(), want.dtype());
    EXPECT_TRUE(cusktest::arrays_close(want, got, tol(want), tol(want)));
    if (o.visualize) {
      const Array vw = golden("hog_vis_" + std::to_string(c));
      const Array vg = cusktest::host_copy(r.hog_image);
      EXPECT_TRUE(cusktest::arrays_close(vw, vg, tol(vw), tol(vw)));
    } else {
      EXPECT_FALSE(r.hog_image.valid());
    }
  }
}

TEST(FeatureHog, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(FeatureHog, BadArguments) {
  const Array img = Array::zeros({32, 32}, DType::float32);
  EXPECT_THROW(ft::hog(Array::zeros({20, 32}, DType::float32)), InvalidArgument);  // < 3 cells of 8 rows
  EXPECT_THROW(ft::hog(img, {.pixels_per_cell = {40, 4}, .cells_per_block = {1, 1}}), InvalidArgument);
  EXPECT_THROW(ft::hog(img, {.block_norm = static_cast<ft::HogBlockNorm>(7)}), InvalidArgument);
  EXPECT_THROW(ft::hog(Array::zeros({32, 32, 3}, DType::float32)), InvalidArgument);  // 3-D without channel_axis
  EXPECT_THROW(ft::hog(img, {.channel_axis = -1}), InvalidArgument);                 // 1 spatial dimension
  EXPECT_THROW(ft::hog(img, {.orientations = 0}), InvalidArgument);
  EXPECT_THROW(ft::hog(img, {.pixels_per_cell = {8}}), InvalidArgument);
  EXPECT_THROW(ft::hog(img, {.cells_per_block = {0, 1}}), InvalidArgument);
  EXPECT_NO_THROW(ft::hog(Array::zeros({24, 24}, DType::float32)));
}

// ---- GPU tier ------------------------------------------------------------------------------------------

TEST(GpuFeatureHog, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s);
}

void expect_same(const Array& h, const Array& d, const ft::HogOptions& o, const Stream& s) {
  const ft::HogResult want = ft::hog(h, o);
  const ft::HogResult got = ft::hog(d, o, s);
  EXPECT_EQ(got.features.device(), d.device());
  EXPECT_TRUE(cusktest::arrays_close(want.features, cusktest::host_copy(got.features), tol(want.features),
                                     tol(want.features)));
  if (o.visualize)
    EXPECT_TRUE(cusktest::arrays_close(want.hog_image, cusktest::host_copy(got.hog_image), tol(want.hog_image),
                                       tol(want.hog_image)));
}

TEST(GpuFeatureHog, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 70;
  for (DType dt : {DType::float32, DType::float64, DType::uint8}) {
    const Array h = cusktest::random_array({203, 177}, dt, seed++, 0, 100);
    const Array d = h.to(Device::cuda(), s);
    for (int norm = 0; norm < 4; ++norm) {
      SCOPED_TRACE(norm);
      const auto bn = static_cast<ft::HogBlockNorm>(norm);
      expect_same(h, d, {.block_norm = bn, .visualize = true}, s);
      expect_same(h, d, {.orientations = 11, .pixels_per_cell = {5, 7}, .cells_per_block = {2, 1}, .block_norm = bn,
                         .visualize = true, .transform_sqrt = true, .feature_vector = false}, s);
    }
    expect_same(h, d, {.pixels_per_cell = {50, 60}, .cells_per_block = {2, 2}, .visualize = true}, s);  // no tile
    expect_same(h, d, {.pixels_per_cell = {1, 1}, .cells_per_block = {2, 2}, .visualize = true}, s);    // serial drawing
    const Array hv = h.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 3}});
    const Array dv = d.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 3}});
    expect_same(hv, dv, {.pixels_per_cell = {4, 4}, .visualize = true}, s);
  }
  const Array rgb = cusktest::random_array({3, 96, 80}, DType::uint8, seed++);
  expect_same(rgb, rgb.to(Device::cuda(), s), {.visualize = true, .channel_axis = 0}, s);
}

TEST(GpuFeatureHog, StaysOnItsStream) {
  CUSK_REQUIRE_GPU();
  const Array d = cusktest::random_array({512, 480}, DType::float32, 6).to(Device::cuda());
  cuskimage::Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    (void)ft::hog(d, {.visualize = true}, s);
  }));
}

}  // namespace
