// Ridge filters (frangi, hessian, meijering, sato) and the Hessian pieces under them
// (hessian_matrix with Gaussian derivatives, hessian_matrix_eigvals), against scikit-image 0.26
// golden outputs (tests/golden/cases_filters_ridges.py), plus semantics, dtypes, strided views,
// bad input and the CLI. Gpu* suites compare the CUDA backend with the CPU one on fresh inputs.
//
// Tolerances (relative to the largest magnitude of the expected array):
//  * Hessian elements: 1e-12 (float64), 1e-5 (float32): the CPU Gaussian passes follow scipy.
//  * eigenvalues: 2-D bit-equal given the same elements (scikit-image's formula, same rounding);
//    3-D 1e-12 (float64; trigonometric/Jacobi vs LAPACK) and 2e-6 (float32: NumPy's LAPACK runs
//    in float32, we solve in float64).
//  * filter outputs: 1e-9 (float64) and 2e-4 (float32, exp and LAPACK-in-float32 differences
//    amplified by the response formulas). Frangi/hessian zero a pixel when an eigenvalue is
//    negative and let it through when it is clipped positive at 1e-10: an eigenvalue at the
//    rounding level can flip such a pixel, so at most 0.5% of the pixels may differ more.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/io.hpp"
#include "src/filters/hessian_matrix.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace filters = cuskimage::filters;
namespace ndimage = cuskimage::ndimage;
namespace fd = cuskimage::filters::detail;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
using ndimage::Mode;

namespace {

Array golden(const std::string& name) { return cusktest::load_golden("filters_ridges/" + name + ".npy"); }

/// The table of cases_filters_ridges.py's CALLS.
Array call(const std::string& fn, const std::string& variant, const Array& img, const Stream& s = {}) {
  if (fn == "frangi") {
    if (variant == "default") return filters::frangi(img, {}, s);
    if (variant == "white") return filters::frangi(img, {.black_ridges = false}, s);
    if (variant == "small") return filters::frangi(img, {.sigmas = {0.5, 1.0}, .mode = Mode::constant, .cval = 3.0}, s);
    if (variant == "gamma")
      return filters::frangi(
          img, {.sigmas = {1.5, 2.5}, .alpha = 0.3, .beta = 0.8, .gamma = 2.0, .mode = Mode::nearest}, s);
    if (variant == "range")
      return filters::frangi(img, {.scale_range = std::array{1.0, 4.0}, .scale_step = 1.5, .mode = Mode::wrap}, s);
  }
  if (fn == "hessian") {
    if (variant == "default") return filters::hessian(img, {}, s);
    if (variant == "auto")
      return filters::hessian(
          img, {.sigmas = {1.0, 2.0}, .gamma = std::nullopt, .black_ridges = false, .mode = Mode::mirror}, s);
  }
  if (fn == "meijering") {
    if (variant == "default") return filters::meijering(img, {}, s);
    if (variant == "white")
      return filters::meijering(
          img, {.sigmas = {1.0, 2.0}, .alpha = -0.2, .black_ridges = false, .mode = Mode::constant, .cval = -1.0}, s);
  }
  if (fn == "sato") {
    if (variant == "default") return filters::sato(img, {}, s);
    if (variant == "white")
      return filters::sato(img, {.sigmas = {0.8, 2.0}, .black_ridges = false, .mode = Mode::nearest}, s);
  }
  ADD_FAILURE() << "unknown call " << fn << "/" << variant;
  return Array();
}

struct Call {
  std::string fn, variant;
  std::vector<std::string> cases;
};
const std::vector<Call> kCalls = {
    {"frangi", "default", {"cam", "f32", "vol", "vol_f32", "tube", "i16"}},
    {"frangi", "white", {"cam", "f32", "vol", "vol_f32", "tube", "i16"}},
    {"frangi", "small", {"cam", "f32", "vol", "vol_f32", "tube", "i16"}},
    {"frangi", "gamma", {"cam", "f32", "vol", "vol_f32", "tube", "i16"}},
    {"frangi", "range", {"cam", "f32", "vol", "vol_f32", "tube", "i16"}},
    {"hessian", "default", {"cam", "f32", "vol", "tube"}},
    {"hessian", "auto", {"cam", "f32", "vol", "tube"}},
    {"meijering", "default", {"cam", "f32", "vol", "vol_f32", "tube", "line1d"}},
    {"meijering", "white", {"cam", "f32", "vol", "vol_f32", "tube", "line1d", "four_d"}},
    {"sato", "default", {"cam", "f32", "vol", "vol_f32", "tube", "i16"}},
    {"sato", "white", {"cam", "f32", "vol", "vol_f32", "tube", "i16"}},
};

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v)
    if (std::isfinite(x)) m = std::max(m, std::fabs(x));
  return m;
}

