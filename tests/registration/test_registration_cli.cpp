// The registration commands on the command line: phase_cross_correlation prints its JSON (shift,
// error, phasediff; null for the masked variant's NaNs), the flows write the (ndim, *shape) flow;
// each equals the in-process call on the same golden inputs (CPU backend).
#include <gtest/gtest.h>

#include <string>

#include "cuskimage/io.hpp"
#include "cuskimage/registration.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

namespace reg = cuskimage::registration;
using cuskimage::Array;

std::string path(const std::string& name) { return cusktest::golden_path("registration/" + name + ".npy"); }

TEST(RegistrationCli, PhaseCrossCorrelation) {
  auto r = cuskclitest::run_cli_cpu(
      {"registration.phase_cross_correlation", path("ref_2d"), path("mov_2d"), "--upsample_factor", "10"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_TRUE(cuskclitest::contains(r.out, "\"shift\": [3.3, -5.7]")) << r.out;
  EXPECT_TRUE(cuskclitest::contains(r.out, "\"error\": 1.0")) << r.out;
  r = cuskclitest::run_cli_cpu({"registration.phase_cross_correlation", path("ref_m2d"), path("mov_m2d"),
                                "--reference_mask", path("rmask_m2d"), "--moving_mask", path("mmask_m2d")});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_TRUE(cuskclitest::contains(r.out, "\"shift\": [5.0, -4.0]")) << r.out;
  EXPECT_TRUE(cuskclitest::contains(r.out, "\"error\": null")) << r.out;
  // Images of different shapes without masks: a library error, exit status 1.
  EXPECT_EQ(cuskclitest::run_cli_cpu({"registration.phase_cross_correlation", path("ref_2d"), path("ref_2u")}).rc, 1);
}

TEST(RegistrationCli, OpticalFlows) {
  const Array ref = cusktest::load_golden("registration/fl_f64_ref.npy");
  const Array mov = cusktest::load_golden("registration/fl_f64_mov.npy");
  const std::string out = cusktest::temp_path("flow_cli.npy");
  auto r = cuskclitest::run_cli_cpu({"registration.optical_flow_tvl1", path("fl_f64_ref"), path("fl_f64_mov"), out,
                                     "--num_warp", "3", "--dtype", "float64"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_ARRAY_EQ(reg::optical_flow_tvl1(ref, mov, {.num_warp = 3, .dtype = cuskimage::DType::float64}),
                  cuskimage::io::imread(out));
  r = cuskclitest::run_cli_cpu(
      {"registration.optical_flow_ilk", path("fl_f64_ref"), path("fl_f64_mov"), out, "--radius", "3", "--gaussian", "true"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_ARRAY_EQ(reg::optical_flow_ilk(ref, mov, {.radius = 3, .gaussian = true}), cuskimage::io::imread(out));
}

}  // namespace
