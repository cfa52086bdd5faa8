// CUDA backend of map_array (radix-sort the keys once, binary-search per pixel), unique_rows
// (merge sort of row indices by row bytes, run heads selected with CUB) and label_points (scatter
// with atomicMax so the last point wins, as NumPy's assignment). Scratch comes from the stream-
// ordered pool through Array::empty; nothing touches the legacy stream.
//
// map_array bytes moved: the image read once and the output written once plus O(log K) cached key
// reads per pixel; the sort of K keys is negligible for label maps.
#include <cub/device/device_merge_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_select.cuh>

#include "kernels/core/buffers.cuh"
#include "kernels/util/common.cuh"
#include "src/core/dispatch.hpp"
#include "src/util/backend.hpp"

namespace cuskimage::util::detail {

using cuskimage::detail::cuda_map;
using cuskimage::detail::dispatch;

namespace {

using KeyTypes = cuskimage::detail::IntegerTypes;

using cuskimage::detail::buf::scratch;

struct Iota64 {
  __device__ std::int64_t operator()(std::int64_t i) const { return i; }
};

template <class K, class U>
void map_array_typed(const Array& input_arr, const Array& keys, const Array& values, Array& out, const Stream& s) {
  const std::int64_t n = keys.size();
  Array sorted_keys = Array::empty({n}, keys.dtype(), keys.device(), s);
  Array order_in = Array::empty({n}, DType::int64, keys.device(), s);
  Array order = Array::empty({n}, DType::int64, keys.device(), s);
  if (n > 0) {
    cuda_generate<std::int64_t>(order_in, Iota64{}, s);
    std::size_t bytes = 0;
    CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        nullptr, bytes, static_cast<const K*>(keys.data()), static_cast<K*>(sorted_keys.data()),
        static_cast<const std::int64_t*>(order_in.data()), static_cast<std::int64_t*>(order.data()), n, 0,
        int(sizeof(K) * 8), s.handle()));
    Array temp = scratch(bytes, keys.device(), s);
    // Radix sort is stable: among equal keys the last in sorted order is the last given.
    CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(
        temp.data(), bytes, static_cast<const K*>(keys.data()), static_cast<K*>(sorted_keys.data()),
        static_cast<const std::int64_t*>(order_in.data()), static_cast<std::int64_t*>(order.data()), n, 0,
        int(sizeof(K) * 8), s.handle()));
  }
  MapArrayFn<K, U> f;
  f.keys = static_cast<const K*>(sorted_keys.data());
  f.order = static_cast<const std::int64_t*>(order.data());
  f.values = static_cast<const U*>(values.data());
  f.n = n;
  Array out_u = alias_as(out, dtype_v<U>);
  cuda_map<K, U>(input_arr, out_u, f, s.handle());
}

}  // namespace

void cuda_map_array(const Array& input_arr, const Array& keys, const Array& values, Array& out, const Stream& stream) {
  dispatch<KeyTypes>(input_arr.dtype(), "util.map_array", [&]<class K>() {
    switch (out.itemsize()) {
      case 1: return map_array_typed<K, std::uint8_t>(input_arr, keys, values, out, stream);
      case 2: return map_array_typed<K, std::uint16_t>(input_arr, keys, values, out, stream);
      case 4: return map_array_typed<K, std::uint32_t>(input_arr, keys, values, out, stream);
      default: return map_array_typed<K, std::uint64_t>(input_arr, keys, values, out, stream);
    }
  });
}

// ---- unique_rows ---------------------------------------------------------------------------------
namespace {

struct RowLess {
  const unsigned char* base;
  std::int64_t row_bytes;
  __device__ bool operator()(std::int64_t a, std::int64_t b) const {
    const unsigned char* p = base + a * row_bytes;
    const unsigned char* q = base + b * row_bytes;
    for (std::int64_t k = 0; k < row_bytes; ++k)
      if (p[k] != q[k]) return p[k] < q[k];
    return false;
  }
};

__global__ void run_heads_kernel(const unsigned char* __restrict__ base, std::int64_t row_bytes,
                                 const std::int64_t* __restrict__ order, std::int64_t n, char* __restrict__ flags) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    bool head = i == 0;
    if (!head) {
      const unsigned char* p = base + order[i] * row_bytes;
      const unsigned char* q = base + order[i - 1] * row_bytes;
      for (std::int64_t k = 0; k < row_bytes && !head; ++k) head = p[k] != q[k];
    }
    flags[i] = head ? 1 : 0;
  }
}

