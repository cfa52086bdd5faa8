// skimage.transform._geometric (scikit-image 0.26): the geometric transform classes, their
// estimation from point correspondences, estimate_transform and matrix_transform.
//
// Host only: point lists are small. Coordinates are (N, D) arrays of any real dtype on any device
// (copied to host float64); results are host float64. Estimation follows 0.26: the class method
// from_estimate returns an Estimated<T> that is falsy, with scikit-image's message, where
// scikit-image returns a FailedEstimation; the legacy estimate() member returns a bool and leaves
// NaN parameters on failure. Errors scikit-image raises (wrong shapes, ValueError) throw
// InvalidArgument; its NotImplementedError throws NotSupported.
#pragma once

#include <concepts>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/error.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::transform {

/// What every geometric transform offers; warp() needs only this. Coordinates are host float64
/// arrays of shape (N, D) in scikit-image's order ((x, y) = (col, row) in 2-D).
class GeometricTransform {
 public:
  virtual ~GeometricTransform() = default;
  /// D, the number of spatial dimensions the transform maps.
  virtual int dimensionality() const = 0;
  /// Applies the transform to (N, D) float64 coordinates; returns (N, D) float64.
  virtual Array operator()(const Array& coords) const = 0;
  /// The inverse transform (NotSupported where scikit-image has none).
  virtual std::shared_ptr<GeometricTransform> inverse() const = 0;
  /// The (D + 1) x (D + 1) homogeneous float64 matrix of a projective-family transform (warp's fast
  /// path); nullopt for the others.
  virtual std::optional<Array> homogeneous_matrix() const { return std::nullopt; }
  /// Euclidean distance from each transformed src point to its dst point: (N,) float64.
  virtual Array residuals(const Array& src, const Array& dst) const;
  /// scikit-image's class name ("AffineTransform"), used in estimation messages.
  virtual std::string name() const { return "GeometricTransform"; }
};

/// A small dense row-major float64 matrix: the `params` of the transforms.
struct Matrix {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<double> data;

  Matrix() = default;
  Matrix(std::int64_t r, std::int64_t c, double fill = 0.0);
  /// Throws InvalidArgument unless values.size() == r * c.
  Matrix(std::int64_t r, std::int64_t c, std::vector<double> values);
  static Matrix identity(std::int64_t n);
  /// A 1-D (one row) or 2-D array of any real dtype on any device.
  static Matrix from_array(const Array& a);
  /// Host float64 array of shape (rows, cols).
  Array to_array() const;
  double& operator()(std::int64_t r, std::int64_t c) { return data[static_cast<std::size_t>(r * cols + c)]; }
  double operator()(std::int64_t r, std::int64_t c) const {
    return data[static_cast<std::size_t>(r * cols + c)];
  }
  bool operator==(const Matrix&) const = default;
};

/// a @ b.
Matrix matmul(const Matrix& a, const Matrix& b);

/// The result of from_estimate: the transform, or scikit-image's FailedEstimation (falsy, with
/// `message` "<ClassName>: <reason>").
template <class T>
class Estimated {
 public:
  Estimated(T tf) : tf_(std::move(tf)) {}  // NOLINT: implicit on success, as Python returns tf
  static Estimated failure(std::string message) { return Estimated(std::move(message), Fail{}); }

  explicit operator bool() const { return tf_.has_value(); }
  /// The transform; throws InvalidArgument (scikit-image's FailedEstimationAccessError) on failure.
  const T& value() const& {
    check();
    return *tf_;
  }
  T& value() & {
    check();
    return *tf_;
  }
  T&& value() && {
    check();
    return std::move(*tf_);
  }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }

  /// Empty on success.
  std::string message;

 private:
  struct Fail {};
  Estimated(std::string msg, Fail) : message(std::move(msg)) {}
  void check() const {
    if (!tf_) throw InvalidArgument("FailedEstimation has no transform. " + message);
  }
  std::optional<T> tf_;
};

