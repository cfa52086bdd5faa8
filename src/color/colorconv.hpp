// Per-pixel colour math of skimage.color, written once for the CPU loop (src/color/pixel_cpu.cpp)
// and the CUDA kernels (kernels/color/*.cu).
//
// A pixel op maps CI input channels to CO output channels in the compute type T (float for float32
// input, else double), in scikit-image's order of operations and constants (skimage/color/
// colorconv.py 0.26). Input elements reach the op through three steps:
//   load<T>(x, c): the raw element read with img_as_float semantics (LinearOp first subtracts its
//                  offsets in the input's dtype, as ycbcr2rgb does);
//   pre(v):        a per-element transform that depends on v alone (sRGB linearisation, the stain
//                  log) -- for uint8 input the kernels tabulate load+pre over the 256 values once
//                  per block (same function, so same results) instead of a pow/log per element;
//   op(x, y):      the rest.
// uint8 input of an op with `u8_tables > 0` instead reads tables of 256 doubles built on the host by
// op.u8_table (so both backends read the same values, including the libm ones): the load+pre table
// (x = tab[byte], then op(x, y)), or, with `u8_custom`, op.u8(bytes, tab, y) -- a path that equals
// op(x, y) on the loaded values bit for bit (rgb2hsv's reciprocal tables; rgb2lab's bounded range).
//
// Rounding: code whose result must be the same bits on both backends spells each rounding with the
// *_rn helpers (src/core/rn.hpp; nvcc would contract a*b+c into an FMA, the host compiler does not):
// rgb2lab's float64 path (matrix, cube root, Lab scaling) and rgb2hsv (divisions only) are bit-exact
// between CPU and GPU; elsewhere device and host libm differ in the last bits.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "src/core/hd.hpp"
#include "src/util/dtype_math.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::color::detail {

/// Which conversion a pixel kernel runs (one template instantiation each).
enum class Op : int {
  linear,    // y = M x (+ post); offsets `pre` subtracted in the input dtype (ycbcr2rgb)
  rgb2xyz,
  xyz2rgb,
  xyz2lab,
  lab2xyz,
  rgb2lab,
  lab2rgb,
  xyz2luv,
  luv2xyz,
  rgb2luv,
  luv2rgb,
  rgb2hsv,
  hsv2rgb,
  separate,  // separate_stains
  combine,   // combine_stains
  lab2lch,
  lch2lab,
  rgb2gray,
  rgba2rgb,
  saturate,  // label2rgb: rgb2hsv, S *= factor, hsv2rgb in one pass
};

/// Runtime parameters of every op (host-filled once per call; passed by value to kernels).
struct PixelParams {
  double m[3][3] = {};   // y_i = sum_j m[i][j] x_j
  double pre[3] = {};    // linear: subtracted from the raw input first
  double post[3] = {};   // linear: added after the product
  bool has_pre = false;
  double white[3] = {0.95047, 1.0, 1.08883};  // reference white (xyz2lab/luv, lab2xyz, ...)
  double inv_white[3] = {1 / 0.95047, 1.0, 1 / 1.08883};  // 1 / white (xyz2lab), set with white
  double bg[3] = {1.0, 1.0, 1.0};             // rgba2rgb background
  double log_adjust = 0.0;                    // stains: log(1e-6) as the host computes it
  double factor = 0.0;                        // saturate: the saturation factor
};

/// img_as_float of a uint8 or uint16 element into double: the bits of ImgConvert's RN(x * s),
/// s = RN(1 / max), without an integer-to-double conversion (I2F.F64 issues at 16 per clock per SM
/// on sm_90, a quarter of the FP64 rate). 2^52 + x is formed from bits (x < 2^52: exact); the device
/// takes one FMA (2^52 + x) s - 2^52 s, whose exact value is x s (2^52 s is exact), so it rounds to
/// RN(x s); the host subtracts 2^52 (exact) and multiplies (std::fma is a library call there).
template <class In>
CUSK_HD double unsigned_unit(In x) {
  static_assert(std::is_same_v<In, std::uint8_t> || std::is_same_v<In, std::uint16_t>);
  constexpr double s = 1.0 / static_cast<double>(std::numeric_limits<In>::max());
  const double big = cuskimage::detail::double_of(0x4330000000000000ull | static_cast<std::uint64_t>(x));
#if defined(__CUDA_ARCH__)
  return __fma_rn(big, s, -0x1p52 * s);
#else
  return cuskimage::detail::mul_rn(cuskimage::detail::sub_rn(big, 0x1p52), s);
#endif
}

