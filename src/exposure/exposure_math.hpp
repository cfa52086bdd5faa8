// Per-pixel and per-bin arithmetic of skimage.exposure, written once for both backends (CUSK_HD).
// Every rounding step is spelled out (src/core/rn.hpp) so that nvcc's fused multiply-adds cannot
// change a last bit that NumPy's separately rounded operations produce.
//
// Precision follows NumPy 2 (NEP 50): float32 images compute in float32 with Python-float
// constants rounded to float32; integer images compute in float64.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "src/core/convert.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::exposure::detail {

using cuskimage::detail::add_rn;
using cuskimage::detail::div_rn;
using cuskimage::detail::floor_rn;
using cuskimage::detail::mul_rn;
using cuskimage::detail::rint_rn;
using cuskimage::detail::sub_rn;

/// The computation type of an image of T: float for float32, else double.
template <class T>
using comp_t = std::conditional_t<std::is_same_v<T, float>, float, double>;

/// np.maximum / np.minimum (NaN propagates from either side).
template <class C>
CUSK_HD C np_max(C a, C b) {
  if (a != a) return a;
  if (b != b) return b;
  return a > b ? a : b;
}
template <class C>
CUSK_HD C np_min(C a, C b) {
  if (a != a) return a;
  if (b != b) return b;
  return a < b ? a : b;
}
/// np.clip(v, lo, hi) = minimum(maximum(v, lo), hi).
template <class C>
CUSK_HD C np_clip(C v, C lo, C hi) {
  return np_min(np_max(v, lo), hi);
}

// ---- rescale_intensity ---------------------------------------------------------------------------

/// in/out ranges as resolved on the host, completed on the backend with the image's min and max.
struct RescaleSpec {
  bool in_image = true;  // in_range "image"
  double in_lo = 0, in_hi = 0;
  int out_kind = 0;  // 0: fixed (out_lo, out_hi); 1: image min/max; 2: dtype limits, min 0 when imin >= 0
  double out_lo = 0, out_hi = 0;
  bool needs_range() const { return in_image || out_kind == 1; }
};

struct RescaleResolved {
  double imin, imax, omin, omax;
};

CUSK_HD RescaleResolved resolve(const RescaleSpec& s, double mn, double mx) {
  RescaleResolved r{};
  r.imin = s.in_image ? mn : s.in_lo;
  r.imax = s.in_image ? mx : s.in_hi;
  if (s.out_kind == 1) {
    r.omin = mn;
    r.omax = mx;
  } else {
    r.omin = (s.out_kind == 2 && r.imin >= 0) ? 0.0 : s.out_lo;
    r.omax = s.out_hi;
  }
  return r;
}

/// rescale_intensity's value before the final astype, in C (float for float32 images, else double).
template <class C, class T>
CUSK_HD C rescale_value(T x, const RescaleResolved& r) {
  C v = np_clip(static_cast<C>(x), static_cast<C>(r.imin), static_cast<C>(r.imax));
  if (r.imin != r.imax) {
    v = div_rn(sub_rn(v, static_cast<C>(r.imin)), static_cast<C>(r.imax - r.imin));
    return add_rn(mul_rn(v, static_cast<C>(r.omax - r.omin)), static_cast<C>(r.omin));
  }
  return np_clip(v, static_cast<C>(r.omin), static_cast<C>(r.omax));
}

// ---- adjust_gamma / adjust_log / adjust_sigmoid ----------------------------------------------------

/// x ** g with NumPy's fast scalar powers (2: square, 0.5: sqrt, 1: copy, 0: one), pow otherwise.
template <class C>
CUSK_HD C np_pow(C x, C g) {
  if (g == C(2)) return mul_rn(x, x);
  if (g == C(1)) return x;
  if (g == C(0)) return C(1);
  if (g == C(0.5)) {
#if defined(__CUDA_ARCH__)
    if constexpr (std::is_same_v<C, float>) return __fsqrt_rn(x);
    else return __dsqrt_rn(x);
#else
    return std::sqrt(x);
#endif
  }
  return std::pow(x, g);
}

/// NumPy's float -> integer astype as it behaves on x86-64 (the C conversion is undefined out of
/// range): 8/16-bit targets go through int32 and wrap (280.5 -> uint8 24), wider ones saturate to
/// the "integer indefinite" minimum. adjust_* with gain > 1 overflow this way in scikit-image.
template <class T, class C>
CUSK_HD T np_astype(C r) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(r);
  } else if constexpr (sizeof(T) <= 2) {
    if (!(r > C(-2147483648.0) && r < C(2147483648.0))) return T(0);
    return static_cast<T>(static_cast<std::uint32_t>(static_cast<std::int32_t>(r)));
  } else if constexpr (sizeof(T) == 4 && std::is_signed_v<T>) {
    if (!(r > C(-2147483649.0) && r < C(2147483648.0))) return std::numeric_limits<T>::lowest();
    return static_cast<T>(r);
  } else {
    if (!(r > C(-9223372036854775808.0) && r < C(9223372036854775808.0)))
      return static_cast<T>(std::numeric_limits<std::int64_t>::lowest());
    return static_cast<T>(static_cast<std::int64_t>(r));
  }
}

