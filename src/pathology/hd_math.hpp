// Per-pixel and per-matrix arithmetic of the pathology ops, shared by the CPU backend and the CUDA
// kernels so that both produce the same bits.
//
// nvcc contracts a * b + c into one FMA, the host compiler does not; libm and CUDA's math library
// round transcendental functions differently. Every rounding step here therefore goes through the
// once-rounded helpers of src/core/rn.hpp, and atan2 / sin / cos / exp are written out as
// polynomials (a few ulp; far below what float32 pixels can see) instead of calling either library.
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "src/core/hd.hpp"
#include "src/core/rn.hpp"
#include "src/util/rng.hpp"

namespace cuskimage::pathology::detail {

using cuskimage::detail::add_rn;
using cuskimage::detail::bits_of;
using cuskimage::detail::div_rn;
using cuskimage::detail::double_of;
using cuskimage::detail::fma_rn;
using util::detail::log_hd;
using cuskimage::detail::mul_rn;
using cuskimage::detail::rint_rn;
using cuskimage::detail::sqrt_rn;
using cuskimage::detail::sub_rn;

inline constexpr double kPi = 3.14159265358979311600;
inline constexpr double kPio2Hi = 1.57079632679489655800;    // pi/2 rounded
inline constexpr double kPio2Lo = 6.12323399573676603587e-17;  // pi/2 - kPio2Hi

CUSK_HD float fabs_f(float x) { return x < 0 ? -x : (x == 0 ? 0.0f : x); }
CUSK_HD double fabs_d(double x) { return x < 0 ? -x : (x == 0 ? 0.0 : x); }
CUSK_HD bool signbit_f(float x) {
#if defined(__CUDA_ARCH__)
  return (__float_as_uint(x) >> 31) != 0;
#else
  std::uint32_t u;
  __builtin_memcpy(&u, &x, 4);
  return (u >> 31) != 0;
#endif
}
CUSK_HD std::uint32_t float_bits(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  std::uint32_t u;
  __builtin_memcpy(&u, &x, 4);
  return u;
#endif
}
CUSK_HD float float_from_bits(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float x;
  __builtin_memcpy(&x, &u, 4);
  return x;
#endif
}
/// Float -> unsigned key with the same order (radix selection); -0 sorts just below +0.
CUSK_HD std::uint32_t order_key(float x) {
  const std::uint32_t u = float_bits(x);
  return (u >> 31) ? ~u : (u | 0x80000000u);
}
CUSK_HD float key_value(std::uint32_t k) { return float_from_bits((k >> 31) ? (k & 0x7FFFFFFFu) : ~k); }

// ---- elementary functions (double, identical on both backends) ---------------------------------

/// atan(z) for z in [0, 1].
CUSK_HD double atan01_hd(double z) {
  // atan(z) = pi/6 + atan((sqrt(3) z - 1) / (sqrt(3) + z)) above tan(pi/12).
  constexpr double kSqrt3 = 1.73205080756887719318;
  constexpr double kTan15 = 0.26794919243112270;
  double base = 0;
  if (z > kTan15) {
    z = div_rn(sub_rn(mul_rn(kSqrt3, z), 1.0), add_rn(kSqrt3, z));
    base = 0.52359877559829881566;  // pi/6
  }
  // |z| <= tan(pi/12): Taylor series to z^31 (z^2 <= 0.0718, error < 1e-18).
  const double z2 = mul_rn(z, z);
  double p = -1.0 / 31;
  p = fma_rn(p, z2, 1.0 / 29);
  p = fma_rn(p, z2, -1.0 / 27);
  p = fma_rn(p, z2, 1.0 / 25);
  p = fma_rn(p, z2, -1.0 / 23);
  p = fma_rn(p, z2, 1.0 / 21);
  p = fma_rn(p, z2, -1.0 / 19);
  p = fma_rn(p, z2, 1.0 / 17);
  p = fma_rn(p, z2, -1.0 / 15);
  p = fma_rn(p, z2, 1.0 / 13);
  p = fma_rn(p, z2, -1.0 / 11);
  p = fma_rn(p, z2, 1.0 / 9);
  p = fma_rn(p, z2, -1.0 / 7);
  p = fma_rn(p, z2, 1.0 / 5);
  p = fma_rn(p, z2, -1.0 / 3);
  const double r = fma_rn(mul_rn(z, z2), p, z);
  return add_rn(base, r);
}

/// atan2(y, x) in (-pi, pi] with C's signed-zero rules for the axes.
CUSK_HD double atan2_hd(double y, double x) {
  if (y != y || x != x) return y + x;
  const double ay = fabs_d(y), ax = fabs_d(x);
  const bool yneg = bits_of(y) >> 63, xneg = bits_of(x) >> 63;
  double a;
  if (ay == 0 && ax == 0) {
    a = xneg ? kPi : 0.0;
  } else if (ay <= ax) {
    a = atan01_hd(div_rn(ay, ax));                  // [0, pi/4]
    if (xneg) a = sub_rn(kPi, a);
  } else {
    a = sub_rn(kPio2Hi, atan01_hd(div_rn(ax, ay)));  // (pi/4, pi/2]
    if (xneg) a = sub_rn(kPi, a);
  }
  return yneg ? -a : a;
}

/// sin and cos of x for |x| <= 8 (angles); Cody-Waite reduction by pi/2.
CUSK_HD void sincos_hd(double x, double& s, double& c) {
  const double n = rint_rn(mul_rn(x, 0.63661977236758138243));  // 2/pi
  double r = fma_rn(-n, kPio2Hi, x);
  r = fma_rn(-n, kPio2Lo, r);  // |r| <= pi/4 (+ulps)
  const double r2 = mul_rn(r, r);
  // sin r = r (1 - r^2/3! + ...), cos r = 1 - r^2/2! + ... (r^2 <= 0.617; to r^23 / r^24).
  double ps = -1.0 / 25852016738884976640000.0;  // -1/23!
  ps = fma_rn(ps, r2, 1.0 / 51090942171709440000.0);
  ps = fma_rn(ps, r2, -1.0 / 121645100408832000.0);
  ps = fma_rn(ps, r2, 1.0 / 355687428096000.0);
  ps = fma_rn(ps, r2, -1.0 / 1307674368000.0);
  ps = fma_rn(ps, r2, 1.0 / 6227020800.0);
  ps = fma_rn(ps, r2, -1.0 / 39916800.0);
  ps = fma_rn(ps, r2, 1.0 / 362880.0);
  ps = fma_rn(ps, r2, -1.0 / 5040.0);
  ps = fma_rn(ps, r2, 1.0 / 120.0);
  ps = fma_rn(ps, r2, -1.0 / 6.0);
  const double sr = fma_rn(mul_rn(r, r2), ps, r);
  double pc = 1.0 / 620448401733239439360000.0;  // 1/24!
  pc = fma_rn(pc, r2, -1.0 / 1124000727777607680000.0);
  pc = fma_rn(pc, r2, 1.0 / 2432902008176640000.0);
  pc = fma_rn(pc, r2, -1.0 / 6402373705728000.0);
  pc = fma_rn(pc, r2, 1.0 / 20922789888000.0);
  pc = fma_rn(pc, r2, -1.0 / 87178291200.0);
  pc = fma_rn(pc, r2, 1.0 / 479001600.0);
  pc = fma_rn(pc, r2, -1.0 / 3628800.0);
  pc = fma_rn(pc, r2, 1.0 / 40320.0);
  pc = fma_rn(pc, r2, -1.0 / 720.0);
  pc = fma_rn(pc, r2, 1.0 / 24.0);
  pc = fma_rn(pc, r2, -0.5);
  const double cr = fma_rn(r2, pc, 1.0);
  const int q = static_cast<int>(n) & 3;
  switch (q) {
    case 0: s = sr; c = cr; break;
    case 1: s = cr; c = -sr; break;
    case 2: s = -sr; c = -cr; break;
    default: s = -cr; c = sr; break;
  }
}

/// e^x for any x (0 below -745, inf above 709.8).
CUSK_HD double exp_hd(double x) {
  if (x != x) return x;
  if (x > 709.782712893384) return std::numeric_limits<double>::infinity();
  if (x < -745.2) return 0.0;
  double n;
  const double p = util::detail::exp_reduced(x, n);
  // 2^n in two factors so that neither over- nor underflows on its own.
  int k = static_cast<int>(n);
  const int k1 = k / 2, k2 = k - k1;
  const double f1 = double_of(static_cast<std::uint64_t>(k1 + 1023) << 52);
  const double f2 = double_of(static_cast<std::uint64_t>(k2 + 1023) << 52);
  return mul_rn(mul_rn(p, f1), f2);
}

// ---- optical density ---------------------------------------------------------------------------

/// cuCIM's image_to_absorbance for one value already converted to the computation type F:
/// -log(clip(x, lo, hi) / hi). The division rounds in F, the logarithm is taken in double from it
/// and rounded to F once (cuCIM/NumPy evaluate log in F; the difference is an ulp of F).
template <class F>
CUSK_HD F absorbance_hd(F x, F lo, F hi) {
  F v = x < lo ? lo : x;
  v = v > hi ? hi : v;
  const F q = div_rn(v, hi);
  return static_cast<F>(-log_hd(static_cast<double>(q)));
}

/// cuCIM's absorbance_to_image for one value: exp(-a) * source in the absorbance's precision F,
/// then (integer O) clipped to O's range and rounded half to even.
template <class F, class O>
CUSK_HD O absorbance_to_image_hd(F a, double source) {
  const F e = static_cast<F>(exp_hd(-static_cast<double>(a)));
  const F v = mul_rn(e, static_cast<F>(source));
  if constexpr (std::is_floating_point_v<O>) {
    return static_cast<O>(v);
  } else {
    const F lo = static_cast<F>(std::numeric_limits<O>::lowest());
    const F hi = static_cast<F>(std::numeric_limits<O>::max());
    if (v != v) return O(0);
    const F c = v < lo ? lo : (v > hi ? hi : v);
    const F r = rint_rn(c);
    return r >= hi ? std::numeric_limits<O>::max() : static_cast<O>(r);
  }
}

// ---- Macenko -----------------------------------------------------------------------------------

/// Fixed-order reduction shared by both backends: a chunk of kChunk items is summed by kLanes lanes,
/// lane l taking items l, l + kLanes, ... in order, then lanes are folded pairwise with halving
/// strides (l += l + s for s = kLanes/2 ... 1). Chunk results are reduced the same way, level by
/// level, so a double sum has the same bits on the CPU and on any GPU launch.
inline constexpr int kLanes = 256;
inline constexpr int kPerLane = 16;
inline constexpr std::int64_t kChunk = std::int64_t(kLanes) * kPerLane;
/// The moments a Macenko fit needs: sum of od_c (3) and of od_a * od_b (6: 00 01 02 11 12 22).
inline constexpr int kMoments = 9;

/// Moments of one pixel's optical density (zeros for transparent pixels); products are exact in
/// double (24-bit by 24-bit mantissas).
CUSK_HD void pixel_moments(const float od[3], bool keep, double m[kMoments]) {
  const double a = keep ? od[0] : 0.0, b = keep ? od[1] : 0.0, c = keep ? od[2] : 0.0;
  m[0] = a;
  m[1] = b;
  m[2] = c;
  m[3] = mul_rn(a, a);
  m[4] = mul_rn(a, b);
  m[5] = mul_rn(a, c);
  m[6] = mul_rn(b, b);
  m[7] = mul_rn(b, c);
  m[8] = mul_rn(c, c);
}

/// A pixel is kept for the fit when every channel's optical density exceeds beta.
CUSK_HD bool opaque(const float od[3], float beta) { return od[0] > beta && od[1] > beta && od[2] > beta; }

/// Exactly monotone pseudo-angle of (x, y): the same order as atan2(y, x) on (-pi, pi] using only
/// one division (keys for the radix selection).
CUSK_HD float pseudo_angle(float x, float y) {
  const float ax = fabs_f(x), ay = fabs_f(y);
  const float d = add_rn(ax, ay);
  const float p = d == 0 ? 0.0f : div_rn(y, d);  // in [-1, 1], the sign of y
  if (!signbit_f(x)) return p;
  return signbit_f(y) ? sub_rn(-2.0f, p) : sub_rn(2.0f, p);
}
/// The angle a pseudo-angle key stands for.
CUSK_HD double angle_of_pseudo(float key) {
  const double k = key;
  if (k >= -1.0 && k <= 1.0) return atan2_hd(k, sub_rn(1.0, fabs_d(k)));
  const double p = k > 0 ? sub_rn(2.0, k) : sub_rn(-2.0, k);  // y / (|x| + |y|), x < 0
  return atan2_hd(p, -sub_rn(1.0, fabs_d(p)));
}

/// NumPy's 'linear' percentile interpolation between neighbours a <= b of float32 data (diff in
/// float32, the weight in float64, as numpy.percentile on a float32 array).
CUSK_HD double lerp_percentile(float a, float b, double t) {
  const double diff = static_cast<double>(sub_rn(b, a));
  return t >= 0.5 ? sub_rn(static_cast<double>(b), mul_rn(diff, sub_rn(1.0, t)))
                  : add_rn(static_cast<double>(a), mul_rn(diff, t));
}
/// Rank of the lower neighbour and interpolation weight of percentile q of n values.
CUSK_HD void percentile_rank(double q, std::int64_t n, std::int64_t& lo, double& t) {
  const double vi = mul_rn(div_rn(q, 100.0), static_cast<double>(n - 1));
  const double f = cuskimage::detail::floor_rn(vi);
  lo = static_cast<std::int64_t>(f);
  if (lo < 0) lo = 0;
  if (lo > n - 1) lo = n - 1;
  t = sub_rn(vi, f);
}

/// Eigen-decomposition of a symmetric 3x3 matrix by cyclic Jacobi rotations (double). On return
/// w holds the eigenvalues ascending and column j of v (v[i][j]) the eigenvector of w[j].
CUSK_HD void jacobi_eigh3(const double a_in[3][3], double w[3], double v[3][3]) {
  double a[3][3];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      a[i][j] = a_in[i][j];
      v[i][j] = i == j ? 1.0 : 0.0;
    }
  for (int sweep = 0; sweep < 64; ++sweep) {
    const double off = add_rn(add_rn(fabs_d(a[0][1]), fabs_d(a[0][2])), fabs_d(a[1][2]));
    if (off == 0) break;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        const double apq = a[p][q];
        if (apq == 0) continue;
        const double app = a[p][p], aqq = a[q][q];
        // Skip once the element is negligible next to both diagonal entries (converged).
        const double g = mul_rn(100.0, fabs_d(apq));
        if (sweep > 4 && add_rn(fabs_d(app), g) == fabs_d(app) && add_rn(fabs_d(aqq), g) == fabs_d(aqq)) {
          a[p][q] = a[q][p] = 0;
          continue;
        }
        const double theta = div_rn(sub_rn(aqq, app), mul_rn(2.0, apq));
        const double at = fabs_d(theta);
        double t = div_rn(1.0, add_rn(at, sqrt_rn(add_rn(mul_rn(theta, theta), 1.0))));
        if (theta < 0) t = -t;
        const double c = div_rn(1.0, sqrt_rn(add_rn(mul_rn(t, t), 1.0)));
        const double s = mul_rn(t, c);
        // A' = J^T A J with J the rotation in the (p, q) plane.
        for (int k = 0; k < 3; ++k) {
          const double akp = a[k][p], akq = a[k][q];
          a[k][p] = sub_rn(mul_rn(c, akp), mul_rn(s, akq));
          a[k][q] = add_rn(mul_rn(s, akp), mul_rn(c, akq));
        }
        for (int k = 0; k < 3; ++k) {
          const double apk = a[p][k], aqk = a[q][k];
          a[p][k] = sub_rn(mul_rn(c, apk), mul_rn(s, aqk));
          a[q][k] = add_rn(mul_rn(s, apk), mul_rn(c, aqk));
        }
        a[p][q] = a[q][p] = 0;
        for (int k = 0; k < 3; ++k) {
          const double vkp = v[k][p], vkq = v[k][q];
          v[k][p] = sub_rn(mul_rn(c, vkp), mul_rn(s, vkq));
          v[k][q] = add_rn(mul_rn(s, vkp), mul_rn(c, vkq));
        }
      }
  }
  int idx[3] = {0, 1, 2};
  for (int i = 0; i < 3; ++i)
    for (int j = i + 1; j < 3; ++j)
      if (a[idx[j]][idx[j]] < a[idx[i]][idx[i]]) {
        const int tmp = idx[i];
        idx[i] = idx[j];
        idx[j] = tmp;
      }
  double vv[3][3];
  for (int j = 0; j < 3; ++j) {
    w[j] = a[idx[j]][idx[j]];
    for (int i = 0; i < 3; ++i) vv[i][j] = v[i][idx[j]];
  }
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) v[i][j] = vv[i][j];
}

