// Frequency-domain filters (butterworth, LPIFilter2D, filter_inverse, wiener): the per-element maps
// shared by the FFTW (CPU, frequency.cpp) and cuFFT (CUDA, kernels/filters/frequency.cu) backends,
// and the backend entry points. Complex buffers are real arrays with a trailing axis of 2.
//
// Each map reproduces NumPy's evaluation order (its complex division, sign and abs), so the two
// backends and scikit-image differ only in the FFTs' rounding.
#pragma once

#include <cmath>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::filters::detail {

inline constexpr int kMaxFftAxes = 7;  // spatial axes; + a channel axis stays within Indexer's 8

template <class T>
struct Cplx {
  T re, im;
};

template <class T>
CUSK_HD T hd_hypot(T a, T b) {
  if constexpr (sizeof(T) == 4) return ::hypotf(a, b);
  else return ::hypot(a, b);
}
template <class T>
CUSK_HD T hd_pow(T a, T b) {
  if constexpr (sizeof(T) == 4) return ::powf(a, b);
  else return ::pow(a, b);
}
template <class T>
CUSK_HD T hd_sqrt(T a) {
  if constexpr (sizeof(T) == 4) return ::sqrtf(a);
  else return ::sqrt(a);
}

template <class T>
CUSK_HD Cplx<T> cmul(Cplx<T> a, Cplx<T> b) {
  return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}
