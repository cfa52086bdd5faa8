// CUDA max_tree, area/diameter openings and closings, max_tree_local_maxima: scikit-image's exact
// parent and traverser, and its filters, computed in parallel (the algorithm and why it is exact:
// src/morphology/max_tree_ops.hpp, whose bodies these kernels call).
//
// Pipeline of max_tree (n pixels, 32-bit indices):
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
// ~4 ms, 8192^2 ~40 ms; area_opening 2048^2 ~5 ms, 8192^2 ~50 ms. Measured: max_tree 10.7 / 145 ms,
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
// for ~37 loads/px in total; packing each link with its parent's level (CUSK_MAXTREE_PACK) cuts
// the critical paths to ~5300 and the loads to ~27/px; D = 16 with packed links: ~3050 and ~48/px
// (fewer, longer batches: the union pass shrinks, merge walks grow). At 8192^2 the rule gives D = 1
// (256 batches of ~262k pixels, ~570 us each): there the traffic (DRAM-random, working set
// ~1.4 GB) and the chains weigh about the same. The switches below (temporary, read from the
// environment at every call; results exact whatever they say) let one H200 sweep find the
// balance: levels per batch, batches by pixel count, grids sized to the batch, packed links, and a
// per-phase profile.
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

#include <algorithm>
#include <atomic>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda/atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "kernels/core/buffers.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/morphology/max_tree_cuda.hpp"
#include "src/morphology/max_tree_ops.hpp"

namespace cuskimage::morphology::detail {
namespace {

using U32 = std::uint32_t;
using I64 = std::int64_t;
using TreeTypes = cuskimage::detail::Types<std::uint8_t, std::uint16_t, std::int32_t, std::int64_t, float, double>;

constexpr int kThreads = 256;
constexpr U32 kUnset = 0xffffffffu;

std::atomic<U32> g_levels_per_batch{0};

// ---- temporary tuning switches (host environment, read at every call) ----------------------------
// For sweeps on the H200 while the build's defaults are settled; results are exact whatever they say.
//   CUSK_MAXTREE_D=n          levels per batch (default: tree_levels_per_batch's rule)
//   CUSK_MAXTREE_BATCH_PX=m   a batch takes levels from the top until it holds >= m pixels, at most
//                             CUSK_MAXTREE_D levels (64 when unset); reads the level starts back
//   CUSK_MAXTREE_GRID=batch   each batch kernel's grid sized to the batch's pixels, not the image's
//                             (reads the level starts back)
//   CUSK_MAXTREE_PACK=0       the tree's links split (par[] and lev[]); default: packed with the
//                             parent's level in one 64-bit word (one load per walk step, not two)
//   CUSK_MAXTREE_PROFILE=1    per-phase times (CUDA events, synchronizing) printed to stderr
struct TreeTuning {
  U32 levels_per_batch = 0;
  U32 batch_pixels = 0;
  bool batch_grid = false;
  bool packed = false;
  bool profile = false;
};

U32 env_u32(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  const unsigned long long x = std::strtoull(v, nullptr, 10);
  return static_cast<U32>(std::min<unsigned long long>(x, 0xffffffffull));
}

bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

TreeTuning tree_tuning() {
  TreeTuning t;
  t.levels_per_batch = env_u32("CUSK_MAXTREE_D");
  if (const U32 forced = g_levels_per_batch.load()) t.levels_per_batch = forced;
  t.batch_pixels = env_u32("CUSK_MAXTREE_BATCH_PX");
  t.batch_grid = env_is("CUSK_MAXTREE_GRID", "batch");
  t.packed = !env_is("CUSK_MAXTREE_PACK", "0");  // packed by default (H200 sweep, 2026-12-01)
  t.profile = env_is("CUSK_MAXTREE_PROFILE", "1");
  return t;
}

/// CUSK_MAXTREE_PROFILE: events between phases, printed as one line.
class PhaseTimer {
 public:
  PhaseTimer(bool on, cudaStream_t s) : on_(on), s_(s) { mark("start"); }
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;
  ~PhaseTimer() {
    for (auto& m : marks_) cudaEventDestroy(m.second);
  }
  void mark(const char* phase) {
    if (!on_) return;
    cudaEvent_t e;
    CUSK_CUDA_CHECK(cudaEventCreate(&e));
    CUSK_CUDA_CHECK(cudaEventRecord(e, s_));
    marks_.emplace_back(phase, e);
  }
  void report(const std::string& what) {
    if (!on_ || marks_.size() < 2) return;
    CUSK_CUDA_CHECK(cudaEventSynchronize(marks_.back().second));
    std::string line = "cuskimage max-tree profile: " + what;
    float total = 0;
    for (std::size_t i = 1; i < marks_.size(); ++i) {
      float ms = 0;
      CUSK_CUDA_CHECK(cudaEventElapsedTime(&ms, marks_[i - 1].second, marks_[i].second));
      total += ms;
      char buf[64];
      std::snprintf(buf, sizeof(buf), " | %s %.3f ms", marks_[i].first, ms);
      line += buf;
    }
    char buf[48];
    std::snprintf(buf, sizeof(buf), " | total %.3f ms\n", total);
    line += buf;
    std::fputs(line.c_str(), stderr);
  }