/// |a - e| <= tol * max|e| everywhere except at most `bad_fraction` of the elements; dtype and shape
/// must match.
::testing::AssertionResult mostly_close(const Array& expected, const Array& actual, double tol,
                                        double bad_fraction = 0.0) {
  if (expected.dtype() != actual.dtype())
    return ::testing::AssertionFailure() << "dtype " << cuskimage::dtype_name(actual.dtype()) << ", expected "
                                         << cuskimage::dtype_name(expected.dtype());
  if (expected.shape() != actual.shape())
    return ::testing::AssertionFailure() << "shape " << cuskimage::shape_str(actual.shape()) << ", expected "
                                         << cuskimage::shape_str(expected.shape());
  const auto e = cusktest::host_copy(expected).to_vector<double>();
  const auto a = cusktest::host_copy(actual).to_vector<double>();
  const double lim = tol * std::max(max_abs(e), 1e-300);
  std::size_t bad = 0, worst = 0;
  double worst_d = -1;
  for (std::size_t i = 0; i < e.size(); ++i) {
    const bool both_nan = std::isnan(e[i]) && std::isnan(a[i]);
    const double d = both_nan ? 0.0 : std::fabs(a[i] - e[i]);
    if (!(d <= lim)) {
      ++bad;
      if (!(d <= worst_d)) {
        worst_d = d;
        worst = i;
      }
    }
  }
  if (static_cast<double>(bad) <= bad_fraction * static_cast<double>(e.size()))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << e.size() << " elements differ by more than " << lim
                                       << "; worst at " << worst << ": " << a[worst] << " vs " << e[worst];
}

double tol_for(DType dt, double f64, double f32) { return dt == DType::float32 ? f32 : f64; }

/// A vector of arrays from temporaries (Array is move-only, initializer lists copy).
template <class... A>
std::vector<Array> arrays(A&&... a) {
  std::vector<Array> v;
  (v.push_back(std::forward<A>(a)), ...);
  return v;
}

/// Hessian elements of a golden stack (k, ...) as a list.
std::vector<Array> unstack(const Array& stack) {
  std::vector<Array> v;
  for (std::int64_t i = 0; i < stack.shape(0); ++i) v.push_back(stack.index(0, i).copy());
  return v;
}

}  // namespace

// ---- golden ---------------------------------------------------------------------------------------

TEST(Ridges, GoldenFilters) {
  for (const auto& c : kCalls) {
    for (const auto& cs : c.cases) {
      const Array img = golden("in_" + cs);
      const Array expected = golden(c.fn + "_" + c.variant + "_" + cs);
      const Array out = call(c.fn, c.variant, img);
      const bool frangi_like = c.fn == "frangi" || c.fn == "hessian";
      EXPECT_TRUE(mostly_close(expected, out, tol_for(out.dtype(), 1e-9, 2e-4), frangi_like ? 0.005 : 0.0))
          << c.fn << "/" << c.variant << " on " << cs;
    }
  }
}

