// The device 3-D convex hull (kernels/morphology/convex_hull3d.cu): a quickhull run by one thread
// block per hull, written once as __host__ __device__ code over an "executor" (the block), so the
// same source also runs on the host (the tests run it with std::threads and a std::barrier against
// the CPU backend's incremental hull). Exact integer arithmetic on the doubled lattice
// (convex_hull_ops.hpp: primitive planes, no rounding anywhere), so the hull as a point set is
// unique and the voxel mask is the CPU backend's bit for bit.
//
// The algorithm, per hull of n points (all indices int32, all state in global memory):
// * Initial simplex: the lexicographic min and max point, the point farthest (L-inf of the cross
//   product) from their line, the point farthest from their plane; any of them missing means the
//   points are identical, collinear or coplanar: the hull is flat (Qhull fails: scikit-image
//   returns an all-false image), status kHull3Flat. With offset_coordinates the points are the face
//   centres of the candidate voxels and the voxels themselves get this test (scikit-image's first
//   Qhull is of the voxels).
// * Every point strictly above a facet belongs to the first such facet (its outside set); the
//   others are inside for good. The live entries (point, owner facet) hold the points that may
//   still have an owner, and best[f] (an atomic max of (float distance, index)) is facet f's
//   farthest outside point. Both are exact across rounds: a facet's outside set changes only when
//   the facet is replaced, so a round touches only the entries of replaced facets.
// * Rounds, until no entry has an owner: (1) each facet with outside points proposes its farthest
//   point (the first kHull3MaxProposals in slot order); (2) one thread per proposal walks the
//   facets visible from its point (a breadth-first search over neighbours, at most kHull3Vis
//   facets; a larger region aborts the proposal this round) and records its horizon: V the visible
//   facets, N the facets beyond the horizon. (3) Proposals P, Q conflict when V_P meets V_Q or N_Q
//   (or V_Q meets N_P); a maximal non-conflicting set is chosen in up to kHull3MisIters iterations
//   (an undecided proposal wins when no lower undecided one conflicts with it, found by atomic
//   maxima of (iteration, ~index) over V and over N; the undecided ones conflicting with a winner
//   drop out). Non-conflicting insertions in parallel are the same as one after another: a facet
//   of one winner's cone cannot be visible from another (the visible region of a point is
//   connected and would have to reach the cone through the first winner's N, which the second's V
//   avoids), and a facet in two N's only gets two different edges relinked. The lowest unaborted
//   proposal always wins; when every proposal aborted, thread 0 inserts proposal 0 with the whole
//   pool (no cap), so each round inserts at least one point. (4) each winner replaces its visible
//   facets by the cone over its horizon (the visible region is a disk, so h <= v + 2 new facets for
//   v visible: the new facets reuse the visible slots and append at most 2, so 2 n + 16 slots
//   suffice); (5) one pass over the live entries: those of replaced facets go to the first new
//   facet of the winner they are above (Barber et al.: a point above a visible facet is inside the
//   new hull or above a new facet), raising its best[], or are inside for good; (6) the entries
//   are compacted once half of them are dead. Visibility is strict (n.X > d), so points on a face
//   never enter: coplanar triangles may stay, which changes no plane. Facet planes are kept
//   unreduced (hull3_plane_raw: a positive multiple, the same signs, no gcd in the rounds) and
//   reduced once at the end. Ball(100) with offsets: 54.8 k points, 7.1 k inserted in 90 rounds.
//
// Determinism: proposals, winners and new slots follow slot order through block scans; only the
// order of atomics differs from run to run, never a result.
#pragma once

#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>

#include "cuskimage/array.hpp"
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

/// The facets visible (strictly) from q, breadth first from `seed` (visible), into vis[0..nv), and
/// the horizon edges into hor[0..nh). Returns nv, or -1 when more than vcap facets or hcap edges.
/// Only visible facets enter the list, so only a visible neighbour needs the seen test. Local
/// (the parallel step, vcap <= kHull3Vis): the list and each listed facet's neighbours live in
/// thread-local arrays, filled when the facet was met as a neighbour, and a horizon edge is read
/// off the facet beyond (its edge whose neighbour is this facet), so a visited facet costs one
/// round of loads (its three neighbours' records at once); otherwise (the whole-pool fallback)
/// the list is vis itself and each facet's record is loaded again.
/// The thread-local scratch of hull3_visible<true>, then of the proposal's V and N lists in the
/// winner selection, then of hull3_insert (one array for the three phases).
inline constexpr int kHull3Scratch = 4 * kHull3Vis;
static_assert(kHull3Vis + kHull3Vis + 2 <= kHull3Scratch);
static_assert(2 * kHull3LocalHorizon <= kHull3Scratch);

