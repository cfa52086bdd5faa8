// CUDA backend of skimage.exposure's element-wise maps, histograms, equalize_hist, colour helpers,
// order statistics and histogram matching. Everything stays on the device: ranges live in a
// float64[2] device buffer that the later kernels read, so no value crosses to the host except
// is_low_contrast's order statistics (its result is a host bool).
//
// Bytes moved (8192^2 float32 = 268 MB): rescale_intensity "image" reads it twice (range, map) and
// writes once -> 0.19 ms floor at 4.2 TB/s; adjust_* read + write once -> 0.13 ms; histogram /
// equalize_hist read 2-3 times (range, counts, apply) -> 0.19-0.26 ms. The histograms privatize
// counts in shared memory (up to 12288 bins per block), else global atomics.
#include <cuda_runtime.h>

#include <algorithm>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <limits>

#include "kernels/core/buffers.cuh"
#include "kernels/core/iota.cuh"
#include "kernels/core/elementwise.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"
#include "src/exposure/backend.hpp"
#include "src/util/dtype_math.hpp"

namespace cuskimage::exposure::detail {
namespace {

using cuskimage::detail::cuda_map;
using cuskimage::detail::dispatch;
using cuskimage::detail::layout_of;
using cuskimage::detail::Types;
template <class T>
using Reader = cuskimage::detail::StridedReader<T>;

constexpr int kThreads = 256;
constexpr std::int64_t kMaxSharedBins = 12288;

template <class T>
Reader<T> reader(const Array& a) {
  const auto L = layout_of({&a});
  return Reader<T>{static_cast<const T*>(a.data()), L.indexer(0), L.contiguous(0)};
}

int grid_for(std::int64_t n) {
  int dev = 0, sms = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const std::int64_t want = (n + kThreads * 8 - 1) / (kThreads * 8);
  return static_cast<int>(std::clamp<std::int64_t>(want, 1, std::int64_t(sms) * 4));
}

Array scratch(std::size_t bytes, Device dev, const Stream& stream) {
  return cuskimage::detail::buf::scratch(bytes, dev, stream);
}

// ---- min / max ------------------------------------------------------------------------------------

struct MinMaxAcc {
  double lo, hi;
  int nan, any;
};
struct MinMaxCombine {
  __device__ MinMaxAcc operator()(const MinMaxAcc& a, const MinMaxAcc& b) const {
    return {b.lo < a.lo ? b.lo : a.lo, b.hi > a.hi ? b.hi : a.hi, a.nan | b.nan, a.any | b.any};
  }
};

template <class T>
__global__ void __launch_bounds__(kThreads)
    minmax_kernel(Reader<T> rd, Reader<bool> mk, bool masked, std::int64_t n, MinMaxAcc* __restrict__ partials) {
  MinMaxAcc a{INFINITY, -INFINITY, 0, 0};
  const std::int64_t stride = std::int64_t(gridDim.x) * kThreads;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride) {
    if (masked && !mk(i)) continue;
    const double v = static_cast<double>(rd(i));
    a.any = 1;
    a.nan |= v != v;
    a.lo = v < a.lo ? v : a.lo;
    a.hi = v > a.hi ? v : a.hi;
  }
  using BR = cub::BlockReduce<MinMaxAcc, kThreads>;
  __shared__ typename BR::TempStorage tmp;
  const MinMaxAcc r = BR(tmp).Reduce(a, MinMaxCombine{});
  if (threadIdx.x == 0) partials[blockIdx.x] = r;
}

__global__ void __launch_bounds__(kThreads)
    minmax_finish_kernel(const MinMaxAcc* __restrict__ partials, int count, double* __restrict__ range) {
  MinMaxAcc a{INFINITY, -INFINITY, 0, 0};
  for (int i = threadIdx.x; i < count; i += kThreads) a = MinMaxCombine{}(a, partials[i]);
  using BR = cub::BlockReduce<MinMaxAcc, kThreads>;
  __shared__ typename BR::TempStorage tmp;
  const MinMaxAcc r = BR(tmp).Reduce(a, MinMaxCombine{});
  if (threadIdx.x == 0) {
    // No pixel (an all-false mask): NaN, which every later step propagates.
    range[0] = r.nan || !r.any ? NAN : r.lo;
    range[1] = r.nan || !r.any ? NAN : r.hi;
  }
}

template <class T>
void minmax_t(const Array& image, const Array& mask, Array& range, const Stream& stream) {
  const std::int64_t n = image.size();
  const int blocks = grid_for(n);
  Array partials = scratch(sizeof(MinMaxAcc) * blocks, image.device(), stream);
  const bool masked = mask.valid();
  minmax_kernel<T><<<blocks, kThreads, 0, stream.handle()>>>(reader<T>(image),
                                                             masked ? reader<bool>(mask) : Reader<bool>{}, masked, n,
                                                             static_cast<MinMaxAcc*>(partials.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  minmax_finish_kernel<<<1, kThreads, 0, stream.handle()>>>(static_cast<const MinMaxAcc*>(partials.data()), blocks,
                                                            static_cast<double*>(range.data()));
  CUSK_CUDA_CHECK_LAUNCH();
}

// ---- element-wise ------------------------------------------------------------------------------------

template <class T, class O>
struct RescaleFn {
  RescaleSpec spec;
  const double* range;
  __device__ O operator()(T x) const {
    const RescaleResolved r = resolve(spec, range[0], range[1]);
    return cuskimage::detail::convert<O>(rescale_value<comp_t<T>>(x, r));
  }
};

struct LutFn {
  GammaLut lut;
  __device__ std::uint8_t operator()(std::uint8_t x) const { return lut.v[x]; }
};

// ---- histograms --------------------------------------------------------------------------------------

template <class T>
__device__ __forceinline__ FloatBins<T> bins_of(const double* range, std::int64_t nbins) {
  if (range) return FloatBins<T>::make(static_cast<T>(range[0]), static_cast<T>(range[1]), nbins, true);
  return FloatBins<T>::make(T(-1), T(1), nbins, false);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    hist_kernel(Reader<T> rd, Reader<bool> mk, bool masked, std::int64_t n, std::int64_t channels, std::int64_t lo,
                std::int64_t nbins, const double* range, bool shared, unsigned long long* __restrict__ counts) {
  extern __shared__ unsigned int sh[];
  const std::int64_t total = channels * nbins;
  FloatBins<T> bins;
  if constexpr (std::is_floating_point_v<T>) {
    bins = bins_of<T>(range, nbins);
    if (range && !(range[0] == range[0])) return;  // NaN range: NumPy raises; nothing is counted
  }
  if (shared) {
    for (std::int64_t i = threadIdx.x; i < total; i += kThreads) sh[i] = 0;
    __syncthreads();
  }
  const std::int64_t stride = std::int64_t(gridDim.x) * kThreads;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride) {
    if (masked && !mk(i)) continue;
    const T v = rd(i);
    std::int64_t b;
    if constexpr (std::is_floating_point_v<T>) b = bins.index(v);
    else b = static_cast<std::int64_t>(v) - lo;
    if (b < 0 || b >= nbins) continue;
    const std::int64_t idx = (channels == 1 ? 0 : (i % channels) * nbins) + b;
    if (shared) atomicAdd(&sh[idx], 1u);
    else atomicAdd(&counts[idx], 1ull);
  }
  if (shared) {
    __syncthreads();
    for (std::int64_t i = threadIdx.x; i < total; i += kThreads)
      if (sh[i]) atomicAdd(&counts[i], static_cast<unsigned long long>(sh[i]));
  }
}

template <class T>
__global__ void centers_kernel(const double* range, std::int64_t nbins, T* __restrict__ centers) {
  const FloatBins<T> bins = bins_of<T>(range, nbins);
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < nbins;
       i += std::int64_t(gridDim.x) * blockDim.x)
    centers[i] = bins.center(i);
}

/// One block per row: normalized counts or the cdf (block scan over chunks of the row).
template <class F>
__global__ void __launch_bounds__(kThreads)
    counts_to_kernel(const std::int64_t* __restrict__ counts, std::int64_t nb, bool cumulative, F* __restrict__ out) {
  const std::int64_t* h = counts + blockIdx.x * nb;
  F* o = out + blockIdx.x * nb;
  using BR = cub::BlockReduce<long long, kThreads>;
  using BS = cub::BlockScan<long long, kThreads>;
  __shared__ union {
    typename BR::TempStorage r;
    typename BS::TempStorage s;
  } tmp;
  __shared__ long long total_sh, carry_sh;
  long long part = 0;
  for (std::int64_t i = threadIdx.x; i < nb; i += kThreads) part += h[i];
  const long long total = BR(tmp.r).Sum(part);
  if (threadIdx.x == 0) {
    total_sh = total;
    carry_sh = 0;
  }
  __syncthreads();
  const double t = static_cast<double>(total_sh);
  if (!cumulative) {
    for (std::int64_t i = threadIdx.x; i < nb; i += kThreads) o[i] = static_cast<F>(static_cast<double>(h[i]) / t);
    return;
  }
  for (std::int64_t base = 0; base < nb; base += kThreads) {
    const std::int64_t i = base + threadIdx.x;
    const long long v = i < nb ? h[i] : 0;
    long long incl, chunk;
    BS(tmp.s).InclusiveSum(v, incl, chunk);
    const long long cum = carry_sh + incl;
    if (i < nb) o[i] = static_cast<F>(static_cast<double>(cum) / t);
    __syncthreads();
    if (threadIdx.x == 0) carry_sh += chunk;
    __syncthreads();
  }
}

template <class T, class F>
struct EqualizeIntFn {
  std::int64_t lo;
  const double* range;
  const F* cdf;
  __device__ F operator()(T x) const {
    const std::int64_t mn = static_cast<std::int64_t>(range[0]), mx = static_cast<std::int64_t>(range[1]);
    if (!(range[0] == range[0])) return F(NAN);
    std::int64_t v = static_cast<std::int64_t>(x);
    v = v < mn ? mn : (v > mx ? mx : v);
    return cdf[v - lo];
  }
};

template <class T, class F>
struct EqualizeFloatFn {
  const double* range;
  const F* cdf;
  std::int64_t n;
  __device__ F operator()(T x) const {
    const FloatBins<T> bins = FloatBins<T>::make(static_cast<T>(range[0]), static_cast<T>(range[1]), n, true);
    const double r = np_interp(
        static_cast<double>(x), [&](std::int64_t i) { return static_cast<double>(bins.center(i)); },
        [&](std::int64_t i) { return static_cast<double>(cdf[i]); }, n);
    return static_cast<F>(r);
  }
};

// ---- colour ------------------------------------------------------------------------------------------

template <class T, int Mode>  // 0: rgb -> hsv, 1: rgb(a) -> gray
__global__ void __launch_bounds__(kThreads)
    colour_kernel(Reader<T> rd, std::int64_t C, std::int64_t n, comp_t<T>* __restrict__ out) {
  using F = comp_t<T>;
  const util::detail::ImgConvert<T, F> cv{};
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads) {
    F r = cv(rd(i * C)), g = cv(rd(i * C + 1)), b = cv(rd(i * C + 2));
    if constexpr (Mode == 0) {
      F h, s, v;
      rgb_to_hsv<F>(r, g, b, h, s, v);
      out[3 * i] = h;
      out[3 * i + 1] = s;
      out[3 * i + 2] = v;
    } else {
      if (C == 4) {
        const F a = cv(rd(i * C + 3));
        r = rgba_blend(r, a);
        g = rgba_blend(g, a);
        b = rgba_blend(b, a);
      }
      out[i] = rgb_to_gray(r, g, b);
    }
  }
}

template <class F>
__global__ void __launch_bounds__(kThreads) hsv_rgb_kernel(const F* __restrict__ hsv, std::int64_t n, F* __restrict__ rgb) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads)
    hsv_to_rgb<F>(hsv[3 * i], hsv[3 * i + 1], hsv[3 * i + 2], rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
}

