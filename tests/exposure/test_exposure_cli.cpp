// The exposure.* CLI commands (src/cli/commands_exposure.cpp): each command's output equals the
// golden / the in-process call (CPU backend); bad input exits 1, bad usage 2.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/exposure.hpp"
#include "cuskimage/io.hpp"
#include "tests/cli/cli_support.hpp"

namespace ex = cuskimage::exposure;
namespace io = cuskimage::io;
using cuskimage::Array;

namespace {

std::string gpath(const std::string& n) { return cusktest::golden_path("exposure/" + n + ".npy"); }
Array gold(const std::string& n) { return cusktest::load_golden("exposure/" + n + ".npy"); }

}  // namespace

TEST(ExposureCli, EveryCommand) {
  const std::string out = cusktest::temp_path("exposure_cli_out.npy");
  auto ok = [](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli_cpu(args);
    EXPECT_EQ(r.rc, 0) << cuskclitest::describe(r);
    return r;
  };
  const std::string cam = gpath("in_cam"), f32 = gpath("in_f32");
  if (ok({"exposure.equalize_adapthist", cam, out, "--kernel_size", "17", "--clip_limit", "0.03", "--nbins", "128"}).rc == 0)
    EXPECT_ARRAY_EQ(gold("clahe_cam_k17"), io::imread(out));
  if (ok({"exposure.equalize_hist", cam, out, "--mask", gpath("mask_cam")}).rc == 0)
    EXPECT_ARRAY_EQ(gold("eqhist_cam_mask"), io::imread(out));
  if (ok({"exposure.rescale_intensity", cam, out, "--in_range", "50,180"}).rc == 0)
    EXPECT_ARRAY_EQ(gold("rescale_cam_in"), io::imread(out));
  if (ok({"exposure.rescale_intensity", cam, out, "--out_range", "uint12"}).rc == 0)
    EXPECT_ARRAY_EQ(gold("rescale_cam_u12"), io::imread(out));
  if (ok({"exposure.adjust_gamma", cam, out, "--gamma", "2.2", "--gain", "0.9"}).rc == 0)
    EXPECT_ARRAY_EQ(gold("gamma_cam"), io::imread(out));
  if (ok({"exposure.adjust_log", f32, out, "--gain", "0.8"}).rc == 0)
    EXPECT_ARRAY_EQ(ex::adjust_log(io::imread(f32), {.gain = 0.8}), io::imread(out));
  if (ok({"exposure.adjust_sigmoid", f32, out, "--cutoff", "0.4", "--gain", "7"}).rc == 0)
    EXPECT_ARRAY_EQ(ex::adjust_sigmoid(io::imread(f32), {.cutoff = 0.4, .gain = 7}), io::imread(out));
  if (ok({"exposure.match_histograms", gpath("in_rgb"), gpath("in_ref_rgb"), out, "--channel_axis", "-1"}).rc == 0)
    EXPECT_ARRAY_EQ(gold("match_rgb_ch"), io::imread(out));
  EXPECT_EQ(ok({"exposure.is_low_contrast", cam}).out, "false\n");
  const auto h = ok({"exposure.histogram", f32, "--nbins", "4"});
  EXPECT_EQ(h.out.substr(0, 26), "[[1239, 240, 1358, 1259], ");
  const auto c = ok({"exposure.cumulative_distribution", cam});
  EXPECT_EQ(c.out.substr(0, 2), "[[");
  // Library errors exit 1, usage errors 2.
  EXPECT_EQ(cuskclitest::run_cli_cpu({"exposure.adjust_gamma", cam, out, "--gamma", "-1"}).rc, 1);
  EXPECT_EQ(cuskclitest::run_cli_cpu({"exposure.rescale_intensity", cam, out, "--in_range", "x,1"}).rc, 2);
  EXPECT_EQ(cuskclitest::run_cli_cpu({"exposure.is_low_contrast", cam, "--method", "log"}).rc, 2);
}
