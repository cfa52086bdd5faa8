// Device side of CUDA measure.label (kernels/measure/label.cu runs it). The design, its floor and
// its traffic are described there; this header holds the kernels and the per-tile labelling they
// share.
//
// A tile is 32 x TY x TZ pixels (TY * TZ = 32 rows) and belongs to one warp. Lane x owns column x
// while pixels are loaded and written; lane r owns row r while runs are joined. A row is a 32-bit
// mask (bit x = pixel x) and a run is a maximal stretch of foreground pixels of one key in a row;
// runs are numbered (ordinals) in raster order, and a union-find over runs in shared memory, with
// the smaller ordinal always the root, names every tile component by its first run, so a tile
// component's root pixel is its first pixel in raster order, which is also its smallest global
// index (inside a tile, raster order is the image's raster order).
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/filters/ccl.cuh"
#include "src/measure/label.hpp"

namespace cuskimage::measure::detail::lbl {

using cuskimage::filters::detail::ccl_find;
using cuskimage::filters::detail::ccl_find_halve;
using cuskimage::filters::detail::ccl_union;

constexpr unsigned kFull = 0xffffffffu;

/// Image extents (1-D and 2-D images use leading extents of 1) and the tile grid.
struct Geom {
  std::int64_t nz, ny, nx;
  std::int64_t tiles_x, tiles_y, tiles_z, ntiles;
};

/// Face buffers: the global index of the tile-local root of every pixel on a tile's first (a) and
/// last (b) plane along each axis, -1 for background; null where the axis has a single tile.
/// Layouts: z faces [tz][y][x], y faces [ty][z][x], x faces [tx][z][y].
template <class I>
struct Faces {
  I* za = nullptr;
  I* zb = nullptr;
  I* ya = nullptr;
  I* yb = nullptr;
  I* xa = nullptr;
  I* xb = nullptr;
};

/// The key a tile keeps per pixel to compare neighbours: the value itself for integers (the cast
/// to int64 is injective there), the truncated int64 for floats; bool needs none (every
/// foreground pixel has the same key).
template <class T>
using KeyOf = std::conditional_t<std::is_floating_point_v<T>, std::int64_t, T>;

/// One warp's shared memory. Runs per tile: at most 16 per row for bool (runs are separated by
/// background), 32 per row otherwise (neighbours of different keys).
template <class T, class L, bool kFinal>
struct TileSmem {
  static constexpr bool kBin = std::is_same_v<T, bool>;
  static constexpr int kMaxRuns = kBin ? 512 : 1024;
  KeyOf<T> key[kBin ? 1 : 1024];  // [row][x]
  L lab[kFinal ? kMaxRuns : 1];   // final pass: the label of each root run
  int node[kMaxRuns];             // union-find parent of each run; after label_tile, its root
  std::uint16_t pos[kMaxRuns];    // row * 32 + x of each run's first pixel
};

/// Warps per block: as many of 4 as fit the 48 KB of static shared memory.
template <class Sm>
constexpr int warps_for() {
  return 4 * sizeof(Sm) <= 48 * 1024 ? 4 : 2 * sizeof(Sm) <= 48 * 1024 ? 2 : 1;
}

// Backward neighbour rows of row (lz, ly): k = 0: (0, -1); 1: (-1, -1); 2: (-1, 0); 3: (-1, +1).
__host__ __device__ constexpr int nb_dz(int k) { return k == 0 ? 0 : -1; }
__host__ __device__ constexpr int nb_dy(int k) { return k == 0 ? -1 : k - 2; }

/// Shared-memory find with path halving (used while unions run: a parent only ever moves to a
/// smaller member of its set and roots are never written, so concurrent halving is safe).
__device__ __forceinline__ int tile_find(volatile int* p, int x) {
  int q = p[x];
  while (q != x) {
    const int g = p[q];
    if (g != q) p[x] = g;
    x = q;
    q = g;
  }
  return x;
}

/// Read-only find: flattening writes only each lane's own entries, so no entry that was already
/// set to its root is ever overwritten with an intermediate node.
__device__ __forceinline__ int tile_root(const volatile int* p, int x) {
  int q = p[x];
  while (q != x) {
    x = q;
    q = p[x];
  }
  return x;
}

__device__ __forceinline__ void tile_union(int* p, int a, int b) {
  bool done = false;
  do {
    a = tile_find(p, a);
    b = tile_find(p, b);
    if (a < b) {
      const int old = atomicMin(&p[b], a);
      done = old == b;
      b = old;
    } else if (b < a) {
      const int old = atomicMin(&p[a], b);
      done = old == a;
      a = old;
    } else {
      done = true;
    }
  } while (!done);
}

/// Ordinal of the run holding foreground pixel x of a row whose first run is `base` and whose
/// run starts are `starts`.
__device__ __forceinline__ int run_of(int base, std::uint32_t starts, int x) {
  return base + __popc(starts & (kFull >> (31 - x))) - 1;
}

/// What label_tile leaves in each lane (lane r: tile row r).
struct RowState {
  std::uint32_t fg;      // foreground pixels
  std::uint32_t starts;  // first pixels of runs
  int base;              // ordinal of the row's first run
  int total;             // runs in the tile (same in every lane)
};

/// Labels the tile at (X0, Y0, Z0) in shared memory. On return sm.node[o] is the root ordinal of
/// run o (the tile component's first run) and sm.pos[o] its first pixel. Pairs of pixels inside
/// the tile are joined; pairs across tile faces are left to face_kernel.
template <class T, int TY, int TZ, class Sm>
__device__ __forceinline__ RowState label_tile(const T* __restrict__ in, const Geom& g, const LabelKey& key, int conn,
                                               std::int64_t X0, std::int64_t Y0, std::int64_t Z0, Sm& sm, int lane) {
  static_assert(TY * TZ == 32, "a tile has 32 rows, one per lane");
  constexpr bool kBin = std::is_same_v<T, bool>;
  constexpr int NK = TZ > 1 ? 4 : 1;  // backward neighbour rows

  // 1. Load (lane = column): the foreground mask of every row by ballot; lane r keeps row r's.
  const std::int64_t x = X0 + lane;
  const bool xin = x < g.nx;
  std::uint32_t F = 0;
#pragma unroll
  for (int r = 0; r < 32; ++r) {
    const std::int64_t z = Z0 + r / TY, y = Y0 + r % TY;
    bool fg = false;
    KeyOf<T> kv{};
    if (xin && z < g.nz && y < g.ny) {
      const T v = in[(z * g.ny + y) * g.nx + x];
      const std::int64_t k = key(v);
      fg = k != key.background;
      if constexpr (std::is_floating_point_v<T>) {
        kv = k;
      } else {
        kv = v;
      }
    }
    if constexpr (!kBin) sm.key[r * 32 + lane] = kv;
    const std::uint32_t b = __ballot_sync(kFull, fg);
    if (lane == r) F = b;
  }

  // 2. Contact masks (lane = row r): L bit x: (x, r) joins (x - 1, r); E[k][1 + dx] bit x: (x, r)
  //    joins (x + dx, r'), r' the k-th backward neighbour row, both inside the tile.
  const int lz = lane / TY, ly = lane % TY;
  std::uint32_t L = 0, E[NK][3];
#pragma unroll
  for (int k = 0; k < NK; ++k) E[k][0] = E[k][1] = E[k][2] = 0;
  if constexpr (kBin) {
    L = F & (F << 1);
#pragma unroll
    for (int k = 0; k < NK; ++k) {
      const int dz = nb_dz(k), dy = nb_dy(k);
      const bool valid = ly + dy >= 0 && ly + dy < TY && lz + dz >= 0;
      std::uint32_t Fk = __shfl_sync(kFull, F, valid ? lane + dz * TY + dy : lane);
      if (!valid) Fk = 0;
      const int h = -dz + (dy < 0 ? -dy : dy);
      if (h <= conn) E[k][1] = F & Fk;
      if (h + 1 <= conn) {
        E[k][0] = F & (Fk << 1);
        E[k][2] = F & (Fk >> 1);
      }
    }
  } else {
    __syncwarp();  // sm.key complete
#pragma unroll
    for (int r = 0; r < 32; ++r) {
      const int zr = r / TY, yr = r % TY;
      const std::uint32_t Fr = __shfl_sync(kFull, F, r);
      const bool fgx = (Fr >> lane) & 1u;
      const KeyOf<T> kx = sm.key[r * 32 + lane];
      {
        const bool e = fgx && lane > 0 && ((Fr >> (lane - 1)) & 1u) && sm.key[r * 32 + lane - 1] == kx;
        const std::uint32_t b = __ballot_sync(kFull, e);
        if (lane == r) L = b;
      }
#pragma unroll
      for (int k = 0; k < NK; ++k) {
        const int dz = nb_dz(k), dy = nb_dy(k);
        if (yr + dy < 0 || yr + dy >= TY || zr + dz < 0) continue;  // compile-time
        const int h = -dz + (dy < 0 ? -dy : dy);
        if (h > conn) continue;  // uniform
        const int src = r + dz * TY + dy;
        const std::uint32_t Fp = __shfl_sync(kFull, F, src);
#pragma unroll
        for (int dx = -1; dx <= 1; ++dx) {
          if (h + (dx != 0 ? 1 : 0) > conn) continue;  // uniform
          const int xx = lane + dx;
          const bool e = fgx && xx >= 0 && xx < 32 && ((Fp >> xx) & 1u) && sm.key[src * 32 + xx] == kx;
          const std::uint32_t b = __ballot_sync(kFull, e);
          if (lane == r) E[k][dx + 1] = b;
        }
      }
    }
  }

  // 3. Runs: ordinals in raster order (warp scan of the runs per row).
  const std::uint32_t S = F & ~L;
  const int nr = __popc(S);
  int incl = nr;
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const int t = __shfl_up_sync(kFull, incl, d);
    if (lane >= d) incl += t;
  }
  const int base = incl - nr;
  const int total = __shfl_sync(kFull, incl, 31);
  {
    int o = base;
    for (std::uint32_t m = S; m; m &= m - 1, ++o) {
      sm.node[o] = o;
      sm.pos[o] = static_cast<std::uint16_t>(lane * 32 + __ffs(m) - 1);
    }
  }
  __syncwarp();

