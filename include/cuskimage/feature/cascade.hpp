// skimage.feature.Cascade (scikit-image 0.26, _cascade.pyx): a boosted cascade of multi-block LBP
// stumps loaded from an OpenCV-format XML file (OpenCV's LBP cascades, e.g. scikit-image's
// data.lbp_frontal_face_cascade_filename()), and detect_multi_scale.
//
// Semantics are scikit-image's, float32 arithmetic included: the image (RGB converted by rgb2gray)
// becomes a float32 integral image; each scale s = scale_factor^p (float32) for the integer steps p
// from max(log_sf(min_size / window), 0) below log_sf(max_size / window) scans windows of
// floor(window * s) at a stride of round(s * step_ratio), row positions r < rows - height and
// columns c < cols - width; a window passes when every stage's float32 sum of stump leaves is not
// below threshold - eps. Detections are then grouped in scan order (scales ascending, rows, columns):
// each joins the cluster whose mean rectangle it overlaps best (intersection / smaller area, above
// intersection_score_threshold) or starts one; clusters with at least min_neighbor_number members
// give their integer mean rectangle. scikit-image's wheel builds _cascade without OpenMP, so its
// scan order is this sequential one (with OpenMP it would depend on thread timing).
//
// One known difference: scikit-image takes the float32 powers with np.power(dtype=float32), whose
// SIMD code on AVX-512 CPUs is not correctly rounded (about one result in five is an ulp off). A
// scale whose window is an exact integer then truncates one pixel smaller there: in the face
// example (min_size (60, 60), window 24, scale_factor 1.2) scikit-image scans 59-pixel windows first
// on AVX-512 CPUs and 60-pixel ones elsewhere. This library rounds the power correctly (the
// latter), so it is CPU-independent; it equals scikit-image wherever NumPy's power is exact.
//
// Needs pugixml (CUSK_HAVE_PUGIXML): without it the constructor raises NotSupported. Only LBP
// cascades exist in scikit-image; a cascade of another featureType raises NotSupported. The integral
// image is made on the host (NumPy's float64 cumsum order, then float32); the window sweep runs on
// the image's device (one CUDA thread per window, the host's per-window code); the detections are
// grouped on the host.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

/// One detected window: top-left row and column, width and height (scikit-image's dict keys).
struct Detection {
  std::int64_t r = 0, c = 0, width = 0, height = 0;
  bool operator==(const Detection&) const = default;
};

/// detect_multi_scale's parameters. scikit-image requires the first four; the defaults here are its
/// face-detection example's (scale_factor 1.2, step_ratio 1, sizes (60, 60) to (123, 123)).
struct DetectMultiScaleOptions {
  double scale_factor = 1.2;
  double step_ratio = 1.0;
  std::array<std::int64_t, 2> min_size = {60, 60};    ///< (rows, cols)
  std::array<std::int64_t, 2> max_size = {123, 123};  ///< (rows, cols)
  std::int64_t min_neighbor_number = 4;
  double intersection_score_threshold = 0.5;
};
CUSK_OPTIONS(DetectMultiScaleOptions, (scale_factor, "factor between successive window scales (> 0, != 1)"),
             (step_ratio, "search stride as a multiple of the scale (1: every pixel at scale 1)"),
             (min_size, "minimum window size (rows, cols)"), (max_size, "maximum window size (rows, cols)"),
             (min_neighbor_number, "minimum number of grouped detections for a result"),
             (intersection_score_threshold, "overlap (intersection / smaller area) above which detections group"))

namespace detail {
struct CascadeData;
}

class Cascade {
 public:
  /// Loads an OpenCV-format LBP cascade. InvalidArgument when the file cannot be read, FormatError
  /// when it is not a well-formed cascade, NotSupported without pugixml or for non-LBP features.
  explicit Cascade(const std::string& xml_file, double eps = 1e-5);

  /// Object windows in `image` (2-D grey, or 3-D RGB with channels last), scikit-image's order.
  std::vector<Detection> detect_multi_scale(const Array& image, const DetectMultiScaleOptions& options = {},
                                            const Stream& stream = {}) const;

  float eps() const;
  std::int64_t stages_number() const;
  std::int64_t stumps_number() const;
  std::int64_t features_number() const;
  std::int64_t window_width() const;
  std::int64_t window_height() const;

 private:
  std::shared_ptr<const detail::CascadeData> data_;
};

}  // namespace cuskimage::feature
