// flood's per-pixel test and flood_fill's masked assignment, shared by the CPU oracle (flood.cpp)
// and the CUDA kernels (kernels/morphology/recon_flood.cu).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::morphology::detail {

/// v == seed (no tolerance) or low <= v <= high, with scikit-image's bounds: max(dtype min,
/// seed - |tol|) and min(dtype max, seed + |tol|) computed in double, then converted to T (C
/// conversion: truncation toward zero for integers, as Cython's), bool compared as 0/1.
template <class T>
struct FloodPredicate {
  using V = std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>;
  V seed, low, high;
  bool has_tol;
  CUSK_HD static FloodPredicate make(T seed_value, bool has_tol, double tol) {
    FloodPredicate p{};
    p.seed = static_cast<V>(seed_value);
    p.has_tol = has_tol;
    if (has_tol) {
      const double t = tol < 0 ? -tol : tol;
      const double lo = std::is_floating_point_v<V> ? static_cast<double>(std::numeric_limits<V>::lowest())
                                                    : static_cast<double>(std::numeric_limits<V>::min());
      const double hi = std::is_same_v<T, bool> ? 1.0 : static_cast<double>(std::numeric_limits<V>::max());
      const double s = static_cast<double>(p.seed);
      const double l = s - t > lo ? s - t : lo, h = s + t < hi ? s + t : hi;
      p.low = static_cast<V>(l);
      p.high = static_cast<V>(h);
    }
    return p;
  }
  CUSK_HD bool operator()(T v) const {
    const V x = static_cast<V>(v);
    return has_tol ? (low <= x && x <= high) : x == seed;
  }
};

template <class T>
struct MaskedFill {
  T value;
  CUSK_HD T operator()(T v, bool m) const { return m ? value : v; }
};

template <class T>
void cuda_flood_init(const Array& image, Array& rec, Array& mask, std::int64_t seed, bool has_tol, double tol,
                     const Stream& stream);
template <class T>
void cuda_masked_fill(const Array& image, const Array& mask, Array& out, T value, const Stream& stream);

}  // namespace cuskimage::morphology::detail
