// PiecewiseAffineTransform as scikit-image 0.26: an AffineTransform per Delaunay simplex of src (and
// of dst for the inverse); points in no simplex map to -1. find_simplex tests each simplex in order
// with scipy's barycentric transforms and tolerance (eps = 100 * DBL_EPSILON); scipy walks the mesh
// instead, which can only pick another simplex for a point on a shared face, where both maps agree.
#include <algorithm>
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
  mesh.index();
  return mesh;
}

/// The barycentric coordinates of point n of `coords` in simplex `tr` lie within eps of [0, 1].
bool inside(const Matrix& tr, const Matrix& coords, std::int64_t n) {
  const std::int64_t d = tr.cols;
  double last = 1.0;
  for (std::int64_t i = 0; i < d; ++i) {
    double ci = 0.0;
    for (std::int64_t j = 0; j < d; ++j) ci += tr(i, j) * (coords(n, j) - tr(d, j));
    last -= ci;
    if (!(ci >= -kEps && ci <= 1 + kEps)) return false;  // also false for NaN (degenerate simplex)
  }
  return last >= -kEps && last <= 1 + kEps;
}

Array rows_of(const Mat& pts, const std::vector<std::int64_t>& idx) {
  Mat out(static_cast<Eigen::Index>(idx.size()), pts.cols());
  for (std::size_t i = 0; i < idx.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = pts.row(idx[i]);
  return detail::to_array(out);
}

}  // namespace

void PiecewiseAffineTransform::Mesh::index() {
  const Mat pts = detail::to_eigen(points);
  const std::int64_t d = points.cols;
  barycentric.clear();
  for (const auto& s : simplices) barycentric.push_back(barycentric_of(pts, s));
  // About one simplex per cell: g^D cells for nsimplex simplices.
  const auto g = static_cast<std::int64_t>(
      std::max(1.0, std::ceil(std::pow(static_cast<double>(simplices.size()), 1.0 / static_cast<double>(d)))));
  lower.assign(static_cast<std::size_t>(d), 0.0);
  upper.assign(static_cast<std::size_t>(d), 0.0);
  cell_size.assign(static_cast<std::size_t>(d), 1.0);
  cells_per_axis.assign(static_cast<std::size_t>(d), g);
  for (std::int64_t j = 0; j < d; ++j) {
    lower[static_cast<std::size_t>(j)] = pts.col(j).minCoeff() - kEps;
    upper[static_cast<std::size_t>(j)] = pts.col(j).maxCoeff() + kEps;
    const double extent = upper[static_cast<std::size_t>(j)] - lower[static_cast<std::size_t>(j)];
    cell_size[static_cast<std::size_t>(j)] = extent > 0 ? extent / static_cast<double>(g) : 1.0;
  }
  std::int64_t ncells = 1;
  for (std::int64_t j = 0; j < d; ++j) ncells *= g;
  cells.assign(static_cast<std::size_t>(ncells), {});
  const auto cell_of = [&](std::int64_t j, double v) {
    const auto c = static_cast<std::int64_t>(std::floor((v - lower[static_cast<std::size_t>(j)]) /
                                                        cell_size[static_cast<std::size_t>(j)]));
    return std::clamp<std::int64_t>(c, 0, g - 1);
  };
  std::vector<std::int64_t> lo(static_cast<std::size_t>(d)), hi(static_cast<std::size_t>(d)), at;
  for (std::size_t k = 0; k < simplices.size(); ++k) {
    for (std::int64_t j = 0; j < d; ++j) {
      double mn = pts(simplices[k][0], j);
      double mx = mn;
      for (const std::int64_t v : simplices[k]) mn = std::min(mn, pts(v, j)), mx = std::max(mx, pts(v, j));
      // The tolerance widens the box: a point within eps of a face may sit in the next cell.
      const double pad = kEps * std::max(1.0, std::max(std::abs(mn), std::abs(mx)));
      lo[static_cast<std::size_t>(j)] = cell_of(j, mn - pad);
      hi[static_cast<std::size_t>(j)] = cell_of(j, mx + pad);
    }
    at = lo;
    while (true) {  // every cell of the box, row-major
      std::int64_t flat = 0;
      for (std::int64_t j = 0; j < d; ++j) flat = flat * g + at[static_cast<std::size_t>(j)];
      cells[static_cast<std::size_t>(flat)].push_back(static_cast<std::int64_t>(k));
      std::int64_t j = d - 1;
      for (; j >= 0 && at[static_cast<std::size_t>(j)] == hi[static_cast<std::size_t>(j)]; --j)
        at[static_cast<std::size_t>(j)] = lo[static_cast<std::size_t>(j)];
      if (j < 0) break;
      ++at[static_cast<std::size_t>(j)];
    }
  }
}

std::vector<std::int64_t> PiecewiseAffineTransform::Mesh::find_simplex(const Matrix& coords) const {
  const std::int64_t d = points.cols;
  std::vector<std::int64_t> out(static_cast<std::size_t>(coords.rows), -1);
  if (cells.empty()) return out;
  for (std::int64_t n = 0; n < coords.rows; ++n) {
    std::int64_t flat = 0;
    bool in_box = true;
    for (std::int64_t j = 0; j < d && in_box; ++j) {
      const double v = coords(n, j);
      const auto js = static_cast<std::size_t>(j);
      in_box = v >= lower[js] && v <= upper[js];  // scipy's bounding-box test (NaN: outside)
      const auto c = static_cast<std::int64_t>(std::floor((v - lower[js]) / cell_size[js]));
      flat = flat * cells_per_axis[js] + std::clamp<std::int64_t>(c, 0, cells_per_axis[js] - 1);
    }
    if (!in_box) continue;
    // A cell lists its simplices in increasing order: the first hit is the brute-force search's.
    for (const std::int64_t k : cells[static_cast<std::size_t>(flat)]) {
      if (inside(barycentric[static_cast<std::size_t>(k)], coords, n)) {
        out[static_cast<std::size_t>(n)] = k;
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
    detail::apply_homogeneous(affines_[static_cast<std::size_t>(s)].params().data.data(), c.cols(), c.row(n).data(),
                              out.row(n).data());
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
