// Private interface of transform.iradon_sart: scikit-image's SART ray geometry, ray sum and ray
// update (_radon_transform.pyx) as CUSK_HD pieces in its mixed float / double arithmetic (values
// declared float round on assignment; its `1.` literals, cos and sqrt work in double), each step
// rounded once. The CPU backend scatters each ray's update as scikit-image does; the CUDA backend
// gathers, per pixel, the same contributions in the same order (sart_pixel_update).
#pragma once

#include <cmath>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::transform::detail {

template <class F>
struct SartRay {
  std::int64_t ns = 0;  // samples - 1 along the ray (0: the ray misses the circle)
  F s0 = 0, ds = 0, dx = 0, dy = 0, x0 = 0, y0 = 0, center = 0;
};

/// The ray at `pos` of an n x n image at the angle of cosine c and sine s (of the F-rounded angle).
template <class F>
CUSK_HD SartRay<F> sart_ray(std::int64_t n, F pos, double c, double s) {
  using namespace cuskimage::detail;
  SartRay<F> g;
  const F radius = static_cast<F>(n / 2 - 1);
  g.center = static_cast<F>(n / 2);
  const F t = sub_rn(pos, g.center);
  const F rr = mul_rn(radius, radius), tt = mul_rn(t, t);
  g.s0 = rr >= tt ? static_cast<F>(sqrt_rn(static_cast<double>(sub_rn(rr, tt)))) : F(0);
  g.ns = 2 * static_cast<std::int64_t>(std::ceil(static_cast<double>(mul_rn(F(2), g.s0))));
  if (g.ns > 0) {
    g.ds = div_rn(mul_rn(F(2), g.s0), static_cast<F>(g.ns));
    g.dx = static_cast<F>(mul_rn(static_cast<double>(-g.ds), c));
    g.dy = static_cast<F>(mul_rn(static_cast<double>(-g.ds), s));
    g.x0 = static_cast<F>(sub_rn(mul_rn(static_cast<double>(g.s0), c), mul_rn(static_cast<double>(t), s)));
    g.y0 = static_cast<F>(add_rn(mul_rn(static_cast<double>(g.s0), s), mul_rn(static_cast<double>(t), c)));
  }
  return g;
}

/// Sample k of a ray: the cell (i, j) and its fractions (di, dj).
template <class F>
CUSK_HD void sart_sample(const SartRay<F>& g, std::int64_t k, std::int64_t& i, std::int64_t& j, F& di, F& dj) {
  using namespace cuskimage::detail;
  const F x = add_rn(g.x0, mul_rn(static_cast<F>(k), g.dx)), y = add_rn(g.y0, mul_rn(static_cast<F>(k), g.dy));
  const F ii = add_rn(x, g.center), jj = add_rn(y, g.center);
  const double fi = std::floor(static_cast<double>(ii)), fj = std::floor(static_cast<double>(jj));
  i = static_cast<std::int64_t>(fi);
  j = static_cast<std::int64_t>(fj);
  di = static_cast<F>(sub_rn(static_cast<double>(ii), fi));
  dj = static_cast<F>(sub_rn(static_cast<double>(jj), fj));
}

/// The bilinear weight of corner q (0: (i, j), 1: (i, j+1), 2: (i+1, j), 3: (i+1, j+1)) as the ray
/// sum computes it (the first two in double, the last two in F).
template <class F>
CUSK_HD F sart_weight(int q, F di, F dj, F ds) {
  using namespace cuskimage::detail;
  const double odi = sub_rn(1.0, static_cast<double>(di)), odj = sub_rn(1.0, static_cast<double>(dj));
  switch (q) {
    case 0: return static_cast<F>(mul_rn(mul_rn(odi, odj), static_cast<double>(ds)));
    case 1: return static_cast<F>(mul_rn(mul_rn(odi, static_cast<double>(dj)), static_cast<double>(ds)));
    case 2: return mul_rn(mul_rn(di, sub_rn(F(1), dj)), ds);
    default: return mul_rn(mul_rn(di, dj), ds);
  }
}

/// Whether corner q of cell (i, j) counts (scikit-image skips row and column 0 and the last ones).
CUSK_HD bool sart_corner_in(int q, std::int64_t i, std::int64_t j, std::int64_t n) {
  const bool top = q < 2, left = (q & 1) == 0;
  return (top ? i > 0 : i < n - 1) && (left ? j > 0 : j < n - 1);
}

/// bilinear_ray_sum then the deviation -(sum - value) / norm (0 when the norm is 0).
template <class F>
CUSK_HD F sart_deviation(const F* img, std::int64_t n, const SartRay<F>& g, F value) {
  using namespace cuskimage::detail;
  F sum = 0, norm = 0;
  for (std::int64_t k = 0; g.ns > 0 && k <= g.ns; ++k) {
    std::int64_t i, j;
    F di, dj;
    sart_sample(g, k, i, j, di, dj);
    for (int q = 0; q < 4; ++q) {
      if (!sart_corner_in(q, i, j, n)) continue;
      const F w = sart_weight(q, di, dj, g.ds);
      sum = add_rn(sum, mul_rn(w, img[(i + (q >> 1)) * n + j + (q & 1)]));
      norm = add_rn(norm, mul_rn(w, w));
    }
  }
  return norm > 0 ? div_rn(-sub_rn(sum, value), norm) : F(0);
}