template <bool Local>
CUSK_HD int hull3_visible(const Hull3Facet* fac, Hull3Pt q, int seed, std::int32_t* vis, int vcap, Hull3Edge* hor,
                          int hcap, int& nh, std::int32_t* scratch) {
  std::int32_t* lid = scratch;                                           // [kHull3Vis]
  auto lnb = reinterpret_cast<std::int32_t(*)[3]>(scratch + kHull3Vis);  // [kHull3Vis][3]
  std::int32_t* buf = Local ? lid : vis;
  int nv = 0;
  nh = 0;
  buf[nv++] = seed;
  if (Local) {
    const Hull3Facet& g = fac[seed];
    CUSK_UNROLL
    for (int e = 0; e < 3; ++e) lnb[0][e] = g.nb[e];
  }
  for (int i = 0; i < nv; ++i) {
    const int gi = buf[i];
    int h[3], gv[3] = {0, 0, 0};
    if (Local) {
      CUSK_UNROLL
      for (int e = 0; e < 3; ++e) h[e] = lnb[i][e];
    } else {
      const Hull3Facet& g = fac[gi];
      CUSK_UNROLL
      for (int e = 0; e < 3; ++e) {
        h[e] = g.nb[e];
        gv[e] = g.v[e];
      }
    }
    bool up[3];
    int hv[3][3], hn[3][3];
    CUSK_UNROLL
    for (int e = 0; e < 3; ++e) {
      const Hull3Facet& x = fac[h[e]];
      up[e] = hull3_eval(x.pl, q) > 0;
      CUSK_UNROLL
      for (int m = 0; m < 3; ++m) {
        hv[e][m] = x.v[m];
        hn[e][m] = x.nb[m];
      }
    }
    CUSK_UNROLL
    for (int e = 0; e < 3; ++e) {
      if (!up[e]) {
        if (nh == hcap) return -1;
        // The shared edge is (a, b) in this facet and (b, a) = the neighbour's edge `back`, the
        // one whose neighbour is this facet (two facets share at most one edge).
        int back = -1;
        CUSK_UNROLL
        for (int m = 0; m < 3; ++m)
          if (Local ? hn[e][m] == gi : (hv[e][m] == gv[e == 2 ? 0 : e + 1] && hv[e][m == 2 ? 0 : m + 1] == gv[e]))
            back = m;
        const int a = back >= 0 ? hv[e][back == 2 ? 0 : back + 1] : -1, b = back >= 0 ? hv[e][back] : -1;
        hor[nh++] = Hull3Edge{a, b, h[e], back};
        continue;
      }
      bool seen = false;
      for (int j = 0; j < nv && !seen; ++j) seen = buf[j] == h[e];
      if (seen) continue;
      if (nv == vcap) return -1;
      if (Local) {
        CUSK_UNROLL
        for (int m = 0; m < 3; ++m) lnb[nv][m] = hn[e][m];
      }
      buf[nv++] = h[e];
    }
  }
  if (Local)
    for (int j = 0; j < nv; ++j) vis[j] = buf[j];
  return nv;
}

/// A point of the hull's (read-only) set: through the non-coherent path on the device, so the
/// load need not wait for the facet writes before it.
CUSK_HD Hull3Pt hull3_point(const Hull3Pt* p) {
#if defined(__CUDA_ARCH__)
  return Hull3Pt{__ldg(&p->x), __ldg(&p->y), __ldg(&p->z)};
#else
  return *p;
#endif
}

/// Inserts proposal k (a winner): the cone over its horizon, new facets in its visible slots then
/// at `extra`, ... (their farthest points reset); marks win[] of the replaced facets. False when
/// the horizon is not a cycle. The successor search of the parallel step's horizons (at most
/// kHull3Vis + 2 edges) runs over thread-local copies read before any facet is written; the
/// fallback's reads the pool.
CUSK_HD bool hull3_insert(const Hull3Work& w, int k, int extra, std::int32_t* scratch) {
  const int nv = w.pnvis[k], nh = w.pnhor[k], q = w.ppoint[k];
  const std::int32_t* vis = w.vis + k * w.vcap;
  Hull3Edge* hor = w.hor + k * (w.vcap + 2);
  if (k * (w.vcap + 2) + nh > w.horcap) return false;  // cannot happen (see the pools)
  const Hull3Pt pq = w.pts[q];
  auto slot_of = [&](int j) { return j < nv ? vis[j] : extra + (j - nv); };
  bool ok = true;
  Hull3Cone* cone = w.cone + k * (w.vcap + 2);
  auto make = [&](int j, int slot, int a, int b, Hull3Pt pa, Hull3Pt pb, int out, int back, int succ_slot,
                  int pred_slot) {
    Hull3Facet& f = w.fac[slot];
    f.v[0] = a;
    f.v[1] = b;
    f.v[2] = q;
    f.nb[0] = out;
    f.nb[1] = succ_slot;
    f.nb[2] = pred_slot;
    f.pl = hull3_plane_raw(pa, pb, pq);
    cone[j] = Hull3Cone{f.pl, slot, 0};  // (5) tests its entries against these
    w.best[slot] = 0;
    w.claim[slot] = 0;  // no claim or mark of this round is read any more
    w.cln[slot] = 0;
    w.mark[slot] = 0;
    if (j >= nv) w.win[slot] = -1;  // an appended slot (a reused one is reset after (5))
    if (back >= 0)
      w.fac[out].nb[back] = slot;
    else
      ok = false;
  };
  constexpr int L = kHull3LocalHorizon;
  if (nh <= w.lcap) {
    std::int32_t *la = scratch, *lb = scratch + L;  // 2 L <= kHull3Scratch
    for (int j = 0; j < nh; ++j) {
      la[j] = hor[j].a;
      lb[j] = hor[j].b;
    }
    for (int j = 0; j < nv; ++j) w.win[vis[j]] = k;
    for (int j = 0; j < nh; ++j) {
      int succ = -1, pred = -1;  // the edges starting at b / ending at a
      for (int i = 0; i < nh; ++i) {
        if (la[i] == lb[j]) succ = i;
        if (lb[i] == la[j]) pred = i;
      }
      if (succ < 0 || pred < 0) {
        ok = false;
        continue;
      }
      make(j, slot_of(j), la[j], lb[j], hull3_point(w.pts + la[j]), hull3_point(w.pts + lb[j]), hor[j].out,
           hor[j].back, slot_of(succ), slot_of(pred));
    }
  } else {
    for (int j = 0; j < nv; ++j) w.win[vis[j]] = k;
    for (int j = 0; j < nh; ++j) {
      const int a = hor[j].a, b = hor[j].b;
      int succ = -1, pred = -1;
      for (int i = 0; i < nh; ++i) {
        if (hor[i].a == b) succ = i;
        if (hor[i].b == a) pred = i;
      }
      if (succ < 0 || pred < 0) {
        ok = false;
        continue;
      }
      make(j, slot_of(j), a, b, w.pts[a], w.pts[b], hor[j].out, hor[j].back, slot_of(succ), slot_of(pred));
    }
  }
  for (int j = nh; j < nv; ++j) w.fac[vis[j]].v[0] = -1;
  return ok;
}

