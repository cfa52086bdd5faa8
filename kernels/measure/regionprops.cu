// measure.regionprops on CUDA: every region measured together in batched passes over the label
// image, never a launch per region.
//
//   pass 1  (default) the warp-strip kernel of kernels/measure/regionprops_warp.cuh: each warp
//           walks strips of TH rows x 32 V columns (V = 8 for int32 labels, else 4), one or two
//           16-byte label loads per lane and row with the next row in flight; runs are found
//           and merged across lanes in registers (heads by shuffle, a segmented shuffle scan
//           carries a run's partial sums to the lane that holds its last pixel) and each
//           foreground run adds once to the warp's private shared-memory table (label keys,
//           32-bit strip-local fields, native shared atomics). At a strip's end each occupied
//           entry becomes one record (fused mode) or one set of global atomics (direct mode):
//           count, bbox (min as atomicMax of ~x, max as atomicMax of x + 1), integer coordinate
//           sums, and per channel the intensity sum, extremes (order-preserving integer keys of
//           the doubles) and sum I*x.
//           fused (default, <= 4 channels): no max-label pass; the kernel also reduces the max
//           label, the host reads it with the record count, sizes the slots (the labels up to
//           kDenseLimit; sparse: the sorted unique record labels) and records_kernel adds the
//           records. Records that overflow (capacity, a table without room) fall back to the
//           direct mode with the max already known.
//           direct: cub::DeviceReduce::Max, slots (sparse: sorted unique labels of the image),
//           the kernel with runs that find no room going straight to the global atomics.
//           CUSK_RP_PASS1=tile: the former 16 x 128 tile kernel below (one block per tile, the
//           tile staged in shared memory, 8 px per thread, a 256-entry table per block).
//   pack    flags -> exclusive scan -> row of each present label; one kernel gathers the rows
//           into two packed buffers (int64, double) that cross to the host in two copies
//           (regionprops; tables of pass-1 columns are built from the columns instead).
//   local   (euler_number, perimeter, perimeter_crofton only) one thread per 2x2(x2) window or
//           per pixel, adding scikit-image's configuration coefficients to the labels' rows.
//   pass 2  (moments / intensity_std only) the same run walk with per-row bbox origin and
//           centroids uploaded from pass 1: per run the sums of X^q and (X - c)^q along the row
//           (q <= 3), weighted per channel, expanded over the row's Y^p (Z^r) powers at the flush.
//
// Cost at the issue's case (8192^2 int32 labels of ~35% blobs, 145,316 regions, uint8
// intensity; area, centroid, bbox, intensity_mean): pass 1 reads 256 + 64 MiB, a floor of
// 0.08 ms at 4.2 TB/s (the direct mode's max pass reads the labels again: 0.144 ms). The blobs
// make ~3.5 M runs (~6.7 px) and 261 k (label, 32 x 256 strip) records (8.4 MB written and read
// back, 2.1 M global atomics). The former tile kernel measured 0.814 ms (434 GB/s): a shared
// fp64 atomicAdd is a CAS loop (ATOMS.CAST.SPIN.64) and its 16 threads per tile row, most of
// one label, contended on it; 48 registers and 20.8 KB per 256-thread block, each block a load
// phase then a compute phase. The warp kernel: ~150 instructions per 256-px row segment plus
// ~90 per run added (~2.5 rounds per segment) = ~105 M warp instructions, 80 registers (3
// blocks of 8 warps per SM, 1.3 KB of loads in flight per warp). Prediction: pass 1 0.13-0.2
// ms (issue-bound), 0.25-0.4 ms end to end (target 1.0 ms, stretch 0.5).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/measure/moments_math.hpp"
#include "src/measure/regionprops.hpp"
#include "src/measure/regionprops_luts.hpp"

namespace cuskimage::measure::detail {
namespace {

constexpr int kSeg = 32;          // pixels per thread along a row
constexpr int kMaxCh = 4;         // channels per launch (more: several launches)
constexpr std::int64_t kDenseLimit = std::int64_t(1) << 24;

// u64, dkey, SlotMap, Pass1Acc and the warp-strip pass 1 (also compiled by the CPU emulator test).
#include "kernels/measure/regionprops_warp.cuh"

/// Row geometry shared by both passes: rows of length W, row -> (z, y).
struct Rows {
  std::int64_t nrows, W, ny, segs;
  int nd;
};

// ---- pass 1, former kernel: 16 x 128 tiles combined in shared memory (CUSK_RP_PASS1=tile) ------
// Still the pass for images past the warp kernel's 32-bit strip geometry (strip_geo count 0);
// CUSK_RP_PASS1=tile forces it (1.01 ms against the warp strips' 0.33 at 8192^2 on the H200).
// One block per tile of one plane (grid-stride over tiles). The block stages the tile's labels
// (and, when small, its intensities) in shared memory with coalesced loads; each thread folds the
// runs of 8 consecutive pixels of one tile row in registers and adds each run into a per-block
// hash table keyed by slot (shared-memory atomics on tile-local 32-bit fields); at the end of the
// tile each occupied table entry is flushed with one set of global atomics. A run whose slot does
// not fit the table (more than kSlots labels in a tile, a probe sequence longer than kProbes, a
// slot index >= 2^31) is flushed straight to the global accumulators, so any label image is
// measured exactly.

constexpr int kTileH = 16, kTileW = 128, kChunk = 8;
constexpr int kTileThreads = kTileH * kTileW / kChunk;  // 256: 16 threads per tile row
constexpr int kRowPitch = kTileW + kTileW / 32;          // skewed rows: conflict-free chunk reads
constexpr int kTileElems = kTileH * kRowPitch;
constexpr int kSlots = kTileThreads;                     // thread i flushes table entry i
constexpr int kSlotBits = 8;
constexpr int kProbes = 16;
constexpr int kEmptyKey = -1;
constexpr int kStageBytes = 16 << 10;  // intensities staged in shared memory up to this size
static_assert(kSlots == 1 << kSlotBits);

/// Shared-memory index of tile pixel (r, x): rows of kRowPitch, one skip every 32 pixels, so the
/// 32 lanes of a warp reading pixel k of their chunks (x = 8 t + k, two rows) hit 32 banks.
__device__ __forceinline__ int tile_at(int r, int x) { return r * kRowPitch + x + (x >> 5); }

/// Tiles of the label image: planes of ny x nx (2-D: one plane), kTileH x kTileW each.
struct Tiles {
  std::int64_t nz, ny, nx, tx, ty, count;
  int nd;
};

/// Byte offsets of the block's shared arrays (-1: absent); `bytes` in all.
struct TileLayout {
  int key, u32, isum, imin, imax, wy, wx, inten, bytes;
};

/// What one run, or a table entry, adds to a slot: tile-local geometry (32-bit: a tile has 2048
/// pixels) and per channel sum I, sum I*y, sum I*x (global y, x) and the min / max keys.
template <int CH>
struct Part : Geom {
  double s[CH], wy[CH], wx[CH];
  u64 kmn[CH], kmx[CH];
};

/// Global atomics of one part (the old per-run flush): the geometry (geometry_atomics), per
/// channel the intensity sum, extremes and weighted sums.
template <int CH>
__device__ __forceinline__ void global_add(const Pass1Acc& acc, int nd, std::int64_t sl, const Part<CH>& p,
                                           std::int64_t z, std::int64_t y0, std::int64_t x0) {
  if (acc.geometry) geometry_atomics(acc, nd, sl, p, z, y0, x0);
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    if (c >= acc.cc) break;
    const std::int64_t k = sl * acc.nch + acc.c0 + c;
    if (acc.sum) atomicAdd(acc.isum + k, p.s[c]);
    if (acc.minmax) {
      atomicMax(acc.imin + k, ~p.kmn[c]);
      atomicMax(acc.imax + k, p.kmx[c]);
    }
    if (acc.weighted) {
      double* w = acc.iwsum + k * nd;
      if (nd == 3) atomicAdd(w, p.s[c] * static_cast<double>(z));
      atomicAdd(w + nd - 2, p.wy[c]);
      atomicAdd(w + nd - 1, p.wx[c]);
    }
  }
}

/// The block's table (pointers into dynamic shared memory).
template <int CH>
struct Table {
  int* key;
  unsigned *n, *ymin, *ymax, *xmin, *xmax, *ysum, *xsum;
  double *isum, *wy, *wx;  // [c * kSlots + i]
  u64 *imin, *imax;        // keys (imin: plain key, atomicMin)

  __device__ __forceinline__ void clear(int i, const Pass1Acc& acc) const {
    key[i] = kEmptyKey;
    n[i] = ymax[i] = xmax[i] = ysum[i] = xsum[i] = 0;
    ymin[i] = xmin[i] = 0xffffffffu;
    for (int c = 0; c < acc.cc; ++c) {
      if (isum) isum[c * kSlots + i] = 0;
      if (imin) {
        imin[c * kSlots + i] = ~0ull;
        imax[c * kSlots + i] = 0;
      }
      if (wy) wy[c * kSlots + i] = wx[c * kSlots + i] = 0;
    }
  }

