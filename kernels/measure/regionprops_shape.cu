// measure.regionprops on CUDA: the per-region arrays of every region built together (coords,
// intensity_median, image_filled / area_filled, image_convex / area_convex / solidity /
// feret_diameter_max), never a launch per region and never a host copy of the label image.
//
//   order   cub::DeviceSelect::If keeps the indices of the pixels with label > 0 (raster order),
//           a gather makes their labels the keys, a stable cub::DeviceRadixSort::SortPairs over
//           the label's bits groups them region after region (rows are in increasing label
//           order) keeping raster order inside a region: np.nonzero's order on each crop.
//   coords  one thread per sorted pixel expands its index into (z, y, x) (+ offset, x spacing).
//   median  per channel: gather the sorted pixels' values as doubles, cub::DeviceSegmentedSort
//           with the regions as segments, one thread per region picks numpy.median (an even
//           count averages the two middle values in the intensity's dtype: float32 in float32).
//   filled  every region's bbox crop packed into one buffer (crop after crop); union-find CCL
//           (kernels/core/union_find.cuh) of the pixels not of the region over the full 3^ndim - 1
//           neighbourhood inside each crop; components touching the crop border are outside,
//           the rest are holes (scipy's binary_fill_holes with a full structure).
//   convex  (2-D) one warp per crop row finds the region's first / last column; one thread per
//           region runs morphology's exact monotone-chain hull (the helpers of convex_hull_image)
//           and turns it into per-row column ranges; the packed image and the area follow.
//   feret   per region the level-0.5 contour vertices of the convex image (two per contour line,
//           from the row ranges), then all pairs in blocks of ~16 k pairs (a large region spans
//           several blocks), max squared distance by atomicMax.
//
// Cost at 8192^2 int32 labels, ~30 k regions of ~800 px (35 % foreground, N = 23.5 M pixels;
// bbox crops ~1.6x the region: V ~ 38 M crop pixels):
//   order: select reads the labels (268 MB) and writes 8 B indices (188 MB); the key gather reads
//          them back with the labels and writes 8 B keys (~470 MB); two 8-bit radix passes over
//          16 B pairs plus the histogram read (~1.7 GB) -> ~2.6 GB; coords read the indices and
//          write 2 x 8 B per pixel (~0.56 GB).
//   median (1 channel): 8 B gather + segmented sort (~3 x 188 MB) -> ~0.8 GB.
//   filled: labels read per crop pixel (4 B) + parent (4 B int32) written/read ~4x + flags ->
//          ~30 B x V ~ 1.1 GB.
//   convex: crop rows read once (4 B x V ~ 150 MB); the hull walk is O(rows) per region.
// Floor at 4.2 TB/s: order+coords ~0.75 ms, median ~0.2 ms, filled ~0.27 ms, convex ~0.04 ms.
// Predicted (atomics in the CCL, sort passes below peak, per-region hull latency): coords ~1.3 ms,
// intensity_median ~1.5 ms (with the order), area_filled ~0.8 ms, area_convex ~0.3 ms,
// feret_diameter_max ~0.5 ms (~30 k regions x ~13 k pairs).
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "kernels/core/union_find.cuh"
#include "kernels/morphology/hull_rows.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/measure/regionprops.hpp"
#include "src/morphology/convex_hull_ops.hpp"
#include "src/morphology/skeleton_ops.hpp"

namespace cuskimage::measure::detail {
namespace {

using u64 = unsigned long long;
using morphology::detail::chain_push;
using morphology::detail::hull_candidates;
using morphology::detail::hull_has_area;
using morphology::detail::hull_row;
using morphology::detail::HullPt;

unsigned blocks_for(std::int64_t n, int threads = 256) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((n + threads - 1) / threads, 1, std::int64_t(1) << 20));
}

using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
using cuskimage::detail::buf::scratch;
using cuskimage::detail::buf::upload;

/// Index of the segment holding p: the last k with off[k] <= p (off ascending, off[0] = 0).
__device__ __forceinline__ std::int64_t segment_of(const std::int64_t* __restrict__ off, std::int64_t n,
                                                   std::int64_t p) {
  std::int64_t lo = 0, hi = n;  // answer in [lo, hi)
  while (hi - lo > 1) {
    const std::int64_t mid = (lo + hi) >> 1;
    if (off[mid] <= p) lo = mid; else hi = mid;
  }
  return lo;
}

