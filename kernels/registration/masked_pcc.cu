// CUDA backend of phase_cross_correlation's masked variant (masked normalized cross-correlation):
// the six padded real inputs in one gather pass, one batched R2C plan (batch 6), the six spectral
// products in one pass, one batched C2R plan, then the per-element combination (pcc.hpp's
// masked_terms / masked_value, shared with the FFTW backend) with three small device reductions
// (max denominator and overlap; max correlation; mean position of the maxima), each read back as
// a few scalars. P padded elements of T: ~6 x (gather 1 + R2C ~3 + product 1 + C2R ~3) sweeps of
// T*P plus ~4 of the final region; no performance target (scikit-image's variant is O(10 FFTs)).
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <limits>
#include <string>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/fft.hpp"
#include "src/registration/pcc.hpp"

namespace cuskimage::registration::detail {
namespace {

constexpr int kThreads = 256;

#if CUSK_HAVE_CUFFT
namespace fft = cuskimage::detail::fft;

unsigned blocks_for(std::int64_t n) { return cuskimage::detail::grid_blocks(n, kThreads, 4096); }

/// Shapes of the padded grid, the final region and the two images (row-major unravelling).
struct Grid {
  int nd = 0;
  std::int64_t fast[kMaxPccDims] = {}, fin[kMaxPccDims] = {}, fs[kMaxPccDims] = {}, ms[kMaxPccDims] = {};

  CUSK_HD void unravel(std::int64_t i, const std::int64_t* shape, std::int64_t* c) const {
    for (int d = kMaxPccDims - 1; d >= 0; --d) {
      if (d >= nd) continue;
      c[d] = i % shape[d];
      i /= shape[d];
    }
  }
  CUSK_HD std::int64_t ravel(const std::int64_t* c, const std::int64_t* shape) const {
    std::int64_t o = 0;
    for (int d = 0; d < kMaxPccDims; ++d)
      if (d < nd) o = o * shape[d] + c[d];
    return o;
  }
};

enum Slot { kFixed, kRotMoving, kFixedMask, kRotMovingMask, kFixedSq, kRotMovingSq };

template <class T>
__global__ void __launch_bounds__(kThreads)
    gather_kernel(const T* __restrict__ f, const T* __restrict__ fm, const T* __restrict__ m, const T* __restrict__ mm,
                  Grid g, std::int64_t P, T* __restrict__ buf) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < P;
       i += std::int64_t(gridDim.x) * kThreads) {
    std::int64_t c[kMaxPccDims];
    g.unravel(i, g.fast, c);
    bool in_f = true, in_m = true;
    for (int d = 0; d < g.nd; ++d) in_f = in_f && c[d] < g.fs[d], in_m = in_m && c[d] < g.ms[d];
    T fv = 0, fmv = 0, mv = 0, mmv = 0;
    if (in_f) {
      const std::int64_t o = g.ravel(c, g.fs);
      fmv = fm[o];
      fv = fmv != T(0) ? f[o] : T(0);
    }
    if (in_m) {  // the moving image flipped on every axis
      std::int64_t r[kMaxPccDims];
      for (int d = 0; d < g.nd; ++d) r[d] = g.ms[d] - 1 - c[d];
      const std::int64_t o = g.ravel(r, g.ms);
      mmv = mm[o];
      mv = mmv != T(0) ? m[o] : T(0);
    }
    buf[kFixed * P + i] = fv, buf[kFixedMask * P + i] = fmv, buf[kFixedSq * P + i] = fv * fv;
    buf[kRotMoving * P + i] = mv, buf[kRotMovingMask * P + i] = mmv, buf[kRotMovingSq * P + i] = mv * mv;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    products_kernel(const Cplx<T>* __restrict__ S, std::int64_t H, Cplx<T>* __restrict__ Q) {
  constexpr int lhs[6] = {kRotMovingMask, kRotMovingMask, kFixedMask, kRotMoving, kRotMovingMask, kFixedMask};
  constexpr int rhs[6] = {kFixedMask, kFixed, kRotMoving, kFixed, kFixedSq, kRotMovingSq};
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < H;
       i += std::int64_t(gridDim.x) * kThreads)
    for (int k = 0; k < 6; ++k) Q[k * H + i] = filters::detail::cmul(S[lhs[k] * H + i], S[rhs[k] * H + i]);
}

/// Terms of the final region (overlap, numerator, denominator into three arrays) and per-block
/// maxima of the denominator and the overlap.
template <class T>
__global__ void __launch_bounds__(kThreads) terms_kernel(const T* __restrict__ buf, Grid g, std::int64_t P,
                                                         std::int64_t F, T scale, T* __restrict__ terms,
                                                         T* __restrict__ block_max) {
  T md = 0, mo = -std::numeric_limits<T>::infinity();
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < F;
       i += std::int64_t(gridDim.x) * kThreads) {
    std::int64_t c[kMaxPccDims];
    g.unravel(i, g.fin, c);
    const std::int64_t o = g.ravel(c, g.fast);
    const MaskedTerms<T> t = masked_terms<T>(buf[o] * scale, buf[P + o] * scale, buf[2 * P + o] * scale,
                                             buf[3 * P + o] * scale, buf[4 * P + o] * scale, buf[5 * P + o] * scale);
    terms[i] = t.overlap, terms[F + i] = t.numerator, terms[2 * F + i] = t.denom;
    md = ::fmax(md, t.denom), mo = ::fmax(mo, t.overlap);
  }
  using Reduce = cub::BlockReduce<T, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  md = Reduce(tmp).Reduce(md, [](T a, T b) { return ::fmax(a, b); });
  __syncthreads();
  mo = Reduce(tmp).Reduce(mo, [](T a, T b) { return ::fmax(a, b); });
  if (threadIdx.x == 0) block_max[2 * blockIdx.x] = md, block_max[2 * blockIdx.x + 1] = mo;
}

