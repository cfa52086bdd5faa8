// The 5x5 sorted-rows median kernel (kernels/filters/median.cu, median5_rows_kernel: 8/16-bit
// samples two per word, 64 x 128 output tiles, shared sorted rows walked down each column pair)
// against the CPU backend, bit for bit. Sizes are large enough for interior tiles (the unmapped
// loads, two-sample loads and stores) next to border tiles, with even and odd widths (the one-sample
// paths), partial tiles at the right and bottom, every mode, full value ranges and narrow ones (ties).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/stream.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;

Array square5() { return Array::full({5, 5}, 1, DType::uint8); }

const std::vector<ndimage::Mode> kModes = {ndimage::Mode::reflect, ndimage::Mode::constant, ndimage::Mode::nearest,
                                           ndimage::Mode::mirror, ndimage::Mode::wrap};

TEST(GpuMedianRows5, MatchesCpuEveryModeDtypeAndTiling) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 1700;
  // 200 x 300 and 260 x 520: interior tiles; 199 x 301: odd width (no two-sample loads/stores);
  // 64 x 128 / 65 x 129: exactly one tile and one past it; 3 x 2: smaller than the halo.
  const std::vector<Shape> shapes = {{3, 2}, {64, 128}, {65, 129}, {200, 300}, {199, 301}, {260, 520}};
  for (DType dt : {DType::uint8, DType::int8, DType::uint16, DType::int16})
    for (const auto& shape : shapes)
      for (bool narrow : {false, true}) {
        const bool sgn = dt == DType::int8 || dt == DType::int16;
        const Array h = narrow ? cusktest::random_array(shape, dt, seed++, sgn ? -3 : 0, sgn ? 3 : 6)
                               : cusktest::random_array(shape, dt, seed++);
        const Array d = h.to(Device::cuda(), s);
        for (ndimage::Mode m : kModes) {
          SCOPED_TRACE(std::string(dtype_name(dt)) + " " + std::string(ndimage::mode_name(m)) + " " +
                       shape_str(shape) + (narrow ? " narrow" : " full"));
          const filters::MedianOptions o{.footprint = square5(), .mode = m, .cval = sgn ? -2.0 : 5.0};
          EXPECT_ARRAY_EQ(filters::median(h, o), filters::median(d, o, s));
        }
      }
}

TEST(GpuMedianRows5, PlanesViewsOutAndNoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // A single-plane 3-D window: every plane of a volume through the 2-D kernel (blockIdx.z).
  const Array h3 = cusktest::random_array({3, 140, 270}, DType::uint8, 1801);
  const filters::MedianOptions o3{.footprint = Array::full({1, 5, 5}, 1, DType::uint8),
                                  .mode = ndimage::Mode::reflect};
  EXPECT_ARRAY_EQ(filters::median(h3, o3), filters::median(h3.to(Device::cuda(), s), o3, s));

  // Strided input views (copied to contiguous) and a row-offset view (contiguous, offset base).
  const Array h = cusktest::random_array({300, 600}, DType::uint8, 1802);
  const Array d = h.to(Device::cuda(), s);
  const filters::MedianOptions o{.footprint = square5(), .mode = ndimage::Mode::mirror};
  for (const auto& sl : {std::vector<Slice>{Slice{.start = 1, .step = 2}, Slice{.start = 3, .step = 1}},
                         std::vector<Slice>{Slice{.start = 7}, Slice{}}, std::vector<Slice>{Slice{}, Slice{.start = 1}}}) {
    EXPECT_ARRAY_EQ(filters::median(h.slice(sl), o), filters::median(d.slice(sl), o, s));
  }
  // Into a strided `out` (computed in a temporary, then copied).
  Array wide = Array::zeros({300, 1200}, DType::uint8, Device::cuda());
  Array out = wide.slice({Slice{}, Slice{.start = 1, .step = 2}});
  filters::median_into(d, out, o, s);
  EXPECT_ARRAY_EQ(filters::median(h, o), out);

  const Array h16 = cusktest::random_array({150, 290}, DType::uint16, 1803);
  const Array d16 = h16.to(Device::cuda(), s);
  s.synchronize();
  Array r8, r16;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& st) {
    r8 = filters::median(d, {.footprint = square5()}, st);
    r16 = filters::median(d16, {.footprint = square5()}, st);
    st.synchronize();
  }));
  EXPECT_ARRAY_EQ(filters::median(h, {.footprint = square5()}), r8);
  EXPECT_ARRAY_EQ(filters::median(h16, {.footprint = square5()}), r16);
}

}  // namespace
