// Internal: match_template's geometry and the per-pixel steps both backends share
// (src/feature/template.cpp, kernels/feature/template.cu).
//
// The image is padded (numpy.pad's index maps) only over the region R the output needs: R index r
// on each axis is image index r - off (off = template // 2 with pad_input, else 0), R's extent is
// out + m - 1, and output position o is the window [o, o + m) of R. The correlation is the
// circular one on the FFT grid L >= R (no wrap reaches a window).
#pragma once

#include <cmath>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/feature/template.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/transform/integral.hpp"

namespace cuskimage::feature::detail {

struct TemplateGeom {
  int nd = 2;
  // per axis, padded to 3 with leading 1s (offset 0)
  std::int64_t img[3] = {1, 1, 1}, m[3] = {1, 1, 1}, out[3] = {1, 1, 1}, r[3] = {1, 1, 1}, off[3] = {0, 0, 0};
  std::int64_t L[3] = {1, 1, 1};  // FFT grid
  TemplatePadMode mode = TemplatePadMode::constant;
  double cval = 0.0;
  double vol = 1.0, tssd = 0.0, eps = 0.0;  // template size, sum of squared deviations, dtype epsilon
  CUSK_HD std::int64_t r_size() const { return r[0] * r[1] * r[2]; }
  CUSK_HD std::int64_t out_size() const { return out[0] * out[1] * out[2]; }
  CUSK_HD std::int64_t l_size() const { return L[0] * L[1] * L[2]; }
  /// Complex entries of one real-to-complex spectrum on L.
  CUSK_HD std::int64_t spec_size() const { return L[0] * L[1] * (L[2] / 2 + 1); }
};

/// numpy.pad's index map of mode (all but constant) for index i of an axis of n; these periodic
/// forms equal numpy's iterated reflections for every pad width.
CUSK_HD std::int64_t pad_index(std::int64_t i, std::int64_t n, TemplatePadMode mode) {
  auto mod = [](std::int64_t a, std::int64_t p) { return ((a % p) + p) % p; };
  switch (mode) {
    case TemplatePadMode::edge:
      return i < 0 ? 0 : (i >= n ? n - 1 : i);
    case TemplatePadMode::wrap:
      return mod(i, n);
    case TemplatePadMode::reflect: {
      if (n == 1) return 0;
      const std::int64_t p = 2 * (n - 1), k = mod(i, p);
      return k < n ? k : p - k;
    }
    case TemplatePadMode::symmetric: {
      const std::int64_t p = 2 * n, k = mod(i, p);
      return k < n ? k : p - 1 - k;
    }
    default:
      return i;
  }
}

/// The padded image's value at R index (r0, r1, r2) from an image with element strides `st`.
template <class T>
CUSK_HD double padded_value(const T* img, const std::int64_t* st, const TemplateGeom& g, std::int64_t r0,
                            std::int64_t r1, std::int64_t r2) {
  const std::int64_t q[3] = {r0, r1, r2};
  std::int64_t off = 0;
  for (int a = 0; a < 3; ++a) {
    std::int64_t i = q[a] - g.off[a];
    if (i < 0 || i >= g.img[a]) {
      if (g.mode == TemplatePadMode::constant) return g.cval;
      i = pad_index(i, g.img[a], g.mode);
    }
    off += i * st[a];
  }
  return static_cast<double>(img[off]);
}

/// The response at output position (o0, o1, o2): `corr` is the correlation of the window with the
/// mean-subtracted template; ii1 / ii2 are the inclusive integral images of R and R^2 (float64,
/// contiguous on R's extent).
CUSK_HD double ncc_response(const double* ii1, const double* ii2, const TemplateGeom& g, std::int64_t o0,
                            std::int64_t o1, std::int64_t o2, double corr) {
  const std::int64_t st[3] = {g.r[1] * g.r[2], g.r[2], 1};
  const std::int64_t start[3] = {o0, o1, o2};
  const std::int64_t end[3] = {o0 + g.m[0] - 1, o1 + g.m[1] - 1, o2 + g.m[2] - 1};
  const double s1 = transform::detail::integrate_window(ii1, st, 3, start, end);
  const double s2 = transform::detail::integrate_window(ii2, st, 3, start, end);
  double den = (s2 - s1 * s1 / g.vol) * g.tssd;
  den = den > 0.0 ? sqrt(den) : 0.0;
  return den > g.eps ? corr / den : 0.0;
}

/// scipy.fft.next_fast_len-like: the smallest 2,3,5,7-smooth number >= n (sizes cuFFT and FFTW
/// both transform fast).
inline std::int64_t smooth_len(std::int64_t n) {
  for (std::int64_t v = n < 1 ? 1 : n;; ++v) {
    std::int64_t k = v;
    for (std::int64_t p : {2, 3, 5, 7})
      while (k % p == 0) k /= p;
    if (k == 1) return v;
  }
}

/// The CUDA backend: `image` a device array in T (float or double, any strides), `tmpl0` the
/// mean-subtracted template as a contiguous host array of T; returns the response (T, out shape).
template <class T>
Array cuda_match_template(const Array& image, const Array& tmpl0, const TemplateGeom& g, const Stream& stream);

}  // namespace cuskimage::feature::detail