/// img_as_float of one element into T (T = float only for float input).
template <class T, class In>
CUSK_HD T to_float(In x) {
  if constexpr (std::is_same_v<In, T>)
    return x;
  else if constexpr (std::is_same_v<T, double> &&
                     (std::is_same_v<In, std::uint8_t> || std::is_same_v<In, std::uint16_t>))
    return unsigned_unit(x);
  else
    return cuskimage::util::detail::ImgConvert<In, T>{}(x);
}

template <class T>
CUSK_HD T cbrt_t(T v) {
  if constexpr (std::is_same_v<T, float>) return cbrtf(v); else return cbrt(v);
}
template <class T>
CUSK_HD T pow_t(T a, T b) {
  if constexpr (std::is_same_v<T, float>) return powf(a, b); else return pow(a, b);
}
template <class T>
CUSK_HD T log_t(T v) {
  if constexpr (std::is_same_v<T, float>) return logf(v); else return log(v);
}
template <class T>
CUSK_HD T exp_t(T v) {
  if constexpr (std::is_same_v<T, float>) return expf(v); else return exp(v);
}
template <class T>
CUSK_HD T sqrt_t(T v) {
  if constexpr (std::is_same_v<T, float>) return sqrtf(v); else return sqrt(v);
}
template <class T>
CUSK_HD T hypot_t(T a, T b) {
  if constexpr (std::is_same_v<T, float>) return hypotf(a, b); else return hypot(a, b);
}
template <class T>
CUSK_HD T atan2_t(T a, T b) {
  if constexpr (std::is_same_v<T, float>) return atan2f(a, b); else return atan2(a, b);
}
template <class T>
CUSK_HD T sin_t(T v) {
  if constexpr (std::is_same_v<T, float>) return sinf(v); else return sin(v);
}
template <class T>
CUSK_HD T cos_t(T v) {
  if constexpr (std::is_same_v<T, float>) return cosf(v); else return cos(v);
}
template <class T>
CUSK_HD T floor_t(T v) {
  if constexpr (std::is_same_v<T, float>) return floorf(v); else return floor(v);
}
template <class T>
CUSK_HD T fmod_t(T a, T b) {
  if constexpr (std::is_same_v<T, float>) return fmodf(a, b); else return fmod(a, b);
}
template <class T>
CUSK_HD T clip01(T v) {
  return v < T(0) ? T(0) : (v > T(1) ? T(1) : v);  // NaN passes through, as np.clip
}
template <class T>
CUSK_HD bool isnan_t(T v) {
  return v != v;
}

/// y = m x (row-major 3x3 in T, as `arr @ matrix.T.astype(arr.dtype)`).
template <class T>
CUSK_HD void matvec(const double (&m)[3][3], const T* x, T* y) {
  for (int i = 0; i < 3; ++i) y[i] = T(m[i][0]) * x[0] + T(m[i][1]) * x[1] + T(m[i][2]) * x[2];
}

// ---- building blocks (scikit-image's formulas) --------------------------------------------------

/// sRGB companding removed: ((v + 0.055) / 1.055)^2.4 above 0.04045, else v / 12.92.
template <class T>
CUSK_HD T srgb_to_linear(T v) {
  return v > T(0.04045) ? pow_t<T>((v + T(0.055)) / T(1.055), T(2.4)) : v / T(12.92);
}
/// Inverse companding and the clip to [0, 1] of xyz2rgb.
template <class T>
CUSK_HD T linear_to_srgb(T v) {
  v = v > T(0.0031308) ? T(1.055) * pow_t<T>(v, T(1.0 / 2.4)) - T(0.055) : v * T(12.92);
  return clip01(v);
}