/// Collective: an initial simplex of P[0, n) into sh.idx0..3 (the lexicographic min and max, the
/// point farthest from their line, the point farthest from their plane); false when the points
/// span no volume (fewer than 4, identical, collinear or coplanar).
template <class Ex>
CUSK_HD bool hull3_simplex(Ex& ex, Hull3Shared& sh, const Hull3Pt* P, int n) {
  const int t = ex.tid(), T = ex.size();
  if (t == 0) {
    sh.key0 = ~0ull;
    sh.key1 = sh.key2 = sh.key3 = 0;
    sh.idx0 = sh.idx1 = sh.idx2 = sh.idx3 = INT_MAX;
  }
  ex.sync();
  if (n < 4) return false;
  for (int i = t; i < n; i += T) {
    const unsigned long long k = hull3_lex_key(P[i]);
    ex.amin64(&sh.key0, k);
    ex.amax64(&sh.key1, k);
  }
  ex.sync();
  if (sh.key0 == sh.key1) return false;  // one point
  for (int i = t; i < n; i += T) {
    const unsigned long long k = hull3_lex_key(P[i]);
    if (k == sh.key0) ex.amin(&sh.idx0, i);
    if (k == sh.key1) ex.amin(&sh.idx1, i);
  }
  ex.sync();
  const int i0 = sh.idx0, i1 = sh.idx1;
  for (int i = t; i < n; i += T) ex.amax64(&sh.key2, hull3_line_key(P[i0], P[i1], P[i]));
  ex.sync();
  if (sh.key2 == 0) return false;  // collinear
  for (int i = t; i < n; i += T)
    if (hull3_line_key(P[i0], P[i1], P[i]) == sh.key2) ex.amin(&sh.idx2, i);
  ex.sync();
  const Hull3Plane base = hull3_plane_raw(P[i0], P[i1], P[sh.idx2]);
  for (int i = t; i < n; i += T)
    ex.amax64(&sh.key3, static_cast<unsigned long long>(hull3_abs(hull3_eval(base, P[i]))));
  ex.sync();
  if (sh.key3 == 0) return false;  // coplanar
  for (int i = t; i < n; i += T)
    if (static_cast<unsigned long long>(hull3_abs(hull3_eval(base, P[i]))) == sh.key3) ex.amin(&sh.idx3, i);
  ex.sync();
  return true;
}

