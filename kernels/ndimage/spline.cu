// CUDA B-spline prefilter and map_coordinates (scipy.ndimage semantics; per-sample arithmetic from
// src/ndimage/spline.hpp, so the results equal the CPU backend's bit for bit).
//
// Prefilter (spline_lines_kernel): the recursive filter is sequential along a line, so one thread
// owns one line; a block is one warp of 32 lines. The line streams through a 32 x 32 shared tile:
// the warp loads 32 samples of 32 lines coalesced (lanes along the samples when the filtered axis is
// the contiguous one, i.e. a transpose through shared memory; lanes along the lines otherwise), each
// thread runs its recursion over its row, and the tile goes back the same way. Per pole: the causal
// init sum (direct loads of the first ~700-2000 samples until z^i underflows, L1-cached), the causal
// pass (read + write) and the anticausal pass (read + write) through tiles.
// map_coordinates: the one sampler of kernels/ndimage/geometry_sample.cuh with the coordinate-array
// functor (instantiated here); zoom, shift, affine_transform and rotate use the same kernel with
// coordinates computed in-kernel (geometry_zoom.cu, geometry_affine.cu).
//
// map_coordinates, order 1, 4096^2 float32, no prefilter, coordinates float32 (float64):
//   floor: coordinates 8 (16) B + input 4 B (each tap row re-used from L1/L2) + output 4 B per
//   point = 16 (24) B x 16.8 M = 0.27 (0.40) GB -> 0.064 (0.096) ms at 4.2 TB/s (~0.11 ms with
//   launch and tail).
//   Measured before: 1.33 ms, ~12x off. Why (ptxas -v on sm_90): the per-sample tap state
//   (SplineAxis: 6 weights, 6 int64 offsets, 6 flags per axis) lived in local memory -- a 208-byte
//   stack frame for 2-D, 312 for 3-D -- because spline_weights wrote w[order] (a runtime index)
//   and the loops ran to a runtime order; every point stored and re-loaded ~200 bytes through L1,
//   plus 64-bit offset arithmetic and a 64-bit grid-stride index. There were no register spills
//   and no per-sample divisions in the interior (map_coordinate only divides outside the axis).
//   Now: static indices only (the weights' last-weight loop rewritten), the order a template
//   parameter (0/1 on the input's dtype, 2..5 on the float64 coefficients), int32 offsets when the
//   array fits (host check), an interior path with consecutive tap offsets (no folding), threads
//   along the output's last axis (no per-point division). ptxas (sm_90): the fixed-order kernels
//   have no stack frame except 3-D orders 4/5 (outer tap loop kept rolled: 80 bytes) and 8-32
//   bytes of spills in some order-0/1 variants (this file's coordinate-array 2-D order 1 float32:
//   80 registers, 32 bytes; zoom/shift's: 80 registers, none); the runtime-order fallback (int64,
//   prefilter=False orders 2..5 on non-float64 data, arrays past 2^31 elements) keeps the old
//   208/312-byte frames. At 80 registers a 256-thread block gives 24 warps per SM; if the H200
//   shows the order-1 kernels latency-bound, __launch_bounds__(256, 4) (64 registers) is the next
//   step. Operation order and mul_rn/add_rn unchanged: GPU == CPU bit for bit.
//   Predicted: ~0.13-0.16 ms (memory-bound, ~75% of the floor; the int32/registers path is ~60
//   instructions and ~30 FP64 operations per point, far below the FP64 and issue rates). Not
//   measured yet (the lead measures on the H200).
//
// Bandwidth floor, 4096^2 float32 image, map_coordinates order 3 with an identity-plus-shift
// float64 coordinate field (2 x 4096^2 doubles), prefilter on (H200, ~4.2 TB/s usable):
//   prefilter axis 0: read input 4 B + ~1/3 init re-read, write/read/write the float64 coefficients
//     (24 B) ~ 29 B/px; axis 1 on the coefficients: 8 x 1.3 + 24 ~ 34 B/px;
//   map: coordinates 16 B + coefficients ~8 B (each tap row is re-used from L1/L2) + output 4 B = 28 B/px.
//   Total ~91 B/px x 16.8 M px = 1.53 GB -> floor ~0.36 ms (map alone 0.47 GB, 0.11 ms).
// Predicted: the prefilter has only 4096 lines per axis, i.e. 128 warps on 132 SMs, so it is bound
// by memory-level parallelism, not bandwidth: each warp keeps one 8 KB tile (32 loads per thread)
// in flight, ~1 MB GPU-wide, ~1.5 TB/s at ~0.7 us latency -> ~0.35 ms per axis including the init
// sums (~1300 samples per line, 16 loads in flight per thread), ~0.7 ms for both axes; map ~0.15 ms
// (16 taps x 3 DP ops + the weights, ~90 DP ops per point, below the FP64 rate). Total ~0.85 ms
// (~2.4x the floor). More parallelism would need split lines (the filter's impulse response decays
// below 1e-16 in ~30 samples for order 3), which gives up bit equality with scipy. Not measured yet.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"
#include "kernels/ndimage/geometry_sample.cuh"
#include "src/ndimage/spline.hpp"

