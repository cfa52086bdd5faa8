// Internal: the Haar-like feature value both backends compute (src/feature/haar.cpp,
// kernels/feature/haar.cu).
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::feature::detail {

/// A feature packed for the kernels: rectangle count, then (r0, c0, r1, c1) for up to 4 rectangles.
constexpr int kHaarPacked = 17;

/// Accumulation type: integers wrap in uint64 (scikit-image's int64 result), floats in their dtype.
template <class T>
using HaarAcc = std::conditional_t<std::is_floating_point_v<T>, T, std::uint64_t>;

/// scikit-image's integrate on the window's crop: corner terms left of / above the window dropped.
template <class T>
CUSK_HD HaarAcc<T> haar_rect(const T* ii, std::int64_t sr, std::int64_t sc, const std::int32_t* q) {
  using A = HaarAcc<T>;
  const std::int64_t r0 = q[0], c0 = q[1], r1 = q[2], c1 = q[3];
  A s = A(0);
  s += static_cast<A>(ii[r1 * sr + c1 * sc]);
  if (r0 >= 1 && c0 >= 1) s += static_cast<A>(ii[(r0 - 1) * sr + (c0 - 1) * sc]);
  if (r0 >= 1) s -= static_cast<A>(ii[(r0 - 1) * sr + c1 * sc]);
  if (c0 >= 1) s -= static_cast<A>(ii[r1 * sr + (c0 - 1) * sc]);
  return s;
}

/// The feature: odd-indexed rectangles minus even-indexed ones; `ii` points at the window's origin.
template <class T>
CUSK_HD HaarAcc<T> haar_value(const T* ii, std::int64_t sr, std::int64_t sc, const std::int32_t* f) {
  using A = HaarAcc<T>;
  const int n = f[0];
  A v[4];
  for (int k = 0; k < n; ++k) v[k] = haar_rect(ii, sr, sc, f + 1 + 4 * k);
  const A pos = n == 4 ? A(v[1] + v[3]) : v[1];
  const A neg = n >= 3 ? A(v[0] + v[2]) : v[0];
  return static_cast<A>(pos - neg);
}

/// CUDA backend: out[i] = haar_value of packed feature i (`feats` on the device, n * kHaarPacked);
/// `ii` is the window's origin of a device image with element strides (sr, sc); out is O (int64 or T).
template <class T, class O>
void cuda_haar(const T* ii, std::int64_t sr, std::int64_t sc, const Array& feats, Array& out, const Stream& stream);

}  // namespace cuskimage::feature::detail
