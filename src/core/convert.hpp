// Element conversion with NumPy's astype semantics, shared by both backends.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "src/core/hd.hpp"

namespace cuskimage::detail {

template <class Out, class In>
CUSK_HD Out convert(In v) {
  if constexpr (std::is_same_v<Out, bool>) {
    return v != In(0);
  } else if constexpr (std::is_same_v<In, bool>) {
    return static_cast<Out>(v ? 1 : 0);
  } else if constexpr (std::is_floating_point_v<In> && std::is_integral_v<Out>) {
    // Saturate: the C conversion is undefined outside the target's range.
    if (!(v == v)) return Out(0);
    constexpr double lo = static_cast<double>(std::numeric_limits<Out>::lowest());
    constexpr double hi = static_cast<double>(std::numeric_limits<Out>::max());
    const double d = static_cast<double>(v);
    if (d <= lo) return std::numeric_limits<Out>::lowest();
    if (d >= hi) return std::numeric_limits<Out>::max();
    return static_cast<Out>(d);
  } else {
    return static_cast<Out>(v);  // int->int wraps modulo 2^bits (C++20), as NumPy
  }
}

template <class Out, class In>
struct Convert {
  CUSK_HD Out operator()(In v) const { return convert<Out>(v); }
};

}  // namespace cuskimage::detail
