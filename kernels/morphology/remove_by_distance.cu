// CUDA remove_objects_by_distance: scikit-image's greedy removal, exactly, all on the device.
//
// scikit-image visits objects by decreasing priority; an object still present is kept and removes
// every other object with a boundary pixel within min_distance. The distance relation is symmetric,
// so an object is kept exactly when none of its higher-priority neighbours is kept (a greedy
// independent set). The device builds the relation once and resolves the order in rounds:
//   labels      min/max of the labels (negative labels are rejected), read by the host. (One
//               grid-stride block reduction per block, atomics into LLONG_MAX / LLONG_MIN, so an
//               idle block adds nothing; the host reads the pair after a stream sync. The first
//               H200 run's "negative ID -2147483648" came from the benchmark: its labels were made
//               on the per-thread stream and read unsynchronised from another stream, i.e. the
//               labeller's half-written output. The caller orders inputs made on other streams.)
//   boundary    the boundary pixels (a neighbour in the footprint holds another label, as the CPU's
//               maximum_filter != minimum_filter test; cub::DeviceSelect, C order).
//   objects     the boundary labels sorted (stable radix sort) and numbered in label order; the
//               priority of each object (given, or its pixel count: warp-aggregated atomics, labels
//               mapped through a dense table or a binary search) as an order key (rod_before).
//   grid        points in cells of > min_distance / spacing + 1 pixels (the CPU's grid, widened
//               when it would have more cells than 2x the points), sorted by (cell, object, pixel);
//               a run is one object's points in one cell, with its bounding box.
//   pairs       one thread per (run of object a, adjacent cell) (per run above 3-D) visits the runs
//               of objects b > a there (rod_run_pairs, shared with the tests): boxes farther apart
//               than min_distance are skipped, boxes whose farthest corners are within it are
//               neighbours without a point test, the rest are tested point by point with the CPU's
//               arithmetic (RodMetric;
//               p other than 1, 2, inf: exact for integer powers, else pairs within 1e-12 of the
//               bound are decided on the host with glibc's pow). Pairs (a, b) are appended with
//               warp-aggregated atomics, then sorted and made unique.
//   rounds      each pair becomes an edge from the later object to the earlier one (CSR by the
//               later); an object is removed when an earlier neighbour is kept and kept when all of
//               them are removed. The earliest undecided object can always be decided, so every
//               launch decides at least one; each block loops over its 1024 objects until it makes
//               no progress (chains of equal priorities follow label order, i.e. stay in a block).
//   clear       one pass writes the labels of removed objects as 0.
// Bytes (the benchmark: labels of 4096^2 blobs, int32, 21 k objects, 3.6 M boundary pixels; 337 k
// runs at min_distance 5, 58 k at 20): the label image is read ~4x (stats, boundary, sizes, clear:
// 268 MB) and written once (67 MB); the boundary list (n x 8 B written by the selection: 134 MB)
// and the points' sorts and arrays (~110 B per point: 400 MB): ~0.85 GB, floor ~0.2 ms. The pair
// search is compute bound (a host core needs 160 ms at 5 and 260 ms at 20 for it) and uneven per
// thread; predicted ~2-4 ms at min_distance 5 and ~3-6 ms at 20, with ~8 host round trips.
// Scaling caveat: the relation has one entry per pair of objects within min_distance, so for a
// min_distance spanning many objects it grows quadratically, unlike the CPU's greedy scan.
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <climits>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <type_traits>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/remove_by_distance_ops.hpp"

namespace cuskimage::morphology::detail {
namespace {

using u64 = unsigned long long;
using cuskimage::detail::expect;
using cuskimage::detail::fail;

constexpr std::string_view kFn = "morphology.remove_objects_by_distance";
constexpr int kThreads = 256;
constexpr int kLocal = 16;                               // records buffered per thread
constexpr int kResolveThreads = 256, kResolveItems = 4;  // 1024 objects per block

unsigned blocks_for(std::int64_t n, int threads = kThreads) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((n + threads - 1) / threads, 1, std::int64_t(1) << 20));
}
unsigned exact_blocks(std::int64_t n, int threads) {
  return static_cast<unsigned>(std::max<std::int64_t>((n + threads - 1) / threads, 1));
}

using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
using cuskimage::detail::buf::scratch;

template <class X>
X read_back(const void* p, const Stream& s) {
  X v{};
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&v, p, sizeof(X), cudaMemcpyDeviceToHost, s.handle()));
  s.synchronize();
  return v;
}

__device__ __forceinline__ std::uint8_t vload(const std::uint8_t* p) {
  return *static_cast<const volatile std::uint8_t*>(p);
}
__device__ __forceinline__ void vstore(std::uint8_t* p, std::uint8_t v) { *static_cast<volatile std::uint8_t*>(p) = v; }

struct Dims {
  int nd;
  std::int64_t shape[kRodMaxDims];
};

// ---- labels ------------------------------------------------------------------------------------------

struct MinOp {
  __device__ long long operator()(long long a, long long b) const { return a < b ? a : b; }
};
struct MaxOp {
  __device__ long long operator()(long long a, long long b) const { return a > b ? a : b; }
};

