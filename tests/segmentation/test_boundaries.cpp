// find_boundaries (every mode and connectivity, 2-D and 3-D, int32 / uint8 / bool / float32 /
// uint16 labels) and mark_boundaries against scikit-image 0.26's goldens
// (tests/golden/cases_segmentation_boundaries.py): bool outputs exactly, mark_boundaries' floats to
// 1e-12 (subpixel goes through ndimage.zoom's cubic spline); then the GPU tier (GPU == CPU exactly
// on fresh labels, strided views, a non-default stream).
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
using seg::BoundaryMode;

Array golden(const std::string& name) { return cusktest::load_golden("segmentation_boundaries/" + name + ".npy"); }

const char* mode_name(BoundaryMode m) {
  switch (m) {
    case BoundaryMode::thick: return "thick";
    case BoundaryMode::inner: return "inner";
    case BoundaryMode::outer: return "outer";
    default: return "subpixel";
  }
}

void check_find_goldens(const Device& dev, const Stream& s) {
  for (std::string key : {"i32", "u8", "b", "f32", "u16_3d"}) {
    const Array lab = golden("lab_" + key).to(dev, s);
    for (BoundaryMode m : {BoundaryMode::thick, BoundaryMode::inner, BoundaryMode::outer, BoundaryMode::subpixel}) {
      if (key == "f32" && (m == BoundaryMode::outer || m == BoundaryMode::subpixel)) {
        EXPECT_THROW(seg::find_boundaries(lab, {.mode = m}, s), cuskimage::InvalidArgument);
        continue;
      }
      for (int conn = 1; conn <= lab.ndim(); ++conn) {
        const std::string name = "fb_" + key + "_" + mode_name(m) + "_c" + std::to_string(conn);
        EXPECT_TRUE(cusktest::arrays_equal(golden(name), seg::find_boundaries(lab, {.connectivity = conn, .mode = m}, s)))
            << name;
      }
    }
  }
  const Array lab = golden("lab_i32").to(dev, s);
  EXPECT_ARRAY_EQ(golden("fb_i32_inner_c1_bg2"), seg::find_boundaries(lab, {.mode = BoundaryMode::inner, .background = 2}, s));
  EXPECT_ARRAY_EQ(golden("fb_i32_outer_c1_bg2"), seg::find_boundaries(lab, {.mode = BoundaryMode::outer, .background = 2}, s));
}

void check_mark_goldens(const Device& dev, const Stream& s) {
  const Array lab = golden("lab_i32").to(dev, s);
  const Array gray = golden("img_gray").to(dev, s), rgb = golden("img_rgb").to(dev, s);
  EXPECT_ARRAY_NEAR(golden("mb_gray_outer"), seg::mark_boundaries(gray, lab, {}, s), 1e-12, 1e-12);
  EXPECT_ARRAY_NEAR(golden("mb_rgb_thick_outline"),
                    seg::mark_boundaries(rgb, lab,
                                         {.color = {1, 0, 0}, .outline_color = std::array<double, 3>{0, 0.5, 1},
                                          .mode = BoundaryMode::thick},
                                         s),
                    1e-12, 1e-12);
  EXPECT_ARRAY_NEAR(golden("mb_gray_inner_bg2"),
                    seg::mark_boundaries(gray.astype(DType::float32, s), lab,
                                         {.mode = BoundaryMode::inner, .background_label = 2}, s),
                    1e-6, 1e-6);
  EXPECT_ARRAY_NEAR(golden("mb_gray_subpixel"), seg::mark_boundaries(gray, lab, {.mode = BoundaryMode::subpixel}, s),
                    1e-12, 1e-12);
}

TEST(SegmentationBoundaries, FindBoundariesGoldens) { check_find_goldens(Device::cpu(), Stream()); }
TEST(SegmentationBoundaries, MarkBoundariesGoldens) { check_mark_goldens(Device::cpu(), Stream()); }

TEST(SegmentationBoundaries, BadArguments) {
  const Array lab = golden("lab_i32");
  EXPECT_THROW(seg::find_boundaries(lab, {.connectivity = 3}), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::find_boundaries(lab, {.connectivity = 0}), cuskimage::InvalidArgument);
  const Array img = golden("img_gray");
  EXPECT_THROW(seg::mark_boundaries(img, lab.slice({Slice{0, 10}, Slice{}})), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::mark_boundaries(img, golden("lab_u16_3d")), cuskimage::InvalidArgument);
}

