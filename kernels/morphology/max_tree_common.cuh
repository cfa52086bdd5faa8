// What the CUDA max-tree's build (max_tree.cu) and its filters (max_tree_filters.cu) share: the
// memory policies of the shared bodies (src/morphology/max_tree_ops.hpp), launch helpers, the
// geometry upload and the build itself.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <cuda/atomic>

#include "cuskimage/array.hpp"
#include "cuskimage/error.hpp"
#include "cuskimage/stream.hpp"
#include "kernels/core/buffers.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/morphology/max_tree_ops.hpp"

namespace cuskimage::morphology::detail::mt {

using U32 = std::uint32_t;
using I64 = std::int64_t;
using TreeTypes = cuskimage::detail::Types<std::uint8_t, std::uint16_t, std::int32_t, std::int64_t, float, double>;

constexpr int kThreads = 256;
constexpr U32 kUnset = 0xffffffffu;

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

inline unsigned blocks_for(I64 work) {
  static const int sms = [] {
    int dev = 0, n = 0;
    CUSK_CUDA_CHECK(cudaGetDevice(&dev));
    CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
    return n;
  }();
  const I64 b = (work + kThreads - 1) / kThreads;
  return static_cast<unsigned>(std::clamp<I64>(b, 1, I64(sms) * 8));
}

inline Array scratch(std::size_t bytes, const Stream& s) {
  int dev = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  return cuskimage::detail::buf::scratch(bytes, Device::cuda(dev), s);
}

inline Device current_device() {
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

inline Array device_geom(const Array& image, int connectivity, const Stream& s) {
  TreeGeom g;
  if (!make_tree_geom(image.shape(), connectivity, g))
    throw NotSupported("morphology.max_tree: CUDA backend limited to 8 axes and 80 neighbours");
  Array h = Array::empty({static_cast<I64>(sizeof(TreeGeom))}, DType::uint8);
  std::memcpy(h.data(), &g, sizeof(TreeGeom));
  return h.to(current_device(), s);
}

/// The tree of `image` (contiguous, on the current device, n >= 1): parent (int64, n) and order
/// (int64, n, the traverser). Synchronizes the stream once (the number of levels decides the
/// batches). Instantiated for TreeTypes in max_tree.cu.
template <class T>
void build_tree(const Array& image, int connectivity, I64* parent, I64* order, const Stream& stream);

}  // namespace cuskimage::morphology::detail::mt
