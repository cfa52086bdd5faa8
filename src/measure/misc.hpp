// Private interface of the image measures of skimage.measure that are not region properties
// (src/measure/misc.cpp): per-pixel rules shared by the CPU loops and the CUDA kernels
// (kernels/measure/misc.cu), and the CUDA entry points.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/core/hd.hpp"
#include "src/core/indexer.hpp"
#include "src/ndimage/spline.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::measure::detail {

using cuskimage::detail::Indexer;
using cuskimage::detail::kMaxDims;

// Exact double arithmetic (no FMA contraction on the device, as NumPy computes): util's.
using cuskimage::util::detail::add_rn;
using cuskimage::util::detail::mul_rn;

// ---- point in polygon (O'Rourke's crossing test, as skimage/_shared/geometry) --------------------
/// 0 outside, 1 inside, 2 on a vertex (1e-12 tolerance), 3 on an edge.
CUSK_HD unsigned char point_in_polygon(const double* xp, const double* yp, std::int64_t n, double x, double y) {
  constexpr double eps = 1e-12;
  if (n == 0) return 0;
  double x1 = xp[n - 1] - x, y1 = yp[n - 1] - y;
  unsigned r_cross = 0, l_cross = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double x0 = xp[i] - x, y0 = yp[i] - y;
    if (-eps < x0 && x0 < eps && -eps < y0 && y0 < eps) return 2;
    if ((y0 > 0) != (y1 > 0)) {
      if ((mul_rn(x0, y1) - mul_rn(x1, y0)) / (y1 - y0) > 0) ++r_cross;
    }
    if ((y0 < 0) != (y1 < 0)) {
      if ((mul_rn(x0, y1) - mul_rn(x1, y0)) / (y1 - y0) < 0) ++l_cross;
    }
    x1 = x0;
    y1 = y0;
  }
  if ((r_cross & 1u) != (l_cross & 1u)) return 3;
  return (r_cross & 1u) ? 1 : 0;
}

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

// ---- CUDA entries -----------------------------------------------------------------------------

/// block_reduce geometry: the input (any strides) and the C-order output grid of blocks.
struct BlockReduceParams {
  int ndim = 0;
  std::int64_t in_shape[kMaxDims] = {};
  std::int64_t in_stride[kMaxDims] = {};
  std::int64_t out_shape[kMaxDims] = {};
  std::int64_t block[kMaxDims] = {};
  std::int64_t block_elems = 1;
  int func = 0;  // BlockFunc
};

/// out (contiguous, dtype per BlockFunc) = func over each block of `in` (padding with cval).
template <class T>
void cuda_block_reduce(const Array& in, Array& out, const BlockReduceParams& p, double cval, cudaStream_t stream);

/// Entropy of the distinct values (synchronises).
template <class T>
double cuda_shannon_entropy(const Array& in, double base, cudaStream_t stream);

/// Histogram of the 2x2 (2-D, 16 bins) or 2x2x2 (3-D, 256 bins) configurations of (value > 0) over
/// the zero-padded image, as skimage's euler_number / perimeter_crofton count them.
template <class T>
std::vector<std::int64_t> cuda_config_histogram(const Array& in, cudaStream_t stream);

/// Histogram (256 bins) of skimage.measure.perimeter's weighted border codes of a 2-D image.
template <class T>
std::vector<std::int64_t> cuda_perimeter_histogram(const Array& in, bool eight, cudaStream_t stream);

/// grid_points_in_poly on the device: out (uint8, rows x cols) = point_in_polygon labels.
void cuda_grid_points_in_poly(Array& out, const Array& vx, const Array& vy, cudaStream_t stream);

/// profile_line samples: out[k] for the host-computed coordinates (rows[k], cols[k]) of every
/// channel of `image` (2-D, or 3-D channel-last): out is (K, C) of the image's dtype.
template <class T>
void cuda_profile_samples(const Array& image, const Array& coords, Array& out, int order, InterpMode mode,
                          double cval, cudaStream_t stream);

/// Colocalisation sums over the elements where `mask` (bool, or invalid for all) is true, of two
/// contiguous float64 arrays. kind 0 (pearson pass 1): n, sum x, sum y, nan count, min x, max x,
/// min y, max y. kind 1 (pearson pass 2, with means a, b): sum (x-a)^2, sum (y-b)^2,
/// sum (x-a)(y-b). kind 2 (manders): n, sum x, sum x*y, sum x^2, sum y^2, min x, min y.
std::array<double, 8> cuda_coloc_sums(const Array& x, const Array& y, const Array& mask, int kind, double a, double b,
                                      cudaStream_t stream);

/// blur_effect's sums over the interior region [2, s - 1) of every axis of two same-shaped
/// contiguous float arrays: sum max(eps, |sharp|) and sum max(0, max(eps,|sharp|) - max(eps,|blur|)).
template <class T>
std::array<double, 2> cuda_blur_sums(const Array& sharp, const Array& blur, cudaStream_t stream);

/// Sum of the triangle areas (|cross| / 2 summed, then halved by the caller as scikit-image) of
/// contiguous float64 verts (V, 3) and int64 faces (F, 3).
double cuda_mesh_area(const Array& verts, const Array& faces, cudaStream_t stream);

}  // namespace cuskimage::measure::detail
