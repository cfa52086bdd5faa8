// skimage.transform.swirl and warp_polar: warp through their inverse mappings, evaluated per output
// pixel on the image's device (SourceMap), then ndi.map_coordinates as scikit-image does for any
// warp given map_args.
#include <cmath>
#include <numbers>

#include "cuskimage/transform/warps.hpp"
#include "src/core/validate.hpp"
#include "src/transform/warps_common.hpp"

namespace cuskimage::transform {

using cuskimage::detail::expect;
using namespace detail;

Array swirl(const Array& image, const SwirlOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "transform.swirl";
  const WarpOptions wo = warp_options_of(opts, opts.output_shape);
  const Prepared p = prepare(image, wo, fn, stream);
  const Shape s = callable_shape(p, fn);
  SourceMap q;
  q.kind = SourceMapKind::swirl;
  q.p[0] = opts.center ? (*opts.center)[0] : static_cast<double>(image.shape(1)) / 2;
  q.p[1] = opts.center ? (*opts.center)[1] : static_cast<double>(image.shape(0)) / 2;
  q.p[2] = opts.rotation;
  q.p[3] = opts.strength;
  // Decays to about 1/1000 within the radius.
  q.p[4] = opts.radius / 5 * std::log(2.0);
  return map_path(p.image, source_coords(q, s, p.image.device(), stream), p.order, wo, stream);
}

Array warp_polar(const Array& image, const WarpPolarOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "transform.warp_polar";
  cuskimage::detail::expect_valid(image, fn, "image");
  const bool multichannel = opts.channel_axis.has_value();
  expect(multichannel || image.ndim() == 2, fn, "image", "must be 2-D when channel_axis is unset, got ", image.ndim(),
         "-D");
  expect(!multichannel || image.ndim() == 3, fn, "image", "must be 3-D when channel_axis is set, got ", image.ndim(),
         "-D");
  int ca = 2;
  Array img = image.share();
  if (multichannel) {
    ca = cuskimage::detail::normalize_axis(*opts.channel_axis, 3, fn, "channel_axis");
    std::vector<int> axes;
    for (int a = 0; a < 3; ++a)
      if (a != ca) axes.push_back(a);
    axes.push_back(ca);
    img = image.transpose(axes);
  }
  const double rows = static_cast<double>(img.shape(0)), cols = static_cast<double>(img.shape(1));
  const double cr = opts.center ? (*opts.center)[0] : rows / 2 - 0.5;
  const double cc = opts.center ? (*opts.center)[1] : cols / 2 - 0.5;
  const double radius = opts.radius ? *opts.radius : std::sqrt(rows / 2 * (rows / 2) + cols / 2 * (cols / 2));
  std::vector<std::int64_t> oshape = opts.output_shape;
  if (oshape.empty()) oshape = {360, static_cast<std::int64_t>(std::ceil(radius))};
  expect(oshape.size() >= 2, fn, "output_shape", "must have at least 2 entries, got ", oshape.size());
  const double height = static_cast<double>(oshape[0]), width = static_cast<double>(oshape[1]);
  SourceMap q;
  q.kind = opts.scaling == PolarScaling::log ? SourceMapKind::log_polar : SourceMapKind::linear_polar;
  q.p[0] = height / (2 * std::numbers::pi);
  q.p[1] = opts.scaling == PolarScaling::log ? width / std::log(radius) : width / radius;
  q.p[2] = cr;
  q.p[3] = cc;
  const WarpOptions wo = warp_options_of(opts, oshape);
  const Prepared p = prepare(img, wo, fn, stream);
  const Shape s = callable_shape(p, fn);
  Array out = map_path(p.image, source_coords(q, s, p.image.device(), stream), p.order, wo, stream);
  if (!multichannel || ca == 2 || out.ndim() != 3) return out;
  // The channels back to their axis (scikit-image's channel_as_last_axis).
  std::vector<int> back;
  for (int a = 0, k = 0; a < 3; ++a) back.push_back(a == ca ? 2 : k++);
  return out.transpose(back).contiguous(stream);
}

}  // namespace cuskimage::transform
