// measure.profile_line with the prefiltered spline orders 2..5 (ndimage::map_coordinates) against
// scikit-image (tests/golden/cases_measure_spline.py), on the CPU and on the GPU (goldens on the
// device, device == CPU, a non-default stream). Tolerances: float64 profiles 1e-12 relative (the
// spline arithmetic is scipy's, the mean over the width numpy's pairwise sum of at most 3 values);
// uint8 samples (reduce none) exactly.
#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cuskimage/measure.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;
namespace measure = cuskimage::measure;
using M = cuskimage::ndimage::Mode;
using R = measure::ProfileReduce;

Array golden(const std::string& name) { return cusktest::load_golden("measure_spline/" + name + ".npy"); }

struct Line {
  std::string name;
  std::pair<double, double> src, dst;
  std::int64_t lw;
  M mode;
  R reduce;
};

const std::vector<Line> kLines = {
    {"diag", {5, 7}, {100, 90}, 1, M::reflect, R::mean},     {"outside", {-4, -6}, {130, 40}, 3, M::constant, R::mean},
    {"wrap", {-3, 2}, {50, 135}, 2, M::wrap, R::mean},       {"mirror", {126, -2}, {-2, 60}, 3, M::mirror, R::mean},
    {"nearest", {0, 0}, {127, 131}, 2, M::nearest, R::mean}, {"none", {10, 10}, {30, 50}, 3, M::reflect, R::none},
};

::testing::AssertionResult matches(const Array& expected, const Array& actual) {
  if (expected.dtype() == DType::float64) return cusktest::arrays_close(expected, actual, 1e-12, 1e-12);
  return cusktest::arrays_equal(expected, actual);
}

void run_goldens(const Device& dev, const Stream& s) {
  const Array cam = golden("cam").to(dev, s);
  const Array camf = golden("cam").astype(DType::float64).to(dev, s);
  Array camf255 = Array::empty(camf.shape(), DType::float64);
  {
    const Array h = cusktest::host_copy(camf);
    const double* p = static_cast<const double*>(h.data());
    double* q = static_cast<double*>(camf255.data());
    for (std::int64_t i = 0; i < h.size(); ++i) q[i] = p[i] / 255;  // numpy's cam.astype(float64) / 255
  }
  const Array cf = camf255.to(dev, s);
  for (const Line& l : kLines)
    for (int order = 2; order <= 5; ++order) {
      const std::string base = "prof_" + l.name + "_o" + std::to_string(order);
      SCOPED_TRACE(base);
      const measure::ProfileLineOptions o{.linewidth = l.lw, .order = order, .mode = l.mode, .reduce = l.reduce};
      EXPECT_TRUE(matches(golden(base + "_cam"), measure::profile_line(cam, l.src, l.dst, o, s)));
      EXPECT_TRUE(matches(golden(base + "_camf"), measure::profile_line(cf, l.src, l.dst, o, s)));
    }
  const Array astro = golden("astro").to(dev, s);
  for (int order : {3, 5}) {
    EXPECT_TRUE(matches(golden("prof_astro_o" + std::to_string(order)),
                        measure::profile_line(astro, {3, 4}, {60, 50}, {.linewidth = 3, .order = order}, s)))
        << order;
    EXPECT_TRUE(matches(golden("prof_astro_none_o" + std::to_string(order)),
                        measure::profile_line(astro, {3, 4}, {60, 50},
                                              {.linewidth = 2, .order = order, .mode = M::constant, .cval = 9,
                                               .reduce = R::none},
                                              s)))
        << order;
  }
}

}  // namespace

TEST(MeasureProfileSpline, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(MeasureProfileSpline, OrderRange) {
  const Array cam = golden("cam");
  EXPECT_THROW(measure::profile_line(cam, {0, 0}, {5, 5}, {.order = 6}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::profile_line(cam, {0, 0}, {5, 5}, {.order = -1}), cuskimage::InvalidArgument);
  // bool images interpolate with order 0 only (scikit-image's _validate_interpolation_order).
  EXPECT_THROW(measure::profile_line(Array::zeros({6, 6}, DType::bool_), {0, 0}, {5, 5}, {.order = 2}),
               cuskimage::InvalidArgument);
}

TEST(MeasureProfileSpline, CliOrder3) {
  const auto r = cuskclitest::run_cli_cpu({"measure.profile_line", cusktest::golden_path("measure_spline/cam.npy"),
                                           "--src", "5,7", "--dst", "100,90", "--order", "3"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  std::string text = r.out;
  for (char& c : text)
    if (c == '[' || c == ']' || c == ',') c = ' ';
  std::istringstream is(text);
  std::vector<double> got;
  for (double v; is >> v;) got.push_back(v);
  const Array expected = golden("prof_diag_o3_cam");
  ASSERT_EQ(static_cast<std::int64_t>(got.size()), expected.size());
  EXPECT_TRUE(cusktest::arrays_close(expected, Array::from_vector(got, {expected.size()}), 1e-12, 1e-12));
}

TEST(GpuMeasureProfileSpline, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  run_goldens(Device::cuda(), Stream::create());
}

TEST(GpuMeasureProfileSpline, MatchesCpuOnRandomImages) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 7;
  for (DType dt : {DType::uint8, DType::float32, DType::float64}) {
    const Array h = cusktest::random_array({90, 120, 3}, dt, seed++, 0, 100);
    const Array d = h.to(Device::cuda(), s);
    for (int order = 0; order <= 5; ++order)  // 0/1: sampled directly; 2-5: ndimage's prefiltered path
      for (M mode : {M::reflect, M::constant, M::wrap, M::mirror, M::nearest}) {
        const measure::ProfileLineOptions o{.linewidth = 3, .order = order, .mode = mode, .cval = 4, .reduce = R::none};
        EXPECT_ARRAY_EQ(measure::profile_line(h, {-5, 3}, {95, 130}, o), measure::profile_line(d, {-5, 3}, {95, 130}, o, s))
            << order;
      }
  }
}

TEST(GpuMeasureProfileSpline, NoLegacyStream) {
  // A non-default stream with the legacy stream held busy (timing based: not under memcheck).
  CUSK_REQUIRE_GPU();
  const Array h = cusktest::random_array({64, 64}, DType::float64, 99);
  const Array expected = measure::profile_line(h, {3, 2}, {60, 50}, {.linewidth = 2, .order = 3});
  Array got;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& st) {
    got = measure::profile_line(h.to(Device::cuda(), st), {3, 2}, {60, 50}, {.linewidth = 2, .order = 3}, st);
  }));
  EXPECT_ARRAY_EQ(expected, got);
}