/// NumPy's complex division (Smith's method, as in its true_divide loop).
template <class T>
CUSK_HD Cplx<T> cdiv(Cplx<T> a, Cplx<T> b) {
  const T br = b.re < 0 ? -b.re : b.re, bi = b.im < 0 ? -b.im : b.im;
  if (br >= bi) {
    if (br == 0 && bi == 0) return {a.re / br, a.im / br};
    const T rat = b.im / b.re, scl = T(1) / (b.re + b.im * rat);
    return {(a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl};
  }
  const T rat = b.re / b.im, scl = T(1) / (b.im + b.re * rat);
  return {(a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl};
}
/// NumPy 2's complex sign: z / |z| (0 for 0).
template <class T>
CUSK_HD Cplx<T> csign(Cplx<T> z) {
  if (z.re == 0 && z.im == 0) return {T(0), T(0)};
  const T a = hd_hypot(z.re, z.im);
  return {z.re / a, z.im / a};
}
template <class T>
CUSK_HD Cplx<T> cscale(Cplx<T> z, T s) {  // complex * real scalar as NumPy does it (s + 0j)
  return {z.re * s - z.im * T(0), z.re * T(0) + z.im * s};
}

// ---- butterworth ---------------------------------------------------------------------------------

/// Work buffer [C, P_0, ..., P_{r-1}] (C-order, channel first) <- image: edge padding by npad
/// (np.pad mode='edge') on every spatial axis. source(w) is the image element offset of work entry w.
struct PadGather {
  int rank = 0;
  std::int64_t npad = 0;
  std::int64_t cstride = 0;  // image stride of the channel axis (0 without channels)
  std::int64_t pshape[kMaxFftAxes] = {};
  std::int64_t ishape[kMaxFftAxes] = {};
  std::int64_t istride[kMaxFftAxes] = {};

  CUSK_HD std::int64_t source(std::int64_t w) const {
    std::int64_t off = 0;
    for (int d = kMaxFftAxes - 1; d >= 0; --d) {
      if (d >= rank) continue;
      const std::int64_t q = w / pshape[d];
      std::int64_t s = w - q * pshape[d] - npad;
      w = q;
      s = s < 0 ? 0 : (s >= ishape[d] ? ishape[d] - 1 : s);
      off += s * istride[d];
    }
    return off + w * cstride;  // w is the channel now
  }
};

/// Output (contiguous, the image's shape) <- work: element o reads work[offset(o)], the unpadded
/// centre of the work buffer (channel axis mapped to the work's first axis).
struct CropScatter {
  int ndim = 0;
  std::int64_t shape[kMaxFftAxes + 1] = {};
  std::int64_t wstride[kMaxFftAxes + 1] = {};
  std::int64_t base = 0;

  CUSK_HD std::int64_t offset(std::int64_t o) const {
    std::int64_t off = base;
    for (int d = kMaxFftAxes; d >= 0; --d) {
      if (d >= ndim) continue;
      const std::int64_t q = o / shape[d];
      off += (o - q * shape[d]) * wstride[d];
      o = q;
    }
    return off;
  }
};

/// The Butterworth gain at one entry of a channel's half spectrum (rfftn layout: the last axis keeps
/// n/2+1 entries), computed as scikit-image's _get_nd_butterworth_filter does: squared frequencies
/// k / (n * factor) summed over axes in float64, then cast to T for the power and the gain.
struct ButterworthGain {
  int rank = 0;
  std::int64_t n[kMaxFftAxes] = {};  // padded FFT extents
  double factor = 0.005;
  double order = 2.0;
  bool high_pass = true;
  bool squared = true;

  std::int64_t half_last() const { return n[rank - 1] / 2 + 1; }

  template <class T>
  CUSK_HD T at(std::int64_t h) const {  // h: linear index within one channel's half spectrum
    double sq[kMaxFftAxes] = {};
    for (int d = kMaxFftAxes - 1; d >= 0; --d) {
      if (d >= rank) continue;
      const std::int64_t len = d == rank - 1 ? n[d] / 2 + 1 : n[d];
      const std::int64_t q = h / len;
      const std::int64_t i = h - q * len;
      h = q;
      const std::int64_t k = i < (n[d] + 1) / 2 ? i : i - n[d];  // numpy.fft.fftfreq order
      const double v = static_cast<double>(k) / (static_cast<double>(n[d]) * factor);
      sq[d] = v * v;
    }
    double q2 = sq[0];
    for (int d = 1; d < kMaxFftAxes; ++d)
      if (d < rank) q2 = q2 + sq[d];
    const T p = hd_pow(static_cast<T>(q2), static_cast<T>(order));
    T w = T(1) / (T(1) + p);
    if (high_pass) w = w * p;
    if (!squared) w = hd_sqrt(w);
    return w;
  }
};

struct ButterworthPlan {
  PadGather gather;
  CropScatter scatter;
  ButterworthGain gain;
  std::int64_t channels = 1;
  std::int64_t padded_size = 1;  // product of the padded spatial extents (irfftn's 1/N)
};

/// image: a validated array of uint8, uint16, int16, int32, float32 or float64; out: contiguous,
/// the image's shape, float32 or float64 (the FFT precision).
void cpu_butterworth(const Array& image, Array& out, const ButterworthPlan& plan);
void cuda_butterworth(const Array& image, Array& out, const ButterworthPlan& plan, const Stream& stream);

// ---- LPIFilter2D, filter_inverse, wiener --------------------------------------------------------

enum class LpiOp { forward, inverse, wiener };

/// G <- G * op(F) at one spectrum entry; K (wiener) is a scalar or an array read with broadcast
/// strides (ks0, ks1).
struct LpiSpectral {
  LpiOp op = LpiOp::forward;
  double max_gain = 2.0;
  double K = 0.25;
  const double* K_array = nullptr;
  std::int64_t ks0 = 0, ks1 = 0;
  std::int64_t cols = 0;  // O1, to split a linear index

  template <class T>
  CUSK_HD Cplx<T> apply(Cplx<T> g, Cplx<T> f, std::int64_t idx) const {
    if (op == LpiOp::forward) return cmul(f, g);
    // _min_limit: |F| < eps -> sign(F) * eps
    const T eps = sizeof(T) == 4 ? T(1.1920928955078125e-07) : T(2.220446049250313e-16);
    if (hd_hypot(f.re, f.im) < eps) f = cscale(csign(f), eps);
    Cplx<T> inv = cdiv(Cplx<T>{T(1), T(0)}, f);
    if (op == LpiOp::inverse) {
      const T mg = static_cast<T>(max_gain);
      if (hd_hypot(inv.re, inv.im) > mg) inv = cscale(csign(inv), mg);
      return cmul(g, inv);
    }
    const T a = hd_hypot(f.re, f.im);
    const T h = a * a;
    double k = K;
    if (K_array) {
      const std::int64_t r = idx / cols;
      k = K_array[r * ks0 + (idx - r * cols) * ks1];
    }
    const Cplx<T> w = cdiv(cscale(inv, h), Cplx<T>{h + static_cast<T>(k), T(0)});
    return cmul(g, w);
  }
};

/// out[i, j] = |W[(i + s0) mod O0, (j + s1) mod O1]| * scale: the centre crop (and, for the inverse
/// filters, ifftshift) of the inverse FFT, normalised by 1/(O0*O1).
struct LpiCrop {
  std::int64_t rows = 0, cols = 0;  // M, N
  std::int64_t o0 = 0, o1 = 0;      // 2M-1, 2N-1
  std::int64_t s0 = 0, s1 = 0;

  CUSK_HD std::int64_t source(std::int64_t o) const {
    const std::int64_t i = o / cols, j = o - i * cols;
    std::int64_t a = i + s0, b = j + s1;
    if (a >= o0) a -= o0;
    if (b >= o1) b -= o1;
    return a * o1 + b;
  }
};

/// spec [O0, O1, 2] (float32/float64) <- FFT of `src` (2-D, dtype in uint8, uint16, int16, int32,
/// float32, float64, any strides) zero-padded to (O0, O1).
void cpu_lpi_spectrum(const Array& src, Array& spec);
void cuda_lpi_spectrum(const Array& src, Array& spec, const Stream& stream);
/// G <- op(G, F); W = inverse FFT of G (in place); out (contiguous [M, N], the spectrum's dtype)
/// <- centred |W| / (O0 * O1). K_array (wiener) is a float64 array on out's device or empty.
void cpu_lpi_finish(Array& G, const Array& F, const LpiSpectral& sp, const LpiCrop& crop, Array& out);
void cuda_lpi_finish(Array& G, const Array& F, const LpiSpectral& sp, const LpiCrop& crop, Array& out,
                     const Stream& stream);

}  // namespace cuskimage::filters::detail
