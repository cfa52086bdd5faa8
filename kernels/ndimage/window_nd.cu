// CUDA N-d window filters: correlate/convolve with a weights array and minimum/maximum with a
// non-rectangular footprint, for 1-D, 2-D and 3-D arrays (seen as (nz, ny, nx)).
//
// Windows that stay in one plane (every tap has dz == 0: all 2-D filters, and 3-D inputs with a
// single-plane window) run the 2-D tiled kernel: a 32 x 32 output tile plus its halo is loaded once
// into shared memory (interior tiles with cp.async and no index mapping, border tiles through
// map_index), the taps are staged in shared memory as (weight, tile offset) pairs, and each thread
// folds them for 4 outputs (one weight/offset read feeds 4 products).
// Measured before (H200, 8192^2 float32): correlate 3x3 0.98 ms, 5x5 1.49 ms, 15x15 9.65 ms: the
// tile load was latency-bound (one mapped load in flight per thread, a division per element) and
// every tap re-read its 24-byte Tap from global memory for each output. Predicted now: 3x3 ~0.2 ms,
// 5x5 ~0.3 ms (memory-bound), 15x15 ~2.3 ms (FP64-bound: scipy's double sums with separately rounded
// products are 2 DP operations per tap and output, 450 per pixel at 64/clk/SM). True
// 3-D windows run the 3-D tiled kernel (32 x 4 x 2 outputs, load_halo_tile_3d). Tiles that exceed
// shared memory, and constant-mode cvals not exact in T, run the generic kernel (one thread per output, taps read through map_index only near the border).
// Both fold the taps with accumulate_taps, the CPU backend's code.
//
// Traffic: one read and one write of the array (halo re-reads hit L2): 8192^2 float32 = 537 MB, floor
// 0.128 ms at 4.2 TB/s; a 15x15 window is compute-bound (225 FMAs in double per output).
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/ndimage/halo_tile.cuh"
#include "src/core/cuda_check.hpp"
#include "src/ndimage/backend.hpp"

