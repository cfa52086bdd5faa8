// skimage.registration.phase_cross_correlation: validation, the host-side scalar steps of scikit-image
// 0.26's algorithm (coarse shift, upsampling offsets, error, phasediff, disambiguation), and the CPU
// backend (FFTW on full complex spectra, the simple oracle the CUDA backend is tested against).
#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>

#include "cuskimage/ndimage.hpp"
#include "cuskimage/registration.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/fft.hpp"
#include "src/core/validate.hpp"
#include "src/registration/pcc.hpp"

namespace cuskimage::registration {

namespace detail {
namespace {

[[maybe_unused]] constexpr const char* kWho = "registration.phase_cross_correlation";

#if CUSK_HAVE_FFTW
using cuskimage::detail::fft::Fftw;
using cuskimage::detail::fft::fftw_run;

std::vector<int> fft_extents(const Shape& s) {
  std::vector<int> n;
  for (auto v : s) n.push_back(cuskimage::detail::fft::as_int(v, kWho));
  return n;
}

/// The full complex spectrum (interleaved) of a job's input: fftn of a real image, or a copy.
template <class T>
Array full_spectrum(const Array& a, const PccJob& job) {
  const std::int64_t n = shape_size(job.shape);
  Array out = Array::empty({n, 2}, dtype_v<T>);
  T* o = out.data<T>();
  const T* in = a.data<T>();
  if (job.fourier) {
    std::copy(in, in + 2 * n, o);
    return out;
  }
  for (std::int64_t i = 0; i < n; ++i) o[2 * i] = in[i], o[2 * i + 1] = T(0);
  const std::vector<int> ext = fft_extents(job.shape);
  fftw_run<T>(kWho, "fftn", [&] {
    return Fftw<T>::c2c(static_cast<int>(ext.size()), ext.data(), 1, o, 0, Fftw<T>::forward);
  });
  return out;
}

template <class T>
PccRaw cpu_pcc_t(const PccJob& job, PccState& st) {
  st.f1 = full_spectrum<T>(job.ref, job);
  st.f2 = full_spectrum<T>(job.mov, job);
  const std::int64_t n = shape_size(job.shape);
  const auto* a = reinterpret_cast<const Cplx<T>*>(st.f1.data<T>());
  const auto* b = reinterpret_cast<const Cplx<T>*>(st.f2.data<T>());
  Array cc = Array::empty({n, 2}, dtype_v<T>);
  auto* c = reinterpret_cast<Cplx<T>*>(cc.data<T>());
  PccRaw raw;
  for (std::int64_t i = 0; i < n; ++i) {
    c[i] = cross_power(a[i], b[i], job.phase);
    raw.src_amp += static_cast<double>(a[i].re * a[i].re + a[i].im * a[i].im);
    raw.target_amp += static_cast<double>(b[i].re * b[i].re + b[i].im * b[i].im);
  }
  const std::vector<int> ext = fft_extents(job.shape);
  fftw_run<T>(kWho, "ifftn", [&] {
    return Fftw<T>::c2c(static_cast<int>(ext.size()), ext.data(), 1, cc.data<T>(), 0, Fftw<T>::backward);
  });
  // NumPy's argmax of |ifftn|: the first maximum in C order (a NaN wins at once).
  const T scale = static_cast<T>(1.0 / static_cast<double>(n));
  std::int64_t best = 0;
  T best_v = -std::numeric_limits<T>::infinity();
  for (std::int64_t i = 0; i < n; ++i) {
    const T v = filters::detail::hd_hypot(c[i].re * scale, c[i].im * scale);
    if (std::isnan(v)) {
      best = i;
      break;
    }
    if (v > best_v) best_v = v, best = i;
  }
  raw.cc_re = static_cast<double>(c[best].re * scale);
  raw.cc_im = static_cast<double>(c[best].im * scale);
  raw.maxima.assign(job.shape.size(), 0);
  for (int d = static_cast<int>(job.shape.size()) - 1; d >= 0; --d) {
    raw.maxima[d] = best % job.shape[d];
    best /= job.shape[d];
  }
  return raw;
}

/// scikit-image's _upsampled_dft on conj(P), axis by axis from the last (each contraction puts its
/// output axis first), then conj'ed back; kernel entries rounded to T as scikit-image casts them.
template <class T>
std::vector<double> cpu_upsample_t(const PccJob& job, const PccState& st, const UpsampleRequest& req) {
  const std::int64_t n = shape_size(job.shape);
  const auto* a = reinterpret_cast<const Cplx<T>*>(st.f1.data<T>());
  const auto* b = reinterpret_cast<const Cplx<T>*>(st.f2.data<T>());
  std::vector<std::complex<double>> data(n);
  for (std::int64_t i = 0; i < n; ++i) {
    const Cplx<T> p = cross_power(a[i], b[i], job.phase);
    data[i] = {static_cast<double>(p.re), -static_cast<double>(p.im)};
  }
  std::vector<std::int64_t> dims(job.shape.begin(), job.shape.end());
  const std::int64_t ups = req.region;
  for (int ax = static_cast<int>(job.shape.size()) - 1; ax >= 0; --ax) {
    const std::int64_t len = job.shape[ax];
    std::vector<std::complex<double>> kern(ups * len);
    for (std::int64_t u = 0; u < ups; ++u)
      for (std::int64_t k = 0; k < len; ++k) {
        const double th = upsample_angle<T>(u, k, len, req.offsets[ax], static_cast<T>(req.factor));
        kern[u * len + k] = {static_cast<double>(static_cast<T>(std::cos(th))),
                             static_cast<double>(static_cast<T>(std::sin(th)))};
      }
    const std::int64_t q_count = static_cast<std::int64_t>(data.size()) / dims.back();
    std::vector<std::complex<double>> out(ups * q_count);
#pragma omp parallel for schedule(static) if (ups * q_count * len > 65536)
    for (std::int64_t uq = 0; uq < ups * q_count; ++uq) {
      const std::int64_t u = uq / q_count, q = uq % q_count;
      std::complex<double> acc = 0;
      for (std::int64_t k = 0; k < len; ++k) acc += kern[u * len + k] * data[q * len + k];
      out[uq] = acc;
    }
    data = std::move(out);
    dims.pop_back();
    dims.insert(dims.begin(), ups);
  }
  std::vector<double> res(2 * data.size());
  for (std::size_t i = 0; i < data.size(); ++i) res[2 * i] = data[i].real(), res[2 * i + 1] = -data[i].imag();
  return res;
}
#else
[[noreturn]] void no_fftw() {
  throw NotSupported(std::string(kWho) +
                     ": needs FFTW3 on CPU arrays; this build has none (install libfftw3-dev and reconfigure)");
}
#endif  // CUSK_HAVE_FFTW

}  // namespace

PccRaw cpu_pcc(const PccJob& job, PccState& state) {
#if CUSK_HAVE_FFTW
  return job.ref.dtype() == DType::float32 ? cpu_pcc_t<float>(job, state) : cpu_pcc_t<double>(job, state);
#else
  (void)job, (void)state;
  no_fftw();
#endif
}

std::vector<double> cpu_upsample(const PccJob& job, const PccState& state, const UpsampleRequest& req) {
#if CUSK_HAVE_FFTW
  return job.ref.dtype() == DType::float32 ? cpu_upsample_t<float>(job, state, req)
                                           : cpu_upsample_t<double>(job, state, req);
#else
  (void)job, (void)state, (void)req;
  no_fftw();
#endif
}

}  // namespace detail

// ==== public function ================================================================================
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "registration.phase_cross_correlation";

/// The array as contiguous float `dt` (shared when it already is).
Array as_float(const Array& a, DType dt, const Stream& stream) {
  return a.dtype() == dt ? a.contiguous(stream) : a.astype(dt, stream);
}

/// np.corrcoef(a, b)[0, 1] in double (NaN for a constant tile).
double corrcoef(const std::vector<double>& a, const std::vector<double>& b) {
  const std::size_t n = a.size();
  double ma = 0, mb = 0;
  for (std::size_t i = 0; i < n; ++i) ma += a[i], mb += b[i];
  ma /= static_cast<double>(n), mb /= static_cast<double>(n);
  double sab = 0, saa = 0, sbb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double x = a[i] - ma, y = b[i] - mb;
    sab += x * y, saa += x * x, sbb += y * y;
  }
  const double d = static_cast<double>(n - 1);
  const double c = sab / d / std::sqrt(saa / d) / std::sqrt(sbb / d);
  return std::clamp(c, -1.0, 1.0);
}

