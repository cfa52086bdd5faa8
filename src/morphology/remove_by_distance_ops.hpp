// Pieces of morphology.remove_objects_by_distance shared by the CPU backend, the CUDA kernels
// (kernels/morphology/remove_by_distance.cu) and the tests: the processing order of objects, the
// grid of cells, and the device's distance test, which must agree with the CPU's (scipy cKDTree's)
// double arithmetic.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/morphology.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::morphology::detail {

inline constexpr int kRodMaxDims = 8;

/// A priority as an unsigned key whose order is numpy's argsort order: -0 == +0, NaN above
/// everything (all NaNs equal).
CUSK_HD std::uint64_t rod_priority_key(double p) {
  if (p != p) return ~std::uint64_t(0);
  if (p == 0) p = 0;  // -0 -> +0
  std::uint64_t u;
#ifdef __CUDA_ARCH__
  u = static_cast<std::uint64_t>(__double_as_longlong(p));
#else
  std::memcpy(&u, &p, sizeof(u));
#endif
  return (u >> 63) ? ~u : (u | (std::uint64_t(1) << 63));
}

/// Whether object a (label-sorted index) is processed before object b: scikit-image reverses a
/// stable ascending argsort of the priorities, so higher priority first, ties to the higher index.
CUSK_HD bool rod_before(std::uint64_t key_a, std::int64_t a, std::uint64_t key_b, std::int64_t b) {
  return key_a > key_b || (key_a == key_b && a > b);
}

/// cKDTree's comparison bound for radius r: r*r for p = 2, r for p = 1, inf, or r = inf, else r^p
/// (the CPU backend's rule; std::pow on the host).
inline double rod_bound(double p, double r) {
  return (p == 2.0) ? r * r : (std::isinf(p) || std::isinf(r) || p == 1.0) ? r : std::pow(r, p);
}

/// The distance test on absolute coordinate differences x[0..nd), in the CPU's operation order
/// (s = 0; s += term for each axis; s <= bound). 1: within, 0: not within, -1: too close to call
/// (general p only, see below). p = 1, 2, inf use exactly the CPU's operations (no contraction into
/// fused multiply-adds on the device). For other p the CPU calls glibc's pow; when p is an integer
/// and every x is an integer whose power stays below 2^53, the powers and their sums are exact on
/// both sides and the answer is exact; otherwise the device's pow (<= 2 ulp) is compared with a
/// relative margin of 1e-12 and differences inside it are reported as -1 for the host to decide.
struct RodMetric {
  int nd = 2;
  int kind = 0;  // 0: p = 2, 1: p = 1, 2: p = inf, 3: other p
  double p = 2, bound = 0;
  int p_int = 0;  // p when it is an integer in [2, 64], else 0

  static RodMetric make(double p, double r, int nd) {
    RodMetric m;
    m.nd = nd;
    m.p = p;
    m.bound = rod_bound(p, r);
    m.kind = p == 2.0 ? 0 : p == 1.0 ? 1 : std::isinf(p) ? 2 : 3;
    m.p_int = (m.kind == 3 && p == std::floor(p) && p <= 64) ? static_cast<int>(p) : 0;
    return m;
  }

  CUSK_HD static double add(double a, double b) {
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
  }
  CUSK_HD static double mul(double a, double b) {
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
  }

  /// x^p exactly when x is an integer and x^p < 2^53 (returns false otherwise).
  CUSK_HD bool exact_power(double x, double& out) const {
    if (x != ::floor(x)) return false;
    const double limit = 9007199254740992.0;  // 2^53
    double result = 1, base = x;
    for (int e = p_int;;) {
      if (e & 1) {
        result = mul(result, base);
        if (result >= limit) return false;
      }
      e >>= 1;
      if (e == 0) break;
      base = mul(base, base);
      if (base >= limit) return false;
    }
    out = result;
    return true;
  }

  CUSK_HD int eval(const double* x) const {
    double s = 0;
    if (kind == 0) {
      for (int d = 0; d < nd; ++d) s = add(s, mul(x[d], x[d]));
      return s <= bound ? 1 : 0;
    }
    if (kind == 1) {
      for (int d = 0; d < nd; ++d) s = add(s, x[d]);
      return s <= bound ? 1 : 0;
    }
    if (kind == 2) {
      for (int d = 0; d < nd; ++d) s = s < x[d] ? x[d] : s;  // std::max(s, x)
      return s <= bound ? 1 : 0;
    }
    if (bound > 1.7976931348623157e308) return 1;  // r = inf: everything is within
    bool exact = p_int != 0;
    if (exact) {
      for (int d = 0; d < nd && exact; ++d) {
        double t = 0;
        exact = exact_power(x[d], t);
        s = add(s, t);
      }
      exact = exact && s < 9007199254740992.0;
      if (exact) return s <= bound ? 1 : 0;
      s = 0;
    }
    for (int d = 0; d < nd; ++d) s = add(s, ::pow(x[d], p));
    const double margin = 1e-12 * bound;
    if (s > bound + margin) return 0;
    if (s < bound - margin) return 1;
    return -1;
  }
};

