// CUDA medial_axis: scikit-image's ordered removal, reproduced exactly on the device.
//
// HOST STEP: one part is not on the device. numpy's shuffle draws j_i = random_interval(i) by
// masked rejection on a PCG64 stream, so where each draw starts depends on how many draws all the
// earlier ones rejected: a sequential scan through ~1.39 draws per pixel. It runs on the host
// (src/morphology/medial_axis.cpp, numpy_permutation.hpp: producer threads make the PCG64 outputs
// ahead of the scan, which tests two draws per step; ~1 ms per million foreground pixels on one
// core) and only its result, the uint32 targets (4 B per foreground pixel), is uploaded, 1 MiB at a
// time while the scan goes on. (A device version was prototyped: bounding each draw's acceptance by
// the possible accept counts before it needs ~100 global rounds for 2 M draws, one per octave of
// the mask in the worst stretch, i.e. no faster than the host scan.)
// Everything else -- the swaps of the shuffle, the order, the removal -- runs on the device.
//
// scikit-image visits the foreground pixels once each, in lexsort order of (distance, cornerness,
// tie-break) with the tie-break numpy's default_rng(rng).permutation, and removes a pixel when the
// 3x3 table says so given its neighbours' state at that moment. A pixel's decision reads only its
// 8 neighbours: the earlier ones (in the order) at their decided value, the later ones still
// foreground. So the order is never materialised (no sort is needed: the lexsort comparison is
// evaluated between neighbours); only "which neighbours come earlier" is needed, and the decisions
// are taken in waves:
//   foreground  the masked image and the C-order list of its foreground (cub::DeviceSelect); the
//               host reads the count once.
//   shuffle     numpy's Fisher-Yates on arange(count), given its targets j_i (drawn on the host,
//               see src/morphology/medial_axis.cpp): iteration i swaps positions i and j_i, and the
//               iterations touching a position must run in order (larger i first). Each round every
//               pending iteration reserves both positions with atomicMax of (round, i); one that
//               holds both is the earliest pending iteration touching them, so it swaps and retires
//               (deterministic reservations, Shun et al. 2015: O(log n) rounds, ~50 for 2M). Rounds
//               run as two kernels on a shrinking list (warp-aggregated appends, counts on the
//               device, the host checks every 4 rounds), the last 4096 iterations in one block.
//   keys        per foreground pixel: tie-break value perm[t] (t its rank in C order) and
//               cornerness 9 - popcount(3x3 window); then each pixel's 9-bit masks of earlier and
//               later foreground neighbours (lexicographic comparison of the three keys; the
//               tie-break is a permutation, so the order is total). The entry is the padded pixel
//               index | earlier << 46 | later << 55.
//   waves       state per padded pixel: 0 background or removed, 1 kept, 2 pending. A pending pixel
//               reads its earlier neighbours: decided ones give their value, pending ones are
//               unknown; when every assignment of the unknown ones gives the same table answer
//               (medial_decide, shared with the tests) that is its sequential decision and it is
//               written. The earliest pending pixel has no unknowns, so each launch decides at least
//               one. Each block owns 2048 consecutive entries (a few image rows) and loops over them
//               until it makes no progress, so chains inside a block resolve in one launch; values
//               written by other blocks are read with volatile loads (a stale value is "pending",
//               which is handled). After the first launch the pending entries are compacted in order;
//               later launches run in batches of 1, 2, 4, 8 between host checks.
//   finish      skeleton = state == 1, the image itself outside the mask.
// Bytes (2048^2 blobs, ~2.1 M foreground pixels): foreground 4 MB read + 17 MB written; keys and
// entries ~20 B per pixel read, 30 B per foreground pixel written; waves ~10 B per pending entry per
// launch; shuffle ~25 B per iteration per round on a list shrinking ~0.7x per round. ~0.25 GB in all:
// floor ~60 us.
//
// Time split, bench_skel's 2048^2 blobs (2,299,952 foreground pixels, distances up to 22.8), from a
// CPU emulation of this schedule and host timings on a 2-core AMD EPYC VM (device parts estimated):
//   foreground + count round trip     ~0.05 ms   (astype, select, one sync)
//   EDT                               ~0.05-0.1  (queued before the draws: under them)
//   host draws                        ~2.3-3 ms  the scan (3.2 M draws); the outputs' generation
//                                                 (~2.2 ms of one core) runs on producer threads
//   targets upload                    ~0.05      1 MiB pieces under the scan; the last one after it
//   shuffle                           ~0.4-0.6   52 rounds: 20 as two kernels each (5 host checks,
//                                                 the list 2.3 M -> 2740), 32 in the one-block tail
//   keys + entries                    ~0.1
//   waves                             ~0.2       2 launches (~20 and ~10 block iterations) + one
//                                                 compaction, 2 host checks
//   output                            ~0.01
// Predicted ~3.5-4.5 ms, the host scan the largest part. A host step that drew into a fresh,
// zero-filled 9.2 MB vector and 13.8 MB output buffer each call (~0.7 ms warm, ~16 ms when the pages
// are new: first touch runs ~1.5 GB/s in these VMs), generated all outputs in one OpenMP region
// before a one-draw-per-step scan (~3 ms), then copied the 9.2 MB through pinned staging before the
// device could start (~0.7 ms) measured 11.7 ms on the H200; that accounts for ~5-6 ms warm, so
// fresh pages (or a slower host core) are the likely rest.
// bench_skel's BM_MedialAxis_targets_blobs2048 (draws + upload) and BM_MedialAxis_removal_blobs2048
// (everything after the targets) measure the split. Next step if the scan still dominates: run the
// shuffle's rounds piece by piece under the scan (all iterations of one piece precede the next
// piece's, so finishing each piece before the next keeps numpy's order), leaving ~0.3 ms after it.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "kernels/core/buffers.cuh"
#include "src/core/cuda_check.hpp"
#include "src/morphology/medial_axis_ops.hpp"

