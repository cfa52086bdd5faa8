// CUDA backend of the frequency-domain filters (cuFFT). The per-element maps are the CUSK_HD code of
// src/filters/frequency.hpp, shared with the FFTW backend.
//
// butterworth (image of B bytes per element, N elements, float T, P padded elements per channel):
//   gather (convert + edge-pad + channel-first)  reads B*N, writes T*P      one pass
//   R2C, gain multiply (in place, 2T*P/2 each way), C2R                     cuFFT: ~2-3 passes each
//   crop + 1/N scale into the output            reads T*P, writes T*N      one pass
//   For 8192^2 float32 (npad 0): ~6 passes of 268 MB ~ 1.6 GB -> floor ~0.4 ms at 4.2 TB/s; the
//   FFTs dominate (cuFFT's 2-D R2C/C2R at this size run near bandwidth: 2-3 sweeps each).
//   Fusing the gain into a cuFFT callback would save one pass; not done (callbacks need static
//   cuFFT linking).
//   More than 3 spatial axes: the real transforms cover the last 3, and each group of up to 3
//   leading axes adds one strided C2C each way over the half spectrum (~1-2 sweeps of T*P each).
//   4-D 64^4 float32 (P = 16.8M): ~13 passes of ~67 MB ~ 0.87 GB -> floor ~0.21 ms; predicted
//   ~0.5-0.7 ms (cuFFT's 3-D batched transforms take 2-3 sweeps).
// LPIFilter2D / filter_inverse / wiener on M x N (O = (2M-1)(2N-1) ~ 4 MN complex entries, 2T bytes):
//   zero-pad into complex (writes 2T*O), forward C2C (~3 sweeps), spectral op (reads G and F, writes
//   G: 3 x 2T*O), inverse C2C (~3 sweeps), centred |.| crop (reads ~T*2MN, writes T*MN).
//   For 8192^2 float32: O ~ 268M entries x 8 B = 2.1 GB per sweep, ~10 sweeps ~ 21 GB -> floor
//   ~5 ms. scikit-image's full complex transforms are kept (a K array need not be Hermitian-
//   symmetric); the impulse response's spectrum is cached by LPIFilter2D, as scikit-image caches it.
//
// cuFFT plans come from the shared FFT layer (src/core/fft.hpp): cached per shape, work areas from
// the stream-ordered pool.
#include <cuda_runtime.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/fft.hpp"
#include "src/filters/frequency.hpp"

namespace cuskimage::filters::detail {
namespace {

[[maybe_unused]] constexpr int kThreads = 256;

[[maybe_unused]] unsigned grid_for(std::int64_t n) {
  const std::int64_t b = (n + kThreads - 1) / kThreads;
  return static_cast<unsigned>(b < 1 ? 1 : (b > 65535 * 16 ? 65535 * 16 : b));
}

#if CUSK_HAVE_CUFFT

using cuskimage::detail::dispatch;
using cuskimage::detail::Types;
using InTypes = Types<std::uint8_t, std::uint16_t, std::int16_t, std::int32_t, float, double>;

using cuskimage::detail::fft::cufft_check;
using cuskimage::detail::fft::Cufft;
using CachedPlan = cuskimage::detail::fft::CufftPlan;

CachedPlan& plan_for(cufftType type, const std::vector<long long>& extents, long long batch, long long stride = 0) {
  return cuskimage::detail::fft::cufft_plan(type, extents, batch, stride);
}

template <class Exec>
void run_plan(CachedPlan& plan, const Stream& s, Exec&& exec) {
  cuskimage::detail::fft::cufft_run(plan, s, std::forward<Exec>(exec));
}

// ---- kernels ------------------------------------------------------------------------------------

template <class In, class T>
__global__ void __launch_bounds__(kThreads)
    gather_kernel(const In* __restrict__ src, PadGather g, T* __restrict__ work, std::int64_t total) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * kThreads)
    work[i] = static_cast<T>(src[g.source(i)]);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    gain_kernel(Cplx<T>* __restrict__ spec, ButterworthGain gain, std::int64_t half, std::int64_t total) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * kThreads)
    spec[i] = cscale(spec[i], gain.at<T>(i % half));
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    scatter_kernel(const T* __restrict__ work, CropScatter c, T scale, T* __restrict__ out, std::int64_t total) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * kThreads)
    out[i] = work[c.offset(i)] * scale;
}

