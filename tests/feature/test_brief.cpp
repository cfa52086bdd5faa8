// BRIEF against scikit-image 0.26's goldens (tests/golden/cases_feature_keypoints.py): both sample
// modes, odd and even patches, uint8 and float32 images, keypoints inside, on and past the border
// (fractional and integral). Descriptors and masks exactly. Then bad arguments and the GPU tier.
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
using cuskimage::Stream;
namespace ft = cuskimage::feature;

Array golden(const std::string& name) { return cusktest::load_golden("feature_keypoints/" + name + ".npy"); }

ft::BriefOptions case_options(const std::vector<double>& p) {
  return {.descriptor_size = static_cast<std::int64_t>(p[0]), .patch_size = static_cast<std::int64_t>(p[1]),
          .mode = p[2] == 0 ? ft::BriefMode::normal : ft::BriefMode::uniform, .sigma = p[3],
          .rng = static_cast<std::uint64_t>(p[4])};
}

/// The camera crop as uint8, or as float32(camera / 255.0) as the case file makes it.
Array case_image(double which) {
  const Array cam = golden("cam");
  if (which == 0) return cam.share();
  auto v = cam.to_vector<double>();
  std::vector<float> f(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) f[i] = static_cast<float>(v[i] / 255.0);
  return Array::from_vector(f, cam.shape());
}

void run_goldens(const Device& dev, const Stream& s) {
  const int n = static_cast<int>(golden("ncases").to_vector<double>()[0]);
  for (int c = 0; c < n; ++c) {
    SCOPED_TRACE("brief case " + std::to_string(c));
    const auto p = golden("brief_p_" + std::to_string(c)).to_vector<double>();
    const Array img = case_image(p[5]);
    ft::BRIEF b(case_options(p));
    b.extract(img.to(dev, s), golden("brief_kp_" + std::to_string(c)).to(dev, s), s);
    EXPECT_EQ(b.descriptors.device(), dev);
    EXPECT_TRUE(cusktest::arrays_equal(golden("brief_desc_" + std::to_string(c)), cusktest::host_copy(b.descriptors)));
    EXPECT_TRUE(cusktest::arrays_equal(golden("brief_mask_" + std::to_string(c)), cusktest::host_copy(b.mask)));
  }
}

TEST(FeatureBrief, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(FeatureBrief, SameSeedSamePairs) {
  const Array img = golden("cam");
  const Array kp = Array::from_vector(std::vector<double>{50, 50, 60, 70}, {2, 2});
  ft::BRIEF b({.rng = std::nullopt});  // the seed is drawn once, at construction
  b.extract(img, kp);
  const Array first = b.descriptors.copy();
  b.extract(img, kp);
  EXPECT_TRUE(cusktest::arrays_equal(first, b.descriptors));
  const auto r = ft::brief(img, kp, {.rng = 1});
  ft::BRIEF d;
  d.extract(img, kp);
  EXPECT_TRUE(cusktest::arrays_equal(r.descriptors, d.descriptors));
}

TEST(FeatureBrief, StridedViewEqualsItsCopy) {
  const Array cam = golden("cam");
  const Array wide = cusktest::random_array({cam.shape(0), 2 * cam.shape(1)}, cam.dtype(), 3);
  Array view = wide.slice({cuskimage::Slice{}, cuskimage::Slice{0, std::nullopt, 2}});
  view.copy_from(cam);
  const Array kp = Array::from_vector(std::vector<double>{50, 50, 60, 70, 30, 90}, {3, 2});
  const auto a = ft::brief(view, kp, {.rng = 1});
  const auto b = ft::brief(view.copy(), kp, {.rng = 1});
  ASSERT_GT(a.descriptors.shape(0), 0);
  EXPECT_TRUE(cusktest::arrays_equal(b.descriptors, a.descriptors));
  EXPECT_TRUE(cusktest::arrays_equal(b.mask, a.mask));
}

TEST(FeatureBrief, SmallImageMasksEverything) {
  // scikit-image masks keypoints closer than patch_size // 2 to the border: no error, no descriptor.
  const Array img = Array::zeros({20, 20}, DType::float64);
  const auto r = ft::brief(img, Array::from_vector(std::vector<double>{10, 10}, {1, 2}));
  EXPECT_EQ(r.descriptors.shape(0), 0);
  EXPECT_EQ(r.descriptors.shape(1), 256);
  EXPECT_FALSE(r.mask.to_vector<bool>()[0]);
}

TEST(FeatureBrief, BadArguments) {
  const Array img = Array::zeros({64, 64}, DType::float64);
  const Array kp = Array::from_vector(std::vector<double>{32, 32}, {1, 2});
  EXPECT_THROW(ft::brief(Array::zeros({64, 64, 3}, DType::float64), kp), InvalidArgument);
  EXPECT_THROW(ft::brief(img, Array::zeros({3, 3}, DType::float64)), InvalidArgument);
  EXPECT_THROW(ft::brief(img, kp, {.descriptor_size = 0}), InvalidArgument);
  EXPECT_THROW(ft::brief(img, kp, {.patch_size = 0}), InvalidArgument);
  EXPECT_THROW(ft::brief(img, kp, {.patch_size = 2}), InvalidArgument);  // no normal sample fits
  EXPECT_THROW(ft::brief(img, kp, {.sigma = -1}), InvalidArgument);
}

TEST(GpuFeatureBrief, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s);
}

TEST(GpuFeatureBrief, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::float32, DType::float64, DType::uint8}) {
    const Array img = cusktest::random_array({300, 257}, dt, 9, 0, dt == DType::uint8 ? 255 : 1);
    const Array kp = cusktest::random_array({500, 2}, DType::float64, 10, -5, 300);
    for (auto mode : {ft::BriefMode::normal, ft::BriefMode::uniform}) {
      const ft::BriefOptions o{.patch_size = 31, .mode = mode, .rng = 4};
      const auto want = ft::brief(img, kp, o);
      const auto got = ft::brief(img.to(Device::cuda(), s), kp.to(Device::cuda(), s), o, s);
      EXPECT_TRUE(cusktest::arrays_equal(want.descriptors, cusktest::host_copy(got.descriptors)));
      EXPECT_TRUE(cusktest::arrays_equal(want.mask, cusktest::host_copy(got.mask)));
    }
  }
}

TEST(GpuFeatureBrief, RunsWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array img = cusktest::random_array({128, 128}, DType::float32, 3, 0, 1).to(Device::cuda());
  const Array kp = cusktest::random_array({50, 2}, DType::float64, 4, 0, 128).to(Device::cuda());
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) { ft::brief(img, kp, {}, s); }));
}

}  // namespace
