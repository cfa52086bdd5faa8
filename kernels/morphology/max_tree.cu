// CUDA max_tree, area/diameter openings and closings, max_tree_local_maxima: scikit-image's exact
// parent and traverser, and its filters, computed in parallel (the algorithm and why it is exact:
// src/morphology/max_tree_ops.hpp, whose bodies these kernels call).
//
// The build is in this file, the filters and local maxima in max_tree_filters.cu, what both use
// in max_tree_common.cuh. Pipeline of max_tree (n pixels, 32-bit indices):
//   keys    ordered unsigned keys (NaN last, -0 = +0), CUB radix sort of (key, index): the stable
//           argsort = tree_traverser;
//   levels  dense ranks of the sorted keys (each NaN its own), scattered per pixel, and the first
//           position of every level; the number of levels L is read back (the one sync);
//   build   batches of D levels from the top (D from L and n, see tree_levels_per_batch): one
//           kernel merges the batch's edges into the tree, a second unites them in the union-find;
//   parent  level roots (= canonical pixels), then the canonical pixels' parents.
// Filters: the tree (built, or the caller's after a validity check on the device), children
// counted, attributes accumulated leaf to root through the nodes still below the threshold (a
// thread goes on to the parent when it brought the parent's last child; the first step is
// warp-aggregated per parent), then each pixel's output is the value at the end of its links
// (pointer jumping with path halving) -- the direct filter.
//
// Bytes and floor (uint8, area_opening): the floor is one read of the image and one write of the
// output, 2 B/px (8192^2: 134 MB, 32 us). The build touches per pixel the sort (~40 B), the levels
// (~24 B), the merge and union passes (~20 random 32-byte sectors) and the finalisation (~40 B);
// the filter ~60 B more. First predictions on the H200 (uint8, area_threshold 64): max_tree 2048^2
// ~4 ms, 8192^2 ~40 ms; area_opening 2048^2 ~5 ms, 8192^2 ~50 ms. Measured (first rule of D, split
// links): max_tree 10.7 / 145 ms,
// area_opening 12.5 / 169 ms (noise 12.1 / 194 ms); float32 2048^2 1.83 s.
//
// Why 3.5x: the predictions counted bytes, but a batch is bound by its longest dependent chain
// (both kernels drain before the next batch starts). 2048^2 uint8 texture: 243 levels, D = 3, 81
// batches of ~52k pixels: ~130 us a batch, of which the batch's random traffic (~2.4M loads, ~75 MB)
// explains ~25 us; the rest is the chain of one thread: a find in the union-find of a large
// processed component, level-root walks along the equal-level chains of a node many threads join,
// CAS retries at its root; each step two dependent loads (par[x], then lev[par[x]]) at L2/DRAM
// latency. A sequential model of the shared bodies on that texture (walk lengths, no contention)
// gives ~8000 dependent loads on the sum of the batches' critical paths (6400 merge + 1800 union)
// for ~37 loads/px in total; packing each link with its parent's level cuts the critical paths
// to ~5300 and the loads to ~27/px; D = 16 with packed links: ~3050 and ~48/px (fewer, longer
// batches: the union pass shrinks, merge walks grow). At 8192^2 the first rule gave D = 1 (256
// batches of ~262k pixels, ~570 us each): there the traffic (DRAM-random, working set ~1.4 GB)
// and the chains weigh about the same. The H200 sweep of levels per batch, links packed or split,
// batches by pixel count and grids sized to the batch kept packed links and the rule of
// tree_levels_per_batch (src/morphology/max_tree_ops.hpp); tuning::MaxTreePolicy overrides D.
//
// The weak case: images of mostly distinct values (float, wide-range integers) have ~n levels. The
// batches keep every merge walk within D levels, but a batch's walks still take up to D dependent
// memory round trips (many batch pixels merging into one large processed component each walk its
// chain from the top; edges inside a batch walk the levels between their ends), so the build costs
// ~L x (memory latency) in total: seconds at 2048^2 float, about the CPU backend's time. Sorting a
// batch's (component root, position) pairs and merging consecutive pixels would make the first
// kind of walk O(1), but the second remains; high-dynamic-range data needs another build (e.g. a
// pilot tree on quantised levels refined per node, as the HDR max-trees of Moschini, Meijster and
// Wilkinson). The attribute climbs and filter walks are bounded by the threshold, not the depth
// (max_tree_ops.hpp), so they are not affected.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <vector>

