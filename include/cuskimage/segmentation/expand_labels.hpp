// skimage.segmentation.expand_labels (scikit-image 0.26).
#pragma once

#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {

struct ExpandLabelsOptions {
  /// Pixels of label 0 within this Euclidean distance of a label take the nearest one's value.
  double distance = 1.0;
  /// Spacing of the axes: empty = 1, one value or one per axis (each > 0).
  std::vector<double> spacing = {};
};
CUSK_OPTIONS(ExpandLabelsOptions,
             (distance, "Euclidean distance by which labels grow"),
             (spacing, "spacing of the elements, one value or one per axis"))

/// skimage.segmentation.expand_labels: ndimage.distance_transform_edt(label_image == 0, sampling,
/// return_indices) and, where the distance is <= `distance`, the label at the nearest labelled
/// pixel (scipy's feature ties, so the same label as scikit-image); 0 elsewhere. Same dtype and
/// shape as the input (any dtype). 1- to 3-D on a CUDA device (the EDT's limit). Does not synchronise.
Array expand_labels(const Array& label_image, const ExpandLabelsOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::segmentation
