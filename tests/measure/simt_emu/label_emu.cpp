// Runs the CUDA measure.label kernels (kernels/measure/label_kernels.cuh) under a SIMT emulator
// (tests/filters/simt_emu/emu.hpp plus the warp votes, shuffles and atomics these kernels use)
// through the same five passes as kernels/measure/label.cu, against a breadth-first reference
// labelling in raster order, for both pass-1 load modes (columns, wide; also on a small grid that
// loops over tiles), both store modes, bool / uint8 /
// int64 / float images, background inversion, 1-D to 3-D shapes including ragged edges, int32
// and int64 indices and labels. Buffers start filled with garbage (the kernels must read only
// what they wrote). A developer tool for machines without a GPU, not a CTest test:
//   g++ -std=c++20 -O1 -Wno-unknown-pragmas -I. -Iinclude -I/usr/local/cuda/include \
//       tests/measure/simt_emu/label_emu.cpp -o /tmp/label_emu -pthread && /tmp/label_emu
#include "tests/filters/simt_emu/emu.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <deque>
#include <random>
#include <string>

#undef __shared__
#define __shared__ static  // one block runs at a time: a static is the block's shared memory

// ---- the intrinsics the label kernels use ----------------------------------------------------
inline void __syncwarp(unsigned = 0xffffffffu) { emu::warp_bar[threadIdx.x / 32]->arrive_and_wait(); }

template <class T>
T __shfl_sync(unsigned, T v, int src) {
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  std::memcpy(emu::xbuf[w][lane], &v, sizeof(T));
  emu::warp_bar[w]->arrive_and_wait();
  T r;
  std::memcpy(&r, emu::xbuf[w][src & 31], sizeof(T));
  emu::warp_bar[w]->arrive_and_wait();
  return r;
}

inline unsigned __ballot_sync(unsigned, int pred) {
  const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const unsigned char b = pred ? 1 : 0;
  emu::xbuf[w][lane][0] = b;
  emu::warp_bar[w]->arrive_and_wait();
  unsigned r = 0;
  for (int i = 0; i < 32; ++i) r |= unsigned(emu::xbuf[w][i][0]) << i;
  emu::warp_bar[w]->arrive_and_wait();
  return r;
}

inline EmuDim3 gridDim, blockDim;  // set by launch() below

/// emu_launch with gridDim and blockDim set.
inline void launch(EmuDim3 grid, int threads, const std::function<void()>& f) {
  gridDim = grid;
  blockDim = {static_cast<unsigned>(threads), 1, 1};
  emu_launch(grid, threads, f);
}

inline int __popc(unsigned v) { return __builtin_popcount(v); }
inline int __ffs(unsigned v) { return __builtin_ffs(static_cast<int>(v)); }
template <class T>
T __ldg(const T* p) {
  return *p;
}

template <class T>
T emu_atomic_min(T* p, T v) {
  std::atomic_ref<T> a(*p);
  T old = a.load();
  while (v < old && !a.compare_exchange_weak(old, v)) {
  }
  return old;
}
inline int atomicMin(int* p, int v) { return emu_atomic_min(p, v); }
inline long long atomicMin(long long* p, long long v) { return emu_atomic_min(p, v); }
inline unsigned atomicOr(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_or(v); }

// clang-format off
#include "kernels/measure/label_kernels.cuh"
// clang-format on

namespace lbl = cuskimage::measure::detail::lbl;
using cuskimage::measure::detail::LabelKey;

static std::mt19937_64 rng(2024);
static int failures = 0, checks = 0;

/// Reference: breadth-first labelling in raster order of each region's first pixel.
template <class T, class L>
std::vector<L> reference(const std::vector<T>& img, int nz, int ny, int nx, const LabelKey& key, int conn,
                         std::int64_t& num) {
  const std::int64_t n = std::int64_t(nz) * ny * nx;
  std::vector<L> out(n, 0);
  L next = 0;
  std::deque<std::int64_t> q;
  for (std::int64_t s = 0; s < n; ++s) {
    const std::int64_t ks = key(static_cast<T>(img[s]));
    if (ks == key.background || out[s]) continue;
    out[s] = ++next;
    q.push_back(s);
    while (!q.empty()) {
      const std::int64_t p = q.front();
      q.pop_front();
      const int z = int(p / (std::int64_t(ny) * nx)), y = int(p / nx % ny), x = int(p % nx);
      for (int dz = -1; dz <= 1; ++dz)
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int h = std::abs(dz) + std::abs(dy) + std::abs(dx);
            if (h == 0 || h > conn) continue;
            const int zz = z + dz, yy = y + dy, xx = x + dx;
            if (zz < 0 || zz >= nz || yy < 0 || yy >= ny || xx < 0 || xx >= nx) continue;
            const std::int64_t r = (std::int64_t(zz) * ny + yy) * nx + xx;
            if (out[r] || key(static_cast<T>(img[r])) != ks) continue;
            out[r] = next;
            q.push_back(r);
          }
    }
  }
  num = next;
  return out;
}

