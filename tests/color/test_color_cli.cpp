// color.* commands of the `cuskimage` tool: results equal the library's (CPU backend), values as
// JSON, usage errors.
#include "cuskimage/io.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/color/color_test_common.hpp"

using namespace colortest;
using namespace cuskclitest;

namespace {

Array saved(const std::string& path) { return cuskimage::io::imread(path); }

}  // namespace

TEST(ColorCli, ConversionsEqualTheLibrary) {
  const std::string in = cusktest::golden_path("color/in_astro.npy");
  const Array a = golden("in_astro");
  for (const std::string fn : {"rgb2lab", "rgb2hed", "rgb2gray", "rgb2hsv", "rgb2ycbcr"}) {
    const std::string out = cusktest::temp_path(fn + ".npy");
    const CliRun r = run_cli_cpu({"color." + fn, in, out});
    ASSERT_EQ(r.rc, 0) << describe(r);
    EXPECT_ARRAY_EQ(conversions().at(fn)(a, -1, {}), saved(out));
  }
  const std::string out = cusktest::temp_path("lab_d50.npy");
  const CliRun r = run_cli_cpu({"color.rgb2lab", in, out, "--illuminant", "D50", "--observer", "10"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(color::rgb2lab(a, {.illuminant = "D50", .observer = "10"}), saved(out));
  const std::string sep = cusktest::temp_path("sep.npy");
  ASSERT_EQ(run_cli_cpu({"color.separate_stains", in, sep, "--conv_matrix", "hdx_from_rgb"}).rc, 0);
  EXPECT_ARRAY_EQ(color::separate_stains(a, color::hdx_from_rgb), saved(sep));
  const std::string cs = cusktest::temp_path("cs.npy");
  ASSERT_EQ(run_cli_cpu({"color.convert_colorspace", in, cs, "--fromspace", "RGB", "--tospace", "YIQ"}).rc, 0);
  EXPECT_ARRAY_EQ(color::rgb2yiq(a), saved(cs));
}

TEST(ColorCli, DeltaEAndLabels) {
  const std::string l1 = cusktest::golden_path("color/in_lab1.npy"), l2 = cusktest::golden_path("color/in_lab2.npy");
  const std::string out = cusktest::temp_path("de.npy");
  const CliRun r = run_cli_cpu({"color.deltaE_ciede2000", l1, l2, out, "--kL", "2"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(color::deltaE_ciede2000(golden("in_lab1"), golden("in_lab2"), {.kL = 2}), saved(out));
  const std::string labels = cusktest::golden_path("color/in_labels.npy");
  const std::string img = cusktest::golden_path("color/in_lbl_img.npy");
  const std::string ov = cusktest::temp_path("ov.npy");
  const CliRun r2 = run_cli_cpu({"color.label2rgb", labels, ov, "--image", img, "--alpha", "0.5", "--bg_label", "2",
                                 "--bg_color", "image", "--colors", "red;0.1,0.2,0.3"});
  ASSERT_EQ(r2.rc, 0) << describe(r2);
  EXPECT_ARRAY_EQ(color::label2rgb(golden("in_labels"), golden("in_lbl_img"),
                                   {.colors = {"red", {0.1, 0.2, 0.3}}, .alpha = 0.5, .bg_label = 2,
                                    .bg_color = std::nullopt}),
                  saved(ov));
}

TEST(ColorCli, ValuesAndErrors) {
  const CliRun r = run_cli_cpu({"color.xyz_tristimulus_values", "--illuminant", "D65", "--observer", "2"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "0.95047")) << r.out;
  const CliRun d = run_cli_cpu({"color.color_dict"});
  ASSERT_EQ(d.rc, 0) << describe(d);
  EXPECT_TRUE(contains(d.out, "\"yellowgreen\"")) << d.out.substr(0, 200);
  // Wrong channel count: a library error (exit 1) naming the function.
  const std::string cam = cusktest::golden_path("color/in_cam.npy");
  const CliRun bad = run_cli_cpu({"color.rgb2lab", cam, cusktest::temp_path("x.npy")});
  EXPECT_EQ(bad.rc, 1) << describe(bad);
  EXPECT_TRUE(contains(bad.err, "color.rgb2lab")) << bad.err;
  // Unknown stain matrix: a usage error (exit 2).
  const CliRun bad2 = run_cli_cpu({"color.separate_stains", cam, cusktest::temp_path("y.npy"), "--conv_matrix", "xyz"});
  EXPECT_EQ(bad2.rc, 2) << describe(bad2);
}
