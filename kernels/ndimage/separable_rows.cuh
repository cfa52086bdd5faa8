// The fused separable 2-D correlation for float and double images (kernels/ndimage/separable2d.cu
// launches it): one block per (column band, strip of rows, plane), walking down its strip.
//
// Vertical pass (axis -2) in registers, no input tile: thread j owns column x0 - R + j (one of the
// block's NT = 256; its boundary-mode column map is computed once) and streams its column down the
// strip, one coalesced 4/8-byte load per row. Each sample is multiplied into the K partial sums it
// belongs to (K rotating accumulators: with the rows unrolled by a multiple of K every index is a
// compile-time constant); the sum that the sample completes is written to a chunk buffer in shared
// memory. Chunks are G rows (a multiple of K, >= 16); the first PF samples of the next chunk are
// loaded before the block synchronises, so loads stay in flight during the horizontal pass (all G
// would not fit beside the accumulators), the rest right after it. Rows outside the image go
// through a per-block row map in shared memory (RowMap), so map_index's modulo arithmetic is not
// inlined at every unrolled load.
// Horizontal pass (axis -1) per chunk from shared memory: a task is 8 consecutive outputs of one
// row, read as 16-byte vectors (the buffer's row pitch is 16 mod 32 bytes and lanes take
// consecutive rows: conflict-free) and stored as 16-byte vectors when the rows are aligned. The
// buffer is double-buffered: one barrier per chunk.
// Both passes add in the tile kernel's order (output o: w[0] x[o] first, then w[1] x[o+1], ...
// each an FMA), so results are the former fused kernel's bit for bit.
// Per output pixel (K = 25, float; counted in the SASS): the vertical pass ~31 instructions per
// input row (25 FFMA, the load and its address, the shared store) x 256/232 columns, the horizontal
// ~29 (25 FFMA, 2 LDS.128, 1/4 STG.128, task addressing): ~64 per pixel, against ~87 for the
// 128x32-tile kernel it replaces; 80 registers, 52 KB of shared memory, 3 blocks (24 warps) per
// SM. Halo: 2R rows per strip (3 % at 8192^2: 750-row strips, 396 blocks, one wave) and 2R
// columns per band (re-read from L2 by the neighbouring band).
#pragma once

#include <cstddef>
#include <cstdint>

#include "src/ndimage/boundary.hpp"

