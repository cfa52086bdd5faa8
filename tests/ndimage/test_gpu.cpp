// GPU tier of the ndimage tests: every case, mode and dtype on fresh random inputs equals the CPU
// backend (exact for integer and bool outputs, float tolerances as the golden tests since the GPU
// sums some float windows in another order), golden data on the device, the tiled and the fallback
// kernels (wide windows, fractional cvals, true 3-D windows), strided device views, and a
// non-default stream without the legacy default stream.
#include <gtest/gtest.h>

#include "tests/ndimage/ndimage_test_common.hpp"

using namespace ndtest;
using cuskimage::Slice;

namespace {

Array dev(const Array& h, const Stream& s) { return h.to(Device::cuda(), s); }

Array fresh(const Shape& shape, DType dt, std::uint64_t seed) {
  if (cuskimage::is_floating(dt)) return cusktest::random_array(shape, dt, seed, -10, 10);
  if (dt == DType::int32) return cusktest::random_array(shape, dt, seed, -100000, 100000);
  return cusktest::random_array(shape, dt, seed);
}

DType dtype_of(const std::string& n) { return cuskimage::dtype_from_name(n); }

/// GPU vs CPU: exact for integer and bool outputs; floats within 1e-5 (float32) and 1e-9 (float64)
/// relative, since the GPU's uniform windows restart their running sums per chunk and wide windows
/// are summed directly.
::testing::AssertionResult gpu_matches(const Array& expected, const Array& actual) {
  if (expected.dtype() == DType::float64) return cusktest::arrays_close(expected, actual, 1e-9, 1e-9);
  return ndtest::matches(expected, actual);
}

}  // namespace

TEST(GpuNdimage, MatchesCpuEveryCaseModeDtype) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 1;
  for (const Case& c : cases()) {
    std::vector<std::string> dts = kDtypes;
    if (c.rank) dts.push_back("bool");
    for (const auto& dtn : dts) {
      const DType dt = dtype_of(dtn);
      // Several tiles per block dimension, odd extents.
      const Shape shape = c.ndim == 2 ? Shape{301, 517} : Shape{19, 37, 45};
      const Array h = fresh(shape, dt, seed++);
      const Array d = dev(h, s);
      for (const auto& m : kModeNames) {
        SCOPED_TRACE(c.name + " " + m + " " + dtn);
        const Mode mode = nd::mode_from_name(m);
        const Array expected = c.run(h, mode, cval_for(dt), {});
        const Array got = c.run(d, mode, cval_for(dt), s);
        EXPECT_EQ(got.device(), Device::cuda());
        EXPECT_TRUE(gpu_matches(expected, got));
      }
    }
  }
}

TEST(GpuNdimage, GoldenOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const Case& c : cases())
    for (const auto& dt : kDtypes) {
      const Array in = dev(golden("in" + std::to_string(c.ndim) + "_" + dt), s);
      for (const auto& m : kModeNames) {
        const std::string name = c.name + "_" + m + "_" + dt;
        SCOPED_TRACE(name);
        EXPECT_TRUE(matches(golden(name), c.run(in, nd::mode_from_name(m), cval_for(in.dtype()), s)));
      }
    }
  for (const auto& shape : kSmallShapes)
    for (const std::string dt : {"uint8", "float64"}) {
      const Array in = dev(golden("in_small" + shape + "_" + dt), s);
      for (const Case& c : small_cases())
        for (const auto& m : kModeNames) {
          const std::string name = c.name + "_small" + shape + "_" + m + "_" + dt;
          SCOPED_TRACE(name);
          EXPECT_TRUE(matches(golden(name), c.run(in, nd::mode_from_name(m), cval_for(in.dtype()), s)));
        }
    }
  const Array u8 = dev(golden("in2_uint8"), s);
  EXPECT_ARRAY_EQ(golden("cval_c2d_uint8"), nd::correlate(u8, golden("w_w2d"), {.mode = Mode::constant, .cval = 3.7}, s));
  EXPECT_ARRAY_EQ(golden("cval_u1d_uint8"), nd::uniform_filter1d(u8, 5, {.mode = Mode::constant, .cval = 100.6}, s));
  EXPECT_ARRAY_EQ(golden("cval_max1d_uint8"), nd::maximum_filter1d(u8, 3, {.mode = Mode::constant, .cval = 300.5}, s));
}