/// State of one Macenko fit, computed on either backend by the same functions.
struct MacenkoFit {
  std::int64_t count;   // opaque pixels
  float ev[2][3];       // the two principal axes (rows), float32 as cuCIM's
  std::int64_t rank[4]; // ranks of the angle order statistics (lo/hi of alpha and 100 - alpha)
  double t[2];          // interpolation weights
  float stain[3][2];    // H, E unit columns
  float pinv[2][3];     // pseudo-inverse of stain
  bool valid;
};

/// From the reduced moments: covariance, principal axes, percentile ranks (cuCIM: eigh on the
/// float32 covariance, axes of the two largest eigenvalues with a non-negative first coordinate).
CUSK_HD void fit_axes(const double m[kMoments], std::int64_t count, double alpha, MacenkoFit& f) {
  f.count = count;
  f.valid = count > 0;
  const double n = static_cast<double>(count);
  const double mean[3] = {div_rn(m[0], n), div_rn(m[1], n), div_rn(m[2], n)};
  const int pair[6][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 1}, {1, 2}, {2, 2}};
  double cov[3][3];
  for (int k = 0; k < 6; ++k) {
    const int i = pair[k][0], j = pair[k][1];
    // sum((x_i - mean_i)(x_j - mean_j)) = S_ij - mean_i S_j
    const double c = div_rn(sub_rn(m[3 + k], mul_rn(mean[i], m[j])), sub_rn(n, 1.0));
    cov[i][j] = cov[j][i] = static_cast<double>(static_cast<float>(c));  // cuCIM takes it as float32
  }
  double w[3], v[3][3];
  jacobi_eigh3(cov, w, v);
  for (int r = 0; r < 2; ++r) {
    const int col = 2 - r;  // largest first
    const double sgn = v[0][col] < 0 ? -1.0 : 1.0;
    for (int i = 0; i < 3; ++i) f.ev[r][i] = static_cast<float>(mul_rn(sgn, v[i][col]));
  }
  percentile_rank(alpha, count, f.rank[0], f.t[0]);
  percentile_rank(sub_rn(100.0, alpha), count, f.rank[2], f.t[1]);
  f.rank[1] = f.rank[0] + 1 < count ? f.rank[0] + 1 : count - 1;
  f.rank[3] = f.rank[2] + 1 < count ? f.rank[2] + 1 : count - 1;
}

