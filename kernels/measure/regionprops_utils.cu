// CUDA backend of euler_number, perimeter_crofton and perimeter (src/measure/regionprops_utils.cpp):
// per-pixel neighbourhood codes counted in shared-memory histograms (16 / 256 bins) flushed with one
// atomic per bin and block; perimeter first writes its border image (uint8). Every kernel reads its
// input once (an 8192^2 uint8 image: 67 MB, ~16 us at 4.2 TB/s; the block-level histograms keep the
// atomics off the critical path).
#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/measure/regionprops_utils.hpp"

namespace cuskimage::measure::detail {
namespace {

constexpr int kThreads = 256;

unsigned blocks_for(std::int64_t n, std::int64_t cap = 4096) { return cuskimage::detail::grid_blocks(n, kThreads, cap); }

struct Geom3 {
  std::int64_t D, H, W;     // image extents (D = 1 in 2-D)
  std::int64_t sz, sy, sx;  // strides (elements)
  bool three;
};

template <class T>
__device__ __forceinline__ int fg(const T* in, const Geom3& g, std::int64_t z, std::int64_t y, std::int64_t x) {
  if (z < 0 || y < 0 || x < 0 || z >= g.D || y >= g.H || x >= g.W) return 0;
  const T v = in[z * g.sz + y * g.sy + x * g.sx];
  if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
  else return v > T(0) ? 1 : 0;
}

template <class T>
__global__ void __launch_bounds__(kThreads) config_hist_kernel(const T* __restrict__ in, Geom3 g,
                                                               unsigned long long* __restrict__ hist) {
  __shared__ unsigned sh[256];
  for (int b = threadIdx.x; b < 256; b += kThreads) sh[b] = 0;
  __syncthreads();
  // positions (a, b, c) in [0, D] x [0, H] x [0, W] (2-D: a = 0 only): the padded positions whose
  // 2x2(x2) window can touch the image; the rest are all-background (bin 0, added on the host).
  const std::int64_t nz = g.three ? g.D + 1 : 1, ny = g.H + 1, nx = g.W + 1;
  const std::int64_t n = nz * ny * nx;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads) {
    const std::int64_t x = i % nx, t = i / nx, y = t % ny, z = g.three ? t / ny : 0;
    int code = fg(in, g, z, y, x) + 2 * fg(in, g, z, y - 1, x) + 4 * fg(in, g, z, y, x - 1) + 8 * fg(in, g, z, y - 1, x - 1);
    if (g.three)
      code += 16 * fg(in, g, z - 1, y, x) + 32 * fg(in, g, z - 1, y - 1, x) + 64 * fg(in, g, z - 1, y, x - 1) +
              128 * fg(in, g, z - 1, y - 1, x - 1);
    if (code) atomicAdd(&sh[code], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += kThreads)
    if (sh[b]) atomicAdd(&hist[b], static_cast<unsigned long long>(sh[b]));
}

template <class T>
__global__ void border_kernel(const T* __restrict__ in, Geom3 g, bool eight, std::uint8_t* __restrict__ border) {
  const std::int64_t n = g.H * g.W;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads) {
    const std::int64_t y = i / g.W, x = i - y * g.W;
    const std::uint8_t u = as_u8(in[y * g.sy + x * g.sx]);
    bool er = u != 0;
    for (int dy = -1; dy <= 1 && er; ++dy)
      for (int dx = -1; dx <= 1 && er; ++dx) {
        if (!eight && dy != 0 && dx != 0) continue;
        const std::int64_t yy = y + dy, xx = x + dx;
        er = yy >= 0 && xx >= 0 && yy < g.H && xx < g.W && as_u8(in[yy * g.sy + xx * g.sx]) != 0;
      }
    border[i] = static_cast<std::uint8_t>(u - (er ? 1 : 0));
  }
}

__global__ void __launch_bounds__(kThreads) perimeter_hist_kernel(const std::uint8_t* __restrict__ border,
                                                                  std::int64_t H, std::int64_t W,
                                                                  unsigned long long* __restrict__ hist) {
  __shared__ unsigned sh[256];
  for (int b = threadIdx.x; b < 256; b += kThreads) sh[b] = 0;
  __syncthreads();
  const std::int64_t n = H * W;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads) {
    const std::int64_t y = i / W, x = i - y * W;
    int s = 0;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const std::int64_t yy = y + dy, xx = x + dx;
        if (yy < 0 || xx < 0 || yy >= H || xx >= W) continue;
        const int w = (dy != 0 && dx != 0) ? 10 : (dy == 0 && dx == 0) ? 1 : 2;
        s += w * border[yy * W + xx];
      }
    const unsigned code = static_cast<std::uint8_t>(s);
    if (code) atomicAdd(&sh[code], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += kThreads)
    if (sh[b]) atomicAdd(&hist[b], static_cast<unsigned long long>(sh[b]));
}

