// CUDA kernels of the pixel conversions (one read and one write of every element).
//
// Contiguous channel-last input and output (16-byte aligned) take the tile kernel: a block stages
// kTilePix pixels of input in shared memory with 16-byte vector loads, converts each pixel in one
// thread, stages the output and writes it back with 16-byte vector stores, so every global access
// of a warp is one contiguous span whatever CI, CO and the element sizes are (a pixel per thread
// straight from global memory would make 3-byte / 24-byte strided warp accesses). uint8 input of
// ops with a per-element transform (sRGB linearisation, the stain log) reads a 256-entry table
// built by each block, so pow/log run 256 times per block instead of three times per pixel.
// Anything else (strided views, channel_axis != -1 transposes) takes the strided kernel: one pixel
// per thread addressed through Indexer.
//
// Bandwidth floor (H200, 4.2 TB/s), 4096^2 x 3 uint8 in (50.3 MB):
//   rgb2hed / rgb2hsv -> float64 x 3 (402.7 MB): 453 MB, floor 108 us; predicted ~125 us (1.15x:
//     the tile kernel's staged 16-byte accesses; per pixel a table read, 9 FMAs / two divisions);
//   rgb2lab -> float64 x 3: same 453 MB, floor 108 us; predicted ~130 us (1.2x). Its per-pixel loop
//     (sm_90 SASS) issues ~62 FP64-pipe instructions (3x3 product, 3 cbrt refined from MUFU
//     approximations, Lab scaling) = 1.04 G, ~62 us at the H200's ~16.7 T FP64 instructions/s,
//     under the memory floor and overlapped with it by the ~7 resident blocks per SM;
//   rgb2gray -> float64 x 1 (134.2 MB): 185 MB, floor 44 us; predicted ~52 us (1.2x).
// float32 input -> float32 output moves 12 + 12 bytes per pixel (403 MB, floor 96 us).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuskimage/array.hpp"
#include "src/color/colorconv.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/indexer.hpp"

namespace cuskimage::color::detail {

inline constexpr int kPixThreads = 256;
/// Pixels per block tile: 1024 (4 per thread) unless the staging buffers would pass 40 KiB.
template <class In, class T, int CI, int CO>
inline constexpr int kTilePix = (CI * sizeof(In) + CO * sizeof(T)) * 1024 <= 40960 ? 1024 : 512;

template <class T, class In, class OpT>
__device__ __forceinline__ T load_elem(const OpT& op, In x, int c, const T* lut) {
  if constexpr (std::is_same_v<In, std::uint8_t> && OpT::use_lut)
    return lut[x];
  else
    return op.pre(op.template load<T>(x, c));
}

template <class T, class In, class OpT>
__device__ __forceinline__ void build_lut(const OpT& op, T* lut) {
  if constexpr (std::is_same_v<In, std::uint8_t> && OpT::use_lut) {
    for (int v = threadIdx.x; v < 256; v += blockDim.x) lut[v] = op.pre(op.template load<T>(static_cast<In>(v), 0));
    __syncthreads();
  }
}

/// Copies `bytes` bytes between 16-byte aligned buffers with the whole block.
__device__ __forceinline__ void block_copy(unsigned char* __restrict__ dst, const unsigned char* __restrict__ src,
                                           std::int64_t bytes) {
  const std::int64_t vec = bytes / 16;
  for (std::int64_t i = threadIdx.x; i < vec; i += blockDim.x)
    reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(src)[i];
  for (std::int64_t i = vec * 16 + threadIdx.x; i < bytes; i += blockDim.x) dst[i] = src[i];
}

template <class In, class T, class OpT>
__global__ void __launch_bounds__(kPixThreads) pixel_tile_kernel(const In* __restrict__ in, T* __restrict__ out,
                                                                 std::int64_t npix, OpT op) {
  constexpr int CI = OpT::cin, CO = OpT::cout;
  constexpr int kTile = kTilePix<In, T, CI, CO>;
  __shared__ alignas(16) unsigned char s_in[kTile * CI * sizeof(In)];
  __shared__ alignas(16) unsigned char s_out[kTile * CO * sizeof(T)];
  __shared__ T lut[std::is_same_v<In, std::uint8_t> && OpT::use_lut ? 256 : 1];
  build_lut<T, In>(op, lut);
  const In* si = reinterpret_cast<const In*>(s_in);
  T* so = reinterpret_cast<T*>(s_out);
  for (std::int64_t tile = blockIdx.x; tile * kTile < npix; tile += gridDim.x) {
    const std::int64_t p0 = tile * kTile;
    const int n = static_cast<int>(std::min<std::int64_t>(kTile, npix - p0));
    block_copy(s_in, reinterpret_cast<const unsigned char*>(in + p0 * CI), std::int64_t(n) * CI * sizeof(In));
    __syncthreads();
    for (int k = threadIdx.x; k < n; k += kPixThreads) {
      T x[CI], y[CO];
#pragma unroll
      for (int c = 0; c < CI; ++c) x[c] = load_elem<T>(op, si[k * CI + c], c, lut);
      op(x, y);
#pragma unroll
      for (int c = 0; c < CO; ++c) so[k * CO + c] = y[c];
    }
    __syncthreads();
    block_copy(reinterpret_cast<unsigned char*>(out + p0 * CO), s_out, std::int64_t(n) * CO * sizeof(T));
    __syncthreads();
  }
}

/// Any strides: pixel i (C order over the pixel axes) through the pixel indexers. No __restrict__:
/// lab2lch converts extra channels first and then runs in place on the first three.
template <class In, class T, class OpT>
__global__ void __launch_bounds__(kPixThreads) pixel_strided_kernel(const In* in, cuskimage::detail::Indexer ii,
                                                                    std::int64_t ci, T* out,
                                                                    cuskimage::detail::Indexer oi, std::int64_t co,
                                                                    std::int64_t npix, OpT op) {
  constexpr int CI = OpT::cin, CO = OpT::cout;
  __shared__ T lut[std::is_same_v<In, std::uint8_t> && OpT::use_lut ? 256 : 1];
  build_lut<T, In>(op, lut);
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < npix; i += stride) {
    const In* px = in + ii.offset(i);
    T x[CI], y[CO];
#pragma unroll
    for (int c = 0; c < CI; ++c) x[c] = load_elem<T>(op, px[c * ci], c, lut);
    op(x, y);
    T* py = out + oi.offset(i);
#pragma unroll
    for (int c = 0; c < CO; ++c) py[c * co] = y[c];
  }
}

