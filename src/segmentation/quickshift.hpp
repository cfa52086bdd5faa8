// segmentation.quickshift internals: the per-pixel density and parent search of
// _quickshift_cy.pyx, written once for the CPU backend and kernels/segmentation/quickshift.cu.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::segmentation::detail {

struct QsProblem {
  std::int64_t height, width, channels;
  int kernel_width;            // ceil(3 kernel_size)
  double inv_kernel_size_sqr;  // -0.5 / kernel_size^2 in the working float
};

/// The .pyx's squared colour-space distance between pixels (r, c) and (r2, c2).
template <class T>
CUSK_HD T qs_dist(const T* img, const QsProblem& p, std::int64_t r, std::int64_t c, std::int64_t r2, std::int64_t c2) {
  using cuskimage::detail::add_rn;
  using cuskimage::detail::mul_rn;
  const T* a = img + (r * p.width + c) * p.channels;
  const T* b = img + (r2 * p.width + c2) * p.channels;
  T d = 0;
  for (std::int64_t ch = 0; ch < p.channels; ++ch) {
    const T t = cuskimage::detail::sub_rn(a[ch], b[ch]);
    d = add_rn(d, mul_rn(t, t));
  }
  const T tr = static_cast<T>(r - r2), tc = static_cast<T>(c - c2);
  d = add_rn(d, mul_rn(tr, tr));
  return add_rn(d, mul_rn(tc, tc));
}

/// Density of pixel (r, c): the noise plus exp(dist * inv) over the window, in the .pyx's order
/// (the sum in T, each exp in double as libm's exp).
template <class T>
CUSK_HD T qs_density(const T* img, const QsProblem& p, std::int64_t r, std::int64_t c, T noise) {
  const std::int64_t k = p.kernel_width;
  const std::int64_t r0 = r - k > 0 ? r - k : 0, r1 = r + k + 1 < p.height ? r + k + 1 : p.height;
  const std::int64_t c0 = c - k > 0 ? c - k : 0, c1 = c + k + 1 < p.width ? c + k + 1 : p.width;
  const T inv = static_cast<T>(p.inv_kernel_size_sqr);
  T dens = noise;
  for (std::int64_t r2 = r0; r2 < r1; ++r2)
    for (std::int64_t c2 = c0; c2 < c1; ++c2) {
      const double e = exp(static_cast<double>(cuskimage::detail::mul_rn(qs_dist(img, p, r, c, r2, c2), inv)));
      dens = static_cast<T>(cuskimage::detail::add_rn(static_cast<double>(dens), e));
    }
  return dens;
}

/// Nearest denser pixel in the window (first of equal distances in raster order; itself if none)
/// and the square root of its distance (sqrt of DBL_MAX in T if none).
template <class T>
CUSK_HD void qs_parent(const T* img, const T* dens, const QsProblem& p, std::int64_t r, std::int64_t c,
                       std::int64_t& parent, T& dist_parent) {
  const std::int64_t k = p.kernel_width;
  const std::int64_t r0 = r - k > 0 ? r - k : 0, r1 = r + k + 1 < p.height ? r + k + 1 : p.height;
  const std::int64_t c0 = c - k > 0 ? c - k : 0, c1 = c + k + 1 < p.width ? c + k + 1 : p.width;
  const T here = dens[r * p.width + c];
  // DBL_MAX in T, as the .pyx stores it: infinity for float32.
  T closest = sizeof(T) == 4 ? std::numeric_limits<T>::infinity() : static_cast<T>(std::numeric_limits<double>::max());
  parent = r * p.width + c;
  for (std::int64_t r2 = r0; r2 < r1; ++r2)
    for (std::int64_t c2 = c0; c2 < c1; ++c2) {
      if (!(dens[r2 * p.width + c2] > here)) continue;
      const T d = qs_dist(img, p, r, c, r2, c2);
      if (d < closest) {
        closest = d;
        parent = r2 * p.width + c2;
      }
    }
  dist_parent = static_cast<T>(sqrt(static_cast<double>(closest)));
}

/// Densities, parents (before the max_dist cut), distances and labels on the device. noise: host
/// values already in T (npix).
template <class T>
void cuda_quickshift(const Array& image, const std::vector<T>& noise, const QsProblem& p, T max_dist, Array& labels,
                     Array& parent, Array& dist_parent, const Stream& stream);

}  // namespace cuskimage::segmentation::detail
