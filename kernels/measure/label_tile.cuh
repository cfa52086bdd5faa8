// measure.label's tiles (kernels/measure/label_kernels.cuh has the account): image and tile
// geometry, the per-tile work records, shared-memory layouts, the tile-local union-find over runs
// and the bit tricks on row masks.
#pragma once

#include <cstdint>
#include <type_traits>

#include "src/measure/label.hpp"

namespace cuskimage::measure::detail::lbl {

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

/// Pass-1 load modes (label.cu picks one per image): kLoadWide for bool, uint8 and int8 images
/// whose rows are 16-byte aligned (each lane loads its own row as two 16-byte words), else 0.
constexpr int kLoadWide = 1;

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

}  // namespace cuskimage::measure::detail::lbl
