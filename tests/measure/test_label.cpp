// measure.label: scikit-image goldens (exact numbers, every connectivity and background case), the
// CUDA backend against the CPU backend on fresh random inputs, bad input and the CLI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/measure.hpp"
#include "cuskimage/io.hpp"
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

Array golden(const std::string& name) { return cusktest::load_golden("measure/" + name + ".npy"); }

struct GoldenCase {
  std::string name;
  std::vector<std::optional<std::int64_t>> backgrounds;
};

const std::vector<GoldenCase>& golden_cases() {
  static const std::vector<GoldenCase> c = {
      {"bool2", {std::nullopt, 1}}, {"bool3", {std::nullopt, 1}},   {"u8_2", {std::nullopt, 2, 255}},
      {"i32_3", {std::nullopt, -1}}, {"u16_1", {std::nullopt}},      {"f64_2", {std::nullopt}},
      {"snake", {std::nullopt}},
  };
  return c;
}

std::string suffix(const std::optional<std::int64_t>& bg, int c) {
  return (bg ? "_bg" + std::to_string(*bg) : std::string()) + "_c" + std::to_string(c);
}

/// Max of an int32/int64 label array (host).
std::int64_t max_label(const Array& a) {
  std::int64_t m = 0;
  for (double v : cusktest::host_copy(a).to_vector<double>()) m = std::max<std::int64_t>(m, static_cast<std::int64_t>(v));
  return m;
}

TEST(MeasureLabel, GoldenEveryCase) {
  for (const auto& gc : golden_cases()) {
    const Array in = golden("label_" + gc.name + "_in");
    for (int c = 1; c <= in.ndim(); ++c) {
      for (const auto& bg : gc.backgrounds) {
        const Array expected = golden("label_" + gc.name + suffix(bg, c));
        const auto r = measure::label_with_num(in, {.background = bg, .connectivity = c});
        EXPECT_EQ(r.labels.dtype(), expected.dtype()) << gc.name << suffix(bg, c);
        EXPECT_ARRAY_EQ(expected, r.labels) << gc.name << suffix(bg, c);
        EXPECT_EQ(r.num, max_label(expected)) << gc.name << suffix(bg, c);
      }
    }
  }
}

TEST(MeasureLabel, DefaultsAreFullConnectivityAndBackgroundZero) {
  const Array in = golden("label_u8_2_in");
  EXPECT_ARRAY_EQ(golden("label_u8_2_c2"), measure::label(in));
  const Array b = golden("label_bool3_in");
  EXPECT_ARRAY_EQ(golden("label_bool3_c3"), measure::label(b));
}

TEST(MeasureLabel, DtypeOverrideAndStridedInput) {
  const Array in = golden("label_u8_2_in");
  const Array expected = golden("label_u8_2_c1");
  const Array l32 = measure::label(in, {.connectivity = 1, .dtype = DType::int32});
  EXPECT_EQ(l32.dtype(), DType::int32);
  EXPECT_ARRAY_EQ(expected.astype(DType::int32), l32);
  // A reversed, strided view labels like its contiguous copy.
  const Array view = in.slice({Slice{.step = 2}, Slice{.step = -1}});
  EXPECT_ARRAY_EQ(measure::label(view.contiguous(), {.connectivity = 1}), measure::label(view, {.connectivity = 1}));
}

TEST(MeasureLabel, FourDimensionsOnCpu) {
  Array a = Array::zeros({3, 4, 5, 6}, DType::bool_);
  auto* p = static_cast<bool*>(a.data());
  p[0] = p[1] = true;                  // (0,0,0,0)-(0,0,0,1): one region
  p[a.size() - 1] = true;              // the far corner: another
  p[6 * 5 * 4 + 6 * 5 + 6 + 1] = true;  // (1,1,1,1): 3 hops from (0,0,0,1), 4 from (0,0,0,0)
  EXPECT_EQ(measure::label_with_num(a).num, 2);
  EXPECT_EQ(measure::label_with_num(a, {.connectivity = 1}).num, 3);
  EXPECT_EQ(measure::label_with_num(a, {.connectivity = 2}).num, 3);
  EXPECT_EQ(measure::label_with_num(a, {.connectivity = 3}).num, 2);
}

TEST(MeasureLabel, FloatsTruncateTowardZero) {
  const Array f = Array::from_vector<double>({0.5, 0.9, -0.7, 1.2, 1.9, 2.0}, {6});
  // Truncated: 0 0 0 1 1 2 -> background, then {1.2, 1.9} and {2.0}.
  const auto r = measure::label_with_num(f);
  EXPECT_EQ(r.num, 2);
  EXPECT_EQ(cusktest::host_copy(r.labels).to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 0, 0, 1, 1, 2}));
}