// ---- order and coords ------------------------------------------------------------------------------

template <class L>
struct Positive {
  const L* lab;
  __device__ bool operator()(std::int64_t i) const { return lab[i] > 0; }
};

template <class L>
__global__ void __launch_bounds__(256) label_keys_kernel(const L* __restrict__ lab, const std::int64_t* __restrict__ idx,
                                                         std::int64_t n, u64* __restrict__ keys) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    keys[k] = static_cast<u64>(lab[idx[k]]);
}

struct CoordParams {
  int nd;
  std::int64_t shape[3], offset[3];
  double sp[3];
};

template <bool Scaled>
__global__ void __launch_bounds__(256) coords_kernel(const std::int64_t* __restrict__ order, std::int64_t n,
                                                     CoordParams c, void* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride) {
    std::int64_t rem = order[k];
    for (int a = c.nd - 1; a >= 0; --a) {
      const std::int64_t g = rem % c.shape[a];
      rem /= c.shape[a];
      if constexpr (Scaled)  // the CPU's g * spacing + offset, unfused
        static_cast<double*>(out)[k * c.nd + a] =
            __dadd_rn(__dmul_rn(static_cast<double>(g), c.sp[a]), static_cast<double>(c.offset[a]));
      else
        static_cast<std::int64_t*>(out)[k * c.nd + a] = g + c.offset[a];
    }
  }
}

// ---- intensity_median ------------------------------------------------------------------------------

template <class T>
__global__ void __launch_bounds__(256) gather_kernel(const T* __restrict__ in, std::int64_t nch, std::int64_t c,
                                                     const std::int64_t* __restrict__ order, std::int64_t n,
                                                     double* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += stride)
    out[k] = static_cast<double>(in[order[k] * nch + c]);
}

/// numpy.median of each sorted segment: the middle value, or the mean of the two middle values in
/// the intensity's dtype (median_of_middle: float32 intensity averages in float32).
__global__ void __launch_bounds__(256) median_kernel(const double* __restrict__ sorted, const std::int64_t* __restrict__ off,
                                                     std::int64_t n, std::int64_t nch, std::int64_t c, bool f32,
                                                     double* __restrict__ out) {
  const std::int64_t r = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= n) return;
  const std::int64_t lo = off[r], m = off[r + 1] - lo, h = m / 2;
  double med = sorted[lo + h];
  if (m % 2 == 0) med = median_of_middle(sorted[lo + h - 1], med, f32);
  out[r * nch + c] = med;
}

// ---- packed bbox crops -----------------------------------------------------------------------------

/// Per region: crop origin and extent (z, y, x; 2-D: z = 0, extent 1), label, first packed index.
struct Crop {
  std::int64_t o[3], e[3], label, off;
};

struct Crops {
  const Crop* c;
  const std::int64_t* off;  // n + 1 packed offsets
  std::int64_t n;
  std::int64_t ny, nx;  // label image (2-D: nz = 1)
  int nd;
};

/// Packed index p -> region r, crop-local (z, y, x) and the label image index.
struct At {
  std::int64_t r, z, y, x, g;
};
__device__ __forceinline__ At locate(const Crops& k, std::int64_t p) {
  At a;
  a.r = segment_of(k.off, k.n, p);
  const Crop& c = k.c[a.r];
  const std::int64_t q = p - c.off;
  a.x = q % c.e[2];
  a.y = (q / c.e[2]) % c.e[1];
  a.z = q / (c.e[2] * c.e[1]);
  a.g = ((c.o[0] + a.z) * k.ny + c.o[1] + a.y) * k.nx + c.o[2] + a.x;
  return a;
}

// ---- image_filled ----------------------------------------------------------------------------------
// Union-find over the packed crops: the "foreground" of the CCL is every crop pixel NOT of the
// crop's region, parent -1 marks the region's own pixels.

template <class L, class I>
__global__ void __launch_bounds__(256) fill_init_kernel(const L* __restrict__ lab, Crops k, std::int64_t V,
                                                        I* __restrict__ parent) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < V; p += stride) {
    const At a = locate(k, p);
    parent[p] = static_cast<std::int64_t>(lab[a.g]) != k.c[a.r].label ? static_cast<I>(p) : I(-1);
  }
}

