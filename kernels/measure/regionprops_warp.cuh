// measure.regionprops pass 1, warp strips: the kernel of kernels/measure/regionprops.cu and what
// it shares with the tile kernel there (u64, dkey, SlotMap, Pass1Acc).
//
// A FRAGMENT, not a self-contained header: it is included inside a namespace, by
// kernels/measure/regionprops.cu (nvcc, an anonymous namespace) and by
// tests/measure/test_regionprops_emu.cpp, which compiles the same source on the host under a SIMT
// emulator (tests/measure/warp_emu.hpp: lanes as fibers, shuffles and ballots as exchange points,
// every lane checked to reach the same call) and compares it with a per-pixel oracle. The includer
// provides <cstdint>, <cstring>, <type_traits>, <algorithm>, and CUSK_RP_DYN_SMEM when emulating.
//
// The pieces: regionprops_warp_table.cuh (strip geometry, the warp's hash table, global entries),
// regionprops_warp_kernel.cuh (the kernel); the records pass and the host-side layout are here.
#pragma once

#ifndef CUSK_RP_DYN_SMEM
#define CUSK_RP_DYN_SMEM(name) extern __shared__ __align__(16) unsigned char name[]
#endif

using u64 = unsigned long long;

/// Monotone map of doubles to unsigned keys (for atomicMin/Max of doubles).
__device__ __forceinline__ u64 dkey(double v) {
  const u64 b = static_cast<u64>(__double_as_longlong(v));
  return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}
__host__ __device__ __forceinline__ double dkey_inv(u64 k) {
  const u64 b = (k >> 63) ? (k & 0x7fffffffffffffffull) : ~k;
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(b));
#else
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
#endif
}

/// Label -> slot: the label itself (dense), its row (dense after packing), or its index in the
/// sorted unique labels (sparse).
struct SlotMap {
  const std::int64_t* keys = nullptr;  // sparse
  std::int64_t nkeys = 0;
  const std::int64_t* row_of = nullptr;  // dense rows (pass 2)
  std::int64_t max_label = 0;
  __device__ __forceinline__ std::int64_t slot(std::int64_t l) const {
    if (l <= 0) return -1;
    if (keys) {
      std::int64_t lo = 0, hi = nkeys;
      while (lo < hi) {
        const std::int64_t mid = (lo + hi) >> 1;
        if (keys[mid] < l) lo = mid + 1; else hi = mid;
      }
      return (lo < nkeys && keys[lo] == l) ? lo : -1;
    }
    if (l > max_label) return -1;
    return row_of ? row_of[l] : l;
  }
};

struct Pass1Acc {
  u64 *cnt, *lo, *hi, *csum;  // cnt[S], lo/hi/csum[S*nd]
  double *isum, *iwsum;       // [S*C], [S*C*nd]
  u64 *imin, *imax;           // [S*C] (imin holds ~key)
  int nch, c0, cc;            // channels, this launch's first channel and count
  bool geometry, sum, minmax, weighted;
};

#include "kernels/measure/regionprops_warp_table.cuh"
#include "kernels/measure/regionprops_warp_kernel.cuh"

template <class L, int CH>
__global__ void __launch_bounds__(256) records_kernel(Records rec, std::int64_t nrec, StripGeo g, SlotMap map,
                                                      Pass1Acc acc) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < nrec;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t sl = map.slot(static_cast<std::int64_t>(static_cast<const L*>(rec.label)[i]));
    if (sl < 0) continue;
    int z, y0, x0;
    strip_origin(g, rec.strip[i], z, y0, x0);
    GEntry<CH> e;
    e.n = rec.n[i];
    const unsigned box = rec.box[i];
    e.ymin = box & 255u;
    e.ymax = (box >> 8) & 255u;
    e.xmin = (box >> 16) & 255u;
    e.xmax = box >> 24;
    e.ysum = rec.ysum[i];
    e.xsum = rec.xsum[i];
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      const bool on = c < acc.cc;
      const std::int64_t o = c * rec.cap + i;
      e.s[c] = on && rec.s ? rec.s[o] : 0.0;
      e.mn[c] = on && rec.mn ? rec.mn[o] : 0.0;
      e.mx[c] = on && rec.mx ? rec.mx[o] : 0.0;
      e.wy[c] = on && rec.wy ? rec.wy[o] : 0.0;
      e.wx[c] = on && rec.wx ? rec.wx[o] : 0.0;
    }
    global_entry<CH>(acc, g.nd, sl, e, z, y0, x0);
  }
}

