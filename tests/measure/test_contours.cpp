// measure.find_contours: scikit-image goldens (same number of contours, same order, same
// orientation, same coordinates), bad input, the CUDA backend against the CPU backend on fresh
// random inputs (segments compacted on the device, assembled on the host) and the CLI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/measure.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace measure = cuskimage::measure;
using measure::LowHigh;

Array golden(const std::string& name) { return cusktest::load_golden("measure_misc/" + name + ".npy"); }

struct Params {
  std::string suffix;
  LowHigh fully_connected;
  LowHigh orientation;
};

const std::vector<Params> kParams = {{"default", LowHigh::low, LowHigh::low},
                                     {"high", LowHigh::high, LowHigh::low},
                                     {"orient", LowHigh::low, LowHigh::high},
                                     {"both", LowHigh::high, LowHigh::high}};

/// Every contour of `got` equals the golden `name` (count, order, lengths, coordinates).
void expect_contours(const std::vector<Array>& got, const std::string& name) {
  const Array len = golden(name + "_len");
  const Array pts = golden(name + "_pts");
  const auto lens = len.to_vector<std::int64_t>();
  const auto p = pts.to_vector<double>();
  ASSERT_EQ(got.size(), lens.size()) << name;
  std::size_t off = 0;
  std::size_t mismatches = 0;
  for (std::size_t k = 0; k < got.size(); ++k) {
    ASSERT_EQ(got[k].dtype(), DType::float64);
    ASSERT_EQ(got[k].ndim(), 2);
    ASSERT_EQ(got[k].shape(0), lens[k]) << name << " contour " << k;
    const auto g = got[k].to_vector<double>();
    for (std::size_t j = 0; j < g.size(); ++j)
      if (!(std::abs(g[j] - p[2 * off + j]) <= 1e-9)) ++mismatches;
    off += static_cast<std::size_t>(lens[k]);
  }
  EXPECT_EQ(mismatches, 0u) << name;
}

struct Case {
  std::string name;
  int levels;         // golden level sets l0.. (l0 = default level unless the case stores _level)
  bool has_mask = false;
};

const std::vector<Case> kCases = {{"smooth", 2}, {"blobs", 1}, {"ints", 3},   {"nan", 1},
                                  {"masked", 1, true}, {"coins", 2}, {"tiny", 1}};

std::optional<double> level_of(const std::string& c, int li) {
  const std::string path = cusktest::golden_path("measure_misc/contours_" + c + "_l" + std::to_string(li) + "_level.npy");
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    std::fclose(f);
    return golden("contours_" + c + "_l" + std::to_string(li) + "_level").to_vector<double>()[0];
  }
  return std::nullopt;
}

void run_goldens(const Device& dev) {
  for (const auto& c : kCases) {
    const Array in = golden("contours_" + c.name + "_in").to(dev);
    Array mask = c.has_mask ? golden("contours_" + c.name + "_mask").to(dev) : Array();
    for (int li = 0; li < c.levels; ++li) {
      for (const auto& p : kParams) {
        measure::FindContoursOptions o{.level = level_of(c.name, li),
                                       .fully_connected = p.fully_connected,
                                       .positive_orientation = p.orientation,
                                       .mask = mask.valid() ? mask.share() : Array()};
        expect_contours(measure::find_contours(in, o),
                        "contours_" + c.name + "_l" + std::to_string(li) + "_" + p.suffix);
      }
    }
  }
}

TEST(MeasureFindContours, GoldenEveryCase) { run_goldens(Device::cpu()); }

