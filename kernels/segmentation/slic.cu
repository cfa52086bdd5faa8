// CUDA segmentation.slic (src/segmentation/slic.cpp): the k-means of _slic_cython per pixel instead
// of per centre. Each iteration:
//  1. bins: the image is cut into tiles of regular_grid's steps; every centre adds itself to each
//     tile its search window (the .pyx's [c - 2 step, c + 2 step]) touches (count, CUB scan, fill);
//  2. assign: a thread per pixel scans its tile's list, keeps the smallest distance of
//     src/segmentation/slic.hpp, ties to the smallest index — exactly the centre the sequential
//     loop (ascending k, strict '>') leaves; a pixel no window reaches keeps its label;
//  3. update: per-warp groups of equal labels sum positions and colours in double and add them to
//     the centre sums atomically; centres = sums / counts (NaN for an empty one, as 0 / 0 in the
//     .pyx); SLIC-zero's per-centre colour maxima by an atomic maximum (order-free).
// Steps 1-2 equal the CPU backend given equal centres. The sums of step 3 round differently from
// the .pyx's sequential sums in the working float (exact for positions in float64, not for colours
// nor for float32), so centres can differ in the last bits and labels at near-ties (the tests
// measure it). No host synchronisation inside the iterations: an iteration in which no pixel
// changes leaves the next ones unchanged, so the .pyx's early exit needs no test here.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <limits>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/segmentation/slic.hpp"

namespace cuskimage::segmentation::detail {
namespace {

using cuskimage::detail::grid_blocks;
using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
constexpr int kThreads = 256;

struct Tiles {
  std::int64_t tz, ty, tx, nz, ny, nx;
  CUSK_HD std::int64_t count() const { return nz * ny * nx; }
};

template <class T>
__device__ bool centre_box(const T* seg, const SlicProblem& p, std::int64_t lo[3], std::int64_t hi[3]) {
  return slic_window(seg[0], p.step_z, p.depth, lo[0], hi[0]) &&
         slic_window(seg[1], p.step_y, p.height, lo[1], hi[1]) &&
         slic_window(seg[2], p.step_x, p.width, lo[2], hi[2]) && lo[0] < hi[0] && lo[1] < hi[1] && lo[2] < hi[2];
}

/// mode 0: count the tiles each centre's window touches; mode 1: write the centre into them.
template <class T>
__global__ void bin_kernel(const T* __restrict__ centres, std::int64_t n, std::int64_t nf, SlicProblem p, Tiles t,
                           int* __restrict__ counts, int* __restrict__ cursor, int* __restrict__ lists, int mode) {
  const std::int64_t k = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= n) return;
  std::int64_t lo[3], hi[3];
  if (!centre_box(centres + k * nf, p, lo, hi)) return;
  for (std::int64_t a = lo[0] / t.tz; a <= (hi[0] - 1) / t.tz; ++a)
    for (std::int64_t b = lo[1] / t.ty; b <= (hi[1] - 1) / t.ty; ++b)
      for (std::int64_t c = lo[2] / t.tx; c <= (hi[2] - 1) / t.tx; ++c) {
        const std::int64_t tile = (a * t.ny + b) * t.nx + c;
        if (mode == 0)
          atomicAdd(counts + tile, 1);
        else
          lists[atomicAdd(cursor + tile, 1)] = static_cast<int>(k);
      }
}

template <class T>
__global__ void assign_kernel(const T* __restrict__ image, const std::uint8_t* __restrict__ mask,
                              const T* __restrict__ centres, const T* __restrict__ maxcol, std::int64_t nf,
                              SlicProblem p, Tiles t, const int* __restrict__ start, const int* __restrict__ lists,
                              std::int64_t* __restrict__ labels) {
  const std::int64_t npix = p.depth * p.height * p.width;
  const T sz = static_cast<T>(p.spacing[0]), sy = static_cast<T>(p.spacing[1]), sx = static_cast<T>(p.spacing[2]);
  const T weight = static_cast<T>(p.spatial_weight);
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < npix;
       i += std::int64_t(gridDim.x) * kThreads) {
    if (mask && !mask[i]) continue;
    const std::int64_t x = i % p.width, y = (i / p.width) % p.height, z = i / (p.width * p.height);
    const std::int64_t tile = ((z / t.tz) * t.ny + y / t.ty) * t.nx + x / t.tx;
    T best = std::numeric_limits<T>::max();
    int bk = -1;
    for (int e = start[tile]; e < start[tile + 1]; ++e) {
      const int k = lists[e];
      const T* seg = centres + k * nf;
      std::int64_t lo[3], hi[3];
      centre_box(seg, p, lo, hi);  // listed centres have a window
      if (z < lo[0] || z >= hi[0] || y < lo[1] || y >= hi[1] || x < lo[2] || x >= hi[2]) continue;
      const T d =
          slic_distance(slic_axis_term(seg[0], z, sz), slic_axis_term(seg[1], y, sy), slic_axis_term(seg[2], x, sx),
                        weight, image + i * p.channels, seg, p.channels, p.ignore_color, p.slic_zero, maxcol[k]);
      if (best > d || (d == best && bk >= 0 && k < bk)) {
        best = d;
        bk = k;
      }
    }
    if (bk >= 0) labels[i] = bk + p.start_label;
  }
}

