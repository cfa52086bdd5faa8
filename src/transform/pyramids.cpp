// skimage.transform.pyramids: Gaussian smoothing (scikit-image's _smooth: scipy's gaussian_filter
// with the mode name passed through unchanged, channels unsmoothed) and resize.
#include <cmath>
#include <string_view>

#include "cuskimage/ndimage.hpp"
#include "cuskimage/transform/pyramids.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/transform/warps_common.hpp"

namespace cuskimage::transform {

using cuskimage::detail::expect;

namespace {

void check_factor(double f, std::string_view fn, std::string_view arg) {
  expect(f > 1, fn, arg, "must be greater than 1 (scale factor), got ", f);
}

/// _smooth hands numpy.pad's mode name to scipy's gaussian_filter as is: the names both know keep
/// scipy's meaning; edge and symmetric are not scipy modes.
ndimage::Mode smooth_mode(WarpMode m, std::string_view fn) {
  switch (m) {
    case WarpMode::constant: return ndimage::Mode::constant;
    case WarpMode::reflect: return ndimage::Mode::reflect;
    case WarpMode::wrap: return ndimage::Mode::wrap;
    default:
      cuskimage::detail::fail(fn, "argument 'mode' must be constant, reflect or wrap (scipy's Gaussian filter "
                                  "does not know edge or symmetric)");
  }
}

Array smooth(const Array& image, double sigma, WarpMode mode, double cval, std::optional<int> ca, std::string_view fn,
             const Stream& stream) {
  expect(sigma >= 0, fn, "sigma", "must be >= 0, got ", sigma);
  std::vector<double> s(static_cast<std::size_t>(image.ndim()), sigma);
  if (ca) s[static_cast<std::size_t>(*ca)] = 0;
  return ndimage::gaussian_filter(image, s, {.mode = smooth_mode(mode, fn), .cval = cval}, stream);
}

std::optional<int> channel(const Array& image, std::optional<int> ca, std::string_view fn) {
  if (!ca) return std::nullopt;
  return cuskimage::detail::normalize_axis(*ca, image.ndim(), fn, "channel_axis");
}

/// a - b (both contiguous float arrays of one shape and dtype, on one device).
Array subtract(const Array& a, const Array& b, const Stream& stream) {
  Array out = Array::empty(a.shape(), a.dtype(), a.device(), stream);
  const Array x = a.contiguous(stream), y = b.contiguous(stream);
  auto run = [&]<class F>() {
    cuskimage::detail::on_backend(
        x, stream, [&] { detail::cpu_subtract<F>(x, y, out); },
        [&](const Stream& s) { detail::cuda_subtract<F>(x, y, out, s); });
  };
  if (a.dtype() == DType::float32)
    run.template operator()<float>();
  else
    run.template operator()<double>();
  return out;
}

Shape reduced_shape(const Shape& s, double downscale, std::optional<int> ca) {
  Shape o = s;
  for (std::size_t a = 0; a < s.size(); ++a)
    if (!ca || static_cast<int>(a) != *ca) o[a] = static_cast<std::int64_t>(std::ceil(static_cast<double>(s[a]) / downscale));
  return o;
}

Array resize_plain(const Array& image, const Shape& shape, int order, WarpMode mode, double cval, const Stream& stream) {
  return resize(image, shape, {.order = order, .mode = mode, .cval = cval, .anti_aliasing = false}, stream);
}

Array reduce_float(const Array& image, double downscale, std::optional<double> sigma, int order, WarpMode mode,
                   double cval, std::optional<int> ca, std::string_view fn, const Stream& stream) {
  const double sg = sigma ? *sigma : 2 * downscale / 6.0;
  const Array smoothed = smooth(image, sg, mode, cval, ca, fn, stream);
  return resize_plain(smoothed, reduced_shape(image.shape(), downscale, ca), order, mode, cval, stream);
}

}  // namespace

Array pyramid_reduce(const Array& image, const PyramidReduceOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "transform.pyramid_reduce";
  cuskimage::detail::expect_valid(image, fn, "image");
  check_factor(opts.downscale, fn, "downscale");
  const Array img = detail::convert_to_float(image, opts.preserve_range, stream);
  return reduce_float(img, opts.downscale, opts.sigma, opts.order, opts.mode, opts.cval,
                      channel(img, opts.channel_axis, fn), fn, stream);
}

Array pyramid_expand(const Array& image, const PyramidExpandOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "transform.pyramid_expand";
  cuskimage::detail::expect_valid(image, fn, "image");
  check_factor(opts.upscale, fn, "upscale");
  const Array img = detail::convert_to_float(image, opts.preserve_range, stream);
  const std::optional<int> ca = channel(img, opts.channel_axis, fn);
  Shape o = img.shape();
  for (std::size_t a = 0; a < o.size(); ++a)
    if (!ca || static_cast<int>(a) != *ca) o[a] = static_cast<std::int64_t>(std::ceil(opts.upscale * static_cast<double>(o[a])));
  const double sg = opts.sigma ? *opts.sigma : 2 * opts.upscale / 6.0;
  smooth_mode(opts.mode, fn);  // refuse edge / symmetric before the work, as scipy would after it
  const Array resized = resize_plain(img, o, opts.order, opts.mode, opts.cval, stream);
  return smooth(resized, sg, opts.mode, opts.cval, ca, fn, stream);
}

std::vector<Array> pyramid_gaussian(const Array& image, const PyramidOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "transform.pyramid_gaussian";
  cuskimage::detail::expect_valid(image, fn, "image");
  check_factor(opts.downscale, fn, "downscale");
  const std::optional<int> ca = channel(image, opts.channel_axis, fn);
  std::vector<Array> layers;
  layers.push_back(detail::convert_to_float(image, opts.preserve_range, stream));
  for (int layer = 0; layer != opts.max_layer;) {
    ++layer;
    Array next = reduce_float(layers.back(), opts.downscale, opts.sigma, opts.order, opts.mode, opts.cval, ca, fn,
                              stream);
    if (next.shape() == layers.back().shape()) break;
    layers.push_back(std::move(next));
  }
  return layers;
}

std::vector<Array> pyramid_laplacian(const Array& image, const PyramidOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "transform.pyramid_laplacian";
  cuskimage::detail::expect_valid(image, fn, "image");
  check_factor(opts.downscale, fn, "downscale");
  const Array img = detail::convert_to_float(image, opts.preserve_range, stream);
  const std::optional<int> ca = channel(img, opts.channel_axis, fn);
  const double sg = opts.sigma ? *opts.sigma : 2 * opts.downscale / 6.0;
  Array smoothed = smooth(img, sg, opts.mode, opts.cval, ca, fn, stream);
  std::vector<Array> layers;
  layers.push_back(subtract(img, smoothed, stream));
  int max_layer = opts.max_layer;
  if (max_layer == -1) {
    std::int64_t m = 0;
    for (int a = 0; a < img.ndim(); ++a)
      if (!ca || a != *ca) m = std::max(m, img.shape(a));
    max_layer = static_cast<int>(std::ceil(std::log(static_cast<double>(m)) / std::log(opts.downscale)));
  }
  Shape current = img.shape();
  for (int layer = 0; layer < max_layer; ++layer) {
    const Array resized = resize_plain(smoothed, reduced_shape(current, opts.downscale, ca), opts.order, opts.mode,
                                       opts.cval, stream);
    smoothed = smooth(resized, sg, opts.mode, opts.cval, ca, fn, stream);
    current = resized.shape();
    layers.push_back(subtract(resized, smoothed, stream));
  }
  return layers;
}

}  // namespace cuskimage::transform
