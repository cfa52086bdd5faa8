// B-spline prefilter and interpolation of scipy.ndimage (ni_splines.c, ni_interpolation.c) as
// CUSK_HD pieces shared by the CPU backend (src/ndimage/spline.cpp) and the CUDA kernels
// (kernels/ndimage/spline.cu). Every rounding step is spelled with mul_rn/add_rn (nvcc would fuse
// multiply-adds) and follows scipy's operation order, so both backends give the same bits as scipy's
// double arithmetic; powers z^n come from the host's std::pow (scipy calls libm's pow).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::ndimage::detail {

using cuskimage::detail::add_rn;
using cuskimage::detail::div_rn;
using cuskimage::detail::mul_rn;
using cuskimage::detail::sub_rn;

/// The filter poles of a spline order (none for 0 and 1) and the overall gain scipy applies first.
struct SplinePoles {
  int n = 0;
  double z[2] = {0.0, 0.0};
  double gain = 1.0;
};

CUSK_HD SplinePoles spline_poles(int order) {
  SplinePoles p;
  switch (order) {
    case 2: p.n = 1, p.z[0] = -0.171572875253809902396622551580603843; break;  // sqrt(8) - 3
    case 3: p.n = 1, p.z[0] = -0.267949192431122706472553658494127633; break;  // sqrt(3) - 2
    case 4:
      p.n = 2, p.z[0] = -0.361341225900220177092212841325675255, p.z[1] = -0.013725429297339121360331226939128204;
      break;
    case 5:
      p.n = 2, p.z[0] = -0.430575347099973791851434783493520110, p.z[1] = -0.043096288203264653822712376822550182;
      break;
    default: break;
  }
  for (int k = 0; k < p.n; ++k)
    p.gain = mul_rn(p.gain, mul_rn(sub_rn(1.0, p.z[k]), sub_rn(1.0, div_rn(1.0, p.z[k]))));
  return p;
}

/// How the recursive filter's first coefficients are initialised (scipy's apply_filter switch):
/// mirror for constant, grid-constant, wrap and mirror; reflect for reflect and nearest; periodic
/// for grid-wrap.
enum class SplineInit : int { mirror, reflect, wrap };

CUSK_HD SplineInit spline_init(InterpMode m) {
  switch (m) {
    case InterpMode::grid_wrap: return SplineInit::wrap;
    case InterpMode::reflect:
    case InterpMode::nearest: return SplineInit::reflect;
    default: return SplineInit::mirror;
  }
}

/// The largest i with z^i (repeated products, as scipy forms it) non-zero: the init sums stop there,
/// since every later term is exactly zero (for finite data) and scipy's full sum is unchanged. A
/// bound known before the loop (no data-dependent exit) lets the GPU keep several loads in flight.
inline std::int64_t spline_terms(double z) {
  std::int64_t k = 0;
  for (double zi = z; zi != 0.0; zi = mul_rn(zi, z)) ++k;
  return k;
}

// Device loops of the init sums keep 16 loads in flight (their bounds are known up front).
#if defined(__CUDA_ARCH__)
#define CUSK_SPLINE_UNROLL16 _Pragma("unroll 16")
#else
#define CUSK_SPLINE_UNROLL16
#endif