// ---- the cube root of rgb2lab / xyz2lab (float64) -------------------------------------------------
//
// libm-style cbrt spends ~14 FP64 instructions and 5 MUFU/conversions per call on sm_90, three per
// Lab pixel. Here the seed comes from the FP32 pipe with IEEE operations only (so the host computes
// the same bits): v rounded to float, the exponent-dividing bit trick on its bits gives x^(-1/3)
// within 3.4%, one Halley step in float brings it to 1.9e-4. Then in double, with r = that seed
// (24 significant bits, so r*r is exact) and c0 = v r^2:
//   cbrt(v) = c0 (1 - e)^(-2/3),  e = 1 - c0 r,  the series to e^4:  c0 + (c0 e)(2/3 + 5/9 e + ...)
// (truncation 0.42 e^5 < 3e-17; c0's rounding cancels to a third through e): 8 FP64 instructions,
// within 0.86 ulp of the exact cube root (tests/color/test_color_fast.cpp checks ~10^7 values
// against long double).

/// Bits of a float and back (memcpy on the host: no aliasing UB).
CUSK_HD std::uint32_t fbits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
#endif
}
CUSK_HD float float_of(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
#endif
}
/// Single-precision a*b and a*b+c rounded once on both backends.
CUSK_HD float fmul_rn(float a, float b) { return cuskimage::detail::mul_rn(a, b); }
CUSK_HD float ffma_rn(float a, float b, float c) {
#if defined(__CUDA_ARCH__)
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);
#endif
}

/// The constants of the float64 Lab path, kept in the op (so in a kernel's parameter space):
/// ptxas rematerialises literal constants that no instruction encodes with moves at every use.
struct LabConsts {
  double thr = 0.008856, lin_a = 7.787, lin_b = 16.0 / 116.0, l116 = 116.0;
  double c1 = 2.0 / 3.0, c2 = 5.0 / 9.0, c3 = 40.0 / 81.0, c4 = 110.0 / 243.0;  // (1 - e)^(-2/3)
  float h29 = 2.0f / 9.0f;
};

/// cbrt(v) for 2^-126 < v < 2^127; other v (zero, negative, NaN, subnormal, larger) give an
/// unspecified value without trapping (callers select it away).
CUSK_HD double cbrt_core(double v, const LabConsts& k = {}) {
  using cuskimage::detail::fma_rn;
  using cuskimage::detail::mul_rn;
  // The seed from v rounded to float (exact IEEE conversions, the same on both backends).
  const float x = static_cast<float>(v);
  float s = float_of(0x54a21409u - fbits(x) / 3u);  // x^(-1/3) within 3.4%
  {                                                // Halley: s += s e (1/3 + 2/9 e), to 1.9e-4
    const float e = ffma_rn(-x, fmul_rn(fmul_rn(s, s), s), 1.0f);
    s = ffma_rn(s, fmul_rn(e, ffma_rn(e, k.h29, 1.0f / 3.0f)), s);
  }
  const double r = s;
  const double c0 = mul_rn(v, mul_rn(r, r));
  const double e = fma_rn(-c0, r, 1.0);
  const double p = fma_rn(e, fma_rn(e, fma_rn(e, k.c4, k.c3), k.c2), k.c1);
  return fma_rn(mul_rn(c0, e), p, c0);
}

/// cbrt(v) for every v > 2^-126 (+inf included): cbrt_core, after exact scaling by 2^-252 steps
/// from 2^127 up; other v unspecified as in cbrt_core.
CUSK_HD double cbrt_pos(double v, const LabConsts& k = {}) {
  const std::uint32_t hi = static_cast<std::uint32_t>(cuskimage::detail::bits_of(v) >> 32);
  if (hi - 0x47E00000u < 0x80000000u - 0x47E00000u) {  // v >= 2^127, inf, NaN (rare)
    if (!(v < INFINITY)) return v;
    using cuskimage::detail::mul_rn;
    double scale = 1.0;
    do {
      v = mul_rn(v, 0x1p-252);
      scale = mul_rn(scale, 0x1p84);
    } while (v >= 0x1p127);
    return mul_rn(cbrt_core(v, k), scale);
  }
  return cbrt_core(v, k);
}

/// True when `x` holds for this thread or, on the device, for any thread of its warp running with
/// it (a warp-uniform branch around rare work; a thread's own x always counts).
CUSK_HD bool any_in_warp(bool x) {
#if defined(__CUDA_ARCH__)
  return __any_sync(__activemask(), x);
#else
  return x;
#endif
}

