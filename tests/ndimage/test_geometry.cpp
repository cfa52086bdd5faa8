// zoom, shift, affine_transform, rotate and geometric_transform against scipy.ndimage's goldens
// (tests/golden/cases_ndimage_geometry.py): every order 0..5 and mode, 2-D and 3-D, grid_mode both
// ways, the matrix forms, 3-D rotation planes, dtypes; argument errors; then the GPU tier (device ==
// CPU bit for bit on fresh random inputs, strided views, a non-default stream).
//
// Tolerances against scipy as test_spline.cpp's (the CPU backend performs scipy's double operations
// in scipy's order, so float64 results are equal in practice; integer outputs exactly).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/ndimage.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
using cuskimage::ndimage::InterpMode;
namespace nd = cuskimage::ndimage;

const std::vector<std::string> kModes = {"constant", "grid-constant", "nearest", "reflect",
                                         "mirror",   "grid-wrap",     "wrap"};

Array golden(const std::string& name) { return cusktest::load_golden("ndimage_geometry/" + name + ".npy"); }

::testing::AssertionResult matches(const Array& expected, const Array& actual) {
  if (expected.dtype() == DType::float64) return cusktest::arrays_close(expected, actual, 1e-12, 1e-12);
  if (expected.dtype() == DType::float32) return cusktest::arrays_close(expected, actual, 2.5e-7, 1e-6);
  return cusktest::arrays_equal(expected, actual);
}

const std::vector<double> kZoom3 = {0.6, 1.5, 2.0};
const std::vector<double> kShift2 = {0.3, -1.7}, kShift3 = {1.25, -0.5, 2.6};
const std::vector<double> kMat2 = {0.9, 0.35, -0.2, 1.15};
const std::vector<double> kMat3 = {0.8, 0.1, -0.2, 0.15, 1.1, 0.05, -0.1, 0.2, 0.9};
const std::vector<double> kOff2 = {-1.2, 0.7}, kOff3 = {0.5, -0.8, 0.3};

