// The footprint commands of the `cuskimage` tool (src/cli/commands_morphology.cpp): each writes the
// library's footprint for the options given; a decomposition writes the equivalent footprint and
// prints the sequence; decompositions a shape lacks are usage errors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/morphology.hpp"
#include "tests/cli/cli_support.hpp"

namespace {

using namespace cuskimage;
using namespace cuskimage::morphology;

TEST(MorphologyFootprintsCli, OptionsReachTheLibrary) {
  const std::string out = cusktest::temp_path("fp_cli.npy");
  auto ok = [&](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli_cpu(args);
    EXPECT_EQ(r.rc, 0) << cuskclitest::describe(r);
    return r;
  };
  ok({"morphology.disk", out, "--radius", "3"});
  EXPECT_ARRAY_EQ(disk(3).array(), io::imread(out));
  ok({"morphology.disk", out, "--radius", "4", "--dtype", "bool", "--strict_radius", "false"});
  EXPECT_ARRAY_EQ(disk(4, {.dtype = DType::bool_, .strict_radius = false}).array(), io::imread(out));
  const auto seq = ok({"morphology.disk", out, "--radius", "5", "--decomposition", "crosses"});
  EXPECT_ARRAY_EQ(footprint_from_sequence(disk(5, {.decomposition = Decomposition::crosses})), io::imread(out));
  EXPECT_TRUE(cuskclitest::contains(seq.out, "\"num_iter\": ")) << seq.out;
  ok({"morphology.footprint_rectangle", out, "--shape", "3,5", "--decomposition", "separable"});
  EXPECT_ARRAY_EQ(footprint_from_sequence(footprint_rectangle({3, 5}, {.decomposition = Decomposition::separable})),
                  io::imread(out));
  ok({"morphology.ellipse", out, "--width", "3", "--height", "2", "--decomposition", "none"});
  EXPECT_ARRAY_EQ(ellipse(3, 2).array(), io::imread(out));
  const std::string even = cusktest::temp_path("fp_cli_even.npy");
  io::imsave(even, Array::full({2, 3}, 1, DType::uint8));
  ok({"morphology.pad_footprint", even, out, "--pad_end", "false"});
  EXPECT_ARRAY_EQ(pad_footprint(Array::full({2, 3}, 1, DType::uint8), {.pad_end = false}), io::imread(out));
  // ball has no 'crosses' decomposition, diamond no 'separable': rejected before the library runs.
  EXPECT_EQ(cuskclitest::run_cli_cpu({"morphology.ball", out, "--radius", "2", "--decomposition", "crosses"}).rc, 2);
  EXPECT_EQ(cuskclitest::run_cli_cpu({"morphology.diamond", out, "--radius", "2", "--decomposition", "separable"}).rc,
            2);
}

}  // namespace
