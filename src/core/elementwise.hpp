// CPU backend of the element-wise maps: out[i] = f(in[i]) (or f(in[i], i) with the C-order element
// number i, for counter-based noise), OpenMP-parallel over rows of the coalesced layout.
#pragma once

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuskimage/array.hpp"
#include "src/core/indexer.hpp"

namespace cuskimage::detail {

template <class F, class... A>
inline decltype(auto) call_indexed(const F& f, std::int64_t i, A... a) {
  if constexpr (std::is_invocable_v<const F&, A..., std::int64_t>)
    return f(a..., i);
  else
    return f(a...);
}

/// Calls body(row, n, {offsets}) for each innermost row of a coalesced layout, in parallel.
/// `offsets[k]` is the element offset of the row's start in operand k; inner strides are
/// layout.strides[k].back().
template <std::size_t K, class Body>
void for_each_row(const Layout& L, Body&& body) {
  const std::int64_t inner = L.shape.empty() ? 1 : L.shape.back();
  const std::int64_t rows = inner == 0 ? 0 : L.size() / inner;
  Indexer outer[K];
  for (std::size_t k = 0; k < K; ++k) {
    outer[k] = L.indexer(k);
    if (outer[k].ndim > 0) outer[k].ndim -= 1;  // drop the innermost axis
  }
  // Long rows (a contiguous array coalesces to a single row) are cut into pieces so that every
  // thread gets work; `body` sees each piece as a row of its own.
  constexpr std::int64_t kPiece = 1 << 16;
  const std::int64_t pieces = rows < 64 && inner > kPiece ? (inner + kPiece - 1) / kPiece : 1;
  const std::int64_t piece = pieces > 1 ? kPiece : inner;
  std::int64_t step[K];
  for (std::size_t k = 0; k < K; ++k) step[k] = L.shape.empty() ? 1 : L.strides[k].back();
#pragma omp parallel for schedule(static) if (L.size() > 32768)
  for (std::int64_t t = 0; t < rows * pieces; ++t) {
    const std::int64_t r = t / pieces, start = (t - r * pieces) * piece;
    std::int64_t off[K];
    for (std::size_t k = 0; k < K; ++k) off[k] = outer[k].offset(r) + start * step[k];
    body(r * inner + start, std::min(piece, inner - start), off);
  }
}

template <class In, class Out, class F>
void cpu_map(const Array& in, Array& out, const F& f) {
  const Layout L = layout_of({&out, &in});
  const In* ip = static_cast<const In*>(in.data());
  Out* op = static_cast<Out*>(out.data());
  const std::int64_t so = L.shape.empty() ? 1 : L.strides[0].back();
  const std::int64_t si = L.shape.empty() ? 1 : L.strides[1].back();
  for_each_row<2>(L, [&](std::int64_t first, std::int64_t n, const std::int64_t* off) {
    Out* o = op + off[0];
    const In* p = ip + off[1];
    if (so == 1 && si == 1) {
      for (std::int64_t j = 0; j < n; ++j) o[j] = call_indexed(f, first + j, p[j]);
    } else {
      for (std::int64_t j = 0; j < n; ++j) o[j * so] = call_indexed(f, first + j, p[j * si]);
    }
  });
}

template <class A, class B, class Out, class F>
void cpu_map2(const Array& a, const Array& b, Array& out, const F& f) {
  const Layout L = layout_of({&out, &a, &b});
  const A* ap = static_cast<const A*>(a.data());
  const B* bp = static_cast<const B*>(b.data());
  Out* op = static_cast<Out*>(out.data());
  const std::int64_t so = L.shape.empty() ? 1 : L.strides[0].back();
  const std::int64_t sa = L.shape.empty() ? 1 : L.strides[1].back();
  const std::int64_t sb = L.shape.empty() ? 1 : L.strides[2].back();
  for_each_row<3>(L, [&](std::int64_t first, std::int64_t n, const std::int64_t* off) {
    Out* o = op + off[0];
    const A* p = ap + off[1];
    const B* q = bp + off[2];
    for (std::int64_t j = 0; j < n; ++j) o[j * so] = call_indexed(f, first + j, p[j * sa], q[j * sb]);
  });
}

}  // namespace cuskimage::detail
