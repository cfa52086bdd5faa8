// skimage.transform.warp and rotate against scikit-image 0.26 (tests/golden/cases_transform_warps.py):
// the fast path (orders 1 and 3 under a matrix) and the map_coordinates path (orders 0, 2, 4, 5,
// coordinate maps, C++ callables), every mode, bool / uint8 / uint16 / float32 / float64, colour
// and 3-D inputs, clip and preserve_cval, preserve_range; then the GPU tier (device == CPU backend
// on fresh inputs, strided views, a non-default stream).
//
// Tolerances against scikit-image: the fast path is exact (scikit-image's interpolation in its own
// float type and operation order); the map_coordinates path is exact in float64 up to 1e-12 (scipy's
// arithmetic) and 1 float32 ulp in float32; bool and integer results exactly.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/tuning.hpp"
#include "cuskimage/transform/geometric.hpp"
#include "cuskimage/transform/warps.hpp"
#include "tests/cli/cli_support.hpp"
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

const std::vector<std::pair<std::string, WarpMode>> kModes = {{"constant", WarpMode::constant},
                                                              {"edge", WarpMode::edge},
                                                              {"symmetric", WarpMode::symmetric},
                                                              {"reflect", WarpMode::reflect},
                                                              {"wrap", WarpMode::wrap}};

WarpMode mode_of(const std::string& m) {
  for (const auto& [n, v] : kModes)
    if (n == m) return v;
  return WarpMode::constant;
}

::testing::AssertionResult matches(const Array& expected, const Array& actual) {
  if (expected.dtype() == DType::float64) return cusktest::arrays_close(expected, actual, 1e-12, 1e-12);
  if (expected.dtype() == DType::float32) return cusktest::arrays_close(expected, actual, 2.5e-7, 1e-6);
  return cusktest::arrays_equal(expected, actual);
}

double cval_for(const Array& a) { return cuskimage::is_floating(a.dtype()) ? 0.25 : 0.0; }

Array shift_map(const Array& xy) {
  Array out = xy.copy();
  double* p = out.data<double>();
  for (std::int64_t i = 0; i < out.shape(0); ++i) p[2 * i] += 2.5, p[2 * i + 1] -= 1.25;
  return out;
}

