// Frequency-domain filters of skimage.filters (butterworth, LPIFilter2D, filter_forward,
// filter_inverse, wiener, gabor_kernel, gabor) against scikit-image 0.26 golden outputs
// (tests/golden/cases_filters_frequency.py), strided views, bad inputs and the CLI; the Gpu* suites
// compare the CUDA backend with the CPU one on fresh random inputs.
//
// Tolerances: the FFT filters differ from scipy.fft only in the FFTs' rounding: float64 results
// within 1e-10 of the largest |value| (the FFT error is ~1e-15 relative), float32 within 2e-5.
// gabor_kernel: float64 1e-15 relative to the largest |value| (libm's cos/sin/exp), float32 one ulp.
// gabor: integer outputs exact, float64 1e-12, float32 1e-5 of the largest |value|.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <numbers>
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/io.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"


namespace filters = cuskimage::filters;
namespace ndimage = cuskimage::ndimage;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::NotSupported;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;

namespace {

Array golden(const std::string& name) { return cusktest::load_golden("filters_frequency/" + name + ".npy"); }

double max_abs(const Array& a) {
  double m = 0;
  for (double v : a.to_vector<double>()) m = std::max(m, std::fabs(v));
  return m;
}

/// |actual - expected| <= tol * max|expected| elementwise, dtype and shape equal.
::testing::AssertionResult close_scaled(const Array& expected, const Array& actual, double tol) {
  if (expected.dtype() != actual.dtype())
    return ::testing::AssertionFailure() << "dtype " << cuskimage::dtype_name(actual.dtype()) << ", expected "
                                         << cuskimage::dtype_name(expected.dtype());
  return cusktest::arrays_close(expected, actual, 0.0, tol * std::max(max_abs(expected), 1e-300));
}

double tol_for(const Array& a) { return a.dtype() == DType::float32 ? 2e-5 : 1e-10; }

double gauss1(double r, double c) { return std::exp(-(r * r + c * c) / 2); }
double skewed(double r, double c) { return std::exp(-((r - 1) * (r - 1) + 2 * (c + 0.5) * (c + 0.5))); }

filters::ImpulseResponse response(const std::string& name) {
  if (name == "gauss1") return gauss1;
  return skewed;
}

struct BwCase {
  std::string out, in;
  filters::ButterworthOptions opts;
};

std::vector<BwCase> bw_cases() {
  return {
      {"bw_cam_default", "cam", {}},
      {"bw_cam_low", "cam", {.cutoff_frequency_ratio = 0.1, .high_pass = false, .order = 4.0}},
      {"bw_cam_sqrt_npad", "cam", {.cutoff_frequency_ratio = 0.05, .squared_butterworth = false, .npad = 5}},
      {"bw_f32_low", "f32", {.cutoff_frequency_ratio = 0.2, .high_pass = false, .order = 3.0}},
      {"bw_f32_high_npad", "f32", {.cutoff_frequency_ratio = 0.15, .order = 1.5, .npad = 4}},
      {"bw_f64_3d", "f64_3d", {.cutoff_frequency_ratio = 0.1}},
      {"bw_f64_3d_low_npad", "f64_3d", {.cutoff_frequency_ratio = 0.3, .high_pass = false, .npad = 2}},
      {"bw_astro_rgb", "astro", {.cutoff_frequency_ratio = 0.05, .high_pass = false, .channel_axis = -1, .npad = 3}},
      {"bw_f32_c0", "f32_c0", {.cutoff_frequency_ratio = 0.25, .channel_axis = 0, .squared_butterworth = false}},
      {"bw_f64_1d", "f64_1d", {.cutoff_frequency_ratio = 0.2, .high_pass = false, .npad = 1}},
      {"bw_i16", "i16", {.cutoff_frequency_ratio = 0.4, .order = 2.5}},
  };
}

/// A strided view holding the values of `a` (every other element of a buffer twice as wide along
/// the last axis), to check that the filters read through strides.
Array strided_copy(const Array& a) {
  Shape wide = a.shape();
  wide.back() *= 2;
  Array big = Array::zeros(wide, a.dtype(), a.device());
  std::vector<Slice> sl(a.ndim());
  sl.back() = Slice{.start = 0, .stop = std::nullopt, .step = 2};
  Array view = big.slice(sl);
  view.copy_from(a);
  return view;
}

}  // namespace

