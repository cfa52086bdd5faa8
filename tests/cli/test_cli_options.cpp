// Options declared once: every command's parameters that come from an options struct have the
// struct's defaults (the check walks every registered command of the built tool), hand-declared
// parameters never shadow a struct field, and the mechanism itself (codecs, parsing, help) works on
// test structs in process. Also: negative numbers as positional values and as option values.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/cuskimage.hpp"
#include "cuskimage/wsi.hpp"
#include "tests/cli/cli_support.hpp"

// The registry and the codecs are compiled into the tool, not the library; the in-process tests
// build them here (no command files: the registry singleton stays empty).
#include "src/cli/codec.cpp"     // NOLINT(bugprone-suspicious-include)
#include "src/cli/registry.cpp"  // NOLINT(bugprone-suspicious-include)

namespace optcli {

enum class Colour { red, dark_green };
CUSK_ENUM_NAMED(Colour, (red, "red"), (dark_green, "dark-green"), (dark_green, "darkgreen"))

struct Probe {
  std::int64_t count = -3;
  int small = 7;
  double ratio = 0.1;  // no short binary form: the default must read back exactly
  double big = 1e300;
  bool flag = true;
  std::string text = "jpeg";
  std::optional<double> unset = std::nullopt;
  std::optional<double> preset = 15.0;
  std::vector<std::int64_t> sizes = {3, 5};
  std::vector<int> axes = {};
  std::vector<double> scales = {1, 2.5};
  cuskimage::filters::Sigma sigma = 1.5;
  cuskimage::ndimage::Modes mode = cuskimage::ndimage::Mode::nearest;
  Colour colour = Colour::dark_green;
  cuskimage::DType dtype = cuskimage::DType::float32;
  cuskimage::Array mask = {};
  std::function<double(double)> callback = {};  // no codec: C++ only
};
CUSK_OPTIONS(Probe, (count, "a count"), (small, "a small int"), (ratio, "a ratio"), (big, "a big number"),
             (flag, "a flag"), (text, "a text"), (unset, "unset by default"), (preset, "set by default"),
             (sizes, "sizes"), (axes, "axes"), (scales, "scales"), (sigma, "sigma"), (mode, "mode"),
             (colour, "colour"), (dtype, "dtype"), (mask, "mask"), (callback, "callback"))

/// A codec that loses information (rounds to an integer): the check must catch its default.
struct Lossy {
  double v = 0.5;
  bool operator==(const Lossy&) const = default;
};
struct LossyOptions {
  Lossy lossy;
};
CUSK_OPTIONS(LossyOptions, (lossy, "a value written without its fraction"))

}  // namespace optcli

template <>
struct cuskimage::cli::Codec<optcli::Lossy> {
  static constexpr Kind kind = Kind::integer;
  static std::string format(const optcli::Lossy& l) { return std::to_string(static_cast<long long>(l.v)); }
  static optcli::Lossy read(Invocation& inv, const std::string& name) {
    return {static_cast<double>(inv.integer(name))};
  }
};

using namespace cuskimage;
using cli::Command;
using cli::Invocation;
using cli::Param;
using cli::Result;
using cuskclitest::contains;
using cuskclitest::describe;
using cuskclitest::run_cli;

namespace {

Command probe_command() {
  return Command("test.probe", "probe")
      .param(Param::integer("extra", "1", "a hand-declared parameter"))
      .options<optcli::Probe>()
      .returns_value("nothing")
      .handler([](Invocation&) -> Result { return nlohmann::json(nullptr); });
}

cli::Value parse(const Command& c, const std::string& name, const std::string& text) {
  return cli::parse_value(c.name(), *c.find_param(name), text);
}

}  // namespace

// ---- the check over every command of the tool ---------------------------------------------------------------

TEST(CliOptions, EveryCommandsDefaultsEqualItsStructs) {
  const auto r = run_cli({"--check-options"});
  EXPECT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, " 0 problems")) << r.out;
  // "N commands, M option fields, 0 problems": the walk saw the tool's commands and their fields.
  long commands = 0, fields = 0;
  ASSERT_EQ(std::sscanf(r.out.c_str(), "%ld commands, %ld option fields", &commands, &fields), 2) << r.out;
  EXPECT_GT(commands, 150);
  EXPECT_GT(fields, 100);
}

// ---- the mechanism, in process ------------------------------------------------------------------------------