__global__ void minmax_init(long long* mm) {
  mm[0] = LLONG_MAX;
  mm[1] = LLONG_MIN;
}

/// mm[0] = min, mm[1] = max of the labels as int64 (uint64 labels above 2^63 - 1 wrap negative).
template <class T>
__global__ void __launch_bounds__(kThreads) minmax_kernel(const T* __restrict__ lab, std::int64_t n, long long* mm) {
  long long lo = LLONG_MAX, hi = LLONG_MIN;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const long long v = static_cast<long long>(lab[i]);
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  using Reduce = cub::BlockReduce<long long, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const long long blo = Reduce(tmp).Reduce(lo, MinOp{});
  __syncthreads();
  const long long bhi = Reduce(tmp).Reduce(hi, MaxOp{});
  if (threadIdx.x == 0) {
    atomicMin(mm, blo);
    atomicMax(mm + 1, bhi);
  }
}

/// Boundary pixels: non-zero, and some footprint neighbour inside the image holds another label.
template <class T>
struct IsBorder {
  const T* lab;
  Dims g;
  const std::int64_t* off_lin;  // per footprint offset: the flat offset
  const std::int8_t* off_ax;    // per footprint offset: its step along each axis
  int noffs;
  __device__ bool operator()(std::int64_t i) const {
    const T v = lab[i];
    if (v == T(0)) return false;
    std::int64_t c[kRodMaxDims];
    std::int64_t rem = i;
    for (int d = g.nd - 1; d >= 0; --d) {
      c[d] = rem % g.shape[d];
      rem /= g.shape[d];
    }
    for (int o = 0; o < noffs; ++o) {
      bool inside = true;
      for (int d = 0; d < g.nd; ++d) {
        const std::int64_t x = c[d] + off_ax[o * g.nd + d];
        inside = inside && x >= 0 && x < g.shape[d];
      }
      if (inside && lab[i + off_lin[o]] != v) return true;
    }
    return false;
  }
};

template <class T>
__global__ void __launch_bounds__(kThreads)
    gather_labels(const T* __restrict__ lab, const std::int64_t* __restrict__ pix, std::int64_t m, u64* __restrict__ keys,
                  std::uint32_t* __restrict__ vals) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < m; k += stride) {
    keys[k] = static_cast<u64>(lab[pix[k]]);
    vals[k] = static_cast<std::uint32_t>(k);
  }
}

/// flag[s] = 1 where a new key starts (sorted keys), also where `obj` changes when given.
__global__ void __launch_bounds__(kThreads)
    head_flags(const u64* __restrict__ keys, const std::int32_t* __restrict__ obj, std::int64_t m,
               std::uint32_t* __restrict__ flag) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t s = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < m; s += stride)
    flag[s] = (s == 0 || keys[s] != keys[s - 1] || (obj != nullptr && obj[s] != obj[s - 1])) ? 1u : 0u;
}

__global__ void __launch_bounds__(kThreads)
    number_objects(const u64* __restrict__ keys, const std::uint32_t* __restrict__ vals,
                   const std::uint32_t* __restrict__ ids, std::int64_t m, std::int32_t* __restrict__ obj_of,
                   u64* __restrict__ labels) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t s = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < m; s += stride) {
    const std::int32_t o = static_cast<std::int32_t>(ids[s]) - 1;
    obj_of[vals[s]] = o;
    if (s == 0 || keys[s] != keys[s - 1]) labels[o] = keys[s];
  }
}

/// Label -> object index (label-sorted), or -1: a dense table or a binary search.
struct ObjLookup {
  const std::int32_t* lut;
  const u64* labels;
  std::int64_t k;
  __device__ std::int64_t operator()(u64 label) const {
    if (lut != nullptr) return lut[label];
    std::int64_t lo = 0, hi = k;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) >> 1;
      if (labels[mid] < label)
        lo = mid + 1;
      else
        hi = mid;
    }
    return (lo < k && labels[lo] == label) ? lo : -1;
  }
};

__global__ void __launch_bounds__(kThreads)
    fill_lut(const u64* __restrict__ labels, std::int64_t k, std::int32_t* __restrict__ lut) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t o = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < k; o += stride)
    lut[labels[o]] = static_cast<std::int32_t>(o);
}

/// Pixel counts per object, one atomic per distinct object in a warp.
template <class T>
__global__ void __launch_bounds__(kThreads)
    count_pixels(const T* __restrict__ lab, std::int64_t n, ObjLookup look, u64* __restrict__ count) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t rounded = (n + stride - 1) / stride * stride;
  const unsigned lane = threadIdx.x & 31u;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < rounded; i += stride) {
    std::int64_t o = -1;
    if (i < n) {
      const T v = lab[i];
      if (v != T(0)) o = look(static_cast<u64>(v));
    }
    const unsigned act = __ballot_sync(0xffffffffu, o >= 0);
    if (o < 0) continue;
    const unsigned same = __match_any_sync(act, static_cast<u64>(o));
    if (static_cast<unsigned>(__ffs(same) - 1) == lane) atomicAdd(count + o, static_cast<u64>(__popc(same)));
  }
}

