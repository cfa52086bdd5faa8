// Pieces of skimage.transform._warps shared by warp, rotate, resize, the pyramids and the polar /
// swirl warps: mode translation, order validation, convert_to_float and _clip_warp_output.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/transform/warps.hpp"
#include "src/transform/warps_backend.hpp"

namespace cuskimage::transform::detail {

/// scikit-image's one-letter mode code of _warp_fast ('C', 'E', 'S', 'R', 'W').
char mode_code(WarpMode m);
/// _to_ndimage_mode: constant -> grid-constant, edge -> nearest, symmetric -> reflect,
/// reflect -> mirror, wrap -> grid-wrap.
ndimage::InterpMode ndi_mode(WarpMode m);
/// _validate_interpolation_order: unset = 0 for bool, else 1; 0..5; bool only with 0.
int validate_order(DType dt, std::optional<int> order, std::string_view fn);
/// convert_to_float: float32/float64 kept; others img_as_float, or float64 values with preserve_range.
Array convert_to_float(const Array& image, bool preserve_range, const Stream& stream);
/// `v` cast to dtype `dt` as NumPy casts a Python float, back in double.
double as_dtype(DType dt, double v);
/// warp's validated input: the image (converted to float for order > 0), the order, the output shape.
struct Prepared {
  Array image;
  int order = 1;
  Shape out_shape;
};
Prepared prepare(const Array& image, const WarpOptions& opts, std::string_view fn, const Stream& stream);
/// The 2-D (+ channels) output shape of the callable path (channels appended to a 2-length shape).
Shape callable_shape(const Prepared& p, std::string_view fn);
/// The (2 or 3, *out_shape) float64 source coordinates of `q` on `dev`.
Array source_coords(const SourceMap& q, const Shape& out_shape, Device dev, const Stream& stream);
/// ndi.map_coordinates of the prepared image (prefilter for order > 1), then _clip_warp_output.
Array map_path(const Array& image, const Array& coords, int order, const WarpOptions& opts, const Stream& stream);

/// The ndimage filters' mode of _to_ndimage_mode(m).
ndimage::Mode filter_mode(WarpMode m);
/// np.moveaxis's permutation: axis `from` to position `to`.
std::vector<int> axes_moving(int ndim, int from, int to);

/// The WarpOptions of a function built on warp (its order, mode, cval, clip, preserve_range).
template <class O>
WarpOptions warp_options_of(const O& o, std::vector<std::int64_t> output_shape = {}) {
  return WarpOptions{.output_shape = std::move(output_shape),
                     .order = o.order,
                     .mode = o.mode,
                     .cval = o.cval,
                     .clip = o.clip,
                     .preserve_range = o.preserve_range};
}

/// A row-major 3x3 float64 matrix.
struct Mat3 {
  double m[9];
};
/// a @ b as NumPy's BLAS product forms it here (per entry a fused multiply-add chain over k).
Mat3 mat3_mul(const Mat3& a, const Mat3& b);
/// The inverse (np.linalg.inv); InvalidArgument when singular.
Mat3 mat3_inv(const Mat3& a);
/// The translation by (tx, ty).
Mat3 translation(double tx, double ty);

/// _clip_warp_output(input, out, mode, cval, clip).
void clip_warp_output(const Array& input, Array& out, WarpMode mode, double cval, bool clip, const Stream& stream);

}  // namespace cuskimage::transform::detail