/// New c[0] before the causal pass. `c(i)` reads the line's current values; `zp` is pow(z, n - 1)
/// (mirror) or pow(z, n) (reflect); `kz` is spline_terms(z).
template <class Get>
CUSK_HD double causal_init(Get c, std::int64_t n, double z, double zp, std::int64_t kz, SplineInit kind) {
  double zi = z;
  switch (kind) {
    case SplineInit::mirror: {
      double c0 = add_rn(c(0), mul_rn(zp, c(n - 1)));
      const std::int64_t end = n - 1 < kz + 1 ? n - 1 : kz + 1;
      CUSK_SPLINE_UNROLL16
      for (std::int64_t i = 1; i < end; ++i) {
        c0 = add_rn(c0, mul_rn(zi, zp != 0.0 ? add_rn(c(i), mul_rn(zp, c(n - 1 - i))) : c(i)));
        zi = mul_rn(zi, z);
      }
      return div_rn(c0, sub_rn(1.0, mul_rn(zp, zp)));
    }
    case SplineInit::reflect: {
      const double first = c(0);
      double c0 = add_rn(first, mul_rn(zp, c(n - 1)));
      const std::int64_t end = n < kz + 1 ? n : kz + 1;
      CUSK_SPLINE_UNROLL16
      for (std::int64_t i = 1; i < end; ++i) {
        // scipy updates c[0] in place, so its last term (i = n - 1) reads the running sum.
        const double tail = i == n - 1 ? c0 : c(n - 1 - i);
        c0 = add_rn(c0, mul_rn(zi, zp != 0.0 ? add_rn(c(i), mul_rn(zp, tail)) : c(i)));
        zi = mul_rn(zi, z);
      }
      c0 = mul_rn(c0, div_rn(z, sub_rn(1.0, mul_rn(zp, zp))));
      return add_rn(c0, first);
    }
    case SplineInit::wrap: {
      double c0 = c(0);
      const std::int64_t end = n < kz + 1 ? n : kz + 1;
      CUSK_SPLINE_UNROLL16
      for (std::int64_t i = 1; i < end; ++i) {
        c0 = add_rn(c0, mul_rn(zi, c(n - i)));
        zi = mul_rn(zi, z);
      }
      return div_rn(c0, sub_rn(1.0, zi));  // zi = z^n by repeated products, as scipy's
    }
  }
  return 0.0;
}

/// New c[n - 1] before the anticausal pass, from the causal result (`c(i)`, n >= 2).
template <class Get>
CUSK_HD double anticausal_init(Get c, std::int64_t n, double z, std::int64_t kz, SplineInit kind) {
  switch (kind) {
    case SplineInit::mirror:
      return div_rn(mul_rn(add_rn(mul_rn(z, c(n - 2)), c(n - 1)), z), sub_rn(mul_rn(z, z), 1.0));
    case SplineInit::reflect: return mul_rn(c(n - 1), div_rn(z, sub_rn(z, 1.0)));
    case SplineInit::wrap: {
      double cl = c(n - 1), zi = z;
      const std::int64_t end = n - 1 < kz ? n - 1 : kz;
      CUSK_SPLINE_UNROLL16
      for (std::int64_t i = 0; i < end; ++i) {
        cl = add_rn(cl, mul_rn(zi, c(i)));
        zi = mul_rn(zi, z);
      }
      return mul_rn(cl, div_rn(z, sub_rn(zi, 1.0)));
    }
  }
  return 0.0;
}

/// The power each pole's causal init needs for a line of n samples (0 for wrap).
inline double spline_init_power(double z, std::int64_t n, SplineInit kind) {
  if (kind == SplineInit::mirror) return std::pow(z, static_cast<double>(n - 1));
  if (kind == SplineInit::reflect) return std::pow(z, static_cast<double>(n));
  return 0.0;
}

