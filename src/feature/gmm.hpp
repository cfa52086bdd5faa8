// Host pieces shared by learn_gmm and fisher_vector: a GMM as flat vectors and scikit-learn's
// posterior computation (GaussianMixture._estimate_log_prob_resp for 'diag').
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/feature/fisher_vector.hpp"

namespace cuskimage::feature::detail {

struct GmmHost {
  std::int64_t k = 0, d = 0;
  std::vector<double> means, covariances, weights;  // (k, d), (k, d), (k)
};

/// An (n, d) array's values as float64 on the host; InvalidArgument (naming `fn`) unless 2-D with
/// n >= 1 and d >= 1.
std::vector<double> host_matrix(const Array& a, const char* fn, const Stream& stream);

/// The Gmm's arrays on the host, validated against descriptor length d (InvalidArgument naming `fn`).
GmmHost gmm_to_host(const Gmm& gmm, std::int64_t d, const char* fn);
Gmm gmm_from_host(const GmmHost& g, Device device, const Stream& stream);

/// log responsibilities (n, k) of the n rows of x (n, d) in `log_resp`; returns the mean over the
/// rows of log p(x) (scikit-learn's lower bound).
double gmm_log_resp(const std::vector<double>& x, std::int64_t n, const GmmHost& g, std::vector<double>& log_resp);

}  // namespace cuskimage::feature::detail