  // 4. Unions between runs, one per pair of touching runs. A contact of (x, r) with (x + dx, r')
  //    is skipped when contacts at smaller x and the run links imply it:
  //      vertical (dx = 0):   V[x - 1], L[x], L'[x]
  //      left (dx = -1):      V[x - 1] and L[x], or V[x] and L'[x]
  //      right (dx = +1):     V[x + 1] and L[x + 1], or V[x] and L'[x + 1]
  //    Vertical skips lean on vertical contacts at smaller x only, diagonal ones on vertical
  //    contacts, so by induction on x every skipped contact is implied by performed unions.
#pragma unroll
  for (int k = 0; k < NK; ++k) {
    const int dz = nb_dz(k), dy = nb_dy(k);
    const bool valid = ly + dy >= 0 && ly + dy < TY && lz + dz >= 0;
    const int src = valid ? lane + dz * TY + dy : lane;
    const std::uint32_t Sp = __shfl_sync(kFull, S, src), Lp = __shfl_sync(kFull, L, src);
    const int bp = __shfl_sync(kFull, base, src);
    const std::uint32_t V = E[k][1], DL = E[k][0], DR = E[k][2];  // zero unless valid
    for (std::uint32_t m = V & ~((V << 1) & L & Lp); m; m &= m - 1) {
      const int bx = __ffs(m) - 1;
      tile_union(sm.node, run_of(base, S, bx), run_of(bp, Sp, bx));
    }
    for (std::uint32_t m = DL & ~((V << 1) & L) & ~(V & Lp); m; m &= m - 1) {
      const int bx = __ffs(m) - 1;
      tile_union(sm.node, run_of(base, S, bx), run_of(bp, Sp, bx - 1));
    }
    for (std::uint32_t m = DR & ~((V >> 1) & (L >> 1)) & ~(V & (Lp >> 1)); m; m &= m - 1) {
      const int bx = __ffs(m) - 1;
      tile_union(sm.node, run_of(base, S, bx), run_of(bp, Sp, bx + 1));
    }
  }
  __syncwarp();
  for (int o = lane; o < total; o += 32) sm.node[o] = tile_root(sm.node, o);
  __syncwarp();
  return RowState{F, S, base, total};
}

