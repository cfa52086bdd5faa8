// segmentation.watershed on the CPU backend against scikit-image 0.26's goldens
// (tests/golden/cases_segmentation_watershed.py): every option, plateau-heavy integer images,
// bool and 3-D images, markers as labels / a count / None; exact equality everywhere (the CPU
// backend is scikit-image's priority flood step for step). Then the argument errors.
#include <gtest/gtest.h>

#include <string>

#include "cuskimage/error.hpp"
#include "cuskimage/io.hpp"
#include "cuskimage/segmentation.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
namespace seg = cuskimage::segmentation;

Array golden(const std::string& name) { return cusktest::load_golden("segmentation_watershed/" + name + ".npy"); }

TEST(Watershed, BlobsDistanceTransform) {
  const Array img = golden("in_blobs"), mk = golden("mk_blobs");
  const Array mask = golden("mask_blobs");
  EXPECT_ARRAY_EQ(golden("out_blobs_m"), seg::watershed(img, mk, {.mask = mask.share()}));
  EXPECT_ARRAY_EQ(golden("out_blobs_m_c2"), seg::watershed(img, mk, {.connectivity = 2, .mask = mask.share()}));
  EXPECT_ARRAY_EQ(golden("out_blobs_m_wl"), seg::watershed(img, mk, {.mask = mask.share(), .watershed_line = true}));
  EXPECT_ARRAY_EQ(golden("out_blobs_m_cp1"), seg::watershed(img, mk, {.mask = mask.share(), .compactness = 0.5}));
  EXPECT_ARRAY_EQ(golden("out_blobs_c1"), seg::watershed(img, mk));
}

TEST(Watershed, PlateauHeavyIntegerImage) {
  const Array img = golden("in_int"), mk = golden("mk_int"), mask = golden("mask_int");
  EXPECT_ARRAY_EQ(golden("out_int_c1"), seg::watershed(img, mk));
  EXPECT_ARRAY_EQ(golden("out_int_c2"), seg::watershed(img, mk, {.connectivity = 2}));
  EXPECT_ARRAY_EQ(golden("out_int_wl"), seg::watershed(img, mk, {.watershed_line = true}));
  EXPECT_ARRAY_EQ(golden("out_int_c2_wl"), seg::watershed(img, mk, {.connectivity = 2, .watershed_line = true}));
  EXPECT_ARRAY_EQ(golden("out_int_cp1"), seg::watershed(img, mk, {.compactness = 0.1}));
  EXPECT_ARRAY_EQ(golden("out_int_cp2"), seg::watershed(img, mk, {.connectivity = 2, .compactness = 3.0}));
  EXPECT_ARRAY_EQ(golden("out_int_m"), seg::watershed(img, mk, {.mask = mask.share()}));
  EXPECT_ARRAY_EQ(golden("out_int_m_wl_cp"),
                  seg::watershed(img, mk, {.mask = mask.share(), .compactness = 0.2, .watershed_line = true}));
}

TEST(Watershed, FootprintAndOffset) {
  const Array img = golden("in_int"), mk = golden("mk_int");
  EXPECT_ARRAY_EQ(golden("out_int_fp5"), seg::watershed(img, mk, {.footprint = golden("fp5")}));
  const Array ones = Array::full({3, 3}, 1, DType::bool_);
  EXPECT_ARRAY_EQ(golden("out_int_fpo"), seg::watershed(img, mk, {.footprint = ones.share(), .offset = {2, 2}}));
}

TEST(Watershed, BoolImageAndUint16Markers) {
  const Array img = golden("in_bool"), mk = golden("mk_bool");
  EXPECT_ARRAY_EQ(golden("out_bool_c1"), seg::watershed(img, mk));
  EXPECT_ARRAY_EQ(golden("out_bool_wl"), seg::watershed(img, mk, {.watershed_line = true}));
}

