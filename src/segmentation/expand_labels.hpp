// Private interface of segmentation.expand_labels: the per-pixel gather both backends run after
// the EDT, and the CUDA entry points (kernels/segmentation/expand_labels.cu).
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/segmentation/boundaries.hpp"

namespace cuskimage::segmentation::detail {

/// out[i] = dist[i] <= distance ? label[nearest(i)] : 0, nearest(i) from the int32 feature
/// transform (nd planes of n). A feature of -1 (no labelled pixel at all) indexes from the end,
/// as NumPy does; every label is then 0 anyway.
template <class T>
struct ExpandRule {
  const T* label = nullptr;  // strided as g
  Grid g;
  const double* dist = nullptr;
  const std::int32_t* ind = nullptr;
  T* out = nullptr;
  double distance = 1;
  std::int64_t n = 0;

  CUSK_HD void operator()(std::int64_t i) const {
    if (!(dist[i] <= distance)) {
      out[i] = T(0);
      return;
    }
    std::int64_t off = 0;
    for (int a = 0; a < g.nd; ++a) {
      std::int64_t q = ind[a * n + i];
      if (q < 0) q += g.shape[a];
      off += q * g.stride[a];
    }
    out[i] = label[off];
  }
};

/// zero[i] = (label[i] == 0) for the strided label grid (the EDT's input).
template <class T>
void cuda_zero_mask(const T* label, const Grid& g, bool* zero, std::int64_t n, const Stream& stream);
template <class T>
void cuda_expand(const ExpandRule<T>& rule, const Stream& stream);

}  // namespace cuskimage::segmentation::detail