/// CIE f(t) of xyz2lab for t = xyz / white: t^(1/3) above 0.008856, else 7.787 t + 16/116 (one
/// rounding; scikit-image's two differ by <= 1/2 ulp). The linear part runs only in warps that have
/// such a t. kBounded: t < 2^127 is known (rgb2lab from integer RGB), cbrt_pos's test is skipped.
template <bool kBounded = false>
CUSK_HD void lab_f(const double* t, double* f, const LabConsts& k) {
  bool lin = false;
  for (int c = 0; c < 3; ++c) {
    f[c] = kBounded ? cbrt_core(t[c], k) : cbrt_pos(t[c], k);
    lin = lin || !(t[c] > k.thr);
  }
  if (any_in_warp(lin))
    for (int c = 0; c < 3; ++c)
      if (!(t[c] > k.thr)) f[c] = cuskimage::detail::fma_rn(t[c], k.lin_a, k.lin_b);
}
template <bool kBounded = false>
CUSK_HD void lab_f(const float* t, float* f, const LabConsts&) {
  for (int c = 0; c < 3; ++c) f[c] = t[c] > 0.008856f ? cbrtf(t[c]) : 7.787f * t[c] + float(16.0 / 116.0);
}

/// Lab of t = xyz / white (the white already divided out, as a folded matrix or 1 / white).
/// float64: L = 116 f(ty) - 16 as one FMA, a = 500 (f(tx) - f(ty)), b = 200 (f(ty) - f(tz)) as
/// scikit-image, each step rounded once on both backends.
template <class T, bool kBounded = false>
CUSK_HD void lab_from_ratio(const T* t, T* lab, const LabConsts& k) {
  T f[3];
  lab_f<kBounded>(t, f, k);
  if constexpr (std::is_same_v<T, double>) {
    using cuskimage::detail::fma_rn;
    using cuskimage::detail::mul_rn;
    using cuskimage::detail::sub_rn;
    lab[0] = fma_rn(k.l116, f[1], -16.0);
    lab[1] = mul_rn(500.0, sub_rn(f[0], f[1]));
    lab[2] = mul_rn(200.0, sub_rn(f[1], f[2]));
  } else {
    lab[0] = T(116.0) * f[1] - T(16.0);
    lab[1] = T(500.0) * (f[0] - f[1]);
    lab[2] = T(200.0) * (f[1] - f[2]);
  }
}

/// y = m x rounded as DMUL + 2 DFMA per row on both backends (float: as matvec).
template <class T>
CUSK_HD void matvec_rn(const double (&m)[3][3], const T* x, T* y) {
  if constexpr (std::is_same_v<T, double>) {
    using cuskimage::detail::fma_rn;
    using cuskimage::detail::mul_rn;
    for (int i = 0; i < 3; ++i) y[i] = fma_rn(m[i][2], x[2], fma_rn(m[i][1], x[1], mul_rn(m[i][0], x[0])));
  } else {
    matvec(m, x, y);
  }
}

template <class T>
CUSK_HD void lab_to_xyz(const double (&white)[3], const T* lab, T* xyz) {
  const T y = (lab[0] + T(16.0)) / T(116.0);
  T v[3] = {lab[1] / T(500.0) + y, y, y - lab[2] / T(200.0)};
  if (v[2] < T(0)) v[2] = T(0);  // scikit-image clips negative Z (and warns)
  for (int c = 0; c < 3; ++c) {
    const T w = v[c] > T(0.2068966) ? pow_t<T>(v[c], T(3.0)) : (v[c] - T(16.0 / 116.0)) / T(7.787);
    // `out *= xyz_ref_white` with a float64 white: computed in double, stored in T.
    xyz[c] = T(double(w) * white[c]);
  }
}

template <class T>
CUSK_HD void xyz_to_luv(const double (&white)[3], const T* xyz, T* luv) {
  const T eps = std::numeric_limits<T>::epsilon();
  const T wx = T(white[0]), wy = T(white[1]), wz = T(white[2]);
  T L = xyz[1] / wy;
  L = L > T(0.008856) ? T(116.0) * cbrt_t(L) - T(16.0) : T(903.3) * L;
  const T wsum = T(1) * wx + T(15) * wy + T(3) * wz;
  const T u0 = T(4) * wx / wsum, v0 = T(9) * wy / wsum;
  const T d = xyz[0] + T(15.0) * xyz[1] + T(3.0) * xyz[2] + eps;
  luv[0] = L;
  luv[1] = T(13.0) * L * ((T(4.0) * xyz[0]) / d - u0);
  luv[2] = T(13.0) * L * ((T(9.0) * xyz[1]) / d - v0);
}