/// scikit-image's _disambiguate_shift: shift the moving image (grid-wrap; order 0 for whole-pixel
/// shifts, else 3), correlate each of the 2^ndim quadrants its borders define with the reference,
/// and pick each axis' period from the best one. Runs on host copies.
std::vector<double> disambiguate(const Array& reference, const Array& moving, std::vector<double> shift,
                                 const Stream& stream) {
  const Shape& shape = reference.shape();
  const int nd = reference.ndim();
  std::vector<double> pos(nd), neg(nd);
  bool subpixel = false;
  for (int d = 0; d < nd; ++d) {
    const double s = static_cast<double>(shape[d]);
    pos[d] = shift[d] - std::floor(shift[d] / s) * s;
    neg[d] = pos[d] - s;
    subpixel = subpixel || std::fmod(shift[d], 1.0) != 0;
  }
  Array mov = moving.to(Device::cpu(), stream);
  Array ref = reference.to(Device::cpu(), stream).astype(DType::float64);
  const std::int64_t total = reference.size();
  Shape cshape{static_cast<std::int64_t>(nd)};
  cshape.insert(cshape.end(), shape.begin(), shape.end());
  Array coords = Array::empty(cshape, DType::float64);
  double* cp = coords.data<double>();
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t r = i;
    for (int d = nd - 1; d >= 0; --d) {
      cp[d * total + i] = static_cast<double>(r % shape[d]) - shift[d];
      r /= shape[d];
    }
  }
  Array shifted = ndimage::map_coordinates(
                      mov, coords, {.order = subpixel ? 3 : 0, .mode = ndimage::InterpMode::grid_wrap})
                      .astype(DType::float64);
  const double* rp = ref.data<double>();
  const double* sp = shifted.data<double>();
  std::vector<std::int64_t> split(nd);
  for (int d = 0; d < nd; ++d) split[d] = static_cast<std::int64_t>(std::nearbyint(pos[d]));
  double max_corr = -1.0;
  int max_quadrant = -1;
  for (int q = 0; q < (1 << nd); ++q) {  // itertools.product order: axis 0 varies slowest
    std::vector<double> ta, tb;
    for (std::int64_t i = 0; i < total; ++i) {
      std::int64_t r = i;
      bool in = true;
      for (int d = nd - 1; d >= 0 && in; --d) {
        const std::int64_t c = r % shape[d];
        r /= shape[d];
        const bool upper = (q >> (nd - 1 - d)) & 1;
        in = upper ? c >= split[d] : c < split[d];
      }
      if (in) ta.push_back(rp[i]), tb.push_back(sp[i]);
    }
    const double corr = ta.size() > 2 ? corrcoef(ta, tb) : -1.0;
    if (corr > max_corr) max_corr = corr, max_quadrant = q;
  }
  if (max_quadrant < 0) return shift;  // degenerate: scikit-image warns and keeps the shift
  for (int d = 0; d < nd; ++d) shift[d] = ((max_quadrant >> (nd - 1 - d)) & 1) ? pos[d] : neg[d];
  return shift;
}