// ==== butterworth =================================================================================

TEST(Butterworth, Golden) {
  for (const auto& c : bw_cases()) {
    const Array in = golden("in_" + c.in);
    const Array expected = golden(c.out);
    const Array out = filters::butterworth(in, c.opts);
    EXPECT_TRUE(close_scaled(expected, out, tol_for(expected))) << c.out;
  }
}

TEST(Butterworth, StridedViewsAndAxes) {
  const Array in = golden("in_f32");
  const Array ref = filters::butterworth(in, {.cutoff_frequency_ratio = 0.1, .npad = 2});
  // Same values through strides: the FFTs see identical buffers, so the results are identical.
  EXPECT_ARRAY_EQ(ref, filters::butterworth(strided_copy(in), {.cutoff_frequency_ratio = 0.1, .npad = 2}));
  // A negative-stride view filters as its contiguous copy.
  const Array flipped = in.slice({Slice{.start = std::nullopt, .stop = std::nullopt, .step = -1}});
  EXPECT_ARRAY_EQ(filters::butterworth(flipped.copy(), {}), filters::butterworth(flipped, {}));
  // channel_axis on a middle axis equals filtering each channel on its own.
  const Array rgb = golden("in_astro");  // 64x64x3
  const Array mid = rgb.transpose({0, 2, 1});
  const Array out = filters::butterworth(mid, {.cutoff_frequency_ratio = 0.1, .channel_axis = 1});
  for (int ch = 0; ch < 3; ++ch) {
    const Array one = filters::butterworth(rgb.index(2, ch), {.cutoff_frequency_ratio = 0.1});
    EXPECT_TRUE(cusktest::arrays_close(one, out.index(1, ch).copy(), 0, 1e-12 * max_abs(one))) << ch;
  }
}

TEST(Butterworth, DtypesAndDegenerateShapes) {
  // bool, uint32 and float32 in: float64, float64 and float32 out (scikit-image's float rule).
  const Array b = cusktest::random_array({5, 7}, DType::bool_, 1);
  EXPECT_EQ(filters::butterworth(b).dtype(), DType::float64);
  const Array u = cusktest::random_array({6, 6}, DType::uint32, 2, 0, 1000);
  const Array uf = u.astype(DType::float64);
  EXPECT_ARRAY_EQ(filters::butterworth(uf), filters::butterworth(u));
  // One pixel: the DC gain of a high-pass is 0, of a low-pass 1.
  const Array one = Array::full({1, 1}, 3.0, DType::float64);
  EXPECT_DOUBLE_EQ(filters::butterworth(one).at<double>({0, 0}), 0.0);
  EXPECT_DOUBLE_EQ(filters::butterworth(one, {.high_pass = false}).at<double>({0, 0}), 3.0);
  // 4-D on the CPU backend (any number of spatial axes).
  const Array four = cusktest::random_array({3, 4, 2, 5}, DType::float32, 3);
  EXPECT_EQ(filters::butterworth(four).shape(), four.shape());
}

namespace {
// More than 3 spatial axes (tests/golden/cases_filters_butterworth_nd.py).
struct BwNdCase {
  std::string out, in;
  filters::ButterworthOptions opts;
};
std::vector<BwNdCase> bw_nd_cases() {
  return {
      {"bw_f64_4d", "f64_4d", {.cutoff_frequency_ratio = 0.2}},
      {"bw_f64_4d_low_npad", "f64_4d", {.cutoff_frequency_ratio = 0.1, .high_pass = false, .order = 3.0, .npad = 2}},
      {"bw_f32_5d_c", "f32_5d_c", {.cutoff_frequency_ratio = 0.25, .channel_axis = 2, .squared_butterworth = false}},
      {"bw_u8_6d", "u8_6d", {.cutoff_frequency_ratio = 0.15, .high_pass = false}},
      {"bw_f64_7d", "f64_7d", {.cutoff_frequency_ratio = 0.3, .npad = 1}},
  };
}
Array golden_nd(const std::string& name) { return cusktest::load_golden("filters_butterworth_nd/" + name + ".npy"); }
}  // namespace