/// Collective: the hull of w.pts[0, n), or none (kHull3Flat) when base[0, nbase) (given: the
/// voxels whose face centres w.pts are, as scikit-image's first Qhull) or w.pts spans no volume.
/// sh.status: kHull3Ok, kHull3Flat or kHull3Overflow (a scratch bound was exceeded: a bug,
/// reported as an error); sh.nf: slots used.
template <class Ex>
CUSK_HD void hull3_build(Ex& ex, Hull3Shared& sh, const Hull3Work& w, const Hull3Pt* base = nullptr, int nbase = 0) {
  using u64 = unsigned long long;
  const int t = ex.tid(), T = ex.size(), n = w.n;
  const Hull3Pt* P = w.pts;
  std::int32_t scratch[kHull3Scratch];  // thread-local (hull3_visible, hull3_insert)
  if (t == 0) {
    sh.status = kHull3Flat;
    sh.nf = 0;
    sh.nwin = 0;
    sh.fb_extra = 0;
    sh.alive = 0;
    for (int f = 0; f < 4; ++f) sh.best4[f] = 0;
    sh.rounds = sh.inserted = sh.aborted = sh.fallbacks = 0;
  }
  if (base && !hull3_simplex(ex, sh, base, nbase)) return;
  if (!hull3_simplex(ex, sh, P, n)) return;
  const int i0 = sh.idx0, i1 = sh.idx1, i2 = sh.idx2;
  if (t == 0) {
    // Faces (i0, i1, i2) and the three through i3, each turned away from the fourth vertex, then
    // neighbours by matching reversed edges.
    const int i3 = sh.idx3;
    const int tet[4][4] = {{i0, i1, i2, i3}, {i0, i1, i3, i2}, {i0, i2, i3, i1}, {i1, i2, i3, i0}};
    for (int f = 0; f < 4; ++f) {
      int a = tet[f][0], b = tet[f][1], c = tet[f][2];
      Hull3Plane pl = hull3_plane_raw(P[a], P[b], P[c]);
      if (hull3_eval(pl, P[tet[f][3]]) > 0) {
        const int s = b;
        b = c;
        c = s;
        pl = hull3_plane_raw(P[a], P[b], P[c]);
      }
      w.fac[f].v[0] = a;
      w.fac[f].v[1] = b;
      w.fac[f].v[2] = c;
      w.fac[f].pl = pl;
    }
    for (int f = 0; f < 4; ++f)
      for (int e = 0; e < 3; ++e) {
        const int a = w.fac[f].v[e], b = w.fac[f].v[e == 2 ? 0 : e + 1];
        for (int g = 0; g < 4; ++g)
          for (int m = 0; m < 3; ++m)
            if (g != f && w.fac[g].v[m] == b && w.fac[g].v[m == 2 ? 0 : m + 1] == a) w.fac[f].nb[e] = g;
      }
    sh.status = kHull3Ok;
  }
  // Slot state of the four facets (hull3_insert sets a new facet's): claims and marks carry their
  // iteration / round, so nothing is reset per round.
  for (int s = t; s < 4; s += T) {
    w.best[s] = 0;
    w.claim[s] = 0;
    w.cln[s] = 0;
    w.mark[s] = 0;
    w.win[s] = -1;
  }
  ex.sync();
  // Live entries (point, owner): every point with the first facet it is strictly above (-1:
  // inside for good), and each facet's farthest point (reduced per thread, then in shared).
  {
    const Hull3Plane tp[4] = {w.fac[0].pl, w.fac[1].pl, w.fac[2].pl, w.fac[3].pl};
    u64 b4[4] = {0, 0, 0, 0};
    int kept = 0;
    for (int i = t; i < n; i += T) {
      int o = -1;
      std::int64_t dist = 0;
      for (int f = 0; f < 4 && o < 0; ++f) {
        const std::int64_t v = hull3_eval(tp[f], P[i]);
        if (v > 0) {
          o = f;
          dist = v;
        }
      }
      w.lp0[i] = i;
      w.lf0[i] = o;
      if (o >= 0) {
        ++kept;
        const u64 key = hull3_key(dist, i);
        CUSK_UNROLL
        for (int f = 0; f < 4; ++f)  // constant indices: b4 stays in registers
          if (f == o && key > b4[f]) b4[f] = key;
      }
    }
    for (int f = 0; f < 4; ++f)
      if (b4[f]) ex.amax64(&sh.best4[f], b4[f]);
    if (kept) ex.aadd(&sh.alive, kept);
  }
  ex.sync();
  for (int f = t; f < 4; f += T) w.best[f] = sh.best4[f];
  ex.sync();
  std::int32_t *lp = w.lp0, *lf = w.lf0, *np = w.lp1, *nq = w.lf1;
  int nlive = n, nf = 4, rd = 0;
  // ---- rounds, while some entry has an owner (its facet then has a proposal)
  while (sh.alive > 0) {
    ++rd;
    // (1) proposals: the facets with outside points, in slot order (best[] is kept exact: a
    // facet's outside set only changes when the facet is replaced)
    const int nall = hull3_compact(
        ex, nf, [&](int s) { return w.fac[s].v[0] >= 0 && w.best[s] != 0; },
        [&](int s, int at) {
          if (at < w.pcap) w.pfacet[at] = s;
        });
    const int nprop = nall < w.pcap ? nall : w.pcap;
    const bool one = nprop <= T;  // proposal k = t alone: its lists stay in the thread's scratch
    if (t == 0) {
      sh.nwin = 0;
      sh.alive = 0;
      sh.undecided[0] = 0;
    }
    ex.sync();
    for (int k = t; k < nprop; k += T) {  // (2) visible regions
      const int f = w.pfacet[k], q = static_cast<int>(w.best[f] & 0xffffffffu);
      int nh = 0;
      w.ppoint[k] = q;
      const int nv = hull3_visible<true>(w.fac, P[q], f, w.vis + k * w.vcap, w.vcap, w.hor + k * (w.vcap + 2),
                                         w.vcap + 2, nh, scratch);
      w.pnvis[k] = nv;
      w.pnhor[k] = nh;
      if (one && nv >= 0)  // V is in scratch[0, nv); N next to it, for the winner selection
        for (int j = 0; j < nh; ++j) scratch[kHull3Vis + j] = w.hor[k * (w.vcap + 2) + j].out;
      w.pwin[k] = w.pnvis[k] >= 0 ? 0 : 2;  // 0 undecided, 1 won, 2 out
      if (w.pnvis[k] < 0) ex.aadd(&sh.aborted, 1);
    }
    ex.sync();
    // (3) a maximal set of proposals no two of which conflict (see the header), in a few
    // iterations of two phases: (A) an undecided proposal that meets a winner of this round (marks:
    // rd|2 on a winner's V, rd|1 on its N) drops out, the others claim their V (claim[]) and N
    // (cln[]) by an atomic max of (iteration, ~index); (B) an undecided proposal wins when no lower
    // one claimed its V or N, or claimed its N as V.
    const int rdm = rd << 2;
    for (int it = 0; it < kHull3MisIters; ++it) {
      const u64 stamp = static_cast<u64>(static_cast<std::int64_t>(rd - 1) * kHull3MisIters + it + 1) << 32;
      int und = 0;
      for (int k = t; k < nprop; k += T) {
        if (w.pwin[k] != 0) continue;
        const int nv = w.pnvis[k], nh = w.pnhor[k];
        auto vid = [&](int j) { return one ? scratch[j] : w.vis[k * w.vcap + j]; };
        auto nid = [&](int j) { return one ? scratch[kHull3Vis + j] : w.hor[k * (w.vcap + 2) + j].out; };
        bool hit = false;  // the loops run whole: independent loads, no chain of early exits
        if (it > 0) {
          for (int j = 0; j < nv; ++j) hit |= w.mark[vid(j)] > rdm;
          for (int j = 0; j < nh; ++j) hit |= w.mark[nid(j)] == (rdm | 2);
        }
        if (hit) {
          w.pwin[k] = 2;
          continue;
        }
        const u64 key = stamp | (0xffffffffu - static_cast<unsigned>(k));
        for (int j = 0; j < nv; ++j) ex.amax64(&w.claim[vid(j)], key);
        for (int j = 0; j < nh; ++j) ex.amax64(&w.cln[nid(j)], key);
        ++und;
      }
      if (und) ex.aadd(&sh.undecided[it & 1], und);
      ex.sync();
      if (sh.undecided[it & 1] == 0) break;
      for (int k = t; k < nprop; k += T) {
        if (w.pwin[k] != 0) continue;
        const int nv = w.pnvis[k], nh = w.pnhor[k];
        auto vid = [&](int j) { return one ? scratch[j] : w.vis[k * w.vcap + j]; };
        auto nid = [&](int j) { return one ? scratch[kHull3Vis + j] : w.hor[k * (w.vcap + 2) + j].out; };
        const u64 key = stamp | (0xffffffffu - static_cast<unsigned>(k));
        bool won = true;  // a lower claimant this iteration has a larger key; V and N are disjoint
        for (int j = 0; j < nv; ++j) won &= w.claim[vid(j)] == key && w.cln[vid(j)] < key;
        for (int j = 0; j < nh; ++j) won &= w.claim[nid(j)] < key;
        if (!won) continue;
        w.pwin[k] = 1;
        ex.aadd(&sh.nwin, 1);
        for (int j = 0; j < nv; ++j) ex.amax(&w.mark[vid(j)], rdm | 2);
        for (int j = 0; j < nh; ++j) ex.amax(&w.mark[nid(j)], rdm | 1);
      }
      if (t == 0) sh.undecided[(it + 1) & 1] = 0;  // last read two phases ago
      ex.sync();
    }
    int extra = hull3_scan(
        ex, nprop, [&](int k) { return w.pwin[k] == 1 && w.pnhor[k] > w.pnvis[k] ? w.pnhor[k] - w.pnvis[k] : 0; },
        [&](int k, int at, int) { w.pextra[k] = at; });
    ex.sync();
    const bool fallback = sh.nwin == 0;
    if (fallback) {  // every proposal aborted: proposal 0 alone, with the whole pools
      if (t == 0) {
        int nh = 0;
        const int nv =
            hull3_visible<false>(w.fac, P[w.ppoint[0]], w.pfacet[0], w.vis, w.viscap, w.hor, w.horcap, nh, scratch);
        w.pnvis[0] = nv;
        w.pnhor[0] = nh;
        w.pwin[0] = nv >= 0 ? 1 : 0;
        w.pextra[0] = 0;
        sh.fb_extra = nv < 0 ? -1 : (nh > nv ? nh - nv : 0);
        ++sh.fallbacks;
      }
      ex.sync();
      extra = sh.fb_extra;
      if (extra < 0) {
        if (t == 0) sh.status = kHull3Overflow;
        break;
      }
    }
    if (nf + extra > w.fcap) {
      if (t == 0) sh.status = kHull3Overflow;
      break;
    }
    for (int k = t; k < nprop; k += T)  // (4) cones
      if (w.pwin[k] == 1 && !hull3_insert(w, k, nf + w.pextra[k], scratch)) ex.amax(&sh.status, kHull3Overflow);
    ex.sync();
    if (sh.status != kHull3Ok) break;
    // (5) entries whose facet was replaced go to the first new facet of its winner they are above
    // (Barber et al.: a point above a visible facet is inside the new hull or above a new facet),
    // or are inside for good; the others keep their facet and its farthest point. Eight entries a
    // thread at a time, loads first (one pass, coalesced, instead of per-point indirections).
    {
      constexpr int U = 8;
      int kept = 0;
      for (int i0 = t; i0 < nlive; i0 += U * T) {
        int fe[U], pe[U], ke[U];
        Hull3Pt xe[U];
        CUSK_UNROLL
        for (int u = 0; u < U; ++u) {
          const bool in = i0 + u * T < nlive;
          fe[u] = in ? lf[i0 + u * T] : -1;
          pe[u] = in ? lp[i0 + u * T] : 0;
        }
        CUSK_UNROLL
        for (int u = 0; u < U; ++u) {  // the point too, in case its facet was replaced
          ke[u] = fe[u] >= 0 ? w.win[fe[u]] : -1;
          xe[u] = fe[u] >= 0 ? hull3_point(P + pe[u]) : Hull3Pt{0, 0, 0};
        }
        CUSK_UNROLL
        for (int u = 0; u < U; ++u) {
          if (fe[u] < 0) continue;
          if (ke[u] < 0) {
            ++kept;
            continue;
          }
          const int i = i0 + u * T, p = pe[u], k = ke[u], nh = w.pnhor[k];
          const Hull3Pt x = xe[u];
          const Hull3Cone* cone = w.cone + k * (w.vcap + 2);
          int to = -1;
          std::int64_t dist = 0;
          for (int j0 = 0; j0 < nh && to < 0; j0 += 4) {  // four new facets at a time, loads first
            std::int64_t e[4];
            int sl[4];
            CUSK_UNROLL
            for (int v = 0; v < 4; ++v) {
              const bool in = j0 + v < nh;
              e[v] = in ? hull3_eval(cone[j0 + v].pl, x) : 0;
              sl[v] = in ? cone[j0 + v].slot : -1;
            }
            CUSK_UNROLL
            for (int v = 0; v < 4; ++v)
              if (to < 0 && e[v] > 0) {
                to = sl[v];
                dist = e[v];
              }
          }
          lf[i] = to;
          if (to >= 0) {
            ++kept;
            ex.amax64(&w.best[to], hull3_key(dist, p));
          }
        }
      }
      if (kept) ex.aadd(&sh.alive, kept);
    }
    ex.sync();
    for (int k = t; k < nprop; k += T)  // the replaced slots are free again
      if (w.pwin[k] == 1) {
        const std::int32_t* vis = w.vis + k * w.vcap;
        for (int j = 0; j < w.pnvis[k]; ++j) w.win[vis[j]] = -1;
      }
    const int alive = sh.alive;
    if (alive > 0 && 2 * alive <= nlive) {  // (6) compaction once half the entries are dead
      hull3_compact(
          ex, nlive, [&](int i) { return lf[i] >= 0; },
          [&](int i, int at) {
            np[at] = lp[i];
            nq[at] = lf[i];
          });
      std::int32_t* s = lp;
      lp = np;
      np = s;
      s = lf;
      lf = nq;
      nq = s;
      nlive = alive;
    }
    nf += extra;
    if (t == 0) {
      ++sh.rounds;
      sh.inserted += fallback ? 1 : sh.nwin;
    }
    ex.sync();
  }
  if (t == 0) sh.nf = nf;
  ex.sync();
}