// Every warp golden, on `dev` with stream `s`.
void run_warp_goldens(const Device& dev, const Stream& s) {
  const Array aff = golden("mat_affine");
  const tf::WarpOptions base{.output_shape = {24, 28}};
  for (const std::string key : {"f64", "f32"}) {
    const Array in = golden("in_" + key).to(dev, s);
    for (int order = 0; order <= 5; ++order)
      for (const auto& [m, mode] : kModes) {
        const std::string name = "warp_" + key + "_affine_o" + std::to_string(order) + "_" + m;
        SCOPED_TRACE(name);
        tf::WarpOptions o = base;
        o.order = order, o.mode = mode, o.cval = 0.25;
        const Array got = tf::warp(in, aff, o, s);
        if (order == 1 || order == 3)
          EXPECT_ARRAY_EQ(golden(name), got);  // scikit-image's own interpolation: exact
        else
          EXPECT_TRUE(matches(golden(name), got));
      }
  }
  {
    const Array in = golden("in_f64").to(dev, s);
    const Array proj = golden("mat_proj");
    for (int order = 0; order <= 5; ++order)
      for (const std::string m : {"constant", "wrap"}) {
        SCOPED_TRACE("proj " + std::to_string(order) + m);
        tf::WarpOptions o = base;
        o.order = order, o.mode = mode_of(m), o.cval = 0.25;
        EXPECT_TRUE(matches(golden("warp_f64_proj_o" + std::to_string(order) + "_" + m), tf::warp(in, proj, o, s)));
      }
  }
  {
    const Array in = golden("in_u8").to(dev, s);
    for (int order : {0, 1, 3})
      for (const std::string m : {"constant", "reflect"}) {
        tf::WarpOptions o = base;
        o.order = order, o.mode = mode_of(m);
        EXPECT_TRUE(matches(golden("warp_u8_affine_o" + std::to_string(order) + "_" + m), tf::warp(in, aff, o, s)))
            << order << m;
      }
  }
  {
    const Array in = golden("in_b").to(dev, s);
    for (const auto& [m, mode] : kModes) {
      tf::WarpOptions o = base;
      o.mode = mode;
      EXPECT_ARRAY_EQ(golden("warp_b_affine_o0_" + m), tf::warp(in, aff, o, s)) << m;
    }
  }
  {
    const Array in = golden("in_u16").to(dev, s);
    tf::WarpOptions o = base;
    o.preserve_range = true;
    EXPECT_TRUE(matches(golden("warp_u16_affine_pr"), tf::warp(in, aff, o, s)));
    o = base;
    o.order = 0, o.mode = WarpMode::edge;
    EXPECT_ARRAY_EQ(golden("warp_u16_affine_o0"), tf::warp(in, aff, o, s));
  }
  {
    const Array in = golden("in_f64").to(dev, s);
    tf::WarpOptions o = base;
    o.order = 3, o.clip = false;
    EXPECT_ARRAY_EQ(golden("warp_f64_affine_noclip"), tf::warp(in, aff, o, s));
    for (int order : {1, 3, 5}) {
      o = base;
      o.order = order, o.cval = -2.0;
      EXPECT_TRUE(matches(golden("warp_f64_affine_cvalout_o" + std::to_string(order)), tf::warp(in, aff, o, s)))
          << order;
    }
  }
  {
    const Array in = golden("in_rgb").to(dev, s);
    for (int order : {0, 1, 3, 5}) {
      tf::WarpOptions o{.order = order, .mode = WarpMode::reflect};
      EXPECT_TRUE(matches(golden("warp_rgb_affine_o" + std::to_string(order) + "_reflect"), tf::warp(in, aff, o, s)))
          << order;
    }
    tf::WarpOptions o{.output_shape = {10, 12}, .order = 2};
    EXPECT_TRUE(matches(golden("warp_rgb_affine_shape2"), tf::warp(in, aff, o, s)));
  }
  for (const std::string key : {"f64", "vol"}) {
    const Array in = golden("in_" + key).to(dev, s);
    const Array co = golden("co_" + key).to(dev, s);
    for (int order = 0; order <= 5; ++order)
      for (const std::string m : {"constant", "symmetric"}) {
        const std::string name = "warp_coords_" + key + "_o" + std::to_string(order) + "_" + m;
        tf::WarpOptions o{.order = order, .mode = mode_of(m)};
        EXPECT_TRUE(matches(golden(name), tf::warp(in, co, o, s))) << name;
      }
  }
  for (const std::string key : {"f64", "rgb"}) {
    const Array in = golden("in_" + key).to(dev, s);
    for (int order : {0, 1, 3, 4}) {
      tf::WarpOptions o{.order = order, .mode = WarpMode::wrap};
      EXPECT_TRUE(matches(golden("warp_shift_" + key + "_o" + std::to_string(order)),
                          tf::warp(in, tf::CoordinateMap(shift_map), o, s)))
          << key << order;
    }
  }
}

void run_rotate_goldens(const Device& dev, const Stream& s) {
  for (const std::string key : {"f64", "f32", "u8", "rgb"}) {
    const Array in = golden("in_" + key).to(dev, s);
    for (const std::string angle : {"30", "-17.5"}) {
      const double a = std::stod(angle);
      const std::string stem = "rot_" + key + "_" + angle;
      EXPECT_TRUE(matches(golden(stem + "_plain"), tf::rotate(in, a, {}, s))) << stem;
      EXPECT_TRUE(matches(golden(stem + "_resize"),
                          tf::rotate(in, a, {.resize = true, .order = 3, .mode = WarpMode::reflect}, s)))
          << stem;
      EXPECT_TRUE(matches(golden(stem + "_center"),
                          tf::rotate(in, a, {.center = std::array<double, 2>{3, 4.5}, .order = 0, .mode = WarpMode::edge},
                                     s)))
          << stem;
    }
  }
  EXPECT_ARRAY_EQ(golden("rot_b_30_plain"), tf::rotate(golden("in_b").to(dev, s), 30, {}, s));
}

