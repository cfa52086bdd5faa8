// CUDA kernels of the edge filters (sobel/scharr/prewitt/farid/roberts/laplace on 2-D float images)
// and the element-wise steps of the edge and smoothing filters.
//
// 2-D: one fused pass from the image to the result (one or two correlation windows, the magnitude
// sqrt(a^2 + b^2) / sqrt(ndim) and the eroded mask applied in registers): no intermediate arrays.
// Traffic: one read and one write, 8192^2 float32 = 537 MB, floor 0.128 ms at 4.2 TB/s
// (scikit-image's form moves ~6x that: two convolutions, squares, sums, sqrt). With a mask: + 67 MB
// (0.016 ms). Weights are kernel parameters (constant-bank operands of the FMAs). Sums are in T:
// float32 images agree with scipy's double sums within ~1e-6 * sum|w| * max|input|.
//
// Kernels (both sum in the same order, dy then dx, one FMA each, and apply the same magnitude and
// mask steps, so their results are identical; the separable row kernel sums x then y):
//  * stencil2d_rows_kernel (rows; kernels/filters/stencil_rows.cuh), for images whose width is a
//    multiple of 4 on 16-byte-aligned buffers: no shared memory, each warp streams a 128-column
//    segment down a strip of rows with the last 2R + 1 rows in registers and the halo columns from
//    neighbour lanes by shuffles. It keeps K rows of 16-byte loads in flight per thread, re-reads
//    2R rows per strip (1 % at 8192^2) and stores 16 bytes per lane. SASS per 4 outputs (3x3, two
//    windows): 72 FFMA, 4 IEEE square roots, 3 loads, 2 shuffles, one STG.128, the rest addressing
//    and loop control: ~45 instructions per pixel. 5x5 two windows: ~100 per pixel (200 FFMA per 4
//    outputs), issue-bound: 0.452 ms for farid with 3 blocks (151 registers) per SM; now capped at
//    128 registers (4 blocks per SM, no spills, ~10 % more instructions; not measured yet).
//  * the same kernel with SEP (sep), float32 5x5 rank-1 windows (farid's are outer products of its
//    5-tap derivative and smoothing filters; the host factors them, factor_rank1): each expanded row
//    is filtered along x once (4 outputs x 5 taps per window) into a ring of K filtered rows, the
//    output sums the ring along y: 80 FFMA per 4 outputs instead of 200, ~74 instructions per pixel
//    (SASS, loop body), 128 registers (4 blocks per SM). Predicted farid 8192^2 ~0.20 ms.
//  * stencil2d_kernel (tile, below): a 32 x 256-thread block owns a 32 x 64 output tile; the
//    (64 + 2R) x (32 + 2A) extended input tile (A = R rounded up to a 16-byte vector) sits in shared
//    memory, copied with cp.async in interior tiles and through map_index in border tiles; each
//    thread computes MY = 8 outputs down one column from a (MY + 2R) x (2R + 1) register window.
//    Also every image the row kernels do not take (widths not a multiple of 4, misaligned views).
// Rule (H200, 8192^2, ms):
//   3x3 float32 and float64 (sobel, scharr, prewitt, laplace, roberts): rows
//       (sobel float32 0.157 against the tile kernel's 0.232; target <= 0.20; float64 0.360)
//   5x5 float32 (farid): sep, the separable row kernel, when the window is rank 1 (farid's are)
//       (0.244 against tile 0.340 and rows 0.301; 3840x2160: 0.040 / 0.058 / 0.048), else rows
//   5x5 float64: tile (the row kernel would need ~250 registers)
// Overrides, read once per call (the tests use them to cover each kernel): tuning::StencilPolicy's
// r1_f32, r1_f64, r2_f32 = tile | rows | separable_rows (float32 5x5 only, non-rank-1 windows fall
// back to rows); images the row kernels cannot take still run the tile kernel, and images taller
// than the tile grid (65535 x 64 rows) the row kernel. Why the first row kernel
// lost against the tile kernel at 8192^2 for sobel (0.232 ms; Nsight: 1.8 TB/s, neither memory-
// nor compute-bound): one tile per block, its load phase (cp.async, wait, barrier) not overlapped
// with its own compute, 25 % halo re-reads through L2, an element-wise compute-then-store; a
// persistent cp.async ring measured 0.265 ms.
//
// stencil3d_kernel: the same for 3-D volumes (sobel/scharr/prewitt/farid magnitude over the three
// axes, their single-axis forms, laplace), separably: the kernels scikit-image builds are outer
// products (edge weights along one axis, smoothing along the others), so a block computes, from a
// shared tile, x-filtered rows (smooth and edge), then y, then z, and forms the three gradients and
// the magnitude in registers. 192^3 float32: 2 x 28 MB, floor 0.0135 ms; predicted ~0.03 ms.
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cmath>
#include <cstdint>

