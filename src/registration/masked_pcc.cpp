// phase_cross_correlation's masked variant (scikit-image's _masked_phase_cross_correlation and
// cross_correlate_masked, Padfield 2012): validation, the shift from the correlation's maxima, and
// the CPU backend (FFTW real transforms on the zero-padded next_fast_len grid).
#include <cmath>
#include <limits>
#include <string>

#include "cuskimage/registration.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/fft.hpp"
#include "src/core/validate.hpp"
#include "src/registration/pcc.hpp"

namespace cuskimage::registration::detail {

namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "registration.phase_cross_correlation";

#if CUSK_HAVE_FFTW
using cuskimage::detail::fft::Fftw;
using cuskimage::detail::fft::fftw_run;

/// Slots of the six padded real inputs / spectra, and of the six products' inverse transforms.
enum Slot { kFixed, kRotMoving, kFixedMask, kRotMovingMask, kFixedSq, kRotMovingSq };

template <class T>
std::vector<double> cpu_masked_t(const Array& fixed, const Array& moving, const Array& fmask, const Array& mmask,
                                 double overlap_ratio) {
  const int nd = fixed.ndim();
  const Shape& fs = fixed.shape();
  const Shape& ms = moving.shape();
  Shape final_shape(nd), fast(nd);
  std::vector<int> ext(nd);
  for (int d = 0; d < nd; ++d) {
    final_shape[d] = fs[d] + ms[d] - 1;
    fast[d] = next_fast_len(final_shape[d]);
    ext[d] = cuskimage::detail::fft::as_int(fast[d], "registration.phase_cross_correlation");
  }
  const std::int64_t P = shape_size(fast), H = P / fast[nd - 1] * (fast[nd - 1] / 2 + 1);
  Array bufa = Array::zeros({6, P}, dtype_v<T>);
  T* buf = bufa.data<T>();
  auto padded = [&](std::int64_t i, const Shape& s, bool flip) {  // element i of shape s -> padded offset
    std::int64_t off = 0, stride = 1;
    for (int d = nd - 1; d >= 0; --d) {
      std::int64_t c = i % s[d];
      i /= s[d];
      if (flip) c = s[d] - 1 - c;
      off += c * stride;
      stride *= fast[d];
    }
    return off;
  };
  const T* f = fixed.data<T>();
  const T* fm = fmask.data<T>();
  for (std::int64_t i = 0; i < fixed.size(); ++i) {
    const std::int64_t o = padded(i, fs, false);
    const T v = fm[i] != T(0) ? f[i] : T(0);
    buf[kFixed * P + o] = v, buf[kFixedMask * P + o] = fm[i], buf[kFixedSq * P + o] = v * v;
  }
  const T* m = moving.data<T>();
  const T* mm = mmask.data<T>();
  for (std::int64_t i = 0; i < moving.size(); ++i) {
    const std::int64_t o = padded(i, ms, true);
    const T v = mm[i] != T(0) ? m[i] : T(0);
    buf[kRotMoving * P + o] = v, buf[kRotMovingMask * P + o] = mm[i], buf[kRotMovingSq * P + o] = v * v;
  }
  Array speca = Array::empty({6 * H, 2}, dtype_v<T>);
  T* sp = speca.data<T>();
  const int p_int = cuskimage::detail::fft::as_int(P, "registration"), h_int = cuskimage::detail::fft::as_int(H, "registration");
  fftw_run<T>("registration.phase_cross_correlation", "rfftn",
              [&] { return Fftw<T>::r2c(nd, ext.data(), 6, buf, p_int, sp, h_int); });
  // Products (scikit-image's operand order), into the slots of the inverse transforms.
  auto* S = reinterpret_cast<Cplx<T>*>(sp);
  Array proda = Array::empty({6 * H, 2}, dtype_v<T>);
  auto* Q = reinterpret_cast<Cplx<T>*>(proda.data<T>());
  static constexpr int lhs[6] = {kRotMovingMask, kRotMovingMask, kFixedMask, kRotMoving, kRotMovingMask, kFixedMask};
  static constexpr int rhs[6] = {kFixedMask, kFixed, kRotMoving, kFixed, kFixedSq, kRotMovingSq};
  for (int k = 0; k < 6; ++k)
    for (std::int64_t i = 0; i < H; ++i) Q[k * H + i] = filters::detail::cmul(S[lhs[k] * H + i], S[rhs[k] * H + i]);
  fftw_run<T>("registration.phase_cross_correlation", "irfftn",
              [&] { return Fftw<T>::c2r(nd, ext.data(), 6, proda.data<T>(), h_int, buf, p_int); });
  const T scale = static_cast<T>(1.0 / static_cast<double>(P));
  const std::int64_t F = shape_size(final_shape);
  std::vector<MaskedTerms<T>> terms(F);
  T max_den = 0, max_ov = -std::numeric_limits<T>::infinity();
  for (std::int64_t i = 0; i < F; ++i) {
    const std::int64_t o = padded(i, final_shape, false);
    auto at = [&](int k) { return buf[k * P + o] * scale; };
    terms[i] = masked_terms<T>(at(0), at(1), at(2), at(3), at(4), at(5));
    max_den = std::fmax(max_den, std::abs(terms[i].denom));
    max_ov = std::fmax(max_ov, terms[i].overlap);
  }
  const T eps = std::numeric_limits<T>::epsilon();
  const T tol = static_cast<T>(1e3 * static_cast<double>(eps)) * max_den;
  const T thr = static_cast<T>(overlap_ratio) * max_ov;
  std::vector<T> out(F);
  T best = -std::numeric_limits<T>::infinity();
  for (std::int64_t i = 0; i < F; ++i) {
    out[i] = masked_value(terms[i], tol, thr);
    best = std::fmax(best, out[i]);
  }
  std::vector<double> center(nd, 0.0);
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < F; ++i) {
    if (out[i] != best) continue;
    ++count;
    std::int64_t r = i;
    for (int d = nd - 1; d >= 0; --d) center[d] += static_cast<double>(r % final_shape[d]), r /= final_shape[d];
  }
  for (auto& c : center) c /= static_cast<double>(count);
  return center;
}
#endif  // CUSK_HAVE_FFTW

}  // namespace

