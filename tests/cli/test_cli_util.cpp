// util.* commands: every output checked against the library called directly; JSON values; errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cuskimage/cuskimage.hpp"
#include "cuskimage/util.hpp"
#include "tests/cli/cli_support.hpp"

using namespace cuskimage;
using cuskclitest::contains;
using cuskclitest::describe;
using cuskclitest::run_cli;
using cusktest::random_array;
using cusktest::temp_path;

namespace {

std::string save(const std::string& name, const Array& a) {
  const std::string p = temp_path(name);
  io::imsave(p, a, {.check_contrast = false});
  return p;
}

/// Runs `cuskimage fn in... out.npy args... --device dev` and reads the output back.
Array run_image(const std::string& fn, const std::vector<std::string>& inputs, const std::vector<std::string>& args,
                const std::string& device = "cpu", const std::string& out_name = "out.npy") {
  const std::string out = temp_path(out_name);
  std::filesystem::remove(out);
  std::vector<std::string> argv = {fn};
  argv.insert(argv.end(), inputs.begin(), inputs.end());
  argv.push_back(out);
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back("--device");
  argv.push_back(device);
  auto r = run_cli(argv);
  EXPECT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(r.out.empty()) << r.out;
  if (r.rc != 0) return Array();
  return io::imread(out);
}

std::string run_value(const std::vector<std::string>& argv) {
  auto r = run_cli(argv);
  EXPECT_EQ(r.rc, 0) << describe(r);
  return r.out;
}

}  // namespace

