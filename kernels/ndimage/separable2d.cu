// Fused separable 2-D correlation on CUDA: ndimage.gaussian_filter / filters.gaussian over the last
// two axes of float32, float64, uint8 and uint16 images (a batch of planes), one read and one write.
//
// Floors (H200, 4.2 TB/s; one read + one write of the image):
//   8192^2 float32 537 MB -> 0.128 ms; float64 1074 MB -> 0.256 ms; uint8 134 MB -> 0.032 ms;
//   3840x2160 float32 66 MB -> 0.016 ms; 512^2 float32 2 MB -> 0.5 us (launch-bound, ~3 us).
//
// Float and double images, centred windows of K = 3 .. 33 taps, equal on both axes, run one of two
// kernels (both add in the same order, w[0] x[o - R] first, one FMA each: identical results):
//  * fused_kernel (tile): a 128 x 32 (double: 128 x 16) output tile per block, the extended input
//    tile copied to shared memory with cp.async, the axis-0 pass into an odd-pitch intermediate,
//    the axis-1 pass, a staged row-wise store. Issue grows with K (~87 instructions per pixel at
//    K = 25), fixed costs are low.
//  * rows_kernel (rows; kernels/ndimage/separable_rows.cuh): the vertical pass streams each column
//    down a strip of rows through K rotating register accumulators, the horizontal pass runs per
//    G-row chunk from a double-buffered shared buffer: ~64 instructions per pixel at K = 25, but a
//    barrier, a horizontal pass and (float) one exposed load latency per chunk of G >= 16 rows.
// Rule (measured on the H200, ms, tile / rows):
//   one plane, float32 K <= 15:  tile   (8192^2 K = 9: 0.197 / 0.240)
//   one plane, float32 K >= 17:  rows   (8192^2 K = 17: 0.247 / 0.233; K = 25: 0.303 / 0.267)
//   one plane, float64:          tile   (8192^2 K = 25: 0.491 / 0.618; K = 9: 0.311 / 0.530)
//   several planes (3-D), float32 and float64: rows (192^3 float32 K = 9: 0.124 / 0.089,
//                                K = 25: 0.193 / 0.131; float64 K = 25: 0.242 / 0.182)
// (K = 11 .. 15 were not measured: the tile kernel keeps them; taller images than the tile grid
// holds, > 65535 x 32 rows, take rows). tuning::Separable2dPolicy's f32 / f64 = tile | rows, read
// once per call, force one kernel for every K (the tests use them to cover each kernel). A row
// kernel with 32-row chunks and streamed loads (fewer barriers and horizontal passes per row at
// small K) lost everywhere (8192^2 float32 K = 9: 0.294 ms) and was removed.
// Why the row kernel loses at small K: at K = 9 it issues only ~26 instructions per pixel (9 + 9
// FMAs, a 4-byte load, a shared store, a quarter of a 16-byte store), so its per-chunk costs
// dominate: 18-row chunks, one barrier and a 558-task horizontal pass each (3 rounds of 256 threads
// for 2.2 tasks' work), and rows PF .. G - 1 loaded after the horizontal pass and consumed PF rows
// later (one latency exposed per chunk).
// Why double lost: G + K = 50 live samples at K = 25 needed 128 registers plus 124 bytes of spills
// (2 blocks per SM); the streamed loads keep PF = 8 samples live (124 registers, no spills):
// predicted ~0.38 ms (DFMA-bound: 50 per pixel at 64/clk/SM is 0.20 ms, plus the 0.256 ms floor
// partly overlapped) against the tile kernel's 0.493.
// Floors and other predictions: float32 3840x2160 K = 25 ~0.035 ms, 512^2 ~0.012 ms.
//
// uint8 / uint16 (exact): fused_kernel, the tile kernel, keeping scipy's double sums: a register
// window of doubles summed in scipy's symmetric order with separately rounded products
// (add_product), so the result is the CPU backend's bit for bit. ~0.45 ms for uint8 8192^2 (FP64-
// bound, ~85 DMUL/DADD per pixel; the floor is 0.032 ms). Tile 128 x 16 outputs, 256 threads;
// axis 0: thread per (column, 8 rows), lanes on consecutive columns; axis 1: thread per (row, 8
// columns), lanes on consecutive rows of an odd-pitch intermediate (conflict-free); results staged
// in shared memory and stored row-wise.
// Float windows wider than 33 taps, off-centre, or different per axis run the runtime-K kernel at
// the bottom (its interior tiles load with cp.async).
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "cuskimage/tuning.hpp"
#include "kernels/ndimage/row_strips.cuh"
#include "kernels/ndimage/separable_rows.cuh"
#include "src/core/cuda_check.hpp"
#include "src/ndimage/boundary.hpp"
#include "src/ndimage/separable2d.hpp"

