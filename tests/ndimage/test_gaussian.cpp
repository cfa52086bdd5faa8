// ndimage.gaussian_filter1d / gaussian_filter: golden outputs of scipy.ndimage 1.17
// (tests/golden/cases_filters_edges.py, "filters_edges/..."), views, errors, and the GPU tier
// (device == CPU backend on fresh random inputs: exact for integer dtypes; the fused float kernel
// within its stated bound).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "cuskimage/ndimage.hpp"
#include "cuskimage/tuning.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
using cuskimage::ndimage::Mode;
namespace nd = cuskimage::ndimage;
namespace tuning = cuskimage::tuning;

const std::vector<std::string> kModes = {"reflect", "mirror", "nearest", "wrap", "constant"};
const std::vector<std::string> kDtypes = {"uint8", "uint16", "int32", "float32", "float64"};

Array golden(const std::string& n) { return cusktest::load_golden("filters_edges/" + n + ".npy"); }
double cval_for(DType dt) { return cuskimage::is_floating(dt) ? 2.5 : 7.0; }

/// CPU vs scipy: the CPU backend repeats scipy's double sums, so integers are exact and floats agree
/// to the last bits (1e-6 relative for float32 covers libm differences in exp; 1e-12 for float64).
::testing::AssertionResult matches(const Array& e, const Array& a) {
  if (e.dtype() == DType::float32) return cusktest::arrays_close(e, a, 1e-6, 1e-6);
  if (e.dtype() == DType::float64) return cusktest::arrays_close(e, a, 1e-12, 1e-12);
  return cusktest::arrays_equal(e, a);
}

double max_abs(const Array& a) {
  const auto v = a.to_vector<double>();
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

}  // namespace

TEST(NdimageGaussian, KernelsMatchScipy) {
  struct K {
    double sigma;
    int order;
    std::int64_t radius;
    const char* name;
  };
  for (const K& k : {K{1.0, 0, 4, "kern_1.0_0_4"}, K{2.5, 0, 10, "kern_2.5_0_10"}, K{0.7, 1, 3, "kern_0.7_1_3"},
                     K{1.3, 2, 5, "kern_1.3_2_5"}, K{3.0, 3, 12, "kern_3.0_3_12"}}) {
    SCOPED_TRACE(k.name);
    const auto w = nd::gaussian_kernel1d(k.sigma, k.order, k.radius);
    const Array got = Array::from_vector(w, {static_cast<std::int64_t>(w.size())});
    if (k.order == 0)
      EXPECT_ARRAY_EQ(golden(k.name), got);  // same float64 operations as scipy: bit-exact
    else
      EXPECT_ARRAY_NEAR(golden(k.name), got, 1e-14, 1e-15);  // BLAS may fuse the polynomial's products
  }
}

TEST(NdimageGaussian, GoldenEveryModeAndDtype) {
  for (const auto& dt : kDtypes) {
    const Array a2 = golden("nd_in2_" + dt), a3 = golden("nd_in3_" + dt);
    const double cv = cval_for(a2.dtype());
    for (const auto& m : kModes) {
      const std::string s = m + "_" + dt;
      SCOPED_TRACE(s);
      const Mode mode = nd::mode_from_name(m);
      EXPECT_TRUE(matches(golden("g1d_" + s), nd::gaussian_filter1d(a2, 1.5, {.axis = 0, .mode = mode, .cval = cv})));
      EXPECT_TRUE(matches(golden("g2d_" + s), nd::gaussian_filter(a2, {1.2, 2.0}, {.mode = mode, .cval = cv})));
      EXPECT_TRUE(matches(golden("g3d_" + s), nd::gaussian_filter(a3, 1.0, {.mode = mode, .cval = cv})));
      if (cuskimage::is_floating(a2.dtype())) {
        // Derivative kernels: BLAS-computed polynomial in scipy, 1e-14 apart.
        EXPECT_ARRAY_NEAR(golden("gord_" + s),
                          nd::gaussian_filter(a2, 1.3, {.order = {1, 2}, .mode = mode, .cval = cv}), 1e-6, 1e-6);
        EXPECT_ARRAY_NEAR(golden("g1dord3_" + s),
                          nd::gaussian_filter1d(a2, 0.8, {.axis = 1, .order = 3, .mode = mode, .cval = cv}), 1e-6,
                          1e-6);
      }
    }
  }
}

