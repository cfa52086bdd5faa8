// clear_border against scikit-image 0.26's goldens (tests/golden/cases_segmentation_boundaries.py):
// 2-D and 3-D, int32 / uint8 / bool / float32 / uint16 labels, buffer_size, bgval (including
// scikit-image's clearing of the whole background when a border pixel is 0), mask; exact. GPU tier:
// GPU == CPU exactly on fresh labels, strided views, a non-default stream.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "cuskimage/error.hpp"
#include "cuskimage/segmentation.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Slice;
using cuskimage::Stream;
namespace seg = cuskimage::segmentation;

Array golden(const std::string& name) { return cusktest::load_golden("segmentation_boundaries/" + name + ".npy"); }

void check_goldens(const Device& dev, const Stream& s) {
  for (std::string key : {"i32", "u8", "b", "f32", "u16_3d"})
    EXPECT_TRUE(cusktest::arrays_equal(golden("cb_" + key), seg::clear_border(golden("lab_" + key).to(dev, s), {}, s)))
        << key;
  for (std::string key : {"i32", "u16_3d"}) {
    const Array lab = golden("lab_" + key).to(dev, s);
    EXPECT_ARRAY_EQ(golden("cb_" + key + "_buf2"), seg::clear_border(lab, {.buffer_size = 2}, s));
    EXPECT_ARRAY_EQ(golden("cb_" + key + "_bg7"), seg::clear_border(lab, {.bgval = 7}, s));
  }
  EXPECT_ARRAY_EQ(golden("cb_i32_mask"),
                  seg::clear_border(golden("lab_i32").to(dev, s), {.mask = golden("cb_mask").to(dev, s)}, s));
}

TEST(SegmentationClearBorder, Goldens) { check_goldens(Device::cpu(), Stream()); }

TEST(SegmentationClearBorder, BadArguments) {
  const Array lab = golden("lab_i32");
  EXPECT_THROW(seg::clear_border(lab, {.buffer_size = 40}), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::clear_border(lab, {.buffer_size = -1}), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::clear_border(lab, {.mask = golden("lab_u8").astype(DType::bool_)}), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::clear_border(lab, {.mask = lab.astype(DType::uint8)}), cuskimage::InvalidArgument);
}

TEST(SegmentationClearBorder, StridedViewEqualsCopy) {
  const Array big = cusktest::random_array({50, 60}, DType::uint8, 3, 0, 2);
  const Array view = big.slice({Slice{1, 49, 2}, Slice{59, 0, -3}});
  EXPECT_ARRAY_EQ(seg::clear_border(view.copy(), {.bgval = 9}), seg::clear_border(view, {.bgval = 9}));
}

TEST(GpuSegmentationClearBorder, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  check_goldens(Device::cuda(), Stream::create());
}

TEST(GpuSegmentationClearBorder, MatchesCpuOnFreshLabels) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::uint8, DType::int32, DType::int64, DType::bool_, DType::float64}) {
    for (const cuskimage::Shape& shape : {cuskimage::Shape{300, 257}, cuskimage::Shape{20, 31, 27}}) {
      const Array h = cusktest::random_array(shape, dt, 21 + static_cast<int>(dt), 0, 2);
      const Array d = h.to(Device::cuda(), s);
      for (std::int64_t buf : {0, 3})
        EXPECT_ARRAY_EQ(seg::clear_border(h, {.buffer_size = buf, .bgval = 5}),
                        seg::clear_border(d, {.buffer_size = buf, .bgval = 5}, s));
    }
  }
}

TEST(GpuSegmentationClearBorder, StridedViewsAndStream) {
  CUSK_REQUIRE_GPU();
  const Array h = cusktest::random_array({90, 70}, DType::int32, 5, 0, 2);
  const Array expected = seg::clear_border(h.slice({Slice{2, 88, 3}, Slice{69, 0, -2}}).copy());
  Array got;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    const Array d = h.to(Device::cuda(), s);
    got = seg::clear_border(d.slice({Slice{2, 88, 3}, Slice{69, 0, -2}}), {}, s);
    s.synchronize();
  }));
  EXPECT_ARRAY_EQ(expected, got);
}

// Contiguous labels of a multiple of 4 elements take the four-per-thread pass; odd sizes and a
// contiguous view starting off alignment take the per-element one.
TEST(GpuSegmentationClearBorder, VectorAndScalarPassesMatchCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::uint8, DType::int16, DType::int32, DType::int64}) {
    for (const cuskimage::Shape& shape : {cuskimage::Shape{64, 96}, cuskimage::Shape{33, 7}, cuskimage::Shape{41, 5}}) {
      const Array h = cusktest::random_array(shape, dt, 71 + static_cast<int>(dt), 0, 3);
      const Array d = h.to(Device::cuda(), s);
      EXPECT_ARRAY_EQ(seg::clear_border(h, {.bgval = 7}), seg::clear_border(d, {.bgval = 7}, s));
      const Array hv = h.slice({Slice{1, std::nullopt}}), dv = d.slice({Slice{1, std::nullopt}});
      EXPECT_ARRAY_EQ(seg::clear_border(hv, {.buffer_size = 1}), seg::clear_border(dv, {.buffer_size = 1}, s));
    }
  }
}

}  // namespace
