// The 2-D edge stencil's row-strip kernel (used by kernels/filters/edges.cu), in a header of its own
// so that its code is the unit: it is plain CUDA with no host-side state.
#pragma once

#include <cstdint>

#include "src/ndimage/boundary.hpp"

namespace cuskimage::filters::detail {

/// Weights of the 2-D stencils (kernel parameters: read through the constant bank). The separable
/// row kernel (SEP) reads the factors instead: wa[dy][dx] = ua[dy] va[dx] (b likewise).
template <class T>
struct StencilParams {
  T wa[25], wb[25];
  T ua[5], va[5], ub[5], vb[5];
  T root_ndim;
  T cval;
};

namespace rows_impl {

using ndimage::Mode;
using ndimage::detail::map_index;

// stencil2d_rows_kernel: no shared memory. A warp owns a 128-column segment (4 adjacent columns per
// lane: one 16-byte load per row for float, two for double) and walks down a strip of rows keeping
// the last K = 2R + 1 rows in registers, widened by R halo columns each side: lanes 1..30 take them
// from their neighbours by shuffles, lane 0 / lane 31 (and the last lane inside the image) load
// them through the boundary mode's column map, which is fixed per lane and computed once. Rows
// inside the image are a row-0 pointer plus row x pitch; the first K rows of a strip (which may lie
// above the image) and the R below its last output + R - 1 (past the image in the last strip) go
// through map_index, constant mode's outside rows being cval. Each input row is loaded once per
// strip plus 2R halo rows per strip; K rows are in flight per thread (3 x 16 B for 3x3 float), and
// ptxas's ~84 registers leave 5 blocks (20 warps) per SM: ~30 KB of loads in flight per SM.
// The sums are the tile kernel's (same window, same dy-then-dx FMA order, same magnitude and mask
// steps), so both kernels give identical results. Strip height: detail::plan_strips
// (kernels/ndimage/row_strips.cuh): 200 rows at 8192^2 (656 blocks, one wave; halo 1 %).
// SASS, 3x3 float, two windows, no mask: ~180 instructions per row step of 4 outputs (72 FFMA, 4
// IEEE square roots with their range checks, 3 loads, 2 shuffles, one 16-byte store, the rest
// addressing and loop control), ~45 per pixel: 0.09 ms of issue at 8192^2 at full rate, under the
// 0.128 ms floor (537 MB + 2R/S of the reads). Predicted ~0.15 ms for sobel.
constexpr int kRowWarps = 4;

template <class T>
__device__ __forceinline__ void load4(const T* p, T (&v)[4]) {
  if constexpr (sizeof(T) == 4) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
  } else {
    const double2 a = reinterpret_cast<const double2*>(p)[0], b = reinterpret_cast<const double2*>(p)[1];
    v[0] = a.x, v[1] = a.y, v[2] = b.x, v[3] = b.y;
  }
}

// A plain 16-byte store (a float4 assignment was split into 4 scalar stores here, and __stwb
// becomes a strong store). No memory clobber: the kernel never reads what it stores.
template <class T>
__device__ __forceinline__ void store4(T* p, const T (&v)[4]) {
#if defined(__CUDA_ARCH__)
  if constexpr (sizeof(T) == 4) {
    asm volatile("st.global.v4.f32 [%0], {%1, %2, %3, %4};" ::"l"(p), "f"(v[0]), "f"(v[1]), "f"(v[2]), "f"(v[3]));
  } else {
    asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(p), "d"(v[0]), "d"(v[1]));
    asm volatile("st.global.v2.f64 [%0], {%1, %2};" ::"l"(p + 2), "d"(v[2]), "d"(v[3]));
  }
#else
  for (int k = 0; k < 4; ++k) p[k] = v[k];
#endif
}

