// Private interface of transform.iradon: the frequency-domain filter (FFTW /
// cuFFT, a host radix-2 FFT where a build lacks them), numpy.interp / scipy's
// interp1d(kind='nearest' / 'cubic') on the filtered projections, and the
// per-pixel back-projection, shared by the CPU backend and the CUDA kernels
// (kernels/transform/radon_iradon.cu).
#pragma once

#include <cmath>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::transform::detail {

/// numpy.interp(t, arange(n) - n // 2, col, left=0, right=0).
CUSK_HD double iradon_linear(const double *col, std::int64_t n, double t) {
  using cuskimage::detail::add_rn;
  using cuskimage::detail::mul_rn;
  using cuskimage::detail::sub_rn;
  const std::int64_t x0 = -(n / 2);
  if (!(t >= static_cast<double>(x0)) || t > static_cast<double>(x0 + n - 1))
    return 0.0;
  const std::int64_t j = static_cast<std::int64_t>(std::floor(t)) - x0;
  if (j >= n - 1)
    return col[n - 1];
  const double xj = static_cast<double>(j + x0);
  if (xj == t)
    return col[j];
  const double slope = sub_rn(col[j + 1], col[j]); // divided by dx = 1
  return add_rn(mul_rn(slope, sub_rn(t, xj)), col[j]);
}

/// scipy's interp1d(arange(n) - n // 2, col, kind='nearest',
/// bounds_error=False, fill_value=0): the sample whose midpoint interval holds
/// t (ties to the lower sample).
CUSK_HD double iradon_nearest(const double *col, std::int64_t n, double t) {
  const std::int64_t x0 = -(n / 2);
  if (!(t >= static_cast<double>(x0)) || t > static_cast<double>(x0 + n - 1))
    return 0.0;
  // searchsorted(midpoints, t, 'left'): the number of midpoints x0 + k + 0.5
  // below t.
  std::int64_t c =
      static_cast<std::int64_t>(std::ceil(t - static_cast<double>(x0) - 0.5));
  c = c < 0 ? 0 : (c > n - 1 ? n - 1 : c);
  while (c > 0 && static_cast<double>(x0 + c - 1) + 0.5 >= t)
    --c;
  while (c < n - 1 && static_cast<double>(x0 + c) + 0.5 < t)
    ++c;
  return col[c];
}

/// The second derivatives m[0, n) of the not-a-knot cubic spline through col at
/// unit spacing (scipy's interp1d(kind='cubic') = make_interp_spline(k=3)), n
/// >= 4; `w` scratch of n doubles. Not-a-knot fixes m[1] and m[n-2] from the
/// data; the rest is a tridiagonal solve. Every step rounded once (rn helpers),
/// so both backends agree bit for bit.
CUSK_HD void iradon_cubic_prepare(const double *col, std::int64_t n, double *m,
                                  double *w) {
  using cuskimage::detail::add_rn;
  using cuskimage::detail::div_rn;
  using cuskimage::detail::mul_rn;
  using cuskimage::detail::sub_rn;
  // 6 (y[i+1] - 2 y[i] + y[i-1]) for unit spacing.
  const auto d = [&](std::int64_t i) {
    return mul_rn(6.0,
                  add_rn(sub_rn(col[i + 1], mul_rn(2.0, col[i])), col[i - 1]));
  };
  m[1] = div_rn(d(1), 6.0);
  m[n - 2] = div_rn(d(n - 2), 6.0);
  // Rows i = 2 .. n-3: m[i-1] + 4 m[i] + m[i+1] = d(i) (Thomas, unit
  // off-diagonals).
  const std::int64_t lo = 2, hi = n - 3;
  for (std::int64_t i = lo; i <= hi; ++i) {
    double rhs = d(i);
    if (i == lo)
      rhs = sub_rn(rhs, m[1]);
    if (i == hi)
      rhs = sub_rn(rhs, m[n - 2]);
    const double diag = i == lo ? 4.0 : sub_rn(4.0, w[i - 1]);
    w[i] = div_rn(1.0, diag);
    m[i] = div_rn(i == lo ? rhs : sub_rn(rhs, m[i - 1]), diag);
  }
  for (std::int64_t i = hi - 1; i >= lo; --i)
    m[i] = sub_rn(m[i], mul_rn(w[i], m[i + 1]));
  m[0] = sub_rn(mul_rn(2.0, m[1]), m[2]);
  m[n - 1] = sub_rn(mul_rn(2.0, m[n - 2]), m[n - 3]);
}