// ---- histogram matching ---------------------------------------------------------------------------------

/// head[i] = 1 where sorted key i starts a run of equal values.
__global__ void heads_kernel(const double* __restrict__ k, std::int64_t n, std::int64_t* __restrict__ head) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads)
    head[i] = (i == 0 || !(k[i] == k[i - 1])) ? 1 : 0;
}

/// At the last element of each run r (run = rid - 1): q[r] = (i + 1) / n, and v[r] = the value.
__global__ void run_ends_kernel(const double* __restrict__ k, const std::int64_t* __restrict__ rid, std::int64_t n,
                                double* __restrict__ q, double* __restrict__ v) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads) {
    if (i == n - 1 || !(k[i + 1] == k[i])) {
      q[rid[i] - 1] = static_cast<double>(i + 1) / static_cast<double>(n);
      if (v) v[rid[i] - 1] = k[i];
    }
  }
}

__global__ void interp_runs_kernel(const double* __restrict__ q, const std::int64_t* __restrict__ src_runs,
                                   const double* __restrict__ tq, const double* __restrict__ tv,
                                   const std::int64_t* __restrict__ tmpl_runs, double* __restrict__ mapped) {
  const std::int64_t runs = *src_runs, m = *tmpl_runs;
  for (std::int64_t r = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; r < runs; r += std::int64_t(gridDim.x) * kThreads)
    mapped[r] = np_interp(
        q[r], [&](std::int64_t j) { return tq[j]; }, [&](std::int64_t j) { return tv[j]; }, m);
}

