// CUDA 3-D convex hulls: convex_hull_image of a volume and the batched per-region hulls of
// regionprops, scikit-image's N-d path exactly (src/morphology/convex_hull3d.hpp has the quickhull,
// convex_hull_ops.hpp the exact planes and the voxel test the CPU backend uses too).
//
// Pipeline, every stage one launch for all hulls (regions) at once:
//  1. line extents: one warp per (plane, row) line of each region's box: the first and last voxel.
//  2. planar filters: one thread per plane (p = const) and one per row plane (r = const) of each
//     box runs the 2-D monotone chain (skeleton_ops.hpp's convexity test) over the lines' extremes;
//     a voxel is a candidate only if it is a vertex of both 2-D hulls (a vertex of the 3-D hull is
//     a vertex of the hull of the voxels of any plane through it). Ball(100): 62.8 k line extremes,
//     9.1 k candidates.
//  3. candidates compacted with CUB (doubled coordinates); their count is read back (sync 1).
//  4. with offset_coordinates the 6 face centres of every candidate (the same polytope as
//     scikit-image's hull of the face centres of its first hull's vertices; the candidates are only
//     tested for flatness). The quickhull, one block per hull (512 threads for hulls of 4 k+
//     points, 128 from 512, 32 below), keeps its facet planes reduced, without coplanar
//     duplicates and with the tolerance folded in.
//  5. the mask: one block per 8 x 32 (plane, row) columns of a box (hull3_mask_tile): facets that
//     cut the tile's box (all of the box's z) are gathered in shared memory in chunks, every thread
//     narrows its column's z-interval by them (hull3_clip_tight), the tile's rows are written in one
//     coalesced pass and the voxels counted. Statuses and counts are read back (sync 2).
// Bytes: the volume read once (16 MiB for 256^3 uint8: 4 us at 4.2 TB/s) and the mask written once
// (16 MiB: 4 us); everything else is O(lines) = O(volume^(2/3)). The hull itself is latency bound:
// a round is ~20 block barriers and a few chains of dependent global loads (the visibility walks,
// one round of loads per visited facet; the winner selection, ~4 iterations of two; the cone
// linking; one pass over the live entries, eight per thread at a time, plus the reassignment of
// the replaced facets' points). Ball(100) with offsets: 90 rounds, 7.1 k points inserted, 702 k
// reassignments, 2.3 M entry visits.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <type_traits>
#include <cstdint>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <vector>

#include "cuskimage/error.hpp"
#include "kernels/core/buffers.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/morphology/convex_hull3d.hpp"
#include "src/morphology/convex_hull_ops.hpp"
#include "src/morphology/skeleton_ops.hpp"

