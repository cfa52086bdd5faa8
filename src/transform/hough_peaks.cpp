// transform.hough_line_peaks and transform.hough_circle_peaks (host): scikit-image's
// _prominent_peaks (maximum filters, regions of local maxima above the threshold, strongest region
// first, neighbourhoods suppressed with the x axis wrapping) and label_distant_points.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string_view>
#include <vector>

#include "cuskimage/measure.hpp"
#include "cuskimage/transform/hough_transform.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::transform {
namespace {

using cuskimage::detail::expect;

struct Peaks {
  std::vector<double> value;
  std::vector<std::int64_t> x, y;
};

/// scipy.ndimage.maximum_filter1d(mode='constant', cval=0) of a rows x cols image along `axis`.
std::vector<double> max_filter(const std::vector<double>& a, std::int64_t rows, std::int64_t cols, int axis,
                               std::int64_t half) {
  std::vector<double> out(a.size());
  const std::int64_t n = axis == 0 ? rows : cols, m = axis == 0 ? cols : rows;
  const std::int64_t step = axis == 0 ? cols : 1, lstep = axis == 0 ? 1 : cols;
  for (std::int64_t l = 0; l < m; ++l)
    for (std::int64_t i = 0; i < n; ++i) {
      double v = -std::numeric_limits<double>::infinity();
      for (std::int64_t k = i - half; k <= i + half; ++k) {
        const double s = (k < 0 || k >= n) ? 0.0 : a[l * lstep + k * step];
        v = std::max(v, s);
      }
      out[l * lstep + i * step] = v;
    }
  return out;
}

/// Indices of `v` in numpy's argsort(v)[::-1] order (a stable ascending sort, reversed).
std::vector<std::size_t> argsort_desc(const std::vector<double>& v) {
  std::vector<std::size_t> idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::reverse(idx.begin(), idx.end());
  return idx;
}

Peaks prominent_peaks(std::vector<double> img, std::int64_t rows, std::int64_t cols, std::int64_t min_x,
                      std::int64_t min_y, std::optional<double> threshold_opt, std::optional<std::int64_t> num_peaks,
                      std::string_view fn) {
  Peaks out;
  if (img.empty()) return out;
  const double threshold = threshold_opt.value_or(0.5 * *std::max_element(img.begin(), img.end()));
  std::vector<double> mx = max_filter(max_filter(img, rows, cols, 0, min_y), rows, cols, 1, min_x);
  std::vector<std::uint8_t> above(img.size());
  for (std::size_t i = 0; i < img.size(); ++i) above[i] = (img[i] == mx[i] ? img[i] : 0.0) > threshold;
  const Array lab = measure::label_with_num(Array::from_vector(above, {rows, cols})).labels;
  const std::int64_t nlab = [&] {
    std::int64_t m = 0;
    for (std::int64_t v : lab.to_vector<std::int64_t>()) m = std::max(m, v);
    return m;
  }();
  const std::vector<std::int64_t> labels = lab.to_vector<std::int64_t>();
  std::vector<double> imax(static_cast<std::size_t>(nlab), -std::numeric_limits<double>::infinity());
  std::vector<std::int64_t> sy(nlab), sx(nlab), count(nlab);
  for (std::int64_t i = 0; i < rows * cols; ++i) {
    const std::int64_t l = labels[i] - 1;
    if (l < 0) continue;
    imax[l] = std::max(imax[l], mx[i]);
    sy[l] += i / cols;
    sx[l] += i % cols;
    ++count[l];
  }
  // sorted(props, key=intensity_max)[::-1]: stable ascending, reversed.
  const std::vector<std::size_t> order = argsort_desc(imax);
  for (std::size_t l : order) {
    const auto yc = static_cast<std::int64_t>(std::nearbyint(static_cast<double>(sy[l]) / static_cast<double>(count[l])));
    const auto xc = static_cast<std::int64_t>(std::nearbyint(static_cast<double>(sx[l]) / static_cast<double>(count[l])));
    const double accum = mx[yc * cols + xc];
    if (!(accum > threshold)) continue;
    for (std::int64_t dy = -min_y; dy <= min_y; ++dy) {
      std::int64_t y = yc + dy;
      if (!(y > 0 && y < rows)) continue;  // scikit-image keeps rows 1 .. rows - 1
      for (std::int64_t dx = -min_x; dx <= min_x; ++dx) {
        std::int64_t x = xc + dx, yy = y;
        if (x < 0) {
          yy = rows - y;
          x += cols;
        } else if (x >= cols) {
          yy = rows - y;
          x -= cols;
        }
        expect(x >= 0 && x < cols, fn, "min_xdistance", "reaches past the accumulator's x axis twice");
        mx[yy * cols + x] = 0.0;
      }
    }
    out.value.push_back(accum);
    out.y.push_back(yc);
    out.x.push_back(xc);
  }
  if (num_peaks && *num_peaks < static_cast<std::int64_t>(out.value.size())) {
    const std::vector<std::size_t> idx = argsort_desc(out.value);
    Peaks t;
    for (std::int64_t k = 0; k < std::max<std::int64_t>(*num_peaks, 0); ++k) {
      t.value.push_back(out.value[idx[k]]);
      t.x.push_back(out.x[idx[k]]);
      t.y.push_back(out.y[idx[k]]);
    }
    out = std::move(t);
  }
  return out;
}

std::vector<double> host_values(const Array& a, const Stream& stream) {
  const Array h = a.to(Device::cpu(), stream).astype(DType::float64);
  stream.synchronize();
  return h.to_vector<double>();
}

}  // namespace