TEST(Ridges, GoldenHessianMatrix) {
  struct Hm {
    std::string c;
    fd::HessianMatrixOptions o;
  };
  const std::vector<Hm> hm = {
      {"cam", {.sigma = {1.5}}},
      {"f32", {.sigma = {0.7}, .mode = Mode::reflect}},
      {"cam", {.sigma = {2.0}, .mode = Mode::nearest, .order_xy = true}},
      {"vol", {.sigma = {1.2}, .mode = Mode::mirror}},
      {"vol_f32", {.sigma = {2.0}, .mode = Mode::wrap}},
      {"tube", {.sigma = {1.0, 2.0, 1.5}, .mode = Mode::constant, .cval = 0.5}},
  };
  for (std::size_t i = 0; i < hm.size(); ++i) {
    const std::string tag = "hm" + std::to_string(i);
    const Array img = golden("in_" + hm[i].c);
    const auto h = fd::hessian_matrix(img, hm[i].o, {});
    const auto expected = unstack(golden(tag + "_elems_" + hm[i].c));
    ASSERT_EQ(h.size(), expected.size()) << tag;
    for (std::size_t k = 0; k < h.size(); ++k)
      EXPECT_TRUE(mostly_close(expected[k], h[k], tol_for(h[k].dtype(), 1e-12, 1e-5))) << tag << " element " << k;
    // Eigenvalues from scikit-image's own elements: 2-D bit-equal, 3-D within the solver tolerance.
    const Array eig = fd::hessian_matrix_eigvals(expected);
    const Array eig_expected = golden(tag + "_eig_" + hm[i].c);
    if (img.ndim() == 2)
      EXPECT_ARRAY_EQ(eig_expected, eig) << tag;
    else
      EXPECT_TRUE(mostly_close(eig_expected, eig, tol_for(eig.dtype(), 1e-12, 2e-6))) << tag;
  }
}

TEST(Ridges, Eigvals3HardMatrices) {
  // Triple and double roots, diagonal, zero, subnormal-range and 1e150-range matrices: each pixel
  // within 1e-13 of its own largest element.
  const Array in = golden("eig3_hard_in");  // (6, 5, 8)
  std::vector<Array> elems;
  for (int i = 0; i < 6; ++i) elems.push_back(in.index(0, i).reshape({5, 8, 1}));
  const Array eig = fd::hessian_matrix_eigvals(elems);
  const auto got = eig.to_vector<double>();
  const auto exp = golden("eig3_hard_out").to_vector<double>();
  const auto v = in.to_vector<double>();
  ASSERT_EQ(got.size(), exp.size());
  for (int p = 0; p < 40; ++p) {
    double scale = 0;
    for (int i = 0; i < 6; ++i) scale = std::max(scale, std::fabs(v[i * 40 + p]));
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(exp[j * 40 + p], got[j * 40 + p], 1e-13 * scale) << "matrix " << p << " eigenvalue " << j;
  }
}

TEST(Ridges, EigvalsJacobiMatchesSorted) {
  // 1-D (the element itself) and 4-D (Jacobi): the trace is kept and diagonal matrices come out
  // sorted.
  const Array x = Array::from_vector<double>({3.0, -1.0, 0.5}, {3});
  EXPECT_ARRAY_EQ(Array::from_vector<double>({3.0, -1.0, 0.5}, {1, 3}), fd::hessian_matrix_eigvals(arrays(x.share())));
  std::vector<Array> e4;
  const double diag[4] = {2.0, -5.0, 7.0, 0.0};
  for (int r = 0, k = 0; r < 4; ++r)
    for (int c = r; c < 4; ++c, ++k) e4.push_back(Array::full({1, 1, 1, 1}, r == c ? diag[r] : 0.0, DType::float64));
  EXPECT_EQ(fd::hessian_matrix_eigvals(e4).to_vector<double>(), (std::vector<double>{7.0, 2.0, 0.0, -5.0}));
  // A dense 4x4: eigenvalues sum to the trace and match a known spectrum (Q diag Q^T with a
  // Householder Q built from v = (1, 2, 3, 4)).
  const double lam[4] = {4.0, 1.5, -0.25, -3.0};
  const double vv[4] = {1, 2, 3, 4};
  double q[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) q[i][j] = (i == j ? 1.0 : 0.0) - 2 * vv[i] * vv[j] / 30.0;
  std::vector<Array> d4;
  for (int r = 0; r < 4; ++r)
    for (int c = r; c < 4; ++c) {
      double s = 0;
      for (int k = 0; k < 4; ++k) s += q[r][k] * lam[k] * q[c][k];
      d4.push_back(Array::full({1, 1, 1, 1}, s, DType::float64));
    }
  const auto ev = fd::hessian_matrix_eigvals(d4).to_vector<double>();
  for (int i = 0; i < 4; ++i) EXPECT_NEAR(ev[i], lam[i], 1e-14 * 4);
}

