// resize and rescale against scikit-image 0.26 (tests/golden/cases_transform_warps.py): every order
// and mode, anti-aliasing on, off and with sigmas, bool / uint8 / float32 / float64, channels, 3-D;
// then GPU == CPU backend.
//
// Tolerances: float64 1e-12 (scipy's gaussian_filter and spline arithmetic are reproduced), float32
// 1 ulp (2.5e-7 relative, 1e-6 absolute), bool and integer exactly.
#include <gtest/gtest.h>

#include <string>

#include "cuskimage/transform/warps.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;
namespace tf = cuskimage::transform;
using tf::WarpMode;

Array golden(const std::string& name) { return cusktest::load_golden("transform_warps/" + name + ".npy"); }

// The device's Gaussian accumulates float32 images in float32 and float64 ones in a different order
// (ndimage's stated tolerances): the device runs compare looser.
double g_f32_tol = 1e-6, g_f64_tol = 1e-12;

::testing::AssertionResult matches(const Array& e, const Array& a) {
  if (e.dtype() == DType::float64) return cusktest::arrays_close(e, a, g_f64_tol, g_f64_tol);
  if (e.dtype() == DType::float32) return cusktest::arrays_close(e, a, g_f32_tol > 1e-6 ? g_f32_tol : 2.5e-7, g_f32_tol);
  return cusktest::arrays_equal(e, a);
}

const std::vector<std::pair<std::string, WarpMode>> kModes = {{"constant", WarpMode::constant},
                                                              {"edge", WarpMode::edge},
                                                              {"symmetric", WarpMode::symmetric},
                                                              {"reflect", WarpMode::reflect},
                                                              {"wrap", WarpMode::wrap}};

void run_goldens(const Device& dev, const Stream& s) {
  auto in = [&](const std::string& k) { return golden("rs_in_" + k).to(dev, s); };
  for (const std::string key : {"f64", "f32"}) {
    const Array img = in(key);
    for (const Shape& sh : {Shape{9, 11}, Shape{30, 41}})
      for (int order = 0; order <= 5; ++order)
        for (const auto& [m, mode] : kModes) {
          const std::string name = "rs_" + key + "_" + std::to_string(sh[0]) + "x" + std::to_string(sh[1]) + "_o" +
                                   std::to_string(order) + "_" + m + "_aad";
          EXPECT_TRUE(matches(golden(name), tf::resize(img, sh, {.order = order, .mode = mode, .cval = 0.25}, s)))
              << name;
        }
  }
  const Array f64 = in("f64"), u8 = in("u8"), b = in("b"), rgb = in("rgb"), vol = in("vol");
  EXPECT_TRUE(matches(golden("rs_f64_9x11_o1_reflect_aa0"), tf::resize(f64, {9, 11}, {.anti_aliasing = false}, s)));
  EXPECT_TRUE(matches(golden("rs_f64_9x30_o3_reflect_sig"),
                      tf::resize(f64, {9, 30}, {.order = 3, .anti_aliasing = true, .anti_aliasing_sigma = {1.5, 0.0}}, s)));
  EXPECT_TRUE(matches(golden("rs_u8_9x11_o0_reflect_aad"), tf::resize(u8, {9, 11}, {.order = 0}, s)));
  EXPECT_TRUE(matches(golden("rs_u8_9x11_o1_reflect_aad"), tf::resize(u8, {9, 11}, {}, s)));
  EXPECT_TRUE(matches(golden("rs_u8_9x11_o1_reflect_pr"), tf::resize(u8, {9, 11}, {.preserve_range = true}, s)));
  EXPECT_TRUE(matches(golden("rs_b_9x11_o0_reflect_aad"), tf::resize(b, {9, 11}, {}, s)));
  EXPECT_TRUE(matches(golden("rs_b_30x41_o0_edge_aad"), tf::resize(b, {30, 41}, {.mode = WarpMode::edge}, s)));
  EXPECT_TRUE(matches(golden("rs_rgb_7x9_o1_reflect_aad"), tf::resize(rgb, {7, 9}, {}, s)));
  EXPECT_TRUE(matches(golden("rs_rgb_7x9x2_o1_reflect_aad"), tf::resize(rgb, {7, 9, 2}, {}, s)));
  EXPECT_TRUE(matches(golden("rs_vol_3x9x4_o3_constant_aad"),
                      tf::resize(vol, {3, 9, 4}, {.order = 3, .mode = WarpMode::constant}, s)));
  EXPECT_TRUE(matches(golden("rs_f64_cvalout"),
                      tf::resize(f64, {30, 41}, {.order = 3, .mode = WarpMode::constant, .cval = -1.0}, s)));
  EXPECT_TRUE(matches(golden("rsc_f64_half"), tf::rescale(f64, {0.5}, {}, s)));
  EXPECT_TRUE(matches(golden("rsc_f64_axes"), tf::rescale(f64, {1.7, 0.6}, {.order = 3}, s)));
  EXPECT_TRUE(matches(golden("rsc_rgb_ca"), tf::rescale(rgb, {0.5}, {.channel_axis = -1}, s)));
  EXPECT_TRUE(matches(golden("rsc_rgb0_ca"), tf::rescale(in("rgb0"), {2, 1.5}, {.channel_axis = 0}, s)));
  EXPECT_TRUE(matches(golden("rsc_vol"), tf::rescale(vol, {0.7}, {}, s)));
}

TEST(TransformResize, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(TransformResize, BadInput) {
  const Array f64 = golden("rs_in_f64");
  EXPECT_THROW(tf::resize(golden("rs_in_vol"), {5}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::resize(golden("rs_in_b"), {5, 5}, {.anti_aliasing = true}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::resize(golden("rs_in_b"), {5, 5}, {.order = 1}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::resize(f64, {5, 5}, {.order = 6}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::resize(f64, {5, 5}, {.anti_aliasing = true, .anti_aliasing_sigma = {-1.0}}),
               cuskimage::InvalidArgument);
  EXPECT_THROW(tf::rescale(f64, {0.5, 0.5, 0.5}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::rescale(golden("rs_in_rgb"), {0.5, 0.5, 0.5}, {.channel_axis = -1}), cuskimage::InvalidArgument);
}

TEST(GpuTransformResize, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  g_f32_tol = 2e-5, g_f64_tol = 1e-11;
  run_goldens(Device::cuda(0), Stream::create());
  g_f32_tol = 1e-6, g_f64_tol = 1e-12;
}

TEST(GpuTransformResize, MatchesCpuOnFreshInputs) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::float32, DType::float64, DType::uint8}) {
    const Array img = cusktest::random_array({257, 190, 3}, dt, 9);
    const Array view = img.slice({cuskimage::Slice{}, cuskimage::Slice{0, 190, 2}, cuskimage::Slice{2, 3}}).squeeze(2);
    for (int order : {0, 1, 3})
      for (const Shape& sh : {Shape{64, 40}, Shape{300, 101}}) {
        const tf::ResizeOptions o{.order = order, .mode = WarpMode::reflect};
        const Array cpu = tf::resize(view, sh, o);
        const Array gpu = tf::resize(view.to(Device::cuda(0), s), sh, o, s);
        // The device Gaussian accumulates float32 images in float32 (ndimage's stated tolerance).
        if (dt == DType::float32)
          EXPECT_ARRAY_NEAR(cpu, gpu, 2e-5, 2e-5);
        else
          EXPECT_ARRAY_NEAR(cpu, gpu, 1e-11, 1e-11);
      }
  }
}

}  // namespace