CUSK_HD bool hull3_same_plane(const Hull3Plane& a, const Hull3Plane& b) {
  return a.nx == b.nx && a.ny == b.ny && a.nz == b.nz && a.d == b.d;
}

/// Collective, after hull3_build: the hull's planes, reduced and with the tolerance folded in (slot
/// order), into planes[0, *nplanes); a flat hull writes 0. A facet whose plane a neighbour of a
/// lower slot has (coplanar triangles of one face, about half of a ball's facets) is left out:
/// the mask tests each plane once (a face split into several triangles that way may keep a few).
template <class Ex>
CUSK_HD void hull3_finalize(Ex& ex, const Hull3Shared& sh, const Hull3Work& w, Hull3Plane* planes,
                            std::int32_t* nplanes, double tolerance) {
  const int nf = sh.status == kHull3Ok ? sh.nf : 0;
  for (int s = ex.tid(); s < nf; s += ex.size())
    if (w.fac[s].v[0] >= 0) w.fac[s].pl = hull3_reduce(w.fac[s].pl);
  ex.sync();
  auto keep = [&](int s) {
    const Hull3Facet& f = w.fac[s];
    if (f.v[0] < 0) return false;
    bool dup = false;
    CUSK_UNROLL
    for (int e = 0; e < 3; ++e) dup |= f.nb[e] < s && hull3_same_plane(w.fac[f.nb[e]].pl, f.pl);
    return !dup;
  };
  const int m = hull3_compact(ex, nf, keep, [&](int s, int at) { planes[at] = hull3_fold(w.fac[s].pl, tolerance); });
  if (ex.tid() == 0) *nplanes = m;
  ex.sync();
}