namespace cuskimage::ndimage::detail {
namespace {

constexpr int kTileX = 32, kTileY = 8, kRows = 4, kTile2H = kTileY * kRows;  // 2-D: 32 x 32 outputs
constexpr std::size_t kSmemBudget = 48 * 1024;
constexpr int kMaxSmemTaps = 1024;

struct Geom3 {
  std::int64_t nz, ny, nx;
  int lo[3], hi[3];  // extreme tap offsets per axis
};

constexpr int kParamTaps = 128;  // 3 KB of kernel parameters
struct TapParams {
  Tap<3> t[kParamTaps];
};

/// Shared-memory bytes of the staged taps (K weights, then K tile offsets), rounded to 16.
constexpr std::size_t taps_bytes(int K) { return (static_cast<std::size_t>(K) * 12 + 15) / 16 * 16; }

template <class T>
__global__ void __launch_bounds__(kTileX * kTileY)
    window_tile2d_kernel(const T* __restrict__ in, T* __restrict__ out, Geom3 g, const Tap<3>* __restrict__ taps,
                         TapParams pt, int K, Op op, Mode mode, T cval) {
  extern __shared__ __align__(16) unsigned char smem[];
  double* wt = reinterpret_cast<double*>(smem);  // tap weights
  int* ot = reinterpret_cast<int*>(wt + K);       // tap offsets within the tile
  T* tile = reinterpret_cast<T*>(smem + taps_bytes(K));
  const int th = kTile2H + g.hi[1] - g.lo[1], tw = kTileX + g.hi[2] - g.lo[2];
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * kTileX + tx;
  for (int j = t; j < K; j += kTileX * kTileY) {
    const Tap<3> tp = taps ? taps[j] : pt.t[j];
    wt[j] = tp.w;
    ot[j] = tp.off[1] * tw + tp.off[2];
  }
  const std::int64_t z = blockIdx.z;
  const std::int64_t y0 = std::int64_t(blockIdx.y) * kTile2H, x0 = std::int64_t(blockIdx.x) * kTileX;
  const T* plane = in + z * g.ny * g.nx;
  const std::int64_t ys = y0 + g.lo[1], xs = x0 + g.lo[2];
  if (ys >= 0 && ys + th <= g.ny && xs >= 0 && xs + tw <= g.nx) {
    // Interior: warps on rows, lanes on columns; every load in flight at once, no index mapping.
    if constexpr (sizeof(T) >= 4) {
      for (int r = ty; r < th; r += kTileY)
        for (int c = tx; c < tw; c += kTileX)
          __pipeline_memcpy_async(tile + r * tw + c, plane + (ys + r) * g.nx + xs + c, sizeof(T));
      __pipeline_commit();
      __pipeline_wait_prior(0);
    } else {
      for (int r = ty; r < th; r += kTileY) {
        const T* row = plane + (ys + r) * g.nx + xs;
#pragma unroll 4
        for (int c = tx; c < tw; c += kTileX) tile[r * tw + c] = row[c];
      }
    }
  } else {
    for (int r = ty; r < th; r += kTileY) {
      const std::int64_t y = map_index(ys + r, g.ny, mode);
      const T* row = plane + (y < 0 ? 0 : y) * g.nx;
      for (int c = tx; c < tw; c += kTileX) {
        const std::int64_t x = map_index(xs + c, g.nx, mode);
        tile[r * tw + c] = (y < 0 || x < 0) ? cval : row[x];
      }
    }
  }
  __syncthreads();
  const std::int64_t x = x0 + tx;
  if (x >= g.nx) return;
  // kRows outputs per thread (rows ty, ty + 8, ...) share each tap's weight and offset; the sums are
  // accumulate_taps' (scipy's tap order, products rounded before the add), cast with cast_out.
  int base[kRows];
#pragma unroll
  for (int q = 0; q < kRows; ++q) base[q] = (ty + q * kTileY - g.lo[1]) * tw + tx - g.lo[2];
  double acc[kRows];
  if (op == Op::correlate) {
#pragma unroll
    for (int q = 0; q < kRows; ++q) acc[q] = 0.0;
    for (int j = 0; j < K; ++j) {
      const double w = wt[j];
      const int o = ot[j];
#pragma unroll
      for (int q = 0; q < kRows; ++q) acc[q] = add_product(acc[q], static_cast<double>(tile[base[q] + o]), w);
    }
  } else {
#pragma unroll
    for (int q = 0; q < kRows; ++q) acc[q] = K == 0 ? 0.0 : static_cast<double>(tile[base[q] + ot[0]]);
    if (op == Op::minimum) {
      for (int j = 1; j < K; ++j)
#pragma unroll
        for (int q = 0; q < kRows; ++q)
          acc[q] = rank_combine<Op::minimum>(acc[q], static_cast<double>(tile[base[q] + ot[j]]));
    } else {
      for (int j = 1; j < K; ++j)
#pragma unroll
        for (int q = 0; q < kRows; ++q)
          acc[q] = rank_combine<Op::maximum>(acc[q], static_cast<double>(tile[base[q] + ot[j]]));
    }
  }
  T* dst = out + z * g.ny * g.nx + x;
#pragma unroll
  for (int q = 0; q < kRows; ++q) {
    const std::int64_t y = y0 + ty + q * kTileY;
    if (y < g.ny) dst[y * g.nx] = cast_out<T>(acc[q]);
  }
}

constexpr int kTile3X = 32, kTile3Y = 4, kTile3Z = 2;

template <class T>
__global__ void __launch_bounds__(kTile3X * kTile3Y * kTile3Z)
    window_tile3d_kernel(const T* __restrict__ in, T* __restrict__ out, Geom3 g, const Tap<3>* __restrict__ taps,
                         int K, Op op, Mode mode, T cval, unsigned tiles_y) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* tile = reinterpret_cast<T*>(smem);
  const int td = kTile3Z + g.hi[0] - g.lo[0], th = kTile3Y + g.hi[1] - g.lo[1], tw = kTile3X + g.hi[2] - g.lo[2];
  // blockIdx.y packs (z tile, y tile) so that deep volumes stay within gridDim.y's limit.
  const std::int64_t z0 = std::int64_t(blockIdx.y / tiles_y) * kTile3Z;
  const std::int64_t y0 = std::int64_t(blockIdx.y % tiles_y) * kTile3Y, x0 = std::int64_t(blockIdx.x) * kTile3X;
  load_halo_tile_3d(tile, td, th, tw, in, g.nz, g.ny, g.nx, z0 + g.lo[0], y0 + g.lo[1], x0 + g.lo[2], mode, cval);
  __syncthreads();
  const int tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;
  const std::int64_t z = z0 + tz, y = y0 + ty, x = x0 + tx;
  if (z >= g.nz || y >= g.ny || x >= g.nx) return;
  const int base = ((tz - g.lo[0]) * th + ty - g.lo[1]) * tw + tx - g.lo[2];
  const double acc = accumulate_taps(
      op, K,
      [&](std::int64_t t) {
        return static_cast<double>(tile[base + (taps[t].off[0] * th + taps[t].off[1]) * tw + taps[t].off[2]]);
      },
      [&](std::int64_t t) { return taps[t].w; });
  out[(z * g.ny + y) * g.nx + x] = cast_out<T>(acc);
}

template <class T>
__global__ void __launch_bounds__(256)
    window_generic_kernel(const T* __restrict__ in, T* __restrict__ out, Geom3 g, const Tap<3>* __restrict__ taps,
                          int K, Op op, Mode mode, double cval) {
  const std::int64_t total = g.nz * g.ny * g.nx;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t x = i % g.nx, r = i / g.nx, y = r % g.ny, z = r / g.ny;
    const bool inside = z + g.lo[0] >= 0 && z + g.hi[0] < g.nz && y + g.lo[1] >= 0 && y + g.hi[1] < g.ny &&
                        x + g.lo[2] >= 0 && x + g.hi[2] < g.nx;
    auto value = [&](std::int64_t t) -> double {
      const Tap<3> tp = taps[t];
      if (inside) return static_cast<double>(in[i + (std::int64_t(tp.off[0]) * g.ny + tp.off[1]) * g.nx + tp.off[2]]);
      const std::int64_t zz = map_index(z + tp.off[0], g.nz, mode), yy = map_index(y + tp.off[1], g.ny, mode),
                         xx = map_index(x + tp.off[2], g.nx, mode);
      if (zz < 0 || yy < 0 || xx < 0) return cval;
      return static_cast<double>(in[(zz * g.ny + yy) * g.nx + xx]);
    };
    out[i] = cast_out<T>(accumulate_taps(op, K, value, [&](std::int64_t t) { return taps[t].w; }));
  }
}

}  // namespace

