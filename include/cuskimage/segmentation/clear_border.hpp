// skimage.segmentation.clear_border (scikit-image 0.26).
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {

struct ClearBorderOptions {
  /// Width of the border band examined (pixels within buffer_size + 1 of an edge); >= 0.
  std::int64_t buffer_size = 0;
  /// The value cleared objects get (converted to the labels' dtype as NumPy's assignment).
  double bgval = 0.0;
  /// bool, the labels' shape: the pixels outside it (False) are the border instead of the band.
  Array mask = {};
};
CUSK_OPTIONS(ClearBorderOptions,
             (buffer_size, "width of the border band examined"),
             (bgval, "value of the cleared objects"),
             (mask, "bool .npy, labels' shape: False pixels are the border (default: the band)"))

/// skimage.segmentation.clear_border: a copy of `labels` where every connected component
/// (measure.label with background 0 and full connectivity: neighbours of equal value) that has a
/// pixel in the border is set to `bgval`. As in scikit-image, when a border pixel is 0 the whole
/// background counts as touching (all zero pixels become bgval). Any dtype measure.label takes;
/// `out=` is the returned array. 1- to 3-D on a CUDA device. Does not synchronise.
/// Deviation: a negative buffer_size is InvalidArgument (scikit-image then clears everything).
Array clear_border(const Array& labels, const ClearBorderOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::segmentation
