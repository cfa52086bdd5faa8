// fisher_vector: scikit-image's gradient statistics of the descriptors under a diagonal GMM,
// normalised analytically, optionally power- and L2-normalised. Host computation (see the header).
#include <cmath>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "src/feature/gmm.hpp"

namespace cuskimage::feature {

Array fisher_vector(const Array& descriptors, const Gmm& gmm, const FisherVectorOptions& options,
                    const Stream& stream) {
  const char* fn = "fisher_vector";
  const std::vector<double> x = detail::host_matrix(descriptors, fn, stream);
  const std::int64_t n = descriptors.shape(0), d = descriptors.shape(1);
  const detail::GmmHost g = detail::gmm_to_host(gmm, d, fn);
  const std::int64_t k = g.k;
  std::vector<double> resp;
  detail::gmm_log_resp(x, n, g, resp);
  for (double& r : resp) r = std::exp(r);

  // Posterior statistics: mean responsibility, first and second moments per mode.
  std::vector<double> pp(k, 0.0), ppx(k * d, 0.0), ppx2(k * d, 0.0);
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t m = 0; m < k; ++m) {
      const double r = resp[i * k + m];
      pp[m] += r;
      for (std::int64_t j = 0; j < d; ++j) {
        const double v = x[i * d + j];
        ppx[m * d + j] += r * v;
        ppx2[m * d + j] += r * (v * v);
      }
    }
  const double nd = static_cast<double>(n);
  for (auto& v : pp) v /= nd;
  for (auto& v : ppx) v /= nd;
  for (auto& v : ppx2) v /= nd;

  // [d_pi, d_mu, d_sigma] in scikit-image's order of operations.
  std::vector<double> out(k + 2 * k * d);
  for (std::int64_t m = 0; m < k; ++m) {
    const double sw = std::sqrt(g.weights[m]);
    out[m] = (pp[m] - g.weights[m]) / sw;
    for (std::int64_t j = 0; j < d; ++j) {
      const std::int64_t q = m * d + j;
      const double mu = g.means[q], var = g.covariances[q];
      out[k + q] = (ppx[q] - pp[m] * mu) / (sw * std::sqrt(var));
      const double ds = -ppx2[q] - pp[m] * (mu * mu) + pp[m] * var + 2 * ppx[q] * mu;
      out[k + k * d + q] = ds / (std::sqrt(2.0) * sw * var);
    }
  }
  if (options.improved) {
    double norm2 = 0;
    for (double& v : out) {
      v = (v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0) * std::pow(std::abs(v), options.alpha);
      norm2 += v * v;
    }
    const double norm = std::sqrt(norm2);
    for (double& v : out) v /= norm;
  }
  return Array::from_vector(out, {static_cast<std::int64_t>(out.size())}).to(descriptors.device(), stream);
}

}  // namespace cuskimage::feature
