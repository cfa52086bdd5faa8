// feature.CENSURE, CUDA backend: the DoB plane of one scale from the integral image and the
// keypoint mask of one inner scale, one thread per pixel. Filters are the library's device ops.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/censure.hpp"

namespace cuskimage::feature::detail {
namespace {

using cuskimage::detail::grid_blocks;
using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
constexpr int kThreads = 256;

__global__ void k_dob(const double* I, std::int64_t rows, std::int64_t cols, std::int64_t n, double iw, double ow,
                      double* out) {
  const std::int64_t n2 = 2 * n, h = rows - 2 * n2, w = cols - 2 * n2;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < h * w;
       t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t i = t / w + n2, j = t % w + n2;
    out[i * cols + j] = censure_dob(I, cols, i, j, n, iw, ow);
  }
}

__global__ void k_mask(const double* v, const double* mn, const double* mx, const double* arr, const double* arc,
                       const double* acc, std::int64_t n, double thr, double lt, std::uint8_t* mask) {
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < n;
       t += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    mask[t] = censure_keep(v[t], mn[t], mx[t], thr, arr[t], arc[t], acc[t], lt);
}

}  // namespace

void cuda_censure_dob(const Array& integral, std::int64_t n, double inner_w, double outer_w, Array& out,
                      const Stream& stream) {
  const std::int64_t rows = integral.shape(0), cols = integral.shape(1);
  const std::int64_t cnt = (rows - 4 * n) * (cols - 4 * n);
  if (cnt <= 0) return;
  k_dob<<<grid_blocks(cnt, kThreads, 1 << 16), kThreads, 0, stream.handle()>>>(cptr<double>(integral), rows, cols, n,
                                                                               inner_w, outer_w, ptr<double>(out));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

void cuda_censure_mask(const Array& v, const Array& mn, const Array& mx, const Array& arr, const Array& arc,
                       const Array& acc, double thr, double lt, Array& mask, const Stream& stream) {
  const std::int64_t n = v.size();
  k_mask<<<grid_blocks(n, kThreads, 1 << 16), kThreads, 0, stream.handle()>>>(
      cptr<double>(v), cptr<double>(mn), cptr<double>(mx), cptr<double>(arr), cptr<double>(arc), cptr<double>(acc), n,
      thr, lt, ptr<std::uint8_t>(mask));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuskimage::feature::detail
