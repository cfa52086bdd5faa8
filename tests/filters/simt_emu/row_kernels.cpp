// Runs the row-strip kernels (kernels/filters/stencil_rows.cuh, kernels/ndimage/separable_rows.cuh)
// under the SIMT emulator against double-precision references (random weights, rank-1 ones for the
// separable 5x5 stencil, every mode, strips of 1..100 rows, partial segments and bands, misaligned
// outputs, batches of planes, 16-row chunks, streamed loads), plus sanity checks
// of detail::plan_strips. A developer tool for machines without a GPU, not a CTest test:
//   g++ -std=c++20 -O1 -ffp-contract=off -Wno-unknown-pragmas -I. -Iinclude -I/usr/local/cuda/include \
//       tests/filters/simt_emu/row_kernels.cpp -o /tmp/row_kernels -pthread && /tmp/row_kernels [0|1|2|3]
// (1: edge stencil, 2: separable Gaussian, 3: strip plans; a few minutes for 1 + 2 on two cores).
#include "emu.hpp"
// clang-format off
#include "kernels/filters/stencil_rows.cuh"
#include "kernels/ndimage/separable_rows.cuh"
#include "kernels/ndimage/row_strips.cuh"
// clang-format on
#include <cstdio>
#include <random>

namespace cuskimage::ndimage::detail::rows_impl {
alignas(16) unsigned char rows_smem[400 * 1024];
}

using cuskimage::ndimage::Mode;
using cuskimage::ndimage::detail::map_index;
namespace fr = cuskimage::filters::detail;
namespace gr = cuskimage::ndimage::detail::rows_impl;

static std::mt19937_64 rng(12345);
static int failures = 0, checks = 0;

template <class T>
T* aligned_alloc_t(std::size_t n) {
  return static_cast<T*>(std::aligned_alloc(64, ((n * sizeof(T) + 63) / 64) * 64 + 64));
}

