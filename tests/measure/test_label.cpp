// measure.label: scikit-image goldens (exact numbers, every connectivity and background case), the
// CUDA backend against the CPU backend on fresh random inputs, bad input and the CLI.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <utility>
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

// ---- Patterns that stress the tiled CUDA labeller (tiles of 32 x 32 in 2-D, 32 x 8 x 4 in 3-D) ----

/// A host image of dtype `dt` from a rule v(z, y, x) (1-D and 2-D images use leading extents of 1).
template <class F>
Array pattern(const Shape& shape, DType dt, F v) {
  std::int64_t ext[3] = {1, 1, 1};
  for (std::size_t d = 0; d < shape.size(); ++d) ext[3 - shape.size() + d] = shape[d];
  std::vector<std::int64_t> vals;
  vals.reserve(static_cast<std::size_t>(ext[0] * ext[1] * ext[2]));
  for (std::int64_t z = 0; z < ext[0]; ++z)
    for (std::int64_t y = 0; y < ext[1]; ++y)
      for (std::int64_t x = 0; x < ext[2]; ++x) vals.push_back(v(z, y, x));
  return Array::from_vector<std::int64_t>(vals, shape).astype(dt);
}

Array checkerboard(const Shape& shape) {
  return pattern(shape, DType::bool_, [](auto z, auto y, auto x) { return (z + y + x) % 2 == 0; });
}

/// Rows 0, 4, 8, ... joined by the three rows between them alternately at the right and left ends:
/// one region snaking through every tile row and back across every tile column.
Array serpentine(std::int64_t ny, std::int64_t nx) {
  return pattern({ny, nx}, DType::uint8, [=](auto, std::int64_t y, std::int64_t x) {
    if (y % 4 == 0) return 1;
    return ((y / 4) % 2 == 0) ? int(x == nx - 1) : int(x == 0);
  });
}

/// Its transpose: columns joined at the top and bottom.
Array serpentine_t(std::int64_t ny, std::int64_t nx) {
  return pattern({ny, nx}, DType::uint8, [=](auto, std::int64_t y, std::int64_t x) {
    if (x % 4 == 0) return 1;
    return ((x / 4) % 2 == 0) ? int(y == ny - 1) : int(y == 0);
  });
}

/// Concentric square rings of width 1 at even distances d from the border, each opened at (d, d + 1)
/// and joined to the next by the bridge (d + 1, d + 2): one long region winding through every tile.
Array spiral(std::int64_t n) {
  return pattern({n, n}, DType::bool_, [=](auto, std::int64_t y, std::int64_t x) {
    const std::int64_t d = std::min(std::min(y, x), std::min(n - 1 - y, n - 1 - x));
    const bool gap = y == d && x == d + 1;  // the opening of an even ring, the bridge on an odd one
    return d % 2 == 0 ? !gap : gap;
  });
}

/// A hook: one region whose first pixel (top right) lies in a later tile than its pixels further
/// down-left (same tile row, lower tile column), repeated with different sizes.
Array hooks(std::int64_t ny, std::int64_t nx) {
  return pattern({ny, nx}, DType::uint8, [=](auto, std::int64_t y, std::int64_t x) {
    const std::int64_t band = y / 20, yy = y % 20, right = nx - 1 - 3 * band;
    if (yy == 2 + band % 5) return int(x == right);            // the hook's top: its first pixel
    if (yy > 2 + band % 5 && yy < 17) return int(x == right);  // down the right
    if (yy == 17) return int(x >= 1 + band && x <= right);     // back left, into earlier tiles
    return 0;
  });
}

