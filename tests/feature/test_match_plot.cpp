// plot_matched_features rasterised: the canvas layout (padding, alignment), imshow's grey scaling,
// keypoint circles, and the match lines in scikit-image's default colours (numpy's
// default_rng(0).random(3) per match, from tests/golden/cases_feature_keypoints.py) exactly.
#include <gtest/gtest.h>

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

struct Scene {
  Array im0 = Array::full({40, 30}, 0.5, DType::float64);
  Array im1 = Array::full({30, 50}, 1.0, DType::float64);
  Array kp0, kp1, matches;
  Scene() {
    std::vector<double> a, b;
    std::vector<std::int64_t> m;
    for (int i = 0; i < 7; ++i) {
      a.insert(a.end(), {5.0 + 5 * i, 10.0});
      b.insert(b.end(), {5.0 + 3 * i, 20.0});
      m.insert(m.end(), {i, i});
    }
    kp0 = Array::from_vector(a, {7, 2});
    kp1 = Array::from_vector(b, {7, 2});
    matches = Array::from_vector(m, {7, 2});
  }
};

double px(const std::vector<double>& v, std::int64_t cols, std::int64_t r, std::int64_t c, int k) {
  return v[(r * cols + c) * 3 + k];
}

TEST(FeaturePlotMatches, LayoutColoursAndMarkers) {
  Scene s;
  const Array out = ft::plot_matched_features(s.im0, s.im1, s.kp0, s.kp1, s.matches);
  ASSERT_EQ(out.shape(), (cuskimage::Shape{40, 100, 3}));
  const auto v = out.to_vector<double>();
  const auto colours = cusktest::load_golden("feature_keypoints/plot_colours.npy").to_vector<double>();
  for (int i = 0; i < 7; ++i)  // each line starts on its first keypoint (drawn over the circle)
    for (int k = 0; k < 3; ++k) EXPECT_EQ(px(v, 100, 5 + 5 * i, 10, k), colours[3 * i + k]) << i;
  // a circle point (radius 3) of the first image's first keypoint, left of the line: black
  EXPECT_EQ(px(v, 100, 5, 7, 0), 0.0);
  // grey levels: min 0 (padding) .. max 1; image0 at 0.5, image1 at 1, padding below image1 at 0
  EXPECT_EQ(px(v, 100, 39, 29, 0), 0.5);
  EXPECT_EQ(px(v, 100, 0, 99, 1), 1.0);
  EXPECT_EQ(px(v, 100, 35, 60, 2), 0.0);
  // vertical: image1 below
  const Array vert = ft::plot_matched_features(s.im0, s.im1, s.kp0, s.kp1, s.matches,
                                               {.only_matches = true, .alignment = ft::MatchAlignment::vertical});
  ASSERT_EQ(vert.shape(), (cuskimage::Shape{80, 50, 3}));
  const auto w = vert.to_vector<double>();
  EXPECT_EQ(px(w, 50, 5, 7, 0), 0.5);  // no circles
  EXPECT_EQ(px(w, 50, 45, 20, 0), colours[0]);  // end of the first line: (5 + 40, 20)
  // one colour for all
  const Array one = ft::plot_matched_features(s.im0, s.im1, s.kp0, s.kp1, s.matches, {.matches_color = {0, 1, 0}});
  const auto o = one.to_vector<double>();
  EXPECT_EQ(px(o, 100, 35, 10, 1), 1.0);
  EXPECT_EQ(px(o, 100, 35, 10, 0), 0.0);
}

TEST(FeaturePlotMatches, BadArguments) {
  Scene s;
  EXPECT_THROW(ft::plot_matched_features(s.im0, Array::zeros({30, 50, 3}, DType::float64), s.kp0, s.kp1, s.matches),
               InvalidArgument);
  EXPECT_THROW(ft::plot_matched_features(s.im0, s.im1, Array::zeros({7, 3}, DType::float64), s.kp1, s.matches),
               InvalidArgument);
  EXPECT_THROW(ft::plot_matched_features(s.im0, s.im1, s.kp0, s.kp1, Array::full({1, 2}, 9, DType::int64)),
               InvalidArgument);
  EXPECT_THROW(ft::plot_matched_features(s.im0, s.im1, s.kp0, s.kp1, s.matches, {.matches_color = {1, 0}}),
               InvalidArgument);
}

TEST(GpuFeaturePlotMatches, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  Scene s;
  const Stream st = Stream::create();
  const Array want = ft::plot_matched_features(s.im0, s.im1, s.kp0, s.kp1, s.matches);
  const Array got = ft::plot_matched_features(s.im0.to(Device::cuda(), st), s.im1.to(Device::cuda(), st),
                                              s.kp0.to(Device::cuda(), st), s.kp1.to(Device::cuda(), st),
                                              s.matches.to(Device::cuda(), st), {}, st);
  EXPECT_EQ(got.device(), Device::cuda());
  EXPECT_TRUE(cusktest::arrays_equal(want, cusktest::host_copy(got)));
}

}  // namespace
