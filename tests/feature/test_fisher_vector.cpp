// fisher_vector against scikit-image 0.26 given the same (scikit-learn-fitted) GMM parameters, to
// 1e-10; learn_gmm against scikit-learn's fit on well-separated clusters (equal in distribution
// only: the modes are matched by sorting their means); bad arguments; device inputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

Array golden(const std::string& name) { return cusktest::load_golden("feature_learned/" + name + ".npy"); }

ft::Gmm golden_gmm(const std::string& name) {
  return {golden(name + "_means"), golden(name + "_covariances"), golden(name + "_weights")};
}

ft::Gmm to_device(const ft::Gmm& g, const Device& dev, const Stream& s) {
  return {g.means.to(dev, s), g.covariances.to(dev, s), g.weights.to(dev, s)};
}

void run_fisher_goldens(const Device& dev, const Stream& s) {
  const auto count = golden("fv_ncases").to_vector<std::int64_t>()[0];
  ASSERT_EQ(count, 4);
  for (int c = 0; c < count; ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    const Array x = golden("fv_x" + std::to_string(c)).to(dev, s);
    const auto gi = golden("fv_g" + std::to_string(c)).to_vector<std::int64_t>()[0];
    const ft::Gmm g = to_device(golden_gmm("gmm" + std::to_string(gi)), dev, s);
    const std::string stem = "fv_" + std::to_string(c) + "_";
    const Array plain = ft::fisher_vector(x, g, {}, s);
    EXPECT_EQ(plain.device(), dev);
    EXPECT_ARRAY_NEAR(golden(stem + "0"), cusktest::host_copy(plain), 0, 1e-10);
    EXPECT_ARRAY_NEAR(golden(stem + "1"), cusktest::host_copy(ft::fisher_vector(x, g, {.improved = true}, s)), 0,
                      1e-10);
    EXPECT_ARRAY_NEAR(golden(stem + "2"),
                      cusktest::host_copy(ft::fisher_vector(x, g, {.improved = true, .alpha = 0.3}, s)), 0, 1e-10);
  }
}

TEST(FeatureFisherVector, Goldens) { run_fisher_goldens(Device::cpu(), Stream()); }

TEST(FeatureFisherVector, Float32DescriptorsAndStridedView) {
  const ft::Gmm g = golden_gmm("gmm1");
  const Array x = golden("fv_x2");
  // A strided view: every other row, same values as the contiguous copy.
  const Array view = x.slice({cuskimage::Slice{std::nullopt, std::nullopt, 2}});
  EXPECT_ARRAY_EQ(ft::fisher_vector(view.copy(), g), ft::fisher_vector(view, g));
  // float32 descriptors are converted to float64 first.
  const Array x32 = x.astype(DType::float32);
  EXPECT_ARRAY_EQ(ft::fisher_vector(x32.astype(DType::float64), g), ft::fisher_vector(x32, g));
}

TEST(FeatureFisherVector, BadArguments) {
  const ft::Gmm g = golden_gmm("gmm0");
  const Array x = golden("fv_x0");
  const Array w3 = Array::zeros({3}, DType::float64), zero_var = Array::zeros({4, 6}, DType::float64);
  EXPECT_THROW(ft::fisher_vector(Array::zeros({6}, DType::float64), g), InvalidArgument);
  EXPECT_THROW(ft::fisher_vector(Array::zeros({2, 3, 6}, DType::float64), g), InvalidArgument);
  EXPECT_THROW(ft::fisher_vector(golden("fv_x2"), g), InvalidArgument);  // D = 16 against a D = 6 GMM
  EXPECT_THROW(ft::fisher_vector(x, {g.means.share(), g.covariances.share(), w3.share()}), InvalidArgument);
  EXPECT_THROW(ft::fisher_vector(x, {g.means.share(), zero_var.share(), g.weights.share()}), InvalidArgument);
  EXPECT_THROW(
      ft::fisher_vector(x, {g.means.share(), g.covariances.slice({cuskimage::Slice{0, 2}}), g.weights.share()}),
      InvalidArgument);
  EXPECT_THROW(ft::learn_gmm(x, {.n_modes = 0}), InvalidArgument);
  EXPECT_THROW(ft::learn_gmm(x, {.n_modes = 1000}), InvalidArgument);  // more modes than descriptors
  EXPECT_THROW(ft::learn_gmm(Array::zeros({40}, DType::float64), {.n_modes = 2}), InvalidArgument);
  EXPECT_THROW(ft::learn_gmm(x, {.n_modes = 2, .n_init = 0}), InvalidArgument);
  // Collapsed samples with no regularisation: scikit-learn's ill-defined covariance.
  EXPECT_THROW(ft::learn_gmm(Array::zeros({20, 3}, DType::float64), {.n_modes = 2, .reg_covar = 0}),
               InvalidArgument);
}

