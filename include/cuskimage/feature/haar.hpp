// skimage.feature.haar (scikit-image 0.26): haar_like_feature_coord, haar_like_feature,
// draw_haar_like_feature.
//
// Features are enumerated as scikit-image does: for each top-left (y, x) of the window in row-major
// order, each rectangle height dy in [1, height] and width dx in [1, width], the feature when it
// fits; type-4's rectangles in scikit-image's order (top-left, top-right, bottom-right,
// bottom-left). A feature's value is the sum of its odd-indexed rectangles minus the sum of its
// even-indexed ones, each rectangle integrated on the window's crop of the integral image (so, as
// in scikit-image, terms above or left of the window are not subtracted).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

enum class HaarFeatureType { type_2_x, type_2_y, type_3_x, type_3_y, type_4 };
CUSK_ENUM_NAMED(HaarFeatureType, (type_2_x, "type-2-x"), (type_2_y, "type-2-y"), (type_3_x, "type-3-x"),
                (type_3_y, "type-3-y"), (type_4, "type-4"))

/// One rectangle: ((row, col) top-left, (row, col) bottom-right), inclusive, window coordinates.
struct HaarRect {
  std::array<std::int64_t, 2> top_left{}, bottom_right{};
  bool operator==(const HaarRect&) const = default;
};

/// haar_like_feature_coord's two arrays: each feature's rectangles (2, 3 or 4) and its type.
struct HaarFeatureCoord {
  std::vector<std::vector<HaarRect>> coords;
  std::vector<HaarFeatureType> types;
};

/// skimage.feature.haar_like_feature_coord for a width x height window; `feature_type` empty =
/// every type, in scikit-image's order.
HaarFeatureCoord haar_like_feature_coord(std::int64_t width, std::int64_t height,
                                         const std::vector<HaarFeatureType>& feature_type = {});

struct HaarLikeFeatureOptions {
  /// Types to enumerate (empty: all, in scikit-image's order).
  std::vector<HaarFeatureType> feature_type = {};
};
CUSK_OPTIONS(HaarLikeFeatureOptions,
             (feature_type, "feature types (type-2-x, type-2-y, type-3-x, type-3-y, type-4); default all"))

/// skimage.feature.haar_like_feature: the features of the window (r, c, width, height) of a 2-D
/// integral image. int64 for integer integral images (unsigned ones wrap as scikit-image's signed
/// cast), else the image's float dtype; on the image's device.
Array haar_like_feature(const Array& int_image, std::int64_t r, std::int64_t c, std::int64_t width,
                        std::int64_t height, const HaarLikeFeatureOptions& opts = {}, const Stream& stream = {});

/// haar_like_feature with explicit features (scikit-image's feature_coord with its feature_type
/// array): coords and types of equal length, each feature with its type's number of rectangles
/// inside the window; values in the given order.
Array haar_like_feature(const Array& int_image, std::int64_t r, std::int64_t c, std::int64_t width,
                        std::int64_t height, const HaarFeatureCoord& feature_coord, const Stream& stream = {});

struct DrawHaarLikeFeatureOptions {
  std::vector<double> color_positive_block = {1.0, 0.0, 0.0};
  std::vector<double> color_negative_block = {0.0, 1.0, 0.0};
  double alpha = 0.5;
  /// Draw this many features picked by numpy's default_rng(rng).choice(replace=False).
  std::optional<std::int64_t> max_n_features = std::nullopt;
  std::optional<std::int64_t> rng = std::nullopt;
};
CUSK_OPTIONS(DrawHaarLikeFeatureOptions,
             (color_positive_block, "RGB of the positive (odd) rectangles"),
             (color_negative_block, "RGB of the negative (even) rectangles"),
             (alpha, "opacity of the rectangles"),
             (max_n_features, "draw this many features chosen at random (default all)"),
             (rng, "seed of numpy's default_rng for the choice (default: unseeded)"))

/// skimage.feature.draw_haar_like_feature: the image (grey made RGB, as img_as_float: float32
/// stays float32, else float64) with the features' rectangles blended in. Computed on the host;
/// the result is on the image's device.
Array draw_haar_like_feature(const Array& image, std::int64_t r, std::int64_t c, std::int64_t width,
                             std::int64_t height, const HaarFeatureCoord& feature_coord,
                             const DrawHaarLikeFeatureOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::feature
