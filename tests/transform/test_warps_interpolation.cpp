// scikit-image's interpolation functions (src/transform/interpolation.hpp) against scikit-image's
// _warp_fast (tests/golden/cases_transform_warps.py): orders 0..3, every mode, metric / affine /
// projective matrices, float32 (coordinates and blends in float, as its Cython) and float64.
// The per-pixel loop here is _warp_fast's own; results must be equal bit for bit.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "src/transform/interpolation.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::DType;
namespace td = cuskimage::transform::detail;

Array golden(const std::string& name) { return cusktest::load_golden("transform_warps/" + name + ".npy"); }

// _warp_fast's loop: the transform kind chosen from the matrix, coordinates in F.
template <class F>
Array warp_fast_reference(const Array& img, const Array& mat, int order, char mode, F cval) {
  const std::int64_t rows = img.shape(0), cols = img.shape(1);
  std::vector<F> m(9);
  for (int i = 0; i < 9; ++i) m[i] = static_cast<F>(mat.data<double>()[i]);
  Array out = Array::zeros({24, 28}, img.dtype());
  const bool affine = m[6] == F(0) && m[7] == F(0) && m[8] == F(1);
  const bool metric = affine && m[1] == F(0) && m[3] == F(0);
  for (std::int64_t r = 0; r < 24; ++r)
    for (std::int64_t c = 0; c < 28; ++c) {
      const F x = static_cast<F>(c), y = static_cast<F>(r);
      F xs, ys;
      if (metric) {
        xs = m[0] * x + m[2];
        ys = m[4] * y + m[5];
      } else if (affine) {
        xs = m[0] * x + m[1] * y + m[2];
        ys = m[3] * x + m[4] * y + m[5];
      } else {
        const F z = m[6] * x + m[7] * y + m[8];
        xs = (m[0] * x + m[1] * y + m[2]) / z;
        ys = (m[3] * x + m[4] * y + m[5]) / z;
      }
      out.data<F>()[r * 28 + c] =
          static_cast<F>(td::interpolate_t<F, F>(order, img.data<F>(), rows, cols, ys, xs, mode, cval));
    }
  return out;
}

TEST(TransformInterpolation, MatchesWarpFast) {
  const std::vector<std::pair<std::string, char>> modes = {
      {"constant", 'C'}, {"edge", 'E'}, {"symmetric", 'S'}, {"reflect", 'R'}, {"wrap", 'W'}};
  for (const std::string h : {"metric", "affine", "proj"}) {
    const Array mat = golden("mat_" + h);
    for (int order = 0; order <= 3; ++order)
      for (const auto& [name, code] : modes) {
        SCOPED_TRACE(h + " order " + std::to_string(order) + " " + name);
        EXPECT_ARRAY_EQ(golden("fast_f64_" + h + "_o" + std::to_string(order) + "_" + name),
                        warp_fast_reference<double>(golden("in_fast_f64"), mat, order, code, 0.25));
        EXPECT_ARRAY_EQ(golden("fast_f32_" + h + "_o" + std::to_string(order) + "_" + name),
                        warp_fast_reference<float>(golden("in_fast_f32"), mat, order, code, 0.25f));
      }
  }
}

TEST(TransformInterpolation, CoordMapFollowsNumpyPad) {
  // numpy.pad of [1, 2, 3, 4] by 4 on each side (interpolation.pxd's table).
  const std::vector<std::pair<char, std::vector<int>>> table = {
      {'W', {1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}},
      {'S', {4, 3, 2, 1, 1, 2, 3, 4, 4, 3, 2, 1}},
      {'E', {1, 1, 1, 1, 1, 2, 3, 4, 4, 4, 4, 4}},
      {'R', {3, 4, 3, 2, 1, 2, 3, 4, 3, 2, 1, 2}}};
  for (const auto& [mode, expect] : table)
    for (int i = 0; i < 12; ++i) EXPECT_EQ(td::coord_map(4, i - 4, mode) + 1, expect[i]) << mode << " " << i;
  const double img[4] = {1, 2, 3, 4};
  EXPECT_EQ(td::bilinear_interpolation(img, 1, 4, 0.0, -0.5, 'C', 9.0), 5.0);
  EXPECT_EQ(td::nearest_neighbour_interpolation(img, 1, 4, 0.0, 2.5, 'C', 9.0), 4.0);
  EXPECT_EQ(td::bicubic_interpolation(img, 1, 4, 0.0, 1.0, 'E', 0.0), 2.0);
}

}  // namespace
