// skimage.segmentation.chan_vese (scikit-image 0.26): the Chan-Vese level-set segmentation of a
// 2-D grey image (the PDE form; the morphological one is morphsnakes.hpp).
//
// The image is rescaled to [0, 1] in float32 (float32 input) or float64 (anything else), as
// scikit-image does. CPU: NumPy's operations in NumPy's order, its pairwise sums included, so the
// float64 level set equals scikit-image's bit for bit except through sin (the checkerboard start)
// and arctan (the energies), which may differ from NumPy's by an ulp; tests allow 1e-9. CUDA: the
// same per-pixel code; the region sums are device reductions in another order (~1e-15 relative),
// which over hundreds of iterations moves phi by ~1e-10: segmentation pixels can differ only where
// |phi| is that small. The rescaling and the named starting level sets are computed on the host
// (one copy in, one out: O(pixels), once per call). Each iteration reads phivar (the stopping
// test) back to the host: one synchronisation per iteration, which the loop's condition needs.
#pragma once

#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {

/// chan_vese's named starting level sets.
enum class ChanVeseInit { checkerboard, disk, small_disk };
CUSK_ENUM_NAMED(ChanVeseInit, (checkerboard, "checkerboard"), (disk, "disk"), (small_disk, "small disk"))

struct ChanVeseOptions {
  /// Edge length weight (>= 0).
  double mu = 0.25;
  double lambda1 = 1.0;
  double lambda2 = 1.0;
  /// Stop when the RMS change of the level set is <= tol.
  double tol = 1e-3;
  int max_num_iter = 500;
  double dt = 0.5;
  /// A starting level set in the image's shape (any real dtype); empty: init_method.
  Array init_level_set = {};
  ChanVeseInit init_method = ChanVeseInit::checkerboard;
};
CUSK_OPTIONS(ChanVeseOptions,
             (mu, "edge length weight"),
             (lambda1, "weight of the region inside the contour"),
             (lambda2, "weight of the region outside the contour"),
             (tol, "level set variation tolerance between iterations"),
             (max_num_iter, "maximum number of iterations"),
             (dt, "time step"),
             (init_level_set, "starting level set array; none: init-method"),
             (init_method, "starting level set by name when no array is given"))

struct ChanVeseResult {
  /// bool, phi > 0.
  Array segmentation;
  /// The final level set (float32 or float64).
  Array phi;
  /// The energy before each iteration (one per iteration run).
  std::vector<double> energies;
};

/// skimage.segmentation.chan_vese: the bool segmentation.
Array chan_vese(const Array& image, const ChanVeseOptions& opts = {}, const Stream& stream = {});
/// chan_vese(..., extended_output=True): segmentation, final level set and energies (synchronises).
ChanVeseResult chan_vese_extended(const Array& image, const ChanVeseOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::segmentation