// ---------------- 2-D stencil ----------------
template <class T, int R, bool TWO, bool SEP = false>
void test_stencil(int planes, int ny, int nx, Mode mode, double cval, bool use_mask, int strip) {
  constexpr int K = 2 * R + 1;
  const std::size_t n = std::size_t(planes) * ny * nx;
  T* in = aligned_alloc_t<T>(n);
  T* out = aligned_alloc_t<T>(n);
  bool* mask = aligned_alloc_t<bool>(n);
  std::uniform_real_distribution<double> U(-1, 1);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<T>(U(rng)), out[i] = T(-999), mask[i] = (rng() & 3) != 0;
  fr::StencilParams<T> p{};
  double wa[25], wb[25], suma = 0, sumb = 0;
  for (int i = 0; i < K; ++i) {  // SEP: rank-1 windows wa[dy][dx] = ua[dy] va[dx] (in T)
    p.ua[i] = static_cast<T>(U(rng)), p.va[i] = static_cast<T>(U(rng));
    p.ub[i] = static_cast<T>(U(rng)), p.vb[i] = static_cast<T>(U(rng));
  }
  for (int i = 0; i < K * K; ++i) {
    if (SEP) {
      wa[i] = double(p.ua[i / K]) * double(p.va[i % K]), wb[i] = double(p.ub[i / K]) * double(p.vb[i % K]);
    } else {
      wa[i] = static_cast<T>(U(rng)), wb[i] = static_cast<T>(U(rng));
    }
    p.wa[i] = static_cast<T>(wa[i]), p.wb[i] = static_cast<T>(wb[i]);
    suma += std::fabs(wa[i]), sumb += std::fabs(wb[i]);
  }
  p.root_ndim = static_cast<T>(std::sqrt(2.0));
  p.cval = static_cast<T>(cval);
  const std::int64_t segs = (nx + 127) / 128, col_blocks = (segs + 3) / 4;
  const EmuDim3 grid{static_cast<unsigned>(col_blocks), static_cast<unsigned>((ny + strip - 1) / strip),
                     static_cast<unsigned>(planes)};
  const bool* mp = use_mask ? mask : nullptr;
  emu_launch(grid, 128, [&] {
    if (mp)
      fr::rows_impl::stencil2d_rows_kernel<T, R, TWO, true, SEP>(in, out, mp, ny, nx, mode, p, strip);
    else
      fr::rows_impl::stencil2d_rows_kernel<T, R, TWO, false, SEP>(in, out, mp, ny, nx, mode, p, strip);
  });
  double worst = 0;
  long bad = 0;
  for (int pl = 0; pl < planes; ++pl)
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        double a = 0, b = 0;
        for (int dy = 0; dy < K; ++dy)
          for (int dx = 0; dx < K; ++dx) {
            const std::int64_t yy = map_index(y + dy - R, ny, mode), xx = map_index(x + dx - R, nx, mode);
            const double v = (yy < 0 || xx < 0) ? double(p.cval) : double(in[(std::size_t(pl) * ny + yy) * nx + xx]);
            a += wa[dy * K + dx] * v;
            b += wb[dy * K + dx] * v;
          }
        double e = TWO ? std::sqrt(a * a + b * b) / std::sqrt(2.0) : a;
        const std::size_t i = (std::size_t(pl) * ny + y) * nx + x;
        if (use_mask && !mask[i]) e = 0;
        const double d = std::fabs(e - double(out[i]));
        const double tol = (sizeof(T) == 4 ? 1e-5 : 1e-12) * (suma + sumb) * std::max(1.0, std::fabs(double(p.cval)));
        if (!(d <= tol)) {
          if (bad < 3)
            std::printf("  stencil mismatch plane %d y %d x %d: got %g want %g\n", pl, y, x, double(out[i]), e);
          ++bad;
        }
        worst = std::max(worst, d);
      }
  ++checks;
  if (bad) {
    ++failures;
    std::printf("FAIL stencil sep=%d T=%s R=%d two=%d planes=%d %dx%d mode=%d cval=%g mask=%d strip=%d: %ld bad\n",
                SEP, sizeof(T) == 4 ? "f32" : "f64", R, TWO, planes, ny, nx, int(mode), cval, use_mask, strip, bad);
  }
  std::free(in), std::free(out), std::free(mask);
}