/// The 2-D magnitude, scikit-image's sqrt(a^2 + b^2) / sqrt(2), as sqrt((a^2 + b^2) * 0.5): the
/// halving is exact, so this is the correctly rounded value where NumPy's sqrt-then-divide rounds
/// twice (they differ by at most ~1.5 ulp); it saves the IEEE division's ~11 instructions.
template <class T>
__device__ __forceinline__ T magnitude2(T a, T b) {
  const T a2 = a * a, b2 = b * b;
  return sqrt((a2 + b2) * T(0.5));
}

/// 3x3 float: at most 128 registers (ptxas takes ~86: 5 blocks, 20 warps per SM); capping lower
/// (80 for 6 blocks) makes ptxas recompute the lanes' row pointers at every row (~40 instructions a
/// row). 5x5 float: 128 registers, 4 blocks (16 warps) per SM, no spills (uncapped ptxas takes 151:
/// 3 blocks; 102 for 5 blocks spills). Double 3x3 as ptxas sizes it (~170: 2 blocks).
template <class T, int R>
constexpr int rows_min_blocks() {
  return sizeof(T) == 4 ? 4 : 1;
}

/// The 4 outputs of the row whose window (or, SEP, x-filtered rows) ends in ring slot u: the
/// window's rows are slots u + 1 .. u + K (mod K), input rows o - R .. o + R. Sums in dy-then-dx
/// FMA order, then the magnitude and the mask bytes `m`. u is a constant once the caller's loop
/// is unrolled, so the ring stays in registers.
template <class T, int R, bool TWO, bool MASK, bool SEP, int K = 2 * R + 1, int E = 4 + 2 * R>
__device__ __forceinline__ void row_outputs(const StencilParams<T>& p, const T (&win)[SEP ? 1 : K][E],
                                            const T (&hxa)[SEP ? K : 1][4], const T (&hxb)[SEP && TWO ? K : 1][4],
                                            int u, unsigned m, T (&res)[4]) {
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    T a = T(0), b = T(0);
    if constexpr (SEP) {
#pragma unroll
      for (int dy = 0; dy < K; ++dy) {  // filtered input row o + dy - R
        a = fma(p.ua[dy], hxa[(u + 1 + dy) % K][k], a);
        if constexpr (TWO) b = fma(p.ub[dy], hxb[(u + 1 + dy) % K][k], b);
      }
    } else {
#pragma unroll
      for (int dy = 0; dy < K; ++dy)
#pragma unroll
        for (int dx = 0; dx < K; ++dx) {
          const T x = win[(u + 1 + dy) % K][k + dx];  // input row o + dy - R
          a = fma(p.wa[dy * K + dx], x, a);
          if constexpr (TWO) b = fma(p.wb[dy * K + dx], x, b);
        }
    }
    T v = a;
    if constexpr (TWO) v = magnitude2(a, b);
    if constexpr (MASK) v = v * static_cast<T>(((m >> (8 * k)) & 0xffu) != 0u);
    res[k] = v;
  }
}

