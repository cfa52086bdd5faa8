// The CUDA fast paths of grey/binary morphology (kernels/morphology/rows2d.cu: footprints whose
// rows are single runs; binary3x3.cu: a full 3x3 bool square) against the CPU backend, bit for bit,
// on random inputs: every mode and dtype, tile-sized and sub-tile shapes, odd/even widths, even
// and asymmetric footprints, empty footprint rows, 1-D/2-D/3-D, NaN and signed zeros, strided
// views, `out`, and a non-default stream. The footprint-to-runs split is checked on the CPU tier.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "cuskimage/stream.hpp"
#include "src/morphology/morph_ops.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
using namespace cuskimage::morphology;

Array fp_from(const std::vector<std::uint8_t>& v, const Shape& shape) { return Array::from_vector(v, shape); }

// ---- CPU: footprint -> runs ---------------------------------------------------------------------

TEST(MorphologyFastRuns, DiskDiamondAndRejects) {
  using cuskimage::morphology::detail::footprint_runs;
  const auto d2 = footprint_runs(disk(2).array());
  ASSERT_EQ(d2.size(), 5u);
  EXPECT_EQ(d2[0].dy, -2);
  EXPECT_EQ(d2[0].lo, 0);
  EXPECT_EQ(d2[0].hi, 0);
  EXPECT_EQ(d2[2].dy, 0);
  EXPECT_EQ(d2[2].lo, -2);
  EXPECT_EQ(d2[2].hi, 2);
  // Even width 4: centre at index 2, so columns 0..3 are offsets -2..1; an empty row is skipped.
  const auto e = footprint_runs(fp_from({0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0}, {3, 4}));
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[0].dy, -1);
  EXPECT_EQ(e[0].lo, -1);
  EXPECT_EQ(e[0].hi, 1);
  EXPECT_EQ(e[1].dy, 1);
  EXPECT_EQ(e[1].lo, -2);
  EXPECT_EQ(e[1].hi, -1);
  // Two runs on one row, or nothing at all: not a rows footprint.
  EXPECT_TRUE(footprint_runs(fp_from({1, 0, 1, 1, 1, 1, 1, 1, 1}, {3, 3})).empty());
  EXPECT_TRUE(footprint_runs(fp_from({0, 0, 0, 0}, {2, 2})).empty());
  const auto b = footprint_runs(ball(1).array());
  ASSERT_EQ(b.size(), 5u);  // (dz, dy): (-1,0) (0,-1) (0,0) (0,1) (1,0)
  EXPECT_EQ(b[0].dz, -1);
  EXPECT_EQ(b[2].dz, 0);
  EXPECT_EQ(b[2].lo, -1);
  EXPECT_EQ(b[2].hi, 1);
  EXPECT_EQ(b[4].dz, 1);
}

TEST(MorphologyFastRuns, CpuIsUntouched) {
  // The fast pass only ever takes device arrays.
  const Array h = cusktest::random_array({9, 9}, DType::uint8, 3);
  EXPECT_FALSE(cuskimage::morphology::detail::fast_minmax_pass(false, h, disk(1).array(), ndimage::Mode::reflect, 0.0, {}).valid());
}

// ---- GPU ------------------------------------------------------------------------------------------

const std::vector<MorphMode> kModes = {MorphMode::reflect, MorphMode::constant, MorphMode::nearest, MorphMode::mirror,
                                       MorphMode::wrap,    MorphMode::max,      MorphMode::min,     MorphMode::ignore};

Array fresh(const Shape& shape, DType dt, std::uint64_t seed) {
  if (dt == DType::int32) return cusktest::random_array(shape, dt, seed, -1000, 1000);
  if (dt == DType::float32 || dt == DType::float64) return cusktest::random_array(shape, dt, seed, -10, 10);
  if (dt == DType::uint8 || dt == DType::uint16) return cusktest::random_array(shape, dt, seed);
  return cusktest::random_array(shape, dt, seed);
}

