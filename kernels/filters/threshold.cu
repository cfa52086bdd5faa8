// CUDA backend of the histogram thresholds (threshold_otsu, _yen, _isodata, _minimum, _triangle,
// _multiotsu): everything stays on the device and only the result buffer (a few doubles) crosses to
// the host; its copy waits for the stream (the one synchronization of the call).
//
//   integer images (uint8, uint16, int16): one pass builds the full-range histogram (uint8: per-warp
//     privatized 256-bin histograms in shared memory, 16-byte vector loads, one atomic per run of
//     equal neighbours; 16-bit: global atomics on 65536 bins); trimming to [min, max] happens in
//     the selection.
//   float images: a min/max pass (block partials, then a one-block finish), then a histogram pass
//     with numpy.histogram's binning (shared-memory bins up to 12288, else global atomics).
//   selection: the shared code of src/filters/threshold.hpp on the histogram in one block: otsu's
//     sequential sums on one thread, its variances and argmax over 256 threads; the other methods
//     on one thread (a few thousand flops for 256 bins).
//
// Bytes moved for 8192^2: uint8 reads 67.1 MB once -> floor 16.0 us at 4.2 TB/s (target <= 0.10 ms
// with the selection kernel and launch overheads); float32 reads 268 MB twice -> floor 128 us.
// The selection is serial (otsu: ~256 steps, a few us); multiotsu with classes > 3 or 16-bit
// histograms is slower there (O(nbins^(classes-1)) as in scikit-image).
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <limits>

#include "kernels/core/elementwise.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"
#include "src/filters/histogram_backend.hpp"

namespace cuskimage::filters::detail {
namespace {

using cuskimage::detail::Indexer;
using cuskimage::detail::Layout;
using cuskimage::detail::layout_of;

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr std::int64_t kMaxSharedBins = 12288;

template <class T>
using Reader = cuskimage::detail::StridedReader<T>;

int blocks_for(std::int64_t n, std::int64_t per_thread) {
  int dev = 0, sms = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const std::int64_t want = (n + kThreads * per_thread - 1) / (kThreads * per_thread);
  return static_cast<int>(std::clamp<std::int64_t>(want, 1, std::int64_t(sms) * 8));
}

// ---- uint8: per-warp shared histograms -------------------------------------------------------------
__global__ void __launch_bounds__(kThreads)
    hist_u8_kernel(Reader<std::uint8_t> rd, std::int64_t n, bool vec, unsigned long long* __restrict__ counts) {
  __shared__ unsigned int h[kWarps][256];
  for (int i = threadIdx.x; i < kWarps * 256; i += kThreads) (&h[0][0])[i] = 0;
  __syncthreads();
  unsigned int* mine = h[threadIdx.x / 32];
  const std::int64_t tid = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  const std::int64_t stride = std::int64_t(gridDim.x) * kThreads;
  std::int64_t done = 0;
  if (vec) {  // contiguous and 16-byte aligned: 16 pixels per load
    const uint4* v = reinterpret_cast<const uint4*>(rd.p);
    const std::int64_t nv = n / 16;
    for (std::int64_t i = tid; i < nv; i += stride) {
      const uint4 q = v[i];
      const unsigned int w[4] = {q.x, q.y, q.z, q.w};
      // Runs of equal neighbours (common in real images) cost one atomic instead of one per pixel.
      unsigned int cur = w[0] & 0xff, run = 0;
#pragma unroll
      for (int k = 0; k < 16; ++k) {
        const unsigned int b = (w[k / 4] >> (8 * (k % 4))) & 0xff;
        if (b != cur) {
          atomicAdd(&mine[cur], run);
          cur = b;
          run = 0;
        }
        ++run;
      }
      atomicAdd(&mine[cur], run);
    }
    done = nv * 16;
  }
  for (std::int64_t i = done + tid; i < n; i += stride) atomicAdd(&mine[rd(i)], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += kThreads) {
    unsigned int s = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) s += h[w][b];
    if (s) atomicAdd(&counts[b], static_cast<unsigned long long>(s));
  }
}

// ---- 16-bit integers: global atomics ---------------------------------------------------------------
template <class T>
__global__ void __launch_bounds__(kThreads)
    hist_int_kernel(Reader<T> rd, std::int64_t n, unsigned long long* __restrict__ counts) {
  const std::int64_t stride = std::int64_t(gridDim.x) * kThreads;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
    atomicAdd(&counts[int_bin(rd(i))], 1ull);
}

// ---- float range -----------------------------------------------------------------------------------
template <class T>
struct Range {
  T lo, hi;
  int bad;
};
template <class T>
struct RangeOp {
  __device__ __forceinline__ Range<T> operator()(const Range<T>& a, const Range<T>& b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi, a.bad | b.bad};
  }
};

