// CUDA backend of skimage.measure.shannon_entropy (src/measure/entropy.cpp): values -> 64-bit keys
// (NaNs one key, -0 == 0), CUB radix sort and run-length encoding, then a reduction of -p log p over
// the runs (kernels/core/slot_reduce.cuh).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kernels/core/launch.cuh"
#include "kernels/core/slot_reduce.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"
#include "src/measure/entropy.hpp"

namespace cuskimage::measure::detail {
namespace {

using namespace cuskimage::detail::slots;  // device_reduce, SlotOps, kSum / kMin / kMax

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t n, std::int64_t cap = 4096) { return cuskimage::detail::grid_blocks(n, kThreads, cap); }

template <class T>
__global__ void entropy_keys_kernel(const T* __restrict__ in, cuskimage::detail::Indexer ix, bool contiguous, std::int64_t n,
                                    std::uint64_t* __restrict__ keys) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads) {
    const T v = in[contiguous ? i : ix.offset(i)];
    std::uint64_t k;
    if constexpr (std::is_floating_point_v<T>) {
      double d = static_cast<double>(v);
      if (d != d) k = ~std::uint64_t(0);
      else {
        if (d == 0.0) d = 0.0;
        k = static_cast<std::uint64_t>(__double_as_longlong(d));
      }
    } else {
      k = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    }
    keys[i] = k;
  }
}

struct EntropyTerm {
  const std::int64_t* counts;
  const std::int64_t* num_runs;
  double total;
  __device__ void operator()(std::int64_t i, double* acc) const {
    if (i >= *num_runs) return;
    const double pk = static_cast<double>(counts[i]) / total;
    acc[0] += -pk * log(pk);
  }
};

}  // namespace

template <class T>
double cuda_shannon_entropy(const Array& in, double base, const Stream& stream) {
  const std::int64_t n = in.size();
  const auto layout = cuskimage::detail::layout_of({&in});
  Array keys = Array::empty({2 * n}, DType::uint64, in.device(), stream);
  auto* k_in = static_cast<std::uint64_t*>(keys.data());
  auto* k_out = k_in + n;
  entropy_keys_kernel<T><<<blocks_for(n), kThreads, 0, stream.handle()>>>(static_cast<const T*>(in.data()), layout.indexer(0),
                                                                 layout.contiguous(0), n, k_in);
  CUSK_CUDA_CHECK_LAUNCH();
  Array runs = Array::empty({2 * n + 1}, DType::int64, in.device(), stream);
  auto* uniq = reinterpret_cast<std::uint64_t*>(runs.data());
  auto* counts = static_cast<std::int64_t*>(runs.data()) + n;
  auto* num_runs = counts + n;
  std::size_t sort_bytes = 0, rle_bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, sort_bytes, k_in, k_out, n, 0, 64, stream.handle()));
  CUSK_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(nullptr, rle_bytes, k_out, uniq, counts, num_runs, n, stream.handle()));
  Array tmp = Array::empty({static_cast<std::int64_t>(std::max<std::size_t>({sort_bytes, rle_bytes, 1}))},
                           DType::uint8, in.device(), stream);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(tmp.data(), sort_bytes, k_in, k_out, n, 0, 64, stream.handle()));
  CUSK_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(tmp.data(), rle_bytes, k_out, uniq, counts, num_runs, n, stream.handle()));
  const EntropyTerm term{counts, num_runs, static_cast<double>(n)};
  const auto r = device_reduce<1>(n, term, SlotOps<1>{{kSum}}, in.device(), stream);
  return r[0] / std::log(base);
}

#define CUSK_MEASURE_ENTROPY_CUDA(T) template double cuda_shannon_entropy<T>(const Array&, double, const Stream&);
CUSK_FOR_EACH_DTYPE(CUSK_MEASURE_ENTROPY_CUDA)
#undef CUSK_MEASURE_ENTROPY_CUDA

}  // namespace cuskimage::measure::detail