TEST(Butterworth, GoldenBeyondThreeAxes) {
  for (const auto& c : bw_nd_cases()) {
    const Array expected = golden_nd(c.out);
    const Array out = filters::butterworth(golden_nd("in_" + c.in), c.opts);
    EXPECT_TRUE(close_scaled(expected, out, tol_for(expected))) << c.out;
  }
}

TEST(Butterworth, BadArguments) {
  const Array img = cusktest::random_array({8, 8}, DType::float32, 4);
  EXPECT_THROW(filters::butterworth(img, {.npad = -1}), InvalidArgument);
  EXPECT_THROW(filters::butterworth(img, {.cutoff_frequency_ratio = 0.6}), InvalidArgument);
  EXPECT_THROW(filters::butterworth(img, {.cutoff_frequency_ratio = -0.1}), InvalidArgument);
  EXPECT_THROW(filters::butterworth(img, {.channel_axis = 2}), InvalidArgument);
  EXPECT_THROW(filters::butterworth(Array::empty({8}, DType::float32), {.channel_axis = 0}), InvalidArgument);
  EXPECT_THROW(filters::butterworth(Array::empty({0, 4}, DType::float32)), InvalidArgument);
  EXPECT_THROW(filters::butterworth(Array()), InvalidArgument);
  try {
    filters::butterworth(img, {.cutoff_frequency_ratio = 0.7});
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("filters.butterworth: argument 'cutoff_frequency_ratio'"), std::string::npos)
        << e.what();
  }
}

// ==== LPIFilter2D, filter_forward, filter_inverse, wiener =========================================

TEST(LPIFilter2D, Golden) {
  for (const std::string d : {"coins", "odd32", "odd64"}) {
    const Array data = golden("in_" + d);
    for (const std::string h : {"gauss1", "skewed"}) {
      const std::string tag = d + "_" + h;
      const filters::LPIFilter2D f(response(h));
      const Array e = golden("lpi_" + tag);
      EXPECT_TRUE(close_scaled(e, f(data), tol_for(e))) << tag;
      EXPECT_TRUE(close_scaled(golden("fwd_" + tag), filters::filter_forward(data, {.impulse_response = response(h)}),
                               tol_for(e)))
          << tag;
      EXPECT_TRUE(close_scaled(golden("inv_" + tag), filters::filter_inverse(data, {.impulse_response = response(h)}),
                               tol_for(e)))
          << tag;
      EXPECT_TRUE(close_scaled(golden("inv10_" + tag),
                               filters::filter_inverse(data, {.max_gain = 10, .predefined_filter = f}), tol_for(e)))
          << tag;
      EXPECT_TRUE(close_scaled(golden("wien_" + tag), filters::wiener(data, {.predefined_filter = f}), tol_for(e)))
          << tag;
      EXPECT_TRUE(close_scaled(golden("wien001_" + tag), filters::wiener(data, {.impulse_response = response(h), .K = 0.01}),
                               tol_for(e)))
          << tag;
    }
  }
}

TEST(LPIFilter2D, WienerKArrays) {
  const Array data = golden("in_odd64");
  EXPECT_TRUE(close_scaled(golden("wienKrow_odd64_skewed"),
                           filters::wiener(data, {.impulse_response = skewed, .K = golden("K_row")}), 1e-10));
  // A strided K (a view) reads through its strides.
  EXPECT_TRUE(close_scaled(golden("wienKfull_odd64_gauss1"),
                           filters::wiener(data, {.impulse_response = gauss1, .K = strided_copy(golden("K_full"))}),
                           1e-10));
}

TEST(LPIFilter2D, CacheAndViews) {
  const filters::LPIFilter2D f(gauss1);
  const Array a = golden("in_odd64");
  const Array r1 = f(a);
  EXPECT_ARRAY_EQ(r1, f(a));                      // from the cached spectrum
  EXPECT_ARRAY_EQ(r1, f(strided_copy(a)));        // strided data
  const Array b = golden("in_coins");             // another shape replaces the cache
  const Array rb = f(b);
  EXPECT_ARRAY_EQ(rb, filters::LPIFilter2D(gauss1)(b));
  EXPECT_ARRAY_EQ(r1, f(a));
  const filters::LPIFilter2D copy = f;            // copies share the impulse response and cache
  EXPECT_ARRAY_EQ(r1, copy(a));
  EXPECT_EQ(f.state(), copy.state());
  // float32 data after float64 data of one shape: a float32 spectrum, float32 result.
  EXPECT_EQ(f(a.astype(DType::float32)).dtype(), DType::float32);
}

