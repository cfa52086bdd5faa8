// segmentation.morphsnakes: argument handling and the CPU backend. The per-pixel steps live in
// src/segmentation/morphsnakes.hpp and are shared with the CUDA backend
// (kernels/segmentation/morphsnakes.cu), which keeps every iteration on the device.
#include "src/segmentation/morphsnakes.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cuskimage/ndimage.hpp"
#include "cuskimage/segmentation/morphsnakes.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::segmentation {
namespace {

using cuskimage::detail::expect;
using detail::LevelSetGrid;
using Callback = std::function<void(const Array&)>;

LevelSetGrid grid_of(const Shape& s) {
  LevelSetGrid g;
  g.three = s.size() == 3;
  g.nz = g.three ? s[0] : 1;
  g.ny = s[s.size() - 2];
  g.nx = s[s.size() - 1];
  return g;
}

void expect_image(const Array& image, std::string_view fn, std::string_view arg) {
  cuskimage::detail::expect_valid(image, fn, arg);
  expect(image.ndim() == 2 || image.ndim() == 3, fn, arg, "must be 2-D or 3-D, got ", image.ndim(), "-D");
  for (std::int64_t e : image.shape())
    expect(e >= 2, fn, arg, "must have at least 2 samples along every axis (numpy.gradient), got an extent of ", e);
}

template <class F>
void for_each_pixel(const LevelSetGrid& g, F&& f) {
  for (std::int64_t z = 0; z < g.nz; ++z)
    for (std::int64_t y = 0; y < g.ny; ++y)
      for (std::int64_t x = 0; x < g.nx; ++x) f(z, y, x, (z * g.ny + y) * g.nx + x);
}

/// Host pattern into a contiguous int8 array of any rank (square > 0: checkerboard; else disk).
void cpu_pattern(Array& out, std::int64_t square, const double* center, double radius) {
  std::int8_t* o = static_cast<std::int8_t*>(out.data());
  const Shape& s = out.shape();
  const int nd = out.ndim();
  std::vector<std::int64_t> c(nd, 0);
  for (std::int64_t i = 0; i < out.size(); ++i) {
    o[i] = square > 0 ? detail::checker_at(c.data(), nd, square) : detail::disk_at(c.data(), nd, center, radius);
    for (int a = nd - 1; a >= 0; --a) {
      if (++c[a] < s[a]) break;
      c[a] = 0;
    }
  }
}

Array make_pattern(const Shape& shape, std::int64_t square, std::vector<double> center, double radius, Device device,
                   const Stream& stream) {
  Array out = Array::empty(shape, DType::int8, device, stream);
  if (device.is_cpu() || shape.empty() || shape.size() > 3) {
    Array host = device.is_cpu() ? out.share() : Array::empty(shape, DType::int8);
    if (out.size() > 0) cpu_pattern(host, square, center.data(), radius);
    return device.is_cpu() ? std::move(host) : host.to(device, stream);
  }
  cuskimage::detail::on_backend(out, stream, [] {}, [&](auto) {
    detail::cuda_level_set_pattern(out, square, center.data(), radius, stream);
  });
  return out;
}

/// The initial int8 level set (a copy: the evolution runs in place on it).
Array initial_level_set(const Array& image, const Array& init, LevelSetInit method, std::string_view fn,
                        const Stream& stream) {
  if (!init.valid())
    return method == LevelSetInit::checkerboard ? checkerboard_level_set(image.shape(), {}, image.device(), stream)
                                                : disk_level_set(image.shape(), {}, image.device(), stream);
  expect(init.ndim() == image.ndim(), fn, "init_level_set",
         "must have the image's number of dimensions (", image.ndim(), "), got ", init.ndim());
  cuskimage::detail::expect_same_shape(image, init, fn, "image", "init_level_set");
  const Array lv = init.to(image.device(), stream).astype(DType::float64, stream).contiguous(stream);
  Array u = Array::empty(image.shape(), DType::int8, image.device(), stream);
  cuskimage::detail::on_backend(
      u, stream,
      [&] {
        const double* v = static_cast<const double*>(lv.data());
        std::int8_t* o = static_cast<std::int8_t*>(u.data());
        for (std::int64_t i = 0; i < u.size(); ++i) o[i] = v[i] > 0.0 ? 1 : 0;
      },
      [&](auto) { detail::cuda_binarize(lv, u, stream); });
  return u;
}

/// Applies the k-th..(k+smoothing-1)-th smoothing operators a -> a through b (host).
void cpu_smooth(std::vector<std::int8_t>& a, std::vector<std::int8_t>& b, const LevelSetGrid& g, int smoothing,
                std::int64_t& k) {
  for (int s = 0; s < smoothing; ++s, ++k) {
    const bool si_is = k % 2 == 0;  // SI∘IS applies IS first
    for_each_pixel(g, [&](auto z, auto y, auto x, auto i) {
      b[i] = si_is ? detail::curv_op<false>(a.data(), g, z, y, x) : detail::curv_op<true>(a.data(), g, z, y, x);
    });
    for_each_pixel(g, [&](auto z, auto y, auto x, auto i) {
      a[i] = si_is ? detail::curv_op<true>(b.data(), g, z, y, x) : detail::curv_op<false>(b.data(), g, z, y, x);
    });
  }
}

void call_back(const Callback& cb, std::vector<std::int8_t>& a, const Shape& shape) {
  if (cb) cb(Array::wrap(a.data(), shape, DType::int8, Device::cpu()));
}

template <class T>
void cpu_chan_vese(const Array& img, Array& u, int num_iter, int smoothing, double l1, double l2, const Callback& cb) {
  const LevelSetGrid g = grid_of(img.shape());
  const T* im = static_cast<const T*>(img.data());
  const std::int64_t n = g.size();
  std::vector<std::int8_t> a(static_cast<const std::int8_t*>(u.data()), static_cast<const std::int8_t*>(u.data()) + n);
  std::vector<std::int8_t> b(a.size());
  std::int64_t k = 0;
  call_back(cb, a, img.shape());
  for (int it = 0; it < num_iter; ++it) {
    double s_in = 0.0, s_out = 0.0;
    std::int64_t n_in = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      if (a[i]) {
        s_in += double(im[i]);
        ++n_in;
      } else {
        s_out += double(im[i]);
      }
    }
    // c = sum / float(count + 1e-8), in the image's precision (NumPy 2 keeps float32 scalars float32).
    const T c0 = T(s_out) / T(double(n - n_in) + 1e-8), c1 = T(s_in) / T(double(n_in) + 1e-8);
    for_each_pixel(g, [&](auto z, auto y, auto x, auto i) {
      b[i] = detail::cv_step<T>(a.data(), im, g, z, y, x, c0, c1, T(l1), T(l2));
    });
    std::swap(a, b);
    cpu_smooth(a, b, g, smoothing, k);
    call_back(cb, a, img.shape());
  }
  std::copy(a.begin(), a.end(), static_cast<std::int8_t*>(u.data()));
}

