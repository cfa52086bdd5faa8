// skimage.feature.canny (scikit-image 0.26).
//
// The image (2-D, any dtype but 64-bit integers) is smoothed as scikit-image does: img_as_float,
// then the Gaussian of the masked image divided by the Gaussian of the mask (+ eps) whenever a
// mask is given or mode is 'constant'. Sobel gradients (mode reflect), their magnitude, bilinear
// non-maximum suppression inside the eroded mask (the border when no mask) with the low threshold
// rounded to float32 (scikit-image passes it as a C float), then hysteresis: the 8-connected
// components of the surviving pixels that hold one >= the high threshold.
#pragma once

#include <optional>

#include "cuskimage/array.hpp"
#include "cuskimage/filters.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

struct CannyOptions {
  filters::Sigma sigma = 1.0;
  /// Unset: 0.1 (of the scaled image's range). Else divided by the dtype's maximum unless quantile.
  std::optional<double> low_threshold = std::nullopt;
  /// Unset: 0.2.
  std::optional<double> high_threshold = std::nullopt;
  Array mask = {};
  bool use_quantiles = false;
  ndimage::Mode mode = ndimage::Mode::constant;
  double cval = 0.0;
};
CUSK_OPTIONS(CannyOptions,
             (sigma, "standard deviation of the Gaussian smoothing"),
             (low_threshold, "lower hysteresis threshold (default 0.1 of the dtype's range)"),
             (high_threshold, "upper hysteresis threshold (default 0.2 of the dtype's range)"),
             (mask, "boolean mask of the pixels to consider (.npy path)"),
             (use_quantiles, "thresholds are quantiles of the gradient magnitude, in [0, 1]"),
             (mode, "how the image is extended beyond its edges for the Gaussian"),
             (cval, "value outside the edges for mode 'constant'"))

/// skimage.feature.canny: the bool edge map. With use_quantiles it synchronises `stream` (the
/// quantiles come to the host).
Array canny(const Array& image, const CannyOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::feature
