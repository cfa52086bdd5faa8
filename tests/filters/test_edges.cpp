// skimage.filters smoothing and edges: gaussian, difference_of_gaussians, unsharp_mask, sobel/scharr/
// prewitt/farid (+_h/_v), roberts (+diagonals), laplace. Golden outputs of scikit-image 0.26
// (tests/golden/cases_filters_edges.py): the CPU backend repeats scipy's double sums and NumPy's
// element-wise steps, so float64 agrees within 1e-12 and float32 within 1e-6. Views, errors, the CLI;
// Gpu* suites compare the CUDA backend with the CPU one on fresh inputs (fused float32 kernels: within
// 1e-5 of the image scale).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/io.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace filters = cuskimage::filters;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
using cuskimage::ndimage::Mode;

namespace {

Array golden(const std::string& n) { return cusktest::load_golden("filters_edges/" + n + ".npy"); }

::testing::AssertionResult close(const Array& e, const Array& a) {
  if (e.dtype() != a.dtype())
    return ::testing::AssertionFailure() << "dtype " << cuskimage::dtype_name(a.dtype()) << ", expected "
                                         << cuskimage::dtype_name(e.dtype());
  if (e.dtype() == DType::float32) return cusktest::arrays_close(e, a, 1e-6, 1e-6);
  return cusktest::arrays_close(e, a, 1e-12, 1e-12);
}

using Fn = std::function<Array(const Array&, const Stream&)>;

/// The edge functions with scikit-image's defaults, by golden name.
std::vector<std::pair<std::string, Fn>> edge_fns(const Array* mask = nullptr) {
  auto m = [mask] { return mask ? mask->share() : Array(); };
  return {
      {"sobel", [=](const Array& a, const Stream& s) { return filters::sobel(a, {.mask = m()}, s); }},
      {"scharr", [=](const Array& a, const Stream& s) { return filters::scharr(a, {.mask = m()}, s); }},
      {"prewitt", [=](const Array& a, const Stream& s) { return filters::prewitt(a, {.mask = m()}, s); }},
      {"farid", [=](const Array& a, const Stream& s) { return filters::farid(a, {.mask = m()}, s); }},
      {"roberts", [=](const Array& a, const Stream& s) { return filters::roberts(a, m(), s); }},
      {"laplace", [=](const Array& a, const Stream& s) { return filters::laplace(a, {.mask = m()}, s); }},
      {"sobel_h", [=](const Array& a, const Stream& s) { return filters::sobel_h(a, m(), s); }},
      {"sobel_v", [=](const Array& a, const Stream& s) { return filters::sobel_v(a, m(), s); }},
      {"scharr_h", [=](const Array& a, const Stream& s) { return filters::scharr_h(a, m(), s); }},
      {"scharr_v", [=](const Array& a, const Stream& s) { return filters::scharr_v(a, m(), s); }},
      {"prewitt_h", [=](const Array& a, const Stream& s) { return filters::prewitt_h(a, m(), s); }},
      {"prewitt_v", [=](const Array& a, const Stream& s) { return filters::prewitt_v(a, m(), s); }},
      {"roberts_pos_diag", [=](const Array& a, const Stream& s) { return filters::roberts_pos_diag(a, m(), s); }},
      {"roberts_neg_diag", [=](const Array& a, const Stream& s) { return filters::roberts_neg_diag(a, m(), s); }},
      {"farid_h", [=](const Array& a, const Stream& s) { return filters::farid_h(a, m(), s); }},
      {"farid_v", [=](const Array& a, const Stream& s) { return filters::farid_v(a, m(), s); }},
  };
}

const std::vector<std::string> kDtypes = {"uint8", "int16", "uint16", "float32", "float64"};
const std::vector<std::string> kModes = {"reflect", "mirror", "nearest", "wrap", "constant"};

}  // namespace

