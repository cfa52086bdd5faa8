// Matrix, the base class's residuals and the Eigen helpers the geometric transforms share.
#include "src/transform/geometric_linalg.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace cuskimage::transform {

Matrix::Matrix(std::int64_t r, std::int64_t c, double fill)
    : rows(r), cols(c), data(static_cast<std::size_t>(r * c), fill) {}

Matrix::Matrix(std::int64_t r, std::int64_t c, std::vector<double> values)
    : rows(r), cols(c), data(std::move(values)) {
  if (r < 0 || c < 0 || static_cast<std::int64_t>(data.size()) != r * c)
    throw InvalidArgument("Matrix: " + std::to_string(data.size()) + " values for shape (" + std::to_string(r) +
                          ", " + std::to_string(c) + ")");
}

Matrix Matrix::identity(std::int64_t n) {
  Matrix m(n, n);
  for (std::int64_t i = 0; i < n; ++i) m(i, i) = 1.0;
  return m;
}

Matrix Matrix::from_array(const Array& a) {
  if (!a.valid() || a.ndim() < 1 || a.ndim() > 2)
    throw InvalidArgument("Matrix::from_array: expected a 1-D or 2-D array");
  if (a.dtype() == DType::bool_ || !(is_floating(a.dtype()) || is_integer(a.dtype())))
    throw InvalidArgument("Matrix::from_array: expected a real array");
  const std::int64_t r = a.ndim() == 2 ? a.shape(0) : 1;
  const std::int64_t c = a.shape(a.ndim() - 1);
  return Matrix(r, c, a.to_vector<double>());
}

Array Matrix::to_array() const { return Array::from_vector(data, Shape{rows, cols}); }

Matrix matmul(const Matrix& a, const Matrix& b) {
  if (a.cols != b.rows)
    throw InvalidArgument("matmul: shapes (" + std::to_string(a.rows) + ", " + std::to_string(a.cols) + ") and (" +
                          std::to_string(b.rows) + ", " + std::to_string(b.cols) + ") do not align");
  return detail::from_eigen(detail::to_eigen(a) * detail::to_eigen(b));
}

Array GeometricTransform::residuals(const Array& src, const Array& dst) const {
  const detail::Mat d = detail::coords_of(dst, dimensionality(), "residuals");
  const detail::Mat t = detail::to_eigen((*this)(src));
  if (t.rows() != d.rows()) throw InvalidArgument("residuals: src and dst must have the same number of points");
  std::vector<double> out(static_cast<std::size_t>(d.rows()));
  for (Eigen::Index i = 0; i < d.rows(); ++i) out[static_cast<std::size_t>(i)] = (t.row(i) - d.row(i)).norm();
  return Array::from_vector(out, Shape{d.rows()});
}