TEST(Watershed, Volume) {
  const Array img = golden("in_v3"), mk = golden("mk_v3");
  EXPECT_ARRAY_EQ(golden("out_v3_c1"), seg::watershed(img, mk));
  EXPECT_ARRAY_EQ(golden("out_v3_c3"), seg::watershed(img, mk, {.connectivity = 3}));
  EXPECT_ARRAY_EQ(golden("out_v3_wl"), seg::watershed(img, mk, {.watershed_line = true}));
  EXPECT_ARRAY_EQ(golden("out_v3_cp1"), seg::watershed(img, mk, {.connectivity = 2, .compactness = 0.3}));
}

TEST(Watershed, MarkersNoneAndCount) {
  const Array img = golden("in_smooth"), mask = golden("mask_smooth");
  EXPECT_ARRAY_EQ(golden("out_smooth_none"), seg::watershed(img));
  EXPECT_ARRAY_EQ(golden("out_smooth_none_c2"), seg::watershed(img, {.connectivity = 2}));
  EXPECT_ARRAY_EQ(golden("out_smooth_n9"), seg::watershed(img, std::int64_t{9}));
  EXPECT_ARRAY_EQ(golden("out_smooth_n9_m"), seg::watershed(img, std::int64_t{9}, {.mask = mask.share()}));
}

TEST(Watershed, StridedInputs) {
  // A transposed view floods like its contiguous copy.
  const Array img = golden("in_int"), mk = golden("mk_int");
  const Array it = img.transpose({1, 0}), mt = mk.transpose({1, 0});
  EXPECT_ARRAY_EQ(seg::watershed(it.contiguous(), mt.contiguous(), {.connectivity = 2}),
                  seg::watershed(it, mt, {.connectivity = 2}));
}

TEST(Watershed, BadArguments) {
  const Array img = golden("in_int"), mk = golden("mk_int");
  const Array small = Array::zeros({10, 10}, DType::int32);
  EXPECT_THROW(seg::watershed(img, small), InvalidArgument);                                  // markers shape
  EXPECT_THROW(seg::watershed(img, mk, {.mask = Array::zeros({3, 3}, DType::bool_)}), InvalidArgument);  // mask
  EXPECT_THROW(seg::watershed(img, mk, {.compactness = -1.0}), InvalidArgument);
  EXPECT_THROW(seg::watershed(img, mk.astype(DType::float32)), InvalidArgument);  // non-label markers
  EXPECT_THROW(seg::watershed(img, mk, {.footprint = Array::full({3, 3, 3}, 1, DType::bool_)}), InvalidArgument);
  EXPECT_THROW(seg::watershed(img, mk, {.footprint = Array::full({2, 3}, 1, DType::bool_)}), InvalidArgument);
  EXPECT_THROW(seg::watershed(img, mk, {.offset = {1}}), InvalidArgument);
  EXPECT_THROW(seg::watershed(img, std::int64_t{4}, {.mask = Array::zeros(img.shape(), DType::bool_)}),
               InvalidArgument);
}

TEST(Watershed, Cli) {
  const auto path = [](const std::string& n) { return cusktest::golden_path("segmentation_watershed/" + n + ".npy"); };
  const std::string out = cusktest::temp_path("watershed_cli.npy");
  auto r = cuskclitest::run_cli_cpu({"segmentation.watershed", path("in_blobs"), out, "--markers", path("mk_blobs"),
                                     "--mask", path("mask_blobs"), "--watershed_line"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("out_blobs_m_wl"), cuskimage::io::imread(out));
  r = cuskclitest::run_cli_cpu({"segmentation.watershed", path("in_smooth"), out, "--n_markers", "9", "--mask",
                                path("mask_smooth")});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("out_smooth_n9_m"), cuskimage::io::imread(out));
  r = cuskclitest::run_cli_cpu({"segmentation.watershed", path("in_int"), out, "--markers", path("mk_int"),
                                "--footprint", path("fp5")});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("out_int_fp5"), cuskimage::io::imread(out));
  r = cuskclitest::run_cli_cpu({"segmentation.watershed", path("in_smooth"), out, "--connectivity", "2"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("out_smooth_none_c2"), cuskimage::io::imread(out));
  // Negative compactness is a library error (exit 1).
  EXPECT_EQ(cuskclitest::run_cli_cpu({"segmentation.watershed", path("in_int"), out, "--markers", path("mk_int"),
                                      "--compactness", "-1"})
                .rc,
            1);
}

}  // namespace
