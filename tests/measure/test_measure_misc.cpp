// skimage.measure's polygon utilities and image measures: scikit-image goldens (exact for integer
// and bool results, 1e-6 relative for floats unless a comment says otherwise), bad input, and the
// CUDA backend against the CPU backend on fresh random inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/measure.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace measure = cuskimage::measure;

Array golden(const std::string& name) { return cusktest::load_golden("measure_misc/" + name + ".npy"); }
double gscalar(const std::string& name) { return golden(name).to_vector<double>()[0]; }

::testing::AssertionResult rel_near(double expected, double actual, double rtol = 1e-6) {
  if (std::isnan(expected) && std::isnan(actual)) return ::testing::AssertionSuccess();
  if (std::abs(actual - expected) <= rtol * std::abs(expected) + 1e-12) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << expected << ", got " << actual;
}

// ---- meshes and polygons -------------------------------------------------------------------------

TEST(MeasureMesh, SurfaceAreaGolden) {
  EXPECT_TRUE(rel_near(gscalar("mesh_area"), measure::mesh_surface_area(golden("mesh_verts"), golden("mesh_faces"))));
  // one right triangle of legs 3 and 4
  const Array v = Array::from_vector(std::vector<double>{0, 0, 0, 3, 0, 0, 0, 4, 0}, {3, 3});
  const Array f = Array::from_vector(std::vector<std::int32_t>{0, 1, 2}, {1, 3});
  EXPECT_DOUBLE_EQ(measure::mesh_surface_area(v, f), 6.0);
  EXPECT_THROW(measure::mesh_surface_area(v, Array::from_vector(std::vector<std::int32_t>{0, 1, 3}, {1, 3})),
               cuskimage::InvalidArgument);
  EXPECT_THROW(measure::mesh_surface_area(v.reshape({9}), f), cuskimage::InvalidArgument);
}

TEST(MeasurePolygon, PointsInPolyGolden) {
  EXPECT_ARRAY_EQ(golden("pip_out"), measure::points_in_poly(golden("pip_points"), golden("pip_verts")));
  EXPECT_THROW(measure::points_in_poly(Array::zeros({3, 3}, DType::float64), golden("pip_verts")),
               cuskimage::InvalidArgument);
}

TEST(MeasurePolygon, GridPointsInPolyGolden) {
  const Array verts = golden("pip_verts");
  EXPECT_ARRAY_EQ(golden("grid_bool"), measure::grid_points_in_poly({12, 11}, verts));
  EXPECT_ARRAY_EQ(golden("grid_labels"), measure::grid_points_in_poly({12, 11}, verts, {.binarize = false}));
  EXPECT_ARRAY_EQ(golden("grid_square_labels"),
                  measure::grid_points_in_poly({6, 6}, golden("grid_square"), {.binarize = false}));
  EXPECT_THROW(measure::grid_points_in_poly({3, 3, 3}, verts), cuskimage::InvalidArgument);
}

TEST(MeasurePolygon, ApproximatePolygonGolden) {
  const Array in = golden("approx_in");
  EXPECT_ARRAY_NEAR(golden("approx_t0_0"), measure::approximate_polygon(in, 0.0), 0, 0);
  EXPECT_ARRAY_NEAR(golden("approx_t0_5"), measure::approximate_polygon(in, 0.5), 0, 0);
  EXPECT_ARRAY_NEAR(golden("approx_t2_0"), measure::approximate_polygon(in, 2.0), 0, 0);
}

