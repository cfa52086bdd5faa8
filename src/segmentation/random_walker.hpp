// Private interface of segmentation.random_walker: the matrix-free Laplacian both backends apply
// (CUSK_HD, one pixel per call) and the CUDA entry.
//
// Every vector lives on the whole (nz, ny, nx) grid (2-D: nz = 1) and is zero outside the unknown
// (unlabelled, active) pixels; diag is the node degree there and 0 elsewhere, so "diag > 0" marks
// the unknowns. wz/wy/wx hold the weight of the edge from a pixel to its next neighbour along that
// axis (0 where either end is inactive or past the edge).
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::segmentation::detail {

struct RwGrid {
  std::int64_t nz, ny, nx;
  const double *diag, *wz, *wy, *wx;
};

/// (A v)[i] at pixel i = (z, y, x): the Laplacian restricted to the unknowns (v is zero at seeds
/// and inactive pixels).
CUSK_HD double rw_apply(const RwGrid& g, const double* v, std::int64_t i, std::int64_t z, std::int64_t y,
                        std::int64_t x) {
  const double d = g.diag[i];
  if (!(d > 0.0)) return 0.0;
  const std::int64_t sy = g.nx, sz = g.nx * g.ny;
  double s = d * v[i];
  if (x + 1 < g.nx) s -= g.wx[i] * v[i + 1];
  if (x > 0) s -= g.wx[i - 1] * v[i - 1];
  if (y + 1 < g.ny) s -= g.wy[i] * v[i + sy];
  if (y > 0) s -= g.wy[i - sy] * v[i - sy];
  if (z + 1 < g.nz) s -= g.wz[i] * v[i + sz];
  if (z > 0) s -= g.wz[i - sz] * v[i - sz];
  return s;
}

/// The preconditioner M r: 1 / diag for Jacobi, the identity otherwise (0 off the unknowns).
CUSK_HD double rw_precond(const RwGrid& g, const double* r, std::int64_t i, bool jacobi) {
  const double d = g.diag[i];
  if (!(d > 0.0)) return 0.0;
  return jacobi ? r[i] / d : r[i];
}

/// Solves A x_l = b_l for each right-hand side (rhs: nlabels x n, host) with scipy's cg stopping
/// rule; returns the solutions (nlabels x n, host). The grid's arrays are host arrays.
std::vector<double> cuda_rw_solve(const RwGrid& host_grid, const std::vector<double>& rhs, int nlabels, double tol,
                                  bool jacobi, Device dev, const Stream& stream);

}  // namespace cuskimage::segmentation::detail
