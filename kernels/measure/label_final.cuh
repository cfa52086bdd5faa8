// Pass 4 of measure.label (kernels/measure/label_kernels.cuh has the account): every tile's
// labels written from its work record and the final roots, without the image.
#pragma once

#include <cstdint>

#include "kernels/measure/label_tile.cuh"

namespace cuskimage::measure::detail::lbl {

/// The final pass's shared memory per warp.
template <class I, int kMaxRuns>
struct FinalSmem {
  I lab[kMaxRuns];  // label of every run
  int base[32];     // ordinal of each row's first run
  std::uint32_t starts[32];
};

/// 16-byte global stores (a plain int4 assignment was split into four 4-byte stores).
__device__ __forceinline__ void store16(std::int32_t* p, std::int32_t a, std::int32_t b, std::int32_t c,
                                        std::int32_t d) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.global.v4.s32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
#else  // host compilers (the SIMT emulator)
  p[0] = a, p[1] = b, p[2] = c, p[3] = d;
#endif
}
__device__ __forceinline__ void store16(std::int64_t* p, std::int64_t a, std::int64_t b) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.global.v2.s64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
#else
  p[0] = a, p[1] = b;
#endif
}

/// Final-pass stores: 16-byte words (rows a multiple of 16 bytes long, out 16-byte aligned), else
/// a label per lane and row.
constexpr int kStoreWide = 1;

/// Pass 4 (after the scan of the bitmap's popcounts: first[i] = final roots before word i).
/// From pass 1's Work record, without the image: the tile's root runs look up their region's
/// label (rank of the final root + 1), every run takes its root's, and the warp writes every
/// pixel of the tile. parent may alias out: a tile reads parent only at its own roots (one load
/// each, never following the pointer), before it writes them, and no other tile reads them.
template <class I, class L, int TY, int TZ, int kMaxRuns>
__global__ void __launch_bounds__(128, sizeof(I) == 4 ? 12 : 8)
    final_kernel(Work w, const I* parent, const unsigned* __restrict__ roots, const I* __restrict__ first, L* out,
                 Geom g, int mode) {
  using Sm = FinalSmem<I, kMaxRuns>;
  constexpr int W = 4;
  __shared__ Sm smem[W];
  const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
  Sm& sm = smem[warp];
  const auto ntiles = static_cast<std::uint32_t>(g.ntiles);
  const std::uint32_t step = gridDim.x * W;
  for (std::uint32_t t = blockIdx.x * W + warp; t < ntiles; t += step) {
    const TileAt a = tile_at<TY, TZ>(g, t);
    const uint2 rw = w.rows[std::int64_t(t) * 32 + lane];
    const std::uint32_t F = rw.x, S = rw.y;
    const int nr = __popc(S);
    int incl = nr;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const int v = __shfl_up_sync(kFull, incl, d);
      if (lane >= d) incl += v;
    }
    const int base = incl - nr;
    const int total = __shfl_sync(kFull, incl, 31);
    sm.base[lane] = base;
    sm.starts[lane] = S;
    __syncwarp();
    const uint4* rec = reinterpret_cast<const uint4*>(w.runs + std::int64_t(t) * kMaxRuns);
    auto unpack = [](const uint4& q, int k) {
      const unsigned v = k < 2 ? q.x : k < 4 ? q.y : k < 6 ? q.z : q.w;
      return static_cast<int>((k & 1) ? v >> 16 : v & 0xffffu);
    };

    // 1. Labels of the root runs (8 runs per lane; a root run is its own root).
    for (int o0 = lane * 8; o0 < total; o0 += 256) {
      const uint4 q = rec[o0 / 8];
      I R[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const int o = o0 + k;
        R[k] = -1;
        if (o < total && unpack(q, k) == o) {
          int r = 0;  // the row holding run o: the last row whose first ordinal is <= o
#pragma unroll
          for (int s = 16; s >= 1; s >>= 1)
            if (sm.base[r + s] <= o) r += s;
          const int x = nth_bit(sm.starts[r], o - sm.base[r]);
          R[k] = static_cast<I>(a.base + row_offset<TY>(a, g, r) + x);
        }
      }
      I P[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) P[k] = R[k] >= 0 ? parent[R[k]] : I(0);
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        if (R[k] < 0) continue;
        const std::int64_t wd = static_cast<std::int64_t>(P[k]) >> 5;
        const unsigned below = __ldg(roots + wd) & ((1u << (static_cast<int>(P[k]) & 31)) - 1u);
        sm.lab[o0 + k] = static_cast<I>(__ldg(first + wd) + static_cast<I>(__popc(below)) + 1);
      }
    }
    __syncwarp();
    // 2. Every other run takes its root's label (roots' entries are only read here).
    for (int o0 = lane * 8; o0 < total; o0 += 256) {
      const uint4 q = rec[o0 / 8];
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const int o = o0 + k, nd = unpack(q, k);
        if (o < total && nd != o) sm.lab[o] = sm.lab[nd];
      }
    }
    __syncwarp();

    // 3. Every pixel of the tile.
    const std::uint32_t rows_ok = __ballot_sync(kFull, row_inside<TY>(a, g, lane));
    auto label_at = [&](std::uint32_t Fr, std::uint32_t Sr, int br, int x) -> L {
      return ((Fr >> x) & 1u) ? static_cast<L>(sm.lab[run_of(br, Sr, x)]) : L(0);
    };
    if (mode & kStoreWide) {
      constexpr int PX = 16 / sizeof(L);  // pixels per 16-byte word: 4 (int32) or 2 (int64)
      constexpr int LPR = 32 / PX;        // lanes per row
      constexpr int RPI = 32 / LPR;       // rows per store instruction
#pragma unroll 2
      for (int i = 0; i < 32 / RPI; ++i) {
        const int r = i * RPI + lane / LPR, c = (lane % LPR) * PX;
        const std::uint32_t Fr = __shfl_sync(kFull, F, r), Sr = __shfl_sync(kFull, S, r);
        const int br = __shfl_sync(kFull, base, r);
        if (((rows_ok >> r) & 1u) && a.X0 + c < g.nx) {
          L* dst = out + a.base + row_offset<TY>(a, g, r) + c;
          if constexpr (PX == 4) {
            store16(dst, label_at(Fr, Sr, br, c), label_at(Fr, Sr, br, c + 1), label_at(Fr, Sr, br, c + 2),
                    label_at(Fr, Sr, br, c + 3));
          } else {
            store16(dst, label_at(Fr, Sr, br, c), label_at(Fr, Sr, br, c + 1));
          }
        }
      }
    } else {
      const bool xin = a.X0 + lane < g.nx;
#pragma unroll 4
      for (int r = 0; r < 32; ++r) {
        const std::uint32_t Fr = __shfl_sync(kFull, F, r), Sr = __shfl_sync(kFull, S, r);
        const int br = __shfl_sync(kFull, base, r);
        if (xin && ((rows_ok >> r) & 1u)) out[a.base + row_offset<TY>(a, g, r) + lane] = label_at(Fr, Sr, br, lane);
      }
    }
    __syncwarp();  // sm is reused by the warp's next tile
  }
}

}  // namespace cuskimage::measure::detail::lbl
