// skimage.feature.util (scikit-image 0.26): plot_matched_features as an image-producing function.
//
// scikit-image draws on a matplotlib Axes; here the same scene is rasterised into a float64
// (H, W, 3) RGB image, no plotting library involved:
// - the images are padded with zeros to a common shape (as scikit-image does) and concatenated
//   side by side ('horizontal') or one above the other ('vertical'); a 2-D pair is shown as
//   imshow(cmap='gray') shows it, scaled from its minimum (black) to its maximum (white); an
//   (H, W, 3) pair is clipped to [0, 1] as imshow clips float RGB;
// - unless only_matches, every keypoint gets a one-pixel circle outline (skimage.draw's
//   circle_perimeter, radius marker_radius) in keypoints_color, centred on its rounded position;
// - then each match gets a one-pixel line (skimage.draw.line) between its two rounded keypoints,
//   over the markers (matplotlib's z-order), in its colour: matches_color empty gives scikit-image's
//   default, numpy default_rng(0).random(3) per match in order, exactly; three values give one
//   colour for all; 3 * Q values one per match.
// Pixels outside the canvas are dropped. No anti-aliasing, alpha or marker scaling.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

enum class MatchAlignment { horizontal, vertical };
CUSK_ENUM(MatchAlignment, horizontal, vertical)

struct PlotMatchedFeaturesOptions {
  /// RGB in [0, 1]; scikit-image's default 'k'.
  std::array<double, 3> keypoints_color = {0, 0, 0};
  /// Empty: random colours as scikit-image's default; 3 values: one colour; 3 * Q: one per match.
  std::vector<double> matches_color = {};
  bool only_matches = false;
  MatchAlignment alignment = MatchAlignment::horizontal;
  /// Radius in pixels of the keypoint circles (a raster stand-in for matplotlib's marker size).
  std::int64_t marker_radius = 3;
};
CUSK_OPTIONS(PlotMatchedFeaturesOptions, (keypoints_color, "RGB colour of the keypoint circles, in [0, 1]"),
             (matches_color, "RGB of every line (3 values) or of each match (3 per match); empty: random"),
             (only_matches, "draw the match lines only, no keypoint circles"),
             (alignment, "horizontal (side by side) or vertical (one above the other)"),
             (marker_radius, "radius in pixels of the keypoint circles"))

/// The picture of plot_matched_features: float64 (H, W, 3) on image0's device. keypoints (K, 2)
/// (row, col) any real dtype; matches (Q, 2) integer indices into keypoints0 and keypoints1.
/// Synchronises `stream` (drawn on the host).
Array plot_matched_features(const Array& image0, const Array& image1, const Array& keypoints0,
                            const Array& keypoints1, const Array& matches, const PlotMatchedFeaturesOptions& opts = {},
                            const Stream& stream = {});

}  // namespace cuskimage::feature