template <class T>
__global__ void __launch_bounds__(kThreads)
    range_kernel(Reader<T> rd, std::int64_t n, Range<T>* __restrict__ partials) {
  Range<T> r{std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(), 0};
  const std::int64_t stride = std::int64_t(gridDim.x) * kThreads;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride) {
    const T v = rd(i);
    r.bad |= !isfinite(v);
    r.lo = v < r.lo ? v : r.lo;
    r.hi = v > r.hi ? v : r.hi;
  }
  using BR = cub::BlockReduce<Range<T>, kThreads>;
  __shared__ typename BR::TempStorage tmp;
  const Range<T> b = BR(tmp).Reduce(r, RangeOp<T>{});
  if (threadIdx.x == 0) partials[blockIdx.x] = b;
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    range_finish_kernel(const Range<T>* __restrict__ partials, int count, const T* first,
                        RangeInfo<T>* __restrict__ info) {
  Range<T> r{std::numeric_limits<T>::infinity(), -std::numeric_limits<T>::infinity(), 0};
  for (int i = threadIdx.x; i < count; i += kThreads) r = RangeOp<T>{}(r, partials[i]);
  using BR = cub::BlockReduce<Range<T>, kThreads>;
  __shared__ typename BR::TempStorage tmp;
  const Range<T> b = BR(tmp).Reduce(r, RangeOp<T>{});
  if (threadIdx.x == 0) *info = RangeInfo<T>{b.lo, b.hi, *first, b.bad};
}

// ---- float histogram -------------------------------------------------------------------------------
template <class T>
__global__ void __launch_bounds__(kThreads)
    hist_float_kernel(Reader<T> rd, std::int64_t n, std::int64_t nbins, bool shared,
                      const RangeInfo<T>* __restrict__ info, unsigned long long* __restrict__ counts) {
  extern __shared__ unsigned int sh[];
  const RangeInfo<T> r = *info;
  if (r.nonfinite) return;  // numpy.histogram would raise; the selection reports it
  const FloatBins<T> bins = FloatBins<T>::make(r.lo, r.hi, nbins);
  if (shared) {
    for (std::int64_t i = threadIdx.x; i < nbins; i += kThreads) sh[i] = 0;
    __syncthreads();
  }
  const std::int64_t stride = std::int64_t(gridDim.x) * kThreads;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride) {
    const std::int64_t b = bins.index(rd(i));
    if (shared) atomicAdd(&sh[b], 1u);
    else atomicAdd(&counts[b], 1ull);
  }
  if (shared) {
    __syncthreads();
    for (std::int64_t i = threadIdx.x; i < nbins; i += kThreads)
      if (sh[i]) atomicAdd(&counts[i], static_cast<unsigned long long>(sh[i]));
  }
}

// ---- selection -------------------------------------------------------------------------------------
constexpr int kSelectThreads = 256;

template <class P>
struct ArgMax {
  P v;
  std::int64_t i;  // -1: none
};
template <class P>
struct ArgMaxOp {
  __device__ __forceinline__ ArgMax<P> operator()(const ArgMax<P>& a, const ArgMax<P>& b) const {
    return argmax_better(b.v, b.i, a.v, a.i) ? b : a;
  }
};

