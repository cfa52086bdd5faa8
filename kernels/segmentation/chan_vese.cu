// CUDA Chan-Vese: per iteration one variation kernel (the shared per-pixel step of
// src/segmentation/chan_vese.hpp), one statistics pass over the new level set (the binary and smooth
// Heaviside region sums and the squared change, per-block partials then one block summing them in
// a fixed order: deterministic), one energy pass, and one read of (phivar, energy) to the host for
// the loop's stopping test.
#include <algorithm>

#include "kernels/segmentation/block_sums.cuh"
#include "src/core/cuda_check.hpp"
#include "src/segmentation/chan_vese.hpp"

namespace cuskimage::segmentation::detail {
namespace {

using i64 = std::int64_t;
constexpr int kThreads = 256, kMaxBlocks = 512, kStats = 9, kBX = 32, kBY = 8;

/// The region averages and scalars one iteration needs, on the device.
template <class T>
struct CvState {
  T c1, c2;    // averages under the binary Heaviside (the variation's)
  T c1s, c2s;  // averages under the smooth Heaviside (the energy's)
  T phivar, energy;
};

template <class T>
__global__ void __launch_bounds__(kBX* kBY) variation_kernel(const T* __restrict__ phi, const T* __restrict__ img,
                                                             T* __restrict__ out, i64 ny, i64 nx,
                                                             const CvState<T>* __restrict__ st, CvCoeffs<T> k) {
  const i64 x = i64(blockIdx.x) * kBX + threadIdx.x, y = i64(blockIdx.y) * kBY + threadIdx.y;
  if (x >= nx || y >= ny) return;
  out[y * nx + x] = cv_variation(CvStencil<T>(phi, ny, nx, y, x), img[y * nx + x], st->c1, st->c2, k);
}

template <class T>
__global__ void __launch_bounds__(kThreads) stats_kernel(const T* __restrict__ phi, const T* __restrict__ old,
                                                         const T* __restrict__ img, i64 n, CvCoeffs<T> k,
                                                         double* __restrict__ part) {
  using namespace cuskimage::detail;
  double v[kStats] = {};
  for (i64 i = i64(blockIdx.x) * kThreads + threadIdx.x; i < n; i += i64(gridDim.x) * kThreads) {
    const T p = phi[i], im = img[i];
    const T hb = p > T(0) ? T(1) : T(0), hs = cv_heaviside(p, k);
    v[0] += double(hb);
    v[1] += double(mul_rn(im, hb));
    v[2] += double(sub_rn(T(1), hb));
    v[3] += double(mul_rn(im, sub_rn(T(1), hb)));
    v[4] += double(hs);
    v[5] += double(mul_rn(im, hs));
    v[6] += double(sub_rn(T(1), hs));
    v[7] += double(mul_rn(im, sub_rn(T(1), hs)));
    if (old) v[8] += double(cv_sq(sub_rn(p, old[i])));
  }
  levelset_block_store<kThreads>(v, part);
}

template <class T>
__device__ T average(double s, double h) {
  return T(h) != T(0) ? cuskimage::detail::div_rn(T(s), T(h)) : T(s);
}

template <class T>
__global__ void __launch_bounds__(kThreads) stats_final_kernel(const double* __restrict__ part, int nb, i64 n,
                                                               CvState<T>* __restrict__ st) {
  double v[kStats];
  levelset_sum_partials<kThreads>(part, nb, v);
  if (threadIdx.x == 0) {
    st->c1 = average<T>(v[1], v[0]);
    st->c2 = average<T>(v[3], v[2]);
    st->c1s = average<T>(v[5], v[4]);
    st->c2s = average<T>(v[7], v[6]);
    st->phivar = T(sqrt(cuskimage::detail::div_rn(T(v[8]), T(n))));
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) energy_kernel(const T* __restrict__ phi, const T* __restrict__ img,
                                                          i64 ny, i64 nx, const CvState<T>* __restrict__ st,
                                                          CvCoeffs<T> k, double* __restrict__ part) {
  double v[2] = {};
  const T c1 = st->c1s, c2 = st->c2s;
  for (i64 i = i64(blockIdx.x) * kThreads + threadIdx.x; i < ny * nx; i += i64(gridDim.x) * kThreads) {
    v[0] += double(cv_energy_region(phi[i], img[i], c1, c2, k));
    v[1] += double(cv_energy_length(CvStencil<T>(phi, ny, nx, i / nx, i % nx), k));
  }
  levelset_block_store<kThreads>(v, part);
}

template <class T>
__global__ void __launch_bounds__(kThreads) energy_final_kernel(const double* __restrict__ part, int nb,
                                                                CvState<T>* __restrict__ st) {
  double v[2];
  levelset_sum_partials<kThreads>(part, nb, v);
  if (threadIdx.x == 0) st->energy = cuskimage::detail::add_rn(T(v[0]), T(v[1]));
}

}  // namespace

template <class T>
std::vector<double> cuda_chan_vese(const Array& img, Array& phi, const CvCoeffs<T>& k, double tol, int max_num_iter,
                                   const Stream& stream) {
  const i64 ny = img.shape()[0], nx = img.shape()[1], n = ny * nx;
  const int nb = static_cast<int>(std::clamp<i64>((n + kThreads * 8 - 1) / (kThreads * 8), 1, kMaxBlocks));
  Array part = Array::empty({i64(kStats) * nb}, DType::float64, img.device(), stream);
  Array state = Array::empty({i64(sizeof(CvState<T>))}, DType::uint8, img.device(), stream);
  Array other = Array::empty(phi.shape(), phi.dtype(), phi.device(), stream);
  auto* st = static_cast<CvState<T>*>(state.data());
  auto* pp = static_cast<double*>(part.data());
  const T* im = static_cast<const T*>(img.data());
  T* a = static_cast<T*>(phi.data());
  T* b = static_cast<T*>(other.data());
  const cudaStream_t s = stream.handle();
  auto stats = [&](const T* cur, const T* old) {
    stats_kernel<T><<<nb, kThreads, 0, s>>>(cur, old, im, n, k, pp);
    CUSK_CUDA_CHECK_LAUNCH();
    stats_final_kernel<T><<<1, kThreads, 0, s>>>(pp, nb, n, st);
    CUSK_CUDA_CHECK_LAUNCH();
    energy_kernel<T><<<nb, kThreads, 0, s>>>(cur, im, ny, nx, st, k, pp);
    CUSK_CUDA_CHECK_LAUNCH();
    energy_final_kernel<T><<<1, kThreads, 0, s>>>(pp, nb, st);
    CUSK_CUDA_CHECK_LAUNCH();
  };
  auto read = [&] {
    CvState<T> h{};
    CUSK_CUDA_CHECK(cudaMemcpyAsync(&h, st, sizeof(h), cudaMemcpyDeviceToHost, s));
    CUSK_CUDA_CHECK(cudaStreamSynchronize(s));
    return h;
  };
  std::vector<double> energies;
  stats(a, nullptr);
  T old_energy = read().energy;
  T phivar = T(tol) + T(1);
  const dim3 grid(static_cast<unsigned>((nx + kBX - 1) / kBX), static_cast<unsigned>((ny + kBY - 1) / kBY));
  for (int it = 0; phivar > T(tol) && it < max_num_iter; ++it) {
    variation_kernel<T><<<grid, dim3(kBX, kBY), 0, s>>>(a, im, b, ny, nx, st, k);
    CUSK_CUDA_CHECK_LAUNCH();
    std::swap(a, b);
    stats(a, b);
    const CvState<T> h = read();
    phivar = h.phivar;
    energies.push_back(double(old_energy));
    old_energy = h.energy;
  }
  if (a != phi.data())
    CUSK_CUDA_CHECK(cudaMemcpyAsync(phi.data(), a, phi.nbytes(), cudaMemcpyDeviceToDevice, s));
  return energies;
}

template std::vector<double> cuda_chan_vese<float>(const Array&, Array&, const CvCoeffs<float>&, double, int,
                                                   const Stream&);
template std::vector<double> cuda_chan_vese<double>(const Array&, Array&, const CvCoeffs<double>&, double, int,
                                                    const Stream&);

}  // namespace cuskimage::segmentation::detail