// ---- candidates: the planar filters ----------------------------------------------------------------
// A vertex of the 3-D hull is a vertex of the 2-D hull of the voxels of any plane through it (those
// are a subset of the voxel set), here the planes p = const and r = const of the box; and the 2-D
// hull's vertices are among the first / last voxels of the plane's lines (along the last axis).

/// One planar filter: the lines line0 + x * step, x in [0, len), whose first / last voxels are
/// lo[line] / hi[line] (lo > hi: empty line). The lower chain of (x, lo) and the upper chain of
/// (x, hi) (monotone chains, collinear points dropped; stacks low[0, len), up[0, len)); flag[line] =
/// 1 when (x, lo) is a vertex of the lower chain, | 2 when (x, hi) is one of the upper chain.
CUSK_HD void hull3_chain_task(const std::int32_t* lo, const std::int32_t* hi, std::int64_t line0, std::int64_t step,
                              std::int64_t len, std::int32_t* low, std::int32_t* up, std::uint8_t* flag) {
  // The two top points of each chain stay in registers: a push reads memory only when it pops
  // (then the new second point), and the lines' extremes are loaded kB at a time ahead of the
  // pushes, so one thread's walk is not a chain of dependent loads.
  struct Chain {
    int m;
    std::int32_t x0, x1;  // second and top stack entries
    std::int64_t y0, y1;
  };
  auto push = [&](std::int32_t* st, Chain& c, std::int32_t x, std::int64_t y, const std::int32_t* ys, bool lower) {
    while (c.m >= 2) {
      const std::int64_t cr = cross3(HullPt{c.x0, c.y0}, HullPt{c.x1, c.y1}, HullPt{x, y});
      if (lower ? cr > 0 : cr < 0) break;
      --c.m;
      c.x1 = c.x0;
      c.y1 = c.y0;
      if (c.m >= 2) {
        c.x0 = st[c.m - 2];
        c.y0 = ys[line0 + std::int64_t(c.x0) * step];
      }
    }
    st[c.m++] = x;
    c.x0 = c.x1;
    c.y0 = c.y1;
    c.x1 = x;
    c.y1 = y;
  };
  constexpr int kB = 8;
  Chain cl{0, 0, 0, 0, 0}, cu{0, 0, 0, 0, 0};
  for (std::int64_t xb = 0; xb < len; xb += kB) {
    std::int32_t a[kB], b[kB];
    CUSK_UNROLL
    for (int u = 0; u < kB; ++u) {
      const bool in = xb + u < len;
      const std::int64_t line = line0 + (xb + u) * step;
      a[u] = in ? lo[line] : 1;
      b[u] = in ? hi[line] : 0;
    }
    CUSK_UNROLL
    for (int u = 0; u < kB; ++u) {
      if (xb + u >= len) break;
      flag[line0 + (xb + u) * step] = 0;
      if (a[u] > b[u]) continue;
      const std::int32_t x = static_cast<std::int32_t>(xb + u);
      push(low, cl, x, a[u], lo, true);
      push(up, cu, x, b[u], hi, false);
    }
  }
  for (int i = 0; i < cl.m; ++i) flag[line0 + std::int64_t(low[i]) * step] |= 1;
  for (int i = 0; i < cu.m; ++i) flag[line0 + std::int64_t(up[i]) * step] |= 2;
}

