// skimage.feature.peak (scikit-image 0.26): peak_local_max; corner_peaks.
//
// Semantics are scikit-image 0.26's, ties included:
// - candidates are the pixels equal to their maximum_filter (mode 'nearest', the footprint, or a
//   (2 * min_distance + 1)^ndim box) and above the threshold; an image whose candidates are every
//   (masked) pixel has none, except isolated pixels of a label's mask (mask xor its opening);
// - candidates are ordered by a stable sort of the negated intensity in the image's dtype (so for
//   unsigned images the negation wraps, as NumPy's does), then C order;
// - min_distance > 1 keeps, in that order, each candidate farther than min_distance (p_norm
//   distance, strictly less rejects) from every one kept before: scikit-image's batched KD-tree
//   ensure_spacing reduces to exactly this greedy, which both backends compute;
// - with labels, every label is processed in its bounding box (border-excluded) with the pixels of
//   other labels set to the dtype's lowest value, up to num_peaks_per_label each; the lists are
//   concatenated in label order and, only when more than num_peaks, re-ranked over the whole image
//   (the greedy then spans labels). With labels and no peak the result has shape (0, 2) whatever
//   the ndim, as scikit-image's does.
// The result is an (N, ndim) int64 array on the image's device.
#pragma once

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

/// scikit-image's exclude_border: a bool (true = min_distance on every axis, false = 0), one
/// non-negative width for every axis, or one per axis.
struct ExcludeBorder {
  /// Unset: true (min_distance on every axis).
  std::optional<std::vector<std::int64_t>> widths;
  ExcludeBorder(bool b = true) {  // NOLINT(google-explicit-constructor): `.exclude_border = false`
    if (!b) widths = std::vector<std::int64_t>{0};
  }
  template <std::integral I>
    requires(!std::same_as<I, bool>)
  ExcludeBorder(I w) : widths(std::vector<std::int64_t>{static_cast<std::int64_t>(w)}) {}  // NOLINT
  ExcludeBorder(std::vector<std::int64_t> w) : widths(std::move(w)) {}                      // NOLINT
  ExcludeBorder(std::initializer_list<std::int64_t> w) : widths(std::vector<std::int64_t>(w)) {}
  bool operator==(const ExcludeBorder&) const = default;
};

struct PeakLocalMaxOptions {
  std::int64_t min_distance = 1;
  std::optional<double> threshold_abs = std::nullopt;
  std::optional<double> threshold_rel = std::nullopt;
  ExcludeBorder exclude_border = true;
  /// Unset: no limit (scikit-image's np.inf).
  std::optional<std::int64_t> num_peaks = std::nullopt;
  Array footprint = {};
  Array labels = {};
  std::optional<std::int64_t> num_peaks_per_label = std::nullopt;
  double p_norm = std::numeric_limits<double>::infinity();
};
CUSK_OPTIONS(PeakLocalMaxOptions,
             (min_distance, "minimal distance separating peaks (also the window half-width)"),
             (threshold_abs, "minimum peak intensity (default: the image minimum)"),
             (threshold_rel, "minimum peak intensity as a fraction of the image maximum"),
             (exclude_border, "true, false, or a width (one, or one per axis) of excluded border"),
             (num_peaks, "maximum number of peaks (none: no limit)"),
             (footprint, "boolean footprint (.npy path); default a (2*min_distance+1)^ndim box"),
             (labels, "integer label image: peaks are searched per label (0 = background)"),
             (num_peaks_per_label, "maximum number of peaks per label (none: no limit)"),
             (p_norm, "Minkowski p-norm of the min_distance test, in [1, inf]"))

/// skimage.feature.peak_local_max: (N, ndim) int64 peak coordinates, highest first.
Array peak_local_max(const Array& image, const PeakLocalMaxOptions& opts = {}, const Stream& stream = {});

struct CornerPeaksOptions {
  std::int64_t min_distance = 1;
  std::optional<double> threshold_abs = std::nullopt;
  std::optional<double> threshold_rel = std::nullopt;
  ExcludeBorder exclude_border = true;
  /// true: (N, ndim) int64 coordinates; false: a bool image with the peaks set.
  bool indices = true;
  std::optional<std::int64_t> num_peaks = std::nullopt;
  Array footprint = {};
  Array labels = {};
  std::optional<std::int64_t> num_peaks_per_label = std::nullopt;
  double p_norm = std::numeric_limits<double>::infinity();
};
CUSK_OPTIONS(CornerPeaksOptions,
             (min_distance, "minimal distance separating peaks"),
             (threshold_abs, "minimum peak intensity (default: the image minimum)"),
             (threshold_rel, "minimum peak intensity as a fraction of the image maximum"),
             (exclude_border, "true, false, or a width (one, or one per axis) of excluded border"),
             (indices, "return coordinates (true) or a boolean peak image (false)"),
             (num_peaks, "maximum number of peaks kept after the suppression (none: no limit)"),
             (footprint, "boolean footprint (.npy path); default a (2*min_distance+1)^ndim box"),
             (labels, "integer label image: peaks are searched per label (0 = background)"),
             (num_peaks_per_label, "maximum number of peaks per label (none: no limit)"),
             (p_norm, "Minkowski p-norm of the suppression (distance <= min_distance), in [1, inf]"))

/// skimage.feature.corner_peaks: peak_local_max (with p_norm inf, as scikit-image calls it) then
/// a greedy suppression of every later peak within min_distance (inclusive) of a kept one.
Array corner_peaks(const Array& image, const CornerPeaksOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::feature
