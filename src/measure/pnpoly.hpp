// Private interface of points_in_poly / grid_points_in_poly (src/measure/pnpoly.cpp): the
// point-in-polygon test shared by the CPU loops and the CUDA kernel (kernels/measure/pnpoly.cu).
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::measure::detail {

// ---- point in polygon (O'Rourke's crossing test, as skimage/_shared/geometry) --------------------
/// 0 outside, 1 inside, 2 on a vertex (1e-12 tolerance), 3 on an edge. Products rounded once (no
/// FMA contraction on the device, as NumPy computes).
CUSK_HD unsigned char point_in_polygon(const double* xp, const double* yp, std::int64_t n, double x, double y) {
  using cuskimage::detail::mul_rn;
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

/// grid_points_in_poly on the device: out (uint8, rows x cols) = point_in_polygon labels.
void cuda_grid_points_in_poly(Array& out, const Array& vx, const Array& vy, const Stream& stream);

}  // namespace cuskimage::measure::detail