/// The candidates of a line with voxels [a, b] and the flags of its plane (f2) and row plane (f3):
/// its first voxel when a vertex of both planar hulls, its last likewise (one point when a == b).
CUSK_HD void hull3_line_candidates(std::int32_t a, std::int32_t b, std::uint8_t f2, std::uint8_t f3, bool& first,
                                   bool& last) {
  first = last = false;
  if (a > b) return;
  if (a == b) {
    first = (f2 & 3) && (f3 & 3);
    return;
  }
  first = (f2 & 1) && (f3 & 1);
  last = (f2 & 2) && (f3 & 2);
}

// ---- masks --------------------------------------------------------------------------------------------

/// hull3_clip's result, dividing only when the plane tightens the interval (on a tile most of the
/// planes that cut its box do not tighten a given column: one compare instead of a 64-bit
/// division). floor(rhs / 2 nz) < z1 iff rhs < 2 nz z1 (nz > 0); ceil(-rhs / -2 nz) > z0 iff
/// rhs < 2 nz z0 (nz < 0). Called while 0 <= z0 <= z1 < 2^18, so the products stay below 2^58.
CUSK_HD void hull3_clip_tight(const Hull3Plane& f, std::int64_t p, std::int64_t r, std::int64_t& z0, std::int64_t& z1) {
  const std::int64_t rhs = f.d - f.nx * (2 * p) - f.ny * (2 * r);  // f.nz * 2 z <= rhs
  if (f.nz > 0) {
    if (rhs < 2 * f.nz * z1) {
      const std::int64_t m = floor_div(rhs, 2 * f.nz);
      if (m < z1) z1 = m;
    }
  } else if (f.nz < 0) {
    if (rhs < 2 * f.nz * z0) {
      const std::int64_t m = ceil_div(-rhs, -2 * f.nz);
      if (m > z0) z0 = m;
    }
  } else if (rhs < 0 && z1 >= z0) {
    z1 = z0 - 1;
  }
}

inline constexpr int kHull3TileP = 8, kHull3TileR = 32, kHull3TileCols = kHull3TileP * kHull3TileR;

struct Hull3TileShared {
  Hull3Plane sp[kHull3TileCols];  // a chunk's facets that cut the tile's box
  std::int64_t z0[kHull3TileCols], z1[kHull3TileCols];
  int scount, sempty;
  unsigned long long ssum;
};

/// Collective: the tile of columns (p0.., r0..) (kHull3TileP x kHull3TileR, clipped to the P x R x C
/// box) of the hull with folded planes pl[0, np) (flat: none): every column's z-interval, the
/// tile's voxel count (returned in every thread) and, when img is given (the box's contiguous bool
/// image), the tile's rows. Facets are gathered in chunks of kHull3TileCols; a facet that leaves
/// the tile's whole box [p] x [r] x [0, C) inside is skipped, one that leaves it outside empties
/// the tile. Column c = ty * kHull3TileR + tx is the column (p0 + ty, r0 + tx); thread t takes
/// the columns t, t + size(), ... and the facets likewise.
template <class Ex>
CUSK_HD unsigned long long hull3_mask_tile(Ex& ex, Hull3TileShared& sm, const Hull3Plane* pl, int np, bool flat,
                                           std::int64_t P, std::int64_t R, std::int64_t C, std::int64_t p0,
                                           std::int64_t r0, bool* img) {
  const int t = ex.tid(), T = ex.size();
  const std::int64_t p1 = (p0 + kHull3TileP < P ? p0 + kHull3TileP : P) - 1;  // inclusive
  const std::int64_t r1 = (r0 + kHull3TileR < R ? r0 + kHull3TileR : R) - 1;
  for (int c = t; c < kHull3TileCols; c += T) {
    const bool valid = p0 + c / kHull3TileR <= p1 && r0 + c % kHull3TileR <= r1;
    sm.z0[c] = valid ? 0 : 1;
    sm.z1[c] = valid ? C - 1 : 0;
  }
  if (t == 0) {
    sm.sempty = flat ? 1 : 0;
    sm.ssum = 0;
  }
  ex.sync();
  if (flat) np = 0;
  for (int c0 = 0; c0 < np && !sm.sempty; c0 += kHull3TileCols) {
    if (t == 0) sm.scount = 0;
    ex.sync();
    for (int i = t; i < kHull3TileCols && c0 + i < np; i += T) {
      const Hull3Plane f = pl[c0 + i];
      // n.X over the box [2 p0, 2 p1] x [2 r0, 2 r1] x [0, 2 (C - 1)]
      const std::int64_t xa = f.nx * (2 * p0), xb = f.nx * (2 * p1), ya = f.ny * (2 * r0), yb = f.ny * (2 * r1);
      const std::int64_t zb = f.nz * (2 * (C - 1));
      const std::int64_t vmax = (xa > xb ? xa : xb) + (ya > yb ? ya : yb) + (zb > 0 ? zb : 0);
      const std::int64_t vmin = (xa < xb ? xa : xb) + (ya < yb ? ya : yb) + (zb < 0 ? zb : 0);
      if (vmin > f.d)
        ex.amax(&sm.sempty, 1);  // the whole box is outside
      else if (vmax > f.d)
        sm.sp[ex.aadd(&sm.scount, 1)] = f;  // cuts the box
    }
    ex.sync();
    if (!sm.sempty) {
      const int m = sm.scount;
      for (int c = t; c < kHull3TileCols; c += T) {
        const std::int64_t p = p0 + c / kHull3TileR, r = r0 + c % kHull3TileR;
        std::int64_t z0 = sm.z0[c], z1 = sm.z1[c];
        for (int j = 0; j < m && z0 <= z1; ++j) hull3_clip_tight(sm.sp[j], p, r, z0, z1);
        sm.z0[c] = z0;
        sm.z1[c] = z1;
      }
    }
    ex.sync();
  }
  const bool empty = sm.sempty != 0;
  unsigned long long local = 0;
  for (int c = t; c < kHull3TileCols; c += T) {
    if (empty) {
      sm.z0[c] = 1;
      sm.z1[c] = 0;
    }
    if (sm.z1[c] >= sm.z0[c]) local += static_cast<unsigned long long>(sm.z1[c] - sm.z0[c] + 1);
  }
  if (local) ex.aadd64(&sm.ssum, local);
  ex.sync();
  if (img) {
    const int nr = static_cast<int>(r1 - r0 + 1), cc = static_cast<int>(C), len = nr * cc;
    for (std::int64_t pp = 0; pp <= p1 - p0; ++pp) {
      bool* row = img + ((p0 + pp) * R + r0) * C;
      for (int idx = t; idx < len; idx += T) {
        const int rr = idx / cc, c = idx - rr * cc, col = static_cast<int>(pp) * kHull3TileR + rr;
        row[idx] = c >= sm.z0[col] && c <= sm.z1[col];
      }
    }
  }
  const unsigned long long total = sm.ssum;
  ex.sync();
  return total;
}