// ---- semantics ------------------------------------------------------------------------------------

TEST(Ridges, WhiteRidgesAreBlackRidgesOfTheNegatedImage) {
  // black_ridges=False negates the image; the implementation negates the Hessian instead (with
  // -cval), which is exact.
  const Array img = cusktest::random_array({23, 29}, DType::float64, 3, -2, 2);
  Array neg = img.copy();
  {
    auto v = img.to_vector<double>();
    for (auto& x : v) x = -x;
    neg = Array::from_vector(v, img.shape());
  }
  for (Mode m : {Mode::constant, Mode::reflect, Mode::wrap}) {
    EXPECT_ARRAY_EQ(filters::frangi(neg, {.sigmas = {1, 2}, .mode = m, .cval = 0.7}),
                    filters::frangi(img, {.sigmas = {1, 2}, .black_ridges = false, .mode = m, .cval = 0.7}));
    EXPECT_ARRAY_EQ(filters::sato(neg, {.sigmas = {1.5}, .mode = m, .cval = -0.3}),
                    filters::sato(img, {.sigmas = {1.5}, .black_ridges = false, .mode = m, .cval = -0.3}));
    EXPECT_ARRAY_EQ(filters::meijering(neg, {.sigmas = {1, 3}, .mode = m, .cval = 2}),
                    filters::meijering(img, {.sigmas = {1, 3}, .black_ridges = false, .mode = m, .cval = 2}));
  }
}

TEST(Ridges, DtypesAndShapes) {
  const Array u8 = cusktest::random_array({17, 19}, DType::uint8, 4);
  EXPECT_EQ(filters::frangi(u8, {.sigmas = {1}}).dtype(), DType::float64);
  // Integers are cast, not scaled: uint8 equals its float64 cast.
  EXPECT_ARRAY_EQ(filters::sato(u8.astype(DType::float64), {.sigmas = {1, 2}}), filters::sato(u8, {.sigmas = {1, 2}}));
  const Array b = cusktest::random_array({9, 8, 7}, DType::bool_, 5);
  EXPECT_ARRAY_EQ(filters::meijering(b.astype(DType::float64), {.sigmas = {1}}), filters::meijering(b, {.sigmas = {1}}));
  const Array f = cusktest::random_array({6, 5, 4}, DType::float32, 6);
  EXPECT_EQ(filters::hessian(f, {.sigmas = {1}}).dtype(), DType::float32);
  EXPECT_EQ(filters::sato(f, {.sigmas = {1}}).shape(), f.shape());
  // Odd and degenerate shapes: single rows and columns run (reflect repeats them).
  for (const Shape& s : std::vector<Shape>{{1, 1}, {1, 9}, {7, 1}, {2, 1, 3}}) {
    const Array x = cusktest::random_array(s, DType::float64, 7);
    EXPECT_EQ(filters::frangi(x, {.sigmas = {1}}).shape(), s);
    EXPECT_EQ(filters::sato(x, {.sigmas = {1}}).shape(), s);
    EXPECT_EQ(filters::meijering(x, {.sigmas = {1}}).shape(), s);
  }
}

TEST(Ridges, StridedViewsMatchContiguousCopies) {
  const Array big = cusktest::random_array({40, 50}, DType::float32, 8);
  const Array v = big.slice({Slice{3, 35, 2}, Slice{std::nullopt, std::nullopt, -3}});
  const Array c = v.copy();
  EXPECT_ARRAY_EQ(filters::frangi(c, {.sigmas = {1, 2}}), filters::frangi(v, {.sigmas = {1, 2}}));
  EXPECT_ARRAY_EQ(filters::hessian(c, {.sigmas = {1.5}}), filters::hessian(v, {.sigmas = {1.5}}));
  EXPECT_ARRAY_EQ(filters::meijering(c, {.sigmas = {1}}), filters::meijering(v, {.sigmas = {1}}));
  EXPECT_ARRAY_EQ(filters::sato(c, {.sigmas = {1}}), filters::sato(v, {.sigmas = {1}}));
  const Array vol = cusktest::random_array({10, 12, 14}, DType::uint16, 9, 0, 1000);
  const Array vv = vol.transpose({2, 0, 1}).slice({Slice{1, std::nullopt, 2}});
  EXPECT_ARRAY_EQ(filters::sato(vv.copy(), {.sigmas = {1}}), filters::sato(vv, {.sigmas = {1}}));
}

