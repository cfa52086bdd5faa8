// CUDA kernels of the pixel conversions (one read and one write of every element).
//
// Contiguous channel-last input and output (16-byte aligned) take the tile kernel: blocks of 256
// threads walk tiles of kTile pixels (tile += gridDim.x); a tile's input is staged in shared memory
// with 16-byte loads (issued into registers one tile ahead when a block has a next tile, so they fly
// while it converts the tile before), each thread converts pixels from shared memory into a staged
// output, which goes back with 16-byte stores; fixed trip counts and 32-bit offsets in full tiles,
// so every global access of a warp is one contiguous span whatever CI, CO and the element sizes
// are. uint8 input of ops with tables (sRGB linearisation, stain log, HSV reciprocals) reads them
// from a kernel parameter the host built with the CPU backend's code, copied to shared memory once
// per block: both backends read the same bits. Anything else (strided views, channel_axis != -1
// transposes) takes the strided kernel: one pixel per thread through Indexer, tables as above.
//
// ---- Launch policy (the one place it is decided: kPersistentByDefault below) --------------------
//
// Per op and input dtype, by arithmetic weight (issue time per pixel against memory time per pixel):
//   heavy (rgb2lab, rgb2hsv, luv, xyz2lab, the inverses with pow / exp / trig, and every op whose
//     uint16 / float input runs a transcendental per element): persistent, grid = one wave of
//     resident blocks (SMs x occupancy), each block walking ~18 tiles with its next tile's loads in
//     flight during the FP64 work of the current one;
//   light (rgb2gray, separate_stains / rgb2hed and rgb2xyz from uint8 (a table and a 3x3 product),
//     the matrix conversions (LinearOp: ycbcr, yuv, ...), rgba2rgb): one tile per block (grid =
//     tiles), the launch of the kernel these ops had before the persistent one (rgb2hed 0.124 ms,
//     rgb2gray 0.051 ms at 4096^2).
// Tile 1024 pixels (4 per thread; 512 where the staging would pass 40 KiB), no register cap.
// Why light ops lost with the persistent wave (H200, 4096^2 uint8 -> float64: rgb2hed 0.124 ->
// 0.136 ms, rgb2gray 0.051 -> 0.066):
//   - nothing to hide: the next tile's loads are issued before the convert phase, but a light op's
//     convert phase (~60 instructions x 4 pixels per thread for rgb2hed) is far shorter than a
//     loaded DRAM latency, so every tile still waits for its input at the top of the loop, as a
//     fresh block does; the prefetch buys nothing;
//   - lock-step phases: all blocks start together and do the same work, so an SM's 6-8 blocks wait
//     for their loads, convert and burst their stores (8x the load bytes) at about the same moments;
//     one-tile blocks start whenever one retires and settle into a mix of ages (some loading, some
//     storing), which keeps DRAM busy; the persistent blocks only drift apart over ~16-21 tiles;
//   - wave quantisation: 16,384 tiles over 792 rgb2hed blocks (40 registers: 6 per SM) are 20.7
//     tiles each, so the last of 21 rounds runs 70 % full; 15.5 for rgb2gray's 1056;
//   - rgb2gray from uint8 through a table (tried with the persistent wave): three LDS.64 per pixel
//     with the bank conflicts of 32 random bytes (16 lanes over 16 bank pairs: ~3-way) cost ~0.6 shared-memory
//     wavefronts per pixel, ~40 us per SM of shared-memory pipe at 4096^2 -- as long as the 44 us
//     memory floor. It now converts bytes with unsigned_unit (one DFMA per channel, exact).
//   - rgb2hed's clamp np.maximum(stains, 0) compiled to a branch per channel (BSSY / BRA around the
//     NaN test) and 40 registers (6 blocks per SM); it is a select now: 28 registers (7 blocks).
// Occupancy (sm_90, ptxas, tile 1024): uint8 -> float64 rgb2lab 32 registers / 29 KiB shared (7
// blocks per SM), rgb2hsv 32 / 31 KiB (6), rgb2hed 28 / 29 KiB (7), ycbcr 31 / 27 KiB (7), rgb2luv
// 46 (5: registers), rgb2gray 26 / 11 KiB (8); float32 rgb2lab 48 (5), rgb2hed 34 (6).
//
// tuning::ColorPolicy::grid overrides the grid choice (tests and sweeps). Swept on the H200 and
// removed: tiles of 512 / 2048 pixels where 1024 fit, the register cap (__launch_bounds__ min
// blocks = what the shared memory allows) and the shared-memory carveout moved nothing by more than
// 1 %; rgb2gray's uint8 table lost (0.066 against 0.051 ms); persistent grids of other sizes than
// one wave were not adopted.
//
// Bandwidth floor (H200, 4.2 TB/s), 4096^2 x 3 uint8 in (50.3 MB), 16,384 tiles of 1024 pixels:
//   rgb2lab / rgb2hsv / rgb2hed -> float64 x 3 (402.7 MB): 453 MB, floor 108 us, target 162 us.
//   rgb2gray -> float64 x 1 (134.2 MB): 185 MB, floor 44 us.
// Issued instructions per pixel (sm_90 SASS of the per-pixel loop): rgb2lab ~100, rgb2hsv ~60,
// rgb2hed ~36 (3 LDS.U8, 3 LDS.64 table reads, 9 FP64, 3 DSETP + 6 FSEL, 3 STS.64), rgb2gray ~28
// (3 LDS.U8, 3 DFMA conversions, DMUL + 2 DFMA, one STS.64, and 11 constant moves ptxas
// rematerialises; 5 shared-memory wavefronts per 32 pixels instead of ~15-20 with the table).
// Measured (H200, persistent wave for all): rgb2lab 141 us, rgb2hsv 138, rgb2hed 136,
// rgb2gray 66. Predicted with this policy: rgb2lab / rgb2hsv unchanged (141 / 138), rgb2hed
// 118-124 us (the one-tile kernel's 124 less the device log table it built per block), rgb2gray
// 46-51 us (the one-tile kernel's 51 with cheaper conversions).
// float32 input -> float32 output moves 12 + 12 bytes per pixel (403 MB, floor 96 us).
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuskimage/array.hpp"
#include "cuskimage/tuning.hpp"
#include "src/color/colorconv.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/indexer.hpp"

