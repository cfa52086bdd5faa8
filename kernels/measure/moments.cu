// Whole-image moments on CUDA (measure.moments and family). The image is contracted one axis at a
// time, axis 0 first as scikit-image's einsum: out[a, p, b] = sum_i A[a, i, b] (i s - c)^p. Each
// thread owns one (a, b) column and a chunk of i, keeps the order+1 sums in registers and adds them
// to the output with double atomics; the first contraction reads the image once (coalesced along
// b), later ones read the (order+1)-times smaller intermediate. The small follow-ups (centroid,
// normalized moments, Hu invariants, inertia tensor) are one-thread or element-wise kernels on the
// shared CUSK_HD arithmetic of src/measure/moments_math.hpp.
#include <algorithm>
#include <cstdint>

#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/measure/moments.hpp"
#include "src/measure/moments_math.hpp"

namespace cuskimage::measure::detail {
namespace {

constexpr std::int64_t kChunk = 64;  // i per thread (more when the grid's y extent would pass 65535)

std::int64_t chunk_for(std::int64_t n) { return std::max<std::int64_t>(kChunk, (n + 65534) / 65535); }
constexpr int kMaxP = 8;     // powers per register batch

template <class T>
__global__ void contract_kernel(const T* __restrict__ A, std::int64_t pre, std::int64_t n, std::int64_t post, int P,
                                std::int64_t chunk, double sp, const double* __restrict__ center, int axis, double* __restrict__ out) {
  const std::int64_t col = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col >= pre * post) return;
  const std::int64_t a = col / post, b = col % post;
  const std::int64_t i0 = std::int64_t(blockIdx.y) * chunk;
  const std::int64_t i1 = min(i0 + chunk, n);
  const double c = center ? center[axis] : 0.0;
  for (int p0 = 0; p0 < P; p0 += kMaxP) {
    double acc[kMaxP] = {};
    for (std::int64_t i = i0; i < i1; ++i) {
      const double v = static_cast<double>(A[(a * n + i) * post + b]);
      const double d = static_cast<double>(i) * sp - c;
      double pw = 1;
      for (int k = 0; k < p0; ++k) pw *= d;
#pragma unroll
      for (int k = 0; k < kMaxP; ++k) {
        acc[k] += v * pw;
        pw *= d;
      }
    }
    for (int k = 0; k < kMaxP && p0 + k < P; ++k) atomicAdd(out + (a * P + p0 + k) * post + b, acc[k]);
  }
}

__global__ void centroid_kernel(const double* __restrict__ m1, int nd, double* __restrict__ out) {
  const int a = threadIdx.x;
  if (a < nd) out[a] = m1[std::int64_t(1) << (nd - 1 - a)] / m1[0];
}

__global__ void coords_mean_kernel(const double* __restrict__ x, std::int64_t K, int D, double* __restrict__ sum) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= K) return;
  for (int a = 0; a < D; ++a) atomicAdd(sum + a, x[k * D + a] / static_cast<double>(K));
}

__global__ void coords_kernel(const double* __restrict__ x, std::int64_t K, int D, int P, std::int64_t M,
                              std::int64_t chunk, const double* __restrict__ center, double* __restrict__ out) {
  const std::int64_t m = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (m >= M) return;
  const std::int64_t k0 = std::int64_t(blockIdx.y) * chunk, k1 = min(k0 + chunk, K);
  int pw[16];
  std::int64_t r = m;
  for (int a = D - 1; a >= 0; --a, r /= P) pw[a] = static_cast<int>(r % P);
  double acc = 0;
  for (std::int64_t k = k0; k < k1; ++k) {
    double v = 1;
    for (int a = 0; a < D; ++a) {
      const double d = x[k * D + a] - (center ? center[a] : 0.0);
      for (int e = 0; e < pw[a]; ++e) v *= d;
    }
    acc += v;
  }
  atomicAdd(out + m, acc);
}

__global__ void normalized_kernel(const double* __restrict__ mu, std::int64_t n, int nd, std::int64_t P, int order,
                                  double scale, double* __restrict__ out) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < n) out[k] = normalized_moment(mu, k, nd, P, order, scale);
}

__global__ void zero_outside_kernel(double* __restrict__ mu, std::int64_t n, int nd, std::int64_t P, int order) {
  const std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= n) return;
  std::int64_t r = k;
  int s = 0;
  for (int a = 0; a < nd; ++a, r /= P) s += static_cast<int>(r % P);
  if (s > order || s == 1) mu[k] = 0.0;
}

__global__ void hu_kernel(const double* __restrict__ nu, int n, double* __restrict__ out) { hu_moments(nu, n, out); }

__global__ void inertia_kernel(const double* __restrict__ mu, int nd, int n, double* __restrict__ out) {
  inertia_from_central(mu, nd, n, out);
}

