// Per-pixel pieces of skimage.transform.warp shared by the CPU backend (warps_cpu.cpp) and the
// CUDA kernels (kernels/transform/warps.cu): _warp_fast's homography step in the image's float type,
// the float64 homogeneous mapping of the map_coordinates path, and np.clip.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "src/core/hd.hpp"
#include "src/core/rn.hpp"
#include "src/transform/interpolation.hpp"

namespace cuskimage::transform::detail {

/// _warp_fast's transform kinds, chosen from the matrix as its Cython does.
enum class HomographyKind : int { metric, affine, projective };

inline HomographyKind homography_kind(const double m[9]) {
  if (m[6] == 0 && m[7] == 0 && m[8] == 1) return m[1] == 0 && m[3] == 0 ? HomographyKind::metric : HomographyKind::affine;
  return HomographyKind::projective;
}

/// The row-major 3x3 matrix in F (scikit-image casts it to the image's dtype).
template <class F>
struct Homography {
  F m[9];
  HomographyKind kind;
};

/// _transform_metric / _affine / _projective at output pixel (x, y) = (col, row), in F.
template <class F>
CUSK_HD void apply_homography(const Homography<F>& h, F x, F y, F& xs, F& ys) {
  const F* m = h.m;
  switch (h.kind) {
    case HomographyKind::metric:
      xs = add_rn(mul_rn(m[0], x), m[2]);
      ys = add_rn(mul_rn(m[4], y), m[5]);
      return;
    case HomographyKind::affine:
      xs = add_rn(add_rn(mul_rn(m[0], x), mul_rn(m[1], y)), m[2]);
      ys = add_rn(add_rn(mul_rn(m[3], x), mul_rn(m[4], y)), m[5]);
      return;
    default: {
      const F z = add_rn(add_rn(mul_rn(m[6], x), mul_rn(m[7], y)), m[8]);
      xs = cuskimage::detail::div_rn(add_rn(add_rn(mul_rn(m[0], x), mul_rn(m[1], y)), m[2]), z);
      ys = cuskimage::detail::div_rn(add_rn(add_rn(mul_rn(m[3], x), mul_rn(m[4], y)), m[5]), z);
    }
  }
}

/// The (row, col) source position of output pixel (row, col) under a homogeneous matrix, in
/// float64, as ProjectiveTransform.__call__ computes it: [x, y, 1] @ M.T through the BLAS product
/// (a fused multiply-add chain: fma(y, m1, x * m0) + m2), an exact-zero divisor replaced by eps.
CUSK_HD double homogeneous_row(double x, double y, const double* mr) {
#if defined(__CUDA_ARCH__)
  return add_rn(__fma_rn(y, mr[1], mul_rn(x, mr[0])), mr[2]);
#else
  return add_rn(std::fma(y, mr[1], mul_rn(x, mr[0])), mr[2]);
#endif
}
CUSK_HD void homogeneous_source(const double m[9], double row, double col, double& sr, double& sc) {
  double z = homogeneous_row(col, row, m + 6);
  if (z == 0.0) z = 2.220446049250313e-16;
  sc = cuskimage::detail::div_rn(homogeneous_row(col, row, m), z);
  sr = cuskimage::detail::div_rn(homogeneous_row(col, row, m + 3), z);
}

/// The inverse maps warp evaluates on the device as well as the host: a homogeneous matrix, and
/// the mappings of swirl and warp_polar (NumPy's float64 formulas in their operation order; libm
/// and CUDA's sin/cos/exp/atan2 may differ in the last bit).
enum class SourceMapKind : int { homogeneous, swirl, linear_polar, log_polar };
struct SourceMap {
  SourceMapKind kind = SourceMapKind::homogeneous;
  // homogeneous: the row-major matrix; swirl: x0, y0, rotation, strength, radius / 5 * log(2);
  // polar: k_angle, k_radius, centre row, centre col.
  double p[9] = {};
};

CUSK_HD void map_source(const SourceMap& q, double row, double col, double& sr, double& sc) {
  const double* p = q.p;
  switch (q.kind) {
    case SourceMapKind::homogeneous: homogeneous_source(p, row, col, sr, sc); return;
    case SourceMapKind::swirl: {
      const double dx = sub_rn(col, p[0]), dy = sub_rn(row, p[1]);
      const double rho = std::sqrt(add_rn(mul_rn(dx, dx), mul_rn(dy, dy)));
      const double theta = add_rn(add_rn(p[2], mul_rn(p[3], std::exp(cuskimage::detail::div_rn(-rho, p[4])))),
                                  std::atan2(dy, dx));
      sc = add_rn(p[0], mul_rn(rho, std::cos(theta)));
      sr = add_rn(p[1], mul_rn(rho, std::sin(theta)));
      return;
    }
    default: {
      const double angle = cuskimage::detail::div_rn(row, p[0]);
      const double rad = cuskimage::detail::div_rn(col, p[1]);
      const double f = q.kind == SourceMapKind::log_polar ? std::exp(rad) : rad;
      sr = add_rn(mul_rn(f, std::sin(angle)), p[2]);
      sc = add_rn(mul_rn(f, std::cos(angle)), p[3]);
    }
  }
}

/// np.clip(v, lo, hi) = minimum(maximum(v, lo), hi): NaN in v or a bound gives NaN.
template <class V>
CUSK_HD V np_clip(V v, V lo, V hi) {
  if (v != v || lo != lo) return v != v ? v : lo;
  V m = v > lo ? v : lo;
  if (hi != hi) return hi;
  return m < hi ? m : hi;
}

/// Min and max over the non-NaN values (NaN when there are none), whether a NaN occurred, whether
/// the array had any element.
struct MinMax {
  double lo = 0, hi = 0;
  bool nan = false;
  bool any = false;
};

/// _clip_warp_output's preserve_cval needs the output's range only in mode constant with cval
/// outside the input's (nan)min..(nan)max.
CUSK_HD bool cval_may_widen(const MinMax& in, bool constant, double cval) {
  return constant && !(in.lo <= cval && cval <= in.hi);
}

/// The clip limits of _clip_warp_output (in double): the input's range, widened to `cv_in` (cval
/// cast to the input's dtype) when cval lies inside the output's range. The output's min/max are
/// NaN-propagating unless the input held NaN (scikit-image then switches to nanmin/nanmax).
CUSK_HD void clip_limits(const MinMax& in, const MinMax& out, bool constant, double cval, double cv_in, double& lo,
                         double& hi) {
  lo = in.lo;
  hi = in.hi;
  if (!cval_may_widen(in, constant, cval)) return;
  const bool nan_out = !out.any || (out.nan && !in.nan);
  const double omin = nan_out ? std::numeric_limits<double>::quiet_NaN() : out.lo;
  const double omax = nan_out ? std::numeric_limits<double>::quiet_NaN() : out.hi;
  if (omin <= cval && cval <= omax) {
    lo = cv_in < lo ? cv_in : lo;
    hi = cv_in > hi ? cv_in : hi;
  }
}

/// The parameters of one _warp_fast call (per plane; planes are the channels).
template <class F>
struct FastWarp {
  Homography<F> h;
  int order = 1;
  char mode = 'C';
  F cval = 0;
  bool clamp = false;  // apply np.clip(., lo, hi) on the way out (scikit-image's _clip_warp_output)
  F lo = 0, hi = 0;
};

/// One output value of one plane at source position (ys, xs), clipped when asked. Order 1 or 3
/// picks that interpolator at compile time, anything else dispatches on p.order.
template <class F, class J, int Order = -1>
CUSK_HD F warp_fast_value(const F* plane, J rows, J cols, const FastWarp<F>& p, F xs, F ys) {
  F v;
  if constexpr (Order == 1)
    v = static_cast<F>(bilinear_t<F, F, J>(plane, rows, cols, ys, xs, p.mode, p.cval));
  else if constexpr (Order == 3)
    v = bicubic_t<F, F, J>(plane, rows, cols, ys, xs, p.mode, p.cval);
  else
    v = static_cast<F>(interpolate_t<F, F, J>(p.order, plane, rows, cols, ys, xs, p.mode, p.cval));
  return p.clamp ? np_clip(v, p.lo, p.hi) : v;
}


// ---- the interior fast path of the tile kernel --------------------------------------------------
// Where every tap of a sample lies inside the image, get_pixel2d is a plain load in every mode, so
// the interpolators reduce to loads and their arithmetic; these give the same bits as bilinear_t /
// bicubic_t there (tests/transform/test_warps_interior.cpp checks them against each other) with no
// mode handling and no float <-> int conversions for the tap indices.

/// floor(x) for 0 <= x < 2^22 (float) or 2^31 (double), as an index and as a value in F, by
/// FP adds only: x + 2^23 (2^52) rounds x to an integer held in the low mantissa bits.
CUSK_HD int floor_small(float x, float& fl) {
  const float t = add_rn(x, 8388608.0f);
  float r = sub_rn(t, 8388608.0f);  // rint(x), exact
#if defined(__CUDA_ARCH__)
  int i = __float_as_int(t) - 0x4B000000;
#else
  std::int32_t b;
  std::memcpy(&b, &t, sizeof b);
  int i = b - 0x4B000000;
#endif
  if (r > x) r = sub_rn(r, 1.0f), --i;
  fl = r;
  return i;
}
CUSK_HD int floor_small(double x, double& fl) {
  const double t = add_rn(x, 4503599627370496.0);
  double r = sub_rn(t, 4503599627370496.0);
#if defined(__CUDA_ARCH__)
  int i = static_cast<int>(__double2loint(t));
#else
  std::int64_t b;
  std::memcpy(&b, &t, sizeof b);
  int i = static_cast<int>(b - 0x4330000000000000LL);
#endif
  if (r > x) r = sub_rn(r, 1.0), --i;
  fl = r;
  return i;
}

/// Whether every tap of the order-1 (2 x 2 from floor) or order-3 (4 x 4 from floor - 1) sample at
/// (ys, xs) lies inside a rows x cols image (false for NaN); rows, cols < 2^22.
template <int Order, class F>
CUSK_HD bool interior_sample(F xs, F ys, int rows, int cols) {
  if constexpr (Order == 1)
    return xs >= F(0) && xs <= static_cast<F>(cols - 1) && ys >= F(0) && ys <= static_cast<F>(rows - 1);
  else
    return xs >= F(1) && xs < static_cast<F>(cols - 2) && ys >= F(1) && ys < static_cast<F>(rows - 2);
}

/// bilinear_t (Order 1, cast to F as _warp_fast stores it) or bicubic_t (Order 3) at an interior
/// sample: the same operations on the same taps.
template <int Order, class F>
CUSK_HD F interior_value(const F* plane, int cols, F xs, F ys) {
  F fr, fc;
  const int r0 = floor_small(ys, fr), c0 = floor_small(xs, fc);
  if constexpr (Order == 1) {
    const F dr = sub_rn(ys, fr), dc = sub_rn(xs, fc);
    // ceil = floor + 1 off the integers (an integer coordinate takes the same tap twice).
    const int r1 = r0 + (dr != F(0)), c1 = c0 + (dc != F(0));
    const F tl = plane[r0 * cols + c0], tr = plane[r0 * cols + c1];
    const F bl = plane[r1 * cols + c0], br = plane[r1 * cols + c1];
    const double odc = sub_rn(1.0, static_cast<double>(dc));
    const double top = add_rn(mul_rn(odc, static_cast<double>(tl)), static_cast<double>(mul_rn(dc, tr)));
    const double bottom = add_rn(mul_rn(odc, static_cast<double>(bl)), static_cast<double>(mul_rn(dc, br)));
    return static_cast<F>(
        add_rn(mul_rn(sub_rn(1.0, static_cast<double>(dr)), top), mul_rn(static_cast<double>(dr), bottom)));
  } else {
    const F xr = sub_rn(ys, fr), xc = sub_rn(xs, fc);
    const F* base = plane + (r0 - 1) * cols + (c0 - 1);
    F f[4];
    CUSK_UNROLL
    for (int pr = 0; pr < 4; ++pr) {
      const F t[4] = {base[pr * cols], base[pr * cols + 1], base[pr * cols + 2], base[pr * cols + 3]};
      f[pr] = cubic_t(xc, t);
    }
    return cubic_t(xr, f);
  }
}

}  // namespace cuskimage::transform::detail