namespace detail {

Mat to_eigen(const Matrix& m) {
  Mat out(m.rows, m.cols);
  std::copy(m.data.begin(), m.data.end(), out.data());
  return out;
}

Matrix from_eigen(const Mat& m) {
  return Matrix(m.rows(), m.cols(), std::vector<double>(m.data(), m.data() + m.size()));
}

Array to_array(const Mat& m) {
  Array out = Array::empty(Shape{m.rows(), m.cols()}, DType::float64);
  std::copy(m.data(), m.data() + m.size(), out.data<double>());
  return out;
}

Mat to_eigen(const Array& a) {
  // Host contiguous float64 (the usual coordinates) is copied once; anything else goes through astype.
  if (a.valid() && (a.ndim() == 1 || a.ndim() == 2) && a.device().is_cpu() && a.dtype() == DType::float64 &&
      a.is_contiguous()) {
    Mat m(a.ndim() == 2 ? a.shape(0) : 1, a.shape(a.ndim() - 1));
    std::copy(a.data<double>(), a.data<double>() + m.size(), m.data());
    return m;
  }
  return to_eigen(Matrix::from_array(a));
}

void check_points(const Array& src, const Array& dst, const char* fn) {
  if (!src.valid() || !dst.valid() || src.ndim() != 2 || dst.ndim() != 2)
    throw InvalidArgument(std::string(fn) + ": src and dst must be (N, D) arrays");
  if (src.shape() != dst.shape())
    throw InvalidArgument(std::string(fn) + ": src and dst shapes must be identical.");
}

Mat coords_of(const Array& coords, int dim, const char* fn) {
  if (!coords.valid() || coords.ndim() < 1 || coords.ndim() > 2)
    throw InvalidArgument(std::string(fn) + ": coords must be an (N, D) array");
  // numpy's ndmin=2: one point may come as a 1-D array.
  Mat m = to_eigen(coords);
  if (dim >= 0 && m.cols() != dim)
    throw InvalidArgument(std::string(fn) + ": coords must have " + std::to_string(dim) +
                          " columns, not " + std::to_string(m.cols()));
  return m;
}

Vec weights_of(const Array& weights, Eigen::Index n, const char* fn) {
  const Mat w = to_eigen(weights);
  if (w.size() != n)
    throw InvalidArgument(std::string(fn) + ": weights must have one value per point (" + std::to_string(n) + ")");
  Vec v = Eigen::Map<const Vec>(w.data(), w.size());
  if ((v.array() < 0).any()) throw InvalidArgument(std::string(fn) + ": weights must be non-negative");
  return v;
}

Mat append_ones(const Mat& points) {
  Mat h(points.rows(), points.cols() + 1);
  h.leftCols(points.cols()) = points;
  h.col(points.cols()).setOnes();
  return h;
}

void apply_homogeneous(const double* m, Eigen::Index d, const double* point, double* out) {
  double div = m[d * (d + 1) + d];
  for (Eigen::Index j = 0; j < d; ++j) div += m[d * (d + 1) + j] * point[j];
  if (div == 0.0) div = std::numeric_limits<double>::epsilon();
  for (Eigen::Index i = 0; i < d; ++i) {
    double acc = m[i * (d + 1) + d];
    for (Eigen::Index j = 0; j < d; ++j) acc += m[i * (d + 1) + j] * point[j];
    out[i] = acc / div;
  }
}

Mat apply_homogeneous(const Mat& m, const Mat& points) {
  const Eigen::Index d = points.cols();
  Mat out(points.rows(), d);
  for (Eigen::Index n = 0; n < points.rows(); ++n) apply_homogeneous(m.data(), d, points.row(n).data(), out.row(n).data());
  return out;
}

Mat center_normalize_matrix(const Mat& points, bool mrs) {
  const Eigen::Index n = points.rows();
  const Eigen::Index d = points.cols();
  Mat m = Mat::Identity(d + 1, d + 1);
  const Eigen::RowVectorXd centroid = points.colwise().mean();
  const Mat centered = points.rowwise() - centroid;
  double divisor = 0.0;
  if (mrs) divisor = centered.rowwise().norm().mean() / std::sqrt(static_cast<double>(d));
  else divisor = std::sqrt(centered.array().square().sum() / static_cast<double>(n * d));
  // numpy's mean of no points is NaN: the same sentinel as identical points.
  if (divisor == 0.0 || n == 0) return Mat::Constant(d + 1, d + 1, kNaN);
  m.block(0, d, d, 1) = -centroid.transpose();
  m.topRows(d) /= divisor;
  return m;
}

Mat umeyama(const Mat& src, const Mat& dst, bool estimate_scale) {
  const Eigen::Index num = src.rows();
  const Eigen::Index dim = src.cols();
  if (num == 0) throw InvalidArgument("SVD did not converge");  // numpy's LinAlgError on NaN
  const Eigen::RowVectorXd src_mean = src.colwise().mean();
  const Eigen::RowVectorXd dst_mean = dst.colwise().mean();
  const Mat src_demean = src.rowwise() - src_mean;
  const Mat dst_demean = dst.rowwise() - dst_mean;
  const Mat a = dst_demean.transpose() * src_demean / static_cast<double>(num);
  Vec d = Vec::Ones(dim);
  if (a.determinant() < 0) d(dim - 1) = -1;
  Mat t = Mat::Identity(dim + 1, dim + 1);
  Eigen::JacobiSVD<Mat> svd(a, Eigen::ComputeFullU | Eigen::ComputeFullV);
  const Mat u = svd.matrixU();
  const Mat vh = svd.matrixV().transpose();
  const Vec s = svd.singularValues();
  const double tol = s.maxCoeff() * static_cast<double>(dim) * std::numeric_limits<double>::epsilon();
  const Eigen::Index rank = (s.array() > tol).count();
  if (rank == 0) return Mat::Constant(dim + 1, dim + 1, kNaN);
  if (rank == dim - 1) {
    if (u.determinant() * vh.determinant() > 0) {
      t.topLeftCorner(dim, dim) = u * vh;
    } else {
      Vec dd = d;
      dd(dim - 1) = -1;
      t.topLeftCorner(dim, dim) = u * dd.asDiagonal() * vh;
    }
  } else {
    t.topLeftCorner(dim, dim) = u * d.asDiagonal() * vh;
  }
  double scale = 1.0;
  if (estimate_scale) {
    const double var = src_demean.array().square().sum() / static_cast<double>(num);
    scale = 1.0 / var * s.dot(d);
  }
  const Mat rot = t.topLeftCorner(dim, dim);
  t.block(0, dim, dim, 1) = dst_mean.transpose() - scale * (rot * src_mean.transpose());
  t.topLeftCorner(dim, dim) *= scale;
  return t;
}

Vec last_right_singular_vector(const Mat& a) {
  Eigen::JacobiSVD<Mat> svd(a, Eigen::ComputeFullV);
  return svd.matrixV().col(a.cols() - 1);
}

Mat inverse(const Mat& m) {
  Eigen::PartialPivLU<Mat> lu(m);
  const Mat& packed = lu.matrixLU();
  for (Eigen::Index i = 0; i < packed.rows(); ++i)
    if (packed(i, i) == 0.0) throw InvalidArgument("Singular matrix");
  return lu.inverse();
}

bool all_finite(const Mat& m) { return m.allFinite(); }

Matrix checked_hmatrix(Matrix m, std::optional<int> dimensionality, int min_d, int max_d, const std::string& cls) {
  if (dimensionality && *dimensionality != m.rows - 1)
    throw InvalidArgument("Dimensionality " + std::to_string(*dimensionality) + " does not match matrix of shape (" +
                          std::to_string(m.rows) + ", " + std::to_string(m.cols) + ")");
  if (m.rows != m.cols) throw InvalidArgument("Invalid shape of transformation matrix");
  if (m.rows - 1 < min_d || m.rows - 1 > max_d)
    throw NotSupported("Input for " + cls + " should result in " +
                       (min_d == max_d ? std::to_string(min_d) + "D transform" : "transform of >=2D"));
  return m;
}

}  // namespace detail
}  // namespace cuskimage::transform