/// Joins each background pixel with its backward neighbours of the full neighbourhood in the crop.
template <class I>
__global__ void __launch_bounds__(256) fill_merge_kernel(Crops k, std::int64_t V, I* parent) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < V; p += stride) {
    if (parent[p] < 0) continue;
    const At a = locate(k, p);
    const Crop& c = k.c[a.r];
    for (int dz = (k.nd == 3 ? -1 : 0); dz <= 0; ++dz)
      for (int dy = -1; dy <= (dz < 0 ? 1 : 0); ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
          if (dz == 0 && dy == 0 && dx >= 0) break;  // backward neighbours only
          const std::int64_t zz = a.z + dz, yy = a.y + dy, xx = a.x + dx;
          if (zz < 0 || yy < 0 || xx < 0 || xx >= c.e[2] || yy >= c.e[1]) continue;
          const std::int64_t q = p + (dz * c.e[1] + dy) * c.e[2] + dx;
          if (parent[q] >= 0) cuskimage::detail::ccl_union<I>(parent, static_cast<I>(p), static_cast<I>(q));
        }
  }
}

/// Marks the root of every background component that reaches its crop's border.
template <class I>
__global__ void __launch_bounds__(256) fill_border_kernel(Crops k, std::int64_t V, const I* __restrict__ parent,
                                                          std::uint8_t* __restrict__ outside) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < V; p += stride) {
    if (parent[p] < 0) continue;
    const At a = locate(k, p);
    const Crop& c = k.c[a.r];
    const bool edge = a.x == 0 || a.y == 0 || a.x == c.e[2] - 1 || a.y == c.e[1] - 1 ||
                      (k.nd == 3 && (a.z == 0 || a.z == c.e[0] - 1));
    if (edge) outside[cuskimage::detail::ccl_find<I>(parent, static_cast<I>(p))] = 1;
  }
}

template <class I>
__global__ void __launch_bounds__(256) fill_final_kernel(Crops k, std::int64_t V, const I* __restrict__ parent,
                                                         const std::uint8_t* __restrict__ outside,
                                                         bool* __restrict__ filled, u64* __restrict__ holes) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < V; p += stride) {
    const bool bg = parent[p] >= 0;
    const bool f = !bg || !outside[cuskimage::detail::ccl_find<I>(parent, static_cast<I>(p))];
    if (filled) filled[p] = f;
    if (bg && f) atomicAdd(holes + segment_of(k.off, k.n, p), 1ull);
  }
}

// ---- image_convex (2-D) ----------------------------------------------------------------------------

/// One warp per crop row t (rows packed region after region, rowoff): the region's first and
/// last column in the row (none: lo = LLONG_MAX, hi = -1), crop-local.
template <class L>
__global__ void __launch_bounds__(256) row_extent_kernel(const L* __restrict__ lab, Crops k,
                                                         const std::int64_t* __restrict__ rowoff, std::int64_t R,
                                                         std::int64_t* __restrict__ rlo, std::int64_t* __restrict__ rhi) {
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = std::int64_t(gridDim.x) * (blockDim.x / 32);
  for (std::int64_t t = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32; t < R; t += warps) {
    const std::int64_t r = segment_of(rowoff, k.n, t);
    const Crop& c = k.c[r];
    const L* row = lab + (c.o[1] + t - rowoff[r]) * k.nx + c.o[2];
    std::int64_t lo, hi;
    morphology::detail::warp_row_extent(
        c.e[2], [&](std::int64_t x) { return static_cast<std::int64_t>(row[x]) == c.label; }, lo, hi);
    if (lane == 0) {
      rlo[t] = lo;
      rhi[t] = hi;
    }
  }
}

using morphology::detail::RowsView;

/// min / max of the symmetric difference of the integer intervals [a0, a1] and [b0, b1] (empty
/// when lo > hi); false when it is empty.
__device__ __forceinline__ bool sym_diff_range(std::int64_t a0, std::int64_t a1, std::int64_t b0, std::int64_t b1,
                                               std::int64_t& lo, std::int64_t& hi) {
  const bool ea = a0 > a1, eb = b0 > b1;
  if (ea && eb) return false;
  if (ea || eb) {
    lo = ea ? b0 : a0;
    hi = ea ? b1 : a1;
    return true;
  }
  if (a0 == b0 && a1 == b1) return false;
  lo = a0 != b0 ? min(a0, b0) : min(a1, b1) + 1;
  hi = a1 != b1 ? max(a1, b1) : max(a0, b0) - 1;
  return true;
}

