// active_contour against scikit-image 0.26's goldens (tests/golden/cases_segmentation_levelsets.py):
// closed and open snakes, every boundary-condition family, RGB, line and edge forces, a snake
// partly outside the image (the spline's clamped queries). The spline coefficients and the matrix
// inverse are computed with other eliminations than FITPACK's / LAPACK's (see the header), so the
// snake is compared within 1e-6 px (float64; measured ~5e-11) and 1e-4 px (float32 images, measured
// 1.3e-5: scikit-image rounds each
// step to float32, this evolves in float64). CPU only; a device input is evolved on the host.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/segmentation.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
namespace seg = cuskimage::segmentation;
using seg::SnakeBoundary;

Array golden(const std::string& name) { return cusktest::load_golden("segmentation_levelsets/" + name + ".npy"); }

struct Case {
  std::string key, image, init;
  seg::ActiveContourOptions o;
};

std::vector<Case> cases() {
  const seg::ActiveContourOptions valley{.alpha = 0.1, .beta = 1.0, .w_line = -5, .w_edge = 0, .gamma = 0.1};
  auto with = [](seg::ActiveContourOptions o, SnakeBoundary b, int iters) {
    o.boundary_condition = b;
    o.max_num_iter = iters;
    return o;
  };
  return {{"circle", "snake_img", "snake_init", {.alpha = 0.015, .beta = 10, .gamma = 0.001}},
          {"circle_line", "snake_img", "snake_init", {.w_line = 0.5, .w_edge = 0.5, .max_num_iter = 200}},
          {"circle_f32",
           "snake_img_f32",
           "snake_init",
           {.alpha = 0.015, .beta = 10, .gamma = 0.001, .max_num_iter = 300}},
          {"rgb", "snake_rgb", "rgb_init", {.alpha = 0.02, .beta = 5, .gamma = 0.01, .max_num_iter = 400}},
          {"fixed", "valley", "line_init", with(valley, SnakeBoundary::fixed, 2500)},
          {"free", "valley", "line_init", with(valley, SnakeBoundary::free, 300)},
          {"free_fixed", "valley", "line_init", with(valley, SnakeBoundary::free_fixed, 300)},
          {"fixed_free", "valley", "line_init", with(valley, SnakeBoundary::fixed_free, 300)},
          {"escape", "snake_img", "wide_init", {.max_px_move = 0.5, .max_num_iter = 150}}};
}

TEST(ActiveContour, Goldens) {
  for (const auto& c : cases()) {
    SCOPED_TRACE(c.key);
    const Array got = seg::active_contour(golden(c.image), golden(c.init), c.o);
    const Array want = golden("ac_" + c.key);
    ASSERT_EQ(got.dtype(), want.dtype());
    const double tol = want.dtype() == DType::float32 ? 1e-4 : 1e-6;
    EXPECT_ARRAY_NEAR(want, got, 0.0, tol);
  }
}

TEST(ActiveContour, BadInput) {
  using cuskimage::InvalidArgument;
  const Array img = golden("snake_img"), init = golden("snake_init");
  EXPECT_THROW(seg::active_contour(img, init, {.max_num_iter = 0}), InvalidArgument);
  EXPECT_THROW(seg::active_contour(img, Array::zeros({5, 3}, DType::float64)), InvalidArgument);
  EXPECT_THROW(seg::active_contour(Array::zeros({2, 8}, DType::float64), init), InvalidArgument);
  EXPECT_THROW(seg::active_contour(Array::zeros({4, 8, 8, 3}, DType::float64), init), InvalidArgument);
  EXPECT_THROW(
      seg::active_contour(img, Array::zeros({3, 2}, DType::float64), {.boundary_condition = SnakeBoundary::free}),
      InvalidArgument);
}

TEST(ActiveContour, Cli) {
  const std::string out = cusktest::temp_path("ac.npy");
  const auto r = cuskclitest::run_cli_cpu({"segmentation.active_contour",
                                           cusktest::golden_path("segmentation_levelsets/valley.npy"),
                                           cusktest::golden_path("segmentation_levelsets/line_init.npy"), out,
                                           "--boundary_condition", "free-fixed", "--alpha", "0.1", "--beta", "1",
                                           "--w_line", "-5", "--w_edge", "0", "--gamma", "0.1", "--max_num_iter",
                                           "300"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_ARRAY_NEAR(golden("ac_free_fixed"), cuskimage::io::imread(out), 0.0, 1e-6);
}

TEST(GpuActiveContour, DeviceInputsGiveTheHostResult) {
  CUSK_REQUIRE_GPU();
  const Array img = golden("snake_img"), init = golden("snake_init");
  const seg::ActiveContourOptions o{.alpha = 0.015, .beta = 10, .gamma = 0.001};
  const Array got = seg::active_contour(img.to(Device::cuda()), init.to(Device::cuda()), o);
  EXPECT_TRUE(got.device().is_cuda());
  // The device sobel agrees with the host's within 2e-6 * max|image|: the snake within 1e-4 px.
  EXPECT_ARRAY_NEAR(seg::active_contour(img, init, o), got.to(Device::cpu()), 0.0, 1e-4);
}

}  // namespace