/// Centre sums: lanes of a warp with equal labels are summed through shuffles, one atomic per group.
template <class T>
__global__ void sum_kernel(const T* __restrict__ image, const std::uint8_t* __restrict__ mask,
                           const std::int64_t* __restrict__ labels, SlicProblem p, std::int64_t n,
                           double* __restrict__ sums, unsigned long long* __restrict__ counts) {
  const std::int64_t npix = p.depth * p.height * p.width, nf = 3 + p.channels;
  const int lane = threadIdx.x & 31;
  const std::int64_t warp = (std::int64_t(blockIdx.x) * kThreads + threadIdx.x) >> 5;
  const std::int64_t nwarps = (std::int64_t(gridDim.x) * kThreads) >> 5;
  for (std::int64_t base = warp * 32; base < npix; base += nwarps * 32) {
    const std::int64_t i = base + lane;
    std::int64_t k = -1;
    if (i < npix && !(mask && !mask[i])) k = labels[i] - p.start_label;
    if (k >= n) k = -1;
    const unsigned group = __match_any_sync(0xffffffffu, k);
    const bool leader = k >= 0 && (__ffs(group) - 1) == lane;
    if (leader) atomicAdd(counts + k, static_cast<unsigned long long>(__popc(group)));
    const std::int64_t x = i % p.width, y = (i / p.width) % p.height, z = i / (p.width * p.height);
    for (std::int64_t f = 0; f < nf; ++f) {
      double v = 0;
      if (k >= 0)
        v = f == 0 ? double(z) : f == 1 ? double(y) : f == 2 ? double(x) : double(image[i * p.channels + f - 3]);
      double acc = 0;
      for (int l = 0; l < 32; ++l) {
        const double o = __shfl_sync(0xffffffffu, v, l);
        if (group >> l & 1u) acc += o;
      }
      if (leader) atomicAdd(sums + k * nf + f, acc);
    }
  }
}

template <class T>
__global__ void mean_kernel(const double* __restrict__ sums, const unsigned long long* __restrict__ counts,
                            std::int64_t n, std::int64_t nf, T* __restrict__ centres) {
  const std::int64_t e = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (e >= n * nf) return;
  const unsigned long long c = counts[e / nf];
  centres[e] = c == 0 ? static_cast<T>(NAN) : static_cast<T>(sums[e] / static_cast<double>(c));
}

__device__ void atomic_max_nonneg(float* a, float v) { atomicMax(reinterpret_cast<int*>(a), __float_as_int(v)); }
__device__ void atomic_max_nonneg(double* a, double v) {
  atomicMax(reinterpret_cast<unsigned long long*>(a), static_cast<unsigned long long>(__double_as_longlong(v)));
}

template <class T>
__global__ void maxcol_kernel(const T* __restrict__ image, const std::uint8_t* __restrict__ mask,
                              const std::int64_t* __restrict__ labels, const T* __restrict__ centres, SlicProblem p,
                              std::int64_t n, T* __restrict__ maxcol) {
  const std::int64_t npix = p.depth * p.height * p.width, nf = 3 + p.channels;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < npix;
       i += std::int64_t(gridDim.x) * kThreads) {
    if (mask && !mask[i]) continue;
    const std::int64_t k = labels[i] - p.start_label;
    if (k < 0 || k >= n) continue;
    T col = 0;
    for (std::int64_t c = 0; c < p.channels; ++c) {
      const T d = cuskimage::detail::sub_rn(image[i * p.channels + c], centres[k * nf + 3 + c]);
      col = cuskimage::detail::add_rn(col, cuskimage::detail::mul_rn(d, d));
    }
    if (!(col <= maxcol[k])) atomic_max_nonneg(maxcol + k, col);  // NaN colours never raise it
  }
}

template <class T>
__global__ void fill_kernel(T* __restrict__ v, std::int64_t n, T value) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * kThreads)
    v[i] = value;
}

}  // namespace

