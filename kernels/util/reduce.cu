// CUDA reductions of the util module: min/max and float64 sums (segmented), counts, and the
// number of distinct values (radix sort + adjacent compare). Each returns host values and
// synchronizes its stream. Bytes moved: one read of the input (count_unique: sort passes too).
#include <cub/device/device_radix_sort.cuh>

#include "kernels/util/common.cuh"
#include "src/core/dispatch.hpp"
#include "src/util/backend.hpp"

namespace cuskimage::util::detail {

template <class T>
std::vector<MinMax<T>> cuda_minmax(const Array& a, std::int64_t segments, const Stream& stream) {
  return cuda_reduce(a, segments, MinMaxOp<T>{}, stream);
}

template <class T>
std::vector<double> cuda_sum(const Array& a, std::int64_t segments, const Stream& stream) {
  return cuda_reduce(a, segments, SumOp<T>{}, stream);
}

#define CUSK_UTIL_INSTANTIATE(T)                                                             \
  template std::vector<MinMax<T>> cuda_minmax<T>(const Array&, std::int64_t, const Stream&); \
  template std::vector<double> cuda_sum<T>(const Array&, std::int64_t, const Stream&);
CUSK_FOR_EACH_DTYPE(CUSK_UTIL_INSTANTIATE)
#undef CUSK_UTIL_INSTANTIATE

std::int64_t cuda_count_nonpositive(const Array& a, const Stream& stream) {
  return cuda_reduce(a, 1, CountNonPositiveOp<double>{}, stream)[0];
}

namespace {

/// Counts i with sorted[i] != sorted[i - 1] (NaNs equal), plus one for i = 0.
template <class T>
__global__ void __launch_bounds__(kMapThreads)
    count_runs_kernel(const T* __restrict__ s, std::int64_t n, unsigned long long* __restrict__ count) {
  unsigned long long local = 0;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (i == 0) {
      ++local;
    } else {
      const T x = s[i], y = s[i - 1];
      const bool same = x == y || (x != x && y != y);
      local += same ? 0 : 1;
    }
  }
  using BlockReduce = cub::BlockReduce<unsigned long long, kMapThreads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  const unsigned long long total = BlockReduce(tmp).Sum(local);
  if (threadIdx.x == 0 && total) atomicAdd(count, total);
}

}  // namespace

std::int64_t cuda_count_unique(const Array& a, const Stream& s) {
  return cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(
      a.dtype(), "util.random_noise", [&]<class T>() -> std::int64_t {
        const std::int64_t n = a.size();
        if (n == 0) return 0;
        const Array keys = a.contiguous(s);
        Array sorted = Array::empty({n}, a.dtype(), a.device(), s);
        std::size_t temp_bytes = 0;
        CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, static_cast<const T*>(keys.data()),
                                                       static_cast<T*>(sorted.data()), n, 0, int(sizeof(T) * 8),
                                                       s.handle()));
        Array temp = Array::empty({static_cast<std::int64_t>(std::max<std::size_t>(temp_bytes, 1))}, DType::uint8,
                                  a.device(), s);
        CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), temp_bytes, static_cast<const T*>(keys.data()),
                                                       static_cast<T*>(sorted.data()), n, 0, int(sizeof(T) * 8),
                                                       s.handle()));
        Array count = Array::zeros({1}, DType::uint64, a.device(), s);
        count_runs_kernel<T><<<map_blocks(n), kMapThreads, 0, s.handle()>>>(
            static_cast<const T*>(sorted.data()), n, static_cast<unsigned long long*>(count.data()));
        CUSK_CUDA_CHECK_LAUNCH();
        const Array host = count.to(Device::cpu(), s);
        s.synchronize();
        return static_cast<std::int64_t>(*static_cast<const std::uint64_t*>(host.data()));
      });
}

}  // namespace cuskimage::util::detail
