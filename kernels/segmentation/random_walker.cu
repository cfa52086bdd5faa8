// CUDA backend of segmentation.random_walker, the whole solve on the device: data statistics, graph
// weights and degrees, then all labels' systems as ONE batched conjugate gradient (columns l of
// planar K x n vectors), then argmax or the probabilities.
//
// Each column runs scipy's cg iterations exactly (own alpha, beta, stopping test ||r|| < tol ||b||,
// maxiter 10 * unknowns); a converged column is frozen while the others go on, so every column
// gives what a solve of its own would. An iteration is two kernels over the grid:
//   p-kernel: p_new = M r + beta p_old computed on the fly at the pixel and its neighbours (so the
//             stencil needs no second pass), q = A p_new, partial sums of p.q;
//   x-kernel: x += alpha p, r -= alpha q, partial sums of r.r and r.Mr.
// Their last block (a done-counter, threadfence reduction) sums the block partials in a fixed
// order (deterministic), updates the per-column scalars on the device and runs the stopping test
// there. The host enqueues iterations in chunks of kChunk and reads an "all converged" flag through
// pinned memory one chunk behind, so the GPU always has a chunk queued; the kernels of the (at most
// one chunk of) iterations past convergence return at once. Every field is float64, as on the CPU;
// cg_mg runs as cg_j (as scikit-image without pyamg).
#include <cub/device/device_reduce.cuh>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "cuskimage/memory.hpp"
#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/segmentation/random_walker.hpp"

