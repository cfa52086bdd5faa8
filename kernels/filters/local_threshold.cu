// CUDA kernels of correlate_sparse, threshold_niblack/sauvola (_mean_std), threshold_local's offset
// and rank_order.
//
//  * correlate_sparse: one thread per output folds the K terms in scikit-image's order with
//    non-fused F arithmetic (bit-equal to the CPU backend). Bytes moved: the F image read (terms
//    re-read through L1/L2) and the output written: 8192^2 float32 -> 537 MB, floor 0.128 ms at
//    4.2 TB/s for a kernel of few terms (K reads per output from cache above that).
//  * niblack/sauvola: pad + square (2 float64 padded arrays), one sequential cumsum per axis (one
//    thread per line: NumPy's sequential order, so both backends add identically; the first axis
//    is coalesced, the last walks rows from cache), then one thread per output sums the 2^ndim
//    corners and applies the formula. Bytes: ~ (F read + 16 B written) + 2 x 16 B per element per
//    axis + 2^ndim x 16 B read (cached) + F written: 8192^2 float32 -> ~5 GB, floor ~1.2 ms; the
//    integral images are what scikit-image's numbers need (a sliding-window sum would round
//    differently).
//  * rank_order: CUB radix sort of (value, index) pairs, change flags, CUB inclusive scan, scatter;
//    the count of unique values is the one value brought back (one stream synchronization).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "kernels/core/iota.cuh"
#include "src/core/cuda_check.hpp"
#include "src/filters/local_threshold.hpp"

namespace cuskimage::filters::detail {
namespace {

struct Dims3 {
  std::int64_t n[3];  // (z, y, x); unused leading axes are 1
};

Dims3 dims_of(const Shape& s) {
  Dims3 d{{1, 1, 1}};
  const int nd = static_cast<int>(s.size());
  for (int i = 0; i < nd; ++i) d.n[3 - nd + i] = s[i];
  return d;
}

unsigned blocks_for(std::int64_t total) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((total + 255) / 256, 1, 1 << 20));
}

template <class T>
Array to_device_bytes(const std::vector<T>& v, Device dev, const Stream& stream) {
  std::vector<std::uint8_t> bytes(std::max<std::size_t>(v.size(), 1) * sizeof(T));
  if (!v.empty()) std::memcpy(bytes.data(), v.data(), v.size() * sizeof(T));
  return Array::from_vector(bytes, {static_cast<std::int64_t>(bytes.size())}).to(dev, stream);
}

// ---- correlate_sparse --------------------------------------------------------------------------
struct SparseTerm {
  std::int64_t idx[3];
  double val;
};

template <class F>
__global__ void __launch_bounds__(256)
    sparse_kernel(const F* __restrict__ in, F* __restrict__ out, Dims3 id, Dims3 od, Dims3 before, bool valid,
                  ndimage::Mode mode, const SparseTerm* __restrict__ terms, int K) {
  const std::int64_t total = od.n[0] * od.n[1] * od.n[2];
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t x = i % od.n[2], r = i / od.n[2], y = r % od.n[1], z = r / od.n[1];
    const std::int64_t c[3] = {z, y, x};
    F acc = F(0);
    for (int t = 0; t < K; ++t) {
      const SparseTerm tm = terms[t];
      std::int64_t off = 0;
      bool zero = false;
      for (int d = 0; d < 3; ++d) {
        const std::int64_t p = c[d] + tm.idx[d];
        const std::int64_t s = valid ? p : pad_index(p, before.n[d], id.n[d], mode);
        zero = zero || s < 0;
        off = off * id.n[d] + (s < 0 ? 0 : s);
      }
      const F v = zero ? F(0) : in[off];
      const F term = mul_rn(static_cast<F>(tm.val), v);
      acc = t == 0 ? term : add_rn(acc, term);
    }
    out[i] = acc;
  }
}