namespace cuskimage::morphology::detail {
namespace {

using u64 = unsigned long long;

constexpr int kThreads = 256;
constexpr int kWaveThreads = 256, kWaveItems = 8;  // 2048 entries per block
constexpr int kTail = 4096, kTailThreads = 1024;   // the shuffle's last iterations, one block
constexpr int kIdxBits = 46;
constexpr u64 kIdxMask = (u64(1) << kIdxBits) - 1;

unsigned blocks_for(std::int64_t n, int threads = kThreads) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((n + threads - 1) / threads, 1, std::int64_t(1) << 20));
}

using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
using cuskimage::detail::buf::scratch;

__device__ __forceinline__ std::uint8_t vload(const std::uint8_t* p) {
  return *static_cast<const volatile std::uint8_t*>(p);
}
__device__ __forceinline__ void vstore(std::uint8_t* p, std::uint8_t v) { *static_cast<volatile std::uint8_t*>(p) = v; }

// ---- foreground --------------------------------------------------------------------------------------

__global__ void __launch_bounds__(kThreads)
    and_kernel(const std::uint8_t* __restrict__ a, const std::uint8_t* __restrict__ b, std::uint8_t* __restrict__ out,
               std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    out[k] = (a[k] != 0 && b[k] != 0) ? 1 : 0;
}

struct IsSet {
  const std::uint8_t* p;
  __device__ bool operator()(std::int64_t i) const { return p[i] != 0; }
};

// ---- shuffle -----------------------------------------------------------------------------------------

__global__ void __launch_bounds__(kThreads) shuffle_init(std::uint32_t* __restrict__ perm, std::uint32_t* __restrict__ pend,
                                                         u64* __restrict__ counts, std::int64_t m) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (first == 0) {
    counts[0] = static_cast<u64>(m - 1);
    counts[1] = 0;
  }
  for (std::int64_t k = first; k < m; k += stride) {
    perm[k] = static_cast<std::uint32_t>(k);
    if (k < m - 1) pend[k] = static_cast<std::uint32_t>(m - 1 - k);  // iteration i = m-1-k
  }
}

