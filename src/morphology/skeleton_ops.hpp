// Per-pixel pieces of skeletonize (Zhang, Lee) and thin shared by the CPU backend and the CUDA
// kernels, and the backend entry points. Tables are built once, constexpr, from their definitions
// (except Zhang's, which is scikit-image's own table: it is not the textbook Zhang-Suen rule).
#pragma once

#include <array>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::morphology::detail {

// ---- Zhang (scikit-image's _fast_skeletonize) ---------------------------------------------------
// Index: NW=1, N=2, NE=4, E=8, SE=16, S=32, SW=64, W=128. Value: 1 = removable in the first
// sub-iteration, 2 = in the second, 3 = in both. This is scikit-image's lookup table (data, not
// derivable from the Zhang-Suen conditions: 25 entries differ from them).
inline constexpr std::array<std::uint8_t, 256> kZhangLut = {
    0, 0, 0, 1, 0, 0, 1, 3, 0, 0, 3, 1, 1, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 2, 0, 3, 0, 3, 3,
    0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 3, 0, 2, 2,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    2, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 3, 0, 2, 0,
    0, 0, 3, 1, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
    3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    2, 3, 1, 3, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    2, 3, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 3, 3, 0, 1, 0, 0, 0, 0, 2, 2, 0, 0, 2, 0, 0, 0};

/// Zhang's code of the 8-neighbourhood, v(dr, dc) in {0, 1}.
template <class V>
CUSK_HD unsigned zhang_code(const V& v) {
  return v(-1, -1) | v(-1, 0) << 1 | v(-1, 1) << 2 | v(0, 1) << 3 | v(1, 1) << 4 | v(1, 0) << 5 |
         v(1, -1) << 6 | v(0, -1) << 7;
}
/// Whether a foreground pixel with neighbourhood `code` is removed in sub-iteration `pass` (0, 1).
CUSK_HD bool zhang_removes(std::uint8_t lut_value, int pass) { return (lut_value & (1u << pass)) != 0; }

// ---- thin (Guo & Hall 1989, as scikit-image's _generate_thin_luts) -------------------------------
// Index as ndi.correlate with [[8, 4, 2], [16, 0, 1], [32, 64, 128]]: bit 0 = E, then counter-
// clockwise NE, N, NW, W, SW, S, SE.
template <class V>
CUSK_HD unsigned thin_code(const V& v) {
  return v(0, 1) | v(-1, 1) << 1 | v(-1, 0) << 2 | v(-1, -1) << 3 | v(0, -1) << 4 | v(1, -1) << 5 |
         v(1, 0) << 6 | v(1, 1) << 7;
}

/// The two deletion tables G123 and G123' (Guo & Hall's conditions G1, G2, G3 / G3').
struct ThinLuts {
  std::array<bool, 256> g123{};
  std::array<bool, 256> g123p{};
};

constexpr ThinLuts make_thin_luts() {
  ThinLuts t{};
  for (unsigned n = 0; n < 256; ++n) {
    bool b[8] = {};
    for (int i = 0; i < 8; ++i) b[i] = (n >> i) & 1u;
    // G1: exactly one 4-connected "0 then 1" transition around the pixel (the crossing number).
    int x = 0;
    for (int i = 0; i < 8; i += 2)
      if (!b[i] && (b[i + 1] || b[(i + 2) % 8])) ++x;
    // G2: 2 <= min(n1, n2) <= 3 (end points are kept, interior points are not deleted).
    int n1 = 0, n2 = 0;
    for (int k = 1; k < 8; k += 2) {
      if (b[k] || b[k - 1]) ++n1;
      if (b[k] || b[(k + 1) % 8]) ++n2;
    }
    const int m = n1 < n2 ? n1 : n2;
    const bool g12 = x == 1 && (m == 2 || m == 3);
    // G3 / G3': the sub-iteration's direction condition.
    const bool g3 = !((b[1] || b[2] || !b[7]) && b[0]);
    const bool g3p = !((b[5] || b[6] || !b[3]) && b[4]);
    t.g123[n] = g12 && g3;
    t.g123p[n] = g12 && g3p;
  }
  return t;
}
inline constexpr ThinLuts kThinLuts = make_thin_luts();

