// Internal: what peak.cpp hands its CUDA backend (kernels/feature/peak.cu).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature::detail {

/// The arguments of one peak_local_max call, checked and resolved.
struct PeakPlan {
  std::vector<std::int64_t> border;  // excluded width per axis
  std::int64_t box = 1;              // window size when no footprint is given
  std::int64_t num_peaks = std::numeric_limits<std::int64_t>::max();
  std::int64_t per_label = std::numeric_limits<std::int64_t>::max();
  std::int64_t min_distance = 1;
  double p_norm = std::numeric_limits<double>::infinity();
  std::optional<double> threshold_abs, threshold_rel;
};

/// The threshold in the comparison type C (float for float32 images, as NumPy compares them with
/// a Python float; double otherwise), from the image's minimum and maximum.
template <class C>
C peak_threshold(const PeakPlan& p, C mn, C mx) {
  C thr = p.threshold_abs ? static_cast<C>(*p.threshold_abs) : mn;
  if (p.threshold_rel) thr = std::max(thr, static_cast<C>(*p.threshold_rel) * mx);
  return thr;
}

/// The CUDA backend for a contiguous 1-D..3-D device image (labels: contiguous int32 on the device,
/// or invalid; footprint: a host bool array, or invalid for the box). Returns the (N, ndim) int64
/// coordinates on the device, or an invalid Array where it leaves the case to the host (labels
/// whose background value would pass the threshold).
template <class T>
Array cuda_peak_local_max(const Array& image, const Array& labels, const Array& footprint, const PeakPlan& plan,
                          const Stream& stream);

}  // namespace cuskimage::feature::detail