// ---------------- separable gaussian ----------------
template <class T, int K>
void test_sep(int planes, int ny, int nx, Mode my, Mode mx, double cval, int strip_units, bool misalign_out) {
  using Geo = gr::RowsGeo<T, K>;
  constexpr int R = K / 2;
  const std::size_t n = std::size_t(planes) * ny * nx;
  T* in = aligned_alloc_t<T>(n);
  T* outb = aligned_alloc_t<T>(n + 4);
  T* out = misalign_out ? outb + 1 : outb;
  std::uniform_real_distribution<double> U(-1, 1);
  for (std::size_t i = 0; i < n; ++i) in[i] = static_cast<T>(U(rng)), out[i] = T(-999);
  gr::RowsTaps<T, K> w{};
  double wy[K], wx[K], sy = 0, sx = 0;
  for (int i = 0; i < K; ++i) {
    w.y[i] = static_cast<T>(U(rng)), w.x[i] = static_cast<T>(U(rng));
    wy[i] = w.y[i], wx[i] = w.x[i];
    sy += std::fabs(wy[i]), sx += std::fabs(wx[i]);
  }
  const int strip = strip_units * Geo::G;
  const std::int64_t col_blocks = (nx + Geo::TW - 1) / Geo::TW;
  const EmuDim3 grid{static_cast<unsigned>(col_blocks), static_cast<unsigned>((ny + strip - 1) / strip),
                     static_cast<unsigned>(planes)};
  const bool vec = nx % Geo::VL == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0;
  const T cv = static_cast<T>(cval);
  emu_launch(grid, Geo::NT, [&] { gr::rows_kernel<T, K>(in, out, ny, nx, my, mx, w, cv, strip, vec); });
  std::vector<double> inter(std::size_t(ny) * nx);
  long bad = 0;
  for (int pl = 0; pl < planes; ++pl) {
    const T* src = in + std::size_t(pl) * ny * nx;
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        double a = 0;
        for (int i = 0; i < K; ++i) {
          const std::int64_t yy = map_index(y - R + i, ny, my);
          a += wy[i] * (yy < 0 ? double(cv) : double(src[yy * nx + x]));
        }
        inter[std::size_t(y) * nx + x] = a;
      }
    for (int y = 0; y < ny; ++y)
      for (int x = 0; x < nx; ++x) {
        double a = 0;
        for (int i = 0; i < K; ++i) {
          const std::int64_t xx = map_index(x - R + i, nx, mx);
          a += wx[i] * (xx < 0 ? double(cv) : inter[std::size_t(y) * nx + xx]);
        }
        const std::size_t idx = (std::size_t(pl) * ny + y) * nx + x;
        const double tol = (sizeof(T) == 4 ? 1e-5 : 1e-12) * sy * sx * std::max(1.0, std::fabs(cval));
        if (!(std::fabs(a - double(out[idx])) <= tol)) {
          if (bad < 3) std::printf("  sep mismatch plane %d y %d x %d: got %g want %g\n", pl, y, x, double(out[idx]), a);
          ++bad;
        }
      }
  }
  ++checks;
  if (bad) {
    ++failures;
    std::printf("FAIL sep T=%s K=%d planes=%d %dx%d my=%d mx=%d cval=%g strip=%d vec=%d: %ld bad\n",
                sizeof(T) == 4 ? "f32" : "f64", K, planes, ny, nx, int(my), int(mx), cval, strip, vec, bad);
  }
  std::free(in), std::free(outb);
}

