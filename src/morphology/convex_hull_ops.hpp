// Foreground rules of convex_hull_image / convex_hull_object (NumPy's casts as scikit-image applies
// them), the 2-D hull's area test and the exact 3-D plane arithmetic, shared by the CPU backend and
// the CUDA kernels.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "src/core/hd.hpp"
#include "src/morphology/skeleton_ops.hpp"

namespace cuskimage::morphology::detail {

/// convex_hull_image's foreground: np.ascontiguousarray(image, dtype=np.uint8) != 0. Integers wrap
/// modulo 256; floats truncate through int32 as NumPy does on x86-64 (NaN and values outside int32
/// become INT32_MIN, whose low byte is 0).
template <class T>
CUSK_HD bool hull_fg(T v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v;
  } else if constexpr (std::is_floating_point_v<T>) {
    const double d = static_cast<double>(v);
    if (!(d > -2147483649.0 && d < 2147483648.0)) return false;
    return (static_cast<std::int32_t>(d) & 0xFF) != 0;
  } else {
    return static_cast<std::uint8_t>(v) != 0;
  }
}

/// skimage.measure.label's value of a pixel: floats are cast to int64 (truncation; NaN and values
/// outside int64 become INT64_MIN as on x86-64), integers and bool keep their value.
template <class T>
CUSK_HD std::int64_t label_key(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    const double d = static_cast<double>(v);
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
    return static_cast<std::int64_t>(d);
  } else {
    return static_cast<std::int64_t>(v);
  }
}
template <class T>
CUSK_HD bool label_fg(T v) { return label_key(v) != 0; }
template <class T>
CUSK_HD bool label_same(T a, T b) { return label_key(a) == label_key(b); }

/// Whether the chains (strictly convex, built by chain_push over the same x values) enclose a
/// non-zero area; Qhull fails on a flat hull and scikit-image then returns an empty image.
CUSK_HD bool hull_has_area(const HullPt* lo, std::int64_t nlo, const HullPt* hi, std::int64_t nhi) {
  if (nlo < 2 || nhi < 2) return false;
  if (nlo > 2 || nhi > 2) return true;
  return lo[0].y != hi[0].y || lo[1].y != hi[1].y;
}


// ---- 3-D hulls: exact planes on the doubled lattice ------------------------------------------------
//
// scikit-image's N-d path takes Qhull's facets (unit normal u, offset o, so u.x + o is the signed
// distance) and keeps the grid points with u.x + o < tolerance for every facet. Here every point is
// in doubled coordinates X = 2 x (voxel centres even, the +-0.5 face-centre offsets odd), so a facet
// through lattice points a, b, c is the integer plane n.X = d with n = (b - a) x (c - a) divided by
// the gcd of its components (the primitive normal, the same for every triangle of one face) and
// d = n.a. For a grid point X the value v = n.X - d is an integer and u.x + o = v / (2 |n|), so
// scikit-image's test is v < 2 |n| tolerance, i.e. v <= s with s = ceil(2 |n| tolerance) - 1
// (hull3_slack), folded into d (hull3_fold).
//
// Why the tolerance never changes a voxel: a point off a facet's plane has |v| >= 1, so its distance
// is at least 1 / (2 |n|). With every axis of length <= N_i, two hull points differ by at most 2 N_i
// per doubled axis, so |n| <= |b - a| |c - a| <= 4 S with S = N_0^2 + N_1^2 + N_2^2. For
// 0 < tolerance <= 1 / (16 S) (the default 1e-10: S <= 6.25e8, e.g. every axis <= 14400) the slack
// is 0: the result is the closed hull (v <= 0) exactly, and a voxel off a facet's plane lies at least
// 2 tolerance away from it, so Qhull's rounding (~1e-16 of the coordinates) cannot move it across
// `tolerance`: scikit-image's result is the same. Beyond that bound (or for another tolerance) the
// slack is computed from the exact |n|, which is scikit-image's predicate evaluated exactly; only a
// voxel within Qhull's rounding of `tolerance` could then differ.
//
// Integer ranges: every axis <= kHull3MaxExtent = 2^18, so |X| <= 2^19, |n_i| <= 2 (2^19)^2 = 2^39,
// |n.X|, |d| <= 3 2^58 < 8.7e17, and with the slack clamped to +-2^61 (beyond which every / no grid
// point passes anyway) every sum stays below 4e18 < 2^63: int64 throughout, no overflow. Larger
// images are NotSupported.

