// scikit-image's own 2-D interpolation (skimage/_shared/interpolation.pxd): nearest, bilinear,
// biquadratic and bicubic (Catmull-Rom) sampling with numpy.pad-style edge modes, as CUSK_HD
// functions shared by the CPU backend and the CUDA kernels.
//
// Modes are scikit-image's one-letter codes: 'C' constant, 'E' edge, 'S' symmetric, 'R' reflect,
// 'W' wrap. Arithmetic follows the compiled Cython (checked against its _warp_fast bit for bit):
// offsets and products with a pixel in the coordinate type F (float for float32 images, double
// otherwise), but Cython's untyped integer literals are doubles, so `1 - dc`, `x - 1` and what they
// touch are double; each step rounded once (mul_rn/add_rn: nvcc would otherwise fuse multiply-adds
// that scikit-image's x86-64 baseline build does not). Integer coordinate maps use C's truncating
// division, as Cython's cdivision does.
#pragma once

#include <cmath>
#include <cstdint>

#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::transform::detail {

using cuskimage::detail::add_rn;
using cuskimage::detail::mul_rn;
using cuskimage::detail::sub_rn;

/// The sample index scikit-image's `<long>floor(x)` gives, made total in the integer type J: NaN
/// and values beyond +-2^62 (+-2^30 for a 32-bit J; the caller keeps coordinates inside that)
/// saturate there, far outside any image (C leaves those casts undefined).
template <class J, class F>
CUSK_HD J saturate_index(F f) {
  constexpr F lim = sizeof(J) >= 8 ? F(4611686018427387904.0) : F(1073741824.0);
  if (!(f > -lim)) return -static_cast<J>(lim);
  if (f >= lim) return static_cast<J>(lim);
  return static_cast<J>(f);
}
template <class J = std::int64_t, class F>
CUSK_HD J floor_index(F x) {
  return saturate_index<J>(std::floor(x));
}
template <class J = std::int64_t, class F>
CUSK_HD J ceil_index(F x) {
  return saturate_index<J>(std::ceil(x));
}

/// scikit-image's `round`: half away from zero, in F, then truncated.
template <class J = std::int64_t, class F>
CUSK_HD J round_index(F x) {
  const F h = x > F(0) ? add_rn(x, F(0.5)) : sub_rn(x, F(0.5));
  return saturate_index<J>(std::trunc(h));
}

/// coord_map: a coordinate outside [0, dim) mapped into it ('E', 'S', 'R', 'W'; any other code
/// returns the coordinate unchanged).
template <class J>
CUSK_HD J coord_map(J dim, J coord, char mode) {
  if (coord >= 0 && coord < dim) return coord;  // the common case, no division
  const J cmax = dim - 1;
  switch (mode) {
    case 'S':
      if (coord < 0) coord = -coord - 1;
      if (coord > cmax) return (coord / dim) % 2 != 0 ? cmax - coord % dim : coord % dim;
      return coord;
    case 'W':
      if (coord < 0) return cmax - (-coord - 1) % dim;
      return coord % dim;
    case 'E': return coord < 0 ? J(0) : cmax;
    case 'R':
      if (dim == 1) return 0;
      if (coord < 0) return (-coord / cmax) % 2 != 0 ? cmax - (-coord) % cmax : (-coord) % cmax;
      return (coord / cmax) % 2 != 0 ? cmax - coord % cmax : coord % cmax;
    default: return coord;
  }
}

/// get_pixel2d: the pixel at (r, c) of a row-major rows x cols image, `cval` outside for 'C'.
/// J is the integer type of coordinates and offsets (32-bit on the GPU where everything fits).
template <class V, class T, class J>
CUSK_HD V get_pixel2d(const T* image, J rows, J cols, J r, J c, char mode, V cval) {
  if (mode == 'C') {
    if (r < 0 || r >= rows || c < 0 || c >= cols) return cval;
    return static_cast<V>(image[r * cols + c]);
  }
  return static_cast<V>(image[coord_map(rows, r, mode) * cols + coord_map(cols, c, mode)]);
}

