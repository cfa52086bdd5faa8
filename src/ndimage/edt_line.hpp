// The per-line pieces of the exact Euclidean feature transform, shared by the CPU backend
// (src/ndimage/edt.cpp) and the CUDA kernels (kernels/ndimage/edt.cu).
//
// The transform is Maurer's separable algorithm as scipy.ndimage runs it: one pass per axis d in
// order 0, 1, ..., each pass replacing, along every line of axis d, the feature (nearest background
// element found so far) of each position by the nearest of the line's features. Within a line,
// position i's candidate "site" is its own feature f(i) (when it has one), at squared distance
//   delta_k(x) = wR_k + ((k - x) * s_d)^2,   wR_k = sum_{jj<d} ((f_jj(k) - coor_jj) * s_jj)^2
// (summed in axis order, in double, every step rounded once: no fused multiply-adds). Ties go to
// the site with the smaller position, which is what scipy's pointer walk picks.
//
// The lower envelope of the parabolas delta_k is kept by Maurer's test: with sites u < v < w, v is
// dropped when  c*vR - b*uR - a*wR - a*b*c > 0  (a = (v-u) s, b = (w-v) s, c = a + b), i.e. when the
// lifted point (v, v^2 s^2 + vR) lies strictly above the chord from u to w. Collinear sites stay,
// so the envelope is the unique "non-strict" lower hull, whichever order it is built in; in exact
// arithmetic (no sampling, or sampling whose products are exact, e.g. dyadic values) every build
// order gives the same envelope, so the banded GPU build equals the sequential CPU one.
#pragma once

#include <cmath>
#include <cstdint>

#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::ndimage::detail {

using cuskimage::detail::add_rn;
using cuskimage::detail::mul_rn;
using cuskimage::detail::sub_rn;

/// ((f - c) * s)^2 as scipy computes it (integer difference, then double).
CUSK_HD double edt_term(std::int64_t f, std::int64_t c, double s) {
  const double t = mul_rn(static_cast<double>(f - c), s);
  return mul_rn(t, t);
}

/// Maurer's removal test for the middle site v of u < v < w (positions pu, pv, pw along the line,
/// perpendicular squared distances uR, vR, wR, sampling s of the line's axis).
CUSK_HD bool edt_remove_middle(std::int64_t pu, std::int64_t pv, std::int64_t pw, double uR, double vR, double wR,
                               double s) {
  const double a = mul_rn(static_cast<double>(pv - pu), s);
  const double b = mul_rn(static_cast<double>(pw - pv), s);
  const double c = add_rn(a, b);
  const double lhs = sub_rn(sub_rn(sub_rn(mul_rn(c, vR), mul_rn(b, uR)), mul_rn(a, wR)), mul_rn(mul_rn(a, b), c));
  return lhs > 0.0;
}

/// delta_k(x): the squared distance from position x of the line to site k's feature.
CUSK_HD double edt_delta(double wR, std::int64_t k, std::int64_t x, double s) { return add_rn(wR, edt_term(k, x, s)); }

/// The first position x in [0, n] at which site k (right) is strictly nearer than site p (left),
/// decided by the same double comparison as the sequential walk (delta_p(x) > delta_k(x)). An
/// estimate from the closed form is corrected by stepping, so the answer is the walk's.
CUSK_HD std::int64_t edt_interval_start(std::int64_t p, double wp, std::int64_t k, double wk, double s,
                                        std::int64_t n) {
  const double D = static_cast<double>(k - p);
  const double s2 = s * s;
  double est = 0.5 * static_cast<double>(p + k) + (wk - wp) / (2.0 * s2 * D);
  std::int64_t x;
  if (!(est > -1.0)) {
    x = 0;
  } else if (!(est < static_cast<double>(n))) {
    x = n;
  } else {
    x = static_cast<std::int64_t>(std::floor(est)) + 1;
    if (x < 0) x = 0;
    if (x > n) x = n;
  }
  while (x > 0 && edt_delta(wp, p, x - 1, s) > edt_delta(wk, k, x - 1, s)) --x;
  while (x < n && !(edt_delta(wp, p, x, s) > edt_delta(wk, k, x, s))) ++x;
  return x;
}