namespace cuskimage::segmentation::detail {
namespace {

using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;

constexpr int kT = 256;
// Per-column scalars, s[l * kS + field].
enum : int { kAtol = 0, kRho, kRhoPrev, kPq, kRr, kDone, kS };
// Iterations enqueued between two reads of the convergence flag.
constexpr int kChunk = 16;

struct RwDev {
  RwGrid g;
  const std::int32_t* code;
  std::int64_t n;
  int K;
  bool jacobi;
  double *x, *r, *q;
  double* p[2];
  double* s;         // K * kS scalars
  double* partials;  // blocks * K * 2
  unsigned* flags;   // [0] block counter, [1] all columns done
};

struct Pos {
  std::int64_t z, y, x;
};
__device__ __forceinline__ Pos pos_of(const RwGrid& g, std::int64_t i) {
  if (g.nz * g.ny * g.nx <= 0xffffffffLL) {  // 32-bit division: the common case, far cheaper
    const unsigned u = unsigned(i), nx = unsigned(g.nx), ny = unsigned(g.ny), row = u / nx;
    return {std::int64_t(row / ny), std::int64_t(row % ny), std::int64_t(u - row * nx)};
  }
  const std::int64_t row = i / g.nx;
  return {row / g.ny, row % g.ny, i - row * g.nx};
}

/// Sum of a and b over the block, in a fixed order; valid in thread 0.
__device__ void block_sum2(double& a, double& b) {
  __shared__ double sa[kT / 32], sb[kT / 32];
  for (int o = 16; o > 0; o >>= 1) {
    a += __shfl_down_sync(0xffffffffu, a, o);
    b += __shfl_down_sync(0xffffffffu, b, o);
  }
  if ((threadIdx.x & 31) == 0) sa[threadIdx.x >> 5] = a, sb[threadIdx.x >> 5] = b;
  __syncthreads();
  if (threadIdx.x == 0) {
    a = 0.0, b = 0.0;
    for (int w = 0; w < kT / 32; ++w) a += sa[w], b += sb[w];
  }
  __syncthreads();  // the shared slots are reused by the next call
}

/// True in every thread of the block that finishes last (its partials see everyone's).
__device__ bool last_block(unsigned* counter) {
  __shared__ bool last;
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(counter, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  return last;
}

/// Column l's two totals over the blocks' partials (last block only; valid in thread 0).
__device__ void total2(const RwDev& d, int l, double& a, double& b) {
  a = 0.0, b = 0.0;
  for (unsigned k = threadIdx.x; k < gridDim.x; k += kT) {
    a += __ldcg(d.partials + (std::int64_t(k) * d.K + l) * 2);
    b += __ldcg(d.partials + (std::int64_t(k) * d.K + l) * 2 + 1);
  }
  block_sum2(a, b);
}

__device__ void put_partials(const RwDev& d, int l, double a, double b) {
  block_sum2(a, b);
  if (threadIdx.x == 0) {
    d.partials[(std::int64_t(blockIdx.x) * d.K + l) * 2] = a;
    d.partials[(std::int64_t(blockIdx.x) * d.K + l) * 2 + 1] = b;
  }
}

/// Last block: the "all done" flag from the columns' flags, and the counter re-armed.
__device__ void finish(const RwDev& d) {
  if (threadIdx.x != 0) return;
  bool all = true;
  for (int l = 0; l < d.K; ++l) all = all && d.s[l * kS + kDone] != 0.0;
  if (all) d.flags[1] = 1u;
  d.flags[0] = 0u;
}

/// Data statistics' second pass: (v - mean)^2 with mean = sums[0] / total read on the device.
struct SqDev {
  const double* v;
  const double* sums;
  double total;
  __device__ double operator()(std::int64_t i) const {
    const double t = v[i] - sums[0] / total;
    return t * t;
  }
};

/// Forward weights of every pixel and the degree of the unknowns (the CPU's accumulation order:
/// backward z, y, x edges, then forward z, y, x).
__global__ void __launch_bounds__(kT) graph_kernel(RwSpec sp, const double* data, const double* sums,
                                                   const std::int32_t* code, double* diag, double* wz, double* wy,
                                                   double* wx) {
  const std::int64_t n = sp.nz * sp.ny * sp.nx, c = sp.channels;
  const double scale = rw_scale(sp.beta, sums[1], n * c, c, sp.multi);
  const std::int64_t step[3] = {sp.nx * sp.ny, sp.nx, 1};
  const double spacing[3] = {sp.sz, sp.sy, sp.sx};
  double* w[3] = {wz, wy, wx};
  const RwGrid g{sp.nz, sp.ny, sp.nx, nullptr, nullptr, nullptr, nullptr};
  for (std::int64_t i = blockIdx.x * std::int64_t(kT) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * kT) {
    const Pos ps = pos_of(g, i);
    const std::int64_t pos[3] = {ps.z, ps.y, ps.x}, len[3] = {sp.nz, sp.ny, sp.nx};
    const bool act = code[i] >= 0, unknown = code[i] == 0;
    double deg = 0.0;
    for (int a = 0; a < 3; ++a)
      if (unknown && pos[a] > 0 && code[i - step[a]] >= 0)
        deg += rw_weight(data, i - step[a], i, c, spacing[a], scale);
    for (int a = 0; a < 3; ++a) {
      const bool e = act && pos[a] + 1 < len[a] && code[i + step[a]] >= 0;
      const double wt = e ? rw_weight(data, i, i + step[a], c, spacing[a], scale) : 0.0;
      w[a][i] = wt;
      if (e) deg += wt;
    }
    diag[i] = unknown ? deg : 0.0;
  }
}

/// Right-hand sides (weights to each label's seeds, the CPU's order), r = b, x = 0, and the
/// scalars of the first iteration; the last block runs scipy's initial test ||b|| < tol ||b||.
__global__ void __launch_bounds__(kT) init_kernel(RwDev d, double tol) {
  const RwGrid& g = d.g;
  for (int l = 0; l < d.K; ++l) {
    double bb = 0.0, rz = 0.0;
    for (std::int64_t i = blockIdx.x * std::int64_t(kT) + threadIdx.x; i < d.n; i += std::int64_t(gridDim.x) * kT) {
      double b = 0.0;
      if (d.code[i] == 0) {
        const Pos ps = pos_of(g, i);
        const std::int32_t lab = l + 1;
        const std::int64_t sy = g.nx, sz = g.nx * g.ny;
        if (ps.z > 0 && d.code[i - sz] == lab) b += g.wz[i - sz];
        if (ps.y > 0 && d.code[i - sy] == lab) b += g.wy[i - sy];
        if (ps.x > 0 && d.code[i - 1] == lab) b += g.wx[i - 1];
        if (ps.z + 1 < g.nz && d.code[i + sz] == lab) b += g.wz[i];
        if (ps.y + 1 < g.ny && d.code[i + sy] == lab) b += g.wy[i];
        if (ps.x + 1 < g.nx && d.code[i + 1] == lab) b += g.wx[i];
      }
      d.r[l * d.n + i] = b;
      d.x[l * d.n + i] = 0.0;
      bb += b * b;
      rz += b * rw_precond_at(g.diag[i], b, d.jacobi);
    }
    put_partials(d, l, bb, rz);
  }
  if (!last_block(d.flags)) return;
  for (int l = 0; l < d.K; ++l) {
    double bb, rz;
    total2(d, l, bb, rz);
    if (threadIdx.x == 0) {
      double* s = d.s + l * kS;
      const double bnorm = sqrt(bb);
      s[kAtol] = tol * bnorm, s[kRho] = rz, s[kRhoPrev] = 1.0, s[kRr] = bb;
      s[kDone] = (bnorm == 0.0 || bnorm < tol * bnorm) ? 1.0 : 0.0;  // scipy returns b (zeros) then
    }
  }
  finish(d);
}

/// p_new[j] = M r[j] + beta p_old[j] at any pixel j, computed where it is read.
struct PNew {
  const double *diag, *r, *p_old;
  double beta;
  bool first, jacobi;
  __device__ double operator[](std::int64_t j) const {
    if (!(diag[j] > 0.0)) return 0.0;  // p is zero off the unknowns
    const double z = rw_precond_at(diag[j], r[j], jacobi);
    return first ? z : p_old[j] * beta + z;
  }
};

__global__ void __launch_bounds__(kT) p_kernel(RwDev d, int cur, bool first) {
  if (d.flags[1] != 0u) return;
  for (int l = 0; l < d.K; ++l) {
    const double* s = d.s + l * kS;
    if (s[kDone] != 0.0) continue;
    const std::int64_t off = l * d.n;
    const PNew pv{d.g.diag, d.r + off, d.p[cur ^ 1] + off, first ? 0.0 : s[kRho] / s[kRhoPrev], first, d.jacobi};
    double* pn = d.p[cur] + off;
    double* q = d.q + off;
    double pq = 0.0;
    for (std::int64_t i = blockIdx.x * std::int64_t(kT) + threadIdx.x; i < d.n; i += std::int64_t(gridDim.x) * kT) {
      const Pos ps = pos_of(d.g, i);
      const double pi = pv[i], qi = rw_apply(d.g, pv, i, ps.z, ps.y, ps.x);
      pn[i] = pi;
      q[i] = qi;
      pq += pi * qi;
    }
    put_partials(d, l, pq, 0.0);
  }
  if (!last_block(d.flags)) return;
  for (int l = 0; l < d.K; ++l) {
    if (d.s[l * kS + kDone] != 0.0) continue;
    double pq, unused;
    total2(d, l, pq, unused);
    if (threadIdx.x == 0) d.s[l * kS + kPq] = pq;
  }
  if (threadIdx.x == 0) d.flags[0] = 0u;
}

__global__ void __launch_bounds__(kT) x_kernel(RwDev d, int cur, bool last_iteration) {
  if (d.flags[1] != 0u) return;
  for (int l = 0; l < d.K; ++l) {
    const double* s = d.s + l * kS;
    if (s[kDone] != 0.0) continue;
    const double alpha = s[kRho] / s[kPq];
    const std::int64_t off = l * d.n;
    const double *p = d.p[cur] + off, *q = d.q + off;
    double *x = d.x + off, *r = d.r + off;
    double rr = 0.0, rz = 0.0;
    for (std::int64_t i = blockIdx.x * std::int64_t(kT) + threadIdx.x; i < d.n; i += std::int64_t(gridDim.x) * kT) {
      x[i] += alpha * p[i];
      const double ri = r[i] - alpha * q[i];
      r[i] = ri;
      rr += ri * ri;
      rz += ri * rw_precond_at(d.g.diag[i], ri, d.jacobi);
    }
    put_partials(d, l, rr, rz);
  }
  if (!last_block(d.flags)) return;
  for (int l = 0; l < d.K; ++l) {
    double* s = d.s + l * kS;
    if (s[kDone] != 0.0) continue;
    double rr, rz;
    total2(d, l, rr, rz);
    if (threadIdx.x == 0) {
      s[kRhoPrev] = s[kRho], s[kRho] = rz, s[kRr] = rr;
      if (sqrt(rr) < s[kAtol] || last_iteration) s[kDone] = 1.0;
    }
  }
  finish(d);
}

/// Labels (argmax + 1 at the unknowns, the first maximum on ties) or the probabilities.
__global__ void __launch_bounds__(kT) output_kernel(RwDev d, bool full_prob, std::int32_t* labels, double* prob) {
  for (std::int64_t i = blockIdx.x * std::int64_t(kT) + threadIdx.x; i < d.n; i += std::int64_t(gridDim.x) * kT) {
    const std::int32_t c = d.code[i];
    if (full_prob) {
      for (int l = 0; l < d.K; ++l) prob[l * d.n + i] = c == 0 ? d.x[l * d.n + i] : (c == l + 1 ? 1.0 : 0.0);
      continue;
    }
    if (c != 0) {
      labels[i] = c == kRwIsolated ? 0 : c;
      continue;
    }
    int best = 0;
    for (int l = 1; l < d.K; ++l)
      if (d.x[l * d.n + i] > d.x[best * d.n + i]) best = l;
    labels[i] = best + 1;
  }
}

/// Mean-free sum of squares of the data into sums[0..1] (sum, sum of (v - mean)^2), on the device.
void data_stats(const Array& data, double* sums, Device dev, const Stream& stream) {
  const std::int64_t total = data.size();
  const double* v = cptr<double>(data);
  const cudaStream_t cs = stream.handle();
  const auto sq = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                  SqDev{v, sums, double(total)});
  std::size_t b1 = 0, b2 = 0;
  CUSK_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, b1, v, sums, total, cs));
  CUSK_CUDA_CHECK(cub::DeviceReduce::Sum(nullptr, b2, sq, sums + 1, total, cs));
  std::size_t tb = std::max(b1, b2);
  Array tmp = cuskimage::detail::buf::scratch(tb, dev, stream);
  CUSK_CUDA_CHECK(cub::DeviceReduce::Sum(tmp.data(), tb, v, sums, total, cs));
  CUSK_CUDA_CHECK(cub::DeviceReduce::Sum(tmp.data(), tb, sq, sums + 1, total, cs));
}