// ---- the interpolators, generic in the coordinate type F and the integer type J -------------------

template <class F, class T, class J = std::int64_t>
CUSK_HD F nearest_t(const T* image, J rows, J cols, F r, F c, char mode, F cval) {
  return get_pixel2d<F>(image, rows, cols, round_index<J>(r), round_index<J>(c), mode, cval);
}

/// Bilinear. Cython writes the literal `1` of `1 - dc` as a double, so the weights are doubles
/// while `dc * pixel` stays in F; the blends (scikit-image's float64 `top`/`bottom`) in double.
template <class F, class T, class J = std::int64_t>
CUSK_HD double bilinear_t(const T* image, J rows, J cols, F r, F c, char mode, F cval) {
  const J minr = floor_index<J>(r), minc = floor_index<J>(c);
  const J maxr = ceil_index<J>(r), maxc = ceil_index<J>(c);
  const F dr = sub_rn(r, static_cast<F>(minr));
  const F dc = sub_rn(c, static_cast<F>(minc));
  const F tl = get_pixel2d<F>(image, rows, cols, minr, minc, mode, cval);
  const F tr = get_pixel2d<F>(image, rows, cols, minr, maxc, mode, cval);
  const F bl = get_pixel2d<F>(image, rows, cols, maxr, minc, mode, cval);
  const F br = get_pixel2d<F>(image, rows, cols, maxr, maxc, mode, cval);
  const double odc = sub_rn(1.0, static_cast<double>(dc));
  const double top = add_rn(mul_rn(odc, static_cast<double>(tl)), static_cast<double>(mul_rn(dc, tr)));
  const double bottom = add_rn(mul_rn(odc, static_cast<double>(bl)), static_cast<double>(mul_rn(dc, br)));
  return add_rn(mul_rn(sub_rn(1.0, static_cast<double>(dr)), top), mul_rn(static_cast<double>(dr), bottom));
}

/// scikit-image's quadratic_interpolation (its documented-as-wrong biquadratic kernel):
/// x f2 (x - 1) / 2 - x f1 (x - 2) + f0 (x - 1)(x - 2) / 2, where Cython's double literals make
/// (x - 1), (x - 2) and everything they touch double; the products x * f stay in F.
template <class F>
CUSK_HD F quadratic_t(F x, const F f[3]) {
  const double x1 = sub_rn(static_cast<double>(x), 1.0), x2 = sub_rn(static_cast<double>(x), 2.0);
  const double a = mul_rn(mul_rn(static_cast<double>(mul_rn(x, f[2])), x1), 0.5);
  const double b = mul_rn(static_cast<double>(mul_rn(x, f[1])), x2);
  const double d = mul_rn(mul_rn(mul_rn(static_cast<double>(f[0]), x1), x2), 0.5);
  return static_cast<F>(add_rn(sub_rn(a, b), d));
}

template <class F, class T, class J = std::int64_t>
CUSK_HD F biquadratic_t(const T* image, J rows, J cols, F r, F c, char mode, F cval) {
  const J r0 = round_index<J>(r) - 1, c0 = round_index<J>(c) - 1;
  const F xr = sub_rn(r, static_cast<F>(r0));
  const F xc = sub_rn(c, static_cast<F>(c0));
  F fr[3];
  CUSK_UNROLL
  for (int pr = 0; pr < 3; ++pr) {
    F fc[3];
    CUSK_UNROLL
    for (int pc = 0; pc < 3; ++pc) fc[pc] = get_pixel2d<F>(image, rows, cols, J(r0 + pr), J(c0 + pc), mode, cval);
    fr[pr] = quadratic_t(xc, fc);
  }
  return quadratic_t(xr, fr);
}

