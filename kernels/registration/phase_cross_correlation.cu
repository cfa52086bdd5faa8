// CUDA backend of phase_cross_correlation (cuFFT through the shared FFT layer). The per-element maps
// are the CUSK_HD code of src/registration/pcc.hpp, shared with the FFTW backend.
//
// Real images of N pixels (T = float32/float64), half spectra of ~N/2 complex entries (2T each):
//   2 x R2C (read T*N, write T*N each; cuFFT ~2-3 sweeps)            image in, half spectrum out
//   cross-power + |F|^2 sums (read 2 x T*N, write T*N)                one fused pass
//   C2R (read T*N, write T*N; ~2-3 sweeps), argmax |CC| (read T*N)    then one 48-byte download
//   4096^2 float32: ~10 sweeps of 67 MB ~ 0.67 GB -> floor ~0.16 ms at 4.2 TB/s; target 0.5 ms.
// upsample_factor > 1 adds the matrix-multiply DFT: its first contraction (over the last axis) reads
//   each row of both half spectra and its mirror row (-r), recomputing the cross-power spectrum
//   instead of keeping a copy (4 x T*N ~ 268 MB at 4096^2 float32, ~65 us), 15 x N complex FMAs in
//   T, the table (15 x n entries, L2-resident) re-read once per group of 4 rows (~0.5 GB of L2
//   reads at 4096^2); the remaining contractions are small (region x rows), in double. Then one
//   small download. Predicted 4096^2 u10: ~0.15 ms on top of u1's ~0.25 ms.
// Spectra given in Fourier space (full complex, interleaved) skip the R2C and use C2C inverses.
// The masked variant runs its six forward and six inverse real transforms as two batched plans.
#include <cuda_runtime.h>

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_reduce.cuh>
#include <limits>
#include <string>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/fft.hpp"
#include "src/registration/pcc.hpp"

namespace cuskimage::registration::detail {
namespace {

constexpr int kThreads = 256;
[[maybe_unused]] unsigned grid_for(std::int64_t n) { return cuskimage::detail::grid_blocks(n, kThreads, 65535 * 16); }

#if CUSK_HAVE_CUFFT
namespace fft = cuskimage::detail::fft;

/// Layout of the spectra on the device: [rows, cols] with rows the leading axes; cols = n_last/2+1
/// (half spectra of real images) or n_last (full spectra).
struct SpecLayout {
  std::int64_t rows = 1, cols = 1, n_last = 1;
  bool half = true;
  int lead_nd = 0;
  std::int64_t lead[kMaxPccDims] = {};

  /// The row holding the conjugate partner of row r: (-r) mod the leading extents.
  CUSK_HD std::int64_t mirror_row(std::int64_t r) const {
    std::int64_t out = 0, mul = 1;
    for (int d = kMaxPccDims - 1; d >= 0; --d) {
      if (d >= lead_nd) continue;
      const std::int64_t c = r % lead[d];
      r /= lead[d];
      out += (c == 0 ? 0 : lead[d] - c) * mul;
      mul *= lead[d];
    }
    return out;
  }
  /// How many entries of the full spectrum a half-spectrum column stands for.
  CUSK_HD double weight(std::int64_t col) const { return !half || col == 0 || 2 * col == n_last ? 1.0 : 2.0; }
};

struct Peak {
  double amps[2];
  double value;  // |CC| at the maximum (NaN first)
  long long index;
  double cc_re, cc_im;
};

/// NumPy's argmax order: a NaN beats any number, a larger value beats a smaller, then the lower index.
struct ArgMaxOp {
  __device__ Peak operator()(const Peak& a, const Peak& b) const {
    const bool an = isnan(a.value), bn = isnan(b.value);
    if (an != bn) return an ? a : b;
    if (!an && a.value != b.value) return a.value > b.value ? a : b;
    return a.index <= b.index ? a : b;
  }
};

template <class T>
__global__ void __launch_bounds__(kThreads)
    cross_power_kernel(const Cplx<T>* __restrict__ a, const Cplx<T>* __restrict__ b, Cplx<T>* __restrict__ p,
                       SpecLayout L, bool phase, std::int64_t total, double* __restrict__ amps) {
  double sa = 0, sb = 0;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * kThreads) {
    const Cplx<T> x = a[i], y = b[i];
    p[i] = cross_power(x, y, phase);
    const double w = L.weight(i % L.cols);
    sa += w * static_cast<double>(x.re * x.re + x.im * x.im);
    sb += w * static_cast<double>(y.re * y.re + y.im * y.im);
  }
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  sa = Reduce(tmp).Sum(sa);
  __syncthreads();
  sb = Reduce(tmp).Sum(sb);
  if (threadIdx.x == 0) atomicAdd(amps, sa), atomicAdd(amps + 1, sb);
}

/// Stage 1 of the argmax: one candidate per block. `complex_cc`: cc holds interleaved complex.
template <class T>
__global__ void __launch_bounds__(kThreads)
    argmax_kernel(const T* __restrict__ cc, bool complex_cc, std::int64_t total, Peak* __restrict__ partial) {
  Peak best{{0, 0}, -1.0, std::numeric_limits<long long>::max(), 0, 0};
  ArgMaxOp op;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * kThreads) {
    const T v = complex_cc ? filters::detail::hd_hypot(cc[2 * i], cc[2 * i + 1]) : (cc[i] < T(0) ? -cc[i] : cc[i]);
    best = op(best, Peak{{0, 0}, static_cast<double>(v), static_cast<long long>(i), 0, 0});
  }
  using Reduce = cub::BlockReduce<Peak, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  best = Reduce(tmp).Reduce(best, op);
  if (threadIdx.x == 0) partial[blockIdx.x] = best;
}