enum class AdjustKind : int { gamma, log, log_inv, sigmoid, sigmoid_inv };

/// One adjust_* formula for a non-uint8-gamma image: C computes, T is the output (= input) dtype.
template <class T>
struct AdjustOp {
  using C = comp_t<T>;
  AdjustKind kind;
  C scale, a, b;  // gamma: a = gamma, b = gain; log: a = gain; sigmoid: a = cutoff, b = gain
  CUSK_HD T operator()(T x) const {
    const C t = div_rn(static_cast<C>(x), scale);
    C r;
    switch (kind) {
      case AdjustKind::gamma: r = mul_rn(mul_rn(np_pow(t, a), scale), b); break;
      case AdjustKind::log: r = mul_rn(mul_rn(std::log2(add_rn(C(1), t)), scale), a); break;
      case AdjustKind::log_inv: r = mul_rn(mul_rn(sub_rn(std::pow(C(2), t), C(1)), scale), a); break;
      case AdjustKind::sigmoid:
        r = mul_rn(div_rn(C(1), add_rn(C(1), std::exp(mul_rn(b, sub_rn(a, t))))), scale);
        break;
      default:
        r = mul_rn(sub_rn(C(1), div_rn(C(1), add_rn(C(1), std::exp(mul_rn(b, sub_rn(a, t)))))), scale);
        break;
    }
    return np_astype<T>(r);
  }
};

/// adjust_gamma's uint8 table: min(rint(255 * gain * linspace(0, 1, 256) ** gamma), 255) as uint8.
struct GammaLut {
  std::uint8_t v[256];
};
inline GammaLut gamma_lut(double gamma, double gain) {
  GammaLut lut{};
  const double step = 1.0 / 255.0;
  for (int i = 0; i < 256; ++i) {
    const double x = i == 255 ? 1.0 : double(i) * step;  // linspace: i * step + 0, last = stop
    const double y = std::fmin(std::rint((255.0 * gain) * np_pow(x, gamma)), 255.0);
    lut.v[i] = np_astype<std::uint8_t>(y);
  }
  return lut;
}

// ---- histogram bins --------------------------------------------------------------------------------

/// numpy.histogram's uniform bins over [first, last] of a float image of T: edges linspace(first,
/// last, n + 1) computed in T (`in_t`: range from the image's own min/max) or in double then cast
/// (range given as Python numbers), the last edge exactly `last`. A value belongs to bin i when
/// edge(i) <= x < edge(i + 1) (the last bin closed); outside [first, last] it is not counted.
template <class T>
struct FloatBins {
  T first = 0, last = 1;
  std::int64_t n = 1;
  bool in_t = true;

  CUSK_HD static FloatBins make(T lo, T hi, std::int64_t nbins, bool in_t) {
    FloatBins b;
    if (lo == hi) {
      lo = sub_rn(lo, T(0.5));
      hi = add_rn(hi, T(0.5));
    }
    b.first = lo;
    b.last = hi;
    b.n = nbins;
    b.in_t = in_t;
    return b;
  }
  CUSK_HD T edge(std::int64_t i) const {
    if (i >= n) return last;
    if (in_t) {
      const T step = div_rn(sub_rn(last, first), T(n));
      return add_rn(mul_rn(T(i), step), first);
    }
    const double step = div_rn(sub_rn(double(last), double(first)), double(n));
    return static_cast<T>(add_rn(mul_rn(double(i), step), double(first)));
  }
  CUSK_HD T center(std::int64_t i) const { return div_rn(add_rn(edge(i), edge(i + 1)), T(2)); }
  /// Bin of x, or -1 when x is outside [first, last] (or NaN).
  CUSK_HD std::int64_t index(T x) const {
    if (!(x >= first && x <= last)) return -1;
    const double g = (double(x) - double(first)) / (double(last) - double(first)) * double(n);
    std::int64_t i = static_cast<std::int64_t>(g);
    i = i < 0 ? 0 : (i > n - 1 ? n - 1 : i);
    while (i > 0 && x < edge(i)) --i;
    while (i < n - 1 && x >= edge(i + 1)) ++i;
    return i;
  }
};

