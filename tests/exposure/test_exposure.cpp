// skimage.exposure on CPU arrays against scikit-image 0.26 goldens (tests/golden/cases_exposure.py).
// Tolerances: histograms, bin centers, cdfs, integer results and equalize_adapthist exact;
// float results of equalize_hist / rescale_intensity / match_histograms within 1 ulp-ish (rtol
// 1e-6 float32, 1e-12 float64); adjust_* (libm pow/exp/log2 versus NumPy's SIMD versions) within
// 1 of integer results and rtol 1e-6 / 1e-12 of float results; the RGB CLAHE (rgb2hsv round
// trip) 1e-6 / 1e-12.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cuskimage/exposure.hpp"
#include "tests/common/test_support.hpp"

namespace ex = cuskimage::exposure;
using cuskimage::Array;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Slice;

namespace {

Array in(const std::string& name) { return cusktest::load_golden("exposure/in_" + name + ".npy"); }
Array gold(const std::string& name) { return cusktest::load_golden("exposure/" + name + ".npy"); }

/// rtol for float results of dtype dt (exact for integers).
double ftol(DType dt) { return dt == DType::float32 ? 1e-6 : 1e-12; }

void expect_close(const Array& expected, const Array& actual, double int_atol = 0) {
  ASSERT_EQ(expected.dtype(), actual.dtype());
  if (cuskimage::is_floating(expected.dtype()))
    EXPECT_ARRAY_NEAR(expected, actual, ftol(expected.dtype()), ftol(expected.dtype()));
  else if (int_atol == 0)
    EXPECT_ARRAY_EQ(expected, actual);
  else
    EXPECT_ARRAY_NEAR(expected, actual, 0, int_atol);
}

}  // namespace

