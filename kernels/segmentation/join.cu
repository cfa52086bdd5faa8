// CUDA backend of relabel_sequential / join_segmentations / ArrayMap: CUB radix sort + unique for
// the distinct values (the count is read back: it sizes the maps and picks the output dtype), then
// one lookup pass (binary search in the sorted keys, which stay in L1/L2). Labels of a small range
// take presence flags instead: one min/max pass (per-block partials read back), the flags, their
// prefix sum, and a lookup pass of four labels per thread (vector loads and stores).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>
#include <type_traits>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/segmentation/join.hpp"

namespace cuskimage::segmentation::detail {
namespace {

template <class T, class O>
__global__ void sorted_map_kernel(SortedMap<T, O> m, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    m(i);
}

template <class T>
__global__ void combine_kernel(const T* a, const T* b, T factor, T* out, std::int64_t n) {
  using U = std::make_unsigned_t<T>;  // wraps as NumPy's fixed-width arithmetic
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = static_cast<T>(static_cast<U>(static_cast<U>(a[i]) * static_cast<U>(factor) + static_cast<U>(b[i])));
}

template <class T>
__global__ void flag_values_kernel(const T* in, std::int32_t* flags, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    // Racing stores of the same 1; reading first keeps the many repeats of a label off the L2's
    // write path.
    std::int32_t* f = flags + static_cast<std::int64_t>(in[i]);
    if (!*f) *f = 1;
  }
}

template <class T>
__global__ void gather_present_kernel(const std::int32_t* flags, const std::int32_t* rank, T* uniq, std::int64_t m) {
  for (std::int64_t v = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; v < m;
       v += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (flags[v]) uniq[rank[v]] = static_cast<T>(v);
}

/// Per-block minimum and maximum (partials[2 b], partials[2 b + 1]): one read of the labels, one
/// launch; the host reduces the few partials it reads back anyway.
template <class T>
__global__ void __launch_bounds__(256) minmax_kernel(const T* __restrict__ in, std::int64_t n, T* __restrict__ partials) {
  T lo = std::numeric_limits<T>::max(), hi = std::numeric_limits<T>::lowest();
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const T v = in[i];
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  for (int d = 16; d > 0; d >>= 1) {
    const T a = __shfl_down_sync(0xffffffffu, lo, d), b = __shfl_down_sync(0xffffffffu, hi, d);
    lo = a < lo ? a : lo;
    hi = b > hi ? b : hi;
  }
  __shared__ T slo[8], shi[8];
  if ((threadIdx.x & 31) == 0) slo[threadIdx.x >> 5] = lo, shi[threadIdx.x >> 5] = hi;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < static_cast<int>(blockDim.x >> 5); ++w) {
      lo = slo[w] < lo ? slo[w] : lo;
      hi = shi[w] > hi ? shi[w] : hi;
    }
    partials[2 * blockIdx.x] = lo;
    partials[2 * blockIdx.x + 1] = hi;
  }
}

/// relabel_sequential's value of one label.
template <class T, class O>
__device__ __forceinline__ O dense_value(T v, const std::int32_t* rank, std::int64_t offset, bool has0) {
  return (has0 && v == T(0)) ? O(0) : static_cast<O>(offset + rank[static_cast<std::int64_t>(v)] - (has0 ? 1 : 0));
}

template <class X>
struct alignas(4 * sizeof(X)) Quad {
  X v[4];
};

/// Four labels per thread with vector loads and stores (both arrays aligned to 4 elements).
template <class T, class O>
__global__ void dense_map4_kernel(const T* __restrict__ in, const std::int32_t* __restrict__ rank, std::int64_t quads,
                                  std::int64_t offset, bool has0, O* __restrict__ out) {
  for (std::int64_t q = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; q < quads;
       q += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const Quad<T> a = reinterpret_cast<const Quad<T>*>(in)[q];
    Quad<O> b;
#pragma unroll
    for (int j = 0; j < 4; ++j) b.v[j] = dense_value<T, O>(a.v[j], rank, offset, has0);
    reinterpret_cast<Quad<O>*>(out)[q] = b;
  }
}

template <class T, class O>
__global__ void dense_map_kernel(const T* in, const std::int32_t* rank, std::int64_t n, std::int64_t offset, bool has0,
                                 O* out) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    out[i] = dense_value<T, O>(in[i], rank, offset, has0);
  }
}

}  // namespace

