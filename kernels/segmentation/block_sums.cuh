// Deterministic two-kernel sums of a few values per pixel (the level-set region statistics): a
// grid of blocks stores one partial per value and block, then one block adds the partials in a
// fixed order, so a run gives the same bits every time.
#pragma once

#include <cub/block/block_reduce.cuh>

namespace cuskimage::segmentation::detail {

/// Block-reduces each v[j] and stores it at part[j * gridDim.x + blockIdx.x].
template <int kThreads, int N>
__device__ void levelset_block_store(double (&v)[N], double* __restrict__ part) {
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  for (int j = 0; j < N; ++j) {
    const double s = Reduce(tmp).Sum(v[j]);
    if (threadIdx.x == 0) part[j * gridDim.x + blockIdx.x] = s;
    __syncthreads();
  }
}

/// In a single block: v[j] = the sum of the nb partials of value j (valid in thread 0).
template <int kThreads, int N>
__device__ void levelset_sum_partials(const double* __restrict__ part, int nb, double (&v)[N]) {
  for (int j = 0; j < N; ++j) v[j] = 0.0;
  for (int b = threadIdx.x; b < nb; b += kThreads)
    for (int j = 0; j < N; ++j) v[j] += part[j * nb + b];
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  for (int j = 0; j < N; ++j) {
    v[j] = Reduce(tmp).Sum(v[j]);
    __syncthreads();
  }
}

}  // namespace cuskimage::segmentation::detail
