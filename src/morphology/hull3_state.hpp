// The device 3-D quickhull's data (src/morphology/convex_hull3d.hpp has the algorithm's account):
// facets, horizon edges and cones, the per-hull scratch layout, the block-shared state, the
// executor's collective scans and compactions, and the exact integer keys and planes.
#pragma once

#include <climits>
#include <cstdint>
#include <cstring>

#include "src/core/hd.hpp"
#include "src/morphology/convex_hull_ops.hpp"

namespace cuskimage::morphology::detail {

struct Hull3Facet {
  std::int32_t v[3];   // vertices, counter-clockwise seen from outside; v[0] < 0: a dead slot
  std::int32_t nb[3];  // nb[e]: the facet across the edge (v[e], v[e + 1 mod 3])
  Hull3Plane pl;       // outward, through v[0], v[1], v[2]; not reduced (hull3_plane_raw)
};

/// A horizon edge (a, b) of a visible facet, `out` the facet beyond it (the edge is out's edge
/// `back`, (b, a)).
struct Hull3Edge {
  std::int32_t a, b, out, back;
};

inline constexpr int kHull3Vis = 32;  // visible facets a proposal may take in the parallel step
inline constexpr int kHull3MisIters = 6;  // iterations of the winner selection per round
// Proposals per round. Ball(100) with offsets takes 90 rounds with 512 or more (107 with 128): a
// larger cap only adds proposals that lose; with 512 a 512-thread block walks one per thread.
inline constexpr int kHull3MaxProposals = 512;

enum : int { kHull3Ok = 0, kHull3Flat = 1, kHull3Overflow = 2 };

/// A new facet's plane and slot, kept with its winner's horizon for the point pass.
struct Hull3Cone {
  Hull3Plane pl;
  std::int32_t slot, pad;
};

// Per-hull scratch, closed-form in the hull's point offset o (points [o, o + n)) and index k, so a
// batch needs only its point offsets:
//   facets (Hull3Facet, best, claim, cln, mark, win; the proposal arrays):
//                                                      F = 2 n + 16 each, at 2 o + 16 k
//   visible-facet pool (int):                          F + V each,         at 2 o + (16 + V) k
//   horizon and cone pools (Hull3Edge, Hull3Cone):     F + V + 4 each,     at 2 o + (20 + V) k
//   per point (the live entries' points and facets, two buffers): n each, at o
// Proposal k's visible facets sit at k vcap, its horizon and cone at k (vcap + 2), for k < pcap
// (hull3_work keeps both inside); the fallback's one proposal takes the whole pools (a visible
// region of v facets has v + 2 horizon edges at most: it is a disk).
CUSK_HD constexpr std::int64_t hull3_facet_cap(std::int64_t n) { return 2 * n + 16; }
CUSK_HD constexpr std::int64_t hull3_facet_off(std::int64_t o, std::int64_t k) { return 2 * o + 16 * k; }
CUSK_HD constexpr std::int64_t hull3_vis_off(std::int64_t o, std::int64_t k) { return 2 * o + (16 + kHull3Vis) * k; }
CUSK_HD constexpr std::int64_t hull3_hor_off(std::int64_t o, std::int64_t k) { return 2 * o + (20 + kHull3Vis) * k; }

/// The whole batch's scratch (sizes from the totals N points, S hulls: the offsets above at
/// o = N, k = S).
struct Hull3Pools {
  Hull3Facet* fac;
  unsigned long long *best, *claim, *cln;
  std::int32_t *mark, *win;
  std::int32_t *pfacet, *ppoint, *pnvis, *pnhor, *pwin, *pextra;  // per proposal
  std::int32_t *lp0, *lf0, *lp1, *lf1;                            // per point
  std::int32_t* vis;
  Hull3Edge* hor;
  Hull3Cone* cone;  // at hull3_hor_off too
};

/// One hull's view of the pools.
struct Hull3Work {
  const Hull3Pt* pts;
  int n;
  Hull3Facet* fac;
  unsigned long long *best, *claim, *cln;
  std::int32_t *mark, *win;
  int fcap;
  std::int32_t *pfacet, *ppoint, *pnvis, *pnhor, *pwin, *pextra;
  int vcap, pcap;  // visible facets per proposal (2..kHull3Vis), proposals per round
  int lcap;        // horizons up to lcap edges are linked from thread-local copies (hull3_insert)
  std::int32_t *lp0, *lf0, *lp1, *lf1;
  std::int32_t* vis;
  int viscap;
  Hull3Edge* hor;
  Hull3Cone* cone;
  int horcap;  // of hor and cone
};

inline constexpr int kHull3LocalHorizon = kHull3Vis + 2;

/// vcap < kHull3Vis only to test the abort and fallback paths, lcap < kHull3LocalHorizon the
/// global-memory linking path.
CUSK_HD Hull3Work hull3_work(const Hull3Pools& p, const Hull3Pt* pts, std::int64_t o, std::int64_t n, std::int64_t k,
                             int vcap = kHull3Vis, int lcap = kHull3LocalHorizon) {
  Hull3Work w{};
  const std::int64_t fo = hull3_facet_off(o, k), F = hull3_facet_cap(n);
  w.pts = pts + o;
  w.n = static_cast<int>(n);
  w.fac = p.fac + fo;
  w.best = p.best + fo;
  w.claim = p.claim + fo;
  w.cln = p.cln + fo;
  w.mark = p.mark + fo;
  w.win = p.win + fo;
  w.fcap = static_cast<int>(F);
  w.pfacet = p.pfacet + fo;
  w.ppoint = p.ppoint + fo;
  w.pnvis = p.pnvis + fo;
  w.pnhor = p.pnhor + fo;
  w.pwin = p.pwin + fo;
  w.pextra = p.pextra + fo;
  w.vcap = vcap;
  const std::int64_t pv = (F + kHull3Vis) / vcap, ph = (F + kHull3Vis + 4) / (vcap + 2);
  const std::int64_t pc = pv < ph ? pv : ph;  // >= 1: vcap <= kHull3Vis
  w.pcap = static_cast<int>(pc < kHull3MaxProposals ? pc : kHull3MaxProposals);
  w.lcap = lcap < kHull3LocalHorizon ? lcap : kHull3LocalHorizon;
  w.lp0 = p.lp0 + o;
  w.lf0 = p.lf0 + o;
  w.lp1 = p.lp1 + o;
  w.lf1 = p.lf1 + o;
  w.vis = p.vis + hull3_vis_off(o, k);
  w.viscap = static_cast<int>(F + kHull3Vis);
  w.hor = p.hor + hull3_hor_off(o, k);
  w.cone = p.cone + hull3_hor_off(o, k);
  w.horcap = static_cast<int>(F + kHull3Vis + 4);
  return w;
}

/// Block-shared state (the executor's threads all see one).
struct Hull3Shared {
  unsigned long long key0, key1, key2, key3;
  unsigned long long best4[4];  // the initial facets' farthest points
  int idx0, idx1, idx2, idx3;
  int status, nf, nwin, fb_extra;
  int undecided[2];
  int alive;                                 // live entries with an owner after the round
  int rounds, inserted, aborted, fallbacks;  // statistics (tests)
};

// ---- the executor ----------------------------------------------------------------------------------
// Ex provides: int tid() const; int size() const; void sync() (a block barrier);
// int scan(int v, int& total) (collective exclusive sum of one value per thread, barriers included);
// amin / amax(int*, int), int aadd(int*, int) (returns the old value), amin64 / amax64 / aadd64
// (unsigned long long*, unsigned long long).

/// Collective: an order-preserving scan over items [0, n) in contiguous per-thread chunks. val(i)
/// (called twice per item, must not change in between) gives the item's count, put(i, base, v) is
/// called for every item with its exclusive prefix. Returns the total (the same in every thread).
/// The caller syncs before reading what put wrote.
template <class Ex, class Val, class Put>
CUSK_HD int hull3_scan(Ex& ex, int n, const Val& val, const Put& put) {
  const int T = ex.size(), chunk = (n + T - 1) / T;
  const int lo = ex.tid() * chunk < n ? ex.tid() * chunk : n, hi = lo + chunk < n ? lo + chunk : n;
  int s = 0;
  for (int i = lo; i < hi; ++i) s += val(i);
  int total = 0;
  int base = ex.scan(s, total);
  for (int i = lo; i < hi; ++i) {
    const int v = val(i);
    put(i, base, v);
    base += v;
  }
  return total;
}

CUSK_HD int hull3_popc(unsigned long long v) {
#if defined(__CUDA_ARCH__)
  return __popcll(v);
#else
  return __builtin_popcountll(v);
#endif
}

/// Collective: an order-preserving compaction of the items i in [0, n) with pred(i), in contiguous
/// per-thread chunks: put(i, at) for each such item, at its rank. Returns the count (the same in
/// every thread). Chunks of up to 128 items keep the predicates as bits, so pred runs once per
/// item and its loads issue back to back; longer ones evaluate it twice (it must not change in
/// between). The caller syncs before reading what put wrote.
template <class Ex, class Pred, class Put>
CUSK_HD int hull3_compact(Ex& ex, int n, const Pred& pred, const Put& put) {
  const int T = ex.size(), chunk = (n + T - 1) / T;
  const int lo = ex.tid() * chunk < n ? ex.tid() * chunk : n, hi = lo + chunk < n ? lo + chunk : n;
  int total = 0;
  if (chunk <= 128) {
    unsigned long long m0 = 0, m1 = 0;
    for (int j0 = 0; j0 < hi - lo; j0 += 8) {  // eight predicates (their loads) at a time
      bool b[8];
      CUSK_UNROLL
      for (int v = 0; v < 8; ++v) b[v] = lo + j0 + v < hi && pred(lo + j0 + v);
      CUSK_UNROLL
      for (int v = 0; v < 8; ++v)
        if (b[v]) {
          const int j = j0 + v;
          if (j < 64)
            m0 |= 1ull << j;
          else
            m1 |= 1ull << (j - 64);
        }
    }
    int at = ex.scan(hull3_popc(m0) + hull3_popc(m1), total);
    for (int i = lo; i < hi; ++i) {
      const int j = i - lo;
      if (((j < 64 ? m0 >> j : m1 >> (j - 64)) & 1) != 0) put(i, at++);
    }
    return total;
  }
  int c = 0;
  for (int i = lo; i < hi; ++i) c += pred(i) ? 1 : 0;
  int at = ex.scan(c, total);
  for (int i = lo; i < hi; ++i)
    if (pred(i)) put(i, at++);
  return total;
}

CUSK_HD unsigned long long hull3_lex_key(Hull3Pt p) {  // coordinates + 1 < 2^20 (kHull3MaxExtent)
  return (static_cast<unsigned long long>(p.x + 1) << 42) | (static_cast<unsigned long long>(p.y + 1) << 21) |
         static_cast<unsigned long long>(p.z + 1);
}

CUSK_HD std::uint32_t hull3_float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

/// The farthest-point key of point p at height dist >= 1 above a facet: (float distance, index),
/// so an atomic max picks the farthest (ties to the higher index).
CUSK_HD unsigned long long hull3_key(std::int64_t dist, int p) {
  return (static_cast<unsigned long long>(hull3_float_bits(static_cast<float>(dist))) << 32) |
         static_cast<unsigned>(p);
}

/// gcd of a, b >= 0 (hull3_gcd's value): 32-bit Euclid when both fit, the usual case, which is
/// several times cheaper than 64-bit remainders on the device.
CUSK_HD std::int64_t hull3_gcd_fast(std::int64_t a, std::int64_t b) {
  if (((a | b) >> 32) == 0) {
    std::uint32_t x = static_cast<std::uint32_t>(a), y = static_cast<std::uint32_t>(b);
    while (y != 0) {
      const std::uint32_t r = x % y;
      x = y;
      y = r;
    }
    return x;
  }
  return hull3_gcd(a, b);
}

/// The plane through a, b, c oriented by (b - a) x (c - a), not reduced: a positive multiple g of
/// hull3_plane(a, b, c), so n.X - d has its sign (all the quickhull asks), without the gcd. The
/// components are bounded as hull3_plane's (convex_hull_ops.hpp: the bound is the cross product's).
CUSK_HD Hull3Plane hull3_plane_raw(Hull3Pt a, Hull3Pt b, Hull3Pt c) {
  const std::int64_t ux = std::int64_t(b.x) - a.x, uy = std::int64_t(b.y) - a.y, uz = std::int64_t(b.z) - a.z;
  const std::int64_t vx = std::int64_t(c.x) - a.x, vy = std::int64_t(c.y) - a.y, vz = std::int64_t(c.z) - a.z;
  Hull3Plane p{uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx, 0};
  p.d = p.nx * a.x + p.ny * a.y + p.nz * a.z;
  return p;
}

/// A raw plane reduced to hull3_plane's primitive one (the same four integers: d = n.a is
/// divisible by the gcd of n).
CUSK_HD Hull3Plane hull3_reduce(Hull3Plane p) {
  const std::int64_t g =
      hull3_gcd_fast(hull3_gcd_fast(hull3_abs(p.nx), hull3_abs(p.ny)), hull3_abs(p.nz));
  if (g > 1) {
    p.nx /= g;
    p.ny /= g;
    p.nz /= g;
    p.d /= g;
  }
  return p;
}

/// L-inf norm of (p - a) x (b - a): 0 iff p is on the line ab (a != b).
CUSK_HD unsigned long long hull3_line_key(Hull3Pt a, Hull3Pt b, Hull3Pt p) {
  const std::int64_t ux = std::int64_t(b.x) - a.x, uy = std::int64_t(b.y) - a.y, uz = std::int64_t(b.z) - a.z;
  const std::int64_t vx = std::int64_t(p.x) - a.x, vy = std::int64_t(p.y) - a.y, vz = std::int64_t(p.z) - a.z;
  const std::int64_t cx = hull3_abs(uy * vz - uz * vy), cy = hull3_abs(uz * vx - ux * vz),
                     cz = hull3_abs(ux * vy - uy * vx);
  const std::int64_t m = cx > cy ? cx : cy;
  return static_cast<unsigned long long>(m > cz ? m : cz);
}

}  // namespace cuskimage::morphology::detail