/// One thread per region: the hull of its rows' extents (crop-local, convex_hull_image's
/// offset_coordinates = True, include_borders = True), each row's covered columns into rlo / rhi
/// (overwritten; empty rows get lo > hi), the area, and when asked the feret candidates: per
/// contour line Y in [-1, 2 rows - 1] (doubled rows) the first and last doubled column X of the
/// level-0.5 contour (invalid: x = LLONG_MIN).
__global__ void __launch_bounds__(128) hull_kernel(Crops k, const std::int64_t* __restrict__ rowoff,
                                                   std::int64_t* rlo, std::int64_t* rhi,
                                                   HullPt* __restrict__ chains, u64* __restrict__ area,
                                                   HullPt* __restrict__ cand) {
  const std::int64_t r = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= k.n) return;
  const Crop& c = k.c[r];
  const std::int64_t h = c.e[1], w = c.e[2], base = rowoff[r];
  HullPt* lo = chains + 2 * (2 * base + r);  // two chains of at most 2 h + 1 points
  HullPt* hi = lo + 2 * h + 1;
  const RowsView L{rlo + base}, H{rhi + base};
  std::int64_t a = 0, b = 0;
  for (std::int64_t x = -1; x <= 2 * h - 1; ++x) {
    std::int64_t ymin, ymax;
    if (!hull_candidates(L, H, h, 0, true, x, ymin, ymax)) continue;
    chain_push(lo, a, {x, ymin}, true);
    chain_push(hi, b, {x, ymax}, false);
  }
  const bool valid = hull_has_area(lo, a, hi, b);
  u64 total = 0;
  for (std::int64_t y = 0; y < h; ++y) {
    std::int64_t c0 = 1, c1 = 0;
    if (valid) hull_row(lo, a, hi, b, y, false, c0, c1);
    c0 = max(c0, std::int64_t(0));
    c1 = min(c1, w - 1);
    if (c0 > c1) {
      c0 = 1;
      c1 = 0;
    }
    rlo[base + y] = c0;
    rhi[base + y] = c1;
    total += static_cast<u64>(c1 - c0 + 1);
  }
  area[r] = total;
  if (!cand) return;
  HullPt* out = cand + 2 * (2 * base + r);
  for (std::int64_t Y = -1; Y <= 2 * h - 1; ++Y) {
    std::int64_t x0 = 0, x1 = 0;
    bool any;
    if (Y % 2 == 0) {  // horizontal neighbours of row Y / 2: columns a - 1 | a and b | b + 1
      const std::int64_t y = Y / 2;
      any = rlo[base + y] <= rhi[base + y];
      x0 = 2 * rlo[base + y] - 1;
      x1 = 2 * rhi[base + y] + 1;
    } else {  // vertical neighbours of rows y and y + 1: the columns covered by exactly one
      const std::int64_t y = (Y - 1) / 2;  // Y = -1 -> y = -1
      const std::int64_t a0 = y >= 0 ? rlo[base + y] : 1, a1 = y >= 0 ? rhi[base + y] : 0;
      const std::int64_t b0 = y + 1 < h ? rlo[base + y + 1] : 1, b1 = y + 1 < h ? rhi[base + y + 1] : 0;
      std::int64_t s0, s1;
      any = sym_diff_range(a0, a1, b0, b1, s0, s1);
      x0 = 2 * s0;
      x1 = 2 * s1;
    }
    const std::int64_t at = 2 * (Y + 1);
    out[at] = any ? HullPt{Y, x0} : HullPt{LLONG_MIN, 0};
    out[at + 1] = any ? HullPt{Y, x1} : HullPt{LLONG_MIN, 0};
  }
}

__global__ void __launch_bounds__(256) convex_image_kernel(Crops k, std::int64_t V, const std::int64_t* __restrict__ rowoff,
                                                           const std::int64_t* __restrict__ c0,
                                                           const std::int64_t* __restrict__ c1, bool* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < V; p += stride) {
    const At a = locate(k, p);
    const std::int64_t t = rowoff[a.r] + a.y;
    out[p] = a.x >= c0[t] && a.x <= c1[t];
  }
}

/// A block of feret pairs: region r, first points i in [i0, i1) against every later point.
struct PairWork {
  std::int64_t r, i0, i1;
};

constexpr int kPairThreads = 128;

