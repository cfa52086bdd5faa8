// CPU backend of skimage.exposure's element-wise maps, histograms, equalize_hist, colour helpers,
// order statistics and histogram matching: plain loops (OpenMP where the work is per pixel) over
// the shared arithmetic of exposure_math.hpp. This is the oracle the CUDA backend is tested against.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "src/core/dispatch.hpp"
#include "src/core/elementwise.hpp"
#include "src/core/indexer.hpp"
#include "src/core/validate.hpp"
#include "src/exposure/backend.hpp"
#include "src/util/dtype_math.hpp"

namespace cuskimage::exposure::detail {
namespace {

using cuskimage::detail::dispatch;
using cuskimage::detail::Indexer;
using cuskimage::detail::layout_of;
using cuskimage::detail::Types;

/// Element i (C order) of an array of any strides.
struct Walker {
  const unsigned char* base;
  Indexer ix;
  bool contiguous;
  std::size_t item;
  explicit Walker(const Array& a) : base(static_cast<const unsigned char*>(a.data())), item(a.itemsize()) {
    const auto L = layout_of({&a});
    ix = L.indexer(0);
    contiguous = L.contiguous(0);
  }
  template <class T>
  T get(std::int64_t i) const {
    return reinterpret_cast<const T*>(base)[contiguous ? i : ix.offset(i)];
  }
};

template <class T>
void minmax_t(const Array& image, const Array& mask, Array& range) {
  const Walker w(image);
  const bool masked = mask.valid();
  const Walker m = masked ? Walker(mask) : w;
  const std::int64_t n = image.size();
  const int threads = omp_get_max_threads();
  std::vector<double> lo(threads, std::numeric_limits<double>::infinity()),
      hi(threads, -std::numeric_limits<double>::infinity());
  std::vector<int> nan(threads, 0), any(threads, 0);
#pragma omp parallel
  {
    const int t = omp_get_thread_num();
    double l = lo[t], h = hi[t];
    int bad = 0, seen = 0;
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      if (masked && !m.get<bool>(i)) continue;
      const double v = static_cast<double>(w.get<T>(i));
      seen = 1;
      if (v != v) bad = 1;
      l = v < l ? v : l;
      h = v > h ? v : h;
    }
    lo[t] = l;
    hi[t] = h;
    nan[t] = bad;
    any[t] = seen;
  }
  if (!*std::max_element(any.begin(), any.end()))
    cuskimage::detail::fail("exposure", "argument 'mask' selects no pixel (the histogram of an empty set is undefined)");
  double* r = static_cast<double*>(range.data());
  const bool has_nan = *std::max_element(nan.begin(), nan.end());
  r[0] = has_nan ? std::nan("") : *std::min_element(lo.begin(), lo.end());
  r[1] = has_nan ? std::nan("") : *std::max_element(hi.begin(), hi.end());
}

template <class T>
void histogram_t(const Array& image, const Array& mask, std::int64_t channels, std::int64_t lo, std::int64_t nbins,
                 const Array* range, Array& counts) {
  const Walker w(image);
  const bool masked = mask.valid();
  const Walker m = masked ? Walker(mask) : w;
  const std::int64_t n = image.size(), total = channels * nbins;
  std::int64_t* out = static_cast<std::int64_t*>(counts.data());
  std::fill(out, out + total, 0);
  FloatBins<T> bins;
  if constexpr (std::is_floating_point_v<T>) {
    if (range) {
      const double* r = static_cast<const double*>(range->data());
      bins = FloatBins<T>::make(static_cast<T>(r[0]), static_cast<T>(r[1]), nbins, true);
    } else {
      bins = FloatBins<T>::make(T(-1), T(1), nbins, false);
    }
  }
  const int threads = omp_get_max_threads();
  std::vector<std::vector<std::int64_t>> local(threads);
#pragma omp parallel
  {
    auto& h = local[omp_get_thread_num()];
    h.assign(static_cast<std::size_t>(total), 0);
#pragma omp for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      if (masked && !m.get<bool>(i)) continue;
      const T v = w.get<T>(i);
      std::int64_t b;
      if constexpr (std::is_floating_point_v<T>) b = bins.index(v);
      else b = static_cast<std::int64_t>(v) - lo;
      if (b < 0 || b >= nbins) continue;
      ++h[static_cast<std::size_t>((i % channels) * nbins + b)];
    }
  }
  for (const auto& h : local)
    for (std::int64_t i = 0; i < total; ++i) out[i] += h[static_cast<std::size_t>(i)];
}