namespace cuskimage::ndimage::detail {
namespace rows_impl {

using ndimage::Mode;

template <class T, int K>
struct RowsGeo {
  static constexpr int CH = 16;                                // the least rows per chunk
  static constexpr int NT = 256;                               // threads = vertical columns
  static constexpr int R = K / 2;
  static constexpr int MH = 8;                                 // outputs per horizontal task
  static constexpr int G = K * ((CH + K - 1) / K);             // rows per chunk
  static constexpr int TW = (NT - 2 * R) / MH * MH;            // output columns per block
  static constexpr int NCH = TW / MH;                          // horizontal tasks per row
  static constexpr int VL = 16 / static_cast<int>(sizeof(T));  // elements per 16-byte vector
  static constexpr int PITCH = NT + VL;                        // buffer row pitch: 16 mod 32 bytes
  // STREAM: rows PF .. G - 1 of a chunk are loaded one per vertical step, PF steps ahead, instead
  // of all at once after the horizontal pass, so only PF samples are live beside the K accumulators
  // (G + K live samples spill under the register cap: double at K = 25 under 128 registers, float
  // past K = 25 under 80). Float K <= 25 keeps the measured form.
  static constexpr bool STREAM = sizeof(T) == 8 || K > 25;
  // Rows prefetched across the barrier (in flight through the horizontal pass). Sized by ptxas:
  // the largest that leaves no spills (double K = 31, 33 still spill a few words).
  static constexpr int pf() {
    if (sizeof(T) == 4) return !STREAM || K <= 25 ? G / 2 : 8;
    if (K > 25) return 4;
    return G / 3 < 8 ? G / 3 : 8;
  }
  static constexpr int PF = pf();
  static constexpr int MINB = sizeof(T) == 4 ? 3 : 2;          // __launch_bounds__ blocks per SM
  static constexpr std::size_t smem = 2 * std::size_t(G) * PITCH * sizeof(T) + (2 * R + G) * sizeof(int);
  static_assert(2 * R + G <= NT, "one row-map entry per thread");
  static_assert(K % 2 == 1 && K >= 3 && TW >= MH, "window");
  static_assert(G % K == 0, "chunk rows: a multiple of K (compile-time accumulator slots)");
  static_assert(PF >= 1 && PF < G, "prefetch");
};

template <class T, int K>
struct RowsTaps {
  T y[K], x[K];  // correlation weights: y[i] multiplies row o - R + i, x[i] column x - R + i
};

/// Row map of the block's rows outside [0, ny): tab[y + R] for rows -R .. -1, tab[R + y - ny] for
/// rows ny .. ny + G + R - 1 (map_index: -1 is constant mode's cval row). Filled once per block, so the
/// modulo arithmetic of map_index is not inlined at every unrolled load.
struct RowMap {
  const int* tab;  // [R + G + R]
  int r;           // R
  __device__ __forceinline__ std::int64_t operator()(std::int64_t y, std::int64_t ny) const {
    return y < 0 ? tab[y + r] : (y >= ny ? tab[r + (y - ny)] : y);
  }
};

/// Loads s[B .. E) with the samples of rows y + B .. y + E - 1 (y >= 0) of one column.
template <int B, int E, class T, int G>
__device__ __forceinline__ void load_rows(T (&s)[G], const T* __restrict__ colp, std::int64_t y, std::int64_t ny,
                                          std::int64_t nx, RowMap rmap, T cval) {
  if (y + E <= ny) {
    const T* p = colp + y * nx;
#pragma unroll
    for (int u = B; u < E; ++u) s[u] = p[u * nx];
  } else {
#pragma unroll
    for (int u = B; u < E; ++u) {
      const std::int64_t ym = rmap(y + u, ny);
      s[u] = ym < 0 ? cval : colp[(ym < 0 ? 0 : ym) * nx];
    }
  }
}

/// The sample of row y (y >= 0) of one column.
template <class T>
__device__ __forceinline__ T load_row(const T* __restrict__ colp, std::int64_t y, std::int64_t ny, std::int64_t nx,
                                      RowMap rmap, T cval) {
  if (y < ny) return colp[y * nx];
  const std::int64_t ym = rmap(y, ny);
  return ym < 0 ? cval : colp[(ym < 0 ? 0 : ym) * nx];
}

template <class T>
__device__ __forceinline__ void load_vec(const T* p, T (&e)[16 / sizeof(T)]) {
  if constexpr (sizeof(T) == 4) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    e[0] = q.x, e[1] = q.y, e[2] = q.z, e[3] = q.w;
  } else {
    const double2 q = *reinterpret_cast<const double2*>(p);
    e[0] = q.x, e[1] = q.y;
  }
}

/// A plain 16-byte store (no memory clobber: the kernel never reads what it stores).
template <class T>
__device__ __forceinline__ void store_vec(T* p, const T* v) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4)
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3]));
  else
    asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(p), "d"(v[0]), "d"(v[1]));
#else
  for (int k = 0; k < 16 / static_cast<int>(sizeof(T)); ++k) p[k] = v[k];
#endif
}