__device__ __forceinline__ u64 shuffle_key(u64 round, std::uint32_t i) { return (round << 32) | i; }

/// Iteration i (swap positions i and targets[m-1-i]) reserves both positions.
__global__ void __launch_bounds__(kThreads)
    reserve_kernel(const std::uint32_t* __restrict__ pend, const u64* __restrict__ count_in,
                   const std::uint32_t* __restrict__ targets, std::int64_t m, u64* __restrict__ res, u64 round,
                   u64* __restrict__ count_out) {
  const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (first == 0) *count_out = 0;  // the commit kernel appends to it after this kernel
  const std::int64_t c = static_cast<std::int64_t>(*count_in);
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = first; k < c; k += stride) {
    const std::uint32_t i = pend[k], j = targets[m - 1 - i];
    const u64 key = shuffle_key(round, i);
    atomicMax(res + i, key);
    if (j != i) atomicMax(res + j, key);
  }
}

/// Iterations holding both reservations swap and retire; the others are appended to `pend_out`.
__global__ void __launch_bounds__(kThreads)
    commit_kernel(const std::uint32_t* __restrict__ pend, const u64* __restrict__ count_in,
                  const std::uint32_t* __restrict__ targets, std::int64_t m, const u64* __restrict__ res, u64 round,
                  std::uint32_t* __restrict__ perm, std::uint32_t* __restrict__ pend_out, u64* __restrict__ count_out) {
  const std::int64_t c = static_cast<std::int64_t>(*count_in);
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t rounded = (c + stride - 1) / stride * stride;  // whole warps in every iteration
  const unsigned lane = threadIdx.x & 31u;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < rounded; k += stride) {
    bool keep = false;
    std::uint32_t i = 0;
    if (k < c) {
      i = pend[k];
      const std::uint32_t j = targets[m - 1 - i];
      const u64 key = shuffle_key(round, i);
      if (res[i] == key && res[j] == key) {
        const std::uint32_t a = perm[i];
        perm[i] = perm[j];
        perm[j] = a;
      } else {
        keep = true;
      }
    }
    const unsigned vote = __ballot_sync(0xffffffffu, keep);
    if (vote == 0) continue;
    const int leader = __ffs(vote) - 1;
    u64 base = 0;
    if (static_cast<int>(lane) == leader) base = atomicAdd(count_out, static_cast<u64>(__popc(vote)));
    base = __shfl_sync(0xffffffffu, base, leader);
    if (keep) pend_out[base + __popc(vote & ((1u << lane) - 1u))] = i;
  }
}

/// The last (<= kTail) iterations: the same rounds inside one block, the list in shared memory.
__global__ void __launch_bounds__(kTailThreads)
    shuffle_tail(const std::uint32_t* __restrict__ pend, const u64* __restrict__ count_in,
                 const std::uint32_t* __restrict__ targets, std::int64_t m, u64* __restrict__ res, u64 round,
                 std::uint32_t* __restrict__ perm) {
  __shared__ std::uint32_t list[2][kTail];
  __shared__ int count[2];
  int c = static_cast<int>(*count_in);
  for (int k = threadIdx.x; k < c; k += blockDim.x) list[0][k] = pend[k];
  if (threadIdx.x == 0) count[1] = 0;
  __syncthreads();
  int cur = 0;
  while (c > 0) {
    ++round;
    for (int k = threadIdx.x; k < c; k += blockDim.x) {
      const std::uint32_t i = list[cur][k], j = targets[m - 1 - i];
      const u64 key = shuffle_key(round, i);
      atomicMax(res + i, key);
      if (j != i) atomicMax(res + j, key);
    }
    __syncthreads();
    for (int k = threadIdx.x; k < c; k += blockDim.x) {
      const std::uint32_t i = list[cur][k], j = targets[m - 1 - i];
      const u64 key = shuffle_key(round, i);
      if (__ldcg(res + i) == key && __ldcg(res + j) == key) {
        const std::uint32_t a = __ldcg(perm + i), b = __ldcg(perm + j);
        __stcg(perm + i, b);
        __stcg(perm + j, a);
      } else {
        list[cur ^ 1][atomicAdd(&count[cur ^ 1], 1)] = i;
      }
    }
    __syncthreads();
    c = count[cur ^ 1];
    __syncthreads();  // every thread has read the count before the consumed list's counter is reset
    if (threadIdx.x == 0) count[cur] = 0;
    cur ^= 1;
    __syncthreads();
  }
}