TEST(MeasureLabel, BadInput) {
  const Array a = Array::zeros({4, 4}, DType::uint8);
  EXPECT_THROW(measure::label(a, {.connectivity = 3}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::label(a, {.connectivity = 0}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::label(a, {.dtype = DType::float32}), cuskimage::InvalidArgument);
  EXPECT_THROW(measure::label(Array::zeros({}, DType::uint8)), cuskimage::InvalidArgument);
  try {
    measure::label(a, {.connectivity = 5});
    ADD_FAILURE() << "no throw";
  } catch (const cuskimage::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("measure.label: argument 'connectivity'"), std::string::npos) << e.what();
  }
}

TEST(MeasureLabel, Cli) {
  const Array in = golden("label_bool2_in");
  const std::string ip = cusktest::temp_path("label_cli_in.npy"), op = cusktest::temp_path("label_cli_out.npy");
  cuskimage::io::imsave(ip, in);
  const auto r = cuskclitest::run_cli_cpu({"measure.label", ip, op, "--connectivity", "1"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_ARRAY_EQ(golden("label_bool2_c1"), cuskimage::io::imread(op));
  EXPECT_NE(r.out.find("\"num\": " + std::to_string(max_label(golden("label_bool2_c1")))), std::string::npos) << r.out;
  EXPECT_EQ(cuskclitest::run_cli_cpu({"measure.label", ip, op, "--connectivity", "3"}).rc, 1);
}

// ---- CUDA backend --------------------------------------------------------------------------

/// Random multi-valued blobs: values in [0, levels) where a smoothed noise field is high.
Array blobs(const Shape& shape, DType dt, std::uint64_t seed, int levels) {
  const Array noise = cusktest::random_array(shape, DType::float64, seed, 0, 1);
  const Array vals = cusktest::random_array(shape, DType::float64, seed + 1, 0, levels);
  Array out = Array::empty(shape, DType::float64);
  const auto nv = noise.to_vector<double>();
  const auto vv = vals.to_vector<double>();
  auto* o = static_cast<double*>(out.data());
  for (std::size_t i = 0; i < nv.size(); ++i) o[i] = nv[i] < 0.45 ? 0.0 : std::floor(vv[i]) + 1.0;
  return out.astype(dt);
}

TEST(GpuMeasureLabel, GoldenOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const auto& gc : golden_cases()) {
    const Array in = golden("label_" + gc.name + "_in").to(Device::cuda(), s);
    for (int c = 1; c <= in.ndim(); ++c)
      for (const auto& bg : gc.backgrounds) {
        const auto r = measure::label_with_num(in, {.background = bg, .connectivity = c}, s);
        EXPECT_EQ(r.labels.device(), in.device());
        const Array expected = golden("label_" + gc.name + suffix(bg, c));
        EXPECT_ARRAY_EQ(expected, r.labels) << gc.name << suffix(bg, c);
        EXPECT_EQ(r.num, max_label(expected)) << gc.name << suffix(bg, c);
      }
  }
}

TEST(GpuMeasureLabel, MatchesCpuOnRandomInputs) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const std::vector<Shape> shapes = {{5000}, {1}, {300, 517}, {17, 1}, {1, 700}, {40, 37, 45}, {3, 129, 70}};
  std::uint64_t seed = 100;
  for (const Shape& shape : shapes) {
    for (DType dt : {DType::bool_, DType::uint8, DType::int32, DType::float32}) {
      const Array h = blobs(shape, dt, seed++, dt == DType::bool_ ? 1 : 3);
      const Array d = h.to(Device::cuda(), s);
      for (int c = 1; c <= h.ndim(); ++c) {
        for (DType odt : {DType::int32, DType::int64}) {
          const measure::LabelOptions o{.connectivity = c, .dtype = odt};
          const auto rc = measure::label_with_num(h, o);
          const auto rg = measure::label_with_num(d, o, s);
          EXPECT_ARRAY_EQ(rc.labels, rg.labels) << cuskimage::shape_str(shape) << " " << cuskimage::dtype_name(dt)
                                                << " c" << c;
          EXPECT_EQ(rc.num, rg.num);
        }
      }
      // background 1 (inverts a bool image; an ordinary value otherwise)
      EXPECT_ARRAY_EQ(measure::label(h, {.background = 1}), measure::label(d, {.background = 1}, s));
    }
  }
}

TEST(GpuMeasureLabel, SnakesAcrossTilesAndStridedViews) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // Long serpentine regions cross many 32 x 16 tiles: the border pass must join them all.
  Array snake = Array::zeros({257, 301}, DType::uint8);
  auto* p = static_cast<std::uint8_t*>(snake.data());
  for (std::int64_t r = 0; r < 256; r += 3) {
    for (std::int64_t x = 1; x < 300; ++x) p[r * 301 + x] = 1 + (r / 3) % 2;
    const std::int64_t x = (r / 3) % 2 == 0 ? 299 : 1;
    for (std::int64_t k = r; k < r + 3 && k < 257; ++k) p[k * 301 + x] = 1 + (r / 3) % 2;
  }
  for (int c : {1, 2}) {
    const auto rc = measure::label_with_num(snake, {.connectivity = c});
    const auto rg = measure::label_with_num(snake.to(Device::cuda(), s), {.connectivity = c}, s);
    EXPECT_ARRAY_EQ(rc.labels, rg.labels);
    EXPECT_EQ(rc.num, rg.num);
  }
  const Array h = blobs({64, 90, 33}, DType::uint16, 7, 2);
  const Array d = h.to(Device::cuda(), s);
  const Array hv = h.slice({Slice{.start = 1, .step = 2}, Slice{.step = -1}, Slice{.step = 3}});
  const Array dv = d.slice({Slice{.start = 1, .step = 2}, Slice{.step = -1}, Slice{.step = 3}});
  EXPECT_ARRAY_EQ(measure::label(hv, {.connectivity = 2}), measure::label(dv, {.connectivity = 2}, s));
}

TEST(GpuMeasureLabel, BadInputOnDevice) {
  CUSK_REQUIRE_GPU();
  const Array d4 = Array::zeros({2, 2, 2, 2}, DType::uint8, Device::cuda());
  EXPECT_THROW(measure::label(d4), cuskimage::NotSupported);
}

TEST(GpuMeasureLabel, NonDefaultStreamWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array d = blobs({200, 300}, DType::uint8, 3, 2).to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array l = measure::label(d, {.connectivity = 1}, s);
    s.synchronize();
  }));
}

}  // namespace
