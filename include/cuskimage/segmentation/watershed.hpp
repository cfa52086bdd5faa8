// skimage.segmentation.watershed (scikit-image 0.26).
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {

// ---------------------------------------------------------------------------------------------
// watershed: marker-controlled priority flood.
// ---------------------------------------------------------------------------------------------

struct WatershedOptions {
  /// Integer connectivity: maximum orthogonal hops to a neighbour (scipy's
  /// generate_binary_structure; < 1 leaves no neighbours, > ndim is full). Ignored when
  /// `footprint` is given.
  int connectivity = 1;
  /// scikit-image's array `connectivity`: the neighbourhood as a footprint (non-zero = in), of
  /// the image's number of dimensions. Empty: built from `connectivity`.
  Array footprint = {};
  /// Coordinates of the footprint's centre, one per axis. Empty: shape // 2 (every side odd).
  std::vector<int> offset = {};
  /// Only pixels where the mask is non-zero are labelled (markers outside it are dropped).
  Array mask = {};
  /// Compact watershed (Neubert & Protzel): a pixel's priority is its value plus compactness
  /// times its Euclidean distance to the marker it is reached from. Must be >= 0.
  double compactness = 0.0;
  /// Leave a one-pixel line of label 0 between regions.
  bool watershed_line = false;
};
CUSK_OPTIONS(WatershedOptions,
             (connectivity, "maximum orthogonal hops to a neighbour (default 1)"),
             (footprint, "neighbourhood footprint (.npy, non-zero = in); overrides connectivity"),
             (offset, "centre of the footprint, one per axis (default: its middle)"),
             (mask, "only pixels where mask is non-zero are labelled (.npy/image)"),
             (compactness, "compact watershed weight of the distance to the marker (>= 0)"),
             (watershed_line, "separate regions by a one-pixel line of label 0"))

/// skimage.segmentation.watershed with a marker array (integer dtype, the image's shape; zero is
/// no marker): basins flooded from the markers in order of pixel value, ties broken by the time
/// a pixel entered the queue. The result has the markers' dtype and shape. Any dtype for the image
/// (flooded as float64, as scikit-image does), any number of dimensions on the CPU.
///
/// CPU backend: scikit-image's priority flood step for step (the same binary heap, (value, age)
/// order, neighbour order and padded raveled indexing), so labels equal scikit-image's exactly,
/// plateau ties included.
///
/// CUDA backend (markers as labels or a count, compactness 0, no watershed line, a 3^ndim footprint
/// holding its centre, 1- to 3-D, < 2^31 pixels): a parallel relaxation (kernels/segmentation/
/// watershed.cu) that computes each pixel's least bottleneck ("flood level") from the markers and
/// takes its label from the neighbour scikit-image would dequeue first. Labels equal scikit-image's
/// exactly when no two pixels inside the mask share a value; on plateaus, the queue's age is
/// modelled (breadth-first inside a level, entries in their parents' order) but not every tie is
/// (a valid watershed partition; the disagreement is measured in tests/segmentation/
/// test_watershed_parallel.cpp: 0 to 0.22 % of the pixels of the test images, 0.1 % of a -EDT of
/// touching discs). Every other case (compactness > 0, watershed_line,
/// other footprints, markers=None) runs the exact CPU flood on a host copy and returns the result
/// on the device.
Array watershed(const Array& image, const Array& markers, const WatershedOptions& opts = {},
                const Stream& stream = {});
/// watershed with `n_markers` regularly spaced seeds (skimage.util.regular_seeds, rescaled by
/// the mask's fraction of the image as scikit-image does); int64 labels.
Array watershed(const Array& image, std::int64_t n_markers, const WatershedOptions& opts = {},
                const Stream& stream = {});
/// watershed with markers=None: the labelled local minima of the image (morphology.local_minima
/// under `connectivity`, then measure.label); int32 labels.
Array watershed(const Array& image, const WatershedOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::segmentation
