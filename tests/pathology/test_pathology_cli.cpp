// The pathology.* commands of the `cuskimage` tool: each runs the library function (same result as
// an in-process call) and reports bad parameters as errors.
#include "cuskimage/io.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/pathology/pathology_test_common.hpp"

namespace path = cuskimage::pathology;
using namespace pathtest;
using cuskclitest::describe;
using cuskclitest::run_cli_cpu;

namespace {
std::string in(const std::string& name) { return cusktest::golden_path("pathology/" + name + ".npy"); }
}  // namespace

TEST(PathologyCli, CommandsMatchTheLibrary) {
  const std::string out = cusktest::temp_path("path_cli_out.npy");
  auto r = run_cli_cpu({"pathology.normalize_colors_pca", in("in_he"), out});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(path::normalize_colors_pca(golden("in_he")), cuskimage::io::imread(out));
  r = run_cli_cpu({"pathology.color_jitter", in("in_rgb"), out, "--brightness", "0.2", "--hue", "-0.05,0.05", "--seed", "3"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(path::color_jitter(golden("in_rgb"), {.brightness = 0.2, .hue = path::JitterRange(-0.05, 0.05), .seed = 3}),
                  cuskimage::io::imread(out));
  r = run_cli_cpu({"pathology.zoom", in("in_zoom"), out, "--zoom_factor", "1.5,1.3"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(golden("zoom_in_area"), cuskimage::io::imread(out));
  r = run_cli_cpu({"pathology.image_rotate_90", in("in_rgb"), out, "--k", "1", "--spatial_axis", "0,1"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(golden("rot90_k1"), cuskimage::io::imread(out));
  r = run_cli_cpu({"pathology.normalize_reinhard", in("in_ihc"), in("in_he"), out});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(path::normalize_reinhard(golden("in_ihc"), {.target = path::lab_stats(golden("in_he"))}),
                  cuskimage::io::imread(out));
  r = run_cli_cpu({"pathology.stain_extraction_pca", in("in_he")});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(cuskclitest::contains(r.out, "[[0.5464")) << r.out;
}

// Keywords the commands take from the options structs: the reference stain matrix (six numbers,
// row-major), jitter ranges, the random options, zoom's options nested in rand_zoom's.
TEST(PathologyCli, KeywordsFromTheStructs) {
  const std::string out = cusktest::temp_path("path_cli_kw.npy");
  const path::NormalizeColorsPcaOptions ref{.ref_stain_coeff = {{{0.6, 0.2}, {0.7, 0.8}, {0.4, 0.55}}},
                                            .ref_max_conc = {1.5, 1.2}};
  auto r = run_cli_cpu({"pathology.normalize_colors_pca", in("in_he"), out, "--ref_stain_coeff",
                        "0.6,0.2,0.7,0.8,0.4,0.55", "--ref_max_conc", "1.5,1.2"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(path::normalize_colors_pca(golden("in_he"), ref), cuskimage::io::imread(out));
  r = run_cli_cpu({"pathology.rand_color_jitter", in("in_batch"), out, "--contrast", "0.5,1.5", "--prob", "1",
                   "--whole_batch", "true", "--seed", "9"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(path::rand_color_jitter(golden("in_batch"), {.contrast = path::JitterRange(0.5, 1.5), .seed = 9},
                                          {.prob = 1, .whole_batch = true}),
                  cuskimage::io::imread(out));
  r = run_cli_cpu({"pathology.rand_zoom", in("in_zoom"), out, "--min_zoom", "1.2", "--max_zoom", "1.6", "--prob", "1",
                   "--seed", "4", "--interpolation", "bilinear"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(path::rand_zoom(golden("in_zoom"), {.min_zoom = {1.2},
                                                      .max_zoom = {1.6},
                                                      .prob = 1,
                                                      .seed = 4,
                                                      .zoom = {.interpolation = path::ZoomInterpolation::bilinear}}),
                  cuskimage::io::imread(out));
  r = run_cli_cpu({"pathology.scale_intensity_range", in("in_intensity"), out, "--a_min", "0", "--a_max", "255",
                   "--b_min", "-1", "--b_max", "1", "--clip", "true"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(golden("scale_clip"), cuskimage::io::imread(out));
  // A matrix or range of the wrong size is a usage error.
  EXPECT_EQ(run_cli_cpu({"pathology.normalize_colors_pca", in("in_he"), out, "--ref_stain_coeff", "1,2,3"}).rc, 2);
  EXPECT_EQ(run_cli_cpu({"pathology.color_jitter", in("in_rgb"), out, "--hue", "0,0.1,0.2"}).rc, 2);
  EXPECT_EQ(run_cli_cpu({"pathology.zoom", in("in_zoom"), out, "--zoom_factor", "2", "--spatial_axis", "0"}).rc, 2);
}

TEST(PathologyCli, BadParametersFail) {
  const std::string out = cusktest::temp_path("path_cli_bad.npy");
  EXPECT_NE(run_cli_cpu({"pathology.color_jitter", in("in_rgb"), out, "--hue", "0.7"}).rc, 0);
  EXPECT_NE(run_cli_cpu({"pathology.stain_extraction_pca", in("in_he"), "--alpha", "120"}).rc, 0);
  EXPECT_NE(run_cli_cpu({"pathology.normalize_reinhard", in("in_he"), out}).rc, 0);
}
