// skimage.feature.orb (scikit-image 0.26): ORB, oriented FAST keypoints with rotated BRIEF.
//
// scikit-image's steps: the float image's pyramid_gaussian (n_scales layers, downscale); per
// layer (stopping at one of a single row or column) corner_fast(fast_n, fast_threshold),
// corner_peaks(min_distance=1), keypoints closer than 16 to the border dropped, the intensity
// centroid orientation over the 31x31 OFAST disc, the corner_harris(method 'k', harris_k)
// response at each keypoint; for descriptors, keypoints closer than 20 dropped and the 256
// rotated pairs of ORB's pattern compared (offsets rounded half away from zero). Keypoints are
// scaled back by downscale^layer and, when there are at least n_keypoints, the n_keypoints of
// highest Harris response are kept, highest first (NumPy's argsort reversed: among equal
// responses the later keypoint first). float32 images are processed in float64 (scikit-image
// keeps float32).
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

struct OrbOptions {
  double downscale = 1.2;
  std::int64_t n_scales = 8;
  std::int64_t n_keypoints = 500;
  std::int64_t fast_n = 9;
  double fast_threshold = 0.08;
  double harris_k = 0.04;
};
CUSK_OPTIONS(OrbOptions, (downscale, "down-scale factor of the image pyramid (> 1)"),
             (n_scales, "number of pyramid layers"), (n_keypoints, "number of keypoints kept (highest Harris)"),
             (fast_n, "FAST: contiguous circle pixels needed, 1..16"),
             (fast_threshold, "FAST: intensity difference of brighter or darker circle pixels"),
             (harris_k, "Harris sensitivity k"))

/// skimage.feature.ORB. detect sets keypoints (N, 2) float64 (row, col in the input image),
/// scales, orientations, responses (N) float64; detect_and_extract also descriptors (N, 256)
/// bool; extract(image, keypoints, scales, orientations) sets descriptors and mask (the keypoints
/// kept, grouped by pyramid layer as scikit-image groups them; scikit-image names it mask_).
/// Results on the image's device; the image is 2-D. Calls synchronise `stream`.
class ORB {
 public:
  explicit ORB(OrbOptions opts = {});
  void detect(const Array& image, const Stream& stream = {});
  void extract(const Array& image, const Array& keypoints, const Array& scales, const Array& orientations,
               const Stream& stream = {});
  void detect_and_extract(const Array& image, const Stream& stream = {});
  const OrbOptions& options() const { return opts_; }

  Array keypoints, scales, orientations, responses, descriptors, mask;

 private:
  void run(const Array& image, bool with_descriptors, const Stream& stream);
  OrbOptions opts_;
};

}  // namespace cuskimage::feature
