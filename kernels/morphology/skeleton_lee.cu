// CUDA Lee skeleton (2-D and 3-D), the same result as scikit-image's sequential algorithm.
//
// scikit-image, per border direction: collect the deletable border voxels of the current image in
// raster order, then re-check them one by one against the image as modified by the earlier ones. A
// candidate's re-check reads only its 3x3x3 neighbourhood, so it depends on the decisions of the
// earlier (in raster order) candidates among its 26 neighbours and on nothing else: later
// candidates are still foreground when it is visited, other voxels do not change during the pass.
// The device reproduces that order exactly:
//   detect: one thread per voxel marks the candidates (state 2) and lists them;
//   waves:  every pending candidate reads its neighbourhood -- earlier neighbours at their decided
//           value (3 kept, 4 deleted) or unknown while pending, later ones as foreground -- and
//           evaluates the re-check (simplicity) for every assignment of its (at most 5) unknown earlier
//           neighbours; when all agree, that is its sequential decision, and it is written. The
//           earliest pending candidate has no unknowns, so every wave decides at least one;
//           candidates far apart (most of them) decide in the first wave. A value read while a
//           neighbour is being decided is either "pending" or final, both of which are handled.
//   finish: deleted candidates become 0, kept ones 1.
// The host reads the candidate count after detection and the pending count after each batch of
// waves (a few synchronisations per direction); the direction loop stops, as scikit-image's, after
// a sweep without deletions.
// Bytes: detection reads the padded uint8 volume once per direction (192^3: 7 MiB, ~2 us at the
// floor, but compute bound on the candidates' Euler and simplicity tests); the waves touch only the
// candidate lists. Predicted 192^3 blobs: ~40 sweeps x 6 directions x (detect ~15 us + 2-4 waves of
// a few us + 2 host round trips ~20 us) ~ 10-15 ms, dominated by launches and round trips.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "src/core/cuda_check.hpp"
#include "src/morphology/skeleton_ops.hpp"

namespace cuskimage::morphology::detail {
namespace {

constexpr int kMaxUnknown = 5;

struct LeeGeom {
  std::int64_t P, R, C;  // unpadded
  std::int64_t PR, PC, plane;  // padded row length / plane size
};

struct LeeTables {
  std::int8_t euler[128];
  std::uint32_t adj[27];
};

__device__ __forceinline__ std::uint8_t vload(const std::uint8_t* p) { return *static_cast<volatile const std::uint8_t*>(p); }

__device__ __forceinline__ std::int64_t padded_index(const LeeGeom& g, std::int64_t k) {
  const std::int64_t c = k % g.C, t = k / g.C, r = t % g.R, p = t / g.R;
  return (p + 1) * g.plane + (r + 1) * g.PC + (c + 1);
}

__global__ void __launch_bounds__(256)
    pad_kernel(const std::uint8_t* __restrict__ in, std::uint8_t* __restrict__ st, LeeGeom g, bool back) {
  const std::int64_t n = g.P * g.R * g.C, stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    const std::int64_t i = padded_index(g, k);
    if (back)
      const_cast<std::uint8_t*>(in)[k] = st[i];
    else
      st[i] = in[k];
  }
}

__global__ void __launch_bounds__(256)
    detect_kernel(std::uint8_t* st, LeeGeom g, std::int64_t off, std::int64_t* __restrict__ cand,
                  unsigned long long* __restrict__ counters, LeeTables t) {
  const std::int64_t n = g.P * g.R * g.C, stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    const std::int64_t i = padded_index(g, k);
    if (st[i] != 1 || vload(st + i + off) != 0) continue;  // neighbours may turn 1 -> 2 meanwhile: still non-zero
    std::uint32_t nb = 0;
    for (int dp = -1; dp <= 1; ++dp)
      for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc)
          if (vload(st + i + dp * g.plane + dr * g.PC + dc)) nb |= 1u << nb_bit(dp, dr, dc);
    if (!lee_deletable(nb, t.euler, t.adj)) continue;
    st[i] = 2;
    cand[atomicAdd(&counters[0], 1ull)] = i;
    atomicAdd(&counters[1], 1ull);
  }
}

