// CPU backend of threshold_li on float images: statistics, the minimum gap (sort) and the per-step
// class sums (NumPy's pairwise sums in the image's precision, so results equal scikit-image's).
#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "src/core/dispatch.hpp"
#include "src/filters/histogram_backend.hpp"

namespace cuskimage::filters::detail {
namespace {

using Floats = cuskimage::detail::Types<float, double>;

/// The values of `a` in C order: its own buffer when contiguous, else a copy kept in `storage`.
template <class T>
std::span<const T> values(const Array& a, std::vector<T>& storage) {
  if (a.is_contiguous()) return {static_cast<const T*>(a.data()), static_cast<std::size_t>(a.size())};
  storage = a.to_vector<T>();
  return {storage.data(), storage.size()};
}

}  // namespace

LiStats cpu_li_stats(const Array& image) {
  return cuskimage::detail::dispatch<Floats>(image.dtype(), "filters.threshold_li", [&]<class T>() {
    std::vector<T> storage;
    const std::span<const T> v = values<T>(image, storage);
    LiStats s;
    T lo = std::numeric_limits<T>::infinity(), hi = -lo, lof = lo, hif = -lo;
    long long nn = 0, nf = 0;
#pragma omp parallel for reduction(min : lo, lof) reduction(max : hi, hif) reduction(+ : nn, nf) if (v.size() > 32768)
    for (std::size_t i = 0; i < v.size(); ++i) {
      const T x = v[i];
      if (std::isnan(x)) continue;
      ++nn;
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      if (std::isfinite(x)) {
        ++nf;
        lof = std::min(lof, x);
        hif = std::max(hif, x);
      }
    }
    s.lo_nn = lo;
    s.hi_nn = hi;
    s.lo_f = lof;
    s.hi_f = hif;
    s.n_nn = nn;
    s.n_f = nf;
    return s;
  });
}

double cpu_li_min_gap(const Array& image, double min) {
  return cuskimage::detail::dispatch<Floats>(image.dtype(), "filters.threshold_li", [&]<class T>() {
    std::vector<T> v = image.to_vector<T>();
    v.erase(std::remove_if(v.begin(), v.end(), [](T x) { return !std::isfinite(x); }), v.end());
    std::sort(v.begin(), v.end());
    const T m = static_cast<T>(min);
    double gap = std::numeric_limits<double>::infinity();
    for (std::size_t i = 1; i < v.size(); ++i) {
      const T d = static_cast<T>(v[i] - m) - static_cast<T>(v[i - 1] - m);
      if (d > T(0)) gap = std::min(gap, static_cast<double>(d));
    }
    return gap;
  });
}

LiSums cpu_li_sums(const Array& image, double min, double t) {
  // NumPy compacts image[foreground] and image[~foreground] and sums each pairwise in the image's
  // precision; the same here, so CPU results equal scikit-image's.
  return cuskimage::detail::dispatch<Floats>(image.dtype(), "filters.threshold_li", [&]<class T>() {
    std::vector<T> storage;
    const std::span<const T> v = values<T>(image, storage);
    const T m = static_cast<T>(min), tt = static_cast<T>(t);
    std::vector<T> fg, bg;
    for (const T x : v) {
      if (!std::isfinite(x)) continue;
      const T y = static_cast<T>(x - m);
      (y > tt ? fg : bg).push_back(y);
    }
    auto sum = [](const std::vector<T>& a) {
      return static_cast<double>(pairwise<T>([&](std::int64_t i) { return a[static_cast<std::size_t>(i)]; }, 0,
                                             static_cast<std::int64_t>(a.size())));
    };
    return LiSums{sum(fg), sum(bg), static_cast<long long>(fg.size()), static_cast<long long>(bg.size())};
  });
}

}  // namespace cuskimage::filters::detail
