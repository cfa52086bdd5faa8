// Launcher of the row-chain erosion / dilation kernel (design, packing: row_chain.cuh).
//
// Floor: one read and one write of the image. 8192^2 uint8: 134 MB -> 0.032 ms at 4.2 TB/s.
// Work, disk(10) (11 levels, 10 unit steps, 21 rows; symmetric variant), per warp and block of 4
// rows x 128 columns, from the sm_90 SASS: per level ~7 control + 16 VIMNMX updates, per unit step
// 8 SHFL + 8 PRMT + 8 VIMNMX3 + ~5 loop/move, plus ~175 for the 4 loads, stores and the ring's
// shift: ~760 warp instructions. 104 of the 128 columns are stored (3 halo lanes a side) and a
// segment of ~316 rows reads 20 more: 172 k warp-blocks, ~1.0 M warp instructions per SM, i.e.
// ~0.17 ms at 3 instructions per clock, ~0.2 ms at 2.5. Prediction 0.15-0.25 ms (target <= 0.5 ms;
// the sparse-table kernel took 1.03 ms). Issue-bound: DRAM moves ~1.2x the floor's bytes (the
// halo columns and rows hit L2). uint16 costs the same (also 2 samples per word), int32
// twice as much (2 pixels per lane). 3-D ball(5) on 512^3: 11 planes per block, ~3300 warp
// instructions per block, 335 k blocks -> ~1.5 ms (sparse-table kernel 8.74 ms; floor 0.064 ms).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/morphology/row_chain.cuh"
#include "src/core/cuda_check.hpp"
#include "src/morphology/morph_ops.hpp"

namespace cuskimage::morphology::detail {
namespace {

using ndimage::Mode;
using namespace chain;

constexpr int kThreads = 32 * kWarpsPerBlock;

struct DeviceXchg {
  template <class W>
  __device__ __forceinline__ W up(W v) const {
    return __shfl_up_sync(0xFFFFFFFFu, v, 1);
  }
  template <class W>
  __device__ __forceinline__ W down(W v) const {
    return __shfl_down_sync(0xFFFFFFFFu, v, 1);
  }
};

// Registers (sm_90, ptxas 13.0): 72 / 87 / 113 for HMAX 2 / 5 / 10 (4 blocks, 16 warps per SM),
// ~153 for HMAX 15 (3 blocks). The ring is (2 * HMAX + M) * NR words of them.
template <int HMAX>
constexpr int min_blocks() {
  return HMAX <= 10 ? 4 : 3;
}

template <class S, bool Max, int HMAX, bool Sym>
__global__ void __launch_bounds__(kThreads, min_blocks<HMAX>())
    chain_kernel(const S* __restrict__ in, S* __restrict__ out, Geom g, Mode mode, S cval, const Plan<HMAX> plan,
                 bool vec_ok, std::int64_t warps) {
  const std::int64_t warp_id = std::int64_t(blockIdx.x) * kWarpsPerBlock + (threadIdx.x >> 5);
  if (warp_id >= warps) return;  // whole warp
  DeviceXchg x;
  chain_warp<S, Max, HMAX, kBlockRows, Sym>(in, out, g, mode, cval, plan, vec_ok, warp_id,
                                            static_cast<int>(threadIdx.x & 31), x);
}

/// Segments per column strip: the count that minimises (rows per segment + halo rows) x how far the
/// busiest SM's warps exceed the warps it holds at once.
std::int64_t pick_segments(std::int64_t strips, std::int64_t ny, std::int64_t nz, int halo_rows, int sms,
                           int warps_per_sm) {
  std::int64_t best = 1;
  double best_cost = 1e300;
  const std::int64_t max_segs = std::min<std::int64_t>(ny, 4096);
  for (std::int64_t segs = 1; segs <= max_segs; ++segs) {
    const std::int64_t rows = (ny + segs - 1) / segs;
    if ((ny + rows - 1) / rows != segs) continue;
    const std::int64_t warps = strips * segs * nz;
    const std::int64_t blocks = (warps + kWarpsPerBlock - 1) / kWarpsPerBlock;
    const double per_sm = static_cast<double>((blocks + sms - 1) / sms) * kWarpsPerBlock;
    const double cost = static_cast<double>(rows + halo_rows) * std::max(1.0, per_sm / warps_per_sm);
    if (cost < best_cost * 0.999) best_cost = cost, best = segs;
  }
  return best;
}

template <class S, bool Max, int HMAX>
bool launch(const S* ip, S* op, const Geom& g, Mode mode, S cval, const std::vector<RowRun>& runs,
            cudaStream_t stream) {
  using Ln = Lanes<S>;
  Plan<HMAX> plan;
  std::memset(&plan, 0, sizeof(plan));
  if (!prepare_plan<HMAX>(runs, Ln::P, g, plan)) return false;

  // Symmetric plans (disk, ellipse, diamond, octagon, star, odd rectangles, balls) take the
  // kernel without the one-sided and second moves.
  auto* kern = plan.sym ? chain_kernel<S, Max, HMAX, true> : chain_kernel<S, Max, HMAX, false>;
  int dev = 0, sms = 0, blocks_per_sm = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CUSK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kern, kThreads, 0));
  const int warps_per_sm = std::max(1, blocks_per_sm) * kWarpsPerBlock;
  set_segments(plan, g, pick_segments(plan.strips, g.ny, g.nz, plan.dy_max - plan.dy_min, sms, warps_per_sm));
  const std::int64_t warps = plan.strips * plan.segs * g.nz;
  const std::int64_t blocks = (warps + kWarpsPerBlock - 1) / kWarpsPerBlock;
  if (blocks > 0x7FFFFFFF) return false;
  const bool vec_ok = vector_ok<S>(Ln::P, g.nx, ip, op);
  kern<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(ip, op, g, mode, cval, plan, vec_ok, warps);
  CUSK_CUDA_CHECK_LAUNCH();
  return true;
}

