// CUDA backend of skimage.transform._warps: _warp_fast, the homogeneous coordinate map of the
// map_coordinates path, and _clip_warp_output kept on the device (min/max as order-preserving
// uint64 keys folded with atomics; the clip limits decided by the kernels from those keys).
//
// _warp_fast, 8192^2 float32, affine, order 1 (clip=True, cval 0 below the image's minimum, so cval
// may widen the clip range: the bench's case): the floor is the warp's read and write (8 B/px) plus
// the clip's min/max read of the input (4 B/px): 12 B x 67 M = 805 MB -> 0.19 ms at 4.2 TB/s.
//   Was 1.65 ms (order 3: 2.07 ms, only 25% more for 4x the taps: a fixed cost dominated). The one
//   thread per pixel kernel folded the output's range per 256-pixel block (a 64-bit block reduction
//   and three same-address atomics per block: ~786 K atomics serialised on one L2 slice), read the
//   clip state per thread before its first load, and ran the generic interpolators (floor, ceil,
//   saturation, four float <-> int conversions and a mode test per tap); then clip_kernel read and
//   wrote the whole output again (+8 B/px).
//   Now (WarpKernel::tiles): 32 x 32 tiles (32 x 16 for order 3), 4 (2) rows per thread with all
//   their taps' loads issued together; interior samples (all taps inside the image) take plain loads
//   and index arithmetic by FP adds (interior_value: the same bits as bilinear_t / bicubic_t); the
//   clip's bookkeeping where cval may widen the range is three flag bits (some value <= cval, some
//   >= cval, a NaN) set once per block only when not already set, plus a list of the tiles holding a
//   value outside the input's range that is neither cval nor NaN (the only values the final np.clip
//   can change); tile_clip_kernel then clips those tiles only (the border band of the image, ~1% of
//   the tiles for a rotation). Per pixel: ~7 float <-> double conversions (scikit-image's blends are
//   in double: 0.11 ms of the conversion pipe at 16/clk/SM, overlapping the memory time) and ~50
//   other instructions. Predicted: min/max 0.07 ms + warp ~0.15 ms + fix-up ~0.01 ms = ~0.23 ms
//   (order 3: 16 L1 taps per pixel, ~0.35 ms). rotate 30 degrees: the same kernel, ~0.24 ms.
//   ptxas (sm_90), tile kernel: float32 order 1 80 registers, no stack (3 blocks = 24 warps per SM,
//   16 loads in flight per thread); float32 order 3 62 registers, a 24-byte frame, no spills;
//   float64 order 1 / 3: 80 / 64 registers with 56 / 64-byte frames (spills of the border path).
#include <cub/block/block_reduce.cuh>

#include <cmath>
#include <cstdint>
#include <limits>

#include "cuskimage/tuning.hpp"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/transform/warps_backend.hpp"

