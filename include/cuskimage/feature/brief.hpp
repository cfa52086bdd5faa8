// skimage.feature.brief (scikit-image 0.26): BRIEF binary descriptors.
//
// As scikit-image: the image (2-D) is smoothed by filters::gaussian(sigma, mode reflect); the
// sample pairs are numpy's default_rng(rng) draws, reproduced exactly: 'normal' takes
// descriptor_size * 8 standard normals scaled by patch_size / 5, truncated to int32, keeps those in
// (-(patch_size - 2) // 2, patch_size // 2) and uses the first 4 * descriptor_size as pos1 then pos2
// (row, col) pairs; 'uniform' takes integers in [-(patch_size - 2) // 2, patch_size // 2]. The same
// seed gives the same pairs on every call. Keypoints closer than patch_size // 2 to the border
// are masked out (mask[k] = patch_size // 2 - 1 < row < rows - patch_size // 2 + 1, same for
// columns); the kept ones are truncated to integers and bit p of descriptor k is
// smoothed[kp + pos1[p]] < smoothed[kp + pos2[p]]. scikit-image reads past the last row or
// column for a 'uniform' sample of +patch_size // 2 at the border (an out-of-bounds read there);
// here such a read wraps to the next row as C-order memory does and reads 0 past the image end.
#pragma once

#include <cstdint>
#include <optional>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

enum class BriefMode { normal, uniform };
CUSK_ENUM(BriefMode, normal, uniform)

struct BriefOptions {
  std::int64_t descriptor_size = 256;
  std::int64_t patch_size = 49;
  BriefMode mode = BriefMode::normal;
  double sigma = 1;
  /// numpy default_rng seed of the sample pairs; unset: a fresh random seed.
  std::optional<std::uint64_t> rng = 1;
};
CUSK_OPTIONS(BriefOptions, (descriptor_size, "number of bits of each descriptor"),
             (patch_size, "side of the square patch the sample pairs are drawn in"),
             (mode, "distribution of the sample pairs: normal or uniform"),
             (sigma, "standard deviation of the Gaussian smoothing"),
             (rng, "numpy default_rng seed of the sample pairs (none: random)"))

/// Descriptors (K, descriptor_size) bool for the K keypoints kept, and mask (N,) bool marking them.
struct BriefDescriptors {
  Array descriptors;
  Array mask;
};

/// BRIEF.extract: keypoints (N, 2) (row, col), any real dtype, any device (read on the host).
/// Results on the image's device. Synchronises `stream` (the keypoints and the mask are host work).
BriefDescriptors brief(const Array& image, const Array& keypoints, const BriefOptions& opts = {},
                       const Stream& stream = {});

/// skimage.feature.BRIEF: the options fixed at construction (an unset rng draws the seed once, so
/// repeated extract calls use the same pairs, as scikit-image's), descriptors and mask set by extract.
class BRIEF {
 public:
  explicit BRIEF(BriefOptions opts = {});
  void extract(const Array& image, const Array& keypoints, const Stream& stream = {});
  const BriefOptions& options() const { return opts_; }

  Array descriptors;
  Array mask;

 private:
  BriefOptions opts_;
};

}  // namespace cuskimage::feature