/// The implicit parameters of AffineTransform, EuclideanTransform and SimilarityTransform (each
/// takes the subset scikit-image's constructor has). A vector of one value is scikit-image's scalar.
struct TransformParams {
  /// Affine: one value or (sx, sy); Similarity: one value or one per axis (scales the columns).
  std::optional<std::vector<double>> scale = std::nullopt;
  /// Radians: one value (2-D) or three XYZ intrinsic Euler angles (3-D; Euclidean, Similarity).
  std::optional<std::vector<double>> rotation = std::nullopt;
  /// Affine only, 2-D: shear_x or (shear_x, shear_y), radians.
  std::optional<std::vector<double>> shear = std::nullopt;
  /// One value per axis.
  std::optional<std::vector<double>> translation = std::nullopt;
  std::optional<int> dimensionality = std::nullopt;
};
CUSK_OPTIONS(TransformParams,
             (scale, "scale: one value or one per axis"),
             (rotation, "rotation in radians: one value (2-D) or 3 XYZ Euler angles (3-D)"),
             (shear, "shear angle(s) in radians: shear_x or shear_x,shear_y (affine, 2-D)"),
             (translation, "translation, one value per axis"),
             (dimensionality, "number of spatial dimensions (default 2, or implied by the parameters)"))

// ---- the projective family ------------------------------------------------------------------------

/// ProjectiveTransform: a (D + 1) x (D + 1) homogeneous matrix, D >= 2.
class ProjectiveTransform : public GeometricTransform {
 public:
  /// The identity of `dimensionality` (2 by default).
  explicit ProjectiveTransform(int dimensionality = 2);
  /// `matrix` square (D + 1) x (D + 1); `dimensionality`, when given, must equal D.
  explicit ProjectiveTransform(Matrix matrix, std::optional<int> dimensionality = std::nullopt);

  /// Least squares (total, by SVD) on centred and normalised points; `weights` (N,) optional.
  /// scikit-image's ProjectiveTransform.identity(dimensionality).
  static ProjectiveTransform identity(int dimensionality = 2) { return ProjectiveTransform(dimensionality); }
  static Estimated<ProjectiveTransform> from_estimate(const Array& src, const Array& dst,
                                                      const Array& weights = Array());
  /// Legacy: estimates in place; false (and NaN params) where from_estimate fails.
  bool estimate(const Array& src, const Array& dst, const Array& weights = Array());

  const Matrix& params() const { return params_; }
  int dimensionality() const override { return static_cast<int>(params_.rows) - 1; }
  Array operator()(const Array& coords) const override;
  std::shared_ptr<GeometricTransform> inverse() const override;
  std::optional<Array> homogeneous_matrix() const override { return params_.to_array(); }
  std::string name() const override { return "ProjectiveTransform"; }

 protected:
  /// Only the affine coefficients are estimated (AffineTransform).
  virtual bool affine_only() const { return false; }
  /// The estimation proper: sets params_; the failure reason, or nullopt.
  virtual std::optional<std::string> estimate_impl(const Array& src, const Array& dst, const Array& weights);
  Matrix inverse_matrix() const;

  Matrix params_;
};

/// AffineTransform: matrix or (2-D) scale, rotation, shear, translation.
class AffineTransform : public ProjectiveTransform {
 public:
  explicit AffineTransform(int dimensionality = 2) : ProjectiveTransform(dimensionality) {}
  explicit AffineTransform(Matrix matrix, std::optional<int> dimensionality = std::nullopt)
      : ProjectiveTransform(std::move(matrix), dimensionality) {}
  explicit AffineTransform(const TransformParams& p);

  /// scikit-image's AffineTransform.identity(dimensionality).
  static AffineTransform identity(int dimensionality = 2) { return AffineTransform(dimensionality); }
  static Estimated<AffineTransform> from_estimate(const Array& src, const Array& dst,
                                                  const Array& weights = Array());
  std::shared_ptr<GeometricTransform> inverse() const override;
  std::string name() const override { return "AffineTransform"; }

  /// Per-axis scale (2-D: with the shear taken out of the second).
  std::vector<double> scale() const;
  /// 2-D only (NotSupported otherwise).
  double rotation() const;
  double shear() const;
  std::vector<double> translation() const;

 protected:
  bool affine_only() const override { return true; }
};

