// skimage.feature.corner against scikit-image 0.26's goldens (tests/golden/cases_feature_corner.py):
// structure_tensor (2-D/3-D, every mode, xy order), hessian_matrix (both forms), their eigenvalues,
// hessian_matrix_det (approximation and exact), shape_index, the corner responses, moravec, fast,
// subpix and orientations. Float results within a stated tolerance relative to the array's largest
// magnitude (float64 1e-9, the box-filter determinant 1e-10, float32 2e-6 on the CPU and 1e-5 for
// the GPU's fused structure tensor, which sums its Gaussian in float32); the window detectors
// exactly. Then bad arguments and the GPU tier (device == CPU on fresh inputs, strided views, a
// non-default stream).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "src/feature/corner.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
using cuskimage::ndimage::Mode;
namespace ft = cuskimage::feature;

Array G(const std::string& name) { return cusktest::load_golden("feature_corner/" + name + ".npy"); }

double max_abs(const Array& a) {
  const auto v = cusktest::host_copy(a).astype(DType::float64).to_vector<double>();
  double m = 0;
  for (double x : v)
    if (std::isfinite(x)) m = std::max(m, std::fabs(x));
  return m;
}

/// |got - want| <= tol * max|want| (NaNs equal), dtypes equal.
void expect_near(const Array& want, const Array& got, double tol) {
  ASSERT_EQ(want.dtype(), got.dtype());
  const Array g = cusktest::host_copy(got);
  EXPECT_TRUE(cusktest::arrays_close(want, g, 0, tol * std::max(max_abs(want), 1e-300)));
}
/// float32 on the GPU: the fused structure tensor sums its Gaussian in float32 (scipy in float64).
double tol_for(const Array& a, const Array& got) {
  if (a.dtype() != DType::float32) return 1e-9;
  return got.device().is_cpu() ? 2e-6 : 1e-5;
}

void expect_list(const std::string& prefix, const std::vector<Array>& got) {
  for (std::size_t k = 0; k < got.size(); ++k) {
    SCOPED_TRACE(prefix + "_" + std::to_string(k));
    const Array want = G(prefix + "_" + std::to_string(k));
    expect_near(want, got[k], tol_for(want, got[k]));
  }
}

struct Inputs {
  Array cam, f32, vol, sq;
  Inputs(const Device& d, const Stream& s)
      : cam(G("cam").to(d, s)), f32(G("f32").to(d, s)), vol(G("vol").to(d, s)), sq(G("sq").to(d, s)) {}
};

void check_tensors(const Inputs& in, const Stream& s) {
  std::vector<std::vector<Array>> st;
  st.push_back(ft::structure_tensor(in.cam, {.sigma = 1.0}, s));
  st.push_back(
      ft::structure_tensor(in.f32, {.sigma = {1.5, 0.8}, .mode = Mode::reflect, .order = ft::TensorOrder::xy}, s));
  st.push_back(ft::structure_tensor(in.vol, {.sigma = 1.0, .mode = Mode::nearest}, s));
  st.push_back(ft::structure_tensor(in.cam, {.sigma = 2.0, .mode = Mode::constant, .cval = 0.5}, s));
  st.push_back(ft::structure_tensor(in.f32, {.sigma = 1.0, .mode = Mode::wrap}, s));
  for (std::size_t i = 0; i < st.size(); ++i) {
    expect_list("st" + std::to_string(i), st[i]);
    const Array want = G("steig" + std::to_string(i));
    expect_near(want, ft::structure_tensor_eigenvalues(st[i], s), want.dtype() == DType::float32 ? 5e-5 : 1e-9);
  }
  std::vector<std::vector<Array>> hm;
  hm.push_back(ft::hessian_matrix(in.cam, {.sigma = 1.5}, s));
  hm.push_back(ft::hessian_matrix(in.f32, {.sigma = 2.0, .mode = Mode::reflect, .use_gaussian_derivatives = true}, s));
  hm.push_back(
      ft::hessian_matrix(in.cam, {.sigma = 1.0, .order = ft::TensorOrder::xy, .use_gaussian_derivatives = false}, s));
  hm.push_back(ft::hessian_matrix(in.vol, {.sigma = 1.2, .mode = Mode::mirror, .use_gaussian_derivatives = false}, s));
  hm.push_back(ft::hessian_matrix(in.f32, {.sigma = 0.8, .use_gaussian_derivatives = true}, s));
  for (std::size_t i = 0; i < hm.size(); ++i) {
    expect_list("hm" + std::to_string(i), hm[i]);
    const Array want = G("hmeig" + std::to_string(i));
    expect_near(want, ft::hessian_matrix_eigvals(hm[i], s), want.dtype() == DType::float32 ? 1e-5 : 1e-9);
  }
}

