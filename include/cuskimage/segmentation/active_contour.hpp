// skimage.segmentation.active_contour (scikit-image 0.26): the snake's semi-implicit evolution
// under image forces (w_line * image + w_edge * sobel(image)).
//
// CPU only: a snake is a few hundred points and the iteration is a chain of small dense products.
// Device inputs are accepted: the image force (img_as_float, sobel) is computed where the image is,
// the evolution on the host, and the snake comes back on the snake's device.
//
// The force is sampled as scikit-image does, through scipy's RectBivariateSpline(kx=ky=2, s=0):
// the interpolating quadratic spline with FITPACK's knots for an even degree (triple end knots at
// 0 and n-1, interior knots at the half-integers 1.5 .. n-2.5), its x / y partial derivatives
// evaluated with queries clamped to the grid as FITPACK's fpbisp does. The coefficients are solved
// by banded elimination (FITPACK uses Givens rotations) and (A + gamma I)^-1 by Gauss-Jordan
// (NumPy: LAPACK), so results agree with scikit-image to rounding: ~1e-10 px after thousands of
// iterations on the tests (allowed 1e-6). float32 images evolve in float64 here and are returned
// as float32 (scikit-image rounds each step to float32): 1.3e-5 px on the tests (allowed 1e-4).
#pragma once

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {

/// Boundary conditions of an open or closed snake (start-end).
enum class SnakeBoundary { periodic, free, fixed, free_fixed, fixed_free, fixed_fixed, free_free };
CUSK_ENUM_NAMED(SnakeBoundary, (periodic, "periodic"), (free, "free"), (fixed, "fixed"), (free_fixed, "free-fixed"),
                (fixed_free, "fixed-free"), (fixed_fixed, "fixed-fixed"), (free_free, "free-free"))

struct ActiveContourOptions {
  /// Snake length shape parameter.
  double alpha = 0.01;
  /// Snake smoothness shape parameter.
  double beta = 0.1;
  /// Attraction to brightness (negative: to dark).
  double w_line = 0.0;
  /// Attraction to edges (negative: repelled).
  double w_edge = 1.0;
  /// Time stepping parameter.
  double gamma = 0.01;
  double max_px_move = 1.0;
  /// > 0.
  int max_num_iter = 2500;
  double convergence = 0.1;
  SnakeBoundary boundary_condition = SnakeBoundary::periodic;
};
CUSK_OPTIONS(ActiveContourOptions,
             (alpha, "snake length shape parameter"),
             (beta, "snake smoothness shape parameter"),
             (w_line, "attraction to brightness"),
             (w_edge, "attraction to edges"),
             (gamma, "time stepping parameter"),
             (max_px_move, "maximum pixel distance to move per iteration"),
             (max_num_iter, "maximum iterations to optimise the snake shape"),
             (convergence, "convergence criteria"),
             (boundary_condition, "boundary conditions of the contour"))

/// skimage.segmentation.active_contour: image (M, N) or (M, N, 3) RGB, snake (K, 2) in (row, col);
/// returns the optimised (K, 2) snake (float64; float32 for a float32 image).
Array active_contour(const Array& image, const Array& snake, const ActiveContourOptions& opts = {},
                     const Stream& stream = {});

}  // namespace cuskimage::segmentation
