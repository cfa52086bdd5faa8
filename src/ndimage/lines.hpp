// The lines of an array along one axis, shared by the CPU passes that walk an image line by line
// (separable filters, spline prefilters).
#pragma once

#include "cuskimage/array.hpp"
#include "src/core/indexer.hpp"

namespace cuskimage::ndimage::detail {

/// The offsets of every line of `a` along `axis` (C order of the other axes).
inline cuskimage::detail::Indexer other_axes(const Array& a, int axis) {
  cuskimage::detail::Indexer ix;
  for (int d = 0; d < a.ndim(); ++d) {
    if (d == axis) continue;
    ix.shape[ix.ndim] = a.shape()[d];
    ix.stride[ix.ndim] = a.strides()[d];
    ++ix.ndim;
  }
  return ix;
}

}  // namespace cuskimage::ndimage::detail
