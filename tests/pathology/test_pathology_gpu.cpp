// GPU tier of cuskimage::pathology: every function on device arrays equals the CPU backend bit for
// bit (fresh random inputs, 2-D and 3-D, channel-first and channel-last, strided views, several
// dtypes), the same seed makes the same random choice on both backends, goldens hold on the device,
// and everything runs on a non-default stream without touching the legacy default stream.
#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/pathology/pathology_test_common.hpp"

namespace path = cuskimage::pathology;
using namespace pathtest;

namespace {

Array dev(const Array& h, const Stream& s = {}) { return h.to(Device::cuda(), s); }

/// An H&E-like uint8 tile: random stain concentrations through the reference stain matrix, with a
/// transparent band (so the opaque mask matters) and noise.
Array he_like(const Shape& spatial, std::uint64_t seed) {
  Shape shape = spatial;
  shape.push_back(3);
  const Array c = cusktest::random_array(shape, DType::float64, seed, 0, 1);
  const auto v = c.to_vector<double>();
  std::vector<std::uint8_t> out(v.size());
  const double S[3][2] = {{0.5626, 0.2159}, {0.7201, 0.8012}, {0.4062, 0.5581}};
  const std::size_t n = v.size() / 3;
  for (std::size_t i = 0; i < n; ++i) {
    const double h = 2.0 * v[3 * i] * v[3 * i], e = 1.2 * v[3 * i + 1];
    const bool background = (i % 97) < 9;
    for (int k = 0; k < 3; ++k) {
      const double od = background ? 0.02 * v[3 * i + 2] : S[k][0] * h + S[k][1] * e;
      const double px = 240.0 * std::exp(-od) + 6.0 * (v[3 * i + 2] - 0.5);
      out[3 * i + k] = static_cast<std::uint8_t>(std::clamp(std::lround(px), 0L, 255L));
    }
  }
  return Array::from_vector(out, shape);
}

void expect_macenko_equal(const Array& host, const path::NormalizeColorsPcaOptions& o = {}) {
  const Array d = dev(host);
  const path::StainExtractionOptions so{.source_intensity = o.source_intensity, .alpha = o.alpha, .beta = o.beta,
                                        .channel_axis = o.channel_axis, .image_type = o.image_type};
  EXPECT_ARRAY_EQ(path::stain_extraction_pca(host, so), path::stain_extraction_pca(d, so)) << host.str();
  EXPECT_ARRAY_EQ(path::normalize_colors_pca(host, o), path::normalize_colors_pca(d, o)) << host.str();
}

}  // namespace

TEST(GpuPathology, AbsorbanceEqualsCpu) {
  CUSK_REQUIRE_GPU();
  for (DType dt : {DType::uint8, DType::uint16, DType::int32, DType::float32, DType::float64}) {
    const Array x = cusktest::random_array({37, 41, 3}, dt, 3, 0, 300);
    for (DType od : {DType::float32, DType::float64}) {
      const path::ImageToAbsorbanceOptions o{.source_intensity = 240, .dtype = od};
      EXPECT_ARRAY_EQ(path::image_to_absorbance(x, o), path::image_to_absorbance(dev(x), o));
      const Array v = x.slice({Slice{1, std::nullopt, 3}, Slice{std::nullopt, std::nullopt, -2}});
      EXPECT_ARRAY_EQ(path::image_to_absorbance(v, o), path::image_to_absorbance(dev(x).slice(
                                                           {Slice{1, std::nullopt, 3}, Slice{std::nullopt, std::nullopt, -2}}),
                                                       o));
    }
  }
  const Array a = cusktest::random_array({33, 29, 3}, DType::float32, 8, -0.5, 6);
  for (DType out : {DType::uint8, DType::uint16, DType::int32, DType::float32, DType::float64}) {
    const path::AbsorbanceToImageOptions o{.source_intensity = 250, .dtype = out};
    EXPECT_ARRAY_EQ(path::absorbance_to_image(a, o), path::absorbance_to_image(dev(a), o));
    EXPECT_ARRAY_EQ(path::absorbance_to_image(a.astype(DType::float64), o),
                    path::absorbance_to_image(dev(a).astype(DType::float64), o));
  }
}

