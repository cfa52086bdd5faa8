// CUDA hough_line and hough_circle.
//
// hough_line: a block owns `tpb` consecutive angles (their full distance columns as uint32 counters in
// shared memory) and one chunk of the image; every nonzero pixel of the chunk votes with shared
// atomics, then the block writes its counts to a per-chunk partial (uint32, every cell, no memset) and
// a second pass sums the chunks into the uint64 hspace. Integer counts: exact, equal to the CPU's.
// 2048^2 edge map, 180 angles: hspace 5795 x 180 (1.04 M cells); each angle group reads the image
// from L2 (4 MB as uint8), votes = nonzero pixels x 180 shared atomics; partials ~4 B x cells x chunks.
// hough_circle: one thread per pixel and radius; a nonzero pixel adds the radius' increment along its
// circle with float64 atomics. Every addition to a cell adds the same increment, so the order of the
// atomics does not change the sum: equal to the CPU's sequential loop bit for bit.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/transform/hough.hpp"

namespace cuskimage::transform::detail {
namespace {

constexpr int kLineThreads = 512;
constexpr int kMaxThetasPerBlock = 16;
constexpr std::size_t kSharedBudget = 96 * 1024;  // two blocks per SM on an H100/H200

template <class T>
__global__ void __launch_bounds__(kLineThreads)
    hough_line_vote(const T* img, std::int64_t n, std::int64_t cols, const double* ct, const double* st,
                    std::int64_t nt, std::int64_t offset, std::int64_t nd, int tpb, int chunks,
                    unsigned int* partial) {
  extern __shared__ unsigned int cnt[];
  const std::int64_t g = blockIdx.x / chunks, chunk = blockIdx.x % chunks;
  const std::int64_t j0 = g * tpb;
  const int nth = static_cast<int>(min(static_cast<std::int64_t>(tpb), nt - j0));
  for (std::int64_t k = threadIdx.x; k < nth * nd; k += blockDim.x) cnt[k] = 0u;
  double c[kMaxThetasPerBlock], s[kMaxThetasPerBlock];
#pragma unroll
  for (int t = 0; t < kMaxThetasPerBlock; ++t) {
    c[t] = t < nth ? ct[j0 + t] : 0.0;
    s[t] = t < nth ? st[j0 + t] : 0.0;
  }
  __syncthreads();
  const std::int64_t per = (n + chunks - 1) / chunks;
  const std::int64_t begin = chunk * per, end = min(n, begin + per);
  for (std::int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    if (!(img[i] != T(0))) continue;
    const std::int64_t y = i / cols, x = i - y * cols;
#pragma unroll
    for (int t = 0; t < kMaxThetasPerBlock; ++t)
      if (t < nth) atomicAdd(&cnt[t * nd + rho_index(c[t], s[t], x, y, offset)], 1u);
  }
  __syncthreads();
  unsigned int* out = partial + chunk * nd * nt;
  for (std::int64_t k = threadIdx.x; k < nth * nd; k += blockDim.x) {
    const std::int64_t t = k / nd, r = k - t * nd;
    out[r * nt + j0 + t] = cnt[k];
  }
}

__global__ void hough_line_sum(const unsigned int* partial, std::int64_t cells, int chunks,
                               unsigned long long* acc) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < cells;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    unsigned long long v = 0;
    for (int c = 0; c < chunks; ++c) v += partial[c * cells + i];
    acc[i] = v;
  }
}

/// Fallback for distance axes too long for shared memory: global 64-bit atomics.
template <class T>
__global__ void hough_line_global(const T* img, std::int64_t n, std::int64_t cols, const double* ct,
                                  const double* st, std::int64_t nt, std::int64_t offset, unsigned long long* acc) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    if (!(img[i] != T(0))) continue;
    const std::int64_t y = i / cols, x = i - y * cols;
    for (std::int64_t j = 0; j < nt; ++j) atomicAdd(&acc[rho_index(ct[j], st[j], x, y, offset) * nt + j], 1ull);
  }
}

template <class T>
__global__ void hough_circle_vote(const T* img, std::int64_t rows, std::int64_t cols, const std::int32_t* rr,
                                  const std::int32_t* cc, const std::int64_t* begin, const double* incr,
                                  std::int64_t pad, std::int64_t orows, std::int64_t ocols, std::int64_t k0,
                                  double* acc) {
  const std::int64_t k = k0 + blockIdx.y;
  const std::int64_t n = rows * cols;
  double* plane = acc + k * orows * ocols;
  const double inc = incr[k];
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    if (!(img[i] != T(0))) continue;
    const std::int64_t y = i / cols, x = i - y * cols;
    for (std::int64_t p = begin[k]; p < begin[k + 1]; ++p) {
      const std::int64_t ty = y + pad + rr[p], tx = x + pad + cc[p];
      if (pad == 0 && (ty < 0 || ty >= rows || tx < 0 || tx >= cols)) continue;
      atomicAdd(&plane[ty * ocols + tx], inc);
    }
  }
}

}  // namespace

