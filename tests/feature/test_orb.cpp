// ORB against scikit-image 0.26's goldens (tests/golden/cases_feature_keypoints.py) on a 128x128
// camera crop: the defaults (fewer keypoints than n_keypoints: every layer's, in layer order),
// n_keypoints 40 (ranked by Harris response), FAST n = 12 with other scales; detect alone, and
// extract with given keypoints. Keypoints, scales and descriptors exactly, orientations and
// responses to 1e-9. Then bad arguments and the GPU tier.
#include <gtest/gtest.h>

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
using cuskimage::Stream;
namespace ft = cuskimage::feature;

Array golden(const std::string& name) { return cusktest::load_golden("feature_keypoints/" + name + ".npy"); }

ft::OrbOptions case_options(int c) {
  if (c == 1) return {.n_keypoints = 40};
  if (c == 2) return {.downscale = 1.5, .n_scales = 4, .fast_n = 12, .fast_threshold = 0.05, .harris_k = 0.1};
  return {};
}

/// np.packbits(descriptors, axis=1) of a (N, 256) bool array.
Array packed(const Array& d) {
  const auto v = cusktest::host_copy(d).to_vector<std::uint8_t>();
  std::vector<std::uint8_t> out(v.size() / 8);
  for (std::size_t i = 0; i < out.size(); ++i)
    for (int b = 0; b < 8; ++b) out[i] |= static_cast<std::uint8_t>((v[8 * i + b] != 0) << (7 - b));
  return Array::from_vector(out, {d.shape(0), d.shape(1) / 8});
}

void expect_attrs(const std::string& p, const ft::ORB& o, double tol) {
  EXPECT_TRUE(cusktest::arrays_equal(golden(p + "keypoints"), cusktest::host_copy(o.keypoints)));
  EXPECT_TRUE(cusktest::arrays_equal(golden(p + "scales"), cusktest::host_copy(o.scales)));
  EXPECT_TRUE(cusktest::arrays_close(golden(p + "orientations"), cusktest::host_copy(o.orientations), 0, tol));
  EXPECT_TRUE(cusktest::arrays_close(golden(p + "responses"), cusktest::host_copy(o.responses), 0, tol));
}

void run_goldens(const Device& dev, const Stream& s) {
  const Array cam = golden("cam").to(dev, s);
  const int n = static_cast<int>(golden("ncases").to_vector<double>()[3]);
  for (int c = 0; c < n; ++c) {
    SCOPED_TRACE("orb case " + std::to_string(c));
    ft::ORB o(case_options(c));
    o.detect_and_extract(cam, s);
    EXPECT_EQ(o.descriptors.device(), dev);
    const std::string p = "orb_" + std::to_string(c) + "_";
    expect_attrs(p, o, 1e-9);
    EXPECT_TRUE(cusktest::arrays_equal(golden(p + "descriptors"), packed(o.descriptors)));
    o.detect(cam, s);
    expect_attrs(p + "det_", o, 1e-9);
  }
  ft::ORB d;
  d.detect(cam, s);
  ft::ORB x({.n_keypoints = 40});
  x.extract(cam, d.keypoints, d.scales, d.orientations, s);
  EXPECT_TRUE(cusktest::arrays_equal(golden("orb_x_descriptors"), packed(x.descriptors)));
  EXPECT_TRUE(cusktest::arrays_equal(golden("orb_x_mask"), cusktest::host_copy(x.mask)));
}

TEST(FeatureOrb, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(FeatureOrb, StridedViewEqualsItsCopy) {
  const Array cam = golden("cam");
  const Array wide = cusktest::random_array({cam.shape(0), 2 * cam.shape(1)}, cam.dtype(), 3);
  // cam's values in every other column of a wider array: a view with a column stride of 2.
  Array view = wide.slice({cuskimage::Slice{}, cuskimage::Slice{0, std::nullopt, 2}});
  view.copy_from(cam);
  ft::ORB a(case_options(1)), b(case_options(1));
  a.detect_and_extract(view);
  b.detect_and_extract(view.copy());
  ASSERT_GT(a.keypoints.shape(0), 0);
  EXPECT_TRUE(cusktest::arrays_equal(b.keypoints, a.keypoints));
  EXPECT_TRUE(cusktest::arrays_equal(b.descriptors, a.descriptors));
}

TEST(FeatureOrb, BadArguments) {
  EXPECT_THROW(ft::ORB({.downscale = 1}), InvalidArgument);
  EXPECT_THROW(ft::ORB({.fast_n = 17}), InvalidArgument);
  ft::ORB o;
  EXPECT_THROW(o.detect(Array::zeros({40, 40, 3}, DType::float64)), InvalidArgument);
  EXPECT_THROW(o.detect_and_extract(Array::zeros({64, 64}, DType::float64)), cuskimage::Error);  // no features
  const Array kp = Array::zeros({3, 2}, DType::float64);
  EXPECT_THROW(o.extract(golden("cam"), kp, Array::zeros({2}, DType::float64), Array::zeros({3}, DType::float64)),
               InvalidArgument);
}

TEST(GpuFeatureOrb, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s);
}

TEST(GpuFeatureOrb, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array img = cusktest::random_array({300, 333}, DType::float64, 21, 0, 1);
  for (int c = 0; c < 3; ++c) {
    SCOPED_TRACE(c);
    ft::ORB want(case_options(c)), got(case_options(c));
    want.detect_and_extract(img);
    got.detect_and_extract(img.to(Device::cuda(), s), s);
    EXPECT_TRUE(cusktest::arrays_equal(want.keypoints, cusktest::host_copy(got.keypoints)));
    EXPECT_TRUE(cusktest::arrays_equal(want.descriptors, cusktest::host_copy(got.descriptors)));
    EXPECT_TRUE(cusktest::arrays_close(want.responses, cusktest::host_copy(got.responses), 0, 1e-9));
  }
}

TEST(GpuFeatureOrb, RunsWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array img = golden("cam").to(Device::cuda());
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    ft::ORB o;
    o.detect_and_extract(img, s);
    o.extract(img, o.keypoints, o.scales, o.orientations, s);
  }));
}

}  // namespace
