// cuskimage::ndimage geometry — scipy.ndimage's zoom, shift, affine_transform, rotate and
// geometric_transform on the B-spline machinery of ndimage.hpp (map_coordinates).
// Kept as a sub-header of ndimage so that adding it does not rebuild every file that includes
// ndimage.hpp; ndimage.hpp may include it at its end.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "cuskimage/ndimage.hpp"

namespace cuskimage::ndimage {

// @@geometry@@ begin
// ==== geometry (scipy.ndimage zoom / shift / affine_transform / rotate / geometric_transform) ======
// Semantics are scipy.ndimage 1.17's, on the map_coordinates machinery above (same prefilter, same
// per-sample arithmetic, same output dtype rules: unset = the input's dtype; else the input's,
// float32 or float64): zoom and shift are NI_ZoomShift (coordinate i + shift, times the zoom factor
// (in_len - 1) / (out_len - 1), or in_len / out_len with grid_mode where the sample is taken at
// (i + 0.5) * zoom - 0.5; an axis whose divisor is 0 keeps factor 1), affine_transform is
// NI_GeometricTransform's affine branch (c = offset + matrix . i, summed in column order), rotate
// builds scipy's matrix from cosdg/sindg (exact at multiples of 90 degrees) and rotates each plane of
// `axes` separately (prefilter per plane). The CPU backend gives scipy's bits; the CUDA backend
// computes every coordinate in-kernel with the same operations (GPU == CPU bit for bit), 1-D to
// 3-D (more axes raise NotSupported on a device). geometric_transform calls the C++ mapping on the
// host for every output point; on a CUDA array the coordinates are computed on the host by the
// callable, copied to the device and sampled there.

struct ZoomOptions {
  /// Output dtype: unset = the input's; else the input's dtype, float32 or float64.
  std::optional<DType> output = std::nullopt;
  /// Spline order 0..5.
  int order = 3;
  InterpMode mode = InterpMode::constant;
  double cval = 0.0;
  /// Run spline_filter (float64, `mode`) first when order > 1.
  bool prefilter = true;
  /// Pixels as areas (zoom = in_len / out_len, edges at -0.5 and len - 0.5) instead of points.
  bool grid_mode = false;
};
CUSK_OPTIONS(ZoomOptions,
             (output, "output dtype: the input's, float32 or float64"),
             (order, "spline order 0..5"),
             (mode, "how the input is extended beyond its edges (scipy's names)"),
             (cval, "value outside the edges for the constant modes"),
             (prefilter, "spline-filter the input first (orders > 1)"),
             (grid_mode, "treat pixels as areas (zoom from the full extents)"))

/// scipy.ndimage.zoom: `zoom` one factor or one per axis (> 0); the output shape is
/// round(in_len * zoom) per axis. Factors of 1 with prefilter return a copy of the input (scipy's
/// early exit) in the output dtype.
Array zoom(const Array& input, const std::vector<double>& zoom, const ZoomOptions& opts = {}, const Stream& stream = {});
inline Array zoom(const Array& input, double z, const ZoomOptions& opts = {}, const Stream& stream = {}) {
  return zoom(input, std::vector<double>{z}, opts, stream);
}

struct ShiftOptions {
  std::optional<DType> output = std::nullopt;
  int order = 3;
  InterpMode mode = InterpMode::constant;
  double cval = 0.0;
  bool prefilter = true;
};
CUSK_OPTIONS(ShiftOptions,
             (output, "output dtype: the input's, float32 or float64"),
             (order, "spline order 0..5"),
             (mode, "how the input is extended beyond its edges (scipy's names)"),
             (cval, "value outside the edges for the constant modes"),
             (prefilter, "spline-filter the input first (orders > 1)"))

/// scipy.ndimage.shift: out[i] = input[i - shift], `shift` one value or one per axis.
Array shift(const Array& input, const std::vector<double>& shift, const ShiftOptions& opts = {},
            const Stream& stream = {});
inline Array shift(const Array& input, double s, const ShiftOptions& opts = {}, const Stream& stream = {}) {
  return shift(input, std::vector<double>{s}, opts, stream);
}

struct AffineTransformOptions {
  /// One value or one per axis; ignored when the matrix carries the translation ((ndim, ndim + 1)
  /// or homogeneous (ndim + 1, ndim + 1)).
  std::vector<double> offset = {0.0};
  /// Empty: the input's shape; else one length per input axis.
  std::vector<std::int64_t> output_shape = {};
  std::optional<DType> output = std::nullopt;
  int order = 3;
  InterpMode mode = InterpMode::constant;
  double cval = 0.0;
  bool prefilter = true;
};
CUSK_OPTIONS(AffineTransformOptions,
             (offset, "offset into the input, one value or one per axis"),
             (output_shape, "shape of the output (default: the input's)"),
             (output, "output dtype: the input's, float32 or float64"),
             (order, "spline order 0..5"),
             (mode, "how the input is extended beyond its edges (scipy's names)"),
             (cval, "value outside the edges for the constant modes"),
             (prefilter, "spline-filter the input first (orders > 1)"))

/// scipy.ndimage.affine_transform: the input sampled at matrix . o + offset for every output index
/// o. `matrix` (host array of any real dtype) is (ndim,) (a diagonal: scipy's zoom_shift path),
/// (ndim, ndim), (ndim, ndim + 1) (last column = offset) or homogeneous (ndim + 1, ndim + 1)
/// (bottom row must be 0..0 1).
Array affine_transform(const Array& input, const Array& matrix, const AffineTransformOptions& opts = {},
                       const Stream& stream = {});
/// The same with the matrix as row-major values and its shape ({ndim} or {rows, cols}).
Array affine_transform(const Array& input, const std::vector<double>& matrix, const Shape& matrix_shape,
                       const AffineTransformOptions& opts = {}, const Stream& stream = {});

struct RotateOptions {
  /// The plane of rotation (two distinct axes, negative counts from the end).
  std::vector<int> axes = {1, 0};
  /// Enlarge the output so that the whole rotated input fits; else keep the input's shape.
  bool reshape = true;
  std::optional<DType> output = std::nullopt;
  int order = 3;
  InterpMode mode = InterpMode::constant;
  double cval = 0.0;
  bool prefilter = true;
};
CUSK_OPTIONS(RotateOptions,
             (axes, "the two axes of the rotation plane"),
             (reshape, "enlarge the output to contain the whole rotated input"),
             (output, "output dtype: the input's, float32 or float64"),
             (order, "spline order 0..5"),
             (mode, "how the input is extended beyond its edges (scipy's names)"),
             (cval, "value outside the edges for the constant modes"),
             (prefilter, "spline-filter the input first (orders > 1)"))

/// scipy.ndimage.rotate by `angle` degrees (input at least 2-D).
Array rotate(const Array& input, double angle, const RotateOptions& opts = {}, const Stream& stream = {});

struct GeometricTransformOptions {
  /// Empty: the input's shape.
  std::vector<std::int64_t> output_shape = {};
  std::optional<DType> output = std::nullopt;
  int order = 3;
  InterpMode mode = InterpMode::constant;
  double cval = 0.0;
  bool prefilter = true;
};
CUSK_OPTIONS(GeometricTransformOptions,
             (output_shape, "shape of the output (default: the input's)"),
             (output, "output dtype: the input's, float32 or float64"),
             (order, "spline order 0..5"),
             (mode, "how the input is extended beyond its edges (scipy's names)"),
             (cval, "value outside the edges for the constant modes"),
             (prefilter, "spline-filter the input first (orders > 1)"))

/// The mapping of geometric_transform: output index (output_shape.size() entries) -> input
/// coordinates (input.ndim() entries).
using GeometricMapping = std::function<void(const std::int64_t* out_index, double* in_coord)>;

/// scipy.ndimage.geometric_transform with a C++ mapping, called on the host once per output point in
/// C order (on a CUDA array the coordinates are computed on the host, then sampled on the device).
Array geometric_transform(const Array& input, const GeometricMapping& mapping,
                          const GeometricTransformOptions& opts = {}, const Stream& stream = {});

/// scipy.special.cosdg / sindg (cephes): cosine and sine of degrees, exact at multiples of 90.
double cosdg(double degrees);
double sindg(double degrees);
// @@geometry@@ end

}  // namespace cuskimage::ndimage