TEST(GpuPathology, MacenkoEqualsCpu) {
  CUSK_REQUIRE_GPU();
  expect_macenko_equal(golden("in_he"));
  expect_macenko_equal(golden("in_ihc"));
  // multi-chunk (the fold level runs), odd sizes, 3-D volume
  expect_macenko_equal(he_like({517, 389}, 1));
  expect_macenko_equal(he_like({7, 61, 53}, 2));
  expect_macenko_equal(he_like({1, 4099}, 3), {.alpha = 2.5, .beta = 0.1});
  expect_macenko_equal(he_like({301, 257}, 4), {.source_intensity = 250, .alpha = 0, .beta = 0.2});
  // channel-first contiguous and as a transposed view; a strided view
  const Array he = he_like({211, 173}, 5);
  expect_macenko_equal(he.transpose({2, 0, 1}).copy(), {.channel_axis = 0});
  expect_macenko_equal(he.transpose({2, 0, 1}), {.channel_axis = 0});
  expect_macenko_equal(he.slice({Slice{3, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -3}}));
  // dtypes: uint16 (65536-entry table), float32 / float64 / int32 (planar optical density)
  expect_macenko_equal(he.astype(DType::uint16));
  expect_macenko_equal(he.astype(DType::float32));
  expect_macenko_equal(he.astype(DType::float64), {.source_intensity = 255});
  expect_macenko_equal(he.astype(DType::int32));
  expect_macenko_equal(path::image_to_absorbance(he, {.source_intensity = 240}),
                       {.image_type = path::ImageType::absorbance});
}

TEST(GpuPathology, MacenkoGoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  EXPECT_ARRAY_NEAR(golden("stain_he"), path::stain_extraction_pca(dev(golden("in_he"))), 0, 1e-6);
  EXPECT_TRUE(nearly_equal(golden("norm_he"), path::normalize_colors_pca(dev(golden("in_he"))), 1, 1e-3));
  EXPECT_TRUE(nearly_equal(golden("norm_he_cf"), path::normalize_colors_pca(dev(golden("in_he_cf")), {.channel_axis = 0}),
                           1, 1e-3));
}

TEST(GpuPathology, MacenkoAllTransparentIsNanOnDevice) {
  CUSK_REQUIRE_GPU();
  const Array white = dev(Array::full({16, 16, 3}, 250, DType::uint8));
  const auto v = cusktest::host_copy(path::stain_extraction_pca(white)).to_vector<float>();
  for (float x : v) EXPECT_TRUE(std::isnan(x));
}

TEST(GpuPathology, JitterEqualsCpu) {
  CUSK_REQUIRE_GPU();
  const Array rgb = cusktest::random_array({45, 67, 3}, DType::uint8, 21);
  const Array batch = cusktest::random_array({3, 31, 29, 3}, DType::uint8, 22);
  const std::vector<path::ColorJitterParams> ps = {
      {.brightness = 1.37},
      {.contrast = 0.61},
      {.saturation = 1.8},
      {.hue = 0.21},
      {.hue = -0.47},
      {.order = {3, 1, 0, 2}, .brightness = 0.8, .contrast = 1.3, .saturation = 0.4, .hue = -0.05}};
  for (const auto& p : ps) {
    EXPECT_ARRAY_EQ(path::adjust_colors(rgb, p), path::adjust_colors(dev(rgb), p));
    EXPECT_ARRAY_EQ(path::adjust_colors(batch, p), path::adjust_colors(dev(batch), p));
    const Array cf = rgb.transpose({2, 0, 1});
    EXPECT_ARRAY_EQ(path::adjust_colors(cf, p, 0), path::adjust_colors(dev(rgb).transpose({2, 0, 1}), p, 0));
    const Array bcf = batch.transpose({0, 3, 1, 2}).copy();
    EXPECT_ARRAY_EQ(path::adjust_colors(bcf, p, 1), path::adjust_colors(dev(bcf), p, 1));
    const Array v = rgb.slice({Slice{std::nullopt, std::nullopt, 2}, Slice{5, std::nullopt, 1}});
    EXPECT_ARRAY_EQ(path::adjust_colors(v, p), path::adjust_colors(dev(rgb).slice({Slice{std::nullopt, std::nullopt, 2},
                                                                                  Slice{5, std::nullopt, 1}}),
                                                                   p));
    EXPECT_ARRAY_EQ(path::adjust_colors(rgb.astype(DType::float32), p),
                    path::adjust_colors(dev(rgb).astype(DType::float32), p));
  }
  // same seed, same draw on both backends
  for (std::uint64_t seed : {0ull, 1ull, 77ull}) {
    const path::ColorJitterOptions o{.brightness = 0.4, .contrast = 0.4, .saturation = 0.4, .hue = 0.1, .seed = seed};
    EXPECT_ARRAY_EQ(path::color_jitter(rgb, o), path::color_jitter(dev(rgb), o));
    EXPECT_ARRAY_EQ(path::rand_color_jitter(batch, o, {.prob = 0.5}), path::rand_color_jitter(dev(batch), o, {.prob = 0.5}));
    EXPECT_ARRAY_EQ(path::rand_color_jitter(batch, o, {.prob = 0.5, .whole_batch = true}),
                    path::rand_color_jitter(dev(batch), o, {.prob = 0.5, .whole_batch = true}));
  }
}

