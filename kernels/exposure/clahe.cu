// CUDA backend of equalize_adapthist (CLAHE), wholly on the device, five launches on `stream`:
//
//   1. range      min / max of the image (block partials + one-block finish, exposure.cu); the
//                 uint16 image's range follows through img_as_uint (monotone).
//   2. histograms one block per (region, row chunk): every pixel of the region (reflect-padded
//                 past the image's end, as numpy.pad) is turned into its 14-bit grey bin on the fly
//                 (img_as_uint, rescale, round, // bin_size) and counted in shared memory with
//                 warp-aggregated atomics (__match_any_sync: flat areas cost one atomic per warp),
//                 then flushed to the region's global histogram.
//   3. clip + map one block per region: scikit-image's clip_histogram with block-wide sums (every
//                 bin owned by one thread, so only the sums synchronize), then the cumulative map
//                 (block scan) as a uint16 table region x nbins.
//   4. interpolate 2-D tiles of 32 x 8 threads (x a plane index in 3-D): the pixel's bin again,
//                 its 2^D region maps from the table (64 regions x 256 bins x 2 B = 32 KB: L1/L2
//                 resident), scikit-image's float32 sum, truncated to uint16; the block's min and
//                 max go to two global atomics.
//   5. normalize  rescale_intensity of the uint16 result to [0, 1] in the output float type.
//
// Bandwidth floor, 4096^2 float32 (16.8 M pixels): the image must be read once and the result
// written once: 134 MB -> 32 us at 4.2 TB/s. This design reads the image three times (range,
// histograms, interpolation), writes and reads a uint16 intermediate and writes the result:
// 4 + 4 + 4 + 2 + 2 + 4 = 20 B/pixel = 336 MB -> 80 us at 4.2 TB/s. The interpolation also does
// float64 divisions per pixel (scikit-image's o / k weights and the 14-bit rescale must round as
// NumPy does), about 300 instructions a pixel at half the FP32 rate, so it is partly compute-bound.
// Prediction for 4096^2 float32 with the defaults (64 regions of 512^2, 256 bins): 0.15-0.3 ms in
// all (1088 histogram blocks, 64 clip blocks of a few us, five launches), against the 2 ms target
// (scikit-image: 2,393 ms on 16 cores).
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include "kernels/core/elementwise.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/exposure/backend.hpp"

