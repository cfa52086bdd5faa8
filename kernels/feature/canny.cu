// CUDA backend of skimage.feature.canny after the Gaussian (ndimage's kernels):
//  * one fused kernel per 32 x 32 tile: the smoothed image over the tile + 2 (reflect-mapped, as
//    ndi.sobel's default mode extends it) divided by the bleed-over (+ eps) in shared memory, the
//    Sobel gradients and their magnitude over the tile + 1, then the bilinear suppression and the
//    hysteresis class (0/1/2, one byte) of each pixel. The bleed-over of the common case (no mask,
//    mode constant: the Gaussian of an all-ones image) is separable and computed in the kernel from
//    its row profile with scipy's column-pass sums near the left and right edges (a per-row value
//    elsewhere), so no bleed image is read.
//  * hysteresis: union-find over the 8-connected classes > 0 (kernels/core/union_find.cuh's find
//    and union), then every class-2 pixel marks its root, then out = marked[root]; foreground is
//    read from the class bytes, so the parents are only touched at edge pixels.
// Bytes per pixel (float32, no mask): smoothed 4 read, class 1 written, then the labelling passes
// read the class byte 5 times and write the bool once (+ 4-byte parents at the few edge pixels):
// ~11 B/px, 8192^2 -> ~0.74 GB, floor ~0.18 ms at 4.2 TB/s; the Gaussian before it moves 8 B/px
// more (0.13 ms).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "kernels/core/union_find.cuh"
#include "kernels/feature/for_each.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/canny.hpp"
#include "src/ndimage/boundary.hpp"