namespace cuskimage::ndimage::detail {
namespace {

using ndimage::Mode;

constexpr int kThreads = 256;
constexpr int kMaxTaps = 33;

struct Geom {
  std::int64_t ny, nx;
  Mode my, mx;
};

template <int Bytes>
struct Policy;
template <>
struct Policy<4> {
  static constexpr int TW = 128, TH = 32, MV = 8, MH = 16;
};
template <>
struct Policy<8> {
  static constexpr int TW = 128, TH = 16, MV = 8, MH = 8;
};

/// Compile-time geometry of the tiled kernel for working type W (the shared-memory tile's type) and K taps.
template <class W, int K>
struct Geo {
  using P_ = Policy<sizeof(W)>;
  static constexpr int TW = P_::TW, TH = P_::TH, MV = P_::MV, MH = P_::MH;
  static constexpr int R = K / 2;
  static constexpr int V = 16 / static_cast<int>(sizeof(W));  // elements per 16-byte copy
  static constexpr int A = (R + V - 1) / V * V;                // left halo, rounded up to whole vectors
  static constexpr int ROWS = TH + 2 * R, P = TW + 2 * A;      // input tile: ROWS x P
  static constexpr int NC = TW + 2 * R, PI = NC + 1;           // axis-0 results: TH x NC, odd pitch PI
  static constexpr int PS = TW + 1;                            // staged outputs: TH x TW, odd pitch
  static constexpr std::size_t smem = (std::size_t(ROWS) * P + std::size_t(TH) * PI) * sizeof(W);
  static_assert(TH * (TW / MH) == kThreads, "axis-1 pass: one task per thread");
  static_assert(TH % MV == 0 && TW % MH == 0 && (TH & (TH - 1)) == 0, "tile shape");
  static_assert(std::size_t(TH) * PS <= std::size_t(ROWS) * P, "staging fits in the input tile");
};

template <class W, int K>
struct Taps {
  W y[K], x[K];
};

/// The tile kernel's working type: double for integer images (scipy's exact sums), else T.
template <class T>
using Work = std::conditional_t<std::is_integral_v<T>, double, T>;

template <class Tin, class W>
constexpr int min_blocks() {
  return std::is_integral_v<Tin> ? 2 : (sizeof(W) == 4 ? 4 : 3);
}

/// scipy's symmetric (flip = 0) or antisymmetric (flip = sign bit) window sum over win[m .. m+K-1]:
/// centre product, then pairs from the outside in, each product rounded before the add.
template <int K, int N>
__device__ __forceinline__ double exact_sum(const double (&win)[N], int m, const double (&w)[K], int flip) {
  constexpr int R = K / 2;
  double t = __dmul_rn(win[m + R], w[R]);
#pragma unroll
  for (int j = 0; j < R; ++j) {
    const double hi = win[m + K - 1 - j];
    const double b = __hiloint2double(__double2hiint(hi) ^ flip, __double2loint(hi));  // +-hi, exactly
    t = __dadd_rn(t, __dmul_rn(__dadd_rn(win[m + j], b), w[j]));
  }
  return t;
}

template <class Tin, class W, int K>
__global__ void __launch_bounds__(kThreads, (min_blocks<Tin, W>()))
    fused_kernel(const Tin* __restrict__ in, Tin* __restrict__ out, Geom g, Taps<W, K> w, W cval, bool vec,
                 int flip_y, int flip_x) {
  using G = Geo<W, K>;
  constexpr bool kExact = std::is_integral_v<Tin>;
  constexpr int TW = G::TW, TH = G::TH, MV = G::MV, MH = G::MH, R = G::R, A = G::A, ROWS = G::ROWS, P = G::P,
                NC = G::NC, PI = G::PI, PS = G::PS, V = G::V;
  extern __shared__ __align__(16) unsigned char smem[];
  W* tile = reinterpret_cast<W*>(smem);  // ROWS x P: input rows y0-R.., columns x0-A..
  W* inter = tile + ROWS * P;            // TH x PI: axis-0 results for columns x0-R..
  W* stage = tile;                       // TH x PS: final values (the input tile is dead by then)
  const int t = threadIdx.x;
  const std::int64_t plane = blockIdx.z;
  const std::int64_t y0 = std::int64_t(blockIdx.y) * TH, x0 = std::int64_t(blockIdx.x) * TW;
  const Tin* src = in + plane * g.ny * g.nx;
  const std::int64_t ys = y0 - R, xs = x0 - A;

  // ---- load ----
  const bool interior = ys >= 0 && ys + ROWS <= g.ny && xs >= 0 && xs + P <= g.nx;
  if (interior) {
    if constexpr (!kExact) {
      if (vec) {
        constexpr int VPR = P / V;
        for (int i = t; i < ROWS * VPR; i += kThreads) {
          const int r = i / VPR, c = (i - r * VPR) * V;
          __pipeline_memcpy_async(tile + r * P + c, src + (ys + r) * g.nx + xs + c, 16);
        }
      } else {
        for (int i = t; i < ROWS * P; i += kThreads) {
          const int r = i / P, c = i - r * P;
          __pipeline_memcpy_async(tile + i, src + (ys + r) * g.nx + xs + c, sizeof(W));
        }
      }
      __pipeline_commit();
      __pipeline_wait_prior(0);
    } else {
#pragma unroll 4
      for (int i = t; i < ROWS * P; i += kThreads) {
        const int r = i / P, c = i - r * P;
        tile[i] = static_cast<W>(src[(ys + r) * g.nx + xs + c]);
      }
    }
  } else {
    const int lane = t & 31, warp = t >> 5;
    for (int r = warp; r < ROWS; r += kThreads / 32) {
      const std::int64_t y = map_index(ys + r, g.ny, g.my);
      const Tin* row = src + (y < 0 ? 0 : y) * g.nx;
      for (int c = lane; c < P; c += 32) {
        const std::int64_t x = map_index(xs + c, g.nx, g.mx);
        tile[r * P + c] = (y < 0 || x < 0) ? cval : static_cast<W>(row[x]);
      }
    }
  }
  __syncthreads();

  // ---- axis 0: thread per (column j of the NC needed by axis 1, MV consecutive rows) ----
  for (int task = t; task < NC * (TH / MV); task += kThreads) {
    const int seg = task / NC, j = task - seg * NC, r0 = seg * MV;
    W* dst = inter + r0 * PI + j;
    const std::int64_t gx = x0 - R + j;
    if (g.mx == Mode::constant && (gx < 0 || gx >= g.nx)) {
      // Axis 1 sees cval itself beyond the edge (scipy's second pass extends the intermediate).
#pragma unroll
      for (int m = 0; m < MV; ++m) dst[m * PI] = cval;
      continue;
    }
    const W* col = tile + r0 * P + (A - R) + j;
    if constexpr (kExact) {
      double win[MV + K - 1];
#pragma unroll
      for (int i = 0; i < MV + K - 1; ++i) win[i] = col[i * P];
#pragma unroll
      for (int m = 0; m < MV; ++m) dst[m * PI] = static_cast<double>(cast_out<Tin>(exact_sum<K>(win, m, w.y, flip_y)));
    } else {
      W acc[MV];
#pragma unroll
      for (int m = 0; m < MV; ++m) acc[m] = W(0);
#pragma unroll
      for (int i = 0; i < MV + K - 1; ++i) {
        const W s = col[i * P];
#pragma unroll
        for (int m = 0; m < MV; ++m)
          if (i - m >= 0 && i - m < K) acc[m] = fma(w.y[i - m], s, acc[m]);
      }
#pragma unroll
      for (int m = 0; m < MV; ++m) dst[m * PI] = acc[m];
    }
  }
  __syncthreads();

  // ---- axis 1: thread per (row, MH consecutive columns); lanes on consecutive rows ----
  {
    const int row = t % TH, seg = t / TH;
    const W* line = inter + row * PI + seg * MH;
    W* st = stage + row * PS + seg * MH;
    if constexpr (kExact) {
      double win[MH + K - 1];
#pragma unroll
      for (int i = 0; i < MH + K - 1; ++i) win[i] = line[i];
#pragma unroll
      for (int m = 0; m < MH; ++m) st[m] = static_cast<double>(cast_out<Tin>(exact_sum<K>(win, m, w.x, flip_x)));
    } else {
      W acc[MH];
#pragma unroll
      for (int m = 0; m < MH; ++m) acc[m] = W(0);
#pragma unroll
      for (int i = 0; i < MH + K - 1; ++i) {
        const W s = line[i];
#pragma unroll
        for (int m = 0; m < MH; ++m)
          if (i - m >= 0 && i - m < K) acc[m] = fma(w.x[i - m], s, acc[m]);
      }
#pragma unroll
      for (int m = 0; m < MH; ++m) st[m] = acc[m];
    }
  }
  __syncthreads();

  // ---- store: row-wise, coalesced ----
  Tin* dst = out + plane * g.ny * g.nx;
  const bool full = y0 + TH <= g.ny && x0 + TW <= g.nx;
#pragma unroll 4
  for (int i = t; i < TH * TW; i += kThreads) {
    const int r = i / TW, c = i % TW;
    const std::int64_t y = y0 + r, x = x0 + c;
    if (full || (y < g.ny && x < g.nx)) dst[y * g.nx + x] = static_cast<Tin>(stage[r * PS + c]);
  }
}

// ---- runtime-K kernel for wide or off-centre windows (float/double) -----------------------------
// The previous design, kept for windows beyond the template buckets: weights in shared memory,
// register-blocked sliding windows (see slide); interior tiles load with cp.async, border tiles
// through map_index. Predicted ~0.35 ms for 8192^2 float32 at K = 25 (3 blocks/SM, weights read
// from shared memory beside the samples).
constexpr int kLMX = 3, kLMY = 8, kLU = 4, kLTW = 32 * kLMX;
template <class T>
constexpr int legacy_th() {
  return sizeof(T) == 4 ? 64 : 32;
}
constexpr std::size_t kLegacySmemMax = 160 * 1024;

template <class T, int M>
__device__ __forceinline__ void slide(const T* x, int stride, const T* w, int k, T (&acc)[M]) {
  T win[M + kLU - 1];
#pragma unroll
  for (int i = 0; i < M - 1; ++i) win[i] = x[i * stride];
  int j = 0;
  for (; j + kLU <= k; j += kLU) {
#pragma unroll
    for (int u = 0; u < kLU; ++u) win[M - 1 + u] = x[(j + M - 1 + u) * stride];
#pragma unroll
    for (int u = 0; u < kLU; ++u) {
      const T wj = w[j + u];
#pragma unroll
      for (int m = 0; m < M; ++m) acc[m] = fma(wj, win[m + u], acc[m]);
    }
#pragma unroll
    for (int i = 0; i < M - 1; ++i) win[i] = win[i + kLU];
  }
  for (; j < k; ++j) {
    win[M - 1] = x[(j + M - 1) * stride];
    const T wj = w[j];
#pragma unroll
    for (int m = 0; m < M; ++m) acc[m] = fma(wj, win[m], acc[m]);
#pragma unroll
    for (int i = 0; i < M - 1; ++i) win[i] = win[i + 1];
  }
}

struct LegacyGeom {
  std::int64_t ny, nx;
  int ky, kx;
  std::int64_t ly, lx;
  Mode my, mx;
};

template <class T>
__global__ void __launch_bounds__(kThreads)
    legacy_kernel(const T* __restrict__ in, T* __restrict__ out, LegacyGeom g, const double* __restrict__ weights,
                  T cval) {
  constexpr int TH = legacy_th<T>();
  extern __shared__ __align__(16) unsigned char smem[];
  const int win_w = kLTW + g.kx - 1, rows_in = TH + g.ky - 1, pitch = win_w;
  T* tile = reinterpret_cast<T*>(smem);
  T* inter = tile + rows_in * pitch;
  T* wy = inter + TH * pitch;
  T* wx = wy + g.ky;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const std::int64_t plane = blockIdx.z;
  const std::int64_t y0 = std::int64_t(blockIdx.y) * TH, x0 = std::int64_t(blockIdx.x) * kLTW;
  const T* src = in + plane * g.ny * g.nx;
  for (int i = t; i < g.ky + g.kx; i += kThreads) wy[i] = static_cast<T>(weights[i]);
  const std::int64_t ys = y0 - g.ly, xs = x0 - g.lx;
  if (ys >= 0 && ys + rows_in <= g.ny && xs >= 0 && xs + win_w <= g.nx) {
    // Interior: every load in flight at once, no index mapping.
    for (int r = warp; r < rows_in; r += kThreads / 32)
      for (int c = lane; c < win_w; c += 32)
        __pipeline_memcpy_async(tile + r * pitch + c, src + (ys + r) * g.nx + xs + c, sizeof(T));
    __pipeline_commit();
    __pipeline_wait_prior(0);
  } else {
    for (int r = warp; r < rows_in; r += kThreads / 32) {
      const std::int64_t y = map_index(ys + r, g.ny, g.my);
      const T* row = src + (y < 0 ? 0 : y) * g.nx;
      for (int c = lane; c < win_w; c += 32) {
        const std::int64_t x = map_index(xs + c, g.nx, g.mx);
        tile[r * pitch + c] = (y < 0 || x < 0) ? cval : row[x];
      }
    }
  }
  __syncthreads();
  for (int task = t; task < win_w * (TH / kLMY); task += kThreads) {
    const int c = task % win_w, r0 = (task / win_w) * kLMY;
    T acc[kLMY];
#pragma unroll
    for (int m = 0; m < kLMY; ++m) acc[m] = T(0);
    const bool outside = g.mx == Mode::constant && (x0 - g.lx + c < 0 || x0 - g.lx + c >= g.nx);
    if (!outside) slide<T, kLMY>(tile + r0 * pitch + c, pitch, wy, g.ky, acc);
#pragma unroll
    for (int m = 0; m < kLMY; ++m) inter[(r0 + m) * pitch + c] = outside ? cval : acc[m];
  }
  __syncthreads();
  T* stage = tile;
  for (int task = t; task < TH * 32; task += kThreads) {
    const int r = task >> 5, s = task & 31;
    T acc[kLMX];
#pragma unroll
    for (int m = 0; m < kLMX; ++m) acc[m] = T(0);
    slide<T, kLMX>(inter + r * pitch + s * kLMX, 1, wx, g.kx, acc);
#pragma unroll
    for (int m = 0; m < kLMX; ++m) stage[r * kLTW + s * kLMX + m] = acc[m];
  }
  __syncthreads();
  T* dst = out + plane * g.ny * g.nx;
  for (int r = warp; r < TH; r += kThreads / 32) {
    const std::int64_t y = y0 + r;
    if (y >= g.ny) break;
    for (int c = lane; c < kLTW; c += 32)
      if (x0 + c < g.nx) dst[y * g.nx + x0 + c] = stage[r * kLTW + c];
  }
}

template <class T>
std::size_t legacy_smem(int ky, int kx) {
  const std::size_t pitch = kLTW + kx - 1;
  return ((legacy_th<T>() + ky - 1) * pitch + legacy_th<T>() * pitch + ky + kx) * sizeof(T);
}

// ---- host side ----------------------------------------------------------------------------------
/// The template bucket for a centred window of k taps (odd), or 0 when none fits. Integer images pad
/// narrower windows with zero weights (exact: finite samples times 0 add nothing); float images use
/// the exact tap count, since 0 * inf would turn a far infinite sample into NaN where scipy's
/// narrower window never reads it.
template <class T>
int bucket_for(std::int64_t ky, std::int64_t kx) {
  if constexpr (std::is_integral_v<T>) {
    for (int b : {5, 9, 13, 17, 25, kMaxTaps})
      if (std::max(ky, kx) <= b) return b;
    return 0;
  } else {
    // (A single tap runs the runtime-K kernel: the row kernel's smallest window is 3.)
    return ky == kx && ky % 2 == 1 && ky >= 3 && ky <= kMaxTaps ? static_cast<int>(ky) : 0;
  }
}

/// The bucket K (> 0) for the templated kernel, 0 for the runtime-K kernel, -1 when nothing fits.
template <class T>
int plan_kind(const Shape& shape, const Separable2d& p) {
  const int nd = static_cast<int>(shape.size());
  if (nd < 2) return -1;
  const std::int64_t ny = shape[nd - 2], nx = shape[nd - 1];
  if (ny == 0 || nx == 0) return -1;
  const std::int64_t planes = shape_size(shape) / (ny * nx);
  const std::int64_t ky = static_cast<std::int64_t>(p.wy.size()), kx = static_cast<std::int64_t>(p.wx.size());
  if (ky < 1 || kx < 1 || planes > 65535) return -1;
  const bool constant = p.my == Mode::constant || p.mx == Mode::constant;
  const bool centred = ky % 2 == 1 && kx % 2 == 1 && p.ly == ky / 2 && p.lx == kx / 2;
  const int K = centred ? bucket_for<T>(ky, kx) : 0;
  if constexpr (std::is_integral_v<T>) {
    // Exact: scipy's symmetric summation order (zero padding adds exact zeros first).
    if (K == 0 || p.sy == 0 || p.sx == 0) return -1;
    if ((ny + Geo<double, 5>::TH - 1) / Geo<double, 5>::TH > 65535) return -1;
    return K;
  } else {
    // Constant mode needs cval exactly in T (else the pass form keeps it as double).
    if (constant && static_cast<double>(static_cast<T>(p.cval)) != p.cval) return -1;
    // The row kernel takes any K-tap image of <= 2^30 rows (int rows, grid.y <= 65535 strips); the
    // tile kernel, where chosen, hands taller grids to it.
    if (K > 0 && ny <= (std::int64_t(1) << 30)) return K;
    if (ky > 4096 || kx > 4096 || legacy_smem<T>(static_cast<int>(ky), static_cast<int>(kx)) > kLegacySmemMax ||
        (ny + legacy_th<T>() - 1) / legacy_th<T>() > 65535)
      return -1;
    return 0;
  }
}

/// Raises the dynamic shared-memory limit of `kernel` once per device (a host-side attribute);
/// `max_carveout` also asks for the largest shared-memory carveout (several blocks of a kernel that
/// streams its loads past L1 then fit on an SM).
template <class Kernel>
void allow_smem(Kernel kernel, std::size_t bytes, std::atomic<std::uint64_t>& done, bool max_carveout = false) {
  int dev = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  const std::uint64_t bit = std::uint64_t(1) << (dev & 63);
  if (done.load(std::memory_order_acquire) & bit) return;
  CUSK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  if (max_carveout)
    CUSK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                         static_cast<int>(cudaSharedmemCarveoutMaxShared)));
  done.fetch_or(bit, std::memory_order_acq_rel);
}

