// skimage.feature._basic_features (scikit-image 0.26): multiscale_basic_features.
//
// For every channel and every sigma of logspace(log2 sigma_min, log2 sigma_max, num_sigma, base 2):
// G = filters.gaussian(img_as_float32(channel), sigma) (mode 'nearest'); the features, in this
// order, are G (intensity), filters.sobel(G) (edges) and the eigenvalues, largest first, of the
// Hessian made of np.gradient(np.gradient(G)[a], axis=b) (texture). The result is float32 with the
// features on a new last axis: (spatial..., channels * num_sigma * per-sigma count).
// 2-D and 3-D images (spatial axes). The 2-D eigenvalues use scikit-image's closed form in float32
// (equal on both backends); 3-D ones a closed form in double rounded to float32 (scikit-image calls
// LAPACK's float32 eigvalsh: agreement within ~1e-5 relative).
#pragma once

#include <cstdint>
#include <optional>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

struct MultiscaleBasicFeaturesOptions {
  bool intensity = true;
  bool edges = true;
  bool texture = true;
  double sigma_min = 0.5;
  double sigma_max = 16;
  /// Unset: int(log2(sigma_max) - log2(sigma_min) + 1).
  std::optional<std::int64_t> num_sigma = std::nullopt;
  /// scikit-image's thread count for the sigmas; irrelevant here (accepted and ignored: each
  /// backend parallelises every sigma itself).
  std::optional<std::int64_t> workers = std::nullopt;
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(MultiscaleBasicFeaturesOptions,
             (intensity, "include the Gaussian-smoothed intensities"),
             (edges, "include the Sobel magnitude of each smoothing"),
             (texture, "include the Hessian eigenvalues of each smoothing"),
             (sigma_min, "smallest Gaussian sigma"),
             (sigma_max, "largest Gaussian sigma"),
             (num_sigma, "number of sigmas (default: one per octave)"),
             (workers, "ignored: scikit-image's thread count (each backend parallelises itself)"),
             (channel_axis, "axis of colour channels (none: a single-channel image)"))

/// skimage.feature.multiscale_basic_features: (spatial..., features) float32.
Array multiscale_basic_features(const Array& image, const MultiscaleBasicFeaturesOptions& opts = {},
                                const Stream& stream = {});

}  // namespace cuskimage::feature
