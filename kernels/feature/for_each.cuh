// The grid-stride runner behind feature::detail::cuda_for_each (src/feature/corner.hpp): one
// thread per index of a CUSK_HD functor. Each .cu instantiates it for the functors it owns.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuskimage/stream.hpp"
#include "src/core/cuda_check.hpp"

namespace cuskimage::feature::detail {

template <class F>
__global__ void __launch_bounds__(256) for_each_kernel(std::int64_t n, F f) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

template <class F>
void cuda_for_each(std::int64_t n, const F& f, const Stream& stream) {
  const unsigned blocks = static_cast<unsigned>(std::clamp<std::int64_t>((n + 255) / 256, 1, 1 << 20));
  for_each_kernel<F><<<blocks, 256, 0, stream.handle()>>>(n, f);
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::feature::detail