/// The tile kernel: uint8 / uint16 exact (narrower windows zero-padded to the bucket K), float /
/// double in T. False (nothing launched) when grid.y would pass 65535 tiles.
template <class T, int K>
bool launch_fused(const Array& in, Array& out, const Separable2d& p, cudaStream_t stream) {
  using W = Work<T>;
  using G = Geo<W, K>;
  const int nd = in.ndim();
  const std::int64_t ny = in.shape()[nd - 2], nx = in.shape()[nd - 1], planes = in.size() / (ny * nx);
  if ((ny + G::TH - 1) / G::TH > 65535) return false;
  Taps<W, K> w{};
  const int py = (K - static_cast<int>(p.wy.size())) / 2, px = (K - static_cast<int>(p.wx.size())) / 2;
  for (std::size_t i = 0; i < p.wy.size(); ++i) w.y[py + i] = static_cast<W>(p.wy[i]);
  for (std::size_t i = 0; i < p.wx.size(); ++i) w.x[px + i] = static_cast<W>(p.wx[i]);
  static std::atomic<std::uint64_t> smem_set{0};
  auto* kernel = fused_kernel<T, W, K>;
  allow_smem(kernel, G::smem, smem_set);
  const bool vec = !std::is_integral_v<T> && nx % G::V == 0 && reinterpret_cast<std::uintptr_t>(in.data()) % 16 == 0;
  const Geom g{ny, nx, p.my, p.mx};
  const dim3 grid(static_cast<unsigned>((nx + G::TW - 1) / G::TW), static_cast<unsigned>((ny + G::TH - 1) / G::TH),
                  static_cast<unsigned>(planes));
  const int sign = static_cast<int>(0x80000000u);
  kernel<<<grid, kThreads, G::smem, stream>>>(static_cast<const T*>(in.data()), static_cast<T*>(out.data()), g, w,
                                              static_cast<W>(p.cval), vec, p.sy < 0 ? sign : 0, p.sx < 0 ? sign : 0);
  CUSK_CUDA_CHECK_LAUNCH();
  return true;
}