namespace cuskimage::color::detail {

inline constexpr int kPixThreads = 256;

/// Whether a tile of kTile pixels stages within 40 KiB (input + output).
template <class In, class T, int CI, int CO, int kTile>
inline constexpr bool kTileFits = (CI * sizeof(In) + CO * sizeof(T)) * kTile <= 40960;
/// The default pixels per tile: 1024 (4 per thread) unless the staging would pass 40 KiB.
template <class In, class T, int CI, int CO>
inline constexpr int kTilePix = kTileFits<In, T, CI, CO, 1024> ? 1024 : 512;

/// Number of 256-double tables an op reads for input type In (0: none).
template <class In, class OpT>
inline constexpr int kTables = std::is_same_v<In, std::uint8_t> ? OpT::u8_tables : 0;

/// The launch class of op OpT on input In (see "Launch policy" above).
template <class In, class OpT>
inline constexpr bool kLightOp =
    std::is_same_v<OpT, RgbToGrayOp> || std::is_same_v<OpT, LinearOp> || std::is_same_v<OpT, RgbaToRgbOp> ||
    (std::is_same_v<In, std::uint8_t> && (std::is_same_v<OpT, SeparateOp> || std::is_same_v<OpT, RgbToXyzOp>));

/// Whether op OpT from In runs persistent blocks by default (the only place it is chosen; the notes
/// above say why). H200 sweep (4096^2 uint8 -> float64, ms; persistent one wave / one tile per
/// block): rgb2lab 0.139 / 0.128, rgb2hsv 0.138 / 0.141, rgb2hed 0.132 / 0.121, rgb2gray 0.054 /
/// 0.051. So rgb2lab from uint8 runs one tile per block too; rgb2hsv and the other heavy ops keep
/// the wave.
template <class In, class OpT>
inline constexpr bool kPersistentByDefault =
    !(kLightOp<In, OpT> || (std::is_same_v<In, std::uint8_t> && std::is_same_v<OpT, RgbToLabOp>));

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

/// Contiguous channel-last pixels: block b converts tiles b, b + gridDim.x, ... of kTile pixels
/// (grid = tiles: one tile per block; a smaller grid: persistent blocks). Full tiles: the tile's
/// input is staged in shared memory from registers (loaded one tile ahead when the block has a next
/// tile: those loads fly while it converts the tile before), converted pixel by pixel into a staged
/// output, then written back with 16-byte stores that drain while the block moves on; fixed trip
/// counts, 32-bit shared offsets, two barriers per tile. The last, partial tile (one block) takes
/// bounded loops. The uint8 tables are copied to shared memory once per block.
/// No min blocks in __launch_bounds__: an explicit 1 lets ptxas take far more registers (rgb2lab 48,
/// rgb2hsv 43 instead of 32).
template <class In, class T, class OpT, int kTile>
__global__ void __launch_bounds__(kPixThreads)
    pixel_tile_kernel(const In* __restrict__ in, T* __restrict__ out, std::int64_t npix, OpT op,
                      const __grid_constant__ U8Tables<kTables<In, OpT>> tables) {
  constexpr int CI = OpT::cin, CO = OpT::cout, K = kTables<In, OpT>;
  constexpr int kInBytes = kTile * CI * static_cast<int>(sizeof(In));
  constexpr int kOutBytes = kTile * CO * static_cast<int>(sizeof(T));
  static_assert(kInBytes % 16 == 0 && kOutBytes % 16 == 0, "tiles are whole 16-byte vectors");
  static_assert(kTileFits<In, T, CI, CO, kTile>, "the staging fits 40 KiB");
  constexpr int kInVec = kInBytes / 16, kOutVec = kOutBytes / 16;
  constexpr int kInPer = (kInVec + kPixThreads - 1) / kPixThreads;
  constexpr int kOutPer = (kOutVec + kPixThreads - 1) / kPixThreads;
  __shared__ uint4 s_in[kInVec];
  __shared__ uint4 s_out[kOutVec];
  __shared__ double s_tab[K > 0 ? K * 256 : 1];
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
  // Light ops (one tile per block: every block copies the tables) issue their first loads before
  // the copy, so it runs under their latency; heavy ops copy first (persistent blocks copy once,
  // and ptxas gives rgb2lab 40 registers instead of 32 -- 6 blocks per SM instead of 7 -- when the
  // loads' registers live across the copy).
  constexpr bool kFetchFirst = kLightOp<In, OpT>;
  if (kFetchFirst && tile < nfull) fetch(tile);
  load_tables<K>(tables, s_tab);
  if (!kFetchFirst && tile < nfull) fetch(tile);
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

/// Launches the tile kernel: grid = tiles, or with `persistent` min(tiles, SMs x resident blocks
/// per SM). The first launch of an instantiation queries its occupancy.
template <class In, class T, class OpT>
void launch_tiles(const OpT& op, const In* ip, T* opp, std::int64_t npix, const U8Tables<kTables<In, OpT>>& tables,
                  bool persistent, cudaStream_t stream) {
  constexpr int kTile = kTilePix<In, T, OpT::cin, OpT::cout>;
  auto* kernel = pixel_tile_kernel<In, T, OpT, kTile>;
  static const int per_sm = [kernel] {
    int n = 0;
    CUSK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel, kPixThreads, 0));
    return n > 0 ? n : 1;
  }();
  std::int64_t grid = (npix + kTile - 1) / kTile;
  if (persistent) {
    int dev = 0, sms = 0;
    CUSK_CUDA_CHECK(cudaGetDevice(&dev));
    CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    grid = std::min<std::int64_t>(grid, std::int64_t(per_sm) * std::max(sms, 1));
  }
  grid = std::min<std::int64_t>(grid, 0x7fffffff);
  kernel<<<static_cast<unsigned>(grid), kPixThreads, 0, stream>>>(ip, opp, npix, op, tables);
}

/// Whether the tile kernel of op OpT from In runs persistent blocks under `grid`.
template <class In, class OpT>
bool persistent_tiles(tuning::ColorGrid grid) {
  if (grid == tuning::ColorGrid::automatic) return kPersistentByDefault<In, OpT>;
  return grid == tuning::ColorGrid::persistent;
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
    launch_tiles<In, T, OpT>(op, ip, opp, npix, tables, persistent_tiles<In, OpT>(tuning::color_policy().grid), stream);
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