/// Max squared distance of the region's candidates (scaled as the CPU: 0.5 * X * spacing; the
/// sum dy^2 + dx^2 unfused), atomicMax on the bits (non-negative doubles order as integers).
__global__ void __launch_bounds__(kPairThreads) feret_pairs_kernel(const PairWork* __restrict__ work, Crops k,
                                                                   const std::int64_t* __restrict__ rowoff,
                                                                   const HullPt* __restrict__ cand, double sy, double sx,
                                                                   u64* __restrict__ best) {
  const PairWork wk = work[blockIdx.x];
  const std::int64_t base = 2 * (2 * rowoff[wk.r] + wk.r), P = 2 * (2 * k.c[wk.r].e[1] + 1);
  const HullPt* q = cand + base;
  double m = 0;
  for (std::int64_t i = wk.i0; i < wk.i1; ++i) {
    const HullPt pi = q[i];
    if (pi.x == LLONG_MIN) continue;
    const double yi = __dmul_rn(__dmul_rn(0.5, static_cast<double>(pi.x)), sy);
    const double xi = __dmul_rn(__dmul_rn(0.5, static_cast<double>(pi.y)), sx);
    for (std::int64_t j = i + 1 + threadIdx.x; j < P; j += kPairThreads) {
      const HullPt pj = q[j];
      if (pj.x == LLONG_MIN) continue;
      const double dy = yi - __dmul_rn(__dmul_rn(0.5, static_cast<double>(pj.x)), sy);
      const double dx = xi - __dmul_rn(__dmul_rn(0.5, static_cast<double>(pj.y)), sx);
      m = fmax(m, __dadd_rn(__dmul_rn(dy, dy), __dmul_rn(dx, dx)));
    }
  }
  using Reduce = cub::BlockReduce<double, kPairThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const double bm = Reduce(tmp).Reduce(m, [](double a, double b) { return fmax(a, b); });
  if (threadIdx.x == 0 && bm > 0) atomicMax(best + wk.r, static_cast<u64>(__double_as_longlong(bm)));
}

// ---- host helpers ----------------------------------------------------------------------------------

/// The packed crops of every region (device table) and their offsets.
struct CropTable {
  Array crops, off;
  Crops view;
  std::int64_t V = 0;
};

CropTable crop_table(const Array& labels, const RegionStats& st, const std::vector<std::int64_t>& crop_off,
                     const Stream& s) {
  const int nd = st.ndim;
  std::vector<Crop> host(static_cast<std::size_t>(st.n));
  for (std::int64_t r = 0; r < st.n; ++r) {
    Crop& c = host[r];
    for (int a = 0; a < 3; ++a) {
      const int src = a - (3 - nd);
      c.o[a] = src < 0 ? 0 : st.lo[r * nd + src];
      c.e[a] = src < 0 ? 1 : st.hi[r * nd + src] - st.lo[r * nd + src];
    }
    c.label = st.label[r];
    c.off = crop_off[r];
  }
  CropTable t;
  const std::int64_t bytes = std::max<std::int64_t>(1, st.n * static_cast<std::int64_t>(sizeof(Crop)));
  Array h = Array::empty({bytes}, DType::uint8, Device::cpu());
  if (st.n > 0) std::memcpy(h.data(), host.data(), host.size() * sizeof(Crop));
  t.crops = h.to(labels.device(), s);
  t.off = upload(crop_off, labels.device(), s);
  t.V = crop_off.back();
  t.view = Crops{cptr<Crop>(t.crops), cptr<std::int64_t>(t.off), st.n, labels.shape(nd - 2), labels.shape(nd - 1), nd};
  return t;
}

