// Private interface of transform.finite_radon_transform: the per-output sums both backends evaluate
// (scikit-image's repeated rolls written as modular indices) and the CUDA entries.
#pragma once

#include <cstdint>
#include <type_traits>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::transform::detail {

/// numpy's sum accumulator for T: float64 for floats, int64 for bool and signed, uint64 for unsigned.
template <class T>
using FrtAcc = std::conditional_t<std::is_floating_point_v<T>, double,
                                  std::conditional_t<std::is_unsigned_v<T> && !std::is_same_v<T, bool>,
                                                     std::uint64_t, std::int64_t>>;

/// numpy's cast of a sum into uint32 (modular for integers; floats truncate through int64).
template <class A>
CUSK_HD std::uint32_t to_u32(A v) {
  if constexpr (std::is_floating_point_v<A>)
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(static_cast<std::int64_t>(v)));
  else
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(v));
}

/// frt2 output (m, c) of the n x n row-major `a`: sum over r of a[r, (c + m r) mod n] (m < n), or
/// the sum of row c (m == n); rows summed in order, as numpy's axis-0 sum.
template <class T>
CUSK_HD std::uint32_t frt2_at(const T* a, std::int64_t n, std::int64_t m, std::int64_t c) {
  using A = FrtAcc<T>;
  A s = A(0);
  if (m == n) {
    for (std::int64_t k = 0; k < n; ++k) s = static_cast<A>(s + static_cast<A>(a[c * n + k]));
  } else {
    for (std::int64_t r = 0; r < n; ++r) s = static_cast<A>(s + static_cast<A>(a[r * n + (c + m * r) % n]));
  }
  return to_u32(s);
}

/// ifrt2 output (m, c) of the (n + 1) x n row-major `a`: (uint32(sum over r < n of
/// a[r, (c - m r) mod n]) + uint32 a[n, m] - sum(a[0])) / n, in numpy's types.
template <class T>
CUSK_HD double ifrt2_at(const T* a, std::int64_t n, std::int64_t m, std::int64_t c, FrtAcc<T> row0) {
  using A = FrtAcc<T>;
  A s = A(0);
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t k = ((c - (m * r) % n) % n + n) % n;
    s = static_cast<A>(s + static_cast<A>(a[r * n + k]));
  }
  const std::uint32_t f = to_u32(s) + to_u32(static_cast<A>(a[n * n + m]));
  return static_cast<double>(static_cast<A>(static_cast<A>(f) - row0)) / static_cast<double>(n);
}

template <class T>
void cuda_frt2(const Array& a, Array& out, const Stream& stream);
template <class T>
void cuda_ifrt2(const Array& a, Array& out, FrtAcc<T> row0, const Stream& stream);

}  // namespace cuskimage::transform::detail