/// EuclideanTransform: rotation and translation (Umeyama estimation, any D >= 2).
class EuclideanTransform : public ProjectiveTransform {
 public:
  explicit EuclideanTransform(int dimensionality = 2) : ProjectiveTransform(dimensionality) {}
  explicit EuclideanTransform(Matrix matrix, std::optional<int> dimensionality = std::nullopt)
      : ProjectiveTransform(std::move(matrix), dimensionality) {}
  /// rotation (one angle: 2-D; three: 3-D) and translation only.
  explicit EuclideanTransform(const TransformParams& p);

  /// scikit-image's EuclideanTransform.identity(dimensionality).
  static EuclideanTransform identity(int dimensionality = 2) { return EuclideanTransform(dimensionality); }
  static Estimated<EuclideanTransform> from_estimate(const Array& src, const Array& dst);
  bool estimate(const Array& src, const Array& dst);
  std::shared_ptr<GeometricTransform> inverse() const override;
  std::string name() const override { return "EuclideanTransform"; }

  /// 2-D: the angle (NotSupported otherwise); rotation_matrix(): 3-D's (D x D) rotation block.
  double rotation() const;
  Matrix rotation_matrix() const;
  std::vector<double> translation() const;

 protected:
  virtual bool estimate_scale() const { return false; }
  std::optional<std::string> estimate_impl(const Array& src, const Array& dst, const Array& weights) override;
  static Matrix matrix_from(const TransformParams& p, bool with_scale);
};

/// SimilarityTransform: Euclidean plus one isotropic scale.
class SimilarityTransform : public EuclideanTransform {
 public:
  explicit SimilarityTransform(int dimensionality = 2) : EuclideanTransform(dimensionality) {}
  explicit SimilarityTransform(Matrix matrix, std::optional<int> dimensionality = std::nullopt)
      : EuclideanTransform(std::move(matrix), dimensionality) {}
  explicit SimilarityTransform(const TransformParams& p);

  /// scikit-image's SimilarityTransform.identity(dimensionality).
  static SimilarityTransform identity(int dimensionality = 2) { return SimilarityTransform(dimensionality); }
  static Estimated<SimilarityTransform> from_estimate(const Array& src, const Array& dst);
  std::shared_ptr<GeometricTransform> inverse() const override;
  std::string name() const override { return "SimilarityTransform"; }
  /// det(params)^(1/D), D 2 or 3 (NotSupported otherwise).
  double scale() const;

 protected:
  bool estimate_scale() const override { return true; }
};

/// Composition (`a + b` applies a, then b: params b @ a). Two transforms of the same class give that
/// class, any other pair a ProjectiveTransform (scikit-image's rule, on the static types).
template <class A, class B>
  requires std::derived_from<A, ProjectiveTransform> && std::derived_from<B, ProjectiveTransform>
auto operator+(const A& a, const B& b) {
  if constexpr (std::same_as<A, B>) return A(matmul(b.params(), a.params()));
  else return ProjectiveTransform(matmul(b.params(), a.params()));
}

// ---- the other families ---------------------------------------------------------------------------

/// PolynomialTransform (2-D): params (2, (order + 1) * (order + 2) / 2).
class PolynomialTransform : public GeometricTransform {
 public:
  /// Identity (order 1); `dimensionality` must be 2 (NotSupported otherwise).
  explicit PolynomialTransform(int dimensionality = 2);
  /// `params` must have 2 rows and a triangular number of columns.
  explicit PolynomialTransform(Matrix params, std::optional<int> dimensionality = std::nullopt);

  /// scikit-image's PolynomialTransform.identity(dimensionality).
  static PolynomialTransform identity(int dimensionality = 2) { return PolynomialTransform(dimensionality); }
  static Estimated<PolynomialTransform> from_estimate(const Array& src, const Array& dst, int order = 2,
                                                      const Array& weights = Array());
  bool estimate(const Array& src, const Array& dst, int order = 2, const Array& weights = Array());

  const Matrix& params() const { return params_; }
  int dimensionality() const override { return 2; }
  Array operator()(const Array& coords) const override;
  /// NotSupported (scikit-image: estimate the inverse with src and dst swapped).
  std::shared_ptr<GeometricTransform> inverse() const override;
  std::string name() const override { return "PolynomialTransform"; }

 private:
  Matrix params_;
};

