// blob_log, blob_dog and blob_doh against scikit-image 0.26's goldens (tests/golden/cases_feature_blob.py):
// 2-D float64 / uint8 / float32, 3-D, anisotropic sigmas, log_scale, threshold_rel, exclude_border,
// overlap 0.1..1 and smoothed noise with ~100 blobs (long pruning chains). The same blobs in the
// same order, coordinates exactly, sigmas exactly (they are the sigma list's values). Then bad
// arguments and the GPU tier (device == CPU on fresh inputs, strided views, a non-default stream).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "cuskimage/ndimage.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

Array golden(const std::string& name) { return cusktest::load_golden("feature_blob/" + name + ".npy"); }

std::optional<double> opt(double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); }

Array run_case(int n, const Device& dev, const Stream& s) {
  const auto p = golden("p_" + std::to_string(n)).to_vector<double>();
  std::size_t k = 0;
  const int fn = static_cast<int>(p[k++]);
  const Array img = golden("img_" + std::to_string(static_cast<int>(p[k++]))).to(dev, s);
  auto take = [&]() {
    std::vector<double> v(static_cast<std::size_t>(p[k]));
    for (auto& x : v) x = p[++k];
    ++k;
    return v;
  };
  const auto lo = take(), hi = take();
  const double num = p[k++], thr = p[k++], ov = p[k++];
  const bool logs = p[k++] != 0;
  const double trel = p[k++];
  std::vector<std::int64_t> eb(static_cast<std::size_t>(p[k]));
  for (auto& x : eb) x = static_cast<std::int64_t>(p[++k]);
  const ft::ExcludeBorder border = eb.empty() ? ft::ExcludeBorder(false) : ft::ExcludeBorder(eb);
  if (fn == 0)
    return ft::blob_log(img,
                        {.min_sigma = lo, .max_sigma = hi, .num_sigma = static_cast<std::int64_t>(num),
                         .threshold = opt(thr), .overlap = ov, .log_scale = logs, .threshold_rel = opt(trel),
                         .exclude_border = border},
                        s);
  return ft::blob_dog(img,
                      {.min_sigma = lo, .max_sigma = hi, .sigma_ratio = num, .threshold = opt(thr), .overlap = ov,
                       .threshold_rel = opt(trel), .exclude_border = border},
                      s);
}

void run_goldens(const Device& dev, const Stream& s) {
  const auto count = golden("ncases").to_vector<std::int64_t>()[0];
  ASSERT_EQ(count, 24);
  for (int n = 0; n < count; ++n) {
    SCOPED_TRACE("case " + std::to_string(n));
    const Array got = run_case(n, dev, s);
    EXPECT_EQ(got.device(), dev);
    EXPECT_ARRAY_EQ(golden("out_" + std::to_string(n)), cusktest::host_copy(got));
  }
}

void doh_goldens(const Device& dev, const Stream& s) {
  const auto count = golden("dohn").to_vector<std::int64_t>()[0];
  ASSERT_EQ(count, 5);
  for (int n = 0; n < count; ++n) {
    SCOPED_TRACE("doh case " + std::to_string(n));
    const auto p = golden("doh_p_" + std::to_string(n)).to_vector<double>();
    const Array img = golden("img_" + std::to_string(static_cast<int>(p[0]))).to(dev, s);
    const Array got = ft::blob_doh(img,
                                   {.min_sigma = p[1], .max_sigma = p[2], .num_sigma = static_cast<std::int64_t>(p[3]),
                                    .threshold = opt(p[4]), .overlap = p[5], .log_scale = p[6] != 0,
                                    .threshold_rel = opt(p[7])},
                                   s);
    EXPECT_EQ(got.device(), dev);
    EXPECT_ARRAY_EQ(golden("doh_out_" + std::to_string(n)), cusktest::host_copy(got));
  }
}

TEST(FeatureBlob, Goldens) { run_goldens(Device::cpu(), Stream()); }
TEST(FeatureBlob, DohGoldens) { doh_goldens(Device::cpu(), Stream()); }