// ---- numpy.interp --------------------------------------------------------------------------------

/// numpy.interp(x, xp, fp) for increasing xp of n >= 1 points (accessors xp(i), fp(i) -> double).
template <class XP, class FP>
CUSK_HD double np_interp(double x, const XP& xp, const FP& fp, std::int64_t n) {
  if (x != x) return x;
  if (x > xp(n - 1)) return fp(n - 1);
  if (x < xp(0)) return fp(0);
  std::int64_t lo = 0, hi = n;  // largest j with xp(j) <= x
  while (hi - lo > 1) {
    const std::int64_t mid = (lo + hi) / 2;
    if (xp(mid) <= x) lo = mid;
    else hi = mid;
  }
  const std::int64_t j = lo;
  if (j == n - 1 || xp(j) == x) return fp(j);
  const double slope = div_rn(sub_rn(fp(j + 1), fp(j)), sub_rn(xp(j + 1), xp(j)));
  double r = add_rn(mul_rn(slope, sub_rn(x, xp(j))), fp(j));
  if (r != r) {
    r = add_rn(mul_rn(slope, sub_rn(x, xp(j + 1))), fp(j + 1));
    if (r != r && fp(j) == fp(j + 1)) r = fp(j);
  }
  return r;
}

// ---- CLAHE ----------------------------------------------------------------------------------------

inline constexpr int kGrayLevels = 16384;  // scikit-image's NR_OF_GRAY

/// numpy.pad(mode='reflect') source index of padded index i (any distance) for an axis of s.
CUSK_HD std::int64_t reflect_index(std::int64_t i, std::int64_t s) {
  if (i >= 0 && i < s) return i;
  if (s == 1) return 0;
  const std::int64_t period = 2 * (s - 1);
  i %= period;
  if (i < 0) i += period;
  return i >= s ? period - i : i;
}

/// img_as_uint of one pixel (uint8: x * 257; floats: rint(x * 65535) clipped).
template <class T>
CUSK_HD std::uint16_t to_uint16(T x) {
  if constexpr (std::is_same_v<T, std::uint16_t>) {
    return x;
  } else if constexpr (std::is_same_v<T, std::uint8_t>) {
    return static_cast<std::uint16_t>(x * 257u);
  } else {
    T t = rint_rn(mul_rn(x, T(65535)));
    t = t < T(0) ? T(0) : (t > T(65535) ? T(65535) : t);
    return cuskimage::detail::convert<std::uint16_t>(t);
  }
}

/// round(rescale_intensity(u, out_range=(0, 16383))) given the uint16 image's min and max.
CUSK_HD std::uint16_t to_gray14(std::uint16_t u, double umin, double umax) {
  double v = double(u);
  if (umin != umax) {
    v = div_rn(sub_rn(v, umin), sub_rn(umax, umin));
    v = add_rn(mul_rn(v, double(kGrayLevels - 1)), 0.0);
  } else {
    v = v < 0.0 ? 0.0 : (v > double(kGrayLevels - 1) ? double(kGrayLevels - 1) : v);
  }
  return static_cast<std::uint16_t>(rint_rn(v));
}

/// Geometry of one CLAHE run over a D-dimensional grey image.
template <int D>
struct ClaheGeom {
  std::int64_t shape[D];   // image extents
  std::int64_t k[D];       // kernel_size
  std::int64_t tiles[D];   // ceil(shape / k): contextual regions per axis
  std::int64_t bin_size;   // 1 + 16384 // nbins
  std::int64_t nbins;

  CUSK_HD std::int64_t ntiles() const {
    std::int64_t n = 1;
    for (int d = 0; d < D; ++d) n *= tiles[d];
    return n;
  }
};