/// Floats with NaNs, +0 and -0 sprinkled in (the window's tie and NaN order must survive).
Array nasty_float(const Shape& shape, DType dt, std::uint64_t seed) {
  Array a = fresh(shape, dt, seed);
  const Array pick = cusktest::random_array(shape, DType::uint8, seed + 99);
  const auto* p = pick.data<std::uint8_t>();
  for (std::int64_t i = 0; i < a.size(); ++i) {
    const double v = p[i] < 8 ? std::numeric_limits<double>::quiet_NaN() : p[i] < 40 ? 0.0 : p[i] < 72 ? -0.0 : 1.0;
    if (v == 1.0) continue;
    if (dt == DType::float32) a.data<float>()[i] = static_cast<float>(v);
    else a.data<double>()[i] = v;
  }
  return a;
}

Footprint named(const std::string& n) {
  if (n == "disk1") return disk(1);
  if (n == "disk3") return disk(3);
  if (n == "disk10") return disk(10);
  if (n == "diamond2") return diamond(2);
  if (n == "ellipse") return ellipse(3, 2);
  if (n == "octagon") return octagon(2, 1);
  if (n == "rect34") return footprint_rectangle({3, 4});
  if (n == "rect21") return footprint_rectangle({2, 1});
  // Rows of different, off-centre runs with an empty row and even sizes.
  if (n == "runs") return fp_from({0, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1}, {4, 4});
  if (n == "col") return fp_from({1, 1, 1, 1, 1}, {5, 1});
  throw std::runtime_error("unknown footprint " + n);
}

const std::vector<std::string> kFps2 = {"disk1", "disk3", "disk10", "diamond2", "ellipse", "octagon",
                                        "rect34", "rect21", "runs", "col"};

double cval_for(DType dt) {
  if (dt == DType::bool_) return 1.0;
  return (dt == DType::float32 || dt == DType::float64) ? 2.5 : 7.0;
}

TEST(GpuMorphologyFast, GrayRowsEveryModeDtypeFootprint) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 101;
  // Sub-tile, exactly one wide tile (128 x 32), odd/even widths and a multi-tile shape.
  const std::vector<Shape> shapes = {{1, 1}, {3, 7}, {32, 128}, {33, 129}, {70, 256}, {131, 301}};
  for (DType dt : {DType::bool_, DType::uint8, DType::uint16, DType::int32, DType::float32, DType::float64})
    for (const auto& shape : shapes) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      for (const auto& fp : kFps2)
        for (MorphMode m : kModes) {
          SCOPED_TRACE(std::string(dtype_name(dt)) + " " + fp + " " + std::string(morph_mode_name(m)) + " " +
                       shape_str(shape));
          const GrayOptions o{.footprint = named(fp), .mode = m, .cval = cval_for(dt)};
          EXPECT_ARRAY_EQ(erosion(h, o), erosion(d, o, s));
          EXPECT_ARRAY_EQ(dilation(h, o), dilation(d, o, s));
        }
    }
}

TEST(GpuMorphologyFast, GrayOpsAndTophats) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = fresh({97, 203}, DType::uint8, 7);
  const Array d = h.to(Device::cuda(), s);
  for (const auto& fp : {"disk3", "runs", "rect34"}) {
    SCOPED_TRACE(fp);
    EXPECT_ARRAY_EQ(opening(h, {.footprint = named(fp)}), opening(d, {.footprint = named(fp)}, s));
    EXPECT_ARRAY_EQ(closing(h, {.footprint = named(fp)}), closing(d, {.footprint = named(fp)}, s));
    EXPECT_ARRAY_EQ(white_tophat(h, {.footprint = named(fp)}), white_tophat(d, {.footprint = named(fp)}, s));
    EXPECT_ARRAY_EQ(black_tophat(h, {.footprint = named(fp), .mode = MorphMode::ignore}),
                    black_tophat(d, {.footprint = named(fp), .mode = MorphMode::ignore}, s));
  }
  // Decomposed footprints apply several run footprints in sequence.
  for (auto dec : {Decomposition::sequence, Decomposition::crosses}) {
    EXPECT_ARRAY_EQ(erosion(h, {.footprint = disk(5, {.decomposition = dec})}),
                    erosion(d, {.footprint = disk(5, {.decomposition = dec})}, s));
  }
}