inline unsigned pixel_blocks(std::int64_t work) {
  const std::int64_t b = (work + kPixThreads - 1) / kPixThreads;
  return static_cast<unsigned>(std::clamp<std::int64_t>(b, 1, std::int64_t(1) << 20));
}

inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0; }

template <class In, class T, class OpT>
void launch_pixel(const OpT& op, const Array& in, Array& out, cudaStream_t stream) {
  const Array in_px = in.index(in.ndim() - 1, 0);
  const Array out_px = out.index(out.ndim() - 1, 0);
  const std::int64_t npix = in_px.size();
  if (npix == 0) return;
  const In* ip = static_cast<const In*>(in.data());
  T* opp = static_cast<T*>(out.data());
  if (in.is_contiguous() && out.is_contiguous() && aligned16(ip) && aligned16(opp)) {
    constexpr int kTile = kTilePix<In, T, OpT::cin, OpT::cout>;
    const std::int64_t tiles = (npix + kTile - 1) / kTile;
    const unsigned blocks = static_cast<unsigned>(std::min<std::int64_t>(tiles, std::int64_t(1) << 20));
    pixel_tile_kernel<In, T, OpT><<<blocks, kPixThreads, 0, stream>>>(ip, opp, npix, op);
  } else {
    const cuskimage::detail::Layout L = cuskimage::detail::layout_of({&out_px, &in_px});
    pixel_strided_kernel<In, T, OpT><<<pixel_blocks(npix), kPixThreads, 0, stream>>>(
        ip, L.indexer(1), in.strides().back(), opp, L.indexer(0), out.strides().back(), npix, op);
  }
  CUSK_CUDA_CHECK_LAUNCH();
}

/// Runs `op` for in's dtype (uint8, uint16, float32, float64).
template <class OpT>
void launch_pixel_any(const OpT& op, const Array& in, Array& out, cudaStream_t stream) {
  switch (in.dtype()) {
    case DType::uint8: return launch_pixel<std::uint8_t, double>(op, in, out, stream);
    case DType::uint16: return launch_pixel<std::uint16_t, double>(op, in, out, stream);
    case DType::float32: return launch_pixel<float, float>(op, in, out, stream);
    case DType::float64: return launch_pixel<double, double>(op, in, out, stream);
    default: throw InvalidArgument("color: internal: unsupported pixel dtype");
  }
}

}  // namespace cuskimage::color::detail
