// CPU backend of the histogram thresholds: range and histogram in one OpenMP pass per kind (per-thread
// private histograms merged at the end), then the shared selection of threshold.hpp.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"
#include "src/filters/histogram_backend.hpp"

namespace cuskimage::filters::detail {
namespace {

using cuskimage::detail::Indexer;
using cuskimage::detail::Layout;
using cuskimage::detail::layout_of;

/// Calls body(ptr, n, stride) for each innermost row of `a`, rows split across OpenMP threads; each
/// thread first runs init(tid) and the rows it gets see its tid.
template <class T, class Body>
void for_rows(const Array& a, Body&& body) {
  const Layout L = layout_of({&a});
  const std::int64_t inner = L.shape.empty() ? 1 : L.shape.back();
  const std::int64_t step = L.shape.empty() ? 1 : L.strides[0].back();
  const std::int64_t rows = inner == 0 ? 0 : L.size() / inner;
  Indexer outer = L.indexer(0);
  if (outer.ndim > 0) outer.ndim -= 1;
  // Long single rows (contiguous arrays) are cut into pieces so every thread gets work.
  constexpr std::int64_t kPiece = 1 << 16;
  const std::int64_t pieces = rows < 64 && inner > kPiece ? (inner + kPiece - 1) / kPiece : 1;
  const std::int64_t piece = pieces > 1 ? kPiece : inner;
  const T* base = static_cast<const T*>(a.data());
#pragma omp parallel for schedule(static) if (L.size() > 32768)
  for (std::int64_t t = 0; t < rows * pieces; ++t) {
    const std::int64_t r = t / pieces, start = (t - r * pieces) * piece;
    body(omp_get_thread_num(), base + outer.offset(r) + start * step, std::min(piece, inner - start), step);
  }
}

template <class T>
void run(const Array& image, const SelectParams& p, std::vector<double>& result) {
  const int threads = omp_get_max_threads();
  RangeInfo<T> info{};
  info.first = *static_cast<const T*>(image.data());
  std::int64_t nb = 0;
  std::vector<std::vector<unsigned long long>> local(static_cast<std::size_t>(threads));
  if constexpr (std::is_integral_v<T>) {
    nb = full_range_bins<T>();
    for_rows<T>(image, [&](int tid, const T* q, std::int64_t n, std::int64_t s) {
      auto& h = local[static_cast<std::size_t>(tid)];
      if (h.empty()) h.assign(static_cast<std::size_t>(nb), 0);
      for (std::int64_t j = 0; j < n; ++j) ++h[static_cast<std::size_t>(int_bin(q[j * s]))];
    });
  } else {
    // Pass 1: range (NaN or infinity make numpy.histogram fail).
    std::vector<T> lo(threads, std::numeric_limits<T>::infinity()), hi(threads, -std::numeric_limits<T>::infinity());
    std::vector<int> bad(threads, 0);
    for_rows<T>(image, [&](int tid, const T* q, std::int64_t n, std::int64_t s) {
      T l = lo[tid], u = hi[tid];
      int b = 0;
      for (std::int64_t j = 0; j < n; ++j) {
        const T v = q[j * s];
        b |= !std::isfinite(v);
        l = v < l ? v : l;
        u = v > u ? v : u;
      }
      lo[tid] = l;
      hi[tid] = u;
      bad[tid] |= b;
    });
    info.lo = *std::min_element(lo.begin(), lo.end());
    info.hi = *std::max_element(hi.begin(), hi.end());
    info.nonfinite = *std::max_element(bad.begin(), bad.end());
    nb = p.nbins;
    if (!info.nonfinite) {
      const FloatBins<T> bins = FloatBins<T>::make(info.lo, info.hi, p.nbins);
      for_rows<T>(image, [&](int tid, const T* q, std::int64_t n, std::int64_t s) {
        auto& h = local[static_cast<std::size_t>(tid)];
        if (h.empty()) h.assign(static_cast<std::size_t>(nb), 0);
        for (std::int64_t j = 0; j < n; ++j) ++h[static_cast<std::size_t>(bins.index(q[j * s]))];
      });
    }
  }
  std::vector<unsigned long long> counts(static_cast<std::size_t>(nb), 0);
  for (const auto& h : local)
    if (!h.empty())
      for (std::size_t i = 0; i < counts.size(); ++i) counts[i] += h[i];
  std::vector<double> scratch(static_cast<std::size_t>(select_scratch_doubles(nb)));
  std::vector<std::int64_t> cur(static_cast<std::size_t>(std::max(p.classes, 1)));
  result.assign(static_cast<std::size_t>(kResultHeader + p.capacity), 0.0);
  select_from_histogram<T>(p, counts.data(), info, scratch.data(), cur.data(), result.data());
}

}  // namespace

void cpu_histogram_threshold(const Array& image, const SelectParams& p, std::vector<double>& result) {
  cuskimage::detail::dispatch<cuskimage::detail::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, float, double>>(
      image.dtype(), "filters.threshold", [&]<class T>() { run<T>(image, p, result); });
}

}  // namespace cuskimage::filters::detail
