// Launcher of the row-chain erosion / dilation kernel (design, packing: row_chain.cuh).
//
// Floor: one read and one write of the image. 8192^2 uint8: 134 MB -> 0.032 ms at 4.2 TB/s.
//
// First H200 run (the first version of the kernel): disk(1) 0.486 ms, disk(10) 0.854, disk(15) 1.31,
// ball(5) 512^3 16.0 ms (sparse-table kernel: 1.03 / 8.74 ms) -- a radius-independent ~0.46 ms per
// 8192^2 plus ~0.04 ms per unit step. What its SASS shows (sm_90, ptxas 13.0; the causes are
// inferred from it, not profiled):
//  * the edge strips (the likely fixed cost): the time is ~2.5 us per row of a warp's segment at
//    every size (8192^2: 336 rows -> 0.85 ms; 3840x2160: 58 -> 0.15; 512^2: 22 -> 0.055 + launch), the
//    serial latency of the slowest warp, not a throughput. Every lane of the first and last strip
//    reaching past the image mapped each of its columns per row with the 64-bit map_index (under
//    'reflect' a negative column is a 64-bit remainder, an ~80-instruction dependent subroutine)
//    and OR-ed each gathered sample into the row word inside the divergent edge branch before
//    mapping the next: per block of 4 rows 16 remainders and 16 memory latencies in series,
//    ~20 k cycles. The grid is one wave (2054 warps, 16 per SM, for disk(10)) and waited for those
//    warps. In 3-D, 2 of the 5 strips of a 512-wide volume are edge strips and the gather ran per
//    plane (11x): the 16 ms.
//  * code size: the loop was 166 KB of SASS (17.3 k instructions for HMAX 10; the map_index
//    switch with its remainder subroutine inlined at 8 fetch sites x 4 columns), the level walk
//    26 KB of it straight-line per block, larger than the instruction cache's first level; the
//    plane loop (run once in 2-D) kept ~100 ring moves and an indexed constant load per level.
//  * not the cause: grid size (26 segments per strip, 16 warps per SM of 4 blocks at 109-113
//    registers, no local memory), the shuffle rate (80 SHFL per warp-block: ~0.05 ms at one per
//    clock per SM).
// Now: columns mapped once per lane (edge lanes gather through 4 registers, all M x P loads of a
// block issued before any is used), rows and planes by a 32-bit map whose inside test is one
// compare, one fetch site, rolled step loops, a single-plane kernel with constant-bank level
// words; 3.6 k instructions (57 KB, cold paths included), the level walk 12 KB, 118 registers
// (still 4 blocks x 4 warps per SM).
//
// Work, disk(10) u8 (11 levels, 10 unit steps, 21 rows), per warp and block of 4 rows x 128
// columns, counted on that SASS: 10 steps x 33 (8 SHFL + 8 PRMT + 8 VIMNMX3 + loop and moves),
// 11 levels x ~30 (16 VIMNMX updates, control, moves), ~330 for the 4 fetches, unpack, stores and
// the ring's rotation: ~1000 warp instructions. 104 of the 128 columns are stored and a segment
// of 316 rows reads 20 more: 172 k warp-blocks, ~1.3 M warp instructions per SM -> 0.26 ms at 2.5
// instructions per clock and 1.98 GHz, 0.37 ms at 2 and 1.75 GHz. Prediction 0.25-0.4 ms (target
// <= 0.5 ms); disk(1) ~0.1 ms, disk(15) ~0.6 ms; uint16 as uint8, int32 ~2.4x (2 pixels per lane,
// 22 of 32 lanes working). Measured (H200 sweep): disk(10) 8192^2 u8 0.273 ms (the
// sparse-table kernel: 1.03), disk(1) 0.099, disk(15) 0.432, int32 0.580, uint16 dilation 0.272;
// 3-D ball(5) 512^3 2.79 ms (sparse table 8.74), 192^3 0.311 (0.797): the chain goes first in 3-D too.
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

// One launch shape: the H200 sweep (disk(1), disk(10), disk(15) at 8192^2 u8, int32 and uint16
// disk(10), ball(5) at 192^3 and 512^3) found every alternative within 2 % of it or slower: 1, 2 or
// 8 warps per block, fixed segments of 96 or 160 rows instead of pick_segments, an L2 prefetch 8
// rows ahead, the symmetric step loop unrolled twice, the sparse-table kernel for the footprints
// the chain takes (disk(10) 1.03 ms against 0.273; ball(5) 512^3 8.74 against 2.79).

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