/// perm (uint32, m) = numpy's permutation of arange(m) for the given Fisher-Yates targets.
Array device_shuffle(const Array& targets, std::int64_t m, const Stream& s) {
  const Device dev = targets.device();
  const cudaStream_t h = s.handle();
  Array perm = Array::empty({m}, DType::uint32, dev, s);
  const std::int64_t iters = std::max<std::int64_t>(m - 1, 1);
  Array pend[2] = {Array::empty({iters}, DType::uint32, dev, s), Array::empty({iters}, DType::uint32, dev, s)};
  Array counts = Array::empty({2}, DType::uint64, dev, s);
  Array res = Array::zeros({m}, DType::uint64, dev, s);
  auto* cp = ptr<u64>(counts);
  const auto* tp = cptr<std::uint32_t>(targets);
  shuffle_init<<<blocks_for(m), kThreads, 0, h>>>(ptr<std::uint32_t>(perm), ptr<std::uint32_t>(pend[0]), cp, m);
  CUSK_CUDA_CHECK_LAUNCH();
  if (m <= 1) return perm;
  std::int64_t known = m - 1;  // an upper bound of the pending count
  u64 round = 0;
  int cur = 0;
  while (known > kTail) {
    for (int r = 0; r < 4; ++r) {
      ++round;
      reserve_kernel<<<blocks_for(known), kThreads, 0, h>>>(cptr<std::uint32_t>(pend[cur]), cp + cur, tp, m,
                                                            ptr<u64>(res), round, cp + (cur ^ 1));
      CUSK_CUDA_CHECK_LAUNCH();
      commit_kernel<<<blocks_for(known), kThreads, 0, h>>>(cptr<std::uint32_t>(pend[cur]), cp + cur, tp, m,
                                                           cptr<u64>(res), round, ptr<std::uint32_t>(perm),
                                                           ptr<std::uint32_t>(pend[cur ^ 1]), cp + (cur ^ 1));
      CUSK_CUDA_CHECK_LAUNCH();
      cur ^= 1;
    }
    u64 host = 0;
    CUSK_CUDA_CHECK(cudaMemcpyAsync(&host, cp + cur, sizeof(host), cudaMemcpyDeviceToHost, h));
    s.synchronize();
    known = static_cast<std::int64_t>(host);
  }
  if (known > 0) {
    shuffle_tail<<<1, kTailThreads, 0, h>>>(cptr<std::uint32_t>(pend[cur]), cp + cur, tp, m, ptr<u64>(res), round,
                                            ptr<std::uint32_t>(perm));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  return perm;
}

// ---- keys and entries --------------------------------------------------------------------------------

__device__ __forceinline__ unsigned window(const std::uint8_t* __restrict__ img, std::int64_t rows, std::int64_t cols,
                                           std::int64_t i, std::int64_t j) {
  unsigned c = 0;
  for (int di = -1; di <= 1; ++di)
    for (int dj = -1; dj <= 1; ++dj) {
      const std::int64_t y = i + di, x = j + dj;
      if (y < 0 || y >= rows || x < 0 || x >= cols) continue;
      if (img[y * cols + x]) c |= 1u << ((di + 1) * 3 + (dj + 1));
    }
  return c;
}

__global__ void __launch_bounds__(kThreads)
    keys_kernel(const std::int64_t* __restrict__ fg, std::int64_t m, const std::uint32_t* __restrict__ perm,
                const std::uint8_t* __restrict__ masked, std::int64_t rows, std::int64_t cols,
                std::uint32_t* __restrict__ tb, std::uint8_t* __restrict__ corner) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < m; t += stride) {
    const std::int64_t p = fg[t], i = p / cols, j = p - i * cols;
    tb[p] = perm[t];
    corner[p] = static_cast<std::uint8_t>(9 - __popc(window(masked, rows, cols, i, j)));
  }
}