void run_goldens(const Device& dev, const Stream& s) {
  for (const std::string key : {"2d", "3d"}) {
    const Array in = golden("in_" + key).to(dev, s);
    const bool two = key == "2d";
    for (int order = 0; order <= 5; ++order)
      for (const auto& m : kModes) {
        const std::string sfx = key + "_o" + std::to_string(order) + "_" + m;
        SCOPED_TRACE(sfx);
        const InterpMode mode = nd::interp_mode_from_name(m);
        for (int gm = 0; gm < 2; ++gm) {
          const nd::ZoomOptions zo{.order = order, .mode = mode, .cval = 2.5, .grid_mode = gm == 1};
          const Array z = two ? nd::zoom(in, 1.7, zo, s) : nd::zoom(in, kZoom3, zo, s);
          EXPECT_TRUE(matches(golden("zoom_" + sfx + "_g" + std::to_string(gm)), z)) << "zoom g" << gm;
        }
        EXPECT_TRUE(matches(golden("shift_" + sfx),
                            nd::shift(in, two ? kShift2 : kShift3, {.order = order, .mode = mode, .cval = 2.5}, s)))
            << "shift";
        const nd::AffineTransformOptions ao{.offset = two ? kOff2 : kOff3,
                                            .output_shape = two ? std::vector<std::int64_t>{10, 12}
                                                                : std::vector<std::int64_t>{6, 5, 5},
                                            .order = order,
                                            .mode = mode,
                                            .cval = 2.5};
        EXPECT_TRUE(matches(golden("aff_" + sfx),
                            nd::affine_transform(in, two ? kMat2 : kMat3, two ? Shape{2, 2} : Shape{3, 3}, ao, s)))
            << "affine";
        if (two)
          for (int r = 0; r < 2; ++r)
            EXPECT_TRUE(matches(golden("rot_" + sfx + "_r" + std::to_string(r)),
                                nd::rotate(in, 30, {.reshape = r == 1, .order = order, .mode = mode, .cval = 2.5}, s)))
                << "rotate r" << r;
      }
  }
  const Array a2 = golden("in_2d").to(dev, s), a3 = golden("in_3d").to(dev, s);
  const Array u = golden("in_2u").to(dev, s), f = golden("in_2f").to(dev, s);
  EXPECT_TRUE(matches(golden("zoom_2d_o3_mirror_nopf"),
                      nd::zoom(a2, 1.3, {.order = 3, .mode = InterpMode::mirror, .prefilter = false}, s)));
  EXPECT_TRUE(matches(golden("zoom_2u_o1_nearest"), nd::zoom(u, {1.5, 0.7}, {.order = 1, .mode = InterpMode::nearest}, s)));
  EXPECT_TRUE(matches(golden("zoom_2u_o3_reflect_f64"),
                      nd::zoom(u, 2.0, {.output = DType::float64, .order = 3, .mode = InterpMode::reflect}, s)));
  EXPECT_TRUE(matches(golden("zoom_2f_o3_grid-constant_g1"),
                      nd::zoom(f, 0.5, {.order = 3, .mode = InterpMode::grid_constant, .cval = 2.5, .grid_mode = true},
                               s)));
  EXPECT_TRUE(matches(golden("shift_2u_o2_wrap"),
                      nd::shift(u, {0.5, -2.5}, {.order = 2, .mode = InterpMode::wrap, .cval = 7}, s)));
  // Matrix forms: diagonal (scipy's zoom_shift path), (nd, nd + 1), homogeneous.
  EXPECT_TRUE(matches(golden("aff_2d_diag_o3_reflect"),
                      nd::affine_transform(a2, {0.8, 1.3}, {2}, {.offset = {0.4, -0.6}, .order = 3,
                                                                 .mode = InterpMode::reflect}, s)));
  const std::vector<double> mo = {0.9, 0.35, -1.2, -0.2, 1.15, 0.7};
  EXPECT_TRUE(matches(golden("aff_2d_o1_nearest_n1"),
                      nd::affine_transform(a2, mo, {2, 3}, {.output_shape = {10, 12}, .order = 1,
                                                             .mode = InterpMode::nearest}, s)));
  std::vector<double> mh = mo;
  mh.insert(mh.end(), {0.0, 0.0, 1.0});
  const Array mha = Array::from_vector(mh, {3, 3});
  EXPECT_TRUE(matches(golden("aff_2d_o3_mirror_h"),
                      nd::affine_transform(a2, mha, {.output_shape = {10, 12}, .order = 3, .mode = InterpMode::mirror},
                                           s)));
  for (const double ang : {90.0, -45.0, 137.5}) {
    std::string n = "rot_2d_a" + (ang == 137.5 ? std::string("137.5") : std::to_string(static_cast<int>(ang))) +
                    "_o1_constant";
    EXPECT_TRUE(matches(golden(n), nd::rotate(a2, ang, {.order = 1, .mode = InterpMode::constant, .cval = 2.5}, s)))
        << n;
  }
  for (const auto& axes : std::vector<std::vector<int>>{{0, 2}, {2, 1}, {0, 1}})
    for (const int order : {0, 1, 3})
      for (const std::string m : {"constant", "nearest", "grid-wrap"}) {
        const std::string n = "rot_3d_ax" + std::to_string(axes[0]) + std::to_string(axes[1]) + "_o" +
                              std::to_string(order) + "_" + m;
        EXPECT_TRUE(matches(golden(n), nd::rotate(a3, 25, {.axes = axes, .order = order,
                                                           .mode = nd::interp_mode_from_name(m), .cval = 2.5}, s)))
            << n;
      }
  const Array b = golden("in_2b").to(dev, s);
  for (const int order : {1, 3})
    EXPECT_TRUE(matches(golden("zoom_2b_o" + std::to_string(order) + "_reflect"),
                        nd::zoom(b, 1.6, {.order = order, .mode = InterpMode::reflect}, s)));
  EXPECT_TRUE(matches(golden("rot_2u_o3_reflect"), nd::rotate(u, 20, {.order = 3, .mode = InterpMode::reflect}, s)));
  const nd::GeometricMapping geo = [](const std::int64_t* o, double* c) {
    c[0] = static_cast<double>(o[0]) * 0.9 + 0.3;
    c[1] = static_cast<double>(o[1]) * 1.1 - 0.7;
  };
  for (const int order : {0, 1, 3, 5})
    EXPECT_TRUE(matches(golden("geo_2d_o" + std::to_string(order) + "_reflect"),
                        nd::geometric_transform(a2, geo, {.output_shape = {8, 12}, .order = order,
                                                          .mode = InterpMode::reflect}, s)))
        << order;
}

}  // namespace