// SEP (5x5 float, rank-1 windows such as farid's): each expanded row is filtered along x at once
// (4 outputs x K taps per window, kept in a ring of K filtered rows instead of the K expanded rows),
// and the output sums the ring along y: 2K FMAs per output and window instead of K^2 (farid: 80
// per row step of 4 outputs instead of 200). Sums: x first (dx order), then y (dy order), so the
// result differs from the 2-D sum's by rounding only (~1e-7 relative in float32).
template <class T, int R, bool TWO, bool MASK, bool SEP = false>
__global__ void __launch_bounds__(32 * kRowWarps, (rows_min_blocks<T, R>()))
    stencil2d_rows_kernel(const T* __restrict__ in, T* __restrict__ out, const bool* __restrict__ mask, int ny,
                          std::int64_t nx, Mode mode, StencilParams<T> p, int strip) {
  constexpr int K = 2 * R + 1, E = 4 + 2 * R;
  constexpr unsigned kAll = 0xffffffffu;
  const int lane = threadIdx.x & 31;
  const std::int64_t seg0 = (std::int64_t(blockIdx.x) * kRowWarps + (threadIdx.x >> 5)) * 128;
  if (seg0 >= nx) return;  // the whole warp: its segment lies past the image
  const std::int64_t c = seg0 + lane * 4;
  const bool valid = c < nx;                 // nx % 4 == 0: then c + 3 < nx too
  const std::int64_t cl = valid ? c : nx - 4;  // lanes past the image load (and never use) a valid group
  // Row addresses are row-0 pointer + row * pitch (one IMAD.WIDE): the host keeps pitch < 2^31 bytes.
  const int pitch = static_cast<int>(nx * static_cast<std::int64_t>(sizeof(T)));
  const std::int64_t plane = blockIdx.z;
  const T* const base = in + plane * ny * nx;
  const char* const vp = reinterpret_cast<const char*>(base + cl);
  char* const dst = reinterpret_cast<char*>(out + plane * ny * nx + c);
  const char* const mp = MASK ? reinterpret_cast<const char*>(mask + plane * ny * nx + cl) : nullptr;
  // Halo columns c - R .. c - 1 and c + 4 .. c + 3 + R through the mode's column map, once. Only lane
  // 0 (left) and lane 31 / the last lane inside the image (right) use them; the others take their
  // neighbours' columns by shuffles (and load their own column, harmlessly, in the halo slots).
  const bool ldir = lane == 0, rdir = lane == 31 || c + 4 >= nx;
  const char* hl[R];
  const char* hr[R];
  bool lcv[R], rcv[R];  // constant mode maps the column outside: cval
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const std::int64_t xl = map_index(c - R + j, nx, mode), xr = map_index(c + 4 + j, nx, mode);
    lcv[j] = xl < 0, rcv[j] = xr < 0;
    hl[j] = reinterpret_cast<const char*>(base + (ldir && xl >= 0 ? xl : cl));
    hr[j] = reinterpret_cast<const char*>(base + (rdir && valid && xr >= 0 ? xr : cl));
  }
  const int y0 = blockIdx.y * strip;
  const int rows = ny - y0 < strip ? ny - y0 : strip;
  const int nq = rows + 2 * R;  // input rows y0 - R + q, q < nq
  // The R input rows below the strip's last output row + R - 1 may lie past the image (the last
  // strip): their mapped rows (-1: constant mode's cval row).
  int bot[R];
#pragma unroll
  for (int j = 0; j < R; ++j) bot[j] = static_cast<int>(map_index(y0 + rows + j, ny, mode));

  // Ring of fetched rows (slot q % K): 4 columns, the directly loaded halo words, and the mask bytes
  // of output row y0 + q - 2R (the output computed when row q is expanded).
  T rv[K][4], rl[K][R], rr[K][R];
  unsigned rm[K];
  T win[SEP ? 1 : K][E];              // expanded rows, slot q % K: columns c - R .. c + 3 + R
  T hxa[SEP ? K : 1][4];              // SEP: rows filtered along x by va, slot q % K
  T hxb[SEP && TWO ? K : 1][4];       // SEP: ... by vb
#pragma unroll
  for (int u = 0; u < K; ++u) {
#pragma unroll
    for (int k = 0; k < 4; ++k) rv[u][k] = T(0);
#pragma unroll
    for (int j = 0; j < R; ++j) rl[u][j] = rr[u][j] = T(0);
    rm[u] = 0u;
  }

  // Row YR (inside the image) into slot S.
#define CUSK_FETCH_ROW(YR, S)                                                                      \
  do {                                                                                             \
    const std::int64_t off_ = std::int64_t(YR) * pitch;                                            \
    load4(reinterpret_cast<const T*>(vp + off_), rv[S]);                                           \
    _Pragma("unroll") for (int j_ = 0; j_ < R; ++j_) {                                             \
      if (ldir) rl[S][j_] = *reinterpret_cast<const T*>(hl[j_] + off_);                            \
      if (rdir) rr[S][j_] = *reinterpret_cast<const T*>(hr[j_] + off_);                            \
    }                                                                                              \
  } while (0)
  // Mapped row YM (-1: constant mode's cval row) into slot S.