template <class In, class T>
__global__ void __launch_bounds__(kThreads)
    pad_complex_kernel(const In* __restrict__ src, std::int64_t m, std::int64_t n, std::int64_t s0, std::int64_t s1,
                       std::int64_t o1, Cplx<T>* __restrict__ spec, std::int64_t total) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * kThreads) {
    const std::int64_t r = i / o1, c = i - r * o1;
    spec[i] = Cplx<T>{r < m && c < n ? static_cast<T>(src[r * s0 + c * s1]) : T(0), T(0)};
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    spectral_kernel(Cplx<T>* __restrict__ g, const Cplx<T>* __restrict__ f, LpiSpectral sp, std::int64_t total) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * kThreads)
    g[i] = sp.apply(g[i], f[i], i);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    crop_abs_kernel(const Cplx<T>* __restrict__ w, LpiCrop crop, T scale, T* __restrict__ out, std::int64_t total) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * kThreads) {
    const Cplx<T> z = w[crop.source(i)];
    out[i] = hd_hypot(z.re * scale, z.im * scale);
  }
}

// ---- drivers ------------------------------------------------------------------------------------

/// A group of at most 3 leading spatial axes transformed by one strided C2C plan: `extents` (no 1s),
/// the element stride of its last axis, and `outer` blocks of `span` elements to run it on.
struct LeadGroup {
  std::vector<long long> extents;
  long long stride = 1, outer = 1, span = 1;
};

/// rfftn over more than 3 axes, which cuFFT's plans do not reach: the R2C/C2R runs over the last 3
/// axes batched over everything before them, and C2C transforms of the half spectrum cover the
/// leading axes (the n-d DFT is separable, so this is rfftn; numpy's irfftn also inverts the
/// leading axes first and the last ones with C2R).
std::vector<LeadGroup> lead_groups(const ButterworthGain& g, std::int64_t channels, std::int64_t inner) {
  std::vector<int> axes;  // leading axes of extent > 1
  for (int d = 0; d < g.rank - 3; ++d)
    if (g.n[d] > 1) axes.push_back(d);
  std::vector<LeadGroup> out;
  for (std::size_t i = 0; i < axes.size(); i += 3) {
    const std::size_t e = std::min(axes.size(), i + 3);
    LeadGroup grp;
    const int first = axes[i], last = axes[e - 1];
    grp.stride = inner;
    for (int d = last + 1; d < g.rank - 3; ++d) grp.stride *= g.n[d];
    grp.outer = channels;
    for (int d = 0; d < first; ++d) grp.outer *= g.n[d];
    grp.span = grp.stride;
    for (int d = first; d <= last; ++d) grp.span *= g.n[d];
    for (std::size_t k = i; k < e; ++k) grp.extents.push_back(g.n[axes[k]]);
    out.push_back(std::move(grp));
  }
  return out;
}

template <class T>
void lead_c2c(const std::vector<LeadGroup>& groups, T* spec, int dir, const Stream& stream) {
  for (const auto& grp : groups)
    run_plan(plan_for(Cufft<T>::c2c, grp.extents, grp.stride, grp.stride), stream, [&](cufftHandle h) {
      for (long long o = 0; o < grp.outer; ++o)
        cufft_check(Cufft<T>::cc(h, spec + 2 * o * grp.span, dir), "leading-axes C2C");
    });
}

