// invert, crop, montage, views, map_array, compare_images and the extras against scikit-image 0.26
// golden outputs, plus bad-input tests, on the CPU backend.
#include <cmath>
#include <numeric>

#include "tests/util/util_test_common.hpp"

namespace util = cuskimage::util;
using namespace utiltest;
using cuskimage::InvalidArgument;

namespace {
const std::vector<std::string> kDtypes = {"bool",   "uint8",  "int8",  "uint16",  "int16",  "uint32",
                                          "int32",  "uint64", "int64", "float32", "float64"};
}

// ---- invert ----------------------------------------------------------------------------------------
TEST(UtilInvert, GoldenEveryDtype) {
  for (const auto& dt : kDtypes) {
    SCOPED_TRACE(dt);
    const Array in = golden("in_inv_" + dt);
    EXPECT_ARRAY_EQ(golden("invert_" + dt), util::invert(in));
    EXPECT_ARRAY_EQ(golden("invert_" + dt), util::invert(strided_twin(in)));
    if (dt == "float32" || dt == "float64")
      EXPECT_ARRAY_EQ(golden("invert_signed_" + dt), util::invert(in, {.signed_float = true}));
  }
}

TEST(UtilInvert, GoldenRealImages) {
  EXPECT_ARRAY_EQ(golden("invert_camera"), util::invert(golden("in_camera")));
  EXPECT_ARRAY_EQ(golden("invert_astronaut"), util::invert(golden("in_astronaut")));
}

TEST(UtilInvert, IntoAndBadArguments) {
  const Array a = cusktest::random_array({3, 4, 5}, DType::uint16, 2);
  Array out = Array::empty({3, 4, 5}, DType::uint16);
  util::invert_into(a, out);
  EXPECT_ARRAY_EQ(util::invert(a), out);
  Array wrong_dtype = Array::empty({3, 4, 5}, DType::uint8);
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { util::invert_into(a, wrong_dtype); }, {"util.invert", "'out'"}));
  Array wrong_shape = Array::empty({3, 4}, DType::uint16);
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { util::invert_into(a, wrong_shape); }, {"util.invert", "'out'"}));
  EXPECT_THROW((void)util::invert(Array()), InvalidArgument);
  EXPECT_EQ(util::invert(Array::empty({0, 3}, DType::uint8)).shape(), (Shape{0, 3}));
}

// ---- crop ------------------------------------------------------------------------------------------
TEST(UtilCrop, Golden) {
  const Array ast = golden("in_astronaut");
  EXPECT_ARRAY_EQ(golden("crop_int"), util::crop(ast, 5));
  EXPECT_ARRAY_EQ(golden("crop_pair"), util::crop(ast, {3, 7}));
  EXPECT_ARRAY_EQ(golden("crop_per_axis"), util::crop(ast, {{{1, 2}, {10, 0}, {0, 1}}}));
  EXPECT_ARRAY_EQ(golden("crop_one_pair_list"), util::crop(ast, {{{4, 6}}}));
  const Array coins = golden("in_coins");
  EXPECT_ARRAY_EQ(golden("crop_all"), util::crop(coins, {{{38, 38}, {0, 0}}}));
  EXPECT_ARRAY_EQ(golden("crop_rows"), util::crop(coins, {{{10, 20}, {0, 0}}}));
}

TEST(UtilCrop, ViewUnlessCopyAndOrder) {
  const Array ast = golden("in_astronaut");
  const Array v = util::crop(ast, {{{5, 5}, {5, 5}, {0, 0}}});
  EXPECT_FALSE(v.is_contiguous());
  EXPECT_EQ(static_cast<const unsigned char*>(v.data()),
            static_cast<const unsigned char*>(ast.data()) + 5 * ast.strides()[0] + 5 * ast.strides()[1]);
  const Array f = util::crop(ast, {{{2, 2}, {3, 3}, {0, 0}}}, {.copy = true, .order = 'F'});
  EXPECT_ARRAY_EQ(golden("crop_copy_F"), f);
  EXPECT_EQ(f.strides()[0], 1);  // Fortran order
  const Array c = util::crop(ast, 1, {.copy = true});
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_NE(c.data(), ast.data());
  // 'K' keeps the input's (here Fortran) memory order.
  const Array k = util::crop(f, 1, {.copy = true, .order = 'K'});
  EXPECT_EQ(k.strides()[0], 1);
  EXPECT_ARRAY_EQ(util::crop(f, 1), k);
}

