// morphsnakes against scikit-image 0.26's goldens (tests/golden/cases_segmentation_levelsets.py):
// MorphACWE and MorphGAC level sets exactly (int8), inverse_gaussian_gradient within 1e-12 relative
// (float64) / 2e-6 (float32) and 1e-15 for uint8 input (integer gradients, as scipy's); the
// level-set helpers exactly. Then the GPU tier: device == CPU exactly on fresh random inputs (the
// CUDA Gaussian accumulates float32 in float32: inverse_gaussian_gradient's float32 within 1e-5;
// the level sets exactly: the region means are summed in another order, so a pixel whose region
// term is within ulps of 0 could flip; random inputs never hit that), strided views, a non-default
// stream.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/segmentation.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;
namespace seg = cuskimage::segmentation;
using seg::LevelSetInit;

Array golden(const std::string& name) { return cusktest::load_golden("segmentation_levelsets/" + name + ".npy"); }

struct AcweCase {
  std::string key, image;
  int n;
  seg::MorphologicalChanVeseOptions o;
};

std::vector<AcweCase> acwe_cases() {
  std::vector<AcweCase> c;
  c.push_back({"cb", "img2", 12, {}});
  c.push_back({"cb_s2", "img2", 8, {.smoothing = 2}});
  c.push_back({"cb_s0", "img2", 5, {.smoothing = 0, .lambda1 = 2.0, .lambda2 = 0.5}});
  c.push_back({"disk_s3", "img2", 7, {.init_method = LevelSetInit::disk, .smoothing = 3}});
  c.push_back({"arr", "img2", 9, {.init_level_set = golden("init2"), .lambda2 = 1.5}});
  c.push_back({"u8", "img2u8", 10, {}});
  c.push_back({"f32", "img2f32", 10, {.smoothing = 2}});
  c.push_back({"3d", "img3", 6, {}});
  c.push_back({"3d_disk", "img3", 5, {.init_method = LevelSetInit::disk, .smoothing = 2}});
  c.push_back({"zero", "img2", 0, {}});
  return c;
}

struct GacCase {
  std::string key, image;
  int n;
  seg::MorphologicalGeodesicActiveContourOptions o;
};

std::vector<GacCase> gac_cases() {
  std::vector<GacCase> c;
  c.push_back({"b0", "igg2", 15, {}});
  c.push_back({"bp", "igg2", 20, {.smoothing = 2, .balloon = 1.0}});
  c.push_back({"bn", "igg2", 12, {.init_method = LevelSetInit::checkerboard, .balloon = -1.0}});
  c.push_back({"thr", "igg2", 15, {.threshold = 0.6, .balloon = 2.0}});
  c.push_back({"3d", "igg3", 6, {.balloon = 1.0}});
  c.push_back({"3d_neg", "igg3", 2, {.threshold = 0.4, .balloon = -0.5}});
  return c;
}

void run_goldens(const Device& dev, const Stream& s) {
  for (auto& c : acwe_cases()) {
    SCOPED_TRACE("acwe_" + c.key);
    if (c.o.init_level_set.valid()) c.o.init_level_set = c.o.init_level_set.to(dev, s);
    EXPECT_ARRAY_EQ(golden("acwe_" + c.key), seg::morphological_chan_vese(golden(c.image).to(dev, s), c.n, c.o, s));
  }
  for (auto& c : gac_cases()) {
    SCOPED_TRACE("gac_" + c.key);
    EXPECT_ARRAY_EQ(golden("gac_" + c.key),
                    seg::morphological_geodesic_active_contour(golden(c.image).to(dev, s), c.n, c.o, s));
  }
  const seg::InverseGaussianGradientOptions igg{.alpha = 100.0, .sigma = 2.0};
  EXPECT_ARRAY_NEAR(golden("igg2"), seg::inverse_gaussian_gradient(golden("img2").to(dev, s), igg, s), 1e-12, 1e-13);
  EXPECT_ARRAY_NEAR(golden("igg3"), seg::inverse_gaussian_gradient(golden("img3").to(dev, s), igg, s), 1e-12, 1e-13);
  EXPECT_ARRAY_NEAR(golden("igg2f32"), seg::inverse_gaussian_gradient(golden("img2f32").to(dev, s), igg, s), 2e-6,
                    2e-6);
  EXPECT_ARRAY_NEAR(golden("igg2u8"),
                    seg::inverse_gaussian_gradient(golden("img2u8").to(dev, s), {.alpha = 10.0, .sigma = 1.0}, s),
                    1e-15, 0.0);
  EXPECT_ARRAY_EQ(golden("cb_5x7"), seg::checkerboard_level_set({5, 7}, {}, dev, s));
  EXPECT_ARRAY_EQ(golden("cb_9x11_3"), seg::checkerboard_level_set({9, 11}, {.square_size = 3}, dev, s));
  EXPECT_ARRAY_EQ(golden("cb_4x5x6_2"), seg::checkerboard_level_set({4, 5, 6}, {.square_size = 2}, dev, s));
  EXPECT_ARRAY_EQ(golden("disk_20x30"), seg::disk_level_set({20, 30}, {}, dev, s));
  EXPECT_ARRAY_EQ(golden("disk_20x30_c"), seg::disk_level_set({20, 30}, {.center = {4, 25}, .radius = 7.5}, dev, s));
  EXPECT_ARRAY_EQ(golden("disk_7x8x9"), seg::disk_level_set({7, 8, 9}, {}, dev, s));
}

