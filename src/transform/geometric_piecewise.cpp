// PiecewiseAffineTransform as scikit-image 0.26: an AffineTransform per Delaunay simplex of src (and
// of dst for the inverse); points in no simplex map to -1. find_simplex tests each simplex in order
// with scipy's barycentric transforms and tolerance (eps = 100 * DBL_EPSILON); scipy walks the mesh
// instead, which can only pick another simplex for a point on a shared face, where both maps agree.
#include <cmath>
#include <limits>
#include <string>

#include "src/transform/geometric_linalg.hpp"

namespace cuskimage::transform {

using detail::Mat;

namespace {

constexpr double kEps = 100 * std::numeric_limits<double>::epsilon();

/// scipy's Delaunay.transform of one simplex: rows 0..D-1 the inverse of T (T[:, j] = r_j - r_D),
/// row D the vertex r_D; NaN where T is singular.
Matrix barycentric_of(const Mat& pts, const std::vector<std::int64_t>& s) {
  const Eigen::Index d = pts.cols();
  Mat t(d, d);
  for (Eigen::Index j = 0; j < d; ++j) t.col(j) = (pts.row(s[static_cast<std::size_t>(j)]) - pts.row(s.back())).transpose();
  Mat out(d + 1, d);
  Eigen::FullPivLU<Mat> lu(t);
  if (lu.isInvertible() && lu.rcond() > std::numeric_limits<double>::epsilon()) out.topRows(d) = lu.inverse();
  else out.topRows(d).setConstant(detail::kNaN);
  out.row(d) = pts.row(s.back());
  return detail::from_eigen(out);
}

PiecewiseAffineTransform::Mesh mesh_of(const Mat& pts) {
  PiecewiseAffineTransform::Mesh mesh = delaunay(detail::from_eigen(pts));
  for (const auto& s : mesh.simplices) mesh.barycentric.push_back(barycentric_of(pts, s));
  return mesh;
}

Array rows_of(const Mat& pts, const std::vector<std::int64_t>& idx) {
  Mat out(static_cast<Eigen::Index>(idx.size()), pts.cols());
  for (std::size_t i = 0; i < idx.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = pts.row(idx[i]);
  return detail::to_array(out);
}

}  // namespace

std::vector<std::int64_t> PiecewiseAffineTransform::Mesh::find_simplex(const Matrix& coords) const {
  const Eigen::Index d = points.cols;
  std::vector<std::int64_t> out(static_cast<std::size_t>(coords.rows), -1);
  std::vector<double> c(static_cast<std::size_t>(d) + 1);
  for (std::int64_t n = 0; n < coords.rows; ++n) {
    for (std::size_t k = 0; k < simplices.size(); ++k) {
      const Matrix& tr = barycentric[k];
      double last = 1.0;
      bool inside = true;
      for (Eigen::Index i = 0; i < d && inside; ++i) {
        double ci = 0.0;
        for (Eigen::Index j = 0; j < d; ++j) ci += tr(i, j) * (coords(n, j) - tr(d, j));
        last -= ci;
        inside = ci >= -kEps && ci <= 1 + kEps;  // false for NaN (degenerate simplex)
      }
      if (inside && last >= -kEps && last <= 1 + kEps) {
        out[static_cast<std::size_t>(n)] = static_cast<std::int64_t>(k);
        break;
      }
    }
  }
  return out;
}

std::optional<std::string> PiecewiseAffineTransform::estimate_impl(const Array& src_a, const Array& dst_a) {
  if (!src_a.valid() || !dst_a.valid() || src_a.ndim() != 2 || dst_a.ndim() != 2)
    throw InvalidArgument("PiecewiseAffineTransform: src and dst must be (N, D) arrays");
  if (src_a.shape() != dst_a.shape()) throw InvalidArgument("PiecewiseAffineTransform: src and dst shapes must be identical.");
  const Mat src = detail::to_eigen(src_a);
  const Mat dst = detail::to_eigen(dst_a);
  dim_ = static_cast<int>(src.cols());
  std::string messages;
  const auto fit = [&](const Mesh& mesh, const Mat& from, const Mat& to, std::vector<AffineTransform>& out,
                       const char* which) {
    out.clear();
    for (std::size_t i = 0; i < mesh.simplices.size(); ++i) {
      auto affine = AffineTransform::from_estimate(rows_of(from, mesh.simplices[i]), rows_of(to, mesh.simplices[i]));
      if (affine) {
        out.push_back(std::move(affine).value());
        continue;
      }
      messages += (messages.empty() ? "" : "; ") + std::string("Failure at ") + which + " simplex " +
                  std::to_string(i) + ": " + affine.message;
      out.emplace_back(Matrix(dim_ + 1, dim_ + 1, detail::kNaN));
    }
  };
  mesh_ = mesh_of(src);
  fit(mesh_, src, dst, affines_, "forward");
  inverse_mesh_ = mesh_of(dst);
  fit(inverse_mesh_, dst, src, inverse_affines_, "inverse");
  if (!messages.empty()) return messages;
  return std::nullopt;
}

bool PiecewiseAffineTransform::estimate(const Array& src, const Array& dst) {
  return !estimate_impl(src, dst).has_value();
}

Estimated<PiecewiseAffineTransform> PiecewiseAffineTransform::from_estimate(const Array& src, const Array& dst) {
  PiecewiseAffineTransform tf;
  auto msg = tf.estimate_impl(src, dst);
  return detail::finish(std::move(tf), msg);
}

Array PiecewiseAffineTransform::operator()(const Array& coords) const {
  const Mat c = detail::coords_of(coords, dim_, name().c_str());
  Mat out = Mat::Constant(c.rows(), c.cols(), -1.0);
  if (mesh_.simplices.empty()) return detail::to_array(out);  // never estimated: everything outside
  const std::vector<std::int64_t> simplex = mesh_.find_simplex(detail::from_eigen(c));
  for (Eigen::Index n = 0; n < c.rows(); ++n) {
    const std::int64_t s = simplex[static_cast<std::size_t>(n)];
    if (s < 0) continue;
    const Mat m = detail::to_eigen(affines_[static_cast<std::size_t>(s)].params());
    out.row(n) = detail::apply_homogeneous(m, c.row(n));
  }
  return detail::to_array(out);
}

std::shared_ptr<GeometricTransform> PiecewiseAffineTransform::inverse() const {
  auto tf = std::make_shared<PiecewiseAffineTransform>();
  tf->dim_ = dim_;
  tf->mesh_ = inverse_mesh_;
  tf->inverse_mesh_ = mesh_;
  tf->affines_ = inverse_affines_;
  tf->inverse_affines_ = affines_;
  return tf;
}

}  // namespace cuskimage::transform