// ---- _mean_std -------------------------------------------------------------------------------------
template <class F>
__global__ void __launch_bounds__(256)
    pad_square_kernel(const F* __restrict__ in, double* __restrict__ I, double* __restrict__ I2, Dims3 id, Dims3 pd,
                      Dims3 before) {
  const std::int64_t total = pd.n[0] * pd.n[1] * pd.n[2];
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t x = i % pd.n[2], r = i / pd.n[2], y = r % pd.n[1], z = r / pd.n[1];
    const std::int64_t zz = pad_index(z, before.n[0], id.n[0], ndimage::Mode::mirror);
    const std::int64_t yy = pad_index(y, before.n[1], id.n[1], ndimage::Mode::mirror);
    const std::int64_t xx = pad_index(x, before.n[2], id.n[2], ndimage::Mode::mirror);
    const F v = in[(zz * id.n[1] + yy) * id.n[2] + xx];
    I[i] = static_cast<double>(v);
    I2[i] = static_cast<double>(mul_rn(v, v));
  }
}

/// Sequential cumsum along the middle axis of (outer, n, inner), one thread per line, both arrays.
__global__ void __launch_bounds__(256)
    cumsum_kernel(double* __restrict__ a, double* __restrict__ b, std::int64_t outer, std::int64_t n,
                  std::int64_t inner) {
  const std::int64_t lines = outer * inner;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t l = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; l < lines; l += stride) {
    const std::int64_t o = l / inner, i = l % inner;
    double* p = a + o * n * inner + i;
    double* q = b + o * n * inner + i;
    double sa = p[0], sb = q[0];
    for (std::int64_t k = 1; k < n; ++k) {
      sa = __dadd_rn(sa, p[k * inner]);
      sb = __dadd_rn(sb, q[k * inner]);
      p[k * inner] = sa;
      q[k * inner] = sb;
    }
  }
}

template <class F>
__global__ void __launch_bounds__(256)
    combine_kernel(const double* __restrict__ I, const double* __restrict__ I2, F* __restrict__ out, Dims3 od,
                   Dims3 pd, Dims3 w, int nd, double total_w, LocalKind kind, double k, double r) {
  const std::int64_t total = od.n[0] * od.n[1] * od.n[2];
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t x = i % od.n[2], rr = i / od.n[2], y = rr % od.n[1], z = rr / od.n[1];
    const std::int64_t c[3] = {z, y, x};
    double s1 = 0.0, s2 = 0.0;
    const int corners = 1 << nd;
    for (int q = 0; q < corners; ++q) {
      std::int64_t off = 0;
      int cnt = 0;
      for (int d = 0; d < 3; ++d) {
        const int a = d - (3 - nd);  // axis index among the real axes
        const bool hi = a >= 0 && ((q >> (nd - 1 - a)) & 1);
        off = off * pd.n[d] + c[d] + (hi ? w.n[d] : 0);
        cnt += hi;
      }
      const bool neg = (nd % 2) != (cnt % 2);
      const double t1 = neg ? -I[off] : I[off], t2 = neg ? -I2[off] : I2[off];
      s1 = q == 0 ? t1 : __dadd_rn(s1, t1);
      s2 = q == 0 ? t2 : __dadd_rn(s2, t2);
    }
    out[i] = local_formula<F>(s1, s2, total_w, kind, k, r);
  }
}

template <class F>
__global__ void __launch_bounds__(256) subtract_kernel(const F* __restrict__ in, F* __restrict__ out, std::int64_t n,
                                                       F offset) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = add_rn(in[i], -offset);
}

// ---- rank_order --------------------------------------------------------------------------------------
template <class T>
__global__ void change_flags_kernel(const T* __restrict__ sorted, std::uint64_t* __restrict__ flags, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    flags[i] = (i > 0 && sorted[i] != sorted[i - 1]) ? 1u : 0u;
}

template <class T, class L>
__global__ void scatter_ranks_kernel(const T* __restrict__ sorted, const std::int64_t* __restrict__ order,
                                     const std::uint64_t* __restrict__ rank, L* __restrict__ labels,
                                     T* __restrict__ uniq, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint64_t r = rank[i];
    labels[order[i]] = static_cast<L>(r);
    if (i == 0 || sorted[i] != sorted[i - 1]) uniq[r] = sorted[i];
  }
}

}  // namespace

