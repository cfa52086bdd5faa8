// CPU tier of cuskimage::pathology: golden parity with the NumPy transcriptions of cuCIM's
// algorithms (tests/golden/cases_pathology.py), layouts and strided views, seeded randomness and
// the typed errors of bad input.
#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <vector>

#include "tests/pathology/pathology_test_common.hpp"

namespace path = cuskimage::pathology;
using namespace pathtest;
using cuskimage::InvalidArgument;

namespace {

Array channel_first_view(const Array& hwc) { return hwc.transpose({2, 0, 1}); }

}  // namespace

// ---- optical density ------------------------------------------------------------------------------

TEST(PathologyAbsorbance, MatchesGolden) {
  const Array he = golden("in_he");
  // float32 log: ours is the correctly rounded double log rounded once; NumPy's float32 log is
  // within an ulp of it.
  EXPECT_ARRAY_NEAR(golden("absorb_he_f32"), path::image_to_absorbance(he), 2e-7, 1e-7);
  EXPECT_ARRAY_NEAR(golden("absorb_he_240_f64"),
                    path::image_to_absorbance(he, {.source_intensity = 240, .dtype = DType::float64}), 1e-15, 1e-15);
  EXPECT_ARRAY_NEAR(golden("absorb_float_1"), path::image_to_absorbance(golden("in_float"), {.source_intensity = 1}),
                    2e-7, 1e-7);
}

TEST(PathologyAbsorbance, ToImageMatchesGolden) {
  const Array a = path::image_to_absorbance(golden("in_he"), {.source_intensity = 240});
  // exp(-a) * 240 rounded: a float32 exp an ulp apart may flip a .5 rounding, never more.
  EXPECT_TRUE(nearly_equal(golden("to_image_he_u8"), path::absorbance_to_image(a, {.source_intensity = 240}), 1, 1e-3));
  EXPECT_TRUE(nearly_equal(golden("to_image_he_u16"),
                           path::absorbance_to_image(a, {.source_intensity = 240, .dtype = DType::uint16}), 1, 1e-3));
  EXPECT_ARRAY_NEAR(golden("to_image_he_f32"),
                    path::absorbance_to_image(a, {.source_intensity = 240, .dtype = DType::float32}), 3e-7, 0);
}

TEST(PathologyAbsorbance, RoundTripAndErrors) {
  const Array he = golden("in_he");
  const Array back = path::absorbance_to_image(path::image_to_absorbance(he, {.source_intensity = 255}));
  // Pixels >= 1 survive the round trip exactly (0 is clipped to 1).
  const auto a = he.to_vector<int>(), b = back.to_vector<int>();
  for (std::size_t i = 0; i < a.size(); ++i) ASSERT_EQ(std::max(a[i], 1), b[i]) << i;
  EXPECT_THROW(path::image_to_absorbance(he, {.dtype = DType::uint8}), InvalidArgument);
  EXPECT_THROW(path::image_to_absorbance(he, {.source_intensity = -1}), InvalidArgument);
  EXPECT_THROW(path::absorbance_to_image(he, {.source_intensity = -1}), InvalidArgument);
}

// ---- Macenko ----------------------------------------------------------------------------------------

TEST(PathologyMacenko, StainExtractionMatchesGolden) {
  // cuCIM computes the covariance and eigenvectors in float32 and arctan2 on float32 projections;
  // we use double moments, a double Jacobi solver and a pseudo-angle: a few float32 ulps apart.
  EXPECT_ARRAY_NEAR(golden("stain_he"), path::stain_extraction_pca(golden("in_he")), 0, 1e-6);
  EXPECT_ARRAY_NEAR(golden("stain_ihc"), path::stain_extraction_pca(golden("in_ihc")), 0, 1e-6);
  EXPECT_ARRAY_NEAR(golden("stain_he_a5_b02"),
                    path::stain_extraction_pca(golden("in_he"), {.source_intensity = 250, .alpha = 5, .beta = 0.2}), 0,
                    1e-6);
  EXPECT_ARRAY_NEAR(golden("stain_he_cf"), path::stain_extraction_pca(golden("in_he_cf"), {.channel_axis = 0}), 0, 1e-6);
}

