// feature.multiscale_basic_features, CUDA backend: one kernel per sigma writes that sigma's
// features (the smoothed value, its Sobel magnitude, the Hessian eigenvalues from np.gradient
// twice) for every pixel into the interleaved (spatial..., features) float32 output
// (src/feature/basic_features.hpp's feat_pixel, shared with the CPU backend).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/basic_features.hpp"

namespace cuskimage::feature::detail {
namespace {

template <int ND>
__global__ void k_features(const float* __restrict__ g, const float* __restrict__ sob, FeatGrid G, FeatLayer L,
                           std::int64_t n, float* __restrict__ out) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    feat_pixel<ND>(g, sob, G, L, i, out);
}

}  // namespace

void cuda_basic_features(const Array& g, const Array& sob, const FeatGrid& G, const FeatLayer& L, Array& out,
                         const Stream& stream) {
  const std::int64_t n = g.size();
  constexpr int threads = 256;
  const auto* gp = static_cast<const float*>(g.data());
  const auto* sp = sob.valid() ? static_cast<const float*>(sob.data()) : nullptr;
  auto* op = static_cast<float*>(out.data());
  const unsigned blocks = cuskimage::detail::grid_blocks(n, threads, 65535LL * 8);
  if (G.nd == 2)
    k_features<2><<<blocks, threads, 0, stream.handle()>>>(gp, sp, G, L, n, op);
  else
    k_features<3><<<blocks, threads, 0, stream.handle()>>>(gp, sp, G, L, n, op);
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::feature::detail
