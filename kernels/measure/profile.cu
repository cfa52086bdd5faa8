// CUDA profile_line samples of spline order 0 / 1 (src/measure/profile.cpp): one thread per
// (point, channel), sampling the strided image in place (src/measure/profile.hpp).
#include <algorithm>
#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/measure/profile.hpp"

namespace cuskimage::measure::detail {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t n, std::int64_t cap = 4096) { return cuskimage::detail::grid_blocks(n, kThreads, cap); }

template <class T>
__global__ void profile_kernel(const T* __restrict__ img, std::int64_t n0, std::int64_t n1, std::int64_t s0,
                               std::int64_t s1, std::int64_t s2, std::int64_t nch, const double* __restrict__ coords,
                               std::int64_t npts, int order, InterpMode mode, double cval, T* __restrict__ out) {
  const std::int64_t n = npts * nch;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads) {
    const std::int64_t k = i / nch, ch = i - k * nch;
    out[i] = profile_sample<T>(img + ch * s2, n0, n1, s0, s1, coords[2 * k], coords[2 * k + 1], order, mode, cval);
  }
}

}  // namespace

template <class T>
void cuda_profile_samples(const Array& image, const Array& coords, Array& out, int order, InterpMode mode,
                          double cval, const Stream& stream) {
  const std::int64_t npts = coords.shape(0);
  const std::int64_t nch = image.ndim() == 3 ? image.shape(2) : 1;
  const auto& st = image.strides();
  profile_kernel<T><<<blocks_for(npts * nch), kThreads, 0, stream.handle()>>>(
      static_cast<const T*>(image.data()), image.shape(0), image.shape(1), st[0], st[1], image.ndim() == 3 ? st[2] : 0,
      nch, static_cast<const double*>(coords.data()), npts, order, mode, cval, static_cast<T*>(out.data()));
  CUSK_CUDA_CHECK_LAUNCH();
}

#define CUSK_MEASURE_PROFILE_CUDA(T)                                                                         \
  template void cuda_profile_samples<T>(const Array&, const Array&, Array&, int, InterpMode, double, const Stream&);
CUSK_FOR_EACH_DTYPE(CUSK_MEASURE_PROFILE_CUDA)
#undef CUSK_MEASURE_PROFILE_CUDA

}  // namespace cuskimage::measure::detail