std::vector<double> cpu_masked_center(const Array& fixed, const Array& moving, const Array& fixed_mask,
                                      const Array& moving_mask, double overlap_ratio) {
#if CUSK_HAVE_FFTW
  return fixed.dtype() == DType::float32 ? cpu_masked_t<float>(fixed, moving, fixed_mask, moving_mask, overlap_ratio)
                                         : cpu_masked_t<double>(fixed, moving, fixed_mask, moving_mask, overlap_ratio);
#else
  (void)fixed, (void)moving, (void)fixed_mask, (void)moving_mask, (void)overlap_ratio;
  throw NotSupported(std::string(kFn) +
                     ": needs FFTW3 on CPU arrays; this build has none (install libfftw3-dev and reconfigure)");
#endif
}

PhaseCrossCorrelationResult masked_pcc(const Array& reference, const Array& moving,
                                       const PhaseCrossCorrelationOptions& opts, const Stream& stream) {
  expect(opts.reference_mask.valid(), kFn, "reference_mask", "must be set when moving_mask is");
  cuskimage::detail::expect_valid(opts.reference_mask, kFn, "reference_mask");
  const Array& rmask = opts.reference_mask;
  const Array& mmask = opts.moving_mask.valid() ? opts.moving_mask : opts.reference_mask;
  if (!opts.moving_mask.valid())
    expect(reference.shape() == moving.shape(), kFn, "moving_mask",
           "must be set explicitly when the images have different shapes (Input images have different shapes, "
           "moving_mask must be explicitly set), got ",
           shape_str(reference.shape()), " and ", shape_str(moving.shape()));
  expect(reference.shape() == rmask.shape() && moving.shape() == mmask.shape(), kFn, "reference_mask",
         "and moving_mask must have their images' shapes (Image sizes must match their respective mask sizes)");
  expect(reference.ndim() == moving.ndim(), kFn, "moving_image", "must have the reference's number of dimensions (",
         reference.ndim(), "), got ", moving.ndim());
  expect(reference.size() > 0 && moving.size() > 0, kFn, "reference_image", "and moving_image must not be empty");
  expect(rmask.device() == reference.device() && mmask.device() == reference.device(), kFn, "reference_mask",
         "and moving_mask must be on the images' device");
  const DType dt =
      reference.dtype() == DType::float32 && moving.dtype() == DType::float32 ? DType::float32 : DType::float64;
  auto as_t = [&](const Array& a) { return a.dtype() == dt ? a.contiguous(stream) : a.astype(dt, stream); };
  auto mask_t = [&](const Array& a) { return a.astype(DType::bool_, stream).astype(dt, stream); };
  // scikit-image correlates the moving image (as `fixed`) against the reference.
  Array fixed = as_t(moving), mov = as_t(reference), fm = mask_t(mmask), mm = mask_t(rmask);
  const std::vector<double> center = cuskimage::detail::on_backend(
      fixed, stream, [&] { return cpu_masked_center(fixed, mov, fm, mm, opts.overlap_ratio); },
      [&](const Stream& s) { return cuda_masked_center(fixed, mov, fm, mm, opts.overlap_ratio, s); });
  PhaseCrossCorrelationResult res;
  for (int d = 0; d < reference.ndim(); ++d) {
    const double shifts = center[d] - static_cast<double>(reference.shape(d)) + 1;
    res.shift.push_back(-shifts + static_cast<double>(moving.shape(d) - reference.shape(d)) / 2);
  }
  res.error = res.phasediff = std::numeric_limits<double>::quiet_NaN();
  return res;
}

}  // namespace cuskimage::registration::detail
