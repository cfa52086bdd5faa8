// skimage.transform.pyramids (scikit-image 0.26): pyramid_reduce, pyramid_expand, pyramid_gaussian,
// pyramid_laplacian.
#pragma once

#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"
#include "cuskimage/transform/warps.hpp"

namespace cuskimage::transform {

struct PyramidReduceOptions {
  double downscale = 2.0;
  /// Gaussian sigma; unset = 2 * downscale / 6.
  std::optional<double> sigma = std::nullopt;
  int order = 1;
  WarpMode mode = WarpMode::reflect;
  double cval = 0.0;
  bool preserve_range = false;
  /// The axis holding channels (not smoothed nor resized); unset = none.
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(PyramidReduceOptions,
             (downscale, "down-scale factor"),
             (sigma, "Gaussian sigma (default 2 * downscale / 6)"),
             (order, "spline order 0..5 of the resize"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the image for mode constant"),
             (preserve_range, "keep the input's value range instead of converting to float"),
             (channel_axis, "axis holding channels (default: none)"))

/// skimage.transform.pyramid_reduce: smooth, then resize to ceil(shape / downscale). Float output
/// (float32 stays). Modes as scikit-image hands them to the smoothing: constant, reflect (scipy's
/// half-sample reflect there, numpy.pad's reflect in the resize) and wrap; edge and symmetric are
/// refused as scipy's Gaussian filter refuses them.
Array pyramid_reduce(const Array& image, const PyramidReduceOptions& opts = {}, const Stream& stream = {});

struct PyramidExpandOptions {
  double upscale = 2.0;
  /// Gaussian sigma; unset = 2 * upscale / 6.
  std::optional<double> sigma = std::nullopt;
  int order = 1;
  WarpMode mode = WarpMode::reflect;
  double cval = 0.0;
  bool preserve_range = false;
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(PyramidExpandOptions,
             (upscale, "up-scale factor"),
             (sigma, "Gaussian sigma (default 2 * upscale / 6)"),
             (order, "spline order 0..5 of the resize"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the image for mode constant"),
             (preserve_range, "keep the input's value range instead of converting to float"),
             (channel_axis, "axis holding channels (default: none)"))

/// skimage.transform.pyramid_expand: resize to ceil(upscale * shape), then smooth.
Array pyramid_expand(const Array& image, const PyramidExpandOptions& opts = {}, const Stream& stream = {});

struct PyramidOptions {
  /// Layers after the original (-1 = until the shape stops changing).
  int max_layer = -1;
  double downscale = 2.0;
  std::optional<double> sigma = std::nullopt;
  int order = 1;
  WarpMode mode = WarpMode::reflect;
  double cval = 0.0;
  bool preserve_range = false;
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(PyramidOptions,
             (max_layer, "layers after the original (-1: all)"),
             (downscale, "down-scale factor"),
             (sigma, "Gaussian sigma (default 2 * downscale / 6)"),
             (order, "spline order 0..5 of the resize"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the image for mode constant"),
             (preserve_range, "keep the input's value range instead of converting to float"),
             (channel_axis, "axis holding channels (default: none)"))

/// skimage.transform.pyramid_gaussian: the float image, then pyramid_reduce of each layer until
/// max_layer layers or the shape stops changing.
std::vector<Array> pyramid_gaussian(const Array& image, const PyramidOptions& opts = {}, const Stream& stream = {});
/// skimage.transform.pyramid_laplacian: image - smooth(image), then for each layer the resized
/// smoothed previous layer minus its smoothing.
std::vector<Array> pyramid_laplacian(const Array& image, const PyramidOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::transform
