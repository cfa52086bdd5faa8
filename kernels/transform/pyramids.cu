// CUDA pieces of the pyramids beyond the Gaussian and the zoom they reuse: the difference image of
// pyramid_laplacian's layers.
#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/transform/warps_backend.hpp"

namespace cuskimage::transform::detail {

namespace {

template <class F>
__global__ void subtract_kernel(const F* __restrict__ a, const F* __restrict__ b, F* __restrict__ o, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    o[i] = a[i] - b[i];
}

}  // namespace

template <class F>
void cuda_subtract(const Array& a, const Array& b, Array& out, const Stream& stream) {
  const std::int64_t n = out.size();
  if (n == 0) return;
  subtract_kernel<F><<<cuskimage::detail::grid_blocks(n, 256, 1 << 16), 256, 0, stream.handle()>>>(
      static_cast<const F*>(a.data()), static_cast<const F*>(b.data()), static_cast<F*>(out.data()), n);
  CUSK_CUDA_CHECK_LAUNCH();
}
template void cuda_subtract<float>(const Array&, const Array&, Array&, const Stream&);
template void cuda_subtract<double>(const Array&, const Array&, Array&, const Stream&);

}  // namespace cuskimage::transform::detail