// Register caps (sm_90, ptxas 13.0): 128 for HMAX <= 10 (4 blocks of 4 warps per SM), 168 for
// HMAX 15 (3 blocks); the ring is (2 * HMAX + M) * NR words of them.
constexpr int kMaxThreads = 256;
template <int HMAX>
constexpr int max_threads() {
  return HMAX <= 10 ? kMaxThreads : 384;
}
template <int HMAX>
constexpr int min_blocks() {
  return HMAX <= 10 ? 2 : 1;
}

template <class S, bool Max, int HMAX, bool Sym, bool Multi>
__global__ void __launch_bounds__(max_threads<HMAX>(), min_blocks<HMAX>())
    chain_kernel(const S* __restrict__ in, S* __restrict__ out, Geom g, Mode mode, S cval, const Plan<HMAX> plan,
                 bool vec_ok, std::int64_t warps) {
  const std::int64_t warp_id = std::int64_t(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5);
  if (warp_id >= warps) return;  // whole warp
  DeviceXchg x;
  chain_warp<S, Max, HMAX, kBlockRows, Sym, Multi>(in, out, g, mode, cval, plan, vec_ok, warp_id,
                                                    static_cast<int>(threadIdx.x & 31), x);
}

/// Segments per column strip: the count that minimises (rows per segment + halo rows) x how far the
/// busiest SM's warps exceed the warps it holds at once.
std::int64_t pick_segments(std::int64_t strips, std::int64_t ny, std::int64_t nz, int halo_rows, int sms,
                           int warps_per_sm, int warps_per_block) {
  std::int64_t best = 1;
  double best_cost = 1e300;
  const std::int64_t max_segs = std::min<std::int64_t>(ny, 4096);
  for (std::int64_t segs = 1; segs <= max_segs; ++segs) {
    const std::int64_t rows = (ny + segs - 1) / segs;
    if ((ny + rows - 1) / rows != segs) continue;
    const std::int64_t warps = strips * segs * nz;
    const std::int64_t blocks = (warps + warps_per_block - 1) / warps_per_block;
    const double per_sm = static_cast<double>((blocks + sms - 1) / sms) * warps_per_block;
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
  // kernel without the one-sided and second moves; single-plane ones the kernel without the
  // plane loop.
  using Kern = void (*)(const S*, S*, Geom, Mode, S, const Plan<HMAX>, bool, std::int64_t);
  Kern kern = nullptr;
  if (plan.npl > 1)
    kern = plan.sym ? chain_kernel<S, Max, HMAX, true, true> : chain_kernel<S, Max, HMAX, false, true>;
  else
    kern = plan.sym ? chain_kernel<S, Max, HMAX, true, false> : chain_kernel<S, Max, HMAX, false, false>;
  constexpr int wpb = kWarpsPerBlock;
  static_assert(32 * wpb <= max_threads<HMAX>());
  const int threads = 32 * wpb;
  int dev = 0, sms = 0, blocks_per_sm = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  CUSK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kern, threads, 0));
  const int warps_per_sm = std::max(1, blocks_per_sm) * wpb;
  const std::int64_t segs =
      pick_segments(plan.strips, g.ny, g.nz, plan.dy_max - plan.dy_min, sms, warps_per_sm, wpb);
  set_segments(plan, g, segs);
  const std::int64_t warps = plan.strips * plan.segs * g.nz;
  const std::int64_t blocks = (warps + wpb - 1) / wpb;
  if (blocks > 0x7FFFFFFF) return false;
  const bool vec_ok = vector_ok<S>(Ln::P, g.nx, ip, op);
  kern<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(ip, op, g, mode, cval, plan, vec_ok, warps);
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
                       const Stream& stream) {
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
  return is_max ? by_height<S, true>(ip, op, g, mode, cv, runs, stream.handle())
                : by_height<S, false>(ip, op, g, mode, cv, runs, stream.handle());
}

#define CUSK_CHAIN(T) \
  template bool cuda_chain_minmax<T>(const Array&, Array&, const std::vector<RowRun>&, bool, Mode, T, const Stream&);
CUSK_CHAIN(bool)
CUSK_CHAIN(std::uint8_t)
CUSK_CHAIN(std::uint16_t)
CUSK_CHAIN(std::int32_t)
#undef CUSK_CHAIN

}  // namespace cuskimage::morphology::detail