/// PiecewiseAffineTransform: one affine map per simplex of the Delaunay triangulation of src
/// (Qhull with scipy.spatial.Delaunay's options, so the simplices are scipy's).
class PiecewiseAffineTransform : public GeometricTransform {
 public:
  PiecewiseAffineTransform() = default;

  /// scikit-image's identity(): an empty transform (every point maps to -1).
  static PiecewiseAffineTransform identity(int = 2) { return {}; }
  static Estimated<PiecewiseAffineTransform> from_estimate(const Array& src, const Array& dst);
  bool estimate(const Array& src, const Array& dst);

  int dimensionality() const override { return dim_; }
  /// Points outside the triangulation map to -1 (all coordinates).
  Array operator()(const Array& coords) const override;
  std::shared_ptr<GeometricTransform> inverse() const override;
  std::string name() const override { return "PiecewiseAffineTransform"; }

  /// One Delaunay triangulation: its points and simplices (vertex indices, scipy's order).
  struct Mesh {
    Matrix points;                              // (N, D)
    std::vector<std::vector<std::int64_t>> simplices;  // each D + 1 indices
    /// Per simplex scipy's Delaunay.transform: (D + 1) x D, the inverse of T and the vertex r_D.
    std::vector<Matrix> barycentric;
    /// The simplex holding each point (-1 outside; the first simplex in order whose barycentric
    /// coordinates are all within scipy's eps of [0, 1]).
    std::vector<std::int64_t> find_simplex(const Matrix& coords) const;
    /// Builds `barycentric` and the bucket grid find_simplex searches (after points, simplices).
    void index();

    /// The bucket grid: per cell (row-major over `cells_per_axis` cells from `lower` in steps of
    /// `cell_size`) the simplices whose bounding box meets it, in increasing order.
    std::vector<double> lower;
    std::vector<double> upper;
    std::vector<double> cell_size;
    std::vector<std::int64_t> cells_per_axis;
    std::vector<std::vector<std::int64_t>> cells;
  };
  const Mesh& tesselation() const { return mesh_; }
  const Mesh& inverse_tesselation() const { return inverse_mesh_; }
  const std::vector<AffineTransform>& affines() const { return affines_; }
  const std::vector<AffineTransform>& inverse_affines() const { return inverse_affines_; }

 private:
  std::optional<std::string> estimate_impl(const Array& src, const Array& dst);
  int dim_ = 2;
  Mesh mesh_;
  Mesh inverse_mesh_;
  std::vector<AffineTransform> affines_;
  std::vector<AffineTransform> inverse_affines_;
};

/// The Delaunay triangulation of (N, D) points with scipy.spatial.Delaunay's Qhull options
/// ("d Qbb Qc Qz Q12", plus "Qt" by default); InvalidArgument on Qhull's errors (QhullError).
PiecewiseAffineTransform::Mesh delaunay(const Matrix& points);

/// ThinPlateSplineTransform (2-D).
class ThinPlateSplineTransform : public GeometricTransform {
 public:
  ThinPlateSplineTransform() = default;

  static Estimated<ThinPlateSplineTransform> from_estimate(const Array& src, const Array& dst);
  bool estimate(const Array& src, const Array& dst);

  int dimensionality() const override { return 2; }
  /// InvalidArgument before estimation (scikit-image's "Transformation is undefined").
  Array operator()(const Array& coords) const override;
  /// NotSupported.
  std::shared_ptr<GeometricTransform> inverse() const override;
  std::string name() const override { return "ThinPlateSplineTransform"; }

  /// src of the estimation and the (N + 3, 2) spline mappings (weights, then the affine part).
  const Matrix& src() const { return src_; }
  const Matrix& spline_mappings() const { return mappings_; }

 private:
  std::optional<std::string> estimate_impl(const Array& src, const Array& dst);
  Matrix src_;
  Matrix mappings_;
};

/// FundamentalMatrixTransform (2-D): params F with dst_h^T F src_h = 0. Calling it gives the epipolar
/// lines F @ [x, y, 1] as (N, 3).
class FundamentalMatrixTransform : public GeometricTransform {
 public:
  explicit FundamentalMatrixTransform(int dimensionality = 2);
  explicit FundamentalMatrixTransform(Matrix matrix, std::optional<int> dimensionality = std::nullopt);

