// CUDA part of segmentation.felzenszwalb (src/segmentation/felzenszwalb.cpp): the edge weights, a
// thread per edge (src/segmentation/felzenszwalb.hpp), and their order by a CUB radix sort of
// (weight, edge index) pairs — stable, so the order equals the CPU backend's stable sort (weights
// are never -0.0, the one key radix and comparison order differently). The merge itself is
// sequential and runs on the host.
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/segmentation/felzenszwalb.hpp"

namespace cuskimage::segmentation::detail {
namespace {

constexpr int kThreads = 256;

__global__ void weight_kernel(const double* __restrict__ img, FzGraph g, double* __restrict__ w,
                              std::int64_t* __restrict__ idx) {
  const std::int64_t m = g.count();
  for (std::int64_t e = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; e < m;
       e += std::int64_t(gridDim.x) * kThreads) {
    w[e] = g.weight(img, e);
    idx[e] = e;
  }
}

}  // namespace

std::vector<std::int64_t> cuda_felzenszwalb_sorted_edges(const Array& smoothed, const FzGraph& g,
                                                         std::vector<double>& weights, const Stream& stream) {
  using cuskimage::detail::buf::ptr;
  const std::int64_t m = g.count();
  weights.clear();
  if (m <= 0) return {};
  const Device dev = smoothed.device();
  const cudaStream_t s = stream.handle();
  Array w = Array::empty({m}, DType::float64, dev, stream), w2 = Array::empty({m}, DType::float64, dev, stream);
  Array id = Array::empty({m}, DType::int64, dev, stream), id2 = Array::empty({m}, DType::int64, dev, stream);
  weight_kernel<<<cuskimage::detail::grid_blocks(m, kThreads, 8192), kThreads, 0, s>>>(
      cuskimage::detail::buf::cptr<double>(smoothed), g, ptr<double>(w), ptr<std::int64_t>(id));
  CUSK_CUDA_CHECK_LAUNCH();
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, ptr<double>(w), ptr<double>(w2),
                                                  ptr<std::int64_t>(id), ptr<std::int64_t>(id2), m, 0, 64, s));
  Array tmp = cuskimage::detail::buf::scratch(bytes, dev, stream);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, ptr<double>(w), ptr<double>(w2),
                                                  ptr<std::int64_t>(id), ptr<std::int64_t>(id2), m, 0, 64, s));
  weights = w2.to(Device::cpu(), stream).to_vector<double>();
  return id2.to(Device::cpu(), stream).to_vector<std::int64_t>();
}

}  // namespace cuskimage::segmentation::detail