TEST(UtilCrop, ThreeDAndBadArguments) {
  const Array vol = cusktest::random_array({6, 7, 8}, DType::float32, 5);
  const Array c = util::crop(vol, {{{1, 2}, {0, 3}, {4, 4}}});
  EXPECT_EQ(c.shape(), (Shape{3, 4, 0}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::crop(vol, -1); }, {"util.crop", "'crop_width'"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::crop(vol, {{{1, 1}, {1, 1}}}); },
                                           {"util.crop", "'crop_width'"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::crop(vol, 1, {.copy = true, .order = 'X'}); },
                                           {"util.crop", "'order'"}));
}

// ---- montage ---------------------------------------------------------------------------------------
TEST(UtilMontage, GoldenGray) {
  const Array stack = golden("in_montage_gray");
  EXPECT_ARRAY_EQ(golden("montage_gray_mean"), util::montage(stack));
  EXPECT_ARRAY_EQ(golden("montage_gray_fill_grid_pad"),
                  util::montage(stack, {.fill = {7}, .grid_shape = std::array<std::int64_t, 2>{2, 3}, .padding_width = 2}));
  EXPECT_ARRAY_EQ(golden("montage_gray_rescale"), util::montage(stack, {.rescale_intensity = true}));
  const Array i16 = golden("in_montage_i16");
  EXPECT_ARRAY_EQ(golden("montage_i16_rescale"), util::montage(i16, {.rescale_intensity = true}));
}

TEST(UtilMontage, GoldenFloat32) {
  const Array f32 = golden("in_montage_f32");
  // The fill ('mean') is accumulated in float64 here, float32 in NumPy: last-bit differences in
  // the fill only; the rescaled tiles are exact (checked with an explicit fill below).
  EXPECT_ARRAY_NEAR(golden("montage_f32_rescale"), util::montage(f32, {.rescale_intensity = true, .padding_width = 1}),
                    1e-6, 1e-7);
  const Array gold = golden("montage_f32_rescale");
  const float fill = gold.at<float>({0, 0});
  EXPECT_ARRAY_EQ(gold, util::montage(f32, {.fill = {fill}, .rescale_intensity = true, .padding_width = 1}));
  EXPECT_ARRAY_NEAR(golden("montage_f32_mean"), util::montage(f32), 1e-6, 1e-7);
}

TEST(UtilMontage, GoldenColour) {
  const Array rgb = golden("in_montage_rgb");
  EXPECT_ARRAY_EQ(golden("montage_rgb"), util::montage(rgb, {.channel_axis = -1}));
  EXPECT_ARRAY_EQ(golden("montage_rgb_fill"),
                  util::montage(rgb, {.fill = {1, 2, 3}, .grid_shape = std::array<std::int64_t, 2>{1, 3},
                                      .padding_width = 3, .channel_axis = 3}));
  EXPECT_ARRAY_EQ(golden("montage_rgb_c1"), util::montage(golden("in_montage_rgb_c1"), {.channel_axis = 1}));
  EXPECT_ARRAY_EQ(golden("montage_rgb"), util::montage(strided_twin(rgb), {.channel_axis = -1}));
}

TEST(UtilMontage, BadArguments) {
  const Array stack = golden("in_montage_gray");
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::montage(stack.index(0, 0)); },
                                           {"util.montage", "'arr_in'", "3-D"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::montage(stack, {.channel_axis = -1}); },
                                           {"util.montage", "'arr_in'"}));
  EXPECT_TRUE(throws_with<InvalidArgument>(
      [&] { (void)util::montage(stack, {.grid_shape = std::array<std::int64_t, 2>{2, 2}}); },
      {"util.montage", "'grid_shape'"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::montage(stack, {.padding_width = -1}); },
                                           {"util.montage", "'padding_width'"}));
  EXPECT_TRUE(throws_with<InvalidArgument>(
      [&] { (void)util::montage(golden("in_montage_rgb"), {.fill = {1, 2}, .channel_axis = -1}); },
      {"util.montage", "'fill'"}));
}