__global__ void scatter_kernel(const std::int64_t* __restrict__ order, const std::int64_t* __restrict__ rid,
                               const double* __restrict__ mapped, std::int64_t n, double* __restrict__ out,
                               cuskimage::detail::Indexer oi, bool contiguous) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kThreads) {
    const std::int64_t j = order[i];
    out[contiguous ? j : oi.offset(j)] = mapped[rid[i] - 1];
  }
}

/// Sorted float64 keys of `a` (and the C-order positions they came from, when `order` is given);
/// runs: rid (1-based run of each sorted element).
struct Sorted {
  Array keys, order, rid;
};

Sorted sort_runs(const Array& a, bool with_order, const Stream& s) {
  const Device dev = a.device();
  const std::int64_t n = a.size();
  const Array k0 = a.astype(DType::float64, s);
  Sorted r;
  r.keys = Array::empty({n}, DType::float64, dev, s);
  const int g = grid_for(n);
  std::size_t bytes = 0;
  const auto* kin = static_cast<const double*>(k0.data());
  auto* kout = static_cast<double*>(r.keys.data());
  if (with_order) {
    Array o0 = Array::empty({n}, DType::int64, dev, s);
    cuskimage::detail::device_iota(static_cast<std::int64_t*>(o0.data()), n, s);
    r.order = Array::empty({n}, DType::int64, dev, s);
    const auto* oin = static_cast<const std::int64_t*>(o0.data());
    auto* oout = static_cast<std::int64_t*>(r.order.data());
    CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, kin, kout, oin, oout, n, 0, 64, s.handle()));
    Array tmp = scratch(bytes, dev, s);
    CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, kin, kout, oin, oout, n, 0, 64, s.handle()));
  } else {
    CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, kin, kout, n, 0, 64, s.handle()));
    Array tmp = scratch(bytes, dev, s);
    CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(tmp.data(), bytes, kin, kout, n, 0, 64, s.handle()));
  }
  Array head = Array::empty({n}, DType::int64, dev, s);
  heads_kernel<<<g, kThreads, 0, s.handle()>>>(kout, n, static_cast<std::int64_t*>(head.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  r.rid = Array::empty({n}, DType::int64, dev, s);
  const auto* hp = static_cast<const std::int64_t*>(head.data());
  auto* rp = static_cast<std::int64_t*>(r.rid.data());
  bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, hp, rp, n, s.handle()));
  Array tmp = scratch(bytes, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(tmp.data(), bytes, hp, rp, n, s.handle()));
  return r;
}

}  // namespace