template <class L>
void run_filled(const Array& labels, const RegionStats& st, const std::vector<std::int64_t>& crop_off, bool want_image,
                Array& filled, std::vector<std::int64_t>& area, const Stream& s) {
  const Device dev = labels.device();
  const CropTable t = crop_table(labels, st, crop_off, s);
  const std::int64_t V = t.V;
  Array holes = Array::zeros({std::max<std::int64_t>(st.n, 1)}, DType::uint64, dev, s);
  if (want_image) filled = Array::empty({std::max<std::int64_t>(V, 1)}, DType::bool_, dev, s);
  Array outside = Array::zeros({std::max<std::int64_t>(V, 1)}, DType::uint8, dev, s);
  auto go = [&]<class I>() {
    Array parent = Array::empty({std::max<std::int64_t>(V, 1)}, dtype_v<I>, dev, s);
    const unsigned nb = blocks_for(V);
    const cudaStream_t h = s.handle();
    fill_init_kernel<L, I><<<nb, 256, 0, h>>>(cptr<L>(labels), t.view, V, ptr<I>(parent));
    CUSK_CUDA_CHECK_LAUNCH();
    fill_merge_kernel<I><<<nb, 256, 0, h>>>(t.view, V, ptr<I>(parent));
    CUSK_CUDA_CHECK_LAUNCH();
    fill_border_kernel<I><<<nb, 256, 0, h>>>(t.view, V, ptr<I>(parent), ptr<std::uint8_t>(outside));
    CUSK_CUDA_CHECK_LAUNCH();
    fill_final_kernel<I><<<nb, 256, 0, h>>>(t.view, V, ptr<I>(parent), ptr<std::uint8_t>(outside),
                                            want_image ? ptr<bool>(filled) : nullptr, ptr<u64>(holes));
    CUSK_CUDA_CHECK_LAUNCH();
  };
  if (V < (std::int64_t(1) << 31))
    go.template operator()<std::int32_t>();
  else
    go.template operator()<std::int64_t>();
  const Array hh = holes.to(Device::cpu(), s);
  area.resize(static_cast<std::size_t>(st.n));
  for (std::int64_t r = 0; r < st.n; ++r)
    area[r] = st.count[r] + static_cast<std::int64_t>(hh.data<std::uint64_t>()[r]);
}

