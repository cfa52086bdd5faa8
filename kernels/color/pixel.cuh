// CUDA kernels of the pixel conversions (one read and one write of every element).
//
// Contiguous channel-last input and output (16-byte aligned) take the tile kernel: persistent
// blocks (one wave: SMs x resident blocks) stride over tiles of kTilePix pixels; a tile's input is
// staged in shared memory with 16-byte loads issued one tile ahead (into registers, while the block
// converts the tile before), each thread converts pixels from shared memory into a staged output,
// which goes back with 16-byte stores that drain while the block converts the next tile; fixed
// trip counts and 32-bit offsets in full tiles, so every global access of a warp is one contiguous
// span whatever CI, CO and the element sizes are. uint8 input of ops with tables (sRGB
// linearisation, stain log, img_as_float, HSV reciprocals) reads them from a kernel parameter the
// host built with the CPU backend's code, copied to shared memory once per block: both backends
// read the same bits, and no block spends 256 pow/log on its own copy. Anything else (strided
// views, channel_axis != -1 transposes) takes the strided kernel: one pixel per thread through
// Indexer, tables as above.
//
// Bandwidth floor (H200, 4.2 TB/s), 4096^2 x 3 uint8 in (50.3 MB), 16,384 tiles of 1024 pixels:
//   rgb2lab / rgb2hsv / rgb2hed -> float64 x 3 (402.7 MB): 453 MB, floor 108 us, target 162 us.
//   rgb2gray -> float64 x 1 (134.2 MB): 185 MB, floor 44 us.
// Issued instructions per pixel (sm_90 SASS of the tile kernel: the per-pixel loop plus staging;
// before = 3eaa2ae, whose blocks also built their table with 256 pow / log each, ~30 per pixel,
// and rgb2lab divided by the white in every thread):
//   rgb2lab  ~250 -> ~103 (FP64 62 -> 41, MUFU/conversions 15 -> 6 F2F; the cube root of
//            colorconv.hpp, white folded into the matrix, the dark-pixel segment in a warp-uniform
//            branch);
//   rgb2hsv  ~180 -> ~65 (divergent per-channel divisions with 5 MUFU.RCP64H and 3 I2F -> 16
//            FP64, tables, no conversion);
//   rgb2hed  ~103 -> ~60; rgb2gray ~32 -> ~27 (table reads instead of I2F + DMUL).
// Measured before (H200): rgb2lab 193 us, rgb2hsv 184, rgb2hed 124, rgb2gray 51, which fit
// t ~ 0.7 x floor + 0.5 us x (instructions per pixel): the issue time of the ~132 x 4 schedulers
// (~0.5 us per instruction per pixel at 1.98 GHz) barely hidden behind the memory traffic.
// Predicted now by that fit: rgb2lab ~127 us (1.18x), rgb2hsv ~110-120 us (1.1x, floor-bound),
// rgb2hed ~110-120 us, rgb2gray ~45-50 us; lower if the one-tile-ahead loads and draining stores
// overlap compute better than the old one-tile blocks did.
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

/// Number of 256-double tables an op reads for input type In (0: none).
template <class In, class OpT>
inline constexpr int kTables = std::is_same_v<In, std::uint8_t> ? OpT::u8_tables : 0;

/// The op's uint8 tables, built on the host (op.u8_table, as the CPU backend) and passed by value.
template <int K>
struct U8Tables {
  double v[K > 0 ? K * 256 : 1];
};

template <int K, class OpT>
U8Tables<K> host_tables(const OpT& op) {
  U8Tables<K> t{};
  if constexpr (K > 0) op.u8_table(t.v);
  return t;
}

/// Copies the kernel parameter's tables into shared memory (K > 0); the caller syncs.
template <int K>
__device__ __forceinline__ void load_tables(const U8Tables<K>& t, double* s) {
  if constexpr (K > 0)
    for (int i = threadIdx.x; i < K * 256; i += blockDim.x) s[i] = t.v[i];
}

