// skimage.filters.gaussian, difference_of_gaussians and unsharp_mask: scikit-image's argument and
// dtype handling around ndimage::gaussian_filter (either backend), plus their element-wise steps
// (src/filters/edges.hpp functors on the CPU, kernels/filters/edges.cu on CUDA).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/elementwise.hpp"
#include "src/core/validate.hpp"
#include "src/filters/edges.hpp"

namespace cuskimage::filters {

using cuskimage::detail::expect;

namespace detail {

Array float_image(const Array& image, bool preserve_range, const Stream& stream) {
  if (image.dtype() == DType::float32 || image.dtype() == DType::float64) return image.share();
  if (preserve_range) return image.astype(DType::float64, stream);
  return util::img_as_float(image, {}, stream);
}

}  // namespace detail

namespace {

using FloatT = cuskimage::detail::Types<float, double>;

void check_image(const Array& image, std::string_view fn) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() >= 1, fn, "image", "must have at least 1 dimension, got 0-D");
}

/// scikit-image's sigma for channel_axis: a scalar repeats over the spatial axes, and a spatial-length
/// sequence gets 0 inserted at the channel axis. Checks the final length (1 or ndim) and signs.
std::vector<double> full_sigma(const std::vector<double>& sigma, int ndim, std::optional<int> channel_axis,
                               std::string_view fn, std::string_view arg) {
  expect(!sigma.empty(), fn, arg, "must have one value or one per axis, got none");
  for (double s : sigma) expect(!(s < 0.0), fn, arg, "values less than zero are not valid, got ", s);
  std::vector<double> v = sigma;
  if (channel_axis) {
    const int c = cuskimage::detail::normalize_axis(*channel_axis, ndim, fn, "channel_axis");
    if (v.size() == 1) v.assign(ndim - 1, v[0]);
    if (static_cast<int>(v.size()) == ndim - 1) v.insert(v.begin() + c, 0.0);
  }
  expect(v.size() == 1 || static_cast<int>(v.size()) == ndim, fn, arg, "must have one value or one per axis (", ndim,
         channel_axis ? ", or one per spatial axis" : "", "), got ", v.size(), " values");
  return v;
}

Array blur(const Array& fimg, const std::vector<double>& sigma, const ndimage::Modes& mode, double cval,
           double truncate, const Stream& stream) {
  return ndimage::gaussian_filter(fimg, sigma, {.mode = mode, .cval = cval, .truncate = truncate}, stream);
}

}  // namespace

void gaussian_into(const Array& image, Array& out, const GaussianOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "filters.gaussian";
  check_image(image, fn);
  const auto sigma = full_sigma(opts.sigma.v, image.ndim(), opts.channel_axis, fn, "sigma");
  cuskimage::detail::expect_valid(out, fn, "out");
  cuskimage::detail::expect_same_shape(image, out, fn, "image", "out");
  cuskimage::detail::expect_same_device(image, out, fn, "image", "out");
  expect(is_floating(out.dtype()), fn, "out", "must have a float dtype, got ", dtype_name(out.dtype()));
  const Array fimg = detail::float_image(image, opts.preserve_range, stream);
  const ndimage::GaussianFilterOptions go{.mode = opts.mode, .cval = opts.cval, .truncate = opts.truncate};
  if (out.dtype() == fimg.dtype()) {
    ndimage::gaussian_filter_into(fimg, sigma, out, go, stream);
  } else {
    const Array r = ndimage::gaussian_filter(fimg, sigma, go, stream);
    out.copy_from(r.astype(out.dtype(), stream), stream);
  }
}

Array gaussian(const Array& image, const GaussianOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "filters.gaussian";
  check_image(image, fn);
  const auto sigma = full_sigma(opts.sigma.v, image.ndim(), opts.channel_axis, fn, "sigma");
  const Array fimg = detail::float_image(image, opts.preserve_range, stream);
  return blur(fimg, sigma, opts.mode, opts.cval, opts.truncate, stream);
}