template <class T>
void cpu_gac(const Array& gimage, Array& u, int num_iter, int smoothing, double balloon, T thr_b, const Callback& cb) {
  const LevelSetGrid g = grid_of(gimage.shape());
  const T* gi = static_cast<const T*>(gimage.data());
  const std::int64_t n = g.size();
  std::vector<std::int8_t> a(static_cast<const std::int8_t*>(u.data()), static_cast<const std::int8_t*>(u.data()) + n);
  std::vector<std::int8_t> b(a.size());
  std::int64_t k = 0;
  call_back(cb, a, gimage.shape());
  for (int it = 0; it < num_iter; ++it) {
    if (balloon != 0.0) {
      for_each_pixel(g, [&](auto z, auto y, auto x, auto i) {
        b[i] = !(gi[i] > thr_b)  ? a[i]
               : balloon > 0.0 ? detail::cube_op<true>(a.data(), g, z, y, x)
                               : detail::cube_op<false>(a.data(), g, z, y, x);
      });
      std::swap(a, b);
    }
    for_each_pixel(g, [&](auto z, auto y, auto x, auto i) { b[i] = detail::gac_step<T>(a.data(), gi, g, z, y, x); });
    std::swap(a, b);
    cpu_smooth(a, b, g, smoothing, k);
    call_back(cb, a, gimage.shape());
  }
  std::copy(a.begin(), a.end(), static_cast<std::int8_t*>(u.data()));
}