__global__ void __launch_bounds__(kThreads)
    priority_keys(const u64* __restrict__ labels, std::int64_t k, const double* __restrict__ given,
                  const u64* __restrict__ count, u64* __restrict__ key) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t o = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; o < k; o += stride)
    key[o] = rod_priority_key(given != nullptr ? given[labels[o]] : static_cast<double>(count[o]));
}

// ---- grid --------------------------------------------------------------------------------------------

struct Spacing {
  double v[kRodMaxDims];
};

__global__ void __launch_bounds__(kThreads)
    point_cells(const std::int64_t* __restrict__ pix, std::int64_t m, Dims g, RodGrid grid, Spacing sp,
                double* __restrict__ pos, u64* __restrict__ cell) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < m; k += stride) {
    std::int64_t rem = pix[k], c = 0;
    for (int d = g.nd - 1; d >= 0; --d) {
      const std::int64_t x = rem % g.shape[d];
      rem /= g.shape[d];
      pos[k * g.nd + d] = static_cast<double>(x) * sp.v[d];
      c += (x / grid.w[d]) * grid.cstride[d];
    }
    cell[k] = static_cast<u64>(c);
  }
}

__global__ void __launch_bounds__(kThreads)
    gather_cells(const u64* __restrict__ cell, const std::uint32_t* __restrict__ order, std::int64_t m,
                 u64* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t s = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < m; s += stride)
    out[s] = cell[order[s]];
}

/// The points in (cell, object, pixel) order: their object, scaled position and pixel index.
__global__ void __launch_bounds__(kThreads)
    gather_points(const std::uint32_t* __restrict__ order, std::int64_t m, int nd, const std::int32_t* __restrict__ obj_of,
                  const double* __restrict__ pos, const std::int64_t* __restrict__ pix, std::int32_t* __restrict__ s_obj,
                  double* __restrict__ s_pos, std::int64_t* __restrict__ s_pix) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t s = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < m; s += stride) {
    const std::uint32_t k = order[s];
    s_obj[s] = obj_of[k];
    s_pix[s] = pix[k];
    for (int d = 0; d < nd; ++d) s_pos[s * nd + d] = pos[std::int64_t(k) * nd + d];
  }
}

__global__ void __launch_bounds__(kThreads)
    make_runs(const u64* __restrict__ cell, const std::int32_t* __restrict__ s_obj,
              const std::uint32_t* __restrict__ rid, std::int64_t m, std::int64_t* __restrict__ run_start,
              std::int32_t* __restrict__ run_obj, u64* __restrict__ run_cell) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t s = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < m; s += stride) {
    if (s == m - 1) run_start[rid[s]] = m;  // one past the last run
    if (s > 0 && cell[s] == cell[s - 1] && s_obj[s] == s_obj[s - 1]) continue;
    const std::int64_t r = static_cast<std::int64_t>(rid[s]) - 1;
    run_start[r] = s;
    run_obj[r] = s_obj[s];
    run_cell[r] = cell[s];
  }
}

__global__ void __launch_bounds__(kThreads)
    run_boxes(const std::int64_t* __restrict__ run_start, std::int64_t nr, int nd, const double* __restrict__ s_pos,
              double* __restrict__ lo, double* __restrict__ hi) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t r = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; r < nr; r += stride)
    for (int d = 0; d < nd; ++d) {
      double a = s_pos[run_start[r] * nd + d], b = a;
      for (std::int64_t s = run_start[r] + 1; s < run_start[r + 1]; ++s) {
        const double v = s_pos[s * nd + d];
        a = v < a ? v : a;
        b = v > b ? v : b;
      }
      lo[r * nd + d] = a;
      hi[r * nd + d] = b;
    }
}

/// first[c] = the first run whose cell is >= c, for c in [0, cells].
__global__ void __launch_bounds__(kThreads)
    cell_first_runs(const u64* __restrict__ run_cell, std::int64_t nr, std::int64_t cells,
                    std::int64_t* __restrict__ first) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t c = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; c <= cells; c += stride) {
    std::int64_t lo = 0, hi = nr;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) >> 1;
      if (run_cell[mid] < static_cast<u64>(c))
        lo = mid + 1;
      else
        hi = mid;
    }
    first[c] = lo;
  }
}

// ---- pairs -------------------------------------------------------------------------------------------

struct Borderline {
  std::int64_t pa, pb;  // flat pixel indices
  std::int32_t a, b;    // objects
};

struct PairArgs {
  RodRuns runs;
  int split;  // threads per run: 3^nd (one adjacent cell each) up to 3-D, else 1
  const std::int64_t* s_pix;
  RodGrid grid;
  RodMetric metric;
  u64* rec;
  u64 rec_cap;
  u64* rec_count;
  Borderline* bl;
  u64 bl_cap;
  u64* bl_count;
};

