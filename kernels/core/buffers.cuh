// Small host-side helpers of the CUDA backends for device buffers: typed pointers of an Array,
// byte scratch (CUB temporaries and packed work lists) and one-vector uploads, all stream-ordered.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"

namespace cuskimage::detail::buf {

/// The buffer as X*, with no dtype check (kernels reinterpret, e.g. uint64 as unsigned long long).
template <class X>
X* ptr(Array& a) {
  return static_cast<X*>(a.data());
}
template <class X>
const X* cptr(const Array& a) {
  return static_cast<const X*>(a.data());
}

/// At least one byte (CUB's temp-storage queries may ask for 0).
inline Array scratch(std::size_t bytes, Device dev, const Stream& s) {
  return Array::empty({static_cast<std::int64_t>(std::max<std::size_t>(bytes, 1))}, DType::uint8, dev, s);
}

/// `v` as a 1-D device array (one element of T{} when empty, so the pointer is valid).
template <class T>
Array upload(const std::vector<T>& v, Device dev, const Stream& s) {
  std::vector<T> w = v;
  if (w.empty()) w.push_back(T{});
  return Array::from_vector(w, {static_cast<std::int64_t>(w.size())}).to(dev, s);
}

}  // namespace cuskimage::detail::buf
