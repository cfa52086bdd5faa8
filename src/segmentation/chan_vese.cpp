// segmentation.chan_vese: argument handling, the starting level sets and the CPU backend (NumPy's
// operations in its order, pairwise sums included). The per-pixel terms are shared with the CUDA
// backend (kernels/segmentation/chan_vese.cu) through src/segmentation/chan_vese.hpp.
#include "src/segmentation/chan_vese.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "cuskimage/segmentation/chan_vese.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/filters/threshold.hpp"

namespace cuskimage::segmentation {
namespace {

using cuskimage::detail::expect;
using detail::CvCoeffs;
using detail::CvStencil;
constexpr std::string_view kFn = "segmentation.chan_vese";

/// np.sum of f(0 .. n) in T (pairwise).
template <class T, class F>
T np_sum(std::int64_t n, const F& f) {
  return filters::detail::pairwise<T>(f, 0, n);
}

/// _cv_calculate_averages: sum(image * H) / sum(H) (the sum itself when sum(H) is 0), and the same
/// for 1 - H.
template <class T, class H>
std::pair<T, T> averages(const T* img, std::int64_t n, const H& h) {
  using cuskimage::detail::mul_rn;
  using cuskimage::detail::sub_rn;
  const T hs = np_sum<T>(n, h), his = np_sum<T>(n, [&](std::int64_t i) { return sub_rn(T(1), h(i)); });
  T in = np_sum<T>(n, [&](std::int64_t i) { return mul_rn(img[i], h(i)); });
  T out = np_sum<T>(n, [&](std::int64_t i) { return mul_rn(img[i], sub_rn(T(1), h(i))); });
  if (hs != T(0)) in = in / hs;
  if (his != T(0)) out = out / his;
  return {in, out};
}

template <class T>
T energy(const T* img, const T* phi, std::int64_t ny, std::int64_t nx, const CvCoeffs<T>& k) {
  const std::int64_t n = ny * nx;
  std::vector<T> h(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) h[i] = detail::cv_heaviside(phi[i], k);
  const auto [c1, c2] = averages<T>(img, n, [&](std::int64_t i) { return h[i]; });
  const T region = np_sum<T>(n, [&](std::int64_t i) { return detail::cv_energy_region(phi[i], img[i], c1, c2, k); });
  const T length = np_sum<T>(n, [&](std::int64_t i) {
    return detail::cv_energy_length(CvStencil<T>(phi, ny, nx, i / nx, i % nx), k);
  });
  return region + length;
}

template <class T>
std::vector<double> cpu_chan_vese(const Array& image, Array& phi_arr, const CvCoeffs<T>& k, double tol, int max_iter) {
  const std::int64_t ny = image.shape()[0], nx = image.shape()[1], n = ny * nx;
  const T* img = static_cast<const T*>(image.data());
  T* out = static_cast<T*>(phi_arr.data());
  std::vector<T> phi(out, out + n), next(static_cast<std::size_t>(n));
  std::vector<double> energies;
  T old_energy = energy(img, phi.data(), ny, nx, k);
  T phivar = T(tol) + T(1);
  for (int it = 0; phivar > T(tol) && it < max_iter; ++it) {
    const auto [c1, c2] = averages<T>(img, n, [&](std::int64_t i) { return phi[i] > T(0) ? T(1) : T(0); });
    for (std::int64_t y = 0; y < ny; ++y)
      for (std::int64_t x = 0; x < nx; ++x)
        next[y * nx + x] = detail::cv_variation(CvStencil<T>(phi.data(), ny, nx, y, x), img[y * nx + x], c1, c2, k);
    const T ss =
        np_sum<T>(n, [&](std::int64_t i) { return detail::cv_sq(cuskimage::detail::sub_rn(next[i], phi[i])); });
    phivar = T(std::sqrt(ss / T(n)));
    phi.swap(next);
    energies.push_back(double(old_energy));
    old_energy = energy(img, phi.data(), ny, nx, k);
  }
  std::copy(phi.begin(), phi.end(), out);
  return energies;
}

/// The named starting level sets (computed in float64 as scikit-image does, except the
/// checkerboard, which it builds in the working precision).
template <class T>
void named_level_set(ChanVeseInit m, std::int64_t ny, std::int64_t nx, T* out) {
  if (m == ChanVeseInit::checkerboard) {
    const T sf = T(std::numbers::pi / 5.0);
    for (std::int64_t y = 0; y < ny; ++y)
      for (std::int64_t x = 0; x < nx; ++x)
        out[y * nx + x] = cuskimage::detail::mul_rn(T(std::sin(cuskimage::detail::mul_rn(T(y), sf))),
                                                    T(std::sin(cuskimage::detail::mul_rn(T(x), sf))));
    return;
  }
  const std::int64_t cy = (ny - 1) / 2, cx = (nx - 1) / 2;
  const double radius = m == ChanVeseInit::disk ? double(std::min(cx, cy)) : double(std::min(cx, cy)) / 2.0;
  const double scale = m == ChanVeseInit::disk ? radius : radius * 3.0;
  for (std::int64_t y = 0; y < ny; ++y)
    for (std::int64_t x = 0; x < nx; ++x) {
      const double d = std::sqrt(double((y - cy) * (y - cy) + (x - cx) * (x - cx)));
      out[y * nx + x] = T((radius - d) / scale);
    }
}

template <class T>
ChanVeseResult run(const Array& image, const ChanVeseOptions& opts, const Stream& stream) {
  const DType dt = dtype_v<T>;
  const std::int64_t ny = image.shape()[0], nx = image.shape()[1];
  // image = image - min; image / max when max != 0 (on the host: two scalars, then elementwise).
  Array img = image.to(Device::cpu(), stream).astype(dt).contiguous().copy();
  T* im = static_cast<T*>(img.data());
  const std::int64_t n = img.size();
  const T lo = *std::min_element(im, im + n);
  for (std::int64_t i = 0; i < n; ++i) im[i] = im[i] - lo;
  const T hi = *std::max_element(im, im + n);
  if (hi != T(0))
    for (std::int64_t i = 0; i < n; ++i) im[i] = im[i] / hi;
  Array phi;
  if (opts.init_level_set.valid()) {
    phi = opts.init_level_set.to(Device::cpu(), stream).astype(dt).contiguous().copy();
  } else {
    phi = Array::empty(image.shape(), dt);
    named_level_set<T>(opts.init_method, ny, nx, static_cast<T*>(phi.data()));
  }
  const CvCoeffs<T> k{T(opts.mu),  T(-opts.lambda1),        T(opts.lambda1), T(opts.lambda2), T(opts.dt),
                      T(opts.mu * opts.dt), T(1e-16), T(2.0 / std::numbers::pi)};
  ChanVeseResult r;
  if (image.device().is_cpu()) {
    r.energies = cpu_chan_vese<T>(img, phi, k, opts.tol, opts.max_num_iter);
  } else {
    img = img.to(image.device(), stream);
    phi = phi.to(image.device(), stream);
    cuskimage::detail::on_backend(img, stream, [] {}, [&](auto) {
      r.energies = detail::cuda_chan_vese<T>(img, phi, k, opts.tol, opts.max_num_iter, stream);
    });
  }
  r.segmentation = Array::empty(image.shape(), DType::bool_);
  const Array host_phi = phi.to(Device::cpu(), stream);
  const T* p = static_cast<const T*>(host_phi.data());
  bool* s = static_cast<bool*>(r.segmentation.data());
  for (std::int64_t i = 0; i < n; ++i) s[i] = p[i] > T(0);
  r.segmentation = r.segmentation.to(image.device(), stream);
  r.phi = std::move(phi);
  return r;
}

}  // namespace

ChanVeseResult chan_vese_extended(const Array& image, const ChanVeseOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  expect(image.ndim() == 2, kFn, "image", "must be a 2-D array, got ", image.ndim(), "-D");
  expect(image.size() > 0, kFn, "image", "must not be empty");
  expect(opts.max_num_iter >= 0, kFn, "max_num_iter", "must not be negative, got ", opts.max_num_iter);
  if (opts.init_level_set.valid())
    expect(opts.init_level_set.shape() == image.shape(), kFn, "init_level_set",
           "must have the image's shape (the dimensions of the initial level set do not match the image's)");
  if (image.dtype() == DType::float32) return run<float>(image, opts, stream);
  return run<double>(image, opts, stream);
}

Array chan_vese(const Array& image, const ChanVeseOptions& opts, const Stream& stream) {
  return chan_vese_extended(image, opts, stream).segmentation;
}

}  // namespace cuskimage::segmentation