  /// The entry of `k` (claimed when absent), or -1 when it has no room within kProbes.
  __device__ __forceinline__ int find(int k) const {
    const unsigned h = (static_cast<unsigned>(k) * 2654435761u) >> (32 - kSlotBits);
    for (int p = 0; p < kProbes; ++p) {
      const int i = static_cast<int>((h + p) & (kSlots - 1));
      int cur = reinterpret_cast<volatile int*>(key)[i];
      if (cur == kEmptyKey) cur = atomicCAS(key + i, kEmptyKey, k);
      if (cur == kEmptyKey || cur == k) return i;
    }
    return -1;
  }

  __device__ __forceinline__ void add(int i, const Part<CH>& p, const Pass1Acc& acc) const {
    if (acc.geometry) {
      atomicAdd(n + i, p.n);
      atomicMin(ymin + i, p.ymin);
      atomicMax(ymax + i, p.ymax);
      atomicMin(xmin + i, p.xmin);
      atomicMax(xmax + i, p.xmax);
      atomicAdd(ysum + i, p.ysum);
      atomicAdd(xsum + i, p.xsum);
    }
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      if (c >= acc.cc) break;
      if (isum) atomicAdd(isum + c * kSlots + i, p.s[c]);
      if (acc.minmax) {
        atomicMin(imin + c * kSlots + i, p.kmn[c]);
        atomicMax(imax + c * kSlots + i, p.kmx[c]);
      }
      if (acc.weighted) {
        atomicAdd(wy + c * kSlots + i, p.wy[c]);
        atomicAdd(wx + c * kSlots + i, p.wx[c]);
      }
    }
  }

  __device__ __forceinline__ Part<CH> part(int i, const Pass1Acc& acc) const {
    Part<CH> p;
    static_cast<Geom&>(p) = table_geom(*this, i);
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      const bool on = c < acc.cc;
      p.s[c] = on && isum ? isum[c * kSlots + i] : 0;
      p.kmn[c] = on && imin ? imin[c * kSlots + i] : 0;
      p.kmx[c] = on && imax ? imax[c * kSlots + i] : 0;
      p.wy[c] = on && wy ? wy[c * kSlots + i] : 0;
      p.wx[c] = on && wx ? wx[c * kSlots + i] : 0;
    }
    return p;
  }
};

__device__ __forceinline__ double warp_sum(double v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// Full-warp reductions of 32-bit fields (one REDUX on sm_80+, shuffles before).
template <int Op>  // 0 add, 1 min, 2 max
__device__ __forceinline__ unsigned warp_u32(unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (Op == 0) return __reduce_add_sync(0xffffffffu, v);
  if constexpr (Op == 1) return __reduce_min_sync(0xffffffffu, v);
  if constexpr (Op == 2) return __reduce_max_sync(0xffffffffu, v);
#else
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned w = __shfl_xor_sync(0xffffffffu, v, o);
    v = Op == 0 ? v + w : Op == 1 ? min(v, w) : max(v, w);
  }
  return v;
#endif
}

template <class L, class T, int CH>
__global__ void __launch_bounds__(kTileThreads) pass1_tile_kernel(const L* __restrict__ lab,
                                                                  const T* __restrict__ inten, Tiles tg, SlotMap map,
                                                                  Pass1Acc acc, TileLayout lay) {
  extern __shared__ __align__(16) unsigned char smem[];
  L* s_lab = reinterpret_cast<L*>(smem);
  Table<CH> tb;
  tb.key = reinterpret_cast<int*>(smem + lay.key);
  unsigned* u = reinterpret_cast<unsigned*>(smem + lay.u32);
  tb.n = u;
  tb.ymin = u + kSlots;
  tb.ymax = u + 2 * kSlots;
  tb.xmin = u + 3 * kSlots;
  tb.xmax = u + 4 * kSlots;
  tb.ysum = u + 5 * kSlots;
  tb.xsum = u + 6 * kSlots;
  tb.isum = lay.isum >= 0 ? reinterpret_cast<double*>(smem + lay.isum) : nullptr;
  tb.imin = lay.imin >= 0 ? reinterpret_cast<u64*>(smem + lay.imin) : nullptr;
  tb.imax = lay.imax >= 0 ? reinterpret_cast<u64*>(smem + lay.imax) : nullptr;
  tb.wy = lay.wy >= 0 ? reinterpret_cast<double*>(smem + lay.wy) : nullptr;
  tb.wx = lay.wx >= 0 ? reinterpret_cast<double*>(smem + lay.wx) : nullptr;
  T* s_int = lay.inten >= 0 ? reinterpret_cast<T*>(smem + lay.inten) : nullptr;

  const int tid = threadIdx.x, lane = tid & 31;
  const int r = tid / (kTileW / kChunk), cx = (tid % (kTileW / kChunk)) * kChunk;  // this thread's chunk
  const int nd = tg.nd, cc = acc.cc;
  tb.clear(tid, acc);

  for (std::int64_t t = blockIdx.x; t < tg.count; t += gridDim.x) {
    const std::int64_t bx = t % tg.tx, rest = t / tg.tx;
    const std::int64_t z = rest / tg.ty, y0 = (rest % tg.ty) * kTileH, x0 = bx * kTileW;
    const std::int64_t plane = z * tg.ny;
    // Stage the tile (pixels outside the image are background).
    for (int e = tid; e < kTileH * kTileW; e += kTileThreads) {
      const int rr = e / kTileW, xx = e % kTileW;
      const std::int64_t y = y0 + rr, x = x0 + xx;
      const bool in = y < tg.ny && x < tg.nx;
      const std::int64_t g = (plane + y) * tg.nx + x;
      s_lab[tile_at(rr, xx)] = in ? lab[g] : L(0);
      if (s_int && in)
        for (int c = 0; c < cc; ++c) s_int[c * kTileElems + tile_at(rr, xx)] = inten[g * acc.nch + acc.c0 + c];
    }
    __syncthreads();

    const std::int64_t y = y0 + r;
    const std::int64_t gx0 = (plane + y) * tg.nx + x0;  // global index of the tile row's first pixel
    std::int64_t cur = 0;
    int n = 0, xs = 0;
    double s[CH], wx[CH], mn[CH], mx[CH];
    auto reset = [&] {
      n = 0;
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        s[c] = 0;
        wx[c] = 0;
        mn[c] = __longlong_as_double(0x7ff0000000000000ll);
        mx[c] = -mn[c];
      }
    };
    auto make = [&](int xe) {
      Part<CH> p;
      p.n = static_cast<unsigned>(n);
      p.ymin = p.ymax = static_cast<unsigned>(r);
      p.xmin = static_cast<unsigned>(xs);
      p.xmax = static_cast<unsigned>(xe);
      p.ysum = static_cast<unsigned>(r * n);
      p.xsum = static_cast<unsigned>(n * xs + n * (n - 1) / 2);
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        p.s[c] = s[c];
        p.wy[c] = s[c] * static_cast<double>(y);
        p.wx[c] = wx[c];
        p.kmn[c] = dkey(mn[c]);
        p.kmx[c] = dkey(mx[c]);
      }
      return p;
    };
    auto emit = [&](std::int64_t sl, const Part<CH>& p) {
      const int i = sl < 0x7fffffff ? tb.find(static_cast<int>(sl)) : -1;
      if (i >= 0)
        tb.add(i, p, acc);
      else
        global_add(acc, nd, sl, p, z, y0, x0);
    };
    reset();
    for (int k = 0; k < kChunk; ++k) {
      const int x = cx + k;
      const std::int64_t l = static_cast<std::int64_t>(s_lab[tile_at(r, x)]);
      if (l != cur || n == 0) {
        if (n > 0) {
          const std::int64_t sl = map.slot(cur);
          if (sl >= 0) emit(sl, make(x - 1));
        }
        reset();
        cur = l;
        xs = x;
      }
      ++n;
      if (cc > 0 && l > 0) {
#pragma unroll
        for (int c = 0; c < CH; ++c) {
          if (c >= cc) break;
          const double d = static_cast<double>(s_int ? s_int[c * kTileElems + tile_at(r, x)]
                                                     : inten[(gx0 + x) * acc.nch + acc.c0 + c]);
          s[c] += d;
          wx[c] += d * static_cast<double>(x0 + x);
          mn[c] = fmin(mn[c], d);
          mx[c] = fmax(mx[c], d);
        }
      }
    }
    // The chunk's last run, every lane together: a warp whose 32 last runs are one region (the
    // inside of a large one) reduces them first and adds once.
    const std::int64_t sl = map.slot(cur);  // n > 0 here
    if (__match_any_sync(0xffffffffu, static_cast<long long>(sl)) == 0xffffffffu) {
      if (sl >= 0) {
        Part<CH> p = make(cx + kChunk - 1);
        constexpr unsigned full = 0xffffffffu;
        p.n = warp_u32<0>(p.n);
        p.ymin = warp_u32<1>(p.ymin);
        p.ymax = warp_u32<2>(p.ymax);
        p.xmin = warp_u32<1>(p.xmin);
        p.xmax = warp_u32<2>(p.xmax);
        p.ysum = warp_u32<0>(p.ysum);
        p.xsum = warp_u32<0>(p.xsum);
#pragma unroll
        for (int c = 0; c < CH; ++c) {
          if (c >= cc) break;
          p.s[c] = warp_sum(p.s[c]);
          p.wy[c] = warp_sum(p.wy[c]);
          p.wx[c] = warp_sum(p.wx[c]);
#pragma unroll
          for (int o = 16; o > 0; o >>= 1) {
            p.kmn[c] = min(p.kmn[c], __shfl_xor_sync(full, p.kmn[c], o));
            p.kmx[c] = max(p.kmx[c], __shfl_xor_sync(full, p.kmx[c], o));
          }
        }
        if (lane == 0) emit(sl, p);
      }
    } else if (sl >= 0) {
      emit(sl, make(cx + kChunk - 1));
    }
    __syncthreads();
    // Flush entry tid and clear it for the next tile (the next tile's runs start after its
    // staging barrier).
    const int key = tb.key[tid];
    if (key != kEmptyKey) {
      global_add(acc, nd, static_cast<std::int64_t>(key), tb.part(tid, acc), z, y0, x0);
      tb.clear(tid, acc);
    }
  }
}

