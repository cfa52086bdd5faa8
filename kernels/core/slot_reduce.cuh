// K-slot reduction: K running sums / minima / maxima of a per-item functor over n items, in one
// grid-stride pass, into per-block partials that the host combines in block order.
//
// Why not cub::DeviceReduce: the callers (colocalisation, blur_effect, shannon_entropy,
// mesh_surface_area) need several differently-combined slots from one read of the data, and their
// float64 results are pinned by tests to this summation order (per-thread sequential, a fixed
// shared-memory tree per block, then blocks in order on the host).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "src/core/cuda_check.hpp"

namespace cuskimage::detail::slots {

constexpr int kThreads = 256;

enum SlotOp : int { kSum = 0, kMin = 1, kMax = 2 };

template <int K>
struct SlotOps {
  int op[K];
};

__host__ __device__ inline double slot_identity(int op) {
  return op == kSum ? 0.0 : op == kMin ? INFINITY : -INFINITY;
}
__device__ inline double slot_combine(int op, double a, double b) {
  if (op == kSum) return a + b;
  if (op == kMin) return b < a ? b : a;
  return b > a ? b : a;
}

/// f(i, acc) folds item i into acc[0..K); partials[block * K + k] receives the block's slot k.
template <int K, class F>
__global__ void __launch_bounds__(kThreads) reduce_kernel(std::int64_t n, F f, SlotOps<K> ops, double* partials) {
  __shared__ double sm[K][kThreads];
  double acc[K];
  for (int k = 0; k < K; ++k) acc[k] = slot_identity(ops.op[k]);
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * kThreads)
    f(i, acc);
  for (int k = 0; k < K; ++k) sm[k][threadIdx.x] = acc[k];
  __syncthreads();
  for (int w = kThreads / 2; w > 0; w /= 2) {
    if (threadIdx.x < w)
      for (int k = 0; k < K; ++k) sm[k][threadIdx.x] = slot_combine(ops.op[k], sm[k][threadIdx.x], sm[k][threadIdx.x + w]);
    __syncthreads();
  }
  if (threadIdx.x == 0)
    for (int k = 0; k < K; ++k) partials[std::int64_t(blockIdx.x) * K + k] = sm[k][0];
}

/// Runs reduce_kernel over n items (at most 1024 blocks) and combines the per-block partials on
/// the host (synchronises the stream).
template <int K, class F>
std::array<double, K> device_reduce(std::int64_t n, const F& f, const SlotOps<K>& ops, Device dev,
                                    const Stream& stream) {
  const unsigned blocks =
      static_cast<unsigned>(std::clamp<std::int64_t>((n + kThreads - 1) / kThreads, 1, 1024));
  Array part = Array::empty({std::int64_t(blocks) * K}, DType::float64, dev, stream);
  reduce_kernel<K, F><<<blocks, kThreads, 0, stream.handle()>>>(n, f, ops, static_cast<double*>(part.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  std::vector<double> h(std::size_t(blocks) * K);
  CUSK_CUDA_CHECK(cudaMemcpyAsync(h.data(), part.data(), h.size() * sizeof(double), cudaMemcpyDeviceToHost,
                                  stream.handle()));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(stream.handle()));
  std::array<double, K> r;
  for (int k = 0; k < K; ++k) {
    r[k] = slot_identity(ops.op[k]);
    for (unsigned b = 0; b < blocks; ++b) {
      const double v = h[std::size_t(b) * K + k];
      r[k] = ops.op[k] == kSum ? r[k] + v : ops.op[k] == kMin ? std::min(r[k], v) : std::max(r[k], v);
    }
  }
  return r;
}

}  // namespace cuskimage::detail::slots
