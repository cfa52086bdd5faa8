// The device 3-D convex hull's voxel side (src/morphology/convex_hull3d.hpp): the planar filters
// that pick the candidate points (the first / last voxels of each line that can be hull vertices)
// and the tiled mask of the voxels inside the final planes.
#pragma once

#include <cstdint>

#include "src/core/hd.hpp"
#include "src/morphology/hull3_state.hpp"

namespace cuskimage::morphology::detail {

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

}  // namespace cuskimage::morphology::detail