Array difference_of_gaussians(const Array& image, const Sigma& low_sigma, const DifferenceOfGaussiansOptions& opts,
                              const Stream& stream) {
  constexpr std::string_view fn = "filters.difference_of_gaussians";
  check_image(image, fn);
  const int nd = image.ndim();
  int spatial = nd;
  if (opts.channel_axis) {
    cuskimage::detail::normalize_axis(*opts.channel_axis, nd, fn, "channel_axis");
    spatial = nd - 1;
  }
  std::vector<double> low = low_sigma.v, high;
  if (opts.high_sigma) {
    high = opts.high_sigma->v;
  } else {
    for (double s : low) high.push_back(s * 1.6);
  }
  expect(low.size() == 1 || static_cast<int>(low.size()) == spatial, fn, "low_sigma",
         "must have length equal to number of spatial dimensions of input (", spatial, ") or 1, got ", low.size());
  expect(high.size() == 1 || static_cast<int>(high.size()) == spatial, fn, "high_sigma",
         "must have length equal to number of spatial dimensions of input (", spatial, ") or 1, got ", high.size());
  if (low.size() == 1) low.assign(spatial, low[0]);
  if (high.size() == 1) high.assign(spatial, high[0]);
  for (int i = 0; i < spatial; ++i)
    expect(!(high[i] < low[i]), fn, "high_sigma", "must be equal to or larger than low_sigma for all axes, got ",
           high[i], " < ", low[i]);
  const Array fimg = util::img_as_float(image, {}, stream);
  const auto s1 = full_sigma(low, nd, opts.channel_axis, fn, "low_sigma");
  const auto s2 = full_sigma(high, nd, opts.channel_axis, fn, "high_sigma");
  const Array im1 = blur(fimg, s1, opts.mode, opts.cval, opts.truncate, stream);
  const Array im2 = blur(fimg, s2, opts.mode, opts.cval, opts.truncate, stream);
  Array out = Array::empty(fimg.shape(), fimg.dtype(), fimg.device(), stream);
  cuskimage::detail::dispatch<FloatT>(fimg.dtype(), fn, [&]<class T>() {
    cuskimage::detail::on_backend(
        fimg, stream, [&] { cuskimage::detail::cpu_map2<T, T, T>(im1, im2, out, detail::SubOp{}); },
        [&](const Stream& s) { detail::cuda_sub<T>(im1, im2, out, s); });
  });
  return out;
}

Array unsharp_mask(const Array& image, const UnsharpMaskOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "filters.unsharp_mask";
  check_image(image, fn);
  const DType ft = image.dtype() == DType::float32 ? DType::float32 : DType::float64;
  Array fimg = opts.preserve_range ? image.astype(ft, stream) : util::img_as_float(image, {}, stream).astype(ft, stream);
  const auto sigma = full_sigma(opts.radius.v, image.ndim(), opts.channel_axis, fn, "radius");
  const Array blurred = blur(fimg, sigma, ndimage::Mode::reflect, 0.0, 4.0, stream);
  Array out = Array::empty(fimg.shape(), ft, fimg.device(), stream);
  cuskimage::detail::dispatch<FloatT>(ft, fn, [&]<class T>() {
    detail::UnsharpOp<T> op{static_cast<T>(opts.amount), T(0), T(1), !opts.preserve_range};
    cuskimage::detail::on_backend(
        fimg, stream,
        [&] {
          if (op.clip) {
            bool neg = false;
            const Array c = fimg.contiguous();
            const T* p = static_cast<const T*>(c.data());
            for (std::int64_t i = 0; i < c.size() && !neg; ++i) neg = p[i] < T(0);
            if (neg) op.lo = T(-1);
          }
          cuskimage::detail::cpu_map2<T, T, T>(fimg, blurred, out, op);
        },
        [&](const Stream& s) {
          Array negative;  // stays alive until the stream-ordered free after the map
          if (op.clip) {
            negative = detail::cuda_any_negative<T>(fimg, s);
            op.negative = static_cast<const int*>(negative.data());
          }
          detail::cuda_unsharp<T>(fimg, blurred, out, op, s);
        });
  });
  return out;
}

}  // namespace cuskimage::filters
