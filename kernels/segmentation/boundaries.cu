// CUDA backend of segmentation.find_boundaries / mark_boundaries: one grid-stride pass of the
// shared per-pixel rules (src/segmentation/boundaries.hpp); 2-D thick / inner on aligned rows take
// a 4-pixels-per-thread kernel of the same tests. The label reads of neighbouring
// threads overlap, so each label comes from DRAM about once and the pass moves ~ label bytes + 1
// byte per output pixel.
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kernels/core/launch.cuh"
#include "src/core/dispatch.hpp"
#include "src/core/cuda_check.hpp"
#include "src/segmentation/boundaries.hpp"

namespace cuskimage::segmentation::detail {
namespace {

template <class T>
__global__ void find_boundaries_kernel(BoundaryRule<T> rule, bool* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = rule(i);
}

/// 2-D / 3-D thick, inner and outer: one thread per pixel of a (z, y, x) launch grid, coordinates
/// from the thread indices (no divisions), the neighbourhood unrolled.
template <class T, int ND>
__global__ void find_boundaries_nd_kernel(BoundaryRule<T, ND> rule, bool* out) {
  const std::int64_t x = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x;
  const std::int64_t y = blockIdx.y * static_cast<std::int64_t>(blockDim.y) + threadIdx.y;
  const std::int64_t z = blockIdx.z;
  const Grid& g = rule.g;
  if (x >= g.shape[ND - 1] || y >= g.shape[ND - 2]) return;
  std::int64_t c[ND];
  c[ND - 1] = x;
  c[ND - 2] = y;
  if constexpr (ND == 3) c[0] = z;
  std::int64_t off = x * g.stride[ND - 1] + y * g.stride[ND - 2];
  std::int64_t lin = y * g.shape[ND - 1] + x;
  if constexpr (ND == 3) {
    off += z * g.stride[0];
    lin += z * g.shape[1] * g.shape[2];
  }
  out[lin] = rule.at(c, off);
}

template <class T, int ND>
void launch_nd(const BoundaryRule<T>& r, bool* out, cudaStream_t s) {
  BoundaryRule<T, ND> rule;
  rule.img = r.img;
  rule.g = r.g;
  rule.conn = r.conn;
  rule.mode = r.mode;
  rule.background = r.background;
  const dim3 block(32, 8);
  const dim3 grid(static_cast<unsigned>((r.g.shape[ND - 1] + 31) / 32),
                  static_cast<unsigned>((r.g.shape[ND - 2] + 7) / 8), ND == 3 ? static_cast<unsigned>(r.g.shape[0]) : 1u);
  find_boundaries_nd_kernel<T, ND><<<grid, block, 0, s>>>(rule, out);
}

/// 2-D thick / inner of contiguous rows, widths a multiple of 4: a thread makes 4 pixels of a row
/// from a 3 x 6 window (aligned vector loads of its 4 labels, rows and columns clamped at the edges,
/// which repeats an in-image neighbour and so changes no test) and stores them as one 32-bit word.
/// Moves ~ the label bytes + 1 byte per pixel; integer math in 32 bits per row.
template <class T>
struct alignas(4 * sizeof(T)) Quad {
  T v[4];
};

template <class T>
__global__ void __launch_bounds__(256) thick_rows_kernel(const T* __restrict__ img, std::int64_t row_stride,
                                                           std::int32_t h, std::int32_t w, bool diag, bool inner,
                                                           std::int64_t background, std::uint32_t* __restrict__ out) {
  const std::int32_t qx = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (y >= h || 4 * qx >= w) return;
  const std::int32_t x0 = 4 * qx;
  using Big = typename BoundaryRule<T>::Big;
  Big r[3][6];
  const std::int32_t rows[3] = {y > 0 ? y - 1 : 0, y, y + 1 < h ? y + 1 : y};
#pragma unroll
  for (int k = 0; k < 3; ++k) {
    const T* row = img + rows[k] * row_stride;
    const Quad<T> q = *reinterpret_cast<const Quad<T>*>(row + x0);
#pragma unroll
    for (int j = 0; j < 4; ++j) r[k][j + 1] = static_cast<Big>(q.v[j]);
    r[k][0] = x0 > 0 ? static_cast<Big>(row[x0 - 1]) : r[k][1];
    r[k][5] = x0 + 4 < w ? static_cast<Big>(row[x0 + 4]) : r[k][4];
  }
  std::uint32_t word = 0;
#pragma unroll
  for (int j = 1; j <= 4; ++j) {
    const Big v = r[1][j];
    bool b = r[1][j - 1] != v || r[1][j + 1] != v || r[0][j] != v || r[2][j] != v;
    if (diag) b = b || r[0][j - 1] != v || r[0][j + 1] != v || r[2][j - 1] != v || r[2][j + 1] != v;
    if (inner && label_equals(v, background)) b = false;
    word |= static_cast<std::uint32_t>(b) << (8 * (j - 1));
  }
  out[(static_cast<std::int64_t>(y) * w + x0) / 4] = word;
}

template <class F>
__global__ void paint_kernel(PaintRule<F> rule, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    rule(i);
}

}  // namespace

template <class T>
void cuda_find_boundaries(const BoundaryRule<T>& rule, Array& out, const Stream& stream) {
  const std::int64_t n = out.size();
  const int nd = rule.g.nd;
  // Launch-grid limits: y and z extents below 65536 blocks.
  const Grid& g = rule.g;
  // Integer and bool labels only: a NaN label would differ from its repeated edge copy.
  if (!std::is_floating_point_v<T> && nd == 2 && (rule.mode == 0 || rule.mode == 1) && g.stride[1] == 1 && g.shape[1] % 4 == 0 &&
      g.stride[0] % 4 == 0 && reinterpret_cast<std::uintptr_t>(rule.img) % (4 * sizeof(T)) == 0 &&
      g.shape[0] < 65535 * 8 && g.shape[1] < (std::int64_t(1) << 30)) {
    const dim3 block(64, 4);
    const dim3 grid(static_cast<unsigned>((g.shape[1] / 4 + 63) / 64), static_cast<unsigned>((g.shape[0] + 3) / 4));
    thick_rows_kernel<T><<<grid, block, 0, stream.handle()>>>(
        rule.img, g.stride[0], static_cast<std::int32_t>(g.shape[0]), static_cast<std::int32_t>(g.shape[1]),
        rule.conn >= 2, rule.mode == 1, rule.background, static_cast<std::uint32_t*>(out.data()));
    CUSK_CUDA_CHECK_LAUNCH();
    return;
  }
  const bool fits = nd >= 2 && rule.g.shape[nd - 2] < 65535 * 8 && (nd == 2 || rule.g.shape[0] < 65535);
  if (rule.mode != 3 && fits && (nd == 2 || nd == 3)) {
    bool* o = static_cast<bool*>(out.data());
    if (nd == 2) launch_nd<T, 2>(rule, o, stream.handle());
    else launch_nd<T, 3>(rule, o, stream.handle());
    CUSK_CUDA_CHECK_LAUNCH();
    return;
  }
  find_boundaries_kernel<T><<<cuskimage::detail::grid_blocks(n, 256, 1 << 20), 256, 0, stream.handle()>>>(
      rule, static_cast<bool*>(out.data()), n);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class F>
void cuda_paint(const PaintRule<F>& rule, std::int64_t n, const Stream& stream) {
  paint_kernel<F><<<cuskimage::detail::grid_blocks(n, 256, 1 << 20), 256, 0, stream.handle()>>>(rule, n);
  CUSK_CUDA_CHECK_LAUNCH();
}

#define CUSK_INST(T) template void cuda_find_boundaries<T>(const BoundaryRule<T>&, Array&, const Stream&);
CUSK_FOR_EACH_DTYPE(CUSK_INST)
#undef CUSK_INST
template void cuda_paint<float>(const PaintRule<float>&, std::int64_t, const Stream&);
template void cuda_paint<double>(const PaintRule<double>&, std::int64_t, const Stream&);

}  // namespace cuskimage::segmentation::detail
