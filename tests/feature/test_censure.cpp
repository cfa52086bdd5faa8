// CENSURE against scikit-image 0.26's goldens (tests/golden/cases_feature_keypoints.py) on a
// 128x128 camera crop: DoB with the defaults, Octagon, STAR, and DoB over scales 2..6 with a
// lower line threshold. Keypoints and scales exactly, in order. Then bad arguments and the GPU
// tier.
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

ft::CensureOptions case_options(int c) {
  if (c == 1) return {.mode = ft::CensureMode::octagon, .non_max_threshold = 0.05};
  if (c == 2) return {.max_scale = 6, .mode = ft::CensureMode::star, .non_max_threshold = 0.05};
  if (c == 3) return {.min_scale = 2, .max_scale = 6, .non_max_threshold = 0.02, .line_threshold = 5};
  return {};
}

void run_goldens(const Device& dev, const Stream& s) {
  const Array cam = golden("cam").to(dev, s);
  const int n = static_cast<int>(golden("ncases").to_vector<double>()[4]);
  for (int c = 0; c < n; ++c) {
    SCOPED_TRACE("censure case " + std::to_string(c));
    ft::CENSURE d(case_options(c));
    d.detect(cam, s);
    EXPECT_EQ(d.keypoints.device(), dev);
    EXPECT_TRUE(cusktest::arrays_equal(golden("censure_" + std::to_string(c) + "_keypoints"),
                                       cusktest::host_copy(d.keypoints)));
    EXPECT_TRUE(cusktest::arrays_equal(golden("censure_" + std::to_string(c) + "_scales"), cusktest::host_copy(d.scales)));
  }
}

TEST(FeatureCensure, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(FeatureCensure, StridedViewEqualsItsCopy) {
  const Array cam = golden("cam");
  const Array wide = cusktest::random_array({cam.shape(0), 2 * cam.shape(1)}, cam.dtype(), 3);
  Array view = wide.slice({cuskimage::Slice{}, cuskimage::Slice{0, std::nullopt, 2}});
  view.copy_from(cam);
  ft::CENSURE a, b;
  a.detect(view);
  b.detect(view.copy());
  ASSERT_GT(a.keypoints.shape(0), 0);
  EXPECT_TRUE(cusktest::arrays_equal(b.keypoints, a.keypoints));
  EXPECT_TRUE(cusktest::arrays_equal(b.scales, a.scales));
}

TEST(FeatureCensure, BadArguments) {
  EXPECT_THROW(ft::CENSURE({.min_scale = 0}), InvalidArgument);
  EXPECT_THROW(ft::CENSURE({.min_scale = 3, .max_scale = 4}), InvalidArgument);
  EXPECT_THROW(ft::CENSURE({.max_scale = 12, .mode = ft::CensureMode::octagon}), InvalidArgument);
  ft::CENSURE d;
  EXPECT_THROW(d.detect(Array::zeros({40, 40, 3}, DType::float64)), InvalidArgument);
  EXPECT_THROW(d.detect(Array::zeros({28, 64}, DType::float64)), InvalidArgument);  // DoB of scale 7 needs 29
}

TEST(GpuFeatureCensure, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s);
}

TEST(GpuFeatureCensure, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array img = cusktest::random_array({200, 173}, DType::float64, 8, 0, 1);
  for (int c = 0; c < 4; ++c) {
    SCOPED_TRACE(c);
    ft::CENSURE want(case_options(c)), got(case_options(c));
    want.detect(img);
    got.detect(img.to(Device::cuda(), s), s);
    EXPECT_TRUE(cusktest::arrays_equal(want.keypoints, cusktest::host_copy(got.keypoints)));
    EXPECT_TRUE(cusktest::arrays_equal(want.scales, cusktest::host_copy(got.scales)));
  }
}

TEST(GpuFeatureCensure, RunsWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array img = golden("cam").to(Device::cuda());
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    for (auto m : {ft::CensureMode::dob, ft::CensureMode::star}) ft::CENSURE({.mode = m}).detect(img, s);
  }));
}

}  // namespace
