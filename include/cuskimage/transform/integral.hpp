// skimage.transform.integral (scikit-image 0.26): integral_image, integrate.
#pragma once

#include <optional>

#include "cuskimage/array.hpp"
#include "cuskimage/dtype.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::transform {

struct IntegralImageOptions {
  /// Accumulation and output dtype; unset = numpy's cumsum dtype (int64 for bool and signed
  /// integers, uint64 for unsigned ones, float64 for floats).
  std::optional<DType> dtype = std::nullopt;
};
CUSK_OPTIONS(IntegralImageOptions, (dtype, "accumulation and output dtype (default: numpy's cumsum dtype)"))

/// skimage.transform.integral_image: the summed-area table of an N-d image (cumulative sums along
/// every axis, in `dtype`; integer sums wrap as numpy's do). Asynchronous on `stream`.
Array integral_image(const Array& image, const IntegralImageOptions& opts = {}, const Stream& stream = {});

/// skimage.transform.integrate: the sums of the windows [start[i], end[i]] (inclusive) of the
/// integral image `ii`, as float64 (n,) on ii's device. `start` and `end` are integer arrays of
/// shape (n, ii.ndim) or (ii.ndim,); negative coordinates count from the end. InvalidArgument
/// when an end precedes its start or a corner lies outside `ii`. Synchronises (checks the windows).
Array integrate(const Array& ii, const Array& start, const Array& end, const Stream& stream = {});

}  // namespace cuskimage::transform
