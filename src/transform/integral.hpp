// Private interface of transform.integral: the per-window sum both backends evaluate, the wrapping
// add of the integer scans, and the CUDA entries (kernels/transform/integral.cu).
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::transform::detail {

constexpr int kIntegrateMaxDims = 16;

/// a + b in D; integers wrap modulo 2^bits as numpy's cumsum does (through the unsigned type, so
/// signed overflow is defined).
template <class D>
CUSK_HD D wrap_add(D a, D b) {
  if constexpr (std::is_integral_v<D> && !std::is_same_v<D, bool>) {
    using U = std::make_unsigned_t<D>;
    return static_cast<D>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}

/// scikit-image's integrate for one window: the 2^nd corners in its order (bit k of the corner
/// number, most significant first, picks start - 1 on axis k), a corner with start - 1 < 0 on a
/// picked axis dropped; each term converted to float64 and accumulated in order.
template <class D>
CUSK_HD double integrate_window(const D* ii, const std::int64_t* strides, int nd, const std::int64_t* start,
                                const std::int64_t* end) {
  double s = 0.0;
  const std::int64_t corners = std::int64_t(1) << nd;
  for (std::int64_t p = 0; p < corners; ++p) {
    std::int64_t off = 0;
    int picked = 0;
    bool bad = false;
    for (int k = 0; k < nd; ++k) {
      const bool pick = (p >> (nd - 1 - k)) & 1;
      const std::int64_t c = pick ? start[k] - 1 : end[k];
      if (pick) {
        ++picked;
        bad = bad || c < 0;
      }
      off += c * strides[k];
    }
    if (bad) {
      s += 0.0;  // scikit-image adds an integer 0 for a dropped corner
      continue;
    }
    const double term = static_cast<double>(ii[off]);
    s += (picked & 1) ? -term : term;
  }
  return s;
}

/// out (contiguous, dtype D, in's shape) = cumulative sums of the contiguous `in` (dtype T) along
/// every axis.
template <class T, class D>
void cuda_integral_image(const Array& in, Array& out, const Stream& stream);

/// out[i] = integrate_window over the contiguous `ii` for windows (n, nd) int64 `start`/`end`.
template <class D>
void cuda_integrate(const Array& ii, const Array& start, const Array& end, Array& out, const Stream& stream);

}  // namespace cuskimage::transform::detail