namespace cuskimage::transform::detail {

namespace {

// ---- the clip state ----------------------------------------------------------------------------
// state[0..2]: input min key, max key, NaN flag; state[3..6]: output min key, max key, NaN flag,
// any-element flag (the pixel kernel and the map path); state[7]: the tile kernel's flag bits,
// state[8]: its count of listed tiles.
constexpr int kStateWords = 16;
constexpr int kFlagWord = 7, kCountWord = 8;
enum : unsigned { kLe = 1, kGe = 2, kOutNan = 4, kCandidate = 8 };

__device__ inline unsigned long long order_key(double v) {
  const auto u = static_cast<unsigned long long>(__double_as_longlong(v));
  return (u >> 63) ? ~u : (u | 0x8000000000000000ull);
}
__device__ inline double from_key(unsigned long long k) {
  const unsigned long long u = (k >> 63) ? (k & 0x7fffffffffffffffull) : ~k;
  return __longlong_as_double(static_cast<long long>(u));
}

__device__ inline MinMax read_range(const unsigned long long* st, int slot) {
  MinMax m;
  const unsigned long long* s = st + 3 * slot;
  m.any = slot == 0 ? true : st[6] != 0;
  m.nan = s[2] != 0;
  if (s[0] == ~0ull) {  // no finite-or-infinite value folded: all NaN (or empty)
    m.lo = m.hi = std::numeric_limits<double>::quiet_NaN();
  } else {
    m.lo = from_key(s[0]);
    m.hi = from_key(s[1]);
  }
  return m;
}

struct KeyRange {
  unsigned long long lo, hi;
  int nan;
};
struct KeyRangeOp {
  __device__ KeyRange operator()(const KeyRange& a, const KeyRange& b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi, a.nan | b.nan};
  }
};

/// Block-reduces the thread's range and folds it into state slot `slot` (thread 0's atomics).
template <int kThreads>
__device__ void fold_range(KeyRange r, unsigned long long* st, int slot, bool any) {
  using Reduce = cub::BlockReduce<KeyRange, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const KeyRange b = Reduce(tmp).Reduce(r, KeyRangeOp{});
  if (threadIdx.x == 0) {
    unsigned long long* s = st + 3 * slot;
    if (b.lo != ~0ull) atomicMin(s + 0, b.lo);
    if (b.hi != 0ull) atomicMax(s + 1, b.hi);
    if (b.nan) atomicOr(s + 2, 1ull);
    if (slot == 1 && any) atomicOr(st + 6, 1ull);
  }
}

__device__ inline void add_value(KeyRange& r, double v) {
  if (v != v) {
    r.nan = 1;
    return;
  }
  const unsigned long long k = order_key(v);
  r.lo = k < r.lo ? k : r.lo;
  r.hi = k > r.hi ? k : r.hi;
}

constexpr int kReduceThreads = 256;

template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    minmax_kernel(const T* __restrict__ a, std::int64_t n, unsigned long long* st, int slot, bool constant, double cval) {
  if (slot == 1 && !cval_may_widen(read_range(st, 0), constant, cval)) return;
  KeyRange r{~0ull, 0ull, 0};
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  // Four independent loads in flight per thread (a streaming read at full bandwidth).
  for (; i + 3 * stride < n; i += 4 * stride) {
    const T v0 = a[i], v1 = a[i + stride], v2 = a[i + 2 * stride], v3 = a[i + 3 * stride];
    add_value(r, static_cast<double>(v0));
    add_value(r, static_cast<double>(v1));
    add_value(r, static_cast<double>(v2));
    add_value(r, static_cast<double>(v3));
  }
  for (; i < n; i += stride) add_value(r, static_cast<double>(a[i]));
  fold_range<kReduceThreads>(r, st, slot, n > 0);
}

template <class T>
__global__ void clip_kernel(T* __restrict__ a, std::int64_t n, const unsigned long long* st, bool constant, double cval,
                            double cv_in, bool always) {
  const MinMax in = read_range(st, 0);
  if (!always && !cval_may_widen(in, constant, cval)) return;  // clipped in the warp kernel already
  double lo, hi;
  clip_limits(in, read_range(st, 1), constant, cval, cv_in, lo, hi);
  const T l = static_cast<T>(lo), h = static_cast<T>(hi);
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    a[i] = np_clip(a[i], l, h);
}

// ---- _warp_fast ----------------------------------------------------------------------------------

constexpr int kWarpX = 32, kWarpY = 8;

/// One thread per output pixel, every channel. `Small`: the image and the output have < 2^31
/// elements, so 32-bit indices serve wherever the source coordinates fit too.
template <class F, int Order, bool Small>
__global__ void __launch_bounds__(kWarpX* kWarpY)
    warp_fast_kernel(const F* __restrict__ img, std::int64_t rows, std::int64_t cols, int nch, F* __restrict__ out,
                     std::int64_t orows, std::int64_t ocols, FastWarp<F> p, unsigned long long* st, double cval) {
  const std::int64_t c = blockIdx.x * std::int64_t(kWarpX) + threadIdx.x;
  const std::int64_t r = blockIdx.y * std::int64_t(kWarpY) + threadIdx.y;
  const bool inside = r < orows && c < ocols;
  // The clip: in-kernel where cval cannot widen the input's range, else the output's range is folded
  // into the state for clip_kernel.
  bool fold = false;
  if (st != nullptr) {
    const MinMax in = read_range(st, 0);
    fold = cval_may_widen(in, p.mode == 'C', cval);
    p.clamp = !fold;
    p.lo = static_cast<F>(in.lo);
    p.hi = static_cast<F>(in.hi);
  } else {
    p.clamp = false;
  }
  KeyRange range{~0ull, 0ull, 0};
  if (inside) {
    F xs, ys;
    apply_homography(p.h, static_cast<F>(c), static_cast<F>(r), xs, ys);
    const std::int64_t plane = rows * cols;
    for (int k = 0; k < nch; ++k) {
      F v;
      if (Small && fits_int32(ys, xs))
        v = warp_fast_value<F, int, Order>(img + k * plane, static_cast<int>(rows), static_cast<int>(cols), p, xs, ys);
      else
        v = warp_fast_value<F, std::int64_t, Order>(img + k * plane, rows, cols, p, xs, ys);
      if (Small)
        out[static_cast<int>((static_cast<int>(r) * static_cast<int>(ocols) + static_cast<int>(c)) * nch + k)] = v;
      else
        out[(r * ocols + c) * nch + k] = v;
      if (fold) add_value(range, static_cast<double>(v));
    }
  }
  if (fold) {
    // Every thread of the block reaches here (fold is uniform: it depends on the state only).
    using Reduce = cub::BlockReduce<KeyRange, kWarpX, cub::BLOCK_REDUCE_WARP_REDUCTIONS, kWarpY>;
    __shared__ typename Reduce::TempStorage tmp;
    const KeyRange b = Reduce(tmp).Reduce(range, KeyRangeOp{});
    if (threadIdx.x == 0 && threadIdx.y == 0) {
      if (b.lo != ~0ull) atomicMin(st + 3, b.lo);
      if (b.hi != 0ull) atomicMax(st + 4, b.hi);
      if (b.nan) atomicOr(st + 5, 1ull);
      atomicOr(st + 6, 1ull);
    }
  }
}

template <class F, int Order>
void launch_warp_fast(const Array& planes, Array& out, const FastWarp<F>& p, unsigned long long* st, double cval,
                      const Stream& stream) {
  const std::int64_t nch = planes.shape(0), rows = planes.shape(1), cols = planes.shape(2);
  const std::int64_t orows = out.shape(0), ocols = out.shape(1);
  const bool small = planes.size() < (std::int64_t(1) << 31) && out.size() < (std::int64_t(1) << 31);
  const dim3 block(kWarpX, kWarpY);
  const dim3 grid(static_cast<unsigned>((ocols + kWarpX - 1) / kWarpX), static_cast<unsigned>((orows + kWarpY - 1) / kWarpY));
  const F* img = static_cast<const F*>(planes.data());
  F* o = static_cast<F*>(out.data());
  if (small)
    warp_fast_kernel<F, Order, true><<<grid, block, 0, stream.handle()>>>(img, rows, cols, static_cast<int>(nch), o,
                                                                          orows, ocols, p, st, cval);
  else
    warp_fast_kernel<F, Order, false><<<grid, block, 0, stream.handle()>>>(img, rows, cols, static_cast<int>(nch), o,
                                                                           orows, ocols, p, st, cval);
  CUSK_CUDA_CHECK_LAUNCH();
}

// ---- the tile kernel -------------------------------------------------------------------------------

constexpr int kTileCols = 32, kTilePass = 8;  // block: 32 x 8 threads; a tile: 32 x (8 R) pixels

/// The fold bookkeeping's comparisons with cval in F: (double)v <= cval iff v <= le, >= iff v >= ge
/// (NaN thresholds for a NaN cval: never); `exact`: cval is an F value (`cv`), so an output equal
/// to it is never changed by the clip (its range then holds cval).
template <class F>
struct CvalTests {
  F le, ge, cv;
  bool exact;
};

template <class F>
CvalTests<F> cval_tests(double cval) {
  CvalTests<F> t;
  t.cv = static_cast<F>(cval);
  t.exact = static_cast<double>(t.cv) == cval;
  if (cval != cval) {
    t.le = t.ge = t.cv;
    return t;
  }
  t.le = t.ge = t.cv;
  if (static_cast<double>(t.le) > cval) t.le = std::nextafter(t.le, -std::numeric_limits<F>::infinity());
  if (static_cast<double>(t.ge) < cval) t.ge = std::nextafter(t.ge, std::numeric_limits<F>::infinity());
  return t;
}

template <class F>
__device__ __forceinline__ unsigned fold_bits(F v, F lo, F hi, const CvalTests<F>& ct) {
  if (v != v) return kOutNan;
  unsigned b = 0;
  if (v <= ct.le) b |= kLe;
  if (v >= ct.ge) b |= kGe;
  if (!(v >= lo && v <= hi) && !(ct.exact && v == ct.cv)) b |= kCandidate;
  return b;
}

/// _warp_fast's value through the generic interpolators (mode handling per tap), unclipped.
template <class F, int Order>
__device__ F generic_value(const F* plane, int rows, int cols, const FastWarp<F>& q, F xs, F ys) {
  if (fits_int32(ys, xs)) return warp_fast_value<F, int, Order>(plane, rows, cols, q, xs, ys);
  return warp_fast_value<F, std::int64_t, Order>(plane, std::int64_t(rows), std::int64_t(cols), q, xs, ys);
}

/// Rows r0 + 8 j (j < R) of column c per thread (a tile: 32 columns x 8 R rows); everything fits
/// 32-bit indices (host check). `q`
/// has clamp = false; the clamp (or the fold bookkeeping) is decided here from the state.
template <class F, int Order, int R>
__global__ void __launch_bounds__(kTileCols* kTilePass)
    warp_tile_kernel(const F* __restrict__ img, int rows, int cols, int nch, F* __restrict__ out, int orows, int ocols,
                     FastWarp<F> q, unsigned long long* st, unsigned* __restrict__ tiles, double cval,
                     CvalTests<F> ct) {
  // A warp takes an 8 x 4 patch of the 32 x 8 pass (not a 32 x 1 row): its samples' source
  // footprint stays compact under rotation (~6 source rows at 30 degrees instead of ~16: fewer L1
  // wavefronts per load); its stores are still 4 full 32-byte sectors.
  const int c = blockIdx.x * kTileCols + (threadIdx.y % 4) * 8 + threadIdx.x % 8;
  const int r0 = blockIdx.y * (kTilePass * R) + (threadIdx.y / 4) * 4 + threadIdx.x / 8;
  const bool lead = threadIdx.x == 0 && threadIdx.y == 0;
  bool clamp = false, fold = false;
  F lo = 0, hi = 0;
  unsigned known = 0;
  if (st != nullptr) {
    const MinMax in = read_range(st, 0);
    fold = cval_may_widen(in, q.mode == 'C', cval);
    clamp = !fold;
    lo = static_cast<F>(in.lo);
    hi = static_cast<F>(in.hi);
    // Flags other blocks set already need no atomic (a stale read only costs a redundant one).
    if (fold && lead) known = static_cast<unsigned>(*static_cast<volatile unsigned long long*>(st + kFlagWord));
  }
  const F x = static_cast<F>(c);
  F xs[R], ys[R];
  bool inner = c < ocols;
  CUSK_UNROLL
  for (int j = 0; j < R; ++j) {
    apply_homography(q.h, x, static_cast<F>(r0 + j * kTilePass), xs[j], ys[j]);
    inner = inner && r0 + j * kTilePass < orows && interior_sample<Order>(xs[j], ys[j], rows, cols);
  }
  const int plane = rows * cols;
  unsigned bits = 0;
  for (int k = 0; k < nch; ++k) {
    const F* im = img + k * plane;
    F v[R];
    if (inner) {
      CUSK_UNROLL
      for (int j = 0; j < R; ++j) v[j] = interior_value<Order>(im, cols, xs[j], ys[j]);
    } else {
      CUSK_UNROLL
      for (int j = 0; j < R; ++j)
        v[j] = c < ocols && r0 + j * kTilePass < orows ? generic_value<F, Order>(im, rows, cols, q, xs[j], ys[j]) : F(0);
    }
    CUSK_UNROLL
    for (int j = 0; j < R; ++j) {
      const int r = r0 + j * kTilePass;
      if (c >= ocols || r >= orows) continue;
      F w = v[j];
      if (clamp)
        w = np_clip(w, lo, hi);
      else if (fold)
        bits |= fold_bits(w, lo, hi, ct);
      out[(r * ocols + c) * nch + k] = w;
    }
  }
  if (!fold) return;  // uniform: it depends on the state only
  __shared__ unsigned block_bits;
  if (lead) block_bits = 0;
  __syncthreads();
  const unsigned wb = __reduce_or_sync(0xffffffffu, bits);
  if (threadIdx.x == 0 && wb != 0) atomicOr(&block_bits, wb);
  __syncthreads();
  if (lead) {
    const unsigned b = block_bits;
    const unsigned fresh = b & (kLe | kGe | kOutNan) & ~known;
    if (fresh != 0) atomicOr(st + kFlagWord, static_cast<unsigned long long>(fresh));
    if (b & kCandidate) tiles[atomicAdd(st + kCountWord, 1ull)] = blockIdx.y * gridDim.x + blockIdx.x;
  }
}

/// _clip_warp_output after the tile kernel, where cval may widen the range: the limits from the
/// input's range and the flags (clip_limits' decision: cval inside the output's range iff some
/// value <= cval and some >= cval; a NaN output from a NaN-free input voids it), applied to the
/// listed tiles, or to the whole output in that NaN case (every value may change then).
template <class F>
__global__ void tile_clip_kernel(F* __restrict__ out, int orows, int ocols, int nch, int tile_rows,
                                 const unsigned long long* st, const unsigned* __restrict__ tiles, bool constant,
                                 double cval, double cv_in) {
  const MinMax in = read_range(st, 0);
  if (!cval_may_widen(in, constant, cval)) return;  // clamped in the warp kernel
  const auto f = static_cast<unsigned>(st[kFlagWord]);
  const bool nan_out = (f & kOutNan) != 0 && !in.nan;
  double lo = in.lo, hi = in.hi;
  if (!nan_out && (f & kLe) != 0 && (f & kGe) != 0) {
    lo = cv_in < lo ? cv_in : lo;
    hi = cv_in > hi ? cv_in : hi;
  }
  const F l = static_cast<F>(lo), h = static_cast<F>(hi);
  if (nan_out) {
    const std::int64_t n = std::int64_t(orows) * ocols * nch;
    for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
         i += std::int64_t(gridDim.x) * blockDim.x)
      out[i] = np_clip(out[i], l, h);
    return;
  }
  const auto count = static_cast<unsigned>(st[kCountWord]);
  const int tiles_x = (ocols + kTileCols - 1) / kTileCols, per_tile = kTileCols * tile_rows * nch;
  for (unsigned t = blockIdx.x; t < count; t += gridDim.x) {
    const int tile = static_cast<int>(tiles[t]);
    const int c0 = tile % tiles_x * kTileCols, r0 = tile / tiles_x * tile_rows;
    for (int e = threadIdx.x; e < per_tile; e += blockDim.x) {
      const int k = e % nch, px = e / nch;
      const int r = r0 + px / kTileCols, c = c0 + px % kTileCols;
      if (r < orows && c < ocols) {
        F& o = out[(r * ocols + c) * nch + k];
        o = np_clip(o, l, h);
      }
    }
  }
}