template <class T>
__global__ void __launch_bounds__(kThreads) value_kernel(T* __restrict__ terms, std::int64_t F, T tol, T thr,
                                                         T* __restrict__ block_max) {
  T best = -std::numeric_limits<T>::infinity();
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < F;
       i += std::int64_t(gridDim.x) * kThreads) {
    const MaskedTerms<T> t{terms[i], terms[F + i], terms[2 * F + i]};
    const T v = masked_value(t, tol, thr);
    terms[i] = v;  // the overlap is not needed any more
    best = ::fmax(best, v);
  }
  using Reduce = cub::BlockReduce<T, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  best = Reduce(tmp).Reduce(best, [](T a, T b) { return ::fmax(a, b); });
  if (threadIdx.x == 0) block_max[blockIdx.x] = best;
}

/// Count and coordinate sums of the entries equal to the maximum: sums[0] = count, sums[1 + d].
template <class T>
__global__ void __launch_bounds__(kThreads)
    center_kernel(const T* __restrict__ values, Grid g, std::int64_t F, T best, double* __restrict__ sums) {
  double acc[kMaxPccDims + 1] = {};
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < F;
       i += std::int64_t(gridDim.x) * kThreads) {
    if (values[i] != best) continue;
    std::int64_t c[kMaxPccDims];
    g.unravel(i, g.fin, c);
    acc[0] += 1;
    for (int d = 0; d < g.nd; ++d) acc[1 + d] += static_cast<double>(c[d]);
  }
  for (int k = 0; k <= g.nd; ++k)
    if (acc[k] != 0) atomicAdd(sums + k, acc[k]);
}

template <class T>
std::vector<T> download(const Array& a, const Stream& s) {
  std::vector<T> v(a.size());
  CUSK_CUDA_CHECK(cudaMemcpyAsync(v.data(), a.data(), v.size() * sizeof(T), cudaMemcpyDeviceToHost, s.handle()));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s.handle()));
  return v;
}