/// Projection of one pixel onto the principal plane (float32 dot products as cuCIM's).
CUSK_HD void project(const float ev[2][3], const float od[3], float& x, float& y) {
  x = add_rn(add_rn(mul_rn(ev[0][0], od[0]), mul_rn(ev[0][1], od[1])), mul_rn(ev[0][2], od[2]));
  y = add_rn(add_rn(mul_rn(ev[1][0], od[0]), mul_rn(ev[1][1], od[1])), mul_rn(ev[1][2], od[2]));
}

/// From the four selected pseudo-angle keys: the stain vectors and their pseudo-inverse.
CUSK_HD void fit_stains(const float keys[4], MacenkoFit& f) {
  const double phi_lo = lerp_percentile(static_cast<float>(angle_of_pseudo(keys[0])),
                                        static_cast<float>(angle_of_pseudo(keys[1])), f.t[0]);
  const double phi_hi = lerp_percentile(static_cast<float>(angle_of_pseudo(keys[2])),
                                        static_cast<float>(angle_of_pseudo(keys[3])), f.t[1]);
  double s0, c0, s1, c1;
  sincos_hd(phi_lo, s0, c0);
  sincos_hd(phi_hi, s1, c1);
  const float vmin[2] = {static_cast<float>(c0), static_cast<float>(s0)};
  const float vmax[2] = {static_cast<float>(c1), static_cast<float>(s1)};
  float v1[3], v2[3];
  for (int i = 0; i < 3; ++i) {
    v1[i] = add_rn(mul_rn(f.ev[0][i], vmin[0]), mul_rn(f.ev[1][i], vmin[1]));
    v2[i] = add_rn(mul_rn(f.ev[0][i], vmax[0]), mul_rn(f.ev[1][i], vmax[1]));
  }
  if (v1[0] < v2[0])
    for (int i = 0; i < 3; ++i) {
      const float tmp = v1[i];
      v1[i] = v2[i];
      v2[i] = tmp;
    }
  float n1 = add_rn(add_rn(mul_rn(v1[0], v1[0]), mul_rn(v1[1], v1[1])), mul_rn(v1[2], v1[2]));
  float n2 = add_rn(add_rn(mul_rn(v2[0], v2[0]), mul_rn(v2[1], v2[1])), mul_rn(v2[2], v2[2]));
  n1 = static_cast<float>(sqrt_rn(static_cast<double>(n1)));
  n2 = static_cast<float>(sqrt_rn(static_cast<double>(n2)));
  for (int i = 0; i < 3; ++i) {
    f.stain[i][0] = div_rn(v1[i], n1);
    f.stain[i][1] = div_rn(v2[i], n2);
  }
  // pinv = inv(S^T S) S^T in double, rounded to float32; a rank-1 S (equal columns) takes S^T / |S|^2.
  double g00 = 0, g01 = 0, g11 = 0;
  for (int i = 0; i < 3; ++i) {
    const double a = f.stain[i][0], b = f.stain[i][1];
    g00 = add_rn(g00, mul_rn(a, a));
    g01 = add_rn(g01, mul_rn(a, b));
    g11 = add_rn(g11, mul_rn(b, b));
  }
  const double det = sub_rn(mul_rn(g00, g11), mul_rn(g01, g01));
  if (det > mul_rn(1e-12, mul_rn(g00, g11))) {
    for (int i = 0; i < 3; ++i) {
      const double a = f.stain[i][0], b = f.stain[i][1];
      f.pinv[0][i] = static_cast<float>(div_rn(sub_rn(mul_rn(g11, a), mul_rn(g01, b)), det));
      f.pinv[1][i] = static_cast<float>(div_rn(sub_rn(mul_rn(g00, b), mul_rn(g01, a)), det));
    }
  } else {
    const double fro = add_rn(g00, g11);
    for (int i = 0; i < 3; ++i) {
      f.pinv[0][i] = static_cast<float>(div_rn(static_cast<double>(f.stain[i][0]), fro));
      f.pinv[1][i] = static_cast<float>(div_rn(static_cast<double>(f.stain[i][1]), fro));
    }
  }
}