/// scipy's map_coordinate: folds a coordinate outside [0, len - 1] back by the mode; constant gives
/// -1 outside (the whole sample is then cval). grid-constant and nearest are not folded.
CUSK_HD double map_coordinate(double in, std::int64_t len, InterpMode mode) {
  if (in < 0) {
    switch (mode) {
      case InterpMode::mirror:
        if (len <= 1) return 0;
        {
          const std::int64_t sz2 = 2 * len - 2;
          in = static_cast<double>(sz2 * static_cast<std::int64_t>(-in / static_cast<double>(sz2))) + in;
          return in <= static_cast<double>(1 - len) ? in + static_cast<double>(sz2) : -in;
        }
      case InterpMode::reflect:
        if (len <= 1) return 0;
        {
          const std::int64_t sz2 = 2 * len;
          if (in < static_cast<double>(-sz2))
            in = static_cast<double>(sz2 * static_cast<std::int64_t>(-in / static_cast<double>(sz2))) + in;
          // scipy: -1e-15 guard so that (-in - 1) cannot round to -1
          return in < static_cast<double>(-len) ? in + static_cast<double>(sz2) : (in > -1e-15 ? 1e-15 : -in) - 1;
        }
      case InterpMode::wrap:
        if (len <= 1) return 0;
        {
          const std::int64_t sz = len - 1;
          return in + static_cast<double>(sz * (static_cast<std::int64_t>(-in / static_cast<double>(sz)) + 1));
        }
      case InterpMode::grid_wrap:
        if (len <= 1) return 0;
        return in + static_cast<double>(len * (static_cast<std::int64_t>((-1 - in) / static_cast<double>(len)) + 1));
      case InterpMode::nearest: return 0;
      case InterpMode::constant: return -1;
      default: return in;
    }
  }
  if (in > static_cast<double>(len - 1)) {
    switch (mode) {
      case InterpMode::mirror:
        if (len <= 1) return 0;
        {
          const std::int64_t sz2 = 2 * len - 2;
          in -= static_cast<double>(sz2 * static_cast<std::int64_t>(in / static_cast<double>(sz2)));
          return in >= static_cast<double>(len) ? static_cast<double>(sz2) - in : in;
        }
      case InterpMode::reflect:
        if (len <= 1) return 0;
        {
          const std::int64_t sz2 = 2 * len;
          in -= static_cast<double>(sz2 * static_cast<std::int64_t>(in / static_cast<double>(sz2)));
          return in >= static_cast<double>(len) ? static_cast<double>(sz2) - in - 1 : in;
        }
      case InterpMode::wrap:
        if (len <= 1) return 0;
        {
          const std::int64_t sz = len - 1;
          return in - static_cast<double>(sz * static_cast<std::int64_t>(in / static_cast<double>(sz)));
        }
      case InterpMode::grid_wrap:
        if (len <= 1) return 0;
        return in - static_cast<double>(len * static_cast<std::int64_t>(in / static_cast<double>(len)));
      case InterpMode::nearest: return static_cast<double>(len - 1);
      case InterpMode::constant: return -1;
      default: return in;
    }
  }
  return in;
}

/// The mode filter taps outside the axis are folded with (scipy's _get_spline_boundary_mode).
CUSK_HD InterpMode tap_mode(InterpMode m) {
  return (m == InterpMode::constant || m == InterpMode::wrap) ? InterpMode::mirror : m;
}