/// Histograms up to this many bins (uint8, the default 256 float bins) run otsu in shared memory.
constexpr int kOtsuSharedBins = 256;

/// Otsu with the sequential sums on thread 0 and the variances and the argmax over the block.
/// The sums are float32/double chains in scikit-image's order (not reassociable), so they stay on
/// one thread; with the counts and sums in shared memory each step waits on shared memory instead
/// of L2 (H200, uint8: 8192^2 0.101 -> 0.092 ms, 512^2 0.061 -> 0.057 ms; the rest of the fixed
/// ~0.055 ms is launches, the result's copy and the stream synchronization).
template <class Ctr>
__device__ void otsu_block(const RawCounts& c, std::int64_t n, const Ctr& ctr, double* scratch, double* res) {
  using P = typename Ctr::prod;
  __shared__ unsigned long long sh_counts[kOtsuSharedBins];
  __shared__ double sh_scratch[4 * kOtsuSharedBins];
  const bool in_shared = n <= kOtsuSharedBins;
  if (in_shared) {
    for (std::int64_t i = threadIdx.x; i < n; i += kSelectThreads) sh_counts[i] = c.p[c.offset + i];
    scratch = sh_scratch;
    __syncthreads();
    if (threadIdx.x == 0) otsu_prefix(RawCounts{sh_counts, 0}, n, ctr, scratch);
  } else if (threadIdx.x == 0) {
    otsu_prefix(c, n, ctr, scratch);
  }
  __syncthreads();
  ArgMax<P> best{P(0), -1};
  for (std::int64_t i = threadIdx.x; i + 1 < n; i += kSelectThreads) {
    const P v = otsu_variance<P>(scratch, n, i);
    if (argmax_better(v, i, best.v, best.i)) best = ArgMax<P>{v, i};
  }
  using BR = cub::BlockReduce<ArgMax<P>, kSelectThreads>;
  __shared__ typename BR::TempStorage tmp;
  const ArgMax<P> r = BR(tmp).Reduce(best, ArgMaxOp<P>{});
  if (threadIdx.x == 0) {
    res[0] = kOk;
    res[1] = 1;
    res[kResultHeader] = static_cast<double>(ctr(r.i < 0 ? 0 : r.i));
  }
}

template <class T>
__global__ void __launch_bounds__(kSelectThreads)
    select_kernel(SelectParams p, const unsigned long long* __restrict__ counts, const RangeInfo<T>* __restrict__ info,
                  const T* first, double* __restrict__ scratch, std::int64_t* __restrict__ cur,
                  double* __restrict__ res) {
  RangeInfo<T> r{};
  if constexpr (std::is_integral_v<T>) {
    r.first = *first;
  } else {
    r = *info;
  }
  if (p.method == Method::otsu) {  // the common case gets the block-parallel variance search
    if constexpr (std::is_integral_v<T>) {
      __shared__ std::int64_t ab[2];
      if (threadIdx.x == 0) {
        const std::int64_t nb = full_range_bins<T>();
        std::int64_t a = 0, b = nb - 1;
        while (a < nb && counts[a] == 0) ++a;
        while (b > a && counts[b] == 0) --b;
        ab[0] = a;
        ab[1] = b;
      }
      __syncthreads();
      const std::int64_t a = ab[0], b = ab[1];
      if (a < b) {
        otsu_block(RawCounts{counts, a}, b - a + 1, IntCenters{static_cast<long long>(std::numeric_limits<T>::min()) + a},
                   scratch, res);
        return;
      }
    } else {
      if (!r.nonfinite && r.lo != r.hi) {
        otsu_block(RawCounts{counts, 0}, p.nbins, FloatCenters<T>{FloatBins<T>::make(r.lo, r.hi, p.nbins)}, scratch,
                   res);
        return;
      }
    }
  }
  if (threadIdx.x == 0) select_from_histogram<T>(p, counts, r, scratch, cur, res);  // one thread: the rest
}