/// Raw concentrations of one pixel (float32 products as cuCIM's pinv . absorbance).
CUSK_HD void concentrations(const float pinv[2][3], const float od[3], float c[2]) {
  for (int r = 0; r < 2; ++r)
    c[r] = add_rn(add_rn(mul_rn(pinv[r][0], od[0]), mul_rn(pinv[r][1], od[1])), mul_rn(pinv[r][2], od[2]));
}

/// The normalised uint8 pixel: concentrations scaled by `factor` (stored as float32, as cuCIM's
/// in-place multiply), absorbance from the reference stains in double, exp, clip, round half even.
CUSK_HD void reconstruct(const float c_raw[2], const double factor[2], const double ref[3][2], double source,
                         std::uint8_t out[3]) {
  const double c0 = static_cast<float>(mul_rn(static_cast<double>(c_raw[0]), factor[0]));
  const double c1 = static_cast<float>(mul_rn(static_cast<double>(c_raw[1]), factor[1]));
  for (int i = 0; i < 3; ++i) {
    const double a = add_rn(mul_rn(ref[i][0], c0), mul_rn(ref[i][1], c1));
    double v = mul_rn(exp_hd(-a), source);
    v = v < 0 ? 0 : (v > 255 ? 255 : v);
    out[i] = static_cast<std::uint8_t>(rint_rn(v));
  }
}

