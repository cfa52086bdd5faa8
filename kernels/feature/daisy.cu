// feature.daisy, CUDA backend: one thread per pixel for the orientation responses, one thread per
// descriptor for the gather and its normalisation (the smoothing is ndimage::gaussian_filter).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/daisy.hpp"

namespace cuskimage::feature::detail {
namespace {

using i64 = std::int64_t;
constexpr int kThreads = 256;
constexpr i64 kCap = 65535LL * 8;

template <class T>
__global__ void hist_kernel(const T* __restrict__ img, DaisyGeom g, T* __restrict__ hist) {
  const i64 n = g.rows * g.cols;
  for (i64 i = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<i64>(gridDim.x) * blockDim.x)
    daisy_pixel(img, g, i / g.cols, i % g.cols, hist);
}

template <class T>
__global__ void descs_kernel(const T* __restrict__ smooth, DaisyGeom g, const std::int32_t* __restrict__ offs,
                             T* __restrict__ out) {
  const i64 n = g.P * g.Q;
  for (i64 i = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<i64>(gridDim.x) * blockDim.x)
    daisy_descriptor(smooth, g, offs, i / g.Q, i % g.Q, out + i * g.D);
}

}  // namespace

template <class T>
void cuda_daisy_hist(const Array& img, const DaisyGeom& g, Array& hist, const Stream& s) {
  const i64 n = g.rows * g.cols;
  hist_kernel<T><<<cuskimage::detail::grid_blocks(n, kThreads, kCap), kThreads, 0, s.handle()>>>(
      img.data<T>(), g, hist.data<T>());
  CUSK_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void cuda_daisy_descs(const Array& smooth, const DaisyGeom& g, const Array& offs, Array& descs, const Stream& s) {
  const i64 n = g.P * g.Q;
  if (n == 0) return;
  descs_kernel<T><<<cuskimage::detail::grid_blocks(n, 128, kCap), 128, 0, s.handle()>>>(
      smooth.data<T>(), g, static_cast<const std::int32_t*>(offs.data()), descs.data<T>());
  CUSK_CUDA_CHECK(cudaGetLastError());
}

template void cuda_daisy_hist<float>(const Array&, const DaisyGeom&, Array&, const Stream&);
template void cuda_daisy_hist<double>(const Array&, const DaisyGeom&, Array&, const Stream&);
template void cuda_daisy_descs<float>(const Array&, const DaisyGeom&, const Array&, Array&, const Stream&);
template void cuda_daisy_descs<double>(const Array&, const DaisyGeom&, const Array&, Array&, const Stream&);

}  // namespace cuskimage::feature::detail
