// skimage.transform.resize and rescale: optional Gaussian anti-aliasing (ndimage.gaussian_filter
// in the translated mode), scipy's zoom with grid_mode (pixels as areas), then _clip_warp_output.
#include <cmath>

#include "cuskimage/ndimage.hpp"
#include "cuskimage/transform/warps.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/transform/warps_common.hpp"

namespace cuskimage::transform {

using cuskimage::detail::expect;
using namespace detail;

namespace detail {

/// The filters' mode for a warp mode (scipy's gaussian_filter reads grid-constant as constant and
/// grid-wrap as wrap).
ndimage::Mode filter_mode(WarpMode m) {
  switch (m) {
    case WarpMode::constant: return ndimage::Mode::constant;
    case WarpMode::edge: return ndimage::Mode::nearest;
    case WarpMode::symmetric: return ndimage::Mode::reflect;
    case WarpMode::reflect: return ndimage::Mode::mirror;
    case WarpMode::wrap: return ndimage::Mode::wrap;
  }
  return ndimage::Mode::mirror;
}

std::vector<int> axes_moving(int ndim, int from, int to) {
  std::vector<int> axes;
  for (int a = 0; a < ndim; ++a)
    if (a != from) axes.push_back(a);
  axes.insert(axes.begin() + to, from);
  return axes;
}

/// scipy's zoom(grid_mode=True) through map_coordinates: output i of an axis samples input
/// (i + 0.5) * (in_len / out_len) - 0.5 (NI_ZoomShift's grid-mode coordinate), the coordinates
/// computed on the image's device.
Array zoom_grid(const Array& in, const Shape& out_shape, int order, WarpMode mode, double cval, const Stream& stream) {
  Shape cs = {in.ndim()};
  cs.insert(cs.end(), out_shape.begin(), out_shape.end());
  Array co = Array::empty(cs, DType::float64, in.device(), stream);
  if (co.size() > 0)
    cuskimage::detail::on_backend(
        in, stream, [&] { cpu_zoom_coords(in.shape(), co); },
        [&](const Stream& s) { cuda_zoom_coords(in.shape(), co, s); });
  ndimage::MapCoordinatesOptions mo;
  mo.order = order;
  mo.mode = ndi_mode(mode);
  mo.cval = cval;
  return ndimage::map_coordinates(in, co, mo, stream);
}

}  // namespace detail

Array resize(const Array& image0, const Shape& output_shape0, const ResizeOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "transform.resize";
  cuskimage::detail::expect_valid(image0, fn, "image");
  // _preprocess_resize_output_shape.
  Shape oshape = output_shape0;
  Array image = image0.share();
  const int nd = image0.ndim();
  if (static_cast<int>(oshape.size()) > nd) {
    Shape s = image0.shape();
    s.resize(oshape.size(), 1);
    image = image0.reshape(s);
  } else if (static_cast<int>(oshape.size()) == nd - 1) {
    oshape.push_back(image0.shape(nd - 1));
  } else {
    expect(static_cast<int>(oshape.size()) == nd, fn, "output_shape",
           "cannot have fewer entries than the image has dimensions, got ", oshape.size());
  }
  for (const auto v : oshape) expect(v > 0, fn, "output_shape", "must hold positive sizes, got ", v);
  const DType in_dt = image.dtype();
  bool anti_aliasing = false;
  if (opts.anti_aliasing) {
    anti_aliasing = *opts.anti_aliasing;
  } else {
    const bool int_order0 = is_integer(in_dt) && opts.order && *opts.order == 0;
    bool down = false;
    for (int a = 0; a < image.ndim(); ++a) down = down || oshape[a] < image.shape(a);
    anti_aliasing = in_dt != DType::bool_ && !int_order0 && down;
  }
  expect(!(in_dt == DType::bool_ && anti_aliasing), fn, "anti_aliasing", "must be false for boolean images");
  std::vector<double> factors(oshape.size());
  for (std::size_t a = 0; a < oshape.size(); ++a)
    factors[a] = static_cast<double>(image.shape(static_cast<int>(a))) / static_cast<double>(oshape[a]);
  const int order = validate_order(in_dt, opts.order, fn);
  if (order > 0) image = convert_to_float(image, opts.preserve_range, stream);
  Array filtered = image.share();
  if (anti_aliasing) {
    std::vector<double> sigma(factors.size());
    if (opts.anti_aliasing_sigma.empty()) {
      for (std::size_t a = 0; a < factors.size(); ++a) sigma[a] = std::max(0.0, (factors[a] - 1) / 2);
    } else {
      expect(opts.anti_aliasing_sigma.size() == 1 || opts.anti_aliasing_sigma.size() == factors.size(), fn,
             "anti_aliasing_sigma", "must have one value or one per axis, got ", opts.anti_aliasing_sigma.size());
      for (std::size_t a = 0; a < factors.size(); ++a) {
        sigma[a] = opts.anti_aliasing_sigma.size() == 1 ? opts.anti_aliasing_sigma[0] : opts.anti_aliasing_sigma[a];
        expect(sigma[a] >= 0, fn, "anti_aliasing_sigma", "must be >= 0 (Gaussian standard deviation), got ", sigma[a]);
      }
    }
    filtered = ndimage::gaussian_filter(image, sigma, {.mode = filter_mode(opts.mode), .cval = opts.cval}, stream);
  }
  Array out = zoom_grid(filtered, oshape, order, opts.mode, opts.cval, stream);
  clip_warp_output(image, out, opts.mode, opts.cval, opts.clip, stream);
  return out;
}

Array rescale(const Array& image, const std::vector<double>& scale, const RescaleOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "transform.rescale";
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(!scale.empty(), fn, "scale", "must hold one value or one per spatial axis");
  const bool multichannel = opts.channel_axis.has_value();
  const int nd = image.ndim();
  Array img = image.share();
  int ca = nd - 1;
  if (multichannel) {
    ca = cuskimage::detail::normalize_axis(*opts.channel_axis, nd, fn, "channel_axis");
    img = image.transpose(axes_moving(nd, ca, nd - 1));
  }
  std::vector<double> sc = scale;
  if (sc.size() > 1) {
    expect(static_cast<int>(sc.size()) == (multichannel ? nd - 1 : nd), fn, "scale",
           "must be a single scale or one value per spatial axis, got ", sc.size(), " values");
    if (multichannel) sc.push_back(1.0);
  }
  Shape oshape(nd);
  for (int a = 0; a < nd; ++a) {
    const double s = sc.size() == 1 ? sc[0] : sc[a];
    oshape[a] = static_cast<std::int64_t>(std::max(std::nearbyint(s * static_cast<double>(img.shape(a))), 1.0));
  }
  if (multichannel) oshape[nd - 1] = img.shape(nd - 1);
  const ResizeOptions ro{.order = opts.order,
                         .mode = opts.mode,
                         .cval = opts.cval,
                         .clip = opts.clip,
                         .preserve_range = opts.preserve_range,
                         .anti_aliasing = opts.anti_aliasing,
                         .anti_aliasing_sigma = opts.anti_aliasing_sigma};
  Array out = resize(img, oshape, ro, stream);
  if (!multichannel || ca == nd - 1) return out;
  return out.transpose(axes_moving(nd, nd - 1, ca)).contiguous(stream);
}

}  // namespace cuskimage::transform