/// The scalar steps after the backend's whole-pixel stage; `reference`/`moving` are the images as
/// given (disambiguate correlates them unconverted, as scikit-image does).
template <class T>
PhaseCrossCorrelationResult finish(const detail::PccJob& job, detail::PccState& state, detail::PccRaw raw,
                                   const PhaseCrossCorrelationOptions& opts, const Array& reference,
                                   const Array& moving, const Stream& stream) {
  const int nd = static_cast<int>(job.shape.size());
  std::vector<T> shift(nd);
  for (int d = 0; d < nd; ++d) {
    shift[d] = static_cast<T>(raw.maxima[d]);
    if (shift[d] > std::trunc(static_cast<T>(job.shape[d]) / T(2))) shift[d] -= static_cast<T>(job.shape[d]);
  }
  std::complex<double> ccmax(raw.cc_re, raw.cc_im);
  if (opts.upsample_factor == 1) {
    raw.src_amp /= static_cast<double>(shape_size(job.shape));
    raw.target_amp /= static_cast<double>(shape_size(job.shape));
  } else {
    const T uf = static_cast<T>(opts.upsample_factor);
    for (auto& s : shift) s = std::nearbyint(s * uf) / uf;
    const T region = std::ceil(uf * T(1.5));
    const T dftshift = std::trunc(region / T(2));
    detail::UpsampleRequest req{.region = static_cast<std::int64_t>(region), .factor = static_cast<double>(uf), .offsets = {}};
    for (int d = 0; d < nd; ++d) req.offsets.push_back(static_cast<double>(dftshift - shift[d] * uf));
    const std::vector<double> cc = cuskimage::detail::on_backend(
        job.ref, stream, [&] { return detail::cpu_upsample(job, state, req); },
        [&](const Stream& s) { return detail::cuda_upsample(job, state, req, s); });
    std::size_t best = 0;
    double best_v = -1;
    for (std::size_t i = 0; i < cc.size() / 2; ++i) {
      const double v = std::hypot(cc[2 * i], cc[2 * i + 1]);
      if (std::isnan(v)) {
        best = i;
        break;
      }
      if (v > best_v) best_v = v, best = i;
    }
    ccmax = {cc[2 * best], cc[2 * best + 1]};
    for (int d = nd - 1; d >= 0; --d) {
      const auto idx = static_cast<std::int64_t>(best % req.region);
      best /= req.region;
      shift[d] += (static_cast<T>(idx) - dftshift) / uf;
    }
  }
  PhaseCrossCorrelationResult res;
  for (int d = 0; d < nd; ++d) res.shift.push_back(job.shape[d] == 1 ? 0.0 : static_cast<double>(shift[d]));
  if (opts.disambiguate) {
    if (job.fourier)
      throw NotSupported(std::string(kFn) + ": disambiguate with space='fourier' is not supported (it needs "
                                            "the complex images); pass the images with space='real'");
    res.shift = disambiguate(reference, moving, res.shift, stream);
  }
  expect(!std::isnan(ccmax.real()) && !std::isnan(ccmax.imag()) && !std::isnan(raw.src_amp) &&
             !std::isnan(raw.target_amp),
         kFn, "reference_image",
         "has NaN values (or moving_image has): remove the NaNs or use the reference_mask/moving_mask keywords, "
         "e.g. reference_mask = ~isnan(reference_image)");
  const double amp = raw.src_amp * raw.target_amp;
  res.error = std::sqrt(std::abs(1.0 - std::norm(ccmax) / amp));
  res.phasediff = std::atan2(ccmax.imag(), ccmax.real());
  return res;
}

}  // namespace