TEST(PathologyMacenko, StainColumnsAreUnitAndHematoxylinFirst) {
  const Array s = path::stain_extraction_pca(golden("in_he"));
  const auto v = s.to_vector<double>();
  for (int j = 0; j < 2; ++j)
    EXPECT_NEAR(v[0 * 2 + j] * v[0 * 2 + j] + v[1 * 2 + j] * v[1 * 2 + j] + v[2 * 2 + j] * v[2 * 2 + j], 1.0, 1e-6);
  EXPECT_GE(v[0], v[1]);  // R coefficient of H >= that of E
}

TEST(PathologyMacenko, NormalizeMatchesGolden) {
  // uint8 results: the stain fit differs from cuCIM's float32 path by float32 ulps, which could move
  // a pixel across a rounding boundary (none does on these tiles).
  EXPECT_TRUE(nearly_equal(golden("norm_he"), path::normalize_colors_pca(golden("in_he")), 1, 1e-3));
  EXPECT_TRUE(nearly_equal(golden("norm_ihc"), path::normalize_colors_pca(golden("in_ihc")), 1, 1e-3));
  EXPECT_TRUE(nearly_equal(golden("norm_he_a3"),
                           path::normalize_colors_pca(golden("in_he"), {.source_intensity = 250, .alpha = 3}), 1, 1e-3));
  EXPECT_TRUE(nearly_equal(golden("norm_he_cf"), path::normalize_colors_pca(golden("in_he_cf"), {.channel_axis = 0}), 1,
                           1e-3));
}

TEST(PathologyMacenko, LayoutsAndStridedViewsGiveTheSameResult) {
  const Array he = golden("in_he");
  const Array ref = path::normalize_colors_pca(he);
  const Array ref_s = path::stain_extraction_pca(he);
  // channel-first view of the same pixels (non-contiguous)
  const Array cf = path::normalize_colors_pca(channel_first_view(he), {.channel_axis = 0});
  EXPECT_ARRAY_EQ(ref, cf.transpose({1, 2, 0}).copy());
  EXPECT_ARRAY_EQ(ref_s, path::stain_extraction_pca(channel_first_view(he), {.channel_axis = 0}));
  // a strided view: every other row of a bigger image equals the same pixels made contiguous
  const Array big = cusktest::random_array({60, 50, 3}, DType::uint8, 5, 40, 230);
  const Array view = big.slice({Slice{0, std::nullopt, 2}, Slice{1, std::nullopt, 1}});
  EXPECT_ARRAY_EQ(path::normalize_colors_pca(view.copy()), path::normalize_colors_pca(view));
  EXPECT_ARRAY_EQ(path::stain_extraction_pca(view.copy()), path::stain_extraction_pca(view));
}

TEST(PathologyMacenko, DtypesAndAbsorbanceInput) {
  const Array he = golden("in_he");
  // uint16 input of the same values gives the uint8 result (LUT vs planar paths on CUDA).
  const Array he16 = he.astype(DType::uint16);
  EXPECT_ARRAY_EQ(path::normalize_colors_pca(he), path::normalize_colors_pca(he16));
  // absorbance input equals intensity input converted first
  const Array od = path::image_to_absorbance(he, {.source_intensity = 240});
  EXPECT_ARRAY_EQ(path::stain_extraction_pca(he),
                  path::stain_extraction_pca(od, {.image_type = path::ImageType::absorbance}));
  EXPECT_ARRAY_EQ(path::normalize_colors_pca(he), path::normalize_colors_pca(od, {.image_type = path::ImageType::absorbance}));
  // 3-D volumes and 1-D pixel lists are fine: only the channel axis matters
  const Array flat = he.reshape({he.shape(0) * he.shape(1), 3});
  EXPECT_ARRAY_EQ(path::normalize_colors_pca(he).reshape({flat.shape(0), 3}), path::normalize_colors_pca(flat));
}

