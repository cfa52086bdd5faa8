// Passes 2 and 3 of measure.label (kernels/measure/label_kernels.cuh has the account): the tiles'
// roots joined across tile faces (kernels/core/union_find.cuh's union), then the local roots
// pointed at their final roots.
#pragma once

#include <cstdint>

#include "kernels/core/union_find.cuh"
#include "kernels/measure/label_tile.cuh"

namespace cuskimage::measure::detail::lbl {

using cuskimage::detail::ccl_union;

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
/// one ahead of the unions. A union is skipped when the same root pair is this lane's for
/// an earlier offset, or the previous lane's for the same offset (by induction over lanes and
/// offsets it is performed or implied there).
template <class T, class I, int TY, int TZ>
__global__ void __launch_bounds__(256, 4)
    face_kernel(const T* __restrict__ in, I* parent, Faces f, Geom g, LabelKey key, int conn) {
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
      if (i + 1 < nrows) load(i + 1, nxt);
      join(cur);
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

}  // namespace cuskimage::measure::detail::lbl
