// skimage.measure.points_in_poly and grid_points_in_poly (scikit-image's pnpoly): the crossing test
// of src/measure/pnpoly.hpp on the host, or on the device for the grid (kernels/measure/pnpoly.cu).
#include <cstdint>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/measure/coords.hpp"
#include "src/measure/pnpoly.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::expect;
using detail::coords2;

}  // namespace

Array points_in_poly(const Array& points, const Array& verts) {
  constexpr std::string_view fn = "measure.points_in_poly";
  const auto p = coords2(points, fn, "points");
  const auto v = coords2(verts, fn, "verts");
  const std::int64_t n = static_cast<std::int64_t>(p.size() / 2), m = static_cast<std::int64_t>(v.size() / 2);
  std::vector<double> vx(m), vy(m);
  for (std::int64_t i = 0; i < m; ++i) vx[i] = v[2 * i], vy[i] = v[2 * i + 1];
  Array out = Array::empty({n}, DType::bool_);
  bool* o = static_cast<bool*>(out.data());
  for (std::int64_t i = 0; i < n; ++i) o[i] = detail::point_in_polygon(vx.data(), vy.data(), m, p[2 * i], p[2 * i + 1]) != 0;
  return out;
}

Array grid_points_in_poly(const Shape& shape, const Array& verts, const GridPointsInPolyOptions& opts,
                          const Stream& stream) {
  constexpr std::string_view fn = "measure.grid_points_in_poly";
  expect(shape.size() == 2 && shape[0] >= 0 && shape[1] >= 0, fn, "shape", "must be two non-negative extents, got ",
         shape_str(shape));
  const auto v = coords2(verts, fn, "verts");
  const std::int64_t m = static_cast<std::int64_t>(v.size() / 2);
  std::vector<double> vx(m), vy(m);
  for (std::int64_t i = 0; i < m; ++i) vx[i] = v[2 * i], vy[i] = v[2 * i + 1];
  Array out = Array::empty(shape, DType::uint8, opts.device, stream);
  if (opts.device.is_cpu()) {
    unsigned char* o = static_cast<unsigned char*>(out.data());
    for (std::int64_t r = 0; r < shape[0]; ++r)
      for (std::int64_t c = 0; c < shape[1]; ++c)
        o[r * shape[1] + c] = detail::point_in_polygon(vx.data(), vy.data(), m, static_cast<double>(r),
                                                       static_cast<double>(c));
  } else {
    cuskimage::detail::DeviceGuard guard(opts.device.index());
    const Array dx = Array::from_vector(vx, {m}).to(opts.device, stream);
    const Array dy = Array::from_vector(vy, {m}).to(opts.device, stream);
    detail::cuda_grid_points_in_poly(out, dx, dy, stream);
  }
  return opts.binarize ? out.astype(DType::bool_, stream) : std::move(out);
}

}  // namespace cuskimage::measure