TEST(FiltersEdgesGolden, EveryFunctionAndDtype) {
  for (const auto& dt : kDtypes) {
    const Array a = golden("f_in2_" + dt);
    SCOPED_TRACE(dt);
    EXPECT_TRUE(close(golden("gauss_" + dt), filters::gaussian(a, {.sigma = 1.5})));
    EXPECT_TRUE(close(golden("gauss_pr_" + dt),
                      filters::gaussian(a, {.sigma = {1.0, 2.0}, .mode = Mode::reflect, .preserve_range = true})));
    EXPECT_TRUE(close(golden("dog_" + dt),
                      filters::difference_of_gaussians(a, 1.0, {.high_sigma = 2.5, .mode = Mode::constant, .cval = 0.25})));
    EXPECT_TRUE(close(golden("unsharp_" + dt), filters::unsharp_mask(a, {.radius = 2.0, .amount = 1.5})));
    EXPECT_TRUE(close(golden("unsharp_pr_" + dt),
                      filters::unsharp_mask(a, {.radius = 1.0, .amount = 0.7, .preserve_range = true})));
    for (const auto& [name, fn] : edge_fns()) EXPECT_TRUE(close(golden(name + "_" + dt), fn(a, {}))) << name;
  }
  const Array cam = golden("cam");
  EXPECT_TRUE(close(golden("gauss_cam"), filters::gaussian(cam, {.sigma = 3.0})));
  EXPECT_TRUE(close(golden("sobel_cam"), filters::sobel(cam)));
  const Array b = golden("bool_in");
  EXPECT_TRUE(close(golden("sobel_bool"), filters::sobel(b)));
  EXPECT_TRUE(close(golden("gauss_bool"), filters::gaussian(b, {.sigma = 1.0})));
}

TEST(FiltersEdgesGolden, ModesAxesMasks) {
  const Array a = golden("f_in2m"), mask = golden("mask2");
  for (const auto& m : kModes) {
    SCOPED_TRACE(m);
    const Mode mode = cuskimage::ndimage::mode_from_name(m);
    EXPECT_TRUE(close(golden("sobel_" + m), filters::sobel(a, {.mode = mode, .cval = 0.3})));
    EXPECT_TRUE(close(golden("farid_" + m), filters::farid(a, {.mode = mode, .cval = 0.3})));
    EXPECT_TRUE(close(golden("gaussm_" + m), filters::gaussian(a, {.sigma = 1.2, .mode = mode, .cval = 0.3})));
  }
  const std::vector<std::string> masked = {"sobel", "scharr", "prewitt", "farid", "roberts", "laplace",
                                           "sobel_h", "roberts_pos_diag", "farid_v"};
  for (const auto& [name, fn] : edge_fns(&mask))
    if (std::find(masked.begin(), masked.end(), name) != masked.end())
      EXPECT_TRUE(close(golden(name + "_mask"), fn(a, {}))) << name;
  EXPECT_TRUE(close(golden("sobel_axis1"), filters::sobel(a, {.axis = {1}})));
  EXPECT_TRUE(close(golden("scharr_axes"), filters::scharr(a, {.axis = {1, 0}})));
  EXPECT_TRUE(close(golden("laplace_k5"), filters::laplace(a, {.ksize = 5})));
  // A numeric mask counts its non-zero entries.
  EXPECT_TRUE(close(golden("sobel_mask"), filters::sobel(a, {.mask = mask.astype(DType::uint8)})));
}

TEST(FiltersEdgesGolden, ThreeDAndChannels) {
  const Array v = golden("f_in3"), m3 = golden("mask3");
  for (const std::string name : {"sobel", "scharr", "prewitt", "farid", "laplace"}) {
    Array got = name == "sobel"     ? filters::sobel(v)
                : name == "scharr"  ? filters::scharr(v)
                : name == "prewitt" ? filters::prewitt(v)
                : name == "farid"   ? filters::farid(v)
                                    : filters::laplace(v);
    EXPECT_TRUE(close(golden(name + "_3d"), got)) << name;
  }
  EXPECT_TRUE(close(golden("sobel_3d_mask"), filters::sobel(v, {.mask = m3.share()})));
  EXPECT_TRUE(close(golden("prewitt_3d_axis2"), filters::prewitt(v, {.axis = {2}, .mode = Mode::wrap})));
  EXPECT_TRUE(close(golden("gauss_3d"), filters::gaussian(v, {.sigma = {1.0, 0.5, 1.5}})));
  const Array rgb = golden("rgb");
  EXPECT_TRUE(close(golden("gauss_rgb"), filters::gaussian(rgb, {.sigma = 1.0, .channel_axis = -1})));
  EXPECT_TRUE(close(golden("dog_rgb"), filters::difference_of_gaussians(rgb, 1.0, {.channel_axis = -1})));
  EXPECT_TRUE(close(golden("unsharp_rgb"), filters::unsharp_mask(rgb, {.radius = 1.5, .amount = 2.0, .channel_axis = 2})));
  const Array chw = rgb.transpose({2, 0, 1}).copy();
  EXPECT_TRUE(close(golden("gauss_rgb_ax0"), filters::gaussian(chw, {.sigma = {1.0, 2.0}, .channel_axis = 0})));
}