TEST(NdimageGeometry, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(NdimageGeometry, CosdgSindg) {
  const auto ang = golden("deg_angles").to_vector<double>();
  const auto c = golden("deg_cos").to_vector<double>(), s = golden("deg_sin").to_vector<double>();
  for (std::size_t i = 0; i < ang.size(); ++i) {
    EXPECT_EQ(nd::cosdg(ang[i]), c[i]) << ang[i];
    EXPECT_EQ(nd::sindg(ang[i]), s[i]) << ang[i];
  }
}

TEST(NdimageGeometry, ShapesAndEarlyExit) {
  const Array a = cusktest::random_array({9, 11}, DType::float32, 3, -1, 1);
  EXPECT_EQ(nd::zoom(a, 0.5).shape(), (Shape{4, 6}));  // round(4.5) = 4, round(5.5) = 6: half to even
  EXPECT_EQ(nd::zoom(a, {2.0, 1.0}).shape(), (Shape{18, 11}));
  EXPECT_ARRAY_EQ(a, nd::zoom(a, 1.0));  // scipy's early exit returns the input
  EXPECT_EQ(nd::zoom(a, 1.0, {.output = DType::float64}).dtype(), DType::float64);
  EXPECT_EQ(nd::rotate(a, 90).shape(), (Shape{11, 9}));
  EXPECT_EQ(nd::rotate(a, 90, {.reshape = false}).shape(), (Shape{9, 11}));
  // zoom to one sample along an axis: the factor is 1 there (scipy's divide-where).
  EXPECT_EQ(nd::zoom(a, {0.1, 1.0}, {.order = 1}).shape(), (Shape{1, 11}));
}

TEST(NdimageGeometry, BadInput) {
  const Array a = cusktest::random_array({6, 7}, DType::float64, 4, -1, 1);
  using cuskimage::InvalidArgument;
  EXPECT_THROW(nd::zoom(a, 2.0, {.order = 6}), InvalidArgument);
  EXPECT_THROW(nd::zoom(a, -2.0), InvalidArgument);
  EXPECT_THROW(nd::zoom(a, {1.0, 2.0, 3.0}), InvalidArgument);
  EXPECT_THROW(nd::zoom(a, 2.0, {.output = DType::int16}), InvalidArgument);
  EXPECT_THROW(nd::shift(a, {1.0, 2.0, 3.0}), InvalidArgument);
  EXPECT_THROW(nd::shift(a, 1.0, {.order = -1}), InvalidArgument);
  EXPECT_THROW(nd::affine_transform(a, {1, 0, 0, 1, 0, 0}, {3, 2}), InvalidArgument);       // rows
  EXPECT_THROW(nd::affine_transform(a, {1, 0, 0, 1, 0, 0}, {2, 3, 1}), InvalidArgument);    // 3-D matrix
  EXPECT_THROW(nd::affine_transform(a, {1, 0, 0, 0, 1, 0, 0, 1, 1}, {3, 3}), InvalidArgument);  // bottom row
  EXPECT_THROW(nd::affine_transform(a, {1, 0, 0, 1}, {2, 2}, {.output_shape = {3}}), InvalidArgument);
  EXPECT_THROW(nd::affine_transform(a, {1, 0, 0, 1}, {2, 2}, {.offset = {1, 2, 3}}), InvalidArgument);
  EXPECT_THROW(nd::rotate(cusktest::random_array({7}, DType::float64, 5), 30), InvalidArgument);
  EXPECT_THROW(nd::rotate(a, 30, {.axes = {0}}), InvalidArgument);
  EXPECT_THROW(nd::rotate(a, 30, {.axes = {0, 2}}), InvalidArgument);
  EXPECT_THROW(nd::rotate(a, 30, {.axes = {1, 1}}), InvalidArgument);
  EXPECT_THROW(nd::geometric_transform(a, nd::GeometricMapping{}), InvalidArgument);
}

TEST(NdimageGeometry, StridedViewEqualsContiguous) {
  const Array big = cusktest::random_array({21, 30}, DType::float64, 5, -3, 3);
  const Array view = big.slice({Slice{1, 20, 2}, Slice{28, 2, -3}});
  const Array cont = view.copy();
  for (const int order : {0, 1, 3})
    for (const std::string m : {"reflect", "grid-constant", "wrap"}) {
      const InterpMode mode = nd::interp_mode_from_name(m);
      EXPECT_ARRAY_EQ(nd::zoom(cont, 1.6, {.order = order, .mode = mode}), nd::zoom(view, 1.6, {.order = order, .mode = mode}));
      EXPECT_ARRAY_EQ(nd::rotate(cont, 33, {.order = order, .mode = mode}), nd::rotate(view, 33, {.order = order, .mode = mode}));
    }
}

TEST(NdimageGeometry, Cli) {
  const std::string in = cusktest::golden_path("ndimage_geometry/in_2d.npy");
  const std::string out = cusktest::temp_path("geometry_cli.npy");
  auto check = [&](const std::vector<std::string>& args, const std::string& expected) {
    const auto r = cuskclitest::run_cli_cpu(args);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_TRUE(matches(golden(expected), cuskimage::io::imread(out))) << expected;
  };
  check({"ndimage.zoom", in, out, "--zoom", "1.7", "--order", "3", "--mode", "reflect", "--cval", "2.5",
         "--grid_mode", "true"},
        "zoom_2d_o3_reflect_g1");
  check({"ndimage.shift", in, out, "--shift", "0.3,-1.7", "--order", "1", "--mode", "wrap", "--cval", "2.5"},
        "shift_2d_o1_wrap");
  check({"ndimage.rotate", in, out, "--angle", "30", "--reshape", "false", "--order", "2", "--mode", "mirror",
         "--cval", "2.5"},
        "rot_2d_o2_mirror_r0");
  check({"ndimage.affine_transform", in, out, "--matrix", "0.9,0.35,-1.2,-0.2,1.15,0.7", "--output_shape", "10,12",
         "--order", "1", "--mode", "nearest"},
        "aff_2d_o1_nearest_n1");
  // A library error (a 5-value matrix for a 2-D input) exits 1.
  EXPECT_EQ(cuskclitest::run_cli_cpu({"ndimage.affine_transform", in, out, "--matrix", "1,2,3,4,5"}).rc, 1);
}

// ---- GPU tier ------------------------------------------------------------------------------------

namespace {

Array fresh(const Shape& shape, DType dt, std::uint64_t seed) {
  if (cuskimage::is_floating(dt)) return cusktest::random_array(shape, dt, seed, -10, 10);
  return cusktest::random_array(shape, dt, seed);
}

}  // namespace

TEST(GpuNdimageGeometry, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s);
}