template <class F>
void cuda_correlate_sparse(const Array& in, Array& out, const SparsePlan& P, const Stream& stream) {
  const int nd = in.ndim();
  std::vector<SparseTerm> terms(P.val.size());
  Dims3 before{{0, 0, 0}};
  for (int d = 0; d < nd; ++d) before.n[3 - nd + d] = P.kshape[d] / 2;
  for (std::size_t t = 0; t < terms.size(); ++t) {
    SparseTerm tm{{0, 0, 0}, P.val[t]};
    for (int d = 0; d < nd; ++d) tm.idx[3 - nd + d] = P.idx[t][d];
    terms[t] = tm;
  }
  const Array dt = to_device_bytes(terms, in.device(), stream);
  sparse_kernel<F><<<blocks_for(out.size()), 256, 0, stream.handle()>>>(
      static_cast<const F*>(in.data()), static_cast<F*>(out.data()), dims_of(in.shape()), dims_of(out.shape()), before,
      P.valid, P.mode, static_cast<const SparseTerm*>(dt.data()), static_cast<int>(terms.size()));
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class F>
void cuda_mean_std_threshold(const Array& in, Array& out, const MeanStdPlan& P, LocalKind kind, double k, double r,
                             const Stream& s) {
  const int nd = in.ndim();
  Shape ps(nd);
  Dims3 before{{0, 0, 0}}, w{{0, 0, 0}};
  for (int d = 0; d < nd; ++d) {
    ps[d] = in.shape()[d] + P.w[d];
    before.n[3 - nd + d] = P.w[d] / 2 + 1;
    w.n[3 - nd + d] = P.w[d];
  }
  Array I = Array::empty(ps, DType::float64, in.device(), s);
  Array I2 = Array::empty(ps, DType::float64, in.device(), s);
  const Dims3 pd = dims_of(ps);
  auto* ip = static_cast<double*>(I.data());
  auto* ip2 = static_cast<double*>(I2.data());
  pad_square_kernel<F><<<blocks_for(I.size()), 256, 0, s.handle()>>>(static_cast<const F*>(in.data()), ip, ip2,
                                                                     dims_of(in.shape()), pd, before);
  CUSK_CUDA_CHECK_LAUNCH();
  for (int d = 0; d < nd; ++d) {
    std::int64_t inner = 1;
    for (int e = d + 1; e < nd; ++e) inner *= ps[e];
    const std::int64_t n = ps[d], outer = I.size() / (n * inner);
    cumsum_kernel<<<blocks_for(outer * inner), 256, 0, s.handle()>>>(ip, ip2, outer, n, inner);
    CUSK_CUDA_CHECK_LAUNCH();
  }
  combine_kernel<F><<<blocks_for(out.size()), 256, 0, s.handle()>>>(
      ip, ip2, static_cast<F*>(out.data()), dims_of(out.shape()), pd, w, nd, static_cast<double>(P.total), kind, k, r);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class F>
void cuda_subtract(const Array& in, Array& out, double offset, const Stream& stream) {
  subtract_kernel<F><<<blocks_for(in.size()), 256, 0, stream.handle()>>>(
      static_cast<const F*>(in.data()), static_cast<F*>(out.data()), in.size(), static_cast<F>(offset));
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class T>
Array cuda_rank_order(const Array& in, Array& labels, const Stream& s) {
  const cudaStream_t stream = s.handle();
  const std::int64_t n = in.size();
  const Device dev = in.device();
  Array order_in = Array::empty({n}, DType::int64, dev, s);
  Array order = Array::empty({n}, DType::int64, dev, s);
  Array sorted = Array::empty({n}, in.dtype(), dev, s);
  Array flags = Array::empty({n}, DType::uint64, dev, s);
  Array rank = Array::empty({n}, DType::uint64, dev, s);
  Array uniq = Array::empty({n}, in.dtype(), dev, s);
  cuskimage::detail::device_iota(static_cast<std::int64_t*>(order_in.data()), n, s);
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const T*>(in.data()),
                                                  static_cast<T*>(sorted.data()),
                                                  static_cast<const std::int64_t*>(order_in.data()),
                                                  static_cast<std::int64_t*>(order.data()), n, 0, int(sizeof(T) * 8),
                                                  stream));
  Array temp = cuskimage::detail::buf::scratch(bytes, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, static_cast<const T*>(in.data()),
                                                  static_cast<T*>(sorted.data()),
                                                  static_cast<const std::int64_t*>(order_in.data()),
                                                  static_cast<std::int64_t*>(order.data()), n, 0, int(sizeof(T) * 8),
                                                  stream));
  change_flags_kernel<T><<<blocks_for(n), 256, 0, stream>>>(static_cast<const T*>(sorted.data()),
                                                             static_cast<std::uint64_t*>(flags.data()), n);
  CUSK_CUDA_CHECK_LAUNCH();
  std::size_t sbytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, sbytes, static_cast<const std::uint64_t*>(flags.data()),
                                                static_cast<std::uint64_t*>(rank.data()), n, stream));
  Array stemp = Array::empty({static_cast<std::int64_t>(std::max<std::size_t>(sbytes, 1))}, DType::uint8, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(stemp.data(), sbytes, static_cast<const std::uint64_t*>(flags.data()),
                                                static_cast<std::uint64_t*>(rank.data()), n, stream));
  auto scatter = [&]<class L>() {
    scatter_ranks_kernel<T, L><<<blocks_for(n), 256, 0, stream>>>(
        static_cast<const T*>(sorted.data()), static_cast<const std::int64_t*>(order.data()),
        static_cast<const std::uint64_t*>(rank.data()), static_cast<L*>(labels.data()), static_cast<T*>(uniq.data()),
        n);
    CUSK_CUDA_CHECK_LAUNCH();
  };
  switch (labels.dtype()) {
    case DType::uint8: scatter.template operator()<std::uint8_t>(); break;
    case DType::uint16: scatter.template operator()<std::uint16_t>(); break;
    case DType::uint32: scatter.template operator()<std::uint32_t>(); break;
    default: scatter.template operator()<std::uint64_t>(); break;
  }
  // The one value the host needs: the number of unique values (to_vector synchronizes).
  const Array last_h = rank.slice({Slice{n - 1, n}}).to(Device::cpu(), s);
  const std::uint64_t last = static_cast<const std::uint64_t*>(last_h.data())[0];
  return uniq.slice({Slice{0, static_cast<std::int64_t>(last + 1)}}).copy(s);
}

