// skimage.feature.corner (scikit-image 0.26): structure_tensor, structure_tensor_eigenvalues,
// hessian_matrix, hessian_matrix_det, hessian_matrix_eigvals, shape_index and the corner detectors
// corner_harris, corner_shi_tomasi, corner_kitchen_rosenfeld, corner_foerstner, corner_moravec,
// corner_fast, corner_subpix, corner_orientations.
//
// Dtypes follow scikit-image: img_as_float (integers scaled to [0, 1] or [-1, 1]), float32 stays
// float32 (float16 becomes float32), everything else float64; corner_kitchen_rosenfeld casts without
// scaling, as scikit-image does. Every result lives on the image's device; the calls are
// asynchronous on `stream` unless stated.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/filters.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

/// Order of the tensor elements: "rc" axis order (Arr, Arc, Acc); "xy" (2-D only) last axis first.
enum class TensorOrder { rc, xy };
CUSK_ENUM(TensorOrder, rc, xy)

struct StructureTensorOptions {
  filters::Sigma sigma = 1.0;
  ndimage::Mode mode = ndimage::Mode::constant;
  double cval = 0.0;
  TensorOrder order = TensorOrder::rc;
};
CUSK_OPTIONS(StructureTensorOptions,
             (sigma, "standard deviation of the Gaussian window, one or one per axis"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"),
             (order, "rc (axis order) or xy (2-D only: last axis first)"))

/// skimage.feature.structure_tensor: the n(n+1)/2 upper elements (scikit-image's order) of the
/// Gaussian-weighted sum of products of Sobel derivatives, for a 2-D..5-D image (squeezed first).
std::vector<Array> structure_tensor(const Array& image, const StructureTensorOptions& opts = {},
                                    const Stream& stream = {});

/// skimage.feature.structure_tensor_eigenvalues: (n, *shape) eigenvalues, decreasing.
Array structure_tensor_eigenvalues(const std::vector<Array>& A_elems, const Stream& stream = {});

struct HessianMatrixOptions {
  filters::Sigma sigma = 1.0;
  ndimage::Mode mode = ndimage::Mode::constant;
  double cval = 0.0;
  TensorOrder order = TensorOrder::rc;
  /// Unset: false, scikit-image 0.26's default (which warns that it will become true).
  std::optional<bool> use_gaussian_derivatives = std::nullopt;
};
CUSK_OPTIONS(HessianMatrixOptions,
             (sigma, "standard deviation of the Gaussian, one or one per axis"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"),
             (order, "rc (axis order) or xy (2-D only: last axis first)"),
             (use_gaussian_derivatives, "Gaussian-derivative convolutions, or finite differences (default)"))

/// skimage.feature.hessian_matrix: the n(n+1)/2 upper elements of the Hessian. With finite
/// differences: numpy.gradient (twice) of the Gaussian-smoothed image; every axis needs >= 2 pixels.
std::vector<Array> hessian_matrix(const Array& image, const HessianMatrixOptions& opts = {},
                                  const Stream& stream = {});

struct HessianMatrixDetOptions {
  double sigma = 1.0;
  /// 2-D only: SURF's box-filter approximation over the integral image (float64 result).
  bool approximate = true;
};
CUSK_OPTIONS(HessianMatrixDetOptions,
             (sigma, "standard deviation of the Gaussian (box size int(3 * sigma) when approximate)"),
             (approximate, "2-D images: box filters over the integral image"))

/// skimage.feature.hessian_matrix_det: float64 for the 2-D approximation; otherwise the determinant
/// of hessian_matrix(image, sigma, use_gaussian_derivatives=false) in the image's float dtype.
Array hessian_matrix_det(const Array& image, const HessianMatrixDetOptions& opts = {}, const Stream& stream = {});

/// skimage.feature.hessian_matrix_eigvals: (n, *shape) eigenvalues, decreasing.
Array hessian_matrix_eigvals(const std::vector<Array>& H_elems, const Stream& stream = {});

struct ShapeIndexOptions {
  double sigma = 1.0;
  ndimage::Mode mode = ndimage::Mode::constant;
  double cval = 0.0;
};
CUSK_OPTIONS(ShapeIndexOptions,
             (sigma, "standard deviation of the Gaussian smoothing"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"))

/// skimage.feature.shape_index of a 2-D image: (2/pi) atan((l2 + l1) / (l2 - l1)) of the Hessian's
/// eigenvalues; NaN where the surface is flat.
Array shape_index(const Array& image, const ShapeIndexOptions& opts = {}, const Stream& stream = {});

struct CornerKitchenRosenfeldOptions {
  ndimage::Mode mode = ndimage::Mode::constant;
  double cval = 0.0;
};
CUSK_OPTIONS(CornerKitchenRosenfeldOptions,
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"))
/// skimage.feature.corner_kitchen_rosenfeld (2-D; 0 where the gradient vanishes).
Array corner_kitchen_rosenfeld(const Array& image, const CornerKitchenRosenfeldOptions& opts = {},
                               const Stream& stream = {});

enum class HarrisMethod { k, eps };
CUSK_ENUM(HarrisMethod, k, eps)

struct CornerHarrisOptions {
  HarrisMethod method = HarrisMethod::k;
  double k = 0.05;
  double eps = 1e-6;
  filters::Sigma sigma = 1.0;
};
CUSK_OPTIONS(CornerHarrisOptions,
             (method, "k: det - k trace^2; eps: 2 det / (trace + eps)"),
             (k, "sensitivity factor of method k"),
             (eps, "normalisation of method eps"),
             (sigma, "standard deviation of the structure tensor's Gaussian window"))
/// skimage.feature.corner_harris (2-D).
Array corner_harris(const Array& image, const CornerHarrisOptions& opts = {}, const Stream& stream = {});

struct CornerShiTomasiOptions {
  filters::Sigma sigma = 1.0;
};
CUSK_OPTIONS(CornerShiTomasiOptions, (sigma, "standard deviation of the structure tensor's Gaussian window"))
/// skimage.feature.corner_shi_tomasi (2-D): the smaller eigenvalue of the structure tensor.
Array corner_shi_tomasi(const Array& image, const CornerShiTomasiOptions& opts = {}, const Stream& stream = {});

struct CornerFoerstnerOptions {
  filters::Sigma sigma = 1.0;
};
CUSK_OPTIONS(CornerFoerstnerOptions, (sigma, "standard deviation of the structure tensor's Gaussian window"))
struct CornerFoerstnerResult {
  Array w;  ///< det / trace (error ellipse size), 0 where the trace is 0
  Array q;  ///< 4 det / trace^2 (roundness), 0 where the trace is 0
};
/// skimage.feature.corner_foerstner (2-D).
CornerFoerstnerResult corner_foerstner(const Array& image, const CornerFoerstnerOptions& opts = {},
                                       const Stream& stream = {});

struct CornerMoravecOptions {
  std::int64_t window_size = 1;
};
CUSK_OPTIONS(CornerMoravecOptions, (window_size, "half-width of the compared windows"))
/// skimage.feature.corner_moravec (2-D; 0 within 2 * window_size of the border).
Array corner_moravec(const Array& image, const CornerMoravecOptions& opts = {}, const Stream& stream = {});

struct CornerFastOptions {
  std::int64_t n = 12;
  double threshold = 0.15;
};
CUSK_OPTIONS(CornerFastOptions,
             (n, "minimum number of consecutive circle pixels all brighter or all darker (of 16)"),
             (threshold, "brightness difference that makes a circle pixel brighter or darker"))
/// skimage.feature.corner_fast (2-D; 0 within 3 pixels of the border).
Array corner_fast(const Array& image, const CornerFastOptions& opts = {}, const Stream& stream = {});

struct CornerSubpixOptions {
  std::int64_t window_size = 11;
  double alpha = 0.99;
};
CUSK_OPTIONS(CornerSubpixOptions,
             (window_size, "side of the search window (odd)"),
             (alpha, "significance level of the dot/edge classification, in (0, 1)"))
/// skimage.feature.corner_subpix: (K, 2) subpixel positions of the integer `corners` (K, 2), NaN
/// where the corner is not classified (or its normal equations are singular); image's float dtype.
Array corner_subpix(const Array& image, const Array& corners, const CornerSubpixOptions& opts = {},
                    const Stream& stream = {});

/// skimage.feature.corner_orientations: (K,) angles in [-pi, pi] of the intensity centroid of the
/// odd-sized `mask` neighbourhood around each corner (the image zero-padded), float dtype.
Array corner_orientations(const Array& image, const Array& corners, const Array& mask, const Stream& stream = {});

}  // namespace cuskimage::feature
