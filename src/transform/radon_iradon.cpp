// transform.iradon: argument handling, the sinogram padding, scikit-image's
// Fourier filters, the filter by FFT (FFTW on the host, cuFFT in
// kernels/transform/radon_iradon.cu) and the CPU back-projection; both backends
// back-project with the per-value code of src/transform/radon_iradon.hpp.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <numbers>
#include <string_view>
#include <vector>

#include "cuskimage/transform/radon_transform.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/fft.hpp"
#include "src/core/validate.hpp"
#include "src/transform/radon_iradon.hpp"

namespace cuskimage::transform {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "transform.iradon";

/// An unnormalised in-place radix-2 DFT (n a power of two; sign -1 forward, +1
/// inverse), the twiddles from cos/sin of each angle (no recurrence: ~1e-16
/// relative, as pocketfft).
void dft_pow2(std::vector<std::complex<double>> &a, int sign) {
  const auto n = static_cast<std::int64_t>(a.size());
  for (std::int64_t i = 1, j = 0; i < n; ++i) {
    std::int64_t bit = n >> 1;
    for (; j & bit; bit >>= 1)
      j ^= bit;
    j ^= bit;
    if (i < j)
      std::swap(a[i], a[j]);
  }
  std::vector<std::complex<double>> tw(static_cast<std::size_t>(n / 2));
  for (std::int64_t k = 0; k < n / 2; ++k) {
    const double ang =
        2 * std::numbers::pi * static_cast<double>(k) / static_cast<double>(n);
    tw[k] = {std::cos(ang), sign * std::sin(ang)};
  }
  for (std::int64_t len = 2; len <= n; len <<= 1)
    for (std::int64_t i = 0; i < n; i += len)
      for (std::int64_t k = 0; k < len / 2; ++k) {
        const std::complex<double> u = a[i + k],
                                   v = a[i + k + len / 2] * tw[k * (n / len)];
        a[i + k] = u + v;
        a[i + k + len / 2] = u - v;
      }
}

/// scikit-image's _get_fourier_filter(p, name) (real, length p), reduced to
/// what a real projection sees: Re(ifft(fft(x) * H)) = irfft(rfft(x) * He) with
/// He[k] = (H[k] + H[p - k]) / 2 (the odd part of H, present for hamming and
/// hann whose fftshift is not symmetric, only makes the imaginary part that
/// iradon drops). Returns He[0 .. p/2] / p (the inverse transform's scale
/// folded in).
std::vector<double> half_filter(std::int64_t p, IradonFilter name) {
  const double pi = std::numbers::pi;
  // f: 0.25 at 0, -1 / (pi n)^2 at the odd positions (n = 1, 3, ..., p/2 - 1,
  // p/2 - 1, ..., 3, 1).
  std::vector<std::complex<double>> f(static_cast<std::size_t>(p));
  f[0] = 0.25;
  for (std::int64_t pos = 1, q = 0; pos < p; pos += 2, ++q) {
    const std::int64_t n = q < p / 4 ? 2 * q + 1 : p / 2 - 1 - 2 * (q - p / 4);
    const double d = pi * static_cast<double>(n);
    f[pos] = -1 / (d * d);
  }
  dft_pow2(f, -1);
  std::vector<double> big_h(static_cast<std::size_t>(p));
  const auto shifted = [&](std::int64_t k) {
    return (k + p / 2) % p;
  }; // fftshift, even p
  for (std::int64_t k = 0; k < p; ++k) {
    big_h[k] = 2 * f[k].real();
    switch (name) {
    case IradonFilter::ramp:
      break;
    case IradonFilter::shepp_logan:
      if (k > 0) {
        // pi * fftfreq(p)[k]
        const double freq =
            static_cast<double>(k < (p - 1) / 2 + 1 ? k : k - p) *
            (1.0 / static_cast<double>(p));
        const double omega = pi * freq;
        big_h[k] *= std::sin(omega) / omega;
      }
      break;
    case IradonFilter::cosine:
      big_h[k] *= std::sin(static_cast<double>(shifted(k)) *
                           (pi / static_cast<double>(p)));
      break;
    case IradonFilter::hamming:
    case IradonFilter::hann: {
      // numpy.hamming / hanning: a + b cos(pi n / (p - 1)), n = 1 - p, 3 - p,
      // ..., p - 1.
      const double n = static_cast<double>(1 - p + 2 * shifted(k));
      const double c = std::cos(pi * n / static_cast<double>(p - 1));
      big_h[k] *=
          name == IradonFilter::hamming ? 0.54 + 0.46 * c : 0.5 + 0.5 * c;
      break;
    }
    case IradonFilter::none:
      big_h[k] = 1;
      break;
    }
  }
  std::vector<double> half(static_cast<std::size_t>(p / 2 + 1));
  for (std::int64_t k = 0; k <= p / 2; ++k)
    half[k] = (big_h[k] + big_h[(p - k) % p]) * 0.5 / static_cast<double>(p);
  return half;
}

/// The filtered projections on the host: na x p float64, projection a
/// zero-padded to p, through FFTW (the radix-2 DFT in a build without it).
template <class F>
std::vector<double> cpu_filtered(const Array &sino, std::int64_t p,
                                 const std::vector<double> &half) {
  const std::int64_t rows = sino.shape(0), na = sino.shape(1), nh = p / 2 + 1;
  const F *s = static_cast<const F *>(sino.data());
  std::vector<double> filt(static_cast<std::size_t>(na * p), 0.0);
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t a = 0; a < na; ++a)
      filt[a * p + i] = static_cast<double>(s[i * na + a]);
  if (na == 0)
    return filt;
#if CUSK_HAVE_FFTW
  using Fft = cuskimage::detail::fft::Fftw<double>;
  const int n = cuskimage::detail::fft::as_int(p, "transform.iradon");
  const int h = cuskimage::detail::fft::as_int(nh, "transform.iradon");
  const int howmany = cuskimage::detail::fft::as_int(na, "transform.iradon");
  std::vector<double> spec(static_cast<std::size_t>(2 * na * nh));
  cuskimage::detail::fft::fftw_run<double>("transform.iradon", "rfft", [&] {
    return Fft::r2c(1, &n, howmany, filt.data(), n, spec.data(), h);
  });
  for (std::int64_t a = 0; a < na; ++a)
    for (std::int64_t k = 0; k < nh; ++k)
      spec[2 * (a * nh + k)] *= half[k], spec[2 * (a * nh + k) + 1] *= half[k];
  cuskimage::detail::fft::fftw_run<double>("transform.iradon", "irfft", [&] {
    return Fft::c2r(1, &n, howmany, spec.data(), h, filt.data(), n);
  });
#else
  std::vector<std::complex<double>> col(static_cast<std::size_t>(p));
  for (std::int64_t a = 0; a < na; ++a) {
    for (std::int64_t i = 0; i < p; ++i)
      col[i] = filt[a * p + i];
    dft_pow2(col, -1);
    for (std::int64_t k = 0; k < p; ++k)
      col[k] *= half[std::min(k, p - k)];
    dft_pow2(col, 1);
    for (std::int64_t i = 0; i < p; ++i)
      filt[a * p + i] = col[i].real();
  }
#endif
  return filt;
}

