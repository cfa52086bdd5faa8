// Private interface of segmentation.clear_border: the border predicate both backends use and the
// CUDA entry points (kernels/segmentation/clear_border.cu).
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/segmentation/boundaries.hpp"

namespace cuskimage::segmentation::detail {

/// Whether the element `lin` (C order) is in the border: outside `mask` when one is given, else
/// within `ext` = buffer_size + 1 of an edge on some axis.
struct BorderRule {
  Grid g;  // shape only (the labels are walked contiguously)
  std::int64_t ext = 1;
  const bool* mask = nullptr;  // contiguous, or null

  CUSK_HD bool operator()(std::int64_t lin) const {
    if (mask) return !mask[lin];
    for (int a = g.nd - 1; a >= 0; --a) {
      const std::int64_t c = lin % g.shape[a];
      lin /= g.shape[a];
      if (c < ext || c >= g.shape[a] - ext) return true;
    }
    return false;
  }
};

/// The labels' values read in C order (directly when contiguous).
template <class T>
struct Source {
  const T* in = nullptr;
  Grid g;
  bool contiguous = true;
  CUSK_HD T operator()(std::int64_t i) const { return contiguous ? in[i] : in[grid_offset(g, i)]; }
};

/// flags[label[i]] = 1 for every border element i, then out[i] = flags[label[i]] ? bgval : src(i):
/// `label` contiguous int32/int64 (L), `out` contiguous (T), flags n + 1 zeroed bytes.
template <class T, class L>
void cuda_clear_border(const BorderRule& rule, const L* label, std::uint8_t* flags, const Source<T>& src, T* out,
                       T bgval, std::int64_t n, const Stream& stream);

}  // namespace cuskimage::segmentation::detail
