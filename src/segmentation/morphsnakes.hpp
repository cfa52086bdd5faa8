// Private interface of the morphsnakes: the per-pixel steps both backends run (CUSK_HD), and the
// CUDA entry points (kernels/segmentation/morphsnakes.cu).
//
// A level set is int8 0/1 in C order over a (nz, ny, nx) grid; 2-D images use nz = 1. Every
// floating step is spelled with the *_rn helpers so nvcc's FMA contraction cannot make the GPU
// round differently from the CPU.
#pragma once

#include <cstdint>
#include <cmath>
#include <functional>
#include <type_traits>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::segmentation::detail {

struct LevelSetGrid {
  std::int64_t nz = 1, ny = 1, nx = 1;
  bool three = false;  // 3-D: P3's nine planes; else P2's four lines
  CUSK_HD std::int64_t size() const { return nz * ny * nx; }
};

/// scikit-image's structuring elements as the directions (dz, dy, dx) spanning them: 2-D lines
/// {t b}, 3-D planes {s a + t b}, s, t in {-1, 0, 1}.
CUSK_HD void se_dirs(bool three, int i, int a[3], int b[3]) {
  const signed char p2[4][3] = {{0, 1, 1}, {0, 1, 0}, {0, 1, -1}, {0, 0, 1}};
  const signed char p3[9][6] = {{1, 0, 0, 0, 1, 0}, {1, 0, 0, 0, 0, 1}, {0, 1, 0, 0, 0, 1},
                                {1, 0, 0, 0, 1, 1}, {1, 0, 0, 0, 1, -1}, {0, 1, 0, 1, 0, 1},
                                {0, 1, 0, 1, 0, -1}, {0, 0, 1, 1, 1, 0}, {0, 0, 1, 1, -1, 0}};
  for (int k = 0; k < 3; ++k) {
    a[k] = three ? p3[i][k] : 0;
    b[k] = three ? p3[i][3 + k] : p2[i][k];
  }
}

/// SI (sup of erosions, kSupInf) or IS (inf of dilations) at one pixel; outside the grid counts as
/// 0 for both (scipy's border_value 0). kThree is fixed at compile time so the unrolled loops index
/// the element tables with constants (no local-memory table on the device).
template <bool kSupInf, bool kThree>
CUSK_HD std::int8_t curv_op_n(const std::int8_t* u, const LevelSetGrid& g, std::int64_t z, std::int64_t y,
                              std::int64_t x) {
  constexpr int nse = kThree ? 9 : 4, s0 = kThree ? -1 : 0, s1 = kThree ? 1 : 0;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int i = 0; i < nse; ++i) {
    int a[3], b[3];
    se_dirs(kThree, i, a, b);
    bool all = true, any = false;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int s = s0; s <= s1; ++s)
      for (int t = -1; t <= 1; ++t) {
        const std::int64_t zz = z + s * a[0] + t * b[0], yy = y + s * a[1] + t * b[1], xx = x + s * a[2] + t * b[2];
        const bool in = zz >= 0 && zz < g.nz && yy >= 0 && yy < g.ny && xx >= 0 && xx < g.nx;
        const bool v = in && u[(zz * g.ny + yy) * g.nx + xx] != 0;
        all = all && v;
        any = any || v;
      }
    if (kSupInf && all) return 1;
    if (!kSupInf && !any) return 0;
  }
  return kSupInf ? 0 : 1;
}
template <bool kSupInf>
CUSK_HD std::int8_t curv_op(const std::int8_t* u, const LevelSetGrid& g, std::int64_t z, std::int64_t y,
                            std::int64_t x) {
  return g.three ? curv_op_n<kSupInf, true>(u, g, z, y, x) : curv_op_n<kSupInf, false>(u, g, z, y, x);
}

/// The full 3^d cube's dilation (kDilate) or erosion at one pixel, border 0 (MorphGAC's balloon).
template <bool kDilate>
CUSK_HD std::int8_t cube_op(const std::int8_t* u, const LevelSetGrid& g, std::int64_t z, std::int64_t y,
                            std::int64_t x) {
  const int s0 = g.three ? -1 : 0, s1 = g.three ? 1 : 0;
  for (int dz = s0; dz <= s1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const std::int64_t zz = z + dz, yy = y + dy, xx = x + dx;
        const bool in = zz >= 0 && zz < g.nz && yy >= 0 && yy < g.ny && xx >= 0 && xx < g.nx;
        const bool v = in && u[(zz * g.ny + yy) * g.nx + xx] != 0;
        if (kDilate && v) return 1;
        if (!kDilate && !v) return 0;
      }
  return kDilate ? 0 : 1;
}

/// numpy.gradient of f along one axis at linear index i (position pos of n, stride st): central
/// differences / 2 inside, one-sided differences at the ends.
template <class T>
CUSK_HD T grad1(const T* f, std::int64_t i, std::int64_t st, std::int64_t pos, std::int64_t n) {
  if (pos == 0) return cuskimage::detail::sub_rn(f[i + st], f[i]);
  if (pos == n - 1) return cuskimage::detail::sub_rn(f[i], f[i - st]);
  return cuskimage::detail::div_rn(cuskimage::detail::sub_rn(f[i + st], f[i - st]), T(2));
}
CUSK_HD double grad_u(const std::int8_t* u, std::int64_t i, std::int64_t st, std::int64_t pos, std::int64_t n) {
  if (pos == 0) return double(u[i + st] - u[i]);
  if (pos == n - 1) return double(u[i] - u[i - st]);
  return double(u[i + st] - u[i - st]) * 0.5;
}