PhaseCrossCorrelationResult phase_cross_correlation(const Array& reference_image, const Array& moving_image,
                                                    const PhaseCrossCorrelationOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(reference_image, kFn, "reference_image");
  cuskimage::detail::expect_valid(moving_image, kFn, "moving_image");
  expect(reference_image.device() == moving_image.device(), kFn, "moving_image",
         "must be on the reference image's device");
  if (opts.reference_mask.valid() || opts.moving_mask.valid()) return detail::masked_pcc(reference_image, moving_image, opts, stream);
  expect(opts.upsample_factor >= 1 && std::isfinite(opts.upsample_factor), kFn, "upsample_factor",
         "must be a finite number >= 1, got ", opts.upsample_factor);
  expect(reference_image.shape() == moving_image.shape(), kFn, "moving_image", "must have the reference's shape ",
         shape_str(reference_image.shape()), " (images must be same shape), got ", shape_str(moving_image.shape()));
  expect(reference_image.dtype() != DType::bool_ || opts.space == Space::real, kFn, "reference_image",
         "spectra must be float arrays");
  detail::PccJob job;
  job.fourier = opts.space == Space::fourier;
  job.phase = opts.normalization == Normalization::phase;
  job.shape = reference_image.shape();
  if (job.fourier) {
    expect(reference_image.ndim() >= 2 && reference_image.shape().back() == 2, kFn, "reference_image",
           "with space='fourier' must be a spectrum with a trailing axis of 2 (real, imaginary), got shape ",
           shape_str(reference_image.shape()));
    job.shape.pop_back();
  }
  expect(reference_image.size() > 0, kFn, "reference_image", "must not be empty, got shape ",
         shape_str(reference_image.shape()));
  expect(!job.shape.empty(), kFn, "reference_image", "must have at least 1 dimension");
  const DType dt = reference_image.dtype() == DType::float32 && moving_image.dtype() == DType::float32
                       ? DType::float32
                       : DType::float64;
  job.ref = as_float(reference_image, dt, stream);
  job.mov = as_float(moving_image, dt, stream);
  detail::PccState state;
  const detail::PccRaw raw = cuskimage::detail::on_backend(
      job.ref, stream, [&] { return detail::cpu_pcc(job, state); },
      [&](const Stream& s) { return detail::cuda_pcc(job, state, s); });
  return dt == DType::float32 ? finish<float>(job, state, raw, opts, reference_image, moving_image, stream)
                              : finish<double>(job, state, raw, opts, reference_image, moving_image, stream);
}

}  // namespace cuskimage::registration
