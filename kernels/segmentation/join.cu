// CUDA backend of relabel_sequential / join_segmentations / ArrayMap: CUB radix sort + unique for
// the distinct values (the count is read back: it sizes the maps and picks the output dtype), then
// one lookup pass (binary search in the sorted keys, which stay in L1/L2).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>

#include <cstdint>
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

}  // namespace

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