/// numpy.percentile(v, q) with the default linear method.
double percentile(std::vector<double> v, double q) {
  const std::int64_t n = static_cast<std::int64_t>(v.size());
  const double virt = double(n - 1) * (q / 100.0);
  const std::int64_t lo = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(virt)), 0, n - 1);
  const std::int64_t hi = std::min<std::int64_t>(lo + 1, n - 1);
  std::nth_element(v.begin(), v.begin() + lo, v.end());
  const double a = v[lo];
  const double b = hi == lo ? a : *std::min_element(v.begin() + lo + 1, v.end());
  const double t = virt - double(lo), diff = b - a;
  return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

}  // namespace

Array checkerboard_level_set(const Shape& image_shape, const CheckerboardLevelSetOptions& opts, Device device,
                             const Stream& stream) {
  constexpr std::string_view kFn = "segmentation.checkerboard_level_set";
  expect(opts.square_size > 0, kFn, "square_size", "must be positive, got ", opts.square_size);
  for (std::int64_t e : image_shape) expect(e >= 0, kFn, "image_shape", "must not be negative, got ", e);
  return make_pattern(image_shape, opts.square_size, {}, 0.0, device, stream);
}

Array disk_level_set(const Shape& image_shape, const DiskLevelSetOptions& opts, Device device, const Stream& stream) {
  constexpr std::string_view kFn = "segmentation.disk_level_set";
  expect(!image_shape.empty(), kFn, "image_shape", "must have at least one dimension");
  for (std::int64_t e : image_shape) expect(e >= 0, kFn, "image_shape", "must not be negative, got ", e);
  std::vector<double> center = opts.center;
  if (center.empty())
    for (std::int64_t e : image_shape) center.push_back(double(e / 2));
  expect(center.size() == image_shape.size(), kFn, "center", "must have ", image_shape.size(), " coordinates, got ",
         center.size());
  const double radius =
      opts.radius.value_or(double(*std::min_element(image_shape.begin(), image_shape.end())) * 3.0 / 8.0);
  return make_pattern(image_shape, 0, std::move(center), radius, device, stream);
}

Array morphological_chan_vese(const Array& image, int num_iter, const MorphologicalChanVeseOptions& opts,
                              const Stream& stream) {
  constexpr std::string_view kFn = "segmentation.morphological_chan_vese";
  expect_image(image, kFn, "image");
  expect(num_iter >= 0, kFn, "num_iter", "must not be negative, got ", num_iter);
  expect(opts.smoothing >= 0, kFn, "smoothing", "must not be negative, got ", opts.smoothing);
  Array u = initial_level_set(image, opts.init_level_set, opts.init_method, kFn, stream);
  const DType wt = image.dtype() == DType::float32 ? DType::float32 : DType::float64;
  const Array img = image.astype(wt, stream).contiguous(stream);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(wt, kFn, [&]<class T>() {
    cuskimage::detail::on_backend(
        img, stream,
        [&] { cpu_chan_vese<T>(img, u, num_iter, opts.smoothing, opts.lambda1, opts.lambda2, opts.iter_callback); },
        [&](auto) {
          detail::cuda_morph_chan_vese<T>(img, u, grid_of(img.shape()), num_iter, opts.smoothing, opts.lambda1,
                                          opts.lambda2, opts.iter_callback, stream);
        });
  });
  return u;
}

