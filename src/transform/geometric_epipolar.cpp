// FundamentalMatrixTransform and EssentialMatrixTransform as scikit-image 0.26: the normalised
// eight-point algorithm, then the rank-2 (fundamental) or equal-singular-values (essential)
// constraint. The null vector of the constraint matrix has no sign of its own, so params agree with
// scikit-image's up to a factor of -1.
#include <cmath>
#include <string>

#include "src/transform/geometric_linalg.hpp"

namespace cuskimage::transform {

using detail::Mat;
using detail::Vec;

namespace {

struct Constraint {
  Mat f_normalized;  // 3x3, NaN when scaling failed
  Mat src_matrix;
  Mat dst_matrix;
};

/// scikit-image's _setup_constraint_matrix.
Constraint setup_constraint(const Array& src_a, const Array& dst_a) {
  if (!src_a.valid() || !dst_a.valid() || src_a.ndim() != 2 || dst_a.ndim() != 2)
    throw InvalidArgument("src and dst must be (N, 2) arrays");
  if (src_a.shape(1) != 2 || dst_a.shape(1) != 2)
    throw NotSupported("Input for FundamentalMatrixTransform should result in 2D transform");
  if (src_a.shape() != dst_a.shape()) throw InvalidArgument("src and dst shapes must be identical.");
  if (src_a.shape(0) < 8) throw InvalidArgument("src.shape[0] must be equal or larger than 8.");
  const Mat src = detail::to_eigen(src_a);
  const Mat dst = detail::to_eigen(dst_a);
  Constraint c;
  c.src_matrix = detail::center_normalize_matrix(src);
  c.dst_matrix = detail::center_normalize_matrix(dst);
  if (!detail::all_finite(c.src_matrix + c.dst_matrix)) {
    c.f_normalized = Mat::Constant(3, 3, detail::kNaN);
    return c;
  }
  const Mat sh = detail::append_ones(detail::apply_homogeneous(c.src_matrix, src));
  const Mat dh = detail::append_ones(detail::apply_homogeneous(c.dst_matrix, dst));
  // Columns d_i * s_j in the order (i, j): uu', vu', u', uv', vv', v', u, v, 1.
  Mat a(src.rows(), 9);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) a.col(i * 3 + j) = dh.col(i).cwiseProduct(sh.col(j));
  const Vec v = detail::last_right_singular_vector(a);
  c.f_normalized = Eigen::Map<const Mat>(v.data(), 3, 3);
  return c;
}

/// U diag(S) V^T after `fix` edits the singular values, then de-normalised.
template <class Fix>
Matrix constrained(const Constraint& c, Fix fix) {
  Eigen::JacobiSVD<Mat> svd(c.f_normalized, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Vec s = svd.singularValues();
  fix(s);
  const Mat f = svd.matrixU() * s.asDiagonal() * svd.matrixV().transpose();
  return detail::from_eigen(c.dst_matrix.transpose() * f * c.src_matrix);
}

}  // namespace

FundamentalMatrixTransform::FundamentalMatrixTransform(int dimensionality)
    : params_(detail::checked_hmatrix(Matrix::identity(dimensionality + 1), std::nullopt, 2, 2, "FundamentalMatrixTransform")) {}

FundamentalMatrixTransform::FundamentalMatrixTransform(Matrix matrix, std::optional<int> dimensionality)
    : params_(detail::checked_hmatrix(std::move(matrix), dimensionality, 2, 2, "FundamentalMatrixTransform")) {}

Array FundamentalMatrixTransform::operator()(const Array& coords) const {
  const Mat c = detail::coords_of(coords, 2, name().c_str());
  return detail::to_array(detail::append_ones(c) * detail::to_eigen(params_).transpose());
}

std::shared_ptr<GeometricTransform> FundamentalMatrixTransform::inverse() const {
  return std::make_shared<FundamentalMatrixTransform>(detail::from_eigen(detail::to_eigen(params_).transpose()));
}

std::shared_ptr<GeometricTransform> EssentialMatrixTransform::inverse() const {
  return std::make_shared<EssentialMatrixTransform>(detail::from_eigen(detail::to_eigen(params_).transpose()));
}

Array FundamentalMatrixTransform::residuals(const Array& src_a, const Array& dst_a) const {
  const Mat sh = detail::append_ones(detail::coords_of(src_a, 2, "residuals"));
  const Mat dh = detail::append_ones(detail::coords_of(dst_a, 2, "residuals"));
  if (sh.rows() != dh.rows()) throw InvalidArgument("residuals: src and dst must have the same number of points");
  const Mat f = detail::to_eigen(params_);
  const Mat f_src = f * sh.transpose();
  const Mat ft_dst = f.transpose() * dh.transpose();
  std::vector<double> out(static_cast<std::size_t>(sh.rows()));
  for (Eigen::Index i = 0; i < sh.rows(); ++i) {
    const double num = std::abs(dh.row(i).dot(f_src.col(i).transpose()));
    out[static_cast<std::size_t>(i)] =
        num / std::sqrt(f_src(0, i) * f_src(0, i) + f_src(1, i) * f_src(1, i) + ft_dst(0, i) * ft_dst(0, i) +
                        ft_dst(1, i) * ft_dst(1, i));
  }
  return Array::from_vector(out, Shape{sh.rows()});
}

std::optional<std::string> FundamentalMatrixTransform::estimate_impl(const Array& src, const Array& dst) {
  const Constraint c = setup_constraint(src, dst);
  if (!detail::all_finite(c.f_normalized + c.src_matrix + c.dst_matrix)) {
    params_ = Matrix(3, 3, detail::kNaN);
    return "Scaling failed for input points";
  }
  params_ = constrained(c, [](Vec& s) { s(2) = 0.0; });
  return std::nullopt;
}

std::optional<std::string> EssentialMatrixTransform::estimate_impl(const Array& src, const Array& dst) {
  const Constraint c = setup_constraint(src, dst);
  if (!detail::all_finite(c.f_normalized + c.src_matrix + c.dst_matrix)) {
    params_ = Matrix(3, 3, detail::kNaN);
    return "Scaling failed for input points";
  }
  params_ = constrained(c, [](Vec& s) {
    s(0) = (s(0) + s(1)) / 2.0;
    s(1) = s(0);
    s(2) = 0.0;
  });
  return std::nullopt;
}

bool FundamentalMatrixTransform::estimate(const Array& src, const Array& dst) {
  return !estimate_impl(src, dst).has_value();
}

Estimated<FundamentalMatrixTransform> FundamentalMatrixTransform::from_estimate(const Array& src, const Array& dst) {
  FundamentalMatrixTransform tf(detail::estimation_dim(src));
  auto msg = tf.estimate_impl(src, dst);
  return detail::finish(std::move(tf), msg);
}

Estimated<EssentialMatrixTransform> EssentialMatrixTransform::from_estimate(const Array& src, const Array& dst) {
  EssentialMatrixTransform tf(detail::estimation_dim(src));
  auto msg = tf.estimate_impl(src, dst);
  return detail::finish(std::move(tf), msg);
}

EssentialMatrixTransform::EssentialMatrixTransform(const Matrix& rotation, const std::vector<double>& translation)
    : FundamentalMatrixTransform(2) {
  if (rotation.rows != 3 || rotation.cols != 3) throw InvalidArgument("Invalid shape of rotation matrix");
  const Mat r = detail::to_eigen(rotation);
  if (std::abs(r.determinant() - 1.0) > 1e-6) throw InvalidArgument("Rotation matrix must have unit determinant");
  if (translation.size() != 3) throw InvalidArgument("Invalid shape of translation vector");
  const double t0 = translation[0];
  const double t1 = translation[1];
  const double t2 = translation[2];
  if (std::abs(std::sqrt(t0 * t0 + t1 * t1 + t2 * t2) - 1.0) > 1e-6)
    throw InvalidArgument("Translation vector must have unit length");
  Mat t(3, 3);
  t << 0, -t2, t1, t2, 0, -t0, -t1, t0, 0;
  params_ = detail::from_eigen(t * r);
}

}  // namespace cuskimage::transform