/// float / double: the row-strip kernel (kernels/ndimage/separable_rows.cuh), chunks of >= 16 rows.
template <class T, int K>
void launch_rows(const Array& in, Array& out, const Separable2d& p, cudaStream_t stream) {
  using G = rows_impl::RowsGeo<T, K>;
  const int nd = in.ndim();
  const std::int64_t ny = in.shape()[nd - 2], nx = in.shape()[nd - 1], planes = in.size() / (ny * nx);
  rows_impl::RowsTaps<T, K> w{};
  for (int i = 0; i < K; ++i) w.y[i] = static_cast<T>(p.wy[i]), w.x[i] = static_cast<T>(p.wx[i]);
  auto* kernel = rows_impl::rows_kernel<T, K>;
  static std::atomic<std::uint64_t> smem_set{0};
  allow_smem(kernel, G::smem, smem_set, true);
  static std::atomic<int> occupancy[64];
  int sms = 1, resident = 1;
  cuskimage::detail::device_fill(kernel, G::NT, G::smem, sms, resident, occupancy);
  const std::int64_t col_blocks = (nx + G::TW - 1) / G::TW;
  // ~3 resident blocks (24 warps) hide the loads' latency.
  const auto plan = cuskimage::detail::plan_strips(ny, G::G, 2 * G::R, col_blocks, planes, sms, resident, 3);
  const bool vec = nx % G::VL == 0 && reinterpret_cast<std::uintptr_t>(out.data()) % 16 == 0;
  const dim3 grid(static_cast<unsigned>(col_blocks), static_cast<unsigned>(plan.strips), static_cast<unsigned>(planes));
  kernel<<<grid, G::NT, G::smem, stream>>>(static_cast<const T*>(in.data()), static_cast<T*>(out.data()), ny, nx, p.my,
                                           p.mx, w, static_cast<T>(p.cval), static_cast<int>(plan.rows), vec);
  CUSK_CUDA_CHECK_LAUNCH();
}