/// Output rows [ys, min(ys + strip, ny)) of columns [x0, x0 + TW) of plane blockIdx.z, with
/// ys = blockIdx.y * strip (a multiple of G) and x0 = blockIdx.x * TW. `vec`: nx is a multiple of
/// the vector and `out` 16-byte aligned. In constant mode along x the horizontal pass sees cval
/// itself beyond the edge (scipy's second pass extends the intermediate array), along y the
/// vertical pass sees cval rows.
template <class T, int K>
__global__ void __launch_bounds__(RowsGeo<T, K>::NT, RowsGeo<T, K>::MINB)
    rows_kernel(const T* __restrict__ in, T* __restrict__ out, std::int64_t ny, std::int64_t nx, Mode my, Mode mx,
                RowsTaps<T, K> w, T cval, int strip, bool vec) {
  using Geo = RowsGeo<T, K>;
  constexpr bool STREAM = Geo::STREAM;
  constexpr int NT = Geo::NT, R = Geo::R, MH = Geo::MH, G = Geo::G, TW = Geo::TW, NCH = Geo::NCH, VL = Geo::VL,
                PITCH = Geo::PITCH, PF = Geo::PF;
  extern __shared__ __align__(16) unsigned char rows_smem[];
  T* const buf = reinterpret_cast<T*>(rows_smem);  // [2][G][PITCH]: vertical results of a chunk
  int* const rtab = reinterpret_cast<int*>(buf + 2 * G * PITCH);  // [R + G + R]: RowMap's table
  const int j = threadIdx.x;
  if (j < 2 * R + G) rtab[j] = static_cast<int>(map_index(j < R ? j - R : ny + (j - R), ny, my));
  const RowMap rmap{rtab, R};
  const std::int64_t plane = blockIdx.z;
  const T* const src = in + plane * ny * nx;
  T* const dst = out + plane * ny * nx;
  const std::int64_t x0 = std::int64_t(blockIdx.x) * TW;
  const int ys = static_cast<int>(blockIdx.y) * strip;
  const int ye = ny - ys < strip ? static_cast<int>(ny) : ys + strip;
  const std::int64_t col = map_index(x0 - R + j, nx, mx);
  const bool outside = col < 0;  // constant mode beyond the edge: the intermediate is cval there
  const T* const colp = src + (outside ? 0 : col);

  // acc[o % K]: partial sum of output row ys + o. Prologue: input rows ys - R + q, q < 2R, which
  // start outputs 0 .. 2R - 1 (input q adds w[i] x to output q - i).
  __syncthreads();  // the row map
  T acc[K];
#pragma unroll
  for (int q = 0; q < 2 * R; ++q) {
    const std::int64_t ym = rmap(ys - R + q, ny);
    const T s = ym < 0 ? cval : colp[(ym < 0 ? 0 : ym) * nx];
    acc[q] = fma(w.y[0], s, T(0));
#pragma unroll
    for (int i = 1; i <= q; ++i) acc[q - i] = fma(w.y[i], s, acc[q - i]);
  }
  acc[2 * R] = T(0);  // started by the first main row

  // Main rows: chunk c, row u is input row ys + R + c G + u; it starts output c G + u + 2R (slot
  // (u - 1) mod K), adds to the 2R before it, and completes output c G + u (slot u mod K).
  const int nchunks = (ye - ys + G - 1) / G;
  T s[G];
  if constexpr (STREAM)
    load_rows<0, PF>(s, colp, ys + R, ny, nx, rmap, cval);
  else
    load_rows<0, G>(s, colp, ys + R, ny, nx, rmap, cval);
  for (int c = 0; c < nchunks; ++c) {
    T* const b = buf + (c & 1) * (G * PITCH);
    const std::int64_t ychunk = std::int64_t(ys) + R + std::int64_t(c) * G;  // input row of u = 0
#pragma unroll
    for (int u = 0; u < G; ++u) {
      if constexpr (STREAM) {
        if (u + PF < G) s[(u + PF) % G] = load_row(colp, ychunk + u + PF, ny, nx, rmap, cval);
      }
#pragma unroll
      for (int i = 0; i < K; ++i) {
        constexpr int kK = K;
        const int slot = (u - 1 - i + 2 * kK) % kK;
        acc[slot] = fma(w.y[i], s[u], i == 0 ? T(0) : acc[slot]);
      }
      b[u * PITCH + j] = acc[u % K];
    }
    if (outside) {  // constant mode beyond the edge (a few threads of the edge bands)
#pragma unroll
      for (int u = 0; u < G; ++u) b[u * PITCH + j] = cval;
    }
    // The next chunk's first PF rows stay in flight through the barrier and the horizontal pass
    // (all G would not fit the register budget beside the accumulators); the rest follow it.
    const std::int64_t ynext = std::int64_t(ys) + R + std::int64_t(c + 1) * G;
    const bool more = c + 1 < nchunks;
    if (more) load_rows<0, PF>(s, colp, ynext, ny, nx, rmap, cval);
    __syncthreads();  // chunk c's buffer is complete; chunk c - 1's readers are done with the other

    // Horizontal: task (row u, 8-column group k) -> outputs (ys + c G + u, x0 + 8k .. + 7).
    const int yb = ys + c * G;
    for (int task = j; task < G * NCH; task += NT) {
      const int u = task % G, k = task / G;
      const int y = yb + u;
      const std::int64_t x = x0 + k * MH;
      if (y >= ye || x >= nx) continue;
      const T* line = b + u * PITCH + k * MH;
      T h[MH];
#pragma unroll
      for (int m = 0; m < MH; ++m) h[m] = T(0);
      constexpr int NW = MH + 2 * R, NV = (NW + VL - 1) / VL;
#pragma unroll
      for (int v = 0; v < NV; ++v) {
        T e[VL];
        load_vec<T>(line + v * VL, e);
#pragma unroll
        for (int t = 0; t < VL; ++t) {
          const int i = v * VL + t;  // input column x - R + i
#pragma unroll
          for (int m = 0; m < MH; ++m)
            if (i < NW && i - m >= 0 && i - m < K) h[m] = fma(w.x[i - m], e[t], h[m]);
        }
      }
      T* const o = dst + std::int64_t(y) * nx + x;
      if (vec && x + MH <= nx) {
#pragma unroll
        for (int m = 0; m < MH; m += VL) store_vec<T>(o + m, h + m);
      } else {
#pragma unroll
        for (int m = 0; m < MH; ++m)
          if (x + m < nx) o[m] = h[m];
      }
    }
    if constexpr (!STREAM)
      if (more) load_rows<PF, G>(s, colp, ynext, ny, nx, rmap, cval);
  }
}

}  // namespace rows_impl
}  // namespace cuskimage::ndimage::detail
