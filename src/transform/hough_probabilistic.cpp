// transform.probabilistic_hough_line and transform.hough_ellipse (host): scikit-image's sequential
// algorithms. The probabilistic transform visits the pixels in scikit-image 0.26's order (from the end
// of numpy's default_rng(seed).shuffle(arange(n)), src/morphology/numpy_permutation.hpp) and walks
// as it does, so the lines equal scikit-image's for the same seed.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>
#include <string_view>
#include <vector>

#include "cuskimage/transform/hough_transform.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/numpy_permutation.hpp"
#include "src/transform/hough.hpp"

namespace cuskimage::transform {
namespace {

using cuskimage::detail::expect;

/// The 2-D image on the host as a nonzero mask (row-major), for any dtype.
std::vector<std::uint8_t> nonzero_mask(const Array& image, std::string_view fn, const Stream& stream) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() == 2, fn, "image", "must be 2D, got ", image.ndim(), "-D");
  const Array h = image.to(Device::cpu(), stream).astype(DType::bool_);
  stream.synchronize();
  const std::vector<bool> b = h.to_vector<bool>();
  return std::vector<std::uint8_t>(b.begin(), b.end());
}

}  // namespace

std::vector<LineSegment> probabilistic_hough_line(const Array& image, const ProbabilisticHoughLineOptions& opts,
                                                  const Stream& stream) {
  constexpr std::string_view kFn = "transform.probabilistic_hough_line";
  std::vector<std::uint8_t> mask = nonzero_mask(image, kFn, stream);
  const std::int64_t height = image.shape(0), width = image.shape(1);
  const std::vector<double> theta = opts.theta.empty() ? hough_default_theta() : opts.theta;
  const auto nt = static_cast<std::int64_t>(theta.size());
  expect(nt > 0, kFn, "theta", "must hold at least one angle");
  std::vector<double> ct(theta.size()), st(theta.size());
  for (std::size_t j = 0; j < theta.size(); ++j) {
    ct[j] = std::cos(theta[j]);
    st[j] = std::sin(theta[j]);
  }
  const auto max_distance =
      static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(height * height + width * width))));
  std::vector<std::int64_t> accum(static_cast<std::size_t>(2 * max_distance * nt), 0);
  std::vector<std::int64_t> xs, ys;
  for (std::int64_t y = 0; y < height; ++y)
    for (std::int64_t x = 0; x < width; ++x)
      if (mask[y * width + x]) {
        xs.push_back(x);
        ys.push_back(y);
      }
  std::vector<LineSegment> lines;
  const auto n_pts = static_cast<std::int64_t>(xs.size());
  if (n_pts == 0) return lines;
  const std::uint64_t seed = opts.rng ? *opts.rng : (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^
                                                        std::random_device{}();
  // scikit-image takes the pixels from the end of default_rng(seed).shuffle(arange(n)).
  const std::vector<std::int64_t> order = morphology::detail::NumpyPermutation(seed).permutation(n_pts);
  constexpr std::size_t kMaxLines = std::size_t(1) << 15;
  constexpr int kShift = 16;  // fixed-point walk along the line's slower axis
  std::vector<std::array<std::int64_t, 2>> line_pixels;
  const auto vote = [&](std::int64_t x, std::int64_t y, std::int64_t j, std::int64_t d) -> std::int64_t& {
    std::int64_t& cell = accum[detail::rho_index(ct[j], st[j], x, y, max_distance) * nt + j];
    cell += d;
    return cell;
  };
  for (std::int64_t count = n_pts; count-- > 0;) {
    const std::int64_t x = xs[order[count]], y = ys[order[count]];
    if (!mask[y * width + x]) continue;
    std::int64_t max_value = -1, max_j = -1;
    for (std::int64_t j = 0; j < nt; ++j) {
      const std::int64_t v = vote(x, y, j, 1);
      if (v > max_value) {
        max_value = v;
        max_j = j;
      }
    }
    if (max_value < opts.threshold) continue;
    // Walk both ways from (x, y) along the peak's line, one pixel at a time along the faster axis and
    // in 16-bit fixed point along the other, bridging gaps of up to line_gap pixels.
    const double a = -st[max_j], b = ct[max_j];
    const bool xflag = std::fabs(a) > std::fabs(b);
    std::int64_t x0 = x, y0 = y, dx0, dy0;
    if (xflag) {
      dx0 = a > 0 ? 1 : -1;
      dy0 = detail::hough_round(b * (1 << kShift) / std::fabs(a));
      y0 = (y0 << kShift) + (1 << (kShift - 1));
    } else {
      dy0 = b > 0 ? 1 : -1;
      dx0 = detail::hough_round(a * (1 << kShift) / std::fabs(b));
      x0 = (x0 << kShift) + (1 << (kShift - 1));
    }
    std::int64_t ends[2][2] = {{x, y}, {x, y}};
    line_pixels.assign(1, {x, y});
    for (int k = 0; k < 2; ++k) {
      const std::int64_t dx = k ? -dx0 : dx0, dy = k ? -dy0 : dy0;
      std::int64_t gap = 0;
      for (std::int64_t px = x0 + dx, py = y0 + dy;; px += dx, py += dy) {
        const std::int64_t x1 = xflag ? px : px >> kShift, y1 = xflag ? py >> kShift : py;
        if (x1 < 0 || x1 >= width || y1 < 0 || y1 >= height) break;
        ++gap;
        if (mask[y1 * width + x1]) {
          gap = 0;
          ends[k][0] = x1;
          ends[k][1] = y1;
          line_pixels.push_back({x1, y1});
        } else if (gap > opts.line_gap) {
          break;
        }
      }
    }
    if (std::abs(ends[1][0] - ends[0][0]) < opts.line_length && std::abs(ends[1][1] - ends[0][1]) < opts.line_length)
      continue;
    // Remove the line's pixels and their votes at every angle (whether or not they voted yet, as
    // scikit-image does).
    for (const auto& [x1, y1] : line_pixels) {
      mask[y1 * width + x1] = 0;
      for (std::int64_t j = 0; j < nt; ++j) vote(x1, y1, j, -1);
    }
    lines.push_back(LineSegment{{{ends[0][0], ends[0][1]}, {ends[1][0], ends[1][1]}}});
    if (lines.size() >= kMaxLines) break;
  }
  return lines;
}