TEST(GpuPathology, IntensityEqualsCpu) {
  CUSK_REQUIRE_GPU();
  for (DType dt : {DType::uint8, DType::int16, DType::float32, DType::float64}) {
    const Array x = cusktest::random_array({3, 41, 37}, dt, 31, -50, 250);
    const Array dx = dev(x);
    EXPECT_ARRAY_EQ(path::normalize_data(x, 10, 0, 255), path::normalize_data(dx, 10, 0, 255));
    EXPECT_ARRAY_EQ(path::normalize_data(x, 3, 5, 90, path::NormalizeType::atan),
                    path::normalize_data(dx, 3, 5, 90, path::NormalizeType::atan));
    for (bool clip : {false, true}) {
      const path::ScaleIntensityRangeOptions o{.a_min = -10, .a_max = 200, .b_min = 0, .b_max = 1, .clip = clip};
      EXPECT_ARRAY_EQ(path::scale_intensity_range(x, o), path::scale_intensity_range(dx, o));
    }
    const Array v = x.slice({Slice{}, Slice{std::nullopt, std::nullopt, -1}, Slice{1, std::nullopt, 2}});
    const Array dv = dx.slice({Slice{}, Slice{std::nullopt, std::nullopt, -1}, Slice{1, std::nullopt, 2}});
    EXPECT_ARRAY_EQ(path::normalize_data(v, 10, 0, 255), path::normalize_data(dv, 10, 0, 255));
  }
}

TEST(GpuPathology, ZoomEqualsCpu) {
  CUSK_REQUIRE_GPU();
  const std::vector<std::array<double, 2>> fs = {{1.5, 1.3}, {0.7, 0.6}, {2.0, 2.0}, {0.33, 0.5}, {3.7, 1.1}};
  for (DType dt : {DType::uint8, DType::float32, DType::float64}) {
    const Array x = cusktest::random_array({2, 3, 29, 35}, dt, 41, 0, 255);
    for (const auto& f : fs)
      for (auto m : {path::ZoomInterpolation::area, path::ZoomInterpolation::nearest, path::ZoomInterpolation::bilinear}) {
        EXPECT_ARRAY_EQ(path::zoom(x, f, {.interpolation = m}), path::zoom(dev(x), f, {.interpolation = m}));
        const Array cl = x.transpose({0, 2, 3, 1});  // channel-last view
        EXPECT_ARRAY_EQ(path::zoom(cl, f, {.interpolation = m, .spatial_axis = {1, 2}}),
                        path::zoom(dev(x).transpose({0, 2, 3, 1}), f, {.interpolation = m, .spatial_axis = {1, 2}}));
      }
  }
  const Array img = cusktest::random_array({64, 48, 3}, DType::uint8, 42);
  for (std::uint64_t seed = 0; seed < 6; ++seed) {
    const path::RandZoomOptions o{.min_zoom = {0.6, 1.2}, .max_zoom = {0.9, 1.5}, .prob = 0.7, .seed = seed,
                                  .zoom = {.spatial_axis = {0, 1}}};
    // mixed directions are refused on both backends alike
    bool cpu_threw = false, gpu_threw = false;
    Array a, b;
    try { a = path::rand_zoom(img, o); } catch (const cuskimage::InvalidArgument&) { cpu_threw = true; }
    try { b = path::rand_zoom(dev(img), o); } catch (const cuskimage::InvalidArgument&) { gpu_threw = true; }
    EXPECT_EQ(cpu_threw, gpu_threw);
    if (!cpu_threw) EXPECT_ARRAY_EQ(a, b);
    const path::RandZoomOptions o2{.min_zoom = {1.1}, .max_zoom = {1.9}, .prob = 0.7, .seed = seed,
                                   .zoom = {.spatial_axis = {0, 1}}};
    EXPECT_ARRAY_EQ(path::rand_zoom(img, o2), path::rand_zoom(dev(img), o2));
  }
}

TEST(GpuPathology, SpatialEqualsCpu) {
  CUSK_REQUIRE_GPU();
  const Array x = cusktest::random_array({2, 3, 19, 23}, DType::uint16, 51);
  const Array dx = dev(x);
  EXPECT_ARRAY_EQ(path::image_flip(x, {2, 3}), path::image_flip(dx, {2, 3}));
  EXPECT_ARRAY_EQ(path::image_flip(x, {0, -1}), path::image_flip(dx, {0, -1}));
  for (int k = -1; k <= 4; ++k) {
    EXPECT_ARRAY_EQ(path::image_rotate_90(x, k, {2, 3}), path::image_rotate_90(dx, k, {2, 3}));
    EXPECT_ARRAY_EQ(path::image_rotate_90(x, k, {3, 1}), path::image_rotate_90(dx, k, {3, 1}));
  }
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    EXPECT_ARRAY_EQ(path::rand_image_flip(x, {2}, {.prob = 0.5, .seed = seed}),
                    path::rand_image_flip(dx, {2}, {.prob = 0.5, .seed = seed}));
    EXPECT_ARRAY_EQ(path::rand_image_rotate_90(x, {2, 3}, {.prob = 0.5, .max_k = 3, .seed = seed}),
                    path::rand_image_rotate_90(dx, {2, 3}, {.prob = 0.5, .max_k = 3, .seed = seed}));
  }
}

