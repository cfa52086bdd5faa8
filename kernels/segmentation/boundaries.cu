// CUDA backend of segmentation.find_boundaries / mark_boundaries: one grid-stride pass of the
// shared per-pixel rules (src/segmentation/boundaries.hpp). The label reads of neighbouring
// threads overlap, so each label comes from DRAM about once and the pass moves ~ label bytes + 1
// byte per output pixel.
#include <cuda_runtime.h>

#include <cstdint>

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