template <class S, bool Max>
bool by_height(const S* ip, S* op, const Geom& g, Mode mode, S cval, const std::vector<RowRun>& runs,
               cudaStream_t stream) {
  switch (chain_bucket(runs)) {
    case 2: return launch<S, Max, 2>(ip, op, g, mode, cval, runs, stream);
    case 5: return launch<S, Max, 5>(ip, op, g, mode, cval, runs, stream);
    case 10: return launch<S, Max, 10>(ip, op, g, mode, cval, runs, stream);
    case 15: return launch<S, Max, 15>(ip, op, g, mode, cval, runs, stream);
    default: return false;
  }
}

}  // namespace

template <class T>
bool cuda_chain_minmax(const Array& in, Array& out, const std::vector<RowRun>& runs, bool is_max, Mode mode, T cval,
                       cudaStream_t stream) {
  // bool is stored as bytes 0/1: its min/max are the uint8 ones.
  using S = std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>;
  if (chain_bucket(runs) < 0) return false;
  if (in.size() == 0) return true;
  const int nd = in.ndim();
  if (nd < 1 || nd > 3) return false;
  Geom g{1, 1, 1};
  std::int64_t* dims[3] = {&g.nz, &g.ny, &g.nx};
  for (int d = 0; d < nd; ++d) *dims[3 - nd + d] = in.shape()[d];
  const S* ip = static_cast<const S*>(in.data());
  S* op = static_cast<S*>(out.data());
  const S cv = static_cast<S>(cval);
  return is_max ? by_height<S, true>(ip, op, g, mode, cv, runs, stream)
                : by_height<S, false>(ip, op, g, mode, cv, runs, stream);
}

#define CUSK_CHAIN(T) \
  template bool cuda_chain_minmax<T>(const Array&, Array&, const std::vector<RowRun>&, bool, Mode, T, cudaStream_t);
CUSK_CHAIN(bool)
CUSK_CHAIN(std::uint8_t)
CUSK_CHAIN(std::uint16_t)
CUSK_CHAIN(std::int32_t)
#undef CUSK_CHAIN

}  // namespace cuskimage::morphology::detail