TEST(NdimageGaussian, GoldenOtherParameters) {
  for (const auto& dt : kDtypes) {
    SCOPED_TRACE(dt);
    const Array a2 = golden("nd_in2_" + dt), a3 = golden("nd_in3_" + dt);
    const double cv = cval_for(a2.dtype());
    EXPECT_TRUE(matches(golden("grad_" + dt), nd::gaussian_filter(a2, 2.0, {.radius = {1, 3}})));
    EXPECT_TRUE(matches(golden("gtrunc_" + dt), nd::gaussian_filter(a2, 1.7, {.truncate = 2.2})));
    EXPECT_TRUE(matches(golden("gaxes_" + dt),
                        nd::gaussian_filter(a3, {2.0, 0.7}, {.mode = {Mode::wrap, Mode::mirror}, .axes = {2, 0}})));
    EXPECT_TRUE(matches(golden("gmodes_" + dt),
                        nd::gaussian_filter(a2, 1.5, {.mode = {Mode::constant, Mode::nearest}, .cval = cv})));
    EXPECT_TRUE(matches(golden("gzero_" + dt), nd::gaussian_filter(a2, {0.0, 1.0})));
    EXPECT_TRUE(matches(golden("gwide_" + dt), nd::gaussian_filter(a2, 9.0)));
  }
}

TEST(NdimageGaussian, StridedViewsAndInto) {
  const Array a = golden("nd_in2_float64");
  const Array view = a.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -1}});
  const Array expected = nd::gaussian_filter(view.copy(), {1.0, 1.5}, {.mode = Mode::mirror});
  EXPECT_ARRAY_EQ(expected, nd::gaussian_filter(view, {1.0, 1.5}, {.mode = Mode::mirror}));
  // _into a strided output.
  Array big = Array::zeros({view.shape()[0], view.shape()[1] * 2}, DType::float64);
  Array out = big.slice({Slice{}, Slice{std::nullopt, std::nullopt, 2}});
  nd::gaussian_filter_into(view, {1.0, 1.5}, out, {.mode = Mode::mirror});
  EXPECT_ARRAY_EQ(expected, out);
  // Every sigma zero: a copy.
  EXPECT_ARRAY_EQ(view.copy(), nd::gaussian_filter(view, 0.0));
  // 1-D and degenerate shapes.
  const Array line = Array::from_vector(std::vector<double>{1, 2, 3, 4, 5}, {5});
  const auto r = nd::gaussian_filter1d(line, 1.0).to_vector<double>();
  // scipy's docstring example.
  const double want[5] = {1.42704095, 2.06782203, 3.0, 3.93217797, 4.57295905};
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(r[i], want[i], 1e-8);
  EXPECT_EQ(nd::gaussian_filter(Array::zeros({0, 4}, DType::float32), 1.0).shape(), (Shape{0, 4}));
  EXPECT_ARRAY_EQ(Array::full({1, 1}, 3.0, DType::uint8), nd::gaussian_filter(Array::full({1, 1}, 3.0, DType::uint8), 2.0));
}