/// Two pinned flag slots for the convergence reads, pooled process-wide: cudaMallocHost
/// synchronises the device (not once per call), and the pool is leaked on purpose (pinned memory
/// must not be freed after the CUDA runtime has shut down).
class FlagLease {
 public:
  FlagLease() {
    {
      std::lock_guard lock(mutex());
      if (!pool().empty()) {
        mem_ = std::move(pool().back());
        pool().pop_back();
      }
    }
    if (!mem_) mem_ = allocate_pinned(2 * sizeof(unsigned));
  }
  ~FlagLease() {
    std::lock_guard lock(mutex());
    pool().push_back(std::move(mem_));
  }
  FlagLease(const FlagLease&) = delete;
  FlagLease& operator=(const FlagLease&) = delete;
  volatile unsigned* get() const { return static_cast<volatile unsigned*>(mem_.get()); }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::vector<std::shared_ptr<void>>& pool() {
    static auto* v = new std::vector<std::shared_ptr<void>>();
    return *v;
  }
  std::shared_ptr<void> mem_;
};

/// Enqueues the iterations chunk by chunk; returns once the device reports every column done
/// (or maxiter is reached). The flag of chunk c is read while chunk c + 1 runs.
void iterate(const RwDev& d, unsigned blocks, std::int64_t maxiter, const Stream& stream) {
  const cudaStream_t cs = stream.handle();
  const FlagLease lease;
  volatile unsigned* flag = lease.get();
  flag[0] = 0u;
  flag[1] = 0u;
  cudaEvent_t ev[2];
  CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&ev[0], cudaEventDisableTiming));
  CUSK_CUDA_CHECK(cudaEventCreateWithFlags(&ev[1], cudaEventDisableTiming));
  const std::unique_ptr<cudaEvent_t[], void (*)(cudaEvent_t*)> guard(ev, [](cudaEvent_t* e) {
    cudaEventDestroy(e[0]);
    cudaEventDestroy(e[1]);
  });
  std::int64_t it = 0;
  for (int c = 0;; ++c) {
    for (int k = 0; k < kChunk && it < maxiter; ++k, ++it) {
      p_kernel<<<blocks, kT, 0, cs>>>(d, int(it & 1), it == 0);
      x_kernel<<<blocks, kT, 0, cs>>>(d, int(it & 1), it + 1 >= maxiter);
    }
    CUSK_CUDA_CHECK(cudaGetLastError());
    CUSK_CUDA_CHECK(cudaMemcpyAsync(const_cast<unsigned*>(flag + (c & 1)), d.flags + 1, sizeof(unsigned),
                                    cudaMemcpyDeviceToHost, cs));
    CUSK_CUDA_CHECK(cudaEventRecord(ev[c & 1], cs));
    if (it >= maxiter) {
      CUSK_CUDA_CHECK(cudaEventSynchronize(ev[c & 1]));
      return;
    }
    if (c > 0) {
      CUSK_CUDA_CHECK(cudaEventSynchronize(ev[(c - 1) & 1]));
      if (flag[(c - 1) & 1] != 0u) {
        CUSK_CUDA_CHECK(cudaEventSynchronize(ev[c & 1]));  // no copy into the slots left pending
        return;
      }
    }
  }
}

}  // namespace

