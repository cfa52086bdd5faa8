// CUDA backend of segmentation.clear_border: after measure.label, a flag pass over the border (the
// band's slabs only, or every pixel against a mask; racing writes of the same 1 are benign) and a
// pass writing the result from the labels (read once, strided views included; four per thread with
// vector loads and stores when contiguous and aligned): ~ label + 2 x value bytes per pixel after
// measure.label, which takes most of the time.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/segmentation/clear_border.hpp"

namespace cuskimage::segmentation::detail {
namespace {

template <class L>
__global__ void flag_border_kernel(BorderRule rule, const L* label, std::uint8_t* flags, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    if (rule(i)) flags[label[i]] = 1;
}

/// The band without a mask: one launch per slab {c[axis] in [start, start + extent)}, so only the
/// border is visited (slabs overlap at the corners; the flags are idempotent).
template <class L>
__global__ void flag_slab_kernel(Grid g, int axis, std::int64_t start, std::int64_t extent, const L* label,
                                 std::uint8_t* flags, std::int64_t m) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < m;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t lin = i, idx = 0, step = 1;
    for (int a = g.nd - 1; a >= 0; --a) {
      const std::int64_t ext = a == axis ? extent : g.shape[a];
      std::int64_t c = lin % ext;
      lin /= ext;
      if (a == axis) c += start;
      idx += c * step;
      step *= g.shape[a];
    }
    if (!flags[label[idx]]) flags[label[idx]] = 1;
  }
}

template <class T, class L>
__global__ void clear_flagged_kernel(const L* label, const std::uint8_t* flags, Source<T> src, T* out, T bgval,
                                     std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    out[i] = flags[label[i]] ? bgval : src(i);
}

template <class X>
struct alignas(4 * sizeof(X)) Quad {
  X v[4];
};

/// The same for contiguous labels, four elements per thread with vector loads and stores (all three
/// arrays aligned to 4 elements).
template <class T, class L>
__global__ void clear_flagged4_kernel(const L* __restrict__ label, const std::uint8_t* __restrict__ flags,
                                      const T* __restrict__ in, T* __restrict__ out, T bgval, std::int64_t quads) {
  for (std::int64_t q = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; q < quads;
       q += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const Quad<L> l = reinterpret_cast<const Quad<L>*>(label)[q];
    Quad<T> v = reinterpret_cast<const Quad<T>*>(in)[q];
#pragma unroll
    for (int j = 0; j < 4; ++j)
      if (flags[l.v[j]]) v.v[j] = bgval;
    reinterpret_cast<Quad<T>*>(out)[q] = v;
  }
}

template <class X>
bool aligned4(const X* p) {
  return reinterpret_cast<std::uintptr_t>(p) % (4 * sizeof(X)) == 0;
}

}  // namespace

template <class T, class L>
void cuda_clear_border(const BorderRule& rule, const L* label, std::uint8_t* flags, const Source<T>& src, T* out,
                       T bgval, std::int64_t n, const Stream& stream) {
  const unsigned blocks = cuskimage::detail::grid_blocks(n, 256, 1 << 20);
  if (rule.mask) {
    flag_border_kernel<L><<<blocks, 256, 0, stream.handle()>>>(rule, label, flags, n);
    CUSK_CUDA_CHECK_LAUNCH();
  } else {
    for (int a = 0; a < rule.g.nd; ++a) {
      const std::int64_t len = rule.g.shape[a], e = std::min(rule.ext, len), m = n / len * e;
      for (const std::int64_t start : {std::int64_t{0}, len - e}) {
        flag_slab_kernel<L><<<cuskimage::detail::grid_blocks(m, 256, 1 << 16), 256, 0, stream.handle()>>>(
            rule.g, a, start, e, label, flags, m);
        CUSK_CUDA_CHECK_LAUNCH();
      }
    }
  }
  if (src.contiguous && n % 4 == 0 && aligned4(label) && aligned4(src.in) && aligned4(out)) {
    clear_flagged4_kernel<T, L><<<cuskimage::detail::grid_blocks(n / 4, 256, 1 << 20), 256, 0, stream.handle()>>>(
        label, flags, src.in, out, bgval, n / 4);
    CUSK_CUDA_CHECK_LAUNCH();
    return;
  }
  clear_flagged_kernel<T, L><<<blocks, 256, 0, stream.handle()>>>(label, flags, src, out, bgval, n);
  CUSK_CUDA_CHECK_LAUNCH();
}

#define CUSK_INST(T)                                                                                    \
  template void cuda_clear_border<T, std::int32_t>(const BorderRule&, const std::int32_t*, std::uint8_t*, \
                                                   const Source<T>&, T*, T, std::int64_t, const Stream&); \
  template void cuda_clear_border<T, std::int64_t>(const BorderRule&, const std::int64_t*, std::uint8_t*, \
                                                   const Source<T>&, T*, T, std::int64_t, const Stream&);
CUSK_FOR_EACH_DTYPE(CUSK_INST)
#undef CUSK_INST

}  // namespace cuskimage::segmentation::detail