#include "cuskimage/tuning.hpp"
#include "kernels/morphology/max_tree_common.cuh"
#include "src/morphology/max_tree_cuda.hpp"

namespace cuskimage::morphology::detail {
namespace mt {
namespace {

// ---- keys, sort, levels ---------------------------------------------------------------------------

template <class T>
__global__ void __launch_bounds__(kThreads)
    keys_kernel(const T* __restrict__ in, typename TreeKey<T>::type* __restrict__ keys, I64* __restrict__ iota, I64 n) {
  CUSK_GRID_STRIDE(i, n) {
    keys[i] = TreeKey<T>::of(in[i]);
    iota[i] = i;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    heads_kernel(const typename TreeKey<T>::type* __restrict__ skeys, U32* __restrict__ heads, I64 n) {
  CUSK_GRID_STRIDE(i, n) {
    const auto k = skeys[i];
    heads[i] = (i == 0 || k != skeys[i - 1] || TreeKey<T>::own_level(k)) ? 1u : 0u;
  }
}

/// rank: inclusive scan of the heads (level + 1). lev[pixel] = level; lstart[level] = first
/// position; lstart[L] = n.
__global__ void __launch_bounds__(kThreads)
    levels_kernel(const I64* __restrict__ order, const U32* __restrict__ rank, U32* __restrict__ lev,
                  U32* __restrict__ lstart, I64 n) {
  CUSK_GRID_STRIDE(i, n) {
    const U32 r = rank[i];
    lev[order[i]] = r - 1;
    if (i == 0 || rank[i - 1] != r) lstart[r - 1] = static_cast<U32>(i);
    if (i == n - 1) lstart[r] = static_cast<U32>(n);
  }
}

/// Packed links: every pixel its own parent, with its own level.
__global__ void __launch_bounds__(kThreads)
    pack_init_kernel(std::uint64_t* __restrict__ word, U32* __restrict__ zp, const U32* __restrict__ lev, I64 n) {
  CUSK_GRID_STRIDE(i, n) {
    word[i] = TreePackedLinks<DevMem>::pack({static_cast<U32>(i), lev[i]});
    zp[i] = static_cast<U32>(i);
  }
}

// ---- build ----------------------------------------------------------------------------------------

template <class L>
__global__ void __launch_bounds__(kThreads)
    batch_merge_kernel(const TreeGeom* __restrict__ g, L t, U32* zp, const U32* __restrict__ lev,
                       const I64* __restrict__ order, const U32* __restrict__ lstart, U32 lo, U32 hi) {
  const I64 s = lstart[lo], e = lstart[hi];
  CUSK_GRID_STRIDE(k, e - s) { tree_batch_merge<DevMem>(*g, t, zp, lev, static_cast<U32>(order[s + k]), hi); }
}

__global__ void __launch_bounds__(kThreads)
    batch_union_kernel(const TreeGeom* __restrict__ g, U32* zp, const U32* __restrict__ lev,
                       const I64* __restrict__ order, const U32* __restrict__ lstart, U32 lo, U32 hi) {
  const I64 s = lstart[lo], e = lstart[hi];
  CUSK_GRID_STRIDE(k, e - s) { tree_batch_union<DevMem, U32>(*g, zp, lev, static_cast<U32>(order[s + k])); }
}

template <class L>
__global__ void __launch_bounds__(kThreads)
    finalize1_kernel(L t, const U32* __restrict__ lev, I64 n, I64* __restrict__ out) {
  CUSK_GRID_STRIDE(i, n) { tree_finalize_canonical(t, lev, static_cast<U32>(i), out); }
}

template <class L>
__global__ void __launch_bounds__(kThreads) finalize2_kernel(L t, I64 n, I64* out) {
  CUSK_GRID_STRIDE(i, n) { tree_finalize_parent(t, static_cast<U32>(i), out); }
}

}  // namespace

template <class T>
void build_tree(const Array& image, int connectivity, I64* parent, I64* order, const Stream& stream) {
  using K = typename TreeKey<T>::type;
  const I64 n = image.size();
  const cudaStream_t s = stream.handle();
  const Device dev = current_device();
  const tuning::MaxTreePolicy policy = tuning::max_tree_policy();
  const Array geom = device_geom(image, connectivity, stream);
  Array lev = Array::empty({n}, DType::uint32, dev, stream);
  Array lstart = Array::empty({n + 1}, DType::uint32, dev, stream);
  U32 levels = 0;
  {
    Array keys = Array::empty({n * I64(sizeof(K))}, DType::uint8, dev, stream);
    Array skeys = Array::empty({n * I64(sizeof(K))}, DType::uint8, dev, stream);
    Array iota = Array::empty({n}, DType::int64, dev, stream);
    keys_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(ptr<const T>(image), ptr<K>(keys), ptr<I64>(iota), n);
    CUSK_CUDA_CHECK_LAUNCH();
    std::size_t bytes = 0;
    CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, ptr<const K>(keys), ptr<K>(skeys),
                                                    ptr<const I64>(iota), order, n, 0, int(8 * sizeof(K)), s));
    {
      Array temp = scratch(bytes, stream);
      // Radix sort is stable: equal keys keep their index order, as numpy's stable argsort.
      CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp.data(), bytes, ptr<const K>(keys), ptr<K>(skeys),
                                                      ptr<const I64>(iota), order, n, 0, int(8 * sizeof(K)), s));
    }
    Array heads = Array::empty({n}, DType::uint32, dev, stream);
    Array rank = Array::empty({n}, DType::uint32, dev, stream);
    heads_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(ptr<const K>(skeys), ptr<U32>(heads), n);
    CUSK_CUDA_CHECK_LAUNCH();
    bytes = 0;
    CUSK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, ptr<const U32>(heads), ptr<U32>(rank), n, s));
    {
      Array temp = scratch(bytes, stream);
      CUSK_CUDA_CHECK(
          cub::DeviceScan::InclusiveSum(temp.data(), bytes, ptr<const U32>(heads), ptr<U32>(rank), n, s));
    }
    levels_kernel<<<blocks_for(n), kThreads, 0, s>>>(order, ptr<const U32>(rank), ptr<U32>(lev), ptr<U32>(lstart),
                                                     n);
    CUSK_CUDA_CHECK_LAUNCH();
    CUSK_CUDA_CHECK(cudaMemcpyAsync(&levels, ptr<U32>(rank) + (n - 1), sizeof(U32), cudaMemcpyDeviceToHost, s));
    CUSK_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  // Batches of levels from the top (tree_batch_plan).
  const U32 per = policy.levels_per_batch ? policy.levels_per_batch
                                          : tree_levels_per_batch(static_cast<std::uint64_t>(n), levels);
  const std::vector<TreeBatch> plan = tree_batch_plan(levels, per);
  const auto* gp = ptr<const TreeGeom>(geom);
  const unsigned grid = blocks_for(n);
  Array zp = Array::empty({n}, DType::uint32, dev, stream);
  Array word = Array::empty({n}, DType::uint64, dev, stream);
  pack_init_kernel<<<blocks_for(n), kThreads, 0, s>>>(ptr<std::uint64_t>(word), ptr<U32>(zp), ptr<const U32>(lev), n);
  CUSK_CUDA_CHECK_LAUNCH();
  const TreePackedLinks<DevMem> links{ptr<std::uint64_t>(word)};
  for (const TreeBatch& b : plan) {
    batch_merge_kernel<<<grid, kThreads, 0, s>>>(gp, links, ptr<U32>(zp), ptr<const U32>(lev), order,
                                                 ptr<const U32>(lstart), b.lo, b.hi);
    CUSK_CUDA_CHECK_LAUNCH();
    if (b.lo > 0) {  // the union-find is only read by later batches
      batch_union_kernel<<<grid, kThreads, 0, s>>>(gp, ptr<U32>(zp), ptr<const U32>(lev), order,
                                                   ptr<const U32>(lstart), b.lo, b.hi);
      CUSK_CUDA_CHECK_LAUNCH();
    }
  }
  finalize1_kernel<<<blocks_for(n), kThreads, 0, s>>>(links, ptr<const U32>(lev), n, parent);
  CUSK_CUDA_CHECK_LAUNCH();
  finalize2_kernel<<<blocks_for(n), kThreads, 0, s>>>(TreePackedLinks<PlainMem>{ptr<std::uint64_t>(word)}, n, parent);
  CUSK_CUDA_CHECK_LAUNCH();
}