struct Var {
  int load;       // 0 columns, 1 wide
  bool small;     // pass 1, face and final passes on a few blocks looping over tiles
  bool wide_out;  // 16-byte stores
};

template <class T>
void fill_garbage(T* p, std::size_t n) {
  std::memset(static_cast<void*>(p), 0x5b, n * sizeof(T));
}

/// The five passes of kernels/measure/label.cu, emulated.
template <class T, class I, class L, int TY, int TZ>
std::vector<L> emu_label(const T* ip, int nz, int ny, int nx, const LabelKey& key, int conn, const Var& v,
                         std::int64_t& num) {
  lbl::Geom g{nz, ny, nx, 0, 0, 0, 0};
  const std::int64_t n = g.nz * g.ny * g.nx;
  g.tiles_x = (g.nx + 31) / 32;
  g.tiles_y = (g.ny + TY - 1) / TY;
  g.tiles_z = (g.nz + TZ - 1) / TZ;
  g.ntiles = g.tiles_x * g.tiles_y * g.tiles_z;
  constexpr int kMaxRuns = lbl::max_runs<T>();
  std::vector<L> out(n);
  fill_garbage(out.data(), out.size());
  std::vector<I> parent_buf;
  I* parent;
  if constexpr (sizeof(I) == sizeof(L)) {
    parent = reinterpret_cast<I*>(out.data());
  } else {
    parent_buf.resize(n);
    fill_garbage(parent_buf.data(), parent_buf.size());
    parent = parent_buf.data();
  }
  const std::int64_t nwords = (n + 31) / 32;
  std::vector<unsigned> roots(nwords, 0);
  std::vector<I> first(nwords + 1);
  std::vector<uint2> rows(g.ntiles * 32);
  std::vector<std::uint16_t> runs(g.ntiles * kMaxRuns + 8);
  fill_garbage(rows.data(), rows.size());
  fill_garbage(runs.data(), runs.size());
  const lbl::Work work{rows.data(), runs.data()};
  const lbl::FaceCounts fc = lbl::face_counts(g);
  std::vector<std::uint16_t> face_buf(std::max<std::int64_t>(fc.total(), 1));
  fill_garbage(face_buf.data(), face_buf.size());
  const lbl::Faces f = lbl::carve_faces(face_buf.data(), fc);
  auto grid = [&](std::int64_t items, int per_block) {
    const std::int64_t b = (items + per_block - 1) / per_block;
    return EmuDim3{static_cast<unsigned>(v.small ? std::min<std::int64_t>(b, 3) : b), 1, 1};
  };
  // 1. local
  {
    auto run = [&]<int kMode>(std::integral_constant<int, kMode>) {
      constexpr int W = lbl::warps_for<lbl::LocalSmem<T, kMode>>();
      launch(grid(g.ntiles, W), 32 * W,
             [&] { lbl::local_kernel<T, I, TY, TZ, kMode>(ip, parent, roots.data(), f, work, g, key, conn); });
    };
    // label.cu's rule: wide loads for 1-byte integer pixels in 16-byte aligned rows (the image is
    // 16-byte aligned here)
    if constexpr (sizeof(T) == 1 && std::is_integral_v<T>) {
      if (g.nx % 16 != 0 || v.load == 0)
        run(std::integral_constant<int, 0>{});
      else
        run(std::integral_constant<int, lbl::kLoadWide>{});
    } else {
      run(std::integral_constant<int, 0>{});
    }
  }
  // 2. faces
  if (g.ntiles > 1)
    launch(grid(g.ntiles, 8), 256, [&] { lbl::face_kernel<T, I, TY, TZ>(ip, parent, f, g, key, conn); });
  // 3. roots
  launch(grid(nwords, 256), 256, [&] {
    // the kernel's grid stride is gridDim.x * blockDim.x: emulate a grid covering every word
    lbl::roots_kernel<I>(parent, roots.data(), nwords);
  });
  // 4. scan
  first[0] = 0;
  for (std::int64_t i = 0; i < nwords; ++i) first[i + 1] = first[i] + static_cast<I>(__builtin_popcount(roots[i]));
  // 5. final
  {
    const int mode = v.wide_out && g.nx % static_cast<std::int64_t>(16 / sizeof(L)) == 0 ? lbl::kStoreWide : 0;
    launch(grid(g.ntiles, 4), 128, [&] {
      lbl::final_kernel<I, L, TY, TZ, kMaxRuns>(work, parent, roots.data(), first.data(), out.data(), g, mode);
    });
  }
  num = first[nwords];
  return out;
}

