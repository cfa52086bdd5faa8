// skimage.transform._warps (scikit-image 0.26): warp and the functions built on it (resize, rescale,
// rotate, swirl, warp_polar, warp_coords, resize_local_mean, downscale_local_mean).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"
#include "cuskimage/transform/geometric.hpp"

namespace cuskimage::transform {

/// scikit-image's warp modes (numpy.pad's names): constant, edge, symmetric, reflect, wrap.
enum class WarpMode { constant, edge, symmetric, reflect, wrap };
CUSK_ENUM(WarpMode, constant, edge, symmetric, reflect, wrap)

/// A C++ inverse map for warp: (N, 2) float64 host coordinates (x, y) = (col, row) of output
/// pixels in, their (N, 2) float64 source coordinates out (scikit-image's callable inverse_map).
using CoordinateMap = std::function<Array(const Array&)>;

struct WarpOptions {
  /// Output shape (rows, cols[, channels] or the coordinate map's); empty = the input's.
  std::vector<std::int64_t> output_shape = {};
  /// Spline order 0..5; unset = 0 for bool images, else 1.
  std::optional<int> order = std::nullopt;
  WarpMode mode = WarpMode::constant;
  double cval = 0.0;
  bool clip = true;
  bool preserve_range = false;
};
CUSK_OPTIONS(WarpOptions,
             (output_shape, "output shape (default: the input's)"),
             (order, "spline order 0..5 (default 0 for bool, else 1)"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the image for mode constant"),
             (clip, "clip the output to the input's range"),
             (preserve_range, "keep the input's value range instead of converting to float"))

/// skimage.transform.warp with a transform object as inverse_map (a 2-D transform; the projective
/// family, through homogeneous_matrix(), takes scikit-image's fast path for orders 1 and 3). 2-D
/// images or 2-D + trailing channels. Output: float32 for float32/float16 input, else float64;
/// the input's dtype for order 0.
Array warp(const Array& image, const GeometricTransform& inverse_map, const WarpOptions& opts = {},
           const Stream& stream = {});
/// warp with an array inverse_map: a (3, 3) homogeneous matrix (host), or a coordinate map of
/// shape (image.ndim, *output_shape) (host or the image's device; N-d images).
Array warp(const Array& image, const Array& inverse_map, const WarpOptions& opts = {}, const Stream& stream = {});
/// warp with a C++ callable inverse_map (2-D images or 2-D + channels).
Array warp(const Array& image, const CoordinateMap& inverse_map, const WarpOptions& opts = {},
           const Stream& stream = {});

/// skimage.transform.warp_coords: the (ndim, rows, cols[, bands]) source coordinates of a 2-D warp
/// (host; dtype float32 or float64).
Array warp_coords(const CoordinateMap& coord_map, const Shape& shape, DType dtype = DType::float64);

struct RotateOptions {
  /// Grow the output so the whole rotated image fits.
  bool resize = false;
  /// Rotation centre (cols, rows) as scikit-image orders it; unset = the image centre.
  std::optional<std::array<double, 2>> center = std::nullopt;
  std::optional<int> order = std::nullopt;
  WarpMode mode = WarpMode::constant;
  double cval = 0.0;
  bool clip = true;
  bool preserve_range = false;
};
CUSK_OPTIONS(RotateOptions,
             (resize, "grow the output to fit the whole rotated image"),
             (center, "rotation centre (cols, rows) (default: the image centre)"),
             (order, "spline order 0..5 (default 0 for bool, else 1)"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the image for mode constant"),
             (clip, "clip the output to the input's range"),
             (preserve_range, "keep the input's value range instead of converting to float"))

/// skimage.transform.rotate: counter-clockwise by `angle` degrees about the centre.
Array rotate(const Array& image, double angle, const RotateOptions& opts = {}, const Stream& stream = {});

struct SwirlOptions {
  /// Centre (column, row); unset = the image centre (cols / 2, rows / 2).
  std::optional<std::array<double, 2>> center = std::nullopt;
  double strength = 1.0;
  double radius = 100.0;
  double rotation = 0.0;
  /// Output shape; empty = the input's.
  std::vector<std::int64_t> output_shape = {};
  std::optional<int> order = std::nullopt;
  WarpMode mode = WarpMode::reflect;
  double cval = 0.0;
  bool clip = true;
  bool preserve_range = false;
};
CUSK_OPTIONS(SwirlOptions,
             (center, "swirl centre (column, row) (default: the image centre)"),
             (strength, "amount of swirling"),
             (radius, "extent of the swirl in pixels"),
             (rotation, "additional rotation in radians"),
             (output_shape, "output shape (default: the input's)"),
             (order, "spline order 0..5 (default 0 for bool, else 1)"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the image for mode constant"),
             (clip, "clip the output to the input's range"),
             (preserve_range, "keep the input's value range instead of converting to float"))

/// skimage.transform.swirl (2-D images or 2-D + channels).
Array swirl(const Array& image, const SwirlOptions& opts = {}, const Stream& stream = {});

/// warp_polar's radial scaling.
enum class PolarScaling { linear, log };
CUSK_ENUM(PolarScaling, linear, log)

struct WarpPolarOptions {
  /// Centre (row, col); unset = the image centre (rows / 2 - 0.5, cols / 2 - 0.5).
  std::optional<std::array<double, 2>> center = std::nullopt;
  /// Radius of the circle mapped; unset = half the image diagonal.
  std::optional<double> radius = std::nullopt;
  /// (angles, radii); empty = (360, ceil(radius)).
  std::vector<std::int64_t> output_shape = {};
  PolarScaling scaling = PolarScaling::linear;
  /// The axis holding channels (3-D images); unset = a 2-D image.
  std::optional<int> channel_axis = std::nullopt;
  std::optional<int> order = std::nullopt;
  WarpMode mode = WarpMode::constant;
  double cval = 0.0;
  bool clip = true;
  bool preserve_range = false;
};
CUSK_OPTIONS(WarpPolarOptions,
             (center, "centre (row, col) (default: the image centre)"),
             (radius, "radius of the circle mapped (default: half the diagonal)"),
             (output_shape, "output shape (angles, radii) (default: 360 x ceil(radius))"),
             (scaling, "radial scaling: linear or log"),
             (channel_axis, "axis holding channels (default: none)"),
             (order, "spline order 0..5 (default 0 for bool, else 1)"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the image for mode constant"),
             (clip, "clip the output to the input's range"),
             (preserve_range, "keep the input's value range instead of converting to float"))

/// skimage.transform.warp_polar: rows are angles (0..2 pi), columns radii.
Array warp_polar(const Array& image, const WarpPolarOptions& opts = {}, const Stream& stream = {});

struct ResizeLocalMeanOptions {
  /// Pixels as areas (true) or points on a grid (false) when computing the weights.
  bool grid_mode = true;
  bool preserve_range = false;
  /// The axis holding channels (not resized); unset = none.
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(ResizeLocalMeanOptions,
             (grid_mode, "pixels as areas (true) or as grid points (false)"),
             (preserve_range, "keep the input's value range instead of converting to float"),
             (channel_axis, "axis holding channels (default: none)"))

/// skimage.transform.resize_local_mean: each output pixel the area-weighted mean of the input
/// pixels it covers (N-d). Float output as resize.
Array resize_local_mean(const Array& image, const Shape& output_shape, const ResizeLocalMeanOptions& opts = {},
                        const Stream& stream = {});

struct DownscaleLocalMeanOptions {
  /// Padding value where a factor does not divide the shape.
  double cval = 0.0;
  /// Unused (scikit-image keeps it for API consistency).
  bool clip = true;
};
CUSK_OPTIONS(DownscaleLocalMeanOptions,
             (cval, "padding value where a factor does not divide the shape"),
             (clip, "unused, kept for API consistency"))

/// skimage.transform.downscale_local_mean: the mean of each block of `factors` (measure.block_reduce
/// with np.mean): float64 for integer input, float32 stays.
Array downscale_local_mean(const Array& image, const std::vector<std::int64_t>& factors,
                           const DownscaleLocalMeanOptions& opts = {}, const Stream& stream = {});
struct ResizeOptions {
  /// Spline order 0..5; unset = 0 for bool images, else 1.
  std::optional<int> order = std::nullopt;
  WarpMode mode = WarpMode::reflect;
  double cval = 0.0;
  bool clip = true;
  bool preserve_range = false;
  /// Gaussian smoothing before down-sampling; unset = on unless the image is bool or integer
  /// with order 0, or no axis is down-sampled.
  std::optional<bool> anti_aliasing = std::nullopt;
  /// Per-axis (or one) sigma; empty = max(0, (factor - 1) / 2) per axis.
  std::vector<double> anti_aliasing_sigma = {};
};
CUSK_OPTIONS(ResizeOptions,
             (order, "spline order 0..5 (default 0 for bool, else 1)"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the image for mode constant"),
             (clip, "clip the output to the input's range"),
             (preserve_range, "keep the input's value range instead of converting to float"),
             (anti_aliasing, "Gaussian smoothing before down-sampling (default: when down-sampling)"),
             (anti_aliasing_sigma, "sigma of that smoothing, one or one per axis"))

/// skimage.transform.resize: `output_shape` has the image's ndim, or one less (the trailing
/// channels kept). Float output (float32 for float32/float16 input, else float64).
Array resize(const Array& image, const Shape& output_shape, const ResizeOptions& opts = {},
             const Stream& stream = {});

struct RescaleOptions {
  std::optional<int> order = std::nullopt;
  WarpMode mode = WarpMode::reflect;
  double cval = 0.0;
  bool clip = true;
  bool preserve_range = false;
  std::optional<bool> anti_aliasing = std::nullopt;
  std::vector<double> anti_aliasing_sigma = {};
  /// The axis holding channels (not rescaled); unset = none.
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(RescaleOptions,
             (order, "spline order 0..5 (default 0 for bool, else 1)"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the image for mode constant"),
             (clip, "clip the output to the input's range"),
             (preserve_range, "keep the input's value range instead of converting to float"),
             (anti_aliasing, "Gaussian smoothing before down-sampling (default: when down-sampling)"),
             (anti_aliasing_sigma, "sigma of that smoothing, one or one per axis"),
             (channel_axis, "axis holding channels (default: none)"))

/// skimage.transform.rescale: resize to max(round(scale * shape), 1) per axis; `scale` one value or
/// one per spatial axis.
Array rescale(const Array& image, const std::vector<double>& scale, const RescaleOptions& opts = {},
              const Stream& stream = {});

}  // namespace cuskimage::transform