void check_dets(const Inputs& in, const Stream& s) {
  expect_near(G("hdet0"), ft::hessian_matrix_det(in.cam, {.sigma = 3}, s), 1e-10);
  expect_near(G("hdet1"), ft::hessian_matrix_det(in.f32, {.sigma = 1.5}, s), 1e-10);
  expect_near(G("hdet2"), ft::hessian_matrix_det(in.cam, {.sigma = 2, .approximate = false}, s), 1e-9);
  expect_near(G("hdet3"), ft::hessian_matrix_det(in.vol, {.sigma = 1}, s), 1e-9);
  Array shifted = cusktest::host_copy(in.sq).copy();
  for (std::int64_t i = 0; i < shifted.size(); ++i) shifted.data<double>()[i] -= 0.5;
  expect_near(G("hdet4"), ft::hessian_matrix_det(shifted.to(in.sq.device(), s), {.sigma = 2.5}, s), 1e-10);
  expect_near(G("si0"), ft::shape_index(in.cam, {.sigma = 2}, s), 1e-9);
  expect_near(G("si1"), ft::shape_index(in.f32, {.sigma = 1, .mode = Mode::reflect}, s), 1e-5);
}

void check_responses(const Inputs& in, const Stream& s) {
  // float32 responses: determinants cancel, and the GPU sums the tensor's Gaussian in float32
  const double r32 = in.f32.device().is_cpu() ? 1e-5 : 1e-4;
  expect_near(G("harris0"), ft::corner_harris(in.cam, {}, s), 1e-9);
  expect_near(G("harris1"), ft::corner_harris(in.f32, {.method = ft::HarrisMethod::eps, .eps = 1e-4, .sigma = 2.0}, s),
              r32);
  expect_near(G("harris2"), ft::corner_harris(in.sq, {.k = 0.1, .sigma = 1.5}, s), 1e-9);
  expect_near(G("shi0"), ft::corner_shi_tomasi(in.cam, {}, s), 1e-9);
  expect_near(G("shi1"), ft::corner_shi_tomasi(in.f32, {.sigma = 1.5}, s), r32);
  const auto f0 = ft::corner_foerstner(in.sq, {}, s);
  expect_near(G("foer0_w"), f0.w, 1e-9);
  expect_near(G("foer0_q"), f0.q, 1e-9);
  const auto f1 = ft::corner_foerstner(in.f32, {.sigma = 2.0}, s);
  expect_near(G("foer1_w"), f1.w, r32);
  expect_near(G("foer1_q"), f1.q, r32);
  expect_near(G("kr0"), ft::corner_kitchen_rosenfeld(in.cam, {}, s), 1e-9);
  expect_near(G("kr1"), ft::corner_kitchen_rosenfeld(in.f32, {.mode = Mode::reflect}, s), 1e-5);
}

void check_detectors(const Inputs& in, const Stream& s) {
  EXPECT_TRUE(cusktest::arrays_equal(G("mor0"), ft::corner_moravec(in.cam, {}, s)));
  EXPECT_TRUE(cusktest::arrays_equal(G("mor1"), ft::corner_moravec(in.f32, {.window_size = 2}, s)));
  EXPECT_TRUE(cusktest::arrays_equal(G("fast0"), ft::corner_fast(in.cam, {}, s)));
  EXPECT_TRUE(cusktest::arrays_equal(G("fast1"), ft::corner_fast(in.f32, {.n = 9, .threshold = 0.05}, s)));
  EXPECT_TRUE(cusktest::arrays_equal(G("fast2"), ft::corner_fast(in.sq, {.n = 9, .threshold = 0.1}, s)));
  const Array c0 = G("sp0_corners").to(in.sq.device(), s), c1 = G("sp1_corners").to(in.cam.device(), s);
  expect_near(G("sp0"), ft::corner_subpix(in.sq, c0, {}, s), 1e-9);
  expect_near(G("sp1"), ft::corner_subpix(in.cam, c1, {.window_size = 7, .alpha = 0.9}, s), 1e-9);
  expect_near(G("or0"), ft::corner_orientations(in.cam, c1, G("or0_mask"), s), 1e-12);
  expect_near(G("or1"), ft::corner_orientations(in.sq, c0, G("or1_mask"), s), 1e-12);
}

TEST(FeatureCorner, StructureTensorAndHessian) {
  const Inputs in(Device::cpu(), {});
  check_tensors(in, {});
}
TEST(FeatureCorner, HessianDetAndShapeIndex) {
  const Inputs in(Device::cpu(), {});
  check_dets(in, {});
}
TEST(FeatureCorner, Responses) {
  const Inputs in(Device::cpu(), {});
  check_responses(in, {});
}
TEST(FeatureCorner, WindowDetectorsAndEstimators) {
  const Inputs in(Device::cpu(), {});
  check_detectors(in, {});
}