template <class T>
CUSK_HD void luv_to_xyz(const double (&white)[3], const T* luv, T* xyz) {
  const T eps = std::numeric_limits<T>::epsilon();
  const T L = luv[0], u = luv[1], v = luv[2];
  T y = L > T(7.999625) ? pow_t<T>((L + T(16.0)) / T(116.0), T(3.0)) : L / T(903.3);
  const T wx = T(white[0]), wy = T(white[1]), wz = T(white[2]);
  y = y * wy;
  const T wsum = T(1) * wx + T(15) * wy + T(3) * wz;
  const T u0 = T(4) * wx / wsum, v0 = T(9) * wy / wsum;
  const T a = u0 + u / (T(13.0) * L + eps);
  const T b = v0 + v / (T(13.0) * L + eps);
  const T c = T(3) * y * (T(5) * b - T(3));
  const T z = ((a - T(4)) * c - T(15) * a * b * y) / (T(12) * b);
  xyz[0] = -(c / b + T(3.0) * z);
  xyz[1] = y;
  xyz[2] = z;
}

// ---- the ops ------------------------------------------------------------------------------------

struct OpBase {
  static constexpr int u8_tables = 0;      // uint8 input: 256-double tables (see the file comment)
  static constexpr bool u8_custom = false;  // uint8 input: op.u8 instead of tab[byte] + op
  template <class T, class In>
  CUSK_HD T load(In x, int) const { return to_float<T>(x); }
  template <class T>
  CUSK_HD T pre(T v) const { return v; }
};

/// An op whose uint8 input reads load+pre from one table (sRGB linearisation, the stain log).
/// Host only: the CPU loop and the CUDA launches (a kernel parameter) read the same table.
template <class Derived>
struct LutOp : OpBase {
  static constexpr int u8_tables = 1;
  void u8_table(double* tab) const {
    const Derived& d = static_cast<const Derived&>(*this);
    for (int v = 0; v < 256; ++v) tab[v] = d.pre(d.template load<double>(static_cast<std::uint8_t>(v), 0));
  }
};

struct LinearOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  template <class T, class In>
  CUSK_HD T load(In x, int c) const {
    if (p.has_pre) {  // in the input dtype; integers wrap as NumPy's in-place subtraction
      if constexpr (std::is_integral_v<In>) {
        using U = std::make_unsigned_t<In>;
        x = static_cast<In>(static_cast<U>(static_cast<U>(x) - static_cast<U>(p.pre[c])));
      } else {
        x = x - static_cast<In>(p.pre[c]);
      }
    }
    return to_float<T>(x);
  }
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    matvec(p.m, x, y);
    for (int c = 0; c < 3; ++c) y[c] = y[c] + T(p.post[c]);
  }
};

struct RgbToXyzOp : LutOp<RgbToXyzOp> {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;  // m = xyz_from_rgb
  template <class T>
  CUSK_HD T pre(T v) const { return srgb_to_linear(v); }
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const { matvec(p.m, x, y); }
};

struct XyzToRgbOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;  // m = rgb_from_xyz
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    matvec(p.m, x, y);
    for (int c = 0; c < 3; ++c) y[c] = linear_to_srgb(y[c]);
  }
};

struct XyzToLabOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  LabConsts k;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    // x * (1 / white) rather than scikit-image's x / white: within an ulp, no division per pixel.
    T t[3];
    for (int c = 0; c < 3; ++c) t[c] = cuskimage::detail::mul_rn(x[c], T(p.inv_white[c]));
    lab_from_ratio(t, y, k);
  }
};

struct LabToXyzOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const { lab_to_xyz(p.white, x, y); }
};