TEST(MeasurePolygon, SubdividePolygonGolden) {
  const Array closed = golden("subdiv_closed"), open = golden("subdiv_open");
  for (int d = 1; d <= 7; ++d) {
    EXPECT_ARRAY_NEAR(golden("subdiv_closed_d" + std::to_string(d)), measure::subdivide_polygon(closed, {.degree = d}),
                      1e-12, 1e-12)
        << d;
    for (int pe = 0; pe < 2; ++pe)
      EXPECT_ARRAY_NEAR(golden("subdiv_open_d" + std::to_string(d) + "_pe" + std::to_string(pe)),
                        measure::subdivide_polygon(open, {.degree = d, .preserve_ends = pe == 1}), 1e-12, 1e-12)
          << d << " " << pe;
  }
  EXPECT_THROW(measure::subdivide_polygon(open, {.degree = 8}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::subdivide_polygon(open, {.degree = 0}), cuskimage::InvalidArgument);
}

// ---- profile_line --------------------------------------------------------------------------------

struct Line {
  std::string name;
  std::pair<double, double> src, dst;
  std::int64_t lw;
  std::optional<int> order;
  cuskimage::ndimage::Mode mode;
  measure::ProfileReduce reduce;
};

const std::vector<Line>& lines() {
  using M = cuskimage::ndimage::Mode;
  using R = measure::ProfileReduce;
  static const std::vector<Line> l = {
      {"diag", {5, 7}, {100, 90}, 1, std::nullopt, M::reflect, R::mean},
      {"wide", {20, 3}, {60, 120}, 5, std::nullopt, M::reflect, R::mean},
      {"outside", {-4, -6}, {130, 40}, 3, 1, M::constant, R::mean},
      {"wrap", {-3, 2}, {50, 135}, 4, 1, M::wrap, R::mean},
      {"mirror", {126, -2}, {-2, 60}, 3, 1, M::mirror, R::mean},
      {"nearest", {0, 0}, {127, 131}, 2, 0, M::nearest, R::mean},
      {"none", {10, 10}, {30, 50}, 3, 1, M::reflect, R::none},
      {"reverse", {90, 100}, {10, 20}, 1, 0, M::reflect, R::mean},
  };
  return l;
}

void run_profile_goldens(const Device& dev) {
  const Array cam = golden("profile_cam").to(dev), camf = golden("profile_camf").to(dev);
  for (const auto& l : lines()) {
    const measure::ProfileLineOptions o{.linewidth = l.lw, .order = l.order, .mode = l.mode, .reduce = l.reduce};
    const Array a = measure::profile_line(cam, l.src, l.dst, o);
    const Array b = measure::profile_line(camf, l.src, l.dst, o);
    if (l.reduce == measure::ProfileReduce::none) {
      EXPECT_ARRAY_EQ(golden("profile_" + l.name + "_cam"), a) << l.name;  // uint8, scipy's rounding
    } else {
      EXPECT_ARRAY_NEAR(golden("profile_" + l.name + "_cam"), a, 1e-12, 1e-12) << l.name;
    }
    if (l.reduce == measure::ProfileReduce::none) {
      // Unreduced samples are scipy map_coordinates' bits exactly.
      EXPECT_ARRAY_EQ(golden("profile_" + l.name + "_camf"), b) << l.name;
    } else {
      EXPECT_ARRAY_NEAR(golden("profile_" + l.name + "_camf"), b, 1e-12, 1e-12) << l.name;
    }
  }
  const Array astro = golden("profile_astro").to(dev);
  EXPECT_ARRAY_NEAR(golden("profile_astro_out"), measure::profile_line(astro, {3, 4}, {60, 50}, {.linewidth = 3}),
                    1e-12, 1e-12);
  EXPECT_ARRAY_EQ(golden("profile_astro_none"),
                  measure::profile_line(astro, {3, 4}, {60, 50},
                                        {.linewidth = 2, .reduce = measure::ProfileReduce::none}));
  const auto max_fn = [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); };
  EXPECT_ARRAY_NEAR(golden("profile_max"),
                    measure::profile_line(camf, {5, 7}, {100, 90},
                                          {.linewidth = 4, .reduce = measure::ProfileReduce::custom,
                                           .reduce_func = max_fn}),
                    1e-12, 1e-12);
  EXPECT_ARRAY_NEAR(golden("profile_bool"),
                    measure::profile_line(golden("profile_bool_in").to(dev), {5, 7}, {100, 90}, {.linewidth = 3}),
                    1e-12, 1e-12);
}

