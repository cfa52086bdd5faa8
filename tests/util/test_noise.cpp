// random_noise: NumPy's generator cannot be matched, so these check the statistics of scikit-image's
// own output (stored by cases_util.py) and the semantics: dtype, clipping, fractions, seeding.
#include <cmath>

#include "src/util/rng.hpp"
#include "tests/util/util_test_common.hpp"

namespace util = cuskimage::util;
using namespace utiltest;
using cuskimage::InvalidArgument;
using util::NoiseMode;

namespace {

struct Stats {
  double mean = 0, noise_sd = 0, frac_one = 0, frac_floor = 0;
};

Stats stats_of(const Array& out, const Array& ref, double floor) {
  const std::vector<double> o = out.to_vector<double>(), r = ref.to_vector<double>();
  Stats s;
  double m = 0, d1 = 0, d2 = 0;
  for (std::size_t i = 0; i < o.size(); ++i) {
    m += o[i];
    const double d = o[i] - r[i];
    d1 += d;
    d2 += d * d;
    s.frac_one += o[i] == 1.0;
    s.frac_floor += o[i] == floor;
  }
  const double n = static_cast<double>(o.size());
  s.mean = m / n;
  s.noise_sd = std::sqrt(d2 / n - (d1 / n) * (d1 / n));
  s.frac_one /= n;
  s.frac_floor /= n;
  return s;
}

void expect_stats_like_skimage(const std::string& name, const Array& input, const util::RandomNoiseOptions& base) {
  SCOPED_TRACE(name);
  const Array gold = golden("noise_stats_" + name);
  const std::vector<double> g = gold.to_vector<double>();
  const Array ref = util::img_as_float(input);
  double lo = 0;
  for (double v : ref.to_vector<double>()) lo = std::min(lo, v);
  Stats avg;
  const int seeds = 8;
  for (int seed = 0; seed < seeds; ++seed) {
    util::RandomNoiseOptions o;
    o.mode = base.mode;
    o.rng = 1000 + seed;
    o.clip = base.clip;
    o.mean = base.mean;
    o.var = base.var;
    o.amount = base.amount;
    o.salt_vs_pepper = base.salt_vs_pepper;
    const Stats s = stats_of(util::random_noise(input, o), ref, lo < 0 ? -1.0 : 0.0);
    avg.mean += s.mean / seeds;
    avg.noise_sd += s.noise_sd / seeds;
    avg.frac_one += s.frac_one / seeds;
    avg.frac_floor += s.frac_floor / seeds;
  }
  EXPECT_NEAR(avg.mean, g[0], 0.004);
  EXPECT_NEAR(avg.noise_sd, g[1], 0.03 * g[1] + 1e-4);
  EXPECT_NEAR(avg.frac_one, g[2], 0.006);
  EXPECT_NEAR(avg.frac_floor, g[3], 0.006);
}

}  // namespace

TEST(UtilNoise, StatisticsMatchScikitImage) {
  const Array cam = golden("in_camera");
  const Array sgn = golden("in_noise_signed");
  expect_stats_like_skimage("gaussian", cam, {.mode = NoiseMode::gaussian});
  expect_stats_like_skimage("gaussian_mean_var", cam, {.mode = NoiseMode::gaussian, .clip = false, .mean = 0.1, .var = 0.04});
  expect_stats_like_skimage("speckle", cam, {.mode = NoiseMode::speckle, .clip = false, .var = 0.05});
  expect_stats_like_skimage("salt", cam, {.mode = NoiseMode::salt, .amount = 0.2});
  expect_stats_like_skimage("pepper", cam, {.mode = NoiseMode::pepper, .amount = 0.3});
  expect_stats_like_skimage("sp", cam, {.mode = NoiseMode::s_and_p, .amount = 0.25, .salt_vs_pepper = 0.3});
  expect_stats_like_skimage("poisson", cam, {.mode = NoiseMode::poisson});
  expect_stats_like_skimage("localvar", cam, {.mode = NoiseMode::localvar, .clip = false});
  expect_stats_like_skimage("sp_signed", sgn, {.mode = NoiseMode::s_and_p, .amount = 0.5});
  expect_stats_like_skimage("poisson_signed", sgn, {.mode = NoiseMode::poisson, .clip = false});
}

