// skimage.feature._fisher_vector (scikit-image 0.26): learn_gmm; fisher_vector.
//
// scikit-image fits scikit-learn's GaussianMixture (covariance_type 'diag'); this library has its own
// seeded diagonal-covariance EM with scikit-learn's defaults and algorithm (k-means initialisation:
// k-means++ seeding with 2 + floor(ln K) local trials, Lloyd iterations; then EM until the change of
// the mean log-likelihood is below tol). The random stream is not scikit-learn's, so learn_gmm equals
// scikit-learn only in distribution: on well-separated data the same modes come out (up to their
// order). fisher_vector is exact given the same GMM parameters (the formulas of scikit-image, the
// posteriors as scikit-learn's predict_proba computes them).
//
// Both run on the host: a GMM fit is a short sequential iteration over small data (descriptors of a
// data set, a few thousand by ~128), and a Fisher vector is one pass over one image's descriptors.
// Inputs may live on any device; results are float64 arrays on the descriptors' device.
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

/// A diagonal-covariance Gaussian mixture: the fields scikit-image reads from scikit-learn's
/// GaussianMixture (means_, covariances_, weights_). Fill it from your own parameters or learn_gmm.
struct Gmm {
  Array means;        ///< (K, D) float64
  Array covariances;  ///< (K, D) float64, the diagonal variances (all > 0)
  Array weights;      ///< (K,) float64, summing to 1
};

/// How the EM is initialised (scikit-learn's init_params).
enum class GmmInit { kmeans, k_means_pp, random, random_from_data };
CUSK_ENUM_NAMED(GmmInit, (kmeans, "kmeans"), (k_means_pp, "k-means++"), (random, "random"),
                (random_from_data, "random_from_data"))

/// learn_gmm's n_modes plus the GaussianMixture keyword arguments (gm_args) that apply to a 'diag'
/// mixture, with scikit-learn's defaults. random_state seeds this library's generator.
struct LearnGmmOptions {
  std::int64_t n_modes = 32;
  double tol = 1e-3;
  double reg_covar = 1e-6;
  std::int64_t max_iter = 100;
  std::int64_t n_init = 1;
  GmmInit init_params = GmmInit::kmeans;
  std::int64_t random_state = 0;
};
CUSK_OPTIONS(LearnGmmOptions, (n_modes, "number of Gaussians"),
             (tol, "EM stops when the mean log-likelihood changes by less than this"),
             (reg_covar, "added to every variance (keeps them positive)"),
             (max_iter, "maximum number of EM iterations per initialisation"),
             (n_init, "number of initialisations; the fit with the highest likelihood is kept"),
             (init_params, "initialisation: kmeans, k-means++, random or random_from_data"),
             (random_state, "seed of the initialisation; this library's generator, not scikit-learn's"))

/// skimage.feature.learn_gmm on an (N, D) array of descriptors (stack per-image lists first).
/// Throws InvalidArgument for non-2-D descriptors, n_modes < 1 or > N, and when the fit yields a
/// non-positive variance (scikit-learn's ill-defined covariance).
Gmm learn_gmm(const Array& descriptors, const LearnGmmOptions& options = {}, const Stream& stream = {});

struct FisherVectorOptions {
  bool improved = false;
  double alpha = 0.5;
};
CUSK_OPTIONS(FisherVectorOptions, (improved, "power- and L2-normalised (improved) Fisher vector"),
             (alpha, "power of the normalisation sign(z) |z|^alpha (improved only)"))

/// skimage.feature.fisher_vector: the (2 K D + K,) float64 vector [d_pi, d_mu, d_sigma] of the
/// (N, D) descriptors under `gmm`. Throws InvalidArgument when the descriptors are not 2-D, the GMM's
/// arrays disagree in shape or with D, or a weight / variance is not positive.
Array fisher_vector(const Array& descriptors, const Gmm& gmm, const FisherVectorOptions& options = {},
                    const Stream& stream = {});

}  // namespace cuskimage::feature