// ---- Reinhard ----------------------------------------------------------------------------------

/// A pixel's contribution to the LAB statistics: each channel and its square.
CUSK_HD void lab_moments(double l, double a, double b, double m[6]) {
  m[0] = l;
  m[1] = a;
  m[2] = b;
  m[3] = mul_rn(l, l);
  m[4] = mul_rn(a, a);
  m[5] = mul_rn(b, b);
}
/// Mean and population standard deviation from the sums over n pixels.
CUSK_HD void lab_mean_std(const double m[6], std::int64_t n, double mean[3], double sd[3]) {
  const double dn = static_cast<double>(n);
  for (int c = 0; c < 3; ++c) {
    mean[c] = div_rn(m[c], dn);
    double var = sub_rn(div_rn(m[3 + c], dn), mul_rn(mean[c], mean[c]));
    var = var > 0 ? var : 0.0;
    sd[c] = sqrt_rn(var);
  }
}
/// One channel value mapped onto the target statistics.
CUSK_HD double reinhard_px(double v, double mean, double sd, double tmean, double tsd) {
  if (!(sd > 0)) return tmean;
  return add_rn(mul_rn(div_rn(sub_rn(v, mean), sd), tsd), tmean);
}
/// img_as_ubyte of a float in [0, 1]: rint(x * 255) in F, clipped.
template <class F>
CUSK_HD std::uint8_t unit_to_u8(F x) {
  F v = rint_rn(mul_rn(x, static_cast<F>(255)));
  v = v < 0 ? F(0) : (v > 255 ? F(255) : v);
  return static_cast<std::uint8_t>(v == v ? v : F(0));
}