/// Pass 0 from bit words: `w` has bit k set when row 32c + k of the column is a zero; `above()` /
/// `below()` give the last zero row before the chunk and the first after it (-1: none) and are only
/// called when the word itself has no zero on that side (on the device: loads only where needed).
/// Returns the zero row nearest to row r = 32c + b (ties: the smaller row, as scipy's walk), or -1.
template <class Above, class Below>
CUSK_HD std::int32_t edt_nearest_zero(std::uint32_t w, int b, std::int32_t c, const Above& above, const Below& below,
                                      std::int32_t r) {
  const std::uint32_t lo = w & (0xffffffffu >> (31 - b));
  const std::uint32_t hi = w & (0xffffffffu << b);
#if defined(__CUDA_ARCH__)
  const int lz = lo ? __clz(lo) : 0, fs = hi ? __ffs(hi) : 0;
#else
  const int lz = lo ? __builtin_clz(lo) : 0, fs = hi ? __builtin_ffs(static_cast<int>(hi)) : 0;
#endif
  const std::int32_t up = lo ? static_cast<std::int32_t>(c * 32 + 31 - lz) : above();
  const std::int32_t dn = hi ? static_cast<std::int32_t>(c * 32 + fs - 1) : below();
  if (up < 0) return dn;
  if (dn < 0) return up;
  return r - up <= dn - r ? up : dn;
}

// ---- unit sampling: the owner by an outward search (the CUDA last-axis fast path) ---------------------
//
// With every sampling 1 all squared distances are integers (exact in double below 2^53), and the
// walk's owner of position x is the smallest site k minimising g(k) + (k - x)^2 (g: the site's
// squared distance across the line): a site strictly above the chord of two others is never a
// minimiser, the envelope keeps collinear sites, and the walk stops at the first site not beaten
// strictly. So the owner can be found by testing sites at distance 1, 2, ... from x, stopping once
// d^2 exceeds the best value found: no farther site can tie it.

/// g of a position without a site; g(k) + d^2 cannot wrap for d <= 2^15.
inline constexpr std::uint32_t kEdtNoSite = 0xC0000000u;

/// Searches sites x - d, x + d for d = 1..dmax (`g(k)` readable there: kEdtNoSite off the line).
/// Sets best / owner and returns true when settled (no site farther than dmax can tie or win).
template <class I, class G>
CUSK_HD bool edt_window_owner(const G& g, I x, int dmax, std::uint32_t& best, I& owner) {
  std::uint32_t b = g(x);
  I k = x;
  std::uint32_t dd = 1;  // d^2
  for (int d = 1; d <= dmax && dd <= b; ++d) {
    const std::uint32_t l = g(x - d) + dd;
    if (l <= b) {  // ties: the smaller position
      b = l;
      k = x - d;
    }
    const std::uint32_t r = g(x + d) + dd;
    if (r < b) {
      b = r;
      k = x + d;
    }
    dd += 2u * static_cast<std::uint32_t>(d) + 1u;
  }
  best = b;
  owner = k;
  return dd > b;
}

/// One line of a pass of axis d, sequentially, as scipy's Voronoi step: `in(i, jj)` reads feature
/// plane jj of line position i (plane 0 < 0: no feature), `out(i, jj, v)` writes the result
/// (planes 0..d; planes after d are the line's own coordinates and stay), `stk` holds len entries
/// of scratch. `coor[jj]` are the line's coordinates (jj != d), `s` the sampling per axis.
template <class In, class Out, class Stack>
CUSK_HD void edt_voronoi_line(const In& in, const Out& out, Stack& stk, std::int64_t len, int d,
                              const std::int64_t* coor, const double* s) {
  auto wr = [&](std::int64_t i) {
    double w = 0.0;
    for (int jj = 0; jj < d; ++jj) w = add_rn(w, edt_term(in(i, jj), coor[jj], s[jj]));
    return w;
  };
  std::int64_t l = -1;
  for (std::int64_t i = 0; i < len; ++i) {
    if (in(i, 0) < 0) continue;
    const double wR = wr(i);
    while (l >= 1) {
      const std::int64_t v = stk.get(l), u = stk.get(l - 1);
      if (!edt_remove_middle(u, v, i, wr(u), wr(v), wR, s[d])) break;
      --l;
    }
    stk.set(++l, i);
  }
  if (l < 0) {
    // No feature on the whole line: scipy leaves the planes as they were (-1 in plane 0, 0 after).
    for (std::int64_t i = 0; i < len; ++i) {
      out(i, 0, in(i, 0));
      for (int jj = 1; jj <= d; ++jj) out(i, jj, 0);
    }
    return;
  }
  const std::int64_t maxl = l;
  l = 0;
  std::int64_t k = stk.get(0);
  double wk = wr(k);
  for (std::int64_t i = 0; i < len; ++i) {
    double d1 = edt_delta(wk, k, i, s[d]);
    while (l < maxl) {
      const std::int64_t k2 = stk.get(l + 1);
      const double w2 = wr(k2);
      const double d2 = edt_delta(w2, k2, i, s[d]);
      if (d1 <= d2) break;
      d1 = d2;
      k = k2;
      wk = w2;
      ++l;
    }
    for (int jj = 0; jj < d; ++jj) out(i, jj, in(k, jj));
    out(i, d, static_cast<std::int32_t>(k));
  }
}

