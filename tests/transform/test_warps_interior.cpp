// The CUDA tile kernel's interior path (src/transform/warps_pixel.hpp: floor_small, interior_sample,
// interior_value) against the generic interpolators it replaces where every tap lies inside the
// image: the same bits for random, integer, edge and just-below-integer coordinates, float32 and
// float64. These are the functions the kernel runs (CUSK_HD); the GPU tier checks the kernel itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "src/transform/warps_pixel.hpp"

namespace {

namespace td = cuskimage::transform::detail;

template <class F>
bool same_bits(F a, F b) {
  return std::memcmp(&a, &b, sizeof(F)) == 0;
}

template <class F>
std::vector<F> coordinates(int n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-2.0, static_cast<double>(n) + 2.0);
  std::vector<F> v;
  for (int i = 0; i < 4000; ++i) v.push_back(static_cast<F>(u(rng)));
  for (int i = -2; i <= n + 2; ++i) {
    const F f = static_cast<F>(i);
    v.push_back(f);
    v.push_back(std::nextafter(f, F(-1e9)));
    v.push_back(std::nextafter(f, F(1e9)));
    v.push_back(f + F(0.5));
  }
  v.push_back(F(-0.0));
  v.push_back(std::numeric_limits<F>::denorm_min());
  v.push_back(std::numeric_limits<F>::quiet_NaN());
  return v;
}

template <class F>
void check_floor_small() {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 4194303.0);
  std::vector<F> xs = {F(0), F(-0.0), F(0.5), F(1.5), F(2.5), F(4194302.5), std::nextafter(F(1), F(0)),
                       std::numeric_limits<F>::denorm_min(), F(4194303)};
  for (int i = 0; i < 20000; ++i) xs.push_back(static_cast<F>(i % 2 ? u(rng) : u(rng) / 4096.0));
  for (const F x : xs) {
    F fl;
    const int i = td::floor_small(x, fl);
    ASSERT_EQ(i, static_cast<int>(std::floor(x))) << x;
    ASSERT_EQ(fl, std::floor(x)) << x;
  }
}

TEST(TransformWarpInterior, FloorSmallIsFloor) {
  check_floor_small<float>();
  check_floor_small<double>();
}

template <class F, int Order>
void check_interior(int rows, int cols, int min_interior) {
  std::mt19937_64 rng(static_cast<unsigned>(rows * 131 + cols + Order));
  std::uniform_real_distribution<double> val(-3.0, 5.0);
  std::vector<F> img(static_cast<std::size_t>(rows) * cols);
  for (auto& v : img) v = static_cast<F>(val(rng));
  img[3] = F(0);  // zeros and a repeated value among the taps
  img[4] = F(0);
  const std::vector<F> ys = coordinates<F>(rows, rng), xs = coordinates<F>(cols, rng);
  std::uniform_int_distribution<std::size_t> pick(0, xs.size() - 1), pick_y(0, ys.size() - 1);
  int interior = 0;
  for (int t = 0; t < 60000; ++t) {
    const F x = xs[pick(rng)], y = ys[pick_y(rng)];
    // Order 1 interior: 0 <= x <= cols - 1; order 3: 1 <= x < cols - 2 (same for y).
    const bool want = Order == 1 ? (x >= 0 && x <= F(cols - 1) && y >= 0 && y <= F(rows - 1))
                                 : (x >= 1 && x < F(cols - 2) && y >= 1 && y < F(rows - 2));
    ASSERT_EQ(want, td::interior_sample<Order>(x, y, rows, cols)) << x << " " << y;
    if (!want) continue;
    ++interior;
    for (char mode : {'C', 'E', 'S', 'R', 'W'}) {
      td::FastWarp<F> p;
      p.order = Order;
      p.mode = mode;
      p.cval = F(0.25);
      const F generic = td::warp_fast_value<F, int, Order>(img.data(), rows, cols, p, x, y);
      const F fast = td::interior_value<Order>(img.data(), cols, x, y);
      ASSERT_TRUE(same_bits(generic, fast)) << "order " << Order << " mode " << mode << " at (" << y << ", " << x
                                            << "): " << generic << " vs " << fast;
    }
  }
  EXPECT_GE(interior, min_interior);
}

TEST(TransformWarpInterior, BilinearEqualsGeneric) {
  check_interior<float, 1>(37, 53, 30000);
  check_interior<double, 1>(37, 53, 30000);
  check_interior<float, 1>(2, 3, 1000);
  check_interior<float, 1>(1, 9, 10);
}

TEST(TransformWarpInterior, BicubicEqualsGeneric) {
  check_interior<float, 3>(37, 53, 30000);
  check_interior<double, 3>(37, 53, 30000);
  check_interior<float, 3>(5, 4, 1000);
}

}  // namespace
