// skimage.segmentation.slic (scikit-image 0.26).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {

struct SlicOptions {
  std::int64_t n_segments = 100;
  double compactness = 10.0;
  std::int64_t max_num_iter = 10;
  std::vector<double> sigma = {0.0};
  std::vector<double> spacing = {};
  std::optional<bool> convert2lab = std::nullopt;
  bool enforce_connectivity = true;
  double min_size_factor = 0.5;
  double max_size_factor = 3.0;
  bool slic_zero = false;
  std::int64_t start_label = 1;
  Array mask = {};
  std::optional<int> channel_axis = -1;
};
CUSK_OPTIONS(SlicOptions, (n_segments, "approximate number of superpixels (the grid's seed count)"),
             (compactness, "balance of colour against space; larger is more square"),
             (max_num_iter, "maximum number of k-means iterations"),
             (sigma, "Gaussian pre-smoothing: one value (divided by spacing) or one per spatial axis"),
             (spacing, "voxel spacing per spatial axis (empty: all ones)"),
             (convert2lab, "convert RGB to Lab first (unset: when the image has 3 channels)"),
             (enforce_connectivity, "make every segment connected"),
             (min_size_factor, "segments below this fraction of the mean size are merged"),
             (max_size_factor, "largest segment grown, as a multiple of the mean size"),
             (slic_zero, "SLIC-zero: adaptive colour distance per segment"),
             (start_label, "label of the first segment, 0 or 1"),
             (mask, "only pixels where the mask is true are segmented (empty: all)"),
             (channel_axis, "axis of the channels (unset: greyscale)"))

/// skimage.segmentation.slic: k-means superpixels in colour-(z,y,x) space. image: 2-D grey, 2-D
/// multichannel, 3-D grey or 3-D multichannel (channel_axis). Returns int64 labels of the spatial
/// shape on the image's device; start_label - 1 where the mask is false. The CPU backend follows
/// scikit-image step for step; the CUDA backend runs the same iterations with its centre sums
/// accumulated in another order (tests/segmentation/test_slic.cpp states the agreement).
/// Synchronises (iteration stop test, connectivity pass).
Array slic(const Array& image, const SlicOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::segmentation
