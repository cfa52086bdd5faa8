// skimage.feature.match (scikit-image 0.26): match_descriptors.
//
// Brute force, as scikit-image: the full (M, N) distance table of scipy's cdist (float64), the
// first index of each row's minimum (np.argmin), then in this order the cross check (the row's
// best must have the row as its column's first minimum), max_distance (best < max_distance) and
// max_ratio (best / second best < max_ratio, the second best being the row's minimum over the
// other columns, 0 read as float64 eps). Metrics are scipy's formulas; NaN distances are not
// supported (they would be argmin's pick in NumPy).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

/// scipy.spatial.distance.cdist's metrics that match_descriptors supports.
enum class MatchMetric {
  euclidean,
  sqeuclidean,
  cityblock,
  minkowski,
  chebyshev,
  hamming,
  cosine,
  correlation,
  braycurtis,
  canberra,
  jaccard
};
CUSK_ENUM(MatchMetric, euclidean, sqeuclidean, cityblock, minkowski, chebyshev, hamming, cosine, correlation,
          braycurtis, canberra, jaccard)

struct MatchDescriptorsOptions {
  /// Unset: hamming for bool descriptors, euclidean otherwise.
  std::optional<MatchMetric> metric = std::nullopt;
  double p = 2;
  double max_distance = std::numeric_limits<double>::infinity();
  bool cross_check = true;
  double max_ratio = 1.0;
};
CUSK_OPTIONS(MatchDescriptorsOptions,
             (metric, "distance metric (none: hamming for bool descriptors, else euclidean)"),
             (p, "Minkowski p-norm (metric minkowski only), >= 1"),
             (max_distance, "largest distance of a match (exclusive)"),
             (cross_check, "keep a match only when each descriptor is the other's nearest"),
             (max_ratio, "largest ratio of best to second-best distance (exclusive)"))

/// skimage.feature.match_descriptors: (Q, 2) int64 indices (row of descriptors1, row of
/// descriptors2), in descriptors1's order, on descriptors1's device. Both (M, P) and (N, P) 2-D
/// arrays of any real or bool dtype, on one device. Synchronises `stream` (the matches are selected
/// on the host from the per-row and per-column minima).
Array match_descriptors(const Array& descriptors1, const Array& descriptors2, const MatchDescriptorsOptions& opts = {},
                        const Stream& stream = {});

}  // namespace cuskimage::feature