template <class L>
__global__ void widen_kernel(const L* __restrict__ in, std::int64_t n, std::int64_t* __restrict__ out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<std::int64_t>(in[i]);
}

/// The shared-memory layout of one warp of pass1_warp_kernel: q entries used of kQS per field.
WarpLayout warp_layout(int q, std::size_t lsize, std::size_t sum_size, std::size_t key_size, const Pass1Acc& a) {
  WarpLayout w{};
  int bytes = 0;
  auto take = [&](std::size_t b) {
    const int at = bytes;
    bytes += static_cast<int>((b + 15) / 16 * 16);
    return at;
  };
  const std::size_t per = static_cast<std::size_t>(std::max(a.cc, 0)) * kQS;
  const bool full = a.minmax || a.weighted;
  w.wy = full && a.weighted && a.cc > 0 ? take(per * 8) : -1;
  w.wx = full && a.weighted && a.cc > 0 ? take(per * 8) : -1;
  w.s = (a.sum || a.weighted) && a.cc > 0 ? take(per * sum_size) : -1;
  w.mn = full && a.minmax && a.cc > 0 ? take(per * key_size) : -1;
  w.mx = full && a.minmax && a.cc > 0 ? take(per * key_size) : -1;
  w.key = take(static_cast<std::size_t>(q) * lsize);
  w.u32 = take(7 * static_cast<std::size_t>(kQS) * sizeof(unsigned));
  w.stride = bytes;
  w.q = q;
  w.qbits = 0;
  while ((1 << w.qbits) < q) ++w.qbits;
  return w;
}

/// Strip geometry of an nz x ny x nx label image for V pixels per lane (th 0: 32 rows, halved
/// down to 4 while the image has fewer than 8192 strips); count 0 past 32-bit axes or strips.
/// The caller sets lab_vec / int_vec.
StripGeo make_strip_geo(int nd, std::int64_t nz, std::int64_t ny, std::int64_t nx, int v, int th) {
  StripGeo g{};
  constexpr std::int64_t kAxis = (std::int64_t(1) << 31) - 1024;
  if (nz >= kAxis || ny >= kAxis || nx >= kAxis || nz * ny * nx == 0) return g;
  const int tw = 32 * v;
  const std::int64_t tx = (nx + tw - 1) / tw;
  auto count = [&](int h) { return nz * ((ny + h - 1) / h) * tx; };
  if (th <= 0) {
    th = 32;
    while (th > 4 && count(th) < 8192) th /= 2;
  }
  th = std::clamp(th, 1, kMaxStripPixels / tw);
  if (count(th) >= (std::int64_t(1) << 31)) return g;
  g.nd = nd;
  g.nz = static_cast<int>(nz);
  g.ny = static_cast<int>(ny);
  g.nx = static_cast<int>(nx);
  g.tw = tw;
  g.th = th;
  g.tx = static_cast<int>(tx);
  g.ty = static_cast<int>((ny + th - 1) / th);
  g.count = static_cast<int>(count(th));
  return g;
}

/// Table entries per warp: a power of 2 in [32, 128], TH * TW / 64 unless asked (<= 41 labels
/// met a 32 x 128 strip of the 8192^2 blobs).
int warp_q(const StripGeo& g, int q) {
  if (q <= 0) q = g.th * g.tw / 64;
  int p = 32;
  while (p < q && p < 128) p *= 2;
  return p;
}