template <class T>
void rescale_t(const Array& image, Array& out, const RescaleSpec& spec, const Array& range) {
  using C = comp_t<T>;
  const double* rg = static_cast<const double*>(range.data());
  const RescaleResolved r = resolve(spec, rg[0], rg[1]);
  if (out.dtype() == image.dtype())
    cuskimage::detail::cpu_map<T, T>(image, out, [r](T x) { return cuskimage::detail::convert<T>(rescale_value<C>(x, r)); });
  else
    cuskimage::detail::cpu_map<T, C>(image, out, [r](T x) { return rescale_value<C>(x, r); });
}

template <class T>
AdjustOp<T> adjust_op(AdjustKind kind, double a, double b) {
  using C = comp_t<T>;
  double scale = 1.0;
  if constexpr (std::is_integral_v<T>) scale = static_cast<double>(std::numeric_limits<T>::max());
  return AdjustOp<T>{kind, static_cast<C>(scale), static_cast<C>(a), static_cast<C>(b)};
}

template <class T>
void float_centers_t(const Array* range, std::int64_t nbins, Array& centers) {
  FloatBins<T> bins;
  if (range) {
    const double* r = static_cast<const double*>(range->data());
    bins = FloatBins<T>::make(static_cast<T>(r[0]), static_cast<T>(r[1]), nbins, true);
  } else {
    bins = FloatBins<T>::make(T(-1), T(1), nbins, false);
  }
  T* c = static_cast<T*>(centers.data());
  for (std::int64_t i = 0; i < nbins; ++i) c[i] = bins.center(i);
}

template <class T, class F>
void equalize_t(const Array& image, std::int64_t lo, const Array& range, const Array& cdf, Array& out) {
  const F* fp = static_cast<const F*>(cdf.data());
  const std::int64_t n = cdf.size();
  const double* rg = static_cast<const double*>(range.data());
  if constexpr (std::is_integral_v<T>) {
    const std::int64_t mn = static_cast<std::int64_t>(rg[0]), mx = static_cast<std::int64_t>(rg[1]);
    cuskimage::detail::cpu_map<T, F>(image, out, [=](T x) {
      std::int64_t v = static_cast<std::int64_t>(x);
      v = v < mn ? mn : (v > mx ? mx : v);
      return fp[v - lo];
    });
  } else {
    const FloatBins<T> bins = FloatBins<T>::make(static_cast<T>(rg[0]), static_cast<T>(rg[1]), n, true);
    cuskimage::detail::cpu_map<T, F>(image, out, [=](T x) {
      const double r = np_interp(
          static_cast<double>(x), [&](std::int64_t i) { return static_cast<double>(bins.center(i)); },
          [&](std::int64_t i) { return static_cast<double>(fp[i]); }, n);
      return static_cast<F>(r);
    });
  }
}

/// All values of a host array as float64 (C order).
std::vector<double> host_doubles(const Array& a) {
  const Array d = a.astype(DType::float64);
  const double* p = static_cast<const double*>(d.data());
  return std::vector<double>(p, p + d.size());
}

