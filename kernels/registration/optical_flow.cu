// CUDA backend of the optical flows: one grid-stride kernel per step functor of
// src/registration/optical_flow.hpp (shared with the CPU loop), and the two reductions the host
// reads (the moving image's range per level, TV-L1's stopping test per warp).
//
// Bytes per pixel and step (float32, 2-D): warp coordinates 8 + 8, map_coordinates ~20 (4 taps
// from cache, 8 of coordinates, 4 out), ILK terms ~28 (5 terms out) + 5 uniform filters ~8 each +
// solve 24; TV-L1 per warp ~40 (gradient, NI, rho0), per iteration data ~36 and 2 x 2 x (proj ~20,
// div ~16). 1024^2 TV-L1 (5 warps x 10 iterations x ~180 B/px at the finest level, ~1.33x over the
// pyramid): ~12 GB -> floor ~3 ms at 4.2 TB/s; the kernels are small (~1.5k launches): launch-bound
// near ~10-15 ms, within the 50 ms target. ILK 1024^2 (10 warps x ~110 B/px x 1.33): ~1.5 GB, floor
// ~0.4 ms; the filters dominate (target 10 ms).
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <limits>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/registration/optical_flow.hpp"

namespace cuskimage::registration::detail {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t n) { return cuskimage::detail::grid_blocks(n, kThreads, 65535 * 16); }

template <class F>
__global__ void __launch_bounds__(kThreads) each_kernel(F f, std::int64_t n) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads)
    f(i);
}

template <class T>
__global__ void __launch_bounds__(kThreads) minmax_kernel(const T* __restrict__ a, std::int64_t n, T* __restrict__ out) {
  T lo = std::numeric_limits<T>::infinity(), hi = -std::numeric_limits<T>::infinity();
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads)
    lo = ::fmin(lo, a[i]), hi = ::fmax(hi, a[i]);
  using Reduce = cub::BlockReduce<T, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  lo = Reduce(tmp).Reduce(lo, [](T x, T y) { return ::fmin(x, y); });
  __syncthreads();
  hi = Reduce(tmp).Reduce(hi, [](T x, T y) { return ::fmax(x, y); });
  if (threadIdx.x == 0) out[2 * blockIdx.x] = lo, out[2 * blockIdx.x + 1] = hi;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    sq_diff_kernel(const T* __restrict__ a, const T* __restrict__ b, std::int64_t n, double* __restrict__ out) {
  double s = 0;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads) {
    const T d = a[i] - b[i];
    s += static_cast<double>(d * d);
  }
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  s = Reduce(tmp).Sum(s);
  if (threadIdx.x == 0) atomicAdd(out, s);
}

template <class T>
void minmax_t(const Array& a, double& lo, double& hi, const Stream& s) {
  const unsigned blocks = cuskimage::detail::grid_blocks(a.size(), kThreads, 1024);
  Array part = Array::empty({2 * static_cast<std::int64_t>(blocks)}, dtype_v<T>, a.device(), s);
  minmax_kernel<T><<<blocks, kThreads, 0, s.handle()>>>(a.data<T>(), a.size(), part.data<T>());
  CUSK_CUDA_CHECK_LAUNCH();
  std::vector<T> h(2 * blocks);
  CUSK_CUDA_CHECK(cudaMemcpyAsync(h.data(), part.data(), h.size() * sizeof(T), cudaMemcpyDeviceToHost, s.handle()));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s.handle()));
  T l = h[0], u = h[1];
  for (unsigned b = 1; b < blocks; ++b) l = std::fmin(l, h[2 * b]), u = std::fmax(u, h[2 * b + 1]);
  lo = static_cast<double>(l), hi = static_cast<double>(u);
}

}  // namespace

template <class F>
void cuda_each(const F& f, std::int64_t n, const Stream& stream) {
  if (n <= 0) return;
  each_kernel<F><<<blocks_for(n), kThreads, 0, stream.handle()>>>(f, n);
  CUSK_CUDA_CHECK_LAUNCH();
}

void cuda_minmax(const Array& a, double& lo, double& hi, const Stream& stream) {
  if (a.dtype() == DType::float32) minmax_t<float>(a, lo, hi, stream);
  else minmax_t<double>(a, lo, hi, stream);
}

double cuda_sq_diff(const Array& a, const Array& b, const Stream& s) {
  Array sum = Array::zeros({1}, DType::float64, a.device(), s);
  const unsigned blocks = cuskimage::detail::grid_blocks(a.size(), kThreads, 1024);
  if (a.dtype() == DType::float32)
    sq_diff_kernel<float><<<blocks, kThreads, 0, s.handle()>>>(a.data<float>(), b.data<float>(), a.size(),
                                                               static_cast<double*>(sum.data()));
  else
    sq_diff_kernel<double><<<blocks, kThreads, 0, s.handle()>>>(a.data<double>(), b.data<double>(), a.size(),
                                                                static_cast<double*>(sum.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  double h = 0;
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&h, sum.data(), sizeof(double), cudaMemcpyDeviceToHost, s.handle()));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s.handle()));
  return h;
}

#define CUSK_FLOW_STEPS(T)                                                                  \
  template void cuda_each(const WarpCoords<T>&, std::int64_t, const Stream&);               \
  template void cuda_each(const ScaleFlow<T>&, std::int64_t, const Stream&);                \
  template void cuda_each(const IlkTerms<T>&, std::int64_t, const Stream&);                 \
  template void cuda_each(const IlkSolve<T>&, std::int64_t, const Stream&);                 \
  template void cuda_each(const Tvl1Warp<T>&, std::int64_t, const Stream&);                 \
  template void cuda_each(const Tvl1Data<T>&, std::int64_t, const Stream&);                 \
  template void cuda_each(const Tvl1Proj<T>&, std::int64_t, const Stream&);                 \
  template void cuda_each(const Tvl1Div<T>&, std::int64_t, const Stream&);
CUSK_FLOW_STEPS(float)
CUSK_FLOW_STEPS(double)
#undef CUSK_FLOW_STEPS
template void cuda_each(const ZoomCoords&, std::int64_t, const Stream&);

}  // namespace cuskimage::registration::detail