/// Whether the tile kernel takes this warp: 32-bit indices everywhere, axes below 2^21 (the
/// interior test's exact float bounds, floor_small's range, the grid's y extent).
bool tiles_fit(const Array& planes, const Array& out) {
  constexpr std::int64_t kAxis = std::int64_t(1) << 21, kElems = std::int64_t(1) << 31;
  return planes.size() < kElems && out.size() < kElems && planes.shape(1) < kAxis && planes.shape(2) < kAxis &&
         out.shape(0) < kAxis && out.shape(1) < kAxis;
}

template <class F, int Order>
void launch_warp_tiles(const Array& planes, Array& out, FastWarp<F> q, unsigned long long* st, double cval,
                       double cv_in, const Stream& stream) {
  constexpr int R = Order == 1 ? 4 : 2;
  const int nch = static_cast<int>(planes.shape(0)), rows = static_cast<int>(planes.shape(1));
  const int cols = static_cast<int>(planes.shape(2));
  const int orows = static_cast<int>(out.shape(0)), ocols = static_cast<int>(out.shape(1));
  const dim3 grid(static_cast<unsigned>((ocols + kTileCols - 1) / kTileCols),
                  static_cast<unsigned>((orows + kTilePass * R - 1) / (kTilePass * R)));
  Array tiles = st ? Array::empty({std::int64_t(grid.x) * grid.y}, DType::uint32, out.device(), stream) : Array();
  auto* tp = st ? static_cast<unsigned*>(tiles.data()) : nullptr;
  q.clamp = false;
  warp_tile_kernel<F, Order, R><<<grid, dim3(kTileCols, kTilePass), 0, stream.handle()>>>(
      static_cast<const F*>(planes.data()), rows, cols, nch, static_cast<F*>(out.data()), orows, ocols, q, st, tp,
      cval, cval_tests<F>(cval));
  CUSK_CUDA_CHECK_LAUNCH();
  if (st == nullptr) return;
  tile_clip_kernel<F><<<1024, 256, 0, stream.handle()>>>(static_cast<F*>(out.data()), orows, ocols, nch,
                                                         kTilePass * R, st, tp, q.mode == 'C', cval, cv_in);
  CUSK_CUDA_CHECK_LAUNCH();
}

