// Moment arithmetic shared by both backends and by regionprops' derived properties: normalized
// moments, Hu invariants, the inertia tensor and its eigenvalues (scikit-image's _moments.py).
#pragma once

#include <cmath>
#include <cstdint>

#include "src/core/hd.hpp"

namespace cuskimage::measure::detail {

/// nu[k] from the C-order central moments mu of extent P per axis: 0 where a power exceeds
/// `order` (scikit-image fills only powers <= order), NaN where the power sum s < 2, else
/// (mu / scale^s) / mu0^(s/ndim + 1) with scale = min(spacing).
CUSK_HD double normalized_moment(const double* mu, std::int64_t k, int ndim, std::int64_t P, int order,
                                        double scale) {
  int s = 0;
  std::int64_t r = k;
  for (int a = 0; a < ndim; ++a) {
    const int p = static_cast<int>(r % P);
    if (p > order) return 0.0;
    s += p;
    r /= P;
  }
  if (s < 2) return NAN;
  return (mu[k] / std::pow(scale, static_cast<double>(s))) /
         std::pow(mu[0], static_cast<double>(s) / ndim + 1.0);
}

/// The seven Hu invariants from 2-D normalized moments nu (order >= 3, row stride `n` = order+1).
CUSK_HD void hu_moments(const double* nu, int n, double* hu) {
  auto v = [&](int i, int j) { return nu[i * n + j]; };
  const double t0 = v(3, 0) + v(1, 2);
  const double t1 = v(2, 1) + v(0, 3);
  const double q0 = t0 * t0, q1 = t1 * t1;
  const double n4 = 4.0 * v(1, 1);
  const double s = v(2, 0) + v(0, 2);
  const double d = v(2, 0) - v(0, 2);
  hu[0] = s;
  hu[1] = d * d + n4 * v(1, 1);
  hu[3] = q0 + q1;
  hu[5] = d * (q0 - q1) + n4 * t0 * t1;
  const double a = v(3, 0) - 3.0 * v(1, 2);
  const double b = 3.0 * v(2, 1) - v(0, 3);
  hu[2] = a * a + b * b;
  const double e = q0 - 3.0 * q1;
  const double f = 3.0 * q0 - q1;
  hu[4] = a * t0 * e + b * t1 * f;
  hu[6] = b * t0 * e - a * t1 * f;
}

/// Inertia tensor (ndim x ndim, row-major) from central moments mu of order >= 2 (row stride n).
CUSK_HD void inertia_from_central(const double* mu, int ndim, int n, double* T) {
  auto idx = [&](int a, int pa, int b, int pb) {
    std::int64_t k = 0;
    for (int ax = 0; ax < ndim; ++ax) {
      int p = 0;
      if (ax == a) p += pa;
      if (ax == b) p += pb;
      k = k * n + p;
    }
    return k;
  };
  const double mu0 = mu[0];
  double sum2 = 0;
  for (int a = 0; a < ndim; ++a) sum2 += mu[idx(a, 2, -1, 0)];
  for (int a = 0; a < ndim; ++a) {
    T[a * ndim + a] = (sum2 - mu[idx(a, 2, -1, 0)]) / mu0;
    for (int b = a + 1; b < ndim; ++b) {
      const double v = -mu[idx(a, 1, b, 1)] / mu0;
      T[a * ndim + b] = v;
      T[b * ndim + a] = v;
    }
  }
}

/// Eigenvalues of a symmetric ndim x ndim matrix (ndim <= 3) by cyclic Jacobi rotations, clipped
/// at 0 and sorted in decreasing order (numpy's eigvalsh + clip + sorted(reverse=True)).
CUSK_HD void symmetric_eigvals_desc(const double* T, int ndim, double* ev) {
  double a[3][3] = {};
  for (int i = 0; i < ndim; ++i)
    for (int j = 0; j < ndim; ++j) a[i][j] = T[i * ndim + j];
  for (int sweep = 0; sweep < 64; ++sweep) {
    double off = 0;
    for (int p = 0; p < ndim; ++p)
      for (int q = p + 1; q < ndim; ++q) off += a[p][q] * a[p][q];
    if (off == 0) break;
    for (int p = 0; p < ndim; ++p)
      for (int q = p + 1; q < ndim; ++q) {
        if (a[p][q] == 0) continue;
        const double theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (std::fabs(theta) + std::sqrt(theta * theta + 1.0));
        const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < ndim; ++k) {  // A <- A J (columns p, q)
          const double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq;
          a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < ndim; ++k) {  // A <- J^T A (rows p, q)
          const double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk;
          a[q][k] = s * apk + c * aqk;
        }
        a[p][q] = a[q][p] = 0;
      }
  }
  for (int i = 0; i < ndim; ++i) ev[i] = a[i][i] < 0 ? 0.0 : a[i][i];
  for (int i = 0; i < ndim; ++i)
    for (int j = i + 1; j < ndim; ++j)
      if (ev[j] > ev[i]) {
        const double t = ev[i];
        ev[i] = ev[j];
        ev[j] = t;
      }
}

}  // namespace cuskimage::measure::detail