namespace cuskimage::exposure::detail {
namespace {

constexpr int kClipThreads = 256;
constexpr std::int64_t kMaxSharedBins = 12288;
constexpr std::int64_t kMaxSharedClipBins = 4096;

/// A D-dimensional strided source.
template <class T, int D>
struct Src {
  const T* p;
  std::int64_t st[D];
};

/// The grey bin of a pixel: img_as_uint, the 14-bit rescale over the uint16 range, // bin_size.
template <class T>
__device__ __forceinline__ int bin_of(T x, double umin, double umax, int bin_size) {
  return static_cast<int>(to_gray14(to_uint16(x), umin, umax)) / bin_size;
}

template <class T>
__device__ __forceinline__ void urange(const double* range, double& umin, double& umax) {
  umin = static_cast<double>(to_uint16(static_cast<T>(range[0])));
  umax = static_cast<double>(to_uint16(static_cast<T>(range[1])));
}

// ---- 2. region histograms ------------------------------------------------------------------------------

template <class T, int D>
__global__ void __launch_bounds__(256)
    region_hist_kernel(Src<T, D> src, ClaheGeom<D> g, const double* __restrict__ range, std::int64_t chunks,
                       std::int64_t rows_per_chunk, bool shared, unsigned long long* __restrict__ hist) {
  extern __shared__ unsigned int sh[];
  const std::int64_t tile = blockIdx.x / chunks, chunk = blockIdx.x - tile * chunks;
  std::int64_t tc[D];
  for (std::int64_t r = tile, d = D - 1; d >= 0; --d) {
    tc[d] = r % g.tiles[d];
    r /= g.tiles[d];
  }
  const int nthreads = blockDim.x * blockDim.y;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  if (shared) {
    for (std::int64_t i = tid; i < g.nbins; i += nthreads) sh[i] = 0;
    __syncthreads();
  }
  double umin, umax;
  urange<T>(range, umin, umax);
  const int bin_size = static_cast<int>(g.bin_size);
  unsigned long long* h = hist + tile * g.nbins;
  // Rows of the region: every axis but the last, flattened.
  std::int64_t rows = 1;
  for (int d = 0; d < D - 1; ++d) rows *= g.k[d];
  const std::int64_t r0 = chunk * rows_per_chunk, r1 = r0 + rows_per_chunk < rows ? r0 + rows_per_chunk : rows;
  const std::int64_t kw = g.k[D - 1], sw = g.shape[D - 1], cx0 = tc[D - 1] * kw;
  for (std::int64_t r = r0 + threadIdx.y; r < r1; r += blockDim.y) {
    std::int64_t off = 0;
    std::int64_t rem = r;
    for (int d = D - 2; d >= 0; --d) {
      const std::int64_t o = rem % g.k[d];
      rem /= g.k[d];
      off += reflect_index(tc[d] * g.k[d] + o, g.shape[d]) * src.st[d];
    }
    // blockDim.x == 32: a warp is one row, and every lane runs the same column steps, so the
    // whole warp takes part in each match.
    for (std::int64_t c0 = 0; c0 < kw; c0 += 32) {
      const std::int64_t c = c0 + threadIdx.x;
      int b = -1;
      if (c < kw) b = bin_of(src.p[off + reflect_index(cx0 + c, sw) * src.st[D - 1]], umin, umax, bin_size);
      if (shared) {
        // Warp aggregation: lanes with the same bin add once (flat regions are common).
        const unsigned peers = __match_any_sync(0xffffffffu, b);
        if (b >= 0 && int(threadIdx.x) == __ffs(peers) - 1) atomicAdd(&sh[b], static_cast<unsigned>(__popc(peers)));
      } else if (b >= 0) {
        atomicAdd(&h[b], 1ull);
      }
    }
  }
  if (shared) {
    __syncthreads();
    for (std::int64_t i = tid; i < g.nbins; i += nthreads)
      if (sh[i]) atomicAdd(&h[i], static_cast<unsigned long long>(sh[i]));
  }
}

// ---- 3. clip + map -------------------------------------------------------------------------------------

using ClipReduce = cub::BlockReduce<long long, kClipThreads>;
using ClipScan = cub::BlockScan<long long, kClipThreads>;

struct ClipShared {
  union {
    typename ClipReduce::TempStorage reduce;
    typename ClipScan::TempStorage scan;
  } tmp;
  long long value;
};

/// Block-wide sum, returned to every thread.
__device__ long long block_sum(ClipShared& s, long long v) {
  const long long r = ClipReduce(s.tmp.reduce).Sum(v);
  if (threadIdx.x == 0) s.value = r;
  __syncthreads();
  const long long out = s.value;
  __syncthreads();
  return out;
}

__global__ void __launch_bounds__(kClipThreads)
    clip_map_kernel(unsigned long long* __restrict__ hist, std::int64_t nb, long long clim, double scale,
                    bool shared, std::uint16_t* __restrict__ lut) {
  extern __shared__ long long shist[];
  __shared__ ClipShared s;
  long long* h = shared ? shist : reinterpret_cast<long long*>(hist + blockIdx.x * nb);
  const long long* g = reinterpret_cast<const long long*>(hist + blockIdx.x * nb);
  const int t = threadIdx.x;
  if (shared)
    for (std::int64_t b = t; b < nb; b += kClipThreads) h[b] = g[b];
  // Every bin b is read and written by thread b % kClipThreads only.
  long long part = 0;
  for (std::int64_t b = t; b < nb; b += kClipThreads)
    if (h[b] > clim) {
      part += h[b] - clim;
      h[b] = clim;
    }
  long long n_excess = block_sum(s, part);
  const long long bin_incr = n_excess / nb;
  const long long upper = clim - bin_incr;
  part = 0;
  for (std::int64_t b = t; b < nb; b += kClipThreads) {
    if (h[b] < upper) {
      h[b] += bin_incr;
      part -= bin_incr;
    }
    if (h[b] >= upper && h[b] < clim) {
      part += h[b] - clim;
      h[b] = clim;
    }
  }
  n_excess += block_sum(s, part);
  while (n_excess > 0) {
    const long long prev = n_excess;
    for (std::int64_t index = 0; index < nb; ++index) {
      long long under = 0;
      for (std::int64_t b = t; b < nb; b += kClipThreads) under += h[b] < clim;
      under = block_sum(s, under);
      if (under == 0) break;  // as clip_histogram_seq's early exits
      const long long step = under / n_excess > 1 ? under / n_excess : 1;
      long long inc = 0;
      for (std::int64_t b = t; b < nb; b += kClipThreads)
        if (b >= index && (b - index) % step == 0 && h[b] < clim) {
          ++h[b];
          ++inc;
        }
      inc = block_sum(s, inc);
      n_excess -= inc;
      if (n_excess <= 0) break;
      if (inc == 0 && step == 1) break;
    }
    if (prev == n_excess) break;
  }
  // map_histogram: the cumulative counts through clahe_map_value (chunks of the block, carried).
  long long carry = 0;
  for (std::int64_t base = 0; base < nb; base += kClipThreads) {
    const std::int64_t b = base + t;
    long long incl, chunk;
    ClipScan(s.tmp.scan).InclusiveSum(b < nb ? h[b] : 0, incl, chunk);
    if (b < nb) lut[blockIdx.x * nb + b] = clahe_map_value(carry + incl, scale);
    carry += chunk;
    __syncthreads();
  }
}

// ---- 4. interpolation ----------------------------------------------------------------------------------

template <class T, int D>
__global__ void __launch_bounds__(256)
    interpolate_kernel(Src<T, D> src, ClaheGeom<D> g, const double* __restrict__ range,
                       const std::uint16_t* __restrict__ lut, std::uint16_t* __restrict__ res,
                       unsigned int* __restrict__ cminmax) {
  double umin, umax;
  urange<T>(range, umin, umax);
  const int bin_size = static_cast<int>(g.bin_size);
  const int sx = static_cast<int>(g.shape[D - 1]), sy = static_cast<int>(g.shape[D - 2]);
  const int nz = D == 3 ? static_cast<int>(g.shape[0]) : 1;
  const int xcol = blockIdx.x * blockDim.x + threadIdx.x;
  const std::int64_t nb = g.nbins;
  unsigned lo = 0xffffffffu, hi = 0;
  const auto lk = [&](std::int64_t tile, std::int64_t b) { return __ldg(&lut[tile * nb + b]); };
  for (int z = blockIdx.z; z < nz; z += gridDim.z) {
    for (int y = blockIdx.y * blockDim.y + threadIdx.y; y < sy; y += gridDim.y * blockDim.y) {
      if (xcol >= sx) continue;
      int x[D];
      if constexpr (D == 3) {
        x[0] = z;
        x[1] = y;
        x[2] = xcol;
      } else {
        x[0] = y;
        x[1] = xcol;
      }
      std::int64_t off = 0;
#pragma unroll
      for (int d = 0; d < D; ++d) off += std::int64_t(x[d]) * src.st[d];
      const int b = bin_of(src.p[off], umin, umax, bin_size);
      const std::uint16_t v = clahe_interpolate<D, int>(g, x, b, lk);
      std::int64_t lin = 0;
#pragma unroll
      for (int d = 0; d < D; ++d) lin = lin * g.shape[d] + x[d];
      res[lin] = v;
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
  }
  // Warp, then one atomic per warp.
  for (int o = 16; o > 0; o >>= 1) {
    lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, o));
    hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, o));
  }
  if ((threadIdx.x & 31) == 0 && lo <= hi) {
    atomicMin(&cminmax[0], lo);
    atomicMax(&cminmax[1], hi);
  }
}

