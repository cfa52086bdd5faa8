// CUDA backend of segmentation.clear_border: after measure.label, a flag pass over the border
// (racing writes of the same 1 are benign) and a clearing pass; ~ label + 2 x value bytes per pixel.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/segmentation/clear_border.hpp"

namespace cuskimage::segmentation::detail {
namespace {

template <class L>
__global__ void flag_border_kernel(BorderRule rule, const L* label, std::uint8_t* flags, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (rule(i)) flags[label[i]] = 1;
}

template <class T, class L>
__global__ void clear_flagged_kernel(const L* label, const std::uint8_t* flags, T* out, T bgval, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (flags[label[i]]) out[i] = bgval;
}

}  // namespace

template <class T, class L>
void cuda_clear_border(const BorderRule& rule, const L* label, std::uint8_t* flags, T* out, T bgval, std::int64_t n,
                       const Stream& stream) {
  const unsigned blocks = cuskimage::detail::grid_blocks(n, 256, 1 << 20);
  flag_border_kernel<L><<<blocks, 256, 0, stream.handle()>>>(rule, label, flags, n);
  CUSK_CUDA_CHECK_LAUNCH();
  clear_flagged_kernel<T, L><<<blocks, 256, 0, stream.handle()>>>(label, flags, out, bgval, n);
  CUSK_CUDA_CHECK_LAUNCH();
}

#define CUSK_INST(T)                                                                                           \
  template void cuda_clear_border<T, std::int32_t>(const BorderRule&, const std::int32_t*, std::uint8_t*, T*, T, \
                                                   std::int64_t, const Stream&);                               \
  template void cuda_clear_border<T, std::int64_t>(const BorderRule&, const std::int64_t*, std::uint8_t*, T*, T, \
                                                   std::int64_t, const Stream&);
CUSK_FOR_EACH_DTYPE(CUSK_INST)
#undef CUSK_INST

}  // namespace cuskimage::segmentation::detail