template <class T>
DenseRanks cuda_dense_ranks(const Array& a, std::int64_t max_entries, const Stream& stream) {
  const std::int64_t n = a.size();
  const cudaStream_t s = stream.handle();
  const T* in = static_cast<const T*>(a.data());
  const unsigned blocks = cuskimage::detail::grid_blocks(n, 256, 528);
  Array part = Array::empty({2 * static_cast<std::int64_t>(blocks)}, a.dtype(), a.device(), stream);
  minmax_kernel<T><<<blocks, 256, 0, s>>>(in, n, static_cast<T*>(part.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  const std::vector<T> hp = part.to(Device::cpu(), stream).to_vector<T>();
  T h[2] = {hp[0], hp[1]};
  for (unsigned b = 1; b < blocks; ++b) {
    h[0] = std::min(h[0], hp[2 * b]);
    h[1] = std::max(h[1], hp[2 * b + 1]);
  }
  DenseRanks r;
  if constexpr (std::is_signed_v<T>) {
    if (h[0] < 0) {
      r.negative = true;
      return r;
    }
  }
  r.min = static_cast<std::int64_t>(h[0]);
  if (static_cast<std::uint64_t>(h[1]) >= static_cast<std::uint64_t>(max_entries)) return r;
  const std::int64_t m = static_cast<std::int64_t>(h[1]) + 1;
  Array flags = Array::zeros({m + 1}, DType::int32, a.device(), stream);
  r.rank = Array::empty({m + 1}, DType::int32, a.device(), stream);
  auto* f = static_cast<std::int32_t*>(flags.data());
  auto* rk = static_cast<std::int32_t*>(r.rank.data());
  flag_values_kernel<T><<<cuskimage::detail::grid_blocks(n, 256, 1 << 20), 256, 0, s>>>(in, f, n);
  CUSK_CUDA_CHECK_LAUNCH();
  std::size_t b3 = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, b3, f, rk, m + 1, s));
  Array tmp2 = Array::empty({static_cast<std::int64_t>(b3) + 1}, DType::uint8, a.device(), stream);
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp2.data(), b3, f, rk, m + 1, s));
  std::int32_t k = 0;
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&k, rk + m, sizeof k, cudaMemcpyDeviceToHost, s));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s));
  r.uniq = Array::empty({k}, a.dtype(), a.device(), stream);
  gather_present_kernel<T><<<cuskimage::detail::grid_blocks(m, 256, 1 << 20), 256, 0, s>>>(
      f, rk, static_cast<T*>(r.uniq.data()), m);
  CUSK_CUDA_CHECK_LAUNCH();
  r.used = true;
  return r;
}

template <class T, class O>
void cuda_dense_map(const T* in, const std::int32_t* rank, std::int64_t n, std::int64_t offset, bool has0, O* out,
                    const Stream& stream) {
  std::int64_t done = 0;
  if (reinterpret_cast<std::uintptr_t>(in) % (4 * sizeof(T)) == 0 &&
      reinterpret_cast<std::uintptr_t>(out) % (4 * sizeof(O)) == 0 && n >= 4) {
    const std::int64_t quads = n / 4;
    dense_map4_kernel<T, O><<<cuskimage::detail::grid_blocks(quads, 256, 1 << 20), 256, 0, stream.handle()>>>(
        in, rank, quads, offset, has0, out);
    CUSK_CUDA_CHECK_LAUNCH();
    done = 4 * quads;
  }
  if (done == n) return;
  dense_map_kernel<T, O><<<cuskimage::detail::grid_blocks(n - done, 256, 1 << 20), 256, 0, stream.handle()>>>(
      in + done, rank, n - done, offset, has0, out + done);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class T>
Array cuda_sorted_unique(const Array& a, const Stream& stream) {
  const std::int64_t n = a.size();
  const cudaStream_t s = stream.handle();
  Array sorted = Array::empty({n}, a.dtype(), a.device(), stream);
  Array uniq = Array::empty({n}, a.dtype(), a.device(), stream);
  Array count = Array::empty({1}, DType::int64, a.device(), stream);
  const T* in = static_cast<const T*>(a.data());
  T* so = static_cast<T*>(sorted.data());
  T* un = static_cast<T*>(uniq.data());
  auto* cnt = static_cast<std::int64_t*>(count.data());
  std::size_t sort_bytes = 0, uniq_bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, in, so, n, 0, int(sizeof(T) * 8), s));
  CUSK_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, uniq_bytes, so, un, cnt, n, s));
  Array tmp = Array::empty({static_cast<std::int64_t>(std::max(sort_bytes, uniq_bytes)) + 1}, DType::uint8,
                           a.device(), stream);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(tmp.data(), sort_bytes, in, so, n, 0, int(sizeof(T) * 8), s));
  CUSK_CUDA_CHECK(cub::DeviceSelect::Unique(tmp.data(), uniq_bytes, so, un, cnt, n, s));
  std::int64_t k = 0;
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&k, cnt, sizeof k, cudaMemcpyDeviceToHost, s));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s));
  return uniq.slice({Slice{0, k}}).copy(stream);
}

