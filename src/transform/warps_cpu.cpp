// CPU backend of skimage.transform._warps: _warp_fast per plane, the homogeneous coordinate map,
// min/max and np.clip (OpenMP over rows / chunks).
#include <cmath>
#include <cstdint>
#include <limits>

#include "src/core/dispatch.hpp"
#include "src/transform/warps_backend.hpp"

namespace cuskimage::transform::detail {

template <class F>
void cpu_warp_fast(const Array& planes, Array& out, const FastWarp<F>& p) {
  const std::int64_t nch = planes.shape(0), rows = planes.shape(1), cols = planes.shape(2);
  const std::int64_t orows = out.shape(0), ocols = out.shape(1);
  const F* img = static_cast<const F*>(planes.data());
  F* o = static_cast<F*>(out.data());
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < orows; ++r)
    for (std::int64_t c = 0; c < ocols; ++c) {
      F xs, ys;
      apply_homography(p.h, static_cast<F>(c), static_cast<F>(r), xs, ys);
      for (std::int64_t k = 0; k < nch; ++k)
        o[(r * ocols + c) * nch + k] = warp_fast_value<F, std::int64_t>(img + k * rows * cols, rows, cols, p, xs, ys);
    }
}
template void cpu_warp_fast<float>(const Array&, Array&, const FastWarp<float>&);
template void cpu_warp_fast<double>(const Array&, Array&, const FastWarp<double>&);

void cpu_source_coords(const SourceMap& q, Array& coords) {
  const int nd = static_cast<int>(coords.shape(0));
  const std::int64_t rows = coords.shape(1), cols = coords.shape(2), nb = nd == 3 ? coords.shape(3) : 1;
  const std::int64_t plane = rows * cols * nb;
  double* o = coords.data<double>();
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      double sr, sc;
      map_source(q, static_cast<double>(r), static_cast<double>(c), sr, sc);
      for (std::int64_t b = 0; b < nb; ++b) {
        const std::int64_t k = (r * cols + c) * nb + b;
        o[k] = sr;
        o[plane + k] = sc;
        if (nd == 3) o[2 * plane + k] = static_cast<double>(b);
      }
    }
}

MinMax cpu_minmax(const Array& a) {
  return cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(a.dtype(), "transform", [&]<class T>() {
    const T* p = static_cast<const T*>(a.data());
    const std::int64_t n = a.size();
    MinMax r;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    bool nan = false;
#pragma omp parallel for reduction(min : lo) reduction(max : hi) reduction(|| : nan)
    for (std::int64_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(p[i]);
      if (v != v) {
        nan = true;
        continue;
      }
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    r.any = n > 0;
    r.nan = nan;
    // All NaN: nanmin is NaN.
    r.lo = lo <= hi ? lo : std::numeric_limits<double>::quiet_NaN();
    r.hi = lo <= hi ? hi : std::numeric_limits<double>::quiet_NaN();
    return r;
  });
}

void cpu_clip(Array& a, double lo, double hi) {
  cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(a.dtype(), "transform", [&]<class T>() {
    T* p = static_cast<T*>(a.data());
    const std::int64_t n = a.size();
    const T l = static_cast<T>(lo), h = static_cast<T>(hi);
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) p[i] = np_clip(p[i], l, h);
  });
}

template <class F>
void cpu_weighted_axis(const Array& in, Array& out, std::int64_t outer, std::int64_t inner, const AxisWeights<F>& aw) {
  const std::int64_t n = in.size() / (outer * inner), m = static_cast<std::int64_t>(aw.count.size());
  const F* src = static_cast<const F*>(in.data());
  F* dst = static_cast<F*>(out.data());
#pragma omp parallel for schedule(static)
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < m; ++j)
      for (std::int64_t i = 0; i < inner; ++i)
        dst[(o * m + j) * inner + i] =
            weighted_tap_sum(src + o * n * inner + i, inner, aw.start[j], aw.count[j], aw.w.data() + aw.off[j]);
}
template void cpu_weighted_axis<float>(const Array&, Array&, std::int64_t, std::int64_t, const AxisWeights<float>&);
template void cpu_weighted_axis<double>(const Array&, Array&, std::int64_t, std::int64_t, const AxisWeights<double>&);

void cpu_zoom_coords(const Shape& in_shape, Array& coords) {
  const int nd = static_cast<int>(in_shape.size());
  const std::int64_t n = coords.size() / nd;
  double* c = coords.data<double>();
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t rest = k;
    for (int a = nd - 1; a >= 0; --a) {
      const std::int64_t len = coords.shape(a + 1);
      c[a * n + k] = zoom_coordinate(rest % len, in_shape[a], len);
      rest /= len;
    }
  }
}

template <class F>
void cpu_subtract(const Array& a, const Array& b, Array& out) {
  const F* x = static_cast<const F*>(a.data());
  const F* y = static_cast<const F*>(b.data());
  F* o = static_cast<F*>(out.data());
  const std::int64_t n = out.size();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) o[i] = x[i] - y[i];
}
template void cpu_subtract<float>(const Array&, const Array&, Array&);
template void cpu_subtract<double>(const Array&, const Array&, Array&);

}  // namespace cuskimage::transform::detail
