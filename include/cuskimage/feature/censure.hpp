// skimage.feature.censure (scikit-image 0.26): CENSURE keypoints.
//
// scikit-image's steps: the float image filtered at scales min_scale..max_scale by a difference of
// boxes (DoB, through the integral image; zero within 2 * scale of the border), of octagons or of
// stars (ndimage convolve with scikit-image's bi-level kernels, mode reflect); the voxels equal to
// their 3x3x3 minimum or maximum filter (mode reflect) and not below non_max_threshold; at each
// inner scale, the ones on lines dropped ((Arr + Acc)^2 > line_threshold * det of the structure
// tensor with sigma 1 + (scale - 1) / 3); keypoints in C order (row, col, scale) of the inner
// scales; for Octagon and STAR those too close to the border for their scale's filter dropped.
// float32 images are processed in float64. The filter of each scale must fit the image: DoB needs
// at least 4 * max_scale + 1 rows and columns (scikit-image writes out of bounds below that).
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

enum class CensureMode { dob, octagon, star };
CUSK_ENUM_NAMED(CensureMode, (dob, "DoB"), (dob, "dob"), (octagon, "Octagon"), (octagon, "octagon"), (star, "STAR"),
                (star, "star"))

struct CensureOptions {
  std::int64_t min_scale = 1;
  std::int64_t max_scale = 7;
  CensureMode mode = CensureMode::dob;
  double non_max_threshold = 0.15;
  double line_threshold = 10;
};
CUSK_OPTIONS(CensureOptions, (min_scale, "smallest filter scale (>= 1)"),
             (max_scale, "largest filter scale (>= min_scale + 2; Octagon <= 11, STAR <= 12)"),
             (mode, "bi-level filter: DoB, Octagon or STAR"),
             (non_max_threshold, "smallest filter response of a keypoint"),
             (line_threshold, "largest ratio of the structure tensor's squared trace to its determinant"))

/// skimage.feature.CENSURE: detect sets keypoints (N, 2) int64 (row, col) and scales (N) int64, on
/// the image's device. The image is 2-D. Synchronises `stream`.
class CENSURE {
 public:
  explicit CENSURE(CensureOptions opts = {});
  void detect(const Array& image, const Stream& stream = {});
  const CensureOptions& options() const { return opts_; }

  Array keypoints, scales;

 private:
  CensureOptions opts_;
};

}  // namespace cuskimage::feature