/// The shared-memory layout of pass1_tile_kernel<L, T, *> for this launch.
TileLayout tile_layout(std::size_t lsize, std::size_t tsize, const Pass1Acc& a) {
  TileLayout t{};
  auto take = [&](std::size_t b) {
    const int at = t.bytes;
    t.bytes += static_cast<int>((b + 15) / 16 * 16);
    return at;
  };
  t.bytes = 0;
  take(kTileElems * lsize);  // labels at 0
  t.key = take(kSlots * sizeof(int));
  t.u32 = take(7 * kSlots * sizeof(unsigned));
  const std::size_t per = static_cast<std::size_t>(a.cc) * kSlots * 8;
  t.isum = (a.sum || a.weighted) && a.cc > 0 ? take(per) : -1;  // weighted: the 3-D z term
  t.imin = a.minmax && a.cc > 0 ? take(per) : -1;
  t.imax = a.minmax && a.cc > 0 ? take(per) : -1;
  t.wy = a.weighted && a.cc > 0 ? take(per) : -1;
  t.wx = a.weighted && a.cc > 0 ? take(per) : -1;
  const std::size_t stage = static_cast<std::size_t>(a.cc) * kTileElems * tsize;
  t.inten = a.cc > 0 && stage <= kStageBytes ? take(stage) : -1;
  return t;
}

struct Pass2Acc {
  const std::int64_t* lo;  // [n*nd]
  const double *cen, *wcen, *mean;
  double *m_raw, *m_cen, *wm_raw, *wm_cen, *sqdev;
  const double* sp;  // spacing [nd] (device)
  int nch, c0, cc;
  bool moments, weighted, sq;
};

__device__ __forceinline__ void pow4(double x, double* p) {
  p[0] = 1;
  p[1] = x;
  p[2] = x * x;
  p[3] = x * x * x;
}

/// Adds sum over (p_z, p_y, q) of Z^pz Y^py S[q] to m[k] (k in C order of the powers).
__device__ __forceinline__ void expand_add(double* m, int nd, const double* Z, const double* Y, const double* S) {
  if (nd == 2) {
#pragma unroll
    for (int p = 0; p < 4; ++p)
#pragma unroll
      for (int q = 0; q < 4; ++q) atomicAdd(m + p * 4 + q, Y[p] * S[q]);
  } else {
    for (int r = 0; r < 4; ++r)
#pragma unroll
      for (int p = 0; p < 4; ++p)
#pragma unroll
        for (int q = 0; q < 4; ++q) atomicAdd(m + (r * 4 + p) * 4 + q, Z[r] * Y[p] * S[q]);
  }
}

template <class L, class T>
__global__ void __launch_bounds__(256) pass2_kernel(const L* __restrict__ lab, const T* __restrict__ inten, Rows g,
                                                    SlotMap map, Pass2Acc acc) {
  const std::int64_t total = g.nrows * g.segs;
  const int nd = g.nd;
  const double spx = acc.sp[nd - 1];
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t row = t / g.segs;
    const std::int64_t x0 = (t % g.segs) * kSeg;
    const std::int64_t x1 = min(x0 + kSeg, g.W);
    const std::int64_t y = row % g.ny, z = row / g.ny;
    const L* p = lab + row * g.W;
    std::int64_t cur = 0, r = -1, n = 0;
    double lox = 0, cx = 0;
    double Sr[4], Sc[4], Wr[kMaxCh][4], Wc[kMaxCh][4], Q[kMaxCh], wcx[kMaxCh], mu[kMaxCh];
    auto reset = [&] {
      n = 0;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        Sr[q] = Sc[q] = 0;
#pragma unroll
        for (int c = 0; c < kMaxCh; ++c) Wr[c][q] = Wc[c][q] = 0;
      }
#pragma unroll
      for (int c = 0; c < kMaxCh; ++c) Q[c] = 0;
    };
    auto flush = [&] {
      if (n == 0 || r < 0) return;
      const std::int64_t* lo = acc.lo + r * nd;
      double Zr[4] = {1, 0, 0, 0}, Zc[4] = {1, 0, 0, 0}, Yr[4], Yc[4];
      const double yl = static_cast<double>((nd == 3 ? y : y) - lo[nd - 2]) * acc.sp[nd - 2];
      pow4(yl, Yr);
      pow4(yl - acc.cen[r * nd + nd - 2], Yc);
      double zl = 0;
      if (nd == 3) {
        zl = static_cast<double>(z - lo[0]) * acc.sp[0];
        pow4(zl, Zr);
        pow4(zl - acc.cen[r * nd], Zc);
      }
      const int M = nd == 2 ? 16 : 64;
      if (acc.moments) {
        expand_add(acc.m_raw + r * M, nd, Zr, Yr, Sr);
        expand_add(acc.m_cen + r * M, nd, Zc, Yc, Sc);
      }
#pragma unroll
      for (int c = 0; c < kMaxCh; ++c) {
        if (c >= acc.cc) break;
        const std::int64_t k = r * acc.nch + acc.c0 + c;
        if (acc.sq) atomicAdd(acc.sqdev + k, Q[c]);
        if (acc.weighted) {
          double Yw[4], Zw[4] = {1, 0, 0, 0};
          pow4(yl - acc.wcen[k * nd + nd - 2], Yw);
          if (nd == 3) pow4(zl - acc.wcen[k * nd], Zw);
          expand_add(acc.wm_raw + k * M, nd, Zr, Yr, Wr[c]);
          expand_add(acc.wm_cen + k * M, nd, Zw, Yw, Wc[c]);
        }
      }
    };
    reset();
    for (std::int64_t x = x0; x < x1; ++x) {
      const std::int64_t l = static_cast<std::int64_t>(p[x]);
      if (l != cur || n == 0) {
        flush();
        reset();
        cur = l;
        r = map.slot(l);
        if (r >= 0) {
          lox = static_cast<double>(acc.lo[r * nd + nd - 1]);
          cx = acc.cen[r * nd + nd - 1];
#pragma unroll
          for (int c = 0; c < kMaxCh; ++c) {
            if (c >= acc.cc) break;
            const std::int64_t k = r * acc.nch + acc.c0 + c;
            if (acc.weighted) wcx[c] = acc.wcen[k * nd + nd - 1];
            if (acc.sq) mu[c] = acc.mean[k];
          }
        }
      }
      ++n;
      if (r < 0) continue;
      const double X = (static_cast<double>(x) - lox) * spx;
      if (acc.moments) {
        const double Xc = X - cx;
        Sr[0] += 1;
        Sr[1] += X;
        Sr[2] += X * X;
        Sr[3] += X * X * X;
        Sc[0] += 1;
        Sc[1] += Xc;
        Sc[2] += Xc * Xc;
        Sc[3] += Xc * Xc * Xc;
      }
      if (acc.cc > 0) {
        const T* v = inten + (row * g.W + x) * acc.nch + acc.c0;
#pragma unroll
        for (int c = 0; c < kMaxCh; ++c) {
          if (c >= acc.cc) break;
          const double d = static_cast<double>(v[c]);
          if (acc.sq) Q[c] += (d - mu[c]) * (d - mu[c]);
          if (acc.weighted) {
            const double Xw = X - wcx[c];
            Wr[c][0] += d;
            Wr[c][1] += d * X;
            Wr[c][2] += d * X * X;
            Wr[c][3] += d * X * X * X;
            Wc[c][0] += d;
            Wc[c][1] += d * Xw;
            Wc[c][2] += d * Xw * Xw;
            Wc[c][3] += d * Xw * Xw * Xw;
          }
        }
      }
    }
    flush();
  }
}


// ---- local configurations: euler_number, perimeter_crofton, perimeter ---------------------------
// scikit-image measures these on each region's zero-padded crop; windows and neighbourhoods of the
// whole label image give the same counts per label (pixels outside a region's bbox never carry its
// label), so one pass serves every region. Only windows / border pixels with a non-zero
// coefficient add to a row.

__constant__ int c_euler2[16] = CUSK_EULER2D_8;
__constant__ int c_euler3[256] = CUSK_EULER3D_26;
__constant__ double c_crofton[16] = CUSK_CROFTON4;
__constant__ double c_perim[50] = CUSK_PERIMETER_WEIGHTS;

