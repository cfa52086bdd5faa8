// A tiny SIMT emulator for checking kernels on a machine without a GPU: compiles CUDA kernel headers
// with g++ (one std::thread per CUDA thread, one block at a time; __syncthreads and warp shuffles
// through std::barrier, so missing or misplaced barriers show up as races). Supports what the
// row-strip kernels use: threadIdx/blockIdx.x..z, __syncthreads, __shfl_up/down_sync, one
// `extern __shared__` array (define it in the kernel's namespace), float4/double2, fma/sqrt.
// Not part of the build (tests/CMakeLists.txt globs tests/<module>/*.cpp only); see row_kernels.cpp.
#pragma once
#include <cuda_runtime.h>  // host-side vector types (float4, double2, make_float4, ...)
#include <barrier>
#include <cmath>
#include <math.h>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#undef __global__
#undef __device__
#undef __host__
#undef __forceinline__
#undef __shared__
#undef __align__
#undef __launch_bounds__
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__
#define __align__(n)
#define __launch_bounds__(...)

struct EmuDim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local EmuDim3 threadIdx, blockIdx;

inline void __stwb(float4* p, float4 v) { *p = v; }
inline void __stwb(double2* p, double2 v) { *p = v; }

namespace emu {
inline std::barrier<>* block_bar = nullptr;
inline std::vector<std::unique_ptr<std::barrier<>>> warp_bar;
alignas(16) inline unsigned char xbuf[64][32][8];
}  // namespace emu

inline void __syncthreads() { emu::block_bar->arrive_and_wait(); }

template <class T>
T emu_shfl(T v, int src_off) {
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  std::memcpy(emu::xbuf[w][lane], &v, sizeof(T));
  emu::warp_bar[w]->arrive_and_wait();
  const int src = lane + src_off;
  T r = v;
  if (src >= 0 && src < 32) std::memcpy(&r, emu::xbuf[w][src], sizeof(T));
  emu::warp_bar[w]->arrive_and_wait();
  return r;
}
template <class T>
T __shfl_up_sync(unsigned, T v, unsigned d) { return emu_shfl(v, -static_cast<int>(d)); }
template <class T>
T __shfl_down_sync(unsigned, T v, unsigned d) { return emu_shfl(v, static_cast<int>(d)); }

/// Runs f() for every thread of every block of the grid (blocks sequentially).
inline void emu_launch(EmuDim3 grid, int threads, const std::function<void()>& f) {
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx) {
        std::barrier<> bar(threads);
        emu::block_bar = &bar;
        emu::warp_bar.clear();
        for (int w = 0; w < (threads + 31) / 32; ++w) emu::warp_bar.push_back(std::make_unique<std::barrier<>>(32));
        std::vector<std::thread> ts;
        ts.reserve(threads);
        for (int t = 0; t < threads; ++t)
          ts.emplace_back([&, t] {
            threadIdx = {static_cast<unsigned>(t), 0, 0};
            blockIdx = {bx, by, bz};
            f();
          });
        for (auto& th : ts) th.join();
      }
}