/// scipy's get_spline_interpolation_weights: the order + 1 weights of the taps from
/// floor(x) - order/2 (odd orders) or floor(x + 0.5) - order/2 (even orders).
CUSK_HD void spline_weights(double x, int order, double* w) {
  x = sub_rn(x, floor((order & 1) ? x : add_rn(x, 0.5)));
  double y = x, z = sub_rn(1.0, x), t;
  switch (order) {
    case 1: w[0] = sub_rn(1.0, x); break;
    case 2:
      w[1] = sub_rn(0.75, mul_rn(x, x));
      y = sub_rn(0.5, x);
      w[0] = mul_rn(mul_rn(0.5, y), y);
      break;
    case 3:
      w[1] = div_rn(add_rn(mul_rn(mul_rn(mul_rn(y, y), sub_rn(y, 2.0)), 3.0), 4.0), 6.0);
      w[2] = div_rn(add_rn(mul_rn(mul_rn(mul_rn(z, z), sub_rn(z, 2.0)), 3.0), 4.0), 6.0);
      w[0] = div_rn(mul_rn(mul_rn(z, z), z), 6.0);
      break;
    case 4: {
      t = mul_rn(x, x);
      w[2] = add_rn(mul_rn(t, sub_rn(mul_rn(t, 0.25), 0.625)), 115.0 / 192.0);
      auto p4 = [](double v) {
        return add_rn(
            mul_rn(v, add_rn(mul_rn(v, sub_rn(div_rn(mul_rn(v, sub_rn(5.0, v)), 6.0), 1.25)), 5.0 / 24.0)),
            55.0 / 96.0);
      };
      w[1] = p4(add_rn(1.0, x));
      w[3] = p4(z);
      y = sub_rn(0.5, x);
      t = mul_rn(y, y);
      w[0] = div_rn(mul_rn(t, t), 24.0);
      break;
    }
    case 5: {
      auto inner = [](double v) {
        const double tt = mul_rn(v, v);
        return add_rn(mul_rn(tt, sub_rn(mul_rn(tt, sub_rn(0.25, div_rn(v, 12.0))), 0.5)), 0.55);
      };
      auto outer = [](double v) {
        return add_rn(
            mul_rn(v, add_rn(mul_rn(v, sub_rn(mul_rn(v, add_rn(mul_rn(v, sub_rn(div_rn(v, 24.0), 0.375)), 1.25)), 1.75)),
                             0.625)),
            0.425);
      };
      w[2] = inner(y);
      w[3] = inner(z);
      w[1] = outer(add_rn(y, 1.0));
      w[4] = outer(add_rn(z, 1.0));
      y = sub_rn(1.0, x);
      t = mul_rn(y, y);
      w[0] = div_rn(mul_rn(mul_rn(y, t), t), 120.0);
      break;
    }
    default: break;
  }
  // The weights add up to one: the last one is what the others leave. Static indices only, so
  // that the weights stay in registers on the GPU (w[order] would put the array in local memory).
  double last = 1.0;
  CUSK_UNROLL
  for (int i = 0; i < 5; ++i)
    if (i < order) last = sub_rn(last, w[i]);
  CUSK_UNROLL
  for (int i = 0; i < 6; ++i)
    if (i == order) w[i] = last;
}

/// scipy's store of an interpolated double into the output dtype: floats round to nearest, integers
/// round half away from zero and saturate, bool is C's cast to npy_bool (an unsigned char): t
/// truncated toward zero, true when that is non-zero (|t| >= 1).
template <class T>
CUSK_HD T interp_store(double t) {
  if constexpr (std::is_same_v<T, bool>) {
    return t >= 1.0 || t <= -1.0;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(t);
  } else {
    constexpr double mx = static_cast<double>(std::numeric_limits<T>::max());
    constexpr double mn = static_cast<double>(std::numeric_limits<T>::lowest());
    if constexpr (std::is_unsigned_v<T>)
      t = t > 0 ? t + 0.5 : 0;
    else
      t = t > 0 ? t + 0.5 : t - 0.5;
    t = t > mx ? mx : t;
    t = t < mn ? mn : t;
    if (!(t == t)) return T(0);  // NaN (undefined in scipy's C cast)
    if (t >= mx) return std::numeric_limits<T>::max();  // 2^64 etc. would overflow the cast
    return static_cast<T>(t);
  }
}