// ---- Lee (scikit-image's _compute_thin_image) ----------------------------------------------------
// A 3x3x3 neighbourhood is a 27-bit mask, bit 9*(dp+1) + 3*(dr+1) + (dc+1); the centre is bit 13.

/// 8 x the change of the (26, 6) Euler characteristic contributed by one octant (the 2x2x2 block of
/// voxels around one corner of the centre voxel) when the centre voxel is removed, for each state of
/// the block's 7 other voxels. The characteristic is that of the union of closed unit cubes, split
/// over lattice vertices: a vertex counts 1 if any of its 8 cubes is set, each of its 6 edges -1/2
/// (shared by 2 vertices, present if any of its 4 cubes is set), each of its 12 faces +1/4 (present
/// if either of its 2 cubes is set), each cube -1/8. Lee et al.'s table of delta G_26.
constexpr std::array<std::int8_t, 128> make_euler_lut() {
  // Block voxel v = a*4 + b*2 + c, (a, b, c) in {0, 1}^3 around the shared vertex; v = 0 is the centre.
  auto f = [](unsigned cfg) {
    int s = cfg ? 8 : 0;
    for (int axis = 0; axis < 3; ++axis)
      for (int side = 0; side < 2; ++side) {  // the edge leaving the vertex along axis, to side
        bool any = false;
        for (unsigned v = 0; v < 8; ++v)
          if (((v >> (2 - axis)) & 1u) == unsigned(side) && ((cfg >> v) & 1u)) any = true;
        if (any) s -= 4;
      }
    for (int axis = 0; axis < 3; ++axis)  // faces perpendicular to axis: pairs differing in it
      for (unsigned v = 0; v < 8; ++v)
        if (((v >> (2 - axis)) & 1u) == 0) {
          const unsigned w = v | (1u << (2 - axis));
          if (((cfg >> v) & 1u) || ((cfg >> w) & 1u)) s += 2;
        }
    for (unsigned v = 0; v < 8; ++v)
      if ((cfg >> v) & 1u) s -= 1;
    return s;
  };
  std::array<std::int8_t, 128> lut{};
  for (unsigned others = 0; others < 128; ++others) {
    const unsigned cfg = others << 1;
    lut[others] = static_cast<std::int8_t>(f(cfg | 1u) - f(cfg));
  }
  return lut;
}
inline constexpr std::array<std::int8_t, 128> kEulerLut = make_euler_lut();

CUSK_HD constexpr int nb_bit(int dp, int dr, int dc) { return 9 * (dp + 1) + 3 * (dr + 1) + (dc + 1); }

/// For each of the 27 positions, the mask of its 26-neighbours inside the 3x3x3 block (itself and
/// the centre excluded).
struct NbAdjacency {
  std::array<std::uint32_t, 27> adj{};
};
constexpr NbAdjacency make_nb_adjacency() {
  NbAdjacency a{};
  for (int i = 0; i < 27; ++i)
    for (int j = 0; j < 27; ++j) {
      if (i == j || i == 13 || j == 13) continue;
      const int dp = i / 9 - j / 9, dr = (i / 3) % 3 - (j / 3) % 3, dc = i % 3 - j % 3;
      if (dp >= -1 && dp <= 1 && dr >= -1 && dr <= 1 && dc >= -1 && dc <= 1) a.adj[i] |= 1u << j;
    }
  return a;
}
inline constexpr NbAdjacency kNbAdjacency = make_nb_adjacency();

