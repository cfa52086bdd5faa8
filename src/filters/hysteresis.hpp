// Private pieces of apply_hysteresis_threshold and try_all_threshold: NumPy's comparison of an image
// with a scalar (in float32 for float32 images against a Python float, else in double) and the
// backend entry points.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::filters::detail {

/// image > t as NumPy evaluates it: `t_f32` when the image is float32 and t is a weak (Python or
/// float32) scalar, else in double.
template <class T>
CUSK_HD bool greater(T v, double t, bool f32) {
  if constexpr (std::is_same_v<T, float>) {
    if (f32) return v > static_cast<float>(t);
  }
  return static_cast<double>(v) > t;
}

/// out (bool, contiguous) = in > t.
template <class T>
void cuda_greater(const Array& in, Array& out, double t, bool f32, const Stream& stream);
/// out (bool, contiguous) = hysteresis of contiguous `in` (ndim <= 3): low compared in double, high
/// as `greater(., high, true)`.
template <class T>
void cuda_hysteresis(const Array& in, Array& out, double low, double high, const Stream& stream);

}  // namespace cuskimage::filters::detail