TEST(FiltersEdges, StridedViewsIntoAndShapes) {
  const Array a = golden("f_in2_float32");
  const Array view = a.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -1}});
  const Array copy = view.copy();
  for (const auto& [name, fn] : edge_fns()) EXPECT_ARRAY_EQ(fn(copy, {}), fn(view, {})) << name;
  EXPECT_ARRAY_EQ(filters::gaussian(copy, {.sigma = 2.0}), filters::gaussian(view, {.sigma = 2.0}));
  EXPECT_ARRAY_EQ(filters::unsharp_mask(copy), filters::unsharp_mask(view));
  // gaussian_into: another float dtype, strided out.
  Array big = Array::zeros({view.shape()[0], view.shape()[1] * 2}, DType::float64);
  Array out = big.slice({Slice{}, Slice{std::nullopt, std::nullopt, 2}});
  filters::gaussian_into(view, out, {.sigma = 2.0});
  EXPECT_ARRAY_EQ(filters::gaussian(copy, {.sigma = 2.0}).astype(DType::float64), out);
  // Odd and degenerate shapes.
  EXPECT_EQ(filters::sobel(Array::zeros({0, 5}, DType::float32)).shape(), (Shape{0, 5}));
  EXPECT_EQ(filters::sobel(Array::zeros({1, 1}, DType::uint8)).dtype(), DType::float64);
  EXPECT_EQ(filters::gaussian(Array::zeros({1, 7}, DType::float32)).dtype(), DType::float32);
  EXPECT_EQ(filters::laplace(Array::zeros({9}, DType::float32)).shape(), (Shape{9}));
}

TEST(FiltersEdges, BadArguments) {
  const Array a2 = Array::zeros({5, 6}, DType::float32), a3 = Array::zeros({3, 5, 6}, DType::float32);
  EXPECT_THROW(filters::sobel_h(a3), InvalidArgument);
  EXPECT_THROW(filters::roberts(a3), InvalidArgument);
  EXPECT_THROW(filters::farid_v(a3), InvalidArgument);
  EXPECT_THROW(filters::sobel(Array()), InvalidArgument);
  EXPECT_THROW(filters::sobel(a2, {.axis = {2}}), InvalidArgument);
  EXPECT_THROW(filters::sobel(a2, {.mask = Array::zeros({5, 5}, DType::bool_)}), InvalidArgument);
  EXPECT_THROW(filters::gaussian(a2, {.sigma = -1.0}), InvalidArgument);
  EXPECT_THROW(filters::gaussian(a2, {.sigma = {1.0, 2.0, 3.0}}), InvalidArgument);
  EXPECT_THROW(filters::gaussian(a2, {.channel_axis = 2}), InvalidArgument);
  EXPECT_THROW(filters::difference_of_gaussians(a2, 2.0, {.high_sigma = 1.0}), InvalidArgument);
  EXPECT_THROW(filters::difference_of_gaussians(a2, {1.0, 2.0, 3.0}), InvalidArgument);
  EXPECT_THROW(filters::difference_of_gaussians(a3, {1.0, 2.0, 3.0}, {.channel_axis = 0}), InvalidArgument);
  EXPECT_THROW(filters::unsharp_mask(a2, {.radius = -1.0}), InvalidArgument);
  Array bad_out = Array::zeros({5, 6}, DType::uint8);
  EXPECT_THROW(filters::gaussian_into(a2, bad_out), InvalidArgument);
  try {
    filters::difference_of_gaussians(a2, 2.0, {.high_sigma = 1.0});
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("filters.difference_of_gaussians: argument 'high_sigma'"), std::string::npos)
        << e.what();
  }
}

