// feature.ORB, CUDA backend: the Harris responses at the keypoints (one thread per keypoint) and
// the descriptors (one thread per keypoint and bit). The pyramid, corner_fast, corner_peaks,
// corner_orientations and structure_tensor are the library's device ops.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/orb.hpp"

namespace cuskimage::feature::detail {
namespace {

using cuskimage::detail::grid_blocks;
using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
constexpr int kThreads = 256;

#define CUSK_GRID_LOOP(i, n)                                                                        \
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < (n); \
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)

__global__ void k_harris_at(const double* arr, const double* arc, const double* acc, std::int64_t cols,
                            const std::int64_t* kp, std::int64_t n, double k, double* resp) {
  CUSK_GRID_LOOP(t, n) {
    const std::int64_t at = kp[2 * t] * cols + kp[2 * t + 1];
    resp[t] = harris_k(arr[at], arc[at], acc[at], k);
  }
}

__global__ void k_descriptors(const double* img, std::int64_t cols, const std::int64_t* kp, const double* ori,
                              const std::int8_t* pairs, std::int64_t n, bool* out) {
  CUSK_GRID_LOOP(t, n * 256) {
    const std::int64_t i = t / 256;
    const int j = static_cast<int>(t % 256);
    out[t] = orb_bit(img, cols, kp[2 * i], kp[2 * i + 1], sin(ori[i]), cos(ori[i]), pairs + 4 * j);
  }
}

}  // namespace

void cuda_orb_harris_at(const Array& arr, const Array& arc, const Array& acc, const Array& kp, double k, Array& resp,
                        const Stream& stream) {
  const std::int64_t n = kp.shape(0);
  if (n == 0) return;
  k_harris_at<<<grid_blocks(n, 128, 1 << 16), 128, 0, stream.handle()>>>(
      cptr<double>(arr), cptr<double>(arc), cptr<double>(acc), arr.shape(1), cptr<std::int64_t>(kp), n, k,
      ptr<double>(resp));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

void cuda_orb_descriptors(const Array& img, const Array& kp, const Array& ori, Array& out, const Stream& stream) {
  const std::int64_t n = kp.shape(0);
  if (n == 0) return;
  const std::vector<std::int8_t> table(&kOrbPairs[0][0], &kOrbPairs[0][0] + 256 * 4);
  const Array pairs = cuskimage::detail::buf::upload(table, out.device(), stream);
  k_descriptors<<<grid_blocks(n * 256, kThreads, 1 << 16), kThreads, 0, stream.handle()>>>(
      cptr<double>(img), img.shape(1), cptr<std::int64_t>(kp), cptr<double>(ori), cptr<std::int8_t>(pairs), n,
      static_cast<bool*>(out.data()));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

#undef CUSK_GRID_LOOP

}  // namespace cuskimage::feature::detail
