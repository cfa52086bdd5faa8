// skimage.segmentation.random_walker (scikit-image 0.26): Grady's random walker segmentation from
// seed markers, on 2-D or 3-D grey or multichannel data.
//
// The algorithm is scikit-image's step for step: data read with img_as_float; the graph is the
// 2*ndim-neighbour grid over active pixels (labels >= 0, minus unlabelled pockets no seed can reach),
// edge weights exp(-beta * |grad|^2 / (10 * std(data) [* sqrt(channels)])) + 1e-10 with the gradient
// divided by the spacing; one linear system per label on the unlabelled pixels, solved by scipy's
// conjugate gradient (Jacobi-preconditioned for cg_j) with its stopping rule ||r|| < tol * ||b||
// (scipy's rtol = tol, atol = 0) and maxiter 10 * unknowns, each label's system on its own (the
// CUDA backend runs them as one batch whose columns stop independently);
// argmax of the probabilities (first label on ties). Labels are renumbered as scikit-image does
// (positive values to 1..nlabels, negative ones keep their rank below zero). The matrix is applied
// matrix-free on the grid. Without pyamg, scikit-image runs cg_mg as cg_j: so does this.
// scikit-image's warnings (cg_mg fallback, no convergence, prob_tol, no unlabelled pixels) have no
// channel here: they are not reported.
#pragma once

#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {

/// random_walker's linear solvers ('bf', the direct LU solve, is not offered).
enum class RandomWalkerMode { cg, cg_j, cg_mg };
CUSK_ENUM_NAMED(RandomWalkerMode, (cg, "cg"), (cg_j, "cg_j"), (cg_mg, "cg_mg"))

struct RandomWalkerOptions {
  /// Penalisation of the walk across intensity changes.
  double beta = 130.0;
  RandomWalkerMode mode = RandomWalkerMode::cg_j;
  /// Relative residual tolerance of the conjugate gradients.
  double tol = 1e-3;
  /// Kept for scikit-image's signature: the input labels are never overwritten.
  bool copy = true;
  /// Return the (nlabels, ...) float64 probabilities instead of the labels.
  bool return_full_prob = false;
  /// Voxel spacing per spatial axis (empty: all ones).
  std::vector<double> spacing = {};
  /// Tolerance of the probabilities' range check (a warning in scikit-image; not reported here).
  double prob_tol = 1e-3;
  /// Axis of the channels (unset: grey data).
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(RandomWalkerOptions, (beta, "penalisation of diffusion across intensity changes"),
             (mode, "linear solver: cg, cg_j (Jacobi-preconditioned) or cg_mg (runs as cg_j)"),
             (tol, "relative residual tolerance of the conjugate gradients"),
             (copy, "kept for scikit-image's signature; labels are never overwritten"),
             (return_full_prob, "return per-label probabilities instead of labels"),
             (spacing, "voxel spacing per spatial axis (empty: all ones)"),
             (prob_tol, "tolerance of the probability range check"),
             (channel_axis, "axis of the channels (unset: grey data)"))

/// skimage.segmentation.random_walker. data: 2-D/3-D grey, or 3-D/4-D with channel_axis; labels:
/// integer seeds of the spatial shape (0 unlabelled, < 0 inactive). Returns labels in the labels'
/// dtype, or with return_full_prob float64 probabilities of shape (nlabels, *labels.shape); on
/// the data's device. Synchronises: the labels come to the host for the seed preprocessing, and
/// the CUDA solve reads its convergence flag every 16 iterations.
Array random_walker(const Array& data, const Array& labels, const RandomWalkerOptions& opts = {},
                    const Stream& stream = {});

}  // namespace cuskimage::segmentation
