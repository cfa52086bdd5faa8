// skimage.segmentation.morphsnakes (scikit-image 0.26): morphological Chan-Vese (MorphACWE),
// morphological geodesic active contours (MorphGAC), and their helpers.
//
// Level sets are int8 arrays of 0/1 in the image's shape, 2-D or 3-D (every extent >= 2, as
// numpy.gradient needs). The smoothing operator alternates SI∘IS and IS∘SI with scikit-image's P2 /
// P3 structuring elements (erosion border 0, dilation border 0). scikit-image cycles a module-global
// operator across calls; here every call starts with SI∘IS, as the first call of a fresh Python
// process does.
//
// Backends: CPU and CUDA run the same per-pixel code. Integer and bool images are promoted to
// float64 first (the same arithmetic as NumPy's: their region sums are exact). float64 images: the
// region means are summed in a different order than NumPy's pairwise sum, so a pixel whose
// lambda1 (I - c1)^2 - lambda2 (I - c0)^2 lies within a few ulps of 0 may differ; float32 images
// compute the region terms in float32 from means rounded to float32, as NumPy 2 does. The CUDA
// backend keeps every iteration on the device (no host round trip) unless iter_callback is set.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {

/// The initial level set chosen by name (scikit-image's string values of init_level_set).
enum class LevelSetInit { checkerboard, disk };
CUSK_ENUM(LevelSetInit, checkerboard, disk)

struct MorphologicalChanVeseOptions {
  /// An initial level set in the image's shape (any real dtype, binarised by > 0); empty: init_method.
  Array init_level_set = {};
  LevelSetInit init_method = LevelSetInit::checkerboard;
  /// Number of SI∘IS / IS∘SI applications per iteration (>= 0).
  int smoothing = 1;
  double lambda1 = 1.0;
  double lambda2 = 1.0;
  /// Called with the level set after initialisation and after each iteration (valid during the call).
  std::function<void(const Array&)> iter_callback = {};
};
CUSK_OPTIONS(MorphologicalChanVeseOptions,
             (init_level_set, "initial level set array (binarised by > 0); none: init-method"),
             (init_method, "initial level set by name when no array is given"),
             (smoothing, "smoothing operator applications per iteration"),
             (lambda1, "weight of the outer region"),
             (lambda2, "weight of the inner region"),
             (iter_callback, "called with the level set after every iteration"))

/// skimage.segmentation.morphological_chan_vese: the final int8 level set.
Array morphological_chan_vese(const Array& image, int num_iter, const MorphologicalChanVeseOptions& opts = {},
                              const Stream& stream = {});

struct MorphologicalGeodesicActiveContourOptions {
  Array init_level_set = {};
  LevelSetInit init_method = LevelSetInit::disk;
  int smoothing = 1;
  /// Unset: scikit-image's 'auto', numpy.percentile(gimage, 40).
  std::optional<double> threshold = std::nullopt;
  /// > 0 expands, < 0 shrinks the contour where gimage > threshold / |balloon|.
  double balloon = 0.0;
  std::function<void(const Array&)> iter_callback = {};
};
CUSK_OPTIONS(MorphologicalGeodesicActiveContourOptions,
             (init_level_set, "initial level set array (binarised by > 0); none: init-method"),
             (init_method, "initial level set by name when no array is given"),
             (smoothing, "smoothing operator applications per iteration"),
             (threshold, "border threshold on gimage (none: its 40th percentile)"),
             (balloon, "balloon force (> 0 expands, < 0 shrinks)"),
             (iter_callback, "called with the level set after every iteration"))

/// skimage.segmentation.morphological_geodesic_active_contour on a float32/float64 gimage (scikit-image
/// fails on integer ones). threshold 'auto' synchronises the stream once (the percentile).
Array morphological_geodesic_active_contour(const Array& gimage, int num_iter,
                                            const MorphologicalGeodesicActiveContourOptions& opts = {},
                                            const Stream& stream = {});

struct InverseGaussianGradientOptions {
  double alpha = 100.0;
  double sigma = 5.0;
};
CUSK_OPTIONS(InverseGaussianGradientOptions,
             (alpha, "steepness of the inversion"),
             (sigma, "standard deviation of the Gaussian"))

/// skimage.segmentation.inverse_gaussian_gradient: 1 / sqrt(1 + alpha |∇(G_sigma * image)|) with
/// scipy's gaussian_gradient_magnitude (mode 'nearest', computed in the image's dtype). float32
/// images give float32, float64 images float64 (other dtypes: promoted to float64 first).
Array inverse_gaussian_gradient(const Array& image, const InverseGaussianGradientOptions& opts = {},
                                const Stream& stream = {});

struct CheckerboardLevelSetOptions {
  int square_size = 5;
};
CUSK_OPTIONS(CheckerboardLevelSetOptions, (square_size, "edge of the checkerboard's squares (> 0)"))

/// skimage.segmentation.checkerboard_level_set: int8, any number of dimensions, on `device`.
Array checkerboard_level_set(const Shape& image_shape, const CheckerboardLevelSetOptions& opts = {},
                             Device device = Device::cpu(), const Stream& stream = {});

struct DiskLevelSetOptions {
  /// Empty: image_shape // 2.
  std::vector<double> center = {};
  /// Unset: 3/8 of the smallest extent.
  std::optional<double> radius = std::nullopt;
};
CUSK_OPTIONS(DiskLevelSetOptions,
             (center, "centre of the disk (default: the image's centre)"),
             (radius, "radius (default: 3/8 of the smallest extent)"))

/// skimage.segmentation.disk_level_set: int8 (radius - |x - center| > 0), any number of dimensions.
Array disk_level_set(const Shape& image_shape, const DiskLevelSetOptions& opts = {}, Device device = Device::cpu(),
                     const Stream& stream = {});

}  // namespace cuskimage::segmentation
