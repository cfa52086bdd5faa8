// Device side of CUDA measure.label (kernels/measure/label.cu runs it). The design, its floor and
// its traffic are described there; this header holds the kernels and the per-tile labelling.
//
// A tile is 32 x TY x TZ pixels (TY * TZ = 32 rows) and belongs to one warp. Lane r owns tile row
// r (z = r / TY, y = r % TY) while runs are joined; a row is a 32-bit mask (bit x = pixel x) and a
// run is a maximal stretch of foreground pixels of one key in a row. Runs are numbered (ordinals)
// in raster order, and a union-find over runs in shared memory, with the smaller ordinal always
// the root, names every tile component by its first run, so a tile component's root pixel is its
// first pixel in raster order, which is also its smallest global index (inside a tile, raster
// order is the image's raster order).
//
// Pass 1 leaves what the final pass needs to write the labels without labelling the tile again:
// per tile row its foreground and run-start masks (Work::rows) and per run the ordinal of its
// tile-local root run (Work::runs, uint16).
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/core/union_find.cuh"
#include "src/measure/label.hpp"

namespace cuskimage::measure::detail::lbl {

using cuskimage::detail::ccl_union;

constexpr unsigned kFull = 0xffffffffu;

/// Image extents (1-D and 2-D images use leading extents of 1) and the tile grid (fewer than
/// 2^31 tiles: the host checks).
struct Geom {
  std::int64_t nz, ny, nx;
  std::int64_t tiles_x, tiles_y, tiles_z, ntiles;
};

/// Face buffers: for every pixel on a tile's first (a) and last (b) plane along each axis, the
/// position (row * 32 + x) of its tile-local root in the pixel's tile, kNoRoot for background;
/// null where the axis has a single tile. Layouts: z faces [tz][y][x], y faces [ty][z][x], x faces
/// [tx][z][y].
struct Faces {
  std::uint16_t* za = nullptr;
  std::uint16_t* zb = nullptr;
  std::uint16_t* ya = nullptr;
  std::uint16_t* yb = nullptr;
  std::uint16_t* xa = nullptr;
  std::uint16_t* xb = nullptr;
};
constexpr std::uint16_t kNoRoot = 0xffff;

/// Entries of the face buffers of one side (a or b) along each axis of `g` (0: a single tile).
struct FaceCounts {
  std::int64_t z, y, x;
  std::int64_t total() const { return 2 * (z + y + x); }  // both sides, uint16 each
};
inline FaceCounts face_counts(const Geom& g) {
  return {g.tiles_z > 1 ? g.tiles_z * g.ny * g.nx : 0, g.tiles_y > 1 ? g.tiles_y * g.nz * g.nx : 0,
          g.tiles_x > 1 ? g.tiles_x * g.nz * g.ny : 0};
}
/// The face buffers carved out of one allocation of c.total() entries at q (z, y, then x).
inline Faces carve_faces(std::uint16_t* q, const FaceCounts& c) {
  Faces f;
  auto take = [&](std::int64_t n, std::uint16_t*& a, std::uint16_t*& b) {
    if (n == 0) return;
    a = q;
    b = q + n;
    q += 2 * n;
  };
  take(c.z, f.za, f.zb);
  take(c.y, f.ya, f.yb);
  take(c.x, f.xa, f.xb);
  return f;
}

/// Pass 1's record of every tile for the final pass: rows[t * 32 + r] = (foreground mask, run
/// starts) of tile row r (zero outside the image); runs[t * max_runs + o] = the tile-local root
/// ordinal of run o (entries past the tile's run count are unspecified).
struct Work {
  uint2* rows;
  std::uint16_t* runs;
};

/// The key a tile keeps per pixel to compare neighbours: the value itself for integers (the cast
/// to int64 is injective there), the truncated int64 for floats; bool needs none (every
/// foreground pixel has the same key).
template <class T>
using KeyOf = std::conditional_t<std::is_floating_point_v<T>, std::int64_t, T>;

/// Runs per tile: at most 16 per row for bool (runs are separated by background), 32 per row
/// otherwise (neighbours of different keys).
template <class T>
constexpr int max_runs() {
  return std::is_same_v<T, bool> ? 512 : 1024;
}

/// Pass 1's shared memory per warp (kKeys: the keys of a non-bool tile loaded a pixel per lane).
template <class T, bool kKeys = !std::is_same_v<T, bool>>
struct TileSmem {
  static constexpr int kMaxRuns = max_runs<T>();
  KeyOf<T> key[kKeys ? 1024 : 1];  // [row][x]
  int node[kMaxRuns];             // union-find parent of each run; after label_runs, its root
  std::uint16_t pos[kMaxRuns];    // row * 32 + x of each run's first pixel
};

/// Warps per block: as many of 4 as fit the 48 KB of static shared memory.
template <class Sm>
constexpr int warps_for() {
  return 4 * sizeof(Sm) <= 48 * 1024 ? 4 : 2 * sizeof(Sm) <= 48 * 1024 ? 2 : 1;
}

/// Pass-1 variants (host switches, label.cu): bit 0 wide loads (bool, uint8 and int8 images whose
/// rows are 16-byte aligned: each lane loads its own row as two 16-byte words), bit 1 prefetch (the next
/// tile's words are loaded before the current tile is labelled; only with wide loads).
constexpr int kLoadWide = 1;
constexpr int kLoadPrefetch = 2;

/// Pass 1's shared memory for a variant: keys in shared memory only for non-bool tiles loaded a
/// pixel per lane (wide loads keep a row's bytes in registers).
template <class T, int kMode>
using LocalSmem = TileSmem<T, !std::is_same_v<T, bool> && !(kMode & kLoadWide)>;

/// Pass 1's minimum resident blocks per SM, to cap registers: bool 12 blocks of 4 warps (40
/// registers per thread), wide uint8/int8 9 (what their 6 KB of shared memory per warp allows:
/// 56 registers); the keyed kernels loaded a pixel per lane keep what they need.
template <class T, int kMode>
constexpr int kLocalBlocks = std::is_same_v<T, bool> ? 12 : (kMode & kLoadWide) ? 9 : 1;

// Backward neighbour rows of row (lz, ly): k = 0: (0, -1); 1: (-1, -1); 2: (-1, 0); 3: (-1, +1).
__host__ __device__ constexpr int nb_dz(int k) { return k == 0 ? 0 : -1; }
__host__ __device__ constexpr int nb_dy(int k) { return k == 0 ? -1 : k - 2; }

/// Tile t's origin and grid coordinates (32-bit division: fewer than 2^31 tiles).
struct TileAt {
  std::int64_t X0, Y0, Z0;
  std::int64_t base;   // global index of the tile's first pixel
  std::int64_t plane;  // ny * nx
  int tx, ty, tz;
};

template <int TY, int TZ>
__device__ __forceinline__ TileAt tile_at(const Geom& g, std::uint32_t t) {
  const auto ntx = static_cast<std::uint32_t>(g.tiles_x), nty = static_cast<std::uint32_t>(g.tiles_y);
  const std::uint32_t tx = t % ntx, rest = t / ntx, ty = rest % nty, tz = rest / nty;
  TileAt a;
  a.tx = static_cast<int>(tx);
  a.ty = static_cast<int>(ty);
  a.tz = static_cast<int>(tz);
  a.X0 = std::int64_t(tx) * 32;
  a.Y0 = std::int64_t(ty) * TY;
  a.Z0 = std::int64_t(tz) * TZ;
  a.plane = g.ny * g.nx;
  a.base = a.Z0 * a.plane + a.Y0 * g.nx + a.X0;
  return a;
}

/// Offset of tile row r from the tile's first pixel.
template <int TY>
__device__ __forceinline__ std::int64_t row_offset(const TileAt& a, const Geom& g, int r) {
  return std::int64_t(r / TY) * a.plane + std::int64_t(r % TY) * g.nx;
}

/// Whether tile row r lies inside the image.
template <int TY>
__device__ __forceinline__ bool row_inside(const TileAt& a, const Geom& g, int r) {
  return a.Z0 + r / TY < g.nz && a.Y0 + r % TY < g.ny;
}

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

/// Position of the k-th (from 0) set bit of m (k < popc(m)).
__device__ __forceinline__ int nth_bit(std::uint32_t m, int k) {
  int pos = 0;
#pragma unroll
  for (int w = 16; w >= 1; w >>= 1) {
    const int c = __popc(m & ((1u << w) - 1u));
    if (k >= c) {
      k -= c;
      m >>= w;
      pos += w;
    }
  }
  return pos;
}

/// Foreground mask of 4 bytes: bit i set when byte i is non-zero.
__device__ __forceinline__ std::uint32_t nonzero4(std::uint32_t w) {
  const std::uint32_t h = ((((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u) >> 7;  // 0/1 per byte
  return ((h * 0x00204081u) >> 21) & 0xfu;  // byte i's bit lands on bit 21 + i, carry-free
}

__device__ __forceinline__ std::uint32_t nonzero16(const uint4& v) {
  return nonzero4(v.x) | nonzero4(v.y) << 4 | nonzero4(v.z) << 8 | nonzero4(v.w) << 12;
}

/// Wide loads of this lane's tile row (1-byte pixels, rows 16-byte aligned: nx % 16 == 0).
template <int TY, class T>
__device__ __forceinline__ void load_row_wide(const T* __restrict__ in, const Geom& g, const TileAt& a, int lane,
                                              uint4& lo, uint4& hi) {
  static_assert(sizeof(T) == 1, "wide loads are for 1-byte pixels");
  lo = hi = make_uint4(0, 0, 0, 0);
  if (row_inside<TY>(a, g, lane)) {
    const uint4* p = reinterpret_cast<const uint4*>(in + a.base + row_offset<TY>(a, g, lane));
    lo = __ldg(p);
    if (a.X0 + 16 < g.nx) hi = __ldg(p + 1);
  }
}

/// What label_runs leaves in each lane (lane r: tile row r).
struct RowState {
  std::uint32_t fg;      // foreground pixels
  std::uint32_t starts;  // first pixels of runs
  int base;              // ordinal of the row's first run
  int total;             // runs in the tile (same in every lane)
};

/// Contact masks of lane r's row (bool): L bit x: (x, r) joins (x - 1, r); E[k][1 + dx] bit x:
/// (x, r) joins (x + dx, r'), r' the k-th backward neighbour row, both inside the tile.
template <int TY, int NK>
__device__ __forceinline__ void bool_contacts(std::uint32_t F, int conn, int lane, std::uint32_t& L,
                                              std::uint32_t (&E)[NK][3]) {
  const int lz = lane / TY, ly = lane % TY;
  L = F & (F << 1);
#pragma unroll
  for (int k = 0; k < NK; ++k) {
    E[k][0] = E[k][1] = E[k][2] = 0;
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
}

/// Bit i set when bytes i of a and b are equal.
__device__ __forceinline__ std::uint32_t equal4(std::uint32_t a, std::uint32_t b) { return ~nonzero4(a ^ b) & 0xfu; }

/// Equal-byte mask of a row (32 bytes in w) against the row q shifted by dx pixels: bit x set when
/// byte x of w equals byte x + dx of q (0 where x + dx leaves the row).
template <int DX>
__device__ __forceinline__ std::uint32_t equal32(const std::uint32_t (&w)[8], const std::uint32_t (&q)[8]) {
  std::uint32_t m = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    std::uint32_t v = q[i];
    if constexpr (DX < 0) v = (q[i] << 8) | (i > 0 ? q[i - 1] >> 24 : 0u);
    if constexpr (DX > 0) v = (q[i] >> 8) | (i < 7 ? q[i + 1] << 24 : 0u);
    m |= equal4(w[i], v) << (4 * i);
  }
  if constexpr (DX < 0) m &= ~1u;
  if constexpr (DX > 0) m &= ~(1u << 31);
  return m;
}

/// Masks of lane r's row for 1-byte integer keys held in registers (wide loads): F from the
/// bytes that differ from the background (`bg` repeated in every byte, `bg_in` false when no
/// byte can equal it) inside the image (`valid`), L and E as bool_contacts but also requiring
/// equal bytes; neighbour rows' bytes come by shuffles.
template <int TY, int NK>
__device__ __forceinline__ std::uint32_t byte_contacts(const std::uint32_t (&w)[8], std::uint32_t valid,
                                                       std::uint32_t bg, bool bg_in, int conn, int lane,
                                                       std::uint32_t& L, std::uint32_t (&E)[NK][3]) {
  const int lz = lane / TY, ly = lane % TY;
  std::uint32_t F = valid;
  if (bg_in) {
    std::uint32_t nb = 0;
#pragma unroll
    for (int i = 0; i < 8; ++i) nb |= nonzero4(w[i] ^ bg) << (4 * i);
    F &= nb;
  }
  L = F & (F << 1) & equal32<-1>(w, w);
#pragma unroll
  for (int k = 0; k < NK; ++k) {
    E[k][0] = E[k][1] = E[k][2] = 0;
    const int dz = nb_dz(k), dy = nb_dy(k);
    const bool ok = ly + dy >= 0 && ly + dy < TY && lz + dz >= 0;
    const int src = ok ? lane + dz * TY + dy : lane;
    std::uint32_t q[8];
#pragma unroll
    for (int i = 0; i < 8; ++i) q[i] = __shfl_sync(kFull, w[i], src);
    std::uint32_t Fk = __shfl_sync(kFull, F, src);
    if (!ok) Fk = 0;
    const int h = -dz + (dy < 0 ? -dy : dy);
    if (h <= conn) E[k][1] = F & Fk & equal32<0>(w, q);
    if (h + 1 <= conn) {
      E[k][0] = F & (Fk << 1) & equal32<-1>(w, q);
      E[k][2] = F & (Fk >> 1) & equal32<1>(w, q);
    }
  }
  return F;
}

/// Runs and their unions from the masks of lane r's row. On return sm.node[o] is the root
/// ordinal of run o (the tile component's first run) and sm.pos[o] its first pixel. Pairs of
/// pixels inside the tile are joined; pairs across tile faces are left to face_kernel.
template <int TY, int NK, class Sm>
__device__ __forceinline__ RowState label_runs(std::uint32_t F, std::uint32_t L, const std::uint32_t (&E)[NK][3],
                                               Sm& sm, int lane) {
  const int lz = lane / TY, ly = lane % TY;
  // Runs: ordinals in raster order (warp scan of the runs per row).
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

  // Unions between runs, one per pair of touching runs. A contact of (x, r) with (x + dx, r')
  // is skipped when contacts at smaller x and the run links imply it:
  //   vertical (dx = 0):   V[x - 1], L[x], L'[x]
  //   left (dx = -1):      V[x - 1] and L[x], or V[x] and L'[x]
  //   right (dx = +1):     V[x + 1] and L[x + 1], or V[x] and L'[x + 1]
  // Vertical skips lean on vertical contacts at smaller x only, diagonal ones on vertical
  // contacts, so by induction on x every skipped contact is implied by performed unions.
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

/// Masks of the tile at `a` loaded a pixel per lane (lane = column; every type, any alignment):
/// F of lane r's row, and for non-bool images the contact masks from the keys (bool: F only).
template <class T, int TY, int TZ, int NK, class Sm>
__device__ __forceinline__ std::uint32_t load_columns(const T* __restrict__ in, const Geom& g, const TileAt& a,
                                                      const LabelKey& key, int conn, Sm& sm, int lane,
                                                      std::uint32_t& L, std::uint32_t (&E)[NK][3]) {
  constexpr bool kBin = std::is_same_v<T, bool>;
  const bool xin = a.X0 + lane < g.nx;
  const std::uint32_t rows_ok = __ballot_sync(kFull, row_inside<TY>(a, g, lane));
  const T* tp = in + a.base + lane;
  std::uint32_t F = 0;
#pragma unroll
  for (int r = 0; r < 32; ++r) {
    bool fg = false;
    KeyOf<T> kv{};
    if (xin && ((rows_ok >> r) & 1u)) {
      const T v = tp[row_offset<TY>(a, g, r)];
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
  if constexpr (!kBin) {
#pragma unroll
    for (int k = 0; k < NK; ++k) E[k][0] = E[k][1] = E[k][2] = 0;
    L = 0;
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
  return F;
}

/// Pass 1. Per tile: parent[R] = R and bit R of `roots` for every tile-local root R (its first
/// pixel), the faces' root indices, and the tile's Work record. Nothing else of parent is
/// written: parent is read only at roots.
template <class T, class I, int TY, int TZ, int kMode>
__global__ void __launch_bounds__(32 * warps_for<LocalSmem<T, kMode>>(), kLocalBlocks<T, kMode>)
    local_kernel(const T* __restrict__ in, I* __restrict__ parent, unsigned* __restrict__ roots, Faces f, Work w,
                 Geom g, LabelKey key, int conn) {
  static_assert(TY * TZ == 32, "a tile has 32 rows, one per lane");
  using Sm = LocalSmem<T, kMode>;
  constexpr bool kBin = std::is_same_v<T, bool>;
  constexpr int W = warps_for<Sm>();
  constexpr int NK = TZ > 1 ? 4 : 1;  // backward neighbour rows
  __shared__ Sm smem[W];
  const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
  Sm& sm = smem[warp];
  const auto ntiles = static_cast<std::uint32_t>(g.ntiles);
  const std::uint32_t step = gridDim.x * W;
  const std::uint32_t t0 = blockIdx.x * W + warp;
  constexpr bool kByte = sizeof(T) == 1 && std::is_integral_v<T>;  // bool, uint8, int8
  constexpr bool wide = kByte && (kMode & kLoadWide);
  constexpr bool prefetch = wide && (kMode & kLoadPrefetch);
  uint4 next_lo = make_uint4(0, 0, 0, 0), next_hi = next_lo;
  if constexpr (prefetch) {
    if (t0 < ntiles)
      load_row_wide<TY>(in, g, tile_at<TY, TZ>(g, t0), lane, next_lo, next_hi);
  }
  for (std::uint32_t t = t0; t < ntiles; t += step) {
    const TileAt a = tile_at<TY, TZ>(g, t);
    const bool row_in = row_inside<TY>(a, g, lane);
    const std::int64_t row0 = a.base + row_offset<TY>(a, g, lane);  // global index of the row's pixel x = 0

    std::uint32_t F, L;
    std::uint32_t E[NK][3];
    if constexpr (wide) {
      uint4 lo, hi;
      if constexpr (prefetch) {
        lo = next_lo;
        hi = next_hi;
        if (t + step < ntiles) load_row_wide<TY>(in, g, tile_at<TY, TZ>(g, t + step), lane, next_lo, next_hi);
      } else {
        load_row_wide<TY>(in, g, a, lane, lo, hi);
      }
      const std::uint32_t valid = !row_in ? 0u : a.X0 + 16 < g.nx ? kFull : 0xffffu;  // pixels inside the image
      if constexpr (kBin) {
        F = nonzero16(lo) | nonzero16(hi) << 16;
        if (key.invert) F = ~F & valid;
        bool_contacts<TY, NK>(F, conn, lane, L, E);
      } else {
        const std::int64_t bg = key.background;
        const bool bg_in = std::is_signed_v<T> ? (bg >= -128 && bg <= 127) : (bg >= 0 && bg <= 255);
        const std::uint32_t bgw = static_cast<std::uint32_t>(static_cast<std::uint8_t>(bg)) * 0x01010101u;
        const std::uint32_t wv[8] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w};
        F = byte_contacts<TY, NK>(wv, valid, bgw, bg_in, conn, lane, L, E);
      }
    } else {
      F = load_columns<T, TY, TZ, NK>(in, g, a, key, conn, sm, lane, L, E);
      if constexpr (kBin) bool_contacts<TY, NK>(F, conn, lane, L, E);
    }
    const RowState rs = label_runs<TY, NK>(F, L, E, sm, lane);
    auto root_pos = [&](int o) { return sm.pos[sm.node[o]]; };

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
      const std::int64_t wd = row0 >> 5;
      const int sh = static_cast<int>(row0 & 31);
      atomicOr(&roots[wd], rb << sh);
      if (sh && (rb >> (32 - sh))) atomicOr(&roots[wd + 1], rb >> (32 - sh));
    }

    // Faces. Rows of a z or y face: lane = column.
    const std::int64_t x = a.X0 + lane;
    auto face_row = [&](std::uint16_t* dst, int r) {  // dst: the face entry of this lane's pixel in row r
      const std::uint32_t Fr = __shfl_sync(kFull, rs.fg, r), Sr = __shfl_sync(kFull, rs.starts, r);
      const int br = __shfl_sync(kFull, rs.base, r);
      if (x < g.nx && row_inside<TY>(a, g, r))
        *dst = ((Fr >> lane) & 1u) ? root_pos(run_of(br, Sr, lane)) : kNoRoot;
    };
    if constexpr (TZ > 1) {
      if (f.za && a.tz > 0)
        for (int r = 0; r < TY; ++r) face_row(f.za + ((a.tz * g.ny + a.Y0 + r) * g.nx + x), r);
      if (f.zb && a.tz + 1 < g.tiles_z)
        for (int r = 0; r < TY; ++r) face_row(f.zb + ((a.tz * g.ny + a.Y0 + r) * g.nx + x), (TZ - 1) * TY + r);
    }
    if (f.ya && a.ty > 0)
      for (int q = 0; q < TZ; ++q) face_row(f.ya + ((a.ty * g.nz + a.Z0 + q) * g.nx + x), q * TY);
    if (f.yb && a.ty + 1 < g.tiles_y)
      for (int q = 0; q < TZ; ++q) face_row(f.yb + ((a.ty * g.nz + a.Z0 + q) * g.nx + x), q * TY + TY - 1);
    // x faces: lane = row.
    const std::int64_t z = a.Z0 + lane / TY, y = a.Y0 + lane % TY;
    if (f.xa && a.tx > 0 && row_in)
      f.xa[(a.tx * g.nz + z) * g.ny + y] =
          (rs.fg & 1u) ? root_pos(run_of(rs.base, rs.starts, 0)) : kNoRoot;
    if (f.xb && a.tx + 1 < g.tiles_x && row_in)
      f.xb[(a.tx * g.nz + z) * g.ny + y] =
          (rs.fg >> 31) ? root_pos(run_of(rs.base, rs.starts, 31)) : kNoRoot;

    // The final pass's record: row masks (lane = row), root ordinals of the runs (8 per lane).
    w.rows[std::int64_t(t) * 32 + lane] = make_uint2(rs.fg, rs.starts);
    uint4* rec = reinterpret_cast<uint4*>(w.runs + std::int64_t(t) * Sm::kMaxRuns);
    for (int o = lane * 8; o < rs.total; o += 256) {
      const int* nd = sm.node + o;
      rec[o / 8] = make_uint4(static_cast<unsigned>(nd[0]) | static_cast<unsigned>(nd[1]) << 16,
                              static_cast<unsigned>(nd[2]) | static_cast<unsigned>(nd[3]) << 16,
                              static_cast<unsigned>(nd[4]) | static_cast<unsigned>(nd[5]) << 16,
                              static_cast<unsigned>(nd[6]) | static_cast<unsigned>(nd[7]) << 16);
    }
    __syncwarp();  // sm is reused by the warp's next tile
  }
}

/// In-plane offsets (du, dv) of a face pair, by hops: the first 1, 5 or 9 for connectivity 1, 2,
/// 3 (a pair across a face takes 1 + |du| + |dv| hops).
__device__ __forceinline__ int face_du(int o) {
  constexpr signed char d[9] = {0, -1, 0, 0, 1, -1, -1, 1, 1};
  return d[o];
}
__device__ __forceinline__ int face_dv(int o) {
  constexpr signed char d[9] = {0, 0, -1, 1, 0, -1, 1, -1, 1};
  return d[o];
}

/// One face row of a tile for face_kernel: A = this lane's root on the tile's side, B[o] the
/// roots behind the face at offset o (-1: background, outside the image or the allowed range,
/// another key).
template <class I>
struct FaceRow {
  I A;
  I B[9];
};

/// Pass 2. A warp per tile joins the roots across the tile's backward faces: the z face (plane
/// Z0 against Z0 - 1, offsets free in y and x), the y face (rows Y0 against Y0 - 1, offsets in z
/// inside the tile, free in x) and the x face (column X0 against X0 - 1, offsets in z and y inside
/// the tile), so every pair of neighbours in different tiles is seen once. Face rows are loaded
/// one ahead of the unions (`pipe`). A union is skipped when the same root pair is this lane's for
/// an earlier offset, or the previous lane's for the same offset (by induction over lanes and
/// offsets it is performed or implied there).
template <class T, class I, int TY, int TZ>
__global__ void __launch_bounds__(256, 4)
    face_kernel(const T* __restrict__ in, I* parent, Faces f, Geom g, LabelKey key, int conn, int pipe) {
  constexpr bool kBin = std::is_same_v<T, bool>;
  const int lane = static_cast<int>(threadIdx.x & 31);
  const int nofs = conn >= 3 ? 9 : conn == 2 ? 5 : 1;
  const auto ntiles = static_cast<std::uint32_t>(g.ntiles);
  const std::uint32_t step = gridDim.x * (blockDim.x >> 5);
  for (std::uint32_t t = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); t < ntiles; t += step) {
    const TileAt a = tile_at<TY, TZ>(g, t);
    const int nzr = (TZ > 1 && a.tz > 0) ? TY : 0, nyr = a.ty > 0 ? TZ : 0, nxr = a.tx > 0 ? 1 : 0;
    const int nrows = nzr + nyr + nxr;
    if (nrows == 0) continue;  // warp-uniform
    // Global index of the root at position p of the tile holding pixel (z, y, x).
    auto global_of = [&](std::int64_t z, std::int64_t y, std::int64_t x, int p) {
      const int r = p >> 5;
      return static_cast<I>(((z & ~std::int64_t(TZ - 1)) + r / TY) * a.plane +
                            ((y & ~std::int64_t(TY - 1)) + r % TY) * g.nx + (x & ~std::int64_t(31)) + (p & 31));
    };
    auto load = [&](int i, FaceRow<I>& fr) {
      fr.A = -1;
#pragma unroll
      for (int o = 0; o < 9; ++o) fr.B[o] = -1;
      // (z, y, x) of the A pixel and the allowed [lo, hi) ranges of u + du and v + dv.
      std::int64_t z, y, x;
      std::int64_t ulo, uhi, vlo, vhi;
      int kind;
      if (i < nzr) {
        kind = 0;
        z = a.Z0, y = a.Y0 + i, x = a.X0 + lane;
        ulo = 0, uhi = g.ny, vlo = 0, vhi = g.nx;
      } else if (i < nzr + nyr) {
        kind = 1;
        z = a.Z0 + (i - nzr), y = a.Y0, x = a.X0 + lane;
        ulo = a.Z0, uhi = std::min<std::int64_t>(a.Z0 + TZ, g.nz), vlo = 0, vhi = g.nx;
      } else {
        kind = 2;
        z = a.Z0 + lane / TY, y = a.Y0 + lane % TY, x = a.X0;
        ulo = a.Z0, uhi = std::min<std::int64_t>(a.Z0 + TZ, g.nz);
        vlo = a.Y0, vhi = std::min<std::int64_t>(a.Y0 + TY, g.ny);
      }
      if (z >= g.nz || y >= g.ny || x >= g.nx) return;
      const std::int64_t u = kind == 0 ? y : z, v = kind == 2 ? y : x;
      const std::uint16_t* fa = kind == 0 ? f.za : kind == 1 ? f.ya : f.xa;
      const std::uint16_t* fb = kind == 0 ? f.zb : kind == 1 ? f.yb : f.xb;
      const std::int64_t nu = kind == 0 ? g.ny : g.nz, nv = kind == 2 ? g.ny : g.nx;
      const std::int64_t tc = kind == 0 ? a.tz : kind == 1 ? a.ty : a.tx;  // tile coordinate along the axis
      const int pa = __ldg(fa + (tc * nu + u) * nv + v);
      if (pa == kNoRoot) return;
      fr.A = global_of(z, y, x, pa);
      const std::uint16_t* fb0 = fb + ((tc - 1) * nu + u) * nv + v;  // the B entry at offset (0, 0)
      const bool um = u > ulo, up = u + 1 < uhi, vm = v > vlo, vp = v + 1 < vhi;
      // The B pixel at offset (0, 0): the A pixel's mirror behind the face.
      const std::int64_t zb = kind == 0 ? z - 1 : z, yb = kind == 1 ? y - 1 : y, xb = kind == 2 ? x - 1 : x;
      std::int64_t ka = 0;
      if constexpr (!kBin) ka = key(in[(z * g.ny + y) * g.nx + x]);
#pragma unroll
      for (int o = 0; o < 9; ++o) {
        if (o >= nofs) break;  // uniform
        const int du = face_du(o), dv = face_dv(o);
        if ((du < 0 && !um) || (du > 0 && !up) || (dv < 0 && !vm) || (dv > 0 && !vp)) continue;
        const int pb = __ldg(fb0 + du * nv + dv);
        if (pb == kNoRoot) continue;
        // (z, y, x) of this B pixel: u is y for z faces, z otherwise; v is y for x faces, x otherwise
        const std::int64_t bz = zb + (kind != 0 ? du : 0), by = yb + (kind == 0 ? du : kind == 2 ? dv : 0),
                           bx = xb + (kind != 2 ? dv : 0);
        if constexpr (!kBin) {
          if (key(in[(bz * g.ny + by) * g.nx + bx]) != ka) continue;
        }
        fr.B[o] = global_of(bz, by, bx, pb);
      }
    };
    auto join = [&](const FaceRow<I>& fr) {
      const I Aprev = __shfl_up_sync(kFull, fr.A, 1);
#pragma unroll
      for (int o = 0; o < 9; ++o) {
        if (o >= nofs) break;  // uniform
        const I Bprev = __shfl_up_sync(kFull, fr.B[o], 1);
        if (fr.B[o] < 0) continue;
        if (lane > 0 && Aprev == fr.A && Bprev == fr.B[o]) continue;
        bool dup = false;
#pragma unroll
        for (int q = 0; q < o; ++q) dup |= fr.B[q] == fr.B[o];
        if (!dup) ccl_union<I>(parent, fr.A, fr.B[o]);
      }
    };
    FaceRow<I> cur;
    load(0, cur);
    for (int i = 0; i < nrows; ++i) {
      FaceRow<I> nxt;
      if (pipe && i + 1 < nrows) load(i + 1, nxt);
      join(cur);
      if (!pipe && i + 1 < nrows) load(i + 1, nxt);
      cur = nxt;
    }
  }
}

/// Pass 3. Over the root bitmap: a tile-local root that is no longer a root after the face pass
/// gets its final root as parent and leaves the bitmap, which then marks exactly the regions'
/// first pixels. Each thread writes only its own roots' entries, and only with their final root
/// (read-only finds: halving could re-point an entry another thread has just set to its final
/// root at an intermediate node), so afterwards parent[R] is R's final root for every local root R
/// and the final pass needs one load per root, inside its own tile.
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
      parent[R] = cuskimage::detail::ccl_find<I>(parent, p);
      keep &= ~(1u << b);
    }
    if (keep != w) roots[i] = keep;
  }
}

/// The final pass's shared memory per warp.
template <class I, int kMaxRuns>
struct FinalSmem {
  I lab[kMaxRuns];  // label of every run
  int base[32];     // ordinal of each row's first run
  std::uint32_t starts[32];
};

/// 16-byte global stores (a plain int4 assignment was split into four 4-byte stores).
__device__ __forceinline__ void store16(std::int32_t* p, std::int32_t a, std::int32_t b, std::int32_t c,
                                        std::int32_t d) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.global.v4.s32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(a), "r"(b), "r"(c), "r"(d) : "memory");
#else  // host compilers (the SIMT emulator)
  p[0] = a, p[1] = b, p[2] = c, p[3] = d;
#endif
}
__device__ __forceinline__ void store16(std::int64_t* p, std::int64_t a, std::int64_t b) {
#if defined(__CUDA_ARCH__)
  asm volatile("st.global.v2.s64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
#else
  p[0] = a, p[1] = b;
#endif
}

/// Final-pass stores: 16-byte words (rows a multiple of 16 bytes long, out 16-byte aligned), else
/// a label per lane and row.
constexpr int kStoreWide = 1;

/// Pass 4 (after the scan of the bitmap's popcounts: first[i] = final roots before word i).
/// From pass 1's Work record, without the image: the tile's root runs look up their region's
/// label (rank of the final root + 1), every run takes its root's, and the warp writes every
/// pixel of the tile. parent may alias out: a tile reads parent only at its own roots (one load
/// each, never following the pointer), before it writes them, and no other tile reads them.
template <class I, class L, int TY, int TZ, int kMaxRuns>
__global__ void __launch_bounds__(128, sizeof(I) == 4 ? 12 : 8)
    final_kernel(Work w, const I* parent, const unsigned* __restrict__ roots, const I* __restrict__ first, L* out,
                 Geom g, int mode) {
  using Sm = FinalSmem<I, kMaxRuns>;
  constexpr int W = 4;
  __shared__ Sm smem[W];
  const int warp = static_cast<int>(threadIdx.x >> 5), lane = static_cast<int>(threadIdx.x & 31);
  Sm& sm = smem[warp];
  const auto ntiles = static_cast<std::uint32_t>(g.ntiles);
  const std::uint32_t step = gridDim.x * W;
  for (std::uint32_t t = blockIdx.x * W + warp; t < ntiles; t += step) {
    const TileAt a = tile_at<TY, TZ>(g, t);
    const uint2 rw = w.rows[std::int64_t(t) * 32 + lane];
    const std::uint32_t F = rw.x, S = rw.y;
    const int nr = __popc(S);
    int incl = nr;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const int v = __shfl_up_sync(kFull, incl, d);
      if (lane >= d) incl += v;
    }
    const int base = incl - nr;
    const int total = __shfl_sync(kFull, incl, 31);
    sm.base[lane] = base;
    sm.starts[lane] = S;
    __syncwarp();
    const uint4* rec = reinterpret_cast<const uint4*>(w.runs + std::int64_t(t) * kMaxRuns);
    auto unpack = [](const uint4& q, int k) {
      const unsigned v = k < 2 ? q.x : k < 4 ? q.y : k < 6 ? q.z : q.w;
      return static_cast<int>((k & 1) ? v >> 16 : v & 0xffffu);
    };

    // 1. Labels of the root runs (8 runs per lane; a root run is its own root).
    for (int o0 = lane * 8; o0 < total; o0 += 256) {
      const uint4 q = rec[o0 / 8];
      I R[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const int o = o0 + k;
        R[k] = -1;
        if (o < total && unpack(q, k) == o) {
          int r = 0;  // the row holding run o: the last row whose first ordinal is <= o
#pragma unroll
          for (int s = 16; s >= 1; s >>= 1)
            if (sm.base[r + s] <= o) r += s;
          const int x = nth_bit(sm.starts[r], o - sm.base[r]);
          R[k] = static_cast<I>(a.base + row_offset<TY>(a, g, r) + x);
        }
      }
      I P[8];
#pragma unroll
      for (int k = 0; k < 8; ++k) P[k] = R[k] >= 0 ? parent[R[k]] : I(0);
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        if (R[k] < 0) continue;
        const std::int64_t wd = static_cast<std::int64_t>(P[k]) >> 5;
        const unsigned below = __ldg(roots + wd) & ((1u << (static_cast<int>(P[k]) & 31)) - 1u);
        sm.lab[o0 + k] = static_cast<I>(__ldg(first + wd) + static_cast<I>(__popc(below)) + 1);
      }
    }
    __syncwarp();
    // 2. Every other run takes its root's label (roots' entries are only read here).
    for (int o0 = lane * 8; o0 < total; o0 += 256) {
      const uint4 q = rec[o0 / 8];
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const int o = o0 + k, nd = unpack(q, k);
        if (o < total && nd != o) sm.lab[o] = sm.lab[nd];
      }
    }
    __syncwarp();

    // 3. Every pixel of the tile.
    const std::uint32_t rows_ok = __ballot_sync(kFull, row_inside<TY>(a, g, lane));
    auto label_at = [&](std::uint32_t Fr, std::uint32_t Sr, int br, int x) -> L {
      return ((Fr >> x) & 1u) ? static_cast<L>(sm.lab[run_of(br, Sr, x)]) : L(0);
    };
    if (mode & kStoreWide) {
      constexpr int PX = 16 / sizeof(L);  // pixels per 16-byte word: 4 (int32) or 2 (int64)
      constexpr int LPR = 32 / PX;        // lanes per row
      constexpr int RPI = 32 / LPR;       // rows per store instruction
#pragma unroll 2
      for (int i = 0; i < 32 / RPI; ++i) {
        const int r = i * RPI + lane / LPR, c = (lane % LPR) * PX;
        const std::uint32_t Fr = __shfl_sync(kFull, F, r), Sr = __shfl_sync(kFull, S, r);
        const int br = __shfl_sync(kFull, base, r);
        if (((rows_ok >> r) & 1u) && a.X0 + c < g.nx) {
          L* dst = out + a.base + row_offset<TY>(a, g, r) + c;
          if constexpr (PX == 4) {
            store16(dst, label_at(Fr, Sr, br, c), label_at(Fr, Sr, br, c + 1), label_at(Fr, Sr, br, c + 2),
                    label_at(Fr, Sr, br, c + 3));
          } else {
            store16(dst, label_at(Fr, Sr, br, c), label_at(Fr, Sr, br, c + 1));
          }
        }
      }
    } else {
      const bool xin = a.X0 + lane < g.nx;
#pragma unroll 4
      for (int r = 0; r < 32; ++r) {
        const std::uint32_t Fr = __shfl_sync(kFull, F, r), Sr = __shfl_sync(kFull, S, r);
        const int br = __shfl_sync(kFull, base, r);
        if (xin && ((rows_ok >> r) & 1u)) out[a.base + row_offset<TY>(a, g, r) + lane] = label_at(Fr, Sr, br, lane);
      }
    }
    __syncwarp();  // sm is reused by the warp's next tile
  }
}

}  // namespace cuskimage::measure::detail::lbl