/// Catmull-Rom cubic through f at -1, 0, 1, 2, in scikit-image's nesting and operation order
/// (its literals are cast to F there).
template <class F>
CUSK_HD F cubic_t(F x, const F f[4]) {
  const F inner = sub_rn(add_rn(mul_rn(F(3), sub_rn(f[1], f[2])), f[3]), f[0]);
  F mid = sub_rn(add_rn(sub_rn(mul_rn(F(2), f[0]), mul_rn(F(5), f[1])), mul_rn(F(4), f[2])), f[3]);
  mid = add_rn(mid, mul_rn(x, inner));
  const F outer = add_rn(sub_rn(f[2], f[0]), mul_rn(x, mid));
  return add_rn(f[1], mul_rn(mul_rn(F(0.5), x), outer));
}

template <class F, class T, class J = std::int64_t>
CUSK_HD F bicubic_t(const T* image, J rows, J cols, F r, F c, char mode, F cval) {
  J r0 = floor_index<J>(r), c0 = floor_index<J>(c);
  const F xr = sub_rn(r, static_cast<F>(r0));
  const F xc = sub_rn(c, static_cast<F>(c0));
  r0 -= 1;
  c0 -= 1;
  F fr[4];
  CUSK_UNROLL
  for (int pr = 0; pr < 4; ++pr) {
    F fc[4];
    CUSK_UNROLL
    for (int pc = 0; pc < 4; ++pc) fc[pc] = get_pixel2d<F>(image, rows, cols, J(r0 + pr), J(c0 + pc), mode, cval);
    fr[pr] = cubic_t(xc, fc);
  }
  return cubic_t(xr, fr);
}

/// Dispatch on scikit-image's `order` (0 nearest, 1 bilinear, 2 biquadratic, 3 bicubic), as
/// _warp_fast's function table; the value in double (exact for F = float results).
template <class F, class T, class J = std::int64_t>
CUSK_HD double interpolate_t(int order, const T* image, J rows, J cols, F r, F c, char mode, F cval) {
  switch (order) {
    case 0: return nearest_t<F, T, J>(image, rows, cols, r, c, mode, cval);
    case 1: return bilinear_t<F, T, J>(image, rows, cols, r, c, mode, cval);
    case 2: return biquadratic_t<F, T, J>(image, rows, cols, r, c, mode, cval);
    default: return bicubic_t<F, T, J>(image, rows, cols, r, c, mode, cval);
  }
}

/// Whether a coordinate pair keeps every tap's index inside 32 bits (|x| < 2^30 leaves room for
/// the -1..+2 tap offsets and the folding arithmetic); NaN fails.
template <class F>
CUSK_HD bool fits_int32(F r, F c) {
  return r > F(-1073741824.0) && r < F(1073741824.0) && c > F(-1073741824.0) && c < F(1073741824.0);
}

// ---- the double-coordinate entry points (scikit-image's float64 instantiations) --------------------

template <class T>
CUSK_HD double nearest_neighbour_interpolation(const T* image, std::int64_t rows, std::int64_t cols, double r,
                                               double c, char mode, double cval) {
  return nearest_t<double, T>(image, rows, cols, r, c, mode, cval);
}

template <class T>
CUSK_HD double bilinear_interpolation(const T* image, std::int64_t rows, std::int64_t cols, double r, double c,
                                      char mode, double cval) {
  return bilinear_t<double, T>(image, rows, cols, r, c, mode, cval);
}

template <class T>
CUSK_HD double biquadratic_interpolation(const T* image, std::int64_t rows, std::int64_t cols, double r, double c,
                                         char mode, double cval) {
  return biquadratic_t<double, T>(image, rows, cols, r, c, mode, cval);
}

template <class T>
CUSK_HD double bicubic_interpolation(const T* image, std::int64_t rows, std::int64_t cols, double r, double c,
                                     char mode, double cval) {
  return bicubic_t<double, T>(image, rows, cols, r, c, mode, cval);
}

}  // namespace cuskimage::transform::detail