TEST(CliUtil, ListHasEveryUtilFunction) {
  auto r = run_cli({"--list", "util"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  for (const char* fn : {"img_as_float", "img_as_float32", "img_as_float64", "img_as_ubyte", "img_as_uint",
                         "img_as_int", "img_as_bool", "convert", "dtype_limits", "invert", "crop", "montage",
                         "random_noise", "view_as_blocks", "view_as_windows", "map_array", "compare_images",
                         "slice_along_axes", "regular_grid", "regular_seeds", "label_points", "unique_rows"})
    EXPECT_TRUE(contains(r.out, std::string("util.") + fn + "\n")) << fn << "\n" << r.out;
}

TEST(CliUtil, HelpCrop) {
  auto r = run_cli({"help", "util.crop"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "util.crop(ar, crop_width, copy=False, order='K') -> image")) << r.out;
  EXPECT_TRUE(contains(r.out, "--crop_width A,B[:C,D...]")) << r.out;
  EXPECT_TRUE(contains(r.out, "(required)")) << r.out;
  auto n = run_cli({"help", "util.random_noise"});
  EXPECT_TRUE(contains(n.out, "mode='gaussian', rng=None, clip=True, mean=0.0, var=0.01")) << n.out;
  auto c = run_cli({"help", "util.compare_images"});
  EXPECT_TRUE(contains(c.out, "n_tiles=(8, 8)")) << c.out;
}

// ---- values ----------------------------------------------------------------------------------------

TEST(CliUtil, DtypeLimitsJson) {
  EXPECT_EQ(run_value({"util.dtype_limits", "--dtype", "uint8"}), "[0, 255]\n");
  EXPECT_EQ(run_value({"util.dtype_limits", "--dtype", "int16"}), "[-32768, 32767]\n");
  EXPECT_EQ(run_value({"util.dtype_limits", "--dtype", "int16", "--clip_negative", "true"}), "[0, 32767]\n");
  EXPECT_EQ(run_value({"util.dtype_limits", "--dtype", "float32"}), "[-1, 1]\n");
  EXPECT_EQ(run_value({"util.dtype_limits", "--dtype=bool"}), "[false, true]\n");
  EXPECT_EQ(run_value({"util.dtype_limits", "--dtype", "int64"}), "[-9223372036854775808, 9223372036854775807]\n");
  EXPECT_EQ(run_value({"util.dtype_limits", "--dtype", "uint64"}), "[0, 18446744073709551615]\n");
  const std::string img = save("i8.npy", random_array({3, 4}, DType::int8, 1));
  EXPECT_EQ(run_value({"util.dtype_limits", img, "--device", "cpu"}), "[-128, 127]\n");
  EXPECT_EQ(run_value({"util.dtype_limits", img, "--clip_negative", "--device", "cpu"}), "[0, 127]\n");
  // Agrees with the library for every dtype.
  for (int i = 0; i <= static_cast<int>(DType::float64); ++i) {
    const DType dt = static_cast<DType>(i);
    if (dt == DType::bool_ || dt == DType::int64 || dt == DType::uint64) continue;
    const auto lim = util::dtype_limits(dt);
    std::ostringstream want;
    want << "[" << static_cast<long long>(lim.imin) << ", " << static_cast<long long>(lim.imax) << "]\n";
    EXPECT_EQ(run_value({"util.dtype_limits", "--dtype", std::string(dtype_name(dt))}), want.str()) << dtype_name(dt);
  }
}

TEST(CliUtil, DtypeLimitsErrors) {
  const std::string img = save("u8.npy", random_array({3, 4}, DType::uint8, 1));
  auto both = run_cli({"util.dtype_limits", img, "--dtype", "uint8", "--device", "cpu"});
  EXPECT_EQ(both.rc, 2);
  EXPECT_TRUE(contains(both.err, "not both")) << describe(both);
  auto neither = run_cli({"util.dtype_limits"});
  EXPECT_EQ(neither.rc, 2);
  EXPECT_TRUE(contains(neither.err, "give an IMAGE or --dtype")) << describe(neither);
  auto extra = run_cli({"util.dtype_limits", img, temp_path("o.npy")});
  EXPECT_EQ(extra.rc, 2);
  EXPECT_TRUE(contains(extra.err, "takes no OUTPUT")) << describe(extra);
  auto bad = run_cli({"util.dtype_limits", "--dtype", "complex64"});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_TRUE(contains(bad.err, "parameter '--dtype' expects a dtype name")) << describe(bad);
}

TEST(CliUtil, RegularGridJson) {
  const auto grid = util::regular_grid({3, 20, 40}, 8);
  std::string want = "[";
  for (std::size_t i = 0; i < grid.size(); ++i) {
    auto opt = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("null"); };
    want += (i ? ", [" : "[") + opt(grid[i].start) + ", " + opt(grid[i].stop) + ", " + std::to_string(grid[i].step) + "]";
  }
  want += "]\n";
  EXPECT_EQ(run_value({"util.regular_grid", "--ar_shape", "3,20,40", "--n_points", "8"}), want);
  auto missing = run_cli({"util.regular_grid", "--ar_shape", "3,20,40"});
  EXPECT_EQ(missing.rc, 2);
  EXPECT_TRUE(contains(missing.err, "missing required parameter '--n_points'")) << describe(missing);
}

// ---- images ----------------------------------------------------------------------------------------

TEST(CliUtil, ImgAsMatchesLibrary) {
  struct Case {
    const char* fn;
    Array (*op)(const Array&, const util::ImgAsOptions&, const Stream&);
  };
  const Case cases[] = {{"util.img_as_float", &util::img_as_float},   {"util.img_as_float32", &util::img_as_float32},
                        {"util.img_as_float64", &util::img_as_float64}, {"util.img_as_ubyte", &util::img_as_ubyte},
                        {"util.img_as_uint", &util::img_as_uint},     {"util.img_as_int", &util::img_as_int},
                        {"util.img_as_bool", &util::img_as_bool}};
  for (DType dt : {DType::uint8, DType::uint16, DType::int16, DType::float32}) {
    Array a = dt == DType::float32 ? random_array({9, 11}, dt, 3, 0.0, 1.0) : random_array({9, 11}, dt, 3);
    const std::string in = save("in.npy", a);
    for (const auto& c : cases) {
      SCOPED_TRACE(std::string(c.fn) + " on " + std::string(dtype_name(dt)));
      Array got = run_image(c.fn, {in}, {});
      EXPECT_ARRAY_EQ(c.op(a, {}, {}), got);
    }
  }
}

TEST(CliUtil, ImgAsUbyteFromTiffToPng) {
  Array a = random_array({16, 12}, DType::uint16, 4);
  const std::string tif = save("a.tif", a), png = temp_path("b.png");
  auto r = run_cli({"util.img_as_ubyte", tif, png, "--device", "cpu"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(util::img_as_ubyte(a), io::imread(png));
}

TEST(CliUtil, ImgAsUbyteOutOfRangeFloatFails) {
  const std::string in = save("f.npy", Array::full({4, 4}, 3.0, DType::float32));
  auto r = run_cli({"util.img_as_ubyte", in, temp_path("o.npy"), "--device", "cpu"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.err, "img_as_ubyte")) << describe(r);
  EXPECT_FALSE(std::filesystem::exists(temp_path("o.npy")));
}

TEST(CliUtil, Convert) {
  Array a = random_array({5, 7}, DType::uint8, 8);
  const std::string in = save("a.npy", a);
  EXPECT_ARRAY_EQ(util::convert(a, DType::int32), run_image("util.convert", {in}, {"--dtype", "int32"}));
  EXPECT_ARRAY_EQ(util::convert(a, DType::float32), run_image("util.convert", {in}, {"--dtype", "float32"}));
}

TEST(CliUtil, Invert) {
  Array u = random_array({13, 9}, DType::uint8, 5);
  EXPECT_ARRAY_EQ(util::invert(u), run_image("util.invert", {save("u.npy", u)}, {}));
  Array f = random_array({13, 9}, DType::float32, 5, -1.0, 1.0);
  const std::string fin = save("f.npy", f);
  EXPECT_ARRAY_EQ(util::invert(f), run_image("util.invert", {fin}, {}));
  EXPECT_ARRAY_EQ(util::invert(f, {.signed_float = true}), run_image("util.invert", {fin}, {"--signed_float", "true"}));
  EXPECT_ARRAY_EQ(util::invert(f, {.signed_float = true}), run_image("util.invert", {fin}, {"--signed_float"}));
}

TEST(CliUtil, CropWidthForms) {
  Array a = random_array({10, 12, 3}, DType::uint8, 6);
  const std::string in = save("a.npy", a);
  EXPECT_ARRAY_EQ(util::crop(a, 2), run_image("util.crop", {in}, {"--crop_width", "2"}));
  EXPECT_ARRAY_EQ(util::crop(a, util::CropWidth(1, 2)), run_image("util.crop", {in}, {"--crop_width", "1,2"}));
  EXPECT_ARRAY_EQ(util::crop(a, util::CropWidth({{1, 2}, {3, 4}, {0, 1}})),
                  run_image("util.crop", {in}, {"--crop_width", "1,2:3,4:0,1"}));
  EXPECT_ARRAY_EQ(util::crop(a, util::CropWidth({{1, 1}, {2, 2}, {0, 0}})),
                  run_image("util.crop", {in}, {"--crop_width", "1:2:0"}));
  EXPECT_ARRAY_EQ(util::crop(a, util::CropWidth({{1, 2}, {3, 4}, {0, 1}})),
                  run_image("util.crop", {in}, {"--crop_width", "((1,2),(3,4),(0,1))", "--copy", "--order", "C"}));
}

TEST(CliUtil, CropErrors) {
  const std::string in = save("a.npy", random_array({10, 12}, DType::uint8, 6));
  auto neg = run_cli({"util.crop", in, temp_path("o.npy"), "--crop_width", "-1", "--device", "cpu"});
  EXPECT_EQ(neg.rc, 1);
  EXPECT_TRUE(contains(neg.err, "crop")) << describe(neg);
  auto three = run_cli({"util.crop", in, temp_path("o.npy"), "--crop_width", "1,2,3", "--device", "cpu"});
  EXPECT_EQ(three.rc, 1);
  EXPECT_TRUE(contains(three.err, "util.crop: argument 'crop_width'")) << describe(three);
  auto frac = run_cli({"util.crop", in, temp_path("o.npy"), "--crop_width", "1.5", "--device", "cpu"});
  EXPECT_EQ(frac.rc, 2);
  EXPECT_TRUE(contains(frac.err, "'--crop_width' expects integers")) << describe(frac);
  auto missing = run_cli({"util.crop", in, temp_path("o.npy"), "--device", "cpu"});
  EXPECT_EQ(missing.rc, 2);
  EXPECT_TRUE(contains(missing.err, "missing required parameter '--crop_width'")) << describe(missing);
  auto order = run_cli({"util.crop", in, temp_path("o.npy"), "--crop_width", "1", "--order", "X", "--device", "cpu"});
  EXPECT_EQ(order.rc, 2);
  EXPECT_TRUE(contains(order.err, "expects one of K, C, F, A, got 'X'")) << describe(order);
}

TEST(CliUtil, MontageStackFileOrImages) {
  Array stack = random_array({5, 6, 7}, DType::uint8, 12);
  const std::string one = save("stack.npy", stack);
  std::vector<std::string> files;
  for (int k = 0; k < 5; ++k) files.push_back(save("img" + std::to_string(k) + ".png", stack.index(0, k).copy()));
  EXPECT_ARRAY_EQ(util::montage(stack), run_image("util.montage", {one}, {}));
  EXPECT_ARRAY_EQ(util::montage(stack), run_image("util.montage", files, {}));
  util::MontageOptions opt;
  opt.fill = {7};
  opt.grid_shape = std::array<std::int64_t, 2>{2, 3};
  opt.padding_width = 2;
  EXPECT_ARRAY_EQ(util::montage(stack, opt),
                  run_image("util.montage", files, {"--fill", "7", "--grid_shape", "2,3", "--padding_width", "2"}));
}

TEST(CliUtil, MontageRgb) {
  Array stack = random_array({3, 4, 5, 3}, DType::uint8, 13);
  util::MontageOptions opt;
  opt.channel_axis = -1;
  opt.fill = {0, 128, 255};
  EXPECT_ARRAY_EQ(util::montage(stack, opt),
                  run_image("util.montage", {save("s.npy", stack)}, {"--channel_axis", "-1", "--fill", "0,128,255"}));
  auto bad = run_cli({"util.montage", save("s2.npy", stack), temp_path("o.npy"), "--fill", "red", "--device", "cpu"});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_TRUE(contains(bad.err, "'--fill' expects 'mean'")) << describe(bad);
}

TEST(CliUtil, MontageMismatchedImages) {
  const std::string a = save("a.png", random_array({4, 4}, DType::uint8, 1));
  const std::string b = save("b.png", random_array({4, 5}, DType::uint8, 1));
  auto r = run_cli({"util.montage", a, b, temp_path("o.npy"), "--device", "cpu"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.err, "util.montage: argument 'arr_in'")) << describe(r);
}

TEST(CliUtil, RandomNoiseSeeded) {
  Array a = random_array({20, 30}, DType::float32, 2, 0.0, 1.0);
  const std::string in = save("a.npy", a);
  util::RandomNoiseOptions g;
  g.rng = 42;
  EXPECT_ARRAY_EQ(util::random_noise(a, g), run_image("util.random_noise", {in}, {"--rng", "42"}));
  util::RandomNoiseOptions sp;
  sp.mode = util::NoiseMode::s_and_p;
  sp.rng = 3;
  sp.amount = 0.2;
  sp.salt_vs_pepper = 0.3;
  EXPECT_ARRAY_EQ(util::random_noise(a, sp),
                  run_image("util.random_noise", {in},
                            {"--mode", "s&p", "--rng", "3", "--amount", "0.2", "--salt_vs_pepper", "0.3"}));
  util::RandomNoiseOptions lv;
  lv.mode = util::NoiseMode::localvar;
  lv.rng = 9;
  lv.local_vars = Array::full({20, 30}, 0.05, DType::float64);
  EXPECT_ARRAY_EQ(util::random_noise(a, lv),
                  run_image("util.random_noise", {in},
                            {"--mode", "localvar", "--rng", "9", "--local_vars", save("lv.npy", lv.local_vars)}));
}

TEST(CliUtil, RandomNoiseRejectsUnusedKeyword) {
  const std::string in = save("a.npy", random_array({4, 4}, DType::float32, 2, 0.0, 1.0));
  auto r = run_cli({"util.random_noise", in, temp_path("o.npy"), "--amount", "0.1", "--device", "cpu"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.err, "argument 'amount' is not used by mode 'gaussian' (it takes mean, var)")) << describe(r);
  auto m = run_cli({"util.random_noise", in, temp_path("o.npy"), "--mode", "blur", "--device", "cpu"});
  EXPECT_EQ(m.rc, 2);
  EXPECT_TRUE(contains(m.err, "expects one of gaussian, localvar")) << describe(m);
}

TEST(CliUtil, Views) {
  Array a = random_array({8, 12}, DType::uint16, 21);
  const std::string in = save("a.npy", a);
  EXPECT_ARRAY_EQ(util::view_as_blocks(a, {4, 3}), run_image("util.view_as_blocks", {in}, {"--block_shape", "4,3"}));
  EXPECT_ARRAY_EQ(util::view_as_windows(a, {3}, {.step = {2}}),
                  run_image("util.view_as_windows", {in}, {"--window_shape", "3", "--step", "2"}));
  auto bad = run_cli({"util.view_as_blocks", in, temp_path("o.npy"), "--block_shape", "5,3", "--device", "cpu"});
  EXPECT_EQ(bad.rc, 1);
  EXPECT_TRUE(contains(bad.err, "view_as_blocks")) << describe(bad);
}

TEST(CliUtil, MapArrayInlineAndFiles) {
  Array labels = random_array({6, 7}, DType::int32, 2, 0, 4);
  const std::string in = save("l.npy", labels);
  Array iv = Array::from_vector<std::int64_t>({1, 2, 3}, {3});
  Array ov = Array::from_vector<std::int64_t>({10, 20, 30}, {3});
  EXPECT_ARRAY_EQ(util::map_array(labels, iv, ov),
                  run_image("util.map_array", {in}, {"--input_vals", "1,2,3", "--output_vals", "10,20,30"}));
  Array ovf = Array::from_vector<float>({0.5f, 1.5f, 2.5f}, {3});
  EXPECT_ARRAY_EQ(util::map_array(labels, iv, ovf),
                  run_image("util.map_array", {in}, {"--input_vals", save("iv.npy", iv), "--output_vals",
                                                     save("ov.npy", ovf)}));
  auto missing = run_cli({"util.map_array", in, temp_path("o.npy"), "--input_vals", temp_path("nope.npy"),
                          "--output_vals", "1,2,3", "--device", "cpu"});
  EXPECT_EQ(missing.rc, 1);
  EXPECT_TRUE(contains(missing.err, "nope.npy")) << describe(missing);
}

TEST(CliUtil, CompareImages) {
  Array a = random_array({16, 16}, DType::uint8, 1), b = random_array({16, 16}, DType::uint8, 2);
  const std::string pa = save("a.png", a), pb = save("b.png", b);
  EXPECT_ARRAY_EQ(util::compare_images(a, b), run_image("util.compare_images", {pa, pb}, {}));
  EXPECT_ARRAY_EQ(util::compare_images(a, b, {.method = util::CompareMethod::blend}),
                  run_image("util.compare_images", {pa, pb}, {"--method", "blend"}));
  EXPECT_ARRAY_EQ(util::compare_images(a, b, {.method = util::CompareMethod::checkerboard, .n_tiles = {2, 4}}),
                  run_image("util.compare_images", {pa, pb}, {"--method", "checkerboard", "--n_tiles", "2,4"}));
  auto one = run_cli({"util.compare_images", pa, temp_path("o.npy"), "--device", "cpu"});
  EXPECT_EQ(one.rc, 2);
  EXPECT_TRUE(contains(one.err, "expected IMAGE0 IMAGE1 OUTPUT, got 2 paths")) << describe(one);
}

TEST(CliUtil, Extras) {
  Array a = random_array({6, 8, 3}, DType::uint8, 30);
  const std::string in = save("a.npy", a);
  EXPECT_ARRAY_EQ(util::slice_along_axes(a, {{1, 4}, {2, -1}}, {0, 1}),
                  run_image("util.slice_along_axes", {in}, {"--slices", "1,4:2,-1", "--axes", "0,1"}));
  EXPECT_ARRAY_EQ(util::regular_seeds({10, 12}, 6, DType::int32),
                  run_image("util.regular_seeds", {}, {"--ar_shape", "10,12", "--n_points", "6", "--dtype", "int32"}));
  Array coords = Array::from_vector<std::int64_t>({1, 2, 3, 4, 0, 0}, {3, 2});
  EXPECT_ARRAY_EQ(util::label_points(coords, {5, 6}),
                  run_image("util.label_points", {save("c.npy", coords)}, {"--output_shape", "5,6"}));
  Array rows = Array::from_vector<std::int32_t>({1, 2, 0, 0, 1, 2, 3, 1}, {4, 2});
  EXPECT_ARRAY_EQ(util::unique_rows(rows), run_image("util.unique_rows", {save("r.npy", rows)}, {}));
}

// ---- GPU: the same commands on the CUDA backend agree with the CPU library -------------------------

TEST(GpuCli, UtilOnCudaMatchesCpu) {
  CUSK_REQUIRE_GPU();
  Array u8 = random_array({37, 53, 3}, DType::uint8, 5);
  Array f32 = random_array({37, 53}, DType::float32, 6, 0.0, 1.0);
  const std::string pu = save("u8.npy", u8), pf = save("f32.npy", f32);
  EXPECT_ARRAY_EQ(util::invert(u8), run_image("util.invert", {pu}, {}, "cuda"));
  EXPECT_ARRAY_EQ(util::img_as_float32(u8), run_image("util.img_as_float32", {pu}, {}, "cuda"));
  EXPECT_ARRAY_EQ(util::img_as_ubyte(f32), run_image("util.img_as_ubyte", {pf}, {}, "cuda"));
  EXPECT_ARRAY_EQ(util::crop(u8, util::CropWidth({{1, 2}, {3, 4}, {0, 0}})),
                  run_image("util.crop", {pu}, {"--crop_width", "1,2:3,4:0,0"}, "cuda"));
  util::RandomNoiseOptions g;
  g.rng = 7;
  EXPECT_ARRAY_NEAR(util::random_noise(f32, g), run_image("util.random_noise", {pf}, {"--rng", "7"}, "cuda"), 0, 1e-6);
  Array stack = random_array({4, 9, 10}, DType::uint16, 3);
  EXPECT_ARRAY_EQ(util::montage(stack, {.padding_width = 1}),
                  run_image("util.montage", {save("s.npy", stack)}, {"--padding_width", "1"}, "cuda"));
  Array labels = random_array({20, 20}, DType::int32, 2, 0, 5);
  EXPECT_ARRAY_EQ(util::map_array(labels, Array::from_vector<std::int64_t>({1, 2}, {2}),
                                  Array::from_vector<std::int64_t>({7, 9}, {2})),
                  run_image("util.map_array", {save("l.npy", labels)}, {"--input_vals", "1,2", "--output_vals", "7,9"},
                            "cuda"));
  EXPECT_ARRAY_EQ(util::regular_seeds({10, 12}, 6),
                  run_image("util.regular_seeds", {}, {"--ar_shape", "10,12", "--n_points", "6"}, "cuda"));
  // Values do not depend on the device.
  EXPECT_EQ(run_value({"util.dtype_limits", pu, "--device", "cuda"}), "[0, 255]\n");
}

TEST(GpuCli, DefaultDeviceIsCuda) {
  CUSK_REQUIRE_GPU();
  // Without --device the op runs on the GPU; the result is the same as the CPU library's.
  Array u8 = random_array({64, 64}, DType::uint8, 8);
  const std::string in = save("u8.npy", u8), out = temp_path("o.npy");
  auto r = run_cli({"util.invert", in, out});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(util::invert(u8), io::imread(out));
}