template <class T>
__global__ void __launch_bounds__(kThreads) argmax_final_kernel(const Peak* __restrict__ partial, int count,
                                                                const T* __restrict__ cc, bool complex_cc, T scale,
                                                                const double* __restrict__ amps, Peak* __restrict__ out) {
  Peak best{{0, 0}, -1.0, std::numeric_limits<long long>::max(), 0, 0};
  ArgMaxOp op;
  for (int i = threadIdx.x; i < count; i += kThreads) best = op(best, partial[i]);
  using Reduce = cub::BlockReduce<Peak, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  best = Reduce(tmp).Reduce(best, op);
  if (threadIdx.x == 0) {
    const std::int64_t i = best.index;
    best.amps[0] = amps[0], best.amps[1] = amps[1];
    best.cc_re = complex_cc ? static_cast<double>(cc[2 * i] * scale) : static_cast<double>(cc[i] * scale);
    best.cc_im = complex_cc ? static_cast<double>(cc[2 * i + 1] * scale) : 0.0;
    *out = best;
  }
}

/// Kernel entries of one axis' upsampled DFT, [region][n], rounded to T as scikit-image casts them,
/// stored as V (T for the first contraction, double for the small later ones).
template <class T, class V>
__global__ void __launch_bounds__(kThreads)
    dft_table_kernel(Cplx<V>* __restrict__ table, std::int64_t region, std::int64_t n, double offset, T factor) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < region * n;
       i += std::int64_t(gridDim.x) * kThreads) {
    double s, c;
    sincos(upsample_angle<T>(i / n, i % n, n, offset, factor), &s, &c);
    table[i] = Cplx<V>{static_cast<V>(static_cast<T>(c)), static_cast<V>(static_cast<T>(s))};
  }
}

constexpr int kUps = 8;  // outputs accumulated per pass over the rows

/// Rows per block of the first contraction: each table entry read from L2 serves G rows (the
/// table, region x n entries, is re-read once per row group: 15 x 4096^2 / G entries at 4096^2).
template <class T>
inline constexpr int kRowsPerBlock = sizeof(T) == 4 ? 4 : 2;

/// Sums the G x kUps accumulators over the block; thread t < G * kUps gets sum t (g = t / kUps).
template <class T, int G>
__device__ Cplx<T> block_sum(Cplx<T> (&acc)[G][kUps], Cplx<T>* smem /*[kThreads/32][G*kUps]*/) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int g = 0; g < G; ++g)
#pragma unroll
    for (int c = 0; c < kUps; ++c)
      for (int o = 16; o > 0; o >>= 1) {
        acc[g][c].re += __shfl_down_sync(0xffffffffu, acc[g][c].re, o);
        acc[g][c].im += __shfl_down_sync(0xffffffffu, acc[g][c].im, o);
      }
  if (lane == 0)
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
      for (int c = 0; c < kUps; ++c) smem[warp * G * kUps + g * kUps + c] = acc[g][c];
  __syncthreads();
  Cplx<T> s{0, 0};
  if (threadIdx.x < G * kUps)
    for (int w = 0; w < kThreads / 32; ++w) s.re += smem[w * G * kUps + threadIdx.x].re, s.im += smem[w * G * kUps + threadIdx.x].im;
  __syncthreads();
  return s;
}

