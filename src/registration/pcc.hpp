// phase_cross_correlation's pieces shared by the FFTW (CPU, phase_cross_correlation.cpp) and cuFFT
// (CUDA, kernels/registration/phase_cross_correlation.cu) backends: the per-element maps (the
// normalized cross-power spectrum, the upsampled DFT's kernel entries) and the host-side scalar
// steps, written once so the backends differ only in the FFTs' and the sums' rounding.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/registration.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/filters/frequency.hpp"

namespace cuskimage::registration::detail {

using filters::detail::Cplx;

inline constexpr int kMaxPccDims = 8;

/// One entry of the normalized cross-power spectrum F1 * conj(F2), divided by max(|.|, 100 eps) for
/// phase normalization as NumPy divides a complex array by a real one (as complex (m + 0j)).
template <class T>
CUSK_HD Cplx<T> cross_power(Cplx<T> a, Cplx<T> b, bool phase) {
  const Cplx<T> p = filters::detail::cmul(a, Cplx<T>{b.re, -b.im});
  if (!phase) return p;
  // 100 * eps computed in double, then rounded to T (NumPy 2's weak Python float).
  const T eps100 = static_cast<T>(sizeof(T) == 4 ? 100 * 1.1920928955078125e-07 : 100 * 2.220446049250313e-16);
  const T m = filters::detail::hd_hypot(p.re, p.im);
  return filters::detail::cdiv(p, Cplx<T>{m > eps100 ? m : eps100, T(0)});
}

/// The phase angle of the upsampled DFT's kernel entry (output row u, input frequency index k) on an
/// axis of n samples: -2 pi (u - offset) fftfreq(n, factor)[k], in double as scikit-image builds it.
/// fftfreq's spacing 1 / (n * factor) is rounded to T, as NumPy computes it for a T factor.
template <class T>
CUSK_HD double upsample_angle(std::int64_t u, std::int64_t k, std::int64_t n, double offset, T factor) {
  const std::int64_t f = k < (n + 1) / 2 ? k : k - n;
  const T spacing = T(1) / (static_cast<T>(n) * factor);
  const double freq = static_cast<double>(f) * static_cast<double>(spacing);
  return -2.0 * 3.141592653589793 * ((static_cast<double>(u) - offset) * freq);
}

/// What a backend hands back from the unmasked algorithm.
struct PccRaw {
  std::vector<std::int64_t> maxima;  // argmax of |CC| (first in C order), unravelled
  double cc_re = 0, cc_im = 0;       // CC at the maximum (upsample_factor 1)
  double src_amp = 0, target_amp = 0;  // sums of |F|^2 over the full spectra
};

struct PccJob {
  Array ref, mov;  // contiguous float32/float64; real: the images; fourier: (*shape, 2) spectra
  Shape shape;     // the images' shape
  bool fourier = false;
  bool phase = true;
};

/// The upsampled DFT of a job's cross-power spectrum around `offsets` (one per axis), `region`
/// samples per axis: CC[u_0, ..., u_{d-1}] as interleaved complex double, C order, already conj'ed
/// back (scikit-image's conj(_upsampled_dft(conj(P), ...))).
struct UpsampleRequest {
  std::int64_t region = 0;
  double factor = 1;
  std::vector<double> offsets;
};

/// Backends: the whole-pixel stage (FFTs, spectrum, argmax, amplitudes), and the upsampled DFT.
/// The CUDA backend keeps its spectra in `state` between the two calls.
struct PccState {
  Array f1, f2;  // spectra (CUDA: half spectra for real input, full for fourier input)
};
PccRaw cpu_pcc(const PccJob& job, PccState& state);
std::vector<double> cpu_upsample(const PccJob& job, const PccState& state, const UpsampleRequest& req);
PccRaw cuda_pcc(const PccJob& job, PccState& state, const Stream& stream);
std::vector<double> cuda_upsample(const PccJob& job, const PccState& state, const UpsampleRequest& req,
                                  const Stream& stream);

/// The masked correlation's per-element combination of its six inverse transforms (overlap count,
/// mask-correlated fixed and moving, correlation, squared fixed and moving against the masks), in
/// T as scikit-image evaluates it; math in double is exact here (rint, fmax) or rounds once (sqrt).
template <class T>
struct MaskedTerms {
  T overlap, numerator, denom;
};
template <class T>
CUSK_HD MaskedTerms<T> masked_terms(T ov, T mcf, T mcm, T num, T fden, T mden) {
  const T eps = static_cast<T>(sizeof(T) == 4 ? 1.1920928955078125e-07 : 2.220446049250313e-16);
  ov = static_cast<T>(::fmax(::rint(static_cast<double>(ov)), static_cast<double>(eps)));
  const T numerator = num - mcf * mcm / ov;
  T fd = fden - mcf * mcf / ov;
  T md = mden - mcm * mcm / ov;
  fd = static_cast<T>(::fmax(static_cast<double>(fd), 0.0));
  md = static_cast<T>(::fmax(static_cast<double>(md), 0.0));
  return {ov, numerator, static_cast<T>(::sqrt(static_cast<double>(fd * md)))};
}

/// The normalized correlation of one entry: numerator / denom where denom > tol, clipped to [-1, 1];
/// 0 where the overlap is below the threshold.
template <class T>
CUSK_HD T masked_value(const MaskedTerms<T>& t, T tol, T threshold) {
  T v = t.denom > tol ? t.numerator / t.denom : T(0);
  v = v < T(-1) ? T(-1) : (v > T(1) ? T(1) : v);
  return t.overlap < threshold ? T(0) : v;
}

/// The masked variant (phase_cross_correlation with a mask): validation, backend, shift.
PhaseCrossCorrelationResult masked_pcc(const Array& reference, const Array& moving,
                                       const PhaseCrossCorrelationOptions& opts, const Stream& stream);

/// Masked normalized cross-correlation (scikit-image's cross_correlate_masked, mode 'full', all
/// axes) of `fixed` against `moving` (float T, contiguous; masks bool/any, contiguous, same device):
/// the mean position of the maxima of the result (scikit-image's `center`).
std::vector<double> cpu_masked_center(const Array& fixed, const Array& moving, const Array& fixed_mask,
                                      const Array& moving_mask, double overlap_ratio);
std::vector<double> cuda_masked_center(const Array& fixed, const Array& moving, const Array& fixed_mask,
                                       const Array& moving_mask, double overlap_ratio, const Stream& stream);

/// scipy.fft.next_fast_len(n) for complex transforms: the smallest 2,3,5,7,11-smooth number >= n.
inline std::int64_t next_fast_len(std::int64_t n) {
  if (n <= 6) return n < 1 ? 1 : n;
  for (std::int64_t m = n;; ++m) {
    std::int64_t r = m;
    for (std::int64_t p : {2, 3, 5, 7, 11})
      while (r % p == 0) r /= p;
    if (r == 1) return m;
  }
}

}  // namespace cuskimage::registration::detail
