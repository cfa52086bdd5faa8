// Host linear algebra shared by the geometric transforms (Eigen): conversions between Array,
// Matrix and Eigen, scikit-image's point normalisation, homogeneous application and Umeyama.
#pragma once

#include <Eigen/Dense>

#include <limits>
#include <optional>
#include <string>

#include "cuskimage/transform/geometric.hpp"

namespace cuskimage::transform::detail {

using Mat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::VectorXd;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

Mat to_eigen(const Matrix& m);
Matrix from_eigen(const Mat& m);
Array to_array(const Mat& m);
/// Host float64 (rows, cols) copy of a 1-D or 2-D real array.
Mat to_eigen(const Array& a);

/// src and dst as (N, D) point lists with equal shapes; InvalidArgument naming `fn` otherwise.
/// `min_dim` is the smallest D the caller accepts; below it NotSupported with `dim_msg`.
void check_points(const Array& src, const Array& dst, const char* fn);
/// (N, D) coordinates; InvalidArgument unless 2-D with D == `dim` (any D when dim < 0).
Mat coords_of(const Array& coords, int dim, const char* fn);
/// The (N,) weights as a vector; InvalidArgument unless it has N non-negative entries.
Vec weights_of(const Array& weights, Eigen::Index n, const char* fn);

/// [points | 1].
Mat append_ones(const Mat& points);
/// scikit-image's _apply_homogeneous: (points_h @ m^T)[:, :-1] / last column (exact zeros -> eps).
Mat apply_homogeneous(const Mat& m, const Mat& points);
/// The same for one point: `m` row-major (d + 1) x (d + 1), `point` and `out` d values.
void apply_homogeneous(const double* m, Eigen::Index d, const double* point, double* out);
/// scikit-image's _calc_center_normalize ('rms' or 'mrs'): all NaN when every point is the same.
Mat center_normalize_matrix(const Mat& points, bool mrs = false);
/// scikit-image's _umeyama: the (D + 1)^2 similarity (NaN when rank 0).
Mat umeyama(const Mat& src, const Mat& dst, bool estimate_scale);
/// numpy.linalg.svd(a)[2][-1]: the right singular vector of the smallest singular value.
Vec last_right_singular_vector(const Mat& a);
/// numpy.linalg.inv: InvalidArgument("Singular matrix") where LU meets an exact zero pivot.
Mat inverse(const Mat& m);
bool all_finite(const Mat& m);

/// scikit-image's _HMatrixTransform checks: square, matching `dimensionality` when given, and D
/// within [min_d, max_d] (NotSupported otherwise, as its NotImplementedError naming `cls`).
Matrix checked_hmatrix(Matrix m, std::optional<int> dimensionality, int min_d, int max_d, const std::string& cls);
/// The D of the identity from_estimate starts from (scikit-image's cls.identity(src.shape[1])).
inline int estimation_dim(const Array& src) { return src.ndim() == 2 ? static_cast<int>(src.shape(1)) : 2; }

/// from_estimate's result: `tf`, or the failure "<ClassName>: <msg>".
template <class T>
Estimated<T> finish(T&& tf, const std::optional<std::string>& msg) {
  if (msg) return Estimated<T>::failure(tf.name() + ": " + *msg);
  return Estimated<T>(std::move(tf));
}

}  // namespace cuskimage::transform::detail