TEST(SegmentationBoundaries, StridedViewEqualsCopy) {
  const Array big = cusktest::random_array({50, 60}, DType::int32, 7, 0, 3);
  const Array view = big.slice({Slice{1, 49, 2}, Slice{59, 0, -3}});
  for (BoundaryMode m : {BoundaryMode::thick, BoundaryMode::outer, BoundaryMode::subpixel})
    EXPECT_ARRAY_EQ(seg::find_boundaries(view.copy(), {.mode = m}), seg::find_boundaries(view, {.mode = m}));
}

TEST(GpuSegmentationBoundaries, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  check_find_goldens(Device::cuda(), s);
  check_mark_goldens(Device::cuda(), s);
}

TEST(GpuSegmentationBoundaries, MatchesCpuOnFreshLabels) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::uint8, DType::int16, DType::uint32, DType::int64, DType::bool_}) {
    for (const cuskimage::Shape& shape : {cuskimage::Shape{257, 130}, cuskimage::Shape{17, 23, 29}}) {
      const Array h = cusktest::random_array(shape, dt, 11 + static_cast<int>(dt), 0, 4);
      const Array d = h.to(Device::cuda(), s);
      for (BoundaryMode m : {BoundaryMode::thick, BoundaryMode::inner, BoundaryMode::outer, BoundaryMode::subpixel})
        for (int conn = 1; conn <= h.ndim(); ++conn) {
          const seg::FindBoundariesOptions o{.connectivity = conn, .mode = m, .background = 1};
          EXPECT_ARRAY_EQ(seg::find_boundaries(h, o), seg::find_boundaries(d, o, s));
        }
    }
  }
}

TEST(GpuSegmentationBoundaries, StridedViewsAndStream) {
  CUSK_REQUIRE_GPU();
  const Array h = cusktest::random_array({90, 70}, DType::int32, 5, 0, 5);
  const Array hv = h.slice({Slice{2, 88, 3}, Slice{69, 0, -2}});
  const Array expected = seg::find_boundaries(hv.copy(), {.mode = BoundaryMode::outer});
  Array got;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    const Array d = h.to(Device::cuda(), s);
    got = seg::find_boundaries(d.slice({Slice{2, 88, 3}, Slice{69, 0, -2}}), {.mode = BoundaryMode::outer}, s);
    s.synchronize();
  }));
  EXPECT_ARRAY_EQ(expected, got);
}

// Widths a multiple of 4 take the 4-pixels-per-thread kernel (thick, inner): small and one-row
// images, a view of every other row (strided rows), and a misaligned view (the general kernel).
TEST(GpuSegmentationBoundaries, RowKernelMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::uint8, DType::int32, DType::int64, DType::bool_, DType::uint16}) {
    for (const cuskimage::Shape& shape : {cuskimage::Shape{97, 128}, cuskimage::Shape{1, 4}, cuskimage::Shape{3, 8},
                                          cuskimage::Shape{130, 4}, cuskimage::Shape{66, 68}}) {
      const Array h = cusktest::random_array(shape, dt, 31 + static_cast<int>(dt), 0, 3);
      const Array d = h.to(Device::cuda(), s);
      const Array hrows = h.slice({Slice{0, std::nullopt, 2}});
      const Array drows = d.slice({Slice{0, std::nullopt, 2}});
      for (BoundaryMode m : {BoundaryMode::thick, BoundaryMode::inner})
        for (int conn = 1; conn <= 2; ++conn)
          for (std::int64_t bg : {0, 1}) {
            const seg::FindBoundariesOptions o{.connectivity = conn, .mode = m, .background = bg};
            EXPECT_ARRAY_EQ(seg::find_boundaries(h, o), seg::find_boundaries(d, o, s));
            EXPECT_ARRAY_EQ(seg::find_boundaries(hrows, o), seg::find_boundaries(drows, o, s));
            if (shape[1] > 4) {
              const Array hv = h.slice({Slice{}, Slice{1, shape[1] - 3}});
              const Array dv = d.slice({Slice{}, Slice{1, shape[1] - 3}});
              EXPECT_ARRAY_EQ(seg::find_boundaries(hv, o), seg::find_boundaries(dv, o, s));
            }
          }
    }
  }
}

}  // namespace