/// Sorted values with their counts (numpy.unique(..., return_counts=True)) as float64.
void unique_counts(const Array& a, std::vector<double>& values, std::vector<std::int64_t>& cum) {
  std::vector<double> v = host_doubles(a);
  std::sort(v.begin(), v.end());
  values.clear();
  cum.clear();
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i == 0 || !(v[i] == v[i - 1])) {
      values.push_back(v[i]);
      cum.push_back(0);
    }
    cum.back() = static_cast<std::int64_t>(i) + 1;
  }
}

}  // namespace

void cpu_minmax(const Array& image, const Array& mask, Array& range) {
  if (image.dtype() == DType::bool_) {
    minmax_t<bool>(image, mask, range);
    return;
  }
  dispatch<ImageTypes>(image.dtype(), "exposure", [&]<class T>() { minmax_t<T>(image, mask, range); });
}

void cpu_rescale(const Array& image, Array& out, const RescaleSpec& spec, const Array& range) {
  dispatch<ImageTypes>(image.dtype(), "exposure.rescale_intensity",
                       [&]<class T>() { rescale_t<T>(image, out, spec, range); });
}

void cpu_adjust(const Array& image, Array& out, AdjustKind kind, double a, double b) {
  if (kind == AdjustKind::gamma && image.dtype() == DType::uint8) {
    const GammaLut lut = gamma_lut(a, b);
    cuskimage::detail::cpu_map<std::uint8_t, std::uint8_t>(image, out, [&lut](std::uint8_t x) { return lut.v[x]; });
    return;
  }
  dispatch<ImageTypes>(image.dtype(), "exposure.adjust", [&]<class T>() {
    cuskimage::detail::cpu_map<T, T>(image, out, adjust_op<T>(kind, a, b));
  });
}

void cpu_histogram(const Array& image, const Array& mask, std::int64_t channels, std::int64_t lo, std::int64_t nbins,
                   const Array* range, Array& counts) {
  dispatch<ImageTypes>(image.dtype(), "exposure.histogram",
                       [&]<class T>() { histogram_t<T>(image, mask, channels, lo, nbins, range, counts); });
}

void cpu_float_centers(const Array* range, std::int64_t nbins, Array& centers) {
  dispatch<Types<float, double>>(centers.dtype(), "exposure.histogram",
                                 [&]<class T>() { float_centers_t<T>(range, nbins, centers); });
}

void cpu_counts_to(const Array& counts, Array& out, bool cumulative) {
  const std::int64_t rows = counts.shape(0), nb = counts.shape(1);
  const std::int64_t* c = static_cast<const std::int64_t*>(counts.data());
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t* h = c + r * nb;
    std::vector<double> v(static_cast<std::size_t>(nb));
    if (cumulative) {
      std::int64_t s = 0;
      std::vector<std::int64_t> cs(static_cast<std::size_t>(nb));
      for (std::int64_t i = 0; i < nb; ++i) cs[i] = s += h[i];
      const double total = static_cast<double>(s);
      for (std::int64_t i = 0; i < nb; ++i) v[i] = static_cast<double>(cs[i]) / total;
    } else {
      std::int64_t s = 0;
      for (std::int64_t i = 0; i < nb; ++i) s += h[i];
      for (std::int64_t i = 0; i < nb; ++i) v[i] = static_cast<double>(h[i]) / static_cast<double>(s);
    }
    if (out.dtype() == DType::float32) {
      float* o = static_cast<float*>(out.data()) + r * nb;
      for (std::int64_t i = 0; i < nb; ++i) o[i] = static_cast<float>(v[i]);
    } else {
      double* o = static_cast<double*>(out.data()) + r * nb;
      std::copy(v.begin(), v.end(), o);
    }
  }
}

void cpu_equalize_apply(const Array& image, std::int64_t lo, const Array& range, const Array& cdf, Array& out) {
  dispatch<ImageTypes>(image.dtype(), "exposure.equalize_hist", [&]<class T>() {
    if (out.dtype() == DType::float32) equalize_t<T, float>(image, lo, range, cdf, out);
    else equalize_t<T, double>(image, lo, range, cdf, out);
  });
}