void cuda_minmax(const Array& image, const Array& mask, Array& range, const Stream& stream) {
  if (image.dtype() == DType::bool_) {
    minmax_t<bool>(image, mask, range, stream);
    return;
  }
  dispatch<ImageTypes>(image.dtype(), "exposure", [&]<class T>() { minmax_t<T>(image, mask, range, stream); });
}

void cuda_rescale(const Array& image, Array& out, const RescaleSpec& spec, const Array& range, const Stream& stream) {
  dispatch<ImageTypes>(image.dtype(), "exposure.rescale_intensity", [&]<class T>() {
    const auto* rg = static_cast<const double*>(range.data());
    if (out.dtype() == image.dtype()) cuda_map<T, T>(image, out, RescaleFn<T, T>{spec, rg}, stream.handle());
    else cuda_map<T, comp_t<T>>(image, out, RescaleFn<T, comp_t<T>>{spec, rg}, stream.handle());
  });
}

void cuda_adjust(const Array& image, Array& out, AdjustKind kind, double a, double b, const Stream& stream) {
  if (kind == AdjustKind::gamma && image.dtype() == DType::uint8) {
    cuda_map<std::uint8_t, std::uint8_t>(image, out, LutFn{gamma_lut(a, b)}, stream.handle());
    return;
  }
  dispatch<ImageTypes>(image.dtype(), "exposure.adjust", [&]<class T>() {
    using C = comp_t<T>;
    double scale = 1.0;
    if constexpr (std::is_integral_v<T>) scale = static_cast<double>(std::numeric_limits<T>::max());
    cuda_map<T, T>(image, out, AdjustOp<T>{kind, static_cast<C>(scale), static_cast<C>(a), static_cast<C>(b)},
                   stream.handle());
  });
}