TEST(FeatureCorner, Semantics) {
  // scikit-image's docstring examples.
  Array sq = Array::zeros({5, 5}, DType::float64);
  sq.data<double>()[12] = 1;
  const auto a = ft::structure_tensor(sq, {.sigma = 0.1});
  const std::vector<double> acc = {0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 4, 0, 4, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0};
  EXPECT_TRUE(cusktest::arrays_close(Array::from_vector(acc, {5, 5}), a[2], 0, 1e-12));
  sq.data<double>()[12] = 4;
  const auto h = ft::hessian_matrix(sq, {.sigma = 0.1, .use_gaussian_derivatives = false});
  const std::vector<double> hrc = {0, 0, 0, 0, 0, 0, 1, 0, -1, 0, 0, 0, 0, 0, 0, 0, -1, 0, 1, 0, 0, 0, 0, 0, 0};
  EXPECT_TRUE(cusktest::arrays_close(Array::from_vector(hrc, {5, 5}), h[1], 0, 1e-12));
  const Array si = ft::shape_index(sq, {.sigma = 0.1});
  EXPECT_TRUE(std::isnan(si.at<double>({0, 0})));
  EXPECT_DOUBLE_EQ(si.at<double>({2, 2}), -1.0);
  EXPECT_DOUBLE_EQ(si.at<double>({0, 2}), -0.5);
  // the moravec example
  Array dot = Array::zeros({7, 7}, DType::float64);
  dot.data<double>()[24] = 1;
  const Array m = ft::corner_moravec(dot);
  EXPECT_EQ(m.at<double>({3, 3}), 2.0);
  EXPECT_EQ(m.at<double>({2, 2}), 1.0);
  EXPECT_EQ(m.at<double>({1, 1}), 0.0);
  // FAST with n beyond the circle (all 16 pixels) and n <= 0 (never), as scikit-image's loop runs
  Array spot = Array::zeros({12, 12}, DType::float64);
  spot.data<double>()[5 * 12 + 5] = 1;
  EXPECT_EQ(ft::corner_fast(spot, {.n = 17}).at<double>({5, 5}), 16.0);
  EXPECT_EQ(ft::corner_fast(spot, {.n = 0}).at<double>({5, 5}), 0.0);
  EXPECT_EQ(ft::corner_fast(spot, {.n = -3}).at<double>({5, 5}), 0.0);
  // F critical values (scipy.stats.f.isf(0.01, 119, 119) and its reciprocal)
  EXPECT_NEAR(cuskimage::feature::detail::f_isf_equal_dof(0.01, 119), 1.5357730784853303, 1e-9);
  EXPECT_NEAR(cuskimage::feature::detail::f_isf_equal_dof(0.99, 119), 0.651137862753955, 1e-9);
  EXPECT_NEAR(cuskimage::feature::detail::f_isf_equal_dof(0.1, 47), 1.4578489204794929, 1e-9);
}

TEST(FeatureCorner, BadArguments) {
  const Array img = Array::zeros({16, 16}, DType::float32);
  const Array vol = Array::zeros({6, 6, 6}, DType::float32);
  EXPECT_THROW(ft::structure_tensor(vol, {.order = ft::TensorOrder::xy}), InvalidArgument);
  EXPECT_THROW(ft::structure_tensor(img, {.sigma = {1.0, 2.0, 3.0}}), InvalidArgument);
  EXPECT_THROW(ft::structure_tensor(Array::zeros({16}, DType::float32)), InvalidArgument);
  EXPECT_THROW(ft::structure_tensor(img, {.sigma = -1.0}), InvalidArgument);
  EXPECT_THROW(ft::hessian_matrix(vol, {.order = ft::TensorOrder::xy}), InvalidArgument);
  EXPECT_THROW(ft::hessian_matrix(Array::zeros({1, 8}, DType::float32)), InvalidArgument);
  EXPECT_THROW(ft::hessian_matrix_det(img, {.sigma = 0.2}), InvalidArgument);
  std::vector<Array> two;
  two.push_back(img.share());
  two.push_back(img.share());
  EXPECT_THROW(ft::hessian_matrix_eigvals(two), InvalidArgument);
  EXPECT_THROW(ft::shape_index(vol), InvalidArgument);
  EXPECT_THROW(ft::corner_harris(vol), InvalidArgument);
  EXPECT_THROW(ft::corner_kitchen_rosenfeld(vol), InvalidArgument);
  EXPECT_THROW(ft::corner_fast(img, {.n = 200}), InvalidArgument);
  EXPECT_THROW(ft::corner_fast(vol), InvalidArgument);
  EXPECT_THROW(ft::corner_moravec(img, {.window_size = -1}), InvalidArgument);
  const Array c = Array::zeros({3, 2}, DType::int64);
  EXPECT_THROW(ft::corner_subpix(img, c, {.window_size = 4}), InvalidArgument);
  EXPECT_THROW(ft::corner_subpix(img, c, {.alpha = 1.5}), InvalidArgument);
  EXPECT_THROW(ft::corner_subpix(img, Array::zeros({3, 3}, DType::int64)), InvalidArgument);
  EXPECT_THROW(ft::corner_orientations(img, c, Array::full({4, 5}, 1.0, DType::bool_)), InvalidArgument);
  EXPECT_THROW(ft::corner_orientations(img, Array::zeros({3, 2}, DType::float64), Array::full({3, 3}, 1.0, DType::bool_)),
               InvalidArgument);
}

