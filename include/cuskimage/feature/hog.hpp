// skimage.feature._hog (scikit-image 0.26): hog.
//
// Semantics are scikit-image's, rounding included: gradients by central differences in the float
// dtype (float32 for float32 images, else float64; 0 on the border rows/columns), with channel_axis
// the channel of largest magnitude (first on ties) per pixel; each pixel votes its float64 magnitude
// into the orientation bin [180/n * i, 180/n * (i + 1)) of its angle (atan2 in degrees, numpy's
// remainder by 180); a cell sums its votes in float32 and divides by its area in float32; blocks of
// cells are normalised in float64 and returned in the float dtype. The histogram is exactly
// scikit-image's on the CPU; the block sums' order differs from numpy's pairwise sums (last bits).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

enum class HogBlockNorm { L1, L1_sqrt, L2, L2_Hys };
CUSK_ENUM_NAMED(HogBlockNorm, (L1, "L1"), (L1_sqrt, "L1-sqrt"), (L2, "L2"), (L2_Hys, "L2-Hys"))

struct HogOptions {
  int orientations = 9;
  /// (rows, cols) pixels of a cell.
  std::vector<std::int64_t> pixels_per_cell = {8, 8};
  /// (rows, cols) cells of a normalisation block.
  std::vector<std::int64_t> cells_per_block = {3, 3};
  HogBlockNorm block_norm = HogBlockNorm::L2_Hys;
  /// Also return the image of the cells' orientation histograms (HogResult::hog_image).
  bool visualize = false;
  /// Square root of the image before the gradients (power-law compression).
  bool transform_sqrt = false;
  /// true: the features flattened to 1-D; false: (blocks_row, blocks_col, cells_row, cells_col, orientations).
  bool feature_vector = true;
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(HogOptions,
             (orientations, "number of orientation bins over [0, 180) degrees"),
             (pixels_per_cell, "cell size in pixels (rows, cols)"),
             (cells_per_block, "block size in cells (rows, cols)"),
             (block_norm, "block normalisation: L1, L1-sqrt, L2, L2-Hys"),
             (visualize, "also compute the HOG image"),
             (transform_sqrt, "apply a square root to the image first"),
             (feature_vector, "flatten the features to 1-D"),
             (channel_axis, "axis of colour channels (the channel of largest gradient is used per pixel)"))

struct HogResult {
  /// The normalised block histograms (float32 for float32 images, else float64).
  Array features;
  /// With visualize: the image (image rows, cols; the float dtype) of each cell's orientation
  /// histogram drawn as lines (scikit-image's drawing); else invalid.
  Array hog_image;
};

/// skimage.feature.hog on a 2-D image (or 2-D with a channel axis).
HogResult hog(const Array& image, const HogOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::feature