/// One axis of a map_coordinates sample (scipy's NI_GeometricTransform): the coordinate `x`
/// (already shifted by the padding) folded by the mode, the order + 1 tap offsets (index * stride,
/// taps outside the axis folded by tap_mode) and weights, and for grid-constant which taps are
/// outside. Returns false when the whole sample is cval (mode constant outside the axis).
/// `I`: the offset type (int32 when the host has checked that every offset fits); `KMAX`: the
/// largest order the loops need (the order itself when known at compile time). A coordinate whose
/// taps all lie inside the axis (the interior) takes no folding at all.
template <class I = std::int64_t, int KMAX = 5>
CUSK_HD bool spline_axis(double cc, std::int64_t len, std::int64_t stride, int order, InterpMode mode, double* w, I* off,
                         bool* outside) {
  if (mode != InterpMode::grid_constant && mode != InterpMode::nearest) cc = map_coordinate(cc, len, mode);
  if (!(cc > -1.0 || mode == InterpMode::grid_constant || mode == InterpMode::nearest)) return false;
  const std::int64_t start = static_cast<std::int64_t>(floor((order & 1) ? cc : add_rn(cc, 0.5))) - order / 2;
  const bool edge = start < 0 || start + order >= len;
  const I st = static_cast<I>(stride);
  if (!edge) {  // interior: consecutive taps
    const I o0 = static_cast<I>(start) * st;
    CUSK_UNROLL
    for (int l = 0; l <= KMAX; ++l) {
      if (l > order) break;
      outside[l] = false;
      off[l] = o0 + static_cast<I>(l) * st;
    }
  } else {
    const InterpMode tmode = tap_mode(mode);
    CUSK_UNROLL
    for (int l = 0; l <= KMAX; ++l) {
      if (l > order) break;
      std::int64_t idx = start + l;
      outside[l] = false;
      if (mode == InterpMode::grid_constant) {
        outside[l] = idx < 0 || idx >= len;
      } else {
        idx = static_cast<std::int64_t>(map_coordinate(static_cast<double>(idx), len, tmode));
      }
      off[l] = static_cast<I>(idx) * st;
    }
  }
  if (order > 0) spline_weights(cc, order, w);
  return true;
}

/// scipy leaves non-finite and huge coordinates to undefined integer casts; they give cval here.
CUSK_HD bool coordinate_ok(double cc) { return fabs(cc) < 4503599627370496.0; }

/// One sample of map_coordinates for any ndim <= MaxD (`data`: the prefiltered, possibly padded by
/// `npad`, array with `shape`/`strides` in elements): taps in C order, each value multiplied by the
/// axes' weights in axis order, summed (scipy's order).
template <int MaxD, class V>
CUSK_HD double spline_sample(const V* data, const std::int64_t* shape, const std::int64_t* strides, int nd,
                             const double* coord, int order, InterpMode mode, double cval, std::int64_t npad) {
  double w[MaxD][6];
  std::int64_t off[MaxD][6];
  bool outside[MaxD][6];
  for (int a = 0; a < nd; ++a) {
    const double cc = add_rn(coord[a], static_cast<double>(npad));
    if (!coordinate_ok(cc) || !spline_axis(cc, shape[a], strides[a], order, mode, w[a], off[a], outside[a]))
      return cval;
  }
  int f[MaxD];
  for (int a = 0; a < nd; ++a) f[a] = 0;
  double t = 0.0;
  for (;;) {
    bool is_cval = false;
    std::int64_t o = 0;
    for (int a = 0; a < nd; ++a) {
      is_cval = is_cval || outside[a][f[a]];
      o += off[a][f[a]];
    }
    double coeff = is_cval ? cval : static_cast<double>(data[o]);
    if (order > 0)
      for (int a = 0; a < nd; ++a) coeff = mul_rn(coeff, w[a][f[a]]);
    t = add_rn(t, coeff);
    int a = nd - 1;
    while (a >= 0 && f[a] == order) f[a--] = 0;
    if (a < 0) break;
    ++f[a];
  }
  return t;
}

#if defined(__CUDA_ARCH__)
#define CUSK_SPLINE_NO_UNROLL _Pragma("unroll 1")
#else
#define CUSK_SPLINE_NO_UNROLL
#endif

/// The taps of one axis (spline_axis' outputs).
template <class I = std::int64_t>
struct SplineAxis {
  double w[6] = {};
  I off[6];
  bool out[6];
};

