// CUDA marching squares for measure.find_contours: the segments of every cell, compacted in raster
// order of the cells (the order scikit-image emits them), by reduce-then-scan:
//  1. count:  each block counts the segments of its 2048 cells (256 threads x 8 consecutive cells);
//  2. scan:   an exclusive CUB scan of the block counts gives each block's first output slot;
//  3. emit:   each block recounts its cells, ranks them with a block scan and writes the segments
//             (the per-cell rule is src/measure/contours.hpp, shared with the CPU backend, so the
//             coordinates are bit-identical).
// The segments are copied back and joined on the host (src/measure/contours.cpp).
// Traffic for a 4096^2 uint8 mask: 2 x 16.8 MB read (the four corners of a cell come through L1/L2)
// plus 32 B per segment written and copied back; floor ~10 us for the reads at 4.2 TB/s, and the
// device-to-host copy of ~0.5M segments (16 MB, ~0.3 ms over PCIe 5) dominates the device side.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/measure/contours.hpp"

namespace cuskimage::measure::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kItems = 8;  // consecutive cells per thread
constexpr std::int64_t kTile = std::int64_t(kThreads) * kItems;

struct Grid {
  std::int64_t cols;   // image columns
  std::int64_t ccols;  // cell columns (cols - 1)
  std::int64_t cells;  // (rows - 1) * (cols - 1)
  double level;
  bool high;
};

/// Corners of cell k; false when the cell is skipped (masked or NaN).
template <class T>
__device__ __forceinline__ bool load_cell(const T* __restrict__ v, const bool* __restrict__ mask, const Grid& g,
                                          std::int64_t k, std::int64_t& r, std::int64_t& c, double q[4]) {
  r = k / g.ccols;
  c = k - r * g.ccols;
  const std::int64_t i = r * g.cols + c;
  if (mask && !(mask[i] && mask[i + 1] && mask[i + g.cols] && mask[i + g.cols + 1])) return false;
  q[0] = static_cast<double>(v[i]);
  q[1] = static_cast<double>(v[i + 1]);
  q[2] = static_cast<double>(v[i + g.cols]);
  q[3] = static_cast<double>(v[i + g.cols + 1]);
  return !(isnan(q[0]) || isnan(q[1]) || isnan(q[2]) || isnan(q[3]));
}

template <class T>
__device__ __forceinline__ int thread_count(const T* v, const bool* mask, const Grid& g, std::int64_t first) {
  int n = 0;
  for (int j = 0; j < kItems; ++j) {
    const std::int64_t k = first + j;
    if (k >= g.cells) break;
    std::int64_t r, c;
    double q[4];
    if (load_cell(v, mask, g, k, r, c, q)) n += contour_case_segments(contour_case(q[0], q[1], q[2], q[3], g.level));
  }
  return n;
}

template <class T>
__global__ void __launch_bounds__(kThreads) count_kernel(const T* __restrict__ v, const bool* __restrict__ mask,
                                                         Grid g, std::int64_t* __restrict__ block_counts) {
  using Reduce = cub::BlockReduce<int, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const std::int64_t first = std::int64_t(blockIdx.x) * kTile + std::int64_t(threadIdx.x) * kItems;
  const int n = thread_count(v, mask, g, first);
  const int total = Reduce(tmp).Sum(n);
  if (threadIdx.x == 0) block_counts[blockIdx.x] = total;
}

template <class T>
__global__ void __launch_bounds__(kThreads) emit_kernel(const T* __restrict__ v, const bool* __restrict__ mask, Grid g,
                                                        const std::int64_t* __restrict__ block_offsets,
                                                        ContourSegment* __restrict__ out) {
  using Scan = cub::BlockScan<int, kThreads>;
  __shared__ typename Scan::TempStorage tmp;
  const std::int64_t first = std::int64_t(blockIdx.x) * kTile + std::int64_t(threadIdx.x) * kItems;
  const int n = thread_count(v, mask, g, first);
  int rank = 0;
  Scan(tmp).ExclusiveSum(n, rank);
  if (n == 0) return;
  std::int64_t pos = block_offsets[blockIdx.x] + rank;
  ContourSegment s[2];
  for (int j = 0; j < kItems; ++j) {
    const std::int64_t k = first + j;
    if (k >= g.cells) break;
    std::int64_t r, c;
    double q[4];
    if (!load_cell(v, mask, g, k, r, c, q)) continue;
    const int m = contour_cell(q[0], q[1], q[2], q[3], r, c, g.level, g.high, s);
    for (int e = 0; e < m; ++e) out[pos++] = s[e];
  }
}

}  // namespace

template <class T>
std::vector<ContourSegment> cuda_contour_segments(const Array& image, const Array& mask, double level,
                                                  bool vertex_connect_high, const Stream& s) {
  Grid g{};
  g.cols = image.shape(1);
  g.ccols = g.cols - 1;
  g.cells = (image.shape(0) - 1) * g.ccols;
  g.level = level;
  g.high = vertex_connect_high;
  const std::int64_t blocks = (g.cells + kTile - 1) / kTile;
  const T* v = static_cast<const T*>(image.data());
  const bool* m = mask.valid() ? static_cast<const bool*>(mask.data()) : nullptr;

  Array counts = Array::empty({2 * (blocks + 1)}, DType::int64, image.device(), s);
  auto* block_counts = static_cast<std::int64_t*>(counts.data());
  auto* block_offsets = block_counts + (blocks + 1);
  CUSK_CUDA_CHECK(cudaMemsetAsync(block_counts + blocks, 0, sizeof(std::int64_t), s.handle()));
  count_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, s.handle()>>>(v, m, g, block_counts);
  CUSK_CUDA_CHECK_LAUNCH();
  std::size_t tmp_bytes = 0;
  CUSK_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, block_counts, block_offsets, blocks + 1, s.handle()));
  Array tmp = Array::empty({static_cast<std::int64_t>(std::max<std::size_t>(tmp_bytes, 1))}, DType::uint8,
                           image.device(), s);
  CUSK_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(tmp.data(), tmp_bytes, block_counts, block_offsets, blocks + 1, s.handle()));
  std::int64_t total = 0;
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&total, block_offsets + blocks, sizeof(total), cudaMemcpyDeviceToHost, s.handle()));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s.handle()));
  std::vector<ContourSegment> segs(static_cast<std::size_t>(total));
  if (total == 0) return segs;
  Array dev = Array::empty({total * 4}, DType::float64, image.device(), s);
  auto* out = static_cast<ContourSegment*>(dev.data());
  emit_kernel<T><<<static_cast<unsigned>(blocks), kThreads, 0, s.handle()>>>(v, m, g, block_offsets, out);
  CUSK_CUDA_CHECK_LAUNCH();
  CUSK_CUDA_CHECK(cudaMemcpyAsync(segs.data(), out, static_cast<std::size_t>(total) * sizeof(ContourSegment),
                                  cudaMemcpyDeviceToHost, s.handle()));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s.handle()));
  return segs;
}

#define CUSK_CONTOURS_CUDA(T)                                                                             \
  template std::vector<ContourSegment> cuda_contour_segments<T>(const Array&, const Array&, double, bool, \
                                                                const Stream&);
CUSK_FOR_EACH_DTYPE(CUSK_CONTOURS_CUDA)
#undef CUSK_CONTOURS_CUDA

}  // namespace cuskimage::measure::detail
