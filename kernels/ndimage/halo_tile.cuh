// Shared-memory tile loaders of the ndimage kernels, for reuse by filters and morphology.
//
// Both loaders are block-cooperative (every thread of the block calls them, then __syncthreads()):
// consecutive threads fetch consecutive elements of the fastest axis, so global loads are coalesced,
// and every coordinate goes through detail::map_index (src/ndimage/boundary.hpp), so the tile holds
// exactly the boundary-extended samples the CPU backend sees. Samples mapped outside under
// Mode::constant become `cval` (the caller checks that cval is exact in T, else it must use a
// non-tiled path that keeps cval as double).
//
//  * load_halo_tile_2d: rows [y_start, y_start + th) x columns [x_start, x_start + tw) of one C-order
//    plane (ny x nx) into tile[th * tw]. A kernel with output tile TH x TW and window offsets
//    [lo_y, hi_y] x [lo_x, hi_x] passes y_start = y0 + lo_y, th = TH + hi_y - lo_y (same for x) and
//    then reads tile[(ty + dy - lo_y) * tw + tx + dx - lo_x] for the tap (dy, dx).
//  * load_halo_tile_3d: the same for a C-order volume (nz x ny x nx): planes [z_start, z_start + td)
//    into tile[(p * th + r) * tw + c].
//  * load_line_tile: the separable-pass tile of a contiguous (outer, n, inner) view: `rows` samples
//    along the filtered axis starting at n_start, times `ti` consecutive inner columns starting at
//    i0, into tile[row * ti + col]. With inner == 1 (the filtered axis is the contiguous one)
//    consecutive threads walk the line itself; otherwise they walk `ti` (<= 32) adjacent columns.
#pragma once

#include <cstdint>

#include "src/ndimage/boundary.hpp"

namespace cuskimage::ndimage::detail {

__device__ __forceinline__ int block_thread() { return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ int block_threads() { return blockDim.x * blockDim.y * blockDim.z; }

template <class T>
__device__ void load_halo_tile_2d(T* tile, int th, int tw, const T* __restrict__ plane, std::int64_t ny,
                                  std::int64_t nx, std::int64_t y_start, std::int64_t x_start, Mode mode, T cval) {
  const int count = th * tw;
  for (int i = block_thread(); i < count; i += block_threads()) {
    const int r = i / tw, c = i - r * tw;
    const std::int64_t y = map_index(y_start + r, ny, mode);
    const std::int64_t x = map_index(x_start + c, nx, mode);
    tile[i] = (y < 0 || x < 0) ? cval : plane[y * nx + x];
  }
}

template <class T>
__device__ void load_halo_tile_3d(T* tile, int td, int th, int tw, const T* __restrict__ vol, std::int64_t nz,
                                  std::int64_t ny, std::int64_t nx, std::int64_t z_start, std::int64_t y_start,
                                  std::int64_t x_start, Mode mode, T cval) {
  const int count = td * th * tw;
  for (int i = block_thread(); i < count; i += block_threads()) {
    const int c = i % tw, rest = i / tw, r = rest % th, p = rest / th;
    const std::int64_t z = map_index(z_start + p, nz, mode);
    const std::int64_t y = map_index(y_start + r, ny, mode);
    const std::int64_t x = map_index(x_start + c, nx, mode);
    tile[i] = (z < 0 || y < 0 || x < 0) ? cval : vol[(z * ny + y) * nx + x];
  }
}

template <class T>
__device__ void load_line_tile(T* tile, std::int64_t rows, int ti, const T* __restrict__ slab, std::int64_t n,
                               std::int64_t inner, std::int64_t n_start, std::int64_t i0, Mode mode, T cval) {
  const std::int64_t count = rows * ti;
  for (std::int64_t i = block_thread(); i < count; i += block_threads()) {
    const std::int64_t r = i / ti, c = i - r * ti;
    if (i0 + c >= inner) continue;
    const std::int64_t m = map_index(n_start + r, n, mode);
    tile[i] = m < 0 ? cval : slab[m * inner + i0 + c];
  }
}

}  // namespace cuskimage::ndimage::detail