// ---- GPU tier ------------------------------------------------------------------------------------------

TEST(GpuFeatureCorner, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Inputs in(Device::cuda(), s);
  check_tensors(in, s);
  check_dets(in, s);
  check_responses(in, s);
  check_detectors(in, s);
}

/// GPU == CPU on fresh images, contiguous and strided: float64 within 1e-12 of the largest
/// magnitude, float32 within 1e-5 (the fused tensor kernel's Gaussian sums in float32 where scipy
/// and the CPU sum in float64; 1e-4 for the responses, whose determinants cancel); the window
/// detectors exactly.
TEST(GpuFeatureCorner, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 7;
  for (DType dt : {DType::float32, DType::float64, DType::uint8}) {
    const Array base = cusktest::random_array({203, 171}, dt, seed++);
    const Array view = base.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 1}});
    for (const Array* h : {&base, &view}) {
      const Array d = h->to(Device::cuda(), s);
      const double tol = dt == DType::float32 ? 1e-5 : 1e-12;
      for (Mode m : {Mode::constant, Mode::reflect, Mode::wrap, Mode::nearest}) {
        const auto want = ft::structure_tensor(*h, {.sigma = 1.5, .mode = m});
        const auto got = ft::structure_tensor(d, {.sigma = 1.5, .mode = m}, s);
        for (int k = 0; k < 3; ++k) expect_near(want[k], got[k], tol);
      }
      expect_near(ft::corner_harris(*h), ft::corner_harris(d, {}, s), tol * 10);
      expect_near(ft::corner_shi_tomasi(*h, {.sigma = 2.0}), ft::corner_shi_tomasi(d, {.sigma = 2.0}, s), tol * 10);
      const auto fw = ft::corner_foerstner(*h), gw = ft::corner_foerstner(d, {}, s);
      expect_near(fw.w, gw.w, tol * 10);
      expect_near(ft::corner_kitchen_rosenfeld(*h), ft::corner_kitchen_rosenfeld(d, {}, s), tol * 10);
      // the GPU integral image sums in another order: box sums move by ~1e-16 of the image total
      expect_near(ft::hessian_matrix_det(*h, {.sigma = 2}), ft::hessian_matrix_det(d, {.sigma = 2}, s), 1e-9);
      expect_near(ft::shape_index(*h), ft::shape_index(d, {}, s), 1e-5);
      EXPECT_TRUE(cusktest::arrays_equal(ft::corner_moravec(*h), cusktest::host_copy(ft::corner_moravec(d, {}, s))));
      EXPECT_TRUE(cusktest::arrays_equal(ft::corner_fast(*h, {.n = 9, .threshold = 0.1}),
                                         cusktest::host_copy(ft::corner_fast(d, {.n = 9, .threshold = 0.1}, s))));
    }
  }
  const Array vol = cusktest::random_array({20, 24, 28}, DType::float64, 99);
  const auto want = ft::structure_tensor(vol, {.sigma = 1.0});
  const auto got = ft::structure_tensor(vol.to(Device::cuda(), s), {.sigma = 1.0}, s);
  for (std::size_t k = 0; k < want.size(); ++k) expect_near(want[k], got[k], 1e-12);
}

TEST(GpuFeatureCorner, NonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Array d = cusktest::random_array({256, 256}, DType::float32, 5).to(Device::cuda());
  cuskimage::Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    (void)ft::corner_harris(d, {}, s);
    (void)ft::structure_tensor(d, {}, s);
    (void)ft::corner_fast(d, {}, s);
    (void)ft::hessian_matrix_det(d, {}, s);
  }));
}

}  // namespace
