// feature.plot_matched_features: the scene scikit-image draws with matplotlib, rasterised on the
// host (a few lines and circles; the canvas then goes to the image's device). See util.hpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "cuskimage/feature.hpp"
#include "cuskimage/util.hpp"
#include "src/core/numpy_random.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::feature {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "feature.plot_matched_features";

struct Canvas {
  std::int64_t rows, cols;
  std::vector<double> rgb;
  void put(std::int64_t r, std::int64_t c, const double* colour) {
    if (r < 0 || c < 0 || r >= rows || c >= cols) return;
    std::copy(colour, colour + 3, rgb.begin() + (r * cols + c) * 3);
  }
};

/// skimage.draw.circle_perimeter (Bresenham).
void circle(Canvas& cv, std::int64_t r, std::int64_t c, std::int64_t radius, const double* colour) {
  std::int64_t x = 0, y = radius, d = 3 - 2 * radius;
  while (y >= x) {
    for (auto [dr, dc] : {std::array<std::int64_t, 2>{y, x}, {-y, x}, {y, -x}, {-y, -x}, {x, y}, {-x, y}, {x, -y}, {-x, -y}})
      cv.put(r + dr, c + dc, colour);
    if (d < 0) {
      d += 4 * x + 6;
    } else {
      d += 4 * (x - y) + 10;
      --y;
    }
    ++x;
  }
}

/// skimage.draw.line (Bresenham, both end points included).
void line(Canvas& cv, std::int64_t r0, std::int64_t c0, std::int64_t r1, std::int64_t c1, const double* colour) {
  std::int64_t r = r0, c = c0, dr = std::llabs(r1 - r0), dc = std::llabs(c1 - c0);
  std::int64_t sr = r1 > r0 ? 1 : -1, sc = c1 > c0 ? 1 : -1;
  const bool steep = dr > dc;
  if (steep) std::swap(r, c), std::swap(dr, dc), std::swap(sr, sc);
  std::int64_t d = 2 * dr - dc;
  for (std::int64_t i = 0; i < dc; ++i) {
    steep ? cv.put(c, r, colour) : cv.put(r, c, colour);
    while (d >= 0) r += sr, d -= 2 * dc;
    c += sc;
    d += 2 * dr;
  }
  cv.put(r1, c1, colour);
}

/// (K, 2) keypoints on the host as doubles.
std::vector<double> keypoint_list(const Array& kp, std::string_view name, const Stream& s) {
  cuskimage::detail::expect_valid(kp, kFn, name);
  expect(kp.ndim() == 2 && kp.shape(1) == 2, kFn, name, "must have shape (K, 2)");
  return kp.to(Device::cpu(), s).to_vector<double>();
}

}  // namespace