// ---- views -----------------------------------------------------------------------------------------
TEST(UtilViews, GoldenBlocksAndWindows) {
  const Array a = golden("in_views");
  const Array b = util::view_as_blocks(a, {2, 3, 5});
  EXPECT_EQ(b.data(), a.data());  // a view
  EXPECT_ARRAY_EQ(golden("blocks_2_3_5"), b);
  EXPECT_ARRAY_EQ(golden("blocks_1_2_1"), util::view_as_blocks(a, {1, 2, 1}));
  const Array w = util::view_as_windows(a, {3});
  EXPECT_EQ(w.data(), a.data());
  EXPECT_ARRAY_EQ(golden("windows_3"), w);
  EXPECT_ARRAY_EQ(golden("windows_2_3_2_step"), util::view_as_windows(a, {2, 3, 2}, {.step = {2, 1, 3}}));
  const Array cam = golden("in_camera");
  EXPECT_ARRAY_EQ(golden("windows_camera"), util::view_as_windows(cam, {8, 8}, {.step = {16}}));
  EXPECT_ARRAY_EQ(golden("blocks_camera"), util::view_as_blocks(cam, {32, 16}));
  // Views of a strided view.
  EXPECT_ARRAY_EQ(golden("blocks_2_3_5"), util::view_as_blocks(strided_twin(a), {2, 3, 5}));
  EXPECT_ARRAY_EQ(golden("windows_3"), util::view_as_windows(strided_twin(a), {3}));
}

TEST(UtilViews, BadArguments) {
  const Array a = golden("in_views");  // (4, 6, 5)
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::view_as_blocks(a, {2, 3}); },
                                           {"util.view_as_blocks", "'block_shape'"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::view_as_blocks(a, {2, 4, 5}); },
                                           {"util.view_as_blocks", "'block_shape'", "not compatible"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::view_as_blocks(a, {2, -3, 5}); },
                                           {"util.view_as_blocks", "strictly positive"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::view_as_windows(a, {5, 1, 1}); },
                                           {"util.view_as_windows", "'window_shape'", "too large"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::view_as_windows(a, {0}); },
                                           {"util.view_as_windows", "too small"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::view_as_windows(a, {1, 1}); },
                                           {"util.view_as_windows", "'window_shape'"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::view_as_windows(a, {1}, {.step = {0}}); },
                                           {"util.view_as_windows", "'step'"}));
}

// ---- map_array -------------------------------------------------------------------------------------
TEST(UtilMapArray, Golden) {
  const Array labels = golden("in_map_labels");
  const Array vals = golden("in_map_vals");
  EXPECT_ARRAY_EQ(golden("map_labels_f"), util::map_array(labels, vals, golden("in_map_out_f")));
  EXPECT_ARRAY_EQ(golden("map_labels_u8"), util::map_array(labels, vals, golden("in_map_out_u8")));
  EXPECT_ARRAY_EQ(golden("map_labels_f"), util::map_array(strided_twin(labels), vals, golden("in_map_out_f")));
  const Array cam = golden("in_camera");
  EXPECT_ARRAY_EQ(golden("map_camera"), util::map_array(cam, golden("in_map_lut_in"), golden("in_map_lut_out")));
  EXPECT_ARRAY_EQ(golden("map_camera_wrap"), util::map_array(cam, golden("in_map_wrap_vals"),
                                                             Array::from_vector<double>({9.0, 8.0}, {2})));
}

