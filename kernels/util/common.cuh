// CUDA building blocks of the util module beyond core's element-wise maps: a generator
// (out[i] = f(i) over any strides) and a segmented reduction (per-block partials combined on the
// host, for the few ops that need a host value: range checks, data-dependent conversions, means).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <vector>

#include "cuskimage/array.hpp"
#include "kernels/core/elementwise.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/indexer.hpp"

namespace cuskimage::util::detail {

using cuskimage::detail::Indexer;
using cuskimage::detail::kMapThreads;
using cuskimage::detail::Layout;
using cuskimage::detail::layout_of;
using cuskimage::detail::map_blocks;

template <class Out, class F>
__global__ void __launch_bounds__(kMapThreads) generate_kernel(Out* __restrict__ out, Indexer oi, std::int64_t n,
                                                               bool contiguous, F f) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[contiguous ? i : oi.offset(i)] = f(i);
}

/// out[i] = f(i) for the C-order element number i of `out` (any strides), asynchronously.
template <class Out, class F>
void cuda_generate(Array& out, const F& f, const Stream& stream) {
  const Layout L = layout_of({&out});
  const std::int64_t n = L.size();
  if (n == 0) return;
  generate_kernel<Out, F><<<map_blocks(n), kMapThreads, 0, stream.handle()>>>(static_cast<Out*>(out.data()),
                                                                              L.indexer(0), n, L.contiguous(0), f);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class Op>
struct CombineWith {
  Op op;
  __device__ __forceinline__ typename Op::acc_type operator()(const typename Op::acc_type& a,
                                                              const typename Op::acc_type& b) const {
    return op.combine(a, b);
  }
};

template <class Op>
__global__ void __launch_bounds__(kMapThreads)
    reduce_kernel(const typename Op::value_type* __restrict__ base, std::int64_t seg_stride, Indexer ix,
                  bool contiguous, std::int64_t n, Op op, typename Op::acc_type* __restrict__ partials) {
  using Acc = typename Op::acc_type;
  const typename Op::value_type* p = base + std::int64_t(blockIdx.y) * seg_stride;
  Acc acc = op.identity();
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    acc = op.combine(acc, op.lift(p[contiguous ? i : ix.offset(i)]));
  using BlockReduce = cub::BlockReduce<Acc, kMapThreads>;
  __shared__ typename BlockReduce::TempStorage tmp;
  const Acc r = BlockReduce(tmp).Reduce(acc, CombineWith<Op>{op});
  if (threadIdx.x == 0) partials[std::int64_t(blockIdx.y) * gridDim.x + blockIdx.x] = r;
}

/// One result per segment (segments > 1: one per index of axis 0), combined on the host.
/// Synchronizes `stream`.
template <class Op>
std::vector<typename Op::acc_type> cuda_reduce(const Array& a, std::int64_t segments, const Op& op, const Stream& s) {
  using Acc = typename Op::acc_type;
  using T = typename Op::value_type;
  std::vector<Acc> result(static_cast<std::size_t>(segments), op.identity());
  if (a.size() == 0 || segments == 0) return result;
  const Array inner = segments > 1 ? a.index(0, 0) : a.share();
  const std::int64_t seg_stride = segments > 1 ? a.strides()[0] : 0;
  const Layout L = layout_of({&inner});
  const std::int64_t n = L.size();
  constexpr std::int64_t kMaxY = 65535;
  const std::int64_t seg_per_launch = std::min<std::int64_t>(segments, kMaxY);
  const std::int64_t bx = std::clamp<std::int64_t>((n + kMapThreads - 1) / kMapThreads, 1,
                                                   std::max<std::int64_t>(1, 1024 / seg_per_launch));
  Array partials = Array::empty({segments * bx * static_cast<std::int64_t>(sizeof(Acc))}, DType::uint8,
                                a.device(), s);
  auto* pp = static_cast<Acc*>(partials.data());
  const T* base = static_cast<const T*>(a.data());
  for (std::int64_t s0 = 0; s0 < segments; s0 += kMaxY) {
    const std::int64_t ns = std::min(kMaxY, segments - s0);
    const dim3 grid(static_cast<unsigned>(bx), static_cast<unsigned>(ns));
    reduce_kernel<Op><<<grid, kMapThreads, 0, s.handle()>>>(base + s0 * seg_stride, seg_stride, L.indexer(0),
                                                            L.contiguous(0), n, op, pp + s0 * bx);
    CUSK_CUDA_CHECK_LAUNCH();
  }
  const Array host = partials.to(Device::cpu(), s);
  s.synchronize();
  const Acc* hp = static_cast<const Acc*>(host.data());
  for (std::int64_t k = 0; k < segments; ++k)
    for (std::int64_t b = 0; b < bx; ++b) result[k] = op.combine(result[k], hp[k * bx + b]);
  return result;
}

/// A non-owning alias of `a` with another dtype of the same width (for byte-moving kernels).
inline Array alias_as(const Array& a, DType dtype) {
  return Array::wrap(a.data(), a.shape(), dtype, a.device(), {}, a.strides());
}

}  // namespace cuskimage::util::detail