Array plot_matched_features(const Array& image0, const Array& image1, const Array& keypoints0,
                            const Array& keypoints1, const Array& matches, const PlotMatchedFeaturesOptions& opts,
                            const Stream& stream) {
  cuskimage::detail::expect_valid(image0, kFn, "image0");
  cuskimage::detail::expect_valid(image1, kFn, "image1");
  const bool rgb = image0.ndim() == 3;
  expect((image0.ndim() == 2 || (rgb && image0.shape(2) == 3)), kFn, "image0", "must be (N, M) or (N, M, 3)");
  expect(image1.ndim() == image0.ndim() && (!rgb || image1.shape(2) == 3), kFn, "image1",
         "must have image0's number of dimensions and channels");
  const auto k0 = keypoint_list(keypoints0, "keypoints0", stream), k1 = keypoint_list(keypoints1, "keypoints1", stream);
  cuskimage::detail::expect_valid(matches, kFn, "matches");
  expect(matches.ndim() == 2 && matches.shape(1) == 2, kFn, "matches", "must have shape (Q, 2)");
  const auto m = matches.to(Device::cpu(), stream).to_vector<std::int64_t>();
  const std::int64_t q = matches.shape(0), n0 = keypoints0.shape(0), n1 = keypoints1.shape(0);
  for (std::int64_t i = 0; i < q; ++i)
    expect(m[2 * i] >= 0 && m[2 * i] < n0 && m[2 * i + 1] >= 0 && m[2 * i + 1] < n1, kFn, "matches",
           "indexes past the keypoints (row ", i, ")");
  const std::size_t nc = opts.matches_color.size();
  expect(nc == 0 || nc == 3 || nc == static_cast<std::size_t>(3 * q), kFn, "matches_color",
         "needs to be a single color or a sequence of length equal to the number of matches");
  expect(opts.marker_radius >= 0, kFn, "marker_radius", "must be >= 0");
  const bool horizontal = opts.alignment == MatchAlignment::horizontal;
  // Common shape, then the canvas.
  const std::int64_t h = std::max(image0.shape(0), image1.shape(0)), w = std::max(image0.shape(1), image1.shape(1));
  Canvas cv{horizontal ? h : 2 * h, horizontal ? 2 * w : w, {}};
  cv.rgb.assign(static_cast<std::size_t>(cv.rows * cv.cols * 3), 0.0);
  const Array f0 = util::img_as_float(image0, {}, stream).to(Device::cpu(), stream).astype(DType::float64);
  const Array f1 = util::img_as_float(image1, {}, stream).to(Device::cpu(), stream).astype(DType::float64);
  const auto v0 = f0.to_vector<double>(), v1 = f1.to_vector<double>();
  double lo = 0, hi = 1;
  if (!rgb) {  // imshow(cmap='gray'): from the minimum to the maximum of the shown image (padding included)
    lo = std::min(*std::min_element(v0.begin(), v0.end()), *std::min_element(v1.begin(), v1.end()));
    hi = std::max(*std::max_element(v0.begin(), v0.end()), *std::max_element(v1.begin(), v1.end()));
    if (image0.shape() != image1.shape()) lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
  }
  const std::int64_t ch = rgb ? 3 : 1;
  auto paint = [&](const std::vector<double>& v, const Array& img, std::int64_t r0, std::int64_t c0) {
    for (std::int64_t r = 0; r < img.shape(0); ++r)
      for (std::int64_t c = 0; c < img.shape(1); ++c)
        for (std::int64_t k = 0; k < 3; ++k) {
          const double x = v[(r * img.shape(1) + c) * ch + (rgb ? k : 0)];
          const double y = rgb ? std::clamp(x, 0.0, 1.0) : (hi > lo ? (x - lo) / (hi - lo) : 0.0);
          cv.rgb[((r0 + r) * cv.cols + c0 + c) * 3 + k] = y;
        }
  };
  const std::int64_t off_r = horizontal ? 0 : h, off_c = horizontal ? w : 0;
  if (!rgb && hi > lo && lo < 0) {  // the zero padding is shown at its grey level too
    for (std::int64_t i = 0; i < cv.rows * cv.cols * 3; ++i) cv.rgb[i] = (0.0 - lo) / (hi - lo);
  }
  paint(v0, image0, 0, 0);
  paint(v1, image1, off_r, off_c);
  auto rd = [](double x) { return static_cast<std::int64_t>(std::nearbyint(x)); };
  if (!opts.only_matches) {
    for (std::int64_t i = 0; i < n0; ++i) circle(cv, rd(k0[2 * i]), rd(k0[2 * i + 1]), opts.marker_radius, opts.keypoints_color.data());
    for (std::int64_t i = 0; i < n1; ++i)
      circle(cv, rd(k1[2 * i] + off_r), rd(k1[2 * i + 1] + off_c), opts.marker_radius, opts.keypoints_color.data());
  }
  cuskimage::detail::NumpyNormal colours(0);
  for (std::int64_t i = 0; i < q; ++i) {
    double col[3];
    for (int k = 0; k < 3; ++k)
      col[k] = nc == 0 ? colours.random() : opts.matches_color[nc == 3 ? k : 3 * i + k];
    const std::int64_t a = m[2 * i], b = m[2 * i + 1];
    line(cv, rd(k0[2 * a]), rd(k0[2 * a + 1]), rd(k1[2 * b] + off_r), rd(k1[2 * b + 1] + off_c), col);
  }
  return Array::from_vector(cv.rgb, {cv.rows, cv.cols, 3}).to(image0.device(), stream);
}

}  // namespace cuskimage::feature