TEST(NdimageGaussian, BadArguments) {
  const Array a = Array::zeros({4, 5}, DType::float32);
  using cuskimage::InvalidArgument;
  EXPECT_THROW(nd::gaussian_filter(a, -1.0), InvalidArgument);
  EXPECT_THROW(nd::gaussian_filter(a, {1.0, 2.0, 3.0}), InvalidArgument);
  EXPECT_THROW(nd::gaussian_filter(a, 1.0, {.order = {4}}), InvalidArgument);
  EXPECT_THROW(nd::gaussian_filter(a, 1.0, {.order = {-1}}), InvalidArgument);
  EXPECT_THROW(nd::gaussian_filter(a, 1.0, {.radius = {-2}}), InvalidArgument);
  EXPECT_THROW(nd::gaussian_filter(a, 1.0, {.axes = {0, 0}}), InvalidArgument);
  EXPECT_THROW(nd::gaussian_filter(a, 1.0, {.axes = {2}}), InvalidArgument);
  EXPECT_THROW(nd::gaussian_filter(a, 1.0, {.mode = {Mode::reflect, Mode::wrap, Mode::wrap}}), InvalidArgument);
  EXPECT_THROW(nd::gaussian_filter(Array::zeros({3, 3}, DType::bool_), 1.0), InvalidArgument);
  EXPECT_THROW(nd::gaussian_filter(Array(), 1.0), InvalidArgument);
  EXPECT_THROW(nd::gaussian_filter1d(a, 0.0), InvalidArgument);
  EXPECT_THROW(nd::gaussian_filter1d(a, 1.0, {.axis = 2}), InvalidArgument);
  EXPECT_THROW(nd::gaussian_filter1d(a, 1.0, {.radius = -1}), InvalidArgument);
  Array wrong = Array::zeros({4, 5}, DType::float64);
  EXPECT_THROW(nd::gaussian_filter_into(a, {1.0}, wrong, {}), InvalidArgument);
  try {
    nd::gaussian_filter(a, -1.0);
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("ndimage.gaussian_filter: argument 'sigma'"), std::string::npos) << e.what();
  }
}

// ---- GPU tier --------------------------------------------------------------------------------------
namespace {

Array fresh(const Shape& shape, DType dt, std::uint64_t seed) {
  if (cuskimage::is_floating(dt)) return cusktest::random_array(shape, dt, seed, -10, 10);
  if (dt == DType::int32) return cusktest::random_array(shape, dt, seed, -100000, 100000);
  return cusktest::random_array(shape, dt, seed);
}

/// Forces one kernel of the fused float path (tuning::Separable2dPolicy, read by
/// kernels/ndimage/separable2d.cu at every call) for its lifetime: "tile" or "rows" for the dtype's
/// field, restoring the previous policy after.
class ForceSeparable2d {
 public:
  ForceSeparable2d(DType dt, const std::string& kernel) {
    const tuning::Separable2dKernel k = kernel == "tile" ? tuning::Separable2dKernel::tile : tuning::Separable2dKernel::rows;
    tuning::Separable2dPolicy p = tuning::separable2d_policy();
    (dt == DType::float32 ? p.f32 : p.f64) = k;
    old_ = tuning::set_separable2d_policy(p);
  }
  ~ForceSeparable2d() { tuning::set_separable2d_policy(old_); }
  ForceSeparable2d(const ForceSeparable2d&) = delete;
  ForceSeparable2d& operator=(const ForceSeparable2d&) = delete;

 private:
  tuning::Separable2dPolicy old_;
};

/// Device vs CPU: integers exact (same double passes); float32 2-D takes the fused kernel with float32
/// sums: bound 1e-5 * sum|w0| * sum|w1| * max|input| (the ndimage.hpp statement; sum|w| = 1 for
/// order 0, < 2 for the derivative orders used here); float64 within 1e-12 of the scale.
::testing::AssertionResult gpu_close(const Array& in, const Array& expected, const Array& got, double wsum = 1.0) {
  const double scale = std::max(1.0, max_abs(in));
  if (expected.dtype() == DType::float32) return cusktest::arrays_close(expected, got, 0, 1e-5 * wsum * scale);
  if (expected.dtype() == DType::float64) return cusktest::arrays_close(expected, got, 0, 1e-12 * wsum * scale);
  return cusktest::arrays_equal(expected, got);
}

}  // namespace

