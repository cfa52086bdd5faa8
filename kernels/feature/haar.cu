// feature.haar_like_feature, CUDA backend: one thread per feature reads its rectangles' corners
// from the integral image (src/feature/haar.hpp).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/haar.hpp"

namespace cuskimage::feature::detail {
namespace {

template <class T, class O>
__global__ void haar_kernel(const T* __restrict__ ii, std::int64_t sr, std::int64_t sc,
                            const std::int32_t* __restrict__ feats, std::int64_t n, O* __restrict__ out) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = static_cast<O>(haar_value(ii, sr, sc, feats + i * kHaarPacked));
}

}  // namespace

template <class T, class O>
void cuda_haar(const T* ii, std::int64_t sr, std::int64_t sc, const Array& feats, Array& out, const Stream& s) {
  const std::int64_t n = out.size();
  if (n == 0) return;
  haar_kernel<T, O><<<cuskimage::detail::grid_blocks(n, 256, 65535LL * 8), 256, 0, s.handle()>>>(
      ii, sr, sc, static_cast<const std::int32_t*>(feats.data()), n, static_cast<O*>(out.data()));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

#define CUSK_HAAR(T, O) \
  template void cuda_haar<T, O>(const T*, std::int64_t, std::int64_t, const Array&, Array&, const Stream&);
CUSK_HAAR(std::int64_t, std::int64_t)
CUSK_HAAR(std::uint64_t, std::int64_t)
CUSK_HAAR(float, float)
CUSK_HAAR(double, double)
#undef CUSK_HAAR

}  // namespace cuskimage::feature::detail
