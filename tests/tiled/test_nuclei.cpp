// The nuclei job's watershed split of touching nuclei: tiled runs equal the whole image in one tile
// (the halo of tiled::nuclei), the split finds the synthetic slide's true count where the plain
// labelling merges touching pairs, checkpoints keep the object keys, bad options throw, and the
// CUDA backend agrees with the CPU one.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cuskimage/error.hpp"
#include "cuskimage/tiled.hpp"
#include "cuskimage/wsi.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
namespace fs = std::filesystem;

std::string tmp(const std::string& name) { return (fs::path(CUSK_TEST_TMP_DIR) / name).string(); }

std::string read_text(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Two nuclei.csv files hold the same objects: every field equal, but intensity_mean (the last), a
/// float sum whose order follows the tiles, within 1e-9 relative.
void expect_same_csv(const std::string& a, const std::string& b, const std::string& what) {
  std::istringstream fa(read_text(a)), fb(read_text(b));
  std::string la, lb;
  std::int64_t n = 0;
  while (std::getline(fa, la)) {
    ASSERT_TRUE(static_cast<bool>(std::getline(fb, lb))) << what << ": fewer rows at " << n;
    const auto ca = la.rfind(','), cb = lb.rfind(',');
    ASSERT_EQ(la.substr(0, ca), lb.substr(0, cb)) << what << ": row " << n;
    if (n > 0) {
      const double ia = std::stod(la.substr(ca + 1)), ib = std::stod(lb.substr(cb + 1));
      EXPECT_NEAR(ia, ib, 1e-9 * std::abs(ia)) << what << ": row " << n;
    }
    ++n;
  }
  EXPECT_FALSE(static_cast<bool>(std::getline(fb, lb))) << what << ": more rows";
  EXPECT_GT(n, 1) << what;
}

tiled::NucleiOptions nopts(std::int64_t tile, tiled::NucleiSplit split = tiled::NucleiSplit::watershed,
                           Device dev = Device::cpu()) {
  tiled::NucleiOptions o;
  o.tile_size = tile;
  o.split = split;
  o.device = dev;
  o.lanes = 2;
  o.progress = false;
  return o;
}

/// A small synthetic slide with touching nuclei, written once per test binary.
struct Synth {
  std::string path;
  std::int64_t truth = 0;
};
const Synth& small_slide() {
  static const Synth s = [] {
    Synth r{tmp("nuclei_touching.svs")};
    r.truth = tiled::write_synthetic_slide(r.path, 720, 656, 5, 0.4);
    return r;
  }();
  return s;
}

TEST(TiledNuclei, SplitTiledEqualsWholeImage) {
  const auto slide = wsi::Slide::open(small_slide().path);
  const tiled::NucleiReport whole = tiled::nuclei(slide, tmp("nuc_whole"), nopts(1024));
  ASSERT_EQ(whole.tiles_total, 1);
  ASSERT_GT(whole.objects, 50);
  for (std::int64_t tile : {128, 200}) {
    const tiled::NucleiReport r = tiled::nuclei(slide, tmp("nuc_tile" + std::to_string(tile)), nopts(tile));
    EXPECT_GT(r.tiles_total, 9);
    EXPECT_EQ(r.objects, whole.objects) << "tile " << tile;
    expect_same_csv(r.csv, whole.csv, "tile " + std::to_string(tile));  // labels, areas, centroids, boxes
  }
}

TEST(TiledNuclei, SplitSurvivesCheckpointResume) {
  const auto slide = wsi::Slide::open(small_slide().path);
  const std::string dir = tmp("nuc_ckpt");
  fs::remove_all(dir);
  auto o = nopts(160);
  o.checkpoint_dir = dir;
  const tiled::NucleiReport a = tiled::nuclei(slide, tmp("nuc_ckpt_a"), o);
  const tiled::NucleiReport b = tiled::nuclei(slide, tmp("nuc_ckpt_b"), o);  // every tile from its file
  EXPECT_EQ(a.objects, b.objects);
  EXPECT_EQ(read_text(a.csv), read_text(b.csv));
  expect_same_csv(b.csv, tiled::nuclei(slide, tmp("nuc_ckpt_c"), nopts(1024)).csv, "resumed vs whole");
}

TEST(TiledNuclei, SplitFindsTheTrueCountWherePlainLabellingMergesPairs) {
  const std::string path = tmp("nuclei_count.svs");
  const std::int64_t truth = tiled::write_synthetic_slide(path, 1600, 1600, 1, 0.3);
  const auto slide = wsi::Slide::open(path);
  const tiled::NucleiReport split = tiled::nuclei(slide, tmp("nuc_count_split"), nopts(512));
  const tiled::NucleiReport none = tiled::nuclei(slide, tmp("nuc_count_none"), nopts(512, tiled::NucleiSplit::none));
  ASSERT_GT(truth, 500);
  EXPECT_LE(std::abs(static_cast<double>(split.objects - truth)), 0.02 * static_cast<double>(truth))
      << "split " << split.objects << " of " << truth;
  EXPECT_LT(static_cast<double>(none.objects), 0.92 * static_cast<double>(truth)) << "none " << none.objects;
  std::cout << "[ nuclei ] true " << truth << ", split " << split.objects << ", none " << none.objects << "\n";
}

TEST(TiledNuclei, SyntheticSlideCountsItsNucleiAndDrawsPartners) {
  const std::int64_t n0 = tiled::write_synthetic_slide(tmp("nuclei_t0.svs"), 400, 400, 2, 0.0);
  const std::int64_t n1 = tiled::write_synthetic_slide(tmp("nuclei_t1.svs"), 400, 400, 2, 0.5);
  EXPECT_GT(n0, 20);
  EXPECT_GT(n1, n0);
  const auto a = wsi::Slide::open(tmp("nuclei_t0.svs"));
  const auto b = wsi::Slide::open(tmp("nuclei_t1.svs"));
  const Array ra = a.read_region(0, 0, 0, 400, 400), rb = b.read_region(0, 0, 0, 400, 400);
  std::int64_t differ = 0;
  for (std::int64_t i = 0; i < ra.size(); ++i) differ += ra.data<std::uint8_t>()[i] != rb.data<std::uint8_t>()[i];
  EXPECT_GT(differ, 0);  // the partners are drawn
}

TEST(TiledNuclei, PipelineObjectsOfTheWrongKindThrow) {
  const Array img = Array::full({64, 64, 3}, 128.0, DType::uint8);
  tiled::Options o;
  o.tile_size = 32;
  o.skip_background = false;
  o.progress = false;
  o.device = Device::cpu();
  tiled::Pipeline p;
  p.objects = [](const Array& rgb, const tiled::TileInfo&, const Stream&) {
    return tiled::TileObjects{Array::zeros({rgb.shape(0), rgb.shape(1)}, DType::int64), {}};
  };
  EXPECT_THROW(tiled::run(img, p, o), InvalidArgument);  // int64 labels
  p.objects = [](const Array& rgb, const tiled::TileInfo&, const Stream&) {
    return tiled::TileObjects{Array::full({rgb.shape(0), rgb.shape(1)}, 2.0, DType::int32), {7}};
  };
  EXPECT_THROW(tiled::run(img, p, o), InvalidArgument);  // label 2 without a key
  p.objects = [](const Array& rgb, const tiled::TileInfo&, const Stream&) {
    return tiled::TileObjects{Array::full({rgb.shape(0), rgb.shape(1)}, 1.0, DType::int32), {7}};
  };
  const tiled::Result r = tiled::run(img, p, o);  // one key in every tile: one object
  ASSERT_EQ(r.objects().size(), 1u);
  EXPECT_EQ(r.objects()[0].area, 64 * 64);
}

TEST(TiledNuclei, BadOptionsThrow) {
  const auto slide = wsi::Slide::open(small_slide().path);
  auto o = nopts(256);
  o.min_distance = 0;
  EXPECT_THROW(tiled::nuclei(slide, tmp("nuc_bad"), o), InvalidArgument);
  o = nopts(256);
  o.peak_footprint = -1;
  EXPECT_THROW(tiled::nuclei(slide, tmp("nuc_bad"), o), InvalidArgument);
  o = nopts(256);
  o.split_extent = -1;
  EXPECT_THROW(tiled::nuclei(slide, tmp("nuc_bad"), o), InvalidArgument);
  EXPECT_THROW(tiled::write_synthetic_slide(tmp("nuc_bad.svs"), 128, 128, 1, 1.5), InvalidArgument);
  EXPECT_THROW(tiled::write_synthetic_slide(tmp("nuc_bad.svs"), 128, 128, 1, -0.1), InvalidArgument);
}

// The CUDA watershed equals the CPU flood except on plateau ties (include/cuskimage/segmentation/
// watershed.hpp): the object count agrees within 1 %, and the device run is tiling-exact itself.
TEST(GpuTiledNuclei, SplitDeviceMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const auto slide = wsi::Slide::open(small_slide().path);
  const tiled::NucleiReport cpu = tiled::nuclei(slide, tmp("gnuc_cpu"), nopts(200));
  const tiled::NucleiReport gpu = tiled::nuclei(slide, tmp("gnuc_gpu"), nopts(200, tiled::NucleiSplit::watershed, Device::cuda()));
  EXPECT_EQ(gpu.threshold, cpu.threshold);
  EXPECT_LE(std::abs(static_cast<double>(gpu.objects - cpu.objects)), 0.01 * static_cast<double>(cpu.objects))
      << "gpu " << gpu.objects << " cpu " << cpu.objects;
  const tiled::NucleiReport whole =
      tiled::nuclei(slide, tmp("gnuc_whole"), nopts(1024, tiled::NucleiSplit::watershed, Device::cuda()));
  expect_same_csv(gpu.csv, whole.csv, "gpu tiled vs gpu whole");
  // Without the split: the same objects up to float32 rounding of the Gaussian at the threshold.
  const tiled::NucleiReport cn = tiled::nuclei(slide, tmp("gnuc_cn"), nopts(200, tiled::NucleiSplit::none));
  const tiled::NucleiReport gn =
      tiled::nuclei(slide, tmp("gnuc_gn"), nopts(200, tiled::NucleiSplit::none, Device::cuda()));
  EXPECT_LE(std::abs(static_cast<double>(gn.objects - cn.objects)), 0.005 * static_cast<double>(cn.objects));
  EXPECT_LT(gn.objects, gpu.objects);
}

}  // namespace