TEST(Morphsnakes, GoldensCpu) { run_goldens(Device::cpu(), Stream()); }

TEST(Morphsnakes, CallbackSeesEveryIteration) {
  int calls = 0;
  std::vector<double> means;
  seg::MorphologicalChanVeseOptions o;
  o.iter_callback = [&](const Array& u) {
    ++calls;
    EXPECT_EQ(u.dtype(), DType::int8);
    double m = 0;
    for (auto v : u.to(Device::cpu()).to_vector<std::int8_t>()) m += v;
    means.push_back(m);
  };
  const Array out = seg::morphological_chan_vese(golden("img2"), 12, o);
  EXPECT_EQ(calls, 13);  // the initial level set, then one per iteration
  double m = 0;
  for (auto v : out.to_vector<std::int8_t>()) m += v;
  EXPECT_EQ(means.back(), m);
}

TEST(Morphsnakes, BadInput) {
  using cuskimage::InvalidArgument;
  const Array img = golden("img2");
  EXPECT_THROW(seg::morphological_chan_vese(Array::zeros({5}, DType::float64), 3), InvalidArgument);
  EXPECT_THROW(seg::morphological_chan_vese(Array::zeros({2, 3, 4, 5}, DType::float64), 3), InvalidArgument);
  EXPECT_THROW(seg::morphological_chan_vese(Array::zeros({1, 8}, DType::float64), 3), InvalidArgument);
  EXPECT_THROW(seg::morphological_chan_vese(img, 3, {.init_level_set = Array::zeros({64, 71}, DType::float64)}),
               InvalidArgument);
  EXPECT_THROW(seg::morphological_chan_vese(img, 3, {.init_level_set = Array::zeros({64, 72, 1}, DType::float64)}),
               InvalidArgument);
  EXPECT_THROW(seg::morphological_chan_vese(img, -1), InvalidArgument);
  EXPECT_THROW(seg::morphological_chan_vese(img, 1, {.smoothing = -1}), InvalidArgument);
  EXPECT_THROW(seg::morphological_geodesic_active_contour(golden("img2u8"), 3), InvalidArgument);
  EXPECT_THROW(seg::checkerboard_level_set({4, 4}, {.square_size = 0}), InvalidArgument);
  EXPECT_THROW(seg::disk_level_set({4, 4}, {.center = {1, 2, 3}}), InvalidArgument);
  EXPECT_THROW(seg::inverse_gaussian_gradient(img, {.sigma = -1.0}), InvalidArgument);
}