/// The GMM with its modes sorted by the first mean coordinate, as the goldens are.
std::vector<std::vector<double>> sorted_modes(const ft::Gmm& g) {
  const auto m = g.means.to_vector<double>(), c = g.covariances.to_vector<double>(), w = g.weights.to_vector<double>();
  const std::int64_t k = g.means.shape(0), d = g.means.shape(1);
  std::vector<std::int64_t> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return m[a * d] < m[b * d]; });
  std::vector<std::vector<double>> out(3);
  for (auto q : order) {
    out[0].insert(out[0].end(), m.begin() + q * d, m.begin() + (q + 1) * d);
    out[1].insert(out[1].end(), c.begin() + q * d, c.begin() + (q + 1) * d);
    out[2].push_back(w[q]);
  }
  return out;
}

void expect_fit(const ft::Gmm& got, const std::string& suffix, double atol) {
  const auto modes = sorted_modes(got);
  const char* names[] = {"lg_means", "lg_covariances", "lg_weights"};
  for (int f = 0; f < 3; ++f) {
    SCOPED_TRACE(names[f]);
    const Array want = golden(names[f] + suffix);
    EXPECT_ARRAY_NEAR(want, Array::from_vector(modes[f], want.shape()), 0, atol);
  }
}

TEST(FeatureLearnGmm, MatchesScikitLearnOnSeparatedClusters) {
  const Array x = golden("lg_x");
  for (auto init : {ft::GmmInit::kmeans, ft::GmmInit::k_means_pp, ft::GmmInit::random_from_data})
    for (std::int64_t seed : {0, 1, 7}) {
      SCOPED_TRACE(std::to_string(static_cast<int>(init)) + " seed " + std::to_string(seed));
      const ft::Gmm g = ft::learn_gmm(x, {.n_modes = 3, .init_params = init, .random_state = seed});
      EXPECT_EQ(g.means.dtype(), DType::float64);
      // Both stop at tol 1e-3 on the mean log-likelihood: parameters agree to about 1e-2.
      expect_fit(g, "", 2e-2);
      // Run to convergence, both reach the same maximum.
      expect_fit(ft::learn_gmm(x, {.n_modes = 3, .tol = 1e-10, .max_iter = 1000, .init_params = init,
                                   .random_state = seed}),
                 "_tight", 1e-6);
    }
  // Seeded: the same seed gives the same fit.
  const ft::Gmm a = ft::learn_gmm(x, {.n_modes = 3, .random_state = 5});
  const ft::Gmm b = ft::learn_gmm(x, {.n_modes = 3, .random_state = 5});
  EXPECT_ARRAY_EQ(a.means, b.means);
  // n_init keeps the best of several initialisations.
  expect_fit(ft::learn_gmm(x, {.n_modes = 3, .tol = 1e-10, .max_iter = 1000, .n_init = 3, .random_state = 2}),
             "_tight", 1e-6);
}

TEST(FeatureLearnGmm, FitThenEncode) {
  const Array x = golden("lg_x");
  const ft::Gmm g = ft::learn_gmm(x, {.n_modes = 3, .random_state = 3});
  const Array fv = ft::fisher_vector(x, g);
  ASSERT_EQ(fv.shape(0), 3 + 2 * 3 * 3);
  // At a maximum of the likelihood the weight and mean gradients of the training data vanish.
  const auto v = fv.to_vector<double>();
  for (int i = 0; i < 3 + 9; ++i) EXPECT_NEAR(v[i], 0.0, 1e-2) << i;
}

TEST(GpuFeatureFisherVector, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_fisher_goldens(Device::cuda(), s);
  const Array x = golden("lg_x");
  const ft::Gmm h = ft::learn_gmm(x, {.n_modes = 3, .random_state = 4});
  const ft::Gmm d = ft::learn_gmm(x.to(Device::cuda(), s), {.n_modes = 3, .random_state = 4}, s);
  EXPECT_EQ(d.means.device(), Device::cuda());
  EXPECT_ARRAY_EQ(h.means, cusktest::host_copy(d.means));
  EXPECT_ARRAY_EQ(h.covariances, cusktest::host_copy(d.covariances));
  EXPECT_ARRAY_EQ(h.weights, cusktest::host_copy(d.weights));
}

}  // namespace