std::vector<std::int64_t> read_hist(const Array& dev, std::int64_t bins, std::int64_t total, const Stream& stream) {
  std::vector<unsigned long long> h(256);
  CUSK_CUDA_CHECK(cudaMemcpyAsync(h.data(), dev.data(), 256 * sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream.handle()));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(stream.handle()));
  std::vector<std::int64_t> out(bins, 0);
  std::int64_t counted = 0;
  for (std::int64_t b = 1; b < 256; ++b) {
    if (b < bins) out[b] = static_cast<std::int64_t>(h[b]);
    counted += static_cast<std::int64_t>(h[b]);
  }
  out[0] = total - counted;  // bin 0 was not counted on the device
  return out;
}

Geom3 geom_of(const Array& a) {
  Geom3 g{};
  g.three = a.ndim() == 3;
  g.D = g.three ? a.shape(0) : 1;
  g.H = a.shape(-2);
  g.W = a.shape(-1);
  g.sz = g.three ? a.strides()[0] : 0;
  g.sy = a.strides()[a.ndim() - 2];
  g.sx = a.strides()[a.ndim() - 1];
  return g;
}

}  // namespace

template <class T>
std::vector<std::int64_t> cuda_config_histogram(const Array& in, const Stream& stream) {
  const Geom3 g = geom_of(in);
  Array hist = Array::zeros({256}, DType::uint64, in.device(), stream);
  const std::int64_t n = (g.three ? g.D + 1 : 1) * (g.H + 1) * (g.W + 1);
  config_hist_kernel<T><<<blocks_for(n, 2048), kThreads, 0, stream.handle()>>>(static_cast<const T*>(in.data()), g,
                                                                      static_cast<unsigned long long*>(hist.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  const std::int64_t total = (g.three ? g.D + 2 : 1) * (g.H + 2) * (g.W + 2);
  return read_hist(hist, g.three ? 256 : 16, total, stream);
}

template <class T>
std::vector<std::int64_t> cuda_perimeter_histogram(const Array& in, bool eight, const Stream& stream) {
  const Geom3 g = geom_of(in);
  Array border = Array::empty({g.H, g.W}, DType::uint8, in.device(), stream);
  Array hist = Array::zeros({256}, DType::uint64, in.device(), stream);
  const std::int64_t n = g.H * g.W;
  border_kernel<T><<<blocks_for(n, 8192), kThreads, 0, stream.handle()>>>(static_cast<const T*>(in.data()), g, eight,
                                                                 static_cast<std::uint8_t*>(border.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  perimeter_hist_kernel<<<blocks_for(n, 2048), kThreads, 0, stream.handle()>>>(static_cast<const std::uint8_t*>(border.data()),
                                                                      g.H, g.W,
                                                                      static_cast<unsigned long long*>(hist.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  return read_hist(hist, 256, n, stream);
}

#define CUSK_MEASURE_RP_UTILS_CUDA(T)                                                \
  template std::vector<std::int64_t> cuda_config_histogram<T>(const Array&, const Stream&); \
  template std::vector<std::int64_t> cuda_perimeter_histogram<T>(const Array&, bool, const Stream&);
CUSK_FOR_EACH_DTYPE(CUSK_MEASURE_RP_UTILS_CUDA)
#undef CUSK_MEASURE_RP_UTILS_CUDA

}  // namespace cuskimage::measure::detail
