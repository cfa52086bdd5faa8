// pyramid_reduce, pyramid_expand, pyramid_gaussian and pyramid_laplacian against scikit-image 0.26
// (tests/golden/cases_transform_pyramids.py); then GPU == CPU backend. Tolerances as test_warps_resize.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <tuple>

#include "cuskimage/transform/pyramids.hpp"
#include "cuskimage/transform/warps.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;
namespace tf = cuskimage::transform;
using tf::WarpMode;

Array golden(const std::string& name) { return cusktest::load_golden("transform_pyramids/" + name + ".npy"); }

// The device's Gaussian accumulates float32 images in float32 and float64 ones in a different order
// (ndimage's stated tolerances): the device runs compare looser.
double g_f32_tol = 1e-6, g_f64_tol = 1e-12;

::testing::AssertionResult matches(const Array& e, const Array& a) {
  if (e.dtype() == DType::float64) return cusktest::arrays_close(e, a, g_f64_tol, g_f64_tol);
  if (e.dtype() == DType::float32) return cusktest::arrays_close(e, a, g_f32_tol > 1e-6 ? g_f32_tol : 2.5e-7, g_f32_tol);
  return cusktest::arrays_equal(e, a);
}

void expect_layers(const std::string& stem, const std::vector<Array>& layers) {
  std::size_t n = 0;
  while (std::ifstream(cusktest::golden_path("transform_pyramids/" + stem + "_" + std::to_string(n) + ".npy")).good())
    ++n;
  ASSERT_EQ(layers.size(), n) << stem;
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_TRUE(matches(golden(stem + "_" + std::to_string(i)), layers[i])) << stem << " layer " << i;
}

void run_goldens(const Device& dev, const Stream& s) {
  auto in = [&](const std::string& k) { return golden("in_" + k).to(dev, s); };
  for (const std::string key : {"f64", "f32", "u8", "vol"}) {
    EXPECT_TRUE(matches(golden("reduce_" + key + "_default"), tf::pyramid_reduce(in(key), {}, s))) << key;
    EXPECT_TRUE(matches(golden("expand_" + key + "_default"), tf::pyramid_expand(in(key), {}, s))) << key;
  }
  const Array f64 = in("f64"), rgb = in("rgb");
  EXPECT_TRUE(matches(golden("reduce_f64_3"),
                      tf::pyramid_reduce(f64, {.downscale = 3, .sigma = 0.8, .order = 3, .mode = WarpMode::constant,
                                               .cval = 0.5},
                                         s)));
  EXPECT_TRUE(matches(golden("reduce_f64_wrap"),
                      tf::pyramid_reduce(f64, {.downscale = 1.5, .order = 0, .mode = WarpMode::wrap}, s)));
  EXPECT_TRUE(matches(golden("reduce_u8_pr"), tf::pyramid_reduce(in("u8"), {.preserve_range = true}, s)));
  EXPECT_TRUE(matches(golden("reduce_rgb_ca"), tf::pyramid_reduce(rgb, {.channel_axis = -1}, s)));
  EXPECT_TRUE(matches(golden("expand_f64_3"),
                      tf::pyramid_expand(f64, {.upscale = 2.5, .order = 3, .mode = WarpMode::constant, .cval = 0.5}, s)));
  EXPECT_TRUE(matches(golden("expand_rgb_ca"), tf::pyramid_expand(rgb, {.channel_axis = -1}, s)));
  const std::vector<std::tuple<std::string, std::string, tf::PyramidOptions>> cases = {
      {"f64_default", "f64", {}},
      {"f32_default", "f32", {}},
      {"f64_3", "f64", {.max_layer = 2, .downscale = 3, .order = 3}},
      {"rgb_ca", "rgb", {.channel_axis = -1}},
      {"vol_default", "vol", {}}};
  for (const auto& [name, key, o] : cases) {
    const Array img = in(key);
    expect_layers("gauss_" + name, tf::pyramid_gaussian(img, o, s));
    expect_layers("lap_" + name, tf::pyramid_laplacian(img, o, s));
  }
}

TEST(TransformPyramids, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(TransformPyramids, BadInput) {
  const Array f64 = golden("in_f64");
  EXPECT_THROW(tf::pyramid_reduce(f64, {.downscale = 1.0}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::pyramid_expand(f64, {.upscale = 0.5}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::pyramid_gaussian(f64, {.downscale = 1.0}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::pyramid_reduce(f64, {.mode = WarpMode::edge}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::pyramid_reduce(f64, {.channel_axis = 2}), cuskimage::InvalidArgument);
}

TEST(GpuTransformPyramids, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  g_f32_tol = 2e-5, g_f64_tol = 1e-11;
  run_goldens(Device::cuda(0), Stream::create());
  g_f32_tol = 1e-6, g_f64_tol = 1e-12;
}

TEST(GpuTransformPyramids, MatchesCpuOnFreshInputs) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array img = cusktest::random_array({301, 263}, DType::float64, 21);
  const auto cpu = tf::pyramid_gaussian(img, {.max_layer = 4});
  const auto gpu = tf::pyramid_gaussian(img.to(Device::cuda(0), s), {.max_layer = 4}, s);
  ASSERT_EQ(cpu.size(), gpu.size());
  for (std::size_t i = 0; i < cpu.size(); ++i) EXPECT_ARRAY_NEAR(cpu[i], gpu[i], 1e-12, 1e-12);
  const auto lc = tf::pyramid_laplacian(img, {.max_layer = 3});
  const auto lg = tf::pyramid_laplacian(img.to(Device::cuda(0), s), {.max_layer = 3}, s);
  ASSERT_EQ(lc.size(), lg.size());
  for (std::size_t i = 0; i < lc.size(); ++i) EXPECT_ARRAY_NEAR(lc[i], lg[i], 1e-12, 1e-12);
}

TEST(GpuTransformPyramids, NoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array img = cusktest::random_array({512, 384}, DType::float32, 3).to(Device::cuda(0));
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    (void)tf::resize(img, {256, 192}, {}, s);
    (void)tf::pyramid_gaussian(img, {.max_layer = 3}, s);
    (void)tf::pyramid_laplacian(img, {.max_layer = 2}, s);
    s.synchronize();
  }));
}

// A strided view (every other row, reversed columns) gives what its contiguous copy gives.
TEST(TransformPyramids, StridedViewEqualsItsCopy) {
  const Array base = cusktest::random_array({81, 70}, DType::float64, 31);
  const Array view = base.slice({cuskimage::Slice{0, 81, 2}, cuskimage::Slice{std::nullopt, std::nullopt, -1}});
  const Array copy = view.contiguous();
  EXPECT_ARRAY_EQ(tf::pyramid_reduce(copy), tf::pyramid_reduce(view));
  EXPECT_ARRAY_EQ(tf::pyramid_expand(copy), tf::pyramid_expand(view));
  const auto a = tf::pyramid_gaussian(copy), b = tf::pyramid_gaussian(view);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) EXPECT_ARRAY_EQ(a[i], b[i]) << "layer " << i;
}

}  // namespace