template <class L>
void run_convex(const Array& labels, const RegionStats& st, const std::vector<std::int64_t>& crop_off,
                const std::vector<double>& spacing, bool want_image, bool want_feret, Array& image,
                std::vector<std::int64_t>& area, std::vector<double>& feret2, const Stream& s) {
  const Device dev = labels.device();
  const cudaStream_t h = s.handle();
  const CropTable t = crop_table(labels, st, crop_off, s);
  const std::int64_t n = st.n;
  std::vector<std::int64_t> rowoff(static_cast<std::size_t>(n) + 1, 0);
  for (std::int64_t r = 0; r < n; ++r) rowoff[r + 1] = rowoff[r] + (st.hi[r * 2] - st.lo[r * 2]);
  const std::int64_t R = rowoff[n];
  Array d_rowoff = upload(rowoff, dev, s);
  Array rlo = Array::empty({std::max<std::int64_t>(R, 1)}, DType::int64, dev, s);
  Array rhi = Array::empty({std::max<std::int64_t>(R, 1)}, DType::int64, dev, s);
  row_extent_kernel<L><<<blocks_for(R * 32), 256, 0, h>>>(cptr<L>(labels), t.view, cptr<std::int64_t>(d_rowoff), R,
                                                         ptr<std::int64_t>(rlo), ptr<std::int64_t>(rhi));
  CUSK_CUDA_CHECK_LAUNCH();
  const std::int64_t npts = 2 * (2 * R + n);  // per region 2 (2 h + 1) points
  Array chains = Array::empty({2 * std::max<std::int64_t>(npts, 1)}, DType::int64, dev, s);
  Array cand;
  if (want_feret) cand = Array::empty({2 * std::max<std::int64_t>(npts, 1)}, DType::int64, dev, s);
  Array d_area = Array::empty({std::max<std::int64_t>(n, 1)}, DType::uint64, dev, s);
  hull_kernel<<<blocks_for(n, 128), 128, 0, h>>>(t.view, cptr<std::int64_t>(d_rowoff), ptr<std::int64_t>(rlo),
                                                  ptr<std::int64_t>(rhi), ptr<HullPt>(chains), ptr<u64>(d_area),
                                                  want_feret ? ptr<HullPt>(cand) : nullptr);
  CUSK_CUDA_CHECK_LAUNCH();
  if (want_image) {
    image = Array::empty({std::max<std::int64_t>(t.V, 1)}, DType::bool_, dev, s);
    convex_image_kernel<<<blocks_for(t.V), 256, 0, h>>>(t.view, t.V, cptr<std::int64_t>(d_rowoff),
                                                        cptr<std::int64_t>(rlo), cptr<std::int64_t>(rhi),
                                                        ptr<bool>(image));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  Array best;
  if (want_feret) {
    // Blocks of about kPairs pairs: region after region, runs of first points.
    constexpr std::int64_t kPairs = 1 << 14;
    std::vector<PairWork> work;
    for (std::int64_t r = 0; r < n; ++r) {
      const std::int64_t P = 2 * (2 * (st.hi[r * 2] - st.lo[r * 2]) + 1);
      if (P * (P - 1) / 2 <= kPairs) {  // most regions: one block
        work.push_back({r, 0, P});
        continue;
      }
      std::int64_t i0 = 0, acc = 0;
      for (std::int64_t i = 0; i < P; ++i) {
        acc += P - 1 - i;
        if (acc >= kPairs || i == P - 1) {
          work.push_back({r, i0, i + 1});
          i0 = i + 1;
          acc = 0;
        }
      }
    }
    best = Array::zeros({std::max<std::int64_t>(n, 1)}, DType::uint64, dev, s);
    Array hw = Array::empty({static_cast<std::int64_t>(std::max<std::size_t>(work.size(), 1) * sizeof(PairWork))},
                            DType::uint8, Device::cpu());
    std::memcpy(hw.data(), work.data(), work.size() * sizeof(PairWork));
    const Array dw = hw.to(dev, s);
    for (std::size_t w0 = 0; w0 < work.size(); w0 += (1u << 30)) {
      const auto nb = static_cast<unsigned>(std::min<std::size_t>(work.size() - w0, 1u << 30));
      feret_pairs_kernel<<<nb, kPairThreads, 0, h>>>(cptr<PairWork>(dw) + w0, t.view, cptr<std::int64_t>(d_rowoff),
                                                     cptr<HullPt>(cand), spacing[0], spacing[1], ptr<u64>(best));
      CUSK_CUDA_CHECK_LAUNCH();
    }
  }
  const Array ha = d_area.to(Device::cpu(), s);
  Array hb;
  if (want_feret) hb = best.to(Device::cpu(), s);
  area.resize(static_cast<std::size_t>(n));
  for (std::int64_t r = 0; r < n; ++r) area[r] = static_cast<std::int64_t>(ha.data<std::uint64_t>()[r]);
  if (want_feret) {
    feret2.resize(static_cast<std::size_t>(n));
    std::memcpy(feret2.data(), hb.data(), static_cast<std::size_t>(n) * sizeof(double));
  }
}

template <class L>
Array run_order(const Array& labels, std::int64_t max_label, std::int64_t total, const Stream& s) {
  const Device dev = labels.device();
  const cudaStream_t h = s.handle();
  const std::int64_t size = labels.size();
  const L* lab = cptr<L>(labels);
  const std::int64_t m = std::max<std::int64_t>(total, 1);
  Array idx0 = Array::empty({m}, DType::int64, dev, s), idx1 = Array::empty({m}, DType::int64, dev, s);
  Array keys0 = Array::empty({m}, DType::uint64, dev, s), keys1 = Array::empty({m}, DType::uint64, dev, s);
  Array nsel = Array::empty({1}, DType::int64, dev, s);
  const thrust::counting_iterator<std::int64_t> in(0);
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, in, ptr<std::int64_t>(idx0), ptr<std::int64_t>(nsel), size,
                                        Positive<L>{lab}, h));
  {
    Array tmp = scratch(bytes, dev, s);
    CUSK_CUDA_CHECK(cub::DeviceSelect::If(tmp.data(), bytes, in, ptr<std::int64_t>(idx0), ptr<std::int64_t>(nsel),
                                          size, Positive<L>{lab}, h));
  }
  if (total == 0) return idx0;
  label_keys_kernel<L><<<blocks_for(total), 256, 0, h>>>(lab, ptr<std::int64_t>(idx0), total, ptr<u64>(keys0));
  CUSK_CUDA_CHECK_LAUNCH();
  const int end_bit = std::max(1, static_cast<int>(std::bit_width(static_cast<std::uint64_t>(max_label))));
  cub::DoubleBuffer<u64> dk(ptr<u64>(keys0), ptr<u64>(keys1));
  cub::DoubleBuffer<std::int64_t> dv(ptr<std::int64_t>(idx0), ptr<std::int64_t>(idx1));
  bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, dk, dv, total, 0, end_bit, h));
  Array tmp = scratch(bytes, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, dk, dv, total, 0, end_bit, h));
  return dv.Current() == ptr<std::int64_t>(idx0) ? std::move(idx0) : std::move(idx1);
}

}  // namespace

