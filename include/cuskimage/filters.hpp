// skimage.filters. Every function runs on CPU arrays (OpenMP) and on CUDA arrays (CUDA kernels on
// `stream`); the input's device picks the backend.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cuskimage/array.hpp"

namespace cuskimage::filters {

// ==== thresholding ================================================================================
// Histogram-based thresholds reproduce scikit-image 0.26 exactly: the histogram of
// skimage.exposure.histogram(source_range='image') (integer images: one bin per value over
// [min, max], nbins ignored; float images: numpy.histogram's nbins equal bins over [min, max] in the
// image's precision), float32 counts, NumPy's evaluation order and first-index tie-breaking. The
// returned threshold is a bin centre (integer images: an integer value; float32 images: a float32
// value) given as a double. Supported dtypes: uint8, int8, uint16, int16, float32, float64.
//
// On CUDA arrays the histogram, its range and the threshold selection run on the device; only the
// result crosses to the host, and the call synchronizes `stream` (the one allowed sync).

/// A precomputed histogram (scikit-image's `hist=` argument): counts and, optionally, bin centres
/// (default 0, 1, 2, ...). Host arrays; zero counts at both ends are trimmed as scikit-image does.
struct Histogram {
  Array counts;                       // 1-D, any real dtype (used as float32)
  std::optional<Array> bin_centers;   // 1-D, same length (int64, float32 or float64)
};

struct ThresholdOtsuOptions {
  std::int64_t nbins = 256;
  std::optional<Histogram> hist = std::nullopt;  // used instead of the image when set
};
/// skimage.filters.threshold_otsu. A constant image returns its value. `image` may be an empty
/// handle when `hist` is set.
double threshold_otsu(const Array& image, const ThresholdOtsuOptions& opts = {}, const Stream& stream = {});

struct ThresholdMultiotsuOptions {
  int classes = 3;
  std::int64_t nbins = 256;
  std::optional<Histogram> hist = std::nullopt;
};
/// skimage.filters.threshold_multiotsu: classes - 1 thresholds in increasing order. InvalidArgument
/// when the binned image has fewer than `classes` distinct values. The search is exhaustive
/// (O(nbins^(classes-1))) as in scikit-image.
std::vector<double> threshold_multiotsu(const Array& image, const ThresholdMultiotsuOptions& opts = {},
                                        const Stream& stream = {});

struct ThresholdIsodataOptions {
  std::int64_t nbins = 256;
  std::optional<Histogram> hist = std::nullopt;
};
/// skimage.filters.threshold_isodata (return_all=False): the lowest threshold satisfying
/// t = (mean(image <= t) + mean(image > t)) / 2. InvalidArgument when none exists.
double threshold_isodata(const Array& image, const ThresholdIsodataOptions& opts = {}, const Stream& stream = {});
/// threshold_isodata(..., return_all=True): every such threshold, increasing.
std::vector<double> threshold_isodata_all(const Array& image, const ThresholdIsodataOptions& opts = {},
                                          const Stream& stream = {});

struct ThresholdYenOptions {
  std::int64_t nbins = 256;
  std::optional<Histogram> hist = std::nullopt;
};
/// skimage.filters.threshold_yen.
double threshold_yen(const Array& image, const ThresholdYenOptions& opts = {}, const Stream& stream = {});

struct ThresholdMinimumOptions {
  std::int64_t nbins = 256;
  std::int64_t max_num_iter = 10000;
  std::optional<Histogram> hist = std::nullopt;
};
/// skimage.filters.threshold_minimum: smooths the histogram (3-bin mean, reflect) until it has two
/// maxima and returns the minimum between them. InvalidArgument where scikit-image raises
/// RuntimeError (no two maxima, or max_num_iter reached).
double threshold_minimum(const Array& image, const ThresholdMinimumOptions& opts = {}, const Stream& stream = {});

struct ThresholdTriangleOptions {
  std::int64_t nbins = 256;
};
/// skimage.filters.threshold_triangle.
double threshold_triangle(const Array& image, const ThresholdTriangleOptions& opts = {}, const Stream& stream = {});

struct ThresholdLiOptions {
  /// Stop when the threshold moves less than this; unset (or 0): 0.5 for integer images, half the
  /// smallest gap between distinct values for float images (that one sorts the image).
  std::optional<double> tolerance = std::nullopt;
  /// Starting threshold inside the image's range (InvalidArgument otherwise); unset: the mean.
  std::optional<double> initial_guess = std::nullopt;
};
/// skimage.filters.threshold_li (Li's minimum cross entropy, iterative). NaNs are ignored; an image
/// of one value returns it; only infinities returns 0. Integer images iterate on the histogram as
/// scikit-image does (float64, NumPy's pairwise sums; equal results). Float images iterate on the
/// pixels; the CPU backend sums pairwise in the image's precision as NumPy does, the CUDA backend
/// in float64. float64 images match scikit-image; for float32 images NumPy's float32 log is not
/// correctly rounded (and depends on the CPU's SIMD level), so a last-bit difference can move
/// where the iteration stops: results agree within the tolerance (typically 1e-6..1e-5
/// relative). On CUDA arrays each iteration is one device reduction; only four scalars cross.
double threshold_li(const Array& image, const ThresholdLiOptions& opts = {}, const Stream& stream = {});

/// skimage.filters.threshold_mean: np.mean(image). Integer images: float64 mean. float32 images:
/// the mean of a float64 sum rounded to float32 (NumPy sums float32 pairwise in float32; the two
/// agree within a few float32 ulps). An empty image gives NaN.
double threshold_mean(const Array& image, const Stream& stream = {});

// ==== edges and smoothing (gaussian, difference_of_gaussians, sobel/scharr/prewitt/roberts/farid,
// laplace, unsharp_mask) =============================================================================
// @@edges@@

// ==== rank and local filters (median, rank_order, correlate_sparse, window, local thresholds,
// apply_hysteresis_threshold, try_all_threshold) =====================================================
// @@local@@

// ==== frequency-domain filters (butterworth, wiener, LPIFilter2D, filter_forward/inverse, gabor) ====
// @@frequency@@

// ==== ridge filters (hessian, frangi, meijering, sato) ==============================================
// @@ridges@@

}  // namespace cuskimage::filters