std::vector<HoughEllipse> hough_ellipse(const Array& image, const HoughEllipseOptions& opts, const Stream& stream) {
  constexpr std::string_view kFn = "transform.hough_ellipse";
  const std::vector<std::uint8_t> mask = nonzero_mask(image, kFn, stream);
  expect(opts.accuracy > 0, kFn, "accuracy", "must be positive, got ", opts.accuracy);
  const std::int64_t rows = image.shape(0), cols = image.shape(1);
  std::vector<double> px, py;
  for (std::int64_t y = 0; y < rows; ++y)
    for (std::int64_t x = 0; x < cols; ++x)
      if (mask[y * cols + x]) {
        px.push_back(static_cast<double>(x));
        py.push_back(static_cast<double>(y));
      }
  std::vector<HoughEllipse> results;
  const double bin_size = opts.accuracy * opts.accuracy;
  double max_b_squared;
  if (opts.max_size) {
    max_b_squared = *opts.max_size * *opts.max_size;
  } else {
    max_b_squared = std::nearbyint(0.5 * static_cast<double>(rows < cols ? rows : cols));
    max_b_squared *= max_b_squared;
  }
  const double min_size = static_cast<double>(opts.min_size);
  const std::size_t n = px.size();
  std::vector<double> acc, edges;
  std::vector<std::int64_t> hist;
  for (std::size_t p1 = 0; p1 < n; ++p1)
    for (std::size_t p2 = 0; p2 < p1; ++p2) {
      double dx = px[p1] - px[p2], dy = py[p1] - py[p2];
      double a = 0.5 * std::sqrt(dx * dx + dy * dy);
      if (!(a > 0.5 * min_size)) continue;
      const double xc = 0.5 * (px[p1] + px[p2]), yc = 0.5 * (py[p1] + py[p2]);
      for (std::size_t p3 = 0; p3 < n; ++p3) {
        dx = px[p3] - xc;
        dy = py[p3] - yc;
        const double d = std::sqrt(dx * dx + dy * dy);
        if (!(d > min_size)) continue;
        dx = px[p3] - px[p1];
        dy = py[p3] - py[p1];
        double cos_tau_squared = (a * a + d * d - dx * dx - dy * dy) / (2 * a * d);
        cos_tau_squared *= cos_tau_squared;
        const double k = a * a - d * d * cos_tau_squared;
        if (k > 0 && cos_tau_squared < 1) {
          const double b_squared = a * a * d * d * (1 - cos_tau_squared) / k;
          if (b_squared <= max_b_squared) acc.push_back(b_squared);
        }
      }
      if (acc.empty()) continue;
      // np.histogram(acc, bins=np.arange(0, max(acc) + bin_size, bin_size)): [e_i, e_i+1), the last
      // bin closed.
      const double top = *std::max_element(acc.begin(), acc.end()) + bin_size;
      const auto ne = static_cast<std::size_t>(std::ceil(top / bin_size));
      edges.resize(ne);
      for (std::size_t i = 0; i < ne; ++i) edges[i] = static_cast<double>(i) * bin_size;
      hist.assign(ne > 1 ? ne - 1 : 0, 0);
      for (double v : acc) {
        if (hist.empty() || v < edges.front() || v > edges.back()) continue;
        auto i = static_cast<std::size_t>(std::upper_bound(edges.begin(), edges.end(), v) - edges.begin()) - 1;
        if (i >= hist.size()) i = hist.size() - 1;
        ++hist[i];
      }
      acc.clear();
      if (hist.empty()) continue;
      const auto it = std::max_element(hist.begin(), hist.end());
      const std::int64_t hist_max = *it;
      if (hist_max <= opts.threshold) continue;
      double orientation = std::atan2(px[p1] - px[p2], py[p1] - py[p2]);
      double b = std::sqrt(edges[static_cast<std::size_t>(it - hist.begin())]);
      if (orientation != 0) {
        orientation = std::numbers::pi - orientation;
        if (orientation > std::numbers::pi) {
          orientation = orientation - std::numbers::pi / 2.;
          std::swap(a, b);
        }
      }
      results.push_back({hist_max, yc, xc, a, b, orientation});
    }
  return results;
}

}  // namespace cuskimage::transform
