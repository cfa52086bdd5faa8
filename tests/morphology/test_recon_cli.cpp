// The CLI commands of the reconstruction family (src/cli/commands_morphology_recon.cpp): each
// command's output equals the golden / the in-process call; bad input exits 1, bad usage 2.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/morphology/recon_test_util.hpp"

namespace {

using namespace recontest;
using namespace cuskimage::morphology;

TEST(MorphologyReconCli, EveryCommand) {
  const auto path = [](const std::string& n) { return cusktest::temp_path("recon_cli_" + n + ".npy"); };
  const std::string seed = path("seed"), mask = path("mask"), img = path("img"), out = path("out"), bin = path("bin"),
                    fpf = path("fp"), h = path("h"), fl = path("fl");
  io::imsave(seed, golden("rec_seed_ero2_int32"));
  io::imsave(mask, golden("rec_mask2_int32"));
  io::imsave(img, golden("ext_in2_uint8"));
  io::imsave(bin, golden("rs_in2"));
  io::imsave(fpf, fp("cross"));
  io::imsave(h, golden("h_in2_uint16"));
  io::imsave(fl, golden("fl_in2_float32"));
  auto ok = [](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli_cpu(args);
    EXPECT_EQ(r.rc, 0) << cuskclitest::describe(r);
    return r.rc == 0;
  };
  if (ok({"morphology.reconstruction", seed, mask, out, "--method", "erosion", "--footprint", fpf}))
    EXPECT_ARRAY_EQ(golden("rec_ero2_int32_cross"), io::imread(out));
  if (ok({"morphology.local_maxima", img, out, "--connectivity", "1", "--allow_borders", "false"}))
    EXPECT_ARRAY_EQ(golden("ext_max2_uint8_c1_0"), io::imread(out));
  if (ok({"morphology.local_minima", img, out, "--indices", "true"}))
    EXPECT_ARRAY_EQ(local_minima(golden("ext_in2_uint8"), {.indices = true}), io::imread(out));
  if (ok({"morphology.h_maxima", h, out, "--h", "3", "--footprint", fpf}))
    EXPECT_ARRAY_EQ(golden("hmax2_uint16_0_cross"), io::imread(out));
  if (ok({"morphology.h_minima", h, out, "--h", "2.5"})) EXPECT_ARRAY_EQ(golden("hmin2_uint16_1_none"), io::imread(out));
  if (ok({"morphology.flood", fl, out, "--seed_point", "3,4", "--tolerance", "1.5", "--connectivity", "1"}))
    EXPECT_ARRAY_EQ(golden("fl2_float32_c1_t15"), io::imread(out));
  if (ok({"morphology.flood_fill", fl, out, "--seed_point", "3,4", "--new_value", "1", "--tolerance", "1"}))
    EXPECT_ARRAY_EQ(golden("flfill2_float32"), io::imread(out));
  if (ok({"morphology.remove_small_objects", bin, out, "--max_size", "3", "--connectivity", "2"}))
    EXPECT_ARRAY_EQ(golden("rso2_c2_m3"), io::imread(out));
  if (ok({"morphology.remove_small_holes", bin, out, "--area_threshold", "5"}))
    EXPECT_ARRAY_EQ(golden("rsh2_c1_at5"), io::imread(out));
  // Library errors exit 1 (seed above the mask), usage errors 2 (a missing required value).
  EXPECT_EQ(cuskclitest::run_cli_cpu({"morphology.reconstruction", mask, seed, out, "--method", "erosion"}).rc, 1);
  EXPECT_EQ(cuskclitest::run_cli_cpu({"morphology.h_maxima", h, out}).rc, 2);
}

}  // namespace
