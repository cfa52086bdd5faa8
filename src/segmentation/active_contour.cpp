// segmentation.active_contour (CPU; see the header): the image force through a reproduction of
// scipy's RectBivariateSpline(kx=ky=2, s=0) and scikit-image's semi-implicit snake iteration.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/segmentation/active_contour.hpp"
#include "cuskimage/util.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::segmentation {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "segmentation.active_contour";

/// FITPACK's knots of the interpolating quadratic spline on the grid 0 .. m-1: 0 and m-1 three
/// times, the half-integers 1.5 .. m-2.5 between.
struct QuadKnots {
  std::int64_t m;
  double at(std::int64_t k) const { return k < 3 ? 0.0 : k >= m ? double(m - 1) : double(k) - 1.5; }
  /// The knot interval [t_l, t_l+1) holding x (x clamped to the grid as fpbisp does), l in [2, m-1].
  std::int64_t interval(double& x) const {
    x = std::clamp(x, 0.0, double(m - 1));
    std::int64_t l = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(x + 1.5)), 2, m - 1);
    while (l > 2 && at(l) > x) --l;
    while (l < m - 1 && at(l + 1) <= x) ++l;
    return l;
  }
  /// The three nonzero quadratic B-splines N_{l-2..l}(x) and their derivatives.
  void basis(std::int64_t l, double x, double n[3], double dn[3]) const {
    const double tl = at(l), tl1 = at(l + 1), tlm1 = at(l - 1), tl2 = at(l + 2);
    const double a1 = (tl1 - x) / (tl1 - tl), b1 = (x - tl) / (tl1 - tl);  // degree 1: N_{l-1}, N_l
    const double d0 = tl1 - tlm1, d1 = tl2 - tl;
    n[0] = (tl1 - x) / d0 * a1;
    n[1] = (x - tlm1) / d0 * a1 + (tl2 - x) / d1 * b1;
    n[2] = (x - tl) / d1 * b1;
    dn[0] = -2.0 * a1 / d0;
    dn[1] = 2.0 * (a1 / d0 - b1 / d1);
    dn[2] = 2.0 * b1 / d1;
  }
};

/// Solves the collocation system B c = v in place for a vector of m values (element stride st): B
/// is banded (|col - row| <= 2) and totally positive, so elimination needs no pivoting.
void collocation_solve(const QuadKnots& t, double* v, std::int64_t st) {
  const std::int64_t m = t.m;
  std::vector<std::array<double, 5>> a(static_cast<std::size_t>(m));  // a[row][col - row + 2]
  std::vector<double> r(static_cast<std::size_t>(m));
  for (std::int64_t j = 0; j < m; ++j) {
    a[j].fill(0.0);
    double x = double(j), n[3], dn[3];
    const std::int64_t l = t.interval(x);
    t.basis(l, x, n, dn);
    for (int q = 0; q < 3; ++q) a[j][l - 2 + q - j + 2] = n[q];
    r[j] = v[j * st];
  }
  for (std::int64_t k = 0; k < m; ++k)
    for (std::int64_t i = k + 1; i <= std::min(k + 2, m - 1); ++i) {
      const double f = a[i][k - i + 2] / a[k][2];
      if (f == 0.0) continue;
      for (std::int64_t c = k; c <= std::min(k + 2, m - 1); ++c) a[i][c - i + 2] -= f * a[k][c - k + 2];
      r[i] -= f * r[k];
    }
  for (std::int64_t k = m - 1; k >= 0; --k) {
    double s = r[k];
    for (std::int64_t c = k + 1; c <= std::min(k + 2, m - 1); ++c) s -= a[k][c - k + 2] * r[c];
    r[k] = s / a[k][2];
  }
  for (std::int64_t j = 0; j < m; ++j) v[j * st] = r[j];
}

/// RectBivariateSpline(arange(cols), arange(rows), f.T, kx=2, ky=2, s=0): coefficients c[ix][iy].
struct ForceSpline {
  QuadKnots tx, ty;
  std::vector<double> c;
  ForceSpline(const std::vector<double>& f, std::int64_t rows, std::int64_t cols) : tx{cols}, ty{rows} {
    c.resize(f.size());
    for (std::int64_t iy = 0; iy < rows; ++iy)
      for (std::int64_t ix = 0; ix < cols; ++ix) c[ix * rows + iy] = f[iy * cols + ix];
    for (std::int64_t iy = 0; iy < rows; ++iy) collocation_solve(tx, c.data() + iy, rows);
    for (std::int64_t ix = 0; ix < cols; ++ix) collocation_solve(ty, c.data() + ix * rows, 1);
  }
  /// (d/dx, d/dy) of the spline at (x, y) = (column, row).
  std::array<double, 2> gradient(double x, double y) const {
    const std::int64_t lx = tx.interval(x), ly = ty.interval(y);
    double nx[3], dnx[3], ny[3], dny[3];
    tx.basis(lx, x, nx, dnx);
    ty.basis(ly, y, ny, dny);
    double gx = 0.0, gy = 0.0;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) {
        const double cab = c[(lx - 2 + a) * ty.m + (ly - 2 + b)];
        gx += cab * dnx[a] * ny[b];
        gy += cab * nx[a] * dny[b];
      }
    return {gx, gy};
  }
};