template <class T>
void cuda_slic_kmeans(const Array& image, const Array& mask, std::vector<T>& centres, const SlicProblem& p,
                      Array& labels, const Stream& stream) {
  const cudaStream_t s = stream.handle();
  const Device dev = image.device();
  const std::int64_t nf = 3 + p.channels, n = static_cast<std::int64_t>(centres.size()) / nf;
  const std::int64_t npix = p.depth * p.height * p.width;
  const unsigned pix_blocks = grid_blocks(npix, kThreads, 8192);
  const std::uint8_t* m = mask.valid() ? cptr<std::uint8_t>(mask) : nullptr;
  std::int64_t* lab = ptr<std::int64_t>(labels);
  fill_kernel<<<pix_blocks, kThreads, 0, s>>>(lab, npix, static_cast<std::int64_t>(p.start_label - 1));
  CUSK_CUDA_CHECK_LAUNCH();
  if (npix == 0 || n == 0 || p.max_num_iter <= 0) return;
  Array dc = cuskimage::detail::buf::upload(centres, dev, stream);
  Array maxcol = Array::full({n}, 1.0, dtype_of<T>::value, dev, stream);
  const Tiles t{p.step_z,
                p.step_y,
                p.step_x,
                (p.depth + p.step_z - 1) / p.step_z,
                (p.height + p.step_y - 1) / p.step_y,
                (p.width + p.step_x - 1) / p.step_x};
  // A window spans at most 4 step + 1 samples, so at most 6 tiles per axis.
  const std::int64_t cap =
      n * std::min<std::int64_t>(6, t.nz) * std::min<std::int64_t>(6, t.ny) * std::min<std::int64_t>(6, t.nx);
  Array counts = Array::empty({t.count() + 1}, DType::int32, dev, stream);
  Array start = Array::empty({t.count() + 1}, DType::int32, dev, stream);
  Array cursor = Array::empty({t.count() + 1}, DType::int32, dev, stream);
  Array lists = Array::empty({std::max<std::int64_t>(cap, 1)}, DType::int32, dev, stream);
  std::size_t scan_bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, ptr<int>(counts), ptr<int>(start),
                                                static_cast<int>(t.count() + 1), s));
  Array scan_tmp = cuskimage::detail::buf::scratch(scan_bytes, dev, stream);
  Array sums = Array::empty({n * nf}, DType::float64, dev, stream);
  Array cnt = Array::empty({n}, DType::uint64, dev, stream);
  const unsigned cen_blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  for (std::int64_t it = 0; it < p.max_num_iter; ++it) {
    CUSK_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, counts.nbytes(), s));
    bin_kernel<<<cen_blocks, kThreads, 0, s>>>(cptr<T>(dc), n, nf, p, t, ptr<int>(counts), nullptr, nullptr, 0);
    CUSK_CUDA_CHECK_LAUNCH();
    CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_tmp.data(), scan_bytes, ptr<int>(counts), ptr<int>(start),
                                                  static_cast<int>(t.count() + 1), s));
    CUSK_CUDA_CHECK(cudaMemcpyAsync(cursor.data(), start.data(), start.nbytes(), cudaMemcpyDeviceToDevice, s));
    bin_kernel<<<cen_blocks, kThreads, 0, s>>>(cptr<T>(dc), n, nf, p, t, nullptr, ptr<int>(cursor), ptr<int>(lists), 1);
    CUSK_CUDA_CHECK_LAUNCH();
    assign_kernel<<<pix_blocks, kThreads, 0, s>>>(cptr<T>(image), m, cptr<T>(dc), cptr<T>(maxcol), nf, p, t,
                                                  cptr<int>(start), cptr<int>(lists), lab);
    CUSK_CUDA_CHECK_LAUNCH();
    CUSK_CUDA_CHECK(cudaMemsetAsync(sums.data(), 0, sums.nbytes(), s));
    CUSK_CUDA_CHECK(cudaMemsetAsync(cnt.data(), 0, cnt.nbytes(), s));
    sum_kernel<<<pix_blocks, kThreads, 0, s>>>(cptr<T>(image), m, lab, p, n, ptr<double>(sums),
                                               ptr<unsigned long long>(cnt));
    CUSK_CUDA_CHECK_LAUNCH();
    mean_kernel<<<static_cast<unsigned>((n * nf + kThreads - 1) / kThreads), kThreads, 0, s>>>(
        cptr<double>(sums), cptr<unsigned long long>(cnt), n, nf, ptr<T>(dc));
    CUSK_CUDA_CHECK_LAUNCH();
    if (p.slic_zero) {
      maxcol_kernel<<<pix_blocks, kThreads, 0, s>>>(cptr<T>(image), m, lab, cptr<T>(dc), p, n, ptr<T>(maxcol));
      CUSK_CUDA_CHECK_LAUNCH();
    }
  }
  const Array back = dc.to(Device::cpu(), stream);
  std::copy_n(back.data<T>(), centres.size(), centres.begin());
}

