// Ridge filters (frangi, hessian, meijering, sato): the per-pixel responses, written once as
// CUSK_HD code for the CPU loops (src/filters/ridges.cpp) and the CUDA kernels
// (kernels/filters/ridges.cu), and the backend entry points of one scale.
//
// Each response follows skimage/filters/ridges.py operation by operation in the image's precision T
// (NumPy keeps float32 arrays float32 and casts Python scalars to them), with products and sums
// rounded once. exp() is evaluated in float64 and rounded to T on both backends, so float32 results
// do not depend on either side's float32 exp.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"
#include "src/filters/hessian_matrix.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::filters::detail {

enum class RidgeKind : int { frangi, sato, meijering };

/// NumPy's np.maximum: a NaN in either operand wins.
template <class T>
CUSK_HD T nan_max(T a, T b) {
  if (a != a) return a;
  if (b != b) return b;
  return a > b ? a : b;
}

template <class T>
CUSK_HD T exp_t(T x) {
  return static_cast<T>(exp(static_cast<double>(x)));
}

/// Frangi's s = sqrt(sum of squared eigenvalues), summed in the |.|-sorted order as NumPy does.
template <class T>
CUSK_HD T frangi_norm(const T* m, int n) {
  using namespace cuskimage::detail;
  T acc = mul_rn(m[0], m[0]);
  for (int i = 1; i < n; ++i) acc = add_rn(acc, mul_rn(m[i], m[i]));
  return sqrt(acc);
}

/// Reorders decreasing eigenvalues by increasing magnitude (NumPy's argsort of |e| along the
/// eigenvalue axis; stable for these lengths, so ties keep the decreasing order).
template <class T>
CUSK_HD void sort_by_magnitude(T* m, int n) {
  for (int i = 1; i < n; ++i) {
    const T v = m[i];
    int j = i - 1;
    while (j >= 0 && fabs(m[j]) > fabs(v)) {
      m[j + 1] = m[j];
      --j;
    }
    m[j + 1] = v;
  }
}

/// Frangi's vesselness of one pixel (2-D or 3-D) from its magnitude-sorted eigenvalues `m`, with
/// two_a2 = 2 alpha^2, two_b2 = 2 beta^2, two_g2 = 2 gamma^2 already in T.
template <class T>
CUSK_HD T frangi_response(const T* m, int n, T two_a2, T two_b2, T two_g2) {
  using namespace cuskimage::detail;
  const T floor_ = T(1e-10);
  T plate = T(1);  // 2-D: r_a = inf, 1 - exp(-inf) = 1
  T r_b;
  if (n == 2) {
    const T l2 = nan_max(m[1], floor_);
    r_b = div_rn(T(fabs(m[0])), l2);
  } else {
    const T l2 = nan_max(m[1], floor_), l3 = nan_max(m[2], floor_);
    const T r_a = div_rn(l2, l3);
    r_b = div_rn(T(fabs(m[0])), T(sqrt(mul_rn(l2, l3))));
    plate = sub_rn(T(1), exp_t(div_rn(-mul_rn(r_a, r_a), two_a2)));
  }
  const T s = frangi_norm(m, n);
  const T blob = exp_t(div_rn(-mul_rn(r_b, r_b), two_b2));
  const T structure = sub_rn(T(1), exp_t(div_rn(-mul_rn(s, s), two_g2)));
  return mul_rn(mul_rn(plate, blob), structure);
}

/// Sato's tubeness of one pixel from its decreasing eigenvalues `e` (2-D or 3-D): sigma^2 times
/// the geometric mean of all but the lowest eigenvalue, each clipped at 0.
template <class T>
CUSK_HD T sato_response(const T* e, int n, T sigma2) {
  using namespace cuskimage::detail;
  if (n == 2) return mul_rn(sigma2, nan_max(e[0], T(0)));
  return mul_rn(sigma2, T(sqrt(mul_rn(nan_max(e[0], T(0)), nan_max(e[1], T(0))))));
}

/// Meijering's neuriteness of one pixel before the per-scale normalization: l_i = e_i + alpha *
/// sum_{j != i} e_j, the first l of largest magnitude, clipped at 0.
template <class T>
CUSK_HD T meijering_response(const T* e, int n, T alpha) {
  using namespace cuskimage::detail;
  T best = T(0), best_abs = T(-1);
  bool nan = false;
  for (int i = 0; i < n; ++i) {
    T l = T(0);
    for (int j = 0; j < n; ++j) l = add_rn(l, i == j ? e[j] : mul_rn(alpha, e[j]));
    nan = nan || l != l;
    const T a = T(fabs(l));
    if (a > best_abs) {
      best_abs = a;
      best = l;
    }
  }
  if (nan) return T(NAN);
  return nan_max(best, T(0));
}

/// Orders non-negative (or NaN) values as unsigned integers: NaN above everything, -0 as 0. Used
/// for max reductions by integer atomics.
CUSK_HD unsigned long long max_key(double v) {
  if (v != v) return 0x7ff8000000000000ull;
  if (!(v > 0)) return 0;
  return cuskimage::detail::bits_of(v);
}
CUSK_HD double from_max_key(unsigned long long k) { return cuskimage::detail::double_of(k); }