namespace cuskimage::feature::detail {
namespace {

using cuskimage::detail::add_rn;
using cuskimage::detail::div_rn;
using cuskimage::detail::mul_rn;
using cuskimage::detail::sub_rn;
using ndimage::detail::map_index;

constexpr int kT = 32, kBx = 32, kBy = 8, kMaxR = 24;

struct BleedProfile {
  const double* rows;  // the row pass of the Gaussian of ones (T values), then each row's interior value
  std::int64_t ny;
  double w[kMaxR + 1];  // column weights, centre first
  int r;
  double cval;
};

template <class T>
__device__ T bleed_at(const T* bleed, const BleedProfile& bp, std::int64_t y, std::int64_t x, std::int64_t nx) {
  if (bleed) return bleed[y * nx + x];
  if (x >= bp.r && x + bp.r < nx) return static_cast<T>(bp.rows[bp.ny + y]);  // every tap inside
  const double v = bp.rows[y];
  double acc = mul_rn(v, bp.w[0]);
  for (int j = 1; j <= bp.r; ++j) {
    const double a = (x + j < nx) ? v : bp.cval, b = (x - j >= 0) ? v : bp.cval;
    acc = add_rn(acc, mul_rn(add_rn(a, b), bp.w[j]));
  }
  return static_cast<T>(acc);
}

template <class T>
__device__ __forceinline__ T sobel3(T l, T c, T r) {
  return static_cast<T>(add_rn(mul_rn(2.0, double(c)), add_rn(double(r), double(l))));
}

template <class T>
__global__ void __launch_bounds__(kBx* kBy)
    canny_fused_kernel(const T* __restrict__ sm, const T* __restrict__ bleed, BleedProfile bp, bool divide, T eps,
                       const std::uint8_t* __restrict__ eroded, std::int64_t ny, std::int64_t nx, CannyThresholds th,
                       std::uint8_t* __restrict__ cls) {
  constexpr int Q = kT + 4, M = kT + 2;
  __shared__ T q[Q * Q];
  __shared__ T gi[M * M], gj[M * M], mg[M * M];
  const std::int64_t y0 = std::int64_t(blockIdx.y) * kT, x0 = std::int64_t(blockIdx.x) * kT;
  const int tid = threadIdx.y * kBx + threadIdx.x, nt = kBx * kBy;
  for (int i = tid; i < Q * Q; i += nt) {
    const int r = i / Q, c = i - r * Q;
    const std::int64_t y = map_index(y0 - 2 + r, ny, ndimage::Mode::reflect);
    const std::int64_t x = map_index(x0 - 2 + c, nx, ndimage::Mode::reflect);
    T v = sm[y * nx + x];
    if (divide) v = div_rn(v, add_rn(bleed_at(bleed, bp, y, x, nx), eps));
    q[i] = v;
  }
  __syncthreads();
  for (int i = tid; i < M * M; i += nt) {
    const int r = i / M, c = i - r * M;
    const std::int64_t y = y0 - 1 + r, x = x0 - 1 + c;
    if (y < 0 || y >= ny || x < 0 || x >= nx) continue;  // never read: suppression stays inside
    const T* s = q + (r + 1) * Q + (c + 1);
    auto di = [&](int dc) { return static_cast<T>(sub_rn(double(s[Q + dc]), double(s[-Q + dc]))); };
    auto dj = [&](int dr) { return static_cast<T>(sub_rn(double(s[dr * Q + 1]), double(s[dr * Q - 1]))); };
    const T is = sobel3(di(-1), di(0), di(1)), js = sobel3(dj(-1), dj(0), dj(1));
    gi[i] = is;
    gj[i] = js;
    mg[i] = grad_magnitude(is, js);
  }
  __syncthreads();
  for (int i = tid; i < kT * kT; i += nt) {
    const int r = i / kT, c = i - r * kT;
    const std::int64_t y = y0 + r, x = x0 + c;
    if (y >= ny || x >= nx) continue;
    const int k = (r + 1) * M + (c + 1);
    auto at = [&](int dr, int dc) { return mg[k + dr * M + dc]; };
    // no mask: the eroded mask is every pixel off the outer ring (not read from memory)
    const bool inside = eroded ? eroded[y * nx + x] != 0 : (y > 0 && y < ny - 1 && x > 0 && x < nx - 1);
    cls[y * nx + x] = canny_class(gi[k], gj[k], mg[k], inside, th, at);
  }
}

// The labelling reads the one-byte class image to tell foreground from background, so the 4-byte
// parents are touched only at edge pixels (a few per cent of the image); the mark of a component
// is bit 2 of its root's class byte (every writer stores the same value).
constexpr std::uint8_t kMark = 4;

template <class I>
__global__ void __launch_bounds__(256) init8_kernel(const std::uint8_t* cls, I* parent, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (cls[i]) parent[i] = I(i);
}

template <class I>
__global__ void __launch_bounds__(256) merge8_kernel(const std::uint8_t* cls, I* parent, std::int64_t ny,
                                                     std::int64_t nx) {
  const std::int64_t total = ny * nx, stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    if (!cls[i]) continue;
    const std::int64_t x = i % nx, y = i / nx;
    if (x > 0 && cls[i - 1]) cuskimage::detail::ccl_union<I>(parent, I(i), I(i - 1));
    if (y == 0) continue;
    for (int dx = -1; dx <= 1; ++dx) {
      const std::int64_t xx = x + dx;
      if (xx < 0 || xx >= nx) continue;
      const std::int64_t j = i - nx + dx;
      if (cls[j]) cuskimage::detail::ccl_union<I>(parent, I(i), I(j));
    }
  }
}

template <class I>
__global__ void __launch_bounds__(256) flatten8_kernel(const std::uint8_t* cls, I* parent, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if (cls[i]) parent[i] = cuskimage::detail::ccl_find(parent, I(i));
}

template <class I>
__global__ void __launch_bounds__(256) mark_high_kernel(std::uint8_t* cls, const I* parent, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    if ((cls[i] & 3) == 2) {
      const I r = parent[i];
      cls[r] = static_cast<std::uint8_t>(cls[r] | kMark);
    }
}

template <class I>
__global__ void __launch_bounds__(256) keep_kernel(const std::uint8_t* cls, const I* parent, bool* out,
                                                   std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = cls[i] != 0 && (cls[parent[i]] & kMark) != 0;
}

/// Hysteresis of the class image (overwritten: roots get the mark bit).
template <class I>
void hysteresis(Array& cls, Array& out, const Stream& s) {
  const std::int64_t n = cls.size(), ny = cls.shape(0), nx = cls.shape(1);
  Array parent = Array::empty({n}, sizeof(I) == 4 ? DType::int32 : DType::int64, cls.device(), s);
  I* p = static_cast<I*>(parent.data());
  auto* c = static_cast<std::uint8_t*>(cls.data());
  const unsigned nb = static_cast<unsigned>(std::clamp<std::int64_t>((n + 255) / 256, 1, 1 << 20));
  init8_kernel<I><<<nb, 256, 0, s.handle()>>>(c, p, n);
  CUSK_CUDA_CHECK_LAUNCH();
  merge8_kernel<I><<<nb, 256, 0, s.handle()>>>(c, p, ny, nx);
  CUSK_CUDA_CHECK_LAUNCH();
  flatten8_kernel<I><<<nb, 256, 0, s.handle()>>>(c, p, n);
  CUSK_CUDA_CHECK_LAUNCH();
  mark_high_kernel<I><<<nb, 256, 0, s.handle()>>>(c, p, n);
  CUSK_CUDA_CHECK_LAUNCH();
  keep_kernel<I><<<nb, 256, 0, s.handle()>>>(c, p, static_cast<bool*>(out.data()), n);
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace

void cuda_canny_hysteresis(Array& cls, Array& out, const Stream& stream) {
  if (cls.size() == 0) return;
  if (cls.size() < (std::int64_t(1) << 31))
    hysteresis<std::int32_t>(cls, out, stream);
  else
    hysteresis<std::int64_t>(cls, out, stream);
}

template <class T>
bool cuda_canny_fused(const Array& smoothed, const Array& bleed, const std::vector<double>& bleed_rows,
                      const std::vector<double>& col_weights, double cval, const Array& eroded, bool use_bleed,
                      const CannyThresholds& th, Array& cls, const Stream& stream) {
  BleedProfile bp{};
  bp.cval = cval;
  Array rows;
  if (use_bleed && !bleed.valid()) {
    const int r = static_cast<int>(col_weights.size()) / 2;
    if (r > kMaxR) return false;
    bp.r = r;
    for (int j = 0; j <= r; ++j) bp.w[j] = col_weights[static_cast<std::size_t>(r + j)];
    bp.ny = smoothed.shape(0);
    rows = Array::from_vector(bleed_rows, {static_cast<std::int64_t>(bleed_rows.size())}).to(smoothed.device(), stream);
    bp.rows = static_cast<const double*>(rows.data());
  }
  const std::int64_t ny = smoothed.shape(0), nx = smoothed.shape(1);
  if (ny == 0 || nx == 0) return true;
  const dim3 grid(static_cast<unsigned>((nx + kT - 1) / kT), static_cast<unsigned>((ny + kT - 1) / kT));
  canny_fused_kernel<T><<<grid, dim3(kBx, kBy), 0, stream.handle()>>>(
      static_cast<const T*>(smoothed.data()), bleed.valid() ? static_cast<const T*>(bleed.data()) : nullptr, bp,
      use_bleed, std::numeric_limits<T>::epsilon(), eroded.valid() ? static_cast<const std::uint8_t*>(eroded.data()) : nullptr, ny, nx, th,
      static_cast<std::uint8_t*>(cls.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  return true;
}

#define CUSK_CANNY_CUDA(T)                                                                                     \
  template bool cuda_canny_fused<T>(const Array&, const Array&, const std::vector<double>&,                   \
                                    const std::vector<double>&, double, const Array&, bool,                   \
                                    const CannyThresholds&, Array&, const Stream&);                           \
  template void cuda_for_each(std::int64_t, const BleedDivide<T>&, const Stream&);                            \
  template void cuda_for_each(std::int64_t, const NmsClass<T>&, const Stream&);                               \
  template void cuda_for_each(std::int64_t, const Magnitude<T>&, const Stream&);
CUSK_CANNY_CUDA(float)
CUSK_CANNY_CUDA(double)
#undef CUSK_CANNY_CUDA
template void cuda_for_each(std::int64_t, const ZeroMasked&, const Stream&);
template void cuda_for_each(std::int64_t, const ErodedMask&, const Stream&);

}  // namespace cuskimage::feature::detail
