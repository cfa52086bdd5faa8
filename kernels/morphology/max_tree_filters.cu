// CUDA area/diameter openings and closings and max_tree_local_maxima on a max-tree (built by
// max_tree.cu's build, or the caller's after a validity check): children counted, attributes
// accumulated leaf to root through the nodes still below the threshold (a thread goes on to the
// parent when it brought the parent's last child; the first step is warp-aggregated per parent),
// then each pixel's output is the value at the end of its links (pointer jumping with path
// halving) -- the direct filter. The bodies are src/morphology/max_tree_ops.hpp's.
#include <cuda_runtime.h>

#include <cub/device/device_scan.cuh>
#include <limits>

#include "kernels/morphology/max_tree_common.cuh"
#include "src/morphology/max_tree_cuda.hpp"

namespace cuskimage::morphology::detail {
namespace {

using namespace mt;

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
  Array values = image.contiguous(stream);
  if (closing) {
    Array inv = Array::empty(image.shape(), image.dtype(), dev, stream);
    invert_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(ptr<const T>(values), ptr<T>(inv), n);
    CUSK_CUDA_CHECK_LAUNCH();
    values = std::move(inv);
  }
  Array P, trav;
  tree_of<T>(values, connectivity, parent, traverser, P, trav, stream);
  const I64* pp = ptr<const I64>(P);
  const I64* tp = ptr<const I64>(trav);
  const T* vp = ptr<const T>(values);
  Array pending = Array::empty({n}, DType::uint32, dev, stream);
  Array leaf = Array::empty({n}, DType::uint8, dev, stream);
  Array link = Array::empty({n}, DType::uint32, dev, stream);
  // Attributes only matter up to the threshold: with thr <= 1 every pixel reaches it, no climb.
  const bool climb = thr > 1;
  auto run_filter = [&](auto acc) {
    const Big<decltype(acc)> big{acc, ptr<const U32>(pending), thr};
    link_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(vp, pp, tp, n, big, ptr<U32>(link));
    CUSK_CUDA_CHECK_LAUNCH();
    filter_out_kernel<T><<<blocks_for(n), kThreads, 0, s>>>(vp, tp, n, big, ptr<U32>(link), closing, ptr<T>(out));
    CUSK_CUDA_CHECK_LAUNCH();
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

}  // namespace cuskimage::morphology::detail
