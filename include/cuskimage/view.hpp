// Typed, non-owning N-d views over an Array for kernels and advanced callers: cuda::std::mdspan with
// 64-bit extents and arbitrary (non-negative) strides, usable on host and device.
#pragma once

#include <cuda/std/mdspan>

#include "cuskimage/array.hpp"

namespace cuskimage {

template <std::size_t N>
using Extents = cuda::std::dextents<std::int64_t, N>;

template <class T, std::size_t N>
using View = cuda::std::mdspan<T, Extents<N>, cuda::std::layout_stride>;

/// Typed view of `a`. Throws InvalidArgument when T or N do not match the array, NotSupported for
/// negative strides (mdspan cannot express them; take a contiguous copy first).
template <class T, std::size_t N>
View<T, N> make_view(const Array& a) {
  if (a.ndim() != static_cast<int>(N))
    throw InvalidArgument("make_view: array has ndim " + std::to_string(a.ndim()) + ", expected " +
                          std::to_string(N));
  cuda::std::array<std::int64_t, N> ext{}, str{};
  for (std::size_t i = 0; i < N; ++i) {
    if (a.strides()[i] < 0) throw NotSupported("make_view: negative strides cannot be viewed");
    ext[i] = a.shape()[i];
    str[i] = a.strides()[i];
  }
  using Mapping = typename cuda::std::layout_stride::template mapping<Extents<N>>;
  return View<T, N>(a.template data<std::remove_const_t<T>>(), Mapping(Extents<N>(ext), str));
}

}  // namespace cuskimage