TEST(FeatureBlob, NoBlobs) {
  const Array img = Array::zeros({20, 20}, DType::float64);
  EXPECT_EQ(ft::blob_log(img).shape(), (Shape{0, 3}));
  EXPECT_EQ(ft::blob_dog(img, {.min_sigma = {1.0, 2.0}, .max_sigma = 5.0}).shape(), (Shape{0, 4}));
  EXPECT_EQ(ft::blob_log(img).dtype(), DType::float64);
}

TEST(FeatureBlob, BadArguments) {
  using cuskimage::InvalidArgument;
  const Array img = cusktest::random_array({16, 16}, DType::float64, 5);
  EXPECT_THROW(ft::blob_log(img, {.exclude_border = true}), InvalidArgument);
  EXPECT_THROW(ft::blob_log(img, {.exclude_border = std::vector<std::int64_t>{1, 2, 3}}), InvalidArgument);
  EXPECT_THROW(ft::blob_log(img, {.min_sigma = {1.0, 2.0, 3.0}}), InvalidArgument);
  EXPECT_THROW(ft::blob_log(img, {.min_sigma = 0.0}), InvalidArgument);
  EXPECT_THROW(ft::blob_log(img, {.num_sigma = 0}), InvalidArgument);
  EXPECT_THROW(ft::blob_dog(img, {.sigma_ratio = 1.0}), InvalidArgument);
  EXPECT_THROW(ft::blob_dog(img, {.exclude_border = true}), InvalidArgument);
  EXPECT_THROW(ft::blob_log(Array::zeros({0, 4}, DType::float64)), InvalidArgument);
  EXPECT_THROW(ft::blob_doh(Array::zeros({8, 8, 8}, DType::float64)), InvalidArgument);
  EXPECT_THROW(ft::blob_doh(img, {.num_sigma = 0}), InvalidArgument);
  EXPECT_THROW(ft::blob_doh(img, {.min_sigma = -1}), InvalidArgument);
}

// ---- GPU tier ------------------------------------------------------------------------------------------

TEST(GpuFeatureBlob, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s);
  doh_goldens(Device::cuda(), s);
}

TEST(GpuFeatureBlob, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 11;
  for (DType dt : {DType::float64, DType::float32, DType::uint8})
    for (const Shape& shape : {Shape{150, 131}, Shape{20, 24, 22}}) {
      const Array r = cusktest::random_array(shape, DType::float64, seed++, 0, 1);
      const Array h = cuskimage::ndimage::gaussian_filter(r, 1.5).astype(dt);
      const Array d = h.to(Device::cuda(), s);
      const ft::BlobLogOptions lo{.max_sigma = 6.0, .num_sigma = 5, .threshold = 0.01};
      const ft::BlobDogOptions dg{.max_sigma = 6.0, .threshold = 0.005};
      // Float sums differ in order between the backends' filters: the cubes agree to ~1e-6
      // (float32) / ~1e-14 (float64) relative, and no test peak sits that close to a tie.
      EXPECT_ARRAY_EQ(ft::blob_log(h, lo), cusktest::host_copy(ft::blob_log(d, lo, s)));
      EXPECT_ARRAY_EQ(ft::blob_dog(h, dg), cusktest::host_copy(ft::blob_dog(d, dg, s)));
      if (shape.size() == 2) {
        const ft::BlobDohOptions dh{.max_sigma = 8.0, .num_sigma = 5, .threshold = 0.0005};
        EXPECT_ARRAY_EQ(ft::blob_doh(h, dh), cusktest::host_copy(ft::blob_doh(d, dh, s)));
      }
      const Array hv = h.slice({Slice{std::nullopt, std::nullopt, 2}});
      const Array dv = d.slice({Slice{std::nullopt, std::nullopt, 2}});
      EXPECT_ARRAY_EQ(ft::blob_log(hv, lo), cusktest::host_copy(ft::blob_log(dv, lo, s)));
    }
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([](const Stream& st) {
    const Array d = cusktest::random_array({96, 96}, DType::float32, 4).to(Device::cuda(), st);
    (void)ft::blob_log(d, {.max_sigma = 5.0, .num_sigma = 3}, st);
  }));
}

}  // namespace