__global__ void gather_rows_kernel(const unsigned char* __restrict__ base, std::int64_t row_bytes,
                                   const std::int64_t* __restrict__ rows, std::int64_t total_bytes,
                                   unsigned char* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total_bytes; i += stride)
    out[i] = base[rows[i / row_bytes] * row_bytes + i % row_bytes];
}

}  // namespace

Array cuda_unique_rows(const Array& ar, const Stream& s) {
  const std::int64_t n = ar.shape()[0];
  const std::int64_t row_bytes = ar.shape()[1] * static_cast<std::int64_t>(ar.itemsize());
  const auto* base = static_cast<const unsigned char*>(ar.data());
  Array order = Array::empty({n}, DType::int64, ar.device(), s);
  cuda_generate<std::int64_t>(order, Iota64{}, s);
  auto* op = static_cast<std::int64_t*>(order.data());
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(nullptr, bytes, op, n, RowLess{base, row_bytes}, s.handle()));
  Array temp = scratch(bytes, ar.device(), s);
  CUSK_CUDA_CHECK(cub::DeviceMergeSort::SortKeys(temp.data(), bytes, op, n, RowLess{base, row_bytes}, s.handle()));
  Array flags = Array::empty({n}, DType::uint8, ar.device(), s);
  run_heads_kernel<<<map_blocks(n), kMapThreads, 0, s.handle()>>>(base, row_bytes, op, n,
                                                                  static_cast<char*>(flags.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  Array selected = Array::empty({n}, DType::int64, ar.device(), s);
  Array count = Array::empty({1}, DType::int64, ar.device(), s);
  std::size_t sel_bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, sel_bytes, op, static_cast<const char*>(flags.data()),
                                             static_cast<std::int64_t*>(selected.data()),
                                             static_cast<std::int64_t*>(count.data()), n, s.handle()));
  Array sel_temp = scratch(sel_bytes, ar.device(), s);
  CUSK_CUDA_CHECK(cub::DeviceSelect::Flagged(sel_temp.data(), sel_bytes, op, static_cast<const char*>(flags.data()),
                                             static_cast<std::int64_t*>(selected.data()),
                                             static_cast<std::int64_t*>(count.data()), n, s.handle()));
  const Array host_count = count.to(Device::cpu(), s);
  s.synchronize();
  const std::int64_t m = *static_cast<const std::int64_t*>(host_count.data());
  Array out = Array::empty({m, ar.shape()[1]}, ar.dtype(), ar.device(), s);
  const std::int64_t total = m * row_bytes;
  if (total > 0) {
    gather_rows_kernel<<<map_blocks(total), kMapThreads, 0, s.handle()>>>(
        base, row_bytes, static_cast<const std::int64_t*>(selected.data()), total,
        static_cast<unsigned char*>(out.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  return out;
}

// ---- label_points --------------------------------------------------------------------------------
namespace {

template <class C>
__global__ void label_points_kernel(const C* __restrict__ coords, std::int64_t rs, std::int64_t cs, std::int64_t n,
                                    int ndim, Indexer shape, unsigned long long* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::int64_t off = point_offset(coords, rs, cs, i, ndim, shape.shape);
    atomicMax(out + off, static_cast<unsigned long long>(i + 1));
  }
}

}  // namespace

void cuda_label_points(const Array& coords, Array& out, const Stream& stream) {
  const std::int64_t n = coords.shape()[0];
  Indexer shape;  // carries the output extents
  shape.ndim = out.ndim();
  for (int d = 0; d < out.ndim(); ++d) shape.shape[d] = out.shape()[d];
  dispatch<cuskimage::detail::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t,
                                    std::uint64_t, std::int64_t, float, double>>(
      coords.dtype(), "util.label_points", [&]<class C>() {
        label_points_kernel<C><<<map_blocks(n), kMapThreads, 0, stream.handle()>>>(
            static_cast<const C*>(coords.data()), coords.strides()[0], coords.strides()[1], n, out.ndim(), shape,
            static_cast<unsigned long long*>(out.data()));
        CUSK_CUDA_CHECK_LAUNCH();
      });
}

}  // namespace cuskimage::util::detail