/// Global index of tile position p (row * 32 + x) of the tile at (X0, Y0, Z0).
template <int TY>
__device__ __forceinline__ std::int64_t tile_index(const Geom& g, std::int64_t X0, std::int64_t Y0, std::int64_t Z0,
                                                   int p) {
  const int r = p >> 5;
  return ((Z0 + r / TY) * g.ny + Y0 + r % TY) * g.nx + X0 + (p & 31);
}

/// Pass 1. Per tile: parent[R] = R and bit R of `roots` for every tile-local root R (its first
/// pixel), and the faces' root indices. Nothing else is written: parent is read only at roots.
template <class T, class I, int TY, int TZ>
__global__ void __launch_bounds__(32 * warps_for<TileSmem<T, int, false>>())
    local_kernel(const T* __restrict__ in, I* __restrict__ parent, unsigned* __restrict__ roots, Faces<I> f, Geom g,
                 LabelKey key, int conn) {
  using Sm = TileSmem<T, int, false>;
  constexpr int W = warps_for<Sm>();
  __shared__ Sm smem[W];
  const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
  Sm& sm = smem[warp];
  const std::int64_t step = std::int64_t(gridDim.x) * W;
  for (std::int64_t t = std::int64_t(blockIdx.x) * W + warp; t < g.ntiles; t += step) {
    const std::int64_t tx = t % g.tiles_x, rest = t / g.tiles_x, ty = rest % g.tiles_y, tz = rest / g.tiles_y;
    const std::int64_t X0 = tx * 32, Y0 = ty * TY, Z0 = tz * TZ;
    const RowState rs = label_tile<T, TY, TZ>(in, g, key, conn, X0, Y0, Z0, sm, lane);
    const std::int64_t z = Z0 + lane / TY, y = Y0 + lane % TY;
    const bool row_in = z < g.nz && y < g.ny;
    const std::int64_t row0 = (z * g.ny + y) * g.nx + X0;  // global index of the row's pixel x = 0
    auto root_index = [&](int o) { return static_cast<I>(tile_index<TY>(g, X0, Y0, Z0, sm.pos[sm.node[o]])); };

    // Tile-local roots (lane = row).
    std::uint32_t rb = 0;
    {
      int o = rs.base;
      for (std::uint32_t m = rs.starts; m; m &= m - 1, ++o) {
        if (sm.node[o] != o) continue;
        const int bx = __ffs(m) - 1;
        const I R = static_cast<I>(row0 + bx);
        parent[R] = R;
        rb |= 1u << bx;
      }
    }
    if (rb) {  // bit i of roots[i / 32] is pixel i; a tile row may straddle two words
      const std::int64_t w = row0 >> 5;
      const int sh = static_cast<int>(row0 & 31);
      atomicOr(&roots[w], rb << sh);
      if (sh && (rb >> (32 - sh))) atomicOr(&roots[w + 1], rb >> (32 - sh));
    }

    // Faces. Rows of a z or y face: lane = column.
    const std::int64_t x = X0 + lane;
    auto face_row = [&](I* dst, int r) {  // dst: the face entry of this lane's pixel in row r
      const std::uint32_t Fr = __shfl_sync(kFull, rs.fg, r), Sr = __shfl_sync(kFull, rs.starts, r);
      const int br = __shfl_sync(kFull, rs.base, r);
      const std::int64_t zr = Z0 + r / TY, yr = Y0 + r % TY;
      if (x < g.nx && zr < g.nz && yr < g.ny)
        *dst = ((Fr >> lane) & 1u) ? root_index(run_of(br, Sr, lane)) : static_cast<I>(-1);
    };
    if constexpr (TZ > 1) {
      if (f.za && tz > 0)
        for (int r = 0; r < TY; ++r) face_row(f.za + ((tz * g.ny + Y0 + r) * g.nx + x), r);
      if (f.zb && tz + 1 < g.tiles_z)
        for (int r = 0; r < TY; ++r) face_row(f.zb + ((tz * g.ny + Y0 + r) * g.nx + x), (TZ - 1) * TY + r);
    }
    if (f.ya && ty > 0)
      for (int q = 0; q < TZ; ++q) face_row(f.ya + ((ty * g.nz + Z0 + q) * g.nx + x), q * TY);
    if (f.yb && ty + 1 < g.tiles_y)
      for (int q = 0; q < TZ; ++q) face_row(f.yb + ((ty * g.nz + Z0 + q) * g.nx + x), q * TY + TY - 1);
    // x faces: lane = row.
    if (f.xa && tx > 0 && row_in)
      f.xa[(tx * g.nz + z) * g.ny + y] = (rs.fg & 1u) ? root_index(run_of(rs.base, rs.starts, 0)) : static_cast<I>(-1);
    if (f.xb && tx + 1 < g.tiles_x && row_in)
      f.xb[(tx * g.nz + z) * g.ny + y] =
          (rs.fg >> 31) ? root_index(run_of(rs.base, rs.starts, 31)) : static_cast<I>(-1);
    __syncwarp();  // sm is reused by the warp's next tile
  }
}