/// Lee's simplicity of the centre of `nb` (scikit-image's is_simple_point): its 26-neighbours form
/// at most one 26-connected component (conditions 2 and 3 of Lee et al.).
CUSK_HD bool lee_simple(std::uint32_t nb, const std::uint32_t* adj) {
  const std::uint32_t others = nb & ~(1u << 13);
  if (others == 0) return true;
  // Flood fill the component of the lowest neighbour.
  std::uint32_t comp = others & (~others + 1u), frontier = comp;
  while (frontier) {
    std::uint32_t grow = 0;
    for (std::uint32_t f = frontier; f; f &= f - 1) {
#if defined(__CUDA_ARCH__)
      grow |= adj[__ffs(f) - 1];
#else
      grow |= adj[__builtin_ctz(f)];
#endif
    }
    frontier = grow & others & ~comp;
    comp |= frontier;
  }
  return comp == others;
}

/// Lee's candidate test for the (foreground, border) centre of `nb`: not an end point (exactly one
/// 26-neighbour), Euler invariant (the octants' changes sum to 0) and simple. (The sequential
/// re-check of the candidates tests simplicity only, as scikit-image does.)
CUSK_HD bool lee_deletable(std::uint32_t nb, const std::int8_t* euler, const std::uint32_t* adj) {
  const std::uint32_t others = nb & ~(1u << 13);
#if defined(__CUDA_ARCH__)
  const int count = __popc(others);
#else
  const int count = __builtin_popcount(others);
#endif
  if (count == 1) return false;
  int e = 0;
  for (int o = 0; o < 8; ++o) {
    const int sp = (o & 4) ? 1 : -1, sr = (o & 2) ? 1 : -1, sc = (o & 1) ? 1 : -1;
    unsigned cfg = 0;
    for (unsigned v = 1; v < 8; ++v) {
      const int dp = (v & 4) ? sp : 0, dr = (v & 2) ? sr : 0, dc = (v & 1) ? sc : 0;
      if ((nb >> nb_bit(dp, dr, dc)) & 1u) cfg |= 1u << (v - 1);
    }
    e += euler[cfg];
  }
  return e == 0 && lee_simple(nb, adj);
}

// ---- convex hull (2-D, doubled integer coordinates: X = 2 * row, Y = 2 * col) --------------------

struct HullPt {
  std::int64_t x, y;
};

CUSK_HD std::int64_t cross3(HullPt o, HullPt a, HullPt b) {
  return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

/// Appends p to a monotone chain held in `st[0..n)`: `lower` keeps the chain convex from below
/// (counter-clockwise turns), else from above. Collinear points are dropped. Points must come in
/// strictly increasing x.
CUSK_HD void chain_push(HullPt* st, std::int64_t& n, HullPt p, bool lower) {
  while (n >= 2) {
    const std::int64_t c = cross3(st[n - 2], st[n - 1], p);
    if (lower ? c <= 0 : c >= 0)
      --n;
    else
      break;
  }
  st[n++] = p;
}

/// floor(a / b) and ceil(a / b) for b > 0.
CUSK_HD std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
CUSK_HD std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return -floor_div(-a, b); }

/// Index i of the chain edge [i, i+1] holding x (chain x strictly increasing, x inside its range).
CUSK_HD std::int64_t chain_edge(const HullPt* c, std::int64_t n, std::int64_t x) {
  std::int64_t lo = 0, hi = n - 1;  // c[lo].x <= x, find the last such lo < n - 1
  while (hi - lo > 1) {
    const std::int64_t mid = (lo + hi) / 2;
    if (c[mid].x <= x) lo = mid; else hi = mid;
  }
  return lo;
}

