// learn_gmm: scikit-learn's GaussianMixture(covariance_type='diag') algorithm on the host, seeded
// with std::mt19937_64 (scikit-learn's stream cannot be reproduced: equal in distribution only).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "src/feature/gmm.hpp"

namespace cuskimage::feature {
namespace detail {

std::vector<double> host_matrix(const Array& a, const char* fn, const Stream& stream) {
  if (a.ndim() != 2 || a.shape(0) < 1 || a.shape(1) < 1)
    throw InvalidArgument(std::string(fn) + ": descriptors must be a non-empty 2-D array (N, D), got " +
                          std::to_string(a.ndim()) + "-D");
  return a.to(Device::cpu(), stream).to_vector<double>();
}

GmmHost gmm_to_host(const Gmm& gmm, std::int64_t d, const char* fn) {
  const std::string f(fn);
  if (gmm.means.ndim() != 2 || gmm.means.shape(0) < 1)
    throw InvalidArgument(f + ": gmm.means must be a non-empty 2-D array (K, D)");
  GmmHost g;
  g.k = gmm.means.shape(0);
  g.d = gmm.means.shape(1);
  if (g.d != d)
    throw InvalidArgument(f + ": the GMM's dimension " + std::to_string(g.d) + " differs from the descriptors' " +
                          std::to_string(d));
  if (gmm.covariances.ndim() != 2 || gmm.covariances.shape(0) != g.k || gmm.covariances.shape(1) != g.d)
    throw InvalidArgument(f + ": gmm.covariances must have the shape of gmm.means (diagonal covariances)");
  if (gmm.weights.ndim() != 1 || gmm.weights.shape(0) != g.k)
    throw InvalidArgument(f + ": gmm.weights must have one value per mode");
  g.means = gmm.means.to_vector<double>();
  g.covariances = gmm.covariances.to_vector<double>();
  g.weights = gmm.weights.to_vector<double>();
  for (double v : g.covariances)
    if (!(v > 0)) throw InvalidArgument(f + ": gmm.covariances must be positive");
  for (double v : g.weights)
    if (!(v > 0)) throw InvalidArgument(f + ": gmm.weights must be positive");
  return g;
}

Gmm gmm_from_host(const GmmHost& g, Device device, const Stream& stream) {
  return Gmm{Array::from_vector(g.means, {g.k, g.d}).to(device, stream),
             Array::from_vector(g.covariances, {g.k, g.d}).to(device, stream),
             Array::from_vector(g.weights, {g.k}).to(device, stream)};
}

double gmm_log_resp(const std::vector<double>& x, std::int64_t n, const GmmHost& g, std::vector<double>& log_resp) {
  const std::int64_t k = g.k, d = g.d;
  // scikit-learn's expansion: sum(mu^2 p) - 2 x.(mu p) + x^2.p with p = 1 / var, plus log det.
  std::vector<double> prec(k * d), mp(k * d), const_term(k);
  for (std::int64_t m = 0; m < k; ++m) {
    double log_det = 0, mu2p = 0;
    for (std::int64_t j = 0; j < d; ++j) {
      const double pc = 1.0 / std::sqrt(g.covariances[m * d + j]);
      log_det += std::log(pc);
      prec[m * d + j] = pc * pc;
      mp[m * d + j] = g.means[m * d + j] * prec[m * d + j];
      mu2p += g.means[m * d + j] * g.means[m * d + j] * prec[m * d + j];
    }
    const_term[m] = -0.5 * (static_cast<double>(d) * std::log(2 * M_PI) + mu2p) + log_det + std::log(g.weights[m]);
  }
  log_resp.assign(n * k, 0.0);
  double total = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double* xi = &x[i * d];
    double* lr = &log_resp[i * k];
    double mx = -std::numeric_limits<double>::infinity();
    for (std::int64_t m = 0; m < k; ++m) {
      double cross = 0, sq = 0;
      for (std::int64_t j = 0; j < d; ++j) {
        cross += xi[j] * mp[m * d + j];
        sq += xi[j] * xi[j] * prec[m * d + j];
      }
      lr[m] = const_term[m] - 0.5 * (sq - 2.0 * cross);
      mx = std::max(mx, lr[m]);
    }
    // logsumexp over the modes.
    double s = 0;
    for (std::int64_t m = 0; m < k; ++m) s += std::exp(lr[m] - mx);
    const double norm = std::log(s) + mx;
    for (std::int64_t m = 0; m < k; ++m) lr[m] -= norm;
    total += norm;
  }
  return total / static_cast<double>(n);
}

namespace {

double sq_dist(const double* a, const double* b, std::int64_t d) {
  double s = 0;
  for (std::int64_t j = 0; j < d; ++j) s += (a[j] - b[j]) * (a[j] - b[j]);
  return s;
}

/// k-means++ seeding (greedy, 2 + floor(ln k) local trials, as scikit-learn): the chosen row indices.
std::vector<std::int64_t> kmeans_pp(const std::vector<double>& x, std::int64_t n, std::int64_t d, std::int64_t k,
                                    std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  const int trials = 2 + static_cast<int>(std::log(static_cast<double>(k)));
  std::vector<std::int64_t> idx{static_cast<std::int64_t>(uni(rng) * static_cast<double>(n)) % n};
  std::vector<double> closest(n), cand(n), best_d(n);
  for (std::int64_t i = 0; i < n; ++i) closest[i] = sq_dist(&x[i * d], &x[idx[0] * d], d);
  while (static_cast<std::int64_t>(idx.size()) < k) {
    std::vector<double> cum(n);
    std::partial_sum(closest.begin(), closest.end(), cum.begin());
    const double pot = cum.back();
    double best_pot = std::numeric_limits<double>::infinity();
    std::int64_t best = 0;
    for (int t = 0; t < trials; ++t) {
      const double r = uni(rng) * pot;
      auto c = std::min<std::int64_t>(std::lower_bound(cum.begin(), cum.end(), r) - cum.begin(), n - 1);
      double p = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        cand[i] = std::min(closest[i], sq_dist(&x[i * d], &x[c * d], d));
        p += cand[i];
      }
      if (p < best_pot) {
        best_pot = p;
        best = c;
        best_d = cand;
      }
    }
    idx.push_back(best);
    closest = best_d;
  }
  return idx;
}

/// Lloyd's centre update; empty clusters take the points farthest from their centres (as
/// scikit-learn relocates them). Returns the total squared centre shift.
double update_centers(const std::vector<double>& x, std::int64_t n, std::int64_t d, std::int64_t k,
                      const std::vector<std::int64_t>& labels, const std::vector<double>& dist,
                      std::vector<double>& centers) {
  std::vector<double> sums(k * d, 0.0);
  std::vector<std::int64_t> counts(k, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    ++counts[labels[i]];
    for (std::int64_t j = 0; j < d; ++j) sums[labels[i] * d + j] += x[i * d + j];
  }
  std::vector<std::int64_t> far(n);
  std::iota(far.begin(), far.end(), 0);
  std::stable_sort(far.begin(), far.end(), [&](auto a, auto b) { return dist[a] > dist[b]; });
  std::int64_t next_far = 0;
  double shift = 0;
  std::vector<double> c(d);
  for (std::int64_t m = 0; m < k; ++m) {
    if (counts[m] == 0) {
      std::copy_n(&x[far[next_far++ % n] * d], d, c.begin());
    } else {
      for (std::int64_t j = 0; j < d; ++j) c[j] = sums[m * d + j] / static_cast<double>(counts[m]);
    }
    shift += sq_dist(c.data(), &centers[m * d], d);
    std::copy(c.begin(), c.end(), &centers[m * d]);
  }
  return shift;
}

/// scikit-learn's KMeans(n_init=1) labels: k-means++ seeding, Lloyd iterations (max 300) until the
/// labels repeat or the total squared centre shift is below 1e-4 times the mean per-feature variance.
std::vector<std::int64_t> kmeans_labels(const std::vector<double>& x, std::int64_t n, std::int64_t d,
                                        std::int64_t k, std::mt19937_64& rng) {
  std::vector<double> centers(k * d);
  const auto seeds = kmeans_pp(x, n, d, k, rng);
  for (std::int64_t m = 0; m < k; ++m) std::copy_n(&x[seeds[m] * d], d, &centers[m * d]);
  double mean_var = 0;
  for (std::int64_t j = 0; j < d; ++j) {
    double s = 0, s2 = 0;
    for (std::int64_t i = 0; i < n; ++i) s += x[i * d + j];
    const double mu = s / static_cast<double>(n);
    for (std::int64_t i = 0; i < n; ++i) s2 += (x[i * d + j] - mu) * (x[i * d + j] - mu);
    mean_var += s2 / static_cast<double>(n);
  }
  const double tol = 1e-4 * mean_var / static_cast<double>(d);
  std::vector<std::int64_t> labels(n, -1), prev;
  std::vector<double> dist(n);
  auto assign = [&] {
    for (std::int64_t i = 0; i < n; ++i) {
      double best = std::numeric_limits<double>::infinity();
      for (std::int64_t m = 0; m < k; ++m) {
        const double s = sq_dist(&x[i * d], &centers[m * d], d);
        if (s < best) {
          best = s;
          labels[i] = m;
        }
      }
      dist[i] = best;
    }
  };
  for (int it = 0; it < 300; ++it) {
    prev = labels;
    assign();
    if (labels == prev) break;
    if (update_centers(x, n, d, k, labels, dist, centers) <= tol) {
      assign();
      break;
    }
  }
  return labels;
}

/// scikit-learn's _estimate_gaussian_parameters (diag) from responsibilities resp (n, k).
GmmHost gaussian_parameters(const std::vector<double>& x, const std::vector<double>& resp, std::int64_t n,
                            std::int64_t d, std::int64_t k, double reg_covar) {
  GmmHost g;
  g.k = k;
  g.d = d;
  g.weights.assign(k, 10 * std::numeric_limits<double>::epsilon());
  g.means.assign(k * d, 0.0);
  std::vector<double> x2(k * d, 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t m = 0; m < k; ++m) {
      const double r = resp[i * k + m];
      if (r == 0) continue;
      g.weights[m] += r;
      for (std::int64_t j = 0; j < d; ++j) {
        g.means[m * d + j] += r * x[i * d + j];
        x2[m * d + j] += r * (x[i * d + j] * x[i * d + j]);
      }
    }
  g.covariances.resize(k * d);
  for (std::int64_t m = 0; m < k; ++m)
    for (std::int64_t j = 0; j < d; ++j) {
      const std::int64_t q = m * d + j;
      g.means[q] /= g.weights[m];
      g.covariances[q] = x2[q] / g.weights[m] - g.means[q] * g.means[q] + reg_covar;
      if (!(g.covariances[q] > 0))
        throw InvalidArgument(
            "learn_gmm: fitting the mixture model failed because some components have ill-defined empirical "
            "covariance (for instance caused by singleton or collapsed samples); try fewer modes or a larger "
            "reg_covar");
    }
  return g;
}

std::vector<double> initial_resp(const std::vector<double>& x, std::int64_t n, std::int64_t d, std::int64_t k,
                                 GmmInit init, std::mt19937_64& rng) {
  std::vector<double> resp(n * k, 0.0);
  if (init == GmmInit::kmeans) {
    const auto labels = kmeans_labels(x, n, d, k, rng);
    for (std::int64_t i = 0; i < n; ++i) resp[i * k + labels[i]] = 1;
  } else if (init == GmmInit::random) {
    std::uniform_real_distribution<double> uni(0.0, 1.0);
    for (std::int64_t i = 0; i < n; ++i) {
      double s = 0;
      for (std::int64_t m = 0; m < k; ++m) s += (resp[i * k + m] = uni(rng));
      for (std::int64_t m = 0; m < k; ++m) resp[i * k + m] /= s;
    }
  } else {
    std::vector<std::int64_t> idx;
    if (init == GmmInit::k_means_pp) {
      idx = kmeans_pp(x, n, d, k, rng);
    } else {
      std::vector<std::int64_t> all(n);
      std::iota(all.begin(), all.end(), 0);
      std::shuffle(all.begin(), all.end(), rng);
      idx.assign(all.begin(), all.begin() + k);
    }
    for (std::int64_t m = 0; m < k; ++m) resp[idx[m] * k + m] = 1;
  }
  return resp;
}

void validate(const LearnGmmOptions& o, std::int64_t n) {
  if (o.n_modes < 1) throw InvalidArgument("learn_gmm: n_modes must be a positive integer");
  if (o.n_modes > n)
    throw InvalidArgument("learn_gmm: n_modes=" + std::to_string(o.n_modes) + " exceeds the number of descriptors " +
                          std::to_string(n));
  if (!(o.tol >= 0)) throw InvalidArgument("learn_gmm: tol must be >= 0");
  if (!(o.reg_covar >= 0)) throw InvalidArgument("learn_gmm: reg_covar must be >= 0");
  if (o.max_iter < 0) throw InvalidArgument("learn_gmm: max_iter must be >= 0");
  if (o.n_init < 1) throw InvalidArgument("learn_gmm: n_init must be >= 1");
}

}  // namespace
}  // namespace detail