TEST(FiltersEdges, Cli) {
  const Array img = golden("f_in2_float32");
  const std::string in = cusktest::temp_path("edges_cli_in.npy"), out = cusktest::temp_path("edges_cli_out.npy");
  cuskimage::io::imsave(in, img);
  auto run = [&](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli_cpu(args);
    if (r.rc != 0) ADD_FAILURE_AT(__FILE__, __LINE__) << cuskclitest::describe(r);
    return r.rc;
  };
  ASSERT_EQ(run({"filters.gaussian", in, out, "--sigma", "2,1", "--mode", "reflect"}), 0);
  EXPECT_ARRAY_EQ(filters::gaussian(img, {.sigma = {2.0, 1.0}, .mode = Mode::reflect}), cuskimage::io::imread(out));
  ASSERT_EQ(run({"filters.sobel", in, out, "--axis", "1", "--mode", "wrap"}), 0);
  EXPECT_ARRAY_EQ(filters::sobel(img, {.axis = {1}, .mode = Mode::wrap}), cuskimage::io::imread(out));
  ASSERT_EQ(run({"filters.difference_of_gaussians", in, out, "--low_sigma", "1", "--high_sigma", "3"}), 0);
  EXPECT_ARRAY_EQ(filters::difference_of_gaussians(img, 1.0, {.high_sigma = 3.0}), cuskimage::io::imread(out));
  ASSERT_EQ(run({"filters.roberts", in, out}), 0);
  EXPECT_ARRAY_EQ(filters::roberts(img), cuskimage::io::imread(out));
  ASSERT_EQ(run({"ndimage.gaussian_filter", in, out, "--sigma", "1.5", "--order", "0,1"}), 0);
  EXPECT_ARRAY_EQ(cuskimage::ndimage::gaussian_filter(img, 1.5, {.order = {0, 1}}), cuskimage::io::imread(out));
  EXPECT_EQ(cuskclitest::run_cli({"filters.sobel", in, out, "--mode", "bogus"}).rc, 2);
  EXPECT_EQ(cuskclitest::run_cli({"filters.gaussian", in, out, "--sigma", "-1"}).rc, 1);
}

// ---- GPU ------------------------------------------------------------------------------------------
// Device vs CPU on fresh random inputs. 2-D float images take the fused kernels, which sum float32
// in float32: within 1e-5 * max(1, max|image|) (edges: sum|w| <= 2 for every kernel here, 8 for
// laplace: 4e-5); float64 within 1e-12 of the scale; everything else (3-D, integer inputs converted to
// float64) runs the same convolutions and element-wise steps as the CPU backend.

namespace {

double scale_of(const Array& a) {
  const auto v = a.to_vector<double>();
  double m = 1.0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

::testing::AssertionResult gpu_close(const Array& in, const Array& e, const Array& g, double k = 1.0) {
  const double s = scale_of(in);
  if (e.dtype() == DType::float32) return cusktest::arrays_close(e, g, 0, 1e-5 * k * s);
  return cusktest::arrays_close(e, g, 0, 1e-12 * k * s);
}

Array fresh(const Shape& shape, DType dt, std::uint64_t seed) {
  if (cuskimage::is_floating(dt)) return cusktest::random_array(shape, dt, seed, -1, 1);
  return cusktest::random_array(shape, dt, seed);
}

}  // namespace

TEST(GpuFiltersEdges, EveryFunctionMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 90;
  for (const DType dt : {DType::float32, DType::float64, DType::uint8, DType::int16}) {
    for (const Shape& shape : {Shape{301, 517}, Shape{64, 65}, Shape{3, 200}}) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      const Array hm = cusktest::random_array(shape, DType::bool_, seed++);
      const Array dm = hm.to(Device::cuda(), s);
      SCOPED_TRACE(std::string(cuskimage::dtype_name(dt)) + " " + cuskimage::shape_str(shape));
      for (const auto& [name, fn] : edge_fns()) EXPECT_TRUE(gpu_close(h, fn(h, {}), fn(d, s), 8.0)) << name;
      for (const auto& [name, fn] : edge_fns(&hm)) {
        auto dfns = edge_fns(&dm);
        const auto it = std::find_if(dfns.begin(), dfns.end(), [&](const auto& p) { return p.first == name; });
        EXPECT_TRUE(gpu_close(h, fn(h, {}), it->second(d, s), 8.0)) << name << " masked";
      }
      for (const auto& m : kModes) {
        const Mode mode = cuskimage::ndimage::mode_from_name(m);
        for (double cval : {0.0, 0.3}) {
          const filters::EdgeOptions o{.mode = mode, .cval = cval};
          EXPECT_TRUE(gpu_close(h, filters::sobel(h, o), filters::sobel(d, o, s))) << m;
          EXPECT_TRUE(gpu_close(h, filters::farid(h, o), filters::farid(d, o, s))) << m;
          const filters::EdgeOptions o1{.axis = {0}, .mode = mode, .cval = cval};
          EXPECT_TRUE(gpu_close(h, filters::scharr(h, o1), filters::scharr(d, o1, s))) << m;
          const filters::GaussianOptions g{.sigma = {2.0, 3.0}, .mode = mode, .cval = cval};
          EXPECT_TRUE(gpu_close(h, filters::gaussian(h, g), filters::gaussian(d, g, s))) << m;
        }
      }
      EXPECT_TRUE(gpu_close(h, filters::difference_of_gaussians(h, 1.0), filters::difference_of_gaussians(d, 1.0, {}, s)));
      EXPECT_TRUE(gpu_close(h, filters::unsharp_mask(h, {.radius = 2.0, .amount = 1.5}),
                            filters::unsharp_mask(d, {.radius = 2.0, .amount = 1.5}, s), 4.0));
      EXPECT_TRUE(gpu_close(h, filters::unsharp_mask(h, {.preserve_range = true}),
                            filters::unsharp_mask(d, {.preserve_range = true}, s), 4.0));
    }
  }
}

