// Pass 1 of measure.label (kernels/measure/label_kernels.cuh has the account): the rows of a tile
// loaded as masks, their runs joined across the tile's rows, and the local kernel that leaves the
// work records.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/measure/label_tile.cuh"

namespace cuskimage::measure::detail::lbl {

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
  // Volatile like every access of the unions above: the lanes' racing reads and writes are relaxed
  // accesses, not data races (racecheck still lists them as hazards; see ARCHITECTURE.md).
  volatile int* node = sm.node;
  for (int o = lane; o < total; o += 32) node[o] = tile_root(node, o);
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
  for (std::uint32_t t = t0; t < ntiles; t += step) {
    const TileAt a = tile_at<TY, TZ>(g, t);
    const bool row_in = row_inside<TY>(a, g, lane);
    const std::int64_t row0 = a.base + row_offset<TY>(a, g, lane);  // global index of the row's pixel x = 0

    std::uint32_t F, L;
    std::uint32_t E[NK][3];
    if constexpr (wide) {
      uint4 lo, hi;
      load_row_wide<TY>(in, g, a, lane, lo, hi);
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

}  // namespace cuskimage::measure::detail::lbl