__global__ void __launch_bounds__(kThreads)
    entries_kernel(const std::int64_t* __restrict__ fg, std::int64_t m, const std::uint8_t* __restrict__ masked,
                   const double* __restrict__ dist, const std::uint8_t* __restrict__ corner,
                   const std::uint32_t* __restrict__ tb, std::int64_t rows, std::int64_t cols, u64* __restrict__ ent,
                   std::uint8_t* __restrict__ st) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t pc = cols + 2;
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < m; t += stride) {
    const std::int64_t p = fg[t], i = p / cols, j = p - i * cols;
    const double dp = dist[p];
    const std::uint8_t cp = corner[p];
    const std::uint32_t tp = tb[p];
    unsigned earlier = 0, later = 0;
    for (int di = -1; di <= 1; ++di)
      for (int dj = -1; dj <= 1; ++dj) {
        if (di == 0 && dj == 0) continue;
        const std::int64_t y = i + di, x = j + dj;
        if (y < 0 || y >= rows || x < 0 || x >= cols) continue;
        const std::int64_t q = y * cols + x;
        if (!masked[q]) continue;
        const unsigned bit = 1u << ((di + 1) * 3 + (dj + 1));
        const double dq = dist[q];
        const std::uint8_t cq = corner[q];
        const bool before = dq < dp || (dq == dp && (cq < cp || (cq == cp && tb[q] < tp)));
        if (before)
          earlier |= bit;
        else
          later |= bit;
      }
    const std::int64_t pp = (i + 1) * pc + (j + 1);
    ent[t] = static_cast<u64>(pp) | (u64(earlier) << kIdxBits) | (u64(later) << (kIdxBits + 9));
    st[pp] = 2;
  }
}

// ---- waves -------------------------------------------------------------------------------------------

__global__ void __launch_bounds__(kWaveThreads)
    wave_kernel(const u64* __restrict__ ent, std::int64_t count, std::uint8_t* st, std::int64_t pc, MedialTable table,
                int max_idle, u64* __restrict__ pending) {
  __shared__ MedialTable t;
  __shared__ int progress, remaining;
  if (threadIdx.x < 16) t.bits[threadIdx.x] = table.bits[threadIdx.x];
  const std::int64_t base = std::int64_t(blockIdx.x) * (kWaveThreads * kWaveItems);
  u64 e[kWaveItems];
  unsigned mine = 0;
#pragma unroll
  for (int k = 0; k < kWaveItems; ++k) {
    const std::int64_t idx = base + std::int64_t(k) * kWaveThreads + threadIdx.x;
    e[k] = idx < count ? ent[idx] : 0;
    if (idx < count && vload(st + (e[k] & kIdxMask)) == 2) mine |= 1u << k;
  }
  int idle = 0;
  for (;;) {
    if (threadIdx.x == 0) progress = remaining = 0;
    __syncthreads();  // (also orders the table load before the first use)
    bool moved = false;
#pragma unroll
    for (int k = 0; k < kWaveItems; ++k) {
      if (!(mine >> k & 1u)) continue;
      const std::int64_t p = static_cast<std::int64_t>(e[k] & kIdxMask);
      const unsigned earlier = static_cast<unsigned>(e[k] >> kIdxBits) & 511u;
      unsigned config = static_cast<unsigned>(e[k] >> (kIdxBits + 9)) | 16u, unknown = 0;
      for (unsigned rest = earlier; rest != 0; rest &= rest - 1) {
        const int b = __ffs(rest) - 1;
        const std::uint8_t v = vload(st + p + (b / 3 - 1) * pc + (b % 3 - 1));
        if (v == 2)
          unknown |= 1u << b;
        else if (v == 1)
          config |= 1u << b;
      }
      const int d = medial_decide(t, config, unknown);
      if (d < 0) continue;
      vstore(st + p, static_cast<std::uint8_t>(d));
      mine &= ~(1u << k);
      moved = true;
    }
    if (moved) progress = 1;
    if (mine) remaining = 1;
    __syncthreads();
    const bool left = remaining != 0, any = progress != 0;
    __syncthreads();  // every thread has read the flags before they are reset
    if (!left) break;
    idle = any ? 0 : idle + 1;
    if (idle >= max_idle) break;
  }
  if (mine) atomicAdd(pending, static_cast<u64>(__popc(mine)));
}