// ---- colour jitter (cuCIM's uint8 kernels) -----------------------------------------------------

CUSK_HD float clip255(float v) { return v <= 0.0f ? 0.0f : (v >= 255.0f ? 255.0f : v); }
/// ITU-R 601 luma with 16-bit weights, rounded (cuCIM's rgb2l).
CUSK_HD std::uint32_t luma16(std::uint32_t r, std::uint32_t g, std::uint32_t b) {
  return ((r * 19595u + g * 38470u + b * 7471u) + 0x8000u) >> 16;
}
CUSK_HD std::uint8_t brightness_px(std::uint8_t v, float f) {
  return static_cast<std::uint8_t>(clip255(mul_rn(static_cast<float>(v), f)));  // truncation
}
/// bc + f * (v - bc), truncated.
CUSK_HD std::uint8_t blend_px(std::uint8_t v, float bc, float f) {
  return static_cast<std::uint8_t>(clip255(add_rn(bc, mul_rn(f, sub_rn(static_cast<float>(v), bc)))));
}
/// cuCIM's contrast blend constant: the float32 mean of the image's luma, + 0.5, truncated.
CUSK_HD float contrast_constant(std::uint64_t luma_sum, std::int64_t count) {
  const float mean = static_cast<float>(div_rn(static_cast<double>(luma_sum), static_cast<double>(count)));
  return static_cast<float>(static_cast<std::int64_t>(add_rn(static_cast<double>(mean), 0.5)));
}
CUSK_HD void saturation_px(std::uint8_t rgb[3], float f) {
  const float l = static_cast<float>(luma16(rgb[0], rgb[1], rgb[2]));
  for (int c = 0; c < 3; ++c) rgb[c] = blend_px(rgb[c], l, f);
}
CUSK_HD float roundf_hd(float x) {  // half away from zero
  const float a = fabs_f(x);
  const float r = cuskimage::detail::floor_rn(add_rn(a, 0.5f));
  // floor(a + 0.5) is wrong only when a + 0.5 rounds up (a = 0.49999997); guard it.
  const float rr = sub_rn(r, a) > 0.5f ? sub_rn(r, 1.0f) : r;
  return x < 0 ? -rr : rr;
}
CUSK_HD std::uint8_t u8_rn(float v) { return static_cast<std::uint8_t>(cuskimage::detail::rint_rn(v)); }