TEST(GpuNdimageGeometry, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 700;
  const std::vector<Shape> shapes = {{300}, {70, 101}, {19, 23, 17}};
  for (const Shape& shape : shapes)
    for (DType dt : {DType::float32, DType::float64, DType::uint8, DType::int16}) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      const int n = static_cast<int>(shape.size());
      for (int order = 0; order <= 5; ++order)
        for (const auto& m : kModes)
          for (bool pf : {true, false}) {
            if (!pf && order < 2) continue;
            const InterpMode mode = nd::interp_mode_from_name(m);
            SCOPED_TRACE(std::to_string(n) + "-D " + std::string(cuskimage::dtype_name(dt)) + " o" +
                         std::to_string(order) + " " + m + (pf ? "" : " nopf"));
            for (const bool gm : {false, true}) {
              const nd::ZoomOptions zo{.order = order, .mode = mode, .cval = 3.25, .prefilter = pf, .grid_mode = gm};
              EXPECT_ARRAY_EQ(nd::zoom(h, 1.37, zo), nd::zoom(d, 1.37, zo, s));
            }
            const nd::ShiftOptions so{.order = order, .mode = mode, .cval = 3.25, .prefilter = pf};
            EXPECT_ARRAY_EQ(nd::shift(h, -2.3, so), nd::shift(d, -2.3, so, s));
            std::vector<double> mat(n * n);
            for (int i = 0; i < n * n; ++i) mat[i] = (i % (n + 1) == 0 ? 1.05 : 0.0) + 0.07 * ((i * 7) % 5 - 2);
            const nd::AffineTransformOptions ao{.offset = {1.3}, .order = order, .mode = mode, .cval = 3.25,
                                                .prefilter = pf};
            EXPECT_ARRAY_EQ(nd::affine_transform(h, mat, {n, n}, ao), nd::affine_transform(d, mat, {n, n}, ao, s));
            if (n >= 2) {
              const nd::RotateOptions ro{.axes = {n - 1, 0}, .order = order, .mode = mode, .cval = 3.25,
                                         .prefilter = pf};
              EXPECT_ARRAY_EQ(nd::rotate(h, 31, ro), nd::rotate(d, 31, ro, s));
            }
          }
    }
}

TEST(GpuNdimageGeometry, StridedViewsAndOutputs) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = fresh({41, 60}, DType::float32, 900);
  const Array d = h.to(Device::cuda(), s);
  const Array hv = h.slice({Slice{1, 40, 2}, Slice{3, 60, 3}}), dv = d.slice({Slice{1, 40, 2}, Slice{3, 60, 3}});
  for (const int order : {0, 1, 3}) {
    EXPECT_ARRAY_EQ(nd::zoom(hv, 2.2, {.order = order}), nd::zoom(dv, 2.2, {.order = order}, s));
    EXPECT_ARRAY_EQ(nd::rotate(hv, 17, {.output = DType::float64, .order = order}),
                    nd::rotate(dv, 17, {.output = DType::float64, .order = order}, s));
  }
  const nd::GeometricMapping geo = [](const std::int64_t* o, double* c) {
    c[0] = static_cast<double>(o[0]) * 0.5 + 0.25 * static_cast<double>(o[1] % 3);
    c[1] = static_cast<double>(o[1]) * 1.5 - 2.0;
  };
  EXPECT_ARRAY_EQ(nd::geometric_transform(h, geo, {.output_shape = {30, 44}}),
                  nd::geometric_transform(d, geo, {.output_shape = {30, 44}}, s));
}