template <class T>
void run(const Array& image, const SelectParams& p, std::vector<double>& result, const Stream& s) {
  const Layout L = layout_of({&image});
  const std::int64_t n = L.size();
  const Reader<T> rd{static_cast<const T*>(image.data()), L.indexer(0), L.contiguous(0)};
  const T* first = static_cast<const T*>(image.data());
  const std::int64_t nb = std::is_integral_v<T> ? full_range_bins<T>() : p.nbins;
  Array counts = Array::empty({nb}, DType::uint64, image.device(), s);
  auto* cp = static_cast<unsigned long long*>(counts.data());
  CUSK_CUDA_CHECK(cudaMemsetAsync(cp, 0, static_cast<std::size_t>(nb) * sizeof(unsigned long long), s.handle()));
  Array info_buf = Array::empty({static_cast<std::int64_t>(sizeof(RangeInfo<T>))}, DType::uint8, image.device(), s);
  auto* info = static_cast<RangeInfo<T>*>(info_buf.data());

  if constexpr (std::is_same_v<T, std::uint8_t>) {
    const bool vec = rd.contiguous && reinterpret_cast<std::uintptr_t>(rd.p) % 16 == 0;
    hist_u8_kernel<<<blocks_for(n, 64), kThreads, 0, s.handle()>>>(rd, n, vec, cp);
    CUSK_CUDA_CHECK_LAUNCH();
  } else if constexpr (std::is_integral_v<T>) {
    hist_int_kernel<T><<<blocks_for(n, 16), kThreads, 0, s.handle()>>>(rd, n, cp);
    CUSK_CUDA_CHECK_LAUNCH();
  } else {
    const int rb = blocks_for(n, 16);
    Array partials = Array::empty({rb * static_cast<std::int64_t>(sizeof(Range<T>))}, DType::uint8, image.device(), s);
    auto* pp = static_cast<Range<T>*>(partials.data());
    range_kernel<T><<<rb, kThreads, 0, s.handle()>>>(rd, n, pp);
    CUSK_CUDA_CHECK_LAUNCH();
    range_finish_kernel<T><<<1, kThreads, 0, s.handle()>>>(pp, rb, first, info);
    CUSK_CUDA_CHECK_LAUNCH();
    const bool shared = nb <= kMaxSharedBins;
    hist_float_kernel<T><<<blocks_for(n, 16), kThreads, shared ? nb * sizeof(unsigned int) : 0, s.handle()>>>(
        rd, n, nb, shared, info, cp);
    CUSK_CUDA_CHECK_LAUNCH();
  }

  const std::int64_t res_len = kResultHeader + p.capacity;
  Array scratch = Array::empty({select_scratch_doubles(nb)}, DType::float64, image.device(), s);
  Array cur = Array::empty({std::max<std::int64_t>(p.classes, 1)}, DType::int64, image.device(), s);
  Array res = Array::zeros({res_len}, DType::float64, image.device(), s);
  select_kernel<T><<<1, kSelectThreads, 0, s.handle()>>>(p, cp, info, first, static_cast<double*>(scratch.data()),
                                                         static_cast<std::int64_t*>(cur.data()),
                                                         static_cast<double*>(res.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  const Array host = res.to(Device::cpu(), s);
  const double* hp = static_cast<const double*>(host.data());
  result.assign(hp, hp + res_len);
}

}  // namespace

void cuda_histogram_threshold(const Array& image, const SelectParams& p, std::vector<double>& result,
                              const Stream& stream) {
  cuskimage::detail::dispatch<cuskimage::detail::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, float, double>>(
      image.dtype(), "filters.threshold", [&]<class T>() { run<T>(image, p, result, stream); });
}

}  // namespace cuskimage::filters::detail