void cuda_histogram(const Array& image, const Array& mask, std::int64_t channels, std::int64_t lo, std::int64_t nbins,
                    const Array* range, Array& counts, const Stream& stream) {
  const std::int64_t total = channels * nbins;
  CUSK_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, static_cast<std::size_t>(total) * 8, stream.handle()));
  dispatch<ImageTypes>(image.dtype(), "exposure.histogram", [&]<class T>() {
    const std::int64_t n = image.size();
    const bool shared = total <= kMaxSharedBins;
    const bool masked = mask.valid();
    hist_kernel<T><<<grid_for(n), kThreads, shared ? total * sizeof(unsigned int) : 0, stream.handle()>>>(
        reader<T>(image), masked ? reader<bool>(mask) : Reader<bool>{}, masked, n, channels, lo, nbins,
        range ? static_cast<const double*>(range->data()) : nullptr, shared,
        static_cast<unsigned long long*>(counts.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  });
}

void cuda_float_centers(const Array* range, std::int64_t nbins, Array& centers, const Stream& stream) {
  dispatch<Types<float, double>>(centers.dtype(), "exposure.histogram", [&]<class T>() {
    const int blocks = static_cast<int>(std::min<std::int64_t>((nbins + kThreads - 1) / kThreads, 1024));
    centers_kernel<T><<<blocks, kThreads, 0, stream.handle()>>>(
        range ? static_cast<const double*>(range->data()) : nullptr, nbins, static_cast<T*>(centers.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  });
}

void cuda_counts_to(const Array& counts, Array& out, bool cumulative, const Stream& stream) {
  const auto rows = static_cast<unsigned>(counts.shape(0));
  const std::int64_t nb = counts.shape(1);
  const auto* c = static_cast<const std::int64_t*>(counts.data());
  if (out.dtype() == DType::float32)
    counts_to_kernel<float><<<rows, kThreads, 0, stream.handle()>>>(c, nb, cumulative, static_cast<float*>(out.data()));
  else
    counts_to_kernel<double>
        <<<rows, kThreads, 0, stream.handle()>>>(c, nb, cumulative, static_cast<double*>(out.data()));
  CUSK_CUDA_CHECK_LAUNCH();
}

void cuda_equalize_apply(const Array& image, std::int64_t lo, const Array& range, const Array& cdf, Array& out,
                         const Stream& stream) {
  const auto* rg = static_cast<const double*>(range.data());
  dispatch<ImageTypes>(image.dtype(), "exposure.equalize_hist", [&]<class T>() {
    auto go = [&]<class F>() {
      const F* fp = static_cast<const F*>(cdf.data());
      if constexpr (std::is_integral_v<T>) cuda_map<T, F>(image, out, EqualizeIntFn<T, F>{lo, rg, fp}, stream.handle());
      else cuda_map<T, F>(image, out, EqualizeFloatFn<T, F>{rg, fp, cdf.size()}, stream.handle());
    };
    if (out.dtype() == DType::float32) go.template operator()<float>();
    else go.template operator()<double>();
  });
}

void cuda_rgb_to_hsv(const Array& rgb, Array& hsv, const Stream& stream) {
  dispatch<ImageTypes>(rgb.dtype(), "exposure.equalize_adapthist", [&]<class T>() {
    const std::int64_t C = rgb.shape(-1), n = rgb.size() / C;
    colour_kernel<T, 0>
        <<<grid_for(n), kThreads, 0, stream.handle()>>>(reader<T>(rgb), C, n, static_cast<comp_t<T>*>(hsv.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  });
}

void cuda_hsv_to_rgb(const Array& hsv, Array& rgb, const Stream& stream) {
  dispatch<Types<float, double>>(hsv.dtype(), "exposure.equalize_adapthist", [&]<class F>() {
    const std::int64_t n = hsv.size() / 3;
    hsv_rgb_kernel<F><<<grid_for(n), kThreads, 0, stream.handle()>>>(static_cast<const F*>(hsv.data()), n,
                                                                     static_cast<F*>(rgb.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  });
}

void cuda_rgb_to_gray(const Array& rgb, Array& out, const Stream& stream) {
  dispatch<ImageTypes>(rgb.dtype(), "exposure.is_low_contrast", [&]<class T>() {
    const std::int64_t C = rgb.shape(-1), n = rgb.size() / C;
    colour_kernel<T, 1>
        <<<grid_for(n), kThreads, 0, stream.handle()>>>(reader<T>(rgb), C, n, static_cast<comp_t<T>*>(out.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  });
}

std::vector<double> cuda_order_statistics(const Array& image, const std::vector<std::int64_t>& positions,
                                          const Stream& s) {
  const Sorted sorted = sort_runs(image, false, s);
  std::vector<double> r;
  std::vector<Array> picks;
  for (auto p : positions) picks.push_back(sorted.keys.slice({Slice{p, p + 1}}).to(Device::cpu(), s));
  s.synchronize();
  for (const auto& a : picks) r.push_back(*static_cast<const double*>(a.data()));
  return r;
}

void cuda_match(const Array& source, const Array& tmpl, Array& out, const Stream& s) {
  const Device dev = source.device();
  const std::int64_t n = source.size(), m = tmpl.size();
  const Sorted src = sort_runs(source, true, s);
  const Sorted tp = sort_runs(tmpl, false, s);
  Array q = Array::empty({n}, DType::float64, dev, s);
  Array tq = Array::empty({m}, DType::float64, dev, s);
  Array tv = Array::empty({m}, DType::float64, dev, s);
  const auto* srid = static_cast<const std::int64_t*>(src.rid.data());
  const auto* trid = static_cast<const std::int64_t*>(tp.rid.data());
  run_ends_kernel<<<grid_for(n), kThreads, 0, s.handle()>>>(static_cast<const double*>(src.keys.data()), srid, n,
                                                            static_cast<double*>(q.data()), nullptr);
  CUSK_CUDA_CHECK_LAUNCH();
  run_ends_kernel<<<grid_for(m), kThreads, 0, s.handle()>>>(static_cast<const double*>(tp.keys.data()), trid, m,
                                                            static_cast<double*>(tq.data()),
                                                            static_cast<double*>(tv.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  Array mapped = Array::empty({n}, DType::float64, dev, s);
  // The run counts are the last run ids; kernels read them from device memory.
  interp_runs_kernel<<<grid_for(n), kThreads, 0, s.handle()>>>(
      static_cast<const double*>(q.data()), srid + (n - 1), static_cast<const double*>(tq.data()),
      static_cast<const double*>(tv.data()), trid + (m - 1), static_cast<double*>(mapped.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  const auto L = layout_of({&out});
  scatter_kernel<<<grid_for(n), kThreads, 0, s.handle()>>>(
      static_cast<const std::int64_t*>(src.order.data()), srid, static_cast<const double*>(mapped.data()), n,
      static_cast<double*>(out.data()), L.indexer(0), L.contiguous(0));
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::exposure::detail