TEST(GpuNdimageGaussian, MatchesCpuEveryModeDtypeShape) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 40;
  for (const auto& dtn : kDtypes) {
    const DType dt = cuskimage::dtype_from_name(dtn);
    for (const Shape& shape : {Shape{301, 517}, Shape{7, 1000}, Shape{130, 3}, Shape{19, 37, 45}}) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      for (const auto& m : kModes) {
        SCOPED_TRACE(dtn + " " + m + " " + cuskimage::shape_str(shape));
        const Mode mode = nd::mode_from_name(m);
        const double cv = cval_for(dt);
        for (double sigma : {0.8, 3.0, 12.0}) {  // 12: the wide-window fallback (1-D passes)
          const nd::GaussianFilterOptions o{.mode = mode, .cval = cv};
          EXPECT_TRUE(gpu_close(h, nd::gaussian_filter(h, sigma, o), nd::gaussian_filter(d, sigma, o, s)));
        }
        const nd::GaussianFilterOptions od{.order = {1, 2}, .mode = mode, .cval = cv};
        if (shape.size() == 2)
          EXPECT_TRUE(gpu_close(h, nd::gaussian_filter(h, {1.5, 2.0}, od), nd::gaussian_filter(d, {1.5, 2.0}, od, s),
                                2.0));
        const nd::GaussianFilter1dOptions o1{.axis = 0, .order = 1, .mode = mode, .cval = cv};
        EXPECT_TRUE(gpu_close(h, nd::gaussian_filter1d(h, 2.0, o1), nd::gaussian_filter1d(d, 2.0, o1, s), 2.0));
      }
    }
  }
}

TEST(GpuNdimageGaussian, FractionalCvalPerAxisModesViewsAndBatch) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = fresh({200, 333}, DType::float32, 7);
  const Array d = h.to(Device::cuda(), s);
  // A cval not exact in float32 takes the pass form (double cval).
  const nd::GaussianFilterOptions o{.mode = {Mode::constant, Mode::wrap}, .cval = 0.1};
  EXPECT_TRUE(gpu_close(h, nd::gaussian_filter(h, 2.0, o), nd::gaussian_filter(d, 2.0, o, s)));
  const nd::GaussianFilterOptions o2{.mode = {Mode::nearest, Mode::constant}, .cval = 1.5};
  EXPECT_TRUE(gpu_close(h, nd::gaussian_filter(h, {3.0, 1.0}, o2), nd::gaussian_filter(d, {3.0, 1.0}, o2, s)));
  // Strided device view in, strided device view out.
  const Array hv = h.slice({Slice{3, 190, 2}, Slice{std::nullopt, std::nullopt, -3}});
  const Array dv = d.slice({Slice{3, 190, 2}, Slice{std::nullopt, std::nullopt, -3}});
  const Array expected = nd::gaussian_filter(hv, 2.5);
  EXPECT_TRUE(gpu_close(h, expected, nd::gaussian_filter(dv, 2.5, {}, s)));
  Array big = Array::zeros({hv.shape()[0], hv.shape()[1] * 2}, DType::float32, Device::cuda(), s);
  Array out = big.slice({Slice{}, Slice{std::nullopt, std::nullopt, 2}});
  nd::gaussian_filter_into(dv, {2.5}, out, {}, s);
  EXPECT_TRUE(gpu_close(h, expected, out));
  // 3-D float64 stack filtered over the last two axes only, and the 2-D float64 fused path.
  const Array h3 = fresh({4, 50, 70}, DType::float64, 8);
  const nd::GaussianFilterOptions o3{.axes = {1, 2}};
  EXPECT_TRUE(gpu_close(h3, nd::gaussian_filter(h3, 1.7, o3), nd::gaussian_filter(h3.to(Device::cuda(), s), 1.7, o3, s)));
  const Array h2 = fresh({129, 97}, DType::float64, 9);
  EXPECT_TRUE(gpu_close(h2, nd::gaussian_filter(h2, 4.0), nd::gaussian_filter(h2.to(Device::cuda(), s), 4.0, {}, s)));
}