int main(int argc, char** argv) {
  const int which = argc > 1 ? std::atoi(argv[1]) : 0;
  const Mode modes[5] = {Mode::reflect, Mode::mirror, Mode::nearest, Mode::wrap, Mode::constant};
  if (which == 0 || which == 1) {
    struct S {
      int ny, nx;
    };
    const S shapes[] = {{1, 4}, {1, 128}, {2, 132}, {3, 8}, {5, 260}, {17, 36}, {40, 124}, {6, 256}, {9, 516}, {64, 4}, {2, 1024}};
    for (const S& s : shapes)
      for (int mi = 0; mi < 5; ++mi)
        for (int strip : {1, 2, 5, 64}) {
          if (strip > s.ny && strip != 64) continue;
          const double cv = modes[mi] == Mode::constant ? 0.375 : 0.0;
          const bool m = (rng() & 1) != 0;
          test_stencil<float, 1, true>(1, s.ny, s.nx, modes[mi], cv, m, strip);
          test_stencil<float, 1, false>(1, s.ny, s.nx, modes[mi], cv, !m, strip);
          test_stencil<float, 2, true>(1, s.ny, s.nx, modes[mi], cv, m, strip);
          test_stencil<float, 2, false>(1, s.ny, s.nx, modes[mi], cv, m, strip);
          test_stencil<float, 2, true, true>(1, s.ny, s.nx, modes[mi], cv, !m, strip);
          test_stencil<float, 2, false, true>(1, s.ny, s.nx, modes[mi], cv, m, strip);
          test_stencil<double, 1, true>(1, s.ny, s.nx, modes[mi], cv, !m, strip);
          test_stencil<double, 1, false>(1, s.ny, s.nx, modes[mi], cv, m, strip);
        }
    test_stencil<float, 1, true>(3, 7, 136, Mode::reflect, 0, true, 3);
    test_stencil<double, 1, true>(2, 11, 20, Mode::wrap, 0, false, 4);
    test_stencil<float, 2, true, true>(2, 13, 264, Mode::mirror, 0, true, 3);
    std::printf("stencil: %d checks, %d failures\n", checks, failures);
  }
  if (which == 0 || which == 2) {
    struct S {
      int ny, nx;
    };
    const S shapes[] = {{1, 1}, {1, 7}, {7, 1}, {17, 33}, {30, 232}, {26, 233}, {3, 464}, {40, 250}, {60, 500}};
    int combo = 0;
    for (const S& s : shapes)
      for (int mi = 0; mi < 5; ++mi)
        for (int mj : {mi, (mi + 2) % 5}) {
          const double cv = (modes[mi] == Mode::constant || modes[mj] == Mode::constant) ? 0.75 : 0.0;
          const int su = 1 + (combo++ % 2);
          test_sep<float, 3>(1, s.ny, s.nx, modes[mi], modes[mj], cv, su, false);
          test_sep<float, 9>(1, s.ny, s.nx, modes[mi], modes[mj], cv, su, (combo & 3) == 1);
          test_sep<float, 25>(1, s.ny, s.nx, modes[mi], modes[mj], cv, su, false);
          test_sep<double, 25>(1, s.ny, s.nx, modes[mi], modes[mj], cv, su, false);
          test_sep<double, 7>(1, s.ny, s.nx, modes[mi], modes[mj], cv, 2, (combo & 3) == 2);
          // float K > 25 (streamed), double (streamed, 4-row prefetch).
          test_sep<float, 29>(1, s.ny, s.nx, modes[mi], modes[mj], cv, su, false);
          test_sep<double, 31>(1, s.ny, s.nx, modes[mi], modes[mj], cv, 3 - su, false);
        }
    // Strips of several chunks (the double buffer alternates and is reused).
    for (int rep = 0; rep < 3; ++rep) {
      test_sep<float, 25>(1, 240, 470, Mode::reflect, Mode::wrap, 0, 4, false);
      test_sep<float, 3>(1, 200, 300, Mode::constant, Mode::constant, 0.25, 5, false);
      test_sep<double, 9>(2, 150, 260, Mode::nearest, Mode::mirror, 0, 3, false);
      test_sep<float, 9>(1, 97, 249, Mode::mirror, Mode::constant, -1.5, 100, true);
      test_sep<float, 11>(1, 230, 300, Mode::reflect, Mode::constant, 0.5, 2, false);
      test_sep<float, 5>(2, 101, 260, Mode::wrap, Mode::nearest, 0, 1, true);
      test_sep<double, 25>(1, 160, 240, Mode::mirror, Mode::wrap, 0, 3, false);
      test_sep<float, 33>(1, 140, 230, Mode::constant, Mode::reflect, 0.25, 2, false);
    }
    test_sep<float, 33>(2, 70, 300, Mode::reflect, Mode::constant, 0.5, 1, false);
    test_sep<float, 13>(3, 27, 40, Mode::wrap, Mode::mirror, 0, 1, false);
    test_sep<double, 33>(1, 5, 9, Mode::mirror, Mode::nearest, 0, 1, false);
    std::printf("sep: %d checks, %d failures\n", checks, failures);
  }
  if (which == 0 || which == 3) {
    // plan_strips sanity: strips cover ny, rows multiple of unit.
    for (int ny : {1, 5, 25, 512, 2160, 8192, 100000})
      for (int unit : {1, 25}) {
        const auto pl = cuskimage::detail::plan_strips(ny, unit, 24, 36, 1, 132, 3, 3);
        const bool ok = pl.rows % unit == 0 && pl.strips * pl.rows >= ny && (pl.strips - 1) * pl.rows < ny;
        std::printf("plan ny=%d unit=%d -> rows %lld strips %lld %s\n", ny, unit, (long long)pl.rows,
                    (long long)pl.strips, ok ? "" : "BAD");
        if (!ok) ++failures;
      }
  }
  std::printf("TOTAL %d checks, %d failures\n", checks, failures);
  return failures ? 1 : 0;
}