#include "cuskimage/tuning.hpp"
#include "kernels/core/elementwise.cuh"
#include "kernels/filters/stencil_rows.cuh"
#include "kernels/ndimage/row_strips.cuh"
#include "src/core/cuda_check.hpp"
#include "src/filters/edges.hpp"
#include "src/filters/stencil3d.hpp"
#include "src/ndimage/boundary.hpp"

namespace cuskimage::filters::detail {
namespace {

using ndimage::Mode;
using ndimage::detail::map_index;
using rows_impl::kRowWarps;
using rows_impl::stencil2d_rows_kernel;

constexpr int kTX = 32, kTY = 8, kMY = 8, kTileH = kTY * kMY;

template <class T, int R, bool TWO>
__global__ void __launch_bounds__(kTX * kTY)
    stencil2d_kernel(const T* __restrict__ in, T* __restrict__ out, const bool* __restrict__ mask, std::int64_t ny,
                     std::int64_t nx, Mode mode, StencilParams<T> p, bool vec) {
  constexpr int K = 2 * R + 1, TH = kTileH + 2 * R;
  constexpr int V = 16 / static_cast<int>(sizeof(T)), A = (R + V - 1) / V * V, TW = kTX + 2 * A;
  __shared__ __align__(16) T tile[TH * TW];  // rows y0-R.., columns x0-A..
  const std::int64_t plane = blockIdx.z;
  const std::int64_t y0 = std::int64_t(blockIdx.y) * kTileH, x0 = std::int64_t(blockIdx.x) * kTX;
  const std::int64_t ys = y0 - R, xs = x0 - A;
  const T* src = in + plane * ny * nx;
  const int t = threadIdx.y * kTX + threadIdx.x;
  if (ys >= 0 && ys + TH <= ny && xs >= 0 && xs + TW <= nx) {
    if (vec) {
      constexpr int VPR = TW / V;
      for (int i = t; i < TH * VPR; i += kTX * kTY) {
        const int r = i / VPR, c = (i - r * VPR) * V;
        __pipeline_memcpy_async(tile + r * TW + c, src + (ys + r) * nx + xs + c, 16);
      }
    } else {
      for (int i = t; i < TH * TW; i += kTX * kTY) {
        const int r = i / TW, c = i - r * TW;
        __pipeline_memcpy_async(tile + i, src + (ys + r) * nx + xs + c, sizeof(T));
      }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
  } else {
    for (int r = threadIdx.y; r < TH; r += kTY) {
      const std::int64_t y = map_index(ys + r, ny, mode);
      const T* row = src + (y < 0 ? 0 : y) * nx;
      for (int c = threadIdx.x; c < TW; c += kTX) {
        const std::int64_t x = map_index(xs + c, nx, mode);
        tile[r * TW + c] = (y < 0 || x < 0) ? p.cval : row[x];
      }
    }
  }
  __syncthreads();
  const int tx = threadIdx.x, r0 = threadIdx.y * kMY;
  const std::int64_t x = x0 + tx;
  if (x >= nx) return;
  T win[kMY + 2 * R][K];
#pragma unroll
  for (int i = 0; i < kMY + 2 * R; ++i)
#pragma unroll
    for (int c = 0; c < K; ++c) win[i][c] = tile[(r0 + i) * TW + (A - R) + tx + c];
  T* dst = out + plane * ny * nx;
  const bool* msk = mask ? mask + plane * ny * nx : nullptr;
#pragma unroll
  for (int m = 0; m < kMY; ++m) {
    const std::int64_t y = y0 + r0 + m;
    if (y >= ny) break;
    T a = T(0), b = T(0);
#pragma unroll
    for (int dy = 0; dy < K; ++dy)
#pragma unroll
      for (int dx = 0; dx < K; ++dx) {
        a = fma(p.wa[dy * K + dx], win[m + dy][dx], a);
        if constexpr (TWO) b = fma(p.wb[dy * K + dx], win[m + dy][dx], b);
      }
    T v = a;
    if constexpr (TWO) v = rows_impl::magnitude2(a, b);
    if (msk) v = v * static_cast<T>(msk[y * nx + x]);
    dst[y * nx + x] = v;
  }
}

template <class T, int R, bool TWO, bool MASK, bool SEP>
void launch_rows(const T* in, T* out, const bool* mask, std::int64_t planes, std::int64_t ny, std::int64_t nx,
                 Mode mode, const StencilParams<T>& p, cudaStream_t stream) {
  auto* kernel = stencil2d_rows_kernel<T, R, TWO, MASK, SEP>;
  static std::atomic<int> occupancy[64];
  int sms = 1, resident = 1;
  cuskimage::detail::device_fill(kernel, 32 * kRowWarps, 0, sms, resident, occupancy);
  const std::int64_t segs = (nx + 127) / 128, col_blocks = (segs + kRowWarps - 1) / kRowWarps;
  // ~24 resident warps hide the loads' latency.
  const auto plan = cuskimage::detail::plan_strips(ny, 1, 2 * R, col_blocks, planes, sms, resident, 24 / kRowWarps);
  const dim3 grid(static_cast<unsigned>(col_blocks), static_cast<unsigned>(plan.strips), static_cast<unsigned>(planes));
  kernel<<<grid, 32 * kRowWarps, 0, stream>>>(in, out, mask, static_cast<int>(ny), nx, mode, p,
                                              static_cast<int>(plan.rows));
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class T, int R, bool SEP>
void launch_rows_any(const T* in, T* out, const bool* mask, std::int64_t planes, std::int64_t ny, std::int64_t nx,
                     Mode mode, const StencilParams<T>& p, bool two, cudaStream_t stream) {
  if (two)
    mask ? launch_rows<T, R, true, true, SEP>(in, out, mask, planes, ny, nx, mode, p, stream)
         : launch_rows<T, R, true, false, SEP>(in, out, mask, planes, ny, nx, mode, p, stream);
  else
    mask ? launch_rows<T, R, false, true, SEP>(in, out, mask, planes, ny, nx, mode, p, stream)
         : launch_rows<T, R, false, false, SEP>(in, out, mask, planes, ny, nx, mode, p, stream);
}

/// w (K x K, row-major) as an outer product: w[dy][dx] = u[dy] v[dx] within 1e-13 of max |w| at
/// every tap; false when the window is not rank 1.
bool factor_rank1(const double* w, int K, double* u, double* v) {
  int best = 0;
  for (int i = 1; i < K * K; ++i)
    if (std::fabs(w[i]) > std::fabs(w[best])) best = i;
  const double big = std::fabs(w[best]);
  const int r = best / K, c = best % K;
  for (int i = 0; i < K; ++i) {
    u[i] = big == 0 ? 0.0 : w[i * K + c];
    v[i] = big == 0 ? 0.0 : w[r * K + i] / w[best];
  }
  for (int i = 0; i < K * K; ++i)
    if (!(std::fabs(u[i / K] * v[i % K] - w[i]) <= 1e-13 * big)) return false;
  return true;
}

/// Which kernel runs a 2-D stencil of radius R on T under `policy` (the rule is in the header).
enum class StencilKernel { tile, rows, sep };

template <class T, int R>
StencilKernel stencil_kernel_for(const tuning::StencilPolicy& policy) {
  if constexpr (sizeof(T) == 8 && R == 2) {
    return StencilKernel::tile;  // no row kernel (it would need ~250 registers)
  } else {
    StencilKernel k = R == 1 ? StencilKernel::rows : (sizeof(T) == 4 ? StencilKernel::sep : StencilKernel::tile);
    switch (R == 1 ? (sizeof(T) == 4 ? policy.r1_f32 : policy.r1_f64) : policy.r2_f32) {
      case tuning::StencilKernel::tile: k = StencilKernel::tile; break;
      case tuning::StencilKernel::rows: k = StencilKernel::rows; break;
      case tuning::StencilKernel::separable_rows: k = StencilKernel::sep; break;
      case tuning::StencilKernel::automatic: break;
    }
    if (k == StencilKernel::sep && !(sizeof(T) == 4 && R == 2)) k = StencilKernel::rows;
    return k;
  }
}

/// False (nothing launched) when neither kernel fits the grid.
template <class T, int R>
bool launch_stencil(const T* in, T* out, const bool* mask, std::int64_t planes, std::int64_t ny, std::int64_t nx,
                    const Stencil2d& s, const tuning::StencilPolicy& policy, cudaStream_t stream) {
  StencilParams<T> p{};
  for (int i = 0; i < 25; ++i) p.wa[i] = static_cast<T>(s.wa[i]), p.wb[i] = static_cast<T>(s.wb[i]);
  p.root_ndim = static_cast<T>(s.root_ndim);
  p.cval = static_cast<T>(s.cval);
  const Mode mode = static_cast<Mode>(s.mode);
  StencilKernel kind = stencil_kernel_for<T, R>(policy);
  if constexpr (sizeof(T) == 4 && R == 2) {
    if (kind == StencilKernel::sep) {
      constexpr int K = 2 * R + 1;
      double ua[K], va[K], ub[K] = {}, vb[K] = {};
      const bool sep = factor_rank1(s.wa, K, ua, va) && (!s.two || factor_rank1(s.wb, K, ub, vb));
      for (int i = 0; i < K; ++i) {
        p.ua[i] = static_cast<T>(ua[i]), p.va[i] = static_cast<T>(va[i]);
        p.ub[i] = static_cast<T>(ub[i]), p.vb[i] = static_cast<T>(vb[i]);
      }
      if (!sep) kind = StencilKernel::rows;
    }
  }
  // Row strips when every lane's 4 columns are one aligned vector (the outputs too, and the mask's 4
  // bytes); otherwise the tile kernel.
  if constexpr (sizeof(T) == 4 || R == 1) {
    const bool rows = nx % 4 == 0 && nx * std::int64_t(sizeof(T)) < (std::int64_t(1) << 31) && ny <= (std::int64_t(1) << 30) &&
                      reinterpret_cast<std::uintptr_t>(in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0 &&
                      (mask == nullptr || reinterpret_cast<std::uintptr_t>(mask) % 4 == 0);
    // The tile kernel's grid holds <= 65535 x 64 rows; taller images take the row kernel.
    const bool tile_fits = (ny + kTileH - 1) / kTileH <= 65535;
    if (rows && (kind != StencilKernel::tile || !tile_fits)) {
      if constexpr (sizeof(T) == 4 && R == 2) {
        if (kind == StencilKernel::sep) {
          launch_rows_any<T, R, true>(in, out, mask, planes, ny, nx, mode, p, s.two, stream);
          return true;
        }
      }
      launch_rows_any<T, R, false>(in, out, mask, planes, ny, nx, mode, p, s.two, stream);
      return true;
    }
  }
  if ((ny + kTileH - 1) / kTileH > 65535) return false;
  const dim3 grid(static_cast<unsigned>((nx + kTX - 1) / kTX), static_cast<unsigned>((ny + kTileH - 1) / kTileH),
                  static_cast<unsigned>(planes));
  const dim3 block(kTX, kTY);
  constexpr int V = 16 / static_cast<int>(sizeof(T));
  const bool vec = nx % V == 0 && reinterpret_cast<std::uintptr_t>(in) % 16 == 0;
  if (s.two)
    stencil2d_kernel<T, R, true><<<grid, block, 0, stream>>>(in, out, mask, ny, nx, mode, p, vec);
  else
    stencil2d_kernel<T, R, false><<<grid, block, 0, stream>>>(in, out, mask, ny, nx, mode, p, vec);
  CUSK_CUDA_CHECK_LAUNCH();
  return true;
}

}  // namespace

template <class T>
bool cuda_stencil2d(const Array& in, Array& out, const Stencil2d& s, const Array& mask, const Stream& stream) {
  if (in.size() == 0) return true;
  const int nd = in.ndim();
  const std::int64_t ny = in.shape()[nd - 2], nx = in.shape()[nd - 1], planes = in.size() / (ny * nx);
  if (static_cast<Mode>(s.mode) == Mode::constant && static_cast<double>(static_cast<T>(s.cval)) != s.cval)
    return false;
  // The kernels' magnitude divides by sqrt(2) (magnitude2): every 2-D plan's sqrt(ndim).
  if (s.two && static_cast<T>(s.root_ndim) != std::sqrt(T(2))) return false;
  if (planes > 65535 || (nx + 31) / 32 > 2147483647 || (s.R != 1 && s.R != 2)) return false;
  const T* ip = static_cast<const T*>(in.data());
  T* op = static_cast<T*>(out.data());
  const bool* mp = mask.valid() ? static_cast<const bool*>(mask.data()) : nullptr;
  const tuning::StencilPolicy policy = tuning::stencil_policy();
  return s.R == 1 ? launch_stencil<T, 1>(ip, op, mp, planes, ny, nx, s, policy, stream.handle())
                  : launch_stencil<T, 2>(ip, op, mp, planes, ny, nx, s, policy, stream.handle());
}

// ---- 3-D ------------------------------------------------------------------------------------------
namespace {

constexpr int k3X = 32, k3Y = 8, k3Z = 8, k3Threads = k3X * k3Y;

template <class T>
struct Stencil3dParams {
  T edge[5], smooth[5];
  T root_ndim;
  T cval;
  int axes;
  bool magnitude;
};

template <class T, int R>
struct Geo3 {
  static constexpr int K = 2 * R + 1, V = 16 / static_cast<int>(sizeof(T)), A = (R + V - 1) / V * V;
  static constexpr int PX = k3X + 2 * A, NY = k3Y + 2 * R, NZ = k3Z + 2 * R;
  static constexpr int tile = NZ * NY * PX;  // input, planes z0-R.., rows y0-R.., columns x0-A..
  static constexpr int mid = NZ * NY * k3X;  // x-filtered rows (smooth, edge)
  static constexpr std::size_t smem(bool lap) { return (tile + (lap ? 0 : 2 * mid)) * sizeof(T); }
};

template <class T, int R, bool LAP>
__global__ void __launch_bounds__(k3Threads)
    stencil3d_kernel(const T* __restrict__ in, T* __restrict__ out, const bool* __restrict__ mask, std::int64_t nz,
                     std::int64_t ny, std::int64_t nx, Mode mode, Stencil3dParams<T> p, bool vec, unsigned tiles_y) {
  using G = Geo3<T, R>;
  constexpr int K = G::K, V = G::V, A = G::A, PX = G::PX, NY = G::NY, NZ = G::NZ;
  extern __shared__ __align__(16) unsigned char smem[];
  T* tile = reinterpret_cast<T*>(smem);
  T* sx = tile + G::tile;  // sum_i smooth[i] x[.., x + i - R]
  T* ex = sx + G::mid;     // sum_i edge[i] x[.., x + i - R]
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * k3X + tx;
  const std::int64_t z0 = std::int64_t(blockIdx.y / tiles_y) * k3Z, y0 = std::int64_t(blockIdx.y % tiles_y) * k3Y;
  const std::int64_t x0 = std::int64_t(blockIdx.x) * k3X;
  const std::int64_t zs = z0 - R, ys = y0 - R, xs = x0 - A;

  if (zs >= 0 && zs + NZ <= nz && ys >= 0 && ys + NY <= ny && xs >= 0 && xs + PX <= nx) {
    if (vec) {
      constexpr int VPR = PX / V;
      for (int i = t; i < NZ * NY * VPR; i += k3Threads) {
        const int row = i / VPR, c = (i - row * VPR) * V, pz = row / NY, py = row - pz * NY;
        __pipeline_memcpy_async(tile + row * PX + c, in + ((zs + pz) * ny + ys + py) * nx + xs + c, 16);
      }
    } else {
      for (int i = t; i < NZ * NY * PX; i += k3Threads) {
        const int row = i / PX, c = i - row * PX, pz = row / NY, py = row - pz * NY;
        __pipeline_memcpy_async(tile + i, in + ((zs + pz) * ny + ys + py) * nx + xs + c, sizeof(T));
      }
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
  } else {
    for (int row = ty; row < NZ * NY; row += k3Y) {
      const int pz = row / NY, py = row - pz * NY;
      const std::int64_t z = map_index(zs + pz, nz, mode), y = map_index(ys + py, ny, mode);
      const T* line = in + ((z < 0 ? 0 : z) * ny + (y < 0 ? 0 : y)) * nx;
      for (int c = tx; c < PX; c += k3X) {
        const std::int64_t x = map_index(xs + c, nx, mode);
        tile[row * PX + c] = (z < 0 || y < 0 || x < 0) ? p.cval : line[x];
      }
    }
  }
  __syncthreads();

  const std::int64_t x = x0 + tx, y = y0 + ty;
  T res[k3Z];
  if constexpr (LAP) {
    if (x >= nx || y >= ny) return;
    const T* c0 = tile + (R * NY + ty + R) * PX + A + tx;
#pragma unroll
    for (int m = 0; m < k3Z; ++m) {
      const T* c = c0 + m * NY * PX;
      T v = T(6) * c[0];
      v -= c[-NY * PX];
      v -= c[-PX];
      v -= c[-1];
      v -= c[1];
      v -= c[PX];
      v -= c[NY * PX];
      res[m] = v;
    }
  } else {
    // x: every (plane, row) of the tile at the block's 32 columns.
    for (int row = ty; row < NZ * NY; row += k3Y) {
      const T* s = tile + row * PX + (A - R) + tx;
      T a = T(0), b = T(0);
#pragma unroll
      for (int i = 0; i < K; ++i) {
        a = fma(p.smooth[i], s[i], a);
        b = fma(p.edge[i], s[i], b);
      }
      sx[row * k3X + tx] = a;
      ex[row * k3X + tx] = b;
    }
    __syncthreads();
    if (x >= nx || y >= ny) return;
    // y: per plane, (smooth_y . sx), (edge_y . sx), (smooth_y . ex) at this thread's (y, x).
    T ss[NZ], es[NZ], se[NZ];
#pragma unroll
    for (int zp = 0; zp < NZ; ++zp) {
      const int base = (zp * NY + ty) * k3X + tx;
      T a = T(0), b = T(0), c = T(0);
#pragma unroll
      for (int i = 0; i < K; ++i) {
        const T v = sx[base + i * k3X];
        a = fma(p.smooth[i], v, a);
        b = fma(p.edge[i], v, b);
        c = fma(p.smooth[i], ex[base + i * k3X], c);
      }
      ss[zp] = a, es[zp] = b, se[zp] = c;
    }
    // z: the three gradients, then what the plan asks for.
#pragma unroll
    for (int m = 0; m < k3Z; ++m) {
      T g0 = T(0), g1 = T(0), g2 = T(0);
#pragma unroll
      for (int i = 0; i < K; ++i) {
        g0 = fma(p.edge[i], ss[m + i], g0);
        g1 = fma(p.smooth[i], es[m + i], g1);
        g2 = fma(p.smooth[i], se[m + i], g2);
      }
      T v;
      if (p.magnitude) {
        // NumPy's steps in T: squares summed in axis order, sqrt, / sqrt(ndim).
        T acc = T(0);
        if (p.axes & 1) acc += g0 * g0;
        if (p.axes & 2) acc += g1 * g1;
        if (p.axes & 4) acc += g2 * g2;
        v = sqrt(acc) / p.root_ndim;
      } else {
        v = (p.axes & 1) ? g0 : ((p.axes & 2) ? g1 : g2);
      }
      res[m] = v;
    }
  }
  T* dst = out + y * nx + x;
  const bool* msk = mask ? mask + y * nx + x : nullptr;
#pragma unroll
  for (int m = 0; m < k3Z; ++m) {
    const std::int64_t z = z0 + m;
    if (z >= nz) break;
    T v = res[m];
    if (msk) v = v * static_cast<T>(msk[z * ny * nx]);
    dst[z * ny * nx] = v;
  }
}

template <class T, int R, bool LAP>
void launch_stencil3d(const T* in, T* out, const bool* mask, std::int64_t nz, std::int64_t ny, std::int64_t nx,
                      const Stencil3d& s, cudaStream_t stream) {
  using G = Geo3<T, R>;
  Stencil3dParams<T> p{};
  for (int i = 0; i < 5; ++i) p.edge[i] = static_cast<T>(s.edge[i]), p.smooth[i] = static_cast<T>(s.smooth[i]);
  p.root_ndim = static_cast<T>(s.root_ndim);
  p.cval = static_cast<T>(s.cval);
  p.axes = s.axes;
  p.magnitude = s.magnitude;
  auto* kernel = stencil3d_kernel<T, R, LAP>;
  constexpr std::size_t smem = G::smem(LAP);
  if constexpr (smem > 48 * 1024) {
    static std::atomic<std::uint64_t> done{0};
    int dev = 0;
    CUSK_CUDA_CHECK(cudaGetDevice(&dev));
    const std::uint64_t bit = std::uint64_t(1) << (dev & 63);
    if (!(done.load(std::memory_order_acquire) & bit)) {
      CUSK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
      done.fetch_or(bit, std::memory_order_acq_rel);
    }
  }
  const unsigned tiles_y = static_cast<unsigned>((ny + k3Y - 1) / k3Y);
  const dim3 grid(static_cast<unsigned>((nx + k3X - 1) / k3X), tiles_y * static_cast<unsigned>((nz + k3Z - 1) / k3Z));
  const bool vec = nx % G::V == 0 && reinterpret_cast<std::uintptr_t>(in) % 16 == 0;
  kernel<<<grid, dim3(k3X, k3Y), smem, stream>>>(in, out, mask, nz, ny, nx, static_cast<Mode>(s.mode), p, vec, tiles_y);
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace

template <class T>
bool cuda_stencil3d(const Array& in, Array& out, const Stencil3d& s, const Array& mask, const Stream& stream) {
  if (in.size() == 0) return true;
  if (in.ndim() != 3 || (s.R != 1 && s.R != 2) || (s.laplace && s.R != 1)) return false;
  if (!s.laplace && (s.axes <= 0 || s.axes > 7)) return false;
  if (static_cast<Mode>(s.mode) == Mode::constant && static_cast<double>(static_cast<T>(s.cval)) != s.cval)
    return false;
  const std::int64_t nz = in.shape()[0], ny = in.shape()[1], nx = in.shape()[2];
  if (((ny + k3Y - 1) / k3Y) * ((nz + k3Z - 1) / k3Z) > 65535 || (nx + k3X - 1) / k3X > 2147483647) return false;
  const T* ip = static_cast<const T*>(in.data());
  T* op = static_cast<T*>(out.data());
  const bool* mp = mask.valid() ? static_cast<const bool*>(mask.data()) : nullptr;
  if (s.laplace)
    launch_stencil3d<T, 1, true>(ip, op, mp, nz, ny, nx, s, stream.handle());
  else if (s.R == 1)
    launch_stencil3d<T, 1, false>(ip, op, mp, nz, ny, nx, s, stream.handle());
  else
    launch_stencil3d<T, 2, false>(ip, op, mp, nz, ny, nx, s, stream.handle());
  return true;
}

template <class T>
void cuda_sub(const Array& a, const Array& b, Array& out, const Stream& stream) {
  cuskimage::detail::cuda_map2<T, T, T>(a, b, out, SubOp{}, stream.handle());
}
template <class T>
void cuda_unsharp(const Array& x, const Array& blurred, Array& out, const UnsharpOp<T>& op, const Stream& stream) {
  cuskimage::detail::cuda_map2<T, T, T>(x, blurred, out, op, stream.handle());
}
template <class T>
void cuda_add_square(const Array& acc, const Array& ax, Array& out, const Stream& stream) {
  cuskimage::detail::cuda_map2<T, T, T>(acc, ax, out, AddSquareOp{}, stream.handle());
}
template <class T>
void cuda_magnitude(const Array& s, Array& out, T root_ndim, const Stream& stream) {
  cuskimage::detail::cuda_map<T, T>(s, out, MagnitudeOp<T>{root_ndim}, stream.handle());
}
template <class T>
void cuda_mask(const Array& x, const Array& mask, Array& out, const Stream& stream) {
  cuskimage::detail::cuda_map2<T, bool, T>(x, mask, out, MaskOp{}, stream.handle());
}

namespace {
template <class T>
__global__ void any_negative_kernel(const T* __restrict__ x, std::int64_t n, int* flag) {
  bool neg = false;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) neg |= x[i] < T(0);
  if (__syncthreads_or(neg) && threadIdx.x == 0) *flag = 1;
}
}  // namespace

template <class T>
Array cuda_any_negative(const Array& a, const Stream& stream) {
  const Array c = a.contiguous(stream);
  Array flag = Array::zeros({1}, DType::int32, a.device(), stream);
  if (c.size() > 0) {
    const unsigned blocks = cuskimage::detail::map_blocks(c.size());
    any_negative_kernel<T><<<blocks, 256, 0, stream.handle()>>>(static_cast<const T*>(c.data()), c.size(),
                                                       static_cast<int*>(flag.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  return flag;
}

#define CUSK_EDGES_CUDA(T)                                                                                   \
  template bool cuda_stencil2d<T>(const Array&, Array&, const Stencil2d&, const Array&, const Stream&);       \
  template bool cuda_stencil3d<T>(const Array&, Array&, const Stencil3d&, const Array&, const Stream&);       \
  template void cuda_sub<T>(const Array&, const Array&, Array&, const Stream&);                               \
  template void cuda_unsharp<T>(const Array&, const Array&, Array&, const UnsharpOp<T>&, const Stream&);      \
  template void cuda_add_square<T>(const Array&, const Array&, Array&, const Stream&);                        \
  template void cuda_magnitude<T>(const Array&, Array&, T, const Stream&);                                    \
  template void cuda_mask<T>(const Array&, const Array&, Array&, const Stream&);                              \
  template Array cuda_any_negative<T>(const Array&, const Stream&);
CUSK_EDGES_CUDA(float)
CUSK_EDGES_CUDA(double)
#undef CUSK_EDGES_CUDA

}  // namespace cuskimage::filters::detail