/// Which kernel runs a float / double window of K = 3 .. 33 taps (see the header for the rule and
/// the measurements behind it).
enum class FloatKernel { tile, rows };

/// Float32 windows of at least this many taps take the row kernel, narrower ones the tile kernel.
constexpr int kRowsMinTapsF32 = 17;

template <class T>
FloatKernel float_kernel_for(int K, std::int64_t planes, const tuning::Separable2dPolicy& policy) {
  switch (sizeof(T) == 4 ? policy.f32 : policy.f64) {
    case tuning::Separable2dKernel::tile: return FloatKernel::tile;
    case tuning::Separable2dKernel::rows: return FloatKernel::rows;
    case tuning::Separable2dKernel::automatic: break;
  }
  if (planes > 1) return FloatKernel::rows;
  if constexpr (sizeof(T) == 4)
    return K >= kRowsMinTapsF32 ? FloatKernel::rows : FloatKernel::tile;
  else
    return FloatKernel::tile;
}

/// float / double, K taps on both axes: the kernel float_kernel_for picks (the tile kernel's grid
/// holds ny <= 65535 x 32 (16) rows; taller images take the row kernel).
template <class T, int K>
void launch_float(const Array& in, Array& out, const Separable2d& p, const tuning::Separable2dPolicy& policy,
                  cudaStream_t stream) {
  const std::int64_t ny = in.shape()[in.ndim() - 2], nx = in.shape()[in.ndim() - 1];
  const FloatKernel k = float_kernel_for<T>(K, ny * nx > 0 ? in.size() / (ny * nx) : 1, policy);
  if (k == FloatKernel::tile && launch_fused<T, K>(in, out, p, stream)) return;
  launch_rows<T, K>(in, out, p, stream);
}

