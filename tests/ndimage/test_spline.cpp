// spline_filter1d, spline_filter and map_coordinates against scipy.ndimage's goldens
// (tests/golden/cases_ndimage_spline.py): every order 0..5, every mode, 1-D to 4-D, float64 /
// float32 / uint8 inputs, prefilter on and off, output dtypes; then the GPU tier (device == CPU
// bit for bit on fresh random inputs, strided views, a non-default stream).
//
// Tolerances against scipy: float64 results 1e-12 relative (+1e-12 absolute for values near zero;
// the CPU backend performs scipy's double operations in scipy's order, so in practice they are
// equal); float32 results 2.5e-7 relative (+1e-6 absolute): scipy and we round the same double
// once into float32, which can differ by one float32 ulp (6e-8 relative) only where that double
// sits next to a rounding boundary; integer outputs exactly.
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
                                         "grid-mirror", "mirror",        "grid-wrap", "wrap"};
const std::vector<std::string> kKeys = {"1d", "2d", "2f", "2u", "3d", "2s"};

Array golden(const std::string& name) { return cusktest::load_golden("ndimage_spline/" + name + ".npy"); }

double cval_for(const Array& a) { return cuskimage::is_floating(a.dtype()) ? 2.5 : 7.0; }

::testing::AssertionResult matches(const Array& expected, const Array& actual) {
  if (expected.dtype() == DType::float64) return cusktest::arrays_close(expected, actual, 1e-12, 1e-12);
  if (expected.dtype() == DType::float32) return cusktest::arrays_close(expected, actual, 2.5e-7, 1e-6);
  return cusktest::arrays_equal(expected, actual);
}

void run_goldens(const Device& dev, const Stream& s) {
  for (const auto& key : kKeys) {
    const Array in = golden("in_" + key).to(dev, s);
    const Array co = golden("co_" + key).to(dev, s);
    const double cv = cval_for(in);
    for (int order = 0; order <= 5; ++order)
      for (const auto& m : kModes) {
        const std::string name = "map_" + key + "_o" + std::to_string(order) + "_" + m;
        SCOPED_TRACE(name);
        const InterpMode mode = nd::interp_mode_from_name(m);
        EXPECT_TRUE(matches(golden(name), nd::map_coordinates(in, co, {.order = order, .mode = mode, .cval = cv}, s)));
        if (order >= 2 && (key == "2d" || key == "2u"))
          EXPECT_TRUE(matches(golden(name + "_nopf"),
                              nd::map_coordinates(in, co, {.order = order, .mode = mode, .cval = cv, .prefilter = false},
                                                  s)));
        for (int axis = 0; axis < in.ndim(); ++axis) {
          if (key == "3d" && axis != 1) continue;
          const std::string n1 = "sf1_" + key + "_o" + std::to_string(order) + "_" + m + "_ax" + std::to_string(axis);
          EXPECT_TRUE(matches(golden(n1), nd::spline_filter1d(in, {.order = order, .axis = axis, .mode = mode}, s)))
              << n1;
        }
        if (in.ndim() >= 2 && order >= 2)
          EXPECT_TRUE(matches(golden("sf_" + key + "_o" + std::to_string(order) + "_" + m),
                              nd::spline_filter(in, {.order = order, .mode = mode}, s)));
      }
    if (in.ndim() >= 2)
      EXPECT_TRUE(matches(golden("sf_" + key + "_o3_mirror_f32"),
                          nd::spline_filter(in, {.order = 3, .mode = InterpMode::mirror, .output = DType::float32}, s)))
          << key;
  }
  // Output dtypes and float32 coordinates.
  const Array u = golden("in_2u").to(dev, s);
  const Array cb = golden("co_2u_b").to(dev, s), cb32 = golden("co_2u_b32").to(dev, s);
  EXPECT_TRUE(matches(golden("map_2u_b_o3_reflect_f64"),
                      nd::map_coordinates(u, cb, {.output = DType::float64, .order = 3, .mode = InterpMode::reflect}, s)));
  EXPECT_TRUE(matches(golden("map_2u_b_o1_nearest_f32"),
                      nd::map_coordinates(u, cb, {.output = DType::float32, .order = 1, .mode = InterpMode::nearest}, s)));
  EXPECT_TRUE(matches(golden("map_2u_b32_o4_mirror"), nd::map_coordinates(u, cb32, {.order = 4, .mode = InterpMode::mirror}, s)));
  // A line long enough for z^i to underflow inside the init sums.
  std::vector<double> line(2500);
  for (int i = 0; i < 2500; ++i) line[i] = static_cast<double>((37 * i) % 101 - 50);
  const Array l = Array::from_vector(line, {2500}).to(dev, s);
  for (int order = 2; order <= 5; ++order)
    for (const std::string m : {"mirror", "reflect", "grid-wrap"}) {
      const Array r = nd::spline_filter1d(l, {.order = order, .mode = nd::interp_mode_from_name(m)}, s);
      const Array ends = Array::empty({80}, DType::float64);
      Array head = ends.slice({Slice{0, 40}}), tail = ends.slice({Slice{40, 80}});
      const Array rh = cusktest::host_copy(r);
      head.copy_from(rh.slice({Slice{0, 40}}));
      tail.copy_from(rh.slice({Slice{2460, 2500}}));
      EXPECT_TRUE(matches(golden("long_o" + std::to_string(order) + "_" + m), ends)) << order << " " << m;
    }
}

}  // namespace