  /// The normalised eight-point algorithm; at least 8 points (InvalidArgument otherwise).
  /// scikit-image's FundamentalMatrixTransform.identity(dimensionality).
  static FundamentalMatrixTransform identity(int dimensionality = 2) { return FundamentalMatrixTransform(dimensionality); }
  static Estimated<FundamentalMatrixTransform> from_estimate(const Array& src, const Array& dst);
  bool estimate(const Array& src, const Array& dst);

  const Matrix& params() const { return params_; }
  int dimensionality() const override { return 2; }
  Array operator()(const Array& coords) const override;
  /// The transform of params^T.
  std::shared_ptr<GeometricTransform> inverse() const override;
  /// Sampson distances.
  Array residuals(const Array& src, const Array& dst) const override;
  std::string name() const override { return "FundamentalMatrixTransform"; }

 protected:
  struct Unchecked {};
  FundamentalMatrixTransform(Matrix m, Unchecked) : params_(std::move(m)) {}
  virtual std::optional<std::string> estimate_impl(const Array& src, const Array& dst);
  Matrix params_;
};

/// EssentialMatrixTransform: from a 3x3 rotation (unit determinant) and a unit translation, or a
/// matrix, or estimated.
class EssentialMatrixTransform : public FundamentalMatrixTransform {
 public:
  explicit EssentialMatrixTransform(int dimensionality = 2) : FundamentalMatrixTransform(dimensionality) {}
  explicit EssentialMatrixTransform(Matrix matrix, std::optional<int> dimensionality = std::nullopt)
      : FundamentalMatrixTransform(std::move(matrix), dimensionality) {}
  EssentialMatrixTransform(const Matrix& rotation, const std::vector<double>& translation);

  /// scikit-image's EssentialMatrixTransform.identity(dimensionality).
  static EssentialMatrixTransform identity(int dimensionality = 2) { return EssentialMatrixTransform(dimensionality); }
  static Estimated<EssentialMatrixTransform> from_estimate(const Array& src, const Array& dst);
  std::shared_ptr<GeometricTransform> inverse() const override;
  std::string name() const override { return "EssentialMatrixTransform"; }

 protected:
  std::optional<std::string> estimate_impl(const Array& src, const Array& dst) override;
};

// ---- functions ------------------------------------------------------------------------------------

/// scikit-image's names: euclidean, similarity, affine, piecewise-affine, projective, fundamental,
/// essential, polynomial.
enum class TransformType { euclidean, similarity, affine, piecewise_affine, projective, fundamental, essential, polynomial };
CUSK_ENUM_NAMED(TransformType, (euclidean, "euclidean"), (similarity, "similarity"), (affine, "affine"),
                (piecewise_affine, "piecewise-affine"), (projective, "projective"), (fundamental, "fundamental"),
                (essential, "essential"), (polynomial, "polynomial"))

/// The extra arguments estimate_transform passes on (only to the types that take them).
struct EstimateTransformOptions {
  /// PolynomialTransform's order.
  int order = 2;
};
CUSK_OPTIONS(EstimateTransformOptions, (order, "polynomial order (ttype polynomial)"))

/// skimage.transform.estimate_transform: TRANSFORMS[ttype].from_estimate(src, dst, ...). `weights`
/// ((N,), optional) goes to projective, affine and polynomial (InvalidArgument for the others, as
/// scikit-image's TypeError).
Estimated<std::shared_ptr<GeometricTransform>> estimate_transform(TransformType ttype, const Array& src,
                                                                  const Array& dst,
                                                                  const EstimateTransformOptions& opts = {},
                                                                  const Array& weights = Array());
/// The same by name, case-insensitive ("Affine"); InvalidArgument for an unknown name.
Estimated<std::shared_ptr<GeometricTransform>> estimate_transform(const std::string& ttype, const Array& src,
                                                                  const Array& dst,
                                                                  const EstimateTransformOptions& opts = {},
                                                                  const Array& weights = Array());

/// skimage.transform.matrix_transform: ProjectiveTransform(matrix)(coords).
Array matrix_transform(const Array& coords, const Matrix& matrix);
Array matrix_transform(const Array& coords, const Array& matrix);

}  // namespace cuskimage::transform