TEST(UtilNoise, GaussianMomentsOnLargeImage) {
  // Zero image, no clipping: the noise itself. 512x512 samples pin mean and variance tightly.
  const Array z = Array::zeros({512, 512}, DType::float64);
  const Array n = util::random_noise(z, {.rng = 5, .clip = false, .mean = 0.25, .var = 0.09});
  const std::vector<double> v = n.to_vector<double>();
  double m = 0, m2 = 0, m3 = 0, m4 = 0;
  for (double x : v) m += x;
  m /= v.size();
  for (double x : v) {
    const double d = x - m;
    m2 += d * d, m3 += d * d * d, m4 += d * d * d * d;
  }
  m2 /= v.size(), m3 /= v.size(), m4 /= v.size();
  EXPECT_NEAR(m, 0.25, 0.002);
  EXPECT_NEAR(m2, 0.09, 0.001);
  EXPECT_NEAR(m3 / std::pow(m2, 1.5), 0.0, 0.02);  // skewness
  EXPECT_NEAR(m4 / (m2 * m2), 3.0, 0.05);          // kurtosis
}

TEST(UtilNoise, PoissonMeanAndVariance) {
  // Constant image x: counts ~ Poisson(x * vals) / vals, vals = 1 (one distinct value): mean x, var x.
  for (double lam : {0.3, 4.0, 25.0, 1000.0}) {
    SCOPED_TRACE(lam);
    const Array img = Array::full({256, 256}, lam, DType::float64);
    const Array out = util::random_noise(img, {.mode = NoiseMode::poisson, .rng = 9, .clip = false});
    const std::vector<double> v = out.to_vector<double>();
    double m = 0, m2 = 0;
    bool integral = true;
    for (double x : v) m += x, integral &= x == std::floor(x);
    m /= v.size();
    for (double x : v) m2 += (x - m) * (x - m);
    m2 /= v.size();
    EXPECT_TRUE(integral);
    EXPECT_NEAR(m, lam, 4 * std::sqrt(lam / v.size()) + 1e-3);
    EXPECT_NEAR(m2, lam, 0.03 * lam + 0.01);
  }
}

TEST(UtilNoise, DtypeClipAndSeeds) {
  const Array cam = golden("in_camera");
  const Array f = util::random_noise(cam, {.rng = 1});
  EXPECT_EQ(f.dtype(), DType::float64);
  const Array f32 = util::random_noise(util::img_as_float32(cam), {.rng = 1});
  EXPECT_EQ(f32.dtype(), DType::float32);
  for (double x : f.to_vector<double>()) ASSERT_TRUE(x >= 0.0 && x <= 1.0);
  EXPECT_ARRAY_EQ(f, util::random_noise(cam, {.rng = 1}));
  EXPECT_FALSE(cusktest::arrays_equal(f, util::random_noise(cam, {.rng = 2})));
  EXPECT_FALSE(cusktest::arrays_equal(f, util::random_noise(cam)));  // fresh seed
  // Noise depends on the position only, not on the input layout.
  EXPECT_ARRAY_EQ(f, util::random_noise(strided_twin(cam), {.rng = 1}));
  // Signed input clips to [-1, 1].
  const Array s = util::random_noise(golden("in_noise_signed"), {.rng = 3, .var = 0.5});
  bool below_zero = false;
  for (double x : s.to_vector<double>()) {
    ASSERT_TRUE(x >= -1.0 && x <= 1.0);
    below_zero |= x < 0;
  }
  EXPECT_TRUE(below_zero);
  // s&p fractions: amount 1 replaces every pixel.
  const Array all = util::random_noise(cam, {.mode = NoiseMode::s_and_p, .rng = 4, .amount = 1.0, .salt_vs_pepper = 1.0});
  for (double x : all.to_vector<double>()) ASSERT_EQ(x, 1.0);
  const Array none = util::random_noise(cam, {.mode = NoiseMode::s_and_p, .rng = 4, .amount = 0.0});
  EXPECT_ARRAY_EQ(util::img_as_float(cam), none);
  // 3-D and degenerate shapes.
  EXPECT_EQ(util::random_noise(Array::zeros({3, 4, 5}, DType::uint8), {.rng = 1}).shape(), (Shape{3, 4, 5}));
  EXPECT_EQ(util::random_noise(Array::zeros({0, 4}, DType::uint8), {.rng = 1}).shape(), (Shape{0, 4}));
}