/// rgb2lab: m = xyz_from_rgb with row i divided by white[i] (the host folds the white in: one
/// product per output, where scikit-image divides xyz by the white after the matrix; within an ulp).
struct RgbToLabOp : LutOp<RgbToLabOp> {
  static constexpr int cin = 3, cout = 3;
  static constexpr bool u8_custom = true;
  PixelParams p;
  LabConsts k;
  template <class T>
  CUSK_HD T pre(T v) const { return srgb_to_linear(v); }
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    T t[3];
    matvec_rn(p.m, x, t);
    lab_from_ratio(t, y, k);
  }
  /// uint8: linear RGB in [0, 1] from the table, so 0 <= t < 4 (every illuminant) and the cube
  /// root's range test is moot (the same bits as operator() on the loaded values).
  template <class T>
  CUSK_HD void u8(const std::uint8_t* b, const double* tab, T* y) const {
    const double x[3] = {tab[b[0]], tab[b[1]], tab[b[2]]};
    double t[3];
    matvec_rn(p.m, x, t);
    lab_from_ratio<double, true>(t, y, k);
  }
};

struct LabToRgbOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;  // m = rgb_from_xyz, white
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    T xyz[3];
    lab_to_xyz(p.white, x, xyz);
    matvec(p.m, xyz, y);
    for (int c = 0; c < 3; ++c) y[c] = linear_to_srgb(y[c]);
  }
};

struct XyzToLuvOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const { xyz_to_luv(p.white, x, y); }
};

struct LuvToXyzOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const { luv_to_xyz(p.white, x, y); }
};

struct RgbToLuvOp : LutOp<RgbToLuvOp> {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;  // m = xyz_from_rgb, white = D65/2
  template <class T>
  CUSK_HD T pre(T v) const { return srgb_to_linear(v); }
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    T xyz[3];
    matvec(p.m, x, xyz);
    xyz_to_luv(p.white, xyz, y);
  }
};

struct LuvToRgbOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;  // m = rgb_from_xyz, white = D65/2
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    T xyz[3];
    luv_to_xyz(p.white, x, xyz);
    matvec(p.m, xyz, y);
    for (int c = 0; c < 3; ++c) y[c] = linear_to_srgb(y[c]);
  }
};

