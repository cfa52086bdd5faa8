// Commands added with the options field lists: filters.gabor_kernel (the kernel's two parts) and
// filters.LPIFilter2D / --impulse_response (an impulse response sampled into an array file), each
// checked against the library.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cuskimage/cuskimage.hpp"
#include "tests/cli/cli_support.hpp"

using namespace cuskimage;
using cuskclitest::describe;
using cuskclitest::run_cli_cpu;
using cusktest::temp_path;

namespace {

double skewed(double r, double c) { return std::exp(-((r - 1) * (r - 1) + 2 * (c + 0.5) * (c + 0.5))); }

/// skewed() sampled at integer offsets from the centre (shape // 2) of an odd array covering every
/// offset LPIFilter2D evaluates for data of `rows` x `cols`.
Array sampled(std::int64_t rows, std::int64_t cols) {
  const std::int64_t h = 2 * (rows / 2) + 1, w = 2 * (cols / 2) + 1;
  std::vector<double> v;
  for (std::int64_t i = 0; i < h; ++i)
    for (std::int64_t j = 0; j < w; ++j) v.push_back(skewed(static_cast<double>(i - h / 2), static_cast<double>(j - w / 2)));
  return Array::from_vector(v, {h, w});
}

double max_abs_diff(const Array& a, const Array& b) {
  EXPECT_EQ(a.shape(), b.shape());
  const auto x = a.to_vector<double>(), y = b.to_vector<double>();
  double d = 0;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i) d = std::max(d, std::fabs(x[i] - y[i]));
  return d;
}

}  // namespace

TEST(CliFilters, GaborKernel) {
  const std::string re = temp_path("gk_re.npy"), im = temp_path("gk_im.npy");
  auto r = run_cli_cpu({"filters.gabor_kernel", re, im, "--frequency", "0.2", "--theta", "0.7853981633974483",
                        "--bandwidth", "2"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  const auto k = filters::gabor_kernel(0.2, {.theta = 0.7853981633974483, .bandwidth = 2});
  EXPECT_ARRAY_EQ(k.real, io::imread(re));
  EXPECT_ARRAY_EQ(k.imag, io::imread(im));
  // float32 parts, sigma_x/sigma_y given, a negative offset.
  r = run_cli_cpu({"filters.gabor_kernel", re, im, "--frequency", "0.3", "--sigma_x", "2", "--sigma_y", "4",
                   "--offset", "-0.5", "--dtype", "float32"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  const auto k32 =
      filters::gabor_kernel(0.3, {.sigma_x = 2.0, .sigma_y = 4.0, .offset = -0.5, .dtype = DType::float32});
  EXPECT_EQ(io::imread(re).dtype(), DType::float32);
  EXPECT_ARRAY_EQ(k32.real, io::imread(re));
  EXPECT_ARRAY_EQ(k32.imag, io::imread(im));
  // frequency is required; a dtype without a complex counterpart is the library's error.
  EXPECT_EQ(run_cli_cpu({"filters.gabor_kernel", re, im}).rc, 2);
  EXPECT_EQ(run_cli_cpu({"filters.gabor_kernel", re, im, "--frequency", "0.1", "--dtype", "int32"}).rc, 1);
}

TEST(CliFilters, LpiFilterWithSampledImpulseResponse) {
  const Array data = cusktest::random_array({20, 25}, DType::float64, 4, 0, 1);
  const std::string in = temp_path("lpi_in.npy"), psf = temp_path("lpi_psf.npy");
  io::imsave(in, data);
  io::imsave(psf, sampled(20, 25));
  const Array expect = filters::filter_forward(data, {.impulse_response = skewed});

  const std::string out = temp_path("lpi_out.npy");
  auto r = run_cli_cpu({"filters.LPIFilter2D", in, out, "--impulse_response", psf});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_LE(max_abs_diff(expect, io::imread(out)), 1e-12);
  r = run_cli_cpu({"filters.filter_forward", in, out, "--impulse_response", psf});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_LE(max_abs_diff(expect, io::imread(out)), 1e-12);
  r = run_cli_cpu({"filters.wiener", in, out, "--impulse_response", psf, "--K", "0.05"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_LE(max_abs_diff(filters::wiener(data, {.impulse_response = skewed, .K = 0.05}), io::imread(out)), 1e-12);

  // Without --impulse_response: the Gaussian of --sigma, as before.
  r = run_cli_cpu({"filters.LPIFilter2D", in, out, "--sigma", "2"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  const auto gauss2 = [](double rr, double c) { return std::exp(-(rr * rr + c * c) / 8.0); };
  EXPECT_LE(max_abs_diff(filters::filter_forward(data, {.impulse_response = gauss2}), io::imread(out)), 1e-12);

  // The impulse response must be 2-D.
  const std::string flat = temp_path("lpi_flat.npy");
  io::imsave(flat, Array::from_vector<double>({1, 2, 3}, {3}));
  EXPECT_EQ(run_cli_cpu({"filters.LPIFilter2D", in, out, "--impulse_response", flat}).rc, 2);
}