// ---- the homogeneous coordinate map ---------------------------------------------------------------

__global__ void source_coords_kernel(SourceMap q, double* __restrict__ coords, std::int64_t rows, std::int64_t cols,
                                          std::int64_t nb, int nd) {
  const std::int64_t c = blockIdx.x * std::int64_t(kWarpX) + threadIdx.x;
  const std::int64_t r = blockIdx.y * std::int64_t(kWarpY) + threadIdx.y;
  if (r >= rows || c >= cols) return;
  double sr, sc;
  map_source(q, static_cast<double>(r), static_cast<double>(c), sr, sc);
  const std::int64_t plane = rows * cols * nb;
  for (std::int64_t b = 0; b < nb; ++b) {
    const std::int64_t k = (r * cols + c) * nb + b;
    coords[k] = sr;
    coords[plane + k] = sc;
    if (nd == 3) coords[2 * plane + k] = static_cast<double>(b);
  }
}

template <class F>
__global__ void weighted_axis_kernel(const F* __restrict__ in, F* __restrict__ out, std::int64_t total, std::int64_t n,
                                     std::int64_t m, std::int64_t inner, const std::int64_t* __restrict__ band,
                                     const F* __restrict__ w) {
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < total;
       k += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = k % inner, j = (k / inner) % m, o = k / (inner * m);
    out[k] = weighted_tap_sum(in + o * n * inner + i, inner, band[3 * j], band[3 * j + 1], w + band[3 * j + 2]);
  }
}