TEST(MeasureProfileLine, Golden) { run_profile_goldens(Device::cpu()); }

TEST(MeasureProfileLine, BadInput) {
  const Array cam = golden("profile_cam");
  EXPECT_THROW(measure::profile_line(cam, {0, 0}, {5, 5}, {.order = 6}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::profile_line(golden("profile_bool_in"), {0, 0}, {5, 5}, {.order = 1}),
               cuskimage::InvalidArgument);
  EXPECT_THROW(measure::profile_line(cam, {0, 0}, {5, 5}, {.linewidth = 0}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::profile_line(Array::zeros({4}, DType::float64), {0, 0}, {5, 5}), cuskimage::InvalidArgument);
  // Orders 2..5 are supported (tests/measure/test_profile_spline.cpp checks their values).
  EXPECT_EQ(measure::profile_line(cam, {0, 0}, {5, 5}, {.order = 3}).shape(), (cuskimage::Shape{9}));
}

// ---- block_reduce --------------------------------------------------------------------------------

const char* kFuncNames[] = {"sum", "mean", "max", "min", "median"};
const measure::BlockFunc kFuncs[] = {measure::BlockFunc::sum, measure::BlockFunc::mean, measure::BlockFunc::max,
                                     measure::BlockFunc::min, measure::BlockFunc::median};

void run_block_goldens(const Device& dev) {
  const Array u8 = golden("block_u8").to(dev), f3 = golden("block_f3").to(dev), f3n = golden("block_f3n").to(dev),
              i16 = golden("block_i16").to(dev), f32 = golden("block_f32").to(dev);
  for (int k = 0; k < 5; ++k) {
    const std::string f = kFuncNames[k];
    const auto fn = kFuncs[k];
    const auto check = [&](const std::string& name, const Array& got) {
      const Array e = golden(name);
      EXPECT_EQ(e.dtype(), got.dtype()) << name;
      if (e.dtype() == DType::float32 || e.dtype() == DType::float64)
        EXPECT_ARRAY_NEAR(e, got, 1e-6, 0) << name;
      else
        EXPECT_ARRAY_EQ(e, got) << name;
    };
    check("block_u8_" + f, measure::block_reduce(u8, {2, 4}, {.func = fn}));
    check("block_u8_" + f + "_cval", measure::block_reduce(u8, {3, 2}, {.func = fn, .cval = 7}));
    check("block_f3_" + f, measure::block_reduce(f3, {2}, {.func = fn, .cval = 0.5}));
    check("block_f3n_" + f, measure::block_reduce(f3n, {2, 3, 3}, {.func = fn}));
    check("block_i16_" + f, measure::block_reduce(i16, {4, 3}, {.func = fn, .cval = -5}));
    check("block_f32_" + f, measure::block_reduce(f32, {1, 3, 2}, {.func = fn}));
  }
  EXPECT_ARRAY_NEAR(golden("block_big_median"),
                    measure::block_reduce(f3, {5, 6, 3}, {.func = measure::BlockFunc::median}), 1e-12, 0);
}

TEST(MeasureBlockReduce, Golden) { run_block_goldens(Device::cpu()); }

TEST(MeasureBlockReduce, BadInput) {
  const Array u8 = golden("block_u8");
  EXPECT_THROW(measure::block_reduce(u8, {2, 2, 2}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::block_reduce(u8, {0, 2}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::block_reduce(Array(), {2}), cuskimage::InvalidArgument);
}

// ---- entropy, perimeters, Euler number -----------------------------------------------------------

void run_scalar_goldens(const Device& dev) {
  const Array cam = golden("profile_cam").to(dev), fe = golden("entropy_f").to(dev);
  const std::pair<const char*, double> bases[] = {{"2", 2.0}, {"e", M_E}, {"10", 10.0}};
  for (const auto& [tag, b] : bases) {
    EXPECT_TRUE(rel_near(gscalar(std::string("entropy_cam_b") + tag), measure::shannon_entropy(cam, b))) << tag;
    EXPECT_TRUE(rel_near(gscalar(std::string("entropy_f_b") + tag), measure::shannon_entropy(fe, b))) << tag;
  }
  EXPECT_TRUE(rel_near(gscalar("entropy_bool"), measure::shannon_entropy(golden("profile_bool_in").to(dev))));

  for (const std::string name : {"b2", "coins"}) {
    const Array img = golden(std::string("perim_") + name).to(dev);
    for (int n : {4, 8})
      EXPECT_TRUE(rel_near(gscalar("perimeter_" + name + "_n" + std::to_string(n)), measure::perimeter(img, n)))
          << name << n;
    for (int d : {2, 4})
      EXPECT_TRUE(rel_near(gscalar("crofton_" + name + "_d" + std::to_string(d)), measure::perimeter_crofton(img, d)))
          << name << d;
    for (int c : {1, 2})
      EXPECT_EQ(static_cast<std::int64_t>(gscalar("euler_" + name + "_c" + std::to_string(c))),
                measure::euler_number(img, c))
          << name << c;
    // integer input: > 0 is object, as the bool image
    EXPECT_EQ(measure::euler_number(img), measure::euler_number(img.astype(DType::uint8).to(dev)));
  }
  const Array b3 = golden("perim_b3").to(dev);
  for (int c : {1, 3})
    EXPECT_EQ(static_cast<std::int64_t>(gscalar("euler_b3_c" + std::to_string(c))), measure::euler_number(b3, c)) << c;
  EXPECT_EQ(static_cast<std::int64_t>(gscalar("euler_b3_c3")), measure::euler_number(b3));
}

TEST(MeasureScalars, Golden) { run_scalar_goldens(Device::cpu()); }

TEST(MeasureScalars, BadInput) {
  const Array b3 = golden("perim_b3");
  EXPECT_THROW(measure::perimeter(b3), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::perimeter_crofton(b3), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::euler_number(b3, 2), cuskimage::NotSupported);
  EXPECT_THROW(measure::euler_number(Array::zeros({4}, DType::bool_)), cuskimage::InvalidArgument);
  // labels > 1 give border codes past the weight table (scikit-image's ValueError)
  Array two = Array::zeros({5, 5}, DType::uint8);
  for (int i = 0; i < 25; ++i) static_cast<std::uint8_t*>(two.data())[i] = 2;
  EXPECT_THROW(measure::perimeter(two), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::shannon_entropy(Array::zeros({0}, DType::uint8)), cuskimage::InvalidArgument);
}

// ---- blur_effect ---------------------------------------------------------------------------------

void run_blur_goldens(const Device& dev) {
  const Array cam = golden("profile_cam").to(dev);
  EXPECT_TRUE(rel_near(gscalar("blur_cam_h11"), measure::blur_effect(cam)));
  EXPECT_TRUE(rel_near(gscalar("blur_cam_h5"), measure::blur_effect(cam, {.h_size = 5})));
  const auto axes = measure::blur_effect_axes(cam);
  const auto g = golden("blur_cam_axes").to_vector<double>();
  ASSERT_EQ(axes.size(), g.size());
  for (std::size_t i = 0; i < g.size(); ++i) EXPECT_TRUE(rel_near(g[i], axes[i]));
  EXPECT_TRUE(rel_near(gscalar("blur_camf_blurred"), measure::blur_effect(golden("blur_camf_blurred_in").to(dev))));
  const Array astro = golden("profile_astro").to(dev);
  EXPECT_TRUE(rel_near(gscalar("blur_astro"), measure::blur_effect(astro, {.channel_axis = -1})));
  EXPECT_TRUE(rel_near(gscalar("blur_astro_mean"),
                       measure::blur_effect(astro, {.channel_axis = 2, .reduce = measure::BlurReduce::mean})));
  EXPECT_TRUE(rel_near(gscalar("blur_f3"), measure::blur_effect(golden("block_f3").to(dev), {.h_size = 3})));
}

TEST(MeasureBlurEffect, Golden) { run_blur_goldens(Device::cpu()); }

TEST(MeasureBlurEffect, BadInput) {
  EXPECT_THROW(measure::blur_effect(golden("profile_cam"), {.channel_axis = 0}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::blur_effect(golden("profile_astro"), {.channel_axis = 5}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::blur_effect(golden("profile_cam"), {.h_size = 0}), cuskimage::InvalidArgument);
}

// ---- colocalisation ------------------------------------------------------------------------------

void run_coloc_goldens(const Device& dev) {
  const Array a = golden("coloc_a").to(dev), b = golden("coloc_b").to(dev), m = golden("coloc_mask").to(dev);
  const Array m0 = golden("coloc_m0").to(dev), m1 = golden("coloc_m1").to(dev);
  const auto check_pearson = [](const std::string& name, const measure::PearsonResult& r) {
    const auto g = golden(name).to_vector<double>();
    EXPECT_TRUE(rel_near(g[0], r.statistic)) << name;
    EXPECT_TRUE(rel_near(g[1], r.pvalue, 1e-6)) << name;
  };
  check_pearson("pearson", measure::pearson_corr_coeff(a, b));
  check_pearson("pearson_mask", measure::pearson_corr_coeff(a, b, m));
  check_pearson("pearson_small", measure::pearson_corr_coeff(golden("coloc_small_a").to(dev),
                                                             golden("coloc_small_b").to(dev)));
  check_pearson("pearson_u16", measure::pearson_corr_coeff(golden("coloc_u16a").to(dev), golden("coloc_u16b").to(dev)));
  EXPECT_TRUE(rel_near(gscalar("manders_coloc"), measure::manders_coloc_coeff(a, m1)));
  EXPECT_TRUE(rel_near(gscalar("manders_coloc_mask"), measure::manders_coloc_coeff(a, m1, m)));
  EXPECT_TRUE(rel_near(gscalar("manders_overlap"), measure::manders_overlap_coeff(a, b)));
  EXPECT_TRUE(rel_near(gscalar("manders_overlap_mask"), measure::manders_overlap_coeff(a, b, m)));
  EXPECT_TRUE(rel_near(gscalar("manders_overlap_u16"),
                       measure::manders_overlap_coeff(golden("coloc_u16a").to(dev), golden("coloc_u16b").to(dev))));
  EXPECT_TRUE(rel_near(gscalar("intersection"), measure::intersection_coeff(m0, m1)));
  EXPECT_TRUE(rel_near(gscalar("intersection_mask"), measure::intersection_coeff(m0, m1, m)));
}

TEST(MeasureColoc, Golden) { run_coloc_goldens(Device::cpu()); }

TEST(MeasureColoc, ConstantAndBadInput) {
  const Array a = golden("coloc_a"), b = golden("coloc_b");
  const auto r = measure::pearson_corr_coeff(a, Array::full(a.shape(), 3.0, DType::float64));
  EXPECT_TRUE(std::isnan(r.statistic));
  EXPECT_THROW(measure::pearson_corr_coeff(a, b.slice({Slice{0, 5}})), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::pearson_corr_coeff(a.slice({Slice{0, 1}, Slice{0, 1}}), b.slice({Slice{0, 1}, Slice{0, 1}})),
               cuskimage::InvalidArgument);
  EXPECT_THROW(measure::manders_coloc_coeff(a, b), cuskimage::InvalidArgument);  // not binary
  Array neg = a.copy();
  static_cast<double*>(neg.data())[0] = -1;
  EXPECT_THROW(measure::manders_coloc_coeff(neg, golden("coloc_m1")), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::manders_overlap_coeff(neg, b), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::intersection_coeff(a, golden("coloc_m1")), cuskimage::InvalidArgument);
  EXPECT_EQ(measure::intersection_coeff(Array::zeros({3, 3}, DType::bool_), Array::zeros({3, 3}, DType::bool_)), 0.0);
}

TEST(MeasureMiscCli, ScalarsAndImages) {
  const auto g = [](const std::string& n) { return cusktest::golden_path("measure_misc/" + n + ".npy"); };
  auto r = cuskclitest::run_cli_cpu({"measure.euler_number", g("perim_b3"), "--connectivity", "1"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_EQ(std::stoll(r.out), static_cast<long long>(gscalar("euler_b3_c1")));
  r = cuskclitest::run_cli_cpu({"measure.perimeter", g("perim_b2"), "--neighborhood", "8"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_TRUE(rel_near(gscalar("perimeter_b2_n8"), std::stod(r.out)));
  r = cuskclitest::run_cli_cpu({"measure.intersection_coeff", g("coloc_m0"), g("coloc_m1"), g("coloc_mask")});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_TRUE(rel_near(gscalar("intersection_mask"), std::stod(r.out)));
  const std::string out = cusktest::temp_path("block_cli.npy");
  r = cuskclitest::run_cli_cpu({"measure.block_reduce", g("block_u8"), out, "--block_size", "2,4", "--func", "max"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_ARRAY_EQ(golden("block_u8_max"), cuskimage::io::imread(out));
  EXPECT_EQ(cuskclitest::run_cli_cpu({"measure.block_reduce", g("block_u8"), out, "--func", "mode"}).rc, 2);
  EXPECT_EQ(cuskclitest::run_cli_cpu({"measure.perimeter", g("perim_b3")}).rc, 1);
}

/// The numbers of a JSON value printed by the tool, in order.
std::vector<double> json_numbers(std::string text) {
  for (char& c : text)
    if (c == '[' || c == ']' || c == ',') c = ' ';
  std::istringstream is(text);
  std::vector<double> out;
  for (double v; is >> v;) out.push_back(v);
  return out;
}

// The keywords the commands take from their options structs reach the library: reduce_func (one
// keyword on the command line, `reduce` plus a callable in C++), grid_points_in_poly's binarize
// (its device comes from --device), block_reduce's default func.
TEST(MeasureMiscCli, KeywordsFromTheStructs) {
  const auto g = [](const std::string& n) { return cusktest::golden_path("measure_misc/" + n + ".npy"); };
  auto r = cuskclitest::run_cli_cpu({"measure.blur_effect", g("profile_cam"), "--reduce_func", "none"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  const auto axes = json_numbers(r.out), want_axes = golden("blur_cam_axes").to_vector<double>();
  ASSERT_EQ(axes.size(), want_axes.size()) << r.out;
  for (std::size_t i = 0; i < axes.size(); ++i) EXPECT_TRUE(rel_near(want_axes[i], axes[i]));
  r = cuskclitest::run_cli_cpu({"measure.blur_effect", g("profile_cam"), "--h_size", "5"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_TRUE(rel_near(gscalar("blur_cam_h5"), std::stod(r.out)));
  EXPECT_EQ(cuskclitest::run_cli_cpu({"measure.blur_effect", g("profile_cam"), "--reduce_func", "median"}).rc, 2);

  r = cuskclitest::run_cli_cpu({"measure.profile_line", g("profile_astro"), "--src", "3,4", "--dst", "60,50",
                                "--linewidth", "2", "--reduce_func", "none"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_EQ(json_numbers(r.out), golden("profile_astro_none").to_vector<double>());
  EXPECT_EQ(cuskclitest::run_cli_cpu({"measure.profile_line", g("profile_astro"), "--src", "3,4", "--dst", "60,50",
                                      "--reduce_func", "custom"})
                .rc,
            2);

  const std::string out = cusktest::temp_path("grid_cli.npy");
  r = cuskclitest::run_cli_cpu({"measure.grid_points_in_poly", g("grid_square"), out, "--shape", "6,6", "--binarize",
                                "false"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_ARRAY_EQ(golden("grid_square_labels"), cuskimage::io::imread(out));
  r = cuskclitest::run_cli_cpu({"measure.block_reduce", g("block_u8"), out, "--block_size", "2,4"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_ARRAY_EQ(golden("block_u8_sum"), cuskimage::io::imread(out));
}

// ---- GPU tier: goldens on the device and device == CPU on random inputs -------------------------

TEST(GpuMeasureMisc, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Device gpu = Device::cuda(0);
  run_profile_goldens(gpu);
  run_block_goldens(gpu);
  run_scalar_goldens(gpu);
  run_blur_goldens(gpu);
  run_coloc_goldens(gpu);
  const Array verts = golden("pip_verts");
  EXPECT_ARRAY_EQ(golden("grid_labels"),
                  measure::grid_points_in_poly({12, 11}, verts, {.binarize = false, .device = gpu}));
  EXPECT_ARRAY_EQ(golden("grid_bool"), measure::grid_points_in_poly({12, 11}, verts, {.device = gpu}));
  EXPECT_TRUE(rel_near(gscalar("mesh_area"),
                       measure::mesh_surface_area(golden("mesh_verts").to(gpu), golden("mesh_faces").to(gpu))));
}

TEST(GpuMeasureMisc, MatchesCpuOnRandomInputs) {
  CUSK_REQUIRE_GPU();
  const Device gpu = Device::cuda(0);
  // histograms: 2-D and 3-D, strided views
  const Array b2 = cusktest::random_array({513, 700}, DType::bool_, 21);
  const Array b3 = cusktest::random_array({40, 33, 65}, DType::uint8, 22, 0, 1);
  const Array v2 = b2.slice({Slice{1, std::nullopt, 2}, Slice{0, std::nullopt, 3}});
  for (const Array* a : {&b2, &v2}) {
    const Array d = a->to(gpu);
    for (int c : {1, 2}) EXPECT_EQ(measure::euler_number(*a, c), measure::euler_number(d, c));
    for (int n : {4, 8}) EXPECT_TRUE(rel_near(measure::perimeter(*a, n), measure::perimeter(d, n), 1e-12));
    for (int n : {2, 4}) EXPECT_TRUE(rel_near(measure::perimeter_crofton(*a, n), measure::perimeter_crofton(d, n), 1e-12));
  }
  for (int c : {1, 3}) EXPECT_EQ(measure::euler_number(b3, c), measure::euler_number(b3.to(gpu), c));
  // entropy of every kind of value
  for (DType dt : {DType::uint8, DType::int32, DType::float32, DType::float64}) {
    const Array a = cusktest::random_array({300, 301}, dt, 23, 0, 50);
    EXPECT_TRUE(rel_near(measure::shannon_entropy(a), measure::shannon_entropy(a.to(gpu)), 1e-9)) << int(dt);
  }
  // block_reduce: every func, 2-D/3-D, padding, strided input, median with a scratch row (> 64)
  const Array f = cusktest::random_array({37, 41, 9}, DType::float32, 24);
  const Array u = cusktest::random_array({301, 203}, DType::uint16, 25);
  for (const auto fn : kFuncs) {
    EXPECT_ARRAY_NEAR(measure::block_reduce(f, {3, 4, 2}, {.func = fn, .cval = 0.25}),
                      measure::block_reduce(f.to(gpu), {3, 4, 2}, {.func = fn, .cval = 0.25}), 1e-6, 0);
    EXPECT_ARRAY_NEAR(measure::block_reduce(u, {5, 3}, {.func = fn}), measure::block_reduce(u.to(gpu), {5, 3}, {.func = fn}),
                      1e-12, 0);
    const Array uv = u.slice({Slice{std::nullopt, std::nullopt, 2}, Slice{1, std::nullopt, 3}});
    EXPECT_ARRAY_NEAR(measure::block_reduce(uv, {2, 2}, {.func = fn}),
                      measure::block_reduce(u.to(gpu).slice({Slice{std::nullopt, std::nullopt, 2}, Slice{1, std::nullopt, 3}}),
                                            {2, 2}, {.func = fn}),
                      1e-12, 0);
  }
  EXPECT_ARRAY_NEAR(measure::block_reduce(u, {10, 9}, {.func = measure::BlockFunc::median}),
                    measure::block_reduce(u.to(gpu), {10, 9}, {.func = measure::BlockFunc::median}), 0, 0);
  // profile_line on a random float image, every mode
  const Array img = cusktest::random_array({97, 131}, DType::float64, 26);
  for (auto mode : {cuskimage::ndimage::Mode::reflect, cuskimage::ndimage::Mode::mirror,
                    cuskimage::ndimage::Mode::nearest, cuskimage::ndimage::Mode::constant,
                    cuskimage::ndimage::Mode::wrap})
    for (int order : {0, 1}) {
      const measure::ProfileLineOptions o{.linewidth = 4, .order = order, .mode = mode, .cval = 0.5};
      EXPECT_ARRAY_NEAR(measure::profile_line(img, {-7, 3.5}, {120, 140}, o),
                        measure::profile_line(img.to(gpu), {-7, 3.5}, {120, 140}, o), 1e-14, 1e-14);
    }
  // colocalisation
  const Array x = cusktest::random_array({200, 150}, DType::float64, 27);
  const Array y = cusktest::random_array({200, 150}, DType::float64, 28);
  const Array mk = cusktest::random_array({200, 150}, DType::bool_, 29);
  const auto pc = measure::pearson_corr_coeff(x, y, mk), pg = measure::pearson_corr_coeff(x.to(gpu), y.to(gpu), mk.to(gpu));
  EXPECT_TRUE(rel_near(pc.statistic, pg.statistic, 1e-9));
  EXPECT_TRUE(rel_near(pc.pvalue, pg.pvalue, 1e-6));
  EXPECT_TRUE(rel_near(measure::manders_overlap_coeff(x, y, mk),
                       measure::manders_overlap_coeff(x.to(gpu), y.to(gpu), mk.to(gpu)), 1e-12));
  // blur_effect 3-D
  const Array vol = cusktest::random_array({20, 24, 28}, DType::float32, 30);
  EXPECT_TRUE(rel_near(measure::blur_effect(vol), measure::blur_effect(vol.to(gpu)), 1e-5));
}

TEST(GpuMeasureMisc, NonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Device gpu = Device::cuda(0);
  const Array b2 = cusktest::random_array({300, 400}, DType::bool_, 31);
  const Array u = cusktest::random_array({301, 203}, DType::uint8, 32);
  const Array d = b2.to(gpu), du = u.to(gpu);
  const std::int64_t euler = measure::euler_number(b2);
  const double per = measure::perimeter(b2), ent = measure::shannon_entropy(u);
  const Array blocks = measure::block_reduce(u, {4, 4}, {.func = measure::BlockFunc::mean});
  std::int64_t e2 = 0;
  double p2 = 0, ent2 = 0;
  Array blocks2;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    e2 = measure::euler_number(d, std::nullopt, s);
    p2 = measure::perimeter(d, 4, s);
    ent2 = measure::shannon_entropy(du, 2.0, s);
    blocks2 = measure::block_reduce(du, {4, 4}, {.func = measure::BlockFunc::mean}, s);
    s.synchronize();
  }));
  EXPECT_EQ(euler, e2);
  EXPECT_TRUE(rel_near(per, p2, 1e-12));
  EXPECT_TRUE(rel_near(ent, ent2, 1e-9));
  EXPECT_ARRAY_NEAR(blocks, blocks2, 1e-12, 0);
}

}  // namespace