TEST(GpuNdimageGaussian, GoldenOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const auto& dt : kDtypes) {
    const Array h = golden("nd_in2_" + dt);
    const Array d = h.to(Device::cuda(), s);
    for (const auto& m : kModes) {
      SCOPED_TRACE(m + " " + dt);
      const nd::GaussianFilterOptions o{.mode = nd::mode_from_name(m), .cval = cval_for(h.dtype())};
      EXPECT_TRUE(gpu_close(h, golden("g2d_" + m + "_" + dt), nd::gaussian_filter(d, {1.2, 2.0}, o, s)));
    }
  }
}

TEST(GpuNdimageGaussian, NoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array h = fresh({512, 512}, DType::float32, 3);
  const Array d = h.to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array r = nd::gaussian_filter(d, 3.0, {}, s);
    Array r8 = nd::gaussian_filter(d.astype(DType::uint8, s), 2.0, {}, s);
    s.synchronize();
  }));
}

// The fused separable kernel (kernels/ndimage/separable2d.cu) on every template bucket (k = 3 .. 33
// taps, and 41: the runtime-K kernel for floats, 1-D passes for integers), per-axis sigmas and
// derivative orders (antisymmetric windows), every mode, uint8/uint16 (exact) and float32/float64;
// shapes with interior tiles whose rows are 16-byte aligned (512 columns: the vector copies) or not
// (517), tiles larger than the image (23 x 37), and a batch of planes (3-D over the last two axes).
TEST(GpuNdimageGaussian, FusedKernelEveryBucketModeDtype) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 300;
  for (const DType dt : {DType::uint8, DType::uint16, DType::float32, DType::float64}) {
    for (const Shape& shape : {Shape{150, 517}, Shape{2, 120, 512}, Shape{23, 37}}) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      const int nd = static_cast<int>(shape.size());
      const std::vector<int> last2 = {nd - 2, nd - 1};
      for (const auto& m : kModes) {
        const Mode mode = nd::mode_from_name(m);
        const double cv = cval_for(dt);
        for (const std::vector<double>& sigma :
             std::vector<std::vector<double>>{{0.3}, {0.6}, {1.0}, {1.4}, {2.0}, {2.6}, {3.0}, {4.0}, {5.0}, {1.0, 3.0},
                                              {4.0, 0.5}}) {
          SCOPED_TRACE(std::string(cuskimage::dtype_name(dt)) + " " + m + " " + cuskimage::shape_str(shape) +
                       " sigma " + std::to_string(sigma[0]) + (sigma.size() > 1 ? "," + std::to_string(sigma[1]) : ""));
          const nd::GaussianFilterOptions o{.mode = mode, .cval = cv, .axes = last2};
          EXPECT_TRUE(gpu_close(h, nd::gaussian_filter(h, sigma, o), nd::gaussian_filter(d, sigma, o, s)));
        }
        SCOPED_TRACE(std::string(cuskimage::dtype_name(dt)) + " " + m + " " + cuskimage::shape_str(shape) + " orders");
        // Antisymmetric axis-0 window, symmetric order-2 axis-1 window.
        const nd::GaussianFilterOptions od{.order = {1, 2}, .mode = mode, .cval = cv, .axes = last2};
        EXPECT_TRUE(gpu_close(h, nd::gaussian_filter(h, {1.5, 2.0}, od), nd::gaussian_filter(d, {1.5, 2.0}, od, s), 2.0));
        const nd::GaussianFilterOptions od2{.order = {0, 1}, .mode = mode, .cval = cv, .axes = last2};
        EXPECT_TRUE(gpu_close(h, nd::gaussian_filter(h, 3.0, od2), nd::gaussian_filter(d, 3.0, od2, s), 2.0));
      }
      // Every axis of a 3-D volume: the axis-0 pass, then the fused kernel over the planes.
      if (nd == 3) EXPECT_TRUE(gpu_close(h, nd::gaussian_filter(h, 1.5), nd::gaussian_filter(d, 1.5, {}, s)));
    }
  }
}