TEST(CliOptions, ParamsDeriveFromTheStruct) {
  const Command c = probe_command();
  ASSERT_EQ(c.params().size(), 17u);  // extra + 16 fields with a codec
  EXPECT_EQ(c.params()[0].name, "extra");
  EXPECT_TRUE(c.params()[0].field_of.empty());
  const Param& count = *c.find_param("count");
  EXPECT_EQ(count.kind, cli::Kind::integer);
  EXPECT_EQ(count.default_value, "-3");
  EXPECT_EQ(count.help, "a count");
  EXPECT_EQ(count.field_of, "Probe");
  EXPECT_EQ(c.find_param("ratio")->default_value, "0.1");
  EXPECT_EQ(c.find_param("big")->default_value, "1e+300");
  EXPECT_EQ(c.find_param("sizes")->default_value, "3,5");
  EXPECT_EQ(c.find_param("axes")->default_value, "none");
  EXPECT_EQ(c.find_param("scales")->default_value, "1.0,2.5");
  EXPECT_EQ(c.find_param("sigma")->default_value, "1.5");
  EXPECT_EQ(c.find_param("mode")->default_value, "nearest");
  EXPECT_EQ(c.find_param("colour")->kind, cli::Kind::choice);
  EXPECT_EQ(c.find_param("colour")->default_value, "dark-green");
  EXPECT_EQ(c.find_param("colour")->choices, (std::vector<std::string>{"red", "dark-green", "darkgreen"}));
  EXPECT_EQ(c.find_param("dtype")->default_value, "float32");
  EXPECT_EQ(c.find_param("mask")->default_value, "none");
  EXPECT_EQ(c.find_param("callback"), nullptr);
  EXPECT_EQ(c.cpp_only(), (std::vector<std::string>{"callback (Probe)"}));
  EXPECT_TRUE(contains(c.help(), "C++ only"));
  EXPECT_TRUE(contains(c.help(), "callback (Probe)"));
  EXPECT_TRUE(contains(c.help(), "--preset FLOAT"));
  EXPECT_TRUE(contains(c.signature(), "ratio=0.1"));
  EXPECT_TRUE(contains(c.signature(), "unset=None"));
  EXPECT_TRUE(contains(c.signature(), "sizes=(3, 5)"));
}

TEST(CliOptions, DefaultsReadBackAsTheStruct) {
  const Command c = probe_command();
  const auto checks = c.check_defaults();
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].fields, 16u);
  EXPECT_TRUE(checks[0].problems.empty()) << checks[0].problems.front();
  Invocation inv = Invocation::defaults(c);
  const optcli::Probe p = inv.options<optcli::Probe>();
  EXPECT_EQ(p.count, -3);
  EXPECT_EQ(p.ratio, 0.1);
  EXPECT_EQ(p.big, 1e300);
  EXPECT_EQ(p.preset, 15.0);
  EXPECT_FALSE(p.unset.has_value());
  EXPECT_EQ(p.scales, (std::vector<double>{1, 2.5}));
  EXPECT_EQ(p.colour, optcli::Colour::dark_green);
  EXPECT_FALSE(p.mask.valid());
}

TEST(CliOptions, GivenValuesParseIntoTheStruct) {
  const Command c = probe_command();
  std::map<std::string, cli::Value> values;
  const std::vector<std::pair<std::string, std::string>> given = {
      {"count", "-12"},   {"small", "-2"},     {"ratio", "-0.25"}, {"flag", "false"},      {"text", "none"},
      {"unset", "2.5"},   {"preset", "none"},  {"axes", "-1,0"},   {"sigma", "2,3"},       {"mode", "grid-wrap"},
      {"colour", "red"},  {"dtype", "uint16"}, {"sizes", "(7, 9)"}, {"scales", "-inf,nan"}};
  for (const auto& [k, v] : given) values[k] = parse(c, k, v);
  Invocation inv(c, {}, values, Device::cpu());
  const optcli::Probe p = inv.options<optcli::Probe>();
  EXPECT_EQ(p.count, -12);
  EXPECT_EQ(p.small, -2);
  EXPECT_EQ(p.ratio, -0.25);
  EXPECT_FALSE(p.flag);
  EXPECT_EQ(p.text, "none");  // a text field that cannot be unset takes "none" literally
  EXPECT_EQ(p.unset, 2.5);
  EXPECT_FALSE(p.preset.has_value());  // an optional field accepts none whatever its default
  EXPECT_EQ(p.axes, (std::vector<int>{-1, 0}));
  EXPECT_EQ(p.sigma.v, (std::vector<double>{2, 3}));
  EXPECT_EQ(p.mode.v, (std::vector<ndimage::Mode>{ndimage::Mode::wrap}));
  EXPECT_EQ(p.colour, optcli::Colour::red);
  EXPECT_EQ(p.dtype, DType::uint16);
  EXPECT_EQ(p.sizes, (std::vector<std::int64_t>{7, 9}));
  ASSERT_EQ(p.scales.size(), 2u);
  EXPECT_TRUE(std::isinf(p.scales[0]) && p.scales[0] < 0);
  EXPECT_TRUE(std::isnan(p.scales[1]));
  EXPECT_EQ(p.big, 1e300);  // not given: the struct's default

  EXPECT_THROW(parse(c, "count", "none"), cli::UsageError);  // a plain int cannot be unset
  EXPECT_THROW(parse(c, "colour", "blue"), cli::UsageError);
  std::map<std::string, cli::Value> too_big = {{"small", parse(c, "small", "3000000000")}};
  Invocation inv2(c, {}, too_big, Device::cpu());
  EXPECT_THROW(inv2.options<optcli::Probe>(), cli::UsageError);  // out of int's range
}

