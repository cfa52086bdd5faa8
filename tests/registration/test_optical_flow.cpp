// optical_flow_tvl1 / optical_flow_ilk against scikit-image 0.26's goldens
// (tests/golden/cases_registration.py): uint8 2-D with two pyramid levels, float64 2-D, float64
// 3-D; float32 and float64 outputs; prefilter, the Gaussian window and non-default parameters.
// Then bad input and the GPU tier (device == CPU backend on fresh inputs, a non-default stream).
//
// Tolerances against scikit-image: the solvers iterate (TV-L1 thresholds per pixel, ILK solves
// near-singular systems where the image is flat), so rounding differences grow: float64 flows
// within 1e-10 absolute (measured ~2e-13), float32 flows within 2e-4 (measured ~3e-5).
#include <gtest/gtest.h>

#include <string>

#include "cuskimage/ndimage.hpp"
#include "cuskimage/registration.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;
namespace reg = cuskimage::registration;

Array golden(const std::string& name) { return cusktest::load_golden("registration/" + name + ".npy"); }

/// `loose`: the device's filters and reductions sum in another order than the CPU's, which the
/// iterations amplify: float64 within 1e-6, float32 within 2e-3 there.
void run_goldens(const Device& dev, const Stream& s, bool loose = false) {
  auto close = [&](const Array& expected, const Array& actual) {
    const bool f32 = expected.dtype() == DType::float32;
    return cusktest::arrays_close(expected, actual, 0, f32 ? (loose ? 2e-3 : 2e-4) : (loose ? 1e-6 : 1e-10));
  };
  for (const std::string key : {"u8", "f64", "3d"}) {
    SCOPED_TRACE(key);
    const Array ref = golden("fl_" + key + "_ref").to(dev, s), mov = golden("fl_" + key + "_mov").to(dev, s);
    EXPECT_TRUE(close(golden("flow_" + key + "_tvl1"), reg::optical_flow_tvl1(ref, mov, {}, s)));
    EXPECT_TRUE(close(golden("flow_" + key + "_tvl1_f64"), reg::optical_flow_tvl1(ref, mov, {.dtype = DType::float64}, s)));
    EXPECT_TRUE(close(golden("flow_" + key + "_ilk"), reg::optical_flow_ilk(ref, mov, {}, s)));
    EXPECT_TRUE(close(golden("flow_" + key + "_ilk_f64"), reg::optical_flow_ilk(ref, mov, {.dtype = DType::float64}, s)));
    if (key != "u8") continue;
    EXPECT_TRUE(close(golden("flow_u8_tvl1_pre"),
                      reg::optical_flow_tvl1(ref, mov, {.prefilter = true, .dtype = DType::float64}, s)));
    EXPECT_TRUE(close(golden("flow_u8_tvl1_params"),
                      reg::optical_flow_tvl1(ref, mov,
                                             {.attachment = 5, .tightness = 0.5, .num_warp = 3, .num_iter = 20,
                                              .tol = 1e-6, .dtype = DType::float64},
                                             s)));
    EXPECT_TRUE(close(golden("flow_u8_ilk_gauss"),
                      reg::optical_flow_ilk(ref, mov, {.radius = 4, .gaussian = true, .dtype = DType::float64}, s)));
    EXPECT_TRUE(close(golden("flow_u8_ilk_pre"),
                      reg::optical_flow_ilk(ref, mov, {.num_warp = 4, .prefilter = true, .dtype = DType::float64}, s)));
  }
}