__global__ void init_state_kernel(unsigned long long* st) {
  // Min keys start at the top, max keys and flags at zero.
  st[threadIdx.x] = threadIdx.x == 0 || threadIdx.x == 3 ? ~0ull : 0ull;
}

unsigned long long* state_ptr(const Array& st) {
  return static_cast<unsigned long long*>(const_cast<void*>(static_cast<const void*>(st.data())));
}

}  // namespace

Array cuda_clip_state(Device dev, const Stream& stream) {
  // Initialised by a kernel: no host copy (its latency would show in a 0.2 ms warp).
  Array st = Array::empty({kStateWords}, DType::uint64, dev, stream);
  init_state_kernel<<<1, kStateWords, 0, stream.handle()>>>(state_ptr(st));
  CUSK_CUDA_CHECK_LAUNCH();
  return st;
}

void cuda_minmax_into(const Array& a, Array& state, int slot, bool constant, double cval, const Stream& stream) {
  const std::int64_t n = a.size();
  if (n == 0) return;
  cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(a.dtype(), "transform", [&]<class T>() {
    minmax_kernel<T><<<cuskimage::detail::grid_blocks(n, kReduceThreads, 2048), kReduceThreads, 0, stream.handle()>>>(
        static_cast<const T*>(a.data()), n, state_ptr(state), slot, constant, cval);
    CUSK_CUDA_CHECK_LAUNCH();
  });
}

