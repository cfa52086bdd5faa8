// The device 3-D quickhull's rounds (the account is in src/morphology/convex_hull3d.hpp): visible
// regions and horizons, cone insertion, the initial simplex, hull3_build (one named step per phase
// of a round) and the final planes. __host__ __device__ over an executor, so the tests run the
// same source on the host.
#pragma once

#include <climits>
#include <cstdint>

#include "src/core/hd.hpp"
#include "src/morphology/hull3_state.hpp"

namespace cuskimage::morphology::detail {

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

/// Collective, thread 0 writing: the initial tetrahedron's facets from sh.idx0..3: face (i0, i1,
/// i2) and the three through i3, each turned away from the fourth vertex, then neighbours by
/// matching reversed edges.
CUSK_HD void hull3_tetrahedron(const Hull3Shared& sh, const Hull3Work& w) {
  const Hull3Pt* P = w.pts;
  const int i0 = sh.idx0, i1 = sh.idx1, i2 = sh.idx2, i3 = sh.idx3;
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
}

/// Collective: the statistics reset, the initial simplex (of base first, when given) and its four
/// facets with their slot state; false when the hull is flat (sh.status kHull3Flat).
template <class Ex>
CUSK_HD bool hull3_start(Ex& ex, Hull3Shared& sh, const Hull3Work& w, const Hull3Pt* base, int nbase) {
  const int t = ex.tid(), T = ex.size();
  if (t == 0) {
    sh.status = kHull3Flat;
    sh.nf = 0;
    sh.nwin = 0;
    sh.fb_extra = 0;
    sh.alive = 0;
    for (int f = 0; f < 4; ++f) sh.best4[f] = 0;
    sh.rounds = sh.inserted = sh.aborted = sh.fallbacks = 0;
  }
  if (base && !hull3_simplex(ex, sh, base, nbase)) return false;
  if (!hull3_simplex(ex, sh, w.pts, w.n)) return false;
  if (t == 0) {
    hull3_tetrahedron(sh, w);
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
  return true;
}

/// Collective: the live entries (point, owner): every point with the first facet of the tetrahedron
/// it is strictly above (-1: inside for good), and each facet's farthest point (reduced per thread,
/// then in shared).
template <class Ex>
CUSK_HD void hull3_seed_entries(Ex& ex, Hull3Shared& sh, const Hull3Work& w) {
  using u64 = unsigned long long;
  const int t = ex.tid(), T = ex.size(), n = w.n;
  const Hull3Pt* P = w.pts;
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
}

/// Collective, steps (1) and (2) of a round: the proposals (the facets with outside points, in slot
/// order; best[] is kept exact: a facet's outside set only changes when the facet is replaced) and
/// their visible regions. Returns the number of proposals; `one`: proposal k = t alone, its V and N
/// lists stay in the thread's scratch.
template <class Ex>
CUSK_HD int hull3_propose(Ex& ex, Hull3Shared& sh, const Hull3Work& w, int nf, bool& one, std::int32_t* scratch) {
  const int t = ex.tid(), T = ex.size();
  const int nall = hull3_compact(
      ex, nf, [&](int s) { return w.fac[s].v[0] >= 0 && w.best[s] != 0; },
      [&](int s, int at) {
        if (at < w.pcap) w.pfacet[at] = s;
      });
  const int nprop = nall < w.pcap ? nall : w.pcap;
  one = nprop <= T;
  if (t == 0) {
    sh.nwin = 0;
    sh.alive = 0;
    sh.undecided[0] = 0;
  }
  ex.sync();
  for (int k = t; k < nprop; k += T) {
    const int f = w.pfacet[k], q = static_cast<int>(w.best[f] & 0xffffffffu);
    int nh = 0;
    w.ppoint[k] = q;
    const int nv = hull3_visible<true>(w.fac, w.pts[q], f, w.vis + k * w.vcap, w.vcap, w.hor + k * (w.vcap + 2),
                                       w.vcap + 2, nh, scratch);
    w.pnvis[k] = nv;
    w.pnhor[k] = nh;
    if (one && nv >= 0)  // V is in scratch[0, nv); N next to it, for the winner selection
      for (int j = 0; j < nh; ++j) scratch[kHull3Vis + j] = w.hor[k * (w.vcap + 2) + j].out;
    w.pwin[k] = w.pnvis[k] >= 0 ? 0 : 2;  // 0 undecided, 1 won, 2 out
    if (w.pnvis[k] < 0) ex.aadd(&sh.aborted, 1);
  }
  ex.sync();
  return nprop;
}

/// Collective, step (3) of round rd: a maximal set of proposals no two of which conflict (see the
/// header), in a few iterations of two phases: (A) an undecided proposal that meets a winner of
/// this round (marks: rd|2 on a winner's V, rd|1 on its N) drops out, the others claim their V
/// (claim[]) and N (cln[]) by an atomic max of (iteration, ~index); (B) an undecided proposal wins
/// when no lower one claimed its V or N, or claimed its N as V.
template <class Ex>
CUSK_HD void hull3_select_winners(Ex& ex, Hull3Shared& sh, const Hull3Work& w, int nprop, bool one, int rd,
                                  const std::int32_t* scratch) {
  using u64 = unsigned long long;
  const int t = ex.tid(), T = ex.size();
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
}

/// Collective, when no proposal won: proposal 0 alone, with the whole pools. Returns its extra
/// slots, or -1 when its visible region overflows the pools.
template <class Ex>
CUSK_HD int hull3_fallback(Ex& ex, Hull3Shared& sh, const Hull3Work& w, std::int32_t* scratch) {
  if (ex.tid() == 0) {
    int nh = 0;
    const int nv =
        hull3_visible<false>(w.fac, w.pts[w.ppoint[0]], w.pfacet[0], w.vis, w.viscap, w.hor, w.horcap, nh, scratch);
    w.pnvis[0] = nv;
    w.pnhor[0] = nh;
    w.pwin[0] = nv >= 0 ? 1 : 0;
    w.pextra[0] = 0;
    sh.fb_extra = nv < 0 ? -1 : (nh > nv ? nh - nv : 0);
    ++sh.fallbacks;
  }
  ex.sync();
  return sh.fb_extra;
}

/// Collective, step (5): entries whose facet was replaced go to the first new facet of its winner
/// they are above (Barber et al.: a point above a visible facet is inside the new hull or above a
/// new facet), or are inside for good; the others keep their facet and its farthest point. Eight
/// entries a thread at a time, loads first (one pass, coalesced, instead of per-point
/// indirections). Adds the entries that keep an owner to sh.alive.
template <class Ex>
CUSK_HD void hull3_reassign(Ex& ex, Hull3Shared& sh, const Hull3Work& w, const std::int32_t* lp, std::int32_t* lf,
                            int nlive) {
  constexpr int U = 8;
  const int t = ex.tid(), T = ex.size();
  const Hull3Pt* P = w.pts;
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

/// Collective: the hull of w.pts[0, n), or none (kHull3Flat) when base[0, nbase) (given: the
/// voxels whose face centres w.pts are, as scikit-image's first Qhull) or w.pts spans no volume.
/// sh.status: kHull3Ok, kHull3Flat or kHull3Overflow (a scratch bound was exceeded: a bug,
/// reported as an error); sh.nf: slots used.
template <class Ex>
CUSK_HD void hull3_build(Ex& ex, Hull3Shared& sh, const Hull3Work& w, const Hull3Pt* base = nullptr, int nbase = 0) {
  const int t = ex.tid(), T = ex.size(), n = w.n;
  std::int32_t scratch[kHull3Scratch];  // thread-local (hull3_visible, hull3_insert)
  if (!hull3_start(ex, sh, w, base, nbase)) return;
  hull3_seed_entries(ex, sh, w);
  std::int32_t *lp = w.lp0, *lf = w.lf0, *np = w.lp1, *nq = w.lf1;
  int nlive = n, nf = 4, rd = 0;
  // ---- rounds, while some entry has an owner (its facet then has a proposal)
  while (sh.alive > 0) {
    ++rd;
    bool one = false;
    const int nprop = hull3_propose(ex, sh, w, nf, one, scratch);  // (1), (2)
    hull3_select_winners(ex, sh, w, nprop, one, rd, scratch);      // (3)
    int extra = hull3_scan(
        ex, nprop, [&](int k) { return w.pwin[k] == 1 && w.pnhor[k] > w.pnvis[k] ? w.pnhor[k] - w.pnvis[k] : 0; },
        [&](int k, int at, int) { w.pextra[k] = at; });
    ex.sync();
    const bool fallback = sh.nwin == 0;
    if (fallback) {  // every proposal aborted
      extra = hull3_fallback(ex, sh, w, scratch);
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
    hull3_reassign(ex, sh, w, lp, lf, nlive);  // (5)
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

}  // namespace cuskimage::morphology::detail