struct Vol {
  std::int64_t nz, ny, nx;
  int nd;
};

template <class L>
__device__ __forceinline__ std::int64_t lab_at(const L* __restrict__ lab, const Vol& v, std::int64_t z, std::int64_t y,
                                               std::int64_t x) {
  if (z < 0 || y < 0 || x < 0 || z >= v.nz || y >= v.ny || x >= v.nx) return 0;
  return static_cast<std::int64_t>(lab[(z * v.ny + y) * v.nx + x]);
}

/// One thread per 2x2 (2x2x2) window of the zero-extended image; bit k of a label's configuration
/// is scikit-image's convolution weight 2^k: (z, y, x), (z, y-1, x), (z, y, x-1), (z, y-1, x-1), then
/// the same at z-1.
template <class L>
__global__ void __launch_bounds__(256) windows_kernel(const L* __restrict__ lab, Vol v, SlotMap map,
                                                      double* __restrict__ euler, double* __restrict__ crofton) {
  const std::int64_t wx = v.nx + 1, wy = v.ny + 1, wz = v.nd == 3 ? v.nz + 1 : 1;
  const std::int64_t total = wz * wy * wx;
  const int np = v.nd == 3 ? 8 : 4;
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t x = t % wx, y = (t / wx) % wy, z = t / (wx * wy);
    std::int64_t p[8];
    p[0] = lab_at(lab, v, z, y, x);
    p[1] = lab_at(lab, v, z, y - 1, x);
    p[2] = lab_at(lab, v, z, y, x - 1);
    p[3] = lab_at(lab, v, z, y - 1, x - 1);
    if (np == 8) {
      p[4] = lab_at(lab, v, z - 1, y, x);
      p[5] = lab_at(lab, v, z - 1, y - 1, x);
      p[6] = lab_at(lab, v, z - 1, y, x - 1);
      p[7] = lab_at(lab, v, z - 1, y - 1, x - 1);
    }
    for (int k = 0; k < np; ++k) {
      const std::int64_t l = p[k];
      if (l <= 0) continue;
      bool seen = false;
      for (int j = 0; j < k; ++j) seen |= p[j] == l;
      if (seen) continue;
      int code = 0;
      for (int j = 0; j < np; ++j) code |= (p[j] == l) << j;
      const std::int64_t r = map.slot(l);
      if (r < 0) continue;
      if (euler) {
        const int e = np == 8 ? c_euler3[code] : c_euler2[code];
        if (e != 0) atomicAdd(euler + r, static_cast<double>(e));
      }
      if (crofton && np == 4) {
        const double c = c_crofton[code];
        if (c != 0) atomicAdd(crofton + r, c);
      }
    }
  }
}

/// One thread per pixel of a 2-D label image: border pixels (a 4-neighbour with another label)
/// weigh scikit-image's 3x3 convolution of the region's border image.
template <class L>
__global__ void __launch_bounds__(256) perimeter_kernel(const L* __restrict__ lab, Vol v, SlotMap map,
                                                        double* __restrict__ perim) {
  const std::int64_t total = v.ny * v.nx;
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total;
       t += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t x = t % v.nx, y = t / v.nx;
    const std::int64_t l = lab_at(lab, v, 0, y, x);
    if (l <= 0) continue;
    auto border = [&](std::int64_t yy, std::int64_t xx) -> int {
      if (lab_at(lab, v, 0, yy, xx) != l) return 0;
      return (lab_at(lab, v, 0, yy - 1, xx) != l || lab_at(lab, v, 0, yy + 1, xx) != l ||
              lab_at(lab, v, 0, yy, xx - 1) != l || lab_at(lab, v, 0, yy, xx + 1) != l)
                 ? 1
                 : 0;
    };
    if (!border(y, x)) continue;
    const int val = 1 + 2 * (border(y - 1, x) + border(y + 1, x) + border(y, x - 1) + border(y, x + 1)) +
                    10 * (border(y - 1, x - 1) + border(y - 1, x + 1) + border(y + 1, x - 1) + border(y + 1, x + 1));
    const double w = c_perim[val];
    if (w == 0) continue;
    const std::int64_t r = map.slot(l);
    if (r >= 0) atomicAdd(perim + r, w);
  }
}

__global__ void count_kernel(const std::int64_t* __restrict__ row_of, const std::int64_t* __restrict__ flags,
                             std::int64_t S, std::int64_t* __restrict__ n) {
  *n = row_of[S - 1] + flags[S - 1];
}

__global__ void flags_kernel(const u64* __restrict__ cnt, std::int64_t S, std::int64_t* __restrict__ flags) {
  const std::int64_t l = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (l < S) flags[l] = (l > 0 && cnt[l] > 0) ? 1 : 0;
}

/// Gathers present slots into packed rows: int64 (label, count, lo[nd], hi[nd], csum[nd]) and
/// double (isum[C], imin[C], imax[C], iwsum[C*nd]).
__global__ void pack_kernel(const u64* __restrict__ cnt, const u64* __restrict__ lo, const u64* __restrict__ hi,
                            const u64* __restrict__ csum, const double* __restrict__ isum,
                            const u64* __restrict__ imin, const u64* __restrict__ imax,
                            const double* __restrict__ iwsum, std::int64_t S, int nd, int C,
                            const std::int64_t* __restrict__ row_of, const std::int64_t* __restrict__ keys,
                            std::int64_t* __restrict__ pi, double* __restrict__ pd) {
  const std::int64_t l = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (l >= S || cnt[l] == 0 || (!keys && l == 0)) return;
  const std::int64_t r = row_of ? row_of[l] : l;
  const int ni = 2 + 3 * nd, ndb = C * (3 + nd);
  std::int64_t* o = pi + r * ni;
  o[0] = keys ? keys[l] : l;
  o[1] = static_cast<std::int64_t>(cnt[l]);
  for (int a = 0; a < nd; ++a) {
    o[2 + a] = static_cast<std::int64_t>(~lo[l * nd + a]);
    o[2 + nd + a] = static_cast<std::int64_t>(hi[l * nd + a]);
    o[2 + 2 * nd + a] = static_cast<std::int64_t>(csum[l * nd + a]);
  }
  if (C == 0) return;
  double* d = pd + r * ndb;
  for (int c = 0; c < C; ++c) {
    d[c] = isum ? isum[l * C + c] : 0.0;
    d[C + c] = imin ? dkey_inv(~imin[l * C + c]) : 0.0;
    d[2 * C + c] = imax ? dkey_inv(imax[l * C + c]) : 0.0;
    for (int a = 0; a < nd; ++a) d[3 * C + c * nd + a] = iwsum ? iwsum[(l * C + c) * nd + a] : 0.0;
  }
}

int blocks_for(std::int64_t n, int threads = 256) {
  return static_cast<int>(std::min<std::int64_t>((n + threads - 1) / threads, std::int64_t(1) << 20));
}

using cuskimage::detail::buf::ptr;
using cuskimage::detail::buf::scratch;
using cuskimage::detail::buf::upload;

Array dev_zeros(std::int64_t n, DType dt, Device dev, const Stream& s) {
  return Array::zeros({std::max<std::int64_t>(n, 1)}, dt, dev, s);
}

/// Pass 1's variants. TEMPORARY switches (environment variables read on every call) so that one
/// H200 run compares them; the GPU tests run every variant. Defaults are the prediction.
///   CUSK_RP_PASS1 = warp (default) | tile   the warp-strip kernel, or the 16 x 128 tile kernel
///   CUSK_RP_FUSE  = 1 (default) | 0         records + fused max label, or cub max first
///   CUSK_RP_TH    = strip rows (default: 32, halved down to 4 while the image has < 8192 strips)
///   CUSK_RP_Q     = table entries per warp, 32 | 64 | 128 (default: TH * TW / 64 within that)
///   CUSK_RP_V     = 8 (default) | 4         pixels per lane (8: int32 labels, uint8 / uint16 /
///                                           no intensity, sum-only tables; else 4)
///   CUSK_RP_WARPS = warps per block, 1-8 (default 4: 0.334 ms at 8192^2 on the H200 against
///                   0.355 with 8, 2026-12-01)
///   CUSK_RP_GRID  = 0 (default) | 1         the resident blocks walk all strips, or a block per
///                                           CUSK_RP_WARPS strips (the hardware balances)
///   CUSK_RP_RECCAP = record capacity (default max(65536, pixels / 32); tests force overflow)
struct Pass1Options {
  bool tile = false, fuse = true;
  int th = 0, q = 0, v = 8, warps = 4;
  bool grid_all = false;
  std::int64_t reccap = 0;
};

Pass1Options pass1_options() {
  auto num = [](const char* name, long long def) {
    const char* s = std::getenv(name);
    return s && *s ? std::atoll(s) : def;
  };
  Pass1Options o;
  const char* k = std::getenv("CUSK_RP_PASS1");
  o.tile = k && std::strcmp(k, "tile") == 0;
  o.fuse = num("CUSK_RP_FUSE", 1) != 0;
  o.th = static_cast<int>(std::clamp<long long>(num("CUSK_RP_TH", 0), 0, 128));
  o.q = static_cast<int>(num("CUSK_RP_Q", 0));
  o.v = num("CUSK_RP_V", 8) == 4 ? 4 : 8;
  o.warps = static_cast<int>(std::clamp<long long>(num("CUSK_RP_WARPS", 4), 1, 8));
  o.grid_all = num("CUSK_RP_GRID", 0) != 0;
  o.reccap = std::max<long long>(num("CUSK_RP_RECCAP", 0), 0);
  return o;
}

