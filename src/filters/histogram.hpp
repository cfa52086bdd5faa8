// Histogram binning of the threshold functions, written once for both backends (CUSK_HD).
//
// Integer images (8/16-bit) are counted over the dtype's whole range (one bin per value); the
// selection then trims empty bins at both ends, which gives exactly scikit-image's bincount over
// [min, max]. Float images follow numpy.histogram(image, bins=nbins) in the image's precision:
// edges = linspace(min, max, nbins + 1) (computed as i * step + min), index = trunc((x - min) / (max -
// min) * nbins) then corrected by one against the edges, the last bin closed.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::filters::detail {

// NumPy rounds every operation; a fused multiply-add would change the last bit and with it a
// tie-break (src/core/rn.hpp).
using cuskimage::detail::add_rn;
using cuskimage::detail::mul_rn;

/// Number of bins of the full-range histogram of an integer dtype (8/16-bit only).
template <class T>
constexpr std::int64_t full_range_bins() {
  if constexpr (sizeof(T) <= 2) return std::int64_t(1) << (8 * sizeof(T));
  else return 0;
}

/// Range facts of an image gathered in the same pass as (or before) the histogram.
template <class T>
struct RangeInfo {
  T lo;          // minimum (float images)
  T hi;          // maximum (float images)
  T first;       // image.ravel()[0]
  int nonfinite; // a NaN or infinity was seen (float images)
};

/// numpy.histogram's uniform bins over [first_edge, last_edge] in precision T.
template <class T>
struct FloatBins {
  T first_edge = 0, last_edge = 1, step = 0;
  std::int64_t n = 1;

  CUSK_HD static FloatBins make(T lo, T hi, std::int64_t nbins) {
    FloatBins b;
    if (lo == hi) {  // numpy widens an empty range by 0.5 on each side
      lo = lo - T(0.5);
      hi = hi + T(0.5);
    }
    b.first_edge = lo;
    b.last_edge = hi;
    b.n = nbins;
    b.step = (hi - lo) / T(nbins);  // linspace: delta / div
    return b;
  }
  /// linspace(first, last, n + 1)[i]: i * step + first, the last one exactly `last`.
  CUSK_HD T edge(std::int64_t i) const {
    if (i >= n) return last_edge;
    return add_rn(mul_rn(T(i), step), first_edge);
  }
  CUSK_HD T center(std::int64_t i) const { return (edge(i) + edge(i + 1)) / T(2); }
  /// Bin of x (x within [first_edge, last_edge]).
  CUSK_HD std::int64_t index(T x) const {
    const T f = (x - first_edge) / (last_edge - first_edge) * T(n);
    std::int64_t i = static_cast<std::int64_t>(f);
    if (i == n) i -= 1;
    if (x < edge(i)) i -= 1;
    if (i != n - 1 && x >= edge(i + 1)) i += 1;
    return i;
  }
};

/// Bin of an integer value in the full-range histogram.
template <class T>
CUSK_HD std::int64_t int_bin(T v) {
  return static_cast<std::int64_t>(v) - static_cast<std::int64_t>(std::numeric_limits<T>::min());
}

}  // namespace cuskimage::filters::detail
