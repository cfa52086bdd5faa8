// CUDA backend of segmentation.expand_labels around the EDT: the label == 0 mask and the gather.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/segmentation/expand_labels.hpp"

namespace cuskimage::segmentation::detail {
namespace {

template <class T>
__global__ void zero_mask_kernel(const T* label, Grid g, bool* zero, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    zero[i] = label[grid_offset(g, i)] == T(0);
  }
}

template <class T>
__global__ void expand_kernel(ExpandRule<T> rule) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < rule.n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    rule(i);
}

}  // namespace

template <class T>
void cuda_zero_mask(const T* label, const Grid& g, bool* zero, std::int64_t n, const Stream& stream) {
  zero_mask_kernel<T><<<cuskimage::detail::grid_blocks(n, 256, 1 << 20), 256, 0, stream.handle()>>>(label, g, zero, n);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class T>
void cuda_expand(const ExpandRule<T>& rule, const Stream& stream) {
  expand_kernel<T><<<cuskimage::detail::grid_blocks(rule.n, 256, 1 << 20), 256, 0, stream.handle()>>>(rule);
  CUSK_CUDA_CHECK_LAUNCH();
}

#define CUSK_INST(T)                                                                              \
  template void cuda_zero_mask<T>(const T*, const Grid&, bool*, std::int64_t, const Stream&); \
  template void cuda_expand<T>(const ExpandRule<T>&, const Stream&);
CUSK_FOR_EACH_DTYPE(CUSK_INST)
#undef CUSK_INST

}  // namespace cuskimage::segmentation::detail