template <class T>
std::vector<double> masked_t(const Array& fixed, const Array& moving, const Array& fmask, const Array& mmask,
                             double overlap_ratio, const Stream& s) {
  Grid g;
  g.nd = fixed.ndim();
  int rank = 0;
  std::vector<long long> ext;
  for (int d = 0; d < g.nd; ++d) {
    g.fs[d] = fixed.shape(d), g.ms[d] = moving.shape(d);
    g.fin[d] = g.fs[d] + g.ms[d] - 1;
    g.fast[d] = next_fast_len(g.fin[d]);
    ext.push_back(g.fast[d]);
    rank += g.fast[d] > 1 ? 1 : 0;
  }
  if (rank > 3 || g.nd > kMaxPccDims)
    throw NotSupported("registration.phase_cross_correlation: masked, CUDA arrays take at most 3 axes (cuFFT)");
  const Device dev = fixed.device();
  const std::int64_t P = shape_size(Shape(ext.begin(), ext.end()));
  const std::int64_t H = P / g.fast[g.nd - 1] * (g.fast[g.nd - 1] / 2 + 1);
  std::int64_t F = 1;
  for (int d = 0; d < g.nd; ++d) F *= g.fin[d];
  Array buf = Array::empty({6 * P}, dtype_v<T>, dev, s);
  gather_kernel<T><<<blocks_for(P), kThreads, 0, s.handle()>>>(fixed.data<T>(), fmask.data<T>(), moving.data<T>(),
                                                              mmask.data<T>(), g, P, buf.data<T>());
  CUSK_CUDA_CHECK_LAUNCH();
  Array spec = Array::empty({6 * H, 2}, dtype_v<T>, dev, s);
  fft::cufft_run(fft::cufft_plan(fft::Cufft<T>::r2c, ext, 6), s, [&](cufftHandle h) {
    fft::cufft_check(fft::Cufft<T>::fwd(h, buf.data<T>(), spec.data<T>()), "R2C (masked)");
  });
  Array prod = Array::empty({6 * H, 2}, dtype_v<T>, dev, s);
  products_kernel<T><<<blocks_for(H), kThreads, 0, s.handle()>>>(reinterpret_cast<const Cplx<T>*>(spec.data<T>()), H,
                                                                reinterpret_cast<Cplx<T>*>(prod.data<T>()));
  CUSK_CUDA_CHECK_LAUNCH();
  fft::cufft_run(fft::cufft_plan(fft::Cufft<T>::c2r, ext, 6), s, [&](cufftHandle h) {
    fft::cufft_check(fft::Cufft<T>::inv(h, prod.data<T>(), buf.data<T>()), "C2R (masked)");
  });
  Array terms = Array::empty({3 * F}, dtype_v<T>, dev, s);
  const unsigned blocks = blocks_for(F);
  Array bmax = Array::empty({2 * static_cast<std::int64_t>(blocks)}, dtype_v<T>, dev, s);
  terms_kernel<T><<<blocks, kThreads, 0, s.handle()>>>(buf.data<T>(), g, P, F,
                                                       static_cast<T>(1.0 / static_cast<double>(P)), terms.data<T>(),
                                                       bmax.data<T>());
  CUSK_CUDA_CHECK_LAUNCH();
  const std::vector<T> maxes = download<T>(bmax, s);
  T max_den = 0, max_ov = -std::numeric_limits<T>::infinity();
  for (unsigned b = 0; b < blocks; ++b) max_den = std::fmax(max_den, maxes[2 * b]), max_ov = std::fmax(max_ov, maxes[2 * b + 1]);
  const T tol = static_cast<T>(1e3 * static_cast<double>(std::numeric_limits<T>::epsilon())) * max_den;
  const T thr = static_cast<T>(overlap_ratio) * max_ov;
  value_kernel<T><<<blocks, kThreads, 0, s.handle()>>>(terms.data<T>(), F, tol, thr, bmax.data<T>());
  CUSK_CUDA_CHECK_LAUNCH();
  const std::vector<T> vmax = download<T>(bmax, s);
  T best = -std::numeric_limits<T>::infinity();
  for (unsigned b = 0; b < blocks; ++b) best = std::fmax(best, vmax[b]);
  Array sums = Array::zeros({kMaxPccDims + 1}, DType::float64, dev, s);
  center_kernel<T><<<blocks, kThreads, 0, s.handle()>>>(terms.data<T>(), g, F, best, static_cast<double*>(sums.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  const std::vector<double> sv = download<double>(sums, s);
  std::vector<double> center(g.nd);
  for (int d = 0; d < g.nd; ++d) center[d] = sv[1 + d] / sv[0];
  return center;
}
#endif  // CUSK_HAVE_CUFFT

}  // namespace

std::vector<double> cuda_masked_center(const Array& fixed, const Array& moving, const Array& fixed_mask,
                                       const Array& moving_mask, double overlap_ratio, const Stream& stream) {
#if CUSK_HAVE_CUFFT
  return fixed.dtype() == DType::float32 ? masked_t<float>(fixed, moving, fixed_mask, moving_mask, overlap_ratio, stream)
                                         : masked_t<double>(fixed, moving, fixed_mask, moving_mask, overlap_ratio, stream);
#else
  (void)fixed, (void)moving, (void)fixed_mask, (void)moving_mask, (void)overlap_ratio, (void)stream;
  throw NotSupported("registration.phase_cross_correlation: needs cuFFT on CUDA arrays; this build has none");
#endif
}

}  // namespace cuskimage::registration::detail