/// Pixels per lane of this launch's kernel instance (V = 8 is instantiated for the sum-only
/// tables of int32 labels with uint8 / uint16 intensity or none).
template <class L, class T>
int warp_v(const Pass1Options& o, const Pass1Acc& a) {
  const bool full = a.minmax || a.weighted;
  constexpr bool v8 = sizeof(L) == 4 && (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>);
  return (v8 && o.v == 8 && !full && a.cc <= 1) ? 8 : 4;
}

/// Strip geometry of the labels for V pixels per lane (count 0 past 32-bit axes / strips).
template <class L, class T>
StripGeo strip_geo(const Array& labels, const Array& intensity, int nch, int v, const Pass1Options& o) {
  const int nd = labels.ndim();
  StripGeo g = make_strip_geo(nd, nd == 3 ? labels.shape(0) : 1, labels.shape(nd - 2), labels.shape(nd - 1), v, o.th);
  auto aligned = [](const void* p, std::size_t b) { return reinterpret_cast<std::uintptr_t>(p) % b == 0; };
  g.lab_vec = g.nx % v == 0 && aligned(labels.data(), v * sizeof(L));
  g.int_vec = nch == 1 && g.nx % v == 0 && intensity.valid() && aligned(intensity.data(), v * sizeof(T));
  return g;
}

int sm_count(Device dev) {
  int n = 0;
  CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev.index()));
  return std::max(n, 1);
}

template <class L, class T, int V, int CH, bool FULL>
void launch_warp_inst(const L* lab, const T* in, const StripGeo& g, const SlotMap& map, const Pass1Acc& a,
                      const Records& rec, const Pass1Options& o, int sms, cudaStream_t s) {
  using Tr = ITraits<T>;
  const WarpLayout lay = warp_layout(warp_q(g, o.q), sizeof(L), sizeof(typename Tr::Sum), sizeof(typename Tr::Key), a);
  auto* kernel = pass1_warp_kernel<L, T, V, CH, FULL>;
  const int threads = 32 * o.warps;
  const int smem = lay.stride * o.warps;
  if (smem > 48 * 1024)
    CUSK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int per_sm = 0;
  CUSK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  const std::int64_t need = (g.count + o.warps - 1) / o.warps;
  const std::int64_t resident = static_cast<std::int64_t>(std::max(per_sm, 1)) * sms;
  const auto grid = static_cast<unsigned>(std::max<std::int64_t>(1, o.grid_all ? need : std::min(need, resident)));
  kernel<<<grid, threads, smem, s>>>(lab, in, g, map, a, lay, rec);
  CUSK_CUDA_CHECK(cudaGetLastError());
}

template <class L, class T>
void launch_warp(const L* lab, const T* in, const StripGeo& g, int v, const SlotMap& map, const Pass1Acc& a,
                 const Records& rec, const Pass1Options& o, int sms, cudaStream_t s) {
  const bool full = a.minmax || a.weighted;
  constexpr bool v8 = sizeof(L) == 4 && (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>);
  if (!full && a.cc <= 1) {
    if constexpr (v8)
      if (v == 8) return launch_warp_inst<L, T, 8, 1, false>(lab, in, g, map, a, rec, o, sms, s);
    return launch_warp_inst<L, T, 4, 1, false>(lab, in, g, map, a, rec, o, sms, s);
  }
  if (a.cc <= 1) return launch_warp_inst<L, T, 4, 1, true>(lab, in, g, map, a, rec, o, sms, s);
  launch_warp_inst<L, T, 4, kMaxCh, true>(lab, in, g, map, a, rec, o, sms, s);
}

template <class L, class T, int CH>
void launch_tile(const L* lab, const T* in, const Tiles& tg, const SlotMap& map, const Pass1Acc& a, cudaStream_t s) {
  const TileLayout lay = tile_layout(sizeof(L), sizeof(T), a);
  auto* kernel = pass1_tile_kernel<L, T, CH>;
  if (lay.bytes > 48 * 1024)
    CUSK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, lay.bytes));
  const auto grid = static_cast<unsigned>(std::min<std::int64_t>(tg.count, std::int64_t(1) << 20));
  kernel<<<grid, kTileThreads, lay.bytes, s>>>(lab, in, tg, map, a, lay);
  CUSK_CUDA_CHECK(cudaGetLastError());
}

/// Pass 1's per-slot accumulators on the device, and the rows of the present labels.
struct Pass1 {
  Rows g;
  SlotMap map;
  Array keys, cnt, lo, hi, csum, isum, imin, imax, iwsum, row_of;
  std::int64_t S = 0, n = 0;  // slots; present labels (rows)
};

/// uniq[0, nu) ascending, nu = info[0]: info[1] = the index of its first value > 0.
__global__ void first_positive_kernel(const std::int64_t* __restrict__ uniq, std::int64_t* __restrict__ info) {
  std::int64_t lo = 0, hi = info[0];
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) >> 1;
    if (uniq[mid] <= 0) lo = mid + 1; else hi = mid;
  }
  info[1] = lo;
}

/// The sorted unique values of `k` (int64, n of them; sorted in place), their count and the index
/// of the first one > 0 (one host read of both).
Array unique_sorted(Array& k, std::int64_t n, std::int64_t& nu, std::int64_t& first_positive, const Stream& stream) {
  const cudaStream_t s = stream.handle();
  const Device dev = k.device();
  Array buf = Array::empty({std::max<std::int64_t>(n, 1)}, DType::int64, dev, stream);
  cub::DoubleBuffer<std::int64_t> db(ptr<std::int64_t>(k), ptr<std::int64_t>(buf));
  std::size_t b2 = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, b2, db, n, 0, 64, s));
  Array t2 = scratch(b2, dev, stream);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(t2.data(), b2, db, n, 0, 64, s));
  Array uniq = Array::empty({std::max<std::int64_t>(n, 1)}, DType::int64, dev, stream);
  Array nuniq = Array::empty({2}, DType::int64, dev, stream);
  std::size_t b3 = 0;
  CUSK_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, b3, db.Current(), ptr<std::int64_t>(uniq), ptr<std::int64_t>(nuniq),
                                            n, s));
  Array t3 = scratch(b3, dev, stream);
  CUSK_CUDA_CHECK(cub::DeviceSelect::Unique(t3.data(), b3, db.Current(), ptr<std::int64_t>(uniq),
                                            ptr<std::int64_t>(nuniq), n, s));
  first_positive_kernel<<<1, 1, 0, s>>>(ptr<std::int64_t>(uniq), ptr<std::int64_t>(nuniq));
  CUSK_CUDA_CHECK(cudaGetLastError());
  const Array hn = nuniq.to(Device::cpu(), stream);  // waits for the copy, so for the kernels before it
  nu = hn.data<std::int64_t>()[0];
  first_positive = hn.data<std::int64_t>()[1];
  return uniq;
}

