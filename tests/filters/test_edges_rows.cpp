// The 2-D edge stencils on CUDA (kernels/filters/edges.cu): the row-strip kernel
// (kernels/filters/stencil_rows.cuh), which takes float32/float64 images whose width is a multiple
// of 4 on 16-byte-aligned buffers (float64 5x5 windows excepted), its separable form (float32 5x5
// rank-1 windows: farid), and the tile kernel for the rest, each forced through
// tuning::set_stencil_policy, against the CPU backend on fresh inputs: widths around the kernel's
// 128-column warp segments and 512-column blocks (a partial last segment, a last valid lane inside a warp, 4-column images),
// heights of 1-3 rows (halo rows past both ends), tall images cut into many strips, every boundary
// mode with a non-zero cval, 3x3 and 5x5 windows, one window or two (the magnitude), masks,
// a misaligned base (the tile kernel), a strided view, large images (many blocks per SM), on a
// non-default stream.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/stream.hpp"
#include "cuskimage/tuning.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
using ndimage::Mode;

// Inputs in [-1, 1): float32 sums agree with scipy's double sums within ~1e-6 per unit of weight
// (sum |w| <= 8 for every window here).
::testing::AssertionResult close(const Array& e, const Array& g) {
  return cusktest::arrays_close(e, g, 0, e.dtype() == DType::float32 ? 8e-5 : 8e-12);
}

using EdgeFn = std::function<Array(const Array&, const Array& mask, Mode, double, const Stream&)>;

struct Plan {
  std::string name;
  bool has_mode;  // the public form takes mode/cval
  EdgeFn fn;
};

filters::EdgeOptions opts(const Array& m, Mode mode, double cval, std::vector<int> axis = {}) {
  return {.mask = m.share(), .axis = std::move(axis), .mode = mode, .cval = cval};
}

/// One of each kind of plan: two 3x3 windows (sobel, prewitt's inexact 1/3), one 3x3 (scharr along
/// axis 1, sobel_h, laplace), the 2x2 roberts pair, two 5x5 windows (farid), one 5x5 (farid axis 0).
std::vector<Plan> plans() {
  return {
      {"sobel", true, [](const Array& a, const Array& m, Mode mo, double cv, const Stream& s) { return filters::sobel(a, opts(m, mo, cv), s); }},
      {"prewitt", true, [](const Array& a, const Array& m, Mode mo, double cv, const Stream& s) { return filters::prewitt(a, opts(m, mo, cv), s); }},
      {"scharr axis 1", true,
       [](const Array& a, const Array& m, Mode mo, double cv, const Stream& s) { return filters::scharr(a, opts(m, mo, cv, {1}), s); }},
      {"farid", true, [](const Array& a, const Array& m, Mode mo, double cv, const Stream& s) { return filters::farid(a, opts(m, mo, cv), s); }},
      {"farid axis 0", true,
       [](const Array& a, const Array& m, Mode mo, double cv, const Stream& s) { return filters::farid(a, opts(m, mo, cv, {0}), s); }},
      {"sobel_h", false, [](const Array& a, const Array& m, Mode, double, const Stream& s) { return filters::sobel_h(a, m.share(), s); }},
      {"roberts", false, [](const Array& a, const Array& m, Mode, double, const Stream& s) { return filters::roberts(a, m.share(), s); }},
      {"laplace", false,
       [](const Array& a, const Array& m, Mode, double, const Stream& s) { return filters::laplace(a, {.mask = m.share()}, s); }},
  };
}

const std::vector<Mode> kModes = {Mode::reflect, Mode::mirror, Mode::nearest, Mode::wrap, Mode::constant};

/// Forces one kernel for every stencil (kernels/filters/edges.cu reads the policy at every call)
/// for its lifetime: "tile", "rows" or "sep" (sep: float32 5x5 only; the 3x3 plans then run rows).
class ForceKernel {
 public:
  explicit ForceKernel(const std::string& k) {
    const tuning::StencilKernel kind = k == "tile"   ? tuning::StencilKernel::tile
                                       : k == "rows" ? tuning::StencilKernel::rows
                                                     : tuning::StencilKernel::separable_rows;
    old_ = tuning::set_stencil_policy({kind, kind, kind});
  }
  ~ForceKernel() { tuning::set_stencil_policy(old_); }
  ForceKernel(const ForceKernel&) = delete;
  ForceKernel& operator=(const ForceKernel&) = delete;

 private:
  tuning::StencilPolicy old_;
};

