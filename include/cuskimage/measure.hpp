// skimage.measure on both backends.
#pragma once

#include <cstdint>
#include <optional>

#include "cuskimage/array.hpp"
#include "cuskimage/dtype.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::measure {

// ---------------------------------------------------------------------------------------------
// label: connected regions of equal value.
// ---------------------------------------------------------------------------------------------

struct LabelOptions {
  /// Pixels of this value are background (label 0). Unset: 0. For a bool image, 1 labels the
  /// false pixels instead (scikit-image inverts it); any other value means false is background.
  std::optional<std::int64_t> background;
  /// Maximum number of orthogonal hops between neighbours, 1..ndim. Unset: ndim (full).
  std::optional<int> connectivity;
  /// int32 or int64. Unset: scikit-image's dtype, int32 for a bool image and int64 otherwise.
  std::optional<DType> dtype;
};

/// skimage.measure.label: neighbours (under `connectivity`) of the same value share a label; labels
/// are 1..num, numbered by each region's first pixel in C (raster) order exactly as scikit-image
/// numbers them. Any dtype; floats compare by their value truncated toward zero (NumPy's cast to
/// an integer, as scikit-image does; NaN and out-of-range values all become INT64_MIN). Any number
/// of dimensions >= 1 on the CPU, 1- to 3-D on a CUDA device (a block-based union-find of a fixed
/// number of passes, 64-bit indices past 2^31 pixels; kernels/measure/label.cu).
Array label(const Array& image, const LabelOptions& opts = {}, const Stream& stream = {});

struct LabelResult {
  Array labels;
  std::int64_t num = 0;  // the number of labels (the largest label)
};

/// label with return_num=True. The count is read back from the device (the call synchronises the
/// stream); `label` itself does not.
LabelResult label_with_num(const Array& image, const LabelOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::measure
