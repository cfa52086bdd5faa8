// CUDA backend of segmentation.random_walker's solve: scipy's conjugate gradients on the
// matrix-free grid Laplacian (src/segmentation/random_walker.hpp), one label after another. The
// scalars (rho, p.q) stay on the device and feed the update kernels directly, so an iteration costs
// one host synchronisation: the read-back of ||r|| that scipy's stopping test needs. The dot
// products are CUB reductions (deterministic, in another order than the CPU's running sum).
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/segmentation/random_walker.hpp"

namespace cuskimage::segmentation::detail {
namespace {

using cuskimage::detail::buf::ptr;

/// (r.r, r.Mr) at pixel i.
struct RzTerm {
  RwGrid g;
  const double* r;
  bool jacobi;
  __device__ double2 operator()(std::int64_t i) const {
    const double ri = r[i];
    return make_double2(ri * ri, ri * rw_precond(g, r, i, jacobi));
  }
};
struct PqTerm {
  const double *p, *q;
  __device__ double operator()(std::int64_t i) const { return p[i] * q[i]; }
};
struct Add2 {
  __device__ double2 operator()(const double2& a, const double2& b) const {
    return make_double2(a.x + b.x, a.y + b.y);
  }
};

// s: [rr, rz] of this iteration at cur, of the previous one at prev; s[4] = p.q.
__global__ void update_p_kernel(RwGrid g, const double* r, double* p, const double* s, int cur, int prev, bool first,
                                bool jacobi, std::int64_t n) {
  const double beta = first ? 0.0 : s[cur + 1] / s[prev + 1];
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double z = rw_precond(g, r, i, jacobi);
    p[i] = first ? z : p[i] * beta + z;
  }
}

__global__ void apply_kernel(RwGrid g, const double* p, double* q, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    q[i] = rw_apply(g, p, i, i / (g.nx * g.ny), (i / g.nx) % g.ny, i % g.nx);
}

__global__ void step_kernel(const double* p, const double* q, double* x, double* r, const double* s, int cur,
                            std::int64_t n) {
  const double alpha = s[cur + 1] / s[4];
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
  }
}

}  // namespace

std::vector<double> cuda_rw_solve(const RwGrid& hg, const std::vector<double>& rhs, int nlabels, double tol,
                                  bool jacobi, Device dev, const Stream& stream) {
  const std::int64_t n = hg.nz * hg.ny * hg.nx;
  const cudaStream_t cs = stream.handle();
  const Shape vs{n};
  auto up = [&](const double* h) {
    return Array::from_vector(std::vector<double>(h, h + n), vs).to(dev, stream);
  };
  Array diag = up(hg.diag), wz = up(hg.wz), wy = up(hg.wy), wx = up(hg.wx);
  const RwGrid g{hg.nz, hg.ny, hg.nx, ptr<double>(diag), ptr<double>(wz), ptr<double>(wy), ptr<double>(wx)};
  std::int64_t unknowns = 0;
  for (std::int64_t i = 0; i < n; ++i) unknowns += hg.diag[i] > 0.0;
  Array x = Array::empty(vs, DType::float64, dev, stream), r = Array::empty(vs, DType::float64, dev, stream);
  Array p = Array::empty(vs, DType::float64, dev, stream), q = Array::empty(vs, DType::float64, dev, stream);
  Array sc = Array::zeros({5}, DType::float64, dev, stream);
  double* s = ptr<double>(sc);
  const thrust::counting_iterator<std::int64_t> idx(0);
  const auto rz_it = thrust::make_transform_iterator(idx, RzTerm{g, ptr<double>(r), jacobi});
  const auto pq_it = thrust::make_transform_iterator(idx, PqTerm{ptr<double>(p), ptr<double>(q)});
  std::size_t b1 = 0, b2 = 0;
  CUSK_CUDA_CHECK(cub::DeviceReduce::Reduce(nullptr, b1, rz_it, reinterpret_cast<double2*>(s), n, Add2{},
                                            make_double2(0.0, 0.0), cs));
  CUSK_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, b2, pq_it, s + 4, n, cs));
  std::size_t tb = std::max(b1, b2);
  Array tmp = cuskimage::detail::buf::scratch(tb, dev, stream);
  const unsigned blocks = cuskimage::detail::grid_blocks(n, 256, 4096);
  std::vector<double> out(rhs.size(), 0.0);
  for (int l = 0; l < nlabels; ++l) {
    const double* b = rhs.data() + std::size_t(l) * std::size_t(n);
    double bb = 0.0;
    for (std::int64_t i = 0; i < n; ++i) bb += b[i] * b[i];
    const double bnorm = std::sqrt(bb);
    if (bnorm == 0.0) continue;  // scipy returns b itself: all zeros
    const double atol = tol * bnorm;
    CUSK_CUDA_CHECK(cudaMemcpyAsync(ptr<double>(r), b, n * sizeof(double), cudaMemcpyHostToDevice, cs));
    CUSK_CUDA_CHECK(cudaMemsetAsync(ptr<double>(x), 0, n * sizeof(double), cs));
    for (std::int64_t it = 0; it < 10 * unknowns; ++it) {
      const int cur = int(it % 2) * 2, prev = 2 - cur;
      CUSK_CUDA_CHECK(cub::DeviceReduce::Reduce(tmp.data(), tb, rz_it, reinterpret_cast<double2*>(s + cur), n,
                                                Add2{}, make_double2(0.0, 0.0), cs));
      double rr = 0.0;
      CUSK_CUDA_CHECK(cudaMemcpyAsync(&rr, s + cur, sizeof(double), cudaMemcpyDeviceToHost, cs));
      CUSK_CUDA_CHECK(cudaStreamSynchronize(cs));
      if (std::sqrt(rr) < atol) break;
      update_p_kernel<<<blocks, 256, 0, cs>>>(g, ptr<double>(r), ptr<double>(p), s, cur, prev, it == 0, jacobi, n);
      apply_kernel<<<blocks, 256, 0, cs>>>(g, ptr<double>(p), ptr<double>(q), n);
      CUSK_CUDA_CHECK(cub::DeviceReduce::Sum(tmp.data(), tb, pq_it, s + 4, n, cs));
      step_kernel<<<blocks, 256, 0, cs>>>(ptr<double>(p), ptr<double>(q), ptr<double>(x), ptr<double>(r), s, cur, n);
      CUSK_CUDA_CHECK(cudaGetLastError());
    }
    CUSK_CUDA_CHECK(cudaMemcpyAsync(out.data() + std::size_t(l) * std::size_t(n), ptr<double>(x), n * sizeof(double),
                                    cudaMemcpyDeviceToHost, cs));
  }
  CUSK_CUDA_CHECK(cudaStreamSynchronize(cs));
  return out;
}

}  // namespace cuskimage::segmentation::detail
