// skimage.feature._daisy (scikit-image 0.26): daisy.
//
// Semantics are scikit-image's: forward-difference gradients of img_as_float(image) (0 on the last
// row/column), per orientation o the response exp(kappa cos(angle - o)) * magnitude (kappa =
// orientations / pi), smoothed per ring by scipy's gaussian_filter (mode reflect) with the sigmas
// [sigmas[0]] + sigmas, sampled on the ring offsets (Python's round, half to even) every `step`
// pixels, then normalised. Float32 images are processed in float32 as scikit-image does.
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

enum class DaisyNormalization { l1, l2, daisy, off };
CUSK_ENUM(DaisyNormalization, l1, l2, daisy, off)

struct DaisyOptions {
  std::int64_t step = 4;
  std::int64_t radius = 15;
  std::int64_t rings = 3;
  std::int64_t histograms = 8;
  std::int64_t orientations = 8;
  DaisyNormalization normalization = DaisyNormalization::l1;
  /// Empty: radius * (i + 1) / (2 * rings). Given: rings = len(sigmas) - 1.
  std::vector<double> sigmas = {};
  /// Empty: radius * (i + 1) / rings. Given: rings = len, radius = the last (an integer).
  std::vector<double> ring_radii = {};
  bool visualize = false;
};
CUSK_OPTIONS(DaisyOptions,
             (step, "distance between descriptor sampling points"),
             (radius, "radius in pixels of the outermost ring"),
             (rings, "number of rings"),
             (histograms, "histograms sampled per ring"),
             (orientations, "orientation bins per histogram"),
             (normalization, "l1, l2, daisy (per histogram) or off"),
             (sigmas, "spatial smoothing sigma of the centre and each ring (overrides rings)"),
             (ring_radii, "radius of each ring (overrides rings and radius)"),
             (visualize, "also draw the descriptors"))

struct DaisyResult {
  /// (P, Q, (rings * histograms + 1) * orientations), P = ceil((M - 2 radius) / step); the float dtype.
  Array descs;
  /// With visualize: the (M, N, 3) drawing (scikit-image's circles and anti-aliased lines); else invalid.
  Array descs_img;
};

/// skimage.feature.daisy on a 2-D image.
DaisyResult daisy(const Array& image, const DaisyOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::feature