/// Where frangi's gamma comes from in one scale.
enum class GammaFrom : int {
  given,   // the caller's gamma
  compute, // max(s) / 2 of this scale (the first one when gamma is None); stored in the state
  state,   // the value the first scale stored
};

/// One scale of a ridge filter, as the backends see it.
struct RidgeScale {
  RidgeKind kind = RidgeKind::frangi;
  int ndim = 2;
  bool negate = false;          // !black_ridges: the Hessian of -image is -H (exactly)
  double sigma = 1.0;           // sato: sigma^2 scales the response
  double alpha = 0.5;           // frangi: plate constant; meijering: the shaping constant
  double beta = 0.5;            // frangi
  GammaFrom gamma_from = GammaFrom::given;
  double gamma = 15.0;          // frangi, GammaFrom::given
  bool hessian_final = false;   // last scale of filters.hessian: values <= 0 become 1
};

/// State carried across the scales of one call, on the image's device (CUDA: it never leaves it).
struct RidgeState {
  Array scalars;  // float64[2]: [0] a max key (bits of a double), [1] frangi's 2 gamma^2 once computed
  Array scratch;  // meijering: the unnormalized response of the scale (T, image shape)
};

/// The per-scale constants in T, as NumPy would see them: Python floats meet a T array and are
/// rounded to T (NEP 50).
template <class T>
struct RidgeCoeffs {
  T a = T(0);  // frangi: 2 alpha^2; sato: sigma^2; meijering: alpha
  T b = T(0);  // frangi: 2 beta^2
  T g = T(0);  // frangi: 2 gamma^2
};

template <class T>
RidgeCoeffs<T> ridge_coeffs(const RidgeScale& p) {
  RidgeCoeffs<T> c;
  switch (p.kind) {
    case RidgeKind::frangi:
      c.a = static_cast<T>(2 * (p.alpha * p.alpha));
      c.b = static_cast<T>(2 * (p.beta * p.beta));
      c.g = static_cast<T>(2 * (p.gamma * p.gamma));
      break;
    case RidgeKind::sato: c.a = static_cast<T>(p.sigma * p.sigma); break;
    case RidgeKind::meijering: c.a = static_cast<T>(p.alpha); break;
  }
  return c;
}

/// frangi's 2 gamma^2 from the scale's max(s) when gamma is None: gamma = s.max() / 2 in T (a NumPy
/// scalar, so gamma**2 and 2 * gamma**2 stay in T), and gamma = 1 when that is 0.
template <class T>
CUSK_HD T frangi_auto_two_g2(T smax) {
  using namespace cuskimage::detail;
  const T g = div_rn(smax, T(2));
  if (g == T(0)) return T(2);
  return mul_rn(T(2), mul_rn(g, g));
}

/// The Hessian elements of one scale and their eigenvalues per pixel. N: ndim known at compile
/// time (2, 3) or 0 (runtime `n`).
template <class T, int N>
struct RidgePixels {
  const T* h[kMaxHessianElems];
  int n;
  bool negate;

  CUSK_HD int dims() const { return N > 0 ? N : n; }
  /// Decreasing eigenvalues of pixel i into e[0..dims()).
  CUSK_HD void eigvals(std::int64_t i, T* e) const {
    const int d = dims(), k = hessian_elems(d);
    T v[N > 0 ? hessian_elems(N) : kMaxHessianElems];
    for (int j = 0; j < k; ++j) v[j] = negate ? -h[j][i] : h[j][i];
    sym_eigvals(v, d, e);
  }
  /// frangi's s of pixel i.
  CUSK_HD T frangi_s(std::int64_t i) const {
    T e[N > 0 ? N : kMaxHessianDims];
    eigvals(i, e);
    sort_by_magnitude(e, dims());
    return frangi_norm(e, dims());
  }
  /// The scale's response at pixel i (meijering: before normalization).
  CUSK_HD T response(RidgeKind kind, std::int64_t i, const RidgeCoeffs<T>& c) const {
    T e[N > 0 ? N : kMaxHessianDims];
    eigvals(i, e);
    if (kind == RidgeKind::frangi) {
      sort_by_magnitude(e, dims());
      return frangi_response(e, dims(), c.a, c.b, c.g);
    }
    if (kind == RidgeKind::sato) return sato_response(e, dims(), c.a);
    return meijering_response(e, dims(), c.a);
  }
};

/// filters.hessian's last step: filtered[filtered <= 0] = 1.
template <class T>
CUSK_HD T hessian_finish(T v) {
  return v <= T(0) ? T(1) : v;
}

/// Meijering's normalization of one scale: vals / max when max > 0 (NaN max: left alone).
template <class T>
CUSK_HD T meijering_normalize(T v, T vmax) {
  return vmax > T(0) ? cuskimage::detail::div_rn(v, vmax) : v;
}

/// Folds one scale into `out` (running max, NaN-propagating as np.maximum): `h` are the scale's
/// Hessian elements (contiguous, T), `out` contiguous T of the image's shape.
template <class T>
void cpu_ridge_scale(const std::vector<Array>& h, Array& out, const RidgeScale& p, RidgeState& st);
template <class T>
void cuda_ridge_scale(const std::vector<Array>& h, Array& out, const RidgeScale& p, RidgeState& st,
                      const Stream& stream);

}  // namespace cuskimage::filters::detail
