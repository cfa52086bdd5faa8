// Private interface of segmentation._join: the sorted-key lookup both backends run per pixel and
// the CUDA entry points (kernels/segmentation/join.cu).
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/segmentation/boundaries.hpp"

namespace cuskimage::segmentation::detail {

/// out[i] for the value v at element i of the strided grid: with k = the position of v among the
/// K sorted distinct keys, table[k] (0 when v is absent) or, without a table, relabel_sequential's
/// rank rule (0 stays 0, else offset + k - has0).
template <class T, class O>
struct SortedMap {
  const T* in = nullptr;
  Grid g;
  const T* keys = nullptr;
  std::int64_t nkeys = 0;
  const O* table = nullptr;
  std::int64_t offset = 1;
  bool has0 = false;
  O* out = nullptr;

  CUSK_HD void operator()(std::int64_t i) const {
    std::int64_t off = 0, lin = i;
    for (int a = g.nd - 1; a >= 0; --a) {
      off += (lin % g.shape[a]) * g.stride[a];
      lin /= g.shape[a];
    }
    const T v = in[off];
    std::int64_t lo = 0, hi = nkeys;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) / 2;
      if (keys[mid] < v) lo = mid + 1;
      else hi = mid;
    }
    if (table) {
      out[i] = (lo < nkeys && keys[lo] == v) ? table[lo] : O(0);
    } else {
      out[i] = (has0 && lo == 0) ? O(0) : static_cast<O>(offset + lo - (has0 ? 1 : 0));
    }
  }
};

/// The sorted distinct values of the contiguous device array `a` (1-D, K values, a's device);
/// reads K back (synchronises `stream`).
template <class T>
Array cuda_sorted_unique(const Array& a, const Stream& stream);
template <class T, class O>
void cuda_sorted_map(const SortedMap<T, O>& m, std::int64_t n, const Stream& stream);
/// out[i] = wrap(a[i] * factor + b[i]) in T (join's factor * s1_relabeled + s2_relabeled).
template <class T>
void cuda_combine(const T* a, const T* b, T factor, T* out, std::int64_t n, const Stream& stream);

}  // namespace cuskimage::segmentation::detail
