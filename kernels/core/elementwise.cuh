// CUDA backend of the element-wise maps (same contract as src/core/elementwise.hpp).
// Contiguous, 16-byte-aligned operands take the vector path, where a packet is K elements such
// that the wider operand moves one 16-byte vector:
//  * same-size types (invert, uint8 -> int8, ...): one 16-byte packet in and out per thread and
//    iteration (1.23x the floor for uint8 invert on 8192^2 on the H200; unrolling it, as below,
//    measured 1.48x);
//  * widening or narrowing (uint8 -> float32: a 4-byte uchar4 in, a float4 out): kUnroll packets a
//    block-width apart per thread, loads first, so every load and store instruction of a warp is
//    fully coalesced on both sides (1.10x the floor for uint8 -> float32; 16 uint8 in and 64 bytes
//    out per thread left the stores strided and ran at 2.3x).
// Anything else takes the strided path through Indexer.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuskimage/array.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/indexer.hpp"

namespace cuskimage::detail {

template <class F, class... A>
__device__ __forceinline__ decltype(auto) dcall_indexed(const F& f, std::int64_t i, A... a) {
  if constexpr (std::is_invocable_v<const F&, A..., std::int64_t>)
    return f(a..., i);
  else
    return f(a...);
}

template <class T, int K>
struct alignas(sizeof(T) * K) Packet {
  T v[K];
};

/// Elements per packet: the widest operand fills 16 bytes.
template <class... T>
inline constexpr int packet_elems = static_cast<int>(16 / std::max({sizeof(T)...}));
inline constexpr int kUnroll = 4;

inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

constexpr int kMapThreads = 256;

/// Element i (C order) of an array: direct when contiguous, else through its indexer.
template <class T>
struct StridedReader {
  const T* p;
  Indexer ix;
  bool contiguous;
  __device__ __forceinline__ T operator()(std::int64_t i) const { return p[contiguous ? i : ix.offset(i)]; }
};

inline unsigned map_blocks(std::int64_t work_items) {
  const std::int64_t b = (work_items + kMapThreads - 1) / kMapThreads;
  return static_cast<unsigned>(std::clamp<std::int64_t>(b, 1, std::int64_t(1) << 24));
}

template <class In, class Out, class F>
__global__ void __launch_bounds__(kMapThreads) map_vec_kernel(const In* __restrict__ in, Out* __restrict__ out,
                                                              std::int64_t n, F f) {
  constexpr int K = packet_elems<In, Out>;
  using PI = Packet<In, K>;
  using PO = Packet<Out, K>;
  const std::int64_t packets = n / K;
  if constexpr (sizeof(In) == sizeof(Out)) {
    const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
    for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < packets; p += stride) {
      const PI a = reinterpret_cast<const PI*>(in)[p];
      PO b;
#pragma unroll
      for (int k = 0; k < K; ++k) b.v[k] = dcall_indexed(f, p * K + k, a.v[k]);
      reinterpret_cast<PO*>(out)[p] = b;
    }
  } else {
    const std::int64_t chunk = std::int64_t(kUnroll) * blockDim.x;
    for (std::int64_t base = std::int64_t(blockIdx.x) * chunk; base < packets; base += std::int64_t(gridDim.x) * chunk) {
      PI a[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const std::int64_t p = base + u * blockDim.x + threadIdx.x;
        if (p < packets) a[u] = reinterpret_cast<const PI*>(in)[p];
      }
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const std::int64_t p = base + u * blockDim.x + threadIdx.x;
        if (p >= packets) break;
        PO b;
#pragma unroll
        for (int k = 0; k < K; ++k) b.v[k] = dcall_indexed(f, p * K + k, a[u].v[k]);
        reinterpret_cast<PO*>(out)[p] = b;
      }
    }
  }
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = packets * K + std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = dcall_indexed(f, i, in[i]);
}

template <class In, class Out, class F>
__global__ void __launch_bounds__(kMapThreads) map_strided_kernel(const In* __restrict__ in, Indexer ii,
                                                                  Out* __restrict__ out, Indexer oi,
                                                                  std::int64_t n, F f) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[oi.offset(i)] = dcall_indexed(f, i, in[ii.offset(i)]);
}

template <class A, class B, class Out, class F>
__global__ void __launch_bounds__(kMapThreads) map2_kernel(const A* __restrict__ a, Indexer ai,
                                                           const B* __restrict__ b, Indexer bi,
                                                           Out* __restrict__ out, Indexer oi,
                                                           std::int64_t n, bool contiguous, F f) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (contiguous)
      out[i] = dcall_indexed(f, i, a[i], b[i]);
    else
      out[oi.offset(i)] = dcall_indexed(f, i, a[ai.offset(i)], b[bi.offset(i)]);
  }
}

/// out = f(in) on the device, asynchronously on `stream`.
template <class In, class Out, class F>
void cuda_map(const Array& in, Array& out, const F& f, cudaStream_t stream) {
  const Layout L = layout_of({&out, &in});
  const std::int64_t n = L.size();
  if (n == 0) return;
  const In* ip = static_cast<const In*>(in.data());
  Out* op = static_cast<Out*>(out.data());
  if (L.contiguous(0) && L.contiguous(1) && aligned16(ip) && aligned16(op)) {
    constexpr int K = packet_elems<In, Out>;
    const int unroll = sizeof(In) == sizeof(Out) ? 1 : kUnroll;
    const std::int64_t chunks = (n / K + unroll - 1) / unroll;
    map_vec_kernel<In, Out, F><<<map_blocks(std::max<std::int64_t>(chunks, 1)), kMapThreads, 0, stream>>>(ip, op, n, f);
  } else {
    map_strided_kernel<In, Out, F><<<map_blocks(n), kMapThreads, 0, stream>>>(ip, L.indexer(1), op, L.indexer(0), n, f);
  }
  CUSK_CUDA_CHECK_LAUNCH();
}

/// out = f(a, b) on the device.
template <class A, class B, class Out, class F>
void cuda_map2(const Array& a, const Array& b, Array& out, const F& f, cudaStream_t stream) {
  const Layout L = layout_of({&out, &a, &b});
  const std::int64_t n = L.size();
  if (n == 0) return;
  const bool contig = L.contiguous(0) && L.contiguous(1) && L.contiguous(2);
  map2_kernel<A, B, Out, F><<<map_blocks(n), kMapThreads, 0, stream>>>(
      static_cast<const A*>(a.data()), L.indexer(1), static_cast<const B*>(b.data()), L.indexer(2),
      static_cast<Out*>(out.data()), L.indexer(0), n, contig, f);
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::detail