TEST(Morphsnakes, Cli) {
  const std::string img = cusktest::golden_path("segmentation_levelsets/img2.npy");
  const std::string out = cusktest::temp_path("acwe.npy");
  const auto r = cuskclitest::run_cli_cpu({"segmentation.morphological_chan_vese", img, out, "--num_iter", "12"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_ARRAY_EQ(golden("acwe_cb"), cuskimage::io::imread(out));
  const std::string cb = cusktest::temp_path("cb.npy");
  const auto r2 = cuskclitest::run_cli_cpu({"segmentation.checkerboard_level_set", cb, "--image_shape", "9,11",
                                         "--square_size", "3"});
  ASSERT_EQ(r2.rc, 0) << cuskclitest::describe(r2);
  EXPECT_ARRAY_EQ(golden("cb_9x11_3"), cuskimage::io::imread(cb));
  const std::string disk = cusktest::temp_path("disk.npy");
  const auto r3 = cuskclitest::run_cli_cpu({"segmentation.disk_level_set", disk, "--image_shape", "20,30", "--center",
                                            "4,25", "--radius", "7.5"});
  ASSERT_EQ(r3.rc, 0) << cuskclitest::describe(r3);
  EXPECT_ARRAY_EQ(golden("disk_20x30_c"), cuskimage::io::imread(disk));
  const std::string igg = cusktest::temp_path("igg.npy");
  const auto r4 = cuskclitest::run_cli_cpu({"segmentation.inverse_gaussian_gradient", img, igg, "--sigma", "2"});
  ASSERT_EQ(r4.rc, 0) << cuskclitest::describe(r4);
  EXPECT_ARRAY_NEAR(golden("igg2"), cuskimage::io::imread(igg), 1e-12, 1e-13);
  const std::string gac = cusktest::temp_path("gac.npy");
  const auto r5 = cuskclitest::run_cli_cpu({"segmentation.morphological_geodesic_active_contour",
                                            cusktest::golden_path("segmentation_levelsets/igg2.npy"), gac,
                                            "--num_iter", "15", "--balloon", "2", "--threshold", "0.6"});
  ASSERT_EQ(r5.rc, 0) << cuskclitest::describe(r5);
  EXPECT_ARRAY_EQ(golden("gac_thr"), cuskimage::io::imread(gac));
}

// ---- GPU tier -------------------------------------------------------------------------------------------

TEST(GpuMorphsnakes, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  run_goldens(Device::cuda(), Stream::create());
}

TEST(GpuMorphsnakes, MatchesCpuOnRandomInputsStridedAndStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const Shape& shape : {Shape{97, 131}, Shape{19, 23, 29}}) {
    for (DType dt : {DType::float32, DType::float64, DType::uint16}) {
      SCOPED_TRACE(std::to_string(shape.size()) + "-D " + std::string(cuskimage::dtype_name(dt)));
      const Array big = cusktest::random_array(shape.size() == 2 ? Shape{97, 262} : Shape{19, 23, 58}, dt, 77, 0, 100);
      const Array host = shape.size() == 2 ? big.slice({cuskimage::Slice{}, cuskimage::Slice{0, 262, 2}})
                                           : big.slice({cuskimage::Slice{}, cuskimage::Slice{},
                                                        cuskimage::Slice{0, 58, 2}});
      const Array dev = big.to(Device::cuda(), s);
      const Array dview = shape.size() == 2 ? dev.slice({cuskimage::Slice{}, cuskimage::Slice{0, 262, 2}})
                                            : dev.slice({cuskimage::Slice{}, cuskimage::Slice{},
                                                         cuskimage::Slice{0, 58, 2}});
      const seg::MorphologicalChanVeseOptions o{.smoothing = 2, .lambda1 = 1.3};
      EXPECT_ARRAY_EQ(seg::morphological_chan_vese(host, 9, o), seg::morphological_chan_vese(dview, 9, o, s));
      if (cuskimage::is_floating(dt)) {
        const Array g = seg::inverse_gaussian_gradient(host, {.alpha = 0.5, .sigma = 1.5});
        const Array gd = seg::inverse_gaussian_gradient(dview, {.alpha = 0.5, .sigma = 1.5}, s);
        EXPECT_ARRAY_NEAR(g, gd, dt == DType::float32 ? 1e-5 : 1e-12, dt == DType::float32 ? 1e-5 : 1e-12);
        for (double balloon : {0.0, 1.0, -1.0}) {
          const seg::MorphologicalGeodesicActiveContourOptions go{.balloon = balloon};
          EXPECT_ARRAY_EQ(seg::morphological_geodesic_active_contour(g, 7, go),
                          seg::morphological_geodesic_active_contour(g.to(Device::cuda(), s), 7, go, s));
        }
      }
    }
  }
}

TEST(GpuMorphsnakes, RunsWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array img = golden("img2").to(Device::cuda());
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    (void)seg::morphological_chan_vese(img, 10, {}, s);
    (void)seg::morphological_geodesic_active_contour(img, 5, {.threshold = 0.5, .balloon = 1.0}, s);
  }));
}

}  // namespace