int grid1(std::int64_t n) { return static_cast<int>((n + 255) / 256); }

}  // namespace

void cuda_moments(const Array& image, const std::vector<double>& spacing, const double* center, int order, Array& out,
                  const Stream& stream) {
  const int nd = image.ndim();
  const int P = order + 1;
  Shape cur = image.shape();
  Array A;  // the intermediate after each contraction
  for (int ax = 0; ax < nd; ++ax) {
    std::int64_t pre = 1, post = 1;
    for (int k = 0; k < ax; ++k) pre *= cur[k];
    for (int k = ax + 1; k < nd; ++k) post *= cur[k];
    const std::int64_t n = cur[ax];
    Array next = ax == nd - 1 ? out.share() : Array::zeros({pre * P * post}, DType::float64, image.device(), stream);
    const std::int64_t cols = pre * post;
    const std::int64_t chunk = chunk_for(n);
    const dim3 grid(static_cast<unsigned>(grid1(cols)), static_cast<unsigned>(std::max<std::int64_t>((n + chunk - 1) / chunk, 1)));
    if (cols > 0 && n > 0) {
      if (ax == 0) {
        cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(image.dtype(), "measure.moments", [&]<class T>() {
          contract_kernel<T><<<grid, 256, 0, stream.handle()>>>(static_cast<const T*>(image.data()), pre, n, post, P,
                                                                chunk, spacing[ax], center, ax,
                                                                static_cast<double*>(next.data()));
        });
      } else {
        contract_kernel<double><<<grid, 256, 0, stream.handle()>>>(static_cast<const double*>(A.data()), pre, n, post,
                                                                   P, chunk, spacing[ax], center, ax,
                                                                   static_cast<double*>(next.data()));
      }
      CUSK_CUDA_CHECK(cudaGetLastError());
    }
    A = std::move(next);
    cur[ax] = P;
  }
}

void cuda_centroid_from_m1(const Array& m1, Array& out, const Stream& s) {
  centroid_kernel<<<1, 32, 0, s.handle()>>>(static_cast<const double*>(m1.data()), m1.ndim(),
                                            static_cast<double*>(out.data()));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

void cuda_moments_coords(const Array& coords, const double* center, int order, Array& out, const Stream& stream) {
  const std::int64_t K = coords.shape(0);
  const int D = static_cast<int>(coords.shape(1));
  const Array c = coords.contiguous(stream);
  const auto* x = static_cast<const double*>(c.data());
  Array mean;
  if (!center) {
    mean = Array::zeros({std::max(D, 1)}, DType::float64, coords.device(), stream);
    if (K > 0) coords_mean_kernel<<<grid1(K), 256, 0, stream.handle()>>>(x, K, D, static_cast<double*>(mean.data()));
    center = static_cast<const double*>(mean.data());
  }
  const std::int64_t M = out.size();
  if (K > 0 && M > 0) {
    const std::int64_t chunk = chunk_for(K);
    const dim3 grid(static_cast<unsigned>(grid1(M)), static_cast<unsigned>((K + chunk - 1) / chunk));
    coords_kernel<<<grid, 256, 0, stream.handle()>>>(x, K, D, order + 1, M, chunk, center,
                                                     static_cast<double*>(out.data()));
  }
  CUSK_CUDA_CHECK(cudaGetLastError());
}

void cuda_moments_normalized(const Array& mu, int order, double scale, Array& out, const Stream& s) {
  const std::int64_t n = mu.size();
  if (n > 0)
    normalized_kernel<<<grid1(n), 256, 0, s.handle()>>>(static_cast<const double*>(mu.data()), n, mu.ndim(),
                                                        mu.shape(0), order, scale, static_cast<double*>(out.data()));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

void cuda_zero_outside_order(Array& mu, int order, const Stream& s) {
  const std::int64_t n = mu.size();
  if (n > 0)
    zero_outside_kernel<<<grid1(n), 256, 0, s.handle()>>>(static_cast<double*>(mu.data()), n, mu.ndim(), mu.shape(0),
                                                          order);
  CUSK_CUDA_CHECK(cudaGetLastError());
}

void cuda_moments_hu(const Array& nu, Array& out, const Stream& s) {
  hu_kernel<<<1, 1, 0, s.handle()>>>(static_cast<const double*>(nu.data()), static_cast<int>(nu.shape(1)),
                                     static_cast<double*>(out.data()));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

void cuda_inertia_tensor(const Array& mu, Array& out, const Stream& s) {
  inertia_kernel<<<1, 1, 0, s.handle()>>>(static_cast<const double*>(mu.data()), mu.ndim(),
                                          static_cast<int>(mu.shape(0)), static_cast<double*>(out.data()));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuskimage::measure::detail
