// Private entry points of the fused separable 2-D kernel (kernels/ndimage/separable2d.cu), used
// by ndimage::gaussian_filter (src/ndimage/gaussian.cpp) and the filters built on it.
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/ndimage.hpp"

namespace cuskimage::ndimage::detail {

/// One separable 2-D correlation: first along axis -2 with `wy` (window starts `ly` samples before
/// the output), then along axis -1 with `wx`, each axis with its own boundary mode. As in scipy's
/// pass sequence, the second pass sees `cval` (not a filtered cval) beyond the edge in constant mode.
struct Separable2d {
  std::vector<double> wy, wx;
  std::int64_t ly = 0, lx = 0;
  ndimage::Mode my = ndimage::Mode::reflect, mx = ndimage::Mode::reflect;
  double cval = 0.0;
};

/// CUDA, float or double: `in` and `out` contiguous, distinct, same shape, ndim >= 2 (leading axes are
/// a batch of planes). One kernel, one read and one write. Returns false (and does nothing) when the
/// windows are too wide for the shared-memory tile; the caller then runs 1-D passes.
template <class T>
bool cuda_separable2d(const Array& in, Array& out, const Separable2d& plan, cudaStream_t stream);

}  // namespace cuskimage::ndimage::detail