/// w_line * image + w_edge * sobel(image) (RGB: channel sums), in the image's float precision.
std::vector<double> image_force(const Array& image, const ActiveContourOptions& o, const Stream& stream) {
  const Array img = util::img_as_float(image, {}, stream);
  const bool rgb = img.ndim() == 3;
  const DType ft = img.dtype();
  const auto host = [&](const Array& a) {
    return a.to(Device::cpu(), stream).astype(DType::float64).to_vector<double>();
  };
  const auto round_t = [&](double v) { return ft == DType::float32 ? double(float(v)) : v; };
  const std::int64_t n = img.shape()[0] * img.shape()[1];
  std::vector<double> line(static_cast<std::size_t>(n), 0.0), edge(static_cast<std::size_t>(n), 0.0);
  const int channels = rgb ? static_cast<int>(img.shape()[2]) : 1;
  for (int ch = 0; ch < channels; ++ch) {
    const Array plane = rgb ? img.index(2, ch) : img.share();
    const std::vector<double> p = host(plane);
    for (std::int64_t i = 0; i < n; ++i) line[i] = round_t(line[i] + p[i]);
    if (o.w_edge != 0.0 && ch < 3) {
      const std::vector<double> e = host(filters::sobel(plane.contiguous(stream), {}, stream));
      for (std::int64_t i = 0; i < n; ++i) edge[i] = round_t(edge[i] + e[i]);
    }
  }
  for (std::int64_t i = 0; i < n; ++i)
    line[i] = round_t(round_t(round_t(o.w_line) * line[i]) + round_t(round_t(o.w_edge) * edge[i]));
  return line;
}

/// scikit-image's A + gamma I (with the boundary rows), inverted by Gauss-Jordan.
std::vector<double> snake_matrix_inverse(std::int64_t n, const ActiveContourOptions& o, bool sfixed, bool efixed,
                                         bool sfree, bool efree) {
  std::vector<double> A(static_cast<std::size_t>(n * n), 0.0);
  auto at = [&](std::int64_t r, std::int64_t c) -> double& { return A[r * n + ((c % n) + n) % n]; };
  for (std::int64_t i = 0; i < n; ++i) {
    at(i, i + 1) += -o.alpha * 1.0 + o.beta * -4.0;
    at(i, i - 1) += -o.alpha * 1.0 + o.beta * -4.0;
    at(i, i) += -o.alpha * -2.0 + o.beta * 6.0;
    at(i, i + 2) += o.beta;
    at(i, i - 2) += o.beta;
  }
  auto set_row = [&](std::int64_t r, std::int64_t c0, std::initializer_list<double> v) {
    std::fill(A.begin() + r * n, A.begin() + (r + 1) * n, 0.0);
    std::int64_t c = c0;
    for (double x : v) A[r * n + c++] = x;
  };
  if (sfixed) {
    set_row(0, 0, {});
    set_row(1, 0, {1, -2, 1});
  }
  if (efixed) {
    set_row(n - 1, 0, {});
    set_row(n - 2, n - 3, {1, -2, 1});
  }
  if (sfree) {
    set_row(0, 0, {1, -2, 1});
    set_row(1, 0, {-1, 3, -3, 1});
  }
  if (efree) {
    set_row(n - 1, n - 3, {1, -2, 1});
    set_row(n - 2, n - 4, {-1, 3, -3, 1});
  }
  for (std::int64_t i = 0; i < n; ++i) A[i * n + i] += o.gamma;
  std::vector<double> inv(static_cast<std::size_t>(n * n), 0.0);
  for (std::int64_t i = 0; i < n; ++i) inv[i * n + i] = 1.0;
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t p = k;
    for (std::int64_t i = k + 1; i < n; ++i)
      if (std::abs(A[i * n + k]) > std::abs(A[p * n + k])) p = i;
    expect(A[p * n + k] != 0.0, kFn, "alpha", "and the other shape parameters give a singular snake matrix");
    if (p != k)
      for (std::int64_t c = 0; c < n; ++c) {
        std::swap(A[p * n + c], A[k * n + c]);
        std::swap(inv[p * n + c], inv[k * n + c]);
      }
    const double d = A[k * n + k];
    for (std::int64_t c = 0; c < n; ++c) {
      A[k * n + c] /= d;
      inv[k * n + c] /= d;
    }
    for (std::int64_t i = 0; i < n; ++i) {
      if (i == k || A[i * n + k] == 0.0) continue;
      const double f = A[i * n + k];
      for (std::int64_t c = 0; c < n; ++c) {
        A[i * n + c] -= f * A[k * n + c];
        inv[i * n + c] -= f * inv[k * n + c];
      }
    }
  }
  return inv;
}

}  // namespace