TEST(LPIFilter2D, BadArguments) {
  EXPECT_THROW(filters::LPIFilter2D(filters::ImpulseResponse{}), InvalidArgument);
  const Array d3 = Array::zeros({3, 4, 5}, DType::float64);
  const Array d2 = Array::zeros({4, 5}, DType::float64);
  const filters::LPIFilter2D f(gauss1);
  EXPECT_THROW(f(d3), InvalidArgument);
  EXPECT_THROW(f(Array::zeros({0, 5}, DType::float64)), InvalidArgument);
  EXPECT_THROW(filters::filter_forward(d2), InvalidArgument);  // no impulse response, no filter
  EXPECT_THROW(filters::filter_inverse(d2), InvalidArgument);
  EXPECT_THROW(filters::wiener(d2), InvalidArgument);
  EXPECT_THROW(filters::filter_forward(d3, {.impulse_response = gauss1}), InvalidArgument);
  EXPECT_THROW(filters::wiener(d2, {.impulse_response = gauss1, .K = Array::zeros({4, 5}, DType::float64)}),
               InvalidArgument);  // must broadcast to (7, 9)
  EXPECT_THROW(filters::wiener(d2, {.impulse_response = gauss1, .K = Array::zeros({9}, DType::float64)}),
               InvalidArgument);
  EXPECT_NO_THROW(filters::wiener(d2, {.impulse_response = gauss1, .K = Array::zeros({7, 1}, DType::float64)}));
  try {
    f(d3);
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("must be a 2-dimensional array"), std::string::npos) << e.what();
  }
}

// ==== gabor_kernel, gabor ==========================================================================

TEST(GaborKernel, Golden) {
  struct Case {
    std::string name;
    double f;
    filters::GaborKernelOptions o;
  };
  const std::vector<Case> cases = {
      {"gk_f01", 0.1, {}},
      {"gk_f02_t45_b2", 0.2, {.theta = std::numbers::pi / 4, .bandwidth = 2}},
      {"gk_sig_off", 0.3, {.theta = 1.0, .sigma_x = 2.0, .sigma_y = 4.0, .n_stds = 2, .offset = 0.5}},
      {"gk_c64", 0.15, {.theta = 2.0, .bandwidth = 1.5, .dtype = DType::float32}},
  };
  for (const auto& c : cases) {
    const auto k = filters::gabor_kernel(c.f, c.o);
    const Array re = golden(c.name + "_re"), im = golden(c.name + "_im");
    const double tol = c.o.dtype == DType::float32 ? 1.2e-7 : 1e-15;
    EXPECT_TRUE(close_scaled(re, k.real, tol)) << c.name;
    EXPECT_TRUE(close_scaled(im, k.imag, tol)) << c.name;
  }
  EXPECT_THROW(filters::gabor_kernel(0.1, {.dtype = DType::int32}), InvalidArgument);
  EXPECT_THROW(filters::gabor_kernel(0.0), InvalidArgument);
}

TEST(Gabor, Golden) {
  struct Case {
    std::string name, in;
    double f;
    filters::GaborOptions o;
  };
  const std::vector<Case> cases = {
      {"gab_cam", "cam", 0.2, {}},
      {"gab_gf64_t60", "gf64", 0.3, {.theta = std::numbers::pi / 3}},
      {"gab_gf64_const", "gf64", 0.25, {.bandwidth = 0.8, .mode = ndimage::Mode::constant, .cval = 0.5}},
      {"gab_gf64_wrap", "gf64", 0.1, {.sigma_x = 1.5, .sigma_y = 3.0, .offset = 1.0, .mode = ndimage::Mode::wrap}},
      {"gab_gf32_nearest", "gf32", 0.4, {.theta = 0.7, .mode = ndimage::Mode::nearest}},
      {"gab_gf32_mirror", "gf32", 0.2, {.n_stds = 2, .mode = ndimage::Mode::mirror}},
      {"gab_gu16", "gu16", 0.3, {.theta = 1.2}},
  };
  for (const auto& c : cases) {
    const Array in = golden("in_" + c.in);
    const auto r = filters::gabor(in, c.f, c.o);
    const Array re = golden(c.name + "_re"), im = golden(c.name + "_im");
    if (cuskimage::is_integer(in.dtype())) {
      EXPECT_ARRAY_EQ(re, r.real) << c.name;
      EXPECT_ARRAY_EQ(im, r.imag) << c.name;
    } else {
      const double tol = in.dtype() == DType::float32 ? 1e-5 : 1e-12;
      EXPECT_TRUE(close_scaled(re, r.real, tol)) << c.name;
      EXPECT_TRUE(close_scaled(im, r.imag, tol)) << c.name;
    }
  }
}

