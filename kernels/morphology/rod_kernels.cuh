// The device kernels of remove_objects_by_distance (kernels/morphology/remove_by_distance.cu has
// the account and the host side that launches them): the label range, boundary pixels, object
// numbering, grid cells and runs, the pair search and the greedy rounds. Included by that file only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cub/block/block_reduce.cuh>
#include <string_view>
#include <type_traits>

#include "kernels/core/buffers.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/remove_by_distance_ops.hpp"

namespace cuskimage::morphology::detail::rod {

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

}  // namespace cuskimage::morphology::detail::rod
