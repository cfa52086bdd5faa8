// The command-line tool: listing, help, argument syntax, errors and the io commands. Each test runs
// the built `cuskimage` binary on files it writes and checks them against the library.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cuskimage/cuskimage.hpp"
#include "tests/cli/cli_support.hpp"

using namespace cuskimage;
using cuskclitest::contains;
using cuskclitest::describe;
using cuskclitest::run_cli;
using cusktest::random_array;
using cusktest::temp_path;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream is(text);
  for (std::string l; std::getline(is, l);) out.push_back(l);
  return out;
}

/// A host uint8 image saved as .npy; returns its path.
std::string write_npy(const std::string& name, const Array& a) {
  const std::string p = temp_path(name);
  io::imsave(p, a);
  return p;
}

}  // namespace

// ---- listing and help ------------------------------------------------------------------------------

TEST(CliInfo, Version) {
  auto r = run_cli({"--version"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_EQ(r.out, std::string("cuskimage ") + cuskimage::version + "\n");
}

TEST(CliInfo, GeneralHelp) {
  for (const char* flag : {"--help", "-h", "help"}) {
    auto r = run_cli({flag});
    ASSERT_EQ(r.rc, 0) << flag << "\n" << describe(r);
    EXPECT_TRUE(contains(r.out, "usage:")) << r.out;
    EXPECT_TRUE(contains(r.out, "--crop_width 1,2:3,4")) << r.out;
  }
}

TEST(CliInfo, NoArgumentsIsUsageError) {
  auto r = run_cli({});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(contains(r.err, "usage:")) << describe(r);
}

TEST(CliInfo, ListHasModuleFunctionLines) {
  auto r = run_cli({"--list"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  const auto names = lines(r.out);
  ASSERT_FALSE(names.empty());
  for (const auto& n : names) {
    const auto dot = n.find('.');
    EXPECT_NE(dot, std::string::npos) << n;
    EXPECT_EQ(n.find(' '), std::string::npos) << n;
  }
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_NE(std::find(names.begin(), names.end(), "io.imread"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "io.imsave"), names.end());
}

TEST(CliInfo, ListOneModule) {
  auto r = run_cli({"--list", "io"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_EQ(r.out, "io.imread\nio.imsave\n");
  auto bad = run_cli({"--list", "nosuchmodule"});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_TRUE(contains(bad.err, "nosuchmodule")) << describe(bad);
}

TEST(CliInfo, HelpForEveryCommand) {
  auto list = run_cli({"--list"});
  ASSERT_EQ(list.rc, 0);
  for (const auto& name : lines(list.out)) {
    auto r = run_cli({"help", name});
    ASSERT_EQ(r.rc, 0) << name << "\n" << describe(r);
    EXPECT_EQ(r.out.rfind(name + "(", 0), 0u) << r.out;
    EXPECT_TRUE(contains(r.out, "usage: cuskimage " + name)) << r.out;
    auto r2 = run_cli({name, "--help"});
    EXPECT_EQ(r2.rc, 0);
    EXPECT_EQ(r2.out, r.out);
  }
}

TEST(CliInfo, HelpShowsSignatureAndDefaults) {
  auto r = run_cli({"help", "io.imsave"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_TRUE(contains(r.out, "io.imsave(arr, quality=75, check_contrast=True, compression='none', tile=(0, 0), bigtiff=False) -> image")) << r.out;
  EXPECT_TRUE(contains(r.out, "--quality INT")) << r.out;
  EXPECT_TRUE(contains(r.out, "--compression {none,deflate,lzw,jpeg}")) << r.out;
  EXPECT_TRUE(contains(r.out, "(default: 75)")) << r.out;
  EXPECT_TRUE(contains(r.out, "FNAME")) << r.out;
}

TEST(CliInfo, HelpUnknownFunction) {
  auto r = run_cli({"help", "io.nothing"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(contains(r.err, "unknown function 'io.nothing'")) << describe(r);
}

// ---- errors ----------------------------------------------------------------------------------------

TEST(CliErrors, UnknownFunctionSuggests) {
  auto r = run_cli({"io.imraed", "a.png", "b.png"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(contains(r.err, "unknown function 'io.imraed'")) << describe(r);
  EXPECT_TRUE(contains(r.err, "did you mean 'io.imread'")) << describe(r);
  EXPECT_TRUE(r.out.empty());
}

TEST(CliErrors, UnknownParameterSuggests) {
  const std::string in = write_npy("a.npy", random_array({8, 9}, DType::uint8, 1));
  auto r = run_cli({"io.imsave", in, temp_path("b.png"), "--qualty", "3", "--device", "cpu"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(contains(r.err, "io.imsave: unknown parameter '--qualty'")) << describe(r);
  EXPECT_TRUE(contains(r.err, "did you mean '--quality'")) << describe(r);
  EXPECT_FALSE(std::filesystem::exists(temp_path("b.png")));
}

TEST(CliErrors, BadValues) {
  const std::string in = write_npy("a.npy", random_array({8, 9}, DType::uint8, 1));
  const std::string out = temp_path("b.jpg");
  struct Case {
    std::vector<std::string> extra;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--quality", "abc"}, "parameter '--quality' expects an integer, got 'abc'"},
      {{"--quality", "2.5"}, "expects an integer, got '2.5'"},
      {{"--check_contrast=maybe"}, "expects true or false, got 'maybe'"},
      {{"--compression", "zip"}, "expects one of none, deflate, lzw, jpeg, got 'zip'"},
      {{"--quality"}, "parameter '--quality' needs a value"},
      {{"--quality", "5", "--quality", "6"}, "parameter '--quality' given twice"},
      {{"--quality", "none"}, "cannot be none"},
      {{"-q", "5"}, "unknown option '-q'"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"io.imsave", in, out, "--device", "cpu"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    auto r = run_cli(args);
    EXPECT_EQ(r.rc, 2) << describe(r);
    EXPECT_TRUE(contains(r.err, c.message)) << "expected '" << c.message << "'\n" << describe(r);
  }
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CliErrors, WrongNumberOfPaths) {
  const std::string in = write_npy("a.npy", random_array({8, 9}, DType::uint8, 1));
  auto r = run_cli({"io.imread", in});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(contains(r.err, "io.imread: expected FNAME OUTPUT, got 1 path")) << describe(r);
  EXPECT_TRUE(contains(r.err, "usage: cuskimage io.imread")) << describe(r);
  auto r3 = run_cli({"io.imread", in, temp_path("x.npy"), temp_path("y.npy")});
  EXPECT_EQ(r3.rc, 2);
  EXPECT_TRUE(contains(r3.err, "got 3 paths")) << describe(r3);
}

TEST(CliErrors, MissingFileNamesPath) {
  const std::string missing = temp_path("does_not_exist.png");
  auto r = run_cli({"io.imread", missing, temp_path("out.npy"), "--device", "cpu"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.err, missing)) << describe(r);
  EXPECT_TRUE(contains(r.err, "cuskimage: error: ")) << describe(r);
  EXPECT_FALSE(std::filesystem::exists(temp_path("out.npy")));
}

TEST(CliErrors, CorruptFile) {
  const std::string bad = temp_path("bad.png");
  {
    std::ofstream f(bad, std::ios::binary);
    f << "\x89PNG\r\n\x1a\n garbage";
  }
  auto r = run_cli({"io.imread", bad, temp_path("out.npy"), "--device", "cpu"});
  EXPECT_EQ(r.rc, 1);
  EXPECT_TRUE(contains(r.err, bad)) << describe(r);
}

TEST(CliErrors, BadDevice) {
  const std::string in = write_npy("a.npy", random_array({4, 4}, DType::uint8, 1));
  auto r = run_cli({"io.imread", in, temp_path("b.npy"), "--device", "tpu"});
  EXPECT_EQ(r.rc, 2);
  EXPECT_TRUE(contains(r.err, "'--device' expects cpu, cuda or cuda:N, got 'tpu'")) << describe(r);
  if (!cuda_available()) {
    auto g = run_cli({"io.imread", in, temp_path("b.npy"), "--device", "cuda"});
    EXPECT_EQ(g.rc, 1);
    EXPECT_TRUE(contains(g.err, "no CUDA device")) << describe(g);
  }
}

TEST(CliErrors, UnwritableFormat) {
  // float64 cannot be stored as PNG: the library's InvalidArgument, exit 1, nothing written.
  const std::string in = write_npy("f.npy", random_array({4, 4}, DType::float64, 1));
  const std::string out = temp_path("f.png");
  auto r = run_cli({"io.imread", in, out, "--device", "cpu"});
  EXPECT_EQ(r.rc, 1) << describe(r);
  EXPECT_FALSE(r.err.empty());
  EXPECT_FALSE(std::filesystem::exists(out));
}

// ---- io commands -----------------------------------------------------------------------------------

TEST(CliIo, ConvertNpyTiffPngRoundTrip) {
  Array a = random_array({17, 23}, DType::uint8, 7);
  const std::string npy = write_npy("a.npy", a);
  const std::string tif = temp_path("a.tif"), png = temp_path("a.png"), back = temp_path("back.npy");
  for (auto [from, to] : {std::pair{npy, tif}, std::pair{tif, png}, std::pair{png, back}}) {
    auto r = run_cli({"io.imread", from, to, "--device", "cpu"});
    ASSERT_EQ(r.rc, 0) << describe(r);
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_ARRAY_EQ(a, io::imread(back));
}

TEST(CliIo, Uint16AndFloatThroughTiff) {
  for (DType dt : {DType::uint16, DType::float32}) {
    Array a = random_array({5, 6, 3}, dt, 3);
    const std::string npy = write_npy("a.npy", a), tif = temp_path("a.tif");
    auto r = run_cli({"io.imsave", npy, tif, "--compression", "deflate", "--device", "cpu"});
    ASSERT_EQ(r.rc, 0) << describe(r);
    EXPECT_ARRAY_EQ(a, io::imread(tif));
  }
}

TEST(CliIo, TiledBigTiff) {
  Array a = random_array({40, 50}, DType::uint16, 4);
  const std::string npy = write_npy("a.npy", a), tif = temp_path("a.tif");
  auto r = run_cli({"io.imsave", npy, tif, "--tile", "16,32", "--bigtiff", "--compression", "lzw", "--device", "cpu"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(a, io::imread(tif));
  // The tile is a pair (ImsaveOptions::tile): one value is a command-line mistake.
  auto bad = run_cli({"io.imsave", npy, tif, "--tile", "16", "--device", "cpu"});
  EXPECT_EQ(bad.rc, 2);
  EXPECT_TRUE(contains(bad.err, "io.imsave: parameter '--tile' expects 2 values, got 1")) << describe(bad);
}

TEST(CliIo, AsGrayMatchesLibrary) {
  Array rgb = random_array({12, 10, 3}, DType::uint8, 11);
  const std::string png = temp_path("rgb.png"), out = temp_path("gray.npy");
  io::imsave(png, rgb);
  auto r = run_cli({"io.imread", png, out, "--as_gray", "--device", "cpu"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(io::imread(png, {.as_gray = true}), io::imread(out));
}

TEST(CliIo, JpegQualityEqualsSyntax) {
  Array a = random_array({32, 32}, DType::uint8, 5);
  const std::string npy = write_npy("a.npy", a);
  const std::string lo = temp_path("lo.jpg"), hi = temp_path("hi.jpg");
  auto r1 = run_cli({"io.imsave", npy, lo, "--quality=10", "--check_contrast", "false", "--device", "cpu"});
  auto r2 = run_cli({"io.imsave", npy, hi, "--quality", "95", "--device=cpu"});
  ASSERT_EQ(r1.rc, 0) << describe(r1);
  ASSERT_EQ(r2.rc, 0) << describe(r2);
  EXPECT_LT(std::filesystem::file_size(lo), std::filesystem::file_size(hi));
  Array back = io::imread(hi);
  EXPECT_EQ(back.shape(), a.shape());
  EXPECT_EQ(back.dtype(), DType::uint8);
}

TEST(CliIo, GlobalDeviceBeforeCommand) {
  Array a = random_array({6, 7}, DType::uint16, 2);
  const std::string npy = write_npy("a.npy", a), out = temp_path("b.npy");
  auto r = run_cli({"--device", "cpu", "io.imread", npy, out});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(a, io::imread(out));
}

// ---- GPU -------------------------------------------------------------------------------------------

TEST(GpuCli, IoOnCuda) {
  CUSK_REQUIRE_GPU();
  Array a = random_array({33, 65, 3}, DType::uint8, 9);
  const std::string npy = write_npy("a.npy", a), out = temp_path("b.tif");
  auto r = run_cli({"io.imread", npy, out, "--device", "cuda"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(a, io::imread(out));
  auto bad = run_cli({"io.imread", npy, out, "--device", "cuda:" + std::to_string(cuda_device_count())});
  EXPECT_EQ(bad.rc, 1);
  EXPECT_TRUE(contains(bad.err, "CUDA device(s) present")) << describe(bad);
}