/// cuCIM's huejitter kernel: RGB -> 8-bit HSV, hue + hue_factor * 255 (wrapping in 8 bits), back.
CUSK_HD void hue_px(std::uint8_t rgb[3], float hue_factor) {
  const float r = rgb[0], g = rgb[1], b = rgb[2];
  const float maxc = r > g ? (r > b ? r : b) : (g > b ? g : b);
  const float minc = r < g ? (r < b ? r : b) : (g < b ? g : b);
  float uh = 0, us = 0;
  const float uv = maxc;
  if (maxc != minc) {
    const float cr = sub_rn(maxc, minc);
    const float s = div_rn(cr, maxc);
    const float rc = div_rn(sub_rn(maxc, r), cr);
    const float gc = div_rn(sub_rn(maxc, g), cr);
    const float bc = div_rn(sub_rn(maxc, b), cr);
    float h;
    if (r == maxc)
      h = sub_rn(bc, gc);
    else if (g == maxc)
      h = sub_rn(add_rn(2.0f, rc), bc);
    else
      h = sub_rn(add_rn(4.0f, gc), rc);
    h = add_rn(div_rn(h, 6.0f), 1.0f);
    h = h >= 1.0f ? sub_rn(h, 1.0f) : h;  // fmodf(h, 1) for h in [0, 2): exact
    uh = clip255(mul_rn(h, 255.0f));
    us = clip255(mul_rn(s, 255.0f));
  }
  const std::uint8_t h8 = u8_rn(uh), s8 = u8_rn(us), v8 = u8_rn(uv);
  // unsigned char += float: the sum in float, truncated, kept modulo 256.
  const float hs = add_rn(static_cast<float>(h8), mul_rn(hue_factor, 255.0f));
  const std::uint8_t hj = static_cast<std::uint8_t>(static_cast<std::int32_t>(hs) & 0xFF);
  const float h = hj, s = s8, v = v8;
  if (s == 0) {
    rgb[0] = rgb[1] = rgb[2] = 0;  // cuCIM writes black for grey pixels
    return;
  }
  float i = div_rn(mul_rn(h, 6.0f), 255.0f);
  const float fl = cuskimage::detail::floor_rn(i);
  const float fr = sub_rn(i, fl);
  const float fs = div_rn(s, 255.0f);
  i = fl;
  const float up = clip255(roundf_hd(mul_rn(v, sub_rn(1.0f, fs))));
  const float uq = clip255(roundf_hd(mul_rn(v, sub_rn(1.0f, mul_rn(fs, fr)))));
  const float ut = clip255(roundf_hd(mul_rn(v, sub_rn(1.0f, mul_rn(fs, sub_rn(1.0f, fr))))));
  float o0, o1, o2;
  switch (static_cast<int>(i) % 6) {
    case 0: o0 = v; o1 = ut; o2 = up; break;
    case 1: o0 = uq; o1 = v; o2 = up; break;
    case 2: o0 = up; o1 = v; o2 = ut; break;
    case 3: o0 = up; o1 = uq; o2 = v; break;
    case 4: o0 = ut; o1 = up; o2 = v; break;
    default: o0 = v; o1 = up; o2 = uq; break;
  }
  rgb[0] = u8_rn(o0);
  rgb[1] = u8_rn(o1);
  rgb[2] = u8_rn(o2);
}

// ---- intensity and zoom -------------------------------------------------------------------------

enum : int { kOpRange = 0, kOpAtan = 1, kOpScale = 2 };
/// normalize_data (range / atan) and scale_intensity_range on one float32 value.
CUSK_HD float intensity_px(float v, int op, float a, float b, float lo, float hi) {
  if (op == kOpRange) return mul_rn(a, sub_rn(v, b));
  if (op == kOpAtan) return mul_rn(a, static_cast<float>(atan2_hd(static_cast<double>(sub_rn(v, b)), 1.0)));
  const float r = sub_rn(mul_rn(v, a), b);
  if (r != r) return r;  // NaN stays NaN (NumPy's clip), not fminf's choice of the bound
  const float m = r < hi ? r : hi;
  return m > lo ? m : lo;
}

/// One plane of a zoom: `p` addresses pixel (y, x) as p[y * sy + x * sx].
struct Plane {
  const float* p;
  std::int64_t sy, sx, h, w;
  CUSK_HD float at(std::int64_t y, std::int64_t x) const { return p[y * sy + x * sx]; }
};