/// Columns [c0, c1] of row r whose centres are in the hull bounded below (in y) by chain `lo` and
/// above by chain `hi` (both spanning the same x range, >= 2 points each); `strict` drops the
/// boundary. Empty rows return c0 > c1.
CUSK_HD void hull_row(const HullPt* lo, std::int64_t nlo, const HullPt* hi, std::int64_t nhi, std::int64_t r,
                      bool strict, std::int64_t& c0, std::int64_t& c1) {
  c0 = 1;
  c1 = 0;
  const std::int64_t x = 2 * r;
  if (x < lo[0].x || x > lo[nlo - 1].x) return;
  if (strict && (x == lo[0].x || x == lo[nlo - 1].x)) return;
  std::int64_t i = chain_edge(lo, nlo, x);
  std::int64_t dx = lo[i + 1].x - lo[i].x;
  const std::int64_t nl = lo[i].y * dx + (lo[i + 1].y - lo[i].y) * (x - lo[i].x);  // y_lo = nl / dx
  c0 = strict ? floor_div(nl, 2 * dx) + 1 : ceil_div(nl, 2 * dx);
  i = chain_edge(hi, nhi, x);
  dx = hi[i + 1].x - hi[i].x;
  const std::int64_t nh = hi[i].y * dx + (hi[i + 1].y - hi[i].y) * (x - hi[i].x);
  c1 = strict ? ceil_div(nh, 2 * dx) - 1 : floor_div(nh, 2 * dx);
}

/// The candidate points at x of a set of rows given by per-row extreme columns (rows without
/// foreground have lo > hi): with offsets, a row r with columns [a, b] gives y = 2a - 1 / 2b + 1 at
/// x = 2r and y = 2a / 2b at x = 2r +- 1; without, y = 2a / 2b at x = 2r. Rows are relative to
/// r0; x runs over [2 r0 - 1, 2 (r0 + n) - 1]. Returns false when nothing lies at x.
template <class RowLo, class RowHi>
CUSK_HD bool hull_candidates(const RowLo& rlo, const RowHi& rhi, std::int64_t n, std::int64_t r0, bool offset,
                             std::int64_t x, std::int64_t& ymin, std::int64_t& ymax) {
  bool any = false;
  auto take = [&](std::int64_t lo_y, std::int64_t hi_y) {
    if (!any || lo_y < ymin) ymin = lo_y;
    if (!any || hi_y > ymax) ymax = hi_y;
    any = true;
  };
  const std::int64_t xr = x - 2 * r0;
  if ((xr & 1) == 0) {
    const std::int64_t r = xr / 2;
    if (r >= 0 && r < n && rlo(r) <= rhi(r)) take(2 * rlo(r) - (offset ? 1 : 0), 2 * rhi(r) + (offset ? 1 : 0));
  } else if (offset) {
    const std::int64_t ra = (xr - 1) / 2, rb = ra + 1;  // x lies between rows ra and rb (xr - 1 is even)
    if (ra >= 0 && ra < n && rlo(ra) <= rhi(ra)) take(2 * rlo(ra), 2 * rhi(ra));
    if (rb >= 0 && rb < n && rlo(rb) <= rhi(rb)) take(2 * rlo(rb), 2 * rhi(rb));
  }
  return any;
}

// ---- backend entry points (kernels/morphology/*.cu) -----------------------------------------------

/// In place on a contiguous uint8 0/1 image (rows, cols): Zhang's skeleton (thin == false) or
/// Guo-Hall thinning with at most max_iter iterations (0: until stable).
void cuda_zhang_thin(Array& img, bool thin, std::int64_t max_iter, const Stream& stream);

/// In place on a contiguous uint8 0/1 volume (planes, rows, cols): Lee's skeleton, exactly as the
/// sequential CPU algorithm (kernels/morphology/skeleton_lee.cu).
void cuda_lee(Array& vol, const Stream& stream);

/// out (bool, contiguous, rows x cols) = convex_hull_image of contiguous `img` (dtype T).
template <class T>
void cuda_convex_hull_image(const Array& img, Array& out, bool offset, bool include_borders, const Stream& stream);
/// out (bool, contiguous) = convex_hull_object of contiguous `img` (dtype T).
template <class T>
void cuda_convex_hull_object(const Array& img, Array& out, int connectivity, const Stream& stream);

}  // namespace cuskimage::morphology::detail
