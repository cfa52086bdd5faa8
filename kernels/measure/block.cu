// CUDA backend of skimage.measure.block_reduce (src/measure/block.cpp): one thread per output
// block (median: an in-register sort up to 64 values, else a selection on a scratch row); every
// input element is read once.
#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "cuskimage/measure.hpp"
#include "src/core/convert.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/measure/block.hpp"

namespace cuskimage::measure::detail {
namespace {

constexpr int kThreads = 256;

/// k-th smallest of a[0..n) (partially reorders a).
__device__ double select_kth(double* a, std::int64_t n, std::int64_t k) {
  std::int64_t lo = 0, hi = n - 1;
  while (lo < hi) {
    const double pivot = a[lo + (hi - lo) / 2];
    std::int64_t i = lo, j = hi;
    while (i <= j) {
      while (a[i] < pivot) ++i;
      while (a[j] > pivot) --j;
      if (i <= j) {
        const double t = a[i];
        a[i] = a[j];
        a[j] = t;
        ++i;
        --j;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return a[k];
  }
  return a[k];
}

template <class T>
__global__ void __launch_bounds__(kThreads) block_reduce_kernel(const T* __restrict__ in, void* __restrict__ out,
                                                                BlockReduceParams p, T pad, std::int64_t n_out,
                                                                double* __restrict__ scratch, bool out_f32) {
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double,
                                 std::conditional_t<std::is_unsigned_v<T> && !std::is_same_v<T, bool>, std::uint64_t,
                                                    std::int64_t>>;
  constexpr int kLocal = 64;
  const std::int64_t o = std::int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (o >= n_out) return;
  const int nd = p.ndim;
  std::int64_t oc[kMaxDims], bc[kMaxDims];
  std::int64_t rem = o;
  for (int d = kMaxDims - 1; d >= 0; --d) {
    if (d < nd) {
      oc[d] = rem % p.out_shape[d];
      rem /= p.out_shape[d];
    }
    bc[d] = 0;
  }
  double local[kLocal];
  double* buf = p.block_elems <= kLocal ? local : scratch + o * p.block_elems;
  Acc acc = 0;
  double dacc = 0.0;
  T ext = T{};
  bool nan = false;
  const BlockFunc func = static_cast<BlockFunc>(p.func);
  for (std::int64_t e = 0; e < p.block_elems; ++e) {
    bool inside = true;
    std::int64_t off = 0;
    for (int d = 0; d < nd; ++d) {
      const std::int64_t x = oc[d] * p.block[d] + bc[d];
      inside = inside && x < p.in_shape[d];
      off += x * p.in_stride[d];
    }
    const T v = inside ? in[off] : pad;
    if constexpr (std::is_floating_point_v<T>) nan = nan || v != v;
    switch (func) {
      case BlockFunc::sum: acc = static_cast<Acc>(acc + static_cast<Acc>(v)); break;
      case BlockFunc::mean: dacc += static_cast<double>(v); break;
      case BlockFunc::max: if (e == 0 || v > ext) ext = v; break;
      case BlockFunc::min: if (e == 0 || v < ext) ext = v; break;
      case BlockFunc::median: buf[e] = static_cast<double>(v); break;
    }
    for (int d = nd - 1; d >= 0; --d) {
      if (++bc[d] < p.block[d]) break;
      bc[d] = 0;
    }
  }
  const double qnan = __longlong_as_double(0x7ff8000000000000ll);
  switch (func) {
    case BlockFunc::sum:
      if constexpr (std::is_floating_point_v<T>) static_cast<T*>(out)[o] = static_cast<T>(acc);
      else static_cast<Acc*>(out)[o] = acc;
      break;
    case BlockFunc::mean: {
      const double m = dacc / static_cast<double>(p.block_elems);
      if (out_f32) static_cast<float*>(out)[o] = static_cast<float>(m);
      else static_cast<double*>(out)[o] = m;
      break;
    }
    case BlockFunc::max:
    case BlockFunc::min:
      if constexpr (std::is_floating_point_v<T>) static_cast<T*>(out)[o] = nan ? static_cast<T>(qnan) : ext;
      else static_cast<T*>(out)[o] = ext;
      break;
    case BlockFunc::median: {
      double m;
      const std::int64_t k = p.block_elems;
      if (nan) {
        m = qnan;
      } else {
        const double hi = select_kth(buf, k, k / 2);
        if (k % 2) {
          m = hi;
        } else {
          double lo = buf[0];
          for (std::int64_t j = 1; j < k / 2; ++j) lo = buf[j] > lo ? buf[j] : lo;
          m = out_f32 ? static_cast<double>(static_cast<float>(lo + hi) / 2.0f) : (lo + hi) / 2.0;
        }
      }
      if (out_f32) static_cast<float*>(out)[o] = static_cast<float>(m);
      else static_cast<double*>(out)[o] = m;
      break;
    }
  }
}

}  // namespace

template <class T>
void cuda_block_reduce(const Array& in, Array& out, const BlockReduceParams& p, double cval, const Stream& stream) {
  const std::int64_t n_out = out.size();
  Array scratch;
  if (static_cast<BlockFunc>(p.func) == BlockFunc::median && p.block_elems > 64)
    scratch = Array::empty({n_out * p.block_elems}, DType::float64, in.device(), stream);
  const T pad = cuskimage::detail::convert<T>(cval);
  block_reduce_kernel<T><<<static_cast<unsigned>((n_out + kThreads - 1) / kThreads), kThreads, 0, stream.handle()>>>(
      static_cast<const T*>(in.data()), out.data(), p, pad, n_out,
      scratch.valid() ? static_cast<double*>(scratch.data()) : nullptr, out.dtype() == DType::float32);
  CUSK_CUDA_CHECK_LAUNCH();
}

#define CUSK_MEASURE_BLOCK_CUDA(T) \
  template void cuda_block_reduce<T>(const Array&, Array&, const BlockReduceParams&, double, const Stream&);
CUSK_FOR_EACH_DTYPE(CUSK_MEASURE_BLOCK_CUDA)
#undef CUSK_MEASURE_BLOCK_CUDA

}  // namespace cuskimage::measure::detail
