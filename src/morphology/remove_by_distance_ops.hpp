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

/// The result (contiguous, the label image's dtype, on its device).
Array cuda_remove_objects_by_distance(const Array& labels, const RodDeviceArgs& args, cudaStream_t stream);

}  // namespace cuskimage::morphology::detail