const std::vector<const char*> kKernels = {"rows", "sep", "tile"};

}  // namespace

// The setter returns the policy it replaces; ForceKernel restores it.
TEST(EdgesTuning, ForceKernelSetsAndRestoresThePolicy) {
  EXPECT_EQ(tuning::stencil_policy().r1_f32, tuning::StencilKernel::automatic);
  {
    const ForceKernel force("sep");
    const tuning::StencilPolicy p = tuning::stencil_policy();
    EXPECT_EQ(p.r1_f32, tuning::StencilKernel::separable_rows);
    EXPECT_EQ(p.r1_f64, tuning::StencilKernel::separable_rows);
    EXPECT_EQ(p.r2_f32, tuning::StencilKernel::separable_rows);
  }
  const tuning::StencilPolicy p = tuning::stencil_policy();
  EXPECT_EQ(p.r1_f32, tuning::StencilKernel::automatic);
  EXPECT_EQ(p.r2_f32, tuning::StencilKernel::automatic);
}

// Widths and heights at the row kernel's edges, every plan, mode and dtype, with and without a mask.
TEST(GpuEdgesRows, WidthsHeightsModesMasks) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 5200;
  const std::vector<Shape> shapes = {{1, 4},    {2, 128},  {3, 132},  {5, 256},  {31, 260}, {65, 124},
                                     {300, 516}, {17, 1028}, {130, 8}, {1, 512}, {4, 500}, {9, 2052}};
  for (const DType dt : {DType::float32, DType::float64}) {
    for (const Shape& shape : shapes) {
      const Array h = cusktest::random_array(shape, dt, seed++, -1, 1);
      const Array d = h.to(Device::cuda(), s);
      const Array hm = cusktest::random_array(shape, DType::bool_, seed++);
      const Array dm = hm.to(Device::cuda(), s);
      for (const Plan& p : plans()) {
        for (const Mode mode : kModes) {
          if (!p.has_mode && mode != Mode::reflect) continue;
          const std::string what = std::string(dtype_name(dt)) + " " + shape_str(shape) + " " + p.name + " " +
                                   std::string(ndimage::mode_name(mode));
          const Array expected = p.fn(h, Array(), mode, 0.3, {});
          const bool masked = mode == Mode::reflect || mode == Mode::constant;
          const Array expected_m = masked ? p.fn(h, hm, mode, 0.3, {}) : Array();
          for (const char* k : kKernels) {
            SCOPED_TRACE(what + " kernel " + k);
            const ForceKernel force(k);
            EXPECT_TRUE(close(expected, p.fn(d, Array(), mode, 0.3, s)));
            if (masked) EXPECT_TRUE(close(expected_m, p.fn(d, dm, mode, 0.3, s))) << "masked";
          }
        }
      }
    }
  }
}

// The row and tile kernels sum in the same order: single-window plans (no magnitude) agree bit for
// bit, masked or not, on widths the row kernel takes; the separable kernel within rounding.
TEST(GpuEdgesRows, KernelsAgree) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 5300;
  for (const DType dt : {DType::float32, DType::float64}) {
    for (const Shape& shape : {Shape{37, 260}, Shape{300, 516}, Shape{3, 132}}) {
      const Array d = cusktest::random_array(shape, dt, seed++, -1, 1).to(Device::cuda(), s);
      const Array dm = cusktest::random_array(shape, DType::bool_, seed++).to(Device::cuda(), s);
      for (const Plan& p : plans()) {
        if (p.name != "scharr axis 1" && p.name != "sobel_h" && p.name != "laplace" && p.name != "farid axis 0") continue;
        for (const Mode mode : {Mode::reflect, Mode::constant, Mode::wrap}) {
          if (!p.has_mode && mode != Mode::reflect) continue;
          SCOPED_TRACE(std::string(dtype_name(dt)) + " " + shape_str(shape) + " " + p.name + " " +
                       std::string(ndimage::mode_name(mode)));
          Array tile, tile_m;
          {
            const ForceKernel force("tile");
            tile = p.fn(d, Array(), mode, 0.3, s);
            tile_m = p.fn(d, dm, mode, 0.3, s);
          }
          const ForceKernel force("rows");
          EXPECT_ARRAY_EQ(tile, p.fn(d, Array(), mode, 0.3, s));
          EXPECT_ARRAY_EQ(tile_m, p.fn(d, dm, mode, 0.3, s));
        }
      }
    }
  }
}