Array cuda_region_order(const Array& labels, std::int64_t max_label, std::int64_t total, const Stream& s) {
  if (labels.dtype() == DType::int32) return run_order<std::int32_t>(labels, max_label, total, s);
  return run_order<std::int64_t>(labels, max_label, total, s);
}

Array cuda_order_coords(const Array& order, std::int64_t total, const Shape& shape,
                        const std::vector<std::int64_t>& offset, const std::vector<double>* spacing, const Stream& s) {
  const int nd = static_cast<int>(shape.size());
  Array out = Array::empty({total, nd}, spacing ? DType::float64 : DType::int64, order.device(), s);
  if (total == 0) return out;
  CoordParams c{};
  c.nd = nd;
  for (int a = 0; a < nd; ++a) {
    c.shape[a] = shape[a];
    c.offset[a] = offset[a];
    c.sp[a] = spacing ? (*spacing)[a] : 1.0;
  }
  if (spacing)
    coords_kernel<true><<<blocks_for(total), 256, 0, s.handle()>>>(cptr<std::int64_t>(order), total, c, out.data());
  else coords_kernel<false><<<blocks_for(total), 256, 0, s.handle()>>>(cptr<std::int64_t>(order), total, c, out.data());
  CUSK_CUDA_CHECK_LAUNCH();
  return out;
}

std::vector<double> cuda_region_median(const Array& intensity, std::int64_t nch, const Array& order,
                                       const std::vector<std::int64_t>& pix_off, const Stream& s) {
  const Device dev = order.device();
  const std::int64_t n = static_cast<std::int64_t>(pix_off.size()) - 1, total = pix_off.back();
  std::vector<double> out(static_cast<std::size_t>(n * nch));
  if (n == 0) return out;
  const Array in = intensity.contiguous(s);
  Array d_off = upload(pix_off, dev, s);
  Array vals = Array::empty({total}, DType::float64, dev, s), sorted = Array::empty({total}, DType::float64, dev, s);
  Array med = Array::empty({n * nch}, DType::float64, dev, s);
  const std::int64_t* off = cptr<std::int64_t>(d_off);
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(nullptr, bytes, ptr<double>(vals), ptr<double>(sorted), total, n,
                                                     off, off + 1, s.handle()));
  Array tmp = scratch(bytes, dev, s);
  for (std::int64_t c = 0; c < nch; ++c) {
    cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(in.dtype(), "measure.regionprops", [&]<class T>() {
      gather_kernel<T><<<blocks_for(total), 256, 0, s.handle()>>>(cptr<T>(in), nch, c, cptr<std::int64_t>(order), total,
                                                                  ptr<double>(vals));
    });
    CUSK_CUDA_CHECK_LAUNCH();
    CUSK_CUDA_CHECK(cub::DeviceSegmentedSort::SortKeys(tmp.data(), bytes, ptr<double>(vals), ptr<double>(sorted), total,
                                                       n, off, off + 1, s.handle()));
    median_kernel<<<blocks_for(n), 256, 0, s.handle()>>>(ptr<double>(sorted), off, n, nch, c,
                                                         in.dtype() == DType::float32, ptr<double>(med));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  const Array hm = med.to(Device::cpu(), s);
  std::memcpy(out.data(), hm.data(), out.size() * sizeof(double));
  return out;
}

void cuda_region_filled(const Array& labels, const RegionStats& st, const std::vector<std::int64_t>& crop_off,
                        bool want_image, Array& filled, std::vector<std::int64_t>& area, const Stream& s) {
  if (labels.dtype() == DType::int32)
    run_filled<std::int32_t>(labels, st, crop_off, want_image, filled, area, s);
  else
    run_filled<std::int64_t>(labels, st, crop_off, want_image, filled, area, s);
}

void cuda_region_convex(const Array& labels, const RegionStats& st, const std::vector<std::int64_t>& crop_off,
                        const std::vector<double>& spacing, bool want_image, bool want_feret, Array& image,
                        std::vector<std::int64_t>& area, std::vector<double>& feret2, const Stream& s) {
  if (labels.dtype() == DType::int32)
    run_convex<std::int32_t>(labels, st, crop_off, spacing, want_image, want_feret, image, area, feret2, s);
  else
    run_convex<std::int64_t>(labels, st, crop_off, spacing, want_image, want_feret, image, area, feret2, s);
}

}  // namespace cuskimage::measure::detail