TEST(PathologyMacenko, BadInput) {
  const Array he = golden("in_he");
  EXPECT_THROW(path::stain_extraction_pca(he, {.channel_axis = 0}), InvalidArgument);   // 40 channels
  EXPECT_THROW(path::stain_extraction_pca(he, {.channel_axis = 3}), InvalidArgument);   // out of range
  EXPECT_THROW(path::stain_extraction_pca(he.slice({Slice{}, Slice{}, Slice{0, 2}})), InvalidArgument);
  EXPECT_THROW(path::stain_extraction_pca(he, {.alpha = -1}), InvalidArgument);
  EXPECT_THROW(path::stain_extraction_pca(he, {.alpha = 101}), InvalidArgument);
  EXPECT_THROW(path::normalize_colors_pca(he, {.alpha = 100.5}), InvalidArgument);
  EXPECT_THROW(path::stain_extraction_pca(he, {.beta = -0.1}), InvalidArgument);
  Array neg = he.astype(DType::float32);
  neg.slice({Slice{0, 1}, Slice{0, 1}}).fill(-1.0);
  EXPECT_THROW(path::stain_extraction_pca(neg), InvalidArgument);
  // everything transparent
  const Array white = Array::full({8, 8, 3}, 250, DType::uint8);
  EXPECT_THROW(path::stain_extraction_pca(white), InvalidArgument);
  EXPECT_THROW(path::normalize_colors_pca(white), InvalidArgument);
}

// ---- colour jitter ------------------------------------------------------------------------------------

TEST(PathologyJitter, FixedOpsMatchGolden) {
  const Array rgb = golden("in_rgb");
  const std::array<int, 4> id = {0, 1, 2, 3};
  EXPECT_ARRAY_EQ(golden("jitter_b"), path::adjust_colors(rgb, {.order = id, .brightness = 1.37}));
  EXPECT_ARRAY_EQ(golden("jitter_c"), path::adjust_colors(rgb, {.order = id, .contrast = 0.61}));
  EXPECT_ARRAY_EQ(golden("jitter_s"), path::adjust_colors(rgb, {.order = id, .saturation = 1.8}));
  EXPECT_ARRAY_EQ(golden("jitter_h"), path::adjust_colors(rgb, {.order = id, .hue = 0.21}));
  EXPECT_ARRAY_EQ(golden("jitter_hneg"), path::adjust_colors(rgb, {.order = id, .hue = -0.33}));
  const path::ColorJitterParams all{.order = {3, 1, 0, 2}, .brightness = 0.8, .contrast = 1.3, .saturation = 0.4, .hue = -0.05};
  EXPECT_ARRAY_EQ(golden("jitter_all"), path::adjust_colors(rgb, all));
  // channel-first, contiguous and as a view
  const Array cf = channel_first_view(rgb).copy();
  EXPECT_ARRAY_EQ(golden("jitter_all"), path::adjust_colors(cf, all, 0).transpose({1, 2, 0}).copy());
  EXPECT_ARRAY_EQ(golden("jitter_all"), path::adjust_colors(channel_first_view(rgb), all, 0).transpose({1, 2, 0}).copy());
  // a batch: contrast uses one mean per image
  const path::ColorJitterParams b{.order = {2, 1, 3, 0}, .brightness = 1.1, .contrast = 0.7, .saturation = 1.2, .hue = 0.1};
  EXPECT_ARRAY_EQ(golden("jitter_batch"), path::adjust_colors(golden("in_batch"), b));
  EXPECT_ARRAY_EQ(golden("jitter_batch"),
                  path::adjust_colors(golden("in_batch").transpose({0, 3, 1, 2}), b, 1).transpose({0, 2, 3, 1}).copy());
}