TEST(GpuMorphologyFast, FloatNanSignedZeroAndInexactCval) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::float32, DType::float64}) {
    const Array h = nasty_float({67, 150}, dt, 5);
    const Array d = h.to(Device::cuda(), s);
    for (const auto& fp : {"disk1", "disk3", "diamond2", "runs", "rect34"})
      for (MorphMode m : kModes) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " " + fp + " " + std::string(morph_mode_name(m)));
        const GrayOptions o{.footprint = named(fp), .mode = m, .cval = -0.0};
        EXPECT_ARRAY_EQ(erosion(h, o), erosion(d, o, s));
        EXPECT_ARRAY_EQ(dilation(h, o), dilation(d, o, s));
      }
  }
  // cvals not exact in the dtype (0.1 in float32, 2.5 / -3 / 300 in uint8) take the generic path.
  const Array hf = fresh({40, 50}, DType::float32, 8);
  const Array hu = fresh({40, 50}, DType::uint8, 9);
  for (double cv : {0.1, 2.5, -3.0, 300.0}) {
    const GrayOptions o{.footprint = disk(2), .mode = MorphMode::constant, .cval = cv};
    EXPECT_ARRAY_EQ(erosion(hf, o), erosion(hf.to(Device::cuda(), s), o, s));
    EXPECT_ARRAY_EQ(dilation(hu, o), dilation(hu.to(Device::cuda(), s), o, s));
  }
}

TEST(GpuMorphologyFast, OneAndThreeDimensional) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::uint8, DType::uint16, DType::float32, DType::bool_}) {
    const Array h1 = fresh({300}, dt, 11);
    const Array f1 = fp_from({1, 1, 1, 1, 0, 0}, {6});
    for (MorphMode m : kModes) {
      const GrayOptions o{.footprint = f1.share(), .mode = m, .cval = cval_for(dt)};
      EXPECT_ARRAY_EQ(erosion(h1, o), erosion(h1.to(Device::cuda(), s), o, s));
    }
    for (const Shape& shape : {Shape{3, 4, 5}, Shape{19, 37, 45}}) {
      const Array h = fresh(shape, dt, 12);
      const Array d = h.to(Device::cuda(), s);
      for (int k = 0; k < 3; ++k) {
        Footprint fp = k == 0 ? ball(1) : k == 1 ? ball(3) : Footprint(Array::full({2, 1, 3}, 1, DType::uint8));
        for (MorphMode m : kModes) {
          SCOPED_TRACE(std::string(dtype_name(dt)) + " fp" + std::to_string(k) + " " +
                       std::string(morph_mode_name(m)) + " " + shape_str(shape));
          const GrayOptions o{.footprint = fp.array().share(), .mode = m, .cval = cval_for(dt)};
          EXPECT_ARRAY_EQ(erosion(h, o), erosion(d, o, s));
          EXPECT_ARRAY_EQ(dilation(h, o), dilation(d, o, s));
        }
      }
    }
  }
}

TEST(GpuMorphologyFast, LargeFootprintFallsBack) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = fresh({150, 170}, DType::uint8, 13);
  // disk(40): its sparse tables do not fit in shared memory; the ndimage path answers.
  EXPECT_ARRAY_EQ(erosion(h, {.footprint = disk(40)}), erosion(h.to(Device::cuda(), s), {.footprint = disk(40)}, s));
}