/// Converts one pixel: `px` its CI elements (channel stride cs), `y` the CO results.
template <class T, class In, int K, class OpT>
__device__ __forceinline__ void convert_pixel(const OpT& op, const In* px, std::int64_t cs, const double* tab,
                                              T* y) {
  constexpr int CI = OpT::cin;
  if constexpr (K > 0) {
    std::uint8_t b[CI];
#pragma unroll
    for (int c = 0; c < CI; ++c) b[c] = px[c * cs];
    if constexpr (OpT::u8_custom) {
      op.u8(b, tab, y);
    } else {
      T x[CI];
#pragma unroll
      for (int c = 0; c < CI; ++c) x[c] = tab[b[c]];
      op(x, y);
    }
  } else {
    T x[CI];
#pragma unroll
    for (int c = 0; c < CI; ++c) x[c] = op.pre(op.template load<T>(px[c * cs], c));
    op(x, y);
  }
}

/// Copies `bytes` bytes between 16-byte aligned buffers with the whole block.
__device__ __forceinline__ void block_copy(unsigned char* __restrict__ dst, const unsigned char* __restrict__ src,
                                           int bytes) {
  const int vec = bytes / 16;
  for (int i = threadIdx.x; i < vec; i += blockDim.x)
    reinterpret_cast<uint4*>(dst)[i] = reinterpret_cast<const uint4*>(src)[i];
  for (int i = vec * 16 + threadIdx.x; i < bytes; i += blockDim.x) dst[i] = src[i];
}

/// Contiguous channel-last pixels, persistent blocks (a grid of one wave) striding over tiles of
/// kTile pixels. Full tiles: the tile's input is staged in shared memory from registers loaded one
/// tile ahead (the loads fly while the block converts the tile before), converted pixel by pixel
/// into a staged output, then written back with 16-byte stores that drain while the block moves on
/// to the next tile; fixed trip counts, 32-bit shared offsets, two barriers per tile. The last,
/// partial tile (one block) takes bounded loops. The uint8 tables are copied to shared memory once
/// per block.
template <class In, class T, class OpT>
__global__ void __launch_bounds__(kPixThreads)
    pixel_tile_kernel(const In* __restrict__ in, T* __restrict__ out, std::int64_t npix, OpT op,
                      const __grid_constant__ U8Tables<kTables<In, OpT>> tables) {
  constexpr int CI = OpT::cin, CO = OpT::cout, K = kTables<In, OpT>;
  constexpr int kTile = kTilePix<In, T, CI, CO>;
  constexpr int kInBytes = kTile * CI * static_cast<int>(sizeof(In));
  constexpr int kOutBytes = kTile * CO * static_cast<int>(sizeof(T));
  static_assert(kInBytes % 16 == 0 && kOutBytes % 16 == 0, "tiles are whole 16-byte vectors");
  constexpr int kInVec = kInBytes / 16, kOutVec = kOutBytes / 16;
  constexpr int kInPer = (kInVec + kPixThreads - 1) / kPixThreads;
  constexpr int kOutPer = (kOutVec + kPixThreads - 1) / kPixThreads;
  __shared__ uint4 s_in[kInVec];
  __shared__ uint4 s_out[kOutVec];
  __shared__ double s_tab[K > 0 ? K * 256 : 1];
  load_tables<K>(tables, s_tab);
  const In* si = reinterpret_cast<const In*>(s_in);
  T* so = reinterpret_cast<T*>(s_out);
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t nfull = npix / kTile;
  std::int64_t tile = blockIdx.x;

  uint4 pre[kInPer];
  auto fetch = [&](std::int64_t t) {
    const uint4* src = reinterpret_cast<const uint4*>(in) + t * kInVec;
#pragma unroll
    for (int i = 0; i < kInPer; ++i) {
      const int idx = tid + i * kPixThreads;
      if (kInVec % kPixThreads == 0 || idx < kInVec) pre[i] = src[idx];
    }
  };
  if (tile < nfull) fetch(tile);
  for (; tile < nfull; tile += gridDim.x) {
#pragma unroll
    for (int i = 0; i < kInPer; ++i) {
      const int idx = tid + i * kPixThreads;
      if (kInVec % kPixThreads == 0 || idx < kInVec) s_in[idx] = pre[i];
    }
    __syncthreads();  // the tile's input (and the tables) staged; the last tile's output read
    if (tile + gridDim.x < nfull) fetch(tile + gridDim.x);
#pragma unroll 1
    for (int k = tid; k < kTile; k += kPixThreads) {
      T y[CO];
      convert_pixel<T, In, K>(op, si + k * CI, 1, s_tab, y);
#pragma unroll
      for (int c = 0; c < CO; ++c) so[k * CO + c] = y[c];
    }
    __syncthreads();  // the tile's output staged; its input read
    uint4* dst = reinterpret_cast<uint4*>(out) + tile * kOutVec;
#pragma unroll
    for (int i = 0; i < kOutPer; ++i) {
      const int idx = tid + i * kPixThreads;
      if (kOutVec % kPixThreads == 0 || idx < kOutVec) dst[idx] = s_out[idx];
    }
  }
  if (tile == nfull && nfull * kTile < npix) {  // the partial last tile
    const std::int64_t p0 = nfull * kTile;
    const int n = static_cast<int>(npix - p0);
    __syncthreads();  // tables staged (a block with no full tile); the last output read
    block_copy(reinterpret_cast<unsigned char*>(s_in), reinterpret_cast<const unsigned char*>(in + p0 * CI),
               n * CI * static_cast<int>(sizeof(In)));
    __syncthreads();
    for (int k = tid; k < n; k += kPixThreads) {
      T y[CO];
      convert_pixel<T, In, K>(op, si + k * CI, 1, s_tab, y);
#pragma unroll
      for (int c = 0; c < CO; ++c) so[k * CO + c] = y[c];
    }
    __syncthreads();
    block_copy(reinterpret_cast<unsigned char*>(out + p0 * CO), reinterpret_cast<const unsigned char*>(s_out),
               n * CO * static_cast<int>(sizeof(T)));
  }
}