TEST(PathologyJitter, NonUint8InputGivesFloat32) {
  const Array rgb = golden("in_rgb");
  const path::ColorJitterParams p{.brightness = 1.2};
  const Array f = path::adjust_colors(rgb.astype(DType::float64), p);
  EXPECT_EQ(f.dtype(), DType::float32);
  EXPECT_ARRAY_EQ(path::adjust_colors(rgb, p).astype(DType::float32), f);
}

TEST(PathologyJitter, SeededDrawsAreDeterministicAndInRange) {
  const path::ColorJitterOptions o{.brightness = 0.3, .contrast = path::JitterRange(0.5, 1.5), .saturation = 0.2, .hue = 0.1, .seed = 42};
  const auto a = path::sample_color_jitter(o), b = path::sample_color_jitter(o);
  EXPECT_EQ(a.order, b.order);
  EXPECT_EQ(*a.brightness, *b.brightness);
  std::array<int, 4> sorted = a.order;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::array<int, 4>{0, 1, 2, 3}));
  EXPECT_GE(*a.brightness, 0.7);
  EXPECT_LE(*a.brightness, 1.3);
  EXPECT_GE(*a.contrast, 0.5);
  EXPECT_LE(*a.contrast, 1.5);
  EXPECT_GE(*a.hue, -0.1);
  EXPECT_LE(*a.hue, 0.1);
  // other seeds give other draws (and all four orders show up over a few seeds)
  std::set<std::array<int, 4>> orders;
  std::set<double> factors;
  for (std::uint64_t s = 0; s < 40; ++s) {
    auto p = path::sample_color_jitter({.brightness = 0.3, .seed = s});
    orders.insert(p.order);
    factors.insert(*p.brightness);
  }
  EXPECT_GT(orders.size(), 10u);
  EXPECT_EQ(factors.size(), 40u);
  // neutral settings disable an op
  const auto n = path::sample_color_jitter({.brightness = path::JitterRange(1, 1), .hue = 0});
  EXPECT_FALSE(n.brightness.has_value());
  EXPECT_FALSE(n.hue.has_value());
  // color_jitter is adjust_colors of the draw
  const Array rgb = golden("in_rgb");
  EXPECT_ARRAY_EQ(path::adjust_colors(rgb, a), path::color_jitter(rgb, o));
}

TEST(PathologyJitter, RandomApplication) {
  const Array batch = golden("in_batch");
  const path::ColorJitterOptions o{.brightness = 0.5, .seed = 9};
  // prob 0: untouched (shared); prob 1: every image gets its own draw
  EXPECT_EQ(path::rand_color_jitter(batch, o, {.prob = 0}).data(), batch.data());
  const Array all = path::rand_color_jitter(batch, o, {.prob = 1});
  EXPECT_ARRAY_EQ(all, path::rand_color_jitter(batch, o, {.prob = 1}));
  EXPECT_FALSE(cusktest::arrays_equal(batch, all));
  const Array whole = path::rand_color_jitter(batch, o, {.prob = 1, .whole_batch = true});
  EXPECT_ARRAY_EQ(path::color_jitter(batch, o), whole);
  const Array one = path::rand_color_jitter(batch.index(0, 0), o, {.prob = 1});
  EXPECT_ARRAY_EQ(path::color_jitter(batch.index(0, 0), o), one);
}

TEST(PathologyJitter, BadInput) {
  const Array rgb = golden("in_rgb");
  EXPECT_THROW(path::color_jitter(rgb, {.brightness = -0.1}), InvalidArgument);
  EXPECT_THROW(path::color_jitter(rgb, {.contrast = path::JitterRange(1.5, 0.5)}), InvalidArgument);
  EXPECT_THROW(path::color_jitter(rgb, {.hue = 0.6}), InvalidArgument);
  EXPECT_THROW(path::color_jitter(rgb, {.hue = path::JitterRange(-0.7, 0.1)}), InvalidArgument);
  EXPECT_THROW(path::adjust_colors(rgb, {.hue = 0.7}), InvalidArgument);
  EXPECT_THROW(path::adjust_colors(rgb.slice({Slice{}, Slice{}, Slice{0, 2}}), {.brightness = 1.1}), InvalidArgument);
  EXPECT_THROW(path::adjust_colors(rgb.index(2, 0), {.brightness = 1.1}), InvalidArgument);  // 2-D
  EXPECT_THROW(path::adjust_colors(rgb, {.brightness = 1.1}, 1), InvalidArgument);            // middle axis
}