/// One kind of tile face: planes t * ta - 1 (last plane of tile t - 1, buffer b) and t * ta (first
/// plane of tile t, buffer a) along `axis`, both indexed [t][u][v] over the face plane (u, v).
/// Pairs (u, v) ~ (u + du, v + dv) for the listed offsets; a u or v with a tile extent (tu, tv
/// non-zero) must stay in its tile (pairs across those faces belong to another kind).
template <class I>
struct FaceJob {
  const I* a;
  const I* b;
  std::int64_t tiles;   // tiles along the axis (> 1)
  std::int64_t nu, nv;  // face plane extents
  int tu, tv;
  int axis;  // 0: z (u = y, v = x), 1: y (u = z, v = x), 2: x (u = z, v = y)
  int ta;    // tile extent along the axis
  int nofs;
  signed char ofs[9][2];  // (du, dv)
};

/// Pass 2. One thread per face pixel of tile t >= 1: joins its tile-local root with those of its
/// neighbours behind the face. A union is skipped when the same root pair is this thread's for an
/// earlier offset, or the previous lane's for the same offset (then, by induction over lanes and
/// offsets, it is performed or implied there): along a face this leaves about one union per pair
/// of touching runs.
template <class T, class I>
__global__ void __launch_bounds__(256)
    face_kernel(const T* __restrict__ in, I* parent, FaceJob<I> j, Geom g, LabelKey key) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const std::int64_t plane = j.nu * j.nv, total = (j.tiles - 1) * plane;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  // Warp-uniform trip count: every lane reaches the shuffles.
  for (std::int64_t w0 = std::int64_t(blockIdx.x) * blockDim.x + (threadIdx.x & ~31u); w0 < total; w0 += stride) {
    const std::int64_t idx = w0 + lane;
    I A = -1;
    std::int64_t t = 1, u = 0, v = 0;
    if (idx < total) {
      t = idx / plane + 1;
      const std::int64_t rem = idx - (t - 1) * plane;
      u = rem / j.nv;
      v = rem - u * j.nv;
      A = j.a[(t * j.nu + u) * j.nv + v];
    }
    std::int64_t ka = 0;  // the A pixel's key (only compared for non-bool images)
    auto pixel = [&](std::int64_t c, std::int64_t uu, std::int64_t vv) {
      return j.axis == 0 ? (c * g.ny + uu) * g.nx + vv
                         : j.axis == 1 ? (uu * g.ny + c) * g.nx + vv : (uu * g.ny + vv) * g.nx + c;
    };
    if constexpr (!std::is_same_v<T, bool>) {
      if (A >= 0) ka = key(in[pixel(t * j.ta, u, v)]);
    }
    I B[9];
#pragma unroll
    for (int o = 0; o < 9; ++o) {
      B[o] = -1;
      if (o < j.nofs && A >= 0) {
        const std::int64_t uu = u + j.ofs[o][0], vv = v + j.ofs[o][1];
        bool ok = uu >= 0 && uu < j.nu && vv >= 0 && vv < j.nv;
        if (ok && j.tu) ok = uu / j.tu == u / j.tu;
        if (ok && j.tv) ok = vv / j.tv == v / j.tv;
        if (ok) {
          B[o] = j.b[((t - 1) * j.nu + uu) * j.nv + vv];
          if constexpr (!std::is_same_v<T, bool>) {
            if (B[o] >= 0 && key(in[pixel(t * j.ta - 1, uu, vv)]) != ka) B[o] = -1;
          }
        }
      }
    }
    const I Aprev = __shfl_up_sync(kFull, A, 1);
#pragma unroll
    for (int o = 0; o < 9; ++o) {
      if (o >= j.nofs) break;  // uniform
      const I Bprev = __shfl_up_sync(kFull, B[o], 1);
      if (B[o] < 0) continue;
      if (lane > 0 && Aprev == A && Bprev == B[o]) continue;
      bool dup = false;
#pragma unroll
      for (int q = 0; q < o; ++q) dup |= B[q] == B[o];
      if (!dup) ccl_union<I>(parent, A, B[o]);
    }
  }
}