TEST(Gabor, StridedAndBadArguments) {
  const Array in = golden("in_gf64");
  const auto a = filters::gabor(in, 0.3);
  const auto b = filters::gabor(strided_copy(in), 0.3);
  EXPECT_ARRAY_EQ(a.real, b.real);
  EXPECT_ARRAY_EQ(a.imag, b.imag);
  EXPECT_THROW(filters::gabor(Array::zeros({3, 4, 5}, DType::float64), 0.1), InvalidArgument);
  EXPECT_THROW(filters::gabor(Array::zeros({4, 5}, DType::int8), 0.1), InvalidArgument);
  EXPECT_THROW(filters::gabor(Array::zeros({0, 5}, DType::float64), 0.1), InvalidArgument);
  EXPECT_THROW(filters::gabor(Array(), 0.1), InvalidArgument);
}

// ==== CLI ============================================================================================
namespace {

/// Exit status of the `cuskimage` binary run with `args` (tests/cli/cli_support.hpp).
int run_cli(const std::vector<std::string>& args) { return cuskclitest::run_cli(args).rc; }

}  // namespace

TEST(FrequencyCli, Commands) {
  const std::string cam = cusktest::golden_path("filters_frequency/in_cam.npy");
  const std::string coins = cusktest::golden_path("filters_frequency/in_coins.npy");
  const std::string bw = cusktest::temp_path("freq_bw.npy"), re = cusktest::temp_path("freq_re.npy"),
                    im = cusktest::temp_path("freq_im.npy"), wi = cusktest::temp_path("freq_wiener.npy"),
                    fi = cusktest::temp_path("freq_inverse.npy");
  ASSERT_EQ(run_cli({"filters.butterworth", cam, bw, "--device", "cpu", "--cutoff_frequency_ratio", "0.1",
                          "--high_pass", "false", "--order", "4"}),
            0);
  EXPECT_TRUE(close_scaled(golden("bw_cam_low"), cuskimage::io::imread(bw), 1e-10));
  ASSERT_EQ(run_cli({"filters.gabor", cam, re, im, "--device", "cpu", "--frequency", "0.2"}), 0);
  EXPECT_ARRAY_EQ(golden("gab_cam_re"), cuskimage::io::imread(re));
  EXPECT_ARRAY_EQ(golden("gab_cam_im"), cuskimage::io::imread(im));
  ASSERT_EQ(run_cli({"filters.wiener", coins, wi, "--device", "cpu", "--K", "0.01"}), 0);
  EXPECT_TRUE(close_scaled(golden("wien001_coins_gauss1"), cuskimage::io::imread(wi), 1e-10));
  ASSERT_EQ(run_cli({"filters.filter_inverse", coins, fi, "--device", "cpu", "--max_gain", "10"}), 0);
  EXPECT_TRUE(close_scaled(golden("inv10_coins_gauss1"), cuskimage::io::imread(fi), 1e-10));
  EXPECT_EQ(run_cli({"filters.butterworth", cam, bw, "--device", "cpu", "--npad", "-1"}), 1);
  EXPECT_EQ(run_cli({"filters.gabor", cam, re, im, "--device", "cpu"}), 2);  // frequency is required
}

// ==== GPU vs CPU =====================================================================================

namespace {

Array on_gpu(const Array& a, const Stream& s = {}) { return a.to(Device::cuda(), s); }

void expect_gpu_close(const Array& cpu, const Array& gpu, double tol, const std::string& what) {
  const Array g = cusktest::host_copy(gpu);
  EXPECT_TRUE(close_scaled(cpu, g, tol)) << what;
}

}  // namespace

