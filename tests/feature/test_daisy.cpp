// daisy against scikit-image 0.26's goldens (tests/golden/cases_feature_hog.py): uint8 (float64),
// float32 and float64 images; every normalization; given sigmas and ring_radii; visualize.
// Tolerances: descriptors 1e-10 (float64) / 2e-5 (float32: exp/cos and the sums' order differ in the
// last bits), drawings 1e-9 (float64); the float32 drawing's arrow ends are computed in float32 from
// descriptors that may differ in the last bit, so an end may truncate to the neighbouring pixel: it
// must match within 1e-5 on at least 99% of its values.
// Then bad arguments and the GPU tier (device == CPU within the same tolerances).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Slice;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

Array golden(const std::string& name) { return cusktest::load_golden("feature_hog/" + name + ".npy"); }

double tol(const Array& a) { return a.dtype() == DType::float32 ? 2e-5 : 1e-10; }

/// The fraction of values within atol.
double close_fraction(const Array& want, const Array& got, double atol) {
  const auto w = want.astype(DType::float64).to_vector<double>();
  const auto g = got.astype(DType::float64).to_vector<double>();
  if (w.size() != g.size()) return 0;
  std::size_t ok = 0;
  for (std::size_t i = 0; i < w.size(); ++i) ok += std::fabs(w[i] - g[i]) <= atol;
  return static_cast<double>(ok) / static_cast<double>(w.size());
}

void run_goldens(const Device& dev, const Stream& s) {
  const std::vector<std::vector<double>> sig = {{1.0, 2.0, 3.0}, {0.8, 1.5, 2.2, 3.1}};
  const std::vector<std::vector<double>> rad = {{3, 6}, {2, 4, 7}};
  const auto n = golden("daisy_ncases").to_vector<std::int64_t>()[0];
  ASSERT_GT(n, 0);
  for (std::int64_t c = 0; c < n; ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    const auto p = golden("daisy_p_" + std::to_string(c)).to_vector<std::int64_t>();
    const Array img = golden("daisy_img_" + std::to_string(p[0])).to(dev, s);
    ft::DaisyOptions o{.step = p[1], .radius = p[2], .rings = p[3], .histograms = p[4], .orientations = p[5],
                       .normalization = static_cast<ft::DaisyNormalization>(p[6]), .visualize = p[7] != 0};
    if (p[8] >= 0) o.sigmas = sig[p[8]];
    if (p[9] >= 0) o.ring_radii = rad[p[9]];
    const ft::DaisyResult r = ft::daisy(img, o, s);
    const Array want = golden("daisy_out_" + std::to_string(c));
    const Array got = cusktest::host_copy(r.descs);
    EXPECT_EQ(got.dtype(), want.dtype());
    EXPECT_TRUE(cusktest::arrays_close(want, got, 0, tol(want)));
    if (o.visualize) {
      const Array vw = golden("daisy_vis_" + std::to_string(c));
      const Array vg = cusktest::host_copy(r.descs_img);
      ASSERT_EQ(vg.shape(), vw.shape());
      if (vw.dtype() == DType::float64)
        EXPECT_TRUE(cusktest::arrays_close(vw, vg, 0, 1e-9));
      else
        EXPECT_GE(close_fraction(vw, vg, 1e-5), 0.99);
    } else {
      EXPECT_FALSE(r.descs_img.valid());
    }
  }
}

TEST(FeatureDaisy, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(FeatureDaisy, BadArguments) {
  const Array img = Array::zeros({40, 40}, DType::float32);
  EXPECT_THROW(ft::daisy(Array::zeros({30, 30}, DType::float32)), InvalidArgument);  // <= 2 * radius
  EXPECT_THROW(ft::daisy(Array::zeros({40, 40, 3}, DType::float32)), InvalidArgument);
  EXPECT_THROW(ft::daisy(img, {.sigmas = {1, 2, 3}, .ring_radii = {2, 4, 6}}), InvalidArgument);
  EXPECT_THROW(ft::daisy(img, {.normalization = static_cast<ft::DaisyNormalization>(5)}), InvalidArgument);
  EXPECT_THROW(ft::daisy(img, {.step = 0}), InvalidArgument);
  EXPECT_THROW(ft::daisy(img, {.radius = 0}), InvalidArgument);
  EXPECT_THROW(ft::daisy(img, {.ring_radii = {2.5}}), InvalidArgument);
  EXPECT_NO_THROW(ft::daisy(img, {.radius = 10}));
}

// ---- GPU tier ------------------------------------------------------------------------------------------

TEST(GpuFeatureDaisy, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s);
}

TEST(GpuFeatureDaisy, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 11;
  for (DType dt : {DType::float32, DType::float64, DType::uint8}) {
    const Array h = cusktest::random_array({130, 117}, dt, seed++, 0, 1);
    const Array d = h.to(Device::cuda(), s);
    for (int norm = 0; norm < 4; ++norm) {
      const ft::DaisyOptions o{.step = 3, .normalization = static_cast<ft::DaisyNormalization>(norm)};
      const Array want = ft::daisy(h, o).descs;
      const Array got = ft::daisy(d, o, s).descs;
      EXPECT_EQ(got.device(), d.device());
      EXPECT_TRUE(cusktest::arrays_close(want, cusktest::host_copy(got), 0, tol(want)));
    }
    const Array hv = h.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 1}});
    const Array dv = d.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 1}});
    const ft::DaisyOptions o{.step = 2, .radius = 9, .rings = 2, .visualize = true};
    const ft::DaisyResult want = ft::daisy(hv, o), got = ft::daisy(dv, o, s);
    EXPECT_TRUE(cusktest::arrays_close(want.descs, cusktest::host_copy(got.descs), 0, tol(want.descs)));
    EXPECT_EQ(cusktest::host_copy(got.descs_img).shape(), want.descs_img.shape());
  }
}

}  // namespace
