// ThinPlateSplineTransform (2-D) as scikit-image 0.26: kernel U(r) = r^2 log(r^2 + 1e-8) (0 at r = 0),
// the (N + 3) system solved in float64 from a float32 matrix L (scikit-image builds L as float32).
#include <cmath>
#include <string>

#include "src/transform/geometric_linalg.hpp"

namespace cuskimage::transform {

using detail::Mat;

namespace {

double kernel(double r) {
  const double r2 = r * r;
  return r == 0.0 ? 0.0 : r2 * std::log(r2 + 1e-8);
}

/// U(|a_i - b_j|) for every pair (scipy's distance_matrix: the 2-norm of the difference).
Mat radial(const Mat& a, const Mat& b) {
  Mat k(a.rows(), b.rows());
  for (Eigen::Index i = 0; i < a.rows(); ++i)
    for (Eigen::Index j = 0; j < b.rows(); ++j) k(i, j) = kernel((a.row(i) - b.row(j)).norm());
  return k;
}

}  // namespace

std::optional<std::string> ThinPlateSplineTransform::estimate_impl(const Array& src_a, const Array& dst_a) {
  if (!src_a.valid() || src_a.ndim() != 2) throw InvalidArgument("The parameter `src` must be a 2-dimensional array");
  if (!dst_a.valid() || dst_a.ndim() != 2) throw InvalidArgument("The parameter `dst` must be a 2-dimensional array");
  if (src_a.size() == 0) throw InvalidArgument("The parameter `src` cannot be an empty array");
  if (dst_a.size() == 0) throw InvalidArgument("The parameter `dst` cannot be an empty array");
  if (src_a.shape(0) < 3 || dst_a.shape(0) < 3) throw InvalidArgument("Need at least 3 points in in `src` and `dst`");
  if (src_a.shape() != dst_a.shape())
    throw InvalidArgument("Shape of `src` and `dst` didn't match, (" + std::to_string(src_a.shape(0)) + ", " +
                          std::to_string(src_a.shape(1)) + ") != (" + std::to_string(dst_a.shape(0)) + ", " +
                          std::to_string(dst_a.shape(1)) + ")");
  if (src_a.shape(1) != 2) throw InvalidArgument("ThinPlateSplineTransform: points must be 2-D (N, 2)");
  const Mat src = detail::to_eigen(src_a);
  const Mat dst = detail::to_eigen(dst_a);
  const Eigen::Index n = src.rows();
  Mat l = Mat::Zero(n + 3, n + 3);
  l.topLeftCorner(n, n) = radial(src, src);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double p[3] = {1.0, src(i, 0), src(i, 1)};
    for (int j = 0; j < 3; ++j) l(i, n + j) = l(n + j, i) = p[j];
  }
  l = l.cast<float>().cast<double>();
  Mat v = Mat::Zero(n + 3, 2);
  v.topRows(n) = dst;
  // numpy.linalg.solve (LAPACK gesv) fails only on an exactly zero pivot.
  Eigen::PartialPivLU<Mat> lu(l);
  for (Eigen::Index i = 0; i < l.rows(); ++i)
    if (lu.matrixLU()(i, i) == 0.0) return "Unable to solve for spline mappings";
  src_ = detail::from_eigen(src);
  mappings_ = detail::from_eigen(lu.solve(v));
  return std::nullopt;
}

bool ThinPlateSplineTransform::estimate(const Array& src, const Array& dst) {
  return !estimate_impl(src, dst).has_value();
}

Estimated<ThinPlateSplineTransform> ThinPlateSplineTransform::from_estimate(const Array& src, const Array& dst) {
  ThinPlateSplineTransform tf;
  auto msg = tf.estimate_impl(src, dst);
  return detail::finish(std::move(tf), msg);
}

Array ThinPlateSplineTransform::operator()(const Array& coords) const {
  if (mappings_.rows == 0)
    throw InvalidArgument("Transformation is undefined, define it by calling `estimate` before applying it");
  if (!coords.valid() || coords.ndim() != 2 || coords.shape(1) != 2)
    throw InvalidArgument("Input `coords` must have shape (N, 2)");
  const Mat c = detail::to_eigen(coords);
  const Mat m = detail::to_eigen(mappings_);
  const Mat src = detail::to_eigen(src_);
  const Eigen::Index n = src.rows();
  // Point by point (scikit-image forms the whole (N, n) kernel matrix; a warp's N is the image size).
  Mat out(c.rows(), 2);
  for (Eigen::Index p = 0; p < c.rows(); ++p) {
    Eigen::RowVector2d acc = m.row(n) + c(p, 0) * m.row(n + 1) + c(p, 1) * m.row(n + 2);
    for (Eigen::Index k = 0; k < n; ++k) acc += kernel((c.row(p) - src.row(k)).norm()) * m.row(k);
    out.row(p) = acc;
  }
  return detail::to_array(out);
}

std::shared_ptr<GeometricTransform> ThinPlateSplineTransform::inverse() const { throw NotSupported("Not supported"); }

}  // namespace cuskimage::transform