TEST(TransformWarp, Goldens) { run_warp_goldens(Device::cpu(), Stream()); }
TEST(TransformRotate, Goldens) { run_rotate_goldens(Device::cpu(), Stream()); }

// Transform objects through the GeometricTransform interface: a projective-family one (its matrix
// takes the fast path) and one known only through operator() (the callable path).
class MatrixTransform : public tf::GeometricTransform {
 public:
  explicit MatrixTransform(Array m) : m_(std::move(m)) {}
  int dimensionality() const override { return 2; }
  Array operator()(const Array&) const override { throw std::logic_error("warp must use the matrix"); }
  std::shared_ptr<tf::GeometricTransform> inverse() const override { return nullptr; }
  std::optional<Array> homogeneous_matrix() const override { return m_.copy(); }

 private:
  Array m_;
};

class ShiftTransform : public tf::GeometricTransform {
 public:
  int dimensionality() const override { return 2; }
  Array operator()(const Array& xy) const override { return shift_map(xy); }
  std::shared_ptr<tf::GeometricTransform> inverse() const override { return nullptr; }
};

TEST(TransformWarp, TransformObjects) {
  const Array in = golden("in_f64");
  const MatrixTransform aff(golden("mat_affine"));
  for (int order : {1, 3, 5}) {
    tf::WarpOptions o{.output_shape = {24, 28}, .order = order, .mode = WarpMode::wrap, .cval = 0.25};
    EXPECT_TRUE(matches(golden("warp_f64_affine_o" + std::to_string(order) + "_wrap"), tf::warp(in, aff, o))) << order;
  }
  for (int order : {0, 1, 3, 4})
    EXPECT_TRUE(matches(golden("warp_shift_f64_o" + std::to_string(order)),
                        tf::warp(in, ShiftTransform(), {.order = order, .mode = WarpMode::wrap})))
        << order;
}

TEST(TransformWarp, ScikitImageTransforms) {
  const Array in = golden("in_f64");
  const tf::AffineTransform t(tf::TransformParams{.scale = std::vector<double>{1.1, 0.9},
                                                  .rotation = std::vector<double>{0.3},
                                                  .shear = std::vector<double>{0.1},
                                                  .translation = std::vector<double>{2, -3}});
  for (int order : {0, 1, 3})
    EXPECT_TRUE(matches(golden("warp_obj_affine_o" + std::to_string(order)),
                        tf::warp(in, t, {.order = order, .mode = WarpMode::reflect})))
        << order;
  EXPECT_TRUE(matches(golden("warp_obj_inverse_o1"), tf::warp(in, *t.inverse(), {.order = 1, .mode = WarpMode::reflect})));
  const tf::PolynomialTransform p(
      tf::Matrix(2, 6, {1.0, 0.9, 0.05, 0.001, 0.002, 0.0, -2.0, 0.03, 1.1, 0.0, 0.001, 0.002}));
  EXPECT_TRUE(matches(golden("warp_obj_poly_o1"), tf::warp(in, p, {.order = 1, .mode = WarpMode::edge})));
}