#define CUSK_FETCH_MAPPED(YM, S)                                                                   \
  do {                                                                                             \
    const int ym_ = (YM);                                                                          \
    if (ym_ >= 0) {                                                                                \
      CUSK_FETCH_ROW(ym_, S);                                                                      \
    } else {                                                                                       \
      _Pragma("unroll") for (int k_ = 0; k_ < 4; ++k_) rv[S][k_] = p.cval;                         \
      _Pragma("unroll") for (int j_ = 0; j_ < R; ++j_) rl[S][j_] = rr[S][j_] = p.cval;             \
    }                                                                                              \
  } while (0)
  // The mask bytes of output row y0 + q - 2R.
#define CUSK_FETCH_MASK(Q, S) \
  rm[S] = *reinterpret_cast<const unsigned*>(mp + std::int64_t(y0 + (Q) - 2 * R) * static_cast<int>(nx))

  // The first K rows (the only ones that can lie above the image).
#pragma unroll
  for (int u = 0; u < K; ++u) {
    if (u < nq) {
      CUSK_FETCH_MAPPED(static_cast<int>(map_index(y0 - R + u, ny, mode)), u);
      if constexpr (MASK)
        if (u >= 2 * R) CUSK_FETCH_MASK(u, u);
    }
  }
  for (int qb = 0; qb < nq; qb += K) {
#pragma unroll
    for (int u = 0; u < K; ++u) {
      const int q = qb + u;
      // Expand row q (all lanes shuffle; the direct lanes keep their loads) into window slot u, or
      // (SEP) filter it along x into the rings' slot u.
      T e[E];
#pragma unroll
      for (int j = 0; j < R; ++j) {
        const T l = __shfl_up_sync(kAll, rv[u][4 - R + j], 1);
        const T r = __shfl_down_sync(kAll, rv[u][j], 1);
        e[j] = ldir ? (lcv[j] ? p.cval : rl[u][j]) : l;
        e[R + 4 + j] = rdir ? (rcv[j] ? p.cval : rr[u][j]) : r;
      }
#pragma unroll
      for (int k = 0; k < 4; ++k) e[R + k] = rv[u][k];
      if constexpr (SEP) {
#pragma unroll
        for (int k = 0; k < 4; ++k) {
          T a = T(0), b = T(0);
#pragma unroll
          for (int dx = 0; dx < K; ++dx) {
            a = fma(p.va[dx], e[k + dx], a);
            if constexpr (TWO) b = fma(p.vb[dx], e[k + dx], b);
          }
          hxa[u][k] = a;
          if constexpr (TWO) hxb[u][k] = b;
        }
      } else {
#pragma unroll
        for (int i = 0; i < E; ++i) win[u][i] = e[i];
      }
      const unsigned m = rm[u];
      // Fetch row q + K (K steps ahead). Rows up to the strip's last output + R - 1 lie inside the
      // image; the R below it may not (the last strip), and go through the map.
      const int qn = q + K;
      if (qn < nq) {
        if (qn < nq - R) {
          CUSK_FETCH_ROW(y0 - R + qn, u);
        } else {
          int ym = bot[0];
#pragma unroll
          for (int j = 1; j < R; ++j)
            if (qn == nq - R + j) ym = bot[j];
          CUSK_FETCH_MAPPED(ym, u);
        }
        if constexpr (MASK) CUSK_FETCH_MASK(qn, u);  // output row y0 + qn - 2R: inside the strip
      }
      const int o = q - 2 * R;
      if (o >= 0 && o < rows) {
        T res[4];
        row_outputs<T, R, TWO, MASK, SEP>(p, win, hxa, hxb, u, m, res);
        if (valid) store4(reinterpret_cast<T*>(dst + std::int64_t(y0 + o) * pitch), res);
      }
    }
  }
#undef CUSK_FETCH_MASK
#undef CUSK_FETCH_MAPPED
#undef CUSK_FETCH_ROW
}

}  // namespace rows_impl

}  // namespace cuskimage::filters::detail
