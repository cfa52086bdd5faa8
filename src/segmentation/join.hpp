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
    const T v = in[grid_offset(g, i)];
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

/// The distinct values of a contiguous device array of small non-negative values, from presence
/// flags and their prefix sum instead of a sort: `rank[v]` is v's position among them.
struct DenseRanks {
  bool negative = false;  // the minimum is < 0 (nothing else is set)
  bool used = false;      // false: the range was too large, use the sort
  std::int64_t min = 0;
  Array uniq;  // the K sorted distinct values (the input's dtype)
  Array rank;  // int32, max + 2 entries
};

/// Min and max (one pass, per-block partials read back: synchronises), then the flags and ranks when
/// max < `max_entries`.
template <class T>
DenseRanks cuda_dense_ranks(const Array& a, std::int64_t max_entries, const Stream& stream);
/// out[i] = relabel_sequential's value of in[i] from the dense ranks (in contiguous).
template <class T, class O>
void cuda_dense_map(const T* in, const std::int32_t* rank, std::int64_t n, std::int64_t offset, bool has0, O* out,
                    const Stream& stream);

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
