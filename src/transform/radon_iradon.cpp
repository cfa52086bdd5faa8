// transform.iradon: argument handling, the sinogram padding, scikit-image's Fourier filters turned
// into their (real) convolution kernel, and the CPU backend. The CUDA backend
// (kernels/transform/radon_iradon.cu) evaluates the same per-value code (src/transform/radon_iradon.hpp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string_view>
#include <vector>

#include "cuskimage/transform/radon_transform.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/transform/radon_iradon.hpp"

namespace cuskimage::transform {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "transform.iradon";

/// scikit-image's _get_fourier_filter(p, name) (real, length p), then the real part of its inverse
/// DFT: filtering by FFT product = circular convolution of each projection with this kernel.
std::vector<double> filter_kernel(std::int64_t p, IradonFilter name) {
  const double pi = std::numbers::pi;
  std::vector<double> cosines(static_cast<std::size_t>(p));
  for (std::int64_t m = 0; m < p; ++m) cosines[m] = std::cos(2 * pi * static_cast<double>(m) / static_cast<double>(p));
  // f: 0.25 at 0, -1 / (pi n)^2 at the odd positions (n = 1, 3, ..., p/2 - 1, p/2 - 1, ..., 3, 1).
  std::vector<double> f(static_cast<std::size_t>(p), 0.0);
  f[0] = 0.25;
  for (std::int64_t pos = 1, q = 0; pos < p; pos += 2, ++q) {
    const std::int64_t n = q < p / 4 ? 2 * q + 1 : p / 2 - 1 - 2 * (q - p / 4);
    const double d = pi * static_cast<double>(n);
    f[pos] = -1 / (d * d);
  }
  std::vector<double> big_h(static_cast<std::size_t>(p));
  for (std::int64_t k = 0; k < p; ++k) {
    double s = 0;
    for (std::int64_t n = 0; n < p; ++n) s += f[n] * cosines[(k * n) % p];
    big_h[k] = 2 * s;
  }
  const auto shifted = [&](std::int64_t k) { return (k + p / 2) % p; };  // fftshift, even p
  for (std::int64_t k = 0; k < p; ++k) {
    switch (name) {
      case IradonFilter::ramp: break;
      case IradonFilter::shepp_logan:
        if (k > 0) {
          // pi * fftfreq(p)[k]
          const double freq = static_cast<double>(k < (p - 1) / 2 + 1 ? k : k - p) * (1.0 / static_cast<double>(p));
          const double omega = pi * freq;
          big_h[k] *= std::sin(omega) / omega;
        }
        break;
      case IradonFilter::cosine: {
        const std::int64_t m = shifted(k);
        big_h[k] *= std::sin(static_cast<double>(m) * (pi / static_cast<double>(p)));
        break;
      }
      case IradonFilter::hamming:
      case IradonFilter::hann: {
        // numpy.hamming / hanning: a + b cos(pi n / (p - 1)), n = 1 - p, 3 - p, ..., p - 1.
        const std::int64_t m = shifted(k);
        const double n = static_cast<double>(1 - p + 2 * m);
        const double c = std::cos(pi * n / static_cast<double>(p - 1));
        big_h[k] *= name == IradonFilter::hamming ? 0.54 + 0.46 * c : 0.5 + 0.5 * c;
        break;
      }
      case IradonFilter::none: big_h[k] = 1; break;
    }
  }
  std::vector<double> h(static_cast<std::size_t>(p));
  for (std::int64_t m = 0; m < p; ++m) {
    double s = 0;
    for (std::int64_t k = 0; k < p; ++k) s += big_h[k] * cosines[(k * m) % p];
    h[m] = s / static_cast<double>(p);
  }
  return h;
}

template <class F>
void cpu_iradon(const Array& sino, const std::vector<double>& h, const std::vector<double>& cs,
                const std::vector<double>& sn, Array& out, std::int64_t radius, int interp, bool circle) {
  const std::int64_t rows = sino.shape(0), na = sino.shape(1), size = out.shape(0);
  const auto p = static_cast<std::int64_t>(h.size());
  const F* s = static_cast<const F*>(sino.data());
  std::vector<double> filt(static_cast<std::size_t>(na * rows));
  for (std::int64_t a = 0; a < na; ++a)
    for (std::int64_t i = 0; i < rows; ++i) filt[a * rows + i] = detail::iradon_filtered(s, rows, na, a, i, h.data(), p);
  std::vector<double> m, w;
  if (interp == 2) {
    m.resize(filt.size());
    w.resize(static_cast<std::size_t>(rows));
    for (std::int64_t a = 0; a < na; ++a) detail::iradon_cubic_prepare(&filt[a * rows], rows, &m[a * rows], w.data());
  }
  F* o = static_cast<F*>(out.data());
  for (std::int64_t i = 0; i < size; ++i)
    for (std::int64_t k = 0; k < size; ++k)
      o[i * size + k] =
          detail::iradon_pixel<F>(filt.data(), m.data(), rows, cs.data(), sn.data(), na, i, k, radius, interp, circle);
}

}  // namespace