HoughLinePeaksResult hough_line_peaks(const Array& hspace, const std::vector<double>& angles,
                                      const std::vector<double>& distances, const HoughLinePeaksOptions& opts,
                                      const Stream& stream) {
  constexpr std::string_view kFn = "transform.hough_line_peaks";
  cuskimage::detail::expect_valid(hspace, kFn, "hspace");
  expect(hspace.ndim() == 2, kFn, "hspace", "must be 2-D, got ", hspace.ndim(), "-D");
  expect(static_cast<std::int64_t>(angles.size()) == hspace.shape(1), kFn, "angles", "must hold ", hspace.shape(1),
         " angles, got ", angles.size());
  expect(static_cast<std::int64_t>(distances.size()) == hspace.shape(0), kFn, "dists", "must hold ",
         hspace.shape(0), " distances, got ", distances.size());
  expect(opts.min_distance >= 0 && opts.min_angle >= 0, kFn, "min_distance", "and 'min_angle' must be >= 0");
  const std::int64_t min_angle = std::min(opts.min_angle, hspace.shape(1));
  const Peaks p = prominent_peaks(host_values(hspace, stream), hspace.shape(0), hspace.shape(1), min_angle,
                                  opts.min_distance, opts.threshold, opts.num_peaks, kFn);
  HoughLinePeaksResult r;
  r.accum = p.value;
  for (std::size_t i = 0; i < p.value.size(); ++i) {
    r.angles.push_back(angles[p.x[i]]);
    r.distances.push_back(distances[p.y[i]]);
  }
  return r;
}

HoughCirclePeaksResult hough_circle_peaks(const Array& hspaces, const std::vector<std::int64_t>& radii,
                                          const HoughCirclePeaksOptions& opts, const Stream& stream) {
  constexpr std::string_view kFn = "transform.hough_circle_peaks";
  cuskimage::detail::expect_valid(hspaces, kFn, "hspaces");
  expect(hspaces.ndim() == 3, kFn, "hspaces", "must be 3-D (radius, rows, cols), got ", hspaces.ndim(), "-D");
  expect(opts.min_xdistance >= 0 && opts.min_ydistance >= 0, kFn, "min_xdistance", "and 'min_ydistance' must be >= 0");
  const std::int64_t rows = hspaces.shape(1), cols = hspaces.shape(2);
  const std::vector<double> all = host_values(hspaces, stream);
  const std::size_t nr = std::min<std::size_t>(radii.size(), static_cast<std::size_t>(hspaces.shape(0)));
  std::vector<double> accum, key;
  std::vector<std::int64_t> cx, cy, rr;
  for (std::size_t k = 0; k < nr; ++k) {
    std::vector<double> plane(all.begin() + static_cast<std::ptrdiff_t>(k * rows * cols),
                              all.begin() + static_cast<std::ptrdiff_t>((k + 1) * rows * cols));
    const Peaks p = prominent_peaks(std::move(plane), rows, cols, opts.min_xdistance, opts.min_ydistance,
                                    opts.threshold, opts.num_peaks, kFn);
    for (std::size_t i = 0; i < p.value.size(); ++i) {
      accum.push_back(p.value[i]);
      cx.push_back(p.x[i]);
      cy.push_back(p.y[i]);
      rr.push_back(radii[k]);
      key.push_back(opts.normalize ? p.value[i] / static_cast<double>(radii[k]) : p.value[i]);
    }
  }
  const std::vector<std::size_t> s = argsort_desc(key);
  const auto n = static_cast<std::int64_t>(s.size());
  const std::int64_t tnp = opts.total_num_peaks ? std::max<std::int64_t>(*opts.total_num_peaks, 0) : n;
  HoughCirclePeaksResult r;
  const bool plain = opts.min_xdistance == 1 && opts.min_ydistance == 1;
  // label_distant_points: a point is dropped when a kept earlier (stronger) one lies within
  // min_xdistance and min_ydistance of it (and within their hypot, scipy's ball query), or once
  // `tnp` points are kept.
  std::vector<bool> neighbour(s.size(), false);
  if (!plain) {
    const double h = std::hypot(static_cast<double>(opts.min_xdistance), static_cast<double>(opts.min_ydistance));
    std::int64_t kept = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      if (kept >= tnp) {
        neighbour[i] = true;
      } else if (!neighbour[i]) {
        for (std::int64_t j = i + 1; j < n; ++j) {
          const double dx = static_cast<double>(cx[s[j]] - cx[s[i]]), dy = static_cast<double>(cy[s[j]] - cy[s[i]]);
          if (dx * dx + dy * dy <= h * h && std::abs(dx) <= static_cast<double>(opts.min_xdistance) &&
              std::abs(dy) <= static_cast<double>(opts.min_ydistance))
            neighbour[j] = true;
        }
        ++kept;
      }
    }
  }
  for (std::int64_t i = 0; i < n; ++i) {
    if (plain ? i >= tnp : static_cast<bool>(neighbour[i])) continue;
    r.accum.push_back(accum[s[i]]);
    r.cx.push_back(cx[s[i]]);
    r.cy.push_back(cy[s[i]]);
    r.radii.push_back(rr[s[i]]);
  }
  return r;
}

}  // namespace cuskimage::transform
