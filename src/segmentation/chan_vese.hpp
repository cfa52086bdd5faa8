// Private interface of segmentation.chan_vese: the per-pixel terms both backends evaluate (CUSK_HD,
// every rounding step spelled with the *_rn helpers, in NumPy's order), and the CUDA entry.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::segmentation::detail {

/// The scalars of one run in the image's precision (Python floats meet NumPy arrays as T).
template <class T>
struct CvCoeffs {
  T mu, neg_l1, l1, l2, dt, mudt, eta, two_over_pi;
};

/// phi's value and its four edge-clamped neighbours (np.pad(phi, 1, mode='edge')).
template <class T>
struct CvStencil {
  T p, xp, xn, yp, yn;
  CUSK_HD CvStencil(const T* phi, std::int64_t ny, std::int64_t nx, std::int64_t y, std::int64_t x) {
    const std::int64_t row = y * nx;
    p = phi[row + x];
    xp = phi[row + (x + 1 < nx ? x + 1 : x)];
    xn = phi[row + (x > 0 ? x - 1 : x)];
    yp = phi[(y + 1 < ny ? y + 1 : y) * nx + x];
    yn = phi[(y > 0 ? y - 1 : y) * nx + x];
  }
};

template <class T>
CUSK_HD T cv_sq(T v) {
  return cuskimage::detail::mul_rn(v, v);
}
template <class T>
CUSK_HD T cv_delta(T p) {
  using namespace cuskimage::detail;
  return div_rn(T(1), add_rn(T(1), cv_sq(p)));
}
/// 1 / sqrt(eta + a^2 + b^2).
template <class T>
CUSK_HD T cv_inv_norm(T eta, T a, T b) {
  using namespace cuskimage::detail;
  return div_rn(T(1), T(std::sqrt(add_rn(add_rn(eta, cv_sq(a)), cv_sq(b)))));
}

/// One step of _cv_calculate_variation at a pixel: the new phi.
template <class T>
CUSK_HD T cv_variation(const CvStencil<T>& s, T img, T c1, T c2, const CvCoeffs<T>& k) {
  using namespace cuskimage::detail;
  const T phixp = sub_rn(s.xp, s.p), phixn = sub_rn(s.p, s.xn), phix0 = div_rn(sub_rn(s.xp, s.xn), T(2));
  const T phiyp = sub_rn(s.yp, s.p), phiyn = sub_rn(s.p, s.yn), phiy0 = div_rn(sub_rn(s.yp, s.yn), T(2));
  const T C1 = cv_inv_norm(k.eta, phixp, phiy0), C2 = cv_inv_norm(k.eta, phixn, phiy0);
  const T C3 = cv_inv_norm(k.eta, phix0, phiyp), C4 = cv_inv_norm(k.eta, phix0, phiyn);
  const T K = add_rn(add_rn(add_rn(mul_rn(s.xp, C1), mul_rn(s.xn, C2)), mul_rn(s.yp, C3)), mul_rn(s.yn, C4));
  const T diff = add_rn(mul_rn(k.neg_l1, cv_sq(sub_rn(img, c1))), mul_rn(k.l2, cv_sq(sub_rn(img, c2))));
  const T delta = cv_delta(s.p);
  const T num = add_rn(s.p, mul_rn(mul_rn(k.dt, delta), add_rn(mul_rn(k.mu, K), diff)));
  const T den = add_rn(T(1), mul_rn(mul_rn(k.mudt, delta), add_rn(add_rn(add_rn(C1, C2), C3), C4)));
  return div_rn(num, den);
}

/// The smooth Heaviside 0.5 (1 + 2/pi arctan(phi)).
template <class T>
CUSK_HD T cv_heaviside(T p, const CvCoeffs<T>& k) {
  using namespace cuskimage::detail;
  return mul_rn(T(0.5), add_rn(T(1), mul_rn(k.two_over_pi, T(std::atan(p)))));
}
/// The region term of the energy at a pixel (c1, c2: averages under the smooth Heaviside).
template <class T>
CUSK_HD T cv_energy_region(T p, T img, T c1, T c2, const CvCoeffs<T>& k) {
  using namespace cuskimage::detail;
  const T h = cv_heaviside(p, k);
  return add_rn(mul_rn(mul_rn(k.l1, cv_sq(sub_rn(img, c1))), h),
                mul_rn(mul_rn(k.l2, cv_sq(sub_rn(img, c2))), sub_rn(T(1), h)));
}
/// The edge-length term of the energy at a pixel.
template <class T>
CUSK_HD T cv_energy_length(const CvStencil<T>& s, const CvCoeffs<T>& k) {
  using namespace cuskimage::detail;
  const T fy = div_rn(sub_rn(s.yp, s.yn), T(2)), fx = div_rn(sub_rn(s.xp, s.xn), T(2));
  return mul_rn(mul_rn(k.mu, cv_delta(s.p)), T(std::sqrt(add_rn(cv_sq(fx), cv_sq(fy)))));
}

/// CUDA Chan-Vese on a contiguous (ny, nx) image already rescaled to [0, 1]; phi (contiguous) is
/// evolved in place. Returns the energies (one per iteration).
template <class T>
std::vector<double> cuda_chan_vese(const Array& img, Array& phi, const CvCoeffs<T>& k, double tol, int max_num_iter,
                                   const Stream& stream);

}  // namespace cuskimage::segmentation::detail
