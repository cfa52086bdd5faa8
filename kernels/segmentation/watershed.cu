// The CUDA watershed (markers, no compactness, no watershed line): the relaxation of
// src/segmentation/watershed_relax.hpp over tiles. Each launch loads a tile and a one-pixel halo
// of the current states into shared memory, sweeps the tile (Jacobi, halo fixed) until it stops
// changing, and writes the tile into the other buffer; launches repeat until none changes a
// pixel. Any fair order of updates reaches the relaxation's one fixed point (watershed_relax.hpp),
// so this equals the host reference.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "kernels/core/launch.cuh"
#include "cuskimage/error.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/validate.hpp"
#include "src/segmentation/watershed.hpp"
#include "src/segmentation/watershed_relax.hpp"

namespace cuskimage::segmentation::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kMaxSteps = 26;
// Sweeps per tile and launch; a tile that has not settled by then is finished by later launches.
constexpr int kMaxSweeps = 512;
// Launches between checks of the changed flag (each check synchronises the stream; even, so the
// result ends in the first buffer). A host emulation of the tiles on the benchmark's -EDT of blobs
// (2048^2) settles in 4 launches (20, 10, 3, 1 sweeps per tile on average), then one quiet one.
constexpr int kCheckEvery = 2;
static_assert(kCheckEvery % 2 == 0);
constexpr int kMaxLaunches = 1 << 16;

struct Geom {
  int nz, ny, nx;
};

struct Steps {
  int n;
  signed char d[kMaxSteps][3];
};

__global__ void init_states(const double* img, const std::uint8_t* mask, const std::int64_t* mk, WsState* st,
                            std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    st[i] = !mask[i] ? ws_wall() : mk[i] != 0 ? ws_marker(img[i], static_cast<std::int32_t>(i)) : ws_unreached();
}

__global__ void write_labels(const WsState* st, const std::int64_t* mk, std::int64_t* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = st[i].src >= 0 ? mk[st[i].src] : 0;
}

template <int TZ, int TY, int TX>
__global__ void __launch_bounds__(kThreads)
    relax_tiles(const double* img, const std::int64_t* mk, const WsState* in, WsState* out, Geom g, Steps s,
                int* changed) {
  constexpr int ZO = TZ > 1 ? 1 : 0;
  constexpr int HZ = TZ + 2 * ZO, HY = TY + 2, HX = TX + 2, HN = HZ * HY * HX;
  constexpr int TN = TZ * TY * TX, PER = (TN + kThreads - 1) / kThreads;
  __shared__ WsState sh[HN];

  const int tiles_x = (g.nx + TX - 1) / TX, tiles_y = (g.ny + TY - 1) / TY;
  const int bx = static_cast<int>(blockIdx.x % tiles_x);
  const int by = static_cast<int>((blockIdx.x / tiles_x) % tiles_y);
  const int bz = static_cast<int>(blockIdx.x / (static_cast<unsigned>(tiles_x) * tiles_y));
  const int z0 = bz * TZ, y0 = by * TY, x0 = bx * TX;

  for (int t = threadIdx.x; t < HN; t += kThreads) {
    const int hx = t % HX, hy = (t / HX) % HY, hz = t / (HX * HY);
    const int z = z0 + hz - ZO, y = y0 + hy - 1, x = x0 + hx - 1;
    const bool inside = z >= 0 && z < g.nz && y >= 0 && y < g.ny && x >= 0 && x < g.nx;
    sh[t] = inside ? in[(static_cast<std::int64_t>(z) * g.ny + y) * g.nx + x] : ws_wall();
  }
  // The steps in halo-tile offsets. Padded and zeroed past s.n: compute-sanitizer caught the
  // unrolled neighbour loop below reading off[24..26] as one 12-byte load with s.n = 26 (the
  // value past the end is not used, but the read left the block's shared memory).
  __shared__ int off[kMaxSteps + 2];
  if (threadIdx.x < kMaxSteps + 2)
    off[threadIdx.x] = threadIdx.x < s.n ? (s.d[threadIdx.x][0] * HY + s.d[threadIdx.x][1]) * HX + s.d[threadIdx.x][2] : 0;
  __syncthreads();

  // Per owned pixel: its value, its halo-tile index and two bits (free: updated; inside: written).
  double v[PER];
  int hidx[PER];
  unsigned free_bits = 0, inside_bits = 0;
  const auto global_index = [&](int t) {
    const int ix = t % TX, iy = (t / TX) % TY, iz = t / (TX * TY);
    return (static_cast<std::int64_t>(z0 + iz) * g.ny + (y0 + iy)) * g.nx + (x0 + ix);
  };
  for (int k = 0; k < PER; ++k) {
    const int t = threadIdx.x + k * kThreads;
    const int ix = t % TX, iy = (t / TX) % TY, iz = t / (TX * TY);
    const bool inside = t < TN && z0 + iz < g.nz && y0 + iy < g.ny && x0 + ix < g.nx;
    hidx[k] = ((iz + ZO) * HY + iy + 1) * HX + ix + 1;
    const std::int64_t gi = global_index(t);
    const bool free_px = inside && sh[hidx[k]].src != -2 && mk[gi] == 0;
    inside_bits |= static_cast<unsigned>(inside) << k;
    free_bits |= static_cast<unsigned>(free_px) << k;
    v[k] = free_px ? img[gi] : 0.0;
  }

  bool any = false;
  for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
    WsState ns[PER];
    bool ch = false;
    for (int k = 0; k < PER; ++k) {
      if (!(free_bits >> k & 1u)) continue;
      WsState best = ws_unreached();
      for (int e = 0; e < s.n; ++e) ws_consider(best, sh[hidx[k] + off[e]]);
      ns[k] = ws_from_parent(v[k], best);
      ch |= !ws_same(ns[k], sh[hidx[k]]);
    }
    if (!__syncthreads_or(ch)) break;
    for (int k = 0; k < PER; ++k)
      if (free_bits >> k & 1u) sh[hidx[k]] = ns[k];
    any = true;
    __syncthreads();
  }
  for (int k = 0; k < PER; ++k)
    if (inside_bits >> k & 1u) out[global_index(threadIdx.x + k * kThreads)] = sh[hidx[k]];
  if (any && threadIdx.x == 0) *changed = 1;
}