TEST(Ridges, ScalesAndNormalization) {
  const Array img = golden("in_cam");
  // No scales: frangi/sato/meijering give zeros, hessian ones.
  const Array z = filters::frangi(img, {.sigmas = {}});
  EXPECT_EQ(max_abs(z.to_vector<double>()), 0.0);
  for (double v : filters::hessian(img, {.sigmas = {}}).to_vector<double>()) ASSERT_EQ(v, 1.0);
  // scale_range/scale_step replace sigmas only when both are set (np.arange(1, 4, 1.5) = [1, 2.5]).
  EXPECT_ARRAY_EQ(filters::frangi(img, {.sigmas = {1, 2.5}}),
                  filters::frangi(img, {.scale_range = std::array{1.0, 4.0}, .scale_step = 1.5}));
  EXPECT_ARRAY_EQ(filters::frangi(img, {.sigmas = {2}}), filters::frangi(img, {.sigmas = {2}, .scale_step = 0.5}));
  // Meijering: every scale is normalized to a maximum of 1.
  const auto m = filters::meijering(img, {.sigmas = {1, 2}}).to_vector<double>();
  EXPECT_EQ(*std::max_element(m.begin(), m.end()), 1.0);
  EXPECT_GE(*std::min_element(m.begin(), m.end()), 0.0);
  // Hessian never leaves a value <= 0.
  for (double v : filters::hessian(img, {.sigmas = {1, 2}}).to_vector<double>()) ASSERT_GT(v, 0.0);
  // frangi's automatic gamma comes from the first scale only: the two-scale result at a pixel is the
  // max of the first scale's and the second scale computed with the first scale's gamma.
  const Array a1 = filters::frangi(img, {.sigmas = {1}});
  const auto g1 = filters::frangi(img, {.sigmas = {1, 3}}).to_vector<double>();
  const auto g2 = filters::frangi(img, {.sigmas = {3, 1}}).to_vector<double>();
  EXPECT_NE(g1, g2);
  (void)a1;
}

TEST(Ridges, BadInput) {
  const Array img2 = cusktest::random_array({8, 9}, DType::float64, 10);
  const Array img1 = cusktest::random_array({8}, DType::float64, 11);
  const Array img4 = cusktest::random_array({3, 3, 3, 3}, DType::float64, 12);
  EXPECT_THROW(filters::frangi(img1), InvalidArgument);
  EXPECT_THROW(filters::hessian(img4), InvalidArgument);
  EXPECT_THROW(filters::sato(img4), InvalidArgument);
  EXPECT_THROW(filters::sato(Array::empty({0, 5}, DType::float32)), InvalidArgument);
  EXPECT_THROW(filters::meijering(Array::empty({0, 5}, DType::float32)), InvalidArgument);
  EXPECT_THROW(filters::meijering(Array::full({}, 1.0, DType::float64)), InvalidArgument);
  EXPECT_THROW(filters::meijering(Array::zeros(Shape(9, 1), DType::float64)), InvalidArgument);
  EXPECT_THROW(filters::frangi(Array()), InvalidArgument);
  EXPECT_THROW(filters::frangi(img2, {.sigmas = {1, 0}}), InvalidArgument);
  EXPECT_THROW(filters::sato(img2, {.sigmas = {-1}}), InvalidArgument);
  EXPECT_THROW(filters::meijering(img2, {.sigmas = {std::nan("")}}), InvalidArgument);
  EXPECT_THROW(filters::hessian(img2, {.scale_range = std::array{1.0, 3.0}, .scale_step = 0.0}), InvalidArgument);
  try {
    filters::sato(img1);
    ADD_FAILURE() << "no exception";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("filters.sato"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("image"), std::string::npos) << e.what();
  }
  // The internal Hessian pieces.
  const Array vol = cusktest::random_array({4, 5, 6}, DType::float64, 13);
  EXPECT_THROW(fd::hessian_matrix(vol, {.order_xy = true}, {}), InvalidArgument);
  EXPECT_THROW(fd::hessian_matrix(vol, {.sigma = {1, 2}}, {}), InvalidArgument);
  EXPECT_THROW(fd::hessian_matrix(vol, {.sigma = {0}}, {}), InvalidArgument);
  EXPECT_THROW(fd::hessian_matrix_eigvals(std::vector<Array>{}), InvalidArgument);
  EXPECT_THROW(fd::hessian_matrix_eigvals(arrays(img2.share(), img2.share())), InvalidArgument);
  EXPECT_THROW(fd::hessian_matrix_eigvals(arrays(img2.share(), img2.share(), img1.share())), InvalidArgument);
}

