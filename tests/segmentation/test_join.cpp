// relabel_sequential (offsets 1, 5, 250; int32 / uint8 / 3-D uint16; the uint8 -> uint16 output
// widening) and join_segmentations with return_mapping against scikit-image 0.26's goldens
// (tests/golden/cases_segmentation_boundaries.py), exact; ArrayMap lookups; segmentation::flood is
// morphology's. GPU tier: GPU == CPU exactly, strided views, a non-default stream.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>

#include "cuskimage/error.hpp"
#include "cuskimage/io.hpp"
#include "cuskimage/segmentation.hpp"
#include "tests/cli/cli_support.hpp"
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
  for (std::string key : {"i32", "u8", "u16_3d"}) {
    const Array lab = golden("rl_" + key).to(dev, s);
    for (int off : {1, 5, 250}) {
      const std::string p = "rs_" + key + "_o" + std::to_string(off);
      const seg::RelabelResult r = seg::relabel_sequential(lab, {.offset = off}, s);
      EXPECT_ARRAY_EQ(golden(p + "_out"), r.relabeled) << p;
      EXPECT_ARRAY_EQ(golden(p + "_in"), r.forward.in_values) << p;
      EXPECT_ARRAY_EQ(golden(p + "_map"), r.forward.out_values) << p;
      EXPECT_ARRAY_EQ(golden(p + "_map"), r.inverse.in_values) << p;
      EXPECT_ARRAY_EQ(golden(p + "_out"), r.forward(lab, s)) << p;  // the map applied = relabelled
      EXPECT_ARRAY_EQ(lab, r.inverse(r.relabeled, s)) << p;         // and back
    }
  }
  const Array s1 = golden("js_s1").to(dev, s), s2 = golden("js_s2").to(dev, s);
  const seg::JoinResult j = seg::join_segmentations_with_mapping(s1, s2, s);
  EXPECT_ARRAY_EQ(golden("js_out"), j.joined);
  EXPECT_ARRAY_EQ(golden("js_out"), seg::join_segmentations(s1, s2, s));
  EXPECT_ARRAY_EQ(golden("js_m1in"), j.map_to_s1.in_values);
  EXPECT_ARRAY_EQ(golden("js_m1in"), j.map_to_s2.in_values);
  EXPECT_ARRAY_EQ(golden("js_m1out"), j.map_to_s1.out_values);
  EXPECT_ARRAY_EQ(golden("js_m2out"), j.map_to_s2.out_values);
}

TEST(SegmentationJoin, Goldens) { check_goldens(Device::cpu(), Stream()); }

TEST(SegmentationJoin, BadArguments) {
  const Array lab = golden("rl_i32");
  EXPECT_THROW(seg::relabel_sequential(lab, {.offset = 0}), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::relabel_sequential(lab.astype(DType::float32)), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::relabel_sequential(Array::full({3, 3}, -2, DType::int16)), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::join_segmentations(lab, golden("js_s1")), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::join_segmentations(lab.astype(DType::uint64), lab.astype(DType::int8)), cuskimage::InvalidArgument);
}

// The label utilities' CLI commands (this part's six) on the goldens, on the CPU backend.
TEST(SegmentationJoin, CommandLine) {
  const auto path = [](const std::string& n) { return cusktest::golden_path("segmentation_boundaries/" + n + ".npy"); };
  const std::string o = cusktest::temp_path("seg_o.npy"), a = cusktest::temp_path("seg_a.npy"),
                    b = cusktest::temp_path("seg_b.npy"), c = cusktest::temp_path("seg_c.npy");
  auto r = cuskclitest::run_cli_cpu({"segmentation.relabel_sequential", path("rl_u8"), o, a, b, "--offset", "250"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("rs_u8_o250_out"), cuskimage::io::imread(o));
  EXPECT_ARRAY_EQ(golden("rs_u8_o250_in"), cuskimage::io::imread(a));
  EXPECT_ARRAY_EQ(golden("rs_u8_o250_map"), cuskimage::io::imread(b));
  r = cuskclitest::run_cli_cpu({"segmentation.join_segmentations", path("js_s1"), path("js_s2"), o, a, b, c});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("js_out"), cuskimage::io::imread(o));
  EXPECT_ARRAY_EQ(golden("js_m2out"), cuskimage::io::imread(c));
  r = cuskclitest::run_cli_cpu({"segmentation.find_boundaries", path("lab_i32"), o, "--mode", "outer"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("fb_i32_outer_c1"), cuskimage::io::imread(o));
  r = cuskclitest::run_cli_cpu({"segmentation.clear_border", path("lab_i32"), o, "--mask", path("cb_mask")});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("cb_i32_mask"), cuskimage::io::imread(o));
  r = cuskclitest::run_cli_cpu({"segmentation.expand_labels", path("seeds_i32"), o, "--distance", "3", "--spacing", "1,2"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("el_i32_d3_sp"), cuskimage::io::imread(o));
  r = cuskclitest::run_cli_cpu({"segmentation.mark_boundaries", path("img_rgb"), path("lab_i32"), o, "--color", "1,0,0",
                                "--outline_color", "0,0.5,1", "--mode", "thick"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_NEAR(golden("mb_rgb_thick_outline"), cuskimage::io::imread(o), 1e-12, 1e-12);
  EXPECT_EQ(cuskclitest::run_cli_cpu({"segmentation.relabel_sequential", path("rl_u8"), o, a, b, "--offset", "0"}).rc, 1);
}

TEST(SegmentationJoin, FloodIsMorphologys) {
  const Array img = golden("js_s1");
  EXPECT_ARRAY_EQ(cuskimage::morphology::flood(img, {3, 4}), seg::flood(img, {3, 4}));
  EXPECT_ARRAY_EQ(cuskimage::morphology::flood_fill(img, {3, 4}, 9.0), seg::flood_fill(img, {3, 4}, 9.0));
}

TEST(SegmentationJoin, StridedViewEqualsCopy) {
  const Array big = cusktest::random_array({50, 60}, DType::int32, 3, 0, 1000);
  const Array view = big.slice({Slice{1, 49, 2}, Slice{59, 0, -3}});
  EXPECT_ARRAY_EQ(seg::relabel_sequential(view.copy(), {.offset = 3}).relabeled,
                  seg::relabel_sequential(view, {.offset = 3}).relabeled);
}

TEST(GpuSegmentationJoin, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  check_goldens(Device::cuda(), Stream::create());
}

TEST(GpuSegmentationJoin, MatchesCpuStridedAndStream) {
  CUSK_REQUIRE_GPU();
  for (DType dt : {DType::uint8, DType::int32, DType::uint64}) {
    const Array h = cusktest::random_array({300, 211}, dt, 41, 0, 200);
    const Array h2 = cusktest::random_array({300, 211}, DType::uint16, 42, 0, 7);
    const Array hv = h.slice({Slice{1, 299, 2}, Slice{210, 0, -1}});
    const seg::RelabelResult expected = seg::relabel_sequential(hv.copy(), {.offset = 4});
    const Array ej = seg::join_segmentations(hv.copy(), h2.slice({Slice{1, 299, 2}, Slice{210, 0, -1}}).copy());
    seg::RelabelResult got;
    Array gj;
    EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
      const Array d = h.to(Device::cuda(), s), d2 = h2.to(Device::cuda(), s);
      got = seg::relabel_sequential(d.slice({Slice{1, 299, 2}, Slice{210, 0, -1}}), {.offset = 4}, s);
      gj = seg::join_segmentations(d.slice({Slice{1, 299, 2}, Slice{210, 0, -1}}),
                                   d2.slice({Slice{1, 299, 2}, Slice{210, 0, -1}}), s);
      s.synchronize();
    }));
    EXPECT_ARRAY_EQ(expected.relabeled, got.relabeled);
    EXPECT_ARRAY_EQ(expected.forward.in_values, got.forward.in_values);
    EXPECT_ARRAY_EQ(expected.forward.out_values, got.forward.out_values);
    EXPECT_ARRAY_EQ(ej, gj);
  }
}

