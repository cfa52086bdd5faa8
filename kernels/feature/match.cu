// feature.match_descriptors, CUDA backend: the (M, N) float64 distance table, in row chunks of at
// most 2^26 entries, by a tiled kernel
// (16 x 16 pairs per block, 32-feature slices of both descriptor sets staged in shared memory,
// each thread summing its pair in feature order as the CPU backend does), then one warp per row
// for the first minimum and the minimum over the other columns, and one warp per column for the
// cross check's first minimum, merged over the chunks (a later chunk only wins with a smaller
// distance). The minima come back to the host, which selects the matches.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "kernels/core/buffers.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/match.hpp"

namespace cuskimage::feature::detail {
namespace {

using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
constexpr int kTile = 16, kSlice = 32;

__global__ void k_distances(const double* a, const double* b, std::int64_t rows, std::int64_t cols,
                            std::int64_t n, MatchMetric m, double p, double* d) {
  __shared__ double sa[kTile][kSlice + 1], sb[kTile][kSlice + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const std::int64_t i0 = static_cast<std::int64_t>(blockIdx.y) * kTile, j0 = static_cast<std::int64_t>(blockIdx.x) * kTile;
  const std::int64_t i = i0 + ty, j = j0 + tx;
  PairAcc acc;
  for (std::int64_t k0 = 0; k0 < n; k0 += kSlice) {
    // 256 threads stage 16 rows x 32 features of each set.
    for (int e = ty * kTile + tx; e < kTile * kSlice; e += kTile * kTile) {
      const int r = e / kSlice, k = e % kSlice;
      const bool in_k = k0 + k < n;
      sa[r][k] = i0 + r < rows && in_k ? a[(i0 + r) * n + k0 + k] : 0.0;
      sb[r][k] = j0 + r < cols && in_k ? b[(j0 + r) * n + k0 + k] : 0.0;
    }
    __syncthreads();
    const int len = static_cast<int>(n - k0 < kSlice ? n - k0 : kSlice);
    for (int k = 0; k < len; ++k) pair_add(m, p, acc, sa[ty][k], sb[tx][k]);
    __syncthreads();
  }
  if (i < rows && j < cols) d[i * cols + j] = pair_finish(m, p, acc, n);
}

struct Best {
  double d, second;
  std::int64_t idx;
};

/// Merges two partial minima over disjoint column sets: the lower value wins, ties to the lower
/// index; the loser's best competes for second place.
__device__ Best merge(Best x, Best y) {
  const bool y_wins = y.d < x.d || (y.d == x.d && y.idx < x.idx);
  const Best w = y_wins ? y : x, l = y_wins ? x : y;
  return {w.d, fmin(w.second, l.d), w.idx};
}

__device__ Best warp_min(Best v) {
  for (int off = 16; off > 0; off >>= 1) {
    Best o;
    o.d = __shfl_down_sync(0xffffffffu, v.d, off);
    o.second = __shfl_down_sync(0xffffffffu, v.second, off);
    o.idx = __shfl_down_sync(0xffffffffu, v.idx, off);
    v = merge(v, o);
  }
  return v;
}

/// One warp per line of the table: `count` lines of `len` entries, entry e of line l at
/// d[l * line_step + e * step].
__global__ void k_line_min(const double* d, std::int64_t count, std::int64_t len, std::int64_t line_step,
                           std::int64_t step, std::int64_t* best, double* best_d, double* second_d) {
  const std::int64_t line = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (line >= count) return;
  const double inf = std::numeric_limits<double>::infinity();
  Best v{inf, inf, std::numeric_limits<std::int64_t>::max()};
  for (std::int64_t e = lane; e < len; e += 32) v = merge(v, Best{d[line * line_step + e * step], inf, e});
  v = warp_min(v);
  if (lane == 0) {
    best[line] = v.idx;
    if (best_d) best_d[line] = v.d, second_d[line] = v.second;
  }
}

__global__ void k_merge_columns(const std::int64_t* idx, const double* val, std::int64_t n, std::int64_t offset,
                                std::int64_t* best, double* best_d) {
  for (std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; j < n;
       j += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (val[j] < best_d[j]) best_d[j] = val[j], best[j] = idx[j] + offset;  // earlier rows win ties
}

}  // namespace

void cuda_match_minima(const Array& a, const Array& b, MatchMetric m, double p, bool columns, MatchMinima& out,
                       const Stream& stream) {
  const std::int64_t rows = a.shape(0), cols = b.shape(0), n = a.shape(1);
  const Device dev = a.device();
  // Rows in chunks so that the table stays within 2^26 entries (512 MiB).
  const std::int64_t chunk = std::max<std::int64_t>(1, std::min<std::int64_t>(rows, (std::int64_t(1) << 26) / cols));
  Array d = Array::empty({chunk, cols}, DType::float64, dev, stream);
  Array best = Array::empty({rows}, DType::int64, dev, stream);
  Array bd = Array::empty({rows}, DType::float64, dev, stream), sd = Array::empty({rows}, DType::float64, dev, stream);
  Array colb, cold, ci, cv, cs;
  if (columns) {
    colb = Array::zeros({cols}, DType::int64, dev, stream);
    cold = Array::full({cols}, std::numeric_limits<double>::infinity(), DType::float64, dev, stream);
    ci = Array::empty({cols}, DType::int64, dev, stream);
    cv = Array::empty({cols}, DType::float64, dev, stream);
    cs = Array::empty({cols}, DType::float64, dev, stream);  // the columns' second minima, unused
  }
  constexpr int kThreads = 256, kWarps = kThreads / 32;
  for (std::int64_t r0 = 0; r0 < rows; r0 += chunk) {
    const std::int64_t h = std::min(chunk, rows - r0);
    const dim3 grid(static_cast<unsigned>((cols + kTile - 1) / kTile), static_cast<unsigned>((h + kTile - 1) / kTile));
    k_distances<<<grid, dim3(kTile, kTile), 0, stream.handle()>>>(cptr<double>(a) + r0 * n, cptr<double>(b), h, cols, n,
                                                                   m, p, ptr<double>(d));
    CUSK_CUDA_CHECK(cudaGetLastError());
    k_line_min<<<static_cast<unsigned>((h + kWarps - 1) / kWarps), kThreads, 0, stream.handle()>>>(
        ptr<double>(d), h, cols, cols, 1, ptr<std::int64_t>(best) + r0, ptr<double>(bd) + r0, ptr<double>(sd) + r0);
    CUSK_CUDA_CHECK(cudaGetLastError());
    if (!columns) continue;
    k_line_min<<<static_cast<unsigned>((cols + kWarps - 1) / kWarps), kThreads, 0, stream.handle()>>>(
        ptr<double>(d), cols, h, 1, cols, ptr<std::int64_t>(ci), ptr<double>(cv), ptr<double>(cs));
    CUSK_CUDA_CHECK(cudaGetLastError());
    k_merge_columns<<<static_cast<unsigned>((cols + kThreads - 1) / kThreads), kThreads, 0, stream.handle()>>>(
        cptr<std::int64_t>(ci), cptr<double>(cv), cols, r0, ptr<std::int64_t>(colb), ptr<double>(cold));
    CUSK_CUDA_CHECK(cudaGetLastError());
  }
  out.best = best.to(Device::cpu(), stream).to_vector<std::int64_t>();
  out.best_d = bd.to(Device::cpu(), stream).to_vector<double>();
  out.second_d = sd.to(Device::cpu(), stream).to_vector<double>();
  if (columns) out.col_best = colb.to(Device::cpu(), stream).to_vector<std::int64_t>();
}

}  // namespace cuskimage::feature::detail
