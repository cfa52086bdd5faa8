// Device side of the fixed-order double reduction of src/pathology/hd_math.hpp (kLanes lanes per
// chunk of kChunk items, lanes summing in order, then folded with halving strides): one block of
// kLanes threads per chunk, so a sum has the same bits as the CPU backend's reduce_level.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "src/core/cuda_check.hpp"
#include "src/pathology/hd_math.hpp"

namespace cuskimage::pathology::detail {

/// Sums W doubles per item over this block's chunk; item(i, v) fills v[0..W) for item i < n.
/// Lane 0's result goes to out[blockIdx.x * W ...].
template <int W, class Item>
__device__ __forceinline__ void chunk_reduce(std::int64_t n, const Item& item, double* __restrict__ out) {
  __shared__ double s[kLanes][W];
  const std::int64_t base = std::int64_t(blockIdx.x) * kChunk;
  double acc[W];
  for (int k = 0; k < W; ++k) acc[k] = 0.0;
  for (int j = 0; j < kPerLane; ++j) {
    const std::int64_t i = base + threadIdx.x + std::int64_t(kLanes) * j;
    if (i >= n) break;
    double v[W];
    item(i, v);
    for (int k = 0; k < W; ++k) acc[k] = add_rn(acc[k], v[k]);
  }
  for (int k = 0; k < W; ++k) s[threadIdx.x][k] = acc[k];
  const int l = threadIdx.x;
  for (int st = kLanes / 2; st >= 1; st /= 2) {
    __syncthreads();
    if (l < st)
      for (int k = 0; k < W; ++k) s[l][k] = add_rn(s[l][k], s[l + st][k]);
  }
  __syncthreads();
  if (l < W) out[std::int64_t(blockIdx.x) * W + l] = s[0][l];
}

template <int W>
struct PartialItem {
  const double* p;
  __device__ __forceinline__ void operator()(std::int64_t i, double* v) const {
    for (int k = 0; k < W; ++k) v[k] = p[i * W + k];
  }
};

template <int W>
__global__ void __launch_bounds__(kLanes) fold_partials_kernel(const double* __restrict__ in, std::int64_t items,
                                                               double* __restrict__ out) {
  chunk_reduce<W>(items, PartialItem<W>{in}, out);
}

/// Folds `chunks` partials of W doubles (in `part`, replaced) down to one, level by level.
template <int W>
void fold_to_one(Array& part, std::int64_t chunks, const Stream& stream) {
  while (chunks > 1) {
    const std::int64_t next = (chunks + kChunk - 1) / kChunk;
    Array folded = Array::empty({next * W}, DType::float64, part.device(), stream);
    fold_partials_kernel<W><<<static_cast<unsigned>(next), kLanes, 0, stream.handle()>>>(part.data<double>(), chunks,
                                                                                         folded.data<double>());
    CUSK_CUDA_CHECK_LAUNCH();
    part = std::move(folded);
    chunks = next;
  }
}

}  // namespace cuskimage::pathology::detail