/// The interpolated CLAHE value (before the final rescale) of the pixel at x whose grey bin is
/// `bin`: scikit-image's sum over the 2^D neighbouring region maps in numpy.ndindex order, each
/// term (map * weight) rounded to float32, accumulated in float32, truncated to uint16. `lut(t, b)`
/// is region t's (C-order linear index) mapped value of bin b.
/// `I` is the coordinate type (int on the device when every extent fits: cheaper divisions).
template <int D, class I = std::int64_t, class Lut>
CUSK_HD std::uint16_t clahe_interpolate(const ClaheGeom<D>& g, const I* x, std::int64_t bin, const Lut& lut) {
  std::int64_t lo[D], hi[D];
  double c[D], ic[D];
CUSK_UNROLL
  for (int d = 0; d < D; ++d) {
    const I k = static_cast<I>(g.k[d]);
    const I p = x[d] + k / 2;
    const I b = p / k;
    const I o = p - b * k;
    c[d] = div_rn(double(o), double(k));
    ic[d] = sub_rn(1.0, c[d]);
    const std::int64_t n1 = g.tiles[d] - 1;
    lo[d] = b - 1 < 0 ? 0 : (b - 1 > n1 ? n1 : b - 1);
    hi[d] = b > n1 ? n1 : b;
  }
  float acc = 0.0f;
CUSK_UNROLL
  for (int corner = 0; corner < (1 << D); ++corner) {
    double w = 0;
    std::int64_t tile = 0;
CUSK_UNROLL
    for (int d = 0; d < D; ++d) {
      const bool e = (corner >> (D - 1 - d)) & 1;
      tile = tile * g.tiles[d] + (e ? hi[d] : lo[d]);
    }
    // np.prod over [factor of axis D-1, ..., factor of axis 0], left to right.
CUSK_UNROLL
    for (int d = D - 1; d >= 0; --d) {
      const bool e = (corner >> (D - 1 - d)) & 1;
      const double f = e ? c[d] : ic[d];
      w = d == D - 1 ? f : mul_rn(w, f);
    }
    const float term = static_cast<float>(mul_rn(double(lut(tile, bin)), w));
    acc = add_rn(acc, term);
  }
  return static_cast<std::uint16_t>(acc);
}

/// map_histogram for one cumulative count: min(cum * (16383 / n_pixels), 16383) truncated.
CUSK_HD std::uint16_t clahe_map_value(std::int64_t cum, double scale) {
  double v = mul_rn(double(cum), scale);
  v = add_rn(v, 0.0);
  v = v > double(kGrayLevels - 1) ? double(kGrayLevels - 1) : v;
  return static_cast<std::uint16_t>(static_cast<std::int64_t>(v));
}

// ---- colour (adapt_rgb(hsv_value), is_low_contrast) ---------------------------------------------------

/// np.remainder(a, 1.0).
template <class F>
CUSK_HD F np_mod1(F a) {
  F m = std::fmod(a, F(1));
  if (m != F(0) && m < F(0)) m = add_rn(m, F(1));
  if (m == F(0)) m = F(0);
  return m;
}

/// skimage.color.rgb2hsv of one pixel (values already img_as_float'ed, precision F).
template <class F>
CUSK_HD void rgb_to_hsv(F r, F g, F b, F& h, F& s, F& v) {
  const F mx = np_max(np_max(r, g), b);
  const F mn = np_min(np_min(r, g), b);
  const F delta = sub_rn(mx, mn);
  v = mx;
  s = delta == F(0) ? F(0) : div_rn(delta, mx);
  F hh = 0;
  if (r == mx) hh = div_rn(sub_rn(g, b), delta);
  if (g == mx) hh = add_rn(F(2), div_rn(sub_rn(b, r), delta));
  if (b == mx) hh = add_rn(F(4), div_rn(sub_rn(r, g), delta));
  h = delta == F(0) ? F(0) : np_mod1(div_rn(hh, F(6)));
  if (h != h) h = 0;
  if (s != s) s = 0;
  if (v != v) v = 0;
}

/// skimage.color.hsv2rgb of one pixel.
template <class F>
CUSK_HD void hsv_to_rgb(F h, F s, F v, F& r, F& g, F& b) {
  const F h6 = mul_rn(h, F(6));
  const F hi = floor_rn(h6);
  const F f = sub_rn(h6, hi);
  const F p = mul_rn(v, sub_rn(F(1), s));
  const F q = mul_rn(v, sub_rn(F(1), mul_rn(f, s)));
  const F t = mul_rn(v, sub_rn(F(1), mul_rn(sub_rn(F(1), f), s)));
  const int k = static_cast<int>(cuskimage::detail::convert<std::uint8_t>(hi)) % 6;
  switch (k) {
    case 0: r = v; g = t; b = p; break;
    case 1: r = q; g = v; b = p; break;
    case 2: r = p; g = v; b = t; break;
    case 3: r = p; g = q; b = v; break;
    case 4: r = t; g = p; b = v; break;
    default: r = v; g = p; b = q; break;
  }
}

/// rgba2rgb (white background) of one channel value.
template <class F>
CUSK_HD F rgba_blend(F c, F alpha) {
  const F v = add_rn(sub_rn(F(1), alpha), mul_rn(alpha, c));
  return v < F(0) ? F(0) : (v > F(1) ? F(1) : v);
}

/// rgb2gray of one pixel.
template <class F>
CUSK_HD F rgb_to_gray(F r, F g, F b) {
  return add_rn(add_rn(mul_rn(r, F(0.2125)), mul_rn(g, F(0.7154))), mul_rn(b, F(0.0721)));
}

}  // namespace cuskimage::exposure::detail