/// The grid of cells over which points are bucketed: cells of w[d] pixels along axis d with
/// w[d] > min_distance / spacing[d] + 1 (the CPU backend's rule), so that any two points within the
/// distance lie in the same or adjacent cells.
struct RodGrid {
  int nd = 0;
  std::int64_t w[kRodMaxDims] = {}, ncell[kRodMaxDims] = {}, cstride[kRodMaxDims] = {};
  std::int64_t cells = 0;

  static RodGrid make(const Shape& shape, double r, const std::vector<double>& sp) {
    RodGrid g;
    g.nd = static_cast<int>(shape.size());
    for (int d = 0; d < g.nd; ++d) {
      const double span = r / sp[d];
      g.w[d] = span >= static_cast<double>(shape[d])
                   ? shape[d]
                   : std::min<std::int64_t>(shape[d], static_cast<std::int64_t>(span) + 2);
      g.w[d] = std::max<std::int64_t>(g.w[d], 1);
    }
    g.finish(shape);
    return g;
  }
  /// Widens the cells (doubling every axis) until there are at most `cap` of them.
  void coarsen(const Shape& shape, std::int64_t cap) {
    while (cells > cap) {
      bool grew = false;
      for (int d = 0; d < nd; ++d) {
        const std::int64_t nw = std::min<std::int64_t>(shape[d], 2 * w[d]);
        grew = grew || nw != w[d];
        w[d] = nw;
      }
      finish(shape);
      if (!grew) break;
    }
  }
  void finish(const Shape& shape) {
    for (int d = 0; d < nd; ++d) ncell[d] = (shape[d] + w[d] - 1) / w[d];
    cstride[nd - 1] = 1;
    for (int d = nd - 2; d >= 0; --d) cstride[d] = cstride[d + 1] * ncell[d + 1];
    cells = cstride[0] * ncell[0];
  }
};

// ---- the neighbour search of one run (the CUDA pair kernel's thread; also run by the tests) ---------

/// Boundary points sorted by (cell, object, pixel); a run is one object's points in one cell.
struct RodRuns {
  const std::int32_t* run_obj;    // nr
  const std::int64_t* run_start;  // nr + 1: first sorted point of each run
  const std::uint64_t* run_cell;  // nr
  const double* run_lo;           // nr x nd: the bounding box of its points
  const double* run_hi;
  const std::int64_t* cell_first;  // cells + 1: first run of each cell
  const double* s_pos;             // sorted points' scaled coordinates (points x nd)
  std::int64_t nr;
};

/// The test between two boxes (a point is a box with lo == hi): `far` compares the farthest pair of
/// corners (1: every point pair is within), else the nearest (0: no point pair is within). Rounding
/// is monotone, so for p = 1, 2, inf both bounds hold for the CPU's arithmetic on every point pair;
/// for other p the margin form is used (never the exact-integer path, which the points may not take).
CUSK_HD int rod_box_test(const RodMetric& m, const double* alo, const double* ahi, const double* blo, const double* bhi,
                         bool far) {
  double x[kRodMaxDims];
  for (int d = 0; d < m.nd; ++d) {
    if (far) {
      const double u = bhi[d] - alo[d], v = ahi[d] - blo[d];
      x[d] = u > v ? u : v;
    } else {
      x[d] = blo[d] > ahi[d] ? blo[d] - ahi[d] : (alo[d] > bhi[d] ? alo[d] - bhi[d] : 0.0);
    }
  }
  if (m.kind == 3) {
    RodMetric g = m;
    g.p_int = 0;
    return g.eval(x);
  }
  return m.eval(x);
}