/// Pass 1: slots, accumulators, the kernel(s), and the rows of the present labels (two host reads
/// in all: the max label (with the fused max: the record count too) and the row count).
///   fused (default, <= 4 channels): the warp kernel writes one record per (label, strip) and the
///     max label; the host reads both, sizes the slots (dense: max + 1; sparse: the sorted unique
///     record labels) and records_kernel adds the records. A record overflow (more than the
///     capacity, or a run without room in its table) falls back to the direct pass with the max
///     already known.
///   direct: cub max (unless known), slots (sparse: sorted unique labels of the whole image), the
///     kernel with global atomics at each strip's flush (one launch per group of 4 channels).
template <class L, class T>
Pass1 run_pass1(const Array& labels, const Array& intensity, int nch, const StatsRequest& req, const Stream& stream) {
  Pass1 P;
  const cudaStream_t s = stream.handle();
  const Device dev = labels.device();
  const int nd = labels.ndim();
  const std::int64_t size = labels.size();
  const L* lab = static_cast<const L*>(labels.data());
  const T* in = nch > 0 ? static_cast<const T*>(intensity.data()) : nullptr;
  Rows& g = P.g;
  g.nd = nd;
  g.W = labels.shape(nd - 1);
  g.nrows = size / std::max<std::int64_t>(g.W, 1);
  g.ny = labels.shape(nd - 2);
  g.segs = (g.W + kSeg - 1) / kSeg;
  const Pass1Options opt = pass1_options();
  const int sms = sm_count(dev);

  const int C = nch;
  const bool want_sum = C > 0 && (req.intensity_sum || req.weighted_first || req.intensity_sqdev);
  const bool want_mm = C > 0 && req.intensity_minmax;
  const bool want_w = C > 0 && req.weighted_first;
  SlotMap& map = P.map;
  Array& keys = P.keys;
  std::int64_t& S = P.S;
  auto dense_ok = [&](std::int64_t maxl) { return maxl <= std::min(kDenseLimit, 4 * size + 1024); };
  // Sparse labels: the slots are the sorted unique labels of `sorted` (n int64 values) past the
  // `first` ones <= 0 that unique_sorted skips.
  auto sparse_slots = [&](Array& sorted, std::int64_t n) {
    std::int64_t nu = 0, first = 0;
    Array uniq = unique_sorted(sorted, n, nu, first, stream);
    S = nu - first;
    keys = uniq.slice({Slice{first, nu}});
    map.keys = ptr<std::int64_t>(keys);
    map.nkeys = S;
  };
  auto alloc_acc = [&] {
    P.cnt = dev_zeros(S, DType::uint64, dev, stream);
    P.lo = dev_zeros(S * nd, DType::uint64, dev, stream);
    P.hi = dev_zeros(S * nd, DType::uint64, dev, stream);
    P.csum = dev_zeros(S * nd, DType::uint64, dev, stream);
    if (want_sum) P.isum = dev_zeros(S * C, DType::float64, dev, stream);
    if (want_mm) {
      P.imin = dev_zeros(S * C, DType::uint64, dev, stream);
      P.imax = dev_zeros(S * C, DType::uint64, dev, stream);
    }
    if (want_w) P.iwsum = dev_zeros(S * C * nd, DType::float64, dev, stream);
  };
  auto acc_for = [&](int c0) {
    Pass1Acc a{};
    a.cnt = P.cnt.valid() ? ptr<u64>(P.cnt) : nullptr;
    a.lo = P.lo.valid() ? ptr<u64>(P.lo) : nullptr;
    a.hi = P.hi.valid() ? ptr<u64>(P.hi) : nullptr;
    a.csum = P.csum.valid() ? ptr<u64>(P.csum) : nullptr;
    a.isum = P.isum.valid() ? ptr<double>(P.isum) : nullptr;
    a.iwsum = P.iwsum.valid() ? ptr<double>(P.iwsum) : nullptr;
    a.imin = P.imin.valid() ? ptr<u64>(P.imin) : nullptr;
    a.imax = P.imax.valid() ? ptr<u64>(P.imax) : nullptr;
    a.nch = C;
    a.c0 = c0;
    a.cc = C > 0 ? std::min(kMaxCh, C - c0) : 0;
    a.geometry = c0 == 0;
    a.sum = want_sum;
    a.minmax = want_mm;
    a.weighted = want_w;
    if (!a.sum && !a.minmax && !a.weighted) a.cc = 0;
    return a;
  };

  std::int64_t maxl = -1;  // unknown
  bool done = false;
  if (!opt.tile && opt.fuse && C <= kMaxCh && size > 0) {
    const Pass1Acc a = acc_for(0);  // flags only: the accumulators come after the max
    const int v = warp_v<L, T>(opt, a);
    const StripGeo sg = strip_geo<L, T>(labels, intensity, nch, v, opt);
    if (sg.count > 0) {
      const std::int64_t cap = opt.reccap > 0 ? opt.reccap : std::max<std::int64_t>(65536, size / 32);
      const int cc = a.cc;
      // One allocation: labels, five u32 fields, then the channels' doubles.
      std::int64_t bytes = 0;
      auto take = [&](std::int64_t b) {
        const std::int64_t at = bytes;
        bytes += (b + 255) / 256 * 256;
        return at;
      };
      const std::int64_t o_lab = take(cap * static_cast<std::int64_t>(sizeof(L)));
      std::int64_t o_u[5];
      for (auto& x : o_u) x = take(cap * 4);
      const std::int64_t per = cap * cc * 8;
      const std::int64_t o_s = (a.sum || a.weighted) && cc > 0 ? take(per) : -1;
      const std::int64_t o_mn = a.minmax && cc > 0 ? take(per) : -1, o_mx = a.minmax && cc > 0 ? take(per) : -1;
      const std::int64_t o_wy = a.weighted && cc > 0 ? take(per) : -1, o_wx = a.weighted && cc > 0 ? take(per) : -1;
      Array rbuf = Array::empty({bytes}, DType::uint8, dev, stream);
      Array ctr = Array::zeros({4}, DType::uint64, dev, stream);
      auto* b = static_cast<unsigned char*>(rbuf.data());
      Records rec;
      rec.on = true;
      rec.ctr = ptr<u64>(ctr);
      rec.cap = cap;
      rec.label = b + o_lab;
      rec.strip = reinterpret_cast<unsigned*>(b + o_u[0]);
      rec.n = reinterpret_cast<unsigned*>(b + o_u[1]);
      rec.box = reinterpret_cast<unsigned*>(b + o_u[2]);
      rec.ysum = reinterpret_cast<unsigned*>(b + o_u[3]);
      rec.xsum = reinterpret_cast<unsigned*>(b + o_u[4]);
      auto dptr = [&](std::int64_t o) { return o >= 0 ? reinterpret_cast<double*>(b + o) : nullptr; };
      rec.s = dptr(o_s);
      rec.mn = dptr(o_mn);
      rec.mx = dptr(o_mx);
      rec.wy = dptr(o_wy);
      rec.wx = dptr(o_wx);
      launch_warp<L, T>(lab, in, sg, v, SlotMap{}, a, rec, opt, sms, s);
      const Array hc = ctr.to(Device::cpu(), stream);
      const auto* c = static_cast<const u64*>(hc.data());
      const auto nrec = static_cast<std::int64_t>(c[0]);
      maxl = std::max<std::int64_t>(0, static_cast<std::int64_t>(c[2]));
      if (c[1] == 0 && nrec <= cap) {
        if (dense_ok(maxl) || nrec == 0) {
          map.max_label = maxl;
          S = maxl + 1;
        } else {
          // Sparse labels: the sorted unique record labels (records hold labels > 0 only).
          Array k64 = Array::empty({std::max<std::int64_t>(nrec, 1)}, DType::int64, dev, stream);
          widen_kernel<L><<<blocks_for(nrec), 256, 0, s>>>(static_cast<const L*>(rec.label), nrec, ptr<std::int64_t>(k64));
          CUSK_CUDA_CHECK(cudaGetLastError());
          sparse_slots(k64, nrec);
        }
        alloc_acc();
        const Pass1Acc fa = acc_for(0);
        if (nrec > 0) {
          if (fa.cc <= 1)
            records_kernel<L, 1><<<blocks_for(nrec), 256, 0, s>>>(rec, nrec, sg, map, fa);
          else
            records_kernel<L, kMaxCh><<<blocks_for(nrec), 256, 0, s>>>(rec, nrec, sg, map, fa);
          CUSK_CUDA_CHECK(cudaGetLastError());
        }
        done = true;
      }
    }
  }

  if (!done) {
    if (maxl < 0) {
      // Max label: sizes a dense table, else the sparse path sorts the labels.
      Array maxv = Array::empty({1}, dtype_v<L>, dev, stream);
      std::size_t bytes = 0;
      CUSK_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, bytes, lab, ptr<L>(maxv), size, s));
      Array temp = scratch(bytes, dev, stream);
      CUSK_CUDA_CHECK(cub::DeviceReduce::Max(temp.data(), bytes, lab, ptr<L>(maxv), size, s));
      const Array hmax = maxv.to(Device::cpu(), stream);
      maxl = std::max<std::int64_t>(0, static_cast<std::int64_t>(hmax.data<L>()[0]));
    }
    map = SlotMap{};
    keys = Array();
    if (dense_ok(maxl)) {
      map.max_label = maxl;
      S = maxl + 1;
    } else {
      // Sparse labels: the sorted unique positive labels are the slots.
      Array sorted = labels.astype(DType::int64, stream);  // copy, sorted in place
      sparse_slots(sorted, size);
    }
    alloc_acc();

    Tiles tg{};
    tg.nd = nd;
    tg.nz = nd == 3 ? labels.shape(0) : 1;
    tg.ny = labels.shape(nd - 2);
    tg.nx = labels.shape(nd - 1);
    tg.tx = (tg.nx + kTileW - 1) / kTileW;
    tg.ty = (tg.ny + kTileH - 1) / kTileH;
    tg.count = tg.nz * tg.ty * tg.tx;
    for (int c0 = 0; c0 < std::max(C, 1); c0 += kMaxCh) {
      const Pass1Acc a = acc_for(c0);
      if (!a.geometry && a.cc == 0) continue;
      if (tg.count == 0) continue;
      const int v = warp_v<L, T>(opt, a);
      const StripGeo sg = opt.tile ? StripGeo{} : strip_geo<L, T>(labels, intensity, nch, v, opt);
      if (sg.count == 0) {  // the tile kernel: asked for, or past the warp kernel's 32-bit strips
        if (a.cc <= 1)
          launch_tile<L, T, 1>(lab, in, tg, map, a, s);
        else
          launch_tile<L, T, kMaxCh>(lab, in, tg, map, a, s);
      } else {
        launch_warp<L, T>(lab, in, sg, v, map, a, Records{}, opt, sms, s);
      }
    }
  }

  // Rows of the present labels, in increasing label order.
  std::int64_t& n = P.n;
  n = S;
  Array& row_of = P.row_of;
  if (!map.keys) {
    Array flags = Array::empty({S}, DType::int64, dev, stream);
    row_of = Array::empty({S}, DType::int64, dev, stream);
    flags_kernel<<<blocks_for(S), 256, 0, s>>>(ptr<u64>(P.cnt), S, ptr<std::int64_t>(flags));
    CUSK_CUDA_CHECK(cudaGetLastError());
    std::size_t b4 = 0;
    CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, b4, ptr<std::int64_t>(flags), ptr<std::int64_t>(row_of), S, s));
    Array t4 = scratch(b4, dev, stream);
    CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(t4.data(), b4, ptr<std::int64_t>(flags), ptr<std::int64_t>(row_of), S, s));
    Array count = Array::empty({1}, DType::int64, dev, stream);
    count_kernel<<<1, 1, 0, s>>>(ptr<std::int64_t>(row_of), ptr<std::int64_t>(flags), S, ptr<std::int64_t>(count));
    CUSK_CUDA_CHECK(cudaGetLastError());
    const Array hc = count.to(Device::cpu(), stream);
    n = hc.data<std::int64_t>()[0];
  }
  return P;
}

