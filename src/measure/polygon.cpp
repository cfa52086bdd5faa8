// skimage.measure.approximate_polygon (Douglas-Peucker) and subdivide_polygon (B-spline
// subdivision), on the host: the inputs are small coordinate lists.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/core/validate.hpp"
#include "src/measure/coords.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::expect;
using detail::coords2;
using detail::from_pairs;

}  // namespace

Array approximate_polygon(const Array& coords, double tolerance) {
  constexpr std::string_view fn = "measure.approximate_polygon";
  const auto c = coords2(coords, fn, "coords");
  const std::int64_t n = static_cast<std::int64_t>(c.size() / 2);
  if (tolerance <= 0 || n == 0) return from_pairs(c);
  std::vector<char> chain(n, 0);
  std::vector<double> dists(n, 0.0);
  chain[0] = chain[n - 1] = 1;
  std::vector<std::pair<std::int64_t, std::int64_t>> stack = {{0, n - 1}};
  while (!stack.empty()) {
    const auto [start, end] = stack.back();
    stack.pop_back();
    const double r0 = c[2 * start], c0 = c[2 * start + 1], r1 = c[2 * end], c1 = c[2 * end + 1];
    const double dr = r1 - r0, dc = c1 - c0;
    const double angle = -std::atan2(dr, dc);
    const double sa = std::sin(angle), ca = std::cos(angle);
    const double seg_dist = c0 * sa + r0 * ca;
    std::int64_t best = -1;
    double best_d = -1.0;
    bool any = false;
    for (std::int64_t i = start + 1; i < end; ++i) {
      const double pr = c[2 * i], pc = c[2 * i + 1];
      const double dr0 = pr - r0, dc0 = pc - c0, dr1 = pr - r1, dc1 = pc - c1;
      const double l0 = dr0 * dr + dc0 * dc;
      const double l1 = -dr1 * dr - dc1 * dc;
      double d;
      if (l0 > 0 && l1 > 0)
        d = std::abs(pr * ca + pc * sa - seg_dist);
      else
        d = std::min(std::sqrt(dc0 * dc0 + dr0 * dr0), std::sqrt(dc1 * dc1 + dr1 * dr1));
      dists[i] = d;
      any = any || d > tolerance;
      if (d > best_d || (std::isnan(d) && best_d == best_d)) best_d = d, best = i;  // argmax: first max, NaN wins
    }
    if (any) {
      stack.emplace_back(best, end);
      stack.emplace_back(start, best);
      chain[best] = 1;
    }
  }
  std::vector<double> out;
  for (std::int64_t i = 0; i < n; ++i)
    if (chain[i]) out.push_back(c[2 * i]), out.push_back(c[2 * i + 1]);
  return from_pairs(out);
}

Array subdivide_polygon(const Array& coords, const SubdividePolygonOptions& opts) {
  constexpr std::string_view fn = "measure.subdivide_polygon";
  // B-spline subdivision masks (even, odd) of degrees 1..7 (Catmull-Clark style binomial weights).
  static const std::vector<std::vector<int>> kEven = {{1, 1}, {3, 1}, {1, 6, 1}, {5, 10, 1}, {1, 15, 15, 1},
                                                       {7, 35, 21, 1}, {1, 28, 70, 28, 1}};
  static const std::vector<std::vector<int>> kOdd = {{1, 1}, {1, 3}, {0, 4, 4}, {1, 10, 5}, {0, 6, 20, 6},
                                                      {1, 21, 35, 7}, {0, 8, 56, 56, 8}};
  expect(opts.degree >= 1 && opts.degree <= 7, fn, "degree",
         "must be a B-spline degree in 1..7 (only degree 1 - 7 is supported), got ", opts.degree);
  auto c = coords2(coords, fn, "coords");
  std::int64_t n = static_cast<std::int64_t>(c.size() / 2);
  expect(n >= 1, fn, "coords", "must hold at least one point");
  const bool circular = c[0] == c[2 * (n - 1)] && c[1] == c[2 * (n - 1) + 1];
  if (circular) {
    n -= 1;
    c.resize(2 * n);
  }
  const double scale = std::ldexp(1.0, opts.degree);
  auto conv = [&](const std::vector<int>& mask_i, int axis) {
    // scipy.signal.convolve2d(coords.T, mask, mode='same' (circular, wrap) or 'valid').
    const std::int64_t k = static_cast<std::int64_t>(mask_i.size());
    std::vector<double> mask(k);
    for (std::int64_t j = 0; j < k; ++j) mask[j] = mask_i[j] / scale;
    std::vector<double> out;
    if (circular) {
      // 'same': output i = sum_j in[(i + k/2 - j) mod n] * mask[j] (centred as scipy: offset (k-1)/2... )
      const std::int64_t off = (k - 1) / 2;
      for (std::int64_t i = 0; i < n; ++i) {
        double s = 0.0;
        for (std::int64_t j = 0; j < k; ++j) {
          std::int64_t q = ((i + off - j) % n + n) % n;
          s += c[2 * q + axis] * mask[j];
        }
        out.push_back(s);
      }
    } else {
      for (std::int64_t i = 0; i + k <= n; ++i) {
        double s = 0.0;
        for (std::int64_t j = 0; j < k; ++j) s += c[2 * (i + k - 1 - j) + axis] * mask[j];
        out.push_back(s);
      }
    }
    return out;
  };
  const auto& me = kEven[opts.degree - 1];
  const auto& mo = kOdd[opts.degree - 1];
  const auto er = conv(me, 0), ec = conv(me, 1), orr = conv(mo, 0), oc = conv(mo, 1);
  const std::size_t total = er.size() + orr.size();
  std::vector<double> out(2 * total, 0.0);
  for (std::size_t i = 0, e = 0, o = 0; i < total; ++i) {
    if (i % 2 == 1) {
      if (e < er.size()) out[2 * i] = er[e], out[2 * i + 1] = ec[e];
      ++e;
    } else {
      if (o < orr.size()) out[2 * i] = orr[o], out[2 * i + 1] = oc[o];
      ++o;
    }
  }
  if (circular) {
    out.push_back(out[0]);
    out.push_back(out[1]);
  }
  if (opts.preserve_ends && !circular) {
    std::vector<double> v = {c[0], c[1]};
    v.insert(v.end(), out.begin(), out.end());
    v.push_back(c[2 * (n - 1)]);
    v.push_back(c[2 * (n - 1) + 1]);
    out.swap(v);
  }
  return from_pairs(out);
}

}  // namespace cuskimage::measure