#define CUSK_BUILD_TREE(T) template void build_tree<T>(const Array&, int, I64*, I64*, const Stream&);
CUSK_BUILD_TREE(std::uint8_t)
CUSK_BUILD_TREE(std::uint16_t)
CUSK_BUILD_TREE(std::int32_t)
CUSK_BUILD_TREE(std::int64_t)
CUSK_BUILD_TREE(float)
CUSK_BUILD_TREE(double)
#undef CUSK_BUILD_TREE

}  // namespace mt

namespace {

using namespace mt;

// ---- a caller's tree ------------------------------------------------------------------------------

__global__ void __launch_bounds__(kThreads)
    check_ranges_kernel(const I64* __restrict__ P, const I64* __restrict__ trav, I64 n, U32* inv, U32* bad) {
  CUSK_GRID_STRIDE(i, n) {
    const I64 t = trav[i], p = P[i];
    if (t < 0 || t >= n || p < 0 || p >= n) {
      atomicExch(bad, 1u);
    } else if (atomicCAS(inv + t, kUnset, static_cast<U32>(i)) != kUnset) {
      atomicExch(bad, 1u);  // t appears twice: not a permutation
    }
  }
}

__global__ void __launch_bounds__(kThreads)
    check_order_kernel(const I64* __restrict__ P, const I64* __restrict__ trav, I64 n, const U32* __restrict__ inv,
                       U32* bad) {
  const I64 root = trav[0];
  CUSK_GRID_STRIDE(i, n) {
    const I64 p = P[i];
    if (i == root || p < 0 || p >= n) continue;  // out-of-range values are flagged already
    const U32 a = inv[p], b = inv[i];
    if (a == kUnset || b == kUnset || a >= b) atomicExch(bad, 1u);
  }
}

}  // namespace