/// rgb2hsv in scikit-image's order of operations (the NumPy version of 0.26): v = max, delta =
/// max - min, s = delta / v, h = (k + n / delta) / 6 % 1 with (k, n) of the last channel equal to
/// the maximum (red (0, g - b), green (2, b - r), blue (4, r - g): blue's assignment runs last),
/// h = s = 0 where delta == 0, NaN results 0. A NaN channel makes NumPy's max NaN: (0, 0, 0).
/// Branch-free: one division for the hue whichever channel is the maximum (the divergent
/// per-channel divisions of a warp ran one after the other). Every step is exactly rounded, so both
/// backends give the same bits; |n| <= delta, so h / 6 lies in [-1/6, 5/6] and `% 1` is one add.
///
/// uint8 (u8): the maximum, minimum and their equalities come from the bytes; the three
/// divisions become Markstein's correction q + (a - b q) y, which is the correctly rounded a / b
/// when y = RN(1 / b) and q is within an ulp (Markstein 1990): y = 1 / v from a table (RN by
/// construction), 1 / 6 a constant, and 1 / delta one Newton step from the table's 1 / (d / 255),
/// d = max byte - min byte (exactly RN(1 / delta) for every byte pair: tests/color/
/// test_color_fast.cpp checks all 2^24 pixels against operator()). 16 FP64 instructions instead of
/// ~45 + 5 MUFU. The host takes plain divisions (the same correctly rounded quotients).
struct RgbToHsvOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  static constexpr int u8_tables = 2;  // x = k / 255 as loaded, then RN(1 / x) (0 for k = 0)
  static constexpr bool u8_custom = true;
  PixelParams p;
  void u8_table(double* tab) const {
    for (int k = 0; k < 256; ++k) {
      tab[k] = to_float<double>(static_cast<std::uint8_t>(k));
      tab[256 + k] = k == 0 ? 0.0 : 1.0 / tab[k];
    }
  }
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    const T r = x[0], g = x[1], b = x[2];
    if (isnan_t(r) || isnan_t(g) || isnan_t(b)) {
      y[0] = y[1] = y[2] = T(0);
      return;
    }
    T v = r > g ? r : g;
    v = b > v ? b : v;
    T mn = r < g ? r : g;
    mn = b < mn ? b : mn;
    const T delta = v - mn;
    const bool bmax = b == v, gmax = g == v;
    const T n = bmax ? r - g : (gmax ? b - r : g - b);
    const T k = bmax ? T(4) : (gmax ? T(2) : T(0));
    const bool flat = delta == T(0);
    T h = (k + n / (flat ? T(1) : delta)) / T(6);
    if (h < T(0)) h = h + T(1);
    T s = delta / v;
    if (flat) h = s = T(0);
    y[0] = isnan_t(h) ? T(0) : h;  // infinite inputs (inf - inf)
    y[1] = isnan_t(s) ? T(0) : s;
    y[2] = v;
  }
  /// The uint8 path: Markstein divisions on the device; on the host (no FMA instruction in the
  /// x86-64 baseline, so std::fma is a library call) the hardware's divisions, the same bits.
  template <class T>
  CUSK_HD void u8(const std::uint8_t* px, const double* tab, T* y) const {
#if defined(__CUDA_ARCH__)
    u8_impl<true>(px, tab, y);
#else
    u8_impl<false>(px, tab, y);
#endif
  }
  /// a / b as Markstein's correction of q = a y (y = RN(1 / b)); exact for the operands here.
  CUSK_HD static double div_by(double a, double b, double y) {
    using cuskimage::detail::fma_rn;
    const double q = cuskimage::detail::mul_rn(a, y);
    return fma_rn(fma_rn(-b, q, a), y, q);
  }
  template <bool kMarkstein, class T>
  CUSK_HD void u8_impl(const std::uint8_t* px, const double* tab, T* y) const {
    using cuskimage::detail::add_rn;
    using cuskimage::detail::div_rn;
    using cuskimage::detail::fma_rn;
    using cuskimage::detail::sub_rn;
    const double* X = tab;
    const double* RX = tab + 256;
    const int r = px[0], g = px[1], b = px[2];
    const int mx = r > g ? (r > b ? r : b) : (g > b ? g : b);
    const int mn = r < g ? (r < b ? r : b) : (g < b ? g : b);
    const int d = mx - mn;
    const double v = X[mx];
    const double delta = sub_rn(v, X[mn]);
    const bool bmax = b == mx, gmax = g == mx;
    const int ia = bmax ? r : (gmax ? b : g), ib = bmax ? g : (gmax ? r : b);
    const double n = sub_rn(X[ia], X[ib]);
    const double k = bmax ? 4.0 : (gmax ? 2.0 : 0.0);
    double h, s;
    if constexpr (kMarkstein) {
      const double y0 = RX[d > 0 ? d : 1];
      const double yd = fma_rn(y0, fma_rn(-delta, y0, 1.0), y0);  // RN(1 / delta)
      h = div_by(add_rn(k, div_by(n, delta, yd)), 6.0, 1.0 / 6.0);
      s = div_by(delta, v, RX[mx]);
    } else {
      h = div_rn(add_rn(k, div_rn(n, d > 0 ? delta : 1.0)), 6.0);
      s = div_rn(delta, mx > 0 ? v : 1.0);
    }
    if (h < 0.0) h = add_rn(h, 1.0);
    y[0] = d == 0 ? 0.0 : h;
    y[1] = d == 0 ? 0.0 : s;
    y[2] = v;
  }
};

struct HsvToRgbOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    const T h = x[0], s = x[1], v = x[2];
    const T hi = floor_t(h * T(6));
    const T f = h * T(6) - hi;
    const T pp = v * (T(1) - s);
    const T q = v * (T(1) - f * s);
    const T t = v * (T(1) - (T(1) - f) * s);
    // `.astype(np.uint8) % 6`: the float truncated and wrapped to 8 bits first.
    int k = 0;
    if (hi == hi && hi > T(-9.2e18) && hi < T(9.2e18))
      k = static_cast<int>(static_cast<std::uint8_t>(static_cast<std::int64_t>(hi) & 0xFF)) % 6;
    switch (k) {
      case 0: y[0] = v; y[1] = t; y[2] = pp; break;
      case 1: y[0] = q; y[1] = v; y[2] = pp; break;
      case 2: y[0] = pp; y[1] = v; y[2] = t; break;
      case 3: y[0] = pp; y[1] = q; y[2] = v; break;
      case 4: y[0] = t; y[1] = pp; y[2] = v; break;
      default: y[0] = v; y[1] = pp; y[2] = q; break;
    }
  }
};

