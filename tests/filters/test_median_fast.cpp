// The register-network median kernels (kernels/filters/median.cu: full 3x3 / 5x5 / 7x7 windows,
// two vertically adjacent outputs per thread sharing their common rows, 8/16-bit samples packed two
// per word) against the CPU backend, bit for bit: every mode, every dtype the network takes,
// shapes below / at / across the 64 x 32 tile, odd and even widths and heights (the second output of
// a pair falls off the image), a single-plane 3-D window, strided views, `out` and a non-default
// stream. (5x5 with 8/16-bit types runs the sorted-rows kernel instead; test_median_rows5.cpp
// covers its tiling.)
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/stream.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;

Array square(std::int64_t k) { return Array::full({k, k}, 1, DType::uint8); }

const std::vector<ndimage::Mode> kModes = {ndimage::Mode::reflect, ndimage::Mode::constant, ndimage::Mode::nearest,
                                           ndimage::Mode::mirror, ndimage::Mode::wrap};

TEST(GpuMedianNetwork, MatchesCpuEverySizeModeDtype) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 900;
  const std::vector<Shape> shapes = {{1, 1}, {2, 3}, {5, 7}, {32, 64}, {33, 65}, {31, 130}, {97, 203}};
  for (DType dt : {DType::uint8, DType::int8, DType::uint16, DType::int16, DType::int32, DType::uint32,
                   DType::int64, DType::uint64, DType::float32, DType::float64})
    for (const auto& shape : shapes) {
      // Narrow value ranges for wide types make ties (the network must still pick the right one).
      const bool uns = dt == DType::uint16 || dt == DType::uint32 || dt == DType::uint64;
      const Array h = dt == DType::uint8 ? cusktest::random_array(shape, dt, seed++)
                                         : cusktest::random_array(shape, dt, seed++, uns ? 0 : -20, uns ? 40 : 20);
      const Array d = h.to(Device::cuda(), s);
      for (std::int64_t k : {3, 5, 7})
        for (ndimage::Mode m : kModes) {
          SCOPED_TRACE(std::string(dtype_name(dt)) + " " + std::to_string(k) + "x" + std::to_string(k) + " " +
                       std::string(ndimage::mode_name(m)) + " " + shape_str(shape));
          const filters::MedianOptions o{.footprint = square(k), .mode = m, .cval = 3.0};
          EXPECT_ARRAY_EQ(filters::median(h, o), filters::median(d, o, s));
        }
    }
}

TEST(GpuMedianNetwork, FullRangeAndDefaultFootprint) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::uint8, DType::int8, DType::uint16, DType::int16}) {
    // The whole range: the packed lanes' bias (signed types) and the 16-bit lane edges.
    const Array h = cusktest::random_array({70, 300}, dt, 31);
    const Array d = h.to(Device::cuda(), s);
    EXPECT_ARRAY_EQ(filters::median(h), filters::median(d, {}, s));
    for (std::int64_t k : {5, 7}) {
      const filters::MedianOptions o{.footprint = square(k), .mode = ndimage::Mode::constant, .cval = 0.0};
      EXPECT_ARRAY_EQ(filters::median(h, o), filters::median(d, o, s)) << dtype_name(dt) << " " << k;
    }
  }
  // A single-plane 3-D window runs the 2-D network on every plane.
  const Array h3 = cusktest::random_array({4, 40, 70}, DType::uint8, 32);
  const filters::MedianOptions o3{.footprint = Array::full({1, 5, 5}, 1, DType::uint8), .mode = ndimage::Mode::wrap};
  EXPECT_ARRAY_EQ(filters::median(h3, o3), filters::median(h3.to(Device::cuda(), s), o3, s));
}

TEST(GpuMedianNetwork, StridedOutAndNoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = cusktest::random_array({150, 260}, DType::uint8, 33);
  const Array d = h.to(Device::cuda(), s);
  const Array hv = h.slice({Slice{.start = 1, .step = 2}, Slice{.start = 2, .step = 3}});
  const Array dv = d.slice({Slice{.start = 1, .step = 2}, Slice{.start = 2, .step = 3}});
  const filters::MedianOptions o{.footprint = square(5), .mode = ndimage::Mode::mirror};
  EXPECT_ARRAY_EQ(filters::median(hv, o), filters::median(dv, o, s));
  Array wide = Array::zeros({150, 260}, DType::uint8, Device::cuda());
  Array out = wide.slice({Slice{.start = 1, .step = 2}, Slice{.start = 2, .step = 3}});
  const filters::MedianOptions o7{.footprint = square(7), .mode = ndimage::Mode::reflect};
  filters::median_into(dv, out, o7, s);
  EXPECT_ARRAY_EQ(filters::median(hv, o7), out);

  const Array hf = cusktest::random_array({128, 256}, DType::float32, 34);
  const Array df = hf.to(Device::cuda());
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& st) {
    Array a = filters::median(d, {.footprint = square(5)}, st);
    Array b = filters::median(df, {.footprint = square(7)}, st);
    Array c = filters::median(d, {}, st);
    st.synchronize();
  }));
}

}  // namespace