template <class T>
void cuda_hough_line(const Array& image, const Array& cos_t, const Array& sin_t, std::int64_t offset, Array& hspace,
                     const Stream& stream) {
  const cudaStream_t s = stream.handle();
  const std::int64_t cols = image.shape(1), n = image.size();
  const std::int64_t nd = hspace.shape(0), nt = hspace.shape(1);
  auto* acc = static_cast<unsigned long long*>(hspace.data());
  const T* img = static_cast<const T*>(image.data());
  const auto* ct = static_cast<const double*>(cos_t.data());
  const auto* st = static_cast<const double*>(sin_t.data());
  if (nt == 0) return;
  const std::size_t col_bytes = static_cast<std::size_t>(nd) * sizeof(unsigned int);
  if (col_bytes > kSharedBudget) {
    CUSK_CUDA_CHECK(cudaMemsetAsync(acc, 0, hspace.nbytes(), s));
    hough_line_global<T><<<cuskimage::detail::grid_blocks(n, 256, 8192), 256, 0, s>>>(img, n, cols, ct, st, nt,
                                                                                       offset, acc);
    CUSK_CUDA_CHECK_LAUNCH();
    return;
  }
  const int tpb = static_cast<int>(std::clamp<std::int64_t>(
      std::min<std::int64_t>(static_cast<std::int64_t>(kSharedBudget / col_bytes), nt), 1, kMaxThetasPerBlock));
  const std::int64_t groups = (nt + tpb - 1) / tpb;
  const int chunks = static_cast<int>(std::clamp<std::int64_t>(
      std::min<std::int64_t>((528 + groups - 1) / groups, (n + 65535) / 65536), 1, 64));
  const std::size_t smem = static_cast<std::size_t>(tpb) * col_bytes;
  CUSK_CUDA_CHECK(cudaFuncSetAttribute(hough_line_vote<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(smem)));
  Array partial = cuskimage::detail::buf::scratch(static_cast<std::size_t>(chunks) * nd * nt * sizeof(unsigned int),
                                                  image.device(), stream);
  auto* part = static_cast<unsigned int*>(partial.data());
  hough_line_vote<T><<<static_cast<unsigned>(groups * chunks), kLineThreads, smem, s>>>(img, n, cols, ct, st, nt,
                                                                                       offset, nd, tpb, chunks, part);
  CUSK_CUDA_CHECK_LAUNCH();
  hough_line_sum<<<cuskimage::detail::grid_blocks(nd * nt, 256, 8192), 256, 0, s>>>(part, nd * nt, chunks, acc);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class T>
void cuda_hough_circle(const Array& image, const Array& rr, const Array& cc, const Array& begin, const Array& incr,
                       std::int64_t pad, Array& acc, const Stream& stream) {
  const cudaStream_t s = stream.handle();
  CUSK_CUDA_CHECK(cudaMemsetAsync(acc.data(), 0, acc.nbytes(), s));
  const std::int64_t n = image.size();
  if (n == 0) return;
  for (std::int64_t k0 = 0; k0 < acc.shape(0); k0 += 65535) {  // grid.y: radii
    const dim3 grid(cuskimage::detail::grid_blocks(n, 256, 4096),
                    static_cast<unsigned>(std::min<std::int64_t>(65535, acc.shape(0) - k0)));
    hough_circle_vote<T><<<grid, 256, 0, s>>>(
        static_cast<const T*>(image.data()), image.shape(0), image.shape(1),
        static_cast<const std::int32_t*>(rr.data()), static_cast<const std::int32_t*>(cc.data()),
        static_cast<const std::int64_t*>(begin.data()), static_cast<const double*>(incr.data()), pad, acc.shape(1),
        acc.shape(2), k0, static_cast<double*>(acc.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  }
}

#define CUSK_HOUGH(T)                                                                                         \
  template void cuda_hough_line<T>(const Array&, const Array&, const Array&, std::int64_t, Array&,            \
                                   const Stream&);                                                            \
  template void cuda_hough_circle<T>(const Array&, const Array&, const Array&, const Array&, const Array&,    \
                                     std::int64_t, Array&, const Stream&);
CUSK_HOUGH(bool)
CUSK_HOUGH(std::uint8_t)
CUSK_HOUGH(std::int8_t)
CUSK_HOUGH(std::uint16_t)
CUSK_HOUGH(std::int16_t)
CUSK_HOUGH(std::uint32_t)
CUSK_HOUGH(std::int32_t)
CUSK_HOUGH(std::uint64_t)
CUSK_HOUGH(std::int64_t)
CUSK_HOUGH(float)
CUSK_HOUGH(double)
#undef CUSK_HOUGH

}  // namespace cuskimage::transform::detail