/// The cubic spline of iradon_cubic_prepare at t (0 outside [x0, x0 + n - 1]).
CUSK_HD double iradon_cubic(const double *col, const double *m, std::int64_t n,
                            double t) {
  using cuskimage::detail::add_rn;
  using cuskimage::detail::div_rn;
  using cuskimage::detail::mul_rn;
  using cuskimage::detail::sub_rn;
  const std::int64_t x0 = -(n / 2);
  if (!(t >= static_cast<double>(x0)) || t > static_cast<double>(x0 + n - 1))
    return 0.0;
  std::int64_t j = static_cast<std::int64_t>(std::floor(t)) - x0;
  if (j > n - 2)
    j = n - 2;
  const double u = sub_rn(t, static_cast<double>(j + x0)), v = sub_rn(1.0, u);
  const double lin = add_rn(mul_rn(v, col[j]), mul_rn(u, col[j + 1]));
  const double cv = sub_rn(mul_rn(mul_rn(v, v), v), v),
               cu = sub_rn(mul_rn(mul_rn(u, u), u), u);
  return add_rn(lin,
                div_rn(add_rn(mul_rn(cv, m[j]), mul_rn(cu, m[j + 1])), 6.0));
}

/// One reconstructed pixel (row i, column k of an out x out image): the
/// projections at t = (k - radius) cos - (i - radius) sin added angle by angle
/// into F, zero outside the circle when `circle`, then times pi / (2 na) in F.
/// `interp`: 0 linear, 1 nearest, 2 cubic (`m` the splines' second derivatives,
/// na x n). Projection a is filt[a * ld, a * ld + n).
template <class F>
CUSK_HD F iradon_pixel(const double *filt, std::int64_t ld, const double *m,
                       std::int64_t n, const double *cs, const double *sn,
                       std::int64_t na, std::int64_t i, std::int64_t k,
                       std::int64_t radius, int interp, bool circle) {
  using cuskimage::detail::div_rn;
  using cuskimage::detail::mul_rn;
  using cuskimage::detail::sub_rn;
  const std::int64_t xpr = i - radius, ypr = k - radius;
  if (circle && xpr * xpr + ypr * ypr > radius * radius)
    return F(0);
  F r = F(0);
  for (std::int64_t a = 0; a < na; ++a) {
    const double t = sub_rn(mul_rn(static_cast<double>(ypr), cs[a]),
                            mul_rn(static_cast<double>(xpr), sn[a]));
    const double *col = filt + a * ld;
    const double v = interp == 0   ? iradon_linear(col, n, t)
                     : interp == 1 ? iradon_nearest(col, n, t)
                                   : iradon_cubic(col, m + a * n, n, t);
    r = static_cast<F>(cuskimage::detail::add_rn(static_cast<double>(r), v));
  }
  return div_rn(mul_rn(r, static_cast<F>(3.141592653589793)),
                static_cast<F>(2 * na));
}

/// The filtered projections: filt (na x p, float64) <- irfft(rfft(projection a
/// zero-padded to p) * half) for every column a of the rows x na sinogram
/// (contiguous F on the device), `half` the p/2 + 1 real weights (the inverse
/// transform's 1/p included). Returns false, doing nothing, in a build without
/// cuFFT (the caller filters on the host).
template <class F>
bool cuda_iradon_filter(const Array &sino, const Array &half, Array &filt,
                        const Stream &stream);

/// The back-projection of filt (na x ld, the first `rows` of each row used),
/// for interp 2 with the splines in m and w (na x rows scratch); out (size x
/// size, F). Device arrays.
template <class F>
void cuda_iradon_backproject(const Array &filt, std::int64_t rows,
                             const Array &cs, const Array &sn, Array &m,
                             Array &w, Array &out, std::int64_t radius,
                             int interp, bool circle, const Stream &stream);

} // namespace cuskimage::transform::detail
