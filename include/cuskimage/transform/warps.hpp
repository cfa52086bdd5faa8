// skimage.transform._warps (scikit-image 0.26): warp and the functions built on it (resize, rescale,
// rotate, swirl, warp_polar, warp_coords, resize_local_mean, downscale_local_mean).
#pragma once

#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::transform {

/// scikit-image's warp modes (numpy.pad's names): constant, edge, symmetric, reflect, wrap.
enum class WarpMode { constant, edge, symmetric, reflect, wrap };
CUSK_ENUM(WarpMode, constant, edge, symmetric, reflect, wrap)

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

}  // namespace cuskimage::transform