/// The Hamming window at sample k of a ray of ns + 1 samples.
template <class F>
CUSK_HD F sart_hamming(std::int64_t k, std::int64_t ns) {
  using namespace cuskimage::detail;
  const F beta = static_cast<F>(0.46164);
  const double arg = div_rn(mul_rn(6.283185307179586, static_cast<double>(k)), static_cast<double>(ns - 1));
  return static_cast<F>(sub_rn(static_cast<double>(sub_rn(F(1), beta)), mul_rn(static_cast<double>(beta), std::cos(arg))));
}

/// The value bilinear_ray_update adds at corner q (in double; the last two products in F).
template <class F>
CUSK_HD double sart_update_value(int q, F dev, F di, F dj, F ds, F hw) {
  using namespace cuskimage::detail;
  const double dv = static_cast<double>(dev);
  const double odi = sub_rn(1.0, static_cast<double>(di)), odj = sub_rn(1.0, static_cast<double>(dj));
  switch (q) {
    case 0: return mul_rn(mul_rn(mul_rn(mul_rn(dv, odi), odj), static_cast<double>(ds)), static_cast<double>(hw));
    case 1:
      return mul_rn(mul_rn(mul_rn(mul_rn(dv, odi), static_cast<double>(dj)), static_cast<double>(ds)),
                    static_cast<double>(hw));
    case 2: return static_cast<double>(mul_rn(mul_rn(mul_rn(mul_rn(dev, di), sub_rn(F(1), dj)), ds), hw));
    default: return static_cast<double>(mul_rn(mul_rn(mul_rn(mul_rn(dev, di), dj), ds), hw));
  }
}

/// The update of pixel (a, b) from one projection: the contributions the scatter (rays in order,
/// samples in order) adds to it, found from the geometry (rays within 3 of the pixel's distance,
/// samples within 3 of its position along each ray, wide margins around the exact bound of sqrt(2))
/// and added in the scatter's order, so the result equals the scatter's.
template <class F>
CUSK_HD F sart_pixel_update(std::int64_t n, std::int64_t a, std::int64_t b, double c, double s, F shift,
                            const F* dev) {
  using namespace cuskimage::detail;
  const double center = static_cast<double>(n / 2);
  const double x = static_cast<double>(a) - center, y = static_cast<double>(b) - center;
  const double tp = -x * s + y * c, sp = x * c + y * s;
  const double pc = std::floor(tp + center - static_cast<double>(shift));
  const std::int64_t p0 = pc - 3 < 0 ? 0 : static_cast<std::int64_t>(pc) - 3;
  const std::int64_t p1 = pc + 4 > static_cast<double>(n - 1) ? n - 1 : static_cast<std::int64_t>(pc) + 4;
  F upd = 0;
  for (std::int64_t p = p0; p <= p1; ++p) {
    const SartRay<F> g = sart_ray<F>(n, add_rn(static_cast<F>(p), shift), c, s);
    if (g.ns <= 0) continue;
    const double ds = static_cast<double>(g.ds);
    const double kc = (static_cast<double>(g.s0) - sp) / ds, reach = 3.0 / ds + 2.0;
    const std::int64_t k0 = kc - reach < 0 ? 0 : static_cast<std::int64_t>(std::floor(kc - reach));
    const std::int64_t k1 =
        kc + reach > static_cast<double>(g.ns) ? g.ns : static_cast<std::int64_t>(std::ceil(kc + reach));
    for (std::int64_t k = k0; k <= k1; ++k) {
      std::int64_t i, j;
      F di, dj;
      sart_sample(g, k, i, j, di, dj);
      const std::int64_t ci = a - i, cj = b - j;
      if (ci < 0 || ci > 1 || cj < 0 || cj > 1) continue;
      const int q = static_cast<int>(ci * 2 + cj);
      if (!sart_corner_in(q, i, j, n)) continue;
      const double v = sart_update_value(q, dev[p], di, dj, g.ds, sart_hamming<F>(k, g.ns));
      upd = static_cast<F>(add_rn(static_cast<double>(upd), v));
    }
  }
  return upd;
}

/// One SART pass on the device: for each angle of `order`, the deviations of its n rays, then every
/// pixel's gathered update, image += relaxation * update, and the clip. `image` (n x n, F) is
/// updated in place; `sino` the n x na sinogram (F); angles' cos/sin and shifts per angle (host).
template <class F>
void cuda_iradon_sart(Array& image, const Array& sino, const std::int64_t* order, std::int64_t count,
                      const double* cs, const double* sn, const F* shifts, F relaxation, bool clip, F lo, F hi,
                      const Stream& stream);

}  // namespace cuskimage::transform::detail
