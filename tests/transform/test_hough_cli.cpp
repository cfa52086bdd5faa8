// The transform commands of this part on the command line (CPU backend): each writes what the
// in-process call returns, or prints scikit-image's values.
#include <gtest/gtest.h>

#include <string>

#include "cuskimage/io.hpp"
#include "cuskimage/transform.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskclitest::describe;
using cuskclitest::run_cli_cpu;
using cuskimage::Array;
namespace tf = cuskimage::transform;

std::string data(const std::string& rel) { return cusktest::golden_path(rel + ".npy"); }

}  // namespace

TEST(TransformCli, HoughCommands) {
  const std::string hs = cusktest::temp_path("hs.npy"), an = cusktest::temp_path("an.npy"),
                    di = cusktest::temp_path("di.npy");
  auto r = run_cli_cpu({"transform.hough_line", data("transform_hough/lines"), hs, an, di});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(cusktest::load_golden("transform_hough/hl_default.npy"),
                  cuskimage::io::imread(hs).astype(cuskimage::DType::uint16));
  r = run_cli_cpu({"transform.hough_line_peaks", data("transform_hough/lines"), "--num_peaks", "3"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(cuskclitest::contains(r.out, "\"accum\": [50.0, 44.0, 40.0]")) << r.out;
  r = run_cli_cpu({"transform.probabilistic_hough_line", data("transform_hough/lines"), "--threshold", "5",
                   "--line_length", "10", "--line_gap", "3", "--rng", "123"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(cuskclitest::contains(r.out, "[[[30, 30], [30, 0]], [[49, 20], [0, 20]]")) << r.out;
  const std::string hc = cusktest::temp_path("hc.npy");
  r = run_cli_cpu({"transform.hough_circle", data("transform_hough/circles"), hc, "--radius", "4,7,10"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(cusktest::load_golden("transform_hough/hc_norm.npy"), cuskimage::io::imread(hc));
}

TEST(TransformCli, RadonIntegralFrtCommands) {
  const std::string out = cusktest::temp_path("radon.npy");
  auto r = run_cli_cpu({"transform.radon", data("transform_radon/rin_f64"), out});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(cusktest::load_golden("transform_radon/radon_f64.npy"), cuskimage::io::imread(out));
  const std::string rec = cusktest::temp_path("rec.npy");
  r = run_cli_cpu({"transform.iradon", data("transform_radon/isino"), rec, "--filter_name", "hann"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  const Array sino = cusktest::load_golden("transform_radon/isino.npy");
  EXPECT_ARRAY_EQ(tf::iradon(sino, {.filter_name = tf::IradonFilter::hann}), cuskimage::io::imread(rec));
  const std::string f = cusktest::temp_path("frt.npy");
  r = run_cli_cpu({"transform.frt2", data("transform_radon/in_u8"), f});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(cusktest::load_golden("transform_radon/frt_u8.npy"), cuskimage::io::imread(f));
  const std::string ii = cusktest::temp_path("ii.npy");
  r = run_cli_cpu({"transform.integral_image", data("transform_integral/in_2u"), ii});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(cusktest::load_golden("transform_integral/ii_2u.npy"), cuskimage::io::imread(ii));
  r = run_cli_cpu({"transform.order_angles_golden_ratio", "--theta", "0,10,20,30,40"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(cuskclitest::contains(r.out, "[0, 4, 3, 2, 1]")) << r.out;
}