TEST(GpuFiltersEdges, ThreeDChannelsAndViews) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array v = fresh({17, 30, 41}, DType::float32, 5);
  const Array dv = v.to(Device::cuda(), s);
  const Array m = cusktest::random_array({17, 30, 41}, DType::bool_, 6);
  EXPECT_TRUE(gpu_close(v, filters::sobel(v), filters::sobel(dv, {}, s)));
  EXPECT_TRUE(gpu_close(v, filters::farid(v, {.mask = m.share()}), filters::farid(dv, {.mask = m.share()}, s)));
  EXPECT_TRUE(gpu_close(v, filters::prewitt(v, {.axis = {2}, .mode = Mode::wrap}),
                        filters::prewitt(dv, {.axis = {2}, .mode = Mode::wrap}, s)));
  EXPECT_TRUE(gpu_close(v, filters::laplace(v), filters::laplace(dv, {}, s), 8.0));
  EXPECT_TRUE(gpu_close(v, filters::gaussian(v, {.sigma = 1.5}), filters::gaussian(dv, {.sigma = 1.5}, s)));
  const Array rgb = cusktest::random_array({40, 50, 3}, DType::uint8, 7);
  const Array drgb = rgb.to(Device::cuda(), s);
  EXPECT_TRUE(gpu_close(rgb, filters::gaussian(rgb, {.channel_axis = -1}), filters::gaussian(drgb, {.channel_axis = -1}, s)));
  EXPECT_TRUE(gpu_close(rgb, filters::unsharp_mask(rgb, {.channel_axis = -1}),
                        filters::unsharp_mask(drgb, {.channel_axis = -1}, s), 4.0));
  // Strided device views.
  const Array h = fresh({200, 300}, DType::float32, 8);
  const Array d = h.to(Device::cuda(), s);
  const Array hv = h.slice({Slice{5, 190, 3}, Slice{std::nullopt, std::nullopt, -2}});
  const Array dvw = d.slice({Slice{5, 190, 3}, Slice{std::nullopt, std::nullopt, -2}});
  for (const auto& [name, fn] : edge_fns()) EXPECT_TRUE(gpu_close(h, fn(hv, {}), fn(dvw, s), 8.0)) << name;
  EXPECT_TRUE(gpu_close(h, filters::gaussian(hv, {.sigma = 3.0}), filters::gaussian(dvw, {.sigma = 3.0}, s)));
  // Golden data on the device.
  const Array cam = golden("cam").to(Device::cuda(), s);
  EXPECT_TRUE(gpu_close(golden("cam"), golden("sobel_cam"), filters::sobel(cam, {}, s)));
  EXPECT_TRUE(gpu_close(golden("cam"), golden("gauss_cam"), filters::gaussian(cam, {.sigma = 3.0}, s)));
}