TEST(MeasureLabel, PatternCounts) {
  // The counts these patterns are built to have (so the device tests below exercise what they say).
  EXPECT_EQ(measure::label_with_num(checkerboard({67, 99}), {.connectivity = 1}).num, (67 * 99 + 1) / 2);
  EXPECT_EQ(measure::label_with_num(checkerboard({67, 99}), {.connectivity = 2}).num, 1);
  EXPECT_EQ(measure::label_with_num(checkerboard({9, 17, 40}), {.connectivity = 1}).num, (9 * 17 * 40) / 2);
  EXPECT_EQ(measure::label_with_num(checkerboard({9, 17, 40}), {.connectivity = 2}).num, 1);
  EXPECT_EQ(measure::label_with_num(serpentine(203, 301)).num, 1);
  EXPECT_EQ(measure::label_with_num(serpentine_t(203, 301)).num, 1);
  EXPECT_EQ(measure::label_with_num(spiral(129), {.connectivity = 1}).num, 1);
  const Array h = hooks(200, 330);
  EXPECT_EQ(measure::label_with_num(h, {.connectivity = 1}).num, 10);
  // The first hook's first pixel is labelled 1 although the pixels it reaches at x = 1 come later
  // in tile order only.
  const auto l = cusktest::host_copy(measure::label(h)).to_vector<std::int64_t>();
  EXPECT_EQ(l[2 * 330 + 329], 1);
  EXPECT_EQ(l[17 * 330 + 1], 1);
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

/// The device labelling on stream `s` against the CPU backend: every connectivity, both output
/// dtypes, with and without the count.
void expect_gpu_equals_cpu(const Array& h, const Stream& s, const std::string& what,
                           std::optional<std::int64_t> background = std::nullopt) {
  const Array d = h.to(Device::cuda(), s);
  for (int c = 1; c <= h.ndim(); ++c) {
    for (DType odt : {DType::int32, DType::int64}) {
      const measure::LabelOptions o{.background = background, .connectivity = c, .dtype = odt};
      const std::string at = what + " " + cuskimage::shape_str(h.shape()) + " " +
                             std::string(cuskimage::dtype_name(h.dtype())) + " c" + std::to_string(c) + " -> " +
                             std::string(cuskimage::dtype_name(odt));
      const auto rc = measure::label_with_num(h, o);
      const auto rg = measure::label_with_num(d, o, s);
      EXPECT_EQ(rg.labels.device(), d.device()) << at;
      EXPECT_ARRAY_EQ(rc.labels, rg.labels) << at;
      EXPECT_EQ(rc.num, rg.num) << at;
      EXPECT_ARRAY_EQ(rc.labels, measure::label(d, o, s)) << at << " (no count)";
    }
  }
}

TEST(GpuMeasureLabel, CheckerboardsAcrossTileFacesAndCorners) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // Connectivity 1: every pixel its own region; 2 (and 3): one region through every tile corner.
  expect_gpu_equals_cpu(checkerboard({133, 170}), s, "checkerboard");
  expect_gpu_equals_cpu(checkerboard({37, 41, 67}), s, "checkerboard");
  // Two-valued checkerboard: no two neighbours share a value under connectivity 1.
  expect_gpu_equals_cpu(pattern({97, 130}, DType::uint8, [](auto, auto y, auto x) { return 1 + (y + x) % 2; }), s,
                        "two-valued checkerboard");
  // Diagonal and anti-diagonal stripes cross every face and corner diagonally.
  expect_gpu_equals_cpu(pattern({150, 160}, DType::bool_, [](auto, auto y, auto x) { return (x + y) % 3 == 0; }), s,
                        "diagonal stripes");
  expect_gpu_equals_cpu(
      pattern({150, 160}, DType::bool_, [](auto, auto y, auto x) { return (x - y + 1000) % 4 == 0; }), s,
      "anti-diagonal stripes");
  expect_gpu_equals_cpu(
      pattern({20, 30, 70}, DType::bool_, [](auto z, auto y, auto x) { return (x + y + z) % 3 == 0; }), s,
      "diagonal planes");
  // Isolated pairs touching only across tile corners (2-D: (31, 31)-(32, 32) and mirrored).
  expect_gpu_equals_cpu(pattern({64, 96}, DType::bool_,
                                [](auto, auto y, auto x) {
                                  return (y == 31 && x == 31) || (y == 32 && x == 32) || (y == 31 && x == 64) ||
                                         (y == 32 && x == 63);
                                }),
                        s, "corner pairs");
  // 3-D: pairs meeting only at the 3-hop corner of eight 32 x 8 x 4 tiles, both diagonal directions.
  expect_gpu_equals_cpu(pattern({8, 16, 96}, DType::bool_,
                                [](auto z, auto y, auto x) {
                                  return (z == 3 && y == 7 && x == 31) || (z == 4 && y == 8 && x == 32) ||
                                         (z == 4 && y == 7 && x == 63) || (z == 3 && y == 8 && x == 64);
                                }),
                        s, "corner pixels 3-D");
}