TEST(GpuSegmentationJoin, WideRangeTakesTheSortAndMatchesCpu) {
  CUSK_REQUIRE_GPU();
  // Values up to 1e12: beyond the flag table's range, so the device sorts (CUB radix sort + unique).
  const Array h = cusktest::random_array({123, 77}, DType::int64, 43, 0, 1e12);
  const Stream s = Stream::create();
  const seg::RelabelResult e = seg::relabel_sequential(h, {.offset = 2});
  const seg::RelabelResult g = seg::relabel_sequential(h.to(Device::cuda(), s), {.offset = 2}, s);
  EXPECT_ARRAY_EQ(e.relabeled, g.relabeled);
  EXPECT_ARRAY_EQ(e.forward.in_values, g.forward.in_values);
  EXPECT_ARRAY_EQ(e.inverse.out_values, g.inverse.out_values);
  EXPECT_THROW(seg::relabel_sequential(Array::full({4, 5}, -3, DType::int32).to(Device::cuda(), s), {}, s),
               cuskimage::InvalidArgument);
}

// The dense path's lookup runs four labels per thread on aligned arrays and one per thread on the
// rest: sizes not a multiple of 4, a contiguous row view starting off alignment, an output dtype
// wider than the input's (uint8 labels past 255 after the offset), no zero label.
TEST(GpuSegmentationJoin, DenseLookupTailsAndAlignment) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (DType dt : {DType::uint8, DType::int16, DType::int32, DType::int64}) {
    for (const cuskimage::Shape& shape : {cuskimage::Shape{1, 3}, cuskimage::Shape{7, 9}, cuskimage::Shape{64, 65},
                                          cuskimage::Shape{128, 96}}) {
      const Array h = cusktest::random_array(shape, dt, 51 + static_cast<int>(dt), 0, 120);
      const Array d = h.to(Device::cuda(), s);
      for (std::int64_t offset : {1, 200}) {
        const seg::RelabelResult e = seg::relabel_sequential(h, {.offset = offset});
        const seg::RelabelResult g = seg::relabel_sequential(d, {.offset = offset}, s);
        EXPECT_ARRAY_EQ(e.relabeled, g.relabeled);
        EXPECT_ARRAY_EQ(e.forward.in_values, g.forward.in_values);
        if (shape[0] > 1) {  // rows 1.. of a C-order array: contiguous, not aligned to 4 elements
          const seg::RelabelResult ev = seg::relabel_sequential(h.slice({Slice{1, std::nullopt}}), {.offset = offset});
          const seg::RelabelResult gv =
              seg::relabel_sequential(d.slice({Slice{1, std::nullopt}}), {.offset = offset}, s);
          EXPECT_ARRAY_EQ(ev.relabeled, gv.relabeled);
        }
      }
      const Array nz = cusktest::random_array(shape, dt, 61, 3, 90);  // no zero label
      EXPECT_ARRAY_EQ(seg::relabel_sequential(nz, {.offset = 2}).relabeled,
                      seg::relabel_sequential(nz.to(Device::cuda(), s), {.offset = 2}, s).relabeled);
    }
  }
}

}  // namespace
