// skimage.filters.gabor_kernel and gabor. The kernel is small and made on the host with scikit-image's
// arithmetic (complex128 exp, then rounded to complex64 for float32 images); gabor is two
// ndimage::convolve calls, so it runs on the input's device with ndimage's kernels.
#include <algorithm>
#include <cmath>
#include <numbers>

#include "cuskimage/filters.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::filters {
namespace {

using cuskimage::detail::expect;

double sigma_prefactor(double b) {
  const double p = std::pow(2.0, b);
  return 1.0 / std::numbers::pi * std::sqrt(std::log(2.0) / 2.0) * (p + 1) / (p - 1);
}

template <class T>
ComplexParts make_kernel(double frequency, double sx, double sy, const GaborKernelOptions& o) {
  const double ct = std::cos(o.theta), st = std::sin(o.theta);
  const double x0 = std::ceil(std::max({std::fabs(o.n_stds * sx * ct), std::fabs(o.n_stds * sy * st), 1.0}));
  const double y0 = std::ceil(std::max({std::fabs(o.n_stds * sy * ct), std::fabs(o.n_stds * sx * st), 1.0}));
  expect(x0 < 1e6 && y0 < 1e6, "filters.gabor_kernel", "n_stds",
         "gives a kernel too large (half-sizes ", x0, " x ", y0, "): check frequency, sigma_x/sigma_y and n_stds");
  const auto nx = static_cast<std::int64_t>(x0), ny = static_cast<std::int64_t>(y0);
  ComplexParts k{Array::empty({2 * ny + 1, 2 * nx + 1}, dtype_v<T>), Array::empty({2 * ny + 1, 2 * nx + 1}, dtype_v<T>)};
  T* re = k.real.data<T>();
  T* im = k.imag.data<T>();
  const double two_pi_f = 2 * std::numbers::pi * frequency;
  const T scale = static_cast<T>(1 / (2 * std::numbers::pi * sx * sy));
  for (std::int64_t yi = -ny; yi <= ny; ++yi)
    for (std::int64_t xi = -nx; xi <= nx; ++xi) {
      const double x = static_cast<double>(xi), y = static_cast<double>(yi);
      const double rotx = x * ct + y * st;
      const double roty = -x * st + y * ct;
      const double a = -0.5 * (rotx * rotx / (sx * sx) + roty * roty / (sy * sy));
      const double phase = two_pi_f * rotx + o.offset;
      const double mag = std::exp(a);
      const std::int64_t i = (yi + ny) * (2 * nx + 1) + (xi + nx);
      // exp in complex128, stored in the kernel's precision, then scaled in that precision.
      re[i] = static_cast<T>(mag * std::cos(phase)) * scale;
      im[i] = static_cast<T>(mag * std::sin(phase)) * scale;
    }
  return k;
}

}  // namespace

ComplexParts gabor_kernel(double frequency, const GaborKernelOptions& opts) {
  constexpr std::string_view fn = "filters.gabor_kernel";
  expect(opts.dtype == DType::float32 || opts.dtype == DType::float64, fn, "dtype",
         "must be float32 (complex64) or float64 (complex128), got ", dtype_name(opts.dtype));
  const double sx = opts.sigma_x ? *opts.sigma_x : sigma_prefactor(opts.bandwidth) / frequency;
  const double sy = opts.sigma_y ? *opts.sigma_y : sigma_prefactor(opts.bandwidth) / frequency;
  expect(std::isfinite(sx) && std::isfinite(sy), fn, "frequency",
         "together with bandwidth must give finite sigmas (frequency and bandwidth non-zero), got sigma_x = ", sx,
         ", sigma_y = ", sy);
  expect(std::isfinite(opts.n_stds), fn, "n_stds", "must be finite, got ", opts.n_stds);
  return opts.dtype == DType::float32 ? make_kernel<float>(frequency, sx, sy, opts)
                                      : make_kernel<double>(frequency, sx, sy, opts);
}

ComplexParts gabor(const Array& image, double frequency, const GaborOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "filters.gabor";
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.size() > 0, fn, "image", "cannot be an empty array, got shape ", shape_str(image.shape()));
  expect(image.ndim() == 2, fn, "image", "must be a 2-dimensional array, got shape ", shape_str(image.shape()));
  cuskimage::detail::expect_dtype(image, fn, "image",
                                  {DType::uint8, DType::uint16, DType::int32, DType::float32, DType::float64});
  const GaborKernelOptions ko{.theta = opts.theta,
                              .bandwidth = opts.bandwidth,
                              .sigma_x = opts.sigma_x,
                              .sigma_y = opts.sigma_y,
                              .n_stds = opts.n_stds,
                              .offset = opts.offset,
                              .dtype = image.dtype() == DType::float32 ? DType::float32 : DType::float64};
  const ComplexParts k = gabor_kernel(frequency, ko);
  // scipy converts the weights to float64; the float32 kernel's values are exact in float64.
  const Array wr = k.real.astype(DType::float64), wi = k.imag.astype(DType::float64);
  const ndimage::FilterOptions fo{.mode = opts.mode, .cval = opts.cval};
  ComplexParts out;
  out.real = ndimage::convolve(image, wr, fo, stream);
  out.imag = ndimage::convolve(image, wi, fo, stream);
  return out;
}

}  // namespace cuskimage::filters
