// The nuclei pipeline's fused per-pixel kernels (src/tiled/nuclei_ops.hpp). Each is one read and
// one write per pixel (3 B in, 4 B out; 4 B in, 1 B out; the split's glue 8 B or 8 B + 4 B in,
// 8 B or 4 B out): bandwidth-bound grid-stride loops.
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

__global__ void negate_kernel(const double* __restrict__ x, std::int64_t n, double* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = -x[i];
}

__global__ void markers_kernel(const std::int64_t* __restrict__ peaks, std::int64_t n, std::int64_t w,
                               std::int32_t* __restrict__ markers) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n) markers[peaks[2 * k] * w + peaks[2 * k + 1]] = static_cast<std::int32_t>(k + 1);
}

__global__ void finish_kernel(const std::int32_t* __restrict__ ws, const std::int32_t* __restrict__ comp, std::int64_t h,
                              std::int64_t w, std::int32_t n_peaks, std::int64_t y0, std::int64_t x0,
                              std::int32_t* __restrict__ out, unsigned long long* __restrict__ first) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < h * w; i += stride) {
    const std::int32_t l = ws[i] > 0 ? ws[i] : (comp[i] > 0 ? n_peaks + comp[i] : 0);
    out[i] = l;
    if (l == 0) continue;
    const unsigned long long key = (static_cast<unsigned long long>(y0 + i / w) << 32) | static_cast<unsigned long long>(x0 + i % w);
    if (key < first[l - 1]) atomicMin(first + (l - 1), key);  // the read skips most atomics
  }
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

void cuda_negate(const double* x, std::int64_t n, double* out, const Stream& s) {
  if (n == 0) return;
  negate_kernel<<<blocks(n), 256, 0, s.handle()>>>(x, n, out);
  CUSK_CUDA_CHECK_LAUNCH();
}

void cuda_peak_markers(const std::int64_t* peaks, std::int64_t n, std::int64_t h, std::int64_t w, std::int32_t* markers,
                       const Stream& s) {
  CUSK_CUDA_CHECK(cudaMemsetAsync(markers, 0, static_cast<std::size_t>(h * w) * sizeof(std::int32_t), s.handle()));
  if (n == 0) return;
  markers_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s.handle()>>>(peaks, n, w, markers);
  CUSK_CUDA_CHECK_LAUNCH();
}

void cuda_split_finish(const std::int32_t* ws, const std::int32_t* comp, std::int64_t h, std::int64_t w,
                       std::int64_t n_peaks, std::int64_t n_labels, std::int64_t y0, std::int64_t x0, std::int32_t* out,
                       std::int64_t* first, const Stream& s) {
  if (n_labels > 0)
    CUSK_CUDA_CHECK(cudaMemsetAsync(first, 0xFF, static_cast<std::size_t>(n_labels) * sizeof(std::int64_t), s.handle()));
  if (h * w == 0) return;
  finish_kernel<<<blocks(h * w), 256, 0, s.handle()>>>(ws, comp, h, w, static_cast<std::int32_t>(n_peaks), y0, x0, out,
                                                        reinterpret_cast<unsigned long long*>(first));
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::tiled::detail
