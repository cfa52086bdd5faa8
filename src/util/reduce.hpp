// Reductions the util functions need on both backends (min/max with NumPy's NaN rule, sums in
// float64, counts), as CUSK_HD operator structs: identity(), lift(value), combine(a, b). The CPU
// loop and the CUDA kernel (kernels/util/reduce.cuh) apply the same operators; partial results are
// combined on the host.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "src/core/hd.hpp"

namespace cuskimage::util::detail {

/// Extremes of the non-NaN values, whether any NaN was seen, whether any value was seen.
template <class T>
struct MinMax {
  T lo;
  T hi;
  bool nan;
  bool any;
};

template <class T>
struct MinMaxOp {
  using value_type = T;
  using acc_type = MinMax<T>;
  CUSK_HD MinMax<T> identity() const {
    return {std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest(), false, false};
  }
  CUSK_HD MinMax<T> lift(T v) const {
    if constexpr (std::is_floating_point_v<T>) {
      if (v != v) return {std::numeric_limits<T>::max(), std::numeric_limits<T>::lowest(), true, true};
    }
    return {v, v, false, true};
  }
  CUSK_HD MinMax<T> combine(const MinMax<T>& a, const MinMax<T>& b) const {
    return {b.lo < a.lo ? b.lo : a.lo, b.hi > a.hi ? b.hi : a.hi, a.nan || b.nan, a.any || b.any};
  }
};

/// Sum in float64.
template <class T>
struct SumOp {
  using value_type = T;
  using acc_type = double;
  CUSK_HD double identity() const { return 0.0; }
  CUSK_HD double lift(T v) const { return static_cast<double>(v); }
  CUSK_HD double combine(double a, double b) const { return a + b; }
};

/// Number of values <= 0 (NaN not counted, as NumPy's (x <= 0).any()).
template <class T>
struct CountNonPositiveOp {
  using value_type = T;
  using acc_type = std::int64_t;
  CUSK_HD std::int64_t identity() const { return 0; }
  CUSK_HD std::int64_t lift(T v) const { return v <= T(0) ? 1 : 0; }
  CUSK_HD std::int64_t combine(std::int64_t a, std::int64_t b) const { return a + b; }
};

}  // namespace cuskimage::util::detail
