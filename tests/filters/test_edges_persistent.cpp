// The 2-D edge stencil's persistent, double-buffered blocks (kernels/filters/edges.cu,
// stencil2d_kernel): images with several times more 32 x 64 tiles than resident blocks, so every
// block walks through several tiles and refills both shared buffers (interior tiles by cp.async, the
// border ring by mapped loads), against the CPU backend: 16-byte and 4-byte copy paths (widths that
// are / are not multiples of the vector), 3x3 and 5x5 windows, one and two windows (separable or
// not), modes, a mask.
#include <gtest/gtest.h>

#include <string>

#include "cuskimage/filters.hpp"
#include "cuskimage/stream.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
using ndimage::Mode;

// Inputs in [-1, 1): float32 sums agree with scipy's double sums within ~1e-6 per unit of weight.
::testing::AssertionResult close(const Array& e, const Array& g) {
  return cusktest::arrays_close(e, g, 0, e.dtype() == DType::float32 ? 8e-5 : 8e-12);
}

TEST(GpuEdgesPersistent, ManyTilesPerBlockMatchCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 4100;
  // 1500 x 2100: 66 x 24 = 1584 tiles (an H200 holds ~528 blocks); 1301 x 2083: odd width.
  for (const auto& [dt, shape] : {std::pair{DType::float32, Shape{1500, 2100}}, std::pair{DType::float32, Shape{1301, 2083}},
                                  std::pair{DType::float64, Shape{1300, 2100}}}) {
    const Array h = cusktest::random_array(shape, dt, seed++, -1, 1);
    const Array d = h.to(Device::cuda(), s);
    SCOPED_TRACE(std::string(dtype_name(dt)) + " " + shape_str(shape));
    for (const auto& [mode, cval] : {std::pair{Mode::reflect, 0.0}, std::pair{Mode::constant, 0.3}, std::pair{Mode::wrap, 0.0}}) {
      const filters::EdgeOptions o{.mode = mode, .cval = cval};
      EXPECT_TRUE(close(filters::sobel(h, o), filters::sobel(d, o, s))) << ndimage::mode_name(mode);
      EXPECT_TRUE(close(filters::farid(h, o), filters::farid(d, o, s))) << ndimage::mode_name(mode);
    }
    // Separable magnitudes (rank-1 windows, prewitt's 1/3 inexact in binary), a dense one (roberts),
    // single windows.
    EXPECT_TRUE(close(filters::scharr(h), filters::scharr(d, {}, s)));
    EXPECT_TRUE(close(filters::prewitt(h), filters::prewitt(d, {}, s)));
    EXPECT_TRUE(close(filters::sobel_h(h), filters::sobel_h(d, {}, s)));
    EXPECT_TRUE(close(filters::laplace(h), filters::laplace(d, {}, s)));
    EXPECT_TRUE(close(filters::roberts(h), filters::roberts(d, {}, s)));
    const Array hm = cusktest::random_array(shape, DType::bool_, seed++);
    const Array dm = hm.to(Device::cuda(), s);
    EXPECT_TRUE(close(filters::sobel(h, {.mask = hm.share()}), filters::sobel(d, {.mask = dm.share()}, s)));
  }
}

}  // namespace