template <class L, class T>
void run_stats(const Array& labels, const Array& intensity, int nch, const std::vector<double>& spacing,
               const StatsRequest& req, RegionStats& st, const Stream& stream) {
  const cudaStream_t s = stream.handle();
  const Device dev = labels.device();
  const int nd = labels.ndim();
  const L* lab = static_cast<const L*>(labels.data());
  const T* in = nch > 0 ? static_cast<const T*>(intensity.data()) : nullptr;
  Pass1 p1 = run_pass1<L, T>(labels, intensity, nch, req, stream);
  const Rows& g = p1.g;
  const SlotMap& map = p1.map;
  const std::int64_t S = p1.S, n = p1.n;
  const int C = nch;
  const int grid = blocks_for(g.nrows * g.segs);
  Array &cnt = p1.cnt, &lo = p1.lo, &hi = p1.hi, &csum = p1.csum, &isum = p1.isum, &imin = p1.imin,
        &imax = p1.imax, &iwsum = p1.iwsum, &row_of = p1.row_of;
  // One packed buffer (int64 rows, then the double rows bit for bit) crosses in one copy.
  const int ni = 2 + 3 * nd, ndb = C * (3 + nd);
  Array packed = Array::empty({std::max<std::int64_t>(n * (ni + ndb), 1)}, DType::int64, dev, stream);
  if (S > 0) {
    pack_kernel<<<blocks_for(S), 256, 0, s>>>(
        ptr<u64>(cnt), ptr<u64>(lo), ptr<u64>(hi), ptr<u64>(csum), isum.valid() ? ptr<double>(isum) : nullptr,
        imin.valid() ? ptr<u64>(imin) : nullptr, imax.valid() ? ptr<u64>(imax) : nullptr,
        iwsum.valid() ? ptr<double>(iwsum) : nullptr, S, nd, C, row_of.valid() ? ptr<std::int64_t>(row_of) : nullptr,
        map.keys, ptr<std::int64_t>(packed), reinterpret_cast<double*>(ptr<std::int64_t>(packed) + n * ni));
    CUSK_CUDA_CHECK(cudaGetLastError());
  }
  const Array hpacked = packed.to(Device::cpu(), stream);

  st = RegionStats{};
  st.ndim = nd;
  st.nch = C;
  st.n = n;
  st.label.resize(n);
  st.count.resize(n);
  st.lo.resize(n * nd);
  st.hi.resize(n * nd);
  st.coord_sum.resize(n * nd);
  const std::int64_t* P = hpacked.data<std::int64_t>();
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t* o = P + r * ni;
    st.label[r] = o[0];
    st.count[r] = o[1];
    for (int a = 0; a < nd; ++a) {
      st.lo[r * nd + a] = o[2 + a];
      st.hi[r * nd + a] = o[2 + nd + a];
      st.coord_sum[r * nd + a] = static_cast<double>(o[2 + 2 * nd + a]);
    }
  }
  if (C > 0) {
    st.isum.resize(n * C);
    st.imin.resize(n * C);
    st.imax.resize(n * C);
    st.iwsum.resize(n * C * nd);
    const double* D = reinterpret_cast<const double*>(P + n * ni);
    for (std::int64_t r = 0; r < n; ++r) {
      const double* d = D + r * ndb;
      for (int c = 0; c < C; ++c) {
        st.isum[r * C + c] = d[c];
        st.imin[r * C + c] = d[C + c];
        st.imax[r * C + c] = d[2 * C + c];
        for (int a = 0; a < nd; ++a) st.iwsum[(r * C + c) * nd + a] = d[3 * C + c * nd + a];
      }
    }
  }
  auto fetch = [&](const Array& a, std::vector<double>& v, std::int64_t len) {
    if (!a.valid()) return;
    const Array h = a.to(Device::cpu(), stream);
    v.assign(h.data<double>(), h.data<double>() + len);
  };
  SlotMap map2 = map;
  if (!map.keys) map2.row_of = row_of.valid() ? ptr<std::int64_t>(row_of) : nullptr;

  if (req.any_local() && n > 0) {
    const Vol v{nd == 3 ? labels.shape(0) : 1, labels.shape(nd - 2), labels.shape(nd - 1), nd};
    Array eu, cr, pe;
    if (req.euler) eu = dev_zeros(n, DType::float64, dev, stream);
    if (req.crofton && nd == 2) cr = dev_zeros(n, DType::float64, dev, stream);
    if (req.perimeter && nd == 2) pe = dev_zeros(n, DType::float64, dev, stream);
    if (eu.valid() || cr.valid()) {
      const std::int64_t windows = (nd == 3 ? v.nz + 1 : 1) * (v.ny + 1) * (v.nx + 1);
      windows_kernel<L><<<blocks_for(windows), 256, 0, s>>>(lab, v, map2, eu.valid() ? ptr<double>(eu) : nullptr,
                                                            cr.valid() ? ptr<double>(cr) : nullptr);
      CUSK_CUDA_CHECK(cudaGetLastError());
    }
    if (pe.valid()) {
      perimeter_kernel<L><<<blocks_for(v.ny * v.nx), 256, 0, s>>>(lab, v, map2, ptr<double>(pe));
      CUSK_CUDA_CHECK(cudaGetLastError());
    }
    fetch(eu, st.euler, n);
    fetch(cr, st.crofton, n);
    fetch(pe, st.perimeter, n);
  }
  if (!req.any_pass2() || n == 0) return;

  // Pass 2: moments and squared deviations about pass 1's centroids and means.
  const Pass2Params p2 = pass2_params(st, spacing);
  const int M = st.monomials();
  Array d_lo = upload(p2.lo, dev, stream), d_cen = upload(p2.cen, dev, stream);
  Array d_wcen = upload(p2.wcen, dev, stream), d_mean = upload(p2.mean, dev, stream);
  Array d_sp = upload(spacing, dev, stream);
  Array m_raw, m_cen, wm_raw, wm_cen, sq;
  if (req.moments) {
    m_raw = dev_zeros(n * M, DType::float64, dev, stream);
    m_cen = dev_zeros(n * M, DType::float64, dev, stream);
  }
  const bool weighted = req.weighted_moments && C > 0, sqd = req.intensity_sqdev && C > 0;
  if (weighted) {
    wm_raw = dev_zeros(n * C * M, DType::float64, dev, stream);
    wm_cen = dev_zeros(n * C * M, DType::float64, dev, stream);
  }
  if (sqd) sq = dev_zeros(n * C, DType::float64, dev, stream);
  for (int c0 = 0; c0 < std::max(C, 1); c0 += kMaxCh) {
    Pass2Acc a{};
    a.lo = ptr<std::int64_t>(d_lo);
    a.cen = ptr<double>(d_cen);
    a.wcen = ptr<double>(d_wcen);
    a.mean = ptr<double>(d_mean);
    a.m_raw = m_raw.valid() ? ptr<double>(m_raw) : nullptr;
    a.m_cen = m_cen.valid() ? ptr<double>(m_cen) : nullptr;
    a.wm_raw = weighted ? ptr<double>(wm_raw) : nullptr;
    a.wm_cen = weighted ? ptr<double>(wm_cen) : nullptr;
    a.sqdev = sqd ? ptr<double>(sq) : nullptr;
    a.sp = ptr<double>(d_sp);
    a.nch = C;
    a.c0 = c0;
    a.moments = req.moments && c0 == 0;
    a.weighted = weighted;
    a.sq = sqd;
    a.cc = (weighted || sqd) ? std::min(kMaxCh, C - c0) : 0;
    if (!a.moments && a.cc == 0) continue;
    pass2_kernel<L, T><<<grid, 256, 0, s>>>(lab, in, g, map2, a);
    CUSK_CUDA_CHECK(cudaGetLastError());
  }
  fetch(m_raw, st.m_raw, n * M);
  fetch(m_cen, st.m_cen, n * M);
  fetch(wm_raw, st.wm_raw, n * C * M);
  fetch(wm_cen, st.wm_cen, n * C * M);
  fetch(sq, st.isqdev, n * C);
}

// ---- columns left on the device (regionprops_table_device) ------------------------------------