template void cuda_correlate_sparse<float>(const Array&, Array&, const SparsePlan&, const Stream&);
template void cuda_correlate_sparse<double>(const Array&, Array&, const SparsePlan&, const Stream&);
template void cuda_mean_std_threshold<float>(const Array&, Array&, const MeanStdPlan&, LocalKind, double, double,
                                             const Stream&);
template void cuda_mean_std_threshold<double>(const Array&, Array&, const MeanStdPlan&, LocalKind, double, double,
                                              const Stream&);
template void cuda_subtract<float>(const Array&, Array&, double, const Stream&);
template void cuda_subtract<double>(const Array&, Array&, double, const Stream&);
#define CUSK_RANK_ORDER_CUDA(T) template Array cuda_rank_order<T>(const Array&, Array&, const Stream&);
CUSK_RANK_ORDER_CUDA(std::uint8_t)
CUSK_RANK_ORDER_CUDA(std::int8_t)
CUSK_RANK_ORDER_CUDA(std::uint16_t)
CUSK_RANK_ORDER_CUDA(std::int16_t)
CUSK_RANK_ORDER_CUDA(std::uint32_t)
CUSK_RANK_ORDER_CUDA(std::int32_t)
CUSK_RANK_ORDER_CUDA(std::uint64_t)
CUSK_RANK_ORDER_CUDA(std::int64_t)
CUSK_RANK_ORDER_CUDA(float)
CUSK_RANK_ORDER_CUDA(double)
#undef CUSK_RANK_ORDER_CUDA

}  // namespace cuskimage::filters::detail