// ---- 5. normalization -------------------------------------------------------------------------------------

template <class F>
struct NormalizeFn {
  const unsigned int* cminmax;
  __device__ F operator()(std::uint16_t v) const {
    const RescaleResolved r{double(cminmax[0]), double(cminmax[1]), 0.0, 1.0};
    return rescale_value<F>(static_cast<F>(v), r);
  }
};

template <class T, int D>
void run(const Array& image, Array& out, const ClaheParams& p, const Stream& s) {
  const Device dev = image.device();
  ClaheGeom<D> g{};
  Src<T, D> src{static_cast<const T*>(image.data()), {}};
  for (int d = 0; d < D; ++d) {
    g.shape[d] = image.shape(d);
    g.k[d] = p.kernel_size[d];
    g.tiles[d] = (g.shape[d] + g.k[d] - 1) / g.k[d];
    src.st[d] = image.strides()[d];
  }
  g.nbins = p.nbins;
  g.bin_size = 1 + kGrayLevels / p.nbins;
  const std::int64_t ntiles = g.ntiles(), nb = p.nbins;
  std::int64_t ke = 1;
  for (int d = 0; d < D; ++d) ke *= g.k[d];

  // 1. range
  Array range = Array::empty({2}, DType::float64, dev, s);
  cuda_minmax(image, Array{}, range, s);
  const auto* rg = static_cast<const double*>(range.data());

  // 2. region histograms
  Array hist = Array::empty({ntiles * nb}, DType::uint64, dev, s);
  CUSK_CUDA_CHECK(cudaMemsetAsync(hist.data(), 0, static_cast<std::size_t>(ntiles * nb) * 8, s.handle()));
  int devi = 0, sms = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&devi));
  CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, devi));
  std::int64_t rows = 1;
  for (int d = 0; d < D - 1; ++d) rows *= g.k[d];
  const std::int64_t want = std::max<std::int64_t>(1, (std::int64_t(sms) * 8 + ntiles - 1) / ntiles);
  // At least 8 rows of work per block (the block is 32 x 8), at most `rows` chunks.
  const std::int64_t chunks = std::clamp<std::int64_t>(want, 1, std::max<std::int64_t>(1, rows / 8));
  const std::int64_t rows_per_chunk = (rows + chunks - 1) / chunks;
  const bool shared = nb <= kMaxSharedBins;
  const dim3 hb(32, 8);
  region_hist_kernel<T, D>
      <<<static_cast<unsigned>(ntiles * chunks), hb, shared ? nb * sizeof(unsigned) : 0, s.handle()>>>(
          src, g, rg, chunks, rows_per_chunk, shared, static_cast<unsigned long long*>(hist.data()));
  CUSK_CUDA_CHECK_LAUNCH();

  // 3. clip + map
  const long long clim =
      p.clip_limit > 0.0 ? static_cast<long long>(std::max(p.clip_limit * double(ke), 1.0)) : static_cast<long long>(ke);
  const double scale = double(kGrayLevels - 1) / double(ke);
  Array lut = Array::empty({ntiles * nb}, DType::uint16, dev, s);
  const bool clip_shared = nb <= kMaxSharedClipBins;
  clip_map_kernel<<<static_cast<unsigned>(ntiles), kClipThreads, clip_shared ? nb * sizeof(long long) : 0,
                    s.handle()>>>(static_cast<unsigned long long*>(hist.data()), nb, clim, scale, clip_shared,
                                  static_cast<std::uint16_t*>(lut.data()));
  CUSK_CUDA_CHECK_LAUNCH();

  // 4. interpolation
  Array res = Array::empty(image.shape(), DType::uint16, dev, s);
  Array cmm = Array::empty({2}, DType::uint32, dev, s);
  CUSK_CUDA_CHECK(cudaMemsetAsync(cmm.data(), 0xff, 4, s.handle()));
  CUSK_CUDA_CHECK(cudaMemsetAsync(static_cast<unsigned char*>(cmm.data()) + 4, 0, 4, s.handle()));
  const dim3 ib(32, 8);
  const std::int64_t sx = g.shape[D - 1], sy = g.shape[D - 2];
  const std::int64_t nz = D == 3 ? g.shape[0] : 1;
  const dim3 ig(static_cast<unsigned>((sx + 31) / 32), static_cast<unsigned>(std::min<std::int64_t>((sy + 7) / 8, 65535)),
                static_cast<unsigned>(std::min<std::int64_t>(nz, 65535)));
  interpolate_kernel<T, D><<<ig, ib, 0, s.handle()>>>(src, g, rg, static_cast<const std::uint16_t*>(lut.data()),
                                                      static_cast<std::uint16_t*>(res.data()),
                                                      static_cast<unsigned int*>(cmm.data()));
  CUSK_CUDA_CHECK_LAUNCH();

  // 5. normalization
  const auto* cp = static_cast<const unsigned int*>(cmm.data());
  if (out.dtype() == DType::float32)
    cuskimage::detail::cuda_map<std::uint16_t, float>(res, out, NormalizeFn<float>{cp}, s.handle());
  else cuskimage::detail::cuda_map<std::uint16_t, double>(res, out, NormalizeFn<double>{cp}, s.handle());
}

}  // namespace

void cuda_clahe(const Array& image, Array& out, const ClaheParams& p, const Stream& stream) {
  for (int d = 0; d < image.ndim(); ++d)
    if (image.shape(d) >= (std::int64_t(1) << 30) || p.kernel_size[d] >= (std::int64_t(1) << 30))
      cuskimage::detail::fail<NotSupported>("exposure.equalize_adapthist", "axes of 2^30 pixels or more are not supported on CUDA");
  cuskimage::detail::dispatch<cuskimage::detail::Types<std::uint8_t, std::uint16_t, float, double>>(
      image.dtype(), "exposure.equalize_adapthist", [&]<class T>() {
        if (image.ndim() == 2) run<T, 2>(image, out, p, stream);
        else run<T, 3>(image, out, p, stream);
      });
}

}  // namespace cuskimage::exposure::detail