// ---- intensity ------------------------------------------------------------------------------------------

TEST(PathologyIntensity, MatchesGolden) {
  const Array x = golden("in_intensity");
  EXPECT_ARRAY_EQ(golden("normalize_range"), path::normalize_data(x, 10, 0, 255));
  // atan: NumPy's float32 arctan vs our double atan rounded once
  EXPECT_ARRAY_NEAR(golden("normalize_atan"), path::normalize_data(x, 2, 10, 30, path::NormalizeType::atan), 3e-7, 0);
  EXPECT_ARRAY_EQ(golden("scale"), path::scale_intensity_range(x, {.a_min = -1, .a_max = 255, .b_min = 0, .b_max = 1}));
  EXPECT_ARRAY_EQ(golden("scale_clip"),
                  path::scale_intensity_range(x, {.a_min = 0, .a_max = 255, .b_min = -1, .b_max = 1, .clip = true}));
  EXPECT_ARRAY_EQ(golden("scale_u8"),
                  path::scale_intensity_range(golden("in_cf_u8"), {.a_min = 0, .a_max = 255, .b_min = 0, .b_max = 128}));
  // strided view
  const Array v = x.slice({Slice{}, Slice{0, std::nullopt, 2}});
  EXPECT_ARRAY_EQ(path::normalize_data(v.copy(), 10, 0, 255), path::normalize_data(v, 10, 0, 255));
}

TEST(PathologyIntensity, BadInput) {
  const Array x = golden("in_intensity");
  EXPECT_THROW(path::normalize_data(x, 10, 3, 3), InvalidArgument);
  EXPECT_THROW(path::scale_intensity_range(x, {.a_min = 1, .a_max = 1, .b_max = 1}), InvalidArgument);
}

// ---- zoom -----------------------------------------------------------------------------------------------

TEST(PathologyZoom, MatchesGolden) {
  const Array z = golden("in_zoom");
  const std::vector<std::pair<std::string, std::array<double, 2>>> cases = {
      {"in", {1.5, 1.3}}, {"out", {0.7, 0.6}}, {"in2", {2.0, 2.0}}, {"out2", {0.5, 0.35}}};
  const std::vector<std::pair<std::string, path::ZoomInterpolation>> modes = {
      {"area", path::ZoomInterpolation::area},
      {"nearest", path::ZoomInterpolation::nearest},
      {"bilinear", path::ZoomInterpolation::bilinear}};
  for (const auto& [name, f] : cases)
    for (const auto& [mname, m] : modes)
      EXPECT_ARRAY_EQ(golden("zoom_" + name + "_" + mname), path::zoom(z, f, {.interpolation = m})) << name << " " << mname;
  EXPECT_ARRAY_EQ(golden("zoom_u8_in"), path::zoom(golden("in_cf_u8"), {1.25, 1.25}));
  // channel-last through spatial_axis equals channel-first
  const Array cl = z.transpose({0, 2, 3, 1});
  EXPECT_ARRAY_EQ(golden("zoom_in_area"),
                  path::zoom(cl, {1.5, 1.3}, {.spatial_axis = {1, 2}}).transpose({0, 3, 1, 2}).copy());
}