// Tall narrow images: the strip planner cuts them into many strips, so halo rows come from the
// neighbouring strips' rows; and images with many more blocks than an H200 holds at once (every
// kernel for sobel and farid).
TEST(GpuEdgesRows, ManyStripsAndLargeImages) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 5400;
  for (const auto& [dt, shape] : {std::pair{DType::float32, Shape{4000, 64}}, std::pair{DType::float32, Shape{3001, 132}},
                                  std::pair{DType::float32, Shape{1500, 2100}}, std::pair{DType::float32, Shape{1301, 2083}},
                                  std::pair{DType::float64, Shape{1300, 2100}}, std::pair{DType::float64, Shape{2500, 36}}}) {
    const Array h = cusktest::random_array(shape, dt, seed++, -1, 1);
    const Array d = h.to(Device::cuda(), s);
    const Array hm = cusktest::random_array(shape, DType::bool_, seed++);
    const Array dm = hm.to(Device::cuda(), s);
    SCOPED_TRACE(std::string(dtype_name(dt)) + " " + shape_str(shape));
    for (const auto& [mode, cval] : {std::pair{Mode::reflect, 0.0}, std::pair{Mode::constant, 0.3}, std::pair{Mode::wrap, 0.0}}) {
      const filters::EdgeOptions o{.mode = mode, .cval = cval};
      const Array es = filters::sobel(h, o), ef = filters::farid(h, o);
      for (const char* k : kKernels) {
        const ForceKernel force(k);
        EXPECT_TRUE(close(es, filters::sobel(d, o, s))) << ndimage::mode_name(mode) << " " << k;
        EXPECT_TRUE(close(ef, filters::farid(d, o, s))) << ndimage::mode_name(mode) << " " << k;
      }
    }
    const Array efm = filters::farid(h, {.mask = hm.share()});
    for (const char* k : kKernels) {
      const ForceKernel force(k);
      EXPECT_TRUE(close(efm, filters::farid(d, {.mask = dm.share()}, s))) << "masked farid " << k;
    }
    EXPECT_TRUE(close(filters::scharr(h), filters::scharr(d, {}, s)));
    EXPECT_TRUE(close(filters::prewitt(h), filters::prewitt(d, {}, s)));
    EXPECT_TRUE(close(filters::sobel_h(h), filters::sobel_h(d, {}, s)));
    EXPECT_TRUE(close(filters::laplace(h), filters::laplace(d, {}, s)));
    EXPECT_TRUE(close(filters::roberts(h), filters::roberts(d, {}, s)));
    EXPECT_TRUE(close(filters::sobel(h, {.mask = hm.share()}), filters::sobel(d, {.mask = dm.share()}, s)));
  }
}

// A contiguous image whose base is 4 bytes past a 16-byte boundary (the tile kernel), a strided view
// (copied to a contiguous image first), and the legacy stream kept out.
TEST(GpuEdgesRows, MisalignedBaseViewsAndStreams) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Shape shape{70, 264};
  const Array h1 = cusktest::random_array({shape[0] * shape[1] + 1}, DType::float32, 5600, -1, 1);
  const Array d1 = h1.to(Device::cuda(), s);
  const Array h = h1.as_strided(shape, {shape[1], 1}, 1);
  const Array d = d1.as_strided(shape, {shape[1], 1}, 1);
  ASSERT_TRUE(d.is_contiguous());
  EXPECT_TRUE(close(filters::sobel(h), filters::sobel(d, {}, s)));
  EXPECT_TRUE(close(filters::farid(h, {.mode = Mode::mirror}), filters::farid(d, {.mode = Mode::mirror}, s)));
  EXPECT_TRUE(close(filters::sobel(h.copy()), filters::sobel(d.copy(s), {}, s)));
  const Array hv = h.slice({Slice{2, 69, 2}, Slice{4, 260}});
  const Array dv = d.slice({Slice{2, 69, 2}, Slice{4, 260}});
  EXPECT_TRUE(close(filters::sobel(hv), filters::sobel(dv, {}, s)));
  EXPECT_TRUE(close(filters::scharr(hv, {.mode = Mode::constant, .cval = -0.5}),
                    filters::scharr(dv, {.mode = Mode::constant, .cval = -0.5}, s)));
  s.synchronize();
  const Array big = cusktest::random_array({1024, 1024}, DType::float32, 5601, -1, 1).to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& st) {
    Array a = filters::sobel(big, {}, st);
    Array b = filters::farid(big, {.mode = Mode::nearest}, st);
    Array c = filters::sobel(big.astype(DType::float64, st), {}, st);
    st.synchronize();
  }));
}