struct StillPending {
  const std::uint8_t* st;
  __device__ bool operator()(u64 e) const { return st[e & kIdxMask] == 2; }
};

void run_waves(const Array& ent, std::int64_t m, Array& st, std::int64_t pc, const Stream& s) {
  const Device dev = ent.device();
  const cudaStream_t h = s.handle();
  static const MedialTable table = medial_keep_table();
  Array pending = Array::empty({1}, DType::uint64, dev, s);
  auto* pp = ptr<u64>(pending);
  u64 host = 0;
  auto launch = [&](const Array& list, std::int64_t count) {
    CUSK_CUDA_CHECK(cudaMemsetAsync(pp, 0, sizeof(u64), h));
    const std::int64_t blocks = (count + kWaveThreads * kWaveItems - 1) / (kWaveThreads * kWaveItems);
    wave_kernel<<<static_cast<unsigned>(blocks), kWaveThreads, 0, h>>>(cptr<u64>(list), count, ptr<std::uint8_t>(st),
                                                                       pc, table, 2, pp);
    CUSK_CUDA_CHECK_LAUNCH();
  };
  auto read_pending = [&] {
    CUSK_CUDA_CHECK(cudaMemcpyAsync(&host, pp, sizeof(host), cudaMemcpyDeviceToHost, h));
    s.synchronize();
    return static_cast<std::int64_t>(host);
  };
  launch(ent, m);
  std::int64_t left = read_pending();
  if (left == 0) return;
  // The pending entries, still in C order (locality of the blocks' chunks).
  Array list = Array::empty({left}, DType::uint64, dev, s);
  Array nsel = Array::empty({1}, DType::int64, dev, s);
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, cptr<u64>(ent), ptr<u64>(list), ptr<std::int64_t>(nsel), m,
                                        StillPending{cptr<std::uint8_t>(st)}, h));
  {
    Array tmp = scratch(bytes, dev, s);
    CUSK_CUDA_CHECK(cub::DeviceSelect::If(tmp.data(), bytes, cptr<u64>(ent), ptr<u64>(list), ptr<std::int64_t>(nsel),
                                          m, StillPending{cptr<std::uint8_t>(st)}, h));
  }
  const std::int64_t count = left;
  for (int batch = 1; left > 0; batch = std::min(batch * 2, 8)) {
    for (int b = 0; b < batch; ++b) launch(list, count);
    left = read_pending();
  }
}

__global__ void __launch_bounds__(kThreads)
    finish_kernel(const std::uint8_t* __restrict__ img, const std::uint8_t* __restrict__ msk,
                  const std::uint8_t* __restrict__ st, std::int64_t rows, std::int64_t cols, bool* __restrict__ out) {
  const std::int64_t n = rows * cols, stride = std::int64_t(gridDim.x) * blockDim.x, pc = cols + 2;
  for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < n; p += stride) {
    const std::int64_t i = p / cols, j = p - i * cols;
    bool v = st[(i + 1) * pc + (j + 1)] == 1;
    if (msk != nullptr && !msk[p]) v = img[p] != 0;
    out[p] = v;
  }
}

}  // namespace

