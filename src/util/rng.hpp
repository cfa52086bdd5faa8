// Counter-based random numbers for random_noise, identical on CPU and GPU.
//
// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11): every pixel
// draws from its own stream, keyed by the seed and counted by (pixel index, draw number, purpose),
// so the noise depends on the seed and the pixel's position only, not on threads or launch shape.
// Uniform doubles take 53 random bits; normals use Marsaglia's polar method; Poisson counts use
// inversion below a mean of 10 and Hörmann's PTRS transformed rejection above. log/exp/lgamma are
// written here with once-rounded operations (src/core/rn.hpp) so that both backends produce the
// same bits; their accuracy (a few ulp) is far below what the statistics can see.
#pragma once

#include <cstdint>
#include <limits>

#include "src/core/hd.hpp"
#include "src/util/rn_names.hpp"

namespace cuskimage::util::detail {

/// One Philox4x32 block with 10 rounds: out = Philox(ctr, key).
CUSK_HD void philox4x32_10(const std::uint32_t ctr[4], const std::uint32_t key[2], std::uint32_t out[4]) {
  constexpr std::uint32_t kMul0 = 0xD2511F53u, kMul1 = 0xCD9E8D57u;
  constexpr std::uint32_t kWeyl0 = 0x9E3779B9u, kWeyl1 = 0xBB67AE85u;
  std::uint32_t c0 = ctr[0], c1 = ctr[1], c2 = ctr[2], c3 = ctr[3];
  std::uint32_t k0 = key[0], k1 = key[1];
CUSK_UNROLL
  for (int r = 0; r < 10; ++r) {
    const std::uint64_t p0 = static_cast<std::uint64_t>(kMul0) * c0;
    const std::uint64_t p1 = static_cast<std::uint64_t>(kMul1) * c2;
    const std::uint32_t hi0 = static_cast<std::uint32_t>(p0 >> 32), lo0 = static_cast<std::uint32_t>(p0);
    const std::uint32_t hi1 = static_cast<std::uint32_t>(p1 >> 32), lo1 = static_cast<std::uint32_t>(p1);
    c0 = hi1 ^ c1 ^ k0;
    c1 = lo1;
    c2 = hi0 ^ c3 ^ k1;
    c3 = lo0;
    k0 += kWeyl0;
    k1 += kWeyl1;
  }
  out[0] = c0;
  out[1] = c1;
  out[2] = c2;
  out[3] = c3;
}

/// Purposes (fourth counter word) keep the draws of different modes independent.
enum : std::uint32_t { kStreamNormal = 1, kStreamSaltPepper = 2, kStreamPoisson = 3 };

/// The random stream of one pixel.
struct PixelRng {
  std::uint32_t key[2];
  std::uint32_t ctr[4];