/// Pass 3. Over the root bitmap: a tile-local root that is no longer a root after the face pass
/// gets its final root as parent and leaves the bitmap, which then marks exactly the regions'
/// first pixels. Each thread writes only its own roots' entries, and only with their final root
/// (read-only finds: halving could re-point an entry another thread has just set to its final
/// root at an intermediate node), so afterwards parent[R] is R's final root for every local root R
/// and pass 5 needs one load per root, inside its own tile.
template <class I>
__global__ void __launch_bounds__(256) roots_kernel(I* parent, unsigned* roots, std::int64_t nwords) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < nwords; i += stride) {
    const unsigned w = roots[i];
    if (!w) continue;
    unsigned keep = w;
    for (unsigned m = w; m; m &= m - 1) {
      const int b = __ffs(m) - 1;
      const I R = static_cast<I>(i * 32 + b);
      const I p = parent[R];
      if (p == R) continue;
      parent[R] = ccl_find<I>(parent, p);
      keep &= ~(1u << b);
    }
    if (keep != w) roots[i] = keep;
  }
}

/// Pass 4 (after the scan of the bitmap's popcounts: first[i] = final roots before word i).
/// Each tile is labelled again in shared memory (cheaper than storing a per-pixel local id), its
/// local roots look up their region's label (rank of the final root + 1), and every pixel of the
/// tile is written. parent may alias out: a tile reads parent only at its own roots (one load
/// each, never following the pointer), before it writes them, and no other tile reads them.
template <class T, class I, class L, int TY, int TZ>
__global__ void __launch_bounds__(32 * warps_for<TileSmem<T, L, true>>())
    final_kernel(const T* __restrict__ in, const I* parent, const unsigned* __restrict__ roots,
                 const I* __restrict__ first, L* out, Geom g, LabelKey key, int conn) {
  using Sm = TileSmem<T, L, true>;
  constexpr int W = warps_for<Sm>();
  __shared__ Sm smem[W];
  const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
  Sm& sm = smem[warp];
  const std::int64_t step = std::int64_t(gridDim.x) * W;
  for (std::int64_t t = std::int64_t(blockIdx.x) * W + warp; t < g.ntiles; t += step) {
    const std::int64_t tx = t % g.tiles_x, rest = t / g.tiles_x, ty = rest % g.tiles_y, tz = rest / g.tiles_y;
    const std::int64_t X0 = tx * 32, Y0 = ty * TY, Z0 = tz * TZ;
    const RowState rs = label_tile<T, TY, TZ>(in, g, key, conn, X0, Y0, Z0, sm, lane);
    for (int o = lane; o < rs.total; o += 32) {
      if (sm.node[o] != o) continue;
      const I r = parent[tile_index<TY>(g, X0, Y0, Z0, sm.pos[o])];  // the final root (pass 3)
      const std::int64_t w = static_cast<std::int64_t>(r) >> 5;
      const unsigned below = roots[w] & ((1u << (static_cast<int>(r) & 31)) - 1u);
      sm.lab[o] = static_cast<L>(first[w] + static_cast<I>(__popc(below)) + 1);
    }
    __syncwarp();
    const std::int64_t x = X0 + lane;
#pragma unroll 4
    for (int r = 0; r < 32; ++r) {
      const std::uint32_t Fr = __shfl_sync(kFull, rs.fg, r), Sr = __shfl_sync(kFull, rs.starts, r);
      const int br = __shfl_sync(kFull, rs.base, r);
      const std::int64_t z = Z0 + r / TY, y = Y0 + r % TY;
      if (x < g.nx && z < g.nz && y < g.ny)
        out[(z * g.ny + y) * g.nx + x] = ((Fr >> lane) & 1u) ? sm.lab[sm.node[run_of(br, Sr, lane)]] : L(0);
    }
    __syncwarp();  // sm is reused by the warp's next tile
  }
}

}  // namespace cuskimage::measure::detail::lbl
