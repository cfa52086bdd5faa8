// The nuclei pipeline's fused per-pixel kernels (src/tiled/nuclei_ops.hpp). Each is one read and
// one write per pixel (3 B in, 4 B out; 4 B in, 1 B out): bandwidth-bound grid-stride loops.
#include <algorithm>
#include <cstdint>

#include "src/core/cuda_check.hpp"
#include "src/tiled/nuclei_ops.hpp"

namespace cuskimage::tiled::detail {
namespace {

__global__ void haem_kernel(const std::uint8_t* __restrict__ rgb, std::int64_t n, HaemLut lut, float* __restrict__ out) {
  __shared__ float t[768];
  for (int i = threadIdx.x; i < 768; i += blockDim.x) t[i] = lut.v[i];
  __syncthreads();
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float h = t[rgb[3 * i]] + t[256 + rgb[3 * i + 1]] + t[512 + rgb[3 * i + 2]];
    out[i] = h > 0.f ? h : 0.f;
  }
}

__global__ void greater_kernel(const float* __restrict__ x, std::int64_t n, float t, bool* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = x[i] > t;
}

unsigned blocks(std::int64_t n) { return static_cast<unsigned>(std::min<std::int64_t>((n + 255) / 256, 132 * 16)); }

}  // namespace

void cuda_haematoxylin(const std::uint8_t* rgb, std::int64_t n, const HaemLut& lut, float* out, const Stream& s) {
  if (n == 0) return;
  haem_kernel<<<blocks(n), 256, 0, s.handle()>>>(rgb, n, lut, out);
  CUSK_CUDA_CHECK_LAUNCH();
}

void cuda_greater(const float* x, std::int64_t n, float t, bool* out, const Stream& s) {
  if (n == 0) return;
  greater_kernel<<<blocks(n), 256, 0, s.handle()>>>(x, n, t, out);
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::tiled::detail