// Integer images through the fused kernel: a fractional cval (kept as double: scipy's cval is never
// rounded to the dtype), strided views in and out, flat regions (sums that land exactly on integers,
// where a float accumulation would truncate differently), and the result on a non-default stream.
TEST(GpuNdimageGaussian, FusedIntegerExactViewsFlatAndCval) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const DType dt : {DType::uint8, DType::uint16}) {
    SCOPED_TRACE(cuskimage::dtype_name(dt));
    const Array h = fresh({260, 700}, dt, 11);
    const Array d = h.to(Device::cuda(), s);
    for (const auto& m : kModes) {
      const nd::GaussianFilterOptions o{.mode = nd::mode_from_name(m), .cval = 3.25};
      EXPECT_TRUE(gpu_close(h, nd::gaussian_filter(h, 2.0, o), nd::gaussian_filter(d, 2.0, o, s))) << m;
    }
    const Array hv = h.slice({Slice{7, 250, 2}, Slice{std::nullopt, std::nullopt, -3}});
    const Array dv = d.slice({Slice{7, 250, 2}, Slice{std::nullopt, std::nullopt, -3}});
    const Array expected = nd::gaussian_filter(hv, 3.0);
    EXPECT_TRUE(gpu_close(h, expected, nd::gaussian_filter(dv, 3.0, {}, s)));
    Array big = Array::zeros({hv.shape()[0], hv.shape()[1] * 2}, dt, Device::cuda(), s);
    Array out = big.slice({Slice{}, Slice{std::nullopt, std::nullopt, 2}});
    nd::gaussian_filter_into(dv, {3.0}, out, {}, s);
    EXPECT_TRUE(gpu_close(h, expected, out));
    // Flat blocks of a few grey levels.
    std::vector<double> levels(200 * 300);
    for (std::size_t i = 0; i < levels.size(); ++i) {
      const std::size_t y = i / 300, x = i % 300;
      levels[i] = static_cast<double>(((y / 40) * 7 + (x / 50) * 3) % 6) * (dt == DType::uint8 ? 40.0 : 10000.0);
    }
    const Array flat = Array::from_vector(levels, {200, 300}).astype(dt);
    const Array dflat = flat.to(Device::cuda(), s);
    for (double sigma : {1.0, 3.0, 4.0})
      EXPECT_TRUE(gpu_close(flat, nd::gaussian_filter(flat, sigma), nd::gaussian_filter(dflat, sigma, {}, s))) << sigma;
  }
}

