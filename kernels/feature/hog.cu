// feature.hog, CUDA backend. One kernel fuses the gradients and the cell histograms: a block takes
// a tile of cells, its threads compute every tile pixel's vote (magnitude, bin) into shared memory,
// then one thread per (cell, bin) sums that bin's votes in the cell's row-major order (the float32
// accumulation order scikit-image has, so the histogram is the CPU's). Cells larger than the tile
// budget take a kernel that computes the votes on the fly. Then one thread per block normalises,
// and one thread per cell draws its lines (the lines stay inside their cell while the radius is
// non-negative; 1-pixel cells draw serially).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/hog.hpp"

namespace cuskimage::feature::detail {
namespace {

using cuskimage::detail::grid_blocks;
using i64 = std::int64_t;
constexpr int kThreads = 256;
constexpr i64 kCap = 65535LL * 8;
constexpr int kTilePix = 2048;  // shared: 8 + 4 bytes per pixel

template <class T>
__global__ void __launch_bounds__(kThreads) cell_tile_kernel(const T* __restrict__ img, HogGeom g, int tx, int ty,
                                                             double* __restrict__ hist) {
  __shared__ double s_mag[kTilePix];
  __shared__ int s_bin[kTilePix];
  const i64 cell_x0 = static_cast<i64>(blockIdx.x) * tx, cell_y0 = static_cast<i64>(blockIdx.y) * ty;
  const i64 w = tx * g.cc, npix = w * ty * g.cr;
  for (i64 p = threadIdx.x; p < npix; p += blockDim.x) {
    const i64 r = cell_y0 * g.cr + p / w, c = cell_x0 * g.cc + p % w;
    if (r < g.ncr * g.cr && c < g.ncc * g.cc) hog_vote(img, g, r, c, s_mag[p], s_bin[p]);
  }
  __syncthreads();
  const i64 items = static_cast<i64>(tx) * ty * g.n;
  for (i64 k = threadIdx.x; k < items; k += blockDim.x) {
    const int o = static_cast<int>(k % g.n);
    const i64 cell = k / g.n, cy = cell / tx, cx = cell % tx;
    const i64 y = cell_y0 + cy, x = cell_x0 + cx;
    if (y >= g.ncr || x >= g.ncc) continue;
    hist[(y * g.ncc + x) * g.n + o] = hog_cell(g, o, [&](i64 dy, i64 dx, double& m, int& b) {
      const i64 p = (cy * g.cr + dy) * w + cx * g.cc + dx;
      m = s_mag[p], b = s_bin[p];
    });
  }
}

template <class T>
__global__ void cell_direct_kernel(const T* __restrict__ img, HogGeom g, double* __restrict__ hist) {
  const i64 n = g.ncr * g.ncc * g.n;
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<i64>(gridDim.x) * blockDim.x) {
    const int o = static_cast<int>(k % g.n);
    const i64 cell = k / g.n, y = cell / g.ncc, x = cell % g.ncc;
    hist[k] = hog_cell(g, o, [&](i64 dy, i64 dx, double& m, int& b) {
      hog_vote(img, g, y * g.cr + dy, x * g.cc + dx, m, b);
    });
  }
}

template <class T>
__global__ void block_kernel(const double* __restrict__ hist, HogGeom g, T* __restrict__ out) {
  const i64 n = g.nbr * g.nbc, per = g.br * g.bc * g.n;
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<i64>(gridDim.x) * blockDim.x)
    hog_block(hist, g, k / g.nbc, k % g.nbc, out + k * per);
}

template <class T>
__global__ void draw_kernel(const double* __restrict__ hist, HogGeom g, bool serial, T* __restrict__ image) {
  const i64 n = g.ncr * g.ncc;
  if (serial) {
    if (blockIdx.x == 0 && threadIdx.x == 0)
      for (i64 k = 0; k < n; ++k) hog_draw_cell(hist, g, k / g.ncc, k % g.ncc, image);
    return;
  }
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<i64>(gridDim.x) * blockDim.x)
    hog_draw_cell(hist, g, k / g.ncc, k % g.ncc, image);
}

}  // namespace

template <class T>
void cuda_hog(const Array& image, const HogGeom& g, Array& hist, Array& features, Array& hog_image, const Stream& s) {
  const T* img = image.data<T>();
  double* h = hist.data<double>();
  const i64 cell_pix = g.cr * g.cc;
  if (cell_pix <= kTilePix) {
    i64 tx = std::clamp<i64>(64 / g.cc, 1, g.ncc);
    tx = std::min<i64>(tx, std::max<i64>(1, kTilePix / cell_pix));
    const i64 ty = std::clamp<i64>(kTilePix / (tx * cell_pix), 1, g.ncr);
    const dim3 grid(static_cast<unsigned>((g.ncc + tx - 1) / tx), static_cast<unsigned>((g.ncr + ty - 1) / ty));
    cell_tile_kernel<T><<<grid, kThreads, 0, s.handle()>>>(img, g, static_cast<int>(tx), static_cast<int>(ty), h);
  } else {
    const i64 n = g.ncr * g.ncc * g.n;
    cell_direct_kernel<T><<<grid_blocks(n, kThreads, kCap), kThreads, 0, s.handle()>>>(img, g, h);
  }
  CUSK_CUDA_CHECK(cudaGetLastError());
  const i64 nb = g.nbr * g.nbc;
  block_kernel<T><<<grid_blocks(nb, 128, kCap), 128, 0, s.handle()>>>(h, g, features.data<T>());
  CUSK_CUDA_CHECK(cudaGetLastError());
  if (hog_image.valid()) {
    const bool serial = std::min(g.cr, g.cc) / 2 - 1 < 0;
    const i64 nc = g.ncr * g.ncc;
    draw_kernel<T><<<serial ? 1 : grid_blocks(nc, 128, kCap), serial ? 1 : 128, 0, s.handle()>>>(h, g, serial,
                                                                                                 hog_image.data<T>());
    CUSK_CUDA_CHECK(cudaGetLastError());
  }
}

template void cuda_hog<float>(const Array&, const HogGeom&, Array&, Array&, Array&, const Stream&);
template void cuda_hog<double>(const Array&, const HogGeom&, Array&, Array&, Array&, const Stream&);

}  // namespace cuskimage::feature::detail