TEST(GpuFrequency, ButterworthMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  struct Case {
    Shape shape;
    DType dt;
    filters::ButterworthOptions o;
  };
  const std::vector<Case> cases = {
      {{64, 48}, DType::uint8, {}},
      {{37, 50}, DType::float32, {.cutoff_frequency_ratio = 0.2, .high_pass = false, .order = 3}},
      {{33, 20}, DType::float64, {.cutoff_frequency_ratio = 0.1, .squared_butterworth = false, .npad = 4}},
      {{9, 10, 11}, DType::float32, {.cutoff_frequency_ratio = 0.3, .npad = 2}},
      {{12, 7, 13}, DType::uint16, {.cutoff_frequency_ratio = 0.05, .high_pass = false}},
      {{40, 30, 3}, DType::uint8, {.cutoff_frequency_ratio = 0.05, .high_pass = false, .channel_axis = -1, .npad = 3}},
      {{2, 17, 19}, DType::float64, {.cutoff_frequency_ratio = 0.25, .channel_axis = 0}},
      {{5, 6, 7, 2}, DType::float32, {.channel_axis = 3}},
      {{101}, DType::int32, {.cutoff_frequency_ratio = 0.2}},
      {{1, 1}, DType::float64, {}},
  };
  std::uint64_t seed = 100;
  for (const auto& c : cases) {
    const Array h = cusktest::random_array(c.shape, c.dt, seed++);
    const Array cpu = filters::butterworth(h, c.o);
    const double tol = cpu.dtype() == DType::float32 ? 5e-5 : 1e-10;
    expect_gpu_close(cpu, filters::butterworth(on_gpu(h, s), c.o, s), tol, "contiguous " + cuskimage::shape_str(c.shape));
    expect_gpu_close(cpu, filters::butterworth(strided_copy(on_gpu(h)), c.o), tol,
                     "strided " + cuskimage::shape_str(c.shape));
  }
}

// Past cuFFT's 3 axes: the leading spatial axes go through strided C2C transforms (groups of up to 3,
// extents of 1 skipped), with channels anywhere.
TEST(GpuFrequency, ButterworthBeyondThreeAxes) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  struct Case {
    Shape shape;
    DType dt;
    filters::ButterworthOptions o;
  };
  const std::vector<Case> cases = {
      {{5, 6, 7, 8}, DType::float32, {.cutoff_frequency_ratio = 0.2}},
      {{4, 5, 3, 6}, DType::float64, {.cutoff_frequency_ratio = 0.1, .high_pass = false, .npad = 2}},
      {{3, 4, 5, 2, 6}, DType::uint8, {.cutoff_frequency_ratio = 0.15, .squared_butterworth = false}},
      {{2, 3, 4, 5, 3}, DType::float64, {.cutoff_frequency_ratio = 0.2, .channel_axis = 1}},
      {{3, 1, 4, 5, 6}, DType::uint16, {.cutoff_frequency_ratio = 0.25, .order = 3}},
      {{2, 3, 2, 3, 2, 3, 4}, DType::float64, {.cutoff_frequency_ratio = 0.3}},
      {{2, 3, 2, 3, 2, 3, 4, 2}, DType::float32, {.cutoff_frequency_ratio = 0.3, .channel_axis = -1, .npad = 1}},
  };
  std::uint64_t seed = 300;
  for (const auto& c : cases) {
    const Array h = cusktest::random_array(c.shape, c.dt, seed++);
    const Array cpu = filters::butterworth(h, c.o);
    const double tol = cpu.dtype() == DType::float32 ? 5e-5 : 1e-10;
    expect_gpu_close(cpu, filters::butterworth(on_gpu(h, s), c.o, s), tol, "contiguous " + cuskimage::shape_str(c.shape));
    expect_gpu_close(cpu, filters::butterworth(strided_copy(on_gpu(h)), c.o), tol,
                     "strided " + cuskimage::shape_str(c.shape));
  }
  for (const auto& c : bw_nd_cases()) {
    const Array expected = golden_nd(c.out);
    const Array out = filters::butterworth(on_gpu(golden_nd("in_" + c.in), s), c.opts, s);
    EXPECT_TRUE(close_scaled(expected, cusktest::host_copy(out), tol_for(expected))) << "golden " << c.out;
  }
  // Warm-up outside the guard: making a cuFFT plan may allocate (once per shape).
  const Array g = on_gpu(cusktest::random_array({4, 5, 6, 7}, DType::float32, 399));
  (void)filters::butterworth(g, {.cutoff_frequency_ratio = 0.2});
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& st) {
    Array a = filters::butterworth(g, {.cutoff_frequency_ratio = 0.2}, st);
    st.synchronize();
  }));
}

