// Union-find labelling over an arbitrary symmetric neighbourhood (local extrema plateaus,
// remove_small_objects' connectivity), built on kernels/core/union_find.cuh's find/union and its init
// and flatten passes: only the merge differs, walking a list of backward offsets (the half of a
// symmetric offset set that precedes the pixel in C order) with a caller's connection predicate.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/core/union_find.cuh"
#include "src/core/cuda_check.hpp"
#include "src/morphology/recon_common.hpp"

namespace cuskimage::morphology::detail {

using cuskimage::detail::CclGeom;
using cuskimage::detail::ccl_find;
using cuskimage::detail::ccl_flatten;
using cuskimage::detail::ccl_init;
using cuskimage::detail::ccl_union;

/// Up to 26 offsets (the whole 3x3x3 neighbourhood) by value in the launch parameters.
struct DevOffsets {
  int n = 0;
  int d[26][3];
};

/// The offsets as kernel parameters; `backward_only` keeps those before the pixel in C order.
inline DevOffsets dev_offsets(const std::vector<Off3>& offs, bool backward_only) {
  DevOffsets r;
  for (const auto& o : offs) {
    const bool backward = o.dz < 0 || (o.dz == 0 && (o.dy < 0 || (o.dy == 0 && o.dx < 0)));
    if (backward_only && !backward) continue;
    r.d[r.n][0] = o.dz, r.d[r.n][1] = o.dy, r.d[r.n][2] = o.dx;
    ++r.n;
  }
  return r;
}

/// Unites every foreground pixel with its foreground backward neighbours j for which
/// conn(i, j) holds (labels: parent indices, -1 background, as kernels/core/union_find.cuh).
template <class I, class Conn>
__global__ void __launch_bounds__(256) ccl_merge_offsets(I* parent, Geom3 g, DevOffsets offs, Conn conn) {
  const std::int64_t total = g.nz * g.ny * g.nx, stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    if (parent[i] < 0) continue;
    const std::int64_t x = i % g.nx, r = i / g.nx, y = r % g.ny, z = r / g.ny;
    for (int k = 0; k < offs.n; ++k) {
      const std::int64_t zz = z + offs.d[k][0], yy = y + offs.d[k][1], xx = x + offs.d[k][2];
      if (zz < 0 || yy < 0 || xx < 0 || zz >= g.nz || yy >= g.ny || xx >= g.nx) continue;
      const std::int64_t j = (zz * g.ny + yy) * g.nx + xx;
      if (parent[j] >= 0 && conn(i, j)) ccl_union<I>(parent, static_cast<I>(i), static_cast<I>(j));
    }
  }
}

inline unsigned ccl_blocks(std::int64_t total) {
  const std::int64_t b = (total + 255) / 256;
  return static_cast<unsigned>(b < 1 ? 1 : b > (1 << 20) ? (1 << 20) : b);
}

/// init (fg), merge (backward offsets, conn), flatten: parent[i] = smallest index of i's
/// component, -1 where !fg(i).
template <class I, class Fg, class Conn>
void ccl_label(I* parent, Geom3 g, const DevOffsets& backward, Fg fg, Conn conn, cudaStream_t s) {
  const std::int64_t n = g.size();
  const CclGeom cg{g.nz, g.ny, g.nx};
  ccl_init<I><<<ccl_blocks(n), 256, 0, s>>>(parent, cg, fg);
  CUSK_CUDA_CHECK_LAUNCH();
  ccl_merge_offsets<I><<<ccl_blocks(n), 256, 0, s>>>(parent, g, backward, conn);
  CUSK_CUDA_CHECK_LAUNCH();
  ccl_flatten<I><<<ccl_blocks(n), 256, 0, s>>>(parent, cg);
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::morphology::detail