/// scipy's distance from the final features: sqrt(sum_jj ((f_jj - coor_jj) * s_jj)^2), in axis order.
template <class F>
CUSK_HD double edt_distance(const F& feature, const std::int64_t* coor, const double* s, int nd) {
  double acc = 0.0;
  for (int jj = 0; jj < nd; ++jj) acc = add_rn(acc, edt_term(feature(jj), coor[jj], s[jj]));
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(acc);
#else
  return std::sqrt(acc);
#endif
}

// ---- the banded envelope build (the CUDA last-axis kernel; emulated on the host in the tests) -----
//
// A line of n positions is cut into T bands of W = ceil(n / T). Sites live in arrays indexed by
// position: `is_site(j)`, `wr(j)`; the envelope is a doubly linked list through nxt/prv (-1: none).
// 1. band_build: each band builds its own envelope (Maurer's test), marking dropped sites.
// 2. merge: adjacent groups of bands are joined in log2(T) rounds; the walk drops the left group's
//    tail or the right group's head while either lies strictly above the chord through its
//    neighbours (the lower common tangent of two x-separated convex chains).
// 3. each survivor k after the first owns positions from edt_interval_start(prv[k], k) on.

struct EdtBandList {
  std::int32_t head = -1;
  std::int32_t tail = -1;
};

template <class Sites, class Links>
CUSK_HD EdtBandList edt_band_build(const Sites& sites, Links& L, std::int64_t lo, std::int64_t hi, double s) {
  EdtBandList r;
  for (std::int64_t j = lo; j < hi; ++j) {
    if (!sites.is_site(j)) continue;
    const double wj = sites.wr(j);
    std::int32_t top = r.tail;
    while (top >= 0 && L.prv(top) >= 0) {
      const std::int32_t u = L.prv(top);
      if (!edt_remove_middle(u, top, j, sites.wr(u), sites.wr(top), wj, s)) break;
      L.drop(top);
      top = u;
    }
    L.set_prv(static_cast<std::int32_t>(j), top);
    L.set_nxt(static_cast<std::int32_t>(j), -1);
    if (top >= 0)
      L.set_nxt(top, static_cast<std::int32_t>(j));
    else
      r.head = static_cast<std::int32_t>(j);
    r.tail = static_cast<std::int32_t>(j);
  }
  return r;
}

/// Joins the envelopes `left` and `right` (all of left's sites before right's).
template <class Sites, class Links>
CUSK_HD EdtBandList edt_merge(const Sites& sites, Links& L, EdtBandList left, EdtBandList right, double s) {
  if (left.head < 0) return right;
  if (right.head < 0) return left;
  std::int32_t a = left.tail, b = right.head;
  for (;;) {
    const std::int32_t pa = L.prv(a);
    if (pa >= 0 && edt_remove_middle(pa, a, b, sites.wr(pa), sites.wr(a), sites.wr(b), s)) {
      L.drop(a);
      a = pa;
      continue;
    }
    const std::int32_t nb = L.nxt(b);
    if (nb >= 0 && edt_remove_middle(a, b, nb, sites.wr(a), sites.wr(b), sites.wr(nb), s)) {
      L.drop(b);
      b = nb;
      continue;
    }
    break;
  }
  L.set_nxt(a, b);
  L.set_prv(b, a);
  return {left.head, right.tail};
}

}  // namespace cuskimage::ndimage::detail
