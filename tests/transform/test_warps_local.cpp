// swirl, warp_polar, resize_local_mean and downscale_local_mean against scikit-image 0.26
// (tests/golden/cases_transform_warps.py), then GPU == CPU backend.
//
// Tolerances: swirl / warp_polar evaluate sin, cos, exp and atan2 with libm (CUDA's on the device)
// where NumPy uses its own vectorised versions: coordinates agree to an ulp or two, values to 1e-9.
// resize_local_mean sums with fused multiply-adds where NumPy's tensordot goes through BLAS:
// 1e-12 (float64), 1e-6 (float32). downscale_local_mean is measure.block_reduce's (exact to NumPy).
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

::testing::AssertionResult near(const Array& e, const Array& a, double tol64 = 1e-12) {
  if (e.dtype() == DType::float64) return cusktest::arrays_close(e, a, tol64, tol64);
  if (e.dtype() == DType::float32) return cusktest::arrays_close(e, a, 1e-6, 1e-6);
  return cusktest::arrays_equal(e, a);
}

void run_goldens(const Device& dev, const Stream& s) {
  const Array f64 = golden("lm_in_f64").to(dev, s), rgb = golden("lm_in_rgb").to(dev, s);
  const Array u8 = golden("lm_in_u8").to(dev, s), f32 = golden("lm_in_f32").to(dev, s);
  const Array vol = golden("lm_in_vol").to(dev, s), rgb0 = golden("lm_in_rgb0").to(dev, s);
  EXPECT_TRUE(near(golden("swirl_f64_default"), tf::swirl(f64, {}, s), 1e-9));
  EXPECT_TRUE(near(golden("swirl_f64_strong"),
                   tf::swirl(f64,
                             {.center = std::array<double, 2>{5, 7.5},
                              .strength = 4,
                              .radius = 12,
                              .rotation = 0.3,
                              .order = 3,
                              .mode = WarpMode::constant,
                              .cval = 0.5},
                             s),
                   1e-9));
  EXPECT_TRUE(near(golden("swirl_rgb_o0"),
                   tf::swirl(rgb, {.strength = 2, .radius = 8, .output_shape = {10, 11}, .order = 0}, s), 1e-9));
  EXPECT_TRUE(near(golden("swirl_u8_pr"), tf::swirl(u8, {.strength = 2, .radius = 10, .preserve_range = true}, s), 1e-9));
  EXPECT_TRUE(near(golden("polar_f64_linear"), tf::warp_polar(f64, {}, s), 1e-9));
  EXPECT_TRUE(near(golden("polar_f64_log"),
                   tf::warp_polar(f64, {.radius = 9, .output_shape = {40, 30}, .scaling = tf::PolarScaling::log, .order = 3},
                                  s),
                   1e-9));
  EXPECT_TRUE(near(golden("polar_f64_center"),
                   tf::warp_polar(f64,
                                  {.center = std::array<double, 2>{4, 6.5},
                                   .radius = 7,
                                   .output_shape = {20, 16},
                                   .mode = WarpMode::wrap},
                                  s),
                   1e-9));
  EXPECT_TRUE(near(golden("polar_rgb_ca"), tf::warp_polar(rgb, {.output_shape = {36, 10}, .channel_axis = -1}, s), 1e-9));
  EXPECT_TRUE(near(golden("polar_rgb_ca0"), tf::warp_polar(rgb0, {.output_shape = {36, 10}, .channel_axis = 0}, s), 1e-9));
  for (const std::string key : {"f64", "u8", "f32"}) {
    const Array& in = key == "f64" ? f64 : key == "u8" ? u8 : f32;
    for (const Shape& sh : {Shape{7, 9}, Shape{30, 41}, Shape{19, 5}})
      for (bool grid : {true, false}) {
        const std::string name =
            "rlm_" + key + "_" + std::to_string(sh[0]) + "x" + std::to_string(sh[1]) + "_" + std::to_string(int(grid));
        EXPECT_TRUE(near(golden(name), tf::resize_local_mean(in, sh, {.grid_mode = grid}, s))) << name;
      }
  }
  EXPECT_TRUE(near(golden("rlm_rgb_ca"), tf::resize_local_mean(rgb, {7, 9}, {.channel_axis = -1}, s)));
  EXPECT_TRUE(near(golden("rlm_rgb0_ca"), tf::resize_local_mean(rgb0, {7, 9}, {.channel_axis = 0}, s)));
  EXPECT_TRUE(near(golden("rlm_vol"), tf::resize_local_mean(vol, {4, 9, 5}, {}, s)));
  EXPECT_TRUE(near(golden("rlm_u8_pr"), tf::resize_local_mean(u8, {8, 8}, {.preserve_range = true}, s)));
  EXPECT_TRUE(near(golden("dlm_f64"), tf::downscale_local_mean(f64, {2, 3}, {.cval = 0.5}, s)));
  EXPECT_TRUE(near(golden("dlm_u8"), tf::downscale_local_mean(u8, {2, 3}, {.cval = 0.5}, s)));
  EXPECT_TRUE(near(golden("dlm_f32"), tf::downscale_local_mean(f32, {2, 3}, {.cval = 0.5}, s)));
  EXPECT_TRUE(near(golden("dlm_vol"), tf::downscale_local_mean(vol, {2, 3, 3}, {.cval = 0.5}, s)));
}

TEST(TransformLocalMean, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(TransformLocalMean, BadInput) {
  const Array f64 = golden("lm_in_f64");
  EXPECT_THROW(tf::resize_local_mean(golden("lm_in_vol"), {3}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::resize_local_mean(golden("lm_in_rgb"), {7, 9, 2}, {.channel_axis = -1}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::resize_local_mean(f64, {7, 9}, {.channel_axis = 2}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::warp_polar(golden("lm_in_rgb")), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::warp_polar(f64, {.channel_axis = -1}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::swirl(f64, {.order = 7}), cuskimage::InvalidArgument);
}

TEST(GpuTransformLocalMean, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  run_goldens(Device::cuda(0), Stream::create());
}

TEST(GpuTransformLocalMean, MatchesCpuOnFreshInputs) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::float32, DType::float64, DType::uint16}) {
    const Array img = cusktest::random_array({203, 151, 3}, dt, 5);
    const Array view = img.slice({cuskimage::Slice{0, 203, 2}, cuskimage::Slice{}, cuskimage::Slice{0, 1}}).squeeze(2);
    const Array dv = view.to(Device::cuda(0), s);
    // Same operations in the same order: equal up to the device's fused multiply-adds (none here).
    EXPECT_ARRAY_EQ(tf::resize_local_mean(view, {37, 90}), tf::resize_local_mean(dv, {37, 90}, {}, s));
    EXPECT_ARRAY_EQ(tf::resize_local_mean(img, {401, 60}, {.grid_mode = false, .channel_axis = -1}),
                    tf::resize_local_mean(img.to(Device::cuda(0), s), {401, 60}, {.grid_mode = false, .channel_axis = -1}, s));
    // libm versus CUDA trigonometry: a last-bit difference in a coordinate.
    EXPECT_ARRAY_NEAR(tf::swirl(view, {.strength = 3, .radius = 50}), tf::swirl(dv, {.strength = 3, .radius = 50}, s),
                      1e-6, 1e-6);
    EXPECT_ARRAY_NEAR(tf::warp_polar(view, {.scaling = tf::PolarScaling::log}),
                      tf::warp_polar(dv, {.scaling = tf::PolarScaling::log}, s), 1e-6, 1e-6);
  }
}

}  // namespace