template <class T>
void cuda_window_nd(const Array& in, Array& out, const WindowNd& W, const Stream& stream) {
  if (in.size() == 0) return;
  const int nd = in.ndim();
  Geom3 g{1, 1, 1, {0, 0, 0}, {0, 0, 0}};
  std::int64_t* dims[3] = {&g.nz, &g.ny, &g.nx};
  for (int d = 0; d < nd; ++d) *dims[3 - nd + d] = in.shape()[d];
  const int K = static_cast<int>(W.off.size());
  std::vector<Tap<3>> taps(std::max(K, 1));
  for (int t = 0; t < K; ++t) {
    Tap<3> tp{{0, 0, 0}, W.w.empty() ? 0.0 : W.w[t]};
    for (int d = 0; d < nd; ++d) tp.off[3 - nd + d] = static_cast<std::int32_t>(W.off[t][d]);
    for (int a = 0; a < 3; ++a) g.lo[a] = std::min(g.lo[a], tp.off[a]), g.hi[a] = std::max(g.hi[a], tp.off[a]);
    taps[t] = tp;
  }
  // Taps travel as bytes, stream-ordered through pinned staging, unless they fit in a kernel
  // parameter (the 2-D tiled kernel with K <= kParamTaps: no upload per call).
  Array dtaps;
  auto device_taps = [&]() -> const Tap<3>* {
    std::vector<std::uint8_t> bytes(taps.size() * sizeof(Tap<3>));
    std::memcpy(bytes.data(), taps.data(), bytes.size());
    dtaps = Array::from_vector(bytes, {static_cast<std::int64_t>(bytes.size())}).to(in.device(), stream);
    return static_cast<const Tap<3>*>(dtaps.data());
  };
  const T* ip = static_cast<const T*>(in.data());
  T* op = static_cast<T*>(out.data());

  const T cval_t = cast_out<T>(W.cval);
  const bool cval_exact = W.mode != Mode::constant || static_cast<double>(cval_t) == W.cval;
  const std::size_t smem = taps_bytes(K) + static_cast<std::size_t>(kTile2H + g.hi[1] - g.lo[1]) *
                                                (kTileX + g.hi[2] - g.lo[2]) * sizeof(T);
  if (g.lo[0] == 0 && g.hi[0] == 0 && cval_exact && K <= kMaxSmemTaps && smem <= kSmemBudget && g.nz <= 65535) {
    const dim3 grid(static_cast<unsigned>((g.nx + kTileX - 1) / kTileX),
                    static_cast<unsigned>((g.ny + kTile2H - 1) / kTile2H), static_cast<unsigned>(g.nz));
    if ((g.ny + kTile2H - 1) / kTile2H <= 65535) {
      TapParams pt{};
      const Tap<3>* tp = nullptr;
      if (K <= kParamTaps)
        std::copy(taps.begin(), taps.begin() + K, pt.t);
      else
        tp = device_taps();
      window_tile2d_kernel<T>
          <<<grid, dim3(kTileX, kTileY), smem, stream.handle()>>>(ip, op, g, tp, pt, K, W.op, W.mode, cval_t);
      CUSK_CUDA_CHECK_LAUNCH();
      return;
    }
  }
  const std::size_t smem3 = static_cast<std::size_t>(kTile3Z + g.hi[0] - g.lo[0]) * (kTile3Y + g.hi[1] - g.lo[1]) *
                             (kTile3X + g.hi[2] - g.lo[2]) * sizeof(T);
  const std::int64_t tiles_x = (g.nx + kTile3X - 1) / kTile3X, tiles_y = (g.ny + kTile3Y - 1) / kTile3Y,
                     tiles_z = (g.nz + kTile3Z - 1) / kTile3Z;
  const Tap<3>* tp = device_taps();
  if (cval_exact && smem3 <= kSmemBudget && tiles_y * tiles_z <= 65535 && tiles_x < (std::int64_t(1) << 31)) {
    const dim3 grid(static_cast<unsigned>(tiles_x), static_cast<unsigned>(tiles_y * tiles_z));
    window_tile3d_kernel<T><<<grid, dim3(kTile3X, kTile3Y, kTile3Z), smem3, stream.handle()>>>(
        ip, op, g, tp, K, W.op, W.mode, cval_t, static_cast<unsigned>(tiles_y));
    CUSK_CUDA_CHECK_LAUNCH();
    return;
  }
  const std::int64_t total = in.size();
  const std::int64_t nb = std::clamp<std::int64_t>((total + 255) / 256, 1, 1 << 24);
  window_generic_kernel<T>
      <<<static_cast<unsigned>(nb), 256, 0, stream.handle()>>>(ip, op, g, tp, K, W.op, W.mode, W.cval);
  CUSK_CUDA_CHECK_LAUNCH();
}

template void cuda_window_nd<bool>(const Array&, Array&, const WindowNd&, const Stream&);
template void cuda_window_nd<std::uint8_t>(const Array&, Array&, const WindowNd&, const Stream&);
template void cuda_window_nd<std::uint16_t>(const Array&, Array&, const WindowNd&, const Stream&);
template void cuda_window_nd<std::int32_t>(const Array&, Array&, const WindowNd&, const Stream&);
template void cuda_window_nd<float>(const Array&, Array&, const WindowNd&, const Stream&);
template void cuda_window_nd<double>(const Array&, Array&, const WindowNd&, const Stream&);

}  // namespace cuskimage::ndimage::detail