Gmm learn_gmm(const Array& descriptors, const LearnGmmOptions& options, const Stream& stream) {
  const std::vector<double> x = detail::host_matrix(descriptors, "learn_gmm", stream);
  const std::int64_t n = descriptors.shape(0), d = descriptors.shape(1), k = options.n_modes;
  detail::validate(options, n);
  std::mt19937_64 rng(static_cast<std::uint64_t>(options.random_state));
  detail::GmmHost best;
  double best_bound = -std::numeric_limits<double>::infinity();
  std::vector<double> log_resp, resp(n * k);
  for (std::int64_t init = 0; init < options.n_init; ++init) {
    const auto r0 = detail::initial_resp(x, n, d, k, options.init_params, rng);
    detail::GmmHost g = detail::gaussian_parameters(x, r0, n, d, k, options.reg_covar);
    for (double& w : g.weights) w /= static_cast<double>(n);
    double bound = -std::numeric_limits<double>::infinity();
    for (std::int64_t it = 0; it < options.max_iter; ++it) {
      const double prev = bound;
      const double lpn = detail::gmm_log_resp(x, n, g, log_resp);
      for (std::int64_t q = 0; q < n * k; ++q) resp[q] = std::exp(log_resp[q]);
      g = detail::gaussian_parameters(x, resp, n, d, k, options.reg_covar);
      const double wsum = std::accumulate(g.weights.begin(), g.weights.end(), 0.0);
      for (double& w : g.weights) w /= wsum;
      bound = lpn;
      if (std::abs(bound - prev) < options.tol) break;
    }
    if (init == 0 || bound > best_bound) {
      best_bound = bound;
      best = std::move(g);
    }
  }
  return detail::gmm_from_host(best, descriptors.device(), stream);
}

}  // namespace cuskimage::feature