/// First contraction of the upsampled DFT (the last axis), G spectrum rows per block, accumulated
/// in T: out[u][r] = sum_k table[u][k] conj(P_full[r][k]); a half spectrum's missing columns k are
/// conj(P[mirror(r)][n - k]), so conj of them is P there.
template <class T, int G>
__global__ void __launch_bounds__(kThreads)
    upsample_rows_kernel(const Cplx<T>* __restrict__ a, const Cplx<T>* __restrict__ b, SpecLayout L, bool phase,
                         const Cplx<T>* __restrict__ table, int ups, double2* __restrict__ out) {
  __shared__ Cplx<T> smem[kThreads / 32 * G * kUps];
  std::int64_t row[G], mrow[G];
  bool valid[G];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    row[g] = std::int64_t(blockIdx.x) * G + g;
    valid[g] = row[g] < L.rows;
    mrow[g] = valid[g] && L.half ? L.mirror_row(row[g]) : row[g];
  }
  const std::int64_t mirror_end = L.half ? L.n_last - L.cols : 0;  // mirrored columns j in [1, mirror_end]
  for (int u0 = 0; u0 < ups; u0 += kUps) {
    Cplx<T> acc[G][kUps];
#pragma unroll
    for (int g = 0; g < G; ++g)
#pragma unroll
      for (int c = 0; c < kUps; ++c) acc[g][c] = Cplx<T>{0, 0};
    for (std::int64_t j = threadIdx.x; j < L.cols; j += kThreads) {
      const bool mirrored = j >= 1 && j <= mirror_end;
      Cplx<T> kd[kUps], km[kUps];  // outputs past `ups` get 0 entries: they add nothing
#pragma unroll
      for (int c = 0; c < kUps; ++c) {
        const bool on = u0 + c < ups;
        kd[c] = on ? table[(u0 + c) * L.n_last + j] : Cplx<T>{0, 0};
        km[c] = on && mirrored ? table[(u0 + c) * L.n_last + (L.n_last - j)] : Cplx<T>{0, 0};
      }
#pragma unroll
      for (int g = 0; g < G; ++g) {
        if (!valid[g]) continue;
        const Cplx<T> p = cross_power(a[row[g] * L.cols + j], b[row[g] * L.cols + j], phase);
        const T pr = p.re, pi = -p.im;
#pragma unroll
        for (int c = 0; c < kUps; ++c) {
          acc[g][c].re += kd[c].re * pr - kd[c].im * pi;
          acc[g][c].im += kd[c].re * pi + kd[c].im * pr;
        }
        if (mirrored) {
          const Cplx<T> q = cross_power(a[mrow[g] * L.cols + j], b[mrow[g] * L.cols + j], phase);
#pragma unroll
          for (int c = 0; c < kUps; ++c) {
            acc[g][c].re += km[c].re * q.re - km[c].im * q.im;
            acc[g][c].im += km[c].re * q.im + km[c].im * q.re;
          }
        }
      }
    }
    const Cplx<T> sum = block_sum<T, G>(acc, smem);
    const int t = threadIdx.x, g = t / kUps, c = t % kUps;
    if (t < G * kUps && valid[g] && u0 + c < ups)
      out[(u0 + c) * L.rows + row[g]] = double2{static_cast<double>(sum.re), static_cast<double>(sum.im)};
  }
}

/// A further contraction: data [Q][n] -> out[u][q] = sum_k table[u][k] data[q][k], a block per output.
__global__ void __launch_bounds__(kThreads) contract_kernel(const double2* __restrict__ data, std::int64_t q_count,
                                                            std::int64_t n, const double2* __restrict__ table,
                                                            double2* __restrict__ out) {
  const std::int64_t o = blockIdx.x, u = o / q_count, q = o % q_count;
  double2 s{0, 0};
  for (std::int64_t k = threadIdx.x; k < n; k += kThreads) {
    const double2 t = table[u * n + k], d = data[q * n + k];
    s.x += t.x * d.x - t.y * d.y;
    s.y += t.x * d.y + t.y * d.x;
  }
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const double sx = Reduce(tmp).Sum(s.x);
  __syncthreads();
  const double sy = Reduce(tmp).Sum(s.y);
  if (threadIdx.x == 0) out[o] = double2{sx, sy};
}