TEST(UtilNoise, LocalVarArrays) {
  const Array z = Array::zeros({200, 300}, DType::float64);
  // Per-column variance broadcast from shape (300,): column c has variance (c + 1) * 1e-4.
  std::vector<double> lv(300);
  for (int c = 0; c < 300; ++c) lv[c] = (c + 1) * 1e-4;
  const Array lva = Array::from_vector(lv, {300});
  const Array out = util::random_noise(z, {.mode = NoiseMode::localvar, .rng = 8, .clip = false, .local_vars = lva.share()});
  const std::vector<double> v = out.to_vector<double>();
  double lo = 0, hi = 0;  // variance of the first and last 50 columns
  for (int r = 0; r < 200; ++r)
    for (int c = 0; c < 50; ++c) lo += v[r * 300 + c] * v[r * 300 + c], hi += v[r * 300 + 250 + c] * v[r * 300 + 250 + c];
  lo /= 200 * 50, hi /= 200 * 50;
  EXPECT_NEAR(lo, 25.5e-4, 3e-4);
  EXPECT_NEAR(hi, 275.5e-4, 3e-3);
  // Full-shape local_vars of 0.01 == the default.
  const Array full = Array::full({200, 300}, 0.01, DType::float64);
  EXPECT_ARRAY_NEAR(util::random_noise(z, {.mode = NoiseMode::localvar, .rng = 8}),
                    util::random_noise(z, {.mode = NoiseMode::localvar, .rng = 8, .local_vars = full.share()}), 0, 0);
  const Array bad = Array::full({200, 300}, 0.0, DType::float64);
  EXPECT_TRUE(throws_with<InvalidArgument>(
      [&] { (void)util::random_noise(z, {.mode = NoiseMode::localvar, .local_vars = bad.share()}); },
      {"util.random_noise", "'local_vars'", "> 0"}));
  const Array wrong = Array::full({7}, 0.1, DType::float64);
  EXPECT_TRUE(throws_with<InvalidArgument>(
      [&] { (void)util::random_noise(z, {.mode = NoiseMode::localvar, .local_vars = wrong.share()}); },
      {"util.random_noise", "'local_vars'"}));
}

TEST(UtilNoise, BadArguments) {
  const Array cam = golden("in_camera");
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::random_noise(cam, {.var = -1}); },
                                           {"util.random_noise", "'var'"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::noise_mode_from_name("pink"); },
                                           {"util.random_noise", "'mode'"}));
  EXPECT_EQ(util::noise_mode_from_name("S&P"), NoiseMode::s_and_p);
  EXPECT_EQ(util::noise_mode_name(NoiseMode::speckle), "speckle");
  EXPECT_THROW((void)util::random_noise(Array()), InvalidArgument);
  const Array below = Array::from_vector<double>({-2.0, 0.5}, {2});
  EXPECT_THROW((void)util::random_noise(below, {.mode = NoiseMode::poisson}), InvalidArgument);
}

TEST(UtilNoise, PhiloxKnownAnswers) {
  // Random123's known-answer vectors for Philox4x32-10.
  using cuskimage::util::detail::philox4x32_10;
  struct Kat {
    std::uint32_t ctr[4], key[2], out[4];
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}},
      {{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu},
       {0xffffffffu, 0xffffffffu},
       {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}},
      {{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u},
       {0xa4093822u, 0x299f31d0u},
       {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}},
  };
  for (const Kat& k : kats) {
    std::uint32_t out[4];
    philox4x32_10(k.ctr, k.key, out);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(out[i], k.out[i]) << std::hex << "word " << i;
  }
}

TEST(UtilNoise, ElementaryFunctionsAccurate) {
  using cuskimage::util::detail::exp_neg_hd;
  using cuskimage::util::detail::log_factorial_hd;
  using cuskimage::util::detail::log_hd;
  for (double x : {1e-300, 4.9e-324, 1e-5, 0.1, 0.5, 0.999999, 1.0, 1.5, 2.0, 3.0, 1e10, 1.7e308}) {
    EXPECT_NEAR(log_hd(x), std::log(x), 4e-16 * std::max(1.0, std::abs(std::log(x)))) << x;
  }
  EXPECT_EQ(log_hd(0.0), -INFINITY);
  EXPECT_TRUE(std::isnan(log_hd(-1.0)));
  for (double x : {0.0, -1e-9, -0.3, -1.0, -2.5, -9.99, -50.0}) EXPECT_NEAR(exp_neg_hd(x), std::exp(x), 4e-16 * std::exp(x)) << x;
  for (double k : {0.0, 1.0, 5.0, 15.0, 16.0, 17.0, 100.0, 1e6})
    EXPECT_NEAR(log_factorial_hd(k), std::lgamma(k + 1), 1e-13 * std::max(1.0, std::lgamma(k + 1))) << k;
}
