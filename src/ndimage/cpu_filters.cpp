// CPU backend of the ndimage filters: the oracle the CUDA kernels are tested against, so it follows
// scipy's own algorithms (line buffers of doubles, running sums, van Herk/Gil-Werman rank passes).
#include <cmath>
#include <cstdint>
#include <vector>

#include "src/core/indexer.hpp"
#include "src/ndimage/lines.hpp"
#include "src/ndimage/backend.hpp"

namespace cuskimage::ndimage::detail {

int weight_symmetry(const double* w, std::int64_t k) {
  if (k % 2 == 0) return 0;
  const std::int64_t c = k / 2;
  constexpr double eps = 2.220446049250313e-16;  // DBL_EPSILON, scipy's tolerance
  bool sym = true, anti = true;
  for (std::int64_t i = 1; i <= c; ++i) {
    if (std::fabs(w[c + i] - w[c - i]) > eps) sym = false;
    if (std::fabs(w[c + i] + w[c - i]) > eps) anti = false;
  }
  return sym ? 1 : (anti ? -1 : 0);
}

namespace {

/// Van Herk/Gil-Werman over e[0..m): out[i] = op(e[i..i+k-1]) for i < m - k + 1, in O(1) per sample:
/// g holds prefix and h suffix extremes within blocks of k, so any window is one h and one g.
template <Op O>
void rank_line(const double* e, std::int64_t m, std::int64_t k, double* g, double* h, double* out, std::int64_t n) {
  for (std::int64_t s = 0; s < m; s += k) {
    const std::int64_t end = std::min(s + k, m);
    g[s] = e[s];
    for (std::int64_t i = s + 1; i < end; ++i) g[i] = rank_combine<O>(g[i - 1], e[i]);
    h[end - 1] = e[end - 1];
    for (std::int64_t i = end - 2; i >= s; --i) h[i] = rank_combine<O>(h[i + 1], e[i]);
  }
  for (std::int64_t i = 0; i < n; ++i) out[i] = rank_combine<O>(h[i], g[i + k - 1]);
}

}  // namespace

template <class T>
void cpu_pass1d(const Array& in, Array& out, int axis, const Pass1d& p) {
  const std::int64_t n = in.shape()[axis];
  if (n == 0 || in.size() == 0) return;
  const std::int64_t lines = in.size() / n;
  const auto ii = other_axes(in, axis), oi = other_axes(out, axis);
  const std::int64_t si = in.strides()[axis], so = out.strides()[axis];
  const std::int64_t k = p.k, m = n + k - 1;
  const T* ip0 = static_cast<const T*>(in.data());
  T* op0 = static_cast<T*>(out.data());
#pragma omp parallel if (in.size() > 32768)
  {
    std::vector<double> e(m), g, h, r(n);
    if (p.op == Op::minimum || p.op == Op::maximum) g.resize(m), h.resize(m);
#pragma omp for schedule(static)
    for (std::int64_t L = 0; L < lines; ++L) {
      const T* ip = ip0 + ii.offset(L);
      T* op = op0 + oi.offset(L);
      for (std::int64_t t = 0; t < m; ++t) {
        const std::int64_t idx = map_index(t - p.left, n, p.mode);
        e[t] = idx < 0 ? p.cval : static_cast<double>(ip[idx * si]);
      }
      switch (p.op) {
        case Op::correlate:
          for (std::int64_t i = 0; i < n; ++i)
            r[i] = correlate_window([&](std::int64_t j) { return e[i + j]; }, p.w.data(), k, p.symmetry);
          break;
        case Op::uniform: {
          // scipy's running sum: exact for integer inputs, the same rounding as scipy for floats.
          double tmp = 0.0;
          for (std::int64_t j = 0; j < k; ++j) tmp += e[j];
          r[0] = tmp / static_cast<double>(k);
          for (std::int64_t i = 1; i < n; ++i) {
            tmp += e[i + k - 1] - e[i - 1];
            r[i] = tmp / static_cast<double>(k);
          }
          break;
        }
        case Op::minimum:
          rank_line<Op::minimum>(e.data(), m, k, g.data(), h.data(), r.data(), n);
          break;
        case Op::maximum:
          rank_line<Op::maximum>(e.data(), m, k, g.data(), h.data(), r.data(), n);
          break;
      }
      for (std::int64_t i = 0; i < n; ++i) op[i * so] = cast_out<T>(r[i]);
    }
  }
}

template <class T>
void cpu_window_nd(const Array& in, Array& out, const WindowNd& W) {
  const int nd = in.ndim();
  const std::int64_t total = in.size();
  const std::size_t K = W.off.size();
  if (total == 0) return;
  const auto& shape = in.shape();
  std::vector<std::int64_t> lin(K, 0), lo(nd, 0), hi(nd, 0);
  for (std::size_t t = 0; t < K; ++t)
    for (int d = 0; d < nd; ++d) {
      lin[t] += W.off[t][d] * in.strides()[d];
      lo[d] = std::min(lo[d], W.off[t][d]);
      hi[d] = std::max(hi[d], W.off[t][d]);
    }
  const T* ip = static_cast<const T*>(in.data());
  T* op = static_cast<T*>(out.data());
#pragma omp parallel for schedule(static) if (total > 32768)
  for (std::int64_t i = 0; i < total; ++i) {
    std::int64_t c[cuskimage::detail::kMaxDims];
    std::int64_t rest = i, ioff = 0, ooff = 0;
    bool inside = true;
    for (int d = nd - 1; d >= 0; --d) {
      c[d] = rest % shape[d];
      rest /= shape[d];
      ioff += c[d] * in.strides()[d];
      ooff += c[d] * out.strides()[d];
      inside = inside && c[d] + lo[d] >= 0 && c[d] + hi[d] < shape[d];
    }
    auto value = [&](std::size_t t) -> double {
      if (inside) return static_cast<double>(ip[ioff + lin[t]]);
      std::int64_t off = 0;
      for (int d = 0; d < nd; ++d) {
        const std::int64_t idx = map_index(c[d] + W.off[t][d], shape[d], W.mode);
        if (idx < 0) return W.cval;
        off += idx * in.strides()[d];
      }
      return static_cast<double>(ip[off]);
    };
    const double acc = accumulate_taps(W.op, static_cast<std::int64_t>(K), value,
                                       [&](std::int64_t t) { return W.w.empty() ? 0.0 : W.w[t]; });
    op[ooff] = cast_out<T>(acc);
  }
}

#define CUSK_NDIMAGE_CPU(T)                                                           \
  template void cpu_pass1d<T>(const Array&, Array&, int, const Pass1d&);              \
  template void cpu_window_nd<T>(const Array&, Array&, const WindowNd&);
CUSK_NDIMAGE_CPU(bool)
CUSK_NDIMAGE_CPU(std::uint8_t)
CUSK_NDIMAGE_CPU(std::uint16_t)
CUSK_NDIMAGE_CPU(std::int32_t)
CUSK_NDIMAGE_CPU(float)
CUSK_NDIMAGE_CPU(double)
#undef CUSK_NDIMAGE_CPU

}  // namespace cuskimage::ndimage::detail