void cpu_rgb_to_hsv(const Array& rgb, Array& hsv) {
  dispatch<ImageTypes>(rgb.dtype(), "exposure.equalize_adapthist", [&]<class T>() {
    using F = comp_t<T>;
    const Walker w(rgb);
    const std::int64_t C = rgb.shape(-1), n = rgb.size() / C;
    F* o = static_cast<F*>(hsv.data());
    util::detail::ImgConvert<T, F> cv{};
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      F h, s, v;
      rgb_to_hsv<F>(cv(w.get<T>(i * C)), cv(w.get<T>(i * C + 1)), cv(w.get<T>(i * C + 2)), h, s, v);
      o[3 * i] = h;
      o[3 * i + 1] = s;
      o[3 * i + 2] = v;
    }
  });
}

void cpu_hsv_to_rgb(const Array& hsv, Array& rgb) {
  dispatch<Types<float, double>>(hsv.dtype(), "exposure.equalize_adapthist", [&]<class F>() {
    const F* p = static_cast<const F*>(hsv.data());
    F* o = static_cast<F*>(rgb.data());
    const std::int64_t n = hsv.size() / 3;
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) hsv_to_rgb<F>(p[3 * i], p[3 * i + 1], p[3 * i + 2], o[3 * i], o[3 * i + 1], o[3 * i + 2]);
  });
}

void cpu_rgb_to_gray(const Array& rgb, Array& out) {
  dispatch<ImageTypes>(rgb.dtype(), "exposure.is_low_contrast", [&]<class T>() {
    using F = comp_t<T>;
    const Walker w(rgb);
    const std::int64_t C = rgb.shape(-1), n = rgb.size() / C;
    F* o = static_cast<F*>(out.data());
    util::detail::ImgConvert<T, F> cv{};
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < n; ++i) {
      F r = cv(w.get<T>(i * C)), g = cv(w.get<T>(i * C + 1)), b = cv(w.get<T>(i * C + 2));
      if (C == 4) {
        const F a = cv(w.get<T>(i * C + 3));
        r = rgba_blend(r, a);
        g = rgba_blend(g, a);
        b = rgba_blend(b, a);
      }
      o[i] = rgb_to_gray(r, g, b);
    }
  });
}

std::vector<double> cpu_order_statistics(const Array& image, const std::vector<std::int64_t>& positions) {
  std::vector<double> v = host_doubles(image);
  std::sort(v.begin(), v.end(), [](double a, double b) { return a < b || (b != b && a == a); });  // NaN last
  std::vector<double> r;
  for (auto p : positions) r.push_back(v[static_cast<std::size_t>(p)]);
  return r;
}

void cpu_match(const Array& source, const Array& tmpl, Array& out) {
  std::vector<double> sv, tv;
  std::vector<std::int64_t> sc, tc;
  unique_counts(source, sv, sc);
  unique_counts(tmpl, tv, tc);
  const double ns = static_cast<double>(source.size()), nt = static_cast<double>(tmpl.size());
  std::vector<double> tq(tv.size()), mapped(sv.size());
  for (std::size_t i = 0; i < tv.size(); ++i) tq[i] = static_cast<double>(tc[i]) / nt;
  const auto nt_u = static_cast<std::int64_t>(tv.size());
  for (std::size_t i = 0; i < sv.size(); ++i)
    mapped[i] = np_interp(
        static_cast<double>(sc[i]) / ns, [&](std::int64_t j) { return tq[j]; }, [&](std::int64_t j) { return tv[j]; },
        nt_u);
  dispatch<ImageTypes>(source.dtype(), "exposure.match_histograms", [&]<class T>() {
    cuskimage::detail::cpu_map<T, double>(source, out, [&](T x) {
      const auto it = std::lower_bound(sv.begin(), sv.end(), static_cast<double>(x));
      return mapped[static_cast<std::size_t>(it - sv.begin())];
    });
  });
}

}  // namespace cuskimage::exposure::detail