TEST(MeasureFindContours, DocExampleAndClosedContours) {
  // scikit-image's docstring example: one open contour from (0, 0.5) to (0.5, 0).
  Array a = Array::zeros({3, 3}, DType::float64);
  static_cast<double*>(a.data())[0] = 1.0;
  const auto c = measure::find_contours(a, {.level = 0.5});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].to_vector<double>(), (std::vector<double>{0.0, 0.5, 0.5, 0.0}));
  // An interior island gives a closed contour (first point == last point), counter-clockwise
  // around the low values by default and reversed with positive_orientation high.
  Array b = Array::zeros({5, 5}, DType::uint8);
  for (int r = 1; r < 4; ++r)
    for (int q = 1; q < 4; ++q) static_cast<std::uint8_t*>(b.data())[r * 5 + q] = 1;
  const auto low = measure::find_contours(b);
  const auto high = measure::find_contours(b, {.positive_orientation = LowHigh::high});
  ASSERT_EQ(low.size(), 1u);
  ASSERT_EQ(high.size(), 1u);
  const auto l = low[0].to_vector<double>(), h = high[0].to_vector<double>();
  ASSERT_EQ(l.size(), h.size());
  EXPECT_EQ(l[0], l[l.size() - 2]);
  EXPECT_EQ(l[1], l[l.size() - 1]);
  for (std::size_t i = 0; i < l.size() / 2; ++i) {
    EXPECT_EQ(l[2 * i], h[h.size() - 2 - 2 * i]);
    EXPECT_EQ(l[2 * i + 1], h[h.size() - 1 - 2 * i]);
  }
}

TEST(MeasureFindContours, StridedViewAndDtypes) {
  const Array in = golden("contours_smooth_in");
  // a strided view equals the same values copied
  const Array big = cusktest::random_array({80, 100}, DType::float64, 3);
  const Array view = big.slice({Slice{1, std::nullopt, 2}, Slice{0, std::nullopt, 2}});
  const auto a = measure::find_contours(view, {.level = 0.5});
  const auto b = measure::find_contours(view.copy(), {.level = 0.5});
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t k = 0; k < a.size(); ++k) EXPECT_ARRAY_EQ(b[k], a[k]);
  // float32 input is read as float64 (scikit-image's astype): same as converting first
  const Array f32 = in.astype(DType::float32);
  const auto c32 = measure::find_contours(f32, {.level = 0.5});
  const auto c64 = measure::find_contours(f32.astype(DType::float64), {.level = 0.5});
  ASSERT_EQ(c32.size(), c64.size());
  for (std::size_t k = 0; k < c32.size(); ++k) EXPECT_ARRAY_EQ(c64[k], c32[k]);
  // a constant image has no contours
  EXPECT_TRUE(measure::find_contours(Array::zeros({4, 4}, DType::uint8)).empty());
}

TEST(MeasureFindContours, DefaultLevelInTheImageDtype) {
  // uint8: (100 + 200) wraps to 44 in NumPy's scalar arithmetic, so scikit-image's level is 22,
  // below every value: no contours, where the true midpoint 150 finds some.
  const Array a = Array::from_vector(std::vector<std::uint8_t>{100, 200, 100, 200, 120, 180}, {3, 2});
  EXPECT_TRUE(measure::find_contours(a).empty());
  EXPECT_FALSE(measure::find_contours(a, {.level = 150.0}).empty());
  // bool: True + True is True, so the level is 0.5
  const Array b = Array::from_vector(std::vector<bool>{false, true, true, false}, {2, 2});
  const auto cb = measure::find_contours(b), cl = measure::find_contours(b, {.level = 0.5});
  ASSERT_EQ(cb.size(), cl.size());
  for (std::size_t k = 0; k < cb.size(); ++k) EXPECT_ARRAY_EQ(cl[k], cb[k]);
}