TEST(GpuFrequency, LpiFamilyMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 200;
  for (const Shape& shape : {Shape{40, 50}, Shape{31, 27}, Shape{1, 9}, Shape{64, 63}}) {
    for (DType dt : {DType::uint8, DType::float32, DType::float64}) {
      const Array h = cusktest::random_array(shape, dt, seed++);
      const double tol = dt == DType::float32 ? 5e-5 : 1e-10;
      const std::string tag = cuskimage::shape_str(shape) + " " + std::string(cuskimage::dtype_name(dt));
      const filters::LPIFilter2D f(skewed);
      const Array d = on_gpu(h, s);
      expect_gpu_close(f(h), f(d, s), tol, "LPIFilter2D " + tag);
      expect_gpu_close(f(h), f(strided_copy(d), s), tol, "LPIFilter2D strided " + tag);
      expect_gpu_close(filters::filter_inverse(h, {.impulse_response = gauss1, .max_gain = 5}),
                       filters::filter_inverse(d, {.impulse_response = gauss1, .max_gain = 5}, s), tol,
                       "filter_inverse " + tag);
      expect_gpu_close(filters::wiener(h, {.predefined_filter = f}), filters::wiener(d, {.predefined_filter = f}, s),
                       tol, "wiener " + tag);
      const Array K = cusktest::random_array({2 * shape[0] - 1, 1}, DType::float64, seed++, 0.01, 0.5);
      expect_gpu_close(filters::wiener(h, {.impulse_response = gauss1, .K = K.copy()}),
                       filters::wiener(d, {.impulse_response = gauss1, .K = K.copy()}, s), tol, "wiener K " + tag);
    }
  }
}

TEST(GpuFrequency, GaborMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 300;
  for (ndimage::Mode mode : {ndimage::Mode::reflect, ndimage::Mode::mirror, ndimage::Mode::nearest,
                             ndimage::Mode::wrap, ndimage::Mode::constant}) {
    for (DType dt : {DType::uint8, DType::float32, DType::float64}) {
      const Array h = cusktest::random_array({45, 38}, dt, seed++);
      const filters::GaborOptions o{.theta = 0.6, .mode = mode, .cval = 0.25};
      const auto cpu = filters::gabor(h, 0.2, o);
      const auto gpu = filters::gabor(on_gpu(h, s), 0.2, o, s);
      const auto gst = filters::gabor(strided_copy(on_gpu(h)), 0.2, o);
      if (dt == DType::uint8) {
        EXPECT_ARRAY_EQ(cpu.real, gpu.real);
        EXPECT_ARRAY_EQ(cpu.imag, gpu.imag);
        EXPECT_ARRAY_EQ(cpu.real, gst.real);
      } else {
        const double tol = dt == DType::float32 ? 1e-5 : 1e-12;
        expect_gpu_close(cpu.real, gpu.real, tol, "gabor real");
        expect_gpu_close(cpu.imag, gpu.imag, tol, "gabor imag");
        expect_gpu_close(cpu.imag, gst.imag, tol, "gabor strided imag");
      }
    }
  }
}

TEST(GpuFrequency, RunsWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array h = cusktest::random_array({48, 40}, DType::float32, 400);
  const Array d = on_gpu(h);
  const filters::LPIFilter2D f(gauss1);
  // Warm-up: cuFFT plans (made once per shape, kept for the process) and the filter's spectrum.
  (void)filters::butterworth(d);
  (void)filters::wiener(d, {.predefined_filter = f});
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array a = filters::butterworth(d, {.cutoff_frequency_ratio = 0.1}, s);
    Array b = filters::wiener(d, {.predefined_filter = f}, s);
    auto g = filters::gabor(d, 0.3, {}, s);
    s.synchronize();
  }));
}