MedialForeground cuda_medial_foreground(const Array& image_b, const Array& mask_b, const Stream& s) {
  const cudaStream_t h = s.handle();
  const Device dev = image_b.device();
  const std::int64_t n = image_b.size();
  MedialForeground f;
  if (mask_b.valid()) {
    f.masked = Array::empty(image_b.shape(), DType::bool_, dev, s);
    and_kernel<<<blocks_for(n), kThreads, 0, h>>>(cptr<std::uint8_t>(image_b), cptr<std::uint8_t>(mask_b),
                                                  ptr<std::uint8_t>(f.masked), n);
    CUSK_CUDA_CHECK_LAUNCH();
  } else {
    f.masked = image_b.share();
  }
  f.fg = Array::empty({std::max<std::int64_t>(n, 1)}, DType::int64, dev, s);
  Array nsel = Array::empty({1}, DType::int64, dev, s);
  const thrust::counting_iterator<std::int64_t> in(0);
  const IsSet pred{cptr<std::uint8_t>(f.masked)};
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, in, ptr<std::int64_t>(f.fg), ptr<std::int64_t>(nsel), n, pred, h));
  {
    Array tmp = scratch(bytes, dev, s);
    CUSK_CUDA_CHECK(
        cub::DeviceSelect::If(tmp.data(), bytes, in, ptr<std::int64_t>(f.fg), ptr<std::int64_t>(nsel), n, pred, h));
  }
  std::int64_t count = 0;
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&count, nsel.data(), sizeof(count), cudaMemcpyDeviceToHost, h));
  s.synchronize();
  f.count = count;
  return f;
}

Array cuda_medial_axis(const Array& image_b, const Array& mask_b, const MedialForeground& f, const Array& dist,
                       const Array& targets, const Stream& s) {
  const cudaStream_t h = s.handle();
  const Device dev = image_b.device();
  const std::int64_t rows = image_b.shape(0), cols = image_b.shape(1), n = rows * cols, m = f.count;
  const std::int64_t pc = cols + 2, padded = (rows + 2) * pc;
  if (padded > static_cast<std::int64_t>(kIdxMask))
    throw NotSupported("morphology.medial_axis: the image is too large for the CUDA backend (2^46 padded pixels)");
  Array out = Array::empty(image_b.shape(), DType::bool_, dev, s);
  Array st = Array::zeros({padded}, DType::uint8, dev, s);
  if (m > 0) {
    const Array perm = device_shuffle(targets, m, s);
    Array tb = Array::empty({n}, DType::uint32, dev, s);
    Array corner = Array::empty({n}, DType::uint8, dev, s);
    const auto* fg = cptr<std::int64_t>(f.fg);
    const auto* mk = cptr<std::uint8_t>(f.masked);
    keys_kernel<<<blocks_for(m), kThreads, 0, h>>>(fg, m, cptr<std::uint32_t>(perm), mk, rows, cols,
                                                   ptr<std::uint32_t>(tb), ptr<std::uint8_t>(corner));
    CUSK_CUDA_CHECK_LAUNCH();
    Array ent = Array::empty({m}, DType::uint64, dev, s);
    entries_kernel<<<blocks_for(m), kThreads, 0, h>>>(fg, m, mk, cptr<double>(dist), cptr<std::uint8_t>(corner),
                                                      cptr<std::uint32_t>(tb), rows, cols, ptr<u64>(ent),
                                                      ptr<std::uint8_t>(st));
    CUSK_CUDA_CHECK_LAUNCH();
    run_waves(ent, m, st, pc, s);
  }
  finish_kernel<<<blocks_for(n), kThreads, 0, h>>>(cptr<std::uint8_t>(image_b),
                                                   mask_b.valid() ? cptr<std::uint8_t>(mask_b) : nullptr,
                                                   cptr<std::uint8_t>(st), rows, cols, ptr<bool>(out));
  CUSK_CUDA_CHECK_LAUNCH();
  return out;
}

}  // namespace cuskimage::morphology::detail
