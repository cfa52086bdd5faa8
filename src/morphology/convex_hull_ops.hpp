// Foreground rules of convex_hull_image / convex_hull_object (NumPy's casts as scikit-image applies
// them) and the hull's area test, shared by the CPU backend and the CUDA kernels.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "src/core/hd.hpp"
#include "src/morphology/skeleton_ops.hpp"

namespace cuskimage::morphology::detail {

/// convex_hull_image's foreground: np.ascontiguousarray(image, dtype=np.uint8) != 0. Integers wrap
/// modulo 256; floats truncate through int32 as NumPy does on x86-64 (NaN and values outside int32
/// become INT32_MIN, whose low byte is 0).
template <class T>
CUSK_HD bool hull_fg(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v;
  } else if constexpr (std::is_floating_point_v<T>) {
    const double d = static_cast<double>(v);
    if (!(d > -2147483649.0 && d < 2147483648.0)) return false;
    return (static_cast<std::int32_t>(d) & 0xFF) != 0;
  } else {
    return static_cast<std::uint8_t>(v) != 0;
  }
}

/// skimage.measure.label's value of a pixel: floats are cast to int64 (truncation; NaN and values
/// outside int64 become INT64_MIN as on x86-64), integers and bool keep their value.
template <class T>
CUSK_HD std::int64_t label_key(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    const double d = static_cast<double>(v);
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
    return static_cast<std::int64_t>(d);
  } else {
    return static_cast<std::int64_t>(v);
  }
}
template <class T>
CUSK_HD bool label_fg(T v) { return label_key(v) != 0; }
template <class T>
CUSK_HD bool label_same(T a, T b) { return label_key(a) == label_key(b); }

/// Whether the chains (strictly convex, built by chain_push over the same x values) enclose a
/// non-zero area; Qhull fails on a flat hull and scikit-image then returns an empty image.
CUSK_HD bool hull_has_area(const HullPt* lo, std::int64_t nlo, const HullPt* hi, std::int64_t nhi) {
  if (nlo < 2 || nhi < 2) return false;
  if (nlo > 2 || nhi > 2) return true;
  return lo[0].y != hi[0].y || lo[1].y != hi[1].y;
}

}  // namespace cuskimage::morphology::detail