/// Any strides: pixel i (C order over the pixel axes) through the pixel indexers. No __restrict__:
/// lab2lch converts extra channels first and then runs in place on the first three.
template <class In, class T, class OpT>
__global__ void __launch_bounds__(kPixThreads)
    pixel_strided_kernel(const In* in, cuskimage::detail::Indexer ii, std::int64_t ci, T* out,
                         cuskimage::detail::Indexer oi, std::int64_t co, std::int64_t npix, OpT op,
                         const __grid_constant__ U8Tables<kTables<In, OpT>> tables) {
  constexpr int CO = OpT::cout, K = kTables<In, OpT>;
  __shared__ double s_tab[K > 0 ? K * 256 : 1];
  if constexpr (K > 0) {
    load_tables<K>(tables, s_tab);
    __syncthreads();
  }
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < npix; i += stride) {
    T y[CO];
    convert_pixel<T, In, K>(op, in + ii.offset(i), ci, s_tab, y);
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

/// Tile-kernel blocks resident on the current device at once (SMs x blocks per SM; the per-SM
/// count is queried once per instantiation).
template <class In, class T, class OpT>
std::int64_t tile_blocks() {
  static const int per_sm = [] {
    int n = 0;
    CUSK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, pixel_tile_kernel<In, T, OpT>, kPixThreads, 0));
    return n > 0 ? n : 1;
  }();
  int dev = 0, sms = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return std::int64_t(per_sm) * std::max(sms, 1);
}

template <class In, class T, class OpT>
void launch_pixel(const OpT& op, const Array& in, Array& out, cudaStream_t stream) {
  const Array in_px = in.index(in.ndim() - 1, 0);
  const Array out_px = out.index(out.ndim() - 1, 0);
  const std::int64_t npix = in_px.size();
  if (npix == 0) return;
  const In* ip = static_cast<const In*>(in.data());
  T* opp = static_cast<T*>(out.data());
  constexpr int K = kTables<In, OpT>;
  const U8Tables<K> tables = host_tables<K>(op);
  if (in.is_contiguous() && out.is_contiguous() && aligned16(ip) && aligned16(opp)) {
    constexpr int kTile = kTilePix<In, T, OpT::cin, OpT::cout>;
    const std::int64_t tiles = (npix + kTile - 1) / kTile;
    const unsigned blocks = static_cast<unsigned>(std::min(tiles, tile_blocks<In, T, OpT>()));
    pixel_tile_kernel<In, T, OpT><<<blocks, kPixThreads, 0, stream>>>(ip, opp, npix, op, tables);
  } else {
    const cuskimage::detail::Layout L = cuskimage::detail::layout_of({&out_px, &in_px});
    pixel_strided_kernel<In, T, OpT><<<pixel_blocks(npix), kPixThreads, 0, stream>>>(
        ip, L.indexer(1), in.strides().back(), opp, L.indexer(0), out.strides().back(), npix, op, tables);
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