 private:
  bool on_;
  cudaStream_t s_;
  std::vector<std::pair<const char*, cudaEvent_t>> marks_;
};

/// Relaxed device-scope atomics for the shared bodies (host versions are never called).
struct DevMem {
  template <class U>
  __host__ __device__ static U load(const U* p) {
#ifdef __CUDA_ARCH__
    return cuda::atomic_ref<U, cuda::thread_scope_device>(*const_cast<U*>(p)).load(cuda::memory_order_relaxed);
#else
    return *p;
#endif
  }
  template <class U>
  __host__ __device__ static void store(U* p, U v) {
#ifdef __CUDA_ARCH__
    cuda::atomic_ref<U, cuda::thread_scope_device>(*p).store(v, cuda::memory_order_relaxed);
#else
    *p = v;
#endif
  }
  template <class U>
  __host__ __device__ static bool cas(U* p, U expected, U desired) {
#ifdef __CUDA_ARCH__
    return cuda::atomic_ref<U, cuda::thread_scope_device>(*p).compare_exchange_strong(expected, desired,
                                                                                       cuda::memory_order_relaxed);
#else
    (void)p, (void)expected, (void)desired;
    return false;
#endif
  }
  __host__ __device__ static U32 add(U32* p, U32 v) {
#ifdef __CUDA_ARCH__
    return atomicAdd(p, v);
#else
    (void)p, (void)v;
    return 0;
#endif
  }
  __host__ __device__ static U32 sub(U32* p, U32 v) {
#ifdef __CUDA_ARCH__
    return atomicSub(p, v);
#else
    (void)p, (void)v;
    return 0;
#endif
  }
  __host__ __device__ static void min(std::int32_t* p, std::int32_t v) {
#ifdef __CUDA_ARCH__
    atomicMin(p, v);
#else
    (void)p, (void)v;
#endif
  }
  __host__ __device__ static void max(std::int32_t* p, std::int32_t v) {
#ifdef __CUDA_ARCH__
    atomicMax(p, v);
#else
    (void)p, (void)v;
#endif
  }
  __host__ __device__ static void fence() {
#ifdef __CUDA_ARCH__
    __threadfence();
#endif
  }
};

/// Plain loads, for kernels that read what earlier kernels wrote.
struct PlainMem {
  template <class U>
  __host__ __device__ static U load(const U* p) {
    return *p;
  }
};

unsigned blocks_for(I64 work) {
  static const int sms = [] {
    int dev = 0, n = 0;
    CUSK_CUDA_CHECK(cudaGetDevice(&dev));
    CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  const I64 b = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<I64>(b, 1, I64(sms) * 8));
}

Array scratch(std::size_t bytes, const Stream& s) {
  int dev = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  return cuskimage::detail::buf::scratch(bytes, Device::cuda(dev), s);
}

Device current_device() {
  int dev = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  return Device::cuda(dev);
}

template <class U>
U* ptr(const Array& a) {
  return static_cast<U*>(a.data());
}

#define CUSK_GRID_STRIDE(i, n)                                                       \
  for (I64 i = I64(blockIdx.x) * blockDim.x + threadIdx.x, stride_ = I64(gridDim.x) * blockDim.x; i < (n); \
       i += stride_)

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

__global__ void __launch_bounds__(kThreads) iota2_kernel(U32* __restrict__ a, U32* __restrict__ b, I64 n) {
  CUSK_GRID_STRIDE(i, n) { a[i] = b[i] = static_cast<U32>(i); }
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

Array device_geom(const Array& image, int connectivity, const Stream& s) {
  TreeGeom g;
  if (!make_tree_geom(image.shape(), connectivity, g))
    throw NotSupported("morphology.max_tree: CUDA backend limited to 8 axes and 80 neighbours");
  Array h = Array::empty({static_cast<I64>(sizeof(TreeGeom))}, DType::uint8);
  std::memcpy(h.data(), &g, sizeof(TreeGeom));
  return h.to(current_device(), s);
}

/// image: contiguous, on the current device, n >= 1. Writes parent (int64, n) and order (int64, n).
template <class T>
void build_tree(const Array& image, int connectivity, I64* parent, I64* order, const Stream& stream) {
  using K = typename TreeKey<T>::type;
  const I64 n = image.size();
  const cudaStream_t s = stream.handle();
  const Device dev = current_device();
  const TreeTuning tune = tree_tuning();
  PhaseTimer timer(tune.profile, s);
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
  timer.mark("sort+levels");
  // Batches of levels from the top (tree_batch_plan); the level starts are read back for
  // CUSK_MAXTREE_BATCH_PX and _GRID.
  const U32 per = tune.levels_per_batch ? tune.levels_per_batch
                  : tune.batch_pixels   ? 64u
                                        : tree_levels_per_batch(static_cast<std::uint64_t>(n), levels);
  std::vector<U32> hstart;
  if (tune.batch_pixels || tune.batch_grid) {
    hstart.resize(static_cast<std::size_t>(levels) + 1);
    CUSK_CUDA_CHECK(cudaMemcpyAsync(hstart.data(), ptr<const U32>(lstart), hstart.size() * sizeof(U32),
                                    cudaMemcpyDeviceToHost, s));
    CUSK_CUDA_CHECK(cudaStreamSynchronize(s));
  }
  const std::vector<TreeBatch> plan = tree_batch_plan(levels, per, tune.batch_pixels, hstart.data());
  const auto* gp = ptr<const TreeGeom>(geom);
  const unsigned grid = blocks_for(n);
  Array zp = Array::empty({n}, DType::uint32, dev, stream);
  auto build = [&](auto links, auto plain) {
    for (const TreeBatch& b : plan) {
      const unsigned bg = tune.batch_grid ? blocks_for(I64(hstart[b.hi]) - I64(hstart[b.lo])) : grid;
      batch_merge_kernel<<<bg, kThreads, 0, s>>>(gp, links, ptr<U32>(zp), ptr<const U32>(lev), order,
                                                  ptr<const U32>(lstart), b.lo, b.hi);
      CUSK_CUDA_CHECK_LAUNCH();
      if (b.lo > 0) {  // the union-find is only read by later batches
        batch_union_kernel<<<bg, kThreads, 0, s>>>(gp, ptr<U32>(zp), ptr<const U32>(lev), order,
                                                    ptr<const U32>(lstart), b.lo, b.hi);
        CUSK_CUDA_CHECK_LAUNCH();
      }
    }
    timer.mark("build");
    finalize1_kernel<<<blocks_for(n), kThreads, 0, s>>>(links, ptr<const U32>(lev), n, parent);
    CUSK_CUDA_CHECK_LAUNCH();
    finalize2_kernel<<<blocks_for(n), kThreads, 0, s>>>(plain, n, parent);
    CUSK_CUDA_CHECK_LAUNCH();
    timer.mark("finalize");
  };
  if (tune.packed) {
    Array word = Array::empty({n}, DType::uint64, dev, stream);
    pack_init_kernel<<<blocks_for(n), kThreads, 0, s>>>(ptr<std::uint64_t>(word), ptr<U32>(zp), ptr<const U32>(lev),
                                                         n);
    CUSK_CUDA_CHECK_LAUNCH();
    build(TreePackedLinks<DevMem>{ptr<std::uint64_t>(word)}, TreePackedLinks<PlainMem>{ptr<std::uint64_t>(word)});
  } else {
    Array par = Array::empty({n}, DType::uint32, dev, stream);
    iota2_kernel<<<blocks_for(n), kThreads, 0, s>>>(ptr<U32>(par), ptr<U32>(zp), n);
    CUSK_CUDA_CHECK_LAUNCH();
    build(TreeSplitLinks<DevMem, U32>{ptr<U32>(par), ptr<const U32>(lev)},
          TreeSplitLinks<PlainMem, U32>{ptr<U32>(par), ptr<const U32>(lev)});
  }
  if (tune.profile) {
    std::string what = "max_tree n=" + std::to_string(n) + " levels=" + std::to_string(levels) +
                       " D=" + std::to_string(per) +
                       (tune.batch_pixels ? " batch_px=" + std::to_string(tune.batch_pixels) : std::string()) +
                       " batches=" + std::to_string(plan.size()) + (tune.packed ? " packed" : " split") +
                       (tune.batch_grid ? " batch-grid" : "");
    timer.report(what);
  }
}

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

// ---- attributes -----------------------------------------------------------------------------------

__global__ void __launch_bounds__(kThreads)
    count_children_kernel(const I64* __restrict__ P, const I64* __restrict__ trav, I64 n, U32* pending) {
  const I64 root = trav[0];
  const I64 stride = I64(gridDim.x) * blockDim.x;
  const I64 rounded = (n + stride - 1) / stride * stride;  // whole warps run every iteration
  for (I64 i = I64(blockIdx.x) * blockDim.x + threadIdx.x; i < rounded; i += stride) {
    const bool on = i < n && i != root;
    const I64 q = on ? P[i] : -1;
    const unsigned act = __ballot_sync(0xffffffffu, on);
    if (!on) continue;
    const unsigned same = __match_any_sync(act, static_cast<unsigned long long>(q));
    if (__ffs(same) - 1 == static_cast<int>(threadIdx.x % 32)) atomicAdd(pending + q, static_cast<U32>(__popc(same)));
  }
}

__global__ void __launch_bounds__(kThreads)
    leaves_kernel(const U32* __restrict__ pending, const I64* __restrict__ trav, I64 n,
                  std::uint8_t* __restrict__ leaf) {
  const I64 root = trav[0];
  CUSK_GRID_STRIDE(i, n) { leaf[i] = (i != root && pending[i] == 0) ? 1 : 0; }
}

__global__ void __launch_bounds__(kThreads) area_init_kernel(U32* __restrict__ area, U32* __restrict__ pending, I64 n) {
  CUSK_GRID_STRIDE(i, n) {
    area[i] = 1;
    pending[i] = 0;
  }
}

/// Leaves push 1 each (lanes with the same parent combined), the last child of a parent goes on
/// while the parent stays below the threshold (thr > 1: a leaf is below it).
__global__ void __launch_bounds__(kThreads)
    area_climb_kernel(const I64* __restrict__ P, const I64* __restrict__ trav, I64 n,
                      const std::uint8_t* __restrict__ leaf, U32* area, U32* pending, double thr) {
  const auto root = static_cast<U32>(trav[0]);
  const TreeAreaAcc acc{area};
  const I64 stride = I64(gridDim.x) * blockDim.x;
  const I64 rounded = (n + stride - 1) / stride * stride;
  for (I64 i = I64(blockIdx.x) * blockDim.x + threadIdx.x; i < rounded; i += stride) {
    const bool on = i < n && leaf[i];
    const I64 q = on ? P[i] : -1;
    const unsigned act = __ballot_sync(0xffffffffu, on);
    if (!on) continue;
    const unsigned same = __match_any_sync(act, static_cast<unsigned long long>(q));
    if (__ffs(same) - 1 != static_cast<int>(threadIdx.x % 32)) continue;
    const auto k = static_cast<U32>(__popc(same));
    const auto z = static_cast<U32>(q);
    atomicAdd(area + z, k);
    __threadfence();
    if (atomicSub(pending + z, k) != k) continue;
    __threadfence();
    tree_climb<DevMem>(P, root, z, acc, pending, thr);
  }
}

__global__ void __launch_bounds__(kThreads)
    box_init_kernel(const TreeGeom* __restrict__ g, std::int32_t* __restrict__ lo, std::int32_t* __restrict__ hi,
                    U32* __restrict__ pending, I64 n) {
  const int nd = g->nd;
  CUSK_GRID_STRIDE(i, n) {
    I64 r = i;
    for (int d = nd - 1; d >= 0; --d) {
      const auto c = static_cast<std::int32_t>(r % g->shape[d]);
      r /= g->shape[d];
      lo[i * nd + d] = hi[i * nd + d] = c;
    }
    pending[i] = 0;
  }
}

/// As area_climb_kernel with bounding boxes: lanes with the same parent combine their pixels'
/// coordinates (warp shuffles) before one atomic per axis.
__global__ void __launch_bounds__(kThreads)
    box_climb_kernel(const TreeGeom* __restrict__ g, const I64* __restrict__ P, const I64* __restrict__ trav, I64 n,
                     const std::uint8_t* __restrict__ leaf, std::int32_t* lo, std::int32_t* hi, U32* pending,
                     double thr) {
  const auto root = static_cast<U32>(trav[0]);
  const int nd = g->nd;
  const TreeBoxAcc acc{lo, hi, nd};
  const int lane = static_cast<int>(threadIdx.x % 32);
  const I64 stride = I64(gridDim.x) * blockDim.x;
  const I64 rounded = (n + stride - 1) / stride * stride;
  for (I64 i = I64(blockIdx.x) * blockDim.x + threadIdx.x; i < rounded; i += stride) {
    const bool on = i < n && leaf[i];
    const I64 q = on ? P[i] : -1;
    const unsigned act = __ballot_sync(0xffffffffu, on);
    if (act == 0) continue;
    const unsigned same = on ? __match_any_sync(act, static_cast<unsigned long long>(q)) : 0u;
    const bool shared = __any_sync(0xffffffffu, __popc(same) > 1);
    const bool leader = on && __ffs(same) - 1 == lane;
    const auto z = static_cast<U32>(q);
    for (int d = 0; d < nd; ++d) {
      // A leaf's box is its own pixel: lo == hi == its coordinate.
      std::int32_t mn = on ? lo[i * nd + d] : std::numeric_limits<std::int32_t>::max();
      std::int32_t mx = on ? mn : std::numeric_limits<std::int32_t>::min();
      if (shared) {
        for (int k = 0; k < 32; ++k) {
          const std::int32_t a = __shfl_sync(0xffffffffu, mn, k), b = __shfl_sync(0xffffffffu, mx, k);
          if ((same >> k) & 1u) {
            mn = a < mn ? a : mn;
            mx = b > mx ? b : mx;
          }
        }
      }
      if (leader) {
        atomicMin(lo + std::size_t(z) * nd + d, mn);
        atomicMax(hi + std::size_t(z) * nd + d, mx);
      }
    }
    if (!leader) continue;
    const auto k = static_cast<U32>(__popc(same));
    __threadfence();
    if (atomicSub(pending + z, k) != k) continue;
    __threadfence();
    tree_climb<DevMem>(P, root, z, acc, pending, thr);
  }
}

/// Whether a pixel's attribute reaches the threshold, after the climb.
template <class Acc>
struct Big {
  Acc acc;
  const U32* pending;
  double thr;
  __device__ bool operator()(U32 p) const { return tree_big<PlainMem>(pending, acc, p, thr); }
};

// ---- filters --------------------------------------------------------------------------------------

template <class T>
__global__ void __launch_bounds__(kThreads) invert_kernel(const T* __restrict__ in, T* __restrict__ out, I64 n) {
  CUSK_GRID_STRIDE(i, n) { out[i] = tree_invert(in[i]); }
}

template <class T, class B>
__global__ void __launch_bounds__(kThreads)
    link_kernel(const T* __restrict__ v, const I64* __restrict__ P, const I64* __restrict__ trav, I64 n, B big,
                U32* __restrict__ link) {
  const auto root = static_cast<U32>(trav[0]);
  CUSK_GRID_STRIDE(i, n) { link[i] = tree_filter_link(v, P, root, static_cast<U32>(i), big); }
}

template <class T, class B>
__global__ void __launch_bounds__(kThreads)
    filter_out_kernel(const T* __restrict__ v, const I64* __restrict__ trav, I64 n, B big, U32* link, bool invert,
                      T* __restrict__ out) {
  const auto root = static_cast<U32>(trav[0]);
  const bool root_big = big(root);
  CUSK_GRID_STRIDE(i, n) {
    const U32 end = tree_link_end<DevMem>(link, static_cast<U32>(i));
    const T r = tree_filter_value(v, root, end, root_big);
    out[i] = invert ? tree_invert(r) : r;
  }
}

// ---- local maxima ---------------------------------------------------------------------------------

template <class T>
__global__ void __launch_bounds__(kThreads)
    lm_zero_kernel(const T* __restrict__ v, const I64* __restrict__ P, const I64* __restrict__ trav, I64 n,
                   std::uint8_t* __restrict__ has_child) {
  const auto root = static_cast<U32>(trav[0]);
  CUSK_GRID_STRIDE(i, n) {
    if (tree_lm_canonical(v, P, root, static_cast<U32>(i))) has_child[P[i]] = 1;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    lm_leaf_kernel(const T* __restrict__ v, const I64* __restrict__ P, const I64* __restrict__ trav, I64 n,
                   const std::uint8_t* __restrict__ has_child, U32* __restrict__ leafpos) {
  const auto root = static_cast<U32>(trav[0]);
  CUSK_GRID_STRIDE(i, n) {
    const auto x = static_cast<U32>(trav[i]);
    leafpos[i] = (tree_lm_canonical(v, P, root, x) && !has_child[x]) ? 1u : 0u;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    lm_first_kernel(const T* __restrict__ v, const I64* __restrict__ P, const I64* __restrict__ trav, I64 n,
                    const std::uint8_t* __restrict__ has_child, const U32* __restrict__ leafpos,
                    const U32* __restrict__ before, std::uint64_t* __restrict__ first) {
  const auto root = static_cast<U32>(trav[0]);
  const U32 leaves = before[n - 1] + leafpos[n - 1];
  CUSK_GRID_STRIDE(i, n) {
    const auto x = static_cast<U32>(trav[i]);
    first[x] = tree_lm_first(tree_lm_canonical(v, P, root, x), has_child[x] != 0, before[i], leaves);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    lm_out_kernel(const T* __restrict__ v, const I64* __restrict__ P, const I64* __restrict__ trav, I64 n,
                  const std::uint64_t* __restrict__ first, std::uint64_t* __restrict__ out) {
  const auto root = static_cast<U32>(trav[0]);
  CUSK_GRID_STRIDE(i, n) {
    const auto p = static_cast<U32>(i);
    out[i] = (p != root && !tree_lm_canonical(v, P, root, p)) ? first[P[i]] : first[i];
  }
}

// ---- drivers --------------------------------------------------------------------------------------

/// The tree to filter with: the caller's (contiguous copies) or a new one.
template <class T>
void tree_of(const Array& values, int connectivity, const Array& parent, const Array& traverser, Array& P,
             Array& trav, const Stream& stream) {
  if (parent.valid()) {
    P = parent.contiguous(stream);
    trav = traverser.contiguous(stream);
    return;
  }
  const I64 n = values.size();
  P = Array::empty({n}, DType::int64, values.device(), stream);
  trav = Array::empty({n}, DType::int64, values.device(), stream);
  build_tree<T>(values, connectivity, ptr<I64>(P), ptr<I64>(trav), stream);
}

template <class T>
Array filter_typed(const Array& image, bool diameter, bool closing, double thr, int connectivity, const Array& parent,
                   const Array& traverser, const Stream& stream) {
  const I64 n = image.size();
  const cudaStream_t s = stream.handle();
  const Device dev = image.device();
  Array out = Array::empty(image.shape(), image.dtype(), dev, stream);
  if (n == 0) return out;
  const bool profile = tree_tuning().profile;
  PhaseTimer timer(profile, s);
  Array values = image.contiguous(stream);
  if (closing) {
    Array inv = Array::empty(image.shape(), image.dtype(), dev, stream);
    invert_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(ptr<const T>(values), ptr<T>(inv), n);
    CUSK_CUDA_CHECK_LAUNCH();
    values = std::move(inv);
  }
  Array P, trav;
  tree_of<T>(values, connectivity, parent, traverser, P, trav, stream);
  timer.mark("tree");
  const I64* pp = ptr<const I64>(P);
  const I64* tp = ptr<const I64>(trav);
  const T* vp = ptr<const T>(values);
  Array pending = Array::empty({n}, DType::uint32, dev, stream);
  Array leaf = Array::empty({n}, DType::uint8, dev, stream);
  Array link = Array::empty({n}, DType::uint32, dev, stream);
  // Attributes only matter up to the threshold: with thr <= 1 every pixel reaches it, no climb.
  const bool climb = thr > 1;
  auto run_filter = [&](auto acc) {
    timer.mark("attributes");
    const Big<decltype(acc)> big{acc, ptr<const U32>(pending), thr};
    link_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(vp, pp, tp, n, big, ptr<U32>(link));
    CUSK_CUDA_CHECK_LAUNCH();
    filter_out_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(vp, tp, n, big, ptr<U32>(link), closing, ptr<T>(out));
    CUSK_CUDA_CHECK_LAUNCH();
    timer.mark("filter");
  };
  if (!diameter) {
    Array area = Array::empty({n}, DType::uint32, dev, stream);
    area_init_kernel<<<blocks_for(n), kThreads, 0, s>>>(ptr<U32>(area), ptr<U32>(pending), n);
    CUSK_CUDA_CHECK_LAUNCH();
    count_children_kernel<<<blocks_for(n), kThreads, 0, s>>>(pp, tp, n, ptr<U32>(pending));
    CUSK_CUDA_CHECK_LAUNCH();
    if (climb) {
      leaves_kernel<<<blocks_for(n), kThreads, 0, s>>>(ptr<const U32>(pending), tp, n, ptr<std::uint8_t>(leaf));
      CUSK_CUDA_CHECK_LAUNCH();
      area_climb_kernel<<<blocks_for(n), kThreads, 0, s>>>(pp, tp, n, ptr<const std::uint8_t>(leaf), ptr<U32>(area),
                                                           ptr<U32>(pending), thr);
      CUSK_CUDA_CHECK_LAUNCH();
    }
    run_filter(TreeAreaAcc{ptr<U32>(area)});
  } else {
    const Array geom = device_geom(image, connectivity, stream);
    const auto* gp = ptr<const TreeGeom>(geom);
    const I64 nd = image.ndim();
    Array lo = Array::empty({n * nd}, DType::int32, dev, stream);
    Array hi = Array::empty({n * nd}, DType::int32, dev, stream);
    box_init_kernel<<<blocks_for(n), kThreads, 0, s>>>(gp, ptr<std::int32_t>(lo), ptr<std::int32_t>(hi),
                                                       ptr<U32>(pending), n);
    CUSK_CUDA_CHECK_LAUNCH();
    count_children_kernel<<<blocks_for(n), kThreads, 0, s>>>(pp, tp, n, ptr<U32>(pending));
    CUSK_CUDA_CHECK_LAUNCH();
    if (climb) {
      leaves_kernel<<<blocks_for(n), kThreads, 0, s>>>(ptr<const U32>(pending), tp, n, ptr<std::uint8_t>(leaf));
      CUSK_CUDA_CHECK_LAUNCH();
      box_climb_kernel<<<blocks_for(n), kThreads, 0, s>>>(gp, pp, tp, n, ptr<const std::uint8_t>(leaf),
                                                          ptr<std::int32_t>(lo), ptr<std::int32_t>(hi),
                                                          ptr<U32>(pending), thr);
      CUSK_CUDA_CHECK_LAUNCH();
    }
    run_filter(TreeBoxAcc{ptr<std::int32_t>(lo), ptr<std::int32_t>(hi), static_cast<int>(nd)});
  }
  if (profile)
    timer.report(std::string(diameter ? "diameter" : "area") + (closing ? "_closing" : "_opening") +
                 " n=" + std::to_string(n) + " threshold=" + std::to_string(thr));
  return out;
}

template <class T>
Array local_maxima_typed(const Array& image, int connectivity, const Array& parent, const Array& traverser,
                         const Stream& stream) {
  const I64 n = image.size();
  const cudaStream_t s = stream.handle();
  const Device dev = image.device();
  Array out = Array::empty(image.shape(), DType::uint64, dev, stream);
  if (n == 0) return out;
  const Array values = image.contiguous(stream);
  Array P, trav;
  tree_of<T>(values, connectivity, parent, traverser, P, trav, stream);
  const I64* pp = ptr<const I64>(P);
  const I64* tp = ptr<const I64>(trav);
  const T* vp = ptr<const T>(values);
  Array has_child = Array::zeros({n}, DType::uint8, dev, stream);
  Array leafpos = Array::empty({n}, DType::uint32, dev, stream);
  Array before = Array::empty({n}, DType::uint32, dev, stream);
  Array first = Array::empty({n}, DType::uint64, dev, stream);
  lm_zero_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(vp, pp, tp, n, ptr<std::uint8_t>(has_child));
  CUSK_CUDA_CHECK_LAUNCH();
  lm_leaf_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(vp, pp, tp, n, ptr<const std::uint8_t>(has_child),
                                                       ptr<U32>(leafpos));
  CUSK_CUDA_CHECK_LAUNCH();
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, ptr<const U32>(leafpos), ptr<U32>(before), n, s));
  {
    Array temp = scratch(bytes, stream);
    CUSK_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(temp.data(), bytes, ptr<const U32>(leafpos), ptr<U32>(before), n, s));
  }
  lm_first_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(vp, pp, tp, n, ptr<const std::uint8_t>(has_child),
                                                        ptr<const U32>(leafpos), ptr<const U32>(before),
                                                        ptr<std::uint64_t>(first));
  CUSK_CUDA_CHECK_LAUNCH();
  lm_out_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(vp, pp, tp, n, ptr<const std::uint64_t>(first),
                                                      ptr<std::uint64_t>(out));
  CUSK_CUDA_CHECK_LAUNCH();
  return out;
}

}  // namespace

void cuda_max_tree(const Array& image, int connectivity, Array& parent, Array& traverser, const Stream& stream) {
  const I64 n = image.size();
  parent = Array::empty(image.shape(), DType::int64, image.device(), stream);
  traverser = Array::empty({n}, DType::int64, image.device(), stream);
  if (n == 0) return;
  const Array c = image.contiguous(stream);
  cuskimage::detail::dispatch<TreeTypes>(image.dtype(), "morphology.max_tree", [&]<class T>() {
    build_tree<T>(c, connectivity, ptr<I64>(parent), ptr<I64>(traverser), stream);
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

Array cuda_tree_filter(const Array& image, bool diameter, bool closing, double threshold, int connectivity,
                       const Array& parent, const Array& traverser, const Stream& stream) {
  return cuskimage::detail::dispatch<TreeTypes>(image.dtype(), "morphology.area_opening", [&]<class T>() {
    return filter_typed<T>(image, diameter, closing, threshold, connectivity, parent, traverser, stream);
  });
}

Array cuda_max_tree_local_maxima(const Array& image, int connectivity, const Array& parent, const Array& traverser,
                                 const Stream& stream) {
  return cuskimage::detail::dispatch<TreeTypes>(image.dtype(), "morphology.max_tree_local_maxima", [&]<class T>() {
    return local_maxima_typed<T>(image, connectivity, parent, traverser, stream);
  });
}

void set_tree_levels_per_batch_for_testing(std::uint32_t levels) { g_levels_per_batch.store(levels); }

}  // namespace cuskimage::morphology::detail