/// The same sample for a fixed ND of 1..3 with the tap loops unrolled (weights and offsets stay in
/// registers on the GPU): the identical operation sequence as spline_sample. ORDER >= 0 fixes the
/// order at compile time (`order` is then ignored): every loop has a constant trip count; with
/// ORDER = -1 the loops run to 5 with a runtime exit, and for 3-D the outer loop stays rolled to keep
/// the kernel small. `I`: the offset type (int32 when the caller knows all offsets fit).
template <int ND, int ORDER = -1, class I = std::int64_t, class V>
CUSK_HD double spline_sample_fixed(const V* data, const std::int64_t* shape, const std::int64_t* strides,
                                   const double* coord, int order_rt, InterpMode mode, double cval, std::int64_t npad) {
  static_assert(ND >= 1 && ND <= 3, "spline_sample_fixed: 1..3 dimensions");
  constexpr int kMax = ORDER >= 0 ? ORDER : 5;
  const int order = ORDER >= 0 ? ORDER : order_rt;
  SplineAxis<I> a0, a1, a2;
  auto setup = [&](int a, SplineAxis<I>& A) {
    const double cc = add_rn(coord[a], static_cast<double>(npad));
    return coordinate_ok(cc) && spline_axis<I, kMax>(cc, shape[a], strides[a], order, mode, A.w, A.off, A.out);
  };
  if (!setup(0, a0)) return cval;
  if constexpr (ND >= 2)
    if (!setup(1, a1)) return cval;
  if constexpr (ND >= 3)
    if (!setup(2, a2)) return cval;
  double t = 0.0;
  auto tap = [&](I o, bool is_cval, double w0, double w1, double w2) {
    double coeff = is_cval ? cval : static_cast<double>(data[o]);
    if (order > 0) {
      coeff = mul_rn(coeff, w0);
      if constexpr (ND >= 2) coeff = mul_rn(coeff, w1);
      if constexpr (ND >= 3) coeff = mul_rn(coeff, w2);
    }
    t = add_rn(t, coeff);
  };
  auto row = [&](int i) {
    if constexpr (ND == 1) {
      tap(a0.off[i], a0.out[i], a0.w[i], 0.0, 0.0);
    } else {
      CUSK_UNROLL
      for (int j = 0; j <= kMax; ++j) {
        if (j > order) break;
        if constexpr (ND == 2) {
          tap(a0.off[i] + a1.off[j], a0.out[i] || a1.out[j], a0.w[i], a1.w[j], 0.0);
        } else {
          CUSK_UNROLL
          for (int k = 0; k <= kMax; ++k) {
            if (k > order) break;
            tap(a0.off[i] + a1.off[j] + a2.off[k], a0.out[i] || a1.out[j] || a2.out[k], a0.w[i], a1.w[j], a2.w[k]);
          }
        }
      }
    }
  };
  if constexpr (ND == 3 && (ORDER < 0 || ORDER > 3)) {
    CUSK_SPLINE_NO_UNROLL
    for (int i = 0; i <= order; ++i) row(i);
  } else {
    CUSK_UNROLL
    for (int i = 0; i <= kMax; ++i) {
      if (i > order) break;
      row(i);
    }
  }
  return t;
}

// ---- coordinate functors -----------------------------------------------------------------------
// One interpolation core: every geometry operation is a functor from an output index (`idx`, one
// entry per output axis; `k` the C-order linear index) to the input coordinates `c` (before the
// padding shift) plus the element offset of the sampled block (non-zero only for rotate's planes).
// Both backends call the same functors (the CPU with D = kMaxDims and a runtime `nd`, the CUDA
// kernels with D = the exact number of axes), so the coordinates are computed in-kernel and are the
// same doubles scipy forms. Loops run to D with an exit at nd: static indices keep `c` in registers.

/// map_coordinates / geometric_transform: a contiguous (nd, npts) float32 or float64 array.
template <int D>
struct CoordArrayMap {
  static constexpr int kDims = D, kOut = 1;  // the output is walked as one flat axis
  const void* coords = nullptr;
  bool f32 = false;
  std::int64_t npts = 0;
  int nd = D;
  template <class Ix>
  CUSK_HD std::int64_t operator()(const Ix*, std::int64_t k, double* c) const {
    CUSK_UNROLL
    for (int a = 0; a < D; ++a) {
      if (a >= nd) break;
      c[a] = f32 ? static_cast<double>(static_cast<const float*>(coords)[a * npts + k])
                 : static_cast<const double*>(coords)[a * npts + k];
    }
    return 0;
  }
};