template <int TZ, int TY, int TX>
void iterate(const double* img, const std::int64_t* mk, WsState* a, WsState* b, Geom g, const Steps& s, int* flag,
             cudaStream_t cs) {
  const std::int64_t tiles = std::int64_t((g.nz + TZ - 1) / TZ) * ((g.ny + TY - 1) / TY) * ((g.nx + TX - 1) / TX);
  int host_flag = 1;
  for (int launch = 0; host_flag != 0;) {
    // The relaxation converges; the cap turns a defect into an error, not a hang.
    if (launch >= kMaxLaunches) throw Error("segmentation.watershed: the device relaxation did not converge");
    CUSK_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(int), cs));
    for (int k = 0; k < kCheckEvery; ++k, ++launch) {
      relax_tiles<TZ, TY, TX><<<static_cast<unsigned>(tiles), kThreads, 0, cs>>>(img, mk, a, b, g, s, flag);
      CUSK_CUDA_CHECK_LAUNCH();
      std::swap(a, b);
    }
    CUSK_CUDA_CHECK(cudaMemcpyAsync(&host_flag, flag, sizeof(int), cudaMemcpyDeviceToHost, cs));
    CUSK_CUDA_CHECK(cudaStreamSynchronize(cs));
  }
}

}  // namespace

void cuda_relax(const Array& image, const Array& mask, const Array& markers, const std::vector<int>& nbrs,
                Array& out, const Stream& stream) {
  const int nd = image.ndim();
  int dims[3] = {1, 1, 1};
  for (int k = 0; k < nd; ++k) dims[3 - nd + k] = static_cast<int>(image.shape()[k]);
  const Geom g{dims[0], dims[1], dims[2]};
  const std::int64_t n = image.size();
  if (n == 0) return;
  Steps s{};
  for (std::size_t e = 0; e + 2 < nbrs.size(); e += 3) {
    if (g.nz == 1 && nbrs[e] != 0) continue;  // a single plane: z steps leave the image
    s.d[s.n][0] = static_cast<signed char>(nbrs[e]);
    s.d[s.n][1] = static_cast<signed char>(nbrs[e + 1]);
    s.d[s.n][2] = static_cast<signed char>(nbrs[e + 2]);
    ++s.n;
  }
  const cudaStream_t cs = stream.handle();
  const Device dev = image.device();
  static_assert(sizeof(WsState) % sizeof(double) == 0);
  const std::int64_t words = n * static_cast<std::int64_t>(sizeof(WsState) / sizeof(double));
  Array sa = Array::empty({words}, DType::float64, dev, stream);
  Array sb = Array::empty({words}, DType::float64, dev, stream);
  Array flag = Array::empty({1}, DType::int32, dev, stream);
  auto* a = static_cast<WsState*>(sa.data());
  auto* b = static_cast<WsState*>(sb.data());
  const auto* img = static_cast<const double*>(image.data());
  const auto* mk = static_cast<const std::int64_t*>(markers.data());
  const unsigned blocks = cuskimage::detail::grid_blocks(n, kThreads, 65536);
  init_states<<<blocks, kThreads, 0, cs>>>(img, static_cast<const std::uint8_t*>(mask.data()), mk, a, n);
  CUSK_CUDA_CHECK_LAUNCH();
  // kCheckEvery is even: the result is back in `a` when the loop ends.
  if (g.nz > 1)
    iterate<8, 8, 8>(img, mk, a, b, g, s, flag.data<int>(), cs);
  else
    iterate<1, 32, 32>(img, mk, a, b, g, s, flag.data<int>(), cs);
  write_labels<<<blocks, kThreads, 0, cs>>>(a, mk, static_cast<std::int64_t*>(out.data()), n);
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::segmentation::detail