TEST(TransformWarp, BadInput) {
  const Array img = golden("in_f64");
  const Array aff = golden("mat_affine");
  EXPECT_THROW(tf::warp(img, aff, {.order = 6}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::warp(img, aff, {.order = -1}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::warp(golden("in_b"), aff, {.order = 1}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::warp(Array::zeros({0, 4}, DType::float64), aff), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::warp(Array::zeros({3, 4, 5, 2}, DType::float64), tf::CoordinateMap(shift_map)), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::warp(img, Array::zeros({3, 4, 4}, DType::float64)), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::warp(img, tf::CoordinateMap([](const Array&) { return Array::zeros({3, 3}, DType::float64); })),
               cuskimage::InvalidArgument);
}

TEST(TransformWarp, WarpCoordsLayout) {
  const Array c = tf::warp_coords(tf::CoordinateMap(shift_map), {3, 4, 2});
  ASSERT_EQ(c.shape(), (Shape{3, 3, 4, 2}));
  EXPECT_EQ(c.at<double>({0, 2, 1, 1}), 2 - 1.25);  // row
  EXPECT_EQ(c.at<double>({1, 2, 1, 1}), 1 + 2.5);   // col
  EXPECT_EQ(c.at<double>({2, 2, 1, 1}), 1.0);       // band
}

TEST(TransformWarp, Cli) {
  const auto path = [](const std::string& n) { return cusktest::golden_path("transform_warps/" + n + ".npy"); };
  const std::string out = cusktest::temp_path("warp_cli.npy");
  auto r = cuskclitest::run_cli_cpu({"transform.rotate", path("in_f64"), out, "--angle", "-17.5", "--resize", "true",
                                     "--order", "3", "--mode", "reflect"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(matches(golden("rot_f64_-17.5_resize"), cuskimage::io::imread(out)));
  r = cuskclitest::run_cli_cpu({"transform.warp", path("in_f64"), out, "--matrix", "1,0,2.5,0,1,-1.25", "--order", "4",
                                "--mode", "wrap"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(matches(golden("warp_shift_f64_o4"), cuskimage::io::imread(out)));
  r = cuskclitest::run_cli_cpu({"transform.resize", cusktest::golden_path("transform_warps/rs_in_f64.npy"), out,
                                "--output_shape", "9,11", "--anti_aliasing", "false"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(matches(golden("rs_f64_9x11_o1_reflect_aa0"), cuskimage::io::imread(out)));
  const std::string levels = cusktest::temp_path("pyr_cli_{}.npy");
  r = cuskclitest::run_cli_cpu({"transform.pyramid_gaussian", path("in_f64"), "--levels", levels, "--max_layer", "2"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(cuskclitest::contains(r.out, "pyr_cli_2.npy")) << r.out;
  r = cuskclitest::run_cli_cpu({"transform.warp", path("in_f64"), out, "--scale", "1.1,0.9", "--rotation", "0.3",
                                "--shear", "0.1", "--translation", "2,-3", "--mode", "reflect"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(matches(golden("warp_obj_affine_o1"), cuskimage::io::imread(out)));
  EXPECT_NE(cuskclitest::run_cli_cpu({"transform.warp", path("in_f64"), out, "--matrix", "1,2,3"}).rc, 0);
  EXPECT_EQ(cuskclitest::run_cli_cpu({"transform.rotate", path("in_f64"), out, "--angle", "3", "--order", "9"}).rc, 1);
}

// ---- GPU tier ---------------------------------------------------------------------------------------

TEST(GpuTransformWarp, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  run_warp_goldens(Device::cuda(0), Stream());
  run_rotate_goldens(Device::cuda(0), Stream());
}

TEST(GpuTransformWarp, MatchesCpuOnFreshInputs) {
  CUSK_REQUIRE_GPU();
  const Array aff = golden("mat_affine");
  const Array proj = golden("mat_proj");
  const Stream s = Stream::create();
  for (DType dt : {DType::float32, DType::float64, DType::uint8}) {
    const Array big = cusktest::random_array({301, 517, 3}, dt, 11);
    // A strided view: every other column of one channel.
    const Array view = big.slice({cuskimage::Slice{}, cuskimage::Slice{0, 517, 2}, cuskimage::Slice{1, 2}}).squeeze(2);
    for (const Array* m : {&aff, &proj})
      for (int order : {0, 1, 3, 5})
        for (const auto& [name, mode] : kModes) {
          tf::WarpOptions o{.output_shape = {290, 270}, .order = order, .mode = mode, .cval = 0.5};
          const Array cpu = tf::warp(view, *m, o);
          const Array gpu = tf::warp(view.to(Device::cuda(0), s), *m, o, s);
          EXPECT_ARRAY_EQ(cpu, gpu) << cuskimage::dtype_name(dt) << " " << order << " " << name;
        }
    const Array cpu = tf::rotate(big, 33.0, {.resize = true});
    EXPECT_ARRAY_EQ(cpu, tf::rotate(big.to(Device::cuda(0), s), 33.0, {.resize = true}, s));
  }
}

/// The CUDA fast path's kernels (tuning::WarpKernel) against the CPU backend, bit for bit: cval
/// inside the input's range (clipped in the kernel), below it (0, -0.25: the clip fixes the listed
/// tiles), not a float32 value (0.1: cval-valued outputs are listed too), NaN (a NaN output from a
/// NaN-free input: the whole output is clipped), an input holding NaN; orders 1 and 3, interior and
/// border samples, edge tiles (output 290 x 270), colour planes, clip off.
TEST(GpuTransformWarp, TileAndPixelKernelsMatchCpu) {
  CUSK_REQUIRE_GPU();
  namespace tn = cuskimage::tuning;
  const Array aff = golden("mat_affine");
  const Array rot = Array::from_vector(std::vector<double>{0.866, -0.5, 120.0, 0.5, 0.866, -40.0, 0, 0, 1}, {3, 3});
  const Stream s = Stream::create();
  for (const tn::WarpKernel kernel : {tn::WarpKernel::automatic, tn::WarpKernel::tiles, tn::WarpKernel::pixels}) {
    const tn::WarpPolicy old = tn::set_warp_policy({.kernel = kernel});
    for (DType dt : {DType::float32, DType::float64}) {
      const Array gray = cusktest::random_array({301, 317}, dt, 21, 0.2, 0.9);
      Array holed = gray.copy();
      holed.slice({cuskimage::Slice{5, 6}, cuskimage::Slice{7, 8}}).fill(std::nan(""));
      const Array color = cusktest::random_array({120, 140, 3}, dt, 22, 0.2, 0.9);
      for (const Array* img : std::vector<const Array*>{&gray, &holed, &color})
        for (const Array* m : {&aff, &rot})
          for (int order : {1, 3})
            for (double cval : {0.5, 0.0, -0.25, 0.1, std::nan("")})
              for (WarpMode mode : {WarpMode::constant, WarpMode::reflect})
                for (bool clip : {true, false}) {
                  if (mode != WarpMode::constant && cval != 0.5) continue;
                  tf::WarpOptions o{.output_shape = {290, 270}, .order = order, .mode = mode, .cval = cval, .clip = clip};
                  const Array cpu = tf::warp(*img, *m, o);
                  const Array gpu = tf::warp(img->to(Device::cuda(0), s), *m, o, s);
                  EXPECT_TRUE(cusktest::arrays_close(cpu, gpu, 0, 0))
                      << static_cast<int>(kernel) << " " << cuskimage::dtype_name(dt) << " " << img->str() << " order "
                      << order << " cval " << cval << " clip " << clip;
                }
    }
    tn::set_warp_policy(old);
  }
}

TEST(GpuTransformWarp, NoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array img = cusktest::random_array({512, 384}, DType::float32, 3).to(Device::cuda(0));
  const Array aff = golden("mat_affine");
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    (void)tf::warp(img, aff, {.order = 1}, s);
    (void)tf::warp(img, aff, {.order = 3, .cval = -5.0}, s);
    (void)tf::warp(img, aff, {.order = 0}, s);
    (void)tf::rotate(img, 30.0, {.resize = true}, s);
    (void)tf::swirl(img, {}, s);
    (void)tf::resize_local_mean(img, {100, 90}, {}, s);
    s.synchronize();
  }));
}

}  // namespace