template <class T>
void launch_legacy(const Array& in, Array& out, const Separable2d& p, const Stream& stream) {
  if constexpr (!std::is_integral_v<T>) {
    const int nd = in.ndim();
    const std::int64_t ny = in.shape()[nd - 2], nx = in.shape()[nd - 1], planes = in.size() / (ny * nx);
    const int ky = static_cast<int>(p.wy.size()), kx = static_cast<int>(p.wx.size());
    const std::size_t smem = legacy_smem<T>(ky, kx);
    static std::atomic<std::uint64_t> smem_set{0};
    allow_smem(legacy_kernel<T>, kLegacySmemMax, smem_set);
    std::vector<double> w(p.wy);
    w.insert(w.end(), p.wx.begin(), p.wx.end());
    // The weights travel stream-ordered (pinned staging); the host vector may go right after.
    const Array wd = Array::from_vector(w, {static_cast<std::int64_t>(w.size())}).to(in.device(), stream);
    const LegacyGeom g{ny, nx, ky, kx, p.ly, p.lx, p.my, p.mx};
    const dim3 grid(static_cast<unsigned>((nx + kLTW - 1) / kLTW),
                    static_cast<unsigned>((ny + legacy_th<T>() - 1) / legacy_th<T>()), static_cast<unsigned>(planes));
    legacy_kernel<T><<<grid, kThreads, smem, stream.handle()>>>(static_cast<const T*>(in.data()), static_cast<T*>(out.data()), g,
                                                       static_cast<const double*>(wd.data()), static_cast<T>(p.cval));
    CUSK_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

template <class T>
bool cuda_separable2d_fits(const Shape& shape, const Separable2d& plan) {
  return shape_size(shape) == 0 || plan_kind<T>(shape, plan) >= 0;
}

template <class T>
bool cuda_separable2d(const Array& in, Array& out, const Separable2d& p, const Stream& s) {
  if (in.size() == 0) return true;
  const int kind = plan_kind<T>(in.shape(), p);
  if (kind < 0) return false;
  if (kind == 0) {
    launch_legacy<T>(in, out, p, s);
    return true;
  }
  const cudaStream_t stream = s.handle();
#define CUSK_K(K)                                    \
  case K:                                            \
    if (!launch_fused<T, K>(in, out, p, stream)) return false; \
    break;
#define CUSK_R(K)                          \
  case K:                                  \
    launch_float<T, K>(in, out, p, policy, stream); \
    break;
  const tuning::Separable2dPolicy policy = tuning::separable2d_policy();
  if constexpr (std::is_integral_v<T>) {
    switch (kind) {
      CUSK_K(5) CUSK_K(9) CUSK_K(13) CUSK_K(17) CUSK_K(25) CUSK_K(33)
      default: return false;
    }
  } else {
    switch (kind) {
      CUSK_R(3) CUSK_R(5) CUSK_R(7) CUSK_R(9) CUSK_R(11) CUSK_R(13) CUSK_R(15) CUSK_R(17)
      CUSK_R(19) CUSK_R(21) CUSK_R(23) CUSK_R(25) CUSK_R(27) CUSK_R(29) CUSK_R(31) CUSK_R(33)
      default: return false;
    }
  }
#undef CUSK_R
#undef CUSK_K
  return true;
}

#define CUSK_SEPARABLE2D(T)                                                                  \
  template bool cuda_separable2d<T>(const Array&, Array&, const Separable2d&, const Stream&); \
  template bool cuda_separable2d_fits<T>(const Shape&, const Separable2d&);
CUSK_SEPARABLE2D(std::uint8_t)
CUSK_SEPARABLE2D(std::uint16_t)
CUSK_SEPARABLE2D(float)
CUSK_SEPARABLE2D(double)
#undef CUSK_SEPARABLE2D

}  // namespace cuskimage::ndimage::detail