// The float/double kernels of the fused path (kernels/ndimage/separable2d.cu), each forced through
// tuning::set_separable2d_policy whatever the default rule picks: the row-strip kernel
// (kernels/ndimage/separable_rows.cuh; "rows": 16-row chunks, streamed loads for double and K > 25)
// and the tile kernel ("tile").
// Column bands of 232 / 248 / 224 outputs (K = 25 / 9 / 33) with partial last bands and images
// narrower than a band, heights of 1 row and tall images cut into many strips (halo rows from the
// neighbouring strips), widths that are not a multiple of the 16-byte vector (scalar stores), every
// mode on both axes and mixed per-axis modes with cval, windows of 3 .. 33 taps and an
// antisymmetric one, a batch of planes; plus the one-tap window (sigma 0.1: radius 0), which the
// fused path used to accept and then not run. The kernels add in the same order: their results
// are identical (compared bit for bit against the tile kernel's).
TEST(GpuNdimageGaussian, RowKernelBandsStripsModes) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 900;
  const std::vector<Shape> shapes = {{1, 1},    {1, 9},     {9, 1},   {17, 33},  {25, 232},  {26, 233},
                                     {51, 464}, {3, 465},   {130, 250}, {700, 40}, {2, 60, 500}, {40, 2000}};
  const std::vector<std::pair<Mode, Mode>> modes = {
      {Mode::reflect, Mode::reflect}, {Mode::mirror, Mode::mirror},   {Mode::nearest, Mode::nearest},
      {Mode::wrap, Mode::wrap},       {Mode::constant, Mode::constant}, {Mode::constant, Mode::nearest},
      {Mode::wrap, Mode::constant}};
  struct Case {
    std::vector<double> sigma;
    std::vector<int> order;
  };
  // sigma 0.6 / 1.0 / 1.4 / 2.6 / 3.0 / 4.0: K = 5 / 9 / 13 / 21 / 25 / 33 (2.6 -> radius 10).
  const std::vector<Case> cases = {{{0.1}, {0}}, {{0.3}, {0}}, {{0.6}, {0}}, {{1.0}, {0}}, {{1.4}, {0}},
                                   {{2.6}, {0}}, {{3.0}, {0}}, {{4.0}, {0}}, {{3.0, 1.0}, {0}}, {{3.0}, {0, 1}},
                                   {{1.0}, {0, 1}}};
  for (const DType dt : {DType::float32, DType::float64}) {
    const std::vector<const char*> kernels = {"tile", "rows"};
    for (const Shape& shape : shapes) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      const int ndim = static_cast<int>(shape.size());
      for (const auto& [my, mx] : modes) {
        for (const Case& c : cases) {
          const std::string what = std::string(cuskimage::dtype_name(dt)) + " " + cuskimage::shape_str(shape) + " " +
                                   std::string(nd::mode_name(my)) + "," + std::string(nd::mode_name(mx)) + " sigma " +
                                   std::to_string(c.sigma[0]) + (c.sigma.size() > 1 ? "," + std::to_string(c.sigma[1]) : "") +
                                   " order " + std::to_string(c.order.back());
          const nd::GaussianFilterOptions o{.order = c.order, .mode = {my, mx}, .cval = 2.5, .axes = {ndim - 2, ndim - 1}};
          const Array expected = nd::gaussian_filter(h, c.sigma, o);
          Array first;
          for (const char* k : kernels) {
            SCOPED_TRACE(what + " kernel " + k);
            const ForceSeparable2d force(dt, k);
            Array got = nd::gaussian_filter(d, c.sigma, o, s);
            EXPECT_TRUE(gpu_close(h, expected, got, 2.0));
            if (!first.valid())
              first = std::move(got);
            else
              EXPECT_ARRAY_EQ(first, got);
          }
        }
      }
    }
  }
  // The default rule (automatic) on the 3-D path, both sides of the float32 crossover (K = 17 / 19).
  for (double sigma : {2.0, 2.25}) {
    const Array v = fresh({3, 70, 300}, DType::float32, 992);
    EXPECT_TRUE(gpu_close(v, nd::gaussian_filter(v, sigma), nd::gaussian_filter(v.to(Device::cuda(), s), sigma, {}, s)))
        << sigma;
  }
  // Radius 0: the filter is the identity (one weight of 1).
  const Array h = fresh({37, 300}, DType::float32, 990);
  EXPECT_ARRAY_EQ(h, nd::gaussian_filter(h.to(Device::cuda(), s), 0.1, {}, s));
  // 3-D over every axis (the axis-0 pass, then the fused kernel over the planes), and filters.gaussian.
  const Array v = fresh({5, 30, 250}, DType::float32, 991);
  for (const char* k : {"tile", "rows"}) {
    const ForceSeparable2d force(DType::float32, k);
    EXPECT_TRUE(gpu_close(v, nd::gaussian_filter(v, 3.0), nd::gaussian_filter(v.to(Device::cuda(), s), 3.0, {}, s))) << k;
  }
}