TEST(GpuFiltersEdges, NoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array d = fresh({512, 512}, DType::float32, 4).to(Device::cuda());
  const Array m = cusktest::random_array({512, 512}, DType::bool_, 5).to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array a = filters::sobel(d, {.mask = m.share()}, s);
    Array b = filters::gaussian(d, {.sigma = 3.0}, s);
    Array c = filters::difference_of_gaussians(d, 1.0, {}, s);
    Array e = filters::roberts(d, {}, s);
    Array f = filters::farid(d.slice({Slice{}, Slice{1, 300}}), {}, s);
    Array g = filters::unsharp_mask(d, {}, s);  // syncs its own stream only
    s.synchronize();
  }));
}

// The fused 3-D stencil (kernels/filters/edges.cu): every family, the magnitude over all axes or a
// subset, single axes, laplace, every mode and a non-zero cval, masks; volumes with interior tiles
// whose rows are 16-byte aligned (100 columns) or not (99), and one smaller than a tile.
TEST(GpuFiltersEdges, Fused3dEveryFamilyAxesModeMask) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  using EdgeFn = Array (*)(const Array&, const filters::EdgeOptions&, const Stream&);
  const std::vector<std::pair<std::string, EdgeFn>> fams = {
      {"sobel", filters::sobel}, {"scharr", filters::scharr}, {"prewitt", filters::prewitt}, {"farid", filters::farid}};
  std::uint64_t seed = 700;
  for (const DType dt : {DType::float32, DType::float64}) {
    for (const Shape& shape : {Shape{20, 24, 100}, Shape{19, 26, 99}, Shape{5, 7, 9}}) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      const Array hm = cusktest::random_array(shape, DType::bool_, seed++);
      const Array dm = hm.to(Device::cuda(), s);
      SCOPED_TRACE(std::string(cuskimage::dtype_name(dt)) + " " + cuskimage::shape_str(shape));
      for (const auto& [name, fn] : fams) {
        for (const auto& m : kModes) {
          const Mode mode = cuskimage::ndimage::mode_from_name(m);
          for (const std::vector<int>& axes : std::vector<std::vector<int>>{{}, {0}, {1}, {2}, {0, 2}, {-1, 1}}) {
            const filters::EdgeOptions o{.axis = axes, .mode = mode, .cval = 0.5};
            EXPECT_TRUE(gpu_close(h, fn(h, o, {}), fn(d, o, s), 4.0)) << name << " " << m << " axes " << axes.size();
          }
        }
        const filters::EdgeOptions om{.mask = hm.share()}, dom{.mask = dm.share()};
        EXPECT_TRUE(gpu_close(h, fn(h, om, {}), fn(d, dom, s), 4.0)) << name << " masked";
      }
      EXPECT_TRUE(gpu_close(h, filters::laplace(h), filters::laplace(d, {}, s), 8.0));
      EXPECT_TRUE(gpu_close(h, filters::laplace(h, {.mask = hm.share()}), filters::laplace(d, {.mask = dm.share()}, s), 8.0));
    }
  }
  // A strided view of a volume, on a non-default stream.
  const Array v = fresh({24, 30, 80}, DType::float32, 9);
  const Array dv = v.to(Device::cuda(), s);
  const Array hv = v.slice({Slice{1, 23, 2}, Slice{}, Slice{std::nullopt, std::nullopt, -1}});
  const Array dvv = dv.slice({Slice{1, 23, 2}, Slice{}, Slice{std::nullopt, std::nullopt, -1}});
  EXPECT_TRUE(gpu_close(v, filters::sobel(hv), filters::sobel(dvv, {}, s), 4.0));
}

// The fused 3-D stencils queue nothing on the legacy stream (timing based: its own test, so the
// sanitizer runs, which serialise kernels, leave it out by name).
TEST(GpuFiltersEdges, Fused3dNoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array dv = fresh({24, 30, 80}, DType::float32, 9).to(Device::cuda(), s);
  s.synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& st) {
    Array a = filters::farid(dv, {}, st);
    Array b = filters::laplace(dv, {}, st);
    st.synchronize();
  }));
}
