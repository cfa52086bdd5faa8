// CPU tier of the ndimage tests: every function and every mode against scipy.ndimage golden data
// (exact for integer outputs, 1e-5 / 1e-12 relative for float32 / float64), tiny axes under wide
// windows, 3-D, origins, strided views, _into, degenerate shapes and bad arguments.
#include <gtest/gtest.h>

#include "tests/ndimage/ndimage_test_common.hpp"

using namespace ndtest;
using cuskimage::InvalidArgument;
using cuskimage::Slice;

TEST(NdimageMode, ParsesNamesAndAliases) {
  EXPECT_EQ(nd::mode_from_name("reflect"), Mode::reflect);
  EXPECT_EQ(nd::mode_from_name("grid-mirror"), Mode::reflect);
  EXPECT_EQ(nd::mode_from_name("mirror"), Mode::mirror);
  EXPECT_EQ(nd::mode_from_name("nearest"), Mode::nearest);
  EXPECT_EQ(nd::mode_from_name("wrap"), Mode::wrap);
  EXPECT_EQ(nd::mode_from_name("grid-wrap"), Mode::wrap);
  EXPECT_EQ(nd::mode_from_name("constant"), Mode::constant);
  EXPECT_EQ(nd::mode_from_name("grid-constant"), Mode::constant);
  EXPECT_THROW(nd::mode_from_name("bogus"), InvalidArgument);
  for (const auto& n : kModeNames) EXPECT_EQ(nd::mode_name(nd::mode_from_name(n)), n);
}

