// skimage.transform._geometric (scikit-image 0.26): the geometric transform classes, their
// estimation from point correspondences, estimate_transform and matrix_transform.
#pragma once

#include <memory>
#include <optional>

#include "cuskimage/array.hpp"
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
};

}  // namespace cuskimage::transform
