// CUDA frt2 / ifrt2: one thread per output, the per-output sums of src/transform/finite_radon.hpp
// (sequential over the rows, as numpy's axis-0 sum), so the results equal the CPU backend's.
// O(n^3) work on n^2 outputs; each warp reads 32 consecutive wrapped columns of a row (coalesced
// except at the wrap), the input stays in L2 for n up to a few thousand.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/transform/finite_radon.hpp"

namespace cuskimage::transform::detail {
namespace {

template <class T>
__global__ void frt2_kernel(const T* a, std::int64_t n, std::uint32_t* out) {
  const std::int64_t total = (n + 1) * n;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = frt2_at(a, n, i / n, i % n);
}

template <class T>
__global__ void ifrt2_kernel(const T* a, std::int64_t n, FrtAcc<T> row0, double* out) {
  const std::int64_t total = n * n;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = ifrt2_at(a, n, i / n, i % n, row0);
}

}  // namespace

template <class T>
void cuda_frt2(const Array& a, Array& out, const Stream& stream) {
  const std::int64_t n = a.shape(0);
  if (out.size() == 0) return;
  frt2_kernel<T><<<cuskimage::detail::grid_blocks(out.size(), 256, 65535), 256, 0, stream.handle()>>>(
      static_cast<const T*>(a.data()), n, static_cast<std::uint32_t*>(out.data()));
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class T>
void cuda_ifrt2(const Array& a, Array& out, FrtAcc<T> row0, const Stream& stream) {
  const std::int64_t n = a.shape(1);
  if (out.size() == 0) return;
  ifrt2_kernel<T><<<cuskimage::detail::grid_blocks(out.size(), 256, 65535), 256, 0, stream.handle()>>>(
      static_cast<const T*>(a.data()), n, row0, static_cast<double*>(out.data()));
  CUSK_CUDA_CHECK_LAUNCH();
}

#define CUSK_FRT2(T) template void cuda_frt2<T>(const Array&, Array&, const Stream&);
CUSK_FRT2(bool)
CUSK_FRT2(std::uint8_t)
CUSK_FRT2(std::int8_t)
CUSK_FRT2(std::uint16_t)
CUSK_FRT2(std::int16_t)
CUSK_FRT2(std::uint32_t)
CUSK_FRT2(std::int32_t)
CUSK_FRT2(std::uint64_t)
CUSK_FRT2(std::int64_t)
CUSK_FRT2(float)
CUSK_FRT2(double)
#undef CUSK_FRT2
#define CUSK_IFRT2(T) template void cuda_ifrt2<T>(const Array&, Array&, FrtAcc<T>, const Stream&);
CUSK_IFRT2(bool)
CUSK_IFRT2(std::uint8_t)
CUSK_IFRT2(std::uint16_t)
CUSK_IFRT2(std::uint32_t)
CUSK_IFRT2(std::uint64_t)
#undef CUSK_IFRT2

}  // namespace cuskimage::transform::detail