TEST(PathologyZoom, IdentityRandomAndErrors) {
  const Array z = golden("in_zoom");
  EXPECT_EQ(path::zoom(z, {1.0, 1.01}).data(), z.data());  // same size: the input itself
  EXPECT_THROW(path::zoom(z, {1.5, 0.5}), InvalidArgument);
  EXPECT_THROW(path::zoom(z, {1.5, 1.0}), InvalidArgument);
  EXPECT_THROW(path::zoom(z, {0.01, 0.01}), InvalidArgument);
  EXPECT_THROW(path::zoom(z, {-1, 2}), InvalidArgument);
  EXPECT_THROW(path::zoom(z, {2, 2}, {.spatial_axis = {2, 2}}), InvalidArgument);
  EXPECT_EQ(path::rand_zoom(z, {.prob = 0}).data(), z.data());
  const Array r1 = path::rand_zoom(z, {.min_zoom = {1.2}, .max_zoom = {1.6}, .prob = 1, .seed = 4});
  EXPECT_ARRAY_EQ(r1, path::rand_zoom(z, {.min_zoom = {1.2}, .max_zoom = {1.6}, .prob = 1, .seed = 4}));
  EXPECT_FALSE(cusktest::arrays_equal(z, r1));
  EXPECT_THROW(path::rand_zoom(z, {.min_zoom = {1.2, 1.3}, .max_zoom = {1.6}, .prob = 1}), InvalidArgument);
}

// ---- flips and quarter turns ------------------------------------------------------------------------------

TEST(PathologySpatial, MatchesNumpy) {
  const Array rgb = golden("in_rgb"), cf = golden("in_cf_u8");
  EXPECT_ARRAY_EQ(golden("flip_12"), path::image_flip(cf, {1, 2}));
  EXPECT_ARRAY_EQ(golden("flip_0"), path::image_flip(rgb, {0}));
  EXPECT_ARRAY_EQ(golden("rot90_k1"), path::image_rotate_90(rgb, 1, {0, 1}));
  EXPECT_ARRAY_EQ(golden("rot90_k2"), path::image_rotate_90(rgb, 2, {0, 1}));
  EXPECT_ARRAY_EQ(golden("rot90_k3"), path::image_rotate_90(rgb, 3, {0, 1}));
  EXPECT_ARRAY_EQ(golden("rot90_km1"), path::image_rotate_90(rgb, -1, {0, 1}));
  EXPECT_ARRAY_EQ(golden("rot90_k5"), path::image_rotate_90(rgb, 5, {0, 1}));
  EXPECT_ARRAY_EQ(golden("rot90_cf_k1"), path::image_rotate_90(cf, 1, {1, 2}));
  EXPECT_ARRAY_EQ(golden("rot90_cf_k1"), path::image_rotate_90(cf, 1, {-2, -1}));
  EXPECT_TRUE(path::image_flip(rgb, {0}).is_contiguous());
}

TEST(PathologySpatial, RandomAndErrors) {
  const Array rgb = golden("in_rgb");
  EXPECT_EQ(path::rand_image_flip(rgb, {0}, {.prob = 0}).data(), rgb.data());
  EXPECT_ARRAY_EQ(golden("flip_0"), path::rand_image_flip(rgb, {0}, {.prob = 1}));
  // the drawn k is 1..max_k and fixed by the seed
  int seen[4] = {0, 0, 0, 0};
  for (std::uint64_t s = 0; s < 30; ++s) {
    const Array r = path::rand_image_rotate_90(rgb, {0, 1}, {.prob = 1, .max_k = 3, .seed = s});
    EXPECT_ARRAY_EQ(r, path::rand_image_rotate_90(rgb, {0, 1}, {.prob = 1, .max_k = 3, .seed = s}));
    int k = 0;
    for (int c = 1; c <= 3; ++c)
      if (cusktest::arrays_equal(path::image_rotate_90(rgb, c, {0, 1}), r)) k = c;
    ASSERT_GT(k, 0);
    ++seen[k];
  }
  EXPECT_GT(seen[1], 0);
  EXPECT_GT(seen[2], 0);
  EXPECT_GT(seen[3], 0);
  EXPECT_THROW(path::image_flip(rgb, {3}), InvalidArgument);
  EXPECT_THROW(path::image_flip(rgb, {0, 0}), InvalidArgument);
  EXPECT_THROW(path::image_rotate_90(rgb, 1, {1, 1}), InvalidArgument);
  EXPECT_THROW(path::rand_image_rotate_90(rgb, {0, 1}, {.max_k = 0}), InvalidArgument);
  EXPECT_THROW(path::rand_image_flip(rgb, {5}, {.prob = 0}), InvalidArgument);
}