__global__ void __launch_bounds__(128)
    wave_kernel(std::uint8_t* st, LeeGeom g, const std::int64_t* __restrict__ cand, std::int64_t ncand,
                unsigned long long* __restrict__ counters, LeeTables t) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < ncand; k += stride) {
    const std::int64_t i = cand[k];
    if (vload(st + i) != 2) continue;
    std::uint32_t base = 1u << 13, unknown = 0;
    for (int dp = -1; dp <= 1; ++dp)
      for (int dr = -1; dr <= 1; ++dr)
        for (int dc = -1; dc <= 1; ++dc) {
          const int b = nb_bit(dp, dr, dc);
          if (b == 13) continue;
          const std::uint8_t v = vload(st + i + dp * g.plane + dr * g.PC + dc);
          if (b < 13) {  // earlier in raster order: its decision counts
            if (v == 2) unknown |= 1u << b;
            else if (v == 1 || v == 3) base |= 1u << b;
          } else if (v != 0) {  // later: still as at the start of the pass
            base |= 1u << b;
          }
        }
    if (__popc(unknown) > kMaxUnknown) continue;
    const bool first = lee_simple(base, t.adj);  // the re-check tests simplicity only
    bool agree = true;
    for (std::uint32_t sub = unknown; sub != 0 && agree; sub = (sub - 1) & unknown)
      agree = lee_simple(base | sub, t.adj) == first;
    if (!agree) continue;
    st[i] = first ? 4 : 3;
    atomicAdd(&counters[1], ~0ull);  // one fewer pending
    if (first) counters[2] = 1;
  }
}

__global__ void __launch_bounds__(256)
    finish_kernel(std::uint8_t* __restrict__ st, const std::int64_t* __restrict__ cand, std::int64_t ncand) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < ncand; k += stride)
    st[cand[k]] = st[cand[k]] == 4 ? 0 : 1;
}

unsigned blocks_for(std::int64_t total, int per) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((total + per - 1) / per, 1, 1 << 20));
}

}  // namespace

void cuda_lee(Array& vol, const Stream& s) {
  const Device dev = vol.device();
  LeeGeom g{vol.shape(0), vol.shape(1), vol.shape(2), vol.shape(1) + 2, vol.shape(2) + 2, 0};
  g.plane = g.PR * g.PC;
  const std::int64_t n = g.P * g.R * g.C;
  Array st = Array::zeros({(g.P + 2) * g.plane}, DType::uint8, dev, s);
  Array cand = Array::empty({n}, DType::int64, dev, s);
  Array counters = Array::zeros({4}, DType::uint64, dev, s);  // listed, pending, any deleted
  auto* sp = static_cast<std::uint8_t*>(st.data());
  auto* vp = static_cast<std::uint8_t*>(vol.data());
  auto* cp = static_cast<std::int64_t*>(cand.data());
  auto* kp = static_cast<unsigned long long*>(counters.data());
  LeeTables t{};
  for (int i = 0; i < 128; ++i) t.euler[i] = kEulerLut[i];
  for (int i = 0; i < 27; ++i) t.adj[i] = kNbAdjacency.adj[i];
  pad_kernel<<<blocks_for(n, 256), 256, 0, s.handle()>>>(vp, sp, g, false);
  CUSK_CUDA_CHECK_LAUNCH();
  // scikit-image's direction order; a single plane uses the first four.
  const std::int64_t dirs[6] = {-g.PC, g.PC, 1, -1, g.plane, -g.plane};  // r-1, r+1, c+1, c-1, p+1, p-1
  const int num = g.P == 1 ? 4 : 6;
  unsigned long long host[3];
  auto read_counters = [&] {
    CUSK_CUDA_CHECK(cudaMemcpyAsync(host, kp, sizeof(host), cudaMemcpyDeviceToHost, s.handle()));
    s.synchronize();
  };
  for (int unchanged = 0; unchanged < num;) {
    unchanged = 0;
    for (int d = 0; d < num; ++d) {
      CUSK_CUDA_CHECK(cudaMemsetAsync(kp, 0, 4 * sizeof(unsigned long long), s.handle()));
      detect_kernel<<<blocks_for(n, 256), 256, 0, s.handle()>>>(sp, g, dirs[d], cp, kp, t);
      CUSK_CUDA_CHECK_LAUNCH();
      read_counters();
      const std::int64_t ncand = static_cast<std::int64_t>(host[0]);
      if (ncand == 0) {
        ++unchanged;
        continue;
      }
      for (int waves = 2; host[1] != 0; waves = std::min(waves * 2, 32)) {
        for (int w = 0; w < waves; ++w) {
          wave_kernel<<<blocks_for(ncand, 128), 128, 0, s.handle()>>>(sp, g, cp, ncand, kp, t);
          CUSK_CUDA_CHECK_LAUNCH();
        }
        read_counters();
      }
      finish_kernel<<<blocks_for(ncand, 256), 256, 0, s.handle()>>>(sp, cp, ncand);
      CUSK_CUDA_CHECK_LAUNCH();
      if (host[2] == 0) ++unchanged;
    }
  }
  pad_kernel<<<blocks_for(n, 256), 256, 0, s.handle()>>>(vp, sp, g, true);
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::morphology::detail
