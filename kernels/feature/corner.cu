// CUDA backend of skimage.feature.corner: the grid-stride runner of the shared per-pixel and
// per-corner functors (src/feature/corner.hpp), and the fused 2-D structure tensor.
//
// Fused structure tensor (structure_tensor, corner_harris / shi_tomasi / foerstner): one block
// computes a 32 x 32 output tile in shared memory, in scipy's steps and roundings:
//   1. the Sobel products P = (Iy Iy, Iy Ix, Ix Ix) over the tile plus the Gaussian halo, where
//      Iy = [1,2,1]_x ([-1,0,1]_y x), each 1-D pass summed in double as scipy's symmetric
//      correlate1d sums (centre * w0 + (right + left) * w1) and rounded to T;
//   2. the Gaussian along rows (axis 0) of each product, summed in T;
//   3. the Gaussian along columns, then the three elements (or the corner response) are written.
// The Sobel products equal the CPU's bits; the Gaussian sums in T with FMAs (see gauss()).
// Boundary modes apply to each intermediate array as scipy applies them (an out-of-range sample of
// an intermediate is the mode's sample of that intermediate, or cval): interior blocks read the
// image tile from shared memory with plain neighbours; the blocks on the image's rim compute their
// products from global memory through the mode's index mapping (same arithmetic, same bits).
// DRAM traffic: the image once (+ halo re-reads from L2) and the outputs once: float32 8192^2 with
// three elements 4 + 12 B/px = 1.07 GB (floor 0.26 ms at 4.2 TB/s); a response 8 B/px.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuskimage/ndimage.hpp"
#include "kernels/feature/for_each.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/corner.hpp"
#include "src/ndimage/boundary.hpp"

