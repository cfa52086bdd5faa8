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
// * Every point strictly above a facet belongs to the first such facet (its outside set: owner[i]);
//   the others are inside for good. The live list holds the points that still have an owner.
// * Rounds, until no live point is left: (1) each facet's farthest outside point (an atomic max of
//   (float distance, index)) is its proposal; (2) one thread per proposal (the first `pcap` in slot
//   order) walks the facets visible from its point (a breadth-first search over neighbours, at most
//   kHull3Vis facets; a larger region aborts the proposal this round) and records its horizon: V
//   the visible facets, N the facets beyond the horizon. (3) Proposals P, Q conflict when V_P meets
//   V_Q or N_Q (or V_Q meets N_P); a maximal non-conflicting set is chosen in up to kHull3MisIters
//   iterations (an undecided proposal wins when no lower undecided one conflicts with it, found by
//   atomic mins of the index over V and over N; the undecided ones conflicting with a winner drop
//   out). Non-conflicting insertions in parallel are the same as one after another: a facet of one
//   winner's cone cannot be visible from another (the visible region of a point is connected and
//   would have to reach the cone through the first winner's N, which the second's V avoids), and a
//   facet in two N's only gets two different edges relinked. The lowest unaborted proposal always
//   wins; when every proposal aborted, thread 0 inserts proposal 0 with the whole pool (no cap), so
//   each round inserts at least one point. (4) each winner replaces its visible facets by the cone
//   over its horizon (the visible region is a disk, so h <= v + 2 new facets for v visible: the new
//   facets reuse the visible slots and append at most 2, so 2 n + 16 slots suffice); (5) the outside
//   points of the replaced facets go to the first new facet they are above, or are inside (Barber
//   et al.: a point above a visible facet is inside the new hull or above a new facet); (6) the live
//   list is compacted. Visibility is strict (n.X > d), so points on a face never enter: coplanar
//   triangles may stay, which changes no plane. Ball(100) with offsets: ~55 k points, ~7.5 k
//   vertices inserted in ~90 rounds.
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
  Hull3Plane pl;       // outward; through v[0], v[1], v[2]
};

/// A horizon edge (a, b) of a visible facet, `out` the facet beyond it; `slot` of its new facet.
struct Hull3Edge {
  std::int32_t a, b, out, slot;
};

inline constexpr int kHull3Vis = 32;  // visible facets a proposal may take in the parallel step
inline constexpr int kHull3MisIters = 6;  // iterations of the winner selection per round

enum : int { kHull3Ok = 0, kHull3Flat = 1, kHull3Overflow = 2 };

// Per-hull scratch, closed-form in the hull's point offset o (points [o, o + n)) and index k, so a
// batch needs only its point offsets:
//   facets (Hull3Facet, best, claim, win; the proposal arrays): F = 2 n + 16 each, at 2 o + 16 k
//   visible-facet pool (int):                          F + kHull3Vis each, at 2 o + (16 + V) k
//   horizon pool (Hull3Edge):                          2 F + V + 4 each,   at 4 o + (36 + V) k
//   per point (owner, live0, live1):                   n each, at o
CUSK_HD constexpr std::int64_t hull3_facet_cap(std::int64_t n) { return 2 * n + 16; }
CUSK_HD constexpr std::int64_t hull3_facet_off(std::int64_t o, std::int64_t k) { return 2 * o + 16 * k; }
CUSK_HD constexpr std::int64_t hull3_vis_off(std::int64_t o, std::int64_t k) { return 2 * o + (16 + kHull3Vis) * k; }
CUSK_HD constexpr std::int64_t hull3_hor_off(std::int64_t o, std::int64_t k) { return 4 * o + (36 + kHull3Vis) * k; }

/// The whole batch's scratch (sizes from the totals N points, S hulls: the offsets above at
/// o = N, k = S).
struct Hull3Pools {
  Hull3Facet* fac;
  unsigned long long* best;
  std::int32_t *claim, *cln, *mark, *win;
  std::int32_t *pfacet, *ppoint, *pnvis, *pnhor, *pwin, *pextra;  // per proposal
  std::int32_t *owner, *live0, *live1;
  std::int32_t* vis;
  Hull3Edge* hor;
};

/// One hull's view of the pools.
struct Hull3Work {
  const Hull3Pt* pts;
  int n;
  Hull3Facet* fac;
  unsigned long long* best;
  std::int32_t *claim, *cln, *mark, *win;
  int fcap;
  std::int32_t *pfacet, *ppoint, *pnvis, *pnhor, *pwin, *pextra;
  int vcap, pcap;  // visible facets per proposal (2..kHull3Vis), proposals per round
  std::int32_t *owner, *live0, *live1;
  std::int32_t* vis;
  int viscap;
  Hull3Edge* hor;
  int horcap;
};