/// One thread per run and adjacent cell (rod_run_pairs); records are buffered per thread and
/// appended per warp.
__global__ void __launch_bounds__(kThreads) pairs_kernel(PairArgs A) {
  const std::int64_t tid = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::int64_t ra = tid / A.split;
  const int only = A.split == 1 ? -1 : static_cast<int>(tid - ra * A.split);
  u64 local[kLocal];
  int nl = 0;
  if (ra < A.runs.nr) {
    const std::int32_t a = A.runs.run_obj[ra];
    rod_run_pairs(
        A.runs, A.grid, A.metric, ra,
        [&](std::int32_t b) {
          if (nl == kLocal) {  // full: append this thread's records alone
            const u64 base = atomicAdd(A.rec_count, static_cast<u64>(nl));
            for (int k = 0; k < nl; ++k)
              if (base + k < A.rec_cap) A.rec[base + k] = local[k];
            nl = 0;
          }
          local[nl++] = (static_cast<u64>(a) << 32) | static_cast<std::uint32_t>(b);
        },
        [&](std::int64_t sa, std::int64_t sb, std::int32_t b) {
          const u64 slot = atomicAdd(A.bl_count, 1ull);
          if (slot < A.bl_cap) A.bl[slot] = Borderline{A.s_pix[sa], A.s_pix[sb], a, b};
        },
        only);
  }
  // Warp-aggregated append of every lane's buffered records.
  const unsigned lane = threadIdx.x & 31u;
  u64 incl = static_cast<u64>(nl);
  for (int o = 1; o < 32; o <<= 1) {
    const u64 v = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= static_cast<unsigned>(o)) incl += v;
  }
  const u64 total = __shfl_sync(0xffffffffu, incl, 31);
  u64 base = 0;
  if (lane == 31 && total > 0) base = atomicAdd(A.rec_count, total);
  base = __shfl_sync(0xffffffffu, base, 31);
  const u64 mine = base + incl - static_cast<u64>(nl);
  for (int k = 0; k < nl; ++k)
    if (mine + k < A.rec_cap) A.rec[mine + k] = local[k];
}

// ---- rounds ------------------------------------------------------------------------------------------

/// Each neighbour pair (a < b) as an edge keyed by the later object: later << 32 | earlier.
__global__ void __launch_bounds__(kThreads)
    direct_edges(const u64* __restrict__ pairs, std::int64_t e, const u64* __restrict__ key, u64* __restrict__ edges) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t k = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < e; k += stride) {
    const u64 a = pairs[k] >> 32, b = pairs[k] & 0xffffffffull;
    const bool b_first = rod_before(key[b], static_cast<std::int64_t>(b), key[a], static_cast<std::int64_t>(a));
    edges[k] = b_first ? ((a << 32) | b) : ((b << 32) | a);
  }
}

__global__ void __launch_bounds__(kThreads)
    edge_offsets(const u64* __restrict__ edges, std::int64_t e, std::int64_t k, std::int64_t* __restrict__ off) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t x = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; x <= k; x += stride) {
    const u64 target = static_cast<u64>(x) << 32;
    std::int64_t lo = 0, hi = e;
    while (lo < hi) {
      const std::int64_t mid = (lo + hi) >> 1;
      if (edges[mid] < target)
        lo = mid + 1;
      else
        hi = mid;
    }
    off[x] = lo;
  }
}

/// state: 0 undecided, 1 kept, 2 removed.
__global__ void __launch_bounds__(kResolveThreads)
    resolve_kernel(const u64* __restrict__ edges, const std::int64_t* __restrict__ off, std::int64_t k,
                   std::uint8_t* state, int max_idle, u64* __restrict__ undecided) {
  __shared__ int progress, remaining;
  const std::int64_t base = std::int64_t(blockIdx.x) * (kResolveThreads * kResolveItems);
  unsigned mine = 0;
#pragma unroll
  for (int q = 0; q < kResolveItems; ++q) {
    const std::int64_t x = base + std::int64_t(q) * kResolveThreads + threadIdx.x;
    if (x < k && vload(state + x) == 0) mine |= 1u << q;
  }
  int idle = 0;
  for (;;) {
    if (threadIdx.x == 0) progress = remaining = 0;
    __syncthreads();
    bool moved = false;
#pragma unroll
    for (int q = 0; q < kResolveItems; ++q) {
      if (!(mine >> q & 1u)) continue;
      const std::int64_t x = base + std::int64_t(q) * kResolveThreads + threadIdx.x;
      bool open = false, removed = false;
      for (std::int64_t j = off[x]; j < off[x + 1]; ++j) {
        const std::uint8_t sy = vload(state + (edges[j] & 0xffffffffull));
        if (sy == 1) {
          removed = true;
          break;
        }
        open = open || sy == 0;
      }
      if (!removed && open) continue;
      vstore(state + x, removed ? 2 : 1);
      mine &= ~(1u << q);
      moved = true;
    }
    if (moved) progress = 1;
    if (mine) remaining = 1;
    __syncthreads();
    const bool left = remaining != 0, any = progress != 0;
    __syncthreads();
    if (!left) break;
    idle = any ? 0 : idle + 1;
    if (idle >= max_idle) break;
  }
  if (mine) atomicAdd(undecided, static_cast<u64>(__popc(mine)));
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    clear_kernel(const T* __restrict__ lab, std::int64_t n, ObjLookup look, const std::uint8_t* __restrict__ state,
                 T* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T v = lab[i];
    T r = v;
    if (v != T(0)) {
      const std::int64_t o = look(static_cast<u64>(v));
      if (o >= 0 && state[o] == 2) r = T(0);
    }
    out[i] = r;
  }
}

