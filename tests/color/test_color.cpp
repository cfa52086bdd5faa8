// skimage.color against scikit-image 0.26 goldens (tests/golden/cases_color.py) on the CPU backend:
// every conversion on uint8, uint16, int16, float32, float64, a volume and one pixel, contiguous and
// strided; illuminants; channel_axis; stains; RGBA and grey; convert_colorspace; deltaE; label2rgb;
// bad input. Tolerances: float64 1e-12 relative (+1e-10 absolute), float32 1e-5 relative (+2e-4).
#include <cmath>

#include "cuskimage/tuning.hpp"
#include "cuskimage/util.hpp"
#include "tests/color/color_test_common.hpp"

using namespace colortest;
using cuskimage::InvalidArgument;

namespace {

/// The result's dtype is the golden's (scikit-image's), except where stated by the caller.
void expect_golden(const std::string& name, const Array& actual, bool check_dtype = true) {
  SCOPED_TRACE(name);
  const Array e = golden(name);
  if (check_dtype) EXPECT_EQ(e.dtype(), actual.dtype());
  EXPECT_COLOR_NEAR(e, actual);
}

/// a / 255 computed in T, as NumPy's `a.astype(T) / 255`.
template <class T>
Array over255(const Array& a) {
  std::vector<T> v = a.to_vector<T>();
  for (T& x : v) x = x / T(255);
  return Array::from_vector(v, a.shape());
}

const std::vector<std::string> kRgbCases = {"astro", "f64", "f32", "u16", "vol", "i16", "px"};

}  // namespace

TEST(ColorConv, FromRgbGoldenEveryDtype) {
  for (const auto& c : kRgbCases) {
    const Array in = golden("in_" + c);
    for (const auto& fn : from_rgb()) {
      SCOPED_TRACE(fn + " " + c);
      // Stains keep float32 (cuCIM's rule); scikit-image 0.26 returns float64 there.
      const bool stain_f32 = fn == "rgb2hed" && c == "f32";
      const Array out = conversions().at(fn)(in, -1, {});
      if (fn == "rgb2gray" && c == "px") {  // a 0-d result (the .npy loader gives it shape [1])
        EXPECT_EQ(out.ndim(), 0);
        EXPECT_NEAR(golden(fn + "__" + c).at<double>({0}), out.to_vector<double>()[0], 1e-15);
        continue;
      }
      expect_golden(fn + "__" + c, out, !stain_f32);
      if (stain_f32) EXPECT_EQ(out.dtype(), DType::float32);
      expect_golden(fn + "__" + c, conversions().at(fn)(strided_twin(in), -1, {}), !stain_f32);
    }
  }
}

TEST(ColorTuning, PolicySetterReturnsThePreviousPolicy) {
  namespace tuning = cuskimage::tuning;
  EXPECT_EQ(tuning::color_policy().grid, tuning::ColorGrid::automatic);
  const tuning::ColorPolicy old = tuning::set_color_policy({tuning::ColorGrid::persistent});
  EXPECT_EQ(old.grid, tuning::ColorGrid::automatic);
  EXPECT_EQ(tuning::color_policy().grid, tuning::ColorGrid::persistent);
  // The CPU backend ignores it: the golden still holds.
  const Array rgb = cusktest::random_array({4, 5, 3}, DType::uint8, 7);
  const Array before = color::rgb2hed(rgb);
  EXPECT_EQ(tuning::set_color_policy(old).grid, tuning::ColorGrid::persistent);
  EXPECT_TRUE(cusktest::arrays_equal(before, color::rgb2hed(rgb)));
  EXPECT_EQ(tuning::color_policy().grid, tuning::ColorGrid::automatic);
}

TEST(ColorConv, ToRgbGolden) {
  for (const std::string c : {"f64", "f32", "vol"}) {
    for (const auto& fn : to_rgb()) {
      SCOPED_TRACE(fn + " " + c);
      const Array in = golden("in_" + fn + "__" + c);
      const bool stain_f32 = fn == "hed2rgb" && c == "f32";
      expect_golden(fn + "__" + c, conversions().at(fn)(in, -1, {}), !stain_f32);
      expect_golden(fn + "__" + c, conversions().at(fn)(strided_twin(in), -1, {}), !stain_f32);
    }
  }
}