/// vcap < kHull3Vis only to test the abort and fallback paths.
CUSK_HD Hull3Work hull3_work(const Hull3Pools& p, const Hull3Pt* pts, std::int64_t o, std::int64_t n, std::int64_t k,
                             int vcap = kHull3Vis) {
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
  w.pcap = static_cast<int>(F / vcap > 1 ? F / vcap : 1);
  w.owner = p.owner + o;
  w.live0 = p.live0 + o;
  w.live1 = p.live1 + o;
  w.vis = p.vis + hull3_vis_off(o, k);
  w.viscap = static_cast<int>(F + kHull3Vis);
  w.hor = p.hor + hull3_hor_off(o, k);
  w.horcap = static_cast<int>(2 * F + kHull3Vis + 4);
  return w;
}

/// Block-shared state (the executor's threads all see one).
struct Hull3Shared {
  unsigned long long key0, key1, key2, key3;
  int idx0, idx1, idx2, idx3;
  int status, nf, nwin, fb_extra;
  int undecided[2];
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
CUSK_HD int hull3_visible(const Hull3Facet* fac, Hull3Pt q, int seed, std::int32_t* vis, int vcap, Hull3Edge* hor,
                          int hcap, int& nh) {
  int nv = 0;
  nh = 0;
  vis[nv++] = seed;
  for (int i = 0; i < nv; ++i) {
    const int g = vis[i];
    for (int e = 0; e < 3; ++e) {
      const int h = fac[g].nb[e];
      bool seen = false;
      for (int j = 0; j < nv && !seen; ++j) seen = vis[j] == h;
      if (seen) continue;
      if (hull3_eval(fac[h].pl, q) > 0) {
        if (nv == vcap) return -1;
        vis[nv++] = h;
      } else {
        if (nh == hcap) return -1;
        hor[nh++] = Hull3Edge{fac[g].v[e], fac[g].v[e == 2 ? 0 : e + 1], h, -1};
      }
    }
  }
  return nv;
}

/// Inserts proposal k (a winner): the cone over its horizon, new facets in its visible slots then
/// at `extra`, ...; marks win[] of the replaced facets. False when the horizon is not a cycle.
CUSK_HD bool hull3_insert(const Hull3Work& w, int k, int extra) {
  const int nv = w.pnvis[k], nh = w.pnhor[k], q = w.ppoint[k];
  const std::int32_t* vis = w.vis + k * w.vcap;
  Hull3Edge* hor = w.hor + k * (w.vcap + 2);
  for (int j = 0; j < nv; ++j) w.win[vis[j]] = k;
  for (int j = 0; j < nh; ++j) hor[j].slot = j < nv ? vis[j] : extra + (j - nv);
  bool ok = true;
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
    Hull3Facet& f = w.fac[hor[j].slot];
    f.v[0] = a;
    f.v[1] = b;
    f.v[2] = q;
    f.nb[0] = hor[j].out;
    f.nb[1] = hor[succ].slot;
    f.nb[2] = hor[pred].slot;
    f.pl = hull3_plane(w.pts[a], w.pts[b], w.pts[q]);
    Hull3Facet& o = w.fac[hor[j].out];
    for (int m = 0; m < 3; ++m)
      if (o.v[m] == b && o.v[m == 2 ? 0 : m + 1] == a) o.nb[m] = hor[j].slot;
  }
  for (int j = nh; j < nv; ++j) w.fac[vis[j]].v[0] = -1;
  w.owner[q] = -1;
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
  const Hull3Plane base = hull3_plane(P[i0], P[i1], P[sh.idx2]);
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
  const int t = ex.tid(), T = ex.size(), n = w.n;
  const Hull3Pt* P = w.pts;
  if (t == 0) {
    sh.status = kHull3Flat;
    sh.nf = 0;
    sh.nwin = 0;
    sh.fb_extra = 0;
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
      Hull3Plane pl = hull3_plane(P[a], P[b], P[c]);
      if (hull3_eval(pl, P[tet[f][3]]) > 0) {
        const int s = b;
        b = c;
        c = s;
        pl = hull3_plane(P[a], P[b], P[c]);
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
  ex.sync();
  for (int i = t; i < n; i += T) {
    int o = -1;
    for (int f = 0; f < 4 && o < 0; ++f)
      if (hull3_eval(w.fac[f].pl, P[i]) > 0) o = f;
    w.owner[i] = o;
  }
  ex.sync();
  std::int32_t* live = w.live0;
  std::int32_t* next = w.live1;
  int nlive = hull3_scan(
      ex, n, [&](int i) { return w.owner[i] >= 0 ? 1 : 0; },
      [&](int i, int at, int v) {
        if (v) live[at] = i;
      });
  int nf = 4;
  ex.sync();
  // ---- rounds
  while (nlive > 0) {
    for (int s = t; s < nf; s += T) {
      w.best[s] = 0;
      w.claim[s] = INT_MAX;
      w.cln[s] = INT_MAX;
      w.mark[s] = 0;
      w.win[s] = -1;
    }
    if (t == 0) sh.nwin = 0;
    ex.sync();
    for (int i = t; i < nlive; i += T) {  // (1) farthest outside point of each facet
      const int p = live[i], f = w.owner[p];
      const float d = static_cast<float>(hull3_eval(w.fac[f].pl, P[p]));  // >= 1
      ex.amax64(&w.best[f], (static_cast<unsigned long long>(hull3_float_bits(d)) << 32) | static_cast<unsigned>(p));
    }
    ex.sync();
    const int nall = hull3_scan(
        ex, nf, [&](int s) { return w.fac[s].v[0] >= 0 && w.best[s] != 0 ? 1 : 0; },
        [&](int s, int at, int v) {
          if (v && at < w.pcap) w.pfacet[at] = s;
        });
    const int nprop = nall < w.pcap ? nall : w.pcap;
    ex.sync();
    for (int k = t; k < nprop; k += T) {  // (2) visible regions
      const int f = w.pfacet[k], q = static_cast<int>(w.best[f] & 0xffffffffu);
      int nh = 0;
      w.ppoint[k] = q;
      w.pnvis[k] = hull3_visible(w.fac, P[q], f, w.vis + k * w.vcap, w.vcap, w.hor + k * (w.vcap + 2), w.vcap + 2, nh);
      w.pnhor[k] = nh;
    }
    ex.sync();
    // (3) a maximal set of proposals no two of which conflict (see the header), in a few
    // iterations: an undecided proposal wins when no lower undecided one conflicts with it (claims:
    // atomic mins of the index over V in claim[], over N in cln[]); the undecided ones that conflict
    // with a winner (marks: 2 on a winner's V, 1 on its N) drop out.
    for (int k = t; k < nprop; k += T) {
      w.pwin[k] = w.pnvis[k] >= 0 ? 0 : 2;  // 0 undecided, 1 won, 2 out
      if (w.pnvis[k] < 0) ex.aadd(&sh.aborted, 1);
    }
    for (int it = 0; it < kHull3MisIters; ++it) {
      if (t == 0) sh.undecided[it & 1] = 0;
      ex.sync();
      for (int k = t; k < nprop; k += T) {
        if (w.pwin[k] != 0) continue;
        const std::int32_t* vis = w.vis + k * w.vcap;
        const Hull3Edge* hor = w.hor + k * (w.vcap + 2);
        for (int j = 0; j < w.pnvis[k]; ++j) {
          ex.amax(&w.claim[vis[j]], INT_MAX);
          ex.amax(&w.cln[vis[j]], INT_MAX);
        }
        for (int j = 0; j < w.pnhor[k]; ++j) {
          ex.amax(&w.claim[hor[j].out], INT_MAX);
          ex.amax(&w.cln[hor[j].out], INT_MAX);
        }
      }
      ex.sync();
      for (int k = t; k < nprop; k += T) {
        if (w.pwin[k] != 0) continue;
        const std::int32_t* vis = w.vis + k * w.vcap;
        const Hull3Edge* hor = w.hor + k * (w.vcap + 2);
        for (int j = 0; j < w.pnvis[k]; ++j) ex.amin(&w.claim[vis[j]], k);
        for (int j = 0; j < w.pnhor[k]; ++j) ex.amin(&w.cln[hor[j].out], k);
      }
      ex.sync();
      for (int k = t; k < nprop; k += T) {
        if (w.pwin[k] != 0) continue;
        const std::int32_t* vis = w.vis + k * w.vcap;
        const Hull3Edge* hor = w.hor + k * (w.vcap + 2);
        bool won = true;
        for (int j = 0; j < w.pnvis[k] && won; ++j) won = w.claim[vis[j]] == k && w.cln[vis[j]] > k;
        for (int j = 0; j < w.pnhor[k] && won; ++j) won = w.claim[hor[j].out] > k;
        if (!won) continue;
        w.pwin[k] = 1;
        ex.aadd(&sh.nwin, 1);
        for (int j = 0; j < w.pnvis[k]; ++j) ex.amax(&w.mark[vis[j]], 2);
        for (int j = 0; j < w.pnhor[k]; ++j) ex.amax(&w.mark[hor[j].out], 1);
      }
      ex.sync();
      for (int k = t; k < nprop; k += T) {
        if (w.pwin[k] != 0) continue;
        const std::int32_t* vis = w.vis + k * w.vcap;
        const Hull3Edge* hor = w.hor + k * (w.vcap + 2);
        bool hit = false;
        for (int j = 0; j < w.pnvis[k] && !hit; ++j) hit = w.mark[vis[j]] != 0;
        for (int j = 0; j < w.pnhor[k] && !hit; ++j) hit = w.mark[hor[j].out] == 2;
        if (hit)
          w.pwin[k] = 2;
        else
          ex.aadd(&sh.undecided[it & 1], 1);
      }
      ex.sync();
      if (sh.undecided[it & 1] == 0) break;
    }
    int extra = hull3_scan(
        ex, nprop, [&](int k) { return w.pwin[k] == 1 && w.pnhor[k] > w.pnvis[k] ? w.pnhor[k] - w.pnvis[k] : 0; },
        [&](int k, int at, int) { w.pextra[k] = at; });
    ex.sync();
    const bool fallback = sh.nwin == 0;
    if (fallback) {  // every proposal aborted: proposal 0 alone, with the whole pools
      if (t == 0) {
        int nh = 0;
        const int nv = hull3_visible(w.fac, P[w.ppoint[0]], w.pfacet[0], w.vis, w.viscap, w.hor, w.horcap, nh);
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
      if (w.pwin[k] == 1 && !hull3_insert(w, k, nf + w.pextra[k])) ex.amax(&sh.status, kHull3Overflow);
    ex.sync();
    if (sh.status != kHull3Ok) break;
    for (int i = t; i < nlive; i += T) {  // (5) outside points of the replaced facets
      const int p = live[i], o = w.owner[p];
      if (o < 0) continue;
      const int k = w.win[o];
      if (k < 0) continue;
      const Hull3Edge* hor = w.hor + k * (w.vcap + 2);
      int to = -1;
      for (int j = 0; j < w.pnhor[k] && to < 0; ++j)
        if (hull3_eval(w.fac[hor[j].slot].pl, P[p]) > 0) to = hor[j].slot;
      w.owner[p] = to;
    }
    ex.sync();
    nlive = hull3_scan(  // (6)
        ex, nlive, [&](int i) { return w.owner[live[i]] >= 0 ? 1 : 0; },
        [&](int i, int at, int v) {
          if (v) next[at] = live[i];
        });
    std::int32_t* s = live;
    live = next;
    next = s;
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

/// Collective, after hull3_build: the hull's planes with the tolerance folded in (slot order) into
/// planes[0, *nplanes); a flat hull writes 0.
template <class Ex>
CUSK_HD void hull3_finalize(Ex& ex, const Hull3Shared& sh, const Hull3Work& w, Hull3Plane* planes,
                            std::int32_t* nplanes, double tolerance) {
  const int nf = sh.status == kHull3Ok ? sh.nf : 0;
  const int m = hull3_scan(
      ex, nf, [&](int s) { return w.fac[s].v[0] >= 0 ? 1 : 0; },
      [&](int s, int at, int v) {
        if (v) planes[at] = hull3_fold(w.fac[s].pl, tolerance);
      });
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
  auto push = [&](std::int32_t* st, int& m, std::int32_t x, std::int64_t y, bool lower) {
    const std::int32_t* ys = lower ? lo : hi;
    while (m >= 2) {
      const HullPt a{st[m - 2], ys[line0 + st[m - 2] * step]}, b{st[m - 1], ys[line0 + st[m - 1] * step]};
      const std::int64_t c = cross3(a, b, HullPt{x, y});
      if (lower ? c <= 0 : c >= 0)
        --m;
      else
        break;
    }
    st[m++] = x;
  };
  int ml = 0, mu = 0;
  for (std::int64_t x = 0; x < len; ++x) {
    const std::int64_t line = line0 + x * step;
    flag[line] = 0;
    const std::int32_t a = lo[line], b = hi[line];
    if (a > b) continue;
    push(low, ml, static_cast<std::int32_t>(x), a, true);
    push(up, mu, static_cast<std::int32_t>(x), b, false);
  }
  for (int i = 0; i < ml; ++i) flag[line0 + std::int64_t(low[i]) * step] |= 1;
  for (int i = 0; i < mu; ++i) flag[line0 + std::int64_t(up[i]) * step] |= 2;
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
        for (int j = 0; j < m && z0 <= z1; ++j) hull3_clip(sm.sp[j], p, r, z0, z1);
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
