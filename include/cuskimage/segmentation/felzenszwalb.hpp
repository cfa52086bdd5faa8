// skimage.segmentation.felzenszwalb (scikit-image 0.26).
#pragma once

#include <cstdint>
#include <optional>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {

struct FelzenszwalbOptions {
  double scale = 1.0;
  double sigma = 0.8;
  std::int64_t min_size = 20;
  std::optional<int> channel_axis = -1;
};
CUSK_OPTIONS(FelzenszwalbOptions, (scale, "observation level: higher gives larger segments"),
             (sigma, "width of the Gaussian pre-smoothing"), (min_size, "minimum segment size, enforced afterwards"),
             (channel_axis, "axis of the channels of a 3-D image (a 2-D image is greyscale)"))

/// skimage.segmentation.felzenszwalb: graph-based segmentation of a 2-D grey or multichannel image
/// (8-connected edges weighted by the colour distance of the smoothed image, merged in increasing
/// weight order under Felzenszwalb's threshold, then segments below min_size merged). Returns int64
/// labels 0.. numbered by each segment's first pixel, on the image's device. Edges of equal weight
/// are taken in a fixed order (weight, then edge index) on both backends; scikit-image takes them in
/// numpy's unstable argsort order, which can change the result where such ties decide a merge.
/// Synchronises (the merge runs on the host; see the README).
Array felzenszwalb(const Array& image, const FelzenszwalbOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::segmentation
