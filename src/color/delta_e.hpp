// Per-pixel colour differences of skimage.color.delta_e (0.26), shared by the CPU loop and the CUDA
// kernel. T is the computation dtype (float when both inputs are float32, else double); get_dH2 is
// computed in double in every case, as scikit-image does.
#pragma once

#include "src/color/colorconv.hpp"

namespace cuskimage::color::detail {

enum class DeltaKind : int { cie76, ciede94, ciede2000, cmc };

struct DeltaParams {
  double kL = 1, kC = 1, kH = 1, k1 = 0.045, k2 = 0.015;
};

inline constexpr double kPi = 3.141592653589793;

/// 2 * (C1 C2 - (a1 a2 + b1 b2)) in double (skimage's get_dH2), stored in T.
template <class T>
CUSK_HD T delta_h2(const T* l1, const T* l2) {
  const double a1 = l1[1], b1 = l1[2], a2 = l2[1], b2 = l2[2];
  const double c1 = hypot(a1, b1), c2 = hypot(a2, b2);
  return T(2.0 * ((c1 * c2) - (a1 * a2 + b1 * b2)));
}

template <class T>
CUSK_HD T sq(T v) {
  return v * v;
}

template <class T>
CUSK_HD T delta_cie76(const T* l1, const T* l2) {
  return sqrt_t(sq(l2[0] - l1[0]) + sq(l2[1] - l1[1]) + sq(l2[2] - l1[2]));
}

template <class T>
CUSK_HD T delta_ciede94(const DeltaParams& p, const T* l1, const T* l2) {
  const T C1 = hypot_t(l1[1], l1[2]), C2 = hypot_t(l2[1], l2[2]);
  const T dL = l1[0] - l2[0], dC = C1 - C2;
  const T dH2 = delta_h2(l1, l2);
  const T SC = T(1) + T(p.k1) * C1, SH = T(1) + T(p.k2) * C1;
  T dE2 = sq(dL / T(p.kL));
  dE2 = dE2 + sq(dC / (T(p.kC) * SC));
  dE2 = dE2 + dH2 / sq(T(p.kH) * SH);
  return sqrt_t(dE2 > T(0) ? dE2 : T(0));
}

template <class T>
CUSK_HD T delta_ciede2000(const DeltaParams& p, const T* l1, const T* l2) {
  const T L1 = l1[0], a1 = l1[1], b1 = l1[2], L2 = l2[0], a2 = l2[1], b2 = l2[2];
  const T pi = T(kPi), two_pi = T(2 * kPi);
  const T p25_7 = T(6103515625.0);  // 25**7
  T Cbar = T(0.5) * (hypot_t(a1, b1) + hypot_t(a2, b2));
  T c7 = pow_t(Cbar, T(7));
  const T G = T(0.5) * (T(1) - sqrt_t(c7 / (c7 + p25_7)));
  const T scale = T(1) + G;
  const T C1 = hypot_t(a1 * scale, b1), C2 = hypot_t(a2 * scale, b2);
  T h1 = atan2_t(b1, a1 * scale), h2 = atan2_t(b2, a2 * scale);
  if (h1 < T(0)) h1 = h1 + two_pi;
  if (h2 < T(0)) h2 = h2 + two_pi;
  const T Lbar = T(0.5) * (L1 + L2);
  const T tmp = sq(Lbar - T(50));
  const T SL = T(1) + T(0.015) * tmp / sqrt_t(T(20) + tmp);
  const T L_term = (L2 - L1) / (T(p.kL) * SL);
  Cbar = T(0.5) * (C1 + C2);
  const T SC = T(1) + T(0.045) * Cbar;
  const T C_term = (C2 - C1) / (T(p.kC) * SC);
  const T h_diff = h2 - h1, h_sum = h1 + h2, CC = C1 * C2;
  T dH = h_diff;
  if (h_diff > pi) dH = dH - two_pi;
  if (h_diff < -pi) dH = dH + two_pi;
  if (CC == T(0)) dH = T(0);
  const T dH_term = T(2) * sqrt_t(CC) * sin_t(dH / T(2));
  T Hbar = h_sum;
  if (CC != T(0) && (h_diff < T(0) ? -h_diff : h_diff) > pi) Hbar = h_sum < two_pi ? Hbar + two_pi : Hbar - two_pi;
  if (CC == T(0)) Hbar = Hbar * T(2);
  Hbar = Hbar * T(0.5);
  const T deg = T(kPi / 180.0);
  const T Tt = T(1) - T(0.17) * cos_t(Hbar - T(30) * deg) + T(0.24) * cos_t(T(2) * Hbar) +
               T(0.32) * cos_t(T(3) * Hbar + T(6) * deg) - T(0.20) * cos_t(T(4) * Hbar - T(63) * deg);
  const T SH = T(1) + T(0.015) * Cbar * Tt;
  const T H_term = dH_term / (T(p.kH) * SH);
  c7 = pow_t(Cbar, T(7));
  const T Rc = T(2) * sqrt_t(c7 / (c7 + p25_7));
  const T dtheta = T(30) * deg * exp_t(-sq((Hbar * T(180.0 / kPi) - T(275)) / T(25)));
  const T R_term = -sin_t(T(2) * dtheta) * Rc * C_term * H_term;
  T dE2 = sq(L_term);
  dE2 = dE2 + sq(C_term);
  dE2 = dE2 + sq(H_term);
  dE2 = dE2 + R_term;
  return sqrt_t(dE2 > T(0) ? dE2 : T(0));
}

template <class T>
CUSK_HD T delta_cmc(const DeltaParams& p, const T* l1, const T* l2) {
  const T L1 = l1[0], L2 = l2[0];
  const T C1 = hypot_t(l1[1], l1[2]), C2 = hypot_t(l2[1], l2[2]);
  T h1 = atan2_t(l1[2], l1[1]);
  if (h1 < T(0)) h1 = h1 + T(2 * kPi);
  const T dC = C1 - C2, dL = L1 - L2;
  const T dH2 = delta_h2(l1, l2);
  const T h1deg = h1 * T(180.0 / kPi);
  const T deg = T(kPi / 180.0);
  const T ct = h1deg >= T(164) && h1deg <= T(345) ? cos_t(h1 + T(168) * deg) : cos_t(h1 + T(35) * deg);
  const T Tt = h1deg >= T(164) && h1deg <= T(345) ? T(0.56) + T(0.2) * (ct < T(0) ? -ct : ct)
                                                  : T(0.36) + T(0.4) * (ct < T(0) ? -ct : ct);
  const T c1_4 = pow_t(C1, T(4));
  const T F = sqrt_t(c1_4 / (c1_4 + T(1900)));
  const T SL = L1 < T(16) ? T(0.511) : T(0.040975) * L1 / (T(1.0) + T(0.01765) * L1);
  const T SC = T(0.638) + T(0.0638) * C1 / (T(1.0) + T(0.0131) * C1);
  const T SH = SC * (F * Tt + T(1) - F);
  T dE2 = sq(dL / (T(p.kL) * SL));
  dE2 = dE2 + sq(dC / (T(p.kC) * SC));
  dE2 = dE2 + dH2 / sq(SH);
  return sqrt_t(dE2 > T(0) ? dE2 : T(0));
}

template <class T>
CUSK_HD T delta_e(DeltaKind k, const DeltaParams& p, const T* l1, const T* l2) {
  switch (k) {
    case DeltaKind::cie76: return delta_cie76(l1, l2);
    case DeltaKind::ciede94: return delta_ciede94(p, l1, l2);
    case DeltaKind::ciede2000: return delta_ciede2000(p, l1, l2);
    case DeltaKind::cmc: break;
  }
  return delta_cmc(p, l1, l2);
}

}  // namespace cuskimage::color::detail