namespace cuskimage::ndimage::detail {
namespace {

constexpr int kLines = 32;  // lines per block (one warp)
constexpr int kDepth = 32;  // samples per tile

/// The block's shared tile of 32 lines x 32 samples (padded row: conflict-free per half-warp).
struct Tile {
  double v[kLines][kDepth + 1];
  std::int64_t base[kLines];
};

/// tile <- x[p0, p0 + cnt) of the block's lines, times `scale`.
template <class X>
__device__ void load_tile(Tile& t, const X* x, std::int64_t p0, int cnt, std::int64_t es, int nl,
                          bool by_pos, double scale) {
  const int lane = threadIdx.x;
  // Fixed trip counts (predicated) so that all 32 loads of a thread are in flight at once: with one
  // warp per SM, memory-level parallelism comes from here.
  if (by_pos) {
    if (lane < cnt) {
#pragma unroll
      for (int r = 0; r < kLines; ++r)
        if (r < nl) t.v[r][lane] = mul_rn(static_cast<double>(x[t.base[r] + p0 + lane]), scale);
    }
  } else if (lane < nl) {
    const std::int64_t b = t.base[lane] + p0 * es;
#pragma unroll
    for (int r = 0; r < kDepth; ++r)
      if (r < cnt) t.v[lane][r] = mul_rn(static_cast<double>(x[b + r * es]), scale);
  }
  __syncthreads();
}

/// y[p0, p0 + cnt) of the block's lines <- tile.
template <class Y>
__device__ void store_tile(const Tile& t, Y* y, std::int64_t p0, int cnt, std::int64_t es, int nl,
                           bool by_pos) {
  const int lane = threadIdx.x;
  if (by_pos) {
    if (lane < cnt) {
#pragma unroll
      for (int r = 0; r < kLines; ++r)
        if (r < nl) y[t.base[r] + p0 + lane] = static_cast<Y>(t.v[r][lane]);
    }
  } else if (lane < nl) {
    const std::int64_t b = t.base[lane] + p0 * es;
#pragma unroll
    for (int r = 0; r < kDepth; ++r)
      if (r < cnt) y[b + r * es] = static_cast<Y>(t.v[lane][r]);
  }
  __syncthreads();
}

template <class S, class O>
__global__ void __launch_bounds__(kLines)
    spline_lines_kernel(const S* src, double* work, O* dst, SplineLinePlan p) {
  // No __restrict__: src, work and dst alias in the in-place passes, and the backward pass reads
  // what this kernel wrote (read-only cache loads could be stale).
  __shared__ Tile t;
  const int lane = threadIdx.x;
  const std::int64_t lines = p.outer * p.inner, n = p.n, es = p.inner;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * kLines;
  const int nl = static_cast<int>(std::min<std::int64_t>(kLines, lines - first));
  const bool active = lane < nl;
  {
    const std::int64_t l = first + lane, o = l / p.inner;
    t.base[lane] = active ? o * n * p.inner + (l - o * p.inner) : 0;
  }
  __syncthreads();
  const bool by_pos = es == 1;  // samples adjacent in memory: lanes walk the samples
  const std::int64_t base = t.base[lane];
  if (p.poles.n == 0) {  // lines of one sample, or orders 0/1: a copy into the output dtype
    for (std::int64_t p0 = 0; p0 < n; p0 += kDepth) {
      const int cnt = static_cast<int>(std::min<std::int64_t>(kDepth, n - p0));
      load_tile(t, src, p0, cnt, es, nl, by_pos, 1.0);
      store_tile(t, dst, p0, cnt, es, nl, by_pos);
    }
    return;
  }
  const double gain = p.poles.gain;
  auto from_src = [&](std::int64_t i) { return mul_rn(static_cast<double>(src[base + i * es]), gain); };
  auto from_work = [&](std::int64_t i) { return work[base + i * es]; };
  const std::int64_t last0 = (n - 1) / kDepth * kDepth;
  for (int k = 0; k < p.poles.n; ++k) {
    const double z = p.poles.z[k];
    double c0 = 0.0;
    if (active)
      c0 = k == 0 ? causal_init(from_src, n, z, p.zp[k], p.kz[k], p.init)
                  : causal_init(from_work, n, z, p.zp[k], p.kz[k], p.init);
    // Causal pass: c[i] = c[i] + z c[i - 1].
    double prev = 0.0;
    for (std::int64_t p0 = 0; p0 < n; p0 += kDepth) {
      const int cnt = static_cast<int>(std::min<std::int64_t>(kDepth, n - p0));
      if (k == 0)
        load_tile(t, src, p0, cnt, es, nl, by_pos, gain);
      else
        load_tile(t, static_cast<const double*>(work), p0, cnt, es, nl, by_pos, 1.0);
      if (active)
        for (int j = 0; j < cnt; ++j) {
          const double v = p0 + j == 0 ? c0 : add_rn(t.v[lane][j], mul_rn(z, prev));
          t.v[lane][j] = v;
          prev = v;
        }
      __syncthreads();
      store_tile(t, work, p0, cnt, es, nl, by_pos);
    }
    // Anticausal pass: c[i] = z (c[i + 1] - c[i]) from the init of c[n - 1].
    double next = 0.0;
    if (active) next = anticausal_init(from_work, n, z, p.kz[k], p.init);
    const bool last_pole = k == p.poles.n - 1;
    for (std::int64_t p0 = last0; p0 >= 0; p0 -= kDepth) {
      const int cnt = static_cast<int>(std::min<std::int64_t>(kDepth, n - p0));
      load_tile(t, static_cast<const double*>(work), p0, cnt, es, nl, by_pos, 1.0);
      if (active)
        for (int j = cnt - 1; j >= 0; --j) {
          const double v = p0 + j == n - 1 ? next : mul_rn(z, sub_rn(next, t.v[lane][j]));
          t.v[lane][j] = v;
          next = v;
        }
      __syncthreads();
      if (last_pole)
        store_tile(t, dst, p0, cnt, es, nl, by_pos);
      else
        store_tile(t, work, p0, cnt, es, nl, by_pos);
    }
  }
}

template <class T>
__global__ void __launch_bounds__(256) pad_kernel(const T* __restrict__ in, cuskimage::detail::Indexer shape_in,
                                                  cuskimage::detail::Indexer shape_out,
                                                  cuskimage::detail::Indexer pads, std::int64_t total,
                                                  double* __restrict__ out, bool constant, double cval) {
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    std::int64_t rem = k, off = 0;
    bool inside = true;
    for (int d = shape_out.ndim - 1; d >= 0; --d) {
      const std::int64_t q = rem / shape_out.shape[d];
      std::int64_t i = rem - q * shape_out.shape[d] - pads.shape[d];
      rem = q;
      const std::int64_t len = shape_in.shape[d];
      if (i < 0 || i >= len) inside = false;
      i = i < 0 ? 0 : (i >= len ? len - 1 : i);
      off += i * shape_in.stride[d];
    }
    out[k] = (constant && !inside) ? cval : static_cast<double>(in[off]);
  }
}

int grid_for(std::int64_t n, int block) {
  return static_cast<int>(std::min<std::int64_t>((n + block - 1) / block, 132LL * 16));
}

}  // namespace