TEST(MeasureFindContours, BadInput) {
  const Array img = cusktest::random_array({6, 7}, DType::float64, 1);
  EXPECT_THROW(measure::find_contours(Array::zeros({5}, DType::float64)), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::find_contours(Array::zeros({1, 5}, DType::float64)), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::find_contours(Array::zeros({3, 3, 3}, DType::float64)), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::find_contours(img, {.mask = Array::zeros({6, 6}, DType::bool_)}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::find_contours(img, {.mask = Array::zeros({6, 7}, DType::uint8)}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::find_contours(Array()), cuskimage::InvalidArgument);
}

TEST(MeasureFindContours, Cli) {
  const std::string in = cusktest::golden_path("measure_misc/contours_tiny_in.npy");
  const auto csv = cuskclitest::run_cli_cpu({"measure.find_contours", in, "--level", "0.5"});
  ASSERT_EQ(csv.rc, 0) << cuskclitest::describe(csv);
  EXPECT_EQ(csv.out, "contour,row,col\n0,0.0,0.5\n0,0.5,0.0\n");
  const auto js = cuskclitest::run_cli_cpu({"measure.find_contours", in, "--level", "0.5", "--format", "json"});
  ASSERT_EQ(js.rc, 0) << cuskclitest::describe(js);
  EXPECT_TRUE(cuskclitest::contains(js.out, "[[[0.0, 0.5], [0.5, 0.0]]]")) << js.out;
  const std::string out = cusktest::temp_path("contours_cli.csv");
  const auto f = cuskclitest::run_cli_cpu({"measure.find_contours", in, out, "--fully_connected", "high"});
  ASSERT_EQ(f.rc, 0) << cuskclitest::describe(f);
  EXPECT_TRUE(cuskclitest::contains(cuskclitest::slurp(out), "contour,row,col"));
  EXPECT_EQ(cuskclitest::run_cli_cpu({"measure.find_contours", in, "--fully_connected", "middle"}).rc, 2);
}

// ---- GPU tier ------------------------------------------------------------------------------------

void expect_same_contours(const std::vector<Array>& cpu, const std::vector<Array>& gpu) {
  ASSERT_EQ(cpu.size(), gpu.size());
  for (std::size_t k = 0; k < cpu.size(); ++k) EXPECT_ARRAY_EQ(cpu[k], gpu[k]);
}

TEST(GpuMeasureFindContours, GoldenEveryCase) {
  CUSK_REQUIRE_GPU();
  run_goldens(Device::cuda(0));
}

TEST(GpuMeasureFindContours, MatchesCpuOnRandomInputs) {
  CUSK_REQUIRE_GPU();
  const Device gpu = Device::cuda(0);
  for (DType dt : {DType::uint8, DType::float32, DType::float64, DType::bool_, DType::int32}) {
    const Array in = dt == DType::bool_ ? cusktest::random_array({301, 257}, dt, 5)
                                        : cusktest::random_array({301, 257}, dt, 5, 0, 9);
    for (const auto& p : kParams) {
      const measure::FindContoursOptions o{.fully_connected = p.fully_connected, .positive_orientation = p.orientation};
      expect_same_contours(measure::find_contours(in, o), measure::find_contours(in.to(gpu), o));
    }
  }
  // a large mask (many blocks of the reduce-then-scan) with a mask and NaNs
  Array big = cusktest::random_array({1100, 1300}, DType::float64, 9);
  static_cast<double*>(big.data())[5000] = std::nan("");
  const Array mask = cusktest::random_array({1100, 1300}, DType::bool_, 10);
  const measure::FindContoursOptions o{.level = 0.3, .mask = mask.share()};
  const measure::FindContoursOptions og{.level = 0.3, .mask = mask.to(gpu)};
  expect_same_contours(measure::find_contours(big, o), measure::find_contours(big.to(gpu), og));
  // strided device view
  const Array view = big.slice({Slice{3, 900, 2}, Slice{1, std::nullopt, 3}});
  expect_same_contours(measure::find_contours(view), measure::find_contours(big.to(gpu).slice(
                                                         {Slice{3, 900, 2}, Slice{1, std::nullopt, 3}})));
}

TEST(GpuMeasureFindContours, NonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Array in = cusktest::random_array({200, 300}, DType::float32, 4);
  const Array d = in.to(Device::cuda(0));
  const auto expected = measure::find_contours(in);
  std::vector<Array> got;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) { got = measure::find_contours(d, {}, s); }));
  expect_same_contours(expected, got);
}

}  // namespace
