// Private entry points of the fused separable 2-D kernel (kernels/ndimage/separable2d.cu), used
// by ndimage::gaussian_filter (src/ndimage/gaussian.cpp) and the filters built on it.
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::ndimage::detail {

/// One separable 2-D correlation: first along axis -2 with `wy` (window starts `ly` samples before
/// the output), then along axis -1 with `wx`, each axis with its own boundary mode. As in scipy's
/// pass sequence, the second pass sees `cval` (not a filtered cval) beyond the edge in constant mode.
/// `sy`/`sx`: weight_symmetry of each window (+1, -1, 0); integer images need +-1 (scipy's
/// symmetric summation order is reproduced exactly).
struct Separable2d {
  std::vector<double> wy, wx;
  std::int64_t ly = 0, lx = 0;
  ndimage::Mode my = ndimage::Mode::reflect, mx = ndimage::Mode::reflect;
  double cval = 0.0;
  int sy = 0, sx = 0;
};

/// CUDA: `in` and `out` contiguous, distinct, same shape, ndim >= 2 (leading axes are a batch of
/// planes). One kernel, one read and one write, no upload (weights travel as kernel parameters).
///  * float, double: sums in T (see ndimage.hpp for the bound against scipy's double sums).
///  * uint8, uint16: bit-exact with the CPU backend: double sums in scipy's order, the axis-0 result
///    truncated to T (cast_out) before the axis-1 pass, as scipy's intermediate array.
/// Returns false (and does nothing) when the plan does not fit (windows too wide, integer windows
/// neither symmetric nor antisymmetric, cval not exact in a float T, grid limits); the caller then
/// runs 1-D passes. cuda_separable2d_fits answers that question without launching.
template <class T>
bool cuda_separable2d(const Array& in, Array& out, const Separable2d& plan, const Stream& stream);
template <class T>
bool cuda_separable2d_fits(const Shape& shape, const Separable2d& plan);

}  // namespace cuskimage::ndimage::detail