namespace cuskimage::feature::detail {
namespace {

constexpr int kTile = 32;       // output tile side
constexpr int kBx = 32, kBy = 8;
constexpr int kMaxRadius = 24;  // Gaussian radius handled by the fused kernel

template <class T>
struct Taps {
  T wy[kMaxRadius + 1], wx[kMaxRadius + 1];  // centre first, symmetric (rounded to T)
  int ry, rx;
};

struct StGeom {
  std::int64_t ny, nx;
  ndimage::Mode mode;
  double cval;
};

using ndimage::detail::map_index;

/// One 1-D 3-tap Sobel pass of scipy: centre * 2 + (right + left) (smoothing) in double, to T.
template <class T>
__device__ __forceinline__ T smooth3(T l, T c, T r) {
  return static_cast<T>(add_rn(mul_rn(2.0, double(c)), add_rn(double(r), double(l))));
}

/// Products at real pixel (y, x) from global memory through the mode mapping (rim blocks).
template <class T>
__device__ void products_global(const T* __restrict__ img, const StGeom& g, std::int64_t y, std::int64_t x, T* p) {
  const T cv = static_cast<T>(g.cval);
  auto X = [&](std::int64_t r, std::int64_t c) -> T {
    const std::int64_t mr = map_index(r, g.ny, g.mode), mc = map_index(c, g.nx, g.mode);
    return (mr < 0 || mc < 0) ? cv : img[mr * g.nx + mc];
  };
  // Dy at column c' (virtual): the [-1, 0, 1] pass along rows, extended along columns by the mode.
  auto Dy = [&](std::int64_t c) -> T {
    const std::int64_t mc = map_index(c, g.nx, g.mode);
    if (mc < 0) return cv;
    return static_cast<T>(sub_rn(double(X(y + 1, mc)), double(X(y - 1, mc))));
  };
  auto Dx = [&](std::int64_t r) -> T {
    const std::int64_t mr = map_index(r, g.ny, g.mode);
    if (mr < 0) return cv;
    return static_cast<T>(sub_rn(double(X(mr, x + 1)), double(X(mr, x - 1))));
  };
  const T iy = smooth3(Dy(x - 1), Dy(x), Dy(x + 1));
  const T ix = smooth3(Dx(y - 1), Dx(y), Dx(y + 1));
  p[0] = mul_rn(iy, iy);
  p[1] = mul_rn(iy, ix);
  p[2] = mul_rn(ix, ix);
}

/// The symmetric Gaussian pass of scipy: v0 * w0, then += (v[+j] + v[-j]) * w[j], to T.
/// Sums in T with fused multiply-adds: for float32 the two Gaussian passes are most of the kernel's
/// arithmetic, and float32 lanes are twice the float64 ones on the H200 (scipy sums in float64: the
/// results agree within ~1e-6 of the largest element; float64 results within an ulp or two).
template <class T>
__device__ __forceinline__ T gauss(const T* v, int step, const T* w, int r) {
  T acc = v[0] * w[0];
  for (int j = 1; j <= r; ++j) acc += (v[j * step] + v[-j * step]) * w[j];
  return acc;
}

template <class T>
__global__ void __launch_bounds__(kBx* kBy)
    structure_tensor_kernel(const T* __restrict__ img, StGeom g, Taps<T> taps, T* __restrict__ o0, T* __restrict__ o1,
                            T* __restrict__ o2, bool respond, Response kind, T param) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* smem = reinterpret_cast<T*>(smem_raw);
  const int ry = taps.ry, rx = taps.rx;
  const int ph = kTile + 2 * ry, pw = kTile + 2 * rx;  // product tile (virtual coordinates)
  T* P = smem;                                         // [3][ph][pw]
  T* G = P + 3 * ph * pw;                              // [3][kTile][pw]
  T* Xs = G + 3 * kTile * pw;                          // [ph + 2][pw + 2] image tile (interior blocks)
  const std::int64_t y0 = std::int64_t(blockIdx.y) * kTile, x0 = std::int64_t(blockIdx.x) * kTile;
  const int tid = threadIdx.y * kBx + threadIdx.x, nthreads = kBx * kBy;
  const T cv = static_cast<T>(g.cval);
  const bool interior = y0 - ry - 1 >= 0 && y0 + kTile + ry + 1 <= g.ny && x0 - rx - 1 >= 0 &&
                        x0 + kTile + rx + 1 <= g.nx;
  if (interior) {
    const int xh = ph + 2, xw = pw + 2;
    for (int i = tid; i < xh * xw; i += nthreads) {
      const int r = i / xw, c = i - r * xw;
      Xs[i] = img[(y0 - ry - 1 + r) * g.nx + (x0 - rx - 1 + c)];
    }
    __syncthreads();
    for (int i = tid; i < ph * pw; i += nthreads) {
      const int r = i / pw + 1, c = i % pw + 1;
      const T* s = Xs + r * xw + c;
      auto dy = [&](int dc) { return static_cast<T>(sub_rn(double(s[xw + dc]), double(s[-xw + dc]))); };
      auto dx = [&](int dr) { return static_cast<T>(sub_rn(double(s[dr * xw + 1]), double(s[dr * xw - 1]))); };
      const T iy = smooth3(dy(-1), dy(0), dy(1));
      const T ix = smooth3(dx(-1), dx(0), dx(1));
      P[i] = mul_rn(iy, iy);
      P[ph * pw + i] = mul_rn(iy, ix);
      P[2 * ph * pw + i] = mul_rn(ix, ix);
    }
  } else {
    for (int i = tid; i < ph * pw; i += nthreads) {
      const int r = i / pw, c = i - r * pw;
      const std::int64_t my = map_index(y0 - ry + r, g.ny, g.mode), mx = map_index(x0 - rx + c, g.nx, g.mode);
      T p[3] = {cv, cv, cv};
      if (my >= 0 && mx >= 0) products_global(img, g, my, mx, p);
      for (int k = 0; k < 3; ++k) P[k * ph * pw + i] = p[k];
    }
  }
  __syncthreads();
  // Gaussian along rows at every (real row of the tile, virtual column); an out-of-range column of
  // this intermediate is cval under mode constant.
  for (int i = tid; i < kTile * pw; i += nthreads) {
    const int r = i / pw, c = i - r * pw;
    const bool out_col = map_index(x0 - rx + c, g.nx, g.mode) < 0;
    for (int k = 0; k < 3; ++k)
      G[k * kTile * pw + i] = out_col ? cv : gauss(P + k * ph * pw + (r + ry) * pw + c, pw, taps.wy, ry);
  }
  __syncthreads();
  for (int i = tid; i < kTile * kTile; i += nthreads) {
    const int r = i / kTile, c = i - r * kTile;
    const std::int64_t y = y0 + r, x = x0 + c;
    if (y >= g.ny || x >= g.nx) continue;
    T e[3];
    for (int k = 0; k < 3; ++k) e[k] = gauss(G + k * kTile * pw + r * pw + c + rx, 1, taps.wx, rx);
    const std::int64_t o = y * g.nx + x;
    if (respond) {
      T q = T(0);
      o0[o] = TensorResponse<T>::respond(kind, param, e[0], e[1], e[2], &q);
      if (o1) o1[o] = q;
    } else {
      o0[o] = e[0];
      o1[o] = e[1];
      o2[o] = e[2];
    }
  }
}

}  // namespace

