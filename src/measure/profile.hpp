// Private interface of profile_line (src/measure/profile.cpp): the order-0/1 sample shared by the
// CPU loop and the CUDA kernel (kernels/measure/profile.cu).
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/core/hd.hpp"
#include "src/ndimage/spline.hpp"

namespace cuskimage::measure::detail {

// ---- map_coordinates of order 0 / 1 (scipy.ndimage's NI_GeometricTransform) ----------------------
// profile_line samples with ndimage's own map_coordinates pieces (src/ndimage/spline.hpp), unfiltered.

using ndimage::InterpMode;

/// scipy's mode for profile_line's ndimage::Mode: constant and wrap arrive as the grid variants, as
/// scikit-image's _fix_ndimage_mode maps them.
inline InterpMode interp_mode(ndimage::Mode m) {
  switch (m) {
    case ndimage::Mode::reflect: return InterpMode::reflect;
    case ndimage::Mode::mirror: return InterpMode::mirror;
    case ndimage::Mode::nearest: return InterpMode::nearest;
    case ndimage::Mode::constant: return InterpMode::grid_constant;
    case ndimage::Mode::wrap: return InterpMode::grid_wrap;
  }
  return InterpMode::reflect;
}

/// One sample of a 2-D plane (element (i, j) at p[i * s0 + j * s1]) at (r, c), spline order 0 or 1,
/// stored in the image's dtype as scipy stores it.
template <class T>
CUSK_HD T profile_sample(const T* p, std::int64_t n0, std::int64_t n1, std::int64_t s0, std::int64_t s1, double r,
                         double c, int order, InterpMode mode, double cval) {
  const std::int64_t shape[2] = {n0, n1}, strides[2] = {s0, s1};
  const double coord[2] = {r, c};
  return ndimage::detail::interp_store<T>(
      ndimage::detail::spline_sample_fixed<2>(p, shape, strides, coord, order, mode, cval, 0));
}

/// profile_line samples: out[k] for the host-computed coordinates (rows[k], cols[k]) of every
/// channel of `image` (2-D, or 3-D channel-last): out is (K, C) of the image's dtype.
template <class T>
void cuda_profile_samples(const Array& image, const Array& coords, Array& out, int order, InterpMode mode,
                          double cval, const Stream& stream);

}  // namespace cuskimage::measure::detail
