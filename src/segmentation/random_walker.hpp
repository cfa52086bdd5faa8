// Private interface of segmentation.random_walker: the per-pixel pieces both backends share
// (CUSK_HD: edge weight, matrix-free Laplacian, preconditioner) and the CUDA entry.
//
// Every vector lives on the whole (nz, ny, nx) grid (2-D: nz = 1) and is zero outside the unknown
// (unlabelled, active) pixels; diag is the node degree there and 0 elsewhere, so "diag > 0" marks
// the unknowns. wz/wy/wx hold the weight of the edge from a pixel to its next neighbour along that
// axis (0 where either end is inactive or past the edge).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::segmentation::detail {

struct RwGrid {
  std::int64_t nz, ny, nx;
  const double *diag, *wz, *wy, *wx;
};

/// The weights' exponent factor: -beta / (10 std(data)), divided by sqrt(channels) for
/// multichannel data; var_sum is sum((v - mean)^2) over all `total` values.
CUSK_HD double rw_scale(double beta, double var_sum, std::int64_t total, std::int64_t channels, bool multi) {
  double scale = -beta / (10.0 * sqrt(var_sum / double(total)));
  if (multi) scale /= sqrt(double(channels));
  return scale;
}

/// Weight of the edge from pixel i to pixel j one step along an axis of the given spacing (data:
/// float64, channels last).
CUSK_HD double rw_weight(const double* data, std::int64_t i, std::int64_t j, std::int64_t c, double spacing,
                         double scale) {
  double g2 = 0.0;
  for (std::int64_t ch = 0; ch < c; ++ch) {
    const double t = (data[j * c + ch] - data[i * c + ch]) / spacing;
    g2 += t * t;
  }
  return exp(scale * g2) + 1e-10;
}

/// (A v)[i] at pixel i = (z, y, x): the Laplacian restricted to the unknowns (v[j] is zero at
/// seeds and inactive pixels). V: a pointer, or an accessor that computes v[j] on the fly.
template <class V>
CUSK_HD double rw_apply(const RwGrid& g, const V& v, std::int64_t i, std::int64_t z, std::int64_t y, std::int64_t x) {
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

/// The preconditioner (M r)_i from the degree d and residual ri: ri / d for Jacobi, ri otherwise
/// (0 off the unknowns).
CUSK_HD double rw_precond_at(double d, double ri, bool jacobi) {
  if (!(d > 0.0)) return 0.0;
  return jacobi ? ri / d : ri;
}
CUSK_HD double rw_precond(const RwGrid& g, const double* r, std::int64_t i, bool jacobi) {
  return rw_precond_at(g.diag[i], r[i], jacobi);
}

/// Pixel codes the CUDA path works from: 0 unknown, l >= 1 a seed of (renumbered) label l,
/// negative an inactive pixel whose output is that value, kRwIsolated an unlabelled pixel no seed
/// reaches (inactive, output 0).
constexpr std::int32_t kRwIsolated = std::numeric_limits<std::int32_t>::min();

struct RwSpec {
  std::int64_t nz, ny, nx, channels;
  double sz, sy, sx;
  double beta;
  bool multi;
  int nlabels;
  std::int64_t unknowns;
  double tol;
  bool jacobi;
  bool full_prob;
};

/// The CUDA random walker on `data` (on the device, float64, contiguous, channels last): graph
/// weights, all labels' systems as one batched conjugate-gradient solve (scipy's iterations and
/// stopping rule per column), and the result: int32 labels (n) or float64 probabilities
/// (nlabels * n). code: one value per pixel (see kRwIsolated), host.
Array cuda_random_walker(const Array& data, const std::vector<std::int32_t>& code, const RwSpec& spec,
                         const Stream& stream);

}  // namespace cuskimage::segmentation::detail
