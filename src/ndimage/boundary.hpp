// Boundary modes of scipy.ndimage as one index mapping shared by the CPU backend and the CUDA
// kernels, plus the cast scipy applies when it stores a double result into the output dtype.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuskimage/ndimage.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::ndimage::detail {

/// Maps coordinate `i` (any integer) of an axis of extent `n` >= 1 into [0, n), or -1 when it falls
/// outside and `mode` is constant. Reflect and mirror are periodic (periods 2n and 2n-2), so halos
/// wider than the axis behave as scipy's line extension does.
CUSK_HD std::int64_t map_index(std::int64_t i, std::int64_t n, Mode mode) {
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case Mode::constant:
      return -1;
    case Mode::nearest:
      return i < 0 ? 0 : n - 1;
    case Mode::wrap: {
      const std::int64_t m = i % n;
      return m < 0 ? m + n : m;
    }
    case Mode::reflect: {
      const std::int64_t p = 2 * n;
      std::int64_t m = i % p;
      if (m < 0) m += p;
      return m < n ? m : p - 1 - m;
    }
    case Mode::mirror: {
      if (n == 1) return 0;
      const std::int64_t p = 2 * n - 2;
      std::int64_t m = i % p;
      if (m < 0) m += p;
      return m < n ? m : p - m;
    }
  }
  return -1;
}

/// scipy stores its double accumulator into the output with a C cast: floats round to nearest,
/// integers truncate toward zero through a 32-bit conversion (x86 cvttsd2si: out-of-range and NaN
/// give INT32_MIN) and then wrap to the narrower type.
template <class T>
CUSK_HD T cast_out(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0.0;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    const std::int32_t i = (v > -2147483649.0 && v < 2147483648.0) ? static_cast<std::int32_t>(v)
                                                                     : std::int32_t(-2147483647 - 1);
    return static_cast<T>(i);
  }
}

}  // namespace cuskimage::ndimage::detail
