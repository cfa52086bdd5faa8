// Private interface of transform.iradon: the filter as a circular convolution, numpy.interp /
// scipy's interp1d(kind='nearest') on the filtered projections, and the per-pixel back-projection,
// shared by the CPU backend and the CUDA kernels (kernels/transform/radon_iradon.cu) so that both
// give the same bits.
#pragma once

#include <cmath>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::transform::detail {

/// Filtered projection `a`, row i of the rows x na row-major sinogram: sum over j of
/// sino[j, a] * h[(i - j) mod p], in float64, j in order.
template <class F>
CUSK_HD double iradon_filtered(const F* sino, std::int64_t rows, std::int64_t na, std::int64_t a, std::int64_t i,
                               const double* h, std::int64_t p) {
  using util::detail::add_rn;
  using util::detail::mul_rn;
  double s = 0.0;
  for (std::int64_t j = 0; j < rows; ++j)
    s = add_rn(s, mul_rn(static_cast<double>(sino[j * na + a]), h[((i - j) % p + p) % p]));
  return s;
}

/// numpy.interp(t, arange(n) - n // 2, col, left=0, right=0).
CUSK_HD double iradon_linear(const double* col, std::int64_t n, double t) {
  using util::detail::add_rn;
  using util::detail::mul_rn;
  using util::detail::sub_rn;
  const std::int64_t x0 = -(n / 2);
  if (!(t >= static_cast<double>(x0)) || t > static_cast<double>(x0 + n - 1)) return 0.0;
  const std::int64_t j = static_cast<std::int64_t>(std::floor(t)) - x0;
  if (j >= n - 1) return col[n - 1];
  const double xj = static_cast<double>(j + x0);
  if (xj == t) return col[j];
  const double slope = sub_rn(col[j + 1], col[j]);  // divided by dx = 1
  return add_rn(mul_rn(slope, sub_rn(t, xj)), col[j]);
}

/// scipy's interp1d(arange(n) - n // 2, col, kind='nearest', bounds_error=False, fill_value=0):
/// the sample whose midpoint interval holds t (ties to the lower sample).
CUSK_HD double iradon_nearest(const double* col, std::int64_t n, double t) {
  const std::int64_t x0 = -(n / 2);
  if (!(t >= static_cast<double>(x0)) || t > static_cast<double>(x0 + n - 1)) return 0.0;
  // searchsorted(midpoints, t, 'left'): the number of midpoints x0 + k + 0.5 below t.
  std::int64_t c = static_cast<std::int64_t>(std::ceil(t - static_cast<double>(x0) - 0.5));
  c = c < 0 ? 0 : (c > n - 1 ? n - 1 : c);
  while (c > 0 && static_cast<double>(x0 + c - 1) + 0.5 >= t) --c;
  while (c < n - 1 && static_cast<double>(x0 + c) + 0.5 < t) ++c;
  return col[c];
}

/// One reconstructed pixel (row i, column k of an out x out image): the projections at
/// t = (k - radius) cos - (i - radius) sin added angle by angle into F, zero outside the circle
/// when `circle`, then times pi / (2 na) in F.
template <class F>
CUSK_HD F iradon_pixel(const double* filt, std::int64_t n, const double* cs, const double* sn, std::int64_t na,
                       std::int64_t i, std::int64_t k, std::int64_t radius, bool nearest, bool circle) {
  using util::detail::div_rn;
  using util::detail::mul_rn;
  using util::detail::sub_rn;
  const std::int64_t xpr = i - radius, ypr = k - radius;
  if (circle && xpr * xpr + ypr * ypr > radius * radius) return F(0);
  F r = F(0);
  for (std::int64_t a = 0; a < na; ++a) {
    const double t = sub_rn(mul_rn(static_cast<double>(ypr), cs[a]), mul_rn(static_cast<double>(xpr), sn[a]));
    const double v = nearest ? iradon_nearest(filt + a * n, n, t) : iradon_linear(filt + a * n, n, t);
    r = static_cast<F>(util::detail::add_rn(static_cast<double>(r), v));
  }
  return div_rn(mul_rn(r, static_cast<F>(3.141592653589793)), static_cast<F>(2 * na));
}

/// filt (na x rows, float64) = the filtered projections of the rows x na sinogram (contiguous,
/// F), h the kernel of length p; out (size x size, F) the back-projection. Device arrays.
template <class F>
void cuda_iradon(const Array& sino, const Array& h, const Array& cs, const Array& sn, Array& filt, Array& out,
                 std::int64_t radius, bool nearest, bool circle, const Stream& stream);

}  // namespace cuskimage::transform::detail