TEST(GpuMeasureLabel, LongRegionsAcrossManyTiles) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  expect_gpu_equals_cpu(serpentine(203, 301), s, "serpentine");
  expect_gpu_equals_cpu(serpentine_t(203, 301), s, "serpentine (columns)");
  expect_gpu_equals_cpu(spiral(257), s, "spiral");
  expect_gpu_equals_cpu(hooks(200, 330), s, "hooks");
  // One region spanning the whole image, and a grid of lines (one region, many tile faces).
  expect_gpu_equals_cpu(pattern({300, 517}, DType::bool_, [](auto, auto, auto) { return 1; }), s, "all foreground");
  expect_gpu_equals_cpu(pattern({21, 50, 70}, DType::bool_, [](auto, auto, auto) { return 1; }), s, "all foreground");
  expect_gpu_equals_cpu(
      pattern({260, 300}, DType::bool_, [](auto, auto y, auto x) { return y % 7 == 0 || x % 11 == 0; }), s, "grid");
  expect_gpu_equals_cpu(pattern({30, 40, 75}, DType::bool_,
                                [](auto z, auto y, auto x) { return (y % 5 == 0 && x % 6 == 0) || z % 9 == 4; }),
                        s, "3-D grid");
  // Diagonal lines: only connectivity 3 joins steps in all three axes.
  expect_gpu_equals_cpu(pattern({24, 24, 70}, DType::bool_, [](auto z, auto y, auto x) { return x == y && y == z; }),
                        s, "3-D diagonal");
  // Every pixel foreground but background 1 inverts a bool image: nothing to label.
  expect_gpu_equals_cpu(pattern({70, 90}, DType::bool_, [](auto, auto, auto) { return 1; }), s, "inverted", 1);
}

TEST(GpuMeasureLabel, RandomMultiValuedImages) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 900;
  // Blobs of several values, and plain noise (many tiny regions of equal neighbours).
  for (const Shape& shape : std::vector<Shape>{{257, 389}, {33, 65}, {5, 70, 3}, {19, 45, 77}, {4000}}) {
    expect_gpu_equals_cpu(blobs(shape, DType::uint8, seed++, 4), s, "blobs");
    expect_gpu_equals_cpu(blobs(shape, DType::int32, seed++, 5), s, "blobs");
    expect_gpu_equals_cpu(cusktest::random_array(shape, DType::uint8, seed++, 0, 3), s, "noise");
    expect_gpu_equals_cpu(cusktest::random_array(shape, DType::int16, seed++, -2, 1), s, "noise", -1);
    expect_gpu_equals_cpu(cusktest::random_array(shape, DType::uint16, seed++, 0, 2), s, "noise", 2);
    // Floats truncate: -0.5 and 0.5 are both 0; 1.2 and 1.9 join.
    expect_gpu_equals_cpu(cusktest::random_array(shape, DType::float64, seed++, -1.0, 3.0), s, "float noise");
    expect_gpu_equals_cpu(cusktest::random_array(shape, DType::bool_, seed++), s, "bool noise");
  }
  // 64-bit values that agree in their low 32 bits must not join.
  expect_gpu_equals_cpu(pattern({70, 80}, DType::int64,
                                [](auto, auto y, auto x) {
                                  return ((x / 5 + y / 3) % 2) ? std::int64_t(1) : (std::int64_t(1) << 40) + 1;
                                }),
                        s, "int64 keys");
  expect_gpu_equals_cpu(pattern({70, 80}, DType::uint64,
                                [](auto, auto y, auto x) { return std::int64_t((x / 7 + y / 2) % 3); }),
                        s, "uint64 keys");
}

TEST(GpuMeasureLabel, OddShapes) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 300;
  for (const Shape& shape : std::vector<Shape>{{1},
                                               {31},
                                               {32},
                                               {33},
                                               {1000},
                                               {1, 1},
                                               {1, 700},
                                               {700, 1},
                                               {33, 65},
                                               {32, 64},
                                               {31, 33},
                                               {1, 1, 1},
                                               {5, 70, 3},
                                               {1, 40, 50},
                                               {2, 1, 300},
                                               {9, 9, 1},
                                               {4, 8, 32},
                                               {13, 17, 35}}) {
    expect_gpu_equals_cpu(blobs(shape, DType::bool_, seed++, 1), s, "blobs");
    expect_gpu_equals_cpu(blobs(shape, DType::uint8, seed++, 3), s, "blobs");
  }
  // 1-D runs: every run of equal values is a region.
  expect_gpu_equals_cpu(pattern({5000}, DType::uint8, [](auto, auto, auto x) { return (x / 3) % 4; }), s, "1-D runs");
}