TEST(ExposureHistogram, Golden) {
  struct Case {
    std::string name, input;
    ex::HistogramOptions o;
  };
  const std::vector<Case> cases = {
      {"cam", "cam", {}},
      {"u16", "u16", {}},
      {"i16", "i16", {}},
      {"f32", "f32", {}},
      {"f64", "f64", {.nbins = 37}},
      {"f64neg", "f64neg", {.nbins = 10}},
      {"cam_dtype", "cam", {.source_range = ex::SourceRange::dtype}},
      {"i16_norm", "i16", {.normalize = true}},
      {"f32_dtype", "f32", {.nbins = 33, .source_range = ex::SourceRange::dtype}},
      {"f64neg_dtype", "f64neg", {.nbins = 16, .source_range = ex::SourceRange::dtype}},
      {"rgb_ch", "rgb", {.channel_axis = -1}},
      {"rgbf_ch", "rgbf", {.nbins = 50, .channel_axis = 2}},
      {"rgbf_ch_norm", "rgbf", {.nbins = 20, .normalize = true, .channel_axis = -1}},
      {"vol", "vol", {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const auto r = ex::histogram(in(c.input), c.o);
    const Array eh = gold("hist_" + c.name);
    if (eh.dtype() == DType::float64) EXPECT_ARRAY_NEAR(eh, r.hist, 1e-15, 0);
    else EXPECT_ARRAY_EQ(eh, r.hist);
    EXPECT_ARRAY_EQ(gold("centers_" + c.name), r.bin_centers);
  }
}

TEST(ExposureHistogram, CumulativeDistribution) {
  for (const std::string name : {"cam", "u16", "i16", "f32", "f64"}) {
    SCOPED_TRACE(name);
    const auto r = ex::cumulative_distribution(in(name), {.nbins = name == "f64" ? 100 : 256});
    EXPECT_ARRAY_EQ(gold("cdf_" + name), r.cdf);
    EXPECT_ARRAY_EQ(gold("cdfcenters_" + name), r.bin_centers);
  }
}

TEST(ExposureHistogram, StridedViewAndErrors) {
  const Array cam = in("cam");
  const Array view = cam.slice({Slice{std::nullopt, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -3}});
  const auto a = ex::histogram(view);
  const auto b = ex::histogram(view.copy());
  EXPECT_ARRAY_EQ(b.hist, a.hist);
  EXPECT_ARRAY_EQ(b.bin_centers, a.bin_centers);
  EXPECT_THROW(ex::histogram(cam, {.channel_axis = 2}), InvalidArgument);
  EXPECT_THROW(ex::histogram(in("f32"), {.nbins = 0}), InvalidArgument);
  EXPECT_THROW(ex::histogram(Array::empty({0, 3}, DType::uint8)), InvalidArgument);
  EXPECT_THROW(ex::histogram(Array::zeros({3, 3}, DType::uint32)), InvalidArgument);
  EXPECT_THROW(ex::source_range_from_name("full"), InvalidArgument);
  const Array inf = Array::from_vector<double>({0.0, INFINITY}, {2});
  EXPECT_THROW(ex::histogram(inf), InvalidArgument);
}

TEST(ExposureEqualizeHist, Golden) {
  for (const std::string name : {"cam", "u8", "u16", "i16", "f32", "f64", "f64neg", "vol"}) {
    SCOPED_TRACE(name);
    expect_close(gold("eqhist_" + name), ex::equalize_hist(in(name)));
  }
  expect_close(gold("eqhist_f64_nbins17"), ex::equalize_hist(in("f64"), {.nbins = 17}));
  const Array mask = gold("mask_cam");
  expect_close(gold("eqhist_cam_mask"), ex::equalize_hist(in("cam"), {.mask = mask.share()}));
  const Array mhalf = mask.slice({Slice{std::nullopt, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, 2}});
  expect_close(gold("eqhist_f32_mask"), ex::equalize_hist(in("f32"), {.mask = mhalf.share()}));
  // A uint8 0/1 mask is the same mask.
  expect_close(gold("eqhist_cam_mask"), ex::equalize_hist(in("cam"), {.mask = mask.astype(DType::uint8)}));
  EXPECT_THROW(ex::equalize_hist(in("cam"), {.mask = Array::zeros({128, 128}, DType::bool_)}), InvalidArgument);
  EXPECT_THROW(ex::equalize_hist(in("cam"), {.mask = Array::zeros({12, 128}, DType::bool_)}), InvalidArgument);
}

TEST(ExposureClahe, Golden2D) {
  struct Case {
    std::string name, input;
    ex::EqualizeAdapthistOptions o;
  };
  const std::vector<Case> cases = {
      {"cam", "cam", {}},
      {"cam_k17", "cam", {.kernel_size = {17}, .clip_limit = 0.03, .nbins = 128}},
      {"cam_ahe", "cam", {.kernel_size = {20, 30}, .clip_limit = 0}},
      {"cam_big", "cam", {.kernel_size = {300}, .clip_limit = 0.2}},
      {"cam_tiny", "cam", {.kernel_size = {30}, .clip_limit = 0.003}},
      {"u8", "u8", {.kernel_size = {7, 9}}},
      {"u16", "u16", {.nbins = 64}},
      {"f32", "f32", {.clip_limit = 0.05}},
      {"f64", "f64", {.kernel_size = {8}, .nbins = 1000}},
      {"i16", "i16", {}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    EXPECT_ARRAY_EQ(gold("clahe_" + c.name), ex::equalize_adapthist(in(c.input), c.o));
  }
}

TEST(ExposureClahe, Golden3DAndRgb) {
  EXPECT_ARRAY_EQ(gold("clahe_vol"), ex::equalize_adapthist(in("vol"), {.kernel_size = {5, 6, 7}}));
  EXPECT_ARRAY_EQ(gold("clahe_volf"), ex::equalize_adapthist(in("volf")));
  EXPECT_ARRAY_NEAR(gold("clahe_rgb"), ex::equalize_adapthist(in("rgb")), 1e-12, 1e-12);
  EXPECT_ARRAY_NEAR(gold("clahe_rgbf"), ex::equalize_adapthist(in("rgbf"), {.kernel_size = {9}}), 1e-6, 1e-6);
  EXPECT_ARRAY_NEAR(gold("clahe_rgba"), ex::equalize_adapthist(in("rgba")), 1e-12, 1e-12);
  // channel_axis first: the same image with its channels moved.
  const Array rgb_first = in("rgb").transpose({2, 0, 1});
  const Array r = ex::equalize_adapthist(rgb_first, {.channel_axis = 0});
  EXPECT_ARRAY_NEAR(gold("clahe_rgb").transpose({2, 0, 1}), r, 1e-12, 1e-12);
}

TEST(ExposureClahe, StridedAndErrors) {
  const Array cam = in("cam");
  const Array view = cam.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -1}});
  EXPECT_ARRAY_EQ(ex::equalize_adapthist(view.copy(), {.kernel_size = {9, 13}}),
                  ex::equalize_adapthist(view, {.kernel_size = {9, 13}}));
  // A (Z, Y, 3) volume as grey with detect_rgb off differs from the RGB reading.
  const Array vol3 = cusktest::random_array({9, 10, 3}, DType::uint8, 3);
  EXPECT_EQ(ex::equalize_adapthist(vol3, {.detect_rgb = false}).shape(), (cuskimage::Shape{9, 10, 3}));
  EXPECT_THROW(ex::equalize_adapthist(cam, {.kernel_size = {3, 4, 5}}), InvalidArgument);
  EXPECT_THROW(ex::equalize_adapthist(cam, {.kernel_size = {0}}), InvalidArgument);
  EXPECT_THROW(ex::equalize_adapthist(cam, {.nbins = 0}), InvalidArgument);
  EXPECT_THROW(ex::equalize_adapthist(cam, {.channel_axis = 1}), InvalidArgument);   // 128 channels
  EXPECT_THROW(ex::equalize_adapthist(cam, {.channel_axis = 5}), InvalidArgument);   // out of range
  EXPECT_THROW(ex::equalize_adapthist(Array::zeros({4}, DType::uint8)), InvalidArgument);
  EXPECT_THROW(ex::equalize_adapthist(Array::full({4, 4}, 2.0, DType::float32)), InvalidArgument);  // > 1
}