template void cuda_slic_kmeans<float>(const Array&, const Array&, std::vector<float>&, const SlicProblem&, Array&,
                                      const Stream&);
template void cuda_slic_kmeans<double>(const Array&, const Array&, std::vector<double>&, const SlicProblem&, Array&,
                                       const Stream&);

namespace {

template <class T>
__global__ void minmax_kernel(const T* __restrict__ v, const std::uint8_t* __restrict__ mask, std::int64_t n,
                              std::int64_t channels, double* __restrict__ out) {
  double lo = INFINITY, hi = -INFINITY, nan = 0;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * kThreads) {
    if (mask && !mask[i / channels]) continue;
    const double x = static_cast<double>(v[i]);
    if (x != x) nan = 1;
    lo = fmin(lo, x);
    hi = fmax(hi, x);
  }
  for (int o = 16; o > 0; o >>= 1) {
    lo = fmin(lo, __shfl_xor_sync(0xffffffffu, lo, o));
    hi = fmax(hi, __shfl_xor_sync(0xffffffffu, hi, o));
    nan = fmax(nan, __shfl_xor_sync(0xffffffffu, nan, o));
  }
  __shared__ double red[3][kThreads / 32];
  if ((threadIdx.x & 31) == 0)
    red[0][threadIdx.x >> 5] = lo, red[1][threadIdx.x >> 5] = hi, red[2][threadIdx.x >> 5] = nan;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < kThreads / 32; ++w)
      lo = fmin(lo, red[0][w]), hi = fmax(hi, red[1][w]), nan = fmax(nan, red[2][w]);
    out[blockIdx.x * 3] = lo, out[blockIdx.x * 3 + 1] = hi, out[blockIdx.x * 3 + 2] = nan;
  }
}

template <class T>
__global__ void affine_kernel(T* __restrict__ v, std::int64_t n, T shift, T div, T mul) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * kThreads) {
    T x = cuskimage::detail::sub_rn(v[i], shift);
    if (div != T(0)) x = cuskimage::detail::div_rn(x, div);
    v[i] = cuskimage::detail::mul_rn(x, mul);
  }
}

template <class T>
void affine(Array& image, double shift, double div, double mul, const Stream& stream) {
  const std::int64_t n = image.size();
  if (n == 0) return;
  affine_kernel<T><<<grid_blocks(n, kThreads, 8192), kThreads, 0, stream.handle()>>>(
      ptr<T>(image), n, static_cast<T>(shift), static_cast<T>(div), static_cast<T>(mul));
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace

void cuda_slic_minmax(const Array& image, const Array& mask, std::int64_t channels, double& lo, double& hi,
                      const Stream& stream) {
  const std::int64_t n = image.size();
  const unsigned blocks = grid_blocks(n, kThreads, 1024);
  Array part = Array::empty({std::int64_t(blocks) * 3}, DType::float64, image.device(), stream);
  const std::uint8_t* m = mask.valid() ? cptr<std::uint8_t>(mask) : nullptr;
  if (image.dtype() == DType::float32)
    minmax_kernel<float>
        <<<blocks, kThreads, 0, stream.handle()>>>(cptr<float>(image), m, n, channels, ptr<double>(part));
  else
    minmax_kernel<double>
        <<<blocks, kThreads, 0, stream.handle()>>>(cptr<double>(image), m, n, channels, ptr<double>(part));
  CUSK_CUDA_CHECK_LAUNCH();
  const std::vector<double> h = part.to(Device::cpu(), stream).to_vector<double>();
  lo = INFINITY, hi = -INFINITY;
  for (unsigned b = 0; b < blocks; ++b) {
    lo = std::fmin(lo, h[b * 3]);
    hi = std::fmax(hi, h[b * 3 + 1]);
    if (h[b * 3 + 2] != 0) lo = hi = NAN;
  }
  if (std::isnan(lo)) hi = lo;
}

void cuda_slic_shift_divide(Array& image, double lo, double span, const Stream& stream) {
  if (image.dtype() == DType::float32)
    affine<float>(image, lo, span, 1.0, stream);
  else
    affine<double>(image, lo, span, 1.0, stream);
}

void cuda_slic_scale(Array& image, double ratio, const Stream& stream) {
  if (image.dtype() == DType::float32)
    affine<float>(image, 0.0, 0.0, ratio, stream);
  else
    affine<double>(image, 0.0, 0.0, ratio, stream);
}

}  // namespace cuskimage::segmentation::detail
