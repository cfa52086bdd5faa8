// skimage.feature.blob (scikit-image 0.26): blob_log, blob_dog, blob_doh.
//
// Semantics are scikit-image 0.26's:
// - the image is read with img_as_float (float32 stays float32, everything else float64) and the
//   scale-space cube (image axes, then scale) is built in that dtype: blob_log stacks
//   -gaussian_laplace(image, s) * mean(s)^2 over linspace/logspace(min_sigma, max_sigma, num_sigma);
//   blob_dog stacks (gaussian(s_i) - gaussian(s_i+1)) / (sigma_ratio - 1) for
//   s_i = min_sigma * sigma_ratio^i, i <= k = int(mean(log(max/min) / log(ratio) + 1));
// - peaks are peak_local_max of the cube (3^(ndim+1) footprint, threshold_abs = threshold,
//   threshold_rel, exclude_border on the image axes, 0 on the scale axis);
// - blob_doh (2-D) stacks hessian_matrix_det(image, s) (the integral-image box-filter
//   approximation) over linspace/logspace(min_sigma, max_sigma, num_sigma) in float64 sigmas, no
//   border exclusion; its rows are (row, col, sigma) float64;
// - each blob is a row (coordinates..., sigma) or, when min_sigma or max_sigma is given per axis,
//   (coordinates..., one sigma per axis); rows are in peak_local_max's order;
// - overlap pruning is _prune_blobs': every pair of blobs closer than 2 * max sigma * sqrt(ndim)
//   is visited in the order Python iterates scipy's query_pairs set (reproduced: the set is built
//   from the pairs in sorted order, which scipy's tree traversal order matches in the iteration
//   order except where two pairs' hashes collide - on random blob sets this changed the pruned
//   result in 2 of 400 cases), and of a pair overlapping by more than `overlap` the smaller blob
//   (the first on ties) loses its (last) sigma; 2-D disks and 3-D spheres, 0 beyond 3-D.
// The pruning runs on the host (small lists; scikit-image uses a KD-tree). Results are (N, cols)
// arrays of the float dtype on the image's device; no blob gives a (0, cols) float64 array.
// Synchronises (the peak count comes back to the host).
#pragma once

#include <cstdint>
#include <optional>

#include "cuskimage/array.hpp"
#include "cuskimage/feature/peak.hpp"
#include "cuskimage/filters.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

struct BlobLogOptions {
  /// One value (isotropic: one sigma column) or one per axis (anisotropic: one column per axis).
  filters::Sigma min_sigma = 1.0;
  filters::Sigma max_sigma = 50.0;
  std::int64_t num_sigma = 10;
  /// Unset: no absolute threshold (scikit-image's None).
  std::optional<double> threshold = 0.2;
  double overlap = 0.5;
  bool log_scale = false;
  std::optional<double> threshold_rel = std::nullopt;
  /// false, or a width (one, or one per image axis); true is rejected as scikit-image does.
  ExcludeBorder exclude_border = false;
};
CUSK_OPTIONS(BlobLogOptions,
             (min_sigma, "smallest standard deviation (one, or one per axis)"),
             (max_sigma, "largest standard deviation (one, or one per axis)"),
             (num_sigma, "number of scales between min_sigma and max_sigma"),
             (threshold, "absolute lower bound of the scale-space maxima (none: no bound)"),
             (overlap, "blobs overlapping by more than this fraction are pruned (the smaller one)"),
             (log_scale, "space the scales logarithmically"),
             (threshold_rel, "lower bound as a fraction of the cube's maximum"),
             (exclude_border, "false, or a width (one, or one per axis) of excluded border"))

/// skimage.feature.blob_log: blobs by the scale-normalised Laplacian of Gaussian (any ndim).
Array blob_log(const Array& image, const BlobLogOptions& opts = {}, const Stream& stream = {});

struct BlobDogOptions {
  filters::Sigma min_sigma = 1.0;
  filters::Sigma max_sigma = 50.0;
  double sigma_ratio = 1.6;
  std::optional<double> threshold = 0.5;
  double overlap = 0.5;
  std::optional<double> threshold_rel = std::nullopt;
  ExcludeBorder exclude_border = false;
};
CUSK_OPTIONS(BlobDogOptions,
             (min_sigma, "smallest standard deviation (one, or one per axis)"),
             (max_sigma, "largest standard deviation (one, or one per axis)"),
             (sigma_ratio, "ratio between successive scales (> 1)"),
             (threshold, "absolute lower bound of the scale-space maxima (none: no bound)"),
             (overlap, "blobs overlapping by more than this fraction are pruned (the smaller one)"),
             (threshold_rel, "lower bound as a fraction of the cube's maximum"),
             (exclude_border, "false, or a width (one, or one per axis) of excluded border"))

/// skimage.feature.blob_dog: blobs by the difference of Gaussians (any ndim).
Array blob_dog(const Array& image, const BlobDogOptions& opts = {}, const Stream& stream = {});

struct BlobDohOptions {
  double min_sigma = 1.0;
  double max_sigma = 30.0;
  std::int64_t num_sigma = 10;
  std::optional<double> threshold = 0.01;
  double overlap = 0.5;
  bool log_scale = false;
  std::optional<double> threshold_rel = std::nullopt;
};
CUSK_OPTIONS(BlobDohOptions,
             (min_sigma, "smallest standard deviation"),
             (max_sigma, "largest standard deviation"),
             (num_sigma, "number of scales between min_sigma and max_sigma"),
             (threshold, "absolute lower bound of the scale-space maxima (none: no bound)"),
             (overlap, "blobs overlapping by more than this fraction are pruned (the smaller one)"),
             (log_scale, "space the scales logarithmically"),
             (threshold_rel, "lower bound as a fraction of the cube's maximum"))

/// skimage.feature.blob_doh: blobs by the determinant of the Hessian (2-D; (N, 3) float64).
Array blob_doh(const Array& image, const BlobDohOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::feature
