// Union-find connected-component labelling building blocks (Playne & Hawick 2018, "A New Algorithm
// for Parallel Connected-Component Labelling on GPUs"), shared by measure.label, regionprops,
// hysteresis thresholding and the morphology labellings (reconstruction extrema, remove_small_objects,
// convex_hull_object).
//
// The labels are parent indices into the image itself (index type I: int32 when the image has
// fewer than 2^31 pixels, else 64-bit), -1 for background. A labelling is three grid-stride passes
// over a predicate fg(i):
//   ccl_init:    parent[i] = fg(i) ? i : -1
//   ccl_merge:   for each foreground pixel, union with its foreground backward face neighbours
//                (x-1, y-1, z-1: scipy.ndimage.label's default structure), lock-free (atomicMin
//                on the larger root, retried until the roots agree)
//   ccl_flatten: parent[i] = root(i); every pixel then names its component's smallest index.
// Traffic: one predicate read and a few index reads/writes per pixel (roots stay in L2); the merge
// is bounded by the atomics on long chains. Block-local merging in shared memory first (the
// paper's tile step) would cut global atomics further; the interface does not change with it.
#pragma once

#include <cstdint>

namespace cuskimage::detail {

template <class I>
__device__ __forceinline__ I ccl_find(const I* parent, I x) {
  I p = parent[x];
  while (p != x) {
    x = p;
    p = parent[x];
  }
  return x;
}

__device__ __forceinline__ std::int32_t ccl_atomic_min(std::int32_t* a, std::int32_t v) { return atomicMin(a, v); }
__device__ __forceinline__ std::int64_t ccl_atomic_min(std::int64_t* a, std::int64_t v) {
  return static_cast<std::int64_t>(
      atomicMin(reinterpret_cast<long long*>(a), static_cast<long long>(v)));
}

/// ccl_find with path halving: each visited node is re-pointed at its grandparent, so later finds
/// on the same tree are short. Safe beside concurrent ccl_union: a node's parent only ever moves to
/// another member of its set with a smaller index (parent[x] <= x always), and roots are never
/// written here.
template <class I>
__device__ __forceinline__ I ccl_find_halve(I* parent, I x) {
  I p = parent[x];
  while (p != x) {
    const I g = parent[p];
    if (g != p) parent[x] = g;
    x = p;
    p = g;
  }
  return x;
}

/// Joins the components of a and b (both foreground).
template <class I>
__device__ __forceinline__ void ccl_union(I* parent, I a, I b) {
  bool done = false;
  do {
    a = ccl_find_halve(parent, a);
    b = ccl_find_halve(parent, b);
    if (a < b) {
      const I old = ccl_atomic_min(&parent[b], a);
      done = old == b;
      b = old;
    } else if (b < a) {
      const I old = ccl_atomic_min(&parent[a], b);
      done = old == a;
      a = old;
    } else {
      done = true;
    }
  } while (!done);
}

/// Geometry of a C-order volume (nz, ny, nx); 1-D and 2-D images use leading extents of 1.
struct CclGeom {
  std::int64_t nz, ny, nx;
};

template <class I, class Fg>
__global__ void __launch_bounds__(256) ccl_init(I* parent, CclGeom g, Fg fg) {
  const std::int64_t total = g.nz * g.ny * g.nx, stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
    parent[i] = fg(i) ? static_cast<I>(i) : I(-1);
}

template <class I>
__global__ void __launch_bounds__(256) ccl_merge(I* parent, CclGeom g) {
  const std::int64_t total = g.nz * g.ny * g.nx, stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    if (parent[i] < 0) continue;
    const std::int64_t x = i % g.nx, r = i / g.nx, y = r % g.ny, z = r / g.ny;
    if (x > 0 && parent[i - 1] >= 0) ccl_union<I>(parent, static_cast<I>(i), static_cast<I>(i - 1));
    if (y > 0 && parent[i - g.nx] >= 0) ccl_union<I>(parent, static_cast<I>(i), static_cast<I>(i - g.nx));
    if (z > 0 && parent[i - g.nx * g.ny] >= 0)
      ccl_union<I>(parent, static_cast<I>(i), static_cast<I>(i - g.nx * g.ny));
  }
}

template <class I>
__global__ void __launch_bounds__(256) ccl_flatten(I* parent, CclGeom g) {
  const std::int64_t total = g.nz * g.ny * g.nx, stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride)
    if (parent[i] >= 0) parent[i] = ccl_find(parent, static_cast<I>(i));
}

}  // namespace cuskimage::detail
