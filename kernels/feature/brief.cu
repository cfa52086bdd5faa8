// feature.BRIEF, CUDA backend: one thread per (keypoint, bit), bits of a keypoint in consecutive
// threads (coalesced bool stores; the sample pairs stay in L1).
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/brief.hpp"

namespace cuskimage::feature::detail {
namespace {

template <class T>
__global__ void k_brief(const T* img, std::int64_t rows, std::int64_t cols, const std::int64_t* kp,
                        const std::int32_t* pos, std::int64_t nk, std::int64_t nd, bool* out) {
  const std::int64_t total = nk * nd;
  for (std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t k = t / nd, p = t % nd;
    out[t] = brief_bit(img, rows, cols, kp[2 * k], kp[2 * k + 1], pos + 4 * p);
  }
}

}  // namespace

template <class T>
void cuda_brief(const Array& img, const Array& kp, const Array& pos, Array& out, const Stream& stream) {
  using cuskimage::detail::buf::cptr;
  const std::int64_t nk = kp.shape(0), nd = pos.shape(0);
  if (nk == 0) return;
  constexpr int kThreads = 256;
  k_brief<T><<<cuskimage::detail::grid_blocks(nk * nd, kThreads, 1 << 16), kThreads, 0, stream.handle()>>>(
      cptr<T>(img), img.shape(0), img.shape(1), cptr<std::int64_t>(kp), cptr<std::int32_t>(pos), nk, nd,
      static_cast<bool*>(out.data()));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

template void cuda_brief<float>(const Array&, const Array&, const Array&, Array&, const Stream&);
template void cuda_brief<double>(const Array&, const Array&, const Array&, Array&, const Stream&);

}  // namespace cuskimage::feature::detail
