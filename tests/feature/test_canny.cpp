// skimage.feature.canny against scikit-image 0.26's goldens (tests/golden/cases_feature_corner.py):
// uint8 with default and absolute thresholds, float32 with a mask, quantile thresholds, modes
// reflect / nearest / constant with cval, a zero low threshold. Edge maps exactly. Then bad
// arguments and the GPU tier.
#include <gtest/gtest.h>

#include <string>

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
using cuskimage::ndimage::Mode;
namespace ft = cuskimage::feature;

Array G(const std::string& name) { return cusktest::load_golden("feature_corner/" + name + ".npy"); }

/// Number of pixels where a and b differ (same shape, bool).
std::int64_t differing(const Array& a, const Array& b) {
  const auto x = cusktest::host_copy(a).to_vector<bool>(), y = cusktest::host_copy(b).to_vector<bool>();
  std::int64_t n = 0;
  for (std::size_t i = 0; i < x.size(); ++i) n += x[i] != y[i];
  return n;
}

void run_goldens(const Device& d, const Stream& s, std::int64_t allowed) {
  const Array cam = G("cam").to(d, s), f32 = G("f32").to(d, s), sq = G("sq").to(d, s);
  const Array m = G("canny_mask").to(d, s);
  auto check = [&](const std::string& name, const Array& got) {
    SCOPED_TRACE(name);
    const Array want = G(name);
    ASSERT_EQ(got.dtype(), DType::bool_);
    if (allowed == 0)
      EXPECT_TRUE(cusktest::arrays_equal(want, cusktest::host_copy(got)));
    else
      EXPECT_LE(differing(want, got), allowed);
  };
  check("canny0", ft::canny(cam, {}, s));
  check("canny1", ft::canny(cam, {.sigma = 2.0, .low_threshold = 10, .high_threshold = 40}, s));
  check("canny2", ft::canny(f32, {.sigma = 1.5, .low_threshold = 0.02, .high_threshold = 0.05, .mask = m.share()}, s));
  check("canny3", ft::canny(cam, {.sigma = 1.2, .low_threshold = 0.8, .high_threshold = 0.9, .use_quantiles = true}, s));
  check("canny4", ft::canny(sq, {.sigma = 1.0, .mode = Mode::reflect}, s));
  check("canny5", ft::canny(f32, {.sigma = 1.0, .low_threshold = 0.0, .high_threshold = 0.03, .mode = Mode::nearest}, s));
  check("canny6",
        ft::canny(sq, {.sigma = 2.0, .low_threshold = 0.05, .high_threshold = 0.2, .mode = Mode::constant, .cval = 0.3}, s));
}

TEST(FeatureCanny, Goldens) { run_goldens(Device::cpu(), {}, 0); }

TEST(FeatureCanny, Semantics) {
  // a constant image has no edges; a symmetric step keeps both tied columns (the suppression keeps
  // ties, as scikit-image's <= does): 36 pixels, 2 per interior row
  EXPECT_EQ(differing(ft::canny(Array::full({20, 20}, 0.5, DType::float64)), Array::zeros({20, 20}, DType::bool_)), 0);
  Array step = Array::zeros({20, 20}, DType::float64);
  for (int r = 0; r < 20; ++r)
    for (int c = 10; c < 20; ++c) step.data<double>()[r * 20 + c] = 1;
  const Array e = ft::canny(step, {.mode = Mode::reflect});
  int cols = 0;
  for (int c = 0; c < 20; ++c) cols += e.at<bool>({10, c});
  EXPECT_EQ(cols, 2);
  EXPECT_TRUE(e.at<bool>({10, 9}) && e.at<bool>({10, 10}));
}

TEST(FeatureCanny, BadArguments) {
  const Array img = Array::zeros({16, 16}, DType::float32);
  EXPECT_THROW(ft::canny(Array::zeros({4, 4, 4}, DType::float32)), InvalidArgument);
  EXPECT_THROW(ft::canny(Array::zeros({16, 16}, DType::int64)), InvalidArgument);
  EXPECT_THROW(ft::canny(img, {.low_threshold = 0.5, .high_threshold = 0.2}), InvalidArgument);
  EXPECT_THROW(ft::canny(img, {.low_threshold = -0.1, .use_quantiles = true}), InvalidArgument);
  EXPECT_THROW(ft::canny(img, {.high_threshold = 1.5, .use_quantiles = true}), InvalidArgument);
  EXPECT_THROW(ft::canny(img, {.mask = Array::zeros({8, 8}, DType::bool_)}), InvalidArgument);
  EXPECT_THROW(ft::canny(img, {.sigma = -1.0}), InvalidArgument);
}

// ---- GPU tier ------------------------------------------------------------------------------------------

// The GPU smooths with ndimage's CUDA Gaussian, whose float32 sums may round differently from the
// CPU's, so a pixel whose magnitude ties a neighbour or a threshold can flip: the goldens and the
// CPU backend are matched up to 4 pixels of 64^2 (float64 inputs match exactly in practice).
TEST(GpuFeatureCanny, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s, 4);
}

TEST(GpuFeatureCanny, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 3;
  for (DType dt : {DType::float32, DType::float64, DType::uint8}) {
    const Array base = cusktest::random_array({301, 257}, dt, seed++);
    const Array view = base.slice({Slice{std::nullopt, std::nullopt, 2}, Slice{3, std::nullopt, 1}});
    const Array mask = cusktest::random_array({301, 257}, DType::bool_, seed++);
    for (const Array* h : {&base, &view}) {
      const Array d = h->to(Device::cuda(), s);
      const std::int64_t allowed = h->size() / 2000;
      for (double sigma : {1.0, 2.5}) {
        for (Mode mode : {Mode::constant, Mode::reflect}) {
          const ft::CannyOptions o{.sigma = sigma, .mode = mode};
          EXPECT_LE(differing(ft::canny(*h, o), ft::canny(d, o, s)), allowed);
        }
        const ft::CannyOptions q{.sigma = sigma, .low_threshold = 0.5, .high_threshold = 0.8, .use_quantiles = true};
        EXPECT_LE(differing(ft::canny(*h, q), ft::canny(d, q, s)), allowed);
      }
      if (h == &base) {
        const ft::CannyOptions o{.sigma = 1.5, .mask = mask.share()};
        ft::CannyOptions od{.sigma = 1.5, .mask = mask.to(Device::cuda(), s)};
        EXPECT_LE(differing(ft::canny(*h, o), ft::canny(d, od, s)), allowed);
      }
    }
  }
}

TEST(GpuFeatureCanny, NonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Array d = cusktest::random_array({512, 512}, DType::float32, 11).to(Device::cuda());
  cuskimage::Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) { (void)ft::canny(d, {.sigma = 2.0}, s); }));
}

}  // namespace