/// separate_stains: m is conv_matrix transposed (stains_j = sum_i s_i conv[i][j]).
struct SeparateOp : LutOp<SeparateOp> {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  template <class T>
  CUSK_HD T pre(T v) const {
    v = v < T(1e-6) ? T(1e-6) : v;  // np.maximum(rgb, 1e-6): NaN propagates through log
    return log_t(v) / T(p.log_adjust);
  }
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    matvec(p.m, x, y);
    // np.maximum(stains, 0): NaN stays (a select, not a branch per channel on the device).
    for (int c = 0; c < 3; ++c) y[c] = y[c] <= T(0) ? T(0) : y[c];
  }
};

/// combine_stains: m is conv_matrix transposed; log_adjust = -log(1e-6).
struct CombineOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    const T la = T(p.log_adjust);
    const T s[3] = {x[0] * la, x[1] * la, x[2] * la};
    matvec(p.m, s, y);
    for (int c = 0; c < 3; ++c) y[c] = clip01(exp_t(-y[c]));
  }
};

struct LabToLchOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    const T r = hypot_t(x[1], x[2]);
    T t = atan2_t(x[2], x[1]);
    if (t < T(0)) t = t + T(2 * 3.141592653589793);
    y[0] = x[0];
    y[1] = r;
    y[2] = t;
  }
};

struct LchToLabOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    y[0] = x[0];
    y[1] = x[1] * cos_t(x[2]);
    y[2] = x[1] * sin_t(x[2]);
  }
};

/// uint8 (and uint16) converts each byte with unsigned_unit: one FMA per channel and no shared
/// memory. A table (as the other uint8 ops read) costs three 8-byte shared loads per pixel with bank
/// conflicts among the warp's 32 random bytes, and with one output channel the shared-memory pipe,
/// not the FP64 pipe, is what a pixel's issue time is made of (see kernels/color/pixel.cuh).
struct RgbToGrayOp : OpBase {
  static constexpr int cin = 3, cout = 1;
  PixelParams p;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    y[0] = T(0.2125) * x[0] + T(0.7154) * x[1] + T(0.0721) * x[2];
  }
};

struct RgbaToRgbOp : OpBase {
  static constexpr int cin = 4, cout = 3;
  PixelParams p;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    const T a = x[3];
    for (int c = 0; c < 3; ++c) y[c] = clip01((T(1) - a) * T(p.bg[c]) + a * x[c]);
  }
};

/// label2rgb's desaturation: rgb2hsv, hsv[..., 1] *= factor, hsv2rgb, each step in T as
/// scikit-image's three array passes.
struct SaturateOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    T hsv[3];
    RgbToHsvOp{}(x, hsv);
    hsv[1] = hsv[1] * T(p.factor);
    HsvToRgbOp{}(hsv, y);
  }
};

/// Calls f(OpStruct{params}) for the runtime op.
template <class F>
decltype(auto) with_op(Op op, const PixelParams& p, F&& f) {
  switch (op) {
    case Op::linear: return f(LinearOp{{}, p});
    case Op::rgb2xyz: return f(RgbToXyzOp{{}, p});
    case Op::xyz2rgb: return f(XyzToRgbOp{{}, p});
    case Op::xyz2lab: return f(XyzToLabOp{{}, p, {}});
    case Op::lab2xyz: return f(LabToXyzOp{{}, p});
    case Op::rgb2lab: return f(RgbToLabOp{{}, p, {}});
    case Op::lab2rgb: return f(LabToRgbOp{{}, p});
    case Op::xyz2luv: return f(XyzToLuvOp{{}, p});
    case Op::luv2xyz: return f(LuvToXyzOp{{}, p});
    case Op::rgb2luv: return f(RgbToLuvOp{{}, p});
    case Op::luv2rgb: return f(LuvToRgbOp{{}, p});
    case Op::rgb2hsv: return f(RgbToHsvOp{{}, p});
    case Op::hsv2rgb: return f(HsvToRgbOp{{}, p});
    case Op::separate: return f(SeparateOp{{}, p});
    case Op::combine: return f(CombineOp{{}, p});
    case Op::lab2lch: return f(LabToLchOp{{}, p});
    case Op::lch2lab: return f(LchToLabOp{{}, p});
    case Op::rgb2gray: return f(RgbToGrayOp{{}, p});
    case Op::saturate: return f(SaturateOp{{}, p});
    case Op::rgba2rgb: break;
  }
  return f(RgbaToRgbOp{{}, p});
}

}  // namespace cuskimage::color::detail
