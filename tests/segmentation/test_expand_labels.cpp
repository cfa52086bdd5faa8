// expand_labels against scikit-image 0.26's goldens (tests/golden/cases_segmentation_boundaries.py):
// 2-D int32 and 3-D uint8 seeds, distances 1, 3, 5.5, spacing (1, 2); exact (the EDT's feature ties
// are scipy's). GPU tier: GPU == CPU exactly, strided views, a non-default stream.
#include <gtest/gtest.h>

#include <string>

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
  const Array s2 = golden("seeds_i32").to(dev, s), s3 = golden("seeds_u8_3d").to(dev, s);
  for (const char* d : {"1", "3", "5.5"}) {
    const double dist = std::stod(d);
    EXPECT_ARRAY_EQ(golden(std::string("el_i32_d") + d), seg::expand_labels(s2, {.distance = dist}, s));
    EXPECT_ARRAY_EQ(golden(std::string("el_u8_3d_d") + d), seg::expand_labels(s3, {.distance = dist}, s));
  }
  EXPECT_ARRAY_EQ(golden("el_i32_d3_sp"), seg::expand_labels(s2, {.distance = 3, .spacing = {1, 2}}, s));
}

TEST(SegmentationExpandLabels, Goldens) { check_goldens(Device::cpu(), Stream()); }

TEST(SegmentationExpandLabels, AllBackgroundStaysZero) {
  const Array z = Array::zeros({7, 9}, DType::int32);
  EXPECT_ARRAY_EQ(z, seg::expand_labels(z, {.distance = 4}));
}

TEST(SegmentationExpandLabels, StridedViewEqualsCopy) {
  const Array big = cusktest::random_array({60, 50}, DType::uint16, 9, 0, 40);
  const Array view = big.slice({Slice{1, 59, 2}, Slice{49, 0, -3}});
  EXPECT_ARRAY_EQ(seg::expand_labels(view.copy(), {.distance = 2}), seg::expand_labels(view, {.distance = 2}));
}

TEST(GpuSegmentationExpandLabels, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  check_goldens(Device::cuda(), Stream::create());
}

TEST(GpuSegmentationExpandLabels, MatchesCpuStridedAndStream) {
  CUSK_REQUIRE_GPU();
  Array h = Array::zeros({200, 180}, DType::int32);
  const Array pts = cusktest::random_array({60, 2}, DType::int32, 31, 0, 179);
  for (int k = 0; k < 60; ++k) {
    const std::int64_t y = pts.at<std::int32_t>({k, 0}), x = pts.at<std::int32_t>({k, 1});
    static_cast<std::int32_t*>(h.data())[y * 180 + x] = k + 1;
  }
  const Array hv = h.slice({Slice{1, 199, 2}, Slice{179, 0, -1}});
  const Array expected = seg::expand_labels(hv.copy(), {.distance = 6});
  Array got;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    const Array d = h.to(Device::cuda(), s);
    got = seg::expand_labels(d.slice({Slice{1, 199, 2}, Slice{179, 0, -1}}), {.distance = 6}, s);
    s.synchronize();
  }));
  EXPECT_ARRAY_EQ(expected, got);
}

}  // namespace