Array active_contour(const Array& image, const Array& snake, const ActiveContourOptions& o, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  cuskimage::detail::expect_valid(snake, kFn, "snake");
  expect(image.ndim() == 2 || (image.ndim() == 3 && image.shape()[2] >= 3), kFn, "image",
         "must be 2-D grey or (M, N, 3) RGB");
  expect(image.shape()[0] >= 3 && image.shape()[1] >= 3, kFn, "image",
         "must be at least 3 x 3 (the quadratic interpolating spline)");
  expect(snake.ndim() == 2 && snake.shape()[1] == 2, kFn, "snake", "must be a (K, 2) array of (row, col) points");
  expect(o.max_num_iter > 0, kFn, "max_num_iter", "should be > 0, got ", o.max_num_iter);
  using B = SnakeBoundary;
  const B bc = o.boundary_condition;
  const bool sfixed = bc == B::fixed || bc == B::fixed_free || bc == B::fixed_fixed;
  const bool efixed = bc == B::fixed || bc == B::free_fixed || bc == B::fixed_fixed;
  const bool sfree = bc == B::free || bc == B::free_fixed || bc == B::free_free;
  const bool efree = bc == B::free || bc == B::fixed_free || bc == B::free_free;
  const std::int64_t n = snake.shape()[0];
  expect(n >= ((sfree || efree) ? 4 : (sfixed || efixed) ? 3 : 1), kFn, "snake",
         "has too few points for boundary condition ", meta::enum_name(bc), ": ", n);

  const std::int64_t rows = image.shape()[0], cols = image.shape()[1];
  const ForceSpline spline(image_force(image, o, stream), rows, cols);
  const std::vector<double> inv = snake_matrix_inverse(n, o, sfixed, efixed, sfree, efree);
  const std::vector<double> s = snake.to(Device::cpu(), stream).astype(DType::float64).contiguous().to_vector<double>();
  std::vector<double> x(n), y(n), fx(n), fy(n), xn(n), yn(n);
  for (std::int64_t i = 0; i < n; ++i) {
    y[i] = s[2 * i];
    x[i] = s[2 * i + 1];
  }
  constexpr int kOrder = 10;
  std::vector<double> xsave(kOrder * n), ysave(kOrder * n);
  for (int it = 0; it < o.max_num_iter; ++it) {
    for (std::int64_t i = 0; i < n; ++i) {
      const auto g = spline.gradient(x[i], y[i]);
      fx[i] = g[0];
      fy[i] = g[1];
    }
    if (sfixed) fx[0] = fy[0] = 0.0;
    if (efixed) fx[n - 1] = fy[n - 1] = 0.0;
    if (sfree) fx[0] *= 2, fy[0] *= 2;
    if (efree) fx[n - 1] *= 2, fy[n - 1] *= 2;
    for (std::int64_t i = 0; i < n; ++i) {
      double ax = 0.0, ay = 0.0;
      for (std::int64_t j = 0; j < n; ++j) {
        ax += inv[i * n + j] * (o.gamma * x[j] + fx[j]);
        ay += inv[i * n + j] * (o.gamma * y[j] + fy[j]);
      }
      xn[i] = ax;
      yn[i] = ay;
    }
    for (std::int64_t i = 0; i < n; ++i) {
      const bool pinned = (sfixed && i == 0) || (efixed && i == n - 1);
      if (pinned) continue;
      x[i] += o.max_px_move * std::tanh(xn[i] - x[i]);
      y[i] += o.max_px_move * std::tanh(yn[i] - y[i]);
    }
    const int j = it % (kOrder + 1);
    if (j < kOrder) {
      std::copy(x.begin(), x.end(), xsave.begin() + j * n);
      std::copy(y.begin(), y.end(), ysave.begin() + j * n);
    } else {
      double dist = std::numeric_limits<double>::infinity();
      for (int r = 0; r < kOrder; ++r) {
        double mx = 0.0;
        for (std::int64_t i = 0; i < n; ++i)
          mx = std::max(mx, std::abs(xsave[r * n + i] - x[i]) + std::abs(ysave[r * n + i] - y[i]));
        dist = std::min(dist, mx);
      }
      if (dist < o.convergence) break;
    }
  }
  std::vector<double> out(static_cast<std::size_t>(2 * n));
  for (std::int64_t i = 0; i < n; ++i) {
    out[2 * i] = y[i];
    out[2 * i + 1] = x[i];
  }
  const DType odt = image.dtype() == DType::float32 ? DType::float32 : DType::float64;
  return Array::from_vector(out, {n, 2}).astype(odt).to(snake.device(), stream);
}

}  // namespace cuskimage::segmentation