TEST(UtilMapArray, IntoAndBadArguments) {
  const Array labels = golden("in_map_labels");
  Array out = Array::empty(labels.shape(), DType::float32);
  util::map_array_into(labels, golden("in_map_vals"), golden("in_map_out_f"), out);
  EXPECT_ARRAY_EQ(golden("map_labels_f").astype(DType::float32), out);
  const Array f = Array::zeros({3, 3}, DType::float32);
  const Array k = Array::from_vector<std::int64_t>({1, 2}, {2});
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::map_array(f, k, k); },
                                           {"util.map_array", "'input_arr'", "integer"}));
  const Array k3 = Array::from_vector<std::int64_t>({1, 2, 3}, {3});
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::map_array(labels, k, k3); },
                                           {"util.map_array", "'output_vals'"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::map_array(labels, k.reshape({1, 2}), k); },
                                           {"util.map_array", "'input_vals'", "ndim"}));
  Array bad_out = Array::empty({2, 2}, DType::float64);
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { util::map_array_into(labels, k, k, bad_out); },
                                           {"util.map_array", "'out'"}));
}

// ---- compare_images --------------------------------------------------------------------------------
TEST(UtilCompare, Golden) {
  const Array cam = golden("in_camera");
  const Array inv = util::invert(cam);
  using M = util::CompareMethod;
  EXPECT_ARRAY_EQ(golden("compare_diff"), util::compare_images(cam, inv, {.method = M::diff}));
  EXPECT_ARRAY_EQ(golden("compare_blend"), util::compare_images(cam, inv, {.method = M::blend}));
  EXPECT_ARRAY_EQ(golden("compare_checker"), util::compare_images(cam, inv, {.method = M::checkerboard}));
  EXPECT_ARRAY_EQ(golden("compare_checker_3_5"),
                  util::compare_images(cam, inv, {.method = M::checkerboard, .n_tiles = {3, 5}}));
  const Array f32 = golden("in_compare_f32"), f64 = golden("in_compare_f64");
  EXPECT_ARRAY_EQ(golden("compare_mixed_diff"), util::compare_images(f32, f64));
  EXPECT_ARRAY_EQ(golden("compare_mixed_blend"), util::compare_images(f32, f64, {.method = M::blend}));
  EXPECT_ARRAY_EQ(golden("compare_mixed_checker"),
                  util::compare_images(f32, f64, {.method = M::checkerboard, .n_tiles = {4, 7}}));
  const Array flipped = f32.slice({Slice{std::nullopt, std::nullopt, -1}});
  EXPECT_ARRAY_EQ(golden("compare_f32_blend"), util::compare_images(f32, flipped, {.method = M::blend}));
  EXPECT_EQ(util::compare_method_from_name("blend"), M::blend);
  EXPECT_EQ(util::compare_method_name(M::checkerboard), "checkerboard");
}

TEST(UtilCompare, BadArguments) {
  const Array a = Array::zeros({4, 4}, DType::uint8), b = Array::zeros({4, 5}, DType::uint8);
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::compare_images(a, b); },
                                           {"util.compare_images", "'image1'"}));
  const Array v = Array::zeros({2, 4, 4}, DType::uint8);
  EXPECT_TRUE(throws_with<InvalidArgument>(
      [&] { (void)util::compare_images(v, v, {.method = util::CompareMethod::checkerboard}); },
      {"util.compare_images", "2-D"}));
  EXPECT_TRUE(throws_with<InvalidArgument>(
      [&] { (void)util::compare_images(a, a, {.method = util::CompareMethod::checkerboard, .n_tiles = {0, 2}}); },
      {"util.compare_images", "'n_tiles'"}));
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::compare_method_from_name("xor"); },
                                           {"util.compare_images", "'method'"}));
  // 3-D diff is fine.
  EXPECT_EQ(util::compare_images(v, v).shape(), (Shape{2, 4, 4}));
}

// ---- extras ----------------------------------------------------------------------------------------
TEST(UtilExtras, GoldenRegularSeeds) {
  EXPECT_ARRAY_EQ(golden("seeds_2d"), util::regular_seeds({10, 20}, 8));
  EXPECT_ARRAY_EQ(golden("seeds_3d"), util::regular_seeds({3, 50, 60}, 40));
  EXPECT_ARRAY_EQ(golden("seeds_flat"), util::regular_seeds({3, 200}, 30));
  EXPECT_ARRAY_EQ(golden("seeds_all"), util::regular_seeds({4, 5}, 100));
  const auto grid = util::regular_grid({10, 20}, 8);
  ASSERT_EQ(grid.size(), 2u);
  EXPECT_GT(grid[0].step, 0);
  EXPECT_THROW((void)util::regular_grid({10, 20}, 0), InvalidArgument);
}

