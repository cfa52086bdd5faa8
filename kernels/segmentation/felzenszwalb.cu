// CUDA part of segmentation.felzenszwalb (src/segmentation/felzenszwalb.cpp): the edge weights, a
// thread per edge (src/segmentation/felzenszwalb.hpp), and their order by a CUB radix sort of
// (weight, edge index) pairs — stable, so the order equals the CPU backend's stable sort (weights
// are never -0.0, the one key radix and comparison order differently), then each sorted edge's two
// pixels (int32 pairs below 2^31 pixels: 16 B per edge cross to the host with its weight). The
// merge itself is sequential and runs on the host.
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

/// The two pixels of each sorted edge, side by side.
template <class I>
__global__ void ends_kernel(const std::int64_t* __restrict__ idx, FzGraph g, std::int64_t m, I* __restrict__ ab) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < m;
       i += std::int64_t(gridDim.x) * kThreads) {
    std::int64_t a, b;
    g.ends(idx[i], a, b);
    ab[2 * i] = static_cast<I>(a);
    ab[2 * i + 1] = static_cast<I>(b);
  }
}

}  // namespace

void cuda_felzenszwalb_sorted_edges(const Array& smoothed, const FzGraph& g, Array& weights, Array& ends,
                                    const Stream& stream) {
  using cuskimage::detail::buf::ptr;
  const std::int64_t m = g.count();
  if (m <= 0) return;
  const Device dev = smoothed.device();
  const cudaStream_t s = stream.handle();
  Array w = Array::empty({m}, DType::float64, dev, stream), w2 = Array::empty({m}, DType::float64, dev, stream);
  Array id = Array::empty({m}, DType::int64, dev, stream), id2 = Array::empty({m}, DType::int64, dev, stream);
  const unsigned blocks = cuskimage::detail::grid_blocks(m, kThreads, 8192);
  weight_kernel<<<blocks, kThreads, 0, s>>>(cuskimage::detail::buf::cptr<double>(smoothed), g, ptr<double>(w),
                                            ptr<std::int64_t>(id));
  CUSK_CUDA_CHECK_LAUNCH();
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, ptr<double>(w), ptr<double>(w2),
                                                  ptr<std::int64_t>(id), ptr<std::int64_t>(id2), m, 0, 64, s));
  Array tmp = cuskimage::detail::buf::scratch(bytes, dev, stream);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, ptr<double>(w), ptr<double>(w2),
                                                  ptr<std::int64_t>(id), ptr<std::int64_t>(id2), m, 0, 64, s));
  const bool narrow = g.height * g.width < (std::int64_t(1) << 31);
  Array ab = Array::empty({2 * m}, narrow ? DType::int32 : DType::int64, dev, stream);
  if (narrow)
    ends_kernel<std::int32_t><<<blocks, kThreads, 0, s>>>(ptr<std::int64_t>(id2), g, m, ptr<std::int32_t>(ab));
  else
    ends_kernel<std::int64_t><<<blocks, kThreads, 0, s>>>(ptr<std::int64_t>(id2), g, m, ptr<std::int64_t>(ab));
  CUSK_CUDA_CHECK_LAUNCH();
  weights = w2.to(Device::cpu(), stream);
  ends = ab.to(Device::cpu(), stream);
}

}  // namespace cuskimage::segmentation::detail