/// For run `ra` of object a: hit(b) once per run of each object b > a in the same or an adjacent
/// cell with a point pair within the distance (objects hit recently by this run are skipped), and
/// borderline(sa, sb, b) for point pairs the metric leaves to the host. `only` >= 0 restricts the
/// search to one of the 3^nd cells (its offset index), so that several threads can share a run.
template <class Hit, class Borderline>
CUSK_HD void rod_run_pairs(const RodRuns& R, const RodGrid& grid, const RodMetric& m, std::int64_t ra, Hit&& hit,
                           Borderline&& borderline, int only = -1) {
  const int nd = m.nd;
  const std::int32_t a = R.run_obj[ra];
  std::int64_t cc[kRodMaxDims];
  {
    std::int64_t rem = static_cast<std::int64_t>(R.run_cell[ra]);
    for (int d = nd - 1; d >= 0; --d) {
      cc[d] = rem % grid.ncell[d];
      rem /= grid.ncell[d];
    }
  }
  const double* alo = R.run_lo + ra * nd;
  const double* ahi = R.run_hi + ra * nd;
  std::int32_t cache[8] = {-1, -1, -1, -1, -1, -1, -1, -1};
  int cpos = 0;
  int total = 1;
  for (int d = 0; d < nd; ++d) total *= 3;
  for (int t = only < 0 ? 0 : only; t < (only < 0 ? total : only + 1); ++t) {
    std::int64_t c = 0;
    bool inside = true;
    int rem = t;
    for (int d = nd - 1; d >= 0; --d) {
      const std::int64_t x = cc[d] + (rem % 3) - 1;
      rem /= 3;
      inside = inside && x >= 0 && x < grid.ncell[d];
      c += x * grid.cstride[d];
    }
    if (!inside) continue;
    std::int64_t lo = R.cell_first[c];
    const std::int64_t end = R.cell_first[c + 1];
    for (std::int64_t hi = end; lo < hi;) {  // a cell's runs are sorted by object: the first with object > a
      const std::int64_t mid = (lo + hi) >> 1;
      if (R.run_obj[mid] <= a)
        lo = mid + 1;
      else
        hi = mid;
    }
    for (std::int64_t rb = lo; rb < end; ++rb) {
      const std::int32_t b = R.run_obj[rb];
      bool known = false;
      for (int q = 0; q < 8; ++q) known = known || cache[q] == b;
      if (known) continue;
      const double* blo = R.run_lo + rb * nd;
      const double* bhi = R.run_hi + rb * nd;
      if (rod_box_test(m, alo, ahi, blo, bhi, false) == 0) continue;
      bool near = rod_box_test(m, alo, ahi, blo, bhi, true) == 1;
      for (std::int64_t sa = R.run_start[ra]; sa < R.run_start[ra + 1] && !near; ++sa) {
        const double* pa = R.s_pos + sa * nd;
        if (rod_box_test(m, pa, pa, blo, bhi, false) == 0) continue;
        if (rod_box_test(m, pa, pa, blo, bhi, true) == 1) {
          near = true;
          break;
        }
        for (std::int64_t sb = R.run_start[rb]; sb < R.run_start[rb + 1]; ++sb) {
          const double* pb = R.s_pos + sb * nd;
          double x[kRodMaxDims];
          for (int d = 0; d < nd; ++d) x[d] = pa[d] > pb[d] ? pa[d] - pb[d] : pb[d] - pa[d];
          const int r = m.eval(x);
          if (r == 1) {
            near = true;
            break;
          }
          if (r < 0) borderline(sa, sb, b);
        }
      }
      if (!near) continue;
      hit(b);
      cache[cpos++ & 7] = b;
    }
  }
}

// ---- CUDA backend ----------------------------------------------------------------------------------

/// What the CUDA backend needs from the host side: validated options, the label image contiguous on
/// its device (dtype T), and a host callback deciding borderline point pairs exactly (the CPU's
/// test on two flat pixel indices).
struct RodDeviceArgs {
  double min_distance = 0;
  double p_norm = 2;
  std::vector<double> spacing;  // one per axis
  Array priority;               // invalid, or float64 on the label image's device (contiguous)
  bool (*within)(const void* ctx, std::int64_t a, std::int64_t b) = nullptr;
  const void* within_ctx = nullptr;
};

/// The result (contiguous, the label image's dtype, on its device), allocated on `stream` (the
/// caller's Stream itself, so the result keeps an owning copy of it and may outlive it). The labels
/// must be ready on `stream`: work that produced them on another stream must be ordered before the
/// call by the caller (ARCHITECTURE.md, memory and streams).
Array cuda_remove_objects_by_distance(const Array& labels, const RodDeviceArgs& args, const Stream& stream);

}  // namespace cuskimage::morphology::detail
