// CUDA backend of segmentation.find_boundaries / mark_boundaries: one grid-stride pass of the
// shared per-pixel rules (src/segmentation/boundaries.hpp). The label reads of neighbouring
// threads overlap, so each label comes from DRAM about once and the pass moves ~ label bytes + 1
// byte per output pixel.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/dispatch.hpp"
#include "src/core/cuda_check.hpp"
#include "src/segmentation/boundaries.hpp"

namespace cuskimage::segmentation::detail {
namespace {

template <class T>
__global__ void find_boundaries_kernel(BoundaryRule<T> rule, bool* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = rule(i);
}

template <class F>
__global__ void paint_kernel(PaintRule<F> rule, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    rule(i);
}

}  // namespace

template <class T>
void cuda_find_boundaries(const BoundaryRule<T>& rule, Array& out, const Stream& stream) {
  const std::int64_t n = out.size();
  find_boundaries_kernel<T><<<cuskimage::detail::grid_blocks(n, 256, 1 << 20), 256, 0, stream.handle()>>>(
      rule, static_cast<bool*>(out.data()), n);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class F>
void cuda_paint(const PaintRule<F>& rule, std::int64_t n, const Stream& stream) {
  paint_kernel<F><<<cuskimage::detail::grid_blocks(n, 256, 1 << 20), 256, 0, stream.handle()>>>(rule, n);
  CUSK_CUDA_CHECK_LAUNCH();
}

#define CUSK_INST(T) template void cuda_find_boundaries<T>(const BoundaryRule<T>&, Array&, const Stream&);
CUSK_FOR_EACH_DTYPE(CUSK_INST)
#undef CUSK_INST
template void cuda_paint<float>(const PaintRule<float>&, std::int64_t, const Stream&);
template void cuda_paint<double>(const PaintRule<double>&, std::int64_t, const Stream&);

}  // namespace cuskimage::segmentation::detail
