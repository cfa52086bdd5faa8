// A small SIMT emulator for CPU tests of warp-synchronous CUDA kernels (this machine has no GPU):
// the kernel's own source is compiled by the host compiler and run one warp at a time, its 32
// lanes as fibers (ucontext). Each warp intrinsic (__shfl_*_sync, __ballot_sync, __any_sync,
// __syncwarp) is an exchange point: the lane parks there, and when every lane of the warp has
// reached one the emulator checks that all reached the same call (same source line and kind,
// full mask; a lane that exited while others wait is an error too) and hands out the results.
// Between exchange points lanes run one after another, so plain read-modify-writes serve as the
// atomics; warps of a block run one after another (kernels emulated here must not need block
// barriers). Shared memory is a per-block buffer filled with garbage (0xCD) so that a missing
// initialisation shows. Only what kernels/measure/regionprops_warp.cuh uses is provided.
#pragma once

#include <ucontext.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <source_location>
#include <string>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define CUSK_RP_DYN_SMEM(name) unsigned char* name = ::cusk_emu::g_smem

namespace cusk_emu {

struct Dim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline Dim3 threadIdx, blockIdx, blockDim{1, 1, 1}, gridDim{1, 1, 1};
inline unsigned char* g_smem = nullptr;

struct uint4 {
  unsigned x, y, z, w;
};
struct uint2 {
  unsigned x, y;
};

using emu_u64 = unsigned long long;

enum class Op { none, shfl_up, shfl_idx, shfl_xor, ballot, any, syncwarp, done };

struct Warp {
  static constexpr std::size_t kStack = 256 << 10;
  ucontext_t main{};
  ucontext_t ctx[32]{};
  Op op[32]{};
  unsigned line[32]{}, mask[32]{};
  emu_u64 val[32]{}, res[32]{};
  int arg[32]{};
  int cur = -1;
  unsigned base_tid = 0;
  const std::function<void()>* body = nullptr;
  std::string error;
  long long exchanges = 0;
};
inline Warp* g_warp = nullptr;

inline void lane_trampoline() {
  Warp& w = *g_warp;
  (*w.body)();
  w.op[w.cur] = Op::done;
  swapcontext(&w.ctx[w.cur], &w.main);
}

/// Runs `body` as the 32 lanes of one warp (threadIdx.x = base_tid + lane); returns "" or the
/// first divergence found.
inline std::string run_warp(const std::function<void()>& body, unsigned base_tid) {
  Warp w;
  w.body = &body;
  w.base_tid = base_tid;
  Warp* saved = g_warp;
  g_warp = &w;
  static std::vector<std::unique_ptr<char[]>> stacks;  // reused by every warp (one at a time)
  while (stacks.size() < 32) stacks.emplace_back(new char[Warp::kStack]);
  for (int l = 0; l < 32; ++l) {
    getcontext(&w.ctx[l]);
    w.ctx[l].uc_stack.ss_sp = stacks[static_cast<std::size_t>(l)].get();
    w.ctx[l].uc_stack.ss_size = Warp::kStack;
    w.ctx[l].uc_link = nullptr;
    makecontext(&w.ctx[l], lane_trampoline, 0);
    w.op[l] = Op::none;
  }
  for (;;) {
    for (int l = 0; l < 32; ++l) {
      if (w.op[l] == Op::done) continue;
      w.cur = l;
      threadIdx.x = base_tid + static_cast<unsigned>(l);
      swapcontext(&w.main, &w.ctx[l]);
    }
    int done = 0;
    for (int l = 0; l < 32; ++l) done += w.op[l] == Op::done;
    if (done == 32) break;
    ++w.exchanges;
    int first = -1;
    for (int l = 0; l < 32 && w.error.empty(); ++l) {
      if (w.op[l] == Op::done) {
        w.error = "lane " + std::to_string(l) + " exited while others wait at a warp op";
        break;
      }
      if (w.mask[l] != 0xffffffffu) w.error = "partial mask at line " + std::to_string(w.line[l]);
      if (first < 0) first = l;
      if (w.op[l] != w.op[first] || w.line[l] != w.line[first])
        w.error = "divergent warp ops: lane " + std::to_string(first) + " at line " + std::to_string(w.line[first]) +
                  ", lane " + std::to_string(l) + " at line " + std::to_string(w.line[l]);
    }
    if (!w.error.empty()) break;
    unsigned ballot = 0;
    bool any = false;
    for (int l = 0; l < 32; ++l) {
      ballot |= (w.val[l] != 0 ? 1u : 0u) << l;
      any |= w.val[l] != 0;
    }
    for (int l = 0; l < 32; ++l) {
      switch (w.op[l]) {
        case Op::shfl_up: w.res[l] = l >= w.arg[l] ? w.val[l - w.arg[l]] : w.val[l]; break;
        case Op::shfl_idx: w.res[l] = w.val[w.arg[l] & 31]; break;
        case Op::shfl_xor: w.res[l] = w.val[(l ^ w.arg[l]) & 31]; break;
        case Op::ballot: w.res[l] = ballot; break;
        case Op::any: w.res[l] = any ? 1 : 0; break;
        default: w.res[l] = 0; break;
      }
      w.op[l] = Op::none;
    }
  }
  g_warp = saved;
  return w.error;
}

/// Emulated launch: blocks one after another, the warps of a block one after another.
inline std::string launch(unsigned grid, unsigned threads, std::size_t smem, const std::function<void()>& kernel) {
  gridDim = {grid, 1, 1};
  blockDim = {threads, 1, 1};
  std::vector<unsigned char> buf(std::max<std::size_t>(smem, 16) + 16);
  for (unsigned b = 0; b < grid; ++b) {
    std::fill(buf.begin(), buf.end(), 0xCD);
    auto* p = buf.data();
    p += (16 - reinterpret_cast<std::uintptr_t>(p) % 16) % 16;
    g_smem = p;
    blockIdx = {b, 0, 0};
    for (unsigned w = 0; w < (threads + 31) / 32; ++w) {
      std::string e = run_warp(kernel, w * 32);
      if (!e.empty()) return "block " + std::to_string(b) + " warp " + std::to_string(w) + ": " + e;
    }
  }
  return {};
}

template <class T>
emu_u64 to_bits(T v) {
  static_assert(sizeof(T) <= 8);
  emu_u64 b = 0;
  std::memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
T from_bits(emu_u64 b) {
  T v;
  std::memcpy(&v, &b, sizeof(T));
  return v;
}

inline emu_u64 exchange(Op op, emu_u64 v, int arg, unsigned mask, unsigned line) {
  Warp& w = *g_warp;
  const int me = w.cur;
  w.op[me] = op;
  w.val[me] = v;
  w.arg[me] = arg;
  w.mask[me] = mask;
  w.line[me] = line;
  swapcontext(&w.ctx[me], &w.main);
  return w.res[me];
}

template <class T>
T __shfl_up_sync(unsigned m, T v, unsigned d, std::source_location s = std::source_location::current()) {
  return from_bits<T>(exchange(Op::shfl_up, to_bits(v), static_cast<int>(d), m, s.line()));
}
template <class T>
T __shfl_sync(unsigned m, T v, int src, std::source_location s = std::source_location::current()) {
  return from_bits<T>(exchange(Op::shfl_idx, to_bits(v), src, m, s.line()));
}
template <class T>
T __shfl_xor_sync(unsigned m, T v, int x, std::source_location s = std::source_location::current()) {
  return from_bits<T>(exchange(Op::shfl_xor, to_bits(v), x, m, s.line()));
}
inline unsigned __ballot_sync(unsigned m, int p, std::source_location s = std::source_location::current()) {
  return static_cast<unsigned>(exchange(Op::ballot, p != 0, 0, m, s.line()));
}
inline int __any_sync(unsigned m, int p, std::source_location s = std::source_location::current()) {
  return static_cast<int>(exchange(Op::any, p != 0, 0, m, s.line()));
}
inline void __syncwarp(unsigned m = 0xffffffffu, std::source_location s = std::source_location::current()) {
  exchange(Op::syncwarp, 0, 0, m, s.line());
}

// Atomics: lanes never interleave between exchange points, so plain read-modify-writes.
template <class T>
T emu_rmw(T* p, T v, int op) {
  const T o = *p;
  *p = op == 0 ? static_cast<T>(o + v) : op == 1 ? (v < o ? v : o) : op == 2 ? (v > o ? v : o) : v;
  return o;
}
inline unsigned atomicAdd(unsigned* p, unsigned v) { return emu_rmw(p, v, 0); }
inline emu_u64 atomicAdd(emu_u64* p, emu_u64 v) { return emu_rmw(p, v, 0); }
inline double atomicAdd(double* p, double v) { return emu_rmw(p, v, 0); }
inline unsigned atomicMin(unsigned* p, unsigned v) { return emu_rmw(p, v, 1); }
inline emu_u64 atomicMin(emu_u64* p, emu_u64 v) { return emu_rmw(p, v, 1); }
inline unsigned atomicMax(unsigned* p, unsigned v) { return emu_rmw(p, v, 2); }
inline emu_u64 atomicMax(emu_u64* p, emu_u64 v) { return emu_rmw(p, v, 2); }
inline long long atomicMax(long long* p, long long v) { return emu_rmw(p, v, 2); }
inline emu_u64 atomicExch(emu_u64* p, emu_u64 v) { return emu_rmw(p, v, 3); }
inline int atomicCAS(int* p, int c, int v) {
  const int o = *p;
  if (o == c) *p = v;
  return o;
}
inline emu_u64 atomicCAS(emu_u64* p, emu_u64 c, emu_u64 v) {
  const emu_u64 o = *p;
  if (o == c) *p = v;
  return o;
}

inline uint4 __ldcs(const uint4* p) { return *p; }
inline uint2 __ldcs(const uint2* p) { return *p; }
inline unsigned __ldcs(const unsigned* p) { return *p; }

inline int __clz(unsigned x) { return x ? __builtin_clz(x) : 32; }
inline int __ffs(unsigned x) { return x ? __builtin_ctz(x) + 1 : 0; }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline unsigned __float_as_uint(float f) { return from_bits<unsigned>(to_bits(f)); }
inline float __uint_as_float(unsigned u) { return from_bits<float>(to_bits(u)); }
inline float __int_as_float(int u) { return from_bits<float>(to_bits(u)); }
inline double __longlong_as_double(long long u) { return from_bits<double>(to_bits(u)); }
inline long long __double_as_longlong(double d) { return from_bits<long long>(to_bits(d)); }
using std::fmax;
using std::fmaxf;
using std::fmin;
using std::fminf;
using std::max;
using std::min;

}  // namespace cusk_emu
