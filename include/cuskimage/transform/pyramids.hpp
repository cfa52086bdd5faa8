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

/// skimage.transform.pyramid_reduce: smooth, then resize to ceil(shape / downscale).
Array pyramid_reduce(const Array& image, const PyramidReduceOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::transform