template <class T>
void butterworth_t(const Array& image, Array& out, const ButterworthPlan& p, const Stream& s) {
  const int rank = p.gain.rank;
  const std::int64_t half = p.padded_size / p.gain.n[rank - 1] * p.gain.half_last();
  // The real transforms cover the last min(rank, 3) axes, batched over channels and leading axes.
  const int tail = std::min(rank, 3);
  std::vector<long long> n(p.gain.n + rank - tail, p.gain.n + rank);
  std::int64_t lead = 1;
  for (int d = 0; d < rank - tail; ++d) lead *= p.gain.n[d];
  const std::vector<LeadGroup> groups = lead_groups(p.gain, p.channels, half / lead);
  const Device dev = out.device();
  Array work = Array::empty({p.channels * p.padded_size}, dtype_v<T>, dev, s);
  Array spec = Array::empty({p.channels * half, 2}, dtype_v<T>, dev, s);
  T* w = work.data<T>();
  T* sp = spec.data<T>();
  const std::int64_t total = p.channels * p.padded_size;
  dispatch<InTypes>(image.dtype(), "filters.butterworth", [&]<class In>() {
    gather_kernel<In, T>
        <<<grid_for(total), kThreads, 0, s.handle()>>>(static_cast<const In*>(image.data()), p.gather, w, total);
    CUSK_CUDA_CHECK_LAUNCH();
  });
  run_plan(plan_for(Cufft<T>::r2c, n, p.channels * lead), s,
           [&](cufftHandle h) { cufft_check(Cufft<T>::fwd(h, w, sp), "R2C"); });
  lead_c2c<T>(groups, sp, CUFFT_FORWARD, s);
  const std::int64_t ns = p.channels * half;
  gain_kernel<T><<<grid_for(ns), kThreads, 0, s.handle()>>>(reinterpret_cast<Cplx<T>*>(sp), p.gain, half, ns);
  CUSK_CUDA_CHECK_LAUNCH();
  lead_c2c<T>(groups, sp, CUFFT_INVERSE, s);
  run_plan(plan_for(Cufft<T>::c2r, n, p.channels * lead), s,
           [&](cufftHandle h) { cufft_check(Cufft<T>::inv(h, sp, w), "C2R"); });
  const std::int64_t m = out.size();
  scatter_kernel<T><<<grid_for(m), kThreads, 0, s.handle()>>>(
      w, p.scatter, static_cast<T>(1.0 / static_cast<double>(p.padded_size)), out.data<T>(), m);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class T>
void lpi_spectrum_t(const Array& src, Array& spec, const Stream& stream) {
  const std::int64_t o0 = spec.shape(0), o1 = spec.shape(1), total = o0 * o1;
  auto* sp = reinterpret_cast<Cplx<T>*>(spec.data<T>());
  dispatch<InTypes>(src.dtype(), "filters.LPIFilter2D", [&]<class In>() {
    pad_complex_kernel<In, T><<<grid_for(total), kThreads, 0, stream.handle()>>>(
        static_cast<const In*>(src.data()), src.shape(0), src.shape(1), src.strides()[0], src.strides()[1], o1, sp,
        total);
    CUSK_CUDA_CHECK_LAUNCH();
  });
  run_plan(plan_for(Cufft<T>::c2c, {o0, o1}, 1), stream,
           [&](cufftHandle h) { cufft_check(Cufft<T>::cc(h, spec.data<T>(), CUFFT_FORWARD), "forward C2C"); });
}

template <class T>
void lpi_finish_t(Array& G, const Array& F, const LpiSpectral& spc, const LpiCrop& crop, Array& out,
                  const Stream& stream) {
  const std::int64_t total = crop.o0 * crop.o1;
  auto* g = reinterpret_cast<Cplx<T>*>(G.data<T>());
  spectral_kernel<T>
      <<<grid_for(total), kThreads, 0, stream.handle()>>>(g, reinterpret_cast<const Cplx<T>*>(F.data<T>()), spc, total);
  CUSK_CUDA_CHECK_LAUNCH();
  run_plan(plan_for(Cufft<T>::c2c, {crop.o0, crop.o1}, 1), stream,
           [&](cufftHandle h) { cufft_check(Cufft<T>::cc(h, G.data<T>(), CUFFT_INVERSE), "inverse C2C"); });
  const std::int64_t m = crop.rows * crop.cols;
  crop_abs_kernel<T><<<grid_for(m), kThreads, 0, stream.handle()>>>(
      g, crop, static_cast<T>(1.0 / static_cast<double>(total)), out.data<T>(), m);
  CUSK_CUDA_CHECK_LAUNCH();
}

#else

[[noreturn]] void no_cufft() {
  throw NotSupported("filters: the frequency-domain filters need cuFFT on CUDA arrays; this build has none");
}

#endif  // CUSK_HAVE_CUFFT

}  // namespace

void cuda_butterworth(const Array& image, Array& out, const ButterworthPlan& plan, const Stream& stream) {
#if CUSK_HAVE_CUFFT
  if (out.dtype() == DType::float32) butterworth_t<float>(image, out, plan, stream);
  else butterworth_t<double>(image, out, plan, stream);
#else
  (void)image, (void)out, (void)plan, (void)stream;
  no_cufft();
#endif
}

void cuda_lpi_spectrum(const Array& src, Array& spec, const Stream& stream) {
#if CUSK_HAVE_CUFFT
  if (spec.dtype() == DType::float32) lpi_spectrum_t<float>(src, spec, stream);
  else lpi_spectrum_t<double>(src, spec, stream);
#else
  (void)src, (void)spec, (void)stream;
  no_cufft();
#endif
}

void cuda_lpi_finish(Array& G, const Array& F, const LpiSpectral& sp, const LpiCrop& crop, Array& out,
                     const Stream& stream) {
#if CUSK_HAVE_CUFFT
  if (out.dtype() == DType::float32) lpi_finish_t<float>(G, F, sp, crop, out, stream);
  else lpi_finish_t<double>(G, F, sp, crop, out, stream);
#else
  (void)G, (void)F, (void)sp, (void)crop, (void)out, (void)stream;
  no_cufft();
#endif
}

}  // namespace cuskimage::filters::detail