template <class T, class I, class L>
void check(const std::vector<T>& img, int nz, int ny, int nx, const LabelKey& key, int conn, const Var& v,
           const std::string& what) {
  std::int64_t rn = 0, en = 0;
  const std::vector<L> ref = reference<T, L>(img, nz, ny, nx, key, conn, rn);
  // 16-byte aligned copy of the image (wide loads need it)
  T* ip = static_cast<T*>(std::aligned_alloc(64, ((img.size() * sizeof(T) + 63) / 64 + 1) * 64));
  std::copy(img.begin(), img.end(), ip);
  std::vector<L> got;
  if (nz > 1)
    got = emu_label<T, I, L, 8, 4>(ip, nz, ny, nx, key, conn, v, en);
  else
    got = emu_label<T, I, L, 32, 1>(ip, nz, ny, nx, key, conn, v, en);
  std::free(ip);
  ++checks;
  std::int64_t bad = 0, at = -1;
  for (std::size_t i = 0; i < ref.size(); ++i)
    if (ref[i] != got[i]) {
      if (at < 0) at = static_cast<std::int64_t>(i);
      ++bad;
    }
  if (bad || rn != en) {
    ++failures;
    std::printf("FAIL %s [%d %d %d] conn %d load %d small %d wide %d I%zu L%zu: %lld bad (first %lld: %lld vs %lld), num %lld vs %lld\n",
                what.c_str(), nz, ny, nx, conn, v.load, v.small, v.wide_out, sizeof(I) * 8, sizeof(L) * 8,
                (long long)bad, (long long)at, at >= 0 ? (long long)ref[at] : 0LL, at >= 0 ? (long long)got[at] : 0LL,
                (long long)rn, (long long)en);
  }
}

/// Smooth random blobs: values in [1, levels] where a box-smoothed noise field is high.
template <class T>
std::vector<T> blobs(int nz, int ny, int nx, double fill, int levels) {
  const std::int64_t n = std::int64_t(nz) * ny * nx;
  std::vector<double> u(n), s(n, 0);
  std::uniform_real_distribution<double> U(0, 1);
  for (auto& x : u) x = U(rng);
  const int r = 2;
  for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        double a = 0;
        int c = 0;
        for (int dy = -r; dy <= r; ++dy)
          for (int dx = -r; dx <= r; ++dx) {
            const int yy = y + dy, xx = x + dx;
            if (yy < 0 || yy >= ny || xx < 0 || xx >= nx) continue;
            a += u[(std::int64_t(z) * ny + yy) * nx + xx];
            ++c;
          }
        s[(std::int64_t(z) * ny + y) * nx + x] = a / c;
      }
  std::vector<double> sorted = s;
  std::sort(sorted.begin(), sorted.end());
  const double t = sorted[static_cast<std::size_t>((1 - fill) * (n - 1))];
  std::vector<T> img(n);
  std::uniform_int_distribution<int> V(1, levels);
  for (std::int64_t i = 0; i < n; ++i) img[i] = static_cast<T>(s[i] > t ? V(rng) : 0);
  return img;
}

template <class T>
std::vector<T> noise(int nz, int ny, int nx, int lo, int hi) {
  std::vector<T> img(std::int64_t(nz) * ny * nx);
  std::uniform_int_distribution<int> V(lo, hi);
  for (std::size_t i = 0; i < img.size(); ++i) img[i] = static_cast<T>(V(rng));
  return img;
}