// ---- Reinhard ---------------------------------------------------------------------------------------

namespace {

path::LabStats stats_of(const Array& golden_stats) {
  const auto v = golden_stats.to_vector<double>();
  return {.mean = {v[0], v[1], v[2]}, .std = {v[3], v[4], v[5]}};
}

}  // namespace

TEST(PathologyReinhard, StatsMatchGolden) {
  // color::rgb2lab agrees with scikit-image to ~1e-12; sums in a different order.
  const auto s = path::lab_stats(golden("in_he"));
  const auto e = stats_of(golden("lab_stats_he"));
  for (int c = 0; c < 3; ++c) {
    EXPECT_NEAR(e.mean[c], s.mean[c], 1e-9 * (1 + std::fabs(e.mean[c])));
    EXPECT_NEAR(e.std[c], s.std[c], 1e-9 * (1 + e.std[c]));
  }
  const auto t = path::lab_stats(channel_first_view(golden("in_he")), 0);
  for (int c = 0; c < 3; ++c) EXPECT_EQ(s.mean[c], t.mean[c]);
}

TEST(PathologyReinhard, NormalizeMatchesGolden) {
  const auto he = stats_of(golden("lab_stats_he")), ihc = stats_of(golden("lab_stats_ihc"));
  EXPECT_TRUE(nearly_equal(golden("reinhard_ihc_to_he"), path::normalize_reinhard(golden("in_ihc"), {.target = he}), 1,
                           1e-3));
  EXPECT_TRUE(nearly_equal(golden("reinhard_he_to_ihc"), path::normalize_reinhard(golden("in_he"), {.target = ihc}), 1,
                           1e-3));
  // float32 input stays float32 (scikit-image promotes to float64 through the float64 statistics)
  const Array f = path::normalize_reinhard(golden("in_ihc").astype(DType::float32), {.target = he});
  EXPECT_EQ(f.dtype(), DType::float32);
  Array scaled = golden("in_ihc").astype(DType::float32);
  {
    auto v = scaled.to_vector<float>();
    for (auto& x : v) x /= 255.0f;
    scaled = Array::from_vector(v, scaled.shape());
  }
  EXPECT_ARRAY_NEAR(golden("reinhard_ihc_f32_to_he"), path::normalize_reinhard(scaled, {.target = he}).astype(DType::float64),
                    0, 2e-5);
  // normalising to its own statistics is (nearly) the identity; channel-first gives the same
  const Array id = path::normalize_reinhard(golden("in_he"), {.target = path::lab_stats(golden("in_he"))});
  EXPECT_TRUE(nearly_equal(golden("in_he"), id, 1, 0.01));
  EXPECT_ARRAY_EQ(path::normalize_reinhard(golden("in_ihc"), {.target = he}),
                  path::normalize_reinhard(channel_first_view(golden("in_ihc")), {.target = he, .channel_axis = 0})
                      .transpose({1, 2, 0})
                      .copy());
  EXPECT_THROW(path::normalize_reinhard(golden("in_he").slice({Slice{}, Slice{}, Slice{0, 2}}), {.target = he}),
               InvalidArgument);
  EXPECT_THROW(path::normalize_reinhard(golden("in_he"), {.target = {.std = {1, -1, 1}}}), InvalidArgument);
  EXPECT_THROW(path::lab_stats(golden("in_he"), 0), InvalidArgument);
}