SpecLayout layout_of(const PccJob& job) {
  SpecLayout L;
  const int nd = static_cast<int>(job.shape.size());
  L.n_last = job.shape[nd - 1];
  L.half = !job.fourier;
  L.cols = L.half ? L.n_last / 2 + 1 : L.n_last;
  L.lead_nd = nd - 1;
  for (int d = 0; d < nd - 1; ++d) L.lead[d] = job.shape[d], L.rows *= job.shape[d];
  return L;
}

void check_rank(const PccJob& job) {
  int rank = 0;
  for (auto v : job.shape) rank += v > 1 ? 1 : 0;
  if (rank > 3 || job.shape.size() > static_cast<std::size_t>(kMaxPccDims))
    throw NotSupported("registration.phase_cross_correlation: CUDA arrays take at most 3 axes longer than 1 (cuFFT), "
                       "got shape " + shape_str(job.shape));
}

template <class T>
PccRaw pcc_t(const PccJob& job, PccState& st, const Stream& s) {
  check_rank(job);
  const SpecLayout L = layout_of(job);
  const Device dev = job.ref.device();
  const std::int64_t n = shape_size(job.shape), ns = L.rows * L.cols;
  const std::vector<long long> ext(job.shape.begin(), job.shape.end());
  if (job.fourier) {
    st.f1 = job.ref.share(), st.f2 = job.mov.share();
  } else {
    st.f1 = Array::empty({ns, 2}, dtype_v<T>, dev, s);
    st.f2 = Array::empty({ns, 2}, dtype_v<T>, dev, s);
    fft::cufft_run(fft::cufft_plan(fft::Cufft<T>::r2c, ext, 1), s, [&](cufftHandle h) {
      fft::cufft_check(fft::Cufft<T>::fwd(h, const_cast<T*>(job.ref.data<T>()), st.f1.data<T>()), "R2C");
      fft::cufft_check(fft::Cufft<T>::fwd(h, const_cast<T*>(job.mov.data<T>()), st.f2.data<T>()), "R2C");
    });
  }
  Array prod = Array::empty({ns, 2}, dtype_v<T>, dev, s);
  Array scratch = Array::zeros({2 + 8}, DType::float64, dev, s);  // amps[2], then the Peak (6 x 8 bytes)
  auto* amps = static_cast<double*>(scratch.data());
  const auto* a = reinterpret_cast<const Cplx<T>*>(st.f1.data<T>());
  const auto* b = reinterpret_cast<const Cplx<T>*>(st.f2.data<T>());
  cross_power_kernel<T><<<grid_for(ns), kThreads, 0, s.handle()>>>(
      a, b, reinterpret_cast<Cplx<T>*>(prod.data<T>()), L, job.phase, ns, amps);
  CUSK_CUDA_CHECK_LAUNCH();
  Array cc;
  if (job.fourier) {
    fft::cufft_run(fft::cufft_plan(fft::Cufft<T>::c2c, ext, 1), s, [&](cufftHandle h) {
      fft::cufft_check(fft::Cufft<T>::cc(h, prod.data<T>(), CUFFT_INVERSE), "inverse C2C");
    });
    cc = std::move(prod);
  } else {
    cc = Array::empty({n}, dtype_v<T>, dev, s);
    fft::cufft_run(fft::cufft_plan(fft::Cufft<T>::c2r, ext, 1), s, [&](cufftHandle h) {
      fft::cufft_check(fft::Cufft<T>::inv(h, prod.data<T>(), cc.data<T>()), "C2R");
    });
  }
  const unsigned blocks = cuskimage::detail::grid_blocks(n, kThreads, 1024);
  Array partial = Array::empty({static_cast<std::int64_t>(blocks) * static_cast<std::int64_t>(sizeof(Peak))},
                               DType::uint8, dev, s);
  auto* part = static_cast<Peak*>(partial.data());
  argmax_kernel<T><<<blocks, kThreads, 0, s.handle()>>>(cc.data<T>(), job.fourier, n, part);
  CUSK_CUDA_CHECK_LAUNCH();
  auto* peak_dev = reinterpret_cast<Peak*>(amps + 2);
  argmax_final_kernel<T><<<1, kThreads, 0, s.handle()>>>(part, static_cast<int>(blocks), cc.data<T>(), job.fourier,
                                                         static_cast<T>(1.0 / static_cast<double>(n)), amps, peak_dev);
  CUSK_CUDA_CHECK_LAUNCH();
  Peak peak;
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&peak, peak_dev, sizeof(Peak), cudaMemcpyDeviceToHost, s.handle()));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s.handle()));
  PccRaw raw;
  raw.src_amp = peak.amps[0], raw.target_amp = peak.amps[1];
  raw.cc_re = peak.cc_re, raw.cc_im = peak.cc_im;
  std::int64_t idx = peak.index;
  raw.maxima.assign(job.shape.size(), 0);
  for (int d = static_cast<int>(job.shape.size()) - 1; d >= 0; --d) raw.maxima[d] = idx % job.shape[d], idx /= job.shape[d];
  return raw;
}