  CUSK_HD PixelRng(std::uint64_t seed, std::uint64_t index, std::uint32_t purpose) {
    key[0] = static_cast<std::uint32_t>(seed);
    key[1] = static_cast<std::uint32_t>(seed >> 32);
    ctr[0] = static_cast<std::uint32_t>(index);
    ctr[1] = static_cast<std::uint32_t>(index >> 32);
    ctr[2] = 0;
    ctr[3] = purpose;
  }
  CUSK_HD void next(std::uint32_t out[4]) {
    philox4x32_10(ctr, key, out);
    ++ctr[2];
  }
  /// Two independent uniforms in [0, 1), 53 bits each.
  CUSK_HD void uniform2(double& a, double& b) {
    std::uint32_t r[4];
    next(r);
    constexpr double k2m53 = 1.0 / 9007199254740992.0;
    a = static_cast<double>(((static_cast<std::uint64_t>(r[0]) << 32) | r[1]) >> 11) * k2m53;
    b = static_cast<double>(((static_cast<std::uint64_t>(r[2]) << 32) | r[3]) >> 11) * k2m53;
  }
};

// ---- elementary functions, rounded identically on both backends ---------------------------------

inline constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3FE62E42FEE00000: few bits, exact e*hi
inline constexpr double kLn2Lo = 1.90821492927058770002e-10;

/// Natural logarithm (NaN below 0, -inf at 0).
CUSK_HD double log_hd(double x) {
  if (!(x > 0)) return x == 0 ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  if (x > std::numeric_limits<double>::max()) return x;
  std::uint64_t b = bits_of(x);
  int e = static_cast<int>(b >> 52);
  if (e == 0) {  // subnormal: scale into the normal range
    x = mul_rn(x, 18014398509481984.0);  // 2^54
    b = bits_of(x);
    e = static_cast<int>(b >> 52) - 54;
  }
  e -= 1023;
  double m = double_of((b & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);  // [1, 2)
  if (m > 1.4142135623730951) {
    m = mul_rn(m, 0.5);
    e += 1;
  }
  // log(m) = 2 atanh(s), s = (m - 1) / (m + 1) = f / (2 + f); |s| < 0.1716, s^2 < 0.0295.
  const Rn f = sub_rn(m, 1.0);
  const Rn s = f / (Rn(2.0) + f);
  const Rn s2 = s + s;
  const double z = (s * s).v;
  double p = 1.0 / 25;
  p = fma_rn(p, z, 1.0 / 23);
  p = fma_rn(p, z, 1.0 / 21);
  p = fma_rn(p, z, 1.0 / 19);
  p = fma_rn(p, z, 1.0 / 17);
  p = fma_rn(p, z, 1.0 / 15);
  p = fma_rn(p, z, 1.0 / 13);
  p = fma_rn(p, z, 1.0 / 11);
  p = fma_rn(p, z, 1.0 / 9);
  p = fma_rn(p, z, 1.0 / 7);
  p = fma_rn(p, z, 1.0 / 5);
  p = fma_rn(p, z, 1.0 / 3);
  const double logm = fma_rn((s2 * z).v, p, s2.v);
  const double de = static_cast<double>(e);
  return fma_rn(de, kLn2Hi, fma_rn(de, kLn2Lo, logm));
}

/// e^x = p * 2^n for finite x: n = rint(x / ln 2) and p = e^r, r = x - n ln 2 (|r| <= ln2 / 2) by
/// Cody-Waite and a degree-13 Taylor polynomial, every step rounded as written.
CUSK_HD double exp_reduced(double x, double& n) {
  n = rint_rn(mul_rn(x, 1.4426950408889634));  // x / ln 2
  double r = fma_rn(-n, kLn2Hi, x);
  r = fma_rn(-n, kLn2Lo, r);
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = fma_rn(p, r, 1.0 / 479001600.0);
  p = fma_rn(p, r, 1.0 / 39916800.0);
  p = fma_rn(p, r, 1.0 / 3628800.0);
  p = fma_rn(p, r, 1.0 / 362880.0);
  p = fma_rn(p, r, 1.0 / 40320.0);
  p = fma_rn(p, r, 1.0 / 5040.0);
  p = fma_rn(p, r, 1.0 / 720.0);
  p = fma_rn(p, r, 1.0 / 120.0);
  p = fma_rn(p, r, 1.0 / 24.0);
  p = fma_rn(p, r, 1.0 / 6.0);
  p = fma_rn(p, r, 0.5);
  p = fma_rn(p, r, 1.0);
  return fma_rn(p, r, 1.0);
}

/// e^x for x in [-700, 0] (used for the Poisson inversion, x > -10).
CUSK_HD double exp_neg_hd(double x) {
  if (!(x <= 0)) return x != x ? x : 1.0;
  if (x < -700) return 0.0;
  double n;
  const double p = exp_reduced(x, n);
  const int k = static_cast<int>(n);  // in [-1010, 0]: 2^k is a normal double
  return mul_rn(p, double_of(static_cast<std::uint64_t>(k + 1023) << 52));
}

/// log(k!) for integral k >= 0.
CUSK_HD double log_factorial_hd(double k) {
  constexpr double table[16] = {0.0,
                                0.0,
                                0.69314718055994529,
                                1.791759469228055,
                                3.1780538303479458,
                                4.7874917427820458,
                                6.5792512120101012,
                                8.5251613610654147,
                                10.604602902745251,
                                12.801827480081469,
                                15.104412573075516,
                                17.502307845873887,
                                19.987214495661885,
                                22.552163853123425,
                                25.19122118273868,
                                27.89927138384089};
  if (k < 16) return table[static_cast<int>(k)];
  // Stirling's series for log Gamma(x), x = k + 1 >= 17: error below 1e-16 relative.
  const Rn x = k + 1.0;
  const Rn ix = Rn(1.0) / x;
  const Rn ix2 = ix * ix;
  double c = -1.0 / 1680;
  c = fma_rn(c, ix2.v, 1.0 / 1260);
  c = fma_rn(c, ix2.v, -1.0 / 360);
  c = fma_rn(c, ix2.v, 1.0 / 12);
  const Rn series = Rn(c) * ix;
  return ((x - Rn(0.5)) * Rn(log_hd(x.v)) - x + Rn(0.91893853320467274) + series).v;
}

/// Standard normal by Marsaglia's polar method.
CUSK_HD double normal_hd(PixelRng& g) {
  for (int it = 0; it < 64; ++it) {
    double a, b;
    g.uniform2(a, b);
    const Rn u = Rn(mul_rn(2.0, a)) - Rn(1.0);  // exact
    const Rn v = Rn(mul_rn(2.0, b)) - Rn(1.0);
    const Rn s = u * u + v * v;
    if (s.v >= 1.0 || s.v == 0.0) continue;
    const double t = sqrt_rn((Rn(-2.0) * Rn(log_hd(s.v)) / s).v);
    return (u * t).v;
  }
  return 0.0;  // probability (1 - pi/4)^64 ~ 1e-43
}

/// Poisson(lam) count as a double (NaN for a negative or NaN mean).
CUSK_HD double poisson_hd(double lam, PixelRng& g) {
  if (!(lam >= 0)) return std::numeric_limits<double>::quiet_NaN();
  if (lam == 0) return 0.0;
  if (lam < 10) {
    // Inversion: walk the CDF from 0.
    double u, unused;
    g.uniform2(u, unused);
    Rn p = exp_neg_hd(-lam);
    Rn cdf = p;
    double k = 0;
    while (u > cdf.v && k < 1000) {
      k += 1;
      p = p * Rn(lam) / Rn(k);
      cdf = cdf + p;
    }
    return k;
  }
  if (lam > 1e300) return lam;
  // PTRS (Hörmann 1993): transformed rejection with squeeze.
  const Rn rl = lam;
  const Rn slam = sqrt_rn(lam);
  const Rn loglam = log_hd(lam);
  const Rn b = Rn(0.931) + Rn(2.53) * slam;
  const Rn a = Rn(-0.059) + Rn(0.02483) * b;
  const Rn inv_alpha = Rn(1.1239) + Rn(1.1328) / (b - Rn(3.4));
  const Rn vr = Rn(0.9277) - Rn(3.6224) / (b - Rn(2.0));
  const double log_inv_alpha = log_hd(inv_alpha.v);
  double k = 0;
  for (int it = 0; it < 1000; ++it) {
    double uu, vv;
    g.uniform2(uu, vv);
    const Rn U = Rn(uu) - Rn(0.5);
    const Rn V = vv;
    const Rn us = Rn(0.5) - Rn(U.v < 0 ? -U.v : U.v);
    k = floor_rn(((Rn(2.0) * a / us + b) * U + rl + Rn(0.43)).v);
    if (us.v >= 0.07 && V.v <= vr.v) return k;
    if (k < 0 || (us.v < 0.013 && V.v > us.v)) continue;
    const Rn lhs = Rn(log_hd(V.v)) + Rn(log_inv_alpha) - Rn(log_hd((a / (us * us) + b).v));
    const Rn rhs = -rl + Rn(k) * loglam - Rn(log_factorial_hd(k));
    if (lhs.v <= rhs.v) return k;
  }
  return k < 0 ? 0.0 : k;
}

}  // namespace cuskimage::util::detail