TEST(GpuMeasureLabel, StridedViewsAndCount) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h2 = blobs({300, 411}, DType::uint8, 41, 2);
  const Array d2 = h2.to(Device::cuda(), s);
  for (const auto& sl : std::vector<std::vector<Slice>>{{Slice{.step = 2}, Slice{.step = -1}},
                                                        {Slice{.start = 7, .stop = 250}, Slice{.start = 3, .step = 3}},
                                                        {Slice{.step = -3}, Slice{.start = 100, .stop = 101}}}) {
    const Array hv = h2.slice(sl), dv = d2.slice(sl);
    for (int c : {1, 2}) {
      const auto rc = measure::label_with_num(hv, {.connectivity = c});
      const auto rg = measure::label_with_num(dv, {.connectivity = c}, s);
      EXPECT_ARRAY_EQ(rc.labels, rg.labels) << cuskimage::shape_str(hv.shape()) << " c" << c;
      EXPECT_EQ(rc.num, rg.num);
    }
  }
  const Array h3 = blobs({40, 50, 66}, DType::bool_, 42, 1);
  const Array d3 = h3.to(Device::cuda(), s);
  const std::vector<Slice> sl3 = {Slice{.start = 1, .step = 2}, Slice{.step = -1}, Slice{.start = 5, .step = 2}};
  for (int c : {1, 2, 3}) {
    const auto rc = measure::label_with_num(h3.slice(sl3), {.connectivity = c, .dtype = DType::int64});
    const auto rg = measure::label_with_num(d3.slice(sl3), {.connectivity = c, .dtype = DType::int64}, s);
    EXPECT_ARRAY_EQ(rc.labels, rg.labels) << "c" << c;
    EXPECT_EQ(rc.num, rg.num);
    EXPECT_EQ(rg.num, max_label(rg.labels));
  }
  // The count of an image without foreground.
  EXPECT_EQ(measure::label_with_num(Array::zeros({100, 70}, DType::bool_, Device::cuda(), s), {}, s).num, 0);
}

TEST(GpuMeasureLabel, AlignedRows) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 500;
  // Rows of a multiple of 16 pixels (wide bool loads; int32 and int64 wide stores), ragged last
  // tile rows and columns, and a multiple of 16 that is not one of 32 (the last tile's upper half
  // lies outside the image).
  for (const Shape& shape : std::vector<Shape>{{4096}, {70, 96}, {257, 384}, {33, 48}, {1, 16}, {64, 64},
                                               {19, 45, 80}, {33, 40, 64}, {4, 8, 32}, {13, 17, 16}}) {
    expect_gpu_equals_cpu(blobs(shape, DType::bool_, seed++, 1), s, "aligned blobs");
    expect_gpu_equals_cpu(blobs(shape, DType::bool_, seed++, 1), s, "aligned blobs inverted", 1);
    expect_gpu_equals_cpu(cusktest::random_array(shape, DType::bool_, seed++), s, "aligned bool noise");
    expect_gpu_equals_cpu(blobs(shape, DType::uint8, seed++, 3), s, "aligned blobs");
  }
  expect_gpu_equals_cpu(checkerboard({64, 96}), s, "aligned checkerboard");
  expect_gpu_equals_cpu(checkerboard({16, 24, 48}), s, "aligned checkerboard");
  // A contiguous 1-D view 3 bytes into its buffer: rows of 4096 pixels that are not 16-byte
  // aligned take the per-pixel loads.
  const Array h = blobs({4099}, DType::bool_, seed++, 1);
  const Array d = h.to(Device::cuda(), s);
  const Array hv = h.slice({Slice{.start = 3}}), dv = d.slice({Slice{.start = 3}});
  const auto rc = measure::label_with_num(hv, {});
  const auto rg = measure::label_with_num(dv, {}, s);
  EXPECT_ARRAY_EQ(rc.labels, rg.labels);
  EXPECT_EQ(rc.num, rg.num);
}

TEST(GpuMeasureLabel, LargeImages) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // More tiles than resident warps.
  std::uint64_t seed = 700;
  for (const Shape& shape : std::vector<Shape>{{2600, 2592}, {2048, 2050}, {72, 300, 320}}) {
    const Array h = blobs(shape, DType::bool_, seed++, 1);
    const Array d = h.to(Device::cuda(), s);
    for (int c = 1; c <= h.ndim(); ++c) {
      const auto rc = measure::label_with_num(h, {.connectivity = c});
      const auto rg = measure::label_with_num(d, {.connectivity = c}, s);
      EXPECT_ARRAY_EQ(rc.labels, rg.labels) << cuskimage::shape_str(shape) << " c" << c;
      EXPECT_EQ(rc.num, rg.num) << cuskimage::shape_str(shape) << " c" << c;
    }
  }
  const Array hu = blobs({1500, 1536}, DType::uint8, seed++, 3);
  const Array du = hu.to(Device::cuda(), s);
  const auto rc = measure::label_with_num(hu, {});
  const auto rg = measure::label_with_num(du, {}, s);
  EXPECT_ARRAY_EQ(rc.labels, rg.labels);
  EXPECT_EQ(rc.num, rg.num);
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
