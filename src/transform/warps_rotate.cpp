// skimage.transform.rotate: the SimilarityTransform composition scikit-image builds (its 3x3
// products as NumPy's BLAS forms them: fused multiply-add chains), the resized output's corners,
// then warp with the matrix (the fast path for orders 1 and 3).
#include <cmath>

#include "cuskimage/transform/warps.hpp"
#include "src/core/validate.hpp"
#include "src/transform/warps_common.hpp"

namespace cuskimage::transform {

namespace detail {

Mat3 mat3_mul(const Mat3& a, const Mat3& b) {
  Mat3 c;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      double s = a.m[3 * i] * b.m[j];
      s = std::fma(a.m[3 * i + 1], b.m[3 + j], s);
      c.m[3 * i + j] = std::fma(a.m[3 * i + 2], b.m[6 + j], s);
    }
  return c;
}

Mat3 mat3_inv(const Mat3& a) {
  // Gauss-Jordan with partial pivoting (LAPACK's LU picks the same pivots).
  double w[3][6];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 6; ++j) w[i][j] = j < 3 ? a.m[3 * i + j] : (j - 3 == i ? 1.0 : 0.0);
  for (int k = 0; k < 3; ++k) {
    int piv = k;
    for (int i = k + 1; i < 3; ++i)
      if (std::fabs(w[i][k]) > std::fabs(w[piv][k])) piv = i;
    if (w[piv][k] == 0.0) cuskimage::detail::fail("transform", "singular matrix");
    if (piv != k)
      for (int j = 0; j < 6; ++j) std::swap(w[k][j], w[piv][j]);
    const double d = w[k][k];
    for (int j = 0; j < 6; ++j) w[k][j] /= d;
    for (int i = 0; i < 3; ++i)
      if (i != k) {
        const double f = w[i][k];
        for (int j = 0; j < 6; ++j) w[i][j] -= f * w[k][j];
      }
  }
  Mat3 r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) r.m[3 * i + j] = w[i][j + 3];
  return r;
}

Mat3 translation(double tx, double ty) { return Mat3{{1, 0, tx, 0, 1, ty, 0, 0, 1}}; }

}  // namespace detail

Array rotate(const Array& image, double angle, const RotateOptions& opts, const Stream& stream) {
  using namespace detail;
  constexpr std::string_view fn = "transform.rotate";
  cuskimage::detail::expect_valid(image, fn, "image");
  cuskimage::detail::expect(image.ndim() >= 2, fn, "image", "must be at least 2-D, got ", image.ndim(), "-D");
  const double rows = static_cast<double>(image.shape(0)), cols = static_cast<double>(image.shape(1));
  const double cx = opts.center ? (*opts.center)[0] : cols / 2.0 - 0.5;
  const double cy = opts.center ? (*opts.center)[1] : rows / 2.0 - 0.5;
  const double th = angle * (M_PI / 180.0);  // np.deg2rad
  const double co = std::cos(th), si = std::sin(th);
  const Mat3 rot{{co, -si, 0, si, co, 0, 0, 0, 1}};
  // tform3 + tform2 + tform1 = T(c) @ (R @ T(-c)).
  Mat3 t = mat3_mul(translation(cx, cy), mat3_mul(rot, translation(-cx, -cy)));
  WarpOptions wo = warp_options_of(opts);
  if (opts.resize) {
    const Mat3 inv = mat3_inv(t);
    const double corners[4][2] = {{0, 0}, {0, rows - 1}, {cols - 1, rows - 1}, {cols - 1, 0}};
    double minc = INFINITY, minr = INFINITY, maxc = -INFINITY, maxr = -INFINITY;
    for (const auto& p : corners) {
      double r, c;
      homogeneous_source(inv.m, p[1], p[0], r, c);
      minc = std::fmin(minc, c), maxc = std::fmax(maxc, c);
      minr = std::fmin(minr, r), maxr = std::fmax(maxr, r);
    }
    // np.around: half to even.
    wo.output_shape = {static_cast<std::int64_t>(std::nearbyint(maxr - minr + 1)),
                       static_cast<std::int64_t>(std::nearbyint(maxc - minc + 1))};
    if (image.ndim() == 3) wo.output_shape.push_back(image.shape(2));
    t = mat3_mul(t, translation(minc, minr));  // tform4 + tform
  }
  t.m[6] = 0, t.m[7] = 0, t.m[8] = 1;
  const Array m = Array::from_vector(std::vector<double>(t.m, t.m + 9), {3, 3});
  return warp(image, m, wo, stream);
}

}  // namespace cuskimage::transform