/// scipy's NI_ZoomShift: c = i (+ shift) (* zoom, or ((i + 0.5) * zoom - 0.5) in grid mode).
template <int D>
struct ZoomShiftMap {
  static constexpr int kDims = D, kOut = D;
  int nd = D;
  bool has_zoom = false, has_shift = false, grid_mode = false;
  double zoom[D] = {}, shift[D] = {};
  template <class Ix>
  CUSK_HD std::int64_t operator()(const Ix* idx, std::int64_t, double* c) const {
    CUSK_UNROLL
    for (int a = 0; a < D; ++a) {
      if (a >= nd) break;
      double cc = static_cast<double>(idx[a]);
      if (has_shift) cc = add_rn(cc, shift[a]);
      if (has_zoom) cc = grid_mode ? sub_rn(mul_rn(add_rn(cc, 0.5), zoom[a]), 0.5) : mul_rn(cc, zoom[a]);
      c[a] = cc;
    }
    return 0;
  }
};

/// scipy's affine branch of NI_GeometricTransform: c[h] = offset[h] + sum_l idx[l] * m[h][l], summed
/// in l order.
template <int D>
struct AffineMap {
  static constexpr int kDims = D, kOut = D;
  int nd = D;
  double m[D][D] = {}, off[D] = {};
  template <class Ix>
  CUSK_HD std::int64_t operator()(const Ix* idx, std::int64_t, double* c) const {
    CUSK_UNROLL
    for (int h = 0; h < D; ++h) {
      if (h >= nd) break;
      double t = off[h];
      CUSK_UNROLL
      for (int l = 0; l < D; ++l) {
        if (l >= nd) break;
        t = add_rn(t, mul_rn(static_cast<double>(idx[l]), m[h][l]));
      }
      c[h] = t;
    }
    return 0;
  }
};

/// rotate of an array of more than 2 axes (scipy rotates each plane (p0, p1) separately): the 2-D
/// affine map of the plane's output index; the other axes pick the plane (`stride`: the data's
/// strides there, 0 on the plane axes). DO: the output axes (the sampled axes are 2).
template <int DO>
struct PlaneMap {
  static constexpr int kDims = 2, kOut = DO;
  static constexpr bool kPlane = true;
  int nd = DO;
  int p0 = 0, p1 = 1;
  double m[2][2] = {}, off[2] = {};
  std::int64_t stride[DO] = {};
  template <class Ix>
  CUSK_HD std::int64_t operator()(const Ix* idx, std::int64_t, double* c) const {
    std::int64_t base = 0;
    Ix i0 = 0, i1 = 0;
    CUSK_UNROLL
    for (int a = 0; a < DO; ++a) {
      if (a >= nd) break;
      base += static_cast<std::int64_t>(idx[a]) * stride[a];
      if (a == p0) i0 = idx[a];
      if (a == p1) i1 = idx[a];
    }
    c[0] = add_rn(add_rn(off[0], mul_rn(static_cast<double>(i0), m[0][0])), mul_rn(static_cast<double>(i1), m[0][1]));
    c[1] = add_rn(add_rn(off[1], mul_rn(static_cast<double>(i0), m[1][0])), mul_rn(static_cast<double>(i1), m[1][1]));
    return base;
  }
};

// ---- backend entry points ---------------------------------------------------------------------

/// A line filter plan: the array seen as contiguous (outer, n, inner) around the axis; one
/// power per pole for the causal init.
struct SplineLinePlan {
  std::int64_t outer = 1, n = 1, inner = 1;
  SplinePoles poles;
  SplineInit init = SplineInit::mirror;
  double zp[2] = {0.0, 0.0};
  std::int64_t kz[2] = {0, 0};  // spline_terms of each pole
};