// ---- entry points (kernels/morphology/convex_hull3d.cu) ----------------------------------------------

/// out (bool, contiguous P x R x C, on the device) = convex_hull_image of the contiguous 3-D `img`
/// (dtype T): scikit-image's N-d path exactly. Synchronises the stream twice: to size the hull's
/// scratch from the candidate count, and to check the hull's status.
template <class T>
void cuda_convex_hull_image_3d(const Array& img, Array& out, bool offset, double tolerance, cudaStream_t stream);

/// Batched hulls, one per segment: convex_hull_image(box_k, offset_coordinates, tolerance) of the
/// voxel set given by segment k's candidate points, over a box of shape box[3k..3k+3).
struct Hull3Segments {
  std::int64_t nseg = 0;
  /// Device, (npoints, 3) int32 voxel coordinates (plane, row, column) inside each segment's box.
  /// Any superset of the hull's vertices gives the same hull: e.g. the first and last voxel of
  /// every (plane, row) line of the region (the whole voxel set works too, slower).
  const std::int32_t* points = nullptr;
  /// Device, nseg + 1 offsets into `points` (CSR); `host_offsets` the same on the host.
  const std::int64_t* offsets = nullptr;
  const std::int64_t* host_offsets = nullptr;
  /// Host, nseg * 3: the box (P, R, C) of each segment; the mask and the count cover [0, P) x
  /// [0, R) x [0, C). Every axis <= kHull3MaxExtent.
  const std::int64_t* box = nullptr;
};

struct Hull3Options {
  bool offset_coordinates = true;
  double tolerance = 1e-10;
  /// Device, optional: the bool hull image of segment k (contiguous, its box's shape) is written at
  /// images + image_off[k] (image_off on the host, nseg entries). Every voxel of each box is written.
  bool* images = nullptr;
  const std::int64_t* image_off = nullptr;
  /// Keep the final facet planes (Hull3Output::planes).
  bool want_planes = false;
};

struct Hull3Output {
  /// Per segment: voxels of the box inside the hull (scikit-image's image_convex.sum()).
  std::vector<std::int64_t> count;
  /// Per segment: 1 when the voxels are coplanar (or fewer than 4): no hull, count 0, image false
  /// (Qhull fails; scikit-image warns and returns zeros).
  std::vector<std::uint8_t> flat;
  /// want_planes: device Hull3Plane array; segment k's nplanes[k] planes start at plane_off[k]. A
  /// voxel X (doubled: X = 2 * index) of the box is inside iff nx X0 + ny X1 + nz X2 <= d for all
  /// of them (the tolerance is folded into d).
  Array planes;
  std::vector<std::int64_t> plane_off, nplanes;
};

/// All segments' hulls at once: a few launches (face centres, hulls, masks) and one stream
/// synchronisation (the counts and statuses) whatever the number of segments.
void cuda_hull3d_segments(const Hull3Segments& seg, const Hull3Options& opts, Hull3Output& out, cudaStream_t stream);

/// regionprops' entry: for each region k, convex_hull_image(labels[lo_k:hi_k] == label[k]) (the
/// bbox crop, default options of regionprops: offset_coordinates, tolerance 1e-10) of the
/// contiguous 3-D int32 / int64 device label image. count[k] = image_convex.sum(); with `images`
/// (device bool, caller's buffer), region k's crop is written at images + crop_off[k]. lo / hi:
/// host, n * 3, hi exclusive. Synchronises the stream twice (the candidate counts, the results).
template <class L>
void cuda_hull3d_regions(const Array& labels, const std::vector<std::int64_t>& label,
                         const std::vector<std::int64_t>& lo, const std::vector<std::int64_t>& hi, bool* images,
                         const std::vector<std::int64_t>* crop_off, std::vector<std::int64_t>& count,
                         cudaStream_t stream);

}  // namespace cuskimage::morphology::detail