/// One MorphACWE data step at a pixel: where |∇u| > 0 the sign of
/// lambda1 (I - c1)^2 - lambda2 (I - c0)^2 moves the pixel in (< 0) or out (> 0).
template <class T>
CUSK_HD std::int8_t cv_step(const std::int8_t* u, const T* img, const LevelSetGrid& g, std::int64_t z, std::int64_t y,
                            std::int64_t x, T c0, T c1, T l1, T l2) {
  using cuskimage::detail::mul_rn;
  using cuskimage::detail::sub_rn;
  const std::int64_t i = (z * g.ny + y) * g.nx + x;
  bool edge = grad_u(u, i, 1, x, g.nx) != 0.0 || grad_u(u, i, g.nx, y, g.ny) != 0.0;
  if (g.three) edge = edge || grad_u(u, i, g.nx * g.ny, z, g.nz) != 0.0;
  if (!edge) return u[i];
  const T d1 = sub_rn(img[i], c1), d0 = sub_rn(img[i], c0);
  const T aux = sub_rn(mul_rn(l1, mul_rn(d1, d1)), mul_rn(l2, mul_rn(d0, d0)));
  return aux < T(0) ? std::int8_t(1) : aux > T(0) ? std::int8_t(0) : u[i];
}

/// One MorphGAC attraction step: the sign of ∇gimage · ∇u, accumulated in gimage's dtype axis by
/// axis as scikit-image's `aux += el1 * el2` does (each product in float64).
template <class T>
CUSK_HD std::int8_t gac_step(const std::int8_t* u, const T* gi, const LevelSetGrid& g, std::int64_t z, std::int64_t y,
                             std::int64_t x) {
  using cuskimage::detail::add_rn;
  using cuskimage::detail::mul_rn;
  const std::int64_t i = (z * g.ny + y) * g.nx + x;
  T aux = T(0);
  if (g.three)
    aux = T(add_rn(double(aux),
                   mul_rn(double(grad1(gi, i, g.nx * g.ny, z, g.nz)), grad_u(u, i, g.nx * g.ny, z, g.nz))));
  aux = T(add_rn(double(aux), mul_rn(double(grad1(gi, i, g.nx, y, g.ny)), grad_u(u, i, g.nx, y, g.ny))));
  aux = T(add_rn(double(aux), mul_rn(double(grad1(gi, i, std::int64_t(1), x, g.nx)), grad_u(u, i, 1, x, g.nx))));
  return aux > T(0) ? std::int8_t(1) : aux < T(0) ? std::int8_t(0) : u[i];
}

/// checkerboard_level_set / disk_level_set at one pixel of a grid up to 3-D (c: the coordinates).
CUSK_HD std::int8_t checker_at(const std::int64_t* c, int nd, std::int64_t square) {
  std::int64_t v = 0;
  for (int k = 0; k < nd; ++k) v ^= (c[k] / square) & 1;
  return static_cast<std::int8_t>(v);
}
CUSK_HD std::int8_t disk_at(const std::int64_t* c, int nd, const double* center, double radius) {
  double s = 0.0;
  for (int k = 0; k < nd; ++k) {
    const double d = cuskimage::detail::sub_rn(double(c[k]), center[k]);
    s = cuskimage::detail::add_rn(s, cuskimage::detail::mul_rn(d, d));
  }
  return cuskimage::detail::sub_rn(radius, std::sqrt(s)) > 0.0 ? 1 : 0;
}

/// acc + v * v in T: wrapping for integers (NumPy's in-place uint/int arithmetic), rounded once per
/// step for floats.
template <class T>
CUSK_HD T sum_square(T acc, T v) {
  if constexpr (std::is_floating_point_v<T>) {
    return cuskimage::detail::add_rn(acc, cuskimage::detail::mul_rn(v, v));
  } else {
    return T(std::uint64_t(acc) + std::uint64_t(v) * std::uint64_t(v));
  }
}
/// 1 / sqrt(1 + alpha * g) in T.
template <class T>
CUSK_HD T inverse_gradient(T g, T alpha) {
  using namespace cuskimage::detail;
  return div_rn(T(1), T(std::sqrt(add_rn(T(1), mul_rn(alpha, g)))));
}

// ---- CUDA entry points (kernels/segmentation/morphsnakes.cu) -----------------------------------------------
/// Runs MorphACWE in place on `u` (int8, contiguous, the image's device); img contiguous T.
template <class T>
void cuda_morph_chan_vese(const Array& img, Array& u, const LevelSetGrid& g, int num_iter, int smoothing, double l1,
                          double l2,
                          const std::function<void(const Array&)>& cb, const Stream& stream);
/// Runs MorphGAC in place on `u`; thr_balloon: gimage > thr_balloon takes the balloon step.
template <class T>
void cuda_morph_gac(const Array& gimage, Array& u, const LevelSetGrid& g, int num_iter, int smoothing, double balloon,
                    T thr_balloon, const std::function<void(const Array&)>& cb, const Stream& stream);
/// u = (level > 0) for a contiguous float64 level set.
void cuda_binarize(const Array& level, Array& u, const Stream& stream);
/// A checkerboard (square > 0) or disk (square == 0) level set into `out` (int8, contiguous, 1-D..3-D).
void cuda_level_set_pattern(Array& out, std::int64_t square, const double* center, double radius,
                            const Stream& stream);
/// 1 / sqrt(1 + alpha * sqrt(sum_k d_k^2)) of the 1..3 per-axis derivatives (T, contiguous), in T.
template <class T>
void cuda_inverse_gradient(const std::vector<Array>& d, Array& out, double alpha, const Stream& stream);

}  // namespace cuskimage::segmentation::detail