// ---- host --------------------------------------------------------------------------------------------

void sort_pairs_u64_u32(Array& keys, Array& vals, std::int64_t m, int end_bit, const Stream& s) {
  const Device dev = keys.device();
  Array k2 = Array::empty({m}, DType::uint64, dev, s);
  Array v2 = Array::empty({m}, DType::uint32, dev, s);
  cub::DoubleBuffer<u64> dk(ptr<u64>(keys), ptr<u64>(k2));
  cub::DoubleBuffer<std::uint32_t> dv(ptr<std::uint32_t>(vals), ptr<std::uint32_t>(v2));
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, dk, dv, m, 0, end_bit, s.handle()));
  Array tmp = scratch(bytes, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, dk, dv, m, 0, end_bit, s.handle()));
  if (dk.Current() != ptr<u64>(keys)) keys = std::move(k2);
  if (dv.Current() != ptr<std::uint32_t>(vals)) vals = std::move(v2);
}

void sort_keys_u64(Array& keys, std::int64_t m, int end_bit, const Stream& s) {
  const Device dev = keys.device();
  Array k2 = Array::empty({m}, DType::uint64, dev, s);
  cub::DoubleBuffer<u64> dk(ptr<u64>(keys), ptr<u64>(k2));
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, dk, m, 0, end_bit, s.handle()));
  Array tmp = scratch(bytes, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(tmp.data(), bytes, dk, m, 0, end_bit, s.handle()));
  if (dk.Current() != ptr<u64>(keys)) keys = std::move(k2);
}

/// Inclusive sum of uint32 flags; returns the total (synchronises).
std::int64_t inclusive_ids(const Array& flags, Array& ids, std::int64_t m, const Stream& s) {
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, cptr<std::uint32_t>(flags), ptr<std::uint32_t>(ids), m,
                                                s.handle()));
  {
    Array tmp = scratch(bytes, flags.device(), s);
    CUSK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(tmp.data(), bytes, cptr<std::uint32_t>(flags),
                                                  ptr<std::uint32_t>(ids), m, s.handle()));
  }
  return read_back<std::uint32_t>(cptr<std::uint32_t>(ids) + (m - 1), s);
}

int bits_for(std::uint64_t max_value) { return std::max(1, static_cast<int>(std::bit_width(max_value))); }