template <class S, class O>
void cuda_spline_lines(const void* src, double* work, O* dst, const SplineLinePlan& p, const Stream& stream) {
  const std::int64_t lines = p.outer * p.inner;
  if (lines == 0 || p.n == 0) return;
  const std::int64_t blocks = (lines + kLines - 1) / kLines;
  spline_lines_kernel<S, O>
      <<<static_cast<unsigned>(blocks), kLines, 0, stream.handle()>>>(static_cast<const S*>(src), work, dst, p);
  CUSK_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void cuda_spline_pad(const T* in, const Shape& shape, double* out, const Shape& pads, bool constant, double cval,
                     const Stream& stream) {
  cuskimage::detail::Indexer si, so, sp;
  si.ndim = so.ndim = sp.ndim = static_cast<int>(shape.size());
  std::int64_t s = 1, total = 1;
  for (int d = si.ndim - 1; d >= 0; --d) {
    si.shape[d] = shape[d], si.stride[d] = s, s *= shape[d];
    so.shape[d] = shape[d] + 2 * pads[d], total *= so.shape[d];
    sp.shape[d] = pads[d];
  }
  pad_kernel<T><<<grid_for(total, 256), 256, 0, stream.handle()>>>(in, si, so, sp, total, out, constant, cval);
  CUSK_CUDA_CHECK(cudaGetLastError());
}

// Instantiations: the first prefilter pass reads any dtype, later passes their own output; the
// samples read the coefficients (double) or, unfiltered, the input.
#define CUSK_SPLINE_INST(T)                                                                                           \
  template void cuda_spline_lines<T, float>(const void*, double*, float*, const SplineLinePlan&, const Stream&);      \
  template void cuda_spline_lines<T, double>(const void*, double*, double*, const SplineLinePlan&, const Stream&);    \
  template void cuda_spline_pad<T>(const T*, const Shape&, double*, const Shape&, bool, double, const Stream&);
// The dtypes src/ndimage/spline.cpp's device_native lists; the others arrive as float64.
CUSK_SPLINE_INST(std::uint8_t)
CUSK_SPLINE_INST(std::uint16_t)
CUSK_SPLINE_INST(std::int32_t)
CUSK_SPLINE_INST(float)
CUSK_SPLINE_INST(double)
#undef CUSK_SPLINE_INST
// map_coordinates and geometric_transform: the coordinate-array map.
CUSK_SAMPLE_INST(CoordArrayMap<1>)
CUSK_SAMPLE_INST(CoordArrayMap<2>)
CUSK_SAMPLE_INST(CoordArrayMap<3>)

}  // namespace cuskimage::ndimage::detail