Array morphological_geodesic_active_contour(const Array& gimage, int num_iter,
                                            const MorphologicalGeodesicActiveContourOptions& opts,
                                            const Stream& stream) {
  constexpr std::string_view kFn = "segmentation.morphological_geodesic_active_contour";
  expect_image(gimage, kFn, "gimage");
  cuskimage::detail::expect_dtype(gimage, kFn, "gimage", {DType::float32, DType::float64});
  expect(num_iter >= 0, kFn, "num_iter", "must not be negative, got ", num_iter);
  expect(opts.smoothing >= 0, kFn, "smoothing", "must not be negative, got ", opts.smoothing);
  Array u = initial_level_set(gimage, opts.init_level_set, opts.init_method, kFn, stream);
  const Array gi = gimage.contiguous(stream);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(gimage.dtype(), kFn, [&]<class T>() {
    T thr_b = T(0);
    if (opts.balloon != 0.0) {
      const T ab = T(std::abs(opts.balloon));
      if (opts.threshold) {
        thr_b = T(*opts.threshold / std::abs(opts.balloon));  // a Python float divided, then compared in T
      } else {
        const Array host = gi.to(Device::cpu(), stream).astype(DType::float64);
        const auto* p = static_cast<const double*>(host.data());
        thr_b = T(T(percentile(std::vector<double>(p, p + host.size()), 40.0)) / ab);
      }
    }
    cuskimage::detail::on_backend(
        gi, stream, [&] { cpu_gac<T>(gi, u, num_iter, opts.smoothing, opts.balloon, thr_b, opts.iter_callback); },
        [&](auto) {
          detail::cuda_morph_gac<T>(gi, u, grid_of(gi.shape()), num_iter, opts.smoothing, opts.balloon, thr_b,
                                    opts.iter_callback, stream);
        });
  });
  return u;
}

Array inverse_gaussian_gradient(const Array& image, const InverseGaussianGradientOptions& opts, const Stream& stream) {
  constexpr std::string_view kFn = "segmentation.inverse_gaussian_gradient";
  cuskimage::detail::expect_valid(image, kFn, "image");
  expect(image.ndim() >= 1, kFn, "image", "must have at least one dimension");
  expect(image.dtype() != DType::bool_, kFn, "image", "must be numeric, got bool");
  expect(opts.sigma >= 0.0, kFn, "sigma", "must not be negative, got ", opts.sigma);
  // scipy's gaussian_gradient_magnitude: one Gaussian-derivative filter per axis, in the image's dtype.
  std::vector<Array> d;
  for (int k = 0; k < image.ndim(); ++k) {
    std::vector<int> order(image.ndim(), 0);
    order[k] = 1;
    d.push_back(ndimage::gaussian_filter(image, opts.sigma, {.order = order, .mode = ndimage::Mode::nearest}, stream)
                    .contiguous(stream));
  }
  const bool fl = image.dtype() == DType::float32 || image.dtype() == DType::float64;
  if (fl && !image.device().is_cpu() && image.ndim() <= 3) {
    Array out = Array::empty(image.shape(), image.dtype(), image.device(), stream);
    cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(image.dtype(), kFn, [&]<class T>() {
      cuskimage::detail::on_backend(out, stream, [] {}, [&](auto) {
        detail::cuda_inverse_gradient<T>(d, out, opts.alpha, stream);
      });
    });
    return out;
  }
  // Host: float images in their dtype; integer ones as NumPy does (wrapping products and sums in the
  // dtype, the square root truncated back into it), the result in float64.
  for (Array& a : d) a = a.to(Device::cpu(), stream);
  Array out = Array::empty(image.shape(), fl ? image.dtype() : DType::float64);
  using Numeric = cuskimage::detail::Concat<cuskimage::detail::IntegerTypes, cuskimage::detail::FloatTypes>::type;
  cuskimage::detail::dispatch<Numeric>(image.dtype(), kFn, [&]<class T>() {
    for (std::int64_t i = 0; i < out.size(); ++i) {
      T acc = T(0);
      for (const Array& a : d) acc = detail::sum_square(acc, static_cast<const T*>(a.data())[i]);
      if constexpr (std::is_floating_point_v<T>) {
        static_cast<T*>(out.data())[i] = detail::inverse_gradient(std::sqrt(acc), T(opts.alpha));
      } else {
        const double g = acc < T(0) ? 0.0 : std::trunc(std::sqrt(double(acc)));
        static_cast<double*>(out.data())[i] = detail::inverse_gradient(g, opts.alpha);
      }
    }
  });
  return out.to(image.device(), stream);
}

}  // namespace cuskimage::segmentation
