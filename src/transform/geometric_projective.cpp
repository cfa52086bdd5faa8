// The projective family (ProjectiveTransform, AffineTransform, EuclideanTransform,
// SimilarityTransform) and matrix_transform, as scikit-image 0.26's _geometric.py.
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "src/transform/geometric_linalg.hpp"

namespace cuskimage::transform {

using detail::Mat;
using detail::Vec;

namespace {

bool scalar(const std::vector<double>& v) { return v.size() == 1; }

Matrix checked_matrix(Matrix m, std::optional<int> dimensionality) {
  return detail::checked_hmatrix(std::move(m), dimensionality, 2, std::numeric_limits<int>::max(), "ProjectiveTransform");
}

/// scipy's Rotation.from_euler('XYZ', angles): intrinsic rotations about x, then y', then z''.
Mat euler_xyz(const std::vector<double>& a) {
  auto rx = Eigen::AngleAxisd(a[0], Eigen::Vector3d::UnitX());
  auto ry = Eigen::AngleAxisd(a[1], Eigen::Vector3d::UnitY());
  auto rz = Eigen::AngleAxisd(a[2], Eigen::Vector3d::UnitZ());
  return Mat((rx * ry * rz).toRotationMatrix());
}

}  // namespace

// ---- ProjectiveTransform --------------------------------------------------------------------------

ProjectiveTransform::ProjectiveTransform(int dimensionality)
    : params_(checked_matrix(Matrix::identity(dimensionality + 1), std::nullopt)) {}

ProjectiveTransform::ProjectiveTransform(Matrix matrix, std::optional<int> dimensionality)
    : params_(checked_matrix(std::move(matrix), dimensionality)) {}

Array ProjectiveTransform::operator()(const Array& coords) const {
  const Mat pts = detail::coords_of(coords, dimensionality(), name().c_str());
  return detail::to_array(detail::apply_homogeneous(detail::to_eigen(params_), pts));
}

Matrix ProjectiveTransform::inverse_matrix() const {
  return detail::from_eigen(detail::inverse(detail::to_eigen(params_)));
}

std::shared_ptr<GeometricTransform> ProjectiveTransform::inverse() const {
  return std::make_shared<ProjectiveTransform>(inverse_matrix());
}

std::optional<std::string> ProjectiveTransform::estimate_impl(const Array& src_a, const Array& dst_a,
                                                             const Array& weights) {
  detail::check_points(src_a, dst_a, name().c_str());
  const Mat src0 = detail::to_eigen(src_a);
  const Mat dst0 = detail::to_eigen(dst_a);
  const Eigen::Index n = src0.rows();
  const Eigen::Index d = src0.cols();
  if (d < 2) throw NotSupported("Input for " + name() + " should result in transform of >=2D");
  const Eigen::Index p = (d + 1) * (d + 1);
  params_ = Matrix(d + 1, d + 1, detail::kNaN);
  const Mat src_m = detail::center_normalize_matrix(src0);
  const Mat dst_m = detail::center_normalize_matrix(dst0);
  if (!detail::all_finite(src_m + dst_m)) return "Scaling generated NaN values";
  // Fewer equations than unknowns: numpy would hand back an arbitrary null vector (a garbage
  // matrix); this reports the failure instead.
  const Eigen::Index unknowns = affine_only() ? d * (d + 1) : p - 1;
  if (n * d < unknowns)
    return "Too few points: " + std::to_string(n) + " given, " + std::to_string((unknowns + d - 1) / d) + " needed";
  const Mat src = detail::apply_homogeneous(src_m, src0);
  const Mat dst = detail::apply_homogeneous(dst_m, dst0);

  // One row per point and axis k: the k-th row of H (and H's last row times -dst_k) against src_h.
  Mat a = Mat::Zero(n * d, p);
  for (Eigen::Index k = 0; k < d; ++k) {
    for (Eigen::Index i = 0; i < n; ++i) {
      const Eigen::Index r = k * n + i;
      for (Eigen::Index j = 0; j < d; ++j) {
        a(r, k * (d + 1) + j) = src(i, j);
        a(r, p - d - 1 + j) = -dst(i, k) * src(i, j);
      }
      a(r, k * (d + 1) + d) = 1.0;
      a(r, p - 1) = dst(i, k);
    }
  }
  std::vector<Eigen::Index> cols;
  for (Eigen::Index c = 0; c < unknowns; ++c) cols.push_back(c);
  cols.push_back(p - 1);
  Mat sel(a.rows(), static_cast<Eigen::Index>(cols.size()));
  for (std::size_t c = 0; c < cols.size(); ++c) sel.col(static_cast<Eigen::Index>(c)) = a.col(cols[c]);
  if (weights.valid()) {
    const Vec w = detail::weights_of(weights, n, name().c_str());
    const Vec sw = (w / w.maxCoeff()).cwiseSqrt();
    for (Eigen::Index k = 0; k < d; ++k) sel.middleRows(k * n, n) = sw.asDiagonal() * sel.middleRows(k * n, n);
  }
  const Vec v = detail::last_right_singular_vector(sel);
  const double last = v(v.size() - 1);
  if (std::abs(last) <= 1e-8) return "Right singular vector has 0 final element";  // np.isclose(., 0)
  Mat h = Mat::Zero(d + 1, d + 1);
  for (Eigen::Index c = 0; c < unknowns; ++c) h(c / (d + 1), c % (d + 1)) = -v(c) / last;
  h(d, d) = 1.0;
  h = detail::inverse(dst_m) * h * src_m;
  h /= h(d, d);
  params_ = detail::from_eigen(h);
  return std::nullopt;
}

Estimated<ProjectiveTransform> ProjectiveTransform::from_estimate(const Array& src, const Array& dst,
                                                                  const Array& weights) {
  ProjectiveTransform tf(detail::estimation_dim(src));
  auto msg = tf.estimate_impl(src, dst, weights);
  return detail::finish(std::move(tf), msg);
}

bool ProjectiveTransform::estimate(const Array& src, const Array& dst, const Array& weights) {
  return !estimate_impl(src, dst, weights).has_value();
}

// ---- AffineTransform ------------------------------------------------------------------------------

namespace {

Matrix affine_matrix(const TransformParams& p) {
  if (p.dimensionality && *p.dimensionality > 2)
    throw InvalidArgument("Implicit parameters only valid for 2D transforms");
  const std::vector<double> scale = p.scale.value_or(std::vector<double>{1.0, 1.0});
  if (scale.size() != 1 && scale.size() != 2) throw InvalidArgument("scale must be a scalar or length 2");
  const double sx = scale[0];
  const double sy = scale.size() == 1 ? scale[0] : scale[1];
  const std::vector<double> rot = p.rotation.value_or(std::vector<double>{0.0});
  if (!scalar(rot)) throw InvalidArgument("rotation must be scalar (2D rotation)");
  const std::vector<double> shear = p.shear.value_or(std::vector<double>{0.0});
  if (shear.size() != 1 && shear.size() != 2) throw InvalidArgument("shear must be a scalar or length 2");
  const double shx = shear[0];
  const double shy = shear.size() == 1 ? 0.0 : shear[1];
  const std::vector<double> tr = p.translation.value_or(std::vector<double>{0.0, 0.0});
  if (tr.size() != 2) throw InvalidArgument("translation must be length 2");
  const double r = rot[0];
  const double a0 = sx * (std::cos(r) + std::tan(shy) * std::sin(r));
  const double a1 = -sy * (std::tan(shx) * std::cos(r) + std::sin(r));
  const double b0 = sx * (std::sin(r) - std::tan(shy) * std::cos(r));
  const double b1 = -sy * (std::tan(shx) * std::sin(r) - std::cos(r));
  return Matrix(3, 3, {a0, a1, tr[0], b0, b1, tr[1], 0.0, 0.0, 1.0});
}

bool any_implicit(const TransformParams& p) { return p.scale || p.rotation || p.shear || p.translation; }

}  // namespace

AffineTransform::AffineTransform(const TransformParams& p)
    : ProjectiveTransform(any_implicit(p) ? affine_matrix(p) : Matrix::identity(p.dimensionality.value_or(2) + 1),
                          p.dimensionality) {}

Estimated<AffineTransform> AffineTransform::from_estimate(const Array& src, const Array& dst,
                                                          const Array& weights) {
  AffineTransform tf(detail::estimation_dim(src));
  auto msg = tf.estimate_impl(src, dst, weights);
  return detail::finish(std::move(tf), msg);
}

std::shared_ptr<GeometricTransform> AffineTransform::inverse() const {
  return std::make_shared<AffineTransform>(inverse_matrix());
}

std::vector<double> AffineTransform::scale() const {
  const int d = dimensionality();
  std::vector<double> ss(static_cast<std::size_t>(d), 0.0);
  for (int c = 0; c < d; ++c)
    for (int r = 0; r <= d; ++r) ss[static_cast<std::size_t>(c)] += params_(r, c) * params_(r, c);
  if (d == 2) ss[1] /= std::tan(shear()) * std::tan(shear()) + 1.0;
  for (double& s : ss) s = std::sqrt(s);
  return ss;
}

double AffineTransform::rotation() const {
  if (dimensionality() != 2) throw NotSupported("The rotation property is only implemented for 2D transforms.");
  return std::atan2(params_(1, 0), params_(0, 0));
}

double AffineTransform::shear() const {
  if (dimensionality() != 2) throw NotSupported("The shear property is only implemented for 2D transforms.");
  return std::atan2(-params_(0, 1), params_(1, 1)) - rotation();
}

std::vector<double> AffineTransform::translation() const {
  const int d = dimensionality();
  std::vector<double> t;
  for (int r = 0; r < d; ++r) t.push_back(params_(r, d));
  return t;
}

// ---- EuclideanTransform, SimilarityTransform ------------------------------------------------------

Matrix EuclideanTransform::matrix_from(const TransformParams& p, bool with_scale) {
  if (!with_scale && p.scale) throw InvalidArgument("EuclideanTransform takes no scale");
  if (p.shear) throw InvalidArgument(std::string(with_scale ? "Similarity" : "Euclidean") + "Transform takes no shear");
  std::optional<std::size_t> n_dims;
  if (with_scale && p.scale && !scalar(*p.scale)) {
    n_dims = p.scale->size();
  } else if (p.rotation) {
    const std::size_t n = p.rotation->size();
    if (n != 1 && n != 3) throw InvalidArgument("``rotations`` must be scalar (3D) or length 3 (3D)");
    n_dims = n == 1 ? 2 : n;
  } else if (p.translation) {
    n_dims = p.translation->size() == 1 ? 2 : p.translation->size();
  }
  const auto nd = static_cast<Eigen::Index>(n_dims.value_or(static_cast<std::size_t>(p.dimensionality.value_or(2))));
  if (nd < 2) throw NotSupported("Input for EuclideanTransform should result in transform of >=2D");
  Mat m = Mat::Identity(nd + 1, nd + 1);
  if (p.rotation) {
    if (nd == 2 && scalar(*p.rotation)) {
      const double c = std::cos((*p.rotation)[0]);
      const double s = std::sin((*p.rotation)[0]);
      m.topLeftCorner(2, 2) << c, -s, s, c;
    } else if (nd == 3 && p.rotation->size() == 3) {
      m.topLeftCorner(3, 3) = euler_xyz(*p.rotation);
    } else {
      throw InvalidArgument("rotation does not match the transform's " + std::to_string(nd) + " dimensions");
    }
  }
  if (p.translation) {
    if (scalar(*p.translation)) {
      m.block(0, nd, nd, 1).setConstant((*p.translation)[0]);  // numpy broadcasts a scalar
    } else if (static_cast<Eigen::Index>(p.translation->size()) == nd) {
      for (Eigen::Index r = 0; r < nd; ++r) m(r, nd) = (*p.translation)[static_cast<std::size_t>(r)];
    } else {
      throw InvalidArgument("translation must have " + std::to_string(nd) + " values");
    }
  }
  if (with_scale && p.scale && !(scalar(*p.scale) && (*p.scale)[0] == 1.0)) {
    // scikit-image multiplies the D x D block by scale: a vector scales the columns.
    for (Eigen::Index c = 0; c < nd; ++c) {
      const double s = scalar(*p.scale) ? (*p.scale)[0] : (*p.scale)[static_cast<std::size_t>(c)];
      m.block(0, c, nd, 1) *= s;
    }
  }
  return detail::from_eigen(m);
}

EuclideanTransform::EuclideanTransform(const TransformParams& p)
    : ProjectiveTransform(p.rotation || p.translation || p.scale || p.shear
                              ? matrix_from(p, false)
                              : Matrix::identity(p.dimensionality.value_or(2) + 1),
                          p.dimensionality) {}

SimilarityTransform::SimilarityTransform(const TransformParams& p)
    : EuclideanTransform(p.rotation || p.translation || p.scale || p.shear
                             ? matrix_from(p, true)
                             : Matrix::identity(p.dimensionality.value_or(2) + 1),
                         p.dimensionality) {}

std::optional<std::string> EuclideanTransform::estimate_impl(const Array& src, const Array& dst, const Array&) {
  detail::check_points(src, dst, name().c_str());
  if (src.shape(1) < 2) throw NotSupported("Input for " + name() + " should result in transform of >=2D");
  params_ = detail::from_eigen(detail::umeyama(detail::to_eigen(src), detail::to_eigen(dst), estimate_scale()));
  for (double v : params_.data)
    if (std::isnan(v)) return "Poor conditioning for estimation";
  return std::nullopt;
}

bool EuclideanTransform::estimate(const Array& src, const Array& dst) {
  return !estimate_impl(src, dst, Array()).has_value();
}

Estimated<EuclideanTransform> EuclideanTransform::from_estimate(const Array& src, const Array& dst) {
  EuclideanTransform tf(detail::estimation_dim(src));
  auto msg = tf.estimate_impl(src, dst, Array());
  return detail::finish(std::move(tf), msg);
}

Estimated<SimilarityTransform> SimilarityTransform::from_estimate(const Array& src, const Array& dst) {
  SimilarityTransform tf(detail::estimation_dim(src));
  auto msg = tf.estimate_impl(src, dst, Array());
  return detail::finish(std::move(tf), msg);
}

std::shared_ptr<GeometricTransform> EuclideanTransform::inverse() const {
  return std::make_shared<EuclideanTransform>(inverse_matrix());
}

std::shared_ptr<GeometricTransform> SimilarityTransform::inverse() const {
  return std::make_shared<SimilarityTransform>(inverse_matrix());
}

double EuclideanTransform::rotation() const {
  if (dimensionality() != 2) throw NotSupported("Rotation only implemented for 2D and 3D transforms.");
  return std::atan2(params_(1, 0), params_(1, 1));
}

Matrix EuclideanTransform::rotation_matrix() const {
  if (dimensionality() != 3) throw NotSupported("rotation_matrix: the rotation matrix is 3D's");
  return detail::from_eigen(detail::to_eigen(params_).topLeftCorner(3, 3));
}

std::vector<double> EuclideanTransform::translation() const {
  const int d = dimensionality();
  std::vector<double> t;
  for (int r = 0; r < d; ++r) t.push_back(params_(r, d));
  return t;
}

double SimilarityTransform::scale() const {
  const double det = detail::to_eigen(params_).determinant();
  if (dimensionality() == 2) return std::sqrt(det);
  if (dimensionality() == 3) return std::cbrt(det);
  throw NotSupported("Scale is only implemented for 2D and 3D.");
}

// ---- matrix_transform -----------------------------------------------------------------------------

Array matrix_transform(const Array& coords, const Matrix& matrix) { return ProjectiveTransform(matrix)(coords); }

Array matrix_transform(const Array& coords, const Array& matrix) {
  return matrix_transform(coords, Matrix::from_array(matrix));
}

}  // namespace cuskimage::transform