TEST(GpuNdimage, FallbackKernelsMatchCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const auto& m : kModeNames) {
    SCOPED_TRACE(m);
    const Mode mode = nd::mode_from_name(m);
    // A window too wide for the shared-memory line tile (direct pass kernel).
    const Array line = fresh({3, 5000}, DType::float64, 21);
    EXPECT_TRUE(gpu_matches(nd::maximum_filter1d(line, 3001, {.mode = mode}),
                        nd::maximum_filter1d(dev(line, s), 3001, {.mode = mode}, s)));
    EXPECT_TRUE(gpu_matches(nd::uniform_filter1d(line, 4001, {.mode = mode, .cval = 1.5}),
                        nd::uniform_filter1d(dev(line, s), 4001, {.mode = mode, .cval = 1.5}, s)));
    // A 2-D window too large for the halo tile (generic kernel), and a 41-wide one that fits.
    const Array img = fresh({70, 90}, DType::float64, 22);
    const Array w_big = fresh({61, 81}, DType::float64, 23);
    EXPECT_TRUE(gpu_matches(nd::correlate(img, w_big, {.mode = mode}), nd::correlate(dev(img, s), w_big, {.mode = mode}, s)));
    const Array w41 = fresh({41, 41}, DType::float32, 24);
    const Array img32 = fresh({70, 90}, DType::float32, 25);
    EXPECT_TRUE(gpu_matches(nd::correlate(img32, w41, {.mode = mode}), nd::correlate(dev(img32, s), w41, {.mode = mode}, s)));
    // True 3-D windows: the 3-D halo tile, and one too large for it (generic kernel).
    const Array vol = fresh({12, 13, 14}, DType::float64, 30);
    const Array w3 = fresh({5, 3, 7}, DType::float64, 31), w15 = fresh({15, 15, 15}, DType::float64, 32);
    EXPECT_TRUE(gpu_matches(nd::correlate(vol, w3, {.mode = mode}), nd::correlate(dev(vol, s), w3, {.mode = mode}, s)));
    EXPECT_TRUE(gpu_matches(nd::convolve(vol, w15, {.mode = mode, .cval = 1.25}),
                            nd::convolve(dev(vol, s), w15, {.mode = mode, .cval = 1.25}, s)));
    // Fractional cval on integers (kept as double: non-tiled paths).
    const Array u16 = fresh({33, 47}, DType::uint16, 26);
    const Array w2d = golden("w_w2d");
    EXPECT_ARRAY_EQ(nd::correlate(u16, w2d, {.mode = mode, .cval = 0.4}),
                    nd::correlate(dev(u16, s), w2d, {.mode = mode, .cval = 0.4}, s));
    EXPECT_ARRAY_EQ(nd::minimum_filter(u16, {.size = {4, 3}, .mode = mode, .cval = 2.5}),
                    nd::minimum_filter(dev(u16, s), {.size = {4, 3}, .mode = mode, .cval = 2.5}, s));
    const Array b = fresh({33, 47}, DType::bool_, 27);
    EXPECT_ARRAY_EQ(nd::minimum_filter1d(b, 3, {.mode = mode, .cval = 0.5}),
                    nd::minimum_filter1d(dev(b, s), 3, {.mode = mode, .cval = 0.5}, s));
    // Big rank windows on the contiguous and the strided axis (van Herk with C = k).
    const Array u8 = fresh({257, 1031}, DType::uint8, 28);
    EXPECT_ARRAY_EQ(nd::maximum_filter(u8, {.size = {15}, .mode = mode}),
                    nd::maximum_filter(dev(u8, s), {.size = {15}, .mode = mode}, s));
    EXPECT_ARRAY_EQ(nd::minimum_filter(u8, {.size = {31, 2}, .mode = mode}),
                    nd::minimum_filter(dev(u8, s), {.size = {31, 2}, .mode = mode}, s));
    // 1-D arrays.
    const Array one = fresh({1001}, DType::int32, 29);
    EXPECT_ARRAY_EQ(nd::correlate(one, golden("w_w5"), {.mode = mode}),
                    nd::correlate(dev(one, s), golden("w_w5"), {.mode = mode}, s));
    EXPECT_ARRAY_EQ(nd::uniform_filter(one, {.size = {9}, .mode = mode}),
                    nd::uniform_filter(dev(one, s), {.size = {9}, .mode = mode}, s));
  }
}

