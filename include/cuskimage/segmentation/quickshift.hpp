// skimage.segmentation.quickshift (scikit-image 0.26).
#pragma once

#include <cstdint>
#include <optional>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {

struct QuickshiftOptions {
  double ratio = 1.0;
  double kernel_size = 5.0;
  double max_dist = 10.0;
  bool return_tree = false;
  double sigma = 0.0;
  bool convert2lab = true;
  std::optional<std::uint64_t> rng = 42;
  std::optional<int> channel_axis = -1;
};
CUSK_OPTIONS(QuickshiftOptions, (ratio, "balance of colour against space, in [0, 1]"),
             (kernel_size, "width of the Gaussian density kernel (>= 1)"), (max_dist, "links longer than this are cut"),
             (return_tree, "also return the parent of every pixel and its distance (quickshift_tree)"),
             (sigma, "width of the Gaussian pre-smoothing"), (convert2lab, "convert the RGB image to Lab first"),
             (rng, "seed of numpy's default_rng for the tie-breaking noise (unset: fresh)"),
             (channel_axis, "axis of the channels"))

struct QuickshiftTree {
  Array labels;       ///< int64 (M, N)
  Array parent;       ///< int64 (M, N): flat index of the nearest denser pixel (itself if none)
  Array dist_parent;  ///< (M, N) of the working float: the distance to it
};

/// skimage.segmentation.quickshift: mode seeking in colour-(y, x) space on a 2-D image (grey with a
/// trailing channel axis of 1, or with channels). Returns int64 labels 0.. on the image's device,
/// numbered by root pixel index. The densities carry numpy's default_rng(rng).normal(scale=1e-5)
/// noise as scikit-image adds it (PCG64 and numpy's ziggurat; its tables are computed at load and
/// agree with numpy's to ~1e-15 relative, far below the noise's scale). return_tree is only
/// honoured by quickshift_tree. Synchronises (the noise is drawn on the host).
Array quickshift(const Array& image, const QuickshiftOptions& opts = {}, const Stream& stream = {});
/// quickshift with return_tree=True: labels, parent and dist_parent.
QuickshiftTree quickshift_tree(const Array& image, const QuickshiftOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::segmentation