TEST(CliOptions, CheckCatchesShadowsAndLossyDefaults) {
  cli::Registry reg;
  reg.add(probe_command());
  EXPECT_TRUE(reg.check_options().problems.empty());

  // A hand-declared parameter named like a field of the command's struct (here a skipped one).
  reg.add(Command("test.shadow", "shadow")
              .options<optcli::Probe>({"ratio"})
              .param(Param::number("ratio", "0.2", "a second declaration"))
              .returns_value("nothing")
              .handler([](Invocation&) -> Result { return nlohmann::json(nullptr); }));
  // A default that does not read back as the struct's (the codec drops the fraction).
  reg.add(Command("test.lossy", "lossy")
              .options<optcli::LossyOptions>()
              .returns_value("nothing")
              .handler([](Invocation&) -> Result { return nlohmann::json(nullptr); }));
  const auto r = reg.check_options();
  ASSERT_EQ(r.problems.size(), 2u);
  EXPECT_TRUE(contains(r.problems[0], "test.lossy: --lossy default '0'")) << r.problems[0];
  EXPECT_TRUE(contains(r.problems[1], "test.shadow: hand-declared parameter '--ratio'")) << r.problems[1];
}

TEST(CliOptions, DuplicateParameterIsRejected) {
  cli::Registry reg;
  EXPECT_THROW(reg.add(Command("test.twice", "twice")
                           .param(Param::integer("a", "1", ""))
                           .param(Param::integer("a", "2", ""))
                           .returns_value("nothing")
                           .handler([](Invocation&) -> Result { return nlohmann::json(nullptr); })),
               std::logic_error);
}

TEST(CliOptions, HelpListsStructFieldsAndCppOnlyOnes) {
  auto r = run_cli({"help", "filters.threshold_otsu"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "--nbins INT")) << r.out;
  EXPECT_TRUE(contains(r.out, "(default: 256)")) << r.out;
  EXPECT_TRUE(contains(r.out, "hist (ThresholdOtsuOptions)")) << r.out;
  r = run_cli({"help", "filters.hessian"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "gamma=15.0")) << r.out;
}

// ---- negative numbers ---------------------------------------------------------------------------------------

TEST(CliNegativeNumbers, PositionalCoordinates) {
  // A small pyramidal TIFF; OpenSlide accepts regions that start left of or above the slide.
  const Array img = cusktest::random_array({64, 96, 3}, DType::uint8, 5);
  const std::string slide = cusktest::temp_path("neg_slide.tif");
  wsi::write_pyramid(slide, img, {.tile_size = 32, .compression = "deflate"});
  const std::string out = cusktest::temp_path("neg_region.png");
  auto r = run_cli({"read-region", slide, "-5", "10", "16", "12", out});
  ASSERT_EQ(r.rc, 0) << describe(r);
  const Array expect = wsi::Slide::open(slide).read_region(-5, 10, 0, 16, 12);
  EXPECT_ARRAY_EQ(expect, io::imread(out));
  r = run_cli({"wsi.read-region", slide, "3", "-7", "8", "8", out});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(wsi::Slide::open(slide).read_region(3, -7, 0, 8, 8), io::imread(out));
  // Still an error: an option-looking token that is no number.
  r = run_cli({"read-region", slide, "-x", "10", "16", "12", out});
  EXPECT_EQ(r.rc, 2) << describe(r);
}

TEST(CliNegativeNumbers, OptionValues) {
  const Array img = cusktest::random_array({20, 24}, DType::float64, 9, 0, 1);
  const std::string in = cusktest::temp_path("neg_in.npy");
  io::imsave(in, img);
  const std::string out = cusktest::temp_path("neg_out.npy");
  auto r = cuskclitest::run_cli_cpu({"filters.threshold_local", in, out, "--offset", "-3", "--block_size", "5"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(filters::threshold_local(img, {.block_size = {5}, .offset = -3}), io::imread(out));
  r = cuskclitest::run_cli_cpu({"ndimage.gaussian_filter1d", in, out, "--sigma", "1.5", "--axis=-2", "--order", "1"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(ndimage::gaussian_filter1d(img, 1.5, {.axis = -2, .order = 1}), io::imread(out));
}