TEST(NdimageGolden, EveryFunctionModeAndDtype) {
  int checked = 0;
  for (const Case& c : cases()) {
    std::vector<std::string> dts = kDtypes;
    if (c.rank) dts.push_back("bool");
    for (const auto& dt : dts) {
      const Array in = golden("in" + std::to_string(c.ndim) + "_" + dt);
      for (const auto& m : kModeNames) {
        const std::string name = c.name + "_" + m + "_" + dt;
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(golden(name), c.run(in, nd::mode_from_name(m), cval_for(in.dtype()), {})));
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 400);
  // Negative control: the modes really differ on this data, so the comparisons above mean something.
  EXPECT_FALSE(matches(golden("c2d_reflect_uint8"), golden("c2d_mirror_uint8")));
  EXPECT_FALSE(matches(golden("u2d_wrap_float32"), golden("u2d_nearest_float32")));
}

TEST(NdimageGolden, TinyAxesWideWindows) {
  for (const auto& shape : kSmallShapes)
    for (const std::string dt : {"uint8", "float64"}) {
      const Array in = golden("in_small" + shape + "_" + dt);
      for (const Case& c : small_cases())
        for (const auto& m : kModeNames) {
          const std::string name = c.name + "_small" + shape + "_" + m + "_" + dt;
          SCOPED_TRACE(name);
          EXPECT_TRUE(matches(golden(name), c.run(in, nd::mode_from_name(m), cval_for(in.dtype()), {})));
        }
    }
}

TEST(NdimageGolden, FractionalCvalOnIntegers) {
  const Array in = golden("in2_uint8");
  EXPECT_ARRAY_EQ(golden("cval_c2d_uint8"), nd::correlate(in, golden("w_w2d"), {.mode = Mode::constant, .cval = 3.7}));
  EXPECT_ARRAY_EQ(golden("cval_u1d_uint8"), nd::uniform_filter1d(in, 5, {.mode = Mode::constant, .cval = 100.6}));
  EXPECT_ARRAY_EQ(golden("cval_max1d_uint8"), nd::maximum_filter1d(in, 3, {.mode = Mode::constant, .cval = 300.5}));
}

TEST(NdimageGolden, FourD) {
  const Array in = golden("in4_float64");
  EXPECT_TRUE(matches(golden("c4d_mirror_float64"),
                      nd::correlate(in, golden("w_w4d"), {.mode = Mode::mirror, .origin = {0, 1, 0, -1}})));
  EXPECT_TRUE(matches(golden("min4d_wrap_float64"), nd::minimum_filter(in, {.size = {2, 3, 1, 4}, .mode = Mode::wrap})));
}

TEST(NdimageViews, StridedInputAndInto) {
  const Array big = cusktest::random_array({40, 50}, DType::float32, 11, -5, 5);
  const Array view = big.slice({Slice{1, 39, 2}, Slice{3, 48, 3}});
  const Array dense = view.copy();
  const Array w = golden("w_w2d");
  EXPECT_ARRAY_EQ(nd::correlate(dense, w), nd::correlate(view, w));
  EXPECT_ARRAY_EQ(nd::uniform_filter(dense, {.size = {4, 3}}), nd::uniform_filter(view, {.size = {4, 3}}));
  EXPECT_ARRAY_EQ(nd::maximum_filter(dense, {.size = {3}}), nd::maximum_filter(view, {.size = {3}}));
  EXPECT_ARRAY_EQ(nd::minimum_filter(dense, {.footprint = golden("w_fp2")}),
                  nd::minimum_filter(view, {.footprint = golden("w_fp2")}));
  // _into a strided output.
  Array host = Array::zeros({dense.shape(0), dense.shape(1) * 2}, DType::float32);
  Array out = host.slice({Slice{}, Slice{0, std::nullopt, 2}});
  nd::correlate_into(view, w, out);
  EXPECT_ARRAY_EQ(nd::correlate(dense, w), out);
  nd::correlate1d_into(view, golden("w_w5"), out, {.axis = 0});
  EXPECT_ARRAY_EQ(nd::correlate1d(dense, golden("w_w5"), {.axis = 0}), out);
  // A transposed (non-C-order) view.
  const Array t = dense.transpose({1, 0});
  EXPECT_ARRAY_EQ(nd::uniform_filter1d(t.copy(), 5, {.axis = 0}), nd::uniform_filter1d(t, 5, {.axis = 0}));
}

TEST(NdimageShapes, DegenerateAndOneD) {
  const Array empty = Array::zeros({0, 5}, DType::float32);
  EXPECT_EQ(nd::uniform_filter(empty).shape(), empty.shape());
  EXPECT_EQ(nd::correlate(empty, golden("w_w2d")).shape(), empty.shape());
  EXPECT_EQ(nd::maximum_filter(empty, {.size = {3}}).shape(), empty.shape());
  // 1-D input: correlate equals correlate1d; size-1 filters copy the input.
  const Array a = cusktest::random_array({31}, DType::uint8, 3);
  EXPECT_ARRAY_EQ(nd::correlate1d(a, golden("w_w5")), nd::correlate(a, golden("w_w5")));
  EXPECT_ARRAY_EQ(a, nd::uniform_filter(a, {.size = {1}}));
  EXPECT_ARRAY_EQ(a, nd::minimum_filter(a, {.size = {1}}));
  EXPECT_ARRAY_EQ(a, nd::maximum_filter1d(a, 1));
  // Size-1 axes are skipped whatever their origin, as scipy.
  const Array a2 = cusktest::random_array({6, 7}, DType::uint16, 4);
  EXPECT_ARRAY_EQ(nd::uniform_filter1d(a2, 3, {.axis = 1}), nd::uniform_filter(a2, {.size = {1, 3}, .origin = {5, 0}}));
  // An all-true footprint takes the separable path and equals size.
  const Array fp = Array::full({3, 4}, 1, DType::bool_);
  const Array b = cusktest::random_array({9, 13}, DType::int32, 5);
  EXPECT_ARRAY_EQ(nd::maximum_filter(b, {.size = {3, 4}}), nd::maximum_filter(b, {.footprint = fp.share()}));
  // Separable min/max vs the footprint path on a rectangle with one hole filled back in.
  const Array big = cusktest::random_array({17, 16, 5}, DType::float32, 8);
  const Array fp3 = Array::full({3, 3, 3}, 1, DType::uint8);
  EXPECT_ARRAY_EQ(nd::minimum_filter(big, {.size = {3}}), nd::minimum_filter(big, {.footprint = fp3.share()}));
}

TEST(NdimageErrors, BadArguments) {
  const Array a = cusktest::random_array({8, 9}, DType::float32, 1);
  const Array w1 = golden("w_w5"), w2 = golden("w_w2d");
  EXPECT_THROW(nd::correlate(a, w1), InvalidArgument);       // weights ndim mismatch
  EXPECT_THROW(nd::correlate1d(a, w2), InvalidArgument);     // 2-D weights for 1-D filter
  EXPECT_THROW(nd::correlate1d(a, w1, {.axis = 2}), InvalidArgument);
  EXPECT_THROW(nd::correlate1d(a, w1, {.origin = 3}), InvalidArgument);
  EXPECT_THROW(nd::correlate(a, w2, {.origin = {0, 3}}), InvalidArgument);
  EXPECT_THROW(nd::correlate(a, w2, {.origin = {0, 0, 0}}), InvalidArgument);
  EXPECT_THROW(nd::uniform_filter1d(a, 0), InvalidArgument);  // size < 1
  EXPECT_THROW(nd::uniform_filter(a, {.size = {3, 0}}), InvalidArgument);
  EXPECT_THROW(nd::maximum_filter(a, {.size = {-1}}), InvalidArgument);
  EXPECT_THROW(nd::maximum_filter(a), InvalidArgument);  // neither size nor footprint
  EXPECT_THROW(nd::minimum_filter(a, {.footprint = Array::zeros({3, 3}, DType::bool_)}), InvalidArgument);
  EXPECT_THROW(nd::minimum_filter(a, {.footprint = Array::full({3}, 1, DType::bool_)}), InvalidArgument);
  EXPECT_THROW(nd::uniform_filter(a, {.mode = static_cast<Mode>(9)}), InvalidArgument);
  EXPECT_THROW(nd::correlate(Array::zeros({4, 4}, DType::int8), w2), InvalidArgument);
  EXPECT_THROW(nd::uniform_filter(Array::zeros({4, 4}, DType::bool_)), InvalidArgument);
  EXPECT_THROW(nd::correlate(Array(), w2), InvalidArgument);
  Array wrong = Array::zeros({8, 8}, DType::float32);
  EXPECT_THROW(nd::correlate_into(a, w2, wrong), InvalidArgument);
  Array wrong_dt = Array::zeros({8, 9}, DType::float64);
  EXPECT_THROW(nd::correlate1d_into(a, w1, wrong_dt), InvalidArgument);
}