/// Value of pixel (zy, zx) of the plane resampled to zh x zw.
CUSK_HD float zoom_sample(const Plane& in, std::int64_t zy, std::int64_t zx, std::int64_t zh, std::int64_t zw,
                          int interp) {
  if (interp == 0) {  // area, as cuCIM's zoom kernels (float32 bounds, row-major sum, two divisions)
    const std::int64_t y0 = static_cast<std::int64_t>(
        cuskimage::detail::floor_rn(div_rn(static_cast<float>(zy * in.h), static_cast<float>(zh))));
    const std::int64_t y1 = static_cast<std::int64_t>(
        -cuskimage::detail::floor_rn(-div_rn(static_cast<float>((zy + 1) * in.h), static_cast<float>(zh))));
    const std::int64_t x0 = static_cast<std::int64_t>(
        cuskimage::detail::floor_rn(div_rn(static_cast<float>(zx * in.w), static_cast<float>(zw))));
    const std::int64_t x1 = static_cast<std::int64_t>(
        -cuskimage::detail::floor_rn(-div_rn(static_cast<float>((zx + 1) * in.w), static_cast<float>(zw))));
    float sum = 0.0f;
    for (std::int64_t y = y0; y < y1; ++y)
      for (std::int64_t x = x0; x < x1; ++x) sum = add_rn(sum, (y < in.h && x < in.w) ? in.at(y, x) : 0.0f);
    sum = div_rn(sum, static_cast<float>(y1 - y0));
    return div_rn(sum, static_cast<float>(x1 - x0));
  }
  if (interp == 1) {  // nearest: source pixel of the output pixel's centre
    std::int64_t y = ((2 * zy + 1) * in.h) / (2 * zh), x = ((2 * zx + 1) * in.w) / (2 * zw);
    y = y < in.h ? y : in.h - 1;
    x = x < in.w ? x : in.w - 1;
    return in.at(y, x);
  }
  // bilinear, half-pixel centres, clamped at the edges
  float fy = sub_rn(div_rn(static_cast<float>((2 * zy + 1) * in.h), static_cast<float>(2 * zh)), 0.5f);
  float fx = sub_rn(div_rn(static_cast<float>((2 * zx + 1) * in.w), static_cast<float>(2 * zw)), 0.5f);
  fy = fy < 0 ? 0.0f : (fy > static_cast<float>(in.h - 1) ? static_cast<float>(in.h - 1) : fy);
  fx = fx < 0 ? 0.0f : (fx > static_cast<float>(in.w - 1) ? static_cast<float>(in.w - 1) : fx);
  const float ly = cuskimage::detail::floor_rn(fy), lx = cuskimage::detail::floor_rn(fx);
  const std::int64_t y0 = static_cast<std::int64_t>(ly), x0 = static_cast<std::int64_t>(lx);
  const std::int64_t y1 = y0 + 1 < in.h ? y0 + 1 : y0, x1 = x0 + 1 < in.w ? x0 + 1 : x0;
  const float wy = sub_rn(fy, ly), wx = sub_rn(fx, lx);
  const float top = add_rn(mul_rn(sub_rn(1.0f, wx), in.at(y0, x0)), mul_rn(wx, in.at(y0, x1)));
  const float bot = add_rn(mul_rn(sub_rn(1.0f, wx), in.at(y1, x0)), mul_rn(wx, in.at(y1, x1)));
  return add_rn(mul_rn(sub_rn(1.0f, wy), top), mul_rn(wy, bot));
}

/// Output pixel (y, x) of cuCIM's zoom: centre crop of the zoomed plane (zoom in) or the zoomed
/// plane centred and edge-padded (zoom out).
CUSK_HD float zoom_px(const Plane& in, std::int64_t y, std::int64_t x, std::int64_t zh, std::int64_t zw, int interp) {
  std::int64_t zy, zx;
  if (zh > in.h) {
    zy = y + (zh - in.h) / 2;
    zx = x + (zw - in.w) / 2;
  } else {
    zy = y - (in.h - zh) / 2;
    zx = x - (in.w - zw) / 2;
    zy = zy < 0 ? 0 : (zy > zh - 1 ? zh - 1 : zy);
    zx = zx < 0 ? 0 : (zx > zw - 1 ? zw - 1 : zx);
  }
  return zoom_sample(in, zy, zx, zh, zw, interp);
}

// ---- random draws (host side decisions, Philox keyed by the seed) -------------------------------

/// Uniform double in [0, 1): draw `index` of purpose `purpose` for `seed`.
inline double uniform01(std::uint64_t seed, std::uint64_t index, std::uint32_t purpose) {
  util::detail::PixelRng g(seed, index, purpose);
  double a, b;
  g.uniform2(a, b);
  return a;
}
enum : std::uint32_t {
  kDrawJitterOrder = 0x50000001u,
  kDrawJitterFactor = 0x50000002u,
  kDrawApply = 0x50000003u,
  kDrawZoom = 0x50000004u,
  kDrawRotK = 0x50000005u,
};

}  // namespace cuskimage::pathology::detail