int main(int argc, char** argv) {
  const int quick = argc > 1 ? std::atoi(argv[1]) : 0;
  struct Shape {
    int nz, ny, nx;
  };
  const std::vector<Shape> shapes2 = {{1, 64, 64}, {1, 70, 96}, {1, 33, 47}, {1, 1, 200}, {1, 100, 16}, {1, 45, 80}};
  const std::vector<Shape> shapes3 = {{9, 17, 48}, {5, 9, 35}, {12, 20, 32}};
  const std::vector<Var> vars = {{0, false, true}, {1, false, true}, {1, true, false}, {0, true, false}};
  auto all_conn = [&](auto&& img, const Shape& s, const LabelKey& key, const std::string& what, auto tag_t) {
    using T = typename std::decay_t<decltype(img)>::value_type;
    (void)tag_t;
    const int nd = s.nz > 1 ? 3 : s.ny > 1 ? 2 : 1;
    for (int c = 1; c <= nd; ++c)
      for (const Var& v : vars) {
        if (sizeof(T) != 1 && v.load != 0) continue;
        check<T, std::int32_t, std::int32_t>(img, s.nz, s.ny, s.nx, key, c, v, what);
        if (quick) continue;
        check<T, std::int32_t, std::int64_t>(img, s.nz, s.ny, s.nx, key, c, v, what);
        check<T, std::int64_t, std::int64_t>(img, s.nz, s.ny, s.nx, key, c, v, what);
        check<T, std::int64_t, std::int32_t>(img, s.nz, s.ny, s.nx, key, c, v, what);
      }
  };
  std::vector<Shape> all = shapes2;
  all.insert(all.end(), shapes3.begin(), shapes3.end());
  for (const Shape& s : all) {
    LabelKey k;
    all_conn(blobs<bool>(s.nz, s.ny, s.nx, 0.4, 1), s, k, "bool blobs", 0);
    all_conn(noise<bool>(s.nz, s.ny, s.nx, 0, 1), s, k, "bool noise", 0);
    LabelKey inv;
    inv.invert = true;
    all_conn(blobs<bool>(s.nz, s.ny, s.nx, 0.6, 1), s, inv, "bool inverted", 0);
    all_conn(blobs<std::uint8_t>(s.nz, s.ny, s.nx, 0.5, 3), s, k, "u8 blobs", 0);
    all_conn(noise<std::uint8_t>(s.nz, s.ny, s.nx, 0, 2), s, k, "u8 noise", 0);
    LabelKey km1;
    km1.background = -1;
    all_conn(noise<std::int8_t>(s.nz, s.ny, s.nx, -2, 0), s, km1, "i8 noise bg-1", 0);
    LabelKey k255;
    k255.background = 255;
    all_conn(noise<std::uint8_t>(s.nz, s.ny, s.nx, 254, 255), s, k255, "u8 noise bg255", 0);
    LabelKey k300;
    k300.background = 300;  // no byte equals it: every pixel is foreground
    all_conn(blobs<std::uint8_t>(s.nz, s.ny, s.nx, 0.5, 2), s, k300, "u8 blobs bg300", 0);
    all_conn(blobs<std::int8_t>(s.nz, s.ny, s.nx, 0.5, 3), s, k300, "i8 blobs bg300", 0);
    if (!quick) {
      LabelKey k2;
      k2.background = 2;
      all_conn(noise<std::int64_t>(s.nz, s.ny, s.nx, 1, 3), s, k2, "i64 noise bg2", 0);
      std::vector<float> fl = noise<float>(s.nz, s.ny, s.nx, 0, 2);
      for (auto& x : fl) x += 0.5f;  // truncation: 0.5 -> 0 (background), 1.5 -> 1, 2.5 -> 2
      all_conn(fl, s, k, "float noise", 0);
      // checkerboards and all-foreground
      std::vector<std::uint8_t> cb(std::int64_t(s.nz) * s.ny * s.nx), full(cb.size(), 1);
      for (int z = 0; z < s.nz; ++z)
        for (int y = 0; y < s.ny; ++y)
          for (int x = 0; x < s.nx; ++x) cb[(std::int64_t(z) * s.ny + y) * s.nx + x] = (x + y + z) % 2;
      all_conn(cb, s, k, "u8 checkerboard", 0);
      all_conn(std::vector<bool>(cb.begin(), cb.end()), s, k, "bool checkerboard", 0);
      all_conn(full, s, k, "u8 full", 0);
      all_conn(std::vector<bool>(full.begin(), full.end()), s, k, "bool full", 0);
      all_conn(std::vector<bool>(full.begin(), full.end()), s, inv, "bool full inverted", 0);
    }
    std::printf("[%d %d %d] done: %d checks, %d failures\n", s.nz, s.ny, s.nx, checks, failures);
    std::fflush(stdout);
  }
  std::printf("label emu: %d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