template <class T>
std::vector<double> upsample_t(const PccJob& job, const PccState& st, const UpsampleRequest& req, const Stream& s) {
  const SpecLayout L = layout_of(job);
  const Device dev = job.ref.device();
  const int nd = static_cast<int>(job.shape.size());
  const std::int64_t ups = req.region;
  auto table_for = [&]<class V>(int ax) {
    const std::int64_t len = job.shape[ax];
    Array t = Array::empty({ups * len * 2}, dtype_v<V>, dev, s);
    dft_table_kernel<T, V><<<grid_for(ups * len), kThreads, 0, s.handle()>>>(
        reinterpret_cast<Cplx<V>*>(t.data()), ups, len, req.offsets[ax], static_cast<T>(req.factor));
    CUSK_CUDA_CHECK_LAUNCH();
    return t;
  };
  Array table = table_for.template operator()<T>(nd - 1);
  Array data = Array::empty({ups * L.rows * 2}, DType::float64, dev, s);
  constexpr int G = kRowsPerBlock<T>;
  upsample_rows_kernel<T, G><<<static_cast<unsigned>((L.rows + G - 1) / G), kThreads, 0, s.handle()>>>(
      reinterpret_cast<const Cplx<T>*>(st.f1.data<T>()), reinterpret_cast<const Cplx<T>*>(st.f2.data<T>()), L,
      job.phase, reinterpret_cast<const Cplx<T>*>(table.data()), static_cast<int>(ups),
      static_cast<double2*>(data.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  std::int64_t size = ups * L.rows;
  for (int ax = nd - 2; ax >= 0; --ax) {
    const std::int64_t len = job.shape[ax], q = size / len;
    Array t = table_for.template operator()<double>(ax);
    Array next = Array::empty({ups * q * 2}, DType::float64, dev, s);
    contract_kernel<<<static_cast<unsigned>(ups * q), kThreads, 0, s.handle()>>>(
        static_cast<const double2*>(data.data()), q, len, static_cast<const double2*>(t.data()),
        static_cast<double2*>(next.data()));
    CUSK_CUDA_CHECK_LAUNCH();
    data = std::move(next);
    size = ups * q;
  }
  std::vector<double> res(2 * size);
  CUSK_CUDA_CHECK(cudaMemcpyAsync(res.data(), data.data(), res.size() * sizeof(double), cudaMemcpyDeviceToHost,
                                  s.handle()));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s.handle()));
  for (std::size_t i = 1; i < res.size(); i += 2) res[i] = -res[i];
  return res;
}

#else
[[noreturn]] void no_cufft() {
  throw NotSupported("registration.phase_cross_correlation: needs cuFFT on CUDA arrays; this build has none");
}
#endif  // CUSK_HAVE_CUFFT

}  // namespace

PccRaw cuda_pcc(const PccJob& job, PccState& state, const Stream& stream) {
#if CUSK_HAVE_CUFFT
  return job.ref.dtype() == DType::float32 ? pcc_t<float>(job, state, stream) : pcc_t<double>(job, state, stream);
#else
  (void)job, (void)state, (void)stream;
  no_cufft();
#endif
}

std::vector<double> cuda_upsample(const PccJob& job, const PccState& state, const UpsampleRequest& req,
                                  const Stream& stream) {
#if CUSK_HAVE_CUFFT
  return job.ref.dtype() == DType::float32 ? upsample_t<float>(job, state, req, stream)
                                           : upsample_t<double>(job, state, req, stream);
#else
  (void)job, (void)state, (void)req, (void)stream;
  no_cufft();
#endif
}

}  // namespace cuskimage::registration::detail