TEST(GpuNdimage, StridedDeviceViewsAndInto) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = fresh({60, 80}, DType::float32, 31);
  const Array d = dev(h, s);
  const Array hv = h.slice({Slice{1, 59, 2}, Slice{3, 77, 3}});
  const Array dv = d.slice({Slice{1, 59, 2}, Slice{3, 77, 3}});
  const Array w = golden("w_w2d");
  EXPECT_TRUE(gpu_matches(nd::correlate(hv, w), nd::correlate(dv, w, {}, s)));
  EXPECT_TRUE(gpu_matches(nd::uniform_filter(hv, {.size = {5, 3}}), nd::uniform_filter(dv, {.size = {5, 3}}, s)));
  EXPECT_TRUE(gpu_matches(nd::maximum_filter(hv, {.footprint = golden("w_fp2")}),
                      nd::maximum_filter(dv, {.footprint = golden("w_fp2")}, s)));
  Array big = Array::zeros({hv.shape(0), hv.shape(1) * 2}, DType::float32, Device::cuda(), s);
  Array out = big.slice({Slice{}, Slice{0, std::nullopt, 2}});
  nd::correlate_into(dv, w, out, {}, s);
  EXPECT_TRUE(gpu_matches(nd::correlate(hv, w), out));
  nd::correlate1d_into(dv, golden("w_w4"), out, {.axis = 0, .mode = Mode::wrap}, s);
  EXPECT_TRUE(gpu_matches(nd::correlate1d(hv, golden("w_w4"), {.axis = 0, .mode = Mode::wrap}), out));
  // Device-resident weights and footprints are accepted.
  EXPECT_TRUE(gpu_matches(nd::correlate(hv, w), nd::correlate(dv, dev(w, s), {}, s)));
  // Degenerate shapes.
  const Array empty = Array::zeros({0, 7}, DType::uint8, Device::cuda(), s);
  EXPECT_EQ(nd::maximum_filter(empty, {.size = {3}}, s).shape(), empty.shape());
  EXPECT_EQ(nd::correlate(empty, w, {}, s).shape(), empty.shape());
  // N-d windows past 3-D are CPU-only; separable filters take any ndim on the GPU.
  const Array h4 = fresh({3, 4, 5, 6}, DType::float32, 33);
  const Array w4 = Array::full({2, 2, 2, 2}, 0.5, DType::float64);
  EXPECT_THROW(nd::correlate(dev(h4, s), w4, {}, s), cuskimage::NotSupported);
  EXPECT_TRUE(gpu_matches(nd::maximum_filter(h4, {.size = {2, 3, 1, 4}}),
                          nd::maximum_filter(dev(h4, s), {.size = {2, 3, 1, 4}}, s)));
}

TEST(GpuNdimage, NoLegacyDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Array h = fresh({257, 263}, DType::float32, 41);
  const Array w = golden("w_w2d"), fp = golden("w_fp2");
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    const Array d = h.to(Device::cuda(), s);
    (void)nd::correlate(d, w, {.mode = Mode::mirror}, s);
    (void)nd::convolve1d(d, golden("w_w4"), {.axis = 0}, s);
    (void)nd::uniform_filter(d, {.size = {5}}, s);
    (void)nd::maximum_filter(d, {.size = {15}}, s);
    (void)nd::minimum_filter(d, {.footprint = fp.share(), .mode = Mode::constant}, s);
    s.synchronize();
  }));
}

// The 2-D tiled window kernel's staged taps: a window with more taps than travel as a kernel
// parameter (15 x 15 = 225, uploaded), one that travels as a parameter (3 x 3), and a non-
// rectangular footprint for the rank filters; images with interior tiles (cp.async for 4- and
// 8-byte types, plain loads for 1- and 2-byte ones) and border tiles, every mode.
TEST(GpuNdimage, TiledWindowTapsAndInteriorTiles) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array w15 = fresh({15, 15}, DType::float64, 40);
  const Array w3 = fresh({3, 3}, DType::float64, 41);
  std::vector<double> disk(9 * 9);
  for (int i = 0; i < 81; ++i) disk[i] = ((i / 9 - 4) * (i / 9 - 4) + (i % 9 - 4) * (i % 9 - 4)) <= 16 ? 1.0 : 0.0;
  const Array fp = Array::from_vector(disk, {9, 9}).astype(DType::bool_);
  std::uint64_t seed = 42;
  for (const auto& dtn : kDtypes) {
    const DType dt = dtype_of(dtn);
    const Array h = fresh({150, 173}, dt, seed++);
    const Array d = dev(h, s);
    for (const auto& m : kModeNames) {
      SCOPED_TRACE(dtn + " " + m);
      const Mode mode = nd::mode_from_name(m);
      const nd::FilterOptions o{.mode = mode, .cval = cval_for(dt)};
      EXPECT_TRUE(gpu_matches(nd::correlate(h, w15, o), nd::correlate(d, w15, o, s)));
      EXPECT_TRUE(gpu_matches(nd::convolve(h, w3, o), nd::convolve(d, w3, o, s)));
      const nd::RankFilterOptions r{.footprint = fp.share(), .mode = mode, .cval = cval_for(dt)};
      EXPECT_TRUE(gpu_matches(nd::maximum_filter(h, r), nd::maximum_filter(d, r, s)));
      EXPECT_TRUE(gpu_matches(nd::minimum_filter(h, r), nd::minimum_filter(d, r, s)));
      // The 1-D passes on both axes, inside the axis and at its ends.
      EXPECT_TRUE(gpu_matches(nd::correlate1d(h, golden("w_w7n"), {.axis = 0, .mode = mode, .cval = cval_for(dt)}),
                              nd::correlate1d(d, golden("w_w7n"), {.axis = 0, .mode = mode, .cval = cval_for(dt)}, s)));
      EXPECT_TRUE(gpu_matches(nd::uniform_filter(h, {.size = {5}, .mode = mode, .cval = cval_for(dt)}),
                              nd::uniform_filter(d, {.size = {5}, .mode = mode, .cval = cval_for(dt)}, s)));
    }
  }
}
