// CUDA backend of skimage.transform._warps: _warp_fast (one thread per output pixel, coordinates
// computed in-kernel, 32-bit indices where the image and the coordinates allow, the image read
// through the read-only cache, writes coalesced along rows), the homogeneous coordinate map of the
// map_coordinates path, and _clip_warp_output kept on the device (min/max as order-preserving
// uint64 keys folded with atomics; the clip limits decided by the kernels from those keys).
#include <cub/block/block_reduce.cuh>

#include <cstdint>
#include <limits>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/transform/warps_backend.hpp"

namespace cuskimage::transform::detail {

namespace {

// ---- the clip state ----------------------------------------------------------------------------
// state[0..2]: input min key, max key, NaN flag; state[3..6]: output min key, max key, NaN flag,
// any-element flag.
constexpr int kStateWords = 8;

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
void cuda_warp_fast(const Array& planes, Array& out, const FastWarp<F>& p, Array* state, double cval,
                    const Stream& stream) {
  unsigned long long* st = state ? state_ptr(*state) : nullptr;
  if (p.order == 1)
    launch_warp_fast<F, 1>(planes, out, p, st, cval, stream);
  else if (p.order == 3)
    launch_warp_fast<F, 3>(planes, out, p, st, cval, stream);
  else
    launch_warp_fast<F, -1>(planes, out, p, st, cval, stream);
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

template void cuda_warp_fast<float>(const Array&, Array&, const FastWarp<float>&, Array*, double, const Stream&);
template void cuda_warp_fast<double>(const Array&, Array&, const FastWarp<double>&, Array*, double, const Stream&);

void cuda_source_coords(const SourceMap& q, Array& coords, const Stream& stream) {
  const int nd = static_cast<int>(coords.shape(0));
  const std::int64_t rows = coords.shape(1), cols = coords.shape(2), nb = nd == 3 ? coords.shape(3) : 1;
  const dim3 grid(static_cast<unsigned>((cols + kWarpX - 1) / kWarpX), static_cast<unsigned>((rows + kWarpY - 1) / kWarpY));
  source_coords_kernel<<<grid, dim3(kWarpX, kWarpY), 0, stream.handle()>>>(q, coords.data<double>(), rows, cols,
                                                                                nb, nd);
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::transform::detail
