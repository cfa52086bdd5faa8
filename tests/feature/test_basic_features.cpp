// multiscale_basic_features against scikit-image 0.26's goldens (tests/golden/
// cases_feature_basic_features.py): uint8 / float64 2-D, RGB with channels last and first, 3-D;
// each feature flag, default and explicit num_sigma. float32 features within 2e-6 absolute in
// 2-D (the Gaussian / Sobel passes' summation order; the texture arithmetic is scikit-image's in
// float32) and 1e-5 relative + 1e-6 absolute in 3-D (LAPACK's float32 eigvalsh vs a closed form).
// Then bad arguments and the GPU tier (device == CPU within the filters' stated tolerance, strided
// views, a non-default stream).
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

Array golden(const std::string& name) { return cusktest::load_golden("feature_basic_features/" + name + ".npy"); }

void run_goldens(const Device& dev, const Stream& s, double tol) {
  const auto count = golden("ncases").to_vector<std::int64_t>()[0];
  ASSERT_EQ(count, 8);
  for (int n = 0; n < count; ++n) {
    SCOPED_TRACE("case " + std::to_string(n));
    const auto p = golden("p_" + std::to_string(n)).to_vector<double>();
    const Array img = golden("img_" + std::to_string(static_cast<int>(p[0]))).to(dev, s);
    ft::MultiscaleBasicFeaturesOptions o{.intensity = p[1] != 0, .edges = p[2] != 0, .texture = p[3] != 0,
                                         .sigma_min = p[4], .sigma_max = p[5]};
    if (p[6] > 0) o.num_sigma = static_cast<std::int64_t>(p[6]);
    if (!std::isnan(p[7])) o.channel_axis = static_cast<int>(p[7]);
    const Array got = ft::multiscale_basic_features(img, o, s);
    EXPECT_EQ(got.device(), dev);
    const bool vol = p[0] == 4;
    EXPECT_ARRAY_NEAR(golden("out_" + std::to_string(n)), cusktest::host_copy(got), vol ? 1e-5 : 0.0,
                      vol ? 1e-6 : tol);
  }
}

TEST(FeatureBasicFeatures, Goldens) { run_goldens(Device::cpu(), Stream(), 2e-6); }

TEST(FeatureBasicFeatures, BadArguments) {
  using cuskimage::InvalidArgument;
  const Array img = cusktest::random_array({16, 16}, DType::uint8, 5);
  EXPECT_THROW(ft::multiscale_basic_features(img, {.intensity = false, .edges = false, .texture = false}),
               InvalidArgument);
  EXPECT_THROW(ft::multiscale_basic_features(Array::zeros({16}, DType::uint8)), InvalidArgument);
  EXPECT_THROW(ft::multiscale_basic_features(img, {.channel_axis = 3}), InvalidArgument);
  EXPECT_THROW(ft::multiscale_basic_features(img, {.sigma_min = 0}), InvalidArgument);
  EXPECT_THROW(ft::multiscale_basic_features(img, {.sigma_min = 4, .sigma_max = 1}), InvalidArgument);
  EXPECT_THROW(ft::multiscale_basic_features(Array::zeros({1, 16}, DType::uint8)), InvalidArgument);
}

// ---- GPU tier ------------------------------------------------------------------------------------------

TEST(GpuFeatureBasicFeatures, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s, 2e-5);  // float32 Gaussian sums on the device (filters.hpp)
}

TEST(GpuFeatureBasicFeatures, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 31;
  for (const Shape& shape : {Shape{130, 117}, Shape{20, 22, 19}}) {
    const Array h = cusktest::random_array(shape, DType::uint8, seed++);
    const Array d = h.to(Device::cuda(), s);
    const ft::MultiscaleBasicFeaturesOptions o{.sigma_max = 8};
    EXPECT_ARRAY_NEAR(ft::multiscale_basic_features(h, o),
                      cusktest::host_copy(ft::multiscale_basic_features(d, o, s)), 1e-5, 2e-5);
    const Array hv = h.slice({Slice{std::nullopt, std::nullopt, 2}});
    const Array dv = d.slice({Slice{std::nullopt, std::nullopt, 2}});
    EXPECT_ARRAY_NEAR(ft::multiscale_basic_features(hv, o),
                      cusktest::host_copy(ft::multiscale_basic_features(dv, o, s)), 1e-5, 2e-5);
  }
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([](const Stream& st) {
    const Array d = cusktest::random_array({96, 96}, DType::uint8, 4).to(Device::cuda(), st);
    (void)ft::multiscale_basic_features(d, {}, st);
  }));
}

}  // namespace
