// CPU (OpenMP) twins of kernels/util/common.cuh: a generator over any strides and the segmented
// reduction with the operators of src/util/reduce.hpp.
#pragma once

#include <omp.h>

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "src/core/elementwise.hpp"
#include "src/core/indexer.hpp"

namespace cuskimage::util::detail {

/// out[i] = f(i) for the C-order element number i of `out` (any strides).
template <class Out, class F>
void cpu_generate(Array& out, const F& f) {
  const cuskimage::detail::Layout L = cuskimage::detail::layout_of({&out});
  if (L.size() == 0) return;
  Out* op = static_cast<Out*>(out.data());
  const std::int64_t so = L.shape.empty() ? 1 : L.strides[0].back();
  cuskimage::detail::for_each_row<1>(L, [&](std::int64_t first, std::int64_t n, const std::int64_t* off) {
    Out* o = op + off[0];
    for (std::int64_t j = 0; j < n; ++j) o[j * so] = f(first + j);
  });
}

/// One result per segment (segments > 1: one per index of axis 0).
template <class Op>
std::vector<typename Op::acc_type> cpu_reduce(const Array& a, std::int64_t segments, const Op& op) {
  using Acc = typename Op::acc_type;
  using T = typename Op::value_type;
  std::vector<Acc> result(static_cast<std::size_t>(segments), op.identity());
  if (a.size() == 0) return result;
  for (std::int64_t s = 0; s < segments; ++s) {
    const Array v = segments > 1 ? a.index(0, s) : a.share();
    const cuskimage::detail::Layout L = cuskimage::detail::layout_of({&v});
    const cuskimage::detail::Indexer ix = L.indexer(0);
    const bool contiguous = L.contiguous(0);
    const std::int64_t n = L.size();
    const T* p = static_cast<const T*>(v.data());
    std::vector<Acc> part(static_cast<std::size_t>(omp_get_max_threads()), op.identity());
#pragma omp parallel if (n > 65536)
    {
      Acc acc = op.identity();
      if (contiguous) {
#pragma omp for schedule(static)
        for (std::int64_t i = 0; i < n; ++i) acc = op.combine(acc, op.lift(p[i]));
      } else {
#pragma omp for schedule(static)
        for (std::int64_t i = 0; i < n; ++i) acc = op.combine(acc, op.lift(p[ix.offset(i)]));
      }
      part[static_cast<std::size_t>(omp_get_thread_num())] = acc;
    }
    for (const Acc& x : part) result[s] = op.combine(result[s], x);
  }
  return result;
}

}  // namespace cuskimage::util::detail