inline constexpr std::int64_t kHull3MaxExtent = std::int64_t(1) << 18;
inline constexpr std::int64_t kHull3SlackLimit = std::int64_t(1) << 61;

/// A point in doubled coordinates (plane, row, column axes).
struct Hull3Pt {
  std::int32_t x, y, z;
};

/// n.X <= d is the closed inner side (outward normal n, primitive).
struct Hull3Plane {
  std::int64_t nx, ny, nz, d;
};

CUSK_HD std::int64_t hull3_abs(std::int64_t v) { return v < 0 ? -v : v; }

CUSK_HD std::int64_t hull3_gcd(std::int64_t a, std::int64_t b) {  // a, b >= 0
  while (b != 0) {
    const std::int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/// The plane through a, b, c oriented by (b - a) x (c - a), primitive; a zero normal (and d = 0)
/// when the points are collinear.
CUSK_HD Hull3Plane hull3_plane(Hull3Pt a, Hull3Pt b, Hull3Pt c) {
  const std::int64_t ux = std::int64_t(b.x) - a.x, uy = std::int64_t(b.y) - a.y, uz = std::int64_t(b.z) - a.z;
  const std::int64_t vx = std::int64_t(c.x) - a.x, vy = std::int64_t(c.y) - a.y, vz = std::int64_t(c.z) - a.z;
  Hull3Plane p{uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx, 0};
  const std::int64_t g = hull3_gcd(hull3_gcd(hull3_abs(p.nx), hull3_abs(p.ny)), hull3_abs(p.nz));
  if (g == 0) return p;
  p.nx /= g;
  p.ny /= g;
  p.nz /= g;
  p.d = p.nx * a.x + p.ny * a.y + p.nz * a.z;
  return p;
}

/// n.X - d: > 0 strictly outside, 0 on the plane.
CUSK_HD std::int64_t hull3_eval(const Hull3Plane& f, Hull3Pt p) { return f.nx * p.x + f.ny * p.y + f.nz * p.z - f.d; }

/// The largest integer below 2 |n| tolerance (see above), clamped to +-2^61. The same IEEE
/// operations in the same order on both backends (no contraction on the device).
CUSK_HD std::int64_t hull3_slack(const Hull3Plane& f, double tolerance) {
  const double x = static_cast<double>(f.nx), y = static_cast<double>(f.ny), z = static_cast<double>(f.nz);
#if defined(__CUDA_ARCH__)
  const double len = __dsqrt_rn(__dadd_rn(__dadd_rn(__dmul_rn(x, x), __dmul_rn(y, y)), __dmul_rn(z, z)));
  const double t = __dmul_rn(__dmul_rn(2.0, len), tolerance);
#else
  const double len = std::sqrt(x * x + y * y + z * z);
  const double t = 2.0 * len * tolerance;
#endif
  constexpr double lim = static_cast<double>(kHull3SlackLimit);
  if (!(t > -lim)) return -kHull3SlackLimit;  // NaN too: nothing passes v < NaN
  if (t > lim) return kHull3SlackLimit;
  return static_cast<std::int64_t>(std::ceil(t)) - 1;
}

/// The plane with the tolerance folded in: a grid point X passes iff n.X <= d.
CUSK_HD Hull3Plane hull3_fold(Hull3Plane f, double tolerance) {
  f.d += hull3_slack(f, tolerance);
  return f;
}

/// Narrows [z0, z1] (voxel indices along the last axis) of the column (plane p, row r) to the voxels
/// passing the folded plane f; once empty (z0 > z1) it stays empty.
CUSK_HD void hull3_clip(const Hull3Plane& f, std::int64_t p, std::int64_t r, std::int64_t& z0, std::int64_t& z1) {
  const std::int64_t rhs = f.d - f.nx * (2 * p) - f.ny * (2 * r);  // f.nz * 2 z <= rhs
  if (f.nz > 0) {
    const std::int64_t m = floor_div(rhs, 2 * f.nz);
    if (m < z1) z1 = m;
  } else if (f.nz < 0) {
    const std::int64_t m = ceil_div(-rhs, -2 * f.nz);
    if (m > z0) z0 = m;
  } else if (rhs < 0 && z1 >= z0) {
    z1 = z0 - 1;
  }
}

/// The 3-D path's foreground: np.nonzero of the image itself (no uint8 cast; NaN is non-zero).
template <class T>
CUSK_HD bool hull3_fg(T v) {
  return v != T(0);
}

}  // namespace cuskimage::morphology::detail
