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
#include "src/util/rn.hpp"

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

/// scipy's interpolation modes that profile_line can reach (constant and wrap arrive as the grid
/// variants, as scikit-image's _fix_ndimage_mode maps them).
enum class InterpMode : int { reflect, mirror, nearest, grid_constant, grid_wrap };

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

/// scipy's map_coordinate: a coordinate outside [0, len - 1] folded back by the mode (reflect,
/// mirror, grid-wrap; nearest and grid-constant never reach it).
CUSK_HD double interp_fold(double in, std::int64_t len, InterpMode mode) {
  if (in < 0) {
    switch (mode) {
      case InterpMode::mirror:
        if (len <= 1) return 0;
        {
          const std::int64_t sz2 = 2 * len - 2;
          in = static_cast<double>(sz2) * static_cast<double>(static_cast<std::int64_t>(-in / sz2)) + in;
          in = in <= 1 - len ? in + sz2 : -in;
        }
        break;
      case InterpMode::reflect:
        if (len <= 1) return 0;
        {
          const std::int64_t sz2 = 2 * len;
          if (in < -sz2) in = static_cast<double>(sz2) * static_cast<double>(static_cast<std::int64_t>(-in / sz2)) + in;
          in = in < -len ? in + sz2 : (in > -1e-15 ? 1e-15 : -in) - 1;
        }
        break;
      case InterpMode::grid_wrap:
        if (len <= 1) return 0;
        in += static_cast<double>(len) * static_cast<double>(static_cast<std::int64_t>((-1 - in) / len) + 1);
        break;
      default:
        break;
    }
  } else if (in > len - 1) {
    switch (mode) {
      case InterpMode::mirror:
        if (len <= 1) return 0;
        {
          const std::int64_t sz2 = 2 * len - 2;
          in -= static_cast<double>(sz2) * static_cast<double>(static_cast<std::int64_t>(in / sz2));
          if (in >= len) in = sz2 - in;
        }
        break;
      case InterpMode::reflect:
        if (len <= 1) return 0;
        {
          const std::int64_t sz2 = 2 * len;
          in -= static_cast<double>(sz2) * static_cast<double>(static_cast<std::int64_t>(in / sz2));
          if (in >= len) in = sz2 - in - 1;
        }
        break;
      case InterpMode::grid_wrap:
        if (len <= 1) return 0;
        in -= static_cast<double>(len) * static_cast<double>(static_cast<std::int64_t>(in / len));
        break;
      default:
        break;
    }
  }
  return in;
}

/// Index of a filter tap outside the axis, folded as scipy's edge offsets do (nearest clamps).
CUSK_HD std::int64_t interp_tap(std::int64_t idx, std::int64_t len, InterpMode mode) {
  if (mode == InterpMode::nearest) return idx < 0 ? 0 : (idx > len - 1 ? len - 1 : idx);
  return static_cast<std::int64_t>(interp_fold(static_cast<double>(idx), len, mode));
}

/// One sample of a 2-D plane (element (i, j) at p[i * s0 + j * s1]) at (r, c), spline order 0 or 1.
template <class T>
CUSK_HD double interp_sample(const T* p, std::int64_t n0, std::int64_t n1, std::int64_t s0, std::int64_t s1, double r,
                             double c, int order, InterpMode mode, double cval) {
  const double cc[2] = {r, c};
  const std::int64_t len[2] = {n0, n1};
  std::int64_t tap[2][2];
  bool out[2][2] = {{false, false}, {false, false}};
  double w[2][2] = {{1.0, 0.0}, {1.0, 0.0}};
  for (int a = 0; a < 2; ++a) {
    double x = cc[a];
    if (mode != InterpMode::grid_constant && mode != InterpMode::nearest) x = interp_fold(x, len[a], mode);
    const std::int64_t start = order == 1 ? static_cast<std::int64_t>(floor(x)) : static_cast<std::int64_t>(floor(x + 0.5));
    for (int l = 0; l <= order; ++l) {
      const std::int64_t idx = start + l;
      if (mode == InterpMode::grid_constant) {
        out[a][l] = idx < 0 || idx >= len[a];
        tap[a][l] = idx;
      } else {
        tap[a][l] = (start < 0 || start + order >= len[a]) ? interp_tap(idx, len[a], mode) : idx;
      }
    }
    if (order == 1) {
      const double t = x - floor(x);
      w[a][0] = 1.0 - t;
      w[a][1] = t;
    }
  }
  double t = 0.0;
  for (int i = 0; i <= order; ++i) {
    for (int j = 0; j <= order; ++j) {
      double coeff = (out[0][i] || out[1][j]) ? cval : static_cast<double>(p[tap[0][i] * s0 + tap[1][j] * s1]);
      if (order > 0) coeff = mul_rn(mul_rn(coeff, w[0][i]), w[1][j]);
      t = add_rn(t, coeff);
    }
  }
  return t;
}

/// scipy's store of an interpolated double into the output dtype (integers round half away from
/// zero and saturate).
template <class T>
CUSK_HD T interp_store(double t) {
  if constexpr (std::is_same_v<T, bool>) {
    return t != 0.0;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(t);
  } else if constexpr (std::is_unsigned_v<T>) {
    t = t > 0 ? t + 0.5 : 0;
    const double mx = static_cast<double>(std::numeric_limits<T>::max());
    if (t > mx) return std::numeric_limits<T>::max();
    return static_cast<T>(t);
  } else {
    t = t > 0 ? t + 0.5 : t - 0.5;
    const double mx = static_cast<double>(std::numeric_limits<T>::max());
    const double mn = static_cast<double>(std::numeric_limits<T>::lowest());
    if (t > mx) return std::numeric_limits<T>::max();
    if (t < mn) return std::numeric_limits<T>::lowest();
    return static_cast<T>(t);
  }
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
