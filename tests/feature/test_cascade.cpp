// Cascade.detect_multi_scale against scikit-image 0.26 (tests/golden/cases_feature_learned.py): the
// OpenCV LBP frontal-face cascade scikit-image ships (tests/feature/data/, from OpenCV) on a crop of
// astronaut, RGB and grey, four parameter sets; detections exactly, in scikit-image's order. Then the
// loader's and the sweep's bad arguments, and device inputs.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

const std::string kFace = std::string(CUSK_TEST_DATA_DIR) + "/../../feature/data/lbpcascade_frontalface_opencv.xml";

#if !CUSK_TEST_HAVE_PUGIXML
TEST(FeatureCascade, NotSupportedWithoutPugixml) {
  EXPECT_THROW(ft::Cascade{kFace}, cuskimage::NotSupported);
}
#else

Array golden(const std::string& name) { return cusktest::load_golden("feature_learned/" + name + ".npy"); }

/// The face cascade. Builds without pugixml compile only the test that Cascade says so.
#define LOAD_FACE_CASCADE(var) std::optional<ft::Cascade> var(std::in_place, kFace)

std::vector<std::int64_t> flat(const std::vector<ft::Detection>& ds) {
  std::vector<std::int64_t> v;
  for (const auto& d : ds) v.insert(v.end(), {d.r, d.c, d.width, d.height});
  return v;
}

ft::DetectMultiScaleOptions params(int p) {
  const auto v = golden("casc_p" + std::to_string(p)).to_vector<double>();
  return {.scale_factor = v[0],
          .step_ratio = v[1],
          .min_size = {static_cast<std::int64_t>(v[2]), static_cast<std::int64_t>(v[3])},
          .max_size = {static_cast<std::int64_t>(v[4]), static_cast<std::int64_t>(v[5])},
          .min_neighbor_number = static_cast<std::int64_t>(v[6]),
          .intersection_score_threshold = v[7]};
}

void run_goldens(const ft::Cascade& casc, const Device& dev, const Stream& s) {
  const auto n = golden("casc_nparams").to_vector<std::int64_t>()[0];
  ASSERT_EQ(n, 5);
  for (const std::string kind : {"rgb", "gray"}) {
    const Array img = golden(kind == "rgb" ? "casc_img" : "casc_gray").to(dev, s);
    for (int p = 0; p < n; ++p) {
      SCOPED_TRACE(kind + " params " + std::to_string(p));
      const Array want = golden("casc_out" + std::to_string(p) + "_" + kind);
      EXPECT_EQ(want.to_vector<std::int64_t>(), flat(casc.detect_multi_scale(img, params(p), s)));
    }
  }
}

TEST(FeatureCascade, LoadsTheFaceCascade) {
  LOAD_FACE_CASCADE(casc);
  EXPECT_EQ(casc->window_width(), 24);
  EXPECT_EQ(casc->window_height(), 24);
  EXPECT_EQ(casc->stages_number(), 20);
  EXPECT_EQ(casc->features_number(), 136);
  EXPECT_EQ(casc->stumps_number(), 139);
  EXPECT_FLOAT_EQ(casc->eps(), 1e-5F);
}

TEST(FeatureCascade, Goldens) {
  LOAD_FACE_CASCADE(casc);
  run_goldens(*casc, Device::cpu(), Stream());
}

TEST(FeatureCascade, BadArguments) {
  EXPECT_THROW(ft::Cascade(cusktest::temp_path("no_such_cascade.xml")), InvalidArgument);
  LOAD_FACE_CASCADE(casc);
  const std::string bad = cusktest::temp_path("bad_cascade.xml");
  std::ofstream(bad) << "<opencv_storage><cascade><stageNum>1</stageNum>";  // truncated
  EXPECT_THROW(ft::Cascade{bad}, cuskimage::FormatError);
  const std::string haar = cusktest::temp_path("haar_cascade.xml");
  std::ofstream(haar) << "<opencv_storage><cascade><featureType>HAAR</featureType></cascade></opencv_storage>";
  EXPECT_THROW(ft::Cascade{haar}, cuskimage::NotSupported);
  const Array img = golden("casc_gray");
  EXPECT_THROW(casc->detect_multi_scale(Array::zeros({4, 5, 6, 3}, DType::uint8)), InvalidArgument);
  EXPECT_THROW(casc->detect_multi_scale(img, {.scale_factor = 1.0}), InvalidArgument);
  EXPECT_THROW(casc->detect_multi_scale(img, {.scale_factor = -1.2}), InvalidArgument);
  EXPECT_THROW(casc->detect_multi_scale(img, {.step_ratio = 0}), InvalidArgument);
  EXPECT_THROW(casc->detect_multi_scale(img, {.step_ratio = 0.1}), InvalidArgument);  // a zero stride
  EXPECT_THROW(casc->detect_multi_scale(img, {.min_size = {0, 24}}), InvalidArgument);
  // No scale fits: no detections (as scikit-image).
  EXPECT_TRUE(casc->detect_multi_scale(img, {.min_size = {200, 200}, .max_size = {300, 300}}).empty());
}

TEST(GpuFeatureCascade, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  LOAD_FACE_CASCADE(casc);
  const Stream s = Stream::create();
  run_goldens(*casc, Device::cuda(), s);
  // Every raw window (no grouping) of a larger grey image and a strided RGB view: device == host.
  const Array rgb = golden("casc_img");
  const Array tiled = cusktest::random_array({300, 420}, DType::uint8, 11);
  const ft::DetectMultiScaleOptions raw{.scale_factor = 1.1, .step_ratio = 1.0, .min_size = {24, 24},
                                        .max_size = {200, 200}, .min_neighbor_number = 0,
                                        .intersection_score_threshold = 2.0};
  const Array view = rgb.slice({cuskimage::Slice{std::nullopt, std::nullopt, 1}, cuskimage::Slice{10, 150, 2}});
  for (const Array* img : {&tiled, &rgb}) {
    const auto want = flat(casc->detect_multi_scale(*img, raw));
    EXPECT_EQ(want, flat(casc->detect_multi_scale(img->to(Device::cuda(), s), raw, s)));
  }
  EXPECT_EQ(flat(casc->detect_multi_scale(view.copy(), raw)),
            flat(casc->detect_multi_scale(view.to(Device::cuda(), s), raw, s)));
  EXPECT_EQ(flat(casc->detect_multi_scale(view.copy(), raw)), flat(casc->detect_multi_scale(view, raw)));
}

#endif  // CUSK_TEST_HAVE_PUGIXML

}  // namespace