TEST(Ridges, HessianMatrixScalesIntegers) {
  // hessian_matrix applies img_as_float: uint8 is scaled to [0, 1] (unlike the ridge filters).
  const Array u8 = cusktest::random_array({12, 13}, DType::uint8, 14);
  Array f = u8.astype(DType::float64);
  {
    auto v = f.to_vector<double>();
    for (auto& x : v) x /= 255.0;
    f = Array::from_vector(v, f.shape());
  }
  const auto a = fd::hessian_matrix(u8, {.sigma = {1.0}}, {});
  const auto b = fd::hessian_matrix(f, {.sigma = {1.0}}, {});
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(mostly_close(b[i], a[i], 1e-15)) << i;
}

TEST(Ridges, Cli) {
  using cuskclitest::describe;
  const auto run_cli = [](const std::vector<std::string>& a) { return cuskclitest::run_cli_cpu(a); };
  const Array img = golden("in_f32");
  const std::string in = cusktest::temp_path("ridges_cli_in.npy"), out = cusktest::temp_path("ridges_cli_out.npy");
  cuskimage::io::imsave(in, img);
  auto r = run_cli({"filters.frangi", in, out, "--sigmas", "1,2", "--black_ridges", "false", "--mode", "nearest",
                    "--gamma", "0.5"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(filters::frangi(img, {.sigmas = {1, 2}, .gamma = 0.5, .black_ridges = false, .mode = Mode::nearest}),
                  cuskimage::io::imread(out));
  r = run_cli({"filters.meijering", in, out, "--sigmas", "1", "--alpha", "-0.1"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(filters::meijering(img, {.sigmas = {1}, .alpha = -0.1}), cuskimage::io::imread(out));
  r = run_cli({"filters.sato", in, out, "--mode", "bogus"});
  EXPECT_EQ(r.rc, 2) << describe(r);
}

// ---- GPU ------------------------------------------------------------------------------------------
// Device vs CPU on fresh random inputs. The CUDA Gaussian passes (ndimage) and the device's fused
// multiply-adds in the 3-D eigen solver round differently: float64 agrees within 1e-7 and float32
// within 5e-4 of the output's maximum (the closed-form 3x3 solver loses up to ~sqrt(eps) relative
// accuracy near repeated eigenvalues, where sato's clamp at zero flips on the H200), except for
// frangi/hessian pixels whose response hinges on an eigenvalue's sign at the rounding level (at
// most 1% of the pixels).

namespace {

using RidgeFn = std::function<Array(const Array&, const Stream&)>;

std::vector<std::pair<std::string, RidgeFn>> gpu_fns(Mode m, double cval) {
  return {
      {"frangi", [=](const Array& a, const Stream& s) { return filters::frangi(a, {.sigmas = {1, 2.5}, .mode = m, .cval = cval}, s); }},
      {"frangi_white_gamma",
       [=](const Array& a, const Stream& s) {
         return filters::frangi(a, {.sigmas = {0.8, 2}, .gamma = 0.3, .black_ridges = false, .mode = m, .cval = cval}, s);
       }},
      {"hessian", [=](const Array& a, const Stream& s) { return filters::hessian(a, {.sigmas = {1, 2}, .mode = m, .cval = cval}, s); }},
      {"meijering",
       [=](const Array& a, const Stream& s) { return filters::meijering(a, {.sigmas = {1, 2}, .mode = m, .cval = cval}, s); }},
      {"meijering_white",
       [=](const Array& a, const Stream& s) {
         return filters::meijering(a, {.sigmas = {1.5}, .alpha = 0.1, .black_ridges = false, .mode = m, .cval = cval}, s);
       }},
      {"sato", [=](const Array& a, const Stream& s) { return filters::sato(a, {.sigmas = {1, 3}, .mode = m, .cval = cval}, s); }},
      {"sato_white",
       [=](const Array& a, const Stream& s) {
         return filters::sato(a, {.sigmas = {0.7}, .black_ridges = false, .mode = m, .cval = cval}, s);
       }},
  };
}

void expect_gpu_matches_cpu(const Array& host, const Array& dev, const Stream& s, Mode m, const std::string& what) {
  for (const auto& [name, f] : gpu_fns(m, 0.75)) {
    const Array cpu = f(host, Stream());
    const Array gpu = f(dev, s);
    s.synchronize();
    EXPECT_EQ(gpu.device(), dev.device()) << name;
    const bool frangi_like = name.rfind("frangi", 0) == 0 || name == "hessian";
    EXPECT_TRUE(mostly_close(cpu, gpu, tol_for(cpu.dtype(), 1e-7, 5e-4), frangi_like ? 0.01 : 0.0))
        << name << " " << what << " mode " << ndimage::mode_name(m);
  }
}

}  // namespace

TEST(GpuRidges, MatchesCpuOnRandomInputs) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 300;
  for (DType dt : {DType::float32, DType::float64, DType::uint8}) {
    for (const Shape& shape : std::vector<Shape>{{37, 45}, {11, 13, 9}}) {
      const Array h = cusktest::random_array(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      for (Mode m : {Mode::reflect, Mode::mirror, Mode::nearest, Mode::wrap, Mode::constant})
        expect_gpu_matches_cpu(h, d, s, m, std::string(cuskimage::dtype_name(dt)) + cuskimage::shape_str(shape));
    }
  }
}

TEST(GpuRidges, StridedViewsAndDefaults) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = cusktest::random_array({64, 70}, DType::float32, 400);
  const Array d = h.to(Device::cuda(), s);
  const Array hv = h.slice({Slice{1, 60, 2}, Slice{std::nullopt, std::nullopt, -1}});
  const Array dv = d.slice({Slice{1, 60, 2}, Slice{std::nullopt, std::nullopt, -1}});
  expect_gpu_matches_cpu(hv, dv, s, Mode::reflect, "strided 2-D");
  const Array h3 = cusktest::random_array({14, 12, 16}, DType::float64, 401);
  const Array d3 = h3.to(Device::cuda(), s);
  const Array hv3 = h3.transpose({2, 1, 0}).slice({Slice{std::nullopt, std::nullopt, 2}});
  const Array dv3 = d3.transpose({2, 1, 0}).slice({Slice{std::nullopt, std::nullopt, 2}});
  expect_gpu_matches_cpu(hv3, dv3, s, Mode::nearest, "strided 3-D");
  // scikit-image's defaults (five scales, automatic gamma, hessian's gamma 15) on a real image.
  const Array cam = golden("in_cam");
  const Array dcam = cam.to(Device::cuda(), s);
  EXPECT_TRUE(mostly_close(filters::frangi(cam), filters::frangi(dcam, {}, s), 1e-9, 0.01));
  EXPECT_TRUE(mostly_close(filters::hessian(cam), filters::hessian(dcam, {}, s), 1e-9, 0.01));
  EXPECT_TRUE(mostly_close(filters::meijering(cam), filters::meijering(dcam, {}, s), 1e-9));
  EXPECT_TRUE(mostly_close(filters::sato(cam), filters::sato(dcam, {}, s), 1e-9));
  // Against scikit-image itself on the device.
  EXPECT_TRUE(mostly_close(golden("frangi_default_cam"), filters::frangi(dcam, {}, s), 1e-9, 0.01));
  EXPECT_TRUE(mostly_close(golden("sato_default_vol"), filters::sato(golden("in_vol").to(Device::cuda(), s), {}, s), 1e-9));
  // No scales: zeros, and ones for hessian.
  for (double v : cusktest::host_copy(filters::hessian(dcam, {.sigmas = {}}, s)).to_vector<double>()) ASSERT_EQ(v, 1.0);
}

TEST(GpuRidges, NdMeijeringAndEigvals) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // 1-D and 4-D go through the runtime-ndim kernels (Jacobi for 4-D).
  for (const Shape& shape : std::vector<Shape>{{57}, {5, 6, 4, 7}}) {
    const Array h = cusktest::random_array(shape, DType::float64, 500 + shape.size());
    const Array d = h.to(Device::cuda(), s);
    EXPECT_TRUE(mostly_close(filters::meijering(h, {.sigmas = {1, 2}}), filters::meijering(d, {.sigmas = {1, 2}}, s), 1e-9))
        << cuskimage::shape_str(shape);
  }
  // hessian_matrix_eigvals: 2-D bit-equal (same formula, no FMA), 3-D within 1e-12 (float64) or
  // one float32 rounding of the same float64 solution (2e-7).
  for (DType dt : {DType::float32, DType::float64}) {
    for (const Shape& shape : std::vector<Shape>{{33, 35}, {9, 10, 11}, {3, 4, 5, 6}}) {
      const int n = static_cast<int>(shape.size());
      std::vector<Array> hh, dd;
      for (int k = 0; k < n * (n + 1) / 2; ++k) {
        hh.push_back(cusktest::random_array(shape, dt, 600 + k, -3, 3));
        dd.push_back(hh.back().to(Device::cuda(), s));
      }
      const Array ec = fd::hessian_matrix_eigvals(hh);
      const Array eg = fd::hessian_matrix_eigvals(dd, s);
      if (n == 2)
        EXPECT_ARRAY_EQ(ec, eg) << cuskimage::dtype_name(dt);
      else
        EXPECT_TRUE(mostly_close(ec, eg, tol_for(dt, 1e-12, 2e-7))) << cuskimage::dtype_name(dt) << " ndim " << n;
    }
  }
  // hessian_matrix on the device (ndimage's Gaussian passes).
  const Array h = cusktest::random_array({30, 31}, DType::float32, 700);
  const auto hc = fd::hessian_matrix(h, {.sigma = {1.5}, .mode = Mode::reflect}, {});
  const auto hg = fd::hessian_matrix(h.to(Device::cuda(), s), {.sigma = {1.5}, .mode = Mode::reflect}, s);
  for (std::size_t k = 0; k < hc.size(); ++k) EXPECT_TRUE(mostly_close(hc[k], hg[k], 1e-5)) << k;
}

TEST(GpuRidges, BadInputOnDevice) {
  CUSK_REQUIRE_GPU();
  const Array d1 = Array::zeros({8}, DType::float32, Device::cuda());
  EXPECT_THROW(filters::frangi(d1), InvalidArgument);
  EXPECT_THROW(filters::sato(Array::zeros({0, 4}, DType::float32, Device::cuda())), InvalidArgument);
  EXPECT_THROW(filters::meijering(Array::zeros({4, 4}, DType::float32, Device::cuda()), {.sigmas = {0}}),
               InvalidArgument);
}

TEST(GpuRidges, NonDefaultStreamWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array h = cusktest::random_array({40, 41}, DType::float32, 800);
  const Array h3 = cusktest::random_array({9, 10, 11}, DType::float64, 801);
  const Array d = h.to(Device::cuda());
  const Array d3 = h3.to(Device::cuda());
  Stream().synchronize();
  Array a, b, c, e;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    a = filters::frangi(d, {.sigmas = {1, 2}}, s);  // automatic gamma: a device reduction
    b = filters::meijering(d3, {.sigmas = {1}}, s);  // per-scale normalization on the device
    c = filters::hessian(d3, {.sigmas = {1}}, s);
    e = filters::sato(d, {.sigmas = {1}}, s);
    s.synchronize();
  }));
  EXPECT_TRUE(mostly_close(filters::frangi(h, {.sigmas = {1, 2}}), a, 5e-4, 0.01));
  EXPECT_TRUE(mostly_close(filters::meijering(h3, {.sigmas = {1}}), b, 1e-9));
  EXPECT_TRUE(mostly_close(filters::hessian(h3, {.sigmas = {1}}), c, 1e-9, 0.01));
  EXPECT_TRUE(mostly_close(filters::sato(h, {.sigmas = {1}}), e, 5e-4));
}