TEST(NdimageSpline, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(NdimageSpline, FourDimensionsCpu) {
  const Array in = golden("in_4d"), co = golden("co_4d");
  for (int order : {1, 3}) {
    const std::string name = "map_4d_o" + std::to_string(order) + "_reflect";
    EXPECT_TRUE(matches(golden(name), nd::map_coordinates(in, co, {.order = order, .mode = InterpMode::reflect})))
        << name;
  }
}

TEST(NdimageSpline, StridedViewsEqualContiguous) {
  const Array big = cusktest::random_array({21, 30}, DType::float64, 5, -3, 3);
  const Array view = big.slice({Slice{1, 20, 2}, Slice{28, 2, -3}});  // negative step: CPU only
  const Array cont = view.copy();
  const Array co = cusktest::random_array({2, 40}, DType::float64, 6, -2, 12);
  for (int order : {0, 1, 3, 5})
    for (const std::string m : {"reflect", "grid-constant", "wrap"}) {
      const nd::MapCoordinatesOptions o{.order = order, .mode = nd::interp_mode_from_name(m), .cval = 1.5};
      EXPECT_ARRAY_EQ(nd::map_coordinates(cont, co, o), nd::map_coordinates(view, co, o)) << order << m;
    }
  EXPECT_ARRAY_EQ(nd::spline_filter(cont, {.order = 4}), nd::spline_filter(view, {.order = 4}));
  EXPECT_ARRAY_EQ(nd::spline_filter1d(cont, {.order = 5, .axis = 0}), nd::spline_filter1d(view, {.order = 5, .axis = 0}));
  // Strided coordinates (a transposed view).
  const Array cot = cusktest::random_array({40, 2}, DType::float64, 7, -2, 12).transpose({1, 0});
  EXPECT_ARRAY_EQ(nd::map_coordinates(cont, cot.copy(), {.order = 3}), nd::map_coordinates(cont, cot, {.order = 3}));
}

TEST(NdimageSpline, InterpModeNames) {
  for (const auto& m : kModes) {
    const InterpMode mode = nd::interp_mode_from_name(m);
    EXPECT_EQ(nd::interp_mode_from_name(nd::interp_mode_name(mode)), mode);
  }
  EXPECT_EQ(nd::interp_mode_from_name("grid-mirror"), InterpMode::reflect);
  EXPECT_THROW(nd::interp_mode_from_name("edge"), cuskimage::InvalidArgument);
}

TEST(NdimageSpline, EmptyOutputAndBadInput) {
  const Array in = golden("in_2d"), co = golden("co_2d");
  EXPECT_EQ(nd::map_coordinates(in, Array::zeros({2, 0}, DType::float64)).shape(), (Shape{0}));
  EXPECT_THROW(nd::map_coordinates(in, co, {.order = 6}), cuskimage::InvalidArgument);
  EXPECT_THROW(nd::map_coordinates(in, co, {.order = -1}), cuskimage::InvalidArgument);
  EXPECT_THROW(nd::map_coordinates(in, golden("co_1d")), cuskimage::InvalidArgument);  // first dim 1 != 2
  EXPECT_THROW(nd::map_coordinates(in, golden("co_3d")), cuskimage::InvalidArgument);  // 3 != 2
  EXPECT_THROW(nd::map_coordinates(in, Array::zeros({2}, DType::float64)), cuskimage::InvalidArgument);
  EXPECT_THROW(nd::map_coordinates(in, co, {.mode = static_cast<InterpMode>(9)}), cuskimage::InvalidArgument);
  EXPECT_THROW(nd::map_coordinates(in, co, {.output = DType::uint8}), cuskimage::InvalidArgument);
  EXPECT_THROW(nd::map_coordinates(Array(), co), cuskimage::InvalidArgument);
  EXPECT_THROW(nd::spline_filter1d(in, {.order = 6}), cuskimage::InvalidArgument);
  EXPECT_THROW(nd::spline_filter1d(in, {.axis = 2}), cuskimage::InvalidArgument);
  EXPECT_THROW(nd::spline_filter1d(in, {.mode = static_cast<InterpMode>(-1)}), cuskimage::InvalidArgument);
  EXPECT_THROW(nd::spline_filter1d(in, {.output = DType::int32}), cuskimage::InvalidArgument);
  EXPECT_THROW(nd::spline_filter(in, {.order = 1}), cuskimage::InvalidArgument);  // scipy: 2..5 only
  EXPECT_THROW(nd::spline_filter(in, {.order = 6}), cuskimage::InvalidArgument);
}

TEST(NdimageSpline, Cli) {
  const auto path = [](const std::string& n) { return cusktest::golden_path("ndimage_spline/" + n + ".npy"); };
  const std::string out = cusktest::temp_path("spline_cli.npy");
  auto r = cuskclitest::run_cli_cpu(
      {"ndimage.map_coordinates", path("in_2d"), path("co_2d"), out, "--order", "3", "--mode", "reflect", "--cval", "2.5"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(matches(golden("map_2d_o3_reflect"), cuskimage::io::imread(out)));
  r = cuskclitest::run_cli_cpu({"ndimage.spline_filter", path("in_2d"), out, "--order", "4", "--mode", "grid-wrap"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(matches(golden("sf_2d_o4_grid-wrap"), cuskimage::io::imread(out)));
  r = cuskclitest::run_cli_cpu({"ndimage.spline_filter1d", path("in_2d"), out, "--order", "5", "--axis", "0"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_TRUE(matches(golden("sf1_2d_o5_mirror_ax0"), cuskimage::io::imread(out)));
  // A library error (order out of range) exits 1, an unknown mode (a usage error) 2.
  EXPECT_EQ(cuskclitest::run_cli_cpu({"ndimage.map_coordinates", path("in_2d"), path("co_2d"), out, "--order", "6"}).rc,
            1);
  EXPECT_EQ(cuskclitest::run_cli_cpu({"ndimage.spline_filter", path("in_2d"), out, "--mode", "edge"}).rc, 2);
}

// ---- GPU tier ------------------------------------------------------------------------------------

namespace {

Array fresh(const Shape& shape, DType dt, std::uint64_t seed) {
  if (cuskimage::is_floating(dt)) return cusktest::random_array(shape, dt, seed, -10, 10);
  return cusktest::random_array(shape, dt, seed);
}

/// Coordinates reaching 3 samples past every edge of `shape`.
Array coords(const Shape& shape, const Shape& out, DType dt, std::uint64_t seed) {
  Shape cs{static_cast<std::int64_t>(shape.size())};
  cs.insert(cs.end(), out.begin(), out.end());
  std::int64_t mx = 0;
  for (auto n : shape) mx = std::max(mx, n);
  // Per-axis ranges do not matter for agreement; one range covering every axis' edges does.
  return cusktest::random_array(cs, dt, seed, -3.0, static_cast<double>(mx) + 3.0);
}

}  // namespace

TEST(GpuNdimageSpline, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s);
}

TEST(GpuNdimageSpline, MapCoordinatesMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 100;
  const std::vector<Shape> shapes = {{300}, {70, 101}, {9, 40, 37}};
  for (const Shape& shape : shapes)
    for (DType dt : {DType::float32, DType::float64, DType::uint8}) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      for (DType cdt : {DType::float64, DType::float32}) {
        const Array ch = coords(shape, {13, 17}, cdt, seed++);
        const Array cd = ch.to(Device::cuda(), s);
        for (int order = 0; order <= 5; ++order)
          for (const auto& m : kModes)
            for (bool pf : {true, false}) {
              if (!pf && order < 2) continue;
              SCOPED_TRACE(std::to_string(shape.size()) + "-D " + std::string(cuskimage::dtype_name(dt)) + " o" +
                           std::to_string(order) + " " + m + (pf ? "" : " nopf"));
              const nd::MapCoordinatesOptions o{
                  .order = order, .mode = nd::interp_mode_from_name(m), .cval = 3.25, .prefilter = pf};
              const Array got = nd::map_coordinates(d, cd, o, s);
              EXPECT_EQ(got.device(), Device::cuda());
              EXPECT_ARRAY_EQ(nd::map_coordinates(h, ch, o), got);
            }
      }
    }
}

TEST(GpuNdimageSpline, SplineFiltersMatchCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 300;
  // Lines shorter and longer than a tile, line counts not a multiple of 32, each axis (the last one
  // runs the transposing tile loads), inner extents below and above 32.
  const std::vector<Shape> shapes = {{1}, {2}, {77}, {2500}, {33, 70}, {5, 3, 40}, {9, 40, 37}, {64, 1, 8}};
  for (const Shape& shape : shapes)
    for (DType dt : {DType::float32, DType::float64, DType::uint8}) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      for (int order = 0; order <= 5; ++order)
        for (const auto& m : kModes) {
          const InterpMode mode = nd::interp_mode_from_name(m);
          for (int axis = 0; axis < static_cast<int>(shape.size()); ++axis)
            for (DType out : {DType::float64, DType::float32}) {
              SCOPED_TRACE(std::to_string(shape.size()) + "-D axis " + std::to_string(axis) + " o" +
                           std::to_string(order) + " " + m);
              const nd::SplineFilter1dOptions o{.order = order, .axis = axis, .mode = mode, .output = out};
              EXPECT_ARRAY_EQ(nd::spline_filter1d(h, o), nd::spline_filter1d(d, o, s));
            }
          if (order >= 2)
            EXPECT_ARRAY_EQ(nd::spline_filter(h, {.order = order, .mode = mode}),
                            nd::spline_filter(d, {.order = order, .mode = mode}, s));
        }
    }
}

TEST(GpuNdimageSpline, StridedDeviceViews) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array big = fresh({40, 66}, DType::float32, 400).to(Device::cuda(), s);
  const Array view = big.slice({Slice{1, 39, 2}, Slice{3, 63, 3}});
  const Array cont = view.copy(s);
  const Array co = coords({19, 20}, {50}, DType::float64, 401).to(Device::cuda(), s);
  for (int order : {1, 3, 4}) {
    const nd::MapCoordinatesOptions o{.order = order, .mode = InterpMode::mirror};
    EXPECT_ARRAY_EQ(nd::map_coordinates(cont, co, o, s), nd::map_coordinates(view, co, o, s));
  }
  EXPECT_ARRAY_EQ(nd::spline_filter(cont, {.order = 3}, s), nd::spline_filter(view, {.order = 3}, s));
  const Array cot = co.transpose({1, 0}).copy(s).transpose({1, 0});  // non-contiguous coordinates
  EXPECT_ARRAY_EQ(nd::map_coordinates(cont, co, {}, s), nd::map_coordinates(cont, cot, {}, s));
}

TEST(GpuNdimageSpline, NonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Array h = fresh({64, 80}, DType::float32, 500);
  const Array ch = coords({64, 80}, {64, 80}, DType::float64, 501);
  const Array expected = nd::map_coordinates(h, ch, {.order = 3, .mode = InterpMode::grid_constant, .cval = 1});
  Array got;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    const Array d = h.to(Device::cuda(), s), cd = ch.to(Device::cuda(), s);
    got = nd::map_coordinates(d, cd, {.order = 3, .mode = InterpMode::grid_constant, .cval = 1}, s);
    s.synchronize();
  }));
  EXPECT_ARRAY_EQ(expected, got);
}

TEST(GpuNdimageSpline, FourDimensionsNotSupported) {
  CUSK_REQUIRE_GPU();
  const Array in = golden("in_4d").to(Device::cuda()), co = golden("co_4d").to(Device::cuda());
  EXPECT_THROW(nd::map_coordinates(in, co), cuskimage::NotSupported);
}