TEST(UtilExtras, GoldenLabelPointsUniqueRowsSlice) {
  EXPECT_ARRAY_EQ(golden("label_points"), util::label_points(golden("in_label_points"), {9, 5}));
  EXPECT_ARRAY_EQ(golden("unique_rows_u8"), util::unique_rows(golden("in_unique_rows_u8")));
  EXPECT_ARRAY_EQ(golden("unique_rows_i32"), util::unique_rows(golden("in_unique_rows_i32")));
  EXPECT_ARRAY_EQ(golden("slice_axes"), util::slice_along_axes(golden("in_astronaut"), {{3, 10}, {-20, -2}}, {1, 0}));
  const Array neg = Array::from_vector<double>({1.0, -0.5}, {1, 2});
  EXPECT_TRUE(throws_with<InvalidArgument>([&] { (void)util::label_points(neg, {4, 4}); },
                                           {"util.label_points", "'coords'"}));
  const Array far = Array::from_vector<double>({1.0, 3.6}, {1, 2});
  EXPECT_THROW((void)util::label_points(far, {4, 4}), InvalidArgument);
  EXPECT_THROW((void)util::label_points(far, {4, 4, 4}), InvalidArgument);
  EXPECT_THROW((void)util::unique_rows(Array::zeros({3}, DType::uint8)), InvalidArgument);
  EXPECT_THROW((void)util::slice_along_axes(golden("in_astronaut"), {{5, 2}}), InvalidArgument);
}

TEST(UtilExtras, ApplyParallelMatchesWholeImage) {
  // A 3x3 box sum with the halo: chunked result == whole-image result with the same boundary.
  const Array img = cusktest::random_array({37, 29}, DType::float64, 11);
  auto box = [](const Array& a, const Stream&) {
    Array out = Array::zeros(a.shape(), DType::float64);
    const std::int64_t R = a.shape()[0], C = a.shape()[1];
    const Array c = a.contiguous();
    const double* p = c.data<double>();
    double* o = out.data<double>();
    for (std::int64_t r = 1; r + 1 < R; ++r)
      for (std::int64_t q = 1; q + 1 < C; ++q) {
        double s = 0;
        for (int dr = -1; dr <= 1; ++dr)
          for (int dq = -1; dq <= 1; ++dq) s += p[(r + dr) * C + q + dq];
        o[r * C + q] = s;
      }
    return out;
  };
  for (const std::string mode : {"reflect", "wrap", "nearest", "constant"}) {
    SCOPED_TRACE(mode);
    // Whole image with a 1-pixel halo, then the interior.
    const Array whole = util::apply_parallel(box, img, {.chunks = {37, 29}, .depth = {1}, .mode = mode, .cval = 2.0});
    const Array chunked = util::apply_parallel(box, img, {.chunks = {8, 7}, .depth = {1}, .mode = mode, .cval = 2.0});
    EXPECT_ARRAY_EQ(whole, chunked);
    const Array threads =
        util::apply_parallel(box, img, {.chunks = {5, 9}, .depth = {1}, .mode = mode, .cval = 2.0, .num_workers = 3});
    EXPECT_ARRAY_EQ(whole, threads);
  }
  // Identity with default chunks and a dtype change.
  const Array id = util::apply_parallel([](const Array& a, const Stream&) { return a.astype(DType::float32); }, img);
  EXPECT_ARRAY_EQ(img.astype(DType::float32), id);
  EXPECT_TRUE(throws_with<InvalidArgument>(
      [&] { (void)util::apply_parallel([](const Array& a, const Stream&) { return a.slice({Slice{0, 1}}); }, img); },
      {"util.apply_parallel", "'function'"}));
  EXPECT_THROW((void)util::apply_parallel(box, img, {.mode = "mirror"}), InvalidArgument);
}