namespace cuskimage::morphology::detail {
namespace {

using i64 = std::int64_t;
using u64 = unsigned long long;

unsigned grid_for(i64 total, int per) {
  return static_cast<unsigned>(std::clamp<i64>((total + per - 1) / per, 1, i64(1) << 20));
}

using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
using cuskimage::detail::buf::scratch;

/// Host values packed for one upload per stage (each upload goes through pinned staging; a
/// second one from the same thread would wait for the first one's copy, which is stream-ordered
/// behind the kernels queued before it).
struct Pack {
  std::vector<i64> v;
  i64 add(const std::vector<i64>& x) {
    const i64 at = static_cast<i64>(v.size());
    v.insert(v.end(), x.begin(), x.end());
    return at;
  }
  /// Host -> device through pinned staging (stream-ordered; returns once the bytes are staged).
  Array upload(Device dev, const Stream& s) const {
    std::vector<i64> w = v;
    if (w.empty()) w.push_back(0);
    return Array::from_vector(w, {static_cast<i64>(w.size())}).to(dev, s);
  }
};

/// Device -> host through pinned staging: `to` waits for the copy (ordered on s), so nothing
/// queues on or waits for another stream (a cudaMemcpyAsync into pageable memory would).
Array read_back(const Array& a, const Stream& s) { return a.to(Device::cpu(), s); }

/// The last k in [0, n) with off[k] <= i (off ascending).
__device__ __forceinline__ i64 segment_of(const i64* __restrict__ off, i64 n, i64 i) {
  i64 lo = 0, hi = n;
  while (hi - lo > 1) {
    const i64 mid = (lo + hi) >> 1;
    if (off[mid] <= i) lo = mid; else hi = mid;
  }
  return lo;
}

// ---- the block executor of the quickhull ---------------------------------------------------------

template <int NT>
struct BlockEx {
  using Scan = cub::BlockScan<int, NT>;
  typename Scan::TempStorage* ts;
  CUSK_HD int tid() const {
#if defined(__CUDA_ARCH__)
    return static_cast<int>(threadIdx.x);
#else
    return 0;
#endif
  }
  CUSK_HD int size() const { return NT; }
  CUSK_HD void sync() const {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
  }
  CUSK_HD int scan(int v, int& total) const {
    int r = 0;
#if defined(__CUDA_ARCH__)
    Scan(*ts).ExclusiveSum(v, r, total);
    __syncthreads();
#else
    total = v;
#endif
    return r;
  }
  CUSK_HD void amin(int* p, int v) const {
#if defined(__CUDA_ARCH__)
    atomicMin(p, v);
#else
    if (v < *p) *p = v;
#endif
  }
  CUSK_HD void amax(int* p, int v) const {
#if defined(__CUDA_ARCH__)
    atomicMax(p, v);
#else
    if (v > *p) *p = v;
#endif
  }
  CUSK_HD int aadd(int* p, int v) const {
#if defined(__CUDA_ARCH__)
    return atomicAdd(p, v);
#else
    const int o = *p;
    *p += v;
    return o;
#endif
  }
  CUSK_HD void aadd64(u64* p, u64 v) const {
#if defined(__CUDA_ARCH__)
    atomicAdd(p, v);
#else
    *p += v;
#endif
  }
  CUSK_HD void amin64(u64* p, u64 v) const {
#if defined(__CUDA_ARCH__)
    atomicMin(p, v);
#else
    if (v < *p) *p = v;
#endif
  }
  CUSK_HD void amax64(u64* p, u64 v) const {
#if defined(__CUDA_ARCH__)
    atomicMax(p, v);
#else
    if (v > *p) *p = v;
#endif
  }
};

// ---- 1. line extents -------------------------------------------------------------------------------

/// Region geometry on the device: per region (origin p, r, c, shape P, R, C) and the CSR of its
/// box's lines (P * R each).
struct Geom {
  const i64* geo;
  const i64* line_off;
  i64 n;
};

template <class T>
struct ImageFg {  // the whole image is region 0
  const T* img;
  __device__ const T* row(const Geom& g, i64, i64 p, i64 r) const { return img + (p * g.geo[4] + r) * g.geo[5]; }
  __device__ bool test(const T* row, i64 c) const { return hull3_fg(row[c]); }
};

template <class L>
struct LabelIs {
  const L* lab;
  const i64* label;  // per region
  i64 R, C;          // of the label image
  __device__ const L* row(const Geom& g, i64 k, i64 p, i64 r) const {
    const i64* o = g.geo + 6 * k;
    return lab + ((o[0] + p) * R + o[1] + r) * C + o[2];
  }
};

template <class M, class V>
__device__ __forceinline__ bool mask_test(const M& m, const V* row, i64 c, i64) {
  return m.test(row, c);
}
template <class L>
__device__ __forceinline__ bool mask_test(const LabelIs<L>& m, const L* row, i64 c, i64 k) {
  return row[c] == static_cast<L>(m.label[k]);
}

template <class M, class V>
__global__ void __launch_bounds__(256)
    line_extent_kernel(M m, Geom g, i64 nlines, std::int32_t* __restrict__ lo, std::int32_t* __restrict__ hi) {
  const int lane = threadIdx.x & 31;
  const i64 warps = i64(gridDim.x) * (blockDim.x / 32);
  for (i64 line = (i64(blockIdx.x) * blockDim.x + threadIdx.x) / 32; line < nlines; line += warps) {
    const i64 k = segment_of(g.line_off, g.n, line), local = line - g.line_off[k];
    const i64 R = g.geo[6 * k + 4], C = g.geo[6 * k + 5];
    const i64 p = local / R, r = local - p * R;
    const V* row = m.row(g, k, p, r);
    int a = INT_MAX, b = -1;
    for (i64 c = lane; c < C; c += 32)
      if (mask_test(m, row, c, k)) {
        if (a == INT_MAX) a = static_cast<int>(c);
        b = static_cast<int>(c);
      }
    for (int o = 16; o > 0; o >>= 1) {
      a = min(a, __shfl_xor_sync(0xffffffffu, a, o));
      b = max(b, __shfl_xor_sync(0xffffffffu, b, o));
    }
    if (lane == 0) {
      lo[line] = a;
      hi[line] = b;
    }
  }
}

// ---- 2. planar filters -------------------------------------------------------------------------------

/// Task j of region k: j < P: the plane p = j (its lines (p, 0..R-1), x = r); else the row plane
/// r = j - P (lines (0..P-1, r), x = p). The lower chain of the lines' first voxels and the upper
/// chain of their last voxels (y = column); chain members get bit 1 (first) / 2 (last) in f2 (planes)
/// or f3 (row planes). Stacks hold x values: 4 ints per line in all.
__global__ void __launch_bounds__(128)
    chain_kernel(Geom g, const i64* __restrict__ task_off, i64 ntasks, const std::int32_t* __restrict__ lo,
                 const std::int32_t* __restrict__ hi, std::int32_t* __restrict__ stack, std::uint8_t* __restrict__ f2,
                 std::uint8_t* __restrict__ f3) {
  const i64 stride = i64(gridDim.x) * blockDim.x;
  for (i64 task = i64(blockIdx.x) * blockDim.x + threadIdx.x; task < ntasks; task += stride) {
    const i64 k = segment_of(task_off, g.n, task), j = task - task_off[k];
    const i64 P = g.geo[6 * k + 3], R = g.geo[6 * k + 4], l0 = g.line_off[k];
    const bool plane = j < P;
    const i64 len = plane ? R : P;
    // line of x: plane: l0 + j R + x; row plane: l0 + x R + (j - P)
    const i64 lbase = plane ? l0 + j * R : l0 + (j - P), lstep = plane ? 1 : R;
    std::int32_t* low = stack + 4 * l0 + (plane ? j * 2 * R : 2 * P * R + (j - P) * 2 * P);
    hull3_chain_task(lo, hi, lbase, lstep, len, low, low + len, plane ? f2 : f3);
  }
}

// ---- 3. candidates -----------------------------------------------------------------------------------

__global__ void __launch_bounds__(256)
    cand_count_kernel(i64 nlines, const std::int32_t* __restrict__ lo, const std::int32_t* __restrict__ hi,
                      const std::uint8_t* __restrict__ f2, const std::uint8_t* __restrict__ f3, i64* __restrict__ cnt) {
  const i64 stride = i64(gridDim.x) * blockDim.x;
  for (i64 l = i64(blockIdx.x) * blockDim.x + threadIdx.x; l <= nlines; l += stride) {
    if (l == nlines) {
      cnt[l] = 0;
      continue;
    }
    bool first, last;
    hull3_line_candidates(lo[l], hi[l], f2[l], f3[l], first, last);
    cnt[l] = i64(first) + i64(last);
  }
}

__global__ void __launch_bounds__(256)
    cand_write_kernel(Geom g, i64 nlines, const std::int32_t* __restrict__ lo, const std::int32_t* __restrict__ hi,
                      const std::uint8_t* __restrict__ f2, const std::uint8_t* __restrict__ f3,
                      const i64* __restrict__ at, Hull3Pt* __restrict__ pts) {
  const i64 stride = i64(gridDim.x) * blockDim.x;
  for (i64 l = i64(blockIdx.x) * blockDim.x + threadIdx.x; l < nlines; l += stride) {
    bool first, last;
    hull3_line_candidates(lo[l], hi[l], f2[l], f3[l], first, last);
    if (!first && !last) continue;
    const i64 k = segment_of(g.line_off, g.n, l), local = l - g.line_off[k], R = g.geo[6 * k + 4];
    const std::int32_t p = static_cast<std::int32_t>(2 * (local / R)), r = static_cast<std::int32_t>(2 * (local % R));
    i64 o = at[l];
    if (first) pts[o++] = Hull3Pt{p, r, 2 * lo[l]};
    if (last) pts[o] = Hull3Pt{p, r, 2 * hi[l]};
  }
}

/// seg[k] = at[line_off[k]] for k <= n.
__global__ void seg_off_kernel(const i64* __restrict__ line_off, i64 n, const i64* __restrict__ at,
                               i64* __restrict__ seg) {
  const i64 k = i64(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k <= n) seg[k] = at[line_off[k]];
}

/// Caller's voxel coordinates -> doubled.
__global__ void double_points_kernel(const std::int32_t* __restrict__ in, i64 n, Hull3Pt* __restrict__ out) {
  const i64 stride = i64(gridDim.x) * blockDim.x;
  for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    out[i] = Hull3Pt{2 * in[3 * i], 2 * in[3 * i + 1], 2 * in[3 * i + 2]};
}

// ---- 4. hulls ----------------------------------------------------------------------------------------

struct HullArgs {
  Hull3Pools pools;
  const Hull3Pt* pts;
  const i64* off;          // nseg + 1
  const i64* ids;          // the segments of this launch
  const Hull3Pt* base;      // optional: the voxels of the face centres pts (flat test), CSR base_off
  const i64* base_off;
  Hull3Plane* planes;  // at hull3_facet_off(off[k], k)
  std::int32_t* nplanes;
  std::int32_t* status;
  double tolerance;
};

template <int NT>
__global__ void __launch_bounds__(NT, 512 / NT) hull_kernel(HullArgs a) {  // up to 128 registers
  __shared__ Hull3Shared sh;
  __shared__ typename cub::BlockScan<int, NT>::TempStorage ts;
  const i64 k = a.ids[blockIdx.x], o = a.off[k], n = a.off[k + 1] - o;
  const Hull3Work w = hull3_work(a.pools, a.pts, o, n, k);
  BlockEx<NT> ex{&ts};
  const i64 bo = a.base ? a.base_off[k] : 0, nb = a.base ? a.base_off[k + 1] - bo : 0;
  hull3_build(ex, sh, w, a.base ? a.base + bo : nullptr, static_cast<int>(nb));
  hull3_finalize(ex, sh, w, a.planes + hull3_facet_off(o, k), a.nplanes + k, a.tolerance);
  if (threadIdx.x == 0) a.status[k] = sh.status;
}

/// The 6 face centres of every point of each segment (off1 = 6 off0).
__global__ void __launch_bounds__(256)
    offsets_kernel(const Hull3Pt* __restrict__ verts, const i64* __restrict__ off0, const i64* __restrict__ off1, i64 n,
                   i64 total, Hull3Pt* __restrict__ out) {
  const i64 stride = i64(gridDim.x) * blockDim.x;
  for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const i64 k = segment_of(off1, n, i), j = (i - off1[k]) / 6;
    const int o = static_cast<int>((i - off1[k]) % 6);
    const Hull3Pt v = verts[off0[k] + j];
    const std::int32_t d = (o & 1) ? 1 : -1;  // o = 2 axis + (+1 ? 1 : 0)
    out[i] = Hull3Pt{v.x + (o >> 1 == 0 ? d : 0), v.y + (o >> 1 == 1 ? d : 0), v.z + (o >> 1 == 2 ? d : 0)};
  }
}

// ---- 5. masks and counts -------------------------------------------------------------------------------

constexpr int kTileP = kHull3TileP, kTileR = kHull3TileR, kMaskThreads = kHull3TileCols;

struct MaskArgs {
  const i64* tile_off;  // nseg + 1
  i64 nseg, ntiles;
  const i64* box;  // 3 per segment
  const i64* off;  // the final hulls' point offsets (their planes at hull3_facet_off(off[k], k))
  const Hull3Plane* planes;
  const std::int32_t* nplanes;
  const std::int32_t* status;
  bool* images;
  const i64* img_off;
  u64* count;
};

/// One block per tile of kHull3TileP x kHull3TileR columns (hull3_mask_tile), grid-stride.
__global__ void __launch_bounds__(kMaskThreads) mask_kernel(MaskArgs a) {
  __shared__ Hull3TileShared sm;
  BlockEx<kMaskThreads> ex{nullptr};
  for (i64 tile = blockIdx.x; tile < a.ntiles; tile += gridDim.x) {
    const i64 k = segment_of(a.tile_off, a.nseg, tile), lt = tile - a.tile_off[k];
    const i64 P = a.box[3 * k], R = a.box[3 * k + 1], C = a.box[3 * k + 2];
    const i64 ntr = (R + kTileR - 1) / kTileR;
    const bool flat = a.status[k] != kHull3Ok;
    const u64 n =
        hull3_mask_tile(ex, sm, a.planes + hull3_facet_off(a.off[k], k), flat ? 0 : a.nplanes[k], flat, P, R, C,
                        (lt / ntr) * kTileP, (lt % ntr) * kTileR, a.images ? a.images + a.img_off[k] : nullptr);
    if (threadIdx.x == 0 && n) atomicAdd(&a.count[k], n);
  }
}

// ---- host orchestration ----------------------------------------------------------------------------------
// Stream discipline: everything is queued on the caller's stream `s`: allocations from the
// stream-ordered pool (freed on s), kernels and CUB on s, host values in one upload per stage
// (Pack) and results back through pinned staging (read_back), so nothing touches the legacy
// default stream or synchronises the device. The host waits twice: for the candidate counts (to
// size the hull scratch) and for the results.

// Block size by the hull's points: 512 threads from 4096 points, 128 from 512, one warp below
// (regionprops' typical hull: 14 k regions of a 192^3 label volume have at most 48 candidates,
// 288 points; a warp-sized block leaves 16 of them resident per SM instead of 4).
constexpr i64 kBigHull = 4096, kMidHull = 512;
constexpr i64 kMaxHullPoints = i64(1) << 28;

/// Scratch pools for N points in S hulls.
struct Pools {
  Array buf;
  Hull3Pools p{};
};

Pools make_pools(i64 N, i64 S, Device dev, const Stream& s) {
  const i64 F = hull3_facet_off(N, S), V = hull3_vis_off(N, S), H = hull3_hor_off(N, S);
  std::size_t bytes = 0;
  auto take = [&](i64 count, std::size_t size) {
    const std::size_t at = bytes;
    bytes += (static_cast<std::size_t>(std::max<i64>(count, 1)) * size + 255) / 256 * 256;
    return at;
  };
  const std::size_t o_fac = take(F, sizeof(Hull3Facet)), o_u64 = take(3 * F, 8), o_i32 = take(8 * F, 4),
                    o_pt = take(4 * N, 4), o_vis = take(V, 4), o_hor = take(H, sizeof(Hull3Edge)),
                    o_cone = take(H, sizeof(Hull3Cone));
  Pools r;
  r.buf = scratch(bytes, dev, s);
  auto* b = static_cast<std::uint8_t*>(r.buf.data());
  r.p.fac = reinterpret_cast<Hull3Facet*>(b + o_fac);
  u64* l = reinterpret_cast<u64*>(b + o_u64);
  r.p.best = l;
  r.p.claim = l + F;
  r.p.cln = l + 2 * F;
  std::int32_t* q = reinterpret_cast<std::int32_t*>(b + o_i32);
  r.p.mark = q;
  r.p.win = q + F;
  r.p.pfacet = q + 2 * F;
  r.p.ppoint = q + 3 * F;
  r.p.pnvis = q + 4 * F;
  r.p.pnhor = q + 5 * F;
  r.p.pwin = q + 6 * F;
  r.p.pextra = q + 7 * F;
  std::int32_t* pp = reinterpret_cast<std::int32_t*>(b + o_pt);
  r.p.lp0 = pp;
  r.p.lf0 = pp + N;
  r.p.lp1 = pp + 2 * N;
  r.p.lf1 = pp + 3 * N;
  r.p.vis = reinterpret_cast<std::int32_t*>(b + o_vis);
  r.p.hor = reinterpret_cast<Hull3Edge*>(b + o_hor);
  r.p.cone = reinterpret_cast<Hull3Cone*>(b + o_cone);
  return r;
}

/// Hulls, masks and counts of the segments [off0[k], off0[k+1]) of doubled candidate points.
void run_core(const Array& pts0, const std::vector<i64>& off0, const std::vector<i64>& box, const Hull3Options& opts,
              Hull3Output& out, const Stream& s) {
  const Device dev = pts0.device();
  const i64 n = static_cast<i64>(off0.size()) - 1;
  const bool off = opts.offset_coordinates;
  out.count.assign(static_cast<std::size_t>(n), 0);
  out.flat.assign(static_cast<std::size_t>(n), 0);
  out.planes = Array();
  out.plane_off.assign(1, 0);
  out.nplanes.clear();
  if (n == 0) return;
  // scikit-image takes the hull of the voxels, then of the 6 face centres of its vertices: the
  // same polytope as the hull of the face centres of every candidate (conv(S + O) =
  // conv(vert(conv S) + O)), which needs one quickhull instead of two and no read-back; the
  // voxels themselves are only tested for flatness (scikit-image's first Qhull fails on them).
  std::vector<i64> off1;
  if (off) {
    off1.resize(off0.size());
    for (std::size_t k = 0; k < off0.size(); ++k) off1[k] = 6 * off0[k];
  }
  const std::vector<i64>& fin = off ? off1 : off0;
  const i64 NF = fin[n];
  std::vector<i64> big, mid, small;
  for (i64 k = 0; k < n; ++k) {
    const i64 m = fin[k + 1] - fin[k];
    if (m > kMaxHullPoints)
      throw NotSupported("morphology.convex_hull_image: a 3-D hull of more than 2^28 candidate voxels");
    (m >= kBigHull ? big : m >= kMidHull ? mid : small).push_back(k);
  }
  std::vector<i64> tile_off(static_cast<std::size_t>(n) + 1, 0);
  for (i64 k = 0; k < n; ++k) {
    const i64 P = box[3 * k], R = box[3 * k + 1];
    tile_off[k + 1] = tile_off[k] + (P + kTileP - 1) / kTileP * ((R + kTileR - 1) / kTileR);
  }
  Pack pk;
  const i64 a_off0 = pk.add(off0), a_fin = off ? pk.add(off1) : a_off0, a_big = pk.add(big), a_mid = pk.add(mid),
            a_small = pk.add(small),
            a_tile = pk.add(tile_off), a_box = pk.add(box);
  const i64 a_img = opts.images ? pk.add(std::vector<i64>(opts.image_off, opts.image_off + n)) : 0;
  const Array dpk = pk.upload(dev, s);
  const i64* dp = cptr<i64>(dpk);
  // results: status [0, n), plane counts [n, 2n) (int32), voxel counts (uint64) from int32 2n
  Array info = Array::zeros({4 * n}, DType::int32, dev, s);
  std::int32_t* status = ptr<std::int32_t>(info);
  std::int32_t* nplanes = status + n;
  u64* count = reinterpret_cast<u64*>(status + 2 * n);
  Array pts1;
  if (off) {
    pts1 = Array::empty({std::max<i64>(3 * NF, 1)}, DType::int32, dev, s);
    if (NF > 0) {
      offsets_kernel<<<grid_for(NF, 256), 256, 0, s.handle()>>>(cptr<Hull3Pt>(pts0), dp + a_off0, dp + a_fin, n, NF,
                                                                ptr<Hull3Pt>(pts1));
      CUSK_CUDA_CHECK_LAUNCH();
    }
  }
  Pools pools = make_pools(NF, n, dev, s);
  Array planes = Array::empty({std::max<i64>(4 * hull3_facet_off(NF, n), 1)}, DType::int64, dev, s);
  const Hull3Pt* fin_pts = off ? cptr<Hull3Pt>(pts1) : cptr<Hull3Pt>(pts0);
  HullArgs a{pools.p, fin_pts, dp + a_fin, nullptr, off ? cptr<Hull3Pt>(pts0) : nullptr, off ? dp + a_off0 : nullptr,
             ptr<Hull3Plane>(planes), nplanes, status, opts.tolerance};
  if (!big.empty()) {
    a.ids = dp + a_big;
    hull_kernel<512><<<static_cast<unsigned>(big.size()), 512, 0, s.handle()>>>(a);
    CUSK_CUDA_CHECK_LAUNCH();
  }
  if (!mid.empty()) {
    a.ids = dp + a_mid;
    hull_kernel<128><<<static_cast<unsigned>(mid.size()), 128, 0, s.handle()>>>(a);
    CUSK_CUDA_CHECK_LAUNCH();
  }
  if (!small.empty()) {
    a.ids = dp + a_small;
    hull_kernel<32><<<static_cast<unsigned>(small.size()), 32, 0, s.handle()>>>(a);
    CUSK_CUDA_CHECK_LAUNCH();
  }
  const MaskArgs m{dp + a_tile, n, tile_off[n], dp + a_box, dp + a_fin, cptr<Hull3Plane>(planes), nplanes, status,
                   opts.images, opts.images ? dp + a_img : nullptr, count};
  if (tile_off[n] > 0) {
    mask_kernel<<<static_cast<unsigned>(std::min<i64>(tile_off[n], i64(1) << 20)), kMaskThreads, 0, s.handle()>>>(m);
    CUSK_CUDA_CHECK_LAUNCH();
  }
  const Array h = read_back(info, s);
  const std::int32_t* hs = h.data<std::int32_t>();
  const u64* hc = reinterpret_cast<const u64*>(hs + 2 * n);
  for (i64 k = 0; k < n; ++k) {
    if (hs[k] == kHull3Overflow) throw Error("morphology.convex_hull_image: internal error: 3-D hull scratch overflow");
    out.count[k] = static_cast<i64>(hc[k]);
    out.flat[k] = hs[k] == kHull3Flat ? 1 : 0;
  }
  if (opts.want_planes) {
    out.planes = std::move(planes);
    out.plane_off.assign(static_cast<std::size_t>(n) + 1, 0);
    out.nplanes.assign(static_cast<std::size_t>(n), 0);
    for (i64 k = 0; k <= n; ++k) out.plane_off[k] = hull3_facet_off(fin[k], k);
    for (i64 k = 0; k < n; ++k) out.nplanes[k] = hs[k] == kHull3Ok ? hs[n + k] : 0;
  }
}

/// Candidates of every region's box (steps 1-3), then run_core. `label` (LabelIs only): the
/// regions' labels, uploaded with the geometry.
template <class M, class V>
void run_regions(M mask, const std::vector<i64>& geo, const std::vector<i64>* label, const Hull3Options& opts,
                 Hull3Output& out, const Device dev, const Stream& s) {
  const i64 n = static_cast<i64>(geo.size()) / 6;
  std::vector<i64> line_off(static_cast<std::size_t>(n) + 1, 0), task_off(line_off),
      box(static_cast<std::size_t>(3 * n));
  for (i64 k = 0; k < n; ++k) {
    const i64 P = geo[6 * k + 3], R = geo[6 * k + 4], C = geo[6 * k + 5];
    for (i64 e : {P, R, C})
      if (e > kHull3MaxExtent)
        throw NotSupported("morphology.convex_hull_image: a 3-D hull box has an axis of " + std::to_string(e) +
                           " voxels; the exact hull supports up to 262144 per axis");
    line_off[k + 1] = line_off[k] + P * R;
    task_off[k + 1] = task_off[k] + P + R;
    box[3 * k] = P;
    box[3 * k + 1] = R;
    box[3 * k + 2] = C;
  }
  if (n == 0) {
    out = Hull3Output{};
    out.plane_off.assign(1, 0);
    return;
  }
  const i64 NL = line_off[n];
  Pack pk;
  const i64 a_geo = pk.add(geo), a_line = pk.add(line_off), a_task = pk.add(task_off);
  const i64 a_label = label ? pk.add(*label) : 0;
  const Array dpk = pk.upload(dev, s);
  const i64* dp = cptr<i64>(dpk);
  if constexpr (std::is_same_v<M, LabelIs<V>>) mask.label = dp + a_label;
  const Geom g{dp + a_geo, dp + a_line, n};
  Array lo = Array::empty({std::max<i64>(NL, 1)}, DType::int32, dev, s),
        hi = Array::empty({std::max<i64>(NL, 1)}, DType::int32, dev, s);
  Array f2 = Array::empty({std::max<i64>(NL, 1)}, DType::uint8, dev, s),
        f3 = Array::empty({std::max<i64>(NL, 1)}, DType::uint8, dev, s);
  Array at = Array::empty({NL + 1}, DType::int64, dev, s), cnt = Array::empty({NL + 1}, DType::int64, dev, s);
  Array stack = Array::empty({std::max<i64>(4 * NL, 1)}, DType::int32, dev, s);
  if (NL > 0) {
    line_extent_kernel<M, V>
        <<<grid_for(NL * 32, 256), 256, 0, s.handle()>>>(mask, g, NL, ptr<std::int32_t>(lo), ptr<std::int32_t>(hi));
    CUSK_CUDA_CHECK_LAUNCH();
    chain_kernel<<<grid_for(task_off[n], 128), 128, 0, s.handle()>>>(
        g, dp + a_task, task_off[n], cptr<std::int32_t>(lo), cptr<std::int32_t>(hi), ptr<std::int32_t>(stack),
        ptr<std::uint8_t>(f2), ptr<std::uint8_t>(f3));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  cand_count_kernel<<<grid_for(NL + 1, 256), 256, 0, s.handle()>>>(NL, cptr<std::int32_t>(lo), cptr<std::int32_t>(hi),
                                                                   cptr<std::uint8_t>(f2), cptr<std::uint8_t>(f3),
                                                                   ptr<i64>(cnt));
  CUSK_CUDA_CHECK_LAUNCH();
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, cptr<i64>(cnt), ptr<i64>(at), NL + 1, s.handle()));
  Array temp = scratch(bytes, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp.data(), bytes, cptr<i64>(cnt), ptr<i64>(at), NL + 1, s.handle()));
  Array d_seg = Array::empty({n + 1}, DType::int64, dev, s);
  seg_off_kernel<<<grid_for(n + 1, 256), 256, 0, s.handle()>>>(g.line_off, n, cptr<i64>(at), ptr<i64>(d_seg));
  CUSK_CUDA_CHECK_LAUNCH();
  const Array hseg = read_back(d_seg, s);
  const std::vector<i64> seg(hseg.data<i64>(), hseg.data<i64>() + n + 1);
  Array pts = Array::empty({std::max<i64>(3 * seg[n], 1)}, DType::int32, dev, s);
  if (seg[n] > 0) {
    cand_write_kernel<<<grid_for(NL, 256), 256, 0, s.handle()>>>(g, NL, cptr<std::int32_t>(lo), cptr<std::int32_t>(hi),
                                                                 cptr<std::uint8_t>(f2), cptr<std::uint8_t>(f3),
                                                                 cptr<i64>(at), ptr<Hull3Pt>(pts));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  run_core(pts, seg, box, opts, out, s);
}

}  // namespace