TEST(ExposureRescale, Golden) {
  struct Case {
    std::string name, input;
    ex::RescaleIntensityOptions o;
  };
  const std::vector<Case> cases = {
      {"cam", "cam", {}},
      {"cam_in", "cam", {.in_range = {50, 180}}},
      {"cam_out", "cam", {.out_range = {0, 127}}},
      {"cam_f32", "cam", {.out_range = "float32"}},
      {"cam_u12", "cam", {.out_range = "uint12"}},
      {"i16", "i16", {}},
      {"i16_dtype", "i16", {.in_range = "dtype"}},
      {"i16_out_u8", "i16", {.out_range = "uint8"}},
      {"i16_image", "i16", {.in_range = {0, 500}, .out_range = "image"}},
      {"f32", "f32", {}},
      {"f32_pair", "f32", {.in_range = {0.2, 0.7}, .out_range = {-1, 3}}},
      {"f64neg", "f64neg", {}},
      {"f64neg_dtype", "f64neg", {.in_range = "dtype"}},
      {"f64neg_int8", "f64neg", {.out_range = "int8"}},
      {"u16_const", "u16", {.in_range = {7, 7}}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    expect_close(gold("rescale_" + c.name), ex::rescale_intensity(in(c.input), c.o));
  }
  EXPECT_THROW(ex::rescale_intensity(in("cam"), {.out_range = "uint13"}), InvalidArgument);
  EXPECT_THROW(ex::rescale_intensity(in("cam"), {.in_range = "float128"}), InvalidArgument);
}

TEST(ExposureAdjust, Golden) {
  for (const std::string name : {"cam", "u16", "f32", "f64"}) {
    SCOPED_TRACE(name);
    const Array img = in(name);
    const double atol = name == "cam" ? 0 : 1;
    expect_close(gold("gamma_" + name), ex::adjust_gamma(img, {.gamma = 2.2, .gain = 0.9}), name == "cam" ? 0 : atol);
    expect_close(gold("gamma05_" + name), ex::adjust_gamma(img, {.gamma = 0.5}), name == "cam" ? 0 : atol);
    expect_close(gold("log_" + name), ex::adjust_log(img, {.gain = 0.8}), 1);
    expect_close(gold("loginv_" + name), ex::adjust_log(img, {.gain = 1.1, .inv = true}), 1);
    expect_close(gold("sigmoid_" + name), ex::adjust_sigmoid(img, {.cutoff = 0.4, .gain = 7}), 1);
    expect_close(gold("sigmoidinv_" + name), ex::adjust_sigmoid(img, {.cutoff = 0.6, .gain = 5, .inv = true}), 1);
  }
}

TEST(ExposureAdjust, Errors) {
  EXPECT_THROW(ex::adjust_gamma(in("cam"), {.gamma = -1}), InvalidArgument);
  EXPECT_THROW(ex::adjust_gamma(in("i16"), {.gamma = 2}), InvalidArgument);  // negative pixels
  EXPECT_THROW(ex::adjust_log(in("f64neg")), InvalidArgument);
  EXPECT_THROW(ex::adjust_sigmoid(in("f64neg")), InvalidArgument);
  EXPECT_THROW(ex::adjust_log(Array::zeros({3}, DType::bool_)), InvalidArgument);
  // Strided input gives the contiguous result.
  const Array v = in("cam").slice({Slice{std::nullopt, std::nullopt, 3}, Slice{5, 90, 2}});
  EXPECT_ARRAY_EQ(ex::adjust_gamma(v.copy(), {.gamma = 1.7}), ex::adjust_gamma(v, {.gamma = 1.7}));
  EXPECT_ARRAY_EQ(ex::adjust_sigmoid(v.copy()), ex::adjust_sigmoid(v));
}

TEST(ExposureMatch, Golden) {
  const Array coins = in("coins");
  EXPECT_ARRAY_NEAR(gold("match_cam_coins"), ex::match_histograms(in("cam"), coins), 1e-12, 1e-12);
  EXPECT_ARRAY_NEAR(gold("match_f32"), ex::match_histograms(in("f32"), in("ref_f32")), 1e-6, 1e-7);
  EXPECT_ARRAY_NEAR(gold("match_i16_f64"), ex::match_histograms(in("i16"), in("f64")), 1e-12, 1e-12);
  EXPECT_ARRAY_EQ(gold("match_rgb_ch"), ex::match_histograms(in("rgb"), in("ref_rgb"), {.channel_axis = -1}));
  const Array ref_f = in("ref_rgb").astype(DType::float32);
  // ref_rgb.astype(float32) / 255 in float32, as the golden's reference.
  Array ref_scaled = ex::rescale_intensity(ref_f, {.in_range = {0, 255}, .out_range = {0, 1}});
  EXPECT_ARRAY_NEAR(gold("match_rgbf_ch"), ex::match_histograms(in("rgbf"), ref_scaled, {.channel_axis = -1}), 1e-6,
                    1e-7);
  EXPECT_THROW(ex::match_histograms(in("cam"), in("rgb")), InvalidArgument);  // ndim
  EXPECT_THROW(ex::match_histograms(in("rgb"), in("rgba"), {.channel_axis = -1}), InvalidArgument);
  EXPECT_THROW(ex::match_histograms(in("cam"), in("f64")), InvalidArgument);  // bincount of floats
  EXPECT_THROW(ex::match_histograms(in("rgb"), in("ref_rgb"), {.channel_axis = 3}), InvalidArgument);
}

TEST(ExposureLowContrast, Golden) {
  const auto e = gold("lowcontrast").to_vector<bool>();
  const Array cam = in("cam"), u16 = in("u16"), f32 = in("f32"), f64 = in("f64"), i16 = in("i16");
  auto low_cam = ex::rescale_intensity(cam, {.in_range = {0, 255}, .out_range = {100, 112.75}});
  std::vector<bool> r;
  r.push_back(ex::is_low_contrast(cam));
  // (cam // 20 + 100).astype(uint8)
  Array cam2 = cam.astype(DType::int32);
  {
    auto v = cam.to_vector<int>();
    std::vector<std::uint8_t> w;
    for (int x : v) w.push_back(static_cast<std::uint8_t>(x / 20 + 100));
    cam2 = Array::from_vector(w, cam.shape());
  }
  r.push_back(ex::is_low_contrast(cam2));
  r.push_back(ex::is_low_contrast(u16));
  {
    auto v = u16.to_vector<int>();
    std::vector<std::uint16_t> w;
    for (int x : v) w.push_back(static_cast<std::uint16_t>(x / 40));
    r.push_back(ex::is_low_contrast(Array::from_vector(w, u16.shape())));
  }
  r.push_back(ex::is_low_contrast(f32));
  {
    auto v = f32.to_vector<float>();
    for (auto& x : v) x = x * 0.05f;
    r.push_back(ex::is_low_contrast(Array::from_vector(v, f32.shape())));
  }
  r.push_back(ex::is_low_contrast(in("rgb")));
  r.push_back(ex::is_low_contrast(in("rgba")));
  r.push_back(ex::is_low_contrast(f64, {.fraction_threshold = 0.6, .lower_percentile = 10, .upper_percentile = 90}));
  r.push_back(ex::is_low_contrast(f64, {.fraction_threshold = 0.4, .lower_percentile = 10, .upper_percentile = 90}));
  {
    auto v = cam.to_vector<int>();
    std::vector<bool> w;
    for (int x : v) w.push_back(x > 100);
    std::vector<std::uint8_t> wb(w.begin(), w.end());
    r.push_back(ex::is_low_contrast(Array::from_vector(wb, cam.shape()).astype(DType::bool_)));
  }
  r.push_back(ex::is_low_contrast(Array::zeros({4, 4}, DType::bool_)));
  r.push_back(ex::is_low_contrast(i16, {.fraction_threshold = 0.0178}));
  r.push_back(ex::is_low_contrast(i16, {.fraction_threshold = 0.0177}));
  ASSERT_EQ(e.size(), r.size());
  for (std::size_t i = 0; i < e.size(); ++i) EXPECT_EQ(e[i], r[i]) << "case " << i;
  EXPECT_THROW(ex::is_low_contrast(cam, {.method = "log"}), InvalidArgument);
  EXPECT_THROW(ex::is_low_contrast(cam, {.upper_percentile = 101}), InvalidArgument);
  (void)low_cam;
}