TEST(GpuPathology, NonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Array he = he_like({300, 280}, 61);
  const Array dhe = dev(he);
  const Array batch = dev(cusktest::random_array({2, 3, 40, 44}, DType::uint8, 62));
  Stream().synchronize();
  Array r_norm, r_stain, r_od, r_img, r_jit, r_int, r_zoom, r_flip, r_rot;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    r_norm = path::normalize_colors_pca(dhe, {}, s);
    r_stain = path::stain_extraction_pca(dhe, {}, s);
    r_od = path::image_to_absorbance(dhe, {.source_intensity = 240}, s);
    r_img = path::absorbance_to_image(r_od, {.source_intensity = 240}, s);
    r_jit = path::color_jitter(batch, {.brightness = 0.3, .contrast = 0.3, .saturation = 0.3, .hue = 0.1,
                                       .channel_axis = 1, .seed = 5}, s);
    r_int = path::scale_intensity_range(batch, {.a_min = 0, .a_max = 255, .b_min = 0, .b_max = 1}, s);
    r_zoom = path::zoom(batch, {1.3, 1.3}, {}, s);
    r_flip = path::image_flip(batch, {2, 3}, s);
    r_rot = path::image_rotate_90(batch, 1, {2, 3}, s);
    s.synchronize();
  }));
  EXPECT_ARRAY_EQ(path::normalize_colors_pca(he), r_norm);
  EXPECT_ARRAY_EQ(path::stain_extraction_pca(he), r_stain);
  EXPECT_ARRAY_EQ(path::image_to_absorbance(he, {.source_intensity = 240}), r_od);
  const Array hb = cusktest::host_copy(batch);
  EXPECT_ARRAY_EQ(path::color_jitter(hb, {.brightness = 0.3, .contrast = 0.3, .saturation = 0.3, .hue = 0.1,
                                          .channel_axis = 1, .seed = 5}),
                  r_jit);
  EXPECT_ARRAY_EQ(path::zoom(hb, {1.3, 1.3}), r_zoom);
  EXPECT_ARRAY_EQ(path::image_rotate_90(hb, 1, {2, 3}), r_rot);
}

TEST(GpuPathology, ReinhardEqualsCpu) {
  CUSK_REQUIRE_GPU();
  // color::rgb2lab / lab2rgb on CUDA use the device's cbrt / pow, a few ulps from the host's: the
  // statistics agree to ~1e-12 and the uint8 result up to a rare rounding flip.
  const Array he = he_like({257, 311}, 71), ihc = golden("in_ihc");
  const auto target = path::lab_stats(ihc);
  const auto dt = path::lab_stats(dev(ihc));
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(target.mean[c], dt.mean[c], 1e-10 * (1 + std::fabs(target.mean[c])));
    EXPECT_NEAR(target.std[c], dt.std[c], 1e-10 * (1 + target.std[c]));
  }
  EXPECT_TRUE(nearly_equal(path::normalize_reinhard(he, {.target = target}),
                           path::normalize_reinhard(dev(he), {.target = target}), 1, 1e-3));
  const Array v = he.slice({Slice{std::nullopt, std::nullopt, 2}});
  EXPECT_TRUE(nearly_equal(path::normalize_reinhard(v, {.target = target}),
                           path::normalize_reinhard(dev(he).slice({Slice{std::nullopt, std::nullopt, 2}}), {.target = target}),
                           1, 1e-3));
  const Array f = he.astype(DType::float32);
  EXPECT_ARRAY_NEAR(path::normalize_reinhard(f, {.target = target}), path::normalize_reinhard(dev(f), {.target = target}),
                    0, 1e-5);
}

TEST(GpuPathology, ReinhardNoLegacyStream) {
  // Timing based (the legacy stream is held busy): not under memcheck.
  CUSK_REQUIRE_GPU();
  const Array he = he_like({257, 311}, 71);
  const auto target = path::lab_stats(golden("in_ihc"));
  Array r;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    r = path::normalize_reinhard(dev(he, s), {.target = target}, s);
    s.synchronize();
  }));
  EXPECT_TRUE(nearly_equal(path::normalize_reinhard(he, {.target = target}), r, 1, 1e-3));
}
