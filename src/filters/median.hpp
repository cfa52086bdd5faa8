// Private pieces of filters::median shared by the CPU backend (src/filters/median.cpp) and the CUDA
// kernels (kernels/filters/median.cu): the window plan, order-preserving radix keys, the output cast
// and the backend entry points.
//
// Semantics (the oracle): scipy's NI_RankFilter reads every window sample as double (cval for
// samples outside under mode 'constant'), selects rank r = K / 2 (the upper median for even K) and
// C-casts the double back to the output dtype. skimage.filters.rank.median instead ignores samples
// outside the image: r = n / 2 of the n in-image samples (0 when n == 0).
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::filters::detail {

/// The window of one median call: tap offsets (per axis, C order of the footprint) after scipy's
/// origin rule (offset = index - size / 2), the boundary mode, and whether out-of-image taps are
/// skipped (behavior='rank').
struct MedianPlan {
  std::vector<std::vector<std::int64_t>> off;  // [tap][axis]
  std::vector<std::int64_t> fshape;            // footprint shape
  bool full = false;                           // every footprint entry is a tap
  ndimage::Mode mode = ndimage::Mode::nearest;
  double cval = 0.0;
  bool skip_outside = false;
};

/// Order-preserving unsigned key of a value (integers: sign bit flipped; floats: IEEE total order
/// with -0 < +0, NaN above +inf for positive NaNs).
template <class T>
struct KeyOf {
  using U = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                               std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                  std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  static constexpr int bits = 8 * sizeof(T);
  static CUSK_HD U key(T v) {
    U u;
    std::memcpy(&u, &v, sizeof(T));
    if constexpr (std::is_floating_point_v<T>) {
      const U sign = U(1) << (bits - 1);
      return (u & sign) ? U(~u) : U(u | sign);
    } else if constexpr (std::is_signed_v<T>) {
      return U(u ^ (U(1) << (bits - 1)));
    } else {
      return u;
    }
  }
  static CUSK_HD T value(U k) {
    U u = k;
    if constexpr (std::is_floating_point_v<T>) {
      const U sign = U(1) << (bits - 1);
      u = (k & sign) ? U(k & ~sign) : U(~k);
    } else if constexpr (std::is_signed_v<T>) {
      u = U(k ^ (U(1) << (bits - 1)));
    }
    T v;
    std::memcpy(&v, &u, sizeof(T));
    return v;
  }
};

/// The C cast scipy applies when it stores the selected double: in range values are exact (or, for
/// 64-bit integers past 2^53, the double's rounding); a non-integer cval truncates toward zero and
/// wraps (x86 conversion through int64).
template <class T>
CUSK_HD T median_cast(double v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    if (v >= 9223372036854775808.0) return v < 18446744073709551616.0 ? static_cast<T>(v) : T(0);
    return (v > -9223372036854775809.0) ? static_cast<T>(static_cast<std::int64_t>(v)) : T(0);
  } else {
    if (!(v > -9223372036854775809.0 && v < 9223372036854775808.0))
      return static_cast<T>(std::int64_t(-9223372036854775807LL - 1));
    return static_cast<T>(static_cast<std::int64_t>(v));
  }
}

/// CPU: any strides, `out` distinct from `in`.
template <class T>
void cpu_median(const Array& in, Array& out, const MedianPlan& plan);
/// CUDA: `in` and `out` contiguous, distinct, 1-D to 3-D.
template <class T>
void cuda_median(const Array& in, Array& out, const MedianPlan& plan, const Stream& stream);

}  // namespace cuskimage::filters::detail