template <class T>
void cuda_convex_hull_image_3d(const Array& img, Array& out, bool offset, double tolerance, const Stream& s) {
  const std::vector<i64> geo = {0, 0, 0, img.shape(0), img.shape(1), img.shape(2)};
  const std::vector<i64> img_off = {0};
  Hull3Options o;
  o.offset_coordinates = offset;
  o.tolerance = tolerance;
  o.images = static_cast<bool*>(out.data());
  o.image_off = img_off.data();
  Hull3Output r;
  run_regions<ImageFg<T>, T>(ImageFg<T>{static_cast<const T*>(img.data())}, geo, nullptr, o, r, img.device(), s);
}

void cuda_hull3d_segments(const Hull3Segments& seg, const Hull3Options& opts, Hull3Output& out, const Stream& s) {
  const i64 n = seg.nseg;
  Device dev = Device::cuda();
  {
    int d = 0;
    CUSK_CUDA_CHECK(cudaGetDevice(&d));
    dev = Device::cuda(d);
  }
  std::vector<i64> off(seg.host_offsets, seg.host_offsets + n + 1), box(seg.box, seg.box + 3 * n);
  for (i64 e : box)
    if (e > kHull3MaxExtent) throw NotSupported("morphology 3-D hulls: a box axis above 262144 voxels");
  const i64 N = off[n];
  Array pts = Array::empty({std::max<i64>(3 * N, 1)}, DType::int32, dev, s);
  if (N > 0) {
    double_points_kernel<<<grid_for(N, 256), 256, 0, s.handle()>>>(seg.points, N, ptr<Hull3Pt>(pts));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  run_core(pts, off, box, opts, out, s);
}

template <class L>
void cuda_hull3d_regions(const Array& labels, const std::vector<i64>& label, const std::vector<i64>& lo,
                         const std::vector<i64>& hi, bool* images, const std::vector<i64>* crop_off,
                         std::vector<i64>& count, const Stream& s) {
  const Device dev = labels.device();
  const i64 n = static_cast<i64>(label.size());
  std::vector<i64> geo(static_cast<std::size_t>(6 * n));
  for (i64 k = 0; k < n; ++k)
    for (int a = 0; a < 3; ++a) {
      geo[6 * k + a] = lo[3 * k + a];
      geo[6 * k + 3 + a] = hi[3 * k + a] - lo[3 * k + a];
    }
  Hull3Options o;
  o.images = images;
  o.image_off = images ? crop_off->data() : nullptr;
  Hull3Output r;
  run_regions<LabelIs<L>, L>(
      LabelIs<L>{static_cast<const L*>(labels.data()), nullptr, labels.shape(1), labels.shape(2)}, geo, &label, o, r,
      dev, s);
  count = r.count;
}

#define CUSK_HULL3_CUDA(T) template void cuda_convex_hull_image_3d<T>(const Array&, Array&, bool, double, const Stream&);
CUSK_FOR_EACH_DTYPE(CUSK_HULL3_CUDA)
#undef CUSK_HULL3_CUDA
template void cuda_hull3d_regions<std::int32_t>(const Array&, const std::vector<i64>&, const std::vector<i64>&,
                                                const std::vector<i64>&, bool*, const std::vector<i64>*,
                                                std::vector<i64>&, const Stream&);
template void cuda_hull3d_regions<std::int64_t>(const Array&, const std::vector<i64>&, const std::vector<i64>&,
                                                const std::vector<i64>&, bool*, const std::vector<i64>*,
                                                std::vector<i64>&, const Stream&);

}  // namespace cuskimage::morphology::detail