template <class T>
Array run(const Array& labels, const RodDeviceArgs& args, const Stream& s) {
  const Device dev = labels.device();
  const cudaStream_t h = s.handle();
  const Shape& shape = labels.shape();
  const int nd = labels.ndim();
  const std::int64_t n = labels.size();
  const T* lab = cptr<T>(labels);
  Array out = Array::empty(shape, labels.dtype(), dev, s);
  auto copy_input = [&] {
    CUSK_CUDA_CHECK(cudaMemcpyAsync(out.data(), labels.data(), static_cast<std::size_t>(n) * sizeof(T),
                                    cudaMemcpyDeviceToDevice, h));
    return std::move(out);
  };
  if (n == 0) return out;

  // Labels: negative (or above 2^63 - 1) ones are rejected, as on the CPU.
  Array mm = Array::empty({2}, DType::int64, dev, s);
  minmax_init<<<1, 1, 0, h>>>(ptr<long long>(mm));
  CUSK_CUDA_CHECK_LAUNCH();
  minmax_kernel<T><<<std::min<unsigned>(blocks_for(n), 1024), kThreads, 0, h>>>(lab, n, ptr<long long>(mm));
  CUSK_CUDA_CHECK_LAUNCH();
  long long host_mm[2];
  CUSK_CUDA_CHECK(cudaMemcpyAsync(host_mm, mm.data(), sizeof(host_mm), cudaMemcpyDeviceToHost, h));
  s.synchronize();
  if (host_mm[0] < 0) {
    if constexpr (std::is_same_v<T, std::uint64_t>)
      fail(kFn, "argument 'label_image' labels above 2^63 - 1 are not supported");
    else
      fail(kFn, "argument 'label_image' found object with negative ID ", host_mm[0]);
  }
  const std::int64_t max_label = host_mm[1];

  // Footprint: the cross for isotropic spacing and p <= 2, else the full 3^nd block.
  const std::vector<double>& sp = args.spacing;
  const bool isotropic = std::all_of(sp.begin(), sp.end(), [&](double v) { return v == sp[0]; });
  const int fp_conn = (isotropic && args.p_norm <= 2) ? 1 : nd;
  std::vector<std::int64_t> off_lin;
  std::vector<std::int8_t> off_ax;
  std::vector<std::int64_t> cstr(nd, 1);
  for (int d = nd - 2; d >= 0; --d) cstr[d] = cstr[d + 1] * shape[d + 1];
  int total = 1;
  for (int d = 0; d < nd; ++d) total *= 3;
  for (int t = 0; t < total; ++t) {
    std::vector<std::int8_t> o(nd);
    int rem = t, steps = 0;
    std::int64_t lin = 0;
    for (int d = nd - 1; d >= 0; --d) {
      o[d] = static_cast<std::int8_t>(rem % 3 - 1);
      rem /= 3;
      steps += o[d] != 0;
      lin += o[d] * cstr[d];
    }
    if (steps == 0 || steps > fp_conn) continue;
    off_lin.push_back(lin);
    off_ax.insert(off_ax.end(), o.begin(), o.end());
  }
  const Array d_off_lin = Array::from_vector(off_lin, {static_cast<std::int64_t>(off_lin.size())}).to(dev, s);
  const Array d_off_ax = Array::from_vector(off_ax, {static_cast<std::int64_t>(off_ax.size())}).to(dev, s);
  Dims g{};
  g.nd = nd;
  for (int d = 0; d < nd; ++d) g.shape[d] = shape[d];

  // Boundary pixels, C order.
  Array pix = Array::empty({n}, DType::int64, dev, s);
  Array nsel = Array::empty({1}, DType::int64, dev, s);
  {
    const IsBorder<T> pred{lab, g, cptr<std::int64_t>(d_off_lin), cptr<std::int8_t>(d_off_ax),
                           static_cast<int>(off_lin.size())};
    const thrust::counting_iterator<std::int64_t> in(0);
    std::size_t bytes = 0;
    CUSK_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, in, ptr<std::int64_t>(pix), ptr<std::int64_t>(nsel), n, pred, h));
    Array tmp = scratch(bytes, dev, s);
    CUSK_CUDA_CHECK(
        cub::DeviceSelect::If(tmp.data(), bytes, in, ptr<std::int64_t>(pix), ptr<std::int64_t>(nsel), n, pred, h));
  }
  const std::int64_t m = read_back<std::int64_t>(nsel.data(), s);
  if (m == 0) return copy_input();  // no object, or one filling the image
  if (m >= (std::int64_t(1) << 31))
    fail<NotSupported>(kFn, "the CUDA backend handles up to 2^31 - 1 boundary pixels, got ", m);
  if (args.priority.valid())
    expect(args.priority.size() > max_label, kFn, "priority", "shape of `priority` must be (",
           "max(label_image) + 1,) = (", max_label + 1, ",), got (", args.priority.size(), ",)");

  // Objects: boundary labels sorted and numbered.
  Array keys = Array::empty({m}, DType::uint64, dev, s);
  Array order = Array::empty({m}, DType::uint32, dev, s);
  gather_labels<T><<<blocks_for(m), kThreads, 0, h>>>(lab, cptr<std::int64_t>(pix), m, ptr<u64>(keys),
                                                      ptr<std::uint32_t>(order));
  CUSK_CUDA_CHECK_LAUNCH();
  sort_pairs_u64_u32(keys, order, m, bits_for(static_cast<std::uint64_t>(max_label)), s);
  Array flags = Array::empty({m}, DType::uint32, dev, s);
  Array ids = Array::empty({m}, DType::uint32, dev, s);
  head_flags<<<blocks_for(m), kThreads, 0, h>>>(cptr<u64>(keys), nullptr, m, ptr<std::uint32_t>(flags));
  CUSK_CUDA_CHECK_LAUNCH();
  const std::int64_t K = inclusive_ids(flags, ids, m, s);
  Array obj_of = Array::empty({m}, DType::int32, dev, s);
  Array obj_label = Array::empty({K}, DType::uint64, dev, s);
  number_objects<<<blocks_for(m), kThreads, 0, h>>>(cptr<u64>(keys), cptr<std::uint32_t>(order),
                                                    cptr<std::uint32_t>(ids), m, ptr<std::int32_t>(obj_of),
                                                    ptr<u64>(obj_label));
  CUSK_CUDA_CHECK_LAUNCH();
  if (K == 1) return copy_input();  // a single object: nothing to remove

  // Grid and points sorted by (cell, object, pixel): `order` is by (object, pixel) already.
  RodGrid grid = RodGrid::make(shape, args.min_distance, sp);
  grid.coarsen(shape, std::max<std::int64_t>(2 * m, 1 << 16));
  Spacing spv{};
  for (int d = 0; d < nd; ++d) spv.v[d] = sp[d];
  Array pos = Array::empty({m * nd}, DType::float64, dev, s);
  Array pcell = Array::empty({m}, DType::uint64, dev, s);
  point_cells<<<blocks_for(m), kThreads, 0, h>>>(cptr<std::int64_t>(pix), m, g, grid, spv, ptr<double>(pos),
                                                 ptr<u64>(pcell));
  CUSK_CUDA_CHECK_LAUNCH();
  Array ckeys = Array::empty({m}, DType::uint64, dev, s);
  gather_cells<<<blocks_for(m), kThreads, 0, h>>>(cptr<u64>(pcell), cptr<std::uint32_t>(order), m, ptr<u64>(ckeys));
  CUSK_CUDA_CHECK_LAUNCH();
  sort_pairs_u64_u32(ckeys, order, m, bits_for(static_cast<std::uint64_t>(grid.cells - 1)), s);
  Array s_obj = Array::empty({m}, DType::int32, dev, s);
  Array s_pos = Array::empty({m * nd}, DType::float64, dev, s);
  Array s_pix = Array::empty({m}, DType::int64, dev, s);
  gather_points<<<blocks_for(m), kThreads, 0, h>>>(cptr<std::uint32_t>(order), m, nd, cptr<std::int32_t>(obj_of),
                                                   cptr<double>(pos), cptr<std::int64_t>(pix), ptr<std::int32_t>(s_obj),
                                                   ptr<double>(s_pos), ptr<std::int64_t>(s_pix));
  CUSK_CUDA_CHECK_LAUNCH();
  head_flags<<<blocks_for(m), kThreads, 0, h>>>(cptr<u64>(ckeys), cptr<std::int32_t>(s_obj), m,
                                                ptr<std::uint32_t>(flags));
  CUSK_CUDA_CHECK_LAUNCH();
  const std::int64_t nr = inclusive_ids(flags, ids, m, s);
  Array run_start = Array::empty({nr + 1}, DType::int64, dev, s);
  Array run_obj = Array::empty({nr}, DType::int32, dev, s);
  Array run_cell = Array::empty({nr}, DType::uint64, dev, s);
  make_runs<<<blocks_for(m), kThreads, 0, h>>>(cptr<u64>(ckeys), cptr<std::int32_t>(s_obj), cptr<std::uint32_t>(ids), m,
                                               ptr<std::int64_t>(run_start), ptr<std::int32_t>(run_obj),
                                               ptr<u64>(run_cell));
  CUSK_CUDA_CHECK_LAUNCH();
  Array run_lo = Array::empty({nr * nd}, DType::float64, dev, s);
  Array run_hi = Array::empty({nr * nd}, DType::float64, dev, s);
  run_boxes<<<blocks_for(nr), kThreads, 0, h>>>(cptr<std::int64_t>(run_start), nr, nd, cptr<double>(s_pos),
                                                ptr<double>(run_lo), ptr<double>(run_hi));
  CUSK_CUDA_CHECK_LAUNCH();
  Array cell_first = Array::empty({grid.cells + 1}, DType::int64, dev, s);
  cell_first_runs<<<blocks_for(grid.cells + 1), kThreads, 0, h>>>(cptr<u64>(run_cell), nr, grid.cells,
                                                                  ptr<std::int64_t>(cell_first));
  CUSK_CUDA_CHECK_LAUNCH();

  // Neighbour pairs (re-run with larger buffers when the first guess was short).
  Array counts = Array::empty({2}, DType::uint64, dev, s);
  const int split = nd == 1 ? 3 : nd == 2 ? 9 : nd == 3 ? 27 : 1;
  u64 rec_cap = static_cast<u64>(std::max<std::int64_t>(8 * nr, 1 << 20)), bl_cap = 1024;
  Array rec, bl;
  u64 host_counts[2] = {0, 0};
  for (;;) {
    rec = Array::empty({static_cast<std::int64_t>(rec_cap)}, DType::uint64, dev, s);
    bl = Array::empty({static_cast<std::int64_t>(bl_cap * sizeof(Borderline))}, DType::uint8, dev, s);
    CUSK_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, 2 * sizeof(u64), h));
    const RodRuns runs{cptr<std::int32_t>(run_obj), cptr<std::int64_t>(run_start), cptr<std::uint64_t>(run_cell),
                       cptr<double>(run_lo),          cptr<double>(run_hi),         cptr<std::int64_t>(cell_first),
                       cptr<double>(s_pos),           nr};
    PairArgs pa{runs,          split,   cptr<std::int64_t>(s_pix), grid, RodMetric::make(args.p_norm, args.min_distance, nd),
                ptr<u64>(rec), rec_cap, ptr<u64>(counts),          ptr<Borderline>(bl), bl_cap, ptr<u64>(counts) + 1};
    pairs_kernel<<<exact_blocks(nr * split, kThreads), kThreads, 0, h>>>(pa);
    CUSK_CUDA_CHECK_LAUNCH();
    CUSK_CUDA_CHECK(cudaMemcpyAsync(host_counts, counts.data(), sizeof(host_counts), cudaMemcpyDeviceToHost, h));
    s.synchronize();
    if (host_counts[0] <= rec_cap && host_counts[1] <= bl_cap) break;
    rec_cap = std::max<u64>(rec_cap, host_counts[0]);
    bl_cap = std::max<u64>(bl_cap, host_counts[1]);
  }
  std::int64_t nrec = static_cast<std::int64_t>(host_counts[0]);
  if (host_counts[1] > 0) {
    // Pairs too close to the bound to call with the device's pow: the CPU's test decides.
    std::vector<Borderline> hb(static_cast<std::size_t>(host_counts[1]));
    CUSK_CUDA_CHECK(cudaMemcpyAsync(hb.data(), bl.data(), hb.size() * sizeof(Borderline), cudaMemcpyDeviceToHost, h));
    s.synchronize();
    std::vector<std::uint64_t> extra;
    for (const Borderline& b : hb)
      if (args.within(args.within_ctx, b.pa, b.pb)) extra.push_back((static_cast<u64>(b.a) << 32) | static_cast<std::uint32_t>(b.b));
    if (!extra.empty()) {
      Array all = Array::empty({nrec + static_cast<std::int64_t>(extra.size())}, DType::uint64, dev, s);
      if (nrec > 0)
        CUSK_CUDA_CHECK(cudaMemcpyAsync(all.data(), rec.data(), static_cast<std::size_t>(nrec) * sizeof(u64),
                                        cudaMemcpyDeviceToDevice, h));
      const Array up = Array::from_vector(extra, {static_cast<std::int64_t>(extra.size())}).to(dev, s);
      CUSK_CUDA_CHECK(cudaMemcpyAsync(ptr<u64>(all) + nrec, up.data(), extra.size() * sizeof(u64),
                                      cudaMemcpyDeviceToDevice, h));
      rec = std::move(all);
      nrec += static_cast<std::int64_t>(extra.size());
    }
  }
  if (nrec == 0) return copy_input();  // no two objects within min_distance

  // Unique pairs.
  sort_keys_u64(rec, nrec, 32 + bits_for(static_cast<std::uint64_t>(K)), s);
  Array pairs = Array::empty({nrec}, DType::uint64, dev, s);
  {
    std::size_t bytes = 0;
    CUSK_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, bytes, cptr<u64>(rec), ptr<u64>(pairs), ptr<std::int64_t>(nsel),
                                              nrec, h));
    Array tmp = scratch(bytes, dev, s);
    CUSK_CUDA_CHECK(cub::DeviceSelect::Unique(tmp.data(), bytes, cptr<u64>(rec), ptr<u64>(pairs),
                                              ptr<std::int64_t>(nsel), nrec, h));
  }
  const std::int64_t E = read_back<std::int64_t>(nsel.data(), s);

  // Priorities and the order keys.
  Array lut;
  const bool dense = static_cast<std::int64_t>(max_label) < std::max<std::int64_t>(n, 1 << 20);
  if (dense) {
    lut = Array::empty({max_label + 1}, DType::int32, dev, s);
    CUSK_CUDA_CHECK(cudaMemsetAsync(lut.data(), 0xff, static_cast<std::size_t>(max_label + 1) * sizeof(std::int32_t), h));
    fill_lut<<<blocks_for(K), kThreads, 0, h>>>(cptr<u64>(obj_label), K, ptr<std::int32_t>(lut));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  const ObjLookup look{dense ? cptr<std::int32_t>(lut) : nullptr, cptr<u64>(obj_label), K};
  Array okey = Array::empty({K}, DType::uint64, dev, s);
  if (args.priority.valid()) {
    priority_keys<<<blocks_for(K), kThreads, 0, h>>>(cptr<u64>(obj_label), K, cptr<double>(args.priority), nullptr,
                                                     ptr<u64>(okey));
  } else {
    Array cnt = Array::zeros({K}, DType::uint64, dev, s);
    count_pixels<T><<<blocks_for(n), kThreads, 0, h>>>(lab, n, look, ptr<u64>(cnt));
    CUSK_CUDA_CHECK_LAUNCH();
    priority_keys<<<blocks_for(K), kThreads, 0, h>>>(cptr<u64>(obj_label), K, nullptr, cptr<u64>(cnt), ptr<u64>(okey));
  }
  CUSK_CUDA_CHECK_LAUNCH();

  // Edges keyed by the later object, CSR.
  Array edges = Array::empty({E}, DType::uint64, dev, s);
  direct_edges<<<blocks_for(E), kThreads, 0, h>>>(cptr<u64>(pairs), E, cptr<u64>(okey), ptr<u64>(edges));
  CUSK_CUDA_CHECK_LAUNCH();
  sort_keys_u64(edges, E, 32 + bits_for(static_cast<std::uint64_t>(K)), s);
  Array eoff = Array::empty({K + 1}, DType::int64, dev, s);
  edge_offsets<<<blocks_for(K + 1), kThreads, 0, h>>>(cptr<u64>(edges), E, K, ptr<std::int64_t>(eoff));
  CUSK_CUDA_CHECK_LAUNCH();

  // Rounds.
  Array state = Array::zeros({K}, DType::uint8, dev, s);
  Array und = Array::empty({1}, DType::uint64, dev, s);
  const unsigned rblocks = exact_blocks(K, kResolveThreads * kResolveItems);
  for (int batch = 1;; batch = std::min(batch * 2, 8)) {
    for (int b = 0; b < batch; ++b) {
      CUSK_CUDA_CHECK(cudaMemsetAsync(und.data(), 0, sizeof(u64), h));
      resolve_kernel<<<rblocks, kResolveThreads, 0, h>>>(cptr<u64>(edges), cptr<std::int64_t>(eoff), K,
                                                         ptr<std::uint8_t>(state), 2, ptr<u64>(und));
      CUSK_CUDA_CHECK_LAUNCH();
    }
    if (read_back<u64>(und.data(), s) == 0) break;
  }

  clear_kernel<T><<<blocks_for(n), kThreads, 0, h>>>(lab, n, look, cptr<std::uint8_t>(state), ptr<T>(out));
  CUSK_CUDA_CHECK_LAUNCH();
  return out;
}

}  // namespace

Array cuda_remove_objects_by_distance(const Array& labels, const RodDeviceArgs& args, const Stream& stream) {
  return cuskimage::detail::dispatch<cuskimage::detail::IntegerTypes>(
      labels.dtype(), kFn, [&]<class T>() { return run<T>(labels, args, stream); });
}

}  // namespace cuskimage::morphology::detail