TEST(ColorConv, WideInputs) {
  const Array lab = golden("in_lab_wide");
  expect_golden("lab2rgb__lab_wide", color::lab2rgb(lab));
  expect_golden("lab2xyz__lab_wide", color::lab2xyz(lab));
  expect_golden("lab2lch__lab_wide", color::lab2lch(lab));
  const Array luv = golden("in_luv_wide");
  expect_golden("luv2rgb__luv_wide", color::luv2rgb(luv));
  expect_golden("luv2xyz__luv_wide", color::luv2xyz(luv));
  expect_golden("hsv2rgb__hsv_wide", color::hsv2rgb(golden("in_hsv_wide")));
  // uint8 YCbCr wraps in uint8 when the offsets are subtracted (scikit-image's order).
  expect_golden("ycbcr2rgb__ycc_u8", color::ycbcr2rgb(golden("in_ycc_u8")));
  expect_golden("ycbcr2rgb__ycc_int16", color::ycbcr2rgb(golden("in_ycc_int16")));
  expect_golden("ycbcr2rgb__ycc_int32", color::ycbcr2rgb(golden("in_ycc_int32")));
}

TEST(ColorConv, IlluminantsAndObservers) {
  const Array table = golden("tristimulus");
  const char* ills[] = {"A", "B", "C", "D50", "D55", "D65", "D75", "E"};
  const char* obs[] = {"2", "10", "R"};
  for (int i = 0; i < 8; ++i)
    for (int o = 0; o < 3; ++o) {
      const color::Rgb v = color::xyz_tristimulus_values(ills[i], obs[o]);
      for (int c = 0; c < 3; ++c) EXPECT_EQ(table.at<double>({i, o, c}), v[c]) << ills[i] << " " << obs[o];
    }
  EXPECT_EQ(color::get_xyz_coords("d65", "r"), color::xyz_tristimulus_values("D65", "R"));
  const Array f64 = golden("in_f64"), lab = golden("in_lab_wide"), luv = golden("in_luv_wide");
  const Array xyz = color::rgb2xyz(f64);
  for (auto [ill, ob] : {std::pair{"D50", "10"}, {"A", "R"}, {"e", "2"}}) {
    const std::string tag = std::string(ill) + "_" + ob;
    const color::IlluminantOptions o{.illuminant = ill, .observer = ob};
    expect_golden("rgb2lab__" + tag, color::rgb2lab(f64, o));
    expect_golden("lab2rgb__" + tag, color::lab2rgb(lab, o));
    expect_golden("xyz2lab__" + tag, color::xyz2lab(xyz, o));
    expect_golden("lab2xyz__" + tag, color::lab2xyz(lab, o));
    expect_golden("xyz2luv__" + tag, color::xyz2luv(xyz, o));
    expect_golden("luv2xyz__" + tag, color::luv2xyz(luv, o));
  }
}

TEST(ColorConv, ChannelAxis) {
  const Array a = golden("in_astro_c0");  // (3, 32, 32) uint8
  for (const std::string fn : {"rgb2lab", "rgb2hed", "rgb2hsv", "rgb2gray", "rgb2ycbcr"})
    expect_golden(fn + "__astro_c0", conversions().at(fn)(a, 0, {}));
  expect_golden("rgb2hsv__astro_c0", color::rgb2hsv(a, {.channel_axis = -3}));
  const Array v = golden("in_vol_c1");  // (4, 3, 5, 6)
  const Array lab = color::rgb2lab(v, {.channel_axis = 1});
  expect_golden("rgb2lab__vol_c1", lab);
  EXPECT_EQ(lab.shape(), (Shape{4, 3, 5, 6}));
  expect_golden("lab2rgb__vol_c1", color::lab2rgb(lab, {.channel_axis = 1}));
}