void cuda_clip_finish(Array& out, const Array& state, bool constant, double cval, double cv_in, bool fused,
                      const Stream& stream) {
  const std::int64_t n = out.size();
  if (n == 0) return;
  cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(out.dtype(), "transform", [&]<class T>() {
    clip_kernel<T><<<cuskimage::detail::grid_blocks(n, 256, 4096), 256, 0, stream.handle()>>>(
        static_cast<T*>(out.data()), n, state_ptr(state), constant, cval, cv_in, !fused);
    CUSK_CUDA_CHECK_LAUNCH();
  });
}

template <class F>
void cuda_warp_fast(const Array& planes, Array& out, const FastWarp<F>& p, Array* state, double cval, double cv_in,
                    const Stream& stream) {
  unsigned long long* st = state ? state_ptr(*state) : nullptr;
  const tuning::WarpKernel kernel = tuning::warp_policy().kernel;
  if (kernel != tuning::WarpKernel::pixels && (p.order == 1 || p.order == 3) && tiles_fit(planes, out)) {
    if (p.order == 1)
      launch_warp_tiles<F, 1>(planes, out, p, st, cval, cv_in, stream);
    else
      launch_warp_tiles<F, 3>(planes, out, p, st, cval, cv_in, stream);
    return;
  }
  if (p.order == 1)
    launch_warp_fast<F, 1>(planes, out, p, st, cval, stream);
  else if (p.order == 3)
    launch_warp_fast<F, 3>(planes, out, p, st, cval, stream);
  else
    launch_warp_fast<F, -1>(planes, out, p, st, cval, stream);
  if (state) cuda_clip_finish(out, *state, p.mode == 'C', cval, cv_in, true, stream);
}
template <class F>
void cuda_weighted_axis(const Array& in, Array& out, std::int64_t outer, std::int64_t inner, const AxisWeights<F>& aw,
                        const Stream& stream) {
  const std::int64_t n = in.size() / (outer * inner), m = static_cast<std::int64_t>(aw.count.size());
  std::vector<std::int64_t> band(3 * m);
  for (std::int64_t j = 0; j < m; ++j) band[3 * j] = aw.start[j], band[3 * j + 1] = aw.count[j], band[3 * j + 2] = aw.off[j];
  const Array b = Array::from_vector(band, {3 * m}).to(in.device(), stream);
  std::vector<F> wv = aw.w;
  if (wv.empty()) wv.push_back(F(0));
  const Array w = Array::from_vector(wv, {static_cast<std::int64_t>(wv.size())}).to(in.device(), stream);
  const std::int64_t total = out.size();
  if (total == 0) return;
  weighted_axis_kernel<F><<<cuskimage::detail::grid_blocks(total, 256, 1 << 16), 256, 0, stream.handle()>>>(
      static_cast<const F*>(in.data()), static_cast<F*>(out.data()), total, n, m, inner,
      static_cast<const std::int64_t*>(b.data()), static_cast<const F*>(w.data()));
  CUSK_CUDA_CHECK_LAUNCH();
}
template void cuda_weighted_axis<float>(const Array&, Array&, std::int64_t, std::int64_t, const AxisWeights<float>&,
                                        const Stream&);
template void cuda_weighted_axis<double>(const Array&, Array&, std::int64_t, std::int64_t, const AxisWeights<double>&,
                                         const Stream&);

template void cuda_warp_fast<float>(const Array&, Array&, const FastWarp<float>&, Array*, double, double,
                                    const Stream&);
template void cuda_warp_fast<double>(const Array&, Array&, const FastWarp<double>&, Array*, double, double,
                                     const Stream&);

void cuda_source_coords(const SourceMap& q, Array& coords, const Stream& stream) {
  const int nd = static_cast<int>(coords.shape(0));
  const std::int64_t rows = coords.shape(1), cols = coords.shape(2), nb = nd == 3 ? coords.shape(3) : 1;
  const dim3 grid(static_cast<unsigned>((cols + kWarpX - 1) / kWarpX), static_cast<unsigned>((rows + kWarpY - 1) / kWarpY));
  source_coords_kernel<<<grid, dim3(kWarpX, kWarpY), 0, stream.handle()>>>(q, coords.data<double>(), rows, cols,
                                                                                nb, nd);
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::transform::detail
