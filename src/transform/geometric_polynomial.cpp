// PolynomialTransform (2-D) as scikit-image 0.26: params (2, u / 2) with u = (order + 1)(order + 2),
// the terms x^(j - i) y^i for j = 0..order, i = 0..j, estimated by total least squares (SVD).
#include <cmath>
#include <string>

#include "src/transform/geometric_linalg.hpp"

namespace cuskimage::transform {

using detail::Mat;
using detail::Vec;

namespace {

/// The order whose term count is `terms` (u / 2); -1 when it is no triangular number.
int order_of(std::int64_t terms) {
  for (int o = 0; (o + 1) * (o + 2) / 2 <= terms; ++o)
    if ((o + 1) * (o + 2) / 2 == terms) return o;
  return -1;
}

/// x^(j - i) y^i as numpy's ** of floats (std::pow; pow(0, 0) == 1).
double term(double x, double y, int j, int i) { return std::pow(x, j - i) * std::pow(y, i); }

void check_dim(std::optional<int> dimensionality) {
  if (dimensionality && *dimensionality != 2)
    throw NotSupported("Polynomial transforms are only implemented for 2D.");
}

}  // namespace

PolynomialTransform::PolynomialTransform(int dimensionality) : params_(2, 3, {0, 1, 0, 0, 0, 1}) {
  check_dim(dimensionality);
}

PolynomialTransform::PolynomialTransform(Matrix params, std::optional<int> dimensionality)
    : params_(std::move(params)) {
  check_dim(dimensionality);
  if (params_.rows != 2) throw InvalidArgument("Transformation parameters must be shape (2, N)");
  if (order_of(params_.cols) < 0)
    throw InvalidArgument("PolynomialTransform: " + std::to_string(params_.cols) +
                          " terms per row is no (order + 1)(order + 2) / 2");
}

Array PolynomialTransform::operator()(const Array& coords) const {
  const Mat c = detail::coords_of(coords, 2, "PolynomialTransform");
  const int order = order_of(params_.cols);
  Mat out = Mat::Zero(c.rows(), 2);
  for (Eigen::Index n = 0; n < c.rows(); ++n) {
    std::int64_t pidx = 0;
    for (int j = 0; j <= order; ++j)
      for (int i = 0; i <= j; ++i, ++pidx) {
        const double t = term(c(n, 0), c(n, 1), j, i);
        out(n, 0) += params_(0, pidx) * t;
        out(n, 1) += params_(1, pidx) * t;
      }
  }
  return detail::to_array(out);
}

std::shared_ptr<GeometricTransform> PolynomialTransform::inverse() const {
  throw NotSupported(
      "There is no explicit way to do the inverse polynomial transformation. Instead, estimate the inverse "
      "transformation parameters by exchanging source and destination coordinates,then apply the forward "
      "transformation.");
}

bool PolynomialTransform::estimate(const Array& src_a, const Array& dst_a, int order, const Array& weights) {
  detail::check_points(src_a, dst_a, "PolynomialTransform");
  if (src_a.shape(1) != 2) throw NotSupported("Polynomial transforms are only implemented for 2D.");
  if (order < 0) throw InvalidArgument("PolynomialTransform: order must be non-negative");
  const Mat src = detail::to_eigen(src_a);
  const Mat dst = detail::to_eigen(dst_a);
  const Eigen::Index rows = src.rows();
  const Eigen::Index u = static_cast<Eigen::Index>(order + 1) * (order + 2);
  // Fewer equations than unknowns: numpy's SVD would return an arbitrary null vector.
  if (2 * rows < u) {
    params_ = Matrix(2, u / 2, detail::kNaN);
    return false;
  }
  Mat a = Mat::Zero(rows * 2, u + 1);
  Eigen::Index pidx = 0;
  for (int j = 0; j <= order; ++j)
    for (int i = 0; i <= j; ++i, ++pidx)
      for (Eigen::Index n = 0; n < rows; ++n) {
        const double t = term(src(n, 0), src(n, 1), j, i);
        a(n, pidx) = t;
        a(rows + n, pidx + u / 2) = t;
      }
  a.block(0, u, rows, 1) = dst.col(0);
  a.block(rows, u, rows, 1) = dst.col(1);
  if (weights.valid()) {
    const Vec w = detail::weights_of(weights, rows, "PolynomialTransform");
    const Vec sw = (w / w.maxCoeff()).cwiseSqrt();
    for (int k = 0; k < 2; ++k) a.middleRows(k * rows, rows) = sw.asDiagonal() * a.middleRows(k * rows, rows);
  }
  const Vec v = detail::last_right_singular_vector(a);
  params_ = Matrix(2, u / 2);
  for (Eigen::Index k = 0; k < u; ++k) params_.data[static_cast<std::size_t>(k)] = -v(k) / v(u);
  return true;
}

Estimated<PolynomialTransform> PolynomialTransform::from_estimate(const Array& src, const Array& dst, int order,
                                                                  const Array& weights) {
  PolynomialTransform tf;
  if (!tf.estimate(src, dst, order, weights)) {
    const std::int64_t u = static_cast<std::int64_t>(order + 1) * (order + 2);
    return Estimated<PolynomialTransform>::failure("PolynomialTransform: Too few points: " +
                                                   std::to_string(src.shape(0)) + " given, " +
                                                   std::to_string(u / 2) + " needed");
  }
  return tf;
}

}  // namespace cuskimage::transform