TEST(ColorConv, StainsEveryMatrix) {
  const Array f64 = golden("in_f64"), stains = golden("in_stains");
  const std::vector<std::tuple<std::string, color::Matrix3, color::Matrix3>> m = {
      {"hed", color::hed_from_rgb, color::rgb_from_hed}, {"hdx", color::hdx_from_rgb, color::rgb_from_hdx},
      {"fgx", color::fgx_from_rgb, color::rgb_from_fgx}, {"bex", color::bex_from_rgb, color::rgb_from_bex},
      {"rbd", color::rbd_from_rgb, color::rgb_from_rbd}, {"gdx", color::gdx_from_rgb, color::rgb_from_gdx},
      {"hax", color::hax_from_rgb, color::rgb_from_hax}, {"bro", color::bro_from_rgb, color::rgb_from_bro},
      {"bpx", color::bpx_from_rgb, color::rgb_from_bpx}, {"ahx", color::ahx_from_rgb, color::rgb_from_ahx},
      {"hpx", color::hpx_from_rgb, color::rgb_from_hpx}};
  for (const auto& [name, from, to] : m) {
    expect_golden("separate_" + name, color::separate_stains(f64, from));
    expect_golden("combine_" + name, color::combine_stains(stains, to));
  }
  expect_golden("separate_hed_astro", color::separate_stains(golden("in_astro"), color::hed_from_rgb));
  // rgb2hed is separate_stains with hed_from_rgb, hed2rgb its inverse on in-range stains.
  EXPECT_ARRAY_EQ(color::separate_stains(f64, color::hed_from_rgb), color::rgb2hed(f64));
}

TEST(ColorConv, LchCarriesExtraChannels) {
  const Array lab4 = golden("in_lab4");
  const Array lch = color::lab2lch(lab4);
  expect_golden("lab2lch__lab4", lch);
  expect_golden("lch2lab__lab4", color::lch2lab(lch));
  expect_golden("lab2lch__lab4", color::lab2lch(strided_twin(lab4)));
}

TEST(ColorGray, Rgba2Rgb) {
  const Array u8 = golden("in_rgba_u8");
  expect_golden("rgba2rgb__rgba_u8", color::rgba2rgb(u8));
  expect_golden("rgba2rgb__rgba_u8_bg", color::rgba2rgb(u8, {.background = {0.2, 0.5, 0.0}}));
  expect_golden("rgba2rgb__rgba_f32", color::rgba2rgb(golden("in_rgba_f32"), {.background = {0.0, 0.3, 1.0}}));
  expect_golden("rgba2rgb__rgba_c0", color::rgba2rgb(u8.transpose({2, 0, 1}), {.channel_axis = 0}));
}

TEST(ColorGray, Gray2RgbAndRgba) {
  const Array cam = golden("in_cam");
  EXPECT_ARRAY_EQ(golden("gray2rgb__cam"), color::gray2rgb(cam));
  EXPECT_ARRAY_EQ(golden("gray2rgb__cam_c0"), color::gray2rgb(cam, {.channel_axis = 0}));
  EXPECT_ARRAY_EQ(golden("gray2rgb__cam"), color::gray2rgb(strided_twin(cam)));
  EXPECT_ARRAY_EQ(golden("gray2rgba__cam"), color::gray2rgba(cam));
  EXPECT_ARRAY_EQ(golden("gray2rgba__cam_a7"), color::gray2rgba(cam, {.alpha = 7}));
  EXPECT_ARRAY_EQ(golden("gray2rgba__cam_c1"), color::gray2rgba(cam, {.channel_axis = 1}));
  const Array gf = golden("in_grayf32");
  EXPECT_ARRAY_EQ(golden("gray2rgba__grayf32"), color::gray2rgba(gf));
  EXPECT_ARRAY_EQ(golden("gray2rgba__grayf32_a"), color::gray2rgba(gf, {.alpha = 0.25}));
  EXPECT_ARRAY_EQ(golden("gray2rgba__grayf32_arr"), color::gray2rgba(gf, golden("in_alpha_row")));
}