TEST(GpuMorphologyFast, StridedViewsOutAndNoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = fresh({160, 300}, DType::uint16, 14);
  const Array d = h.to(Device::cuda(), s);
  const Array hv = h.slice({Slice{.start = 1, .step = 2}, Slice{.start = 2, .step = 3}});
  const Array dv = d.slice({Slice{.start = 1, .step = 2}, Slice{.start = 2, .step = 3}});
  EXPECT_ARRAY_EQ(erosion(hv, {.footprint = disk(4)}), erosion(dv, {.footprint = disk(4)}, s));
  Array wide = Array::zeros({160, 300}, DType::uint16, Device::cuda());
  Array out = wide.slice({Slice{.start = 1, .step = 2}, Slice{.start = 2, .step = 3}});
  dilation_into(dv, out, {.footprint = diamond(3), .mode = MorphMode::wrap}, s);
  EXPECT_ARRAY_EQ(dilation(hv, {.footprint = diamond(3), .mode = MorphMode::wrap}), out);

  const Array hb = fresh({128, 512}, DType::bool_, 15);
  const Array db = hb.to(Device::cuda());
  const Array du = fresh({128, 512}, DType::uint8, 16).to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& st) {
    Array a = erosion(du, {.footprint = disk(10)}, st);
    Array b = closing(du, {.footprint = ellipse(4, 2)}, st);
    Array c = binary_erosion(db, {.footprint = footprint_rectangle({3, 3})}, st);
    Array e = binary_dilation(db, {.footprint = disk(2)}, st);
    st.synchronize();
  }));
}

// ---- binary ---------------------------------------------------------------------------------------

TEST(GpuMorphologyFast, Binary3x3EveryModeAndShape) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 201;
  // 16-byte rows (vector path), odd widths (byte path), sub-warp and sub-block shapes, 3-D planes.
  const std::vector<Shape> shapes = {{1, 1}, {2, 3}, {3, 17}, {64, 512}, {65, 1040}, {100, 90}, {9, 10, 33}};
  for (const auto& shape : shapes)
    for (DType dt : {DType::bool_, DType::uint8}) {
      const Array h = fresh(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      const Shape fs = shape.size() == 2 ? Shape{3, 3} : Shape{1, 3, 3};
      for (MorphMode m : {MorphMode::max, MorphMode::min, MorphMode::ignore}) {
        SCOPED_TRACE(shape_str(shape) + " " + std::string(morph_mode_name(m)));
        const BinaryOptions o{.footprint = footprint_rectangle(fs), .mode = m};
        EXPECT_ARRAY_EQ(binary_erosion(h, o), binary_erosion(d, o, s));
        EXPECT_ARRAY_EQ(binary_dilation(h, o), binary_dilation(d, o, s));
        EXPECT_ARRAY_EQ(binary_opening(h, o), binary_opening(d, o, s));
        EXPECT_ARRAY_EQ(binary_closing(h, o), binary_closing(d, o, s));
      }
    }
  // Repeated 3x3 passes (num_iter 2) and other run footprints on bool.
  const Array h = fresh({77, 160}, DType::bool_, 7);
  const Array d = h.to(Device::cuda(), s);
  std::vector<FootprintElement> seq;
  seq.push_back({footprint_rectangle({3, 3}).array().share(), 2});
  const BinaryOptions o{.footprint = Footprint(std::move(seq))};
  EXPECT_ARRAY_EQ(binary_erosion(h, o), binary_erosion(d, o, s));
  for (const auto& fp : {"disk3", "runs", "rect34"}) {
    SCOPED_TRACE(fp);
    EXPECT_ARRAY_EQ(binary_erosion(h, {.footprint = named(fp)}), binary_erosion(d, {.footprint = named(fp)}, s));
    EXPECT_ARRAY_EQ(binary_dilation(h, {.footprint = named(fp), .mode = MorphMode::max}),
                    binary_dilation(d, {.footprint = named(fp), .mode = MorphMode::max}, s));
  }
}

TEST(GpuMorphologyFast, Binary3x3StridedAndOut) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = fresh({130, 520}, DType::bool_, 17);
  const Array d = h.to(Device::cuda(), s);
  const Array hv = h.slice({Slice{.step = 2}, Slice{.start = 3}});
  const Array dv = d.slice({Slice{.step = 2}, Slice{.start = 3}});
  const BinaryOptions o{.footprint = footprint_rectangle({3, 3})};
  EXPECT_ARRAY_EQ(binary_erosion(hv, o), binary_erosion(dv, o, s));
  Array wide = Array::zeros({130, 520}, DType::bool_, Device::cuda());
  Array out = wide.slice({Slice{.step = 2}, Slice{.start = 3}});
  binary_dilation_into(dv, out, o, s);
  EXPECT_ARRAY_EQ(binary_dilation(hv, o), out);
}

}  // namespace