template <class T>
bool cuda_structure_tensor_2d(const Array& img, const std::vector<double>& sigma, ndimage::Mode mode, double cval,
                              T* out[3], const Response* resp, T param, T* r_out, T* r_out2, const Stream& stream) {
  if (static_cast<double>(static_cast<T>(cval)) != cval || !img.is_contiguous()) return false;
  Taps<T> taps{};
  int* radius[2] = {&taps.ry, &taps.rx};
  T* w[2] = {taps.wy, taps.wx};
  for (int a = 0; a < 2; ++a) {
    // scipy skips an axis whose sigma is ~0 (no pass, no rounding): composed instead.
    if (!(sigma[static_cast<std::size_t>(a)] > 1e-15)) return false;
    const auto r = static_cast<std::int64_t>(4.0 * sigma[static_cast<std::size_t>(a)] + 0.5);
    if (r > kMaxRadius) return false;
    const std::vector<double> k = ndimage::gaussian_kernel1d(sigma[static_cast<std::size_t>(a)], 0, r);
    *radius[a] = static_cast<int>(r);
    for (std::int64_t j = 0; j <= r; ++j) w[a][j] = static_cast<T>(k[static_cast<std::size_t>(r + j)]);
  }
  const int ph = kTile + 2 * taps.ry, pw = kTile + 2 * taps.rx;
  const std::size_t smem = sizeof(T) * (3 * ph * pw + 3 * kTile * pw + (ph + 2) * (pw + 2));
  if (smem > 200 * 1024) return false;
  if (img.size() == 0) return true;
  auto kern = structure_tensor_kernel<T>;
  CUSK_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  const StGeom g{img.shape(0), img.shape(1), mode, cval};
  const dim3 grid(static_cast<unsigned>((g.nx + kTile - 1) / kTile), static_cast<unsigned>((g.ny + kTile - 1) / kTile));
  const bool respond = resp != nullptr;
  kern<<<grid, dim3(kBx, kBy), smem, stream.handle()>>>(
      static_cast<const T*>(img.data()), g, taps, respond ? r_out : out[0], respond ? r_out2 : out[1],
      respond ? nullptr : out[2], respond, respond ? *resp : Response::harris_k, param);
  CUSK_CUDA_CHECK_LAUNCH();
  return true;
}

#define CUSK_CORNER_CUDA(T)                                                                                      \
  template void cuda_for_each(std::int64_t, const Products<T>&, const Stream&);                                 \
  template void cuda_for_each(std::int64_t, const Gradient<T>&, const Stream&);                                 \
  template void cuda_for_each(std::int64_t, const TensorResponse<T>&, const Stream&);                           \
  template void cuda_for_each(std::int64_t, const KitchenRosenfeld<T>&, const Stream&);                         \
  template void cuda_for_each(std::int64_t, const ShapeIndex<T>&, const Stream&);                               \
  template void cuda_for_each(std::int64_t, const SymDet<T>&, const Stream&);                                   \
  template void cuda_for_each(std::int64_t, const Moravec<T>&, const Stream&);                                  \
  template void cuda_for_each(std::int64_t, const Fast<T>&, const Stream&);                                     \
  template void cuda_for_each(std::int64_t, const Orientation<T>&, const Stream&);                              \
  template void cuda_for_each(std::int64_t, const Subpix<T>&, const Stream&);                                   \
  template bool cuda_structure_tensor_2d<T>(const Array&, const std::vector<double>&, ndimage::Mode, double, T**, \
                                            const Response*, T, T*, T*, const Stream&);
CUSK_CORNER_CUDA(float)
CUSK_CORNER_CUDA(double)
#undef CUSK_CORNER_CUDA
template void cuda_for_each(std::int64_t, const HessianDetAppx&, const Stream&);

}  // namespace cuskimage::feature::detail