Array iradon(const Array& radon_image, const IradonOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(radon_image, kFn, "radon_image");
  expect(radon_image.ndim() == 2, kFn, "radon_image", "must be 2-D, got ", radon_image.ndim(), "-D");
  const std::int64_t rows0 = radon_image.shape(0), na = radon_image.shape(1);
  expect(opts.theta.empty() || static_cast<std::int64_t>(opts.theta.size()) == na, kFn, "theta",
         "does not match the number of projections in 'radon_image' (", opts.theta.size(), " for ", na, ")");
  Array img = opts.preserve_range ? (radon_image.dtype() == DType::float32 || radon_image.dtype() == DType::float64
                                         ? radon_image.contiguous(stream)
                                         : radon_image.astype(DType::float64, stream))
                                  : util::img_as_float(radon_image, {}, stream).contiguous(stream);
  const std::int64_t size =
      opts.output_size.value_or(opts.circle ? rows0
                                            : static_cast<std::int64_t>(std::floor(
                                                  std::sqrt(static_cast<double>(rows0 * rows0) / 2.0))));
  expect(size >= 0, kFn, "output_size", "must be non-negative, got ", size);
  if (opts.circle) {  // _sinogram_circle_to_square: zero rows around, to the diagonal
    const auto diagonal = static_cast<std::int64_t>(std::ceil(std::numbers::sqrt2 * static_cast<double>(rows0)));
    const std::int64_t before = diagonal / 2 - rows0 / 2;
    Array sq = Array::zeros({diagonal, na}, img.dtype(), img.device(), stream);
    Array inner = sq.slice({Slice{before, before + rows0}, Slice{0, na}});
    inner.copy_from(img, stream);
    img = std::move(sq);
  }
  const std::int64_t rows = img.shape(0);
  const std::int64_t p = std::max<std::int64_t>(
      64, std::int64_t(1) << static_cast<int>(std::ceil(std::log2(2.0 * static_cast<double>(rows)))));
  const std::vector<double> h = filter_kernel(p, opts.filter_name);
  std::vector<double> cs(static_cast<std::size_t>(na)), sn(static_cast<std::size_t>(na));
  for (std::int64_t a = 0; a < na; ++a) {
    const double deg = opts.theta.empty() ? static_cast<double>(a) * (180.0 / static_cast<double>(na)) : opts.theta[a];
    const double angle = deg * (std::numbers::pi / 180.0);
    cs[a] = std::cos(angle);
    sn[a] = std::sin(angle);
  }
  Array out = Array::empty({size, size}, img.dtype(), radon_image.device(), stream);
  const int interp = static_cast<int>(opts.interpolation);  // linear, nearest, cubic
  expect(interp != 2 || rows >= 4, kFn, "radon_image", "needs at least 4 rows for cubic interpolation");
  const auto run = [&]<class F>() {
    cuskimage::detail::on_backend(
        radon_image, stream, [&] { cpu_iradon<F>(img, h, cs, sn, out, size / 2, interp, opts.circle); },
        [&](auto /*handle*/) {
          const Device dev = radon_image.device();
          const Array dh = Array::from_vector(h, {p}).to(dev, stream);
          const Array dc = Array::from_vector(cs, {na}).to(dev, stream);
          const Array ds = Array::from_vector(sn, {na}).to(dev, stream);
          Array filt = Array::empty({na, rows}, DType::float64, dev, stream);
          const Shape spline = interp == 2 ? Shape{na, rows} : Shape{1};
          Array m = Array::empty(spline, DType::float64, dev, stream), w = Array::empty(spline, DType::float64, dev, stream);
          detail::cuda_iradon<F>(img, dh, dc, ds, filt, m, w, out, size / 2, interp, opts.circle, stream);
        });
  };
  if (img.dtype() == DType::float32)
    run.template operator()<float>();
  else
    run.template operator()<double>();
  return out;
}

}  // namespace cuskimage::transform