constexpr int kMaxCols = 48;
struct ColParams {
  DeviceColumnSpec c[kMaxCols];
  void* out[kMaxCols];
  int ncols, nd, C;
  double sp[3], off[3], pixel_area;
};

/// One thread per slot: the present label's row of every requested column.
__global__ void columns_kernel(const u64* __restrict__ cnt, const u64* __restrict__ lo, const u64* __restrict__ hi,
                               const u64* __restrict__ csum, const double* __restrict__ isum,
                               const u64* __restrict__ imin, const u64* __restrict__ imax, std::int64_t S,
                               const std::int64_t* __restrict__ row_of, const std::int64_t* __restrict__ keys,
                               ColParams p) {
  const std::int64_t l = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (l >= S || cnt[l] == 0 || (!keys && l == 0)) return;
  const std::int64_t r = row_of ? row_of[l] : l;
  const double count = static_cast<double>(cnt[l]);
  const int nd = p.nd, C = p.C;
  for (int j = 0; j < p.ncols; ++j) {
    const int i = p.c[j].index;
    double v = 0;
    std::int64_t iv = 0;
    switch (p.c[j].kind) {
      case kColLabel: iv = keys ? keys[l] : l; v = static_cast<double>(iv); break;
      case kColArea: v = count * p.pixel_area; iv = static_cast<std::int64_t>(v); break;
      case kColNumPixels: iv = static_cast<std::int64_t>(cnt[l]); v = count; break;
      case kColBboxLo: iv = static_cast<std::int64_t>(~lo[l * nd + i]); v = static_cast<double>(iv); break;
      case kColBboxHi: iv = static_cast<std::int64_t>(hi[l * nd + i]); v = static_cast<double>(iv); break;
      case kColCentroid: v = static_cast<double>(csum[l * nd + i]) / count * p.sp[i] + p.off[i]; break;
      case kColCentroidLocal:
        v = (static_cast<double>(csum[l * nd + i]) / count - static_cast<double>(~lo[l * nd + i])) * p.sp[i];
        break;
      case kColIntensityMean: v = isum[l * C + i] / count; break;
      case kColIntensityMin: v = dkey_inv(~imin[l * C + i]); break;
      case kColIntensityMax: v = dkey_inv(imax[l * C + i]); break;
      default: break;
    }
    if (p.c[j].integer)
      static_cast<std::int64_t*>(p.out[j])[r] = iv;
    else
      static_cast<double*>(p.out[j])[r] = v;
  }
}

template <class L, class T>
std::vector<Array> run_columns(const Array& labels, const Array& intensity, int nch, const std::vector<double>& spacing,
                               const std::vector<std::int64_t>& offset, const std::vector<DeviceColumnSpec>& specs,
                               const Stream& stream) {
  StatsRequest req;
  for (const auto& c : specs) {
    req.intensity_sum |= c.kind == kColIntensityMean;
    req.intensity_minmax |= c.kind == kColIntensityMin || c.kind == kColIntensityMax;
  }
  Pass1 p1 = run_pass1<L, T>(labels, intensity, nch, req, stream);
  const Device dev = labels.device();
  std::vector<Array> out;
  for (const auto& c : specs) out.push_back(Array::empty({p1.n}, c.integer ? DType::int64 : DType::float64, dev, stream));
  ColParams p{};
  p.nd = labels.ndim();
  p.C = nch;
  p.pixel_area = 1;
  for (int a = 0; a < p.nd; ++a) {
    p.sp[a] = spacing[static_cast<std::size_t>(a)];
    p.off[a] = static_cast<double>(offset[static_cast<std::size_t>(a)]);
    p.pixel_area *= p.sp[a];
  }
  for (std::size_t j0 = 0; j0 < specs.size() && p1.n > 0; j0 += kMaxCols) {
    p.ncols = static_cast<int>(std::min<std::size_t>(kMaxCols, specs.size() - j0));
    for (int j = 0; j < p.ncols; ++j) {
      p.c[j] = specs[j0 + static_cast<std::size_t>(j)];
      p.out[j] = out[j0 + static_cast<std::size_t>(j)].data();
    }
    columns_kernel<<<blocks_for(p1.S), 256, 0, stream.handle()>>>(
        ptr<u64>(p1.cnt), ptr<u64>(p1.lo), ptr<u64>(p1.hi), ptr<u64>(p1.csum),
        p1.isum.valid() ? ptr<double>(p1.isum) : nullptr, p1.imin.valid() ? ptr<u64>(p1.imin) : nullptr,
        p1.imax.valid() ? ptr<u64>(p1.imax) : nullptr, p1.S, p1.row_of.valid() ? ptr<std::int64_t>(p1.row_of) : nullptr,
        p1.map.keys, p);
    CUSK_CUDA_CHECK(cudaGetLastError());
  }
  // The accumulators are freed on the stream (stream-ordered pool): no synchronisation needed.
  return out;
}

// ---- per-region crops -----------------------------------------------------------------------------

struct Geo4 {
  std::int64_t shape[4];
  std::int64_t stride[4];
};

Geo4 geo_of(const Array& a) {
  Geo4 g{};
  const int pad = 4 - a.ndim();
  for (int k = 0; k < 4; ++k) {
    g.shape[k] = k < pad ? 1 : a.shape(k - pad);
    g.stride[k] = k < pad ? 0 : a.strides()[k - pad];
  }
  return g;
}

template <class L>
__global__ void mask_kernel(const L* __restrict__ in, Geo4 g, std::int64_t label, std::int64_t n, bool* __restrict__ out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::int64_t r = i, off = 0;
  for (int k = 3; k >= 0; --k) {
    off += (r % g.shape[k]) * g.stride[k];
    r /= g.shape[k];
  }
  out[i] = static_cast<std::int64_t>(in[off]) == label;
}

template <class T>
__global__ void masked_kernel(const T* __restrict__ in, Geo4 g, const bool* __restrict__ mask, std::int64_t per_mask,
                              std::int64_t n, T* __restrict__ out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::int64_t r = i, off = 0;
  for (int k = 3; k >= 0; --k) {
    off += (r % g.shape[k]) * g.stride[k];
    r /= g.shape[k];
  }
  out[i] = mask[i / per_mask] ? in[off] : T(0);
}

}  // namespace

void cuda_region_stats(const Array& labels, const Array& intensity, int nch, const std::vector<double>& spacing,
                       const StatsRequest& req, RegionStats& stats, cudaStream_t handle) {
  const Stream stream(handle);
  auto with_labels = [&]<class T>() {
    if (labels.dtype() == DType::int32)
      run_stats<std::int32_t, T>(labels, intensity, nch, spacing, req, stats, stream);
    else
      run_stats<std::int64_t, T>(labels, intensity, nch, spacing, req, stats, stream);
  };
  if (nch == 0) {
    with_labels.template operator()<std::uint8_t>();
    return;
  }
  cuskimage::detail::dispatch<cuskimage::detail::Types<std::uint8_t, std::uint16_t, float, double>>(
      intensity.dtype(), "measure.regionprops", with_labels);
}

std::vector<Array> cuda_region_columns(const Array& labels, const Array& intensity, int nch,
                                       const std::vector<double>& spacing, const std::vector<std::int64_t>& offset,
                                       const std::vector<DeviceColumnSpec>& specs, cudaStream_t handle) {
  const Stream stream(handle);
  std::vector<Array> out;
  auto with_labels = [&]<class T>() {
    if (labels.dtype() == DType::int32)
      out = run_columns<std::int32_t, T>(labels, intensity, nch, spacing, offset, specs, stream);
    else
      out = run_columns<std::int64_t, T>(labels, intensity, nch, spacing, offset, specs, stream);
  };
  if (nch == 0)
    with_labels.template operator()<std::uint8_t>();
  else
    cuskimage::detail::dispatch<cuskimage::detail::Types<std::uint8_t, std::uint16_t, float, double>>(
        intensity.dtype(), "measure.regionprops_table_device", with_labels);
  return out;
}

void cuda_region_mask(const Array& label_crop, std::int64_t label, Array& out, cudaStream_t s) {
  const std::int64_t n = out.size();
  if (n == 0) return;
  cuskimage::detail::dispatch<cuskimage::detail::IntegerTypes>(label_crop.dtype(), "measure.regionprops", [&]<class L>() {
    mask_kernel<L><<<blocks_for(n), 256, 0, s>>>(static_cast<const L*>(label_crop.data()), geo_of(label_crop), label, n,
                                                 static_cast<bool*>(out.data()));
  });
  CUSK_CUDA_CHECK(cudaGetLastError());
}

void cuda_masked_intensity(const Array& crop, const Array& mask, Array& out, cudaStream_t s) {
  const std::int64_t n = out.size();
  if (n == 0) return;
  const std::int64_t per = n / std::max<std::int64_t>(mask.size(), 1);
  cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(crop.dtype(), "measure.regionprops", [&]<class T>() {
    masked_kernel<T><<<blocks_for(n), 256, 0, s>>>(static_cast<const T*>(crop.data()), geo_of(crop),
                                                   static_cast<const bool*>(mask.data()), per, n,
                                                   static_cast<T*>(out.data()));
  });
  CUSK_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuskimage::measure::detail
