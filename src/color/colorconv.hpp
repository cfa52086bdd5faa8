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
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "src/core/hd.hpp"
#include "src/util/dtype_math.hpp"

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
  double bg[3] = {1.0, 1.0, 1.0};             // rgba2rgb background
  double log_adjust = 0.0;                    // stains: log(1e-6) as the host computes it
  double factor = 0.0;                        // saturate: the saturation factor
};

/// img_as_float of one element into T (T = float only for float input).
template <class T, class In>
CUSK_HD T to_float(In x) {
  if constexpr (std::is_same_v<In, T>)
    return x;
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

template <class T>
CUSK_HD void xyz_to_lab(const double (&white)[3], const T* xyz, T* lab) {
  T f[3];
  for (int c = 0; c < 3; ++c) {
    // x * (1 / white) rather than scikit-image's x / white: within an ulp, and three float64
    // divisions fewer per pixel (rgb2lab is near the H200's FP64 rate at the bandwidth floor).
    const T v = xyz[c] * T(1.0 / white[c]);
    f[c] = v > T(0.008856) ? cbrt_t(v) : T(7.787) * v + T(16.0 / 116.0);
  }
  lab[0] = T(116.0) * f[1] - T(16.0);
  lab[1] = T(500.0) * (f[0] - f[1]);
  lab[2] = T(200.0) * (f[1] - f[2]);
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
  static constexpr bool use_lut = false;  // load+pre tabulated for uint8 input
  template <class T, class In>
  CUSK_HD T load(In x, int) const { return to_float<T>(x); }
  template <class T>
  CUSK_HD T pre(T v) const { return v; }
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

struct RgbToXyzOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  static constexpr bool use_lut = true;
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
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const { xyz_to_lab(p.white, x, y); }
};

struct LabToXyzOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const { lab_to_xyz(p.white, x, y); }
};

struct RgbToLabOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  static constexpr bool use_lut = true;
  PixelParams p;  // m = xyz_from_rgb, white
  template <class T>
  CUSK_HD T pre(T v) const { return srgb_to_linear(v); }
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    T xyz[3];
    matvec(p.m, x, xyz);
    xyz_to_lab(p.white, xyz, y);
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

struct RgbToLuvOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  static constexpr bool use_lut = true;
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

struct RgbToHsvOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  PixelParams p;
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    const T r = x[0], g = x[1], b = x[2];
    const T v = r > g ? (r > b ? r : b) : (g > b ? g : b);
    const T mn = r < g ? (r < b ? r : b) : (g < b ? g : b);
    const T delta = v - mn;
    T s = delta / v;
    T h = T(0);
    // scikit-image assigns red, then green, then blue where each equals the maximum: last wins.
    if (b == v)
      h = T(4.0) + (r - g) / delta;
    else if (g == v)
      h = T(2.0) + (b - r) / delta;
    else if (r == v)
      h = (g - b) / delta;
    h = h / T(6.0);
    // Python's modulo: the result takes the divisor's sign. fmod is exact and the identity on
    // [0, 1) (every in-range pixel), so it runs only outside (a software loop on the device).
    if (!(h >= T(0) && h < T(1))) h = fmod_t(h, T(1.0));
    if (h < T(0)) h = h + T(1.0);
    if (delta == T(0)) {
      h = T(0);
      s = T(0);
    }
    y[0] = isnan_t(h) ? T(0) : h;
    y[1] = isnan_t(s) ? T(0) : s;
    y[2] = isnan_t(v) ? T(0) : v;
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
struct SeparateOp : OpBase {
  static constexpr int cin = 3, cout = 3;
  static constexpr bool use_lut = true;
  PixelParams p;
  template <class T>
  CUSK_HD T pre(T v) const {
    v = v > T(1e-6) ? v : T(1e-6);  // np.maximum(rgb, 1e-6): NaN propagates through log
    return log_t(v) / T(p.log_adjust);
  }
  template <class T>
  CUSK_HD void operator()(const T* x, T* y) const {
    matvec(p.m, x, y);
    for (int c = 0; c < 3; ++c) y[c] = y[c] > T(0) ? y[c] : (isnan_t(y[c]) ? y[c] : T(0));
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
    case Op::xyz2lab: return f(XyzToLabOp{{}, p});
    case Op::lab2xyz: return f(LabToXyzOp{{}, p});
    case Op::rgb2lab: return f(RgbToLabOp{{}, p});
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