template <class F>
void cpu_iradon(const std::vector<double> &filt, std::int64_t rows,
                std::int64_t p, const std::vector<double> &cs,
                const std::vector<double> &sn, Array &out, std::int64_t radius,
                int interp, bool circle) {
  const auto na = static_cast<std::int64_t>(cs.size());
  const std::int64_t size = out.shape(0);
  std::vector<double> m, w;
  if (interp == 2) {
    m.resize(static_cast<std::size_t>(na * rows));
    w.resize(static_cast<std::size_t>(rows));
    for (std::int64_t a = 0; a < na; ++a)
      detail::iradon_cubic_prepare(&filt[a * p], rows, &m[a * rows], w.data());
  }
  F *o = static_cast<F *>(out.data());
  for (std::int64_t i = 0; i < size; ++i)
    for (std::int64_t k = 0; k < size; ++k)
      o[i * size + k] =
          detail::iradon_pixel<F>(filt.data(), p, m.data(), rows, cs.data(),
                                  sn.data(), na, i, k, radius, interp, circle);
}

} // namespace

Array iradon(const Array &radon_image, const IradonOptions &opts,
             const Stream &stream) {
  cuskimage::detail::expect_valid(radon_image, kFn, "radon_image");
  expect(radon_image.ndim() == 2, kFn, "radon_image", "must be 2-D, got ",
         radon_image.ndim(), "-D");
  const std::int64_t rows0 = radon_image.shape(0), na = radon_image.shape(1);
  expect(opts.theta.empty() ||
             static_cast<std::int64_t>(opts.theta.size()) == na,
         kFn, "theta",
         "does not match the number of projections in 'radon_image' (",
         opts.theta.size(), " for ", na, ")");
  Array img =
      opts.preserve_range
          ? (radon_image.dtype() == DType::float32 ||
                     radon_image.dtype() == DType::float64
                 ? radon_image.contiguous(stream)
                 : radon_image.astype(DType::float64, stream))
          : util::img_as_float(radon_image, {}, stream).contiguous(stream);
  const std::int64_t size = opts.output_size.value_or(
      opts.circle ? rows0
                  : static_cast<std::int64_t>(std::floor(
                        std::sqrt(static_cast<double>(rows0 * rows0) / 2.0))));
  expect(size >= 0, kFn, "output_size", "must be non-negative, got ", size);
  if (opts.circle) { // _sinogram_circle_to_square: zero rows around, to the
                     // diagonal
    const auto diagonal = static_cast<std::int64_t>(
        std::ceil(std::numbers::sqrt2 * static_cast<double>(rows0)));
    const std::int64_t before = diagonal / 2 - rows0 / 2;
    Array sq = Array::zeros({diagonal, na}, img.dtype(), img.device(), stream);
    Array inner = sq.slice({Slice{before, before + rows0}, Slice{0, na}});
    inner.copy_from(img, stream);
    img = std::move(sq);
  }
  const std::int64_t rows = img.shape(0);
  const std::int64_t p = std::max<std::int64_t>(
      64, std::int64_t(1) << static_cast<int>(
              std::ceil(std::log2(2.0 * static_cast<double>(rows)))));
  const std::vector<double> half = half_filter(p, opts.filter_name);
  std::vector<double> cs(static_cast<std::size_t>(na)),
      sn(static_cast<std::size_t>(na));
  for (std::int64_t a = 0; a < na; ++a) {
    const double deg =
        opts.theta.empty()
            ? static_cast<double>(a) * (180.0 / static_cast<double>(na))
            : opts.theta[a];
    const double angle = deg * (std::numbers::pi / 180.0);
    cs[a] = std::cos(angle);
    sn[a] = std::sin(angle);
  }
  Array out =
      Array::empty({size, size}, img.dtype(), radon_image.device(), stream);
  const int interp =
      static_cast<int>(opts.interpolation); // linear, nearest, cubic
  expect(interp != 2 || rows >= 4, kFn, "radon_image",
         "needs at least 4 rows for cubic interpolation");
  const auto run = [&]<class F>() {
    cuskimage::detail::on_backend(
        radon_image, stream,
        [&] {
          cpu_iradon<F>(cpu_filtered<F>(img, p, half), rows, p, cs, sn, out,
                        size / 2, interp, opts.circle);
        },
        [&](auto /*handle*/) {
          const Device dev = radon_image.device();
          Array filt = Array::empty({na, p}, DType::float64, dev, stream);
          if (!detail::cuda_iradon_filter<F>(
                  img, Array::from_vector(half, {p / 2 + 1}).to(dev, stream),
                  filt, stream))
            filt = Array::from_vector(
                       cpu_filtered<F>(img.to(Device::cpu(), stream), p, half),
                       {na, p})
                       .to(dev, stream);
          const Array dc = Array::from_vector(cs, {na}).to(dev, stream);
          const Array ds = Array::from_vector(sn, {na}).to(dev, stream);
          const Shape spline = interp == 2 ? Shape{na, rows} : Shape{1};
          Array m = Array::empty(spline, DType::float64, dev, stream),
                w = Array::empty(spline, DType::float64, dev, stream);
          detail::cuda_iradon_backproject<F>(filt, rows, dc, ds, m, w, out,
                                             size / 2, interp, opts.circle,
                                             stream);
        });
  };
  if (img.dtype() == DType::float32)
    run.template operator()<float>();
  else
    run.template operator()<double>();
  return out;
}

} // namespace cuskimage::transform