TEST(OpticalFlow, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(OpticalFlow, BadInput) {
  using cuskimage::InvalidArgument;
  const Array a = cusktest::random_array({20, 20}, DType::float32, 1);
  const Array b = cusktest::random_array({20, 21}, DType::float32, 2);
  EXPECT_THROW(reg::optical_flow_tvl1(a, b), InvalidArgument);  // Input images should have the same shape
  EXPECT_THROW(reg::optical_flow_ilk(a, b), InvalidArgument);
  EXPECT_THROW(reg::optical_flow_tvl1(a, a, {.dtype = DType::uint8}), InvalidArgument);  // dtype not supported
  EXPECT_THROW(reg::optical_flow_ilk(a, a, {.dtype = DType::int32}), InvalidArgument);
  EXPECT_THROW(reg::optical_flow_ilk(a, a, {.radius = -1}), InvalidArgument);
  const Array thin = cusktest::random_array({20, 1}, DType::float32, 3);
  EXPECT_THROW(reg::optical_flow_tvl1(thin, thin), InvalidArgument);  // no gradient along a 1-sample axis
}

TEST(OpticalFlow, ShapeAndDtype) {
  const Array a = golden("fl_f64_ref"), b = golden("fl_f64_mov");
  const Array f = reg::optical_flow_tvl1(a, b);
  EXPECT_EQ(f.shape(), (cuskimage::Shape{2, 40, 36}));
  EXPECT_EQ(f.dtype(), DType::float32);
}

// ---- GPU tier ---------------------------------------------------------------------------------------

TEST(GpuOpticalFlow, Goldens) {
  CUSK_REQUIRE_GPU();
  run_goldens(Device::cuda(0), Stream(), true);
}

TEST(GpuOpticalFlow, MatchesCpuOnFreshInputsAndStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const cuskimage::Shape& shape : {cuskimage::Shape{70, 90}, cuskimage::Shape{17, 20, 22}}) {
    SCOPED_TRACE(cuskimage::shape_str(shape));
    // A smooth random image and a copy moved by about a pixel: a well-posed flow. The device runs
    // the same per-pixel functions, but its filters, sums and fused multiply-adds round otherwise.
    const Array a = cuskimage::ndimage::gaussian_filter(cusktest::random_array(shape, DType::float64, 11), 2.0);
    Array b = Array::empty(shape, DType::float64);
    for (std::int64_t i = 0; i < a.size(); ++i) b.data<double>()[i] = a.data<double>()[(i + 1) % a.size()];
    const Array ad = a.to(Device::cuda(0), s), bd = b.to(Device::cuda(0), s);
    EXPECT_TRUE(cusktest::arrays_close(reg::optical_flow_tvl1(a, b, {.dtype = DType::float64}),
                                       reg::optical_flow_tvl1(ad, bd, {.dtype = DType::float64}, s), 0, 1e-5));
    EXPECT_TRUE(cusktest::arrays_close(reg::optical_flow_ilk(a, b, {.dtype = DType::float64}),
                                       reg::optical_flow_ilk(ad, bd, {.dtype = DType::float64}, s), 0, 1e-5));
  }
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& st) {
    const Array a = cusktest::random_array({64, 64}, DType::float32, 3).to(Device::cuda(0), st);
    (void)reg::optical_flow_tvl1(a, a, {}, st);
    (void)reg::optical_flow_ilk(a, a, {}, st);
  }));
}

// Strided views (every other row and column) give what their contiguous copies give.
TEST(OpticalFlow, StridedViewsEqualTheirCopies) {
  const Array a = cuskimage::ndimage::gaussian_filter(cusktest::random_array({80, 72}, DType::float64, 41), 2.0);
  const Array b = cuskimage::ndimage::gaussian_filter(cusktest::random_array({80, 72}, DType::float64, 42), 2.0);
  const auto view = [](const Array& x) { return x.slice({cuskimage::Slice{0, 80, 2}, cuskimage::Slice{0, 72, 2}}); };
  const Array av = view(a), bv = view(b);
  EXPECT_ARRAY_EQ(reg::optical_flow_ilk(av.contiguous(), bv.contiguous()), reg::optical_flow_ilk(av, bv));
  EXPECT_ARRAY_EQ(reg::optical_flow_tvl1(av.contiguous(), bv.contiguous()), reg::optical_flow_tvl1(av, bv));
}

}  // namespace