SplineLinePlan make_line_plan(const Shape& shape, int axis, int order, InterpMode mode);

/// CUDA: filters every line of `src` (contiguous, S) along the plan's axis into `dst` (contiguous, O;
/// may be `src` itself when S == O). `work` is a contiguous float64 scratch of the same shape (may
/// be `dst` when O is double).
template <class S, class O>
void cuda_spline_lines(const void* src, double* work, O* dst, const SplineLinePlan& p, const Stream& stream);

/// What a CUDA sampler launch writes: `out` (contiguous, C order over out_shape, 1..3 axes; dtype
/// out_dt: V's, float32 or float64, any dtype when V is double), the sampling parameters, and
/// whether every data offset fits in 32 bits (`idx32`: the kernels then index in int32).
struct SampleLaunch {
  Shape out_shape;
  void* out = nullptr;
  DType out_dt = DType::float64;
  int order = 3;
  InterpMode mode = InterpMode::constant;
  double cval = 0.0;
  std::int64_t npad = 0;
  bool idx32 = false;
};

/// CUDA: samples of `data` (V; `shape`/`strides` in elements, Map::kDims axes) at the coordinates
/// the map gives for every output point. Instantiated per map in kernels/ndimage/geometry_*.cu and
/// (CoordArrayMap) kernels/ndimage/spline.cu.
template <class V, class Map>
void cuda_sample(const V* data, const std::int64_t* shape, const std::int64_t* strides, const Map& map,
                 const SampleLaunch& l, const Stream& stream);

/// CUDA: `out` (contiguous float64, in's shape + 2 * pads[a] on axis a) = np.pad(in, pads, 'edge') or
/// (constant: true) np.pad with `cval` (already cast to the input dtype); in contiguous.
template <class T>
void cuda_spline_pad(const T* in, const Shape& shape, double* out, const Shape& pads, bool constant, double cval,
                     const Stream& stream);

// ---- host side shared by map_coordinates and the geometry operations (spline.cpp) -------------------

/// The array a sampler reads: the input itself (orders 0/1, prefilter off) or its float64 spline
/// coefficients, padded by `npad` on the filtered axes for 'nearest' / 'grid-constant' (scipy's
/// _prepad_for_spline_filter).
struct SplineSource {
  Array data;
  std::int64_t npad = 0;
  bool filtered = false;
};

/// scipy's prefilter step: spline_filter(float64, mode) of `input` along `axes` (empty: every axis;
/// rotate filters each plane on its own) when prefilter and order > 1.
SplineSource spline_source(const Array& input, int order, InterpMode mode, double cval, bool prefilter,
                           std::string_view fn, const Stream& stream, const std::vector<int>& axes = {});

/// Which coordinate functor a sampling uses, with its parameters (host values; the functors above
/// are built from it for the backend and the number of axes).
struct GeomMap {
  enum class Kind { coords, zoom_shift, affine, plane } kind = Kind::coords;
  Array coords;                        // coords: (nd, *out_shape), on the input's device
  std::vector<double> zoom, shift;     // zoom_shift: one per axis, empty = none
  bool grid_mode = false;              // zoom_shift
  std::vector<double> matrix, offset;  // affine: nd x nd row-major + nd; plane: 2 x 2 + 2
  int p0 = 0, p1 = 1;                  // plane: the rotated axes of the output
};

/// out (contiguous, on the input's device; its shape is the output shape; dtype the input's,
/// float32 or float64, or any with a filtered source) = the samples of `src` at g's coordinates.
/// NotSupported on a CUDA device beyond 3 axes.
void sample_into(const Array& input, const SplineSource& src, const GeomMap& g, Array& out, int order, InterpMode mode,
                 double cval, std::string_view fn, const Stream& stream);

}  // namespace cuskimage::ndimage::detail