Array cuda_random_walker(const Array& data, const std::vector<std::int32_t>& code, const RwSpec& sp,
                         const Stream& stream) {
  const Device dev = data.device();
  const std::int64_t n = sp.nz * sp.ny * sp.nx;
  const int K = sp.nlabels;
  const cudaStream_t cs = stream.handle();
  const unsigned blocks = cuskimage::detail::grid_blocks(n, kT, 1024);
  const Shape vs{n}, ks{std::int64_t(K) * n};
  Array dcode = Array::from_vector(code, vs).to(dev, stream);
  Array graph = Array::empty({4 * n}, DType::float64, dev, stream);  // diag, wz, wy, wx
  Array sums = Array::empty({2}, DType::float64, dev, stream);
  data_stats(data, ptr<double>(sums), dev, stream);
  double* gp = ptr<double>(graph);
  graph_kernel<<<blocks, kT, 0, cs>>>(sp, cptr<double>(data), cptr<double>(sums), cptr<std::int32_t>(dcode), gp,
                                      gp + n, gp + 2 * n, gp + 3 * n);
  Array x = Array::empty(ks, DType::float64, dev, stream), r = Array::empty(ks, DType::float64, dev, stream);
  Array p = Array::empty({2 * std::int64_t(K) * n}, DType::float64, dev, stream);
  Array q = Array::empty(ks, DType::float64, dev, stream);
  Array scal = Array::zeros({std::int64_t(K) * kS}, DType::float64, dev, stream);
  Array part = Array::empty({std::int64_t(blocks) * K * 2}, DType::float64, dev, stream);
  Array flags = Array::zeros({2}, DType::uint32, dev, stream);
  RwDev d{{sp.nz, sp.ny, sp.nx, gp, gp + n, gp + 2 * n, gp + 3 * n},
          cptr<std::int32_t>(dcode),
          n,
          K,
          sp.jacobi,
          ptr<double>(x),
          ptr<double>(r),
          ptr<double>(q),
          {ptr<double>(p), ptr<double>(p) + std::int64_t(K) * n},
          ptr<double>(scal),
          ptr<double>(part),
          ptr<unsigned>(flags)};
  init_kernel<<<blocks, kT, 0, cs>>>(d, sp.tol);
  CUSK_CUDA_CHECK(cudaGetLastError());
  iterate(d, blocks, 10 * sp.unknowns, stream);
  Array out = sp.full_prob ? Array::empty(ks, DType::float64, dev, stream) : Array::empty(vs, DType::int32, dev, stream);
  output_kernel<<<blocks, kT, 0, cs>>>(d, sp.full_prob, sp.full_prob ? nullptr : ptr<std::int32_t>(out),
                                       sp.full_prob ? ptr<double>(out) : nullptr);
  CUSK_CUDA_CHECK(cudaGetLastError());
  return out;
}

}  // namespace cuskimage::segmentation::detail