TEST(ColorConv, ConvertColorspace) {
  for (auto [fr, to] : {std::pair{"RGB", "HSV"}, {"hsv", "YCbCr"}, {"XYZ", "yiq"}, {"RGB CIE", "ydbdr"},
                        {"YPbPr", "RGB"}, {"yuv", "rgb cie"}}) {
    std::string tag = std::string(fr) + "_" + to;
    tag.erase(std::remove(tag.begin(), tag.end(), ' '), tag.end());
    for (char& c : tag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    expect_golden("cs_" + tag, color::convert_colorspace(golden("in_cs_" + tag), fr, to));
  }
}

TEST(ColorDeltaE, Golden) {
  const Array l1 = golden("in_lab1"), l2 = golden("in_lab2"), ref = golden("in_labref");
  const Array f1 = l1.astype(DType::float32), f2 = l2.astype(DType::float32);
  struct Case {
    std::string tag;
    const Array *a, *b;
  };
  for (const Case& c : {Case{"f64", &l1, &l2}, Case{"f32", &f1, &f2}, Case{"bcast", &l1, &ref}}) {
    expect_golden("deltaE_cie76__" + c.tag, color::deltaE_cie76(*c.a, *c.b));
    expect_golden("deltaE_ciede94__" + c.tag, color::deltaE_ciede94(*c.a, *c.b));
    expect_golden("deltaE_ciede2000__" + c.tag, color::deltaE_ciede2000(*c.a, *c.b));
    expect_golden("deltaE_cmc__" + c.tag, color::deltaE_cmc(*c.a, *c.b));
  }
  expect_golden("deltaE_ciede94__k",
                color::deltaE_ciede94(l1, l2, {.kH = 2, .kC = 0.5, .kL = 1.5, .k1 = 0.048, .k2 = 0.014}));
  expect_golden("deltaE_ciede2000__k", color::deltaE_ciede2000(l1, l2, {.kL = 2, .kC = 0.7, .kH = 1.3}));
  expect_golden("deltaE_cmc__k", color::deltaE_cmc(l1, l2, {.kL = 2, .kC = 1}));
  expect_golden("deltaE_ciede2000__c0", color::deltaE_ciede2000(l1.transpose({2, 0, 1}), l2.transpose({2, 0, 1}),
                                                                {.channel_axis = 0}));
  expect_golden("deltaE_cie76__f64", color::deltaE_cie76(strided_twin(l1), strided_twin(l2)));
  // Sharma, Wu & Dalal's CIEDE2000 pairs.
  const Array pairs = golden("in_sharma");
  const Array a = pairs.slice({Slice{}, Slice{0, 3, 1}}), b = pairs.slice({Slice{}, Slice{3, 6, 1}});
  expect_golden("deltaE_ciede2000__sharma", color::deltaE_ciede2000(a, b));
  // uint8 input is cast (astype), not scaled.
  const Array u = cusktest::random_array({4, 5, 3}, DType::uint8, 3);
  EXPECT_ARRAY_NEAR(color::deltaE_cie76(u.astype(DType::float64), l1.slice({Slice{0, 4, 1}, Slice{0, 5, 1}})),
                    color::deltaE_cie76(u, l1.slice({Slice{0, 4, 1}, Slice{0, 5, 1}})), 0, 0);
}

TEST(ColorLabel, Golden) {
  const Array lab = golden("in_labels"), img = golden("in_lbl_img"), gray = golden("in_lbl_gray");
  expect_golden("label2rgb__plain", color::label2rgb(lab));
  expect_golden("label2rgb__bg_none", color::label2rgb(lab, {.bg_label = -1, .bg_color = std::nullopt}));
  expect_golden("label2rgb__colors", color::label2rgb(lab, {.colors = {"green", {0.1, 0.2, 0.3}, "navy"},
                                                             .bg_label = 3,
                                                             .bg_color = color::Color(0.5, 0.5, 1.0)}));
  expect_golden("label2rgb__image", color::label2rgb(lab, img));
  expect_golden("label2rgb__image_opts", color::label2rgb(lab, img, {.alpha = 0.5, .bg_label = 2,
                                                                     .bg_color = std::nullopt, .image_alpha = 0.7,
                                                                     .saturation = 0.5}));
  expect_golden("label2rgb__image_f32", color::label2rgb(lab, over255<float>(img), {.saturation = 1}));
  expect_golden("label2rgb__gray", color::label2rgb(lab, gray, {.alpha = 0.4, .bg_label = 5}));
  expect_golden("label2rgb__nobg", color::label2rgb(lab, {.bg_label = 100}));
  EXPECT_ARRAY_EQ(golden("label2rgb__avg"), color::label2rgb(lab, img, {.kind = color::Label2RgbKind::avg}));
  expect_golden("label2rgb__avg_f", color::label2rgb(lab, over255<double>(img), {.bg_label = -1, .bg_color = color::Color(0.2, 0.4, 0.6),
                                                                  .kind = color::Label2RgbKind::avg}));
  expect_golden("label2rgb__avg_gray", color::label2rgb(lab, gray, {.bg_label = 1, .kind = color::Label2RgbKind::avg}));
  expect_golden("label2rgb__c0", color::label2rgb(lab, img.transpose({2, 0, 1}), {.channel_axis = 0}));
  expect_golden("label2rgb__vol", color::label2rgb(golden("in_labels3")));
  expect_golden("label2rgb__image", color::label2rgb(strided_twin(lab), strided_twin(img)));
}

TEST(ColorDtype, Rules) {
  const Array u8 = cusktest::random_array({5, 6, 3}, DType::uint8, 1);
  const Array f32 = cusktest::random_array({5, 6, 3}, DType::float32, 2);
  EXPECT_EQ(color::rgb2lab(u8).dtype(), DType::float64);
  EXPECT_EQ(color::rgb2lab(f32).dtype(), DType::float32);
  EXPECT_EQ(color::rgb2hed(f32).dtype(), DType::float32);  // cuCIM's rule (scikit-image 0.26: float64)
  EXPECT_EQ(color::rgb2gray(f32).dtype(), DType::float32);
  EXPECT_EQ(color::rgb2gray(u8).shape(), (Shape{5, 6}));
  EXPECT_EQ(color::gray2rgb(u8.index(2, 0)).dtype(), DType::uint8);
  EXPECT_EQ(color::deltaE_cie76(f32, f32).dtype(), DType::float32);
  EXPECT_EQ(color::deltaE_cie76(f32, u8).dtype(), DType::float64);
  // bool and int32 go through img_as_float64.
  const Array b = cusktest::random_array({4, 3}, DType::bool_, 3);
  EXPECT_ARRAY_NEAR(color::rgb2xyz(b.astype(DType::float64)), color::rgb2xyz(b), 0, 0);
  const Array i32 = cusktest::random_array({4, 3}, DType::int32, 4);
  EXPECT_ARRAY_NEAR(color::rgb2hsv(cuskimage::util::img_as_float64(i32)), color::rgb2hsv(i32), 0, 0);
}

TEST(ColorDtype, EmptyAndDegenerate) {
  EXPECT_EQ(color::rgb2lab(Array::empty({0, 5, 3}, DType::uint8)).shape(), (Shape{0, 5, 3}));
  EXPECT_EQ(color::rgb2gray(Array::empty({0, 3}, DType::float32)).shape(), (Shape{0}));
  EXPECT_EQ(color::deltaE_ciede2000(Array::empty({0, 3}, DType::float64), Array::empty({0, 3}, DType::float64)).shape(),
            (Shape{0}));
  EXPECT_EQ(color::label2rgb(Array::empty({0, 4}, DType::int32)).shape(), (Shape{0, 4, 3}));
  // One pixel of shape (3,).
  const Array px = golden("in_px");
  expect_golden("rgb2lab__px", color::rgb2lab(px));
}

TEST(ColorBadInput, InvalidArgument) {
  const Array rgb = cusktest::random_array({4, 5, 3}, DType::float64, 1);
  const Array two = cusktest::random_array({4, 5, 2}, DType::float64, 2);
  for (const auto& [name, fn] : conversions()) {
    SCOPED_TRACE(name);
    EXPECT_THROW((void)fn(two, -1, {}), InvalidArgument);     // wrong channel count
    EXPECT_THROW((void)fn(rgb, 3, {}), InvalidArgument);      // channel_axis out of range
    EXPECT_THROW((void)fn(rgb, -4, {}), InvalidArgument);
    EXPECT_THROW((void)fn(Array(), -1, {}), InvalidArgument);  // empty handle
  }
  EXPECT_THROW((void)color::rgb2hsv(rgb, {.channel_axis = 0}), InvalidArgument);  // axis 0 has 4 entries
  EXPECT_THROW((void)color::rgba2rgb(rgb), InvalidArgument);
  EXPECT_THROW((void)color::rgba2rgb(cusktest::random_array({2, 4}, DType::float64, 3), {.background = {1.5, 0, 0}}),
               InvalidArgument);
  EXPECT_THROW((void)color::rgb2lab(rgb, {.illuminant = "D66"}), InvalidArgument);
  EXPECT_THROW((void)color::xyz2luv(rgb, {.observer = "5"}), InvalidArgument);
  EXPECT_THROW((void)color::xyz_tristimulus_values("F2", "2"), InvalidArgument);
  EXPECT_THROW((void)color::convert_colorspace(rgb, "RGB", "CMYK"), InvalidArgument);
  EXPECT_THROW((void)color::convert_colorspace(rgb, "lab", "RGB"), InvalidArgument);
  EXPECT_THROW((void)color::gray2rgb(rgb.index(2, 0), {.channel_axis = 3}), InvalidArgument);
  EXPECT_THROW((void)color::gray2rgba(rgb.index(2, 0), cusktest::random_array({3}, DType::float64, 4)),
               InvalidArgument);
  EXPECT_THROW((void)color::lab2lch(two), InvalidArgument);
  EXPECT_THROW((void)color::deltaE_cie76(rgb, two), InvalidArgument);
  EXPECT_THROW((void)color::deltaE_cmc(rgb, cusktest::random_array({3, 5, 3}, DType::float64, 5)), InvalidArgument);
  EXPECT_THROW((void)color::deltaE_ciede94(rgb, rgb, {.channel_axis = 5}), InvalidArgument);
  const Array lab = cusktest::random_array({4, 5}, DType::int32, 6, 0, 4);
  EXPECT_THROW((void)color::label2rgb(lab.astype(DType::float32)), InvalidArgument);
  EXPECT_THROW((void)color::label2rgb(lab, cusktest::random_array({4, 6, 3}, DType::float64, 7)), InvalidArgument);
  EXPECT_THROW((void)color::label2rgb(lab, cusktest::random_array({4, 5, 4}, DType::float64, 7)), InvalidArgument);
  EXPECT_THROW((void)color::label2rgb(lab, {.kind = color::Label2RgbKind::avg}), InvalidArgument);
  EXPECT_THROW((void)color::label2rgb(lab, {.colors = {"notacolour"}}), InvalidArgument);
  EXPECT_THROW((void)color::label2rgb(lab, rgb, {.channel_axis = 4}), InvalidArgument);
}

TEST(ColorLabel, ColorDict) {
  EXPECT_EQ(color::color_dict().size(), 146u);
  EXPECT_EQ(color::color_dict().at("darkorange"), (color::Rgb{1.0, 0.549, 0.0}));
  EXPECT_EQ(color::Color("red").rgb, (color::Rgb{1.0, 0.0, 0.0}));
}

TEST(ColorInto, EqualsReturningAndValidates) {
  const Array u8 = golden("in_astro");
  const Array f32 = golden("in_f32");
  Array lab = Array::empty({32, 32, 3}, DType::float64);
  color::rgb2lab_into(u8, lab);
  EXPECT_ARRAY_EQ(color::rgb2lab(u8), lab);
  Array hed = Array::empty({19, 13, 3}, DType::float32);
  color::rgb2hed_into(f32, hed);
  EXPECT_ARRAY_EQ(color::rgb2hed(f32), hed);
  Array back = Array::empty({19, 13, 3}, DType::float32);
  color::hed2rgb_into(hed, back);
  EXPECT_ARRAY_EQ(color::hed2rgb(hed), back);
  Array gray = Array::empty({32, 32}, DType::float64);
  color::rgb2gray_into(u8, gray);
  EXPECT_ARRAY_EQ(color::rgb2gray(u8), gray);
  // Into a strided view of a bigger buffer, channels first.
  Array big = Array::zeros({3, 40, 40}, DType::float64);
  Array view = big.slice({Slice{}, Slice{4, 36, 1}, Slice{2, 34, 1}});
  color::rgb2hsv_into(u8.transpose({2, 0, 1}), view, {.channel_axis = 0});
  EXPECT_ARRAY_EQ(color::rgb2hsv(u8).transpose({2, 0, 1}), view);
  Array rgb = Array::empty({32, 32, 3}, DType::float64);
  color::lab2rgb_into(lab, rgb, {.illuminant = "D50"});
  EXPECT_ARRAY_EQ(color::lab2rgb(lab, {.illuminant = "D50"}), rgb);
  Array hsv2 = Array::empty({32, 32, 3}, DType::float64);
  color::hsv2rgb_into(color::rgb2hsv(u8), hsv2);
  EXPECT_ARRAY_EQ(color::hsv2rgb(color::rgb2hsv(u8)), hsv2);
  // Wrong dtype, shape, channel count.
  Array wrong_dt = Array::empty({32, 32, 3}, DType::float32);
  EXPECT_THROW(color::rgb2lab_into(u8, wrong_dt), InvalidArgument);
  Array wrong_shape = Array::empty({32, 31, 3}, DType::float64);
  EXPECT_THROW(color::rgb2hed_into(u8, wrong_shape), InvalidArgument);
  Array gray3 = Array::empty({32, 32, 3}, DType::float64);
  EXPECT_THROW(color::rgb2gray_into(u8, gray3), InvalidArgument);
  EXPECT_THROW(color::separate_stains_into(golden("in_cam"), color::hdx_from_rgb, gray), InvalidArgument);
}