template <class T, class O>
void cuda_sorted_map(const SortedMap<T, O>& m, std::int64_t n, const Stream& stream) {
  sorted_map_kernel<T, O><<<cuskimage::detail::grid_blocks(n, 256, 1 << 20), 256, 0, stream.handle()>>>(m, n);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class T>
void cuda_combine(const T* a, const T* b, T factor, T* out, std::int64_t n, const Stream& stream) {
  combine_kernel<T><<<cuskimage::detail::grid_blocks(n, 256, 1 << 20), 256, 0, stream.handle()>>>(a, b, factor, out, n);
  CUSK_CUDA_CHECK_LAUNCH();
}

#define CUSK_INST(T)                                                                                        \
  template Array cuda_sorted_unique<T>(const Array&, const Stream&);                                        \
  template DenseRanks cuda_dense_ranks<T>(const Array&, std::int64_t, const Stream&);                       \
  template void cuda_dense_map<T, T>(const T*, const std::int32_t*, std::int64_t, std::int64_t, bool, T*,   \
                                     const Stream&);                                                        \
  template void cuda_dense_map<T, std::uint64_t>(const T*, const std::int32_t*, std::int64_t, std::int64_t, \
                                                 bool, std::uint64_t*, const Stream&);                      \
  template void cuda_sorted_map<T, T>(const SortedMap<T, T>&, std::int64_t, const Stream&);                 \
  template void cuda_sorted_map<T, std::uint64_t>(const SortedMap<T, std::uint64_t>&, std::int64_t,        \
                                                  const Stream&);                                           \
  template void cuda_sorted_map<T, std::int64_t>(const SortedMap<T, std::int64_t>&, std::int64_t, const Stream&); \
  template void cuda_combine<T>(const T*, const T*, T, T*, std::int64_t, const Stream&);
CUSK_INST(std::uint8_t)
CUSK_INST(std::int8_t)
CUSK_INST(std::uint16_t)
CUSK_INST(std::int16_t)
CUSK_INST(std::uint32_t)
CUSK_INST(std::int32_t)
#undef CUSK_INST
template Array cuda_sorted_unique<std::int64_t>(const Array&, const Stream&);
template DenseRanks cuda_dense_ranks<std::int64_t>(const Array&, std::int64_t, const Stream&);
template DenseRanks cuda_dense_ranks<std::uint64_t>(const Array&, std::int64_t, const Stream&);
template void cuda_dense_map<std::int64_t, std::int64_t>(const std::int64_t*, const std::int32_t*, std::int64_t,
                                                         std::int64_t, bool, std::int64_t*, const Stream&);
template void cuda_dense_map<std::int64_t, std::uint64_t>(const std::int64_t*, const std::int32_t*, std::int64_t,
                                                          std::int64_t, bool, std::uint64_t*, const Stream&);
template void cuda_dense_map<std::uint64_t, std::uint64_t>(const std::uint64_t*, const std::int32_t*, std::int64_t,
                                                           std::int64_t, bool, std::uint64_t*, const Stream&);
template void cuda_sorted_map<std::int64_t, std::int64_t>(const SortedMap<std::int64_t, std::int64_t>&, std::int64_t,
                                                          const Stream&);
template void cuda_sorted_map<std::int64_t, std::uint64_t>(const SortedMap<std::int64_t, std::uint64_t>&,
                                                           std::int64_t, const Stream&);
template void cuda_combine<std::int64_t>(const std::int64_t*, const std::int64_t*, std::int64_t, std::int64_t*,
                                         std::int64_t, const Stream&);
template Array cuda_sorted_unique<std::uint64_t>(const Array&, const Stream&);
template void cuda_sorted_map<std::uint64_t, std::uint64_t>(const SortedMap<std::uint64_t, std::uint64_t>&,
                                                            std::int64_t, const Stream&);
template void cuda_sorted_map<std::uint64_t, std::int64_t>(const SortedMap<std::uint64_t, std::int64_t>&,
                                                           std::int64_t, const Stream&);
template void cuda_combine<std::uint64_t>(const std::uint64_t*, const std::uint64_t*, std::uint64_t, std::uint64_t*,
                                          std::int64_t, const Stream&);

}  // namespace cuskimage::segmentation::detail