void cuda_max_tree(const Array& image, int connectivity, Array& parent, Array& traverser, const Stream& stream) {
  const I64 n = image.size();
  parent = Array::empty(image.shape(), DType::int64, image.device(), stream);
  traverser = Array::empty({n}, DType::int64, image.device(), stream);
  if (n == 0) return;
  const Array c = image.contiguous(stream);
  cuskimage::detail::dispatch<TreeTypes>(image.dtype(), "morphology.max_tree", [&]<class T>() {
    mt::build_tree<T>(c, connectivity, ptr<I64>(parent), ptr<I64>(traverser), stream);
  });
}

bool cuda_tree_valid(const Array& parent, const Array& traverser, const Stream& stream) {
  const I64 n = traverser.size();
  if (n == 0) return true;
  const cudaStream_t s = stream.handle();
  const Device dev = traverser.device();
  const Array P = parent.contiguous(stream), trav = traverser.contiguous(stream);
  Array inv = Array::empty({n}, DType::uint32, dev, stream);
  Array bad = Array::zeros({1}, DType::uint32, dev, stream);
  CUSK_CUDA_CHECK(cudaMemsetAsync(inv.data(), 0xff, static_cast<std::size_t>(n) * sizeof(U32), s));
  check_ranges_kernel<<<blocks_for(n), kThreads, 0, s>>>(ptr<const I64>(P), ptr<const I64>(trav), n, ptr<U32>(inv),
                                                         ptr<U32>(bad));
  CUSK_CUDA_CHECK_LAUNCH();
  check_order_kernel<<<blocks_for(n), kThreads, 0, s>>>(ptr<const I64>(P), ptr<const I64>(trav), n,
                                                        ptr<const U32>(inv), ptr<U32>(bad));
  CUSK_CUDA_CHECK_LAUNCH();
  U32 flag = 0;
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&flag, bad.data(), sizeof(U32), cudaMemcpyDeviceToHost, s));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s));
  return flag == 0;
}

}  // namespace cuskimage::morphology::detail
