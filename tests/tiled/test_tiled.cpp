// The tiled engine: tiled results equal whole-image results (labels numbered as scikit-image's
// label numbers them after remove_small_objects, and the per-object table), across tile sizes,
// halos and connectivities, with objects crossing 2x2 and 3x3 tile corners; background skipping;
// checkpoint resume; the label pyramid; bad input; the CUDA backend against the CPU one.
#include <gtest/gtest.h>
#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <random>
#include <sstream>

#include "cuskimage/error.hpp"
#include "cuskimage/filters.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/tiled.hpp"
#include "cuskimage/wsi.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
namespace fs = std::filesystem;

/// RGB test image: red discs and rings on a saturated purple "tissue", grey (unsaturated) glass in
/// the `glass` leftmost columns, plus shapes placed on the tile corners of a `T` grid: a ring around
/// the (T, T) corner (2x2 tiles), a plus spanning a 3x3 block of tiles, and two pixels touching only
/// diagonally across the (2T, T) corner.
Array make_image(std::int64_t h, std::int64_t w, std::int64_t T, std::int64_t glass, unsigned seed) {
  Array img = Array::empty({h, w, 3}, DType::uint8);
  std::uint8_t* p = img.data<std::uint8_t>();
  std::mt19937 rng(seed);
  std::vector<std::uint8_t> fg(static_cast<std::size_t>(h * w), 0);
  auto set = [&](std::int64_t y, std::int64_t x) {
    if (y >= 0 && x >= 0 && y < h && x < w) fg[y * w + x] = 1;
  };
  std::uniform_int_distribution<std::int64_t> ry(0, h - 1), rx(glass, w - 1);
  std::uniform_int_distribution<int> rr(1, 9);
  for (int k = 0; k < 60; ++k) {
    const std::int64_t cy = ry(rng), cx = rx(rng);
    const int r = rr(rng);
    for (std::int64_t y = cy - r; y <= cy + r; ++y)
      for (std::int64_t x = cx - r; x <= cx + r; ++x)
        if ((y - cy) * (y - cy) + (x - cx) * (x - cx) <= r * r) set(y, x);
  }
  for (std::int64_t y = T - 12; y <= T + 12; ++y)  // ring around the (T, T) corner
    for (std::int64_t x = T - 12; x <= T + 12; ++x) {
      const std::int64_t d = (y - T) * (y - T) + (x - T) * (x - T);
      if (d >= 64 && d <= 121) set(y, x);
    }
  for (std::int64_t t = T / 2; t < 2 * T + T / 2; ++t) {  // plus over tiles (0..2, 0..2)
    set(T + T / 2, t);
    set(t, T + T / 2);
  }
  set(2 * T - 1, T - 1);  // diagonal only across the (2T, T) corner
  set(2 * T, T);
  std::uniform_int_distribution<int> noise(0, 20);
  for (std::int64_t i = 0; i < h * w; ++i) {
    const bool g = (i % w) < glass;
    std::uint8_t* q = p + 3 * i;
    if (fg[i]) {
      q[0] = static_cast<std::uint8_t>(200 + noise(rng));
      q[1] = 40;
      q[2] = 60;
    } else if (g) {
      q[0] = q[1] = q[2] = static_cast<std::uint8_t>(110 + noise(rng));  // grey: no saturation
    } else {
      q[0] = static_cast<std::uint8_t>(100 + noise(rng));
      q[1] = 60;
      q[2] = 110;
    }
  }
  return img;
}

/// Foreground: the red channel above 150 (no context: halo 0).
Array red_mask(const Array& rgb, const Stream& s) {
  const Array r = rgb.index(2, 0).astype(DType::float64, s);
  Array m = filters::apply_hysteresis_threshold(r, 150.0, 150.0, s);  // r > 150
  return m;
}

/// Foreground with context: a Gaussian (sigma 1.5, radius 6) of the red channel above 128.
Array smooth_mask(const Array& rgb, const Stream& s) {
  const Array r = rgb.index(2, 0).astype(DType::float64, s);
  filters::GaussianOptions go;
  go.sigma = 1.5;
  go.preserve_range = true;
  const Array g = filters::gaussian(r, go, s);
  return filters::apply_hysteresis_threshold(g, 128.0, 128.0, s);
}

Array red_intensity(const Array& rgb, const Stream& s) { return rgb.index(2, 0).astype(DType::float32, s); }

/// The whole-image reference: label(remove_small_objects(mask, max_size)).
Array whole_labels(const Array& mask, int conn, std::int64_t max_size) {
  measure::LabelOptions lo;
  lo.connectivity = conn;
  lo.dtype = DType::int64;
  Array m = mask.to(Device::cpu());
  if (max_size > 0) {
    morphology::RemoveSmallObjectsOptions ro;
    ro.max_size = max_size;
    ro.connectivity = conn;
    m = morphology::remove_small_objects(m, ro);
  }
  return measure::label(m, lo);
}

/// Objects of a label image measured directly (the oracle for Result::objects()).
std::vector<tiled::Object> measure_whole(const Array& lab, const Array* inten) {
  const std::int64_t h = lab.shape(0), w = lab.shape(1);
  const std::int64_t* l = lab.data<std::int64_t>();
  std::int64_t n = 0;
  for (std::int64_t i = 0; i < h * w; ++i) n = std::max(n, l[i]);
  std::vector<tiled::Object> obs(static_cast<std::size_t>(n));
  std::vector<double> sy(n, 0), sx(n, 0), si(n, 0);
  for (std::int64_t k = 0; k < n; ++k) {
    obs[k].label = k + 1;
    obs[k].bbox_min_y = obs[k].bbox_min_x = INT64_MAX;
  }
  const Array fi = inten ? inten->astype(DType::float64) : Array();
  for (std::int64_t y = 0; y < h; ++y)
    for (std::int64_t x = 0; x < w; ++x) {
      const std::int64_t v = l[y * w + x];
      if (v == 0) continue;
      auto& o = obs[v - 1];
      ++o.area;
      sy[v - 1] += y;
      sx[v - 1] += x;
      if (inten) si[v - 1] += fi.data<double>()[y * w + x];
      o.bbox_min_y = std::min(o.bbox_min_y, y);
      o.bbox_min_x = std::min(o.bbox_min_x, x);
      o.bbox_max_y = std::max(o.bbox_max_y, y + 1);
      o.bbox_max_x = std::max(o.bbox_max_x, x + 1);
    }
  for (std::int64_t k = 0; k < n; ++k) {
    obs[k].centroid_y = sy[k] / obs[k].area;
    obs[k].centroid_x = sx[k] / obs[k].area;
    obs[k].intensity_mean = si[k] / obs[k].area;
  }
  return obs;
}

void expect_same(const tiled::Result& r, const Array& want_labels, const Array* inten, const std::string& what) {
  const Array got = r.labels(0, 0, r.width(), r.height());
  ASSERT_EQ(got.shape(), want_labels.shape()) << what;
  const std::int64_t* g = got.data<std::int64_t>();
  const std::int64_t* w = want_labels.data<std::int64_t>();
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < got.size(); ++i) bad += g[i] != w[i];
  EXPECT_EQ(bad, 0) << what << ": labels differ at " << bad << " pixels";
  const auto want = measure_whole(want_labels, inten);
  ASSERT_EQ(r.objects().size(), want.size()) << what;
  for (std::size_t k = 0; k < want.size(); ++k) {
    const auto &a = r.objects()[k], &b = want[k];
    EXPECT_EQ(a.label, b.label);
    EXPECT_EQ(a.area, b.area) << what << " object " << b.label;
    EXPECT_NEAR(a.centroid_y, b.centroid_y, 1e-9 * std::abs(b.centroid_y) + 1e-12);
    EXPECT_NEAR(a.centroid_x, b.centroid_x, 1e-9 * std::abs(b.centroid_x) + 1e-12);
    EXPECT_EQ(a.bbox_min_y, b.bbox_min_y);
    EXPECT_EQ(a.bbox_min_x, b.bbox_min_x);
    EXPECT_EQ(a.bbox_max_y, b.bbox_max_y);
    EXPECT_EQ(a.bbox_max_x, b.bbox_max_x);
    if (inten) EXPECT_NEAR(a.intensity_mean, b.intensity_mean, 1e-9 * std::abs(b.intensity_mean));
  }
}

tiled::Options opts(std::int64_t tile, int conn, std::int64_t max_size, Device dev = Device::cpu()) {
  tiled::Options o;
  o.tile_size = tile;
  o.connectivity = conn;
  o.max_size = max_size;
  o.skip_background = false;
  o.device = dev;
  o.progress = false;
  o.lanes = 3;
  return o;
}

TEST(Tiled, EqualsWholeImageAcrossTileSizesAndConnectivity) {
  const Array img = make_image(300, 420, 64, 0, 1);
  const Array mask = red_mask(img, Stream());
  const Array inten = red_intensity(img, Stream());
  tiled::Pipeline p{.halo = 0,
                    .mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) { return red_mask(rgb, s); },
                    .intensity = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) {
                      return red_intensity(rgb, s);
                    }};
  for (std::int64_t tile : {64, 100, 128, 512})
    for (int conn : {1, 2})
      for (std::int64_t max_size : {0, 20}) {
        const auto r = tiled::run(img, p, opts(tile, conn, max_size));
        EXPECT_TRUE(r.complete());
        EXPECT_EQ(r.tiles_total(), ((300 + tile - 1) / tile) * ((420 + tile - 1) / tile));
        std::ostringstream what;
        what << "tile " << tile << " conn " << conn << " max_size " << max_size;
        expect_same(r, whole_labels(mask, conn, max_size), &inten, what.str());
      }
}

TEST(Tiled, CornerObjectsJoinExactlyUnderConnectivity) {
  // With T = 64: the ring spans tiles (0..1, 0..1), the plus spans (0..2, 0..2); the diagonal pair
  // at (127, 63) / (128, 64) joins only under connectivity 2.
  const Array img = make_image(200, 200, 64, 0, 2);
  const Array mask = red_mask(img, Stream());
  tiled::Pipeline p{.mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) { return red_mask(rgb, s); }};
  for (int conn : {1, 2}) {
    const auto r = tiled::run(img, p, opts(64, conn, 0));
    const Array whole = whole_labels(mask, conn, 0);
    expect_same(r, whole, nullptr, "corners conn " + std::to_string(conn));
    const Array lab = r.labels(0, 0, 200, 200);
    const std::int64_t a = lab.at<std::int64_t>({127, 63}), b = lab.at<std::int64_t>({128, 64});
    if (whole.at<std::int64_t>({127, 62}) == 0 && whole.at<std::int64_t>({126, 63}) == 0 &&
        whole.at<std::int64_t>({128, 65}) == 0 && whole.at<std::int64_t>({129, 64}) == 0) {
      EXPECT_EQ(a == b, conn == 2) << "diagonal corner pair";
    }
  }
}

TEST(Tiled, HaloGivesExactResultsForAFilterWithContext) {
  const Array img = make_image(260, 330, 80, 0, 3);
  const Array mask = smooth_mask(img, Stream());
  tiled::Pipeline p{.halo = 6,
                    .mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) { return smooth_mask(rgb, s); }};
  for (std::int64_t tile : {80, 97}) {
    const auto r = tiled::run(img, p, opts(tile, 2, 5));
    expect_same(r, whole_labels(mask, 2, 5), nullptr, "halo 6 tile " + std::to_string(tile));
  }
  // Too small a halo changes pixels near tile borders: the test above can fail.
  tiled::Pipeline short_halo = p;
  short_halo.halo = 1;
  const auto r = tiled::run(img, short_halo, opts(80, 2, 5));
  const Array got = r.labels(0, 0, r.width(), r.height());
  const Array want = whole_labels(mask, 2, 5);
  std::int64_t diff = 0;
  for (std::int64_t i = 0; i < got.size(); ++i) diff += (got.data<std::int64_t>()[i] != 0) != (want.data<std::int64_t>()[i] != 0);
  EXPECT_GT(diff, 0) << "halo 1 for a radius-6 Gaussian should differ somewhere";
}

TEST(Tiled, BackgroundSkippingKeepsEveryObjectInTissue) {
  // Glass (unsaturated white) over the left 160 columns: those tiles are skipped; objects lie in tissue.
  const Array img = make_image(256, 512, 1000000, 160, 4);
  const Array mask = red_mask(img, Stream());
  tiled::Pipeline p{.mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) { return red_mask(rgb, s); }};
  auto o = opts(64, 2, 0);
  o.skip_background = true;
  const auto r = tiled::run(img, p, o);
  EXPECT_LT(r.tiles_processed(), r.tiles_total());
  EXPECT_GE(r.tiles_processed(), 4 * 6);  // columns 192.. are tissue: at least 6 tile columns x 4 rows
  const bool* tm = r.tile_mask().data<bool>();
  EXPECT_FALSE(tm[0]);  // tile (0, 0) is glass
  EXPECT_TRUE(tm[7]);   // tile (0, 7) is tissue
  expect_same(r, whole_labels(mask, 2, 0), nullptr, "background skipping");
}

TEST(Tiled, KilledRunResumesFromCheckpointsWithIdenticalOutputs) {
  const Array img = make_image(300, 300, 64, 0, 5);
  tiled::Pipeline p{.mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) { return red_mask(rgb, s); },
                    .intensity = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) {
                      return red_intensity(rgb, s);
                    }};
  const fs::path dir = fs::path(CUSK_TEST_TMP_DIR) / "tiled_resume";
  fs::remove_all(dir);
  auto o = opts(64, 2, 3);
  o.checkpoint_dir = dir.string();
  o.stop_after = 7;
  const auto cut = tiled::run(img, p, o);
  EXPECT_FALSE(cut.complete());
  EXPECT_EQ(cut.tiles_computed(), 7);
  EXPECT_THROW(cut.labels(0, 0, 1, 1), InvalidArgument);
  o.stop_after = -1;
  const auto resumed = tiled::run(img, p, o);
  EXPECT_TRUE(resumed.complete());
  EXPECT_EQ(resumed.tiles_computed(), resumed.tiles_processed() - 7);
  const auto fresh = tiled::run(img, p, opts(64, 2, 3));
  const std::string a = (dir / "a.csv").string(), b = (dir / "b.csv").string();
  resumed.write_csv(a);
  fresh.write_csv(b);
  std::ifstream fa(a), fb(b);
  const std::string sa((std::istreambuf_iterator<char>(fa)), {}), sb((std::istreambuf_iterator<char>(fb)), {});
  EXPECT_EQ(sa, sb);
  EXPECT_GT(std::count(sa.begin(), sa.end(), '\n'), 10);
  const Array la = resumed.labels(0, 0, 300, 300), lb = fresh.labels(0, 0, 300, 300);
  EXPECT_TRUE(std::equal(la.data<std::int64_t>(), la.data<std::int64_t>() + la.size(), lb.data<std::int64_t>()));
  // A checkpoint directory of another run is refused.
  auto other = o;
  other.tile_size = 100;
  EXPECT_THROW(tiled::run(img, p, other), InvalidArgument);
  fs::remove_all(dir);
}

TEST(Tiled, LabelTiffHoldsLabelsAndModeLevels) {
  const Array img = make_image(300, 520, 64, 0, 6);
  tiled::Pipeline p{.mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) { return red_mask(rgb, s); }};
  const auto r = tiled::run(img, p, opts(128, 2, 0));
  const std::string path = (fs::path(CUSK_TEST_TMP_DIR) / "tiled_labels.tif").string();
  r.write_label_tiff(path, 64);
  const Array lab = r.labels(0, 0, 520, 300);
  TIFF* t = TIFFOpen(path.c_str(), "r");
  ASSERT_NE(t, nullptr);
  // Level 0, then each level is the 2x2 mode (ties to the smaller label) of the one before.
  std::vector<std::int64_t> want(lab.data<std::int64_t>(), lab.data<std::int64_t>() + lab.size());
  std::int64_t w = 520, h = 300;
  int levels = 0;
  do {
    uint32_t tw = 0, th = 0, iw = 0, ih = 0;
    uint16_t bps = 0;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &iw);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &ih);
    TIFFGetField(t, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(t, TIFFTAG_TILELENGTH, &th);
    TIFFGetField(t, TIFFTAG_BITSPERSAMPLE, &bps);
    ASSERT_EQ(iw, w);
    ASSERT_EQ(ih, h);
    ASSERT_EQ(bps, 32);
    std::vector<std::uint32_t> tile(static_cast<std::size_t>(tw) * th);
    std::int64_t bad = 0;
    for (std::int64_t y0 = 0; y0 < h; y0 += th)
      for (std::int64_t x0 = 0; x0 < w; x0 += tw) {
        ASSERT_GT(TIFFReadTile(t, tile.data(), static_cast<uint32_t>(x0), static_cast<uint32_t>(y0), 0, 0), 0);
        for (std::int64_t y = y0; y < std::min<std::int64_t>(h, y0 + th); ++y)
          for (std::int64_t x = x0; x < std::min<std::int64_t>(w, x0 + tw); ++x)
            bad += tile[(y - y0) * tw + (x - x0)] != static_cast<std::uint32_t>(want[y * w + x]);
      }
    EXPECT_EQ(bad, 0) << "level " << levels;
    ++levels;
    const std::int64_t w2 = (w + 1) / 2, h2 = (h + 1) / 2;
    std::vector<std::int64_t> next(static_cast<std::size_t>(w2 * h2));
    for (std::int64_t y = 0; y < h2; ++y)
      for (std::int64_t x = 0; x < w2; ++x) {
        std::map<std::int64_t, int> count;
        for (std::int64_t dy = 0; dy < 2; ++dy)
          for (std::int64_t dx = 0; dx < 2; ++dx)
            if (2 * y + dy < h && 2 * x + dx < w) ++count[want[(2 * y + dy) * w + 2 * x + dx]];
        std::int64_t best = 0;
        int bn = 0;
        for (auto [v, c] : count)
          if (c > bn) best = v, bn = c;  // map order: ties keep the smaller label
        next[y * w2 + x] = best;
      }
    want.swap(next);
    w = w2;
    h = h2;
  } while (TIFFReadDirectory(t));
  TIFFClose(t);
  EXPECT_EQ(levels, 5);  // 520x300 -> 260x150 -> 130x75 -> 65x38 -> 33x19 (fits one 64 tile)
}

TEST(Tiled, GeoJsonOutlinesEqualWholeImageContours) {
  // Tile 64: many objects cross tiles, so both outline paths (one tile, assembled crop) are used.
  const Array img = make_image(256, 320, 64, 0, 10);
  tiled::Pipeline p{.mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) { return red_mask(rgb, s); }};
  const auto r = tiled::run(img, p, opts(64, 2, 0));
  const std::string path = (fs::path(CUSK_TEST_TMP_DIR) / "tiled.geojson").string();
  r.write_geojson(path);
  std::ifstream f(path);
  const std::string text((std::istreambuf_iterator<char>(f)), {});
  const Array whole = whole_labels(red_mask(img, Stream()), 2, 0);
  std::size_t found = 0, crossing = 0;
  for (const auto& o : r.objects()) {
    // The expected ring: the longest 0.5-contour of the object's mask in its bbox plus a ring of 0.
    const std::int64_t y0 = o.bbox_min_y - 1, x0 = o.bbox_min_x - 1;
    const std::int64_t h = o.bbox_max_y - o.bbox_min_y + 2, w = o.bbox_max_x - o.bbox_min_x + 2;
    Array m = Array::zeros({h, w}, DType::uint8);
    for (std::int64_t y = 1; y < h - 1; ++y)
      for (std::int64_t x = 1; x < w - 1; ++x)
        m.data<std::uint8_t>()[y * w + x] = whole.at<std::int64_t>({y0 + y, x0 + x}) == o.label;
    measure::FindContoursOptions fo;
    fo.level = 0.5;
    const auto cs = measure::find_contours(m, fo);
    ASSERT_FALSE(cs.empty());
    const Array* best = &cs[0];
    for (const Array& c : cs)
      if (c.shape(0) > best->shape(0)) best = &c;
    std::ostringstream ring;
    ring << std::setprecision(10);
    for (std::int64_t k = 0; k < best->shape(0); ++k)
      ring << (k ? "," : "") << '[' << best->data<double>()[2 * k + 1] + x0 << ',' << best->data<double>()[2 * k] + y0 << ']';
    const std::string want = "\"coordinates\":[[" + ring.str() + "]]},\"properties\":{\"objectType\":\"detection\",\"name\":\"nucleus " +
                             std::to_string(o.label) + "\"";
    found += text.find(want) != std::string::npos;
    crossing += o.bbox_min_y / 64 != (o.bbox_max_y - 1) / 64 || o.bbox_min_x / 64 != (o.bbox_max_x - 1) / 64;
  }
  EXPECT_EQ(found, r.objects().size());
  EXPECT_GT(crossing, 3u);
  std::size_t features = 0;
  for (std::size_t at = 0; (at = text.find("\"objectType\":\"detection\"", at)) != std::string::npos; ++at) ++features;
  EXPECT_EQ(features, r.objects().size());
}

TEST(Tiled, SlideSourceEqualsWholeLevel) {
  const Array img = make_image(384, 448, 128, 0, 7);
  const std::string path = (fs::path(CUSK_TEST_TMP_DIR) / "tiled_slide.tif").string();
  wsi::PyramidOptions po;
  po.compression = "deflate";
  po.tile_size = 128;
  wsi::write_pyramid(path, img, po);
  const auto slide = wsi::Slide::open(path);
  tiled::Pipeline p{.mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) { return red_mask(rgb, s); }};
  const auto r = tiled::run(slide, p, opts(100, 2, 4));
  expect_same(r, whole_labels(red_mask(img, Stream()), 2, 4), nullptr, "slide source");
  // Level 1 (the 2x2-mean level) also tiles exactly.
  auto o1 = opts(64, 2, 0);
  o1.level = 1;
  const auto r1 = tiled::run(slide, p, o1);
  const Array l1 = slide.read_region(0, 0, 1, slide.level(1).width, slide.level(1).height);
  expect_same(r1, whole_labels(red_mask(l1, Stream()), 2, 0), nullptr, "slide level 1");
}

TEST(Tiled, StridedViewEqualsItsContiguousCopy) {
  const Array big = make_image(310, 430, 64, 0, 11);
  const Array view = big.slice({Slice{3, 303}, Slice{5, 425, 1}, Slice{}});  // an interior crop: strided
  ASSERT_FALSE(view.is_contiguous());
  tiled::Pipeline p{.mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) { return red_mask(rgb, s); }};
  const auto a = tiled::run(view, p, opts(64, 2, 3));
  const auto b = tiled::run(view.copy(), p, opts(64, 2, 3));
  expect_same(a, whole_labels(red_mask(view.copy(), Stream()), 2, 3), nullptr, "strided view");
  const Array la = a.labels(0, 0, 420, 300), lb = b.labels(0, 0, 420, 300);
  EXPECT_TRUE(std::equal(la.data<std::int64_t>(), la.data<std::int64_t>() + la.size(), lb.data<std::int64_t>()));
}

TEST(Tiled, BadInputThrows) {
  const Array img = make_image(64, 64, 32, 0, 8);
  tiled::Pipeline p{.mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) { return red_mask(rgb, s); }};
  EXPECT_THROW(tiled::run(img, tiled::Pipeline{}, opts(32, 2, 0)), InvalidArgument);
  EXPECT_THROW(tiled::run(img, p, opts(8, 2, 0)), InvalidArgument);
  EXPECT_THROW(tiled::run(img, p, opts(32, 3, 0)), InvalidArgument);
  EXPECT_THROW(tiled::run(img, p, opts(32, 2, -1)), InvalidArgument);
  tiled::Pipeline neg = p;
  neg.halo = -1;
  EXPECT_THROW(tiled::run(img, neg, opts(32, 2, 0)), InvalidArgument);
  tiled::Pipeline wrong{.mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) {
    return red_mask(rgb, s).slice({Slice{0, 4}, Slice{}});
  }};
  EXPECT_THROW(tiled::run(img, wrong, opts(32, 2, 0)), InvalidArgument);
  EXPECT_THROW(tiled::run(img.index(2, 0), p, opts(32, 2, 0)), InvalidArgument);
  const auto r = tiled::run(img, p, opts(32, 2, 0));
  EXPECT_THROW(r.labels(0, 0, 65, 1), InvalidArgument);
  EXPECT_THROW(r.write_label_tiff("/nonexistent-dir/x.tif", 256), FormatError);
  EXPECT_THROW(r.write_label_tiff("x.tif", 100), InvalidArgument);
}

TEST(GpuTiled, DeviceRunEqualsCpuRun) {
  CUSK_REQUIRE_GPU();
  const Array img = make_image(300, 420, 64, 0, 9);
  tiled::Pipeline p{.halo = 6,
                    .mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) { return smooth_mask(rgb, s); },
                    .intensity = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) {
                      return red_intensity(rgb, s);
                    }};
  for (int conn : {1, 2}) {
    const auto cpu = tiled::run(img, p, opts(100, conn, 6));
    const auto gpu = tiled::run(img, p, opts(100, conn, 6, Device::cuda()));
    const Array a = cpu.labels(0, 0, 420, 300), b = gpu.labels(0, 0, 420, 300);
    EXPECT_TRUE(std::equal(a.data<std::int64_t>(), a.data<std::int64_t>() + a.size(), b.data<std::int64_t>()));
    ASSERT_EQ(cpu.objects().size(), gpu.objects().size());
    for (std::size_t k = 0; k < cpu.objects().size(); ++k) {
      EXPECT_EQ(cpu.objects()[k].area, gpu.objects()[k].area);
      EXPECT_NEAR(cpu.objects()[k].intensity_mean, gpu.objects()[k].intensity_mean, 1e-9);
    }
    // Against the whole image on the device too.
    const Array dimg = img.to(Device::cuda());
    const Array mask = smooth_mask(dimg, Stream()).to(Device::cpu());
    expect_same(gpu, whole_labels(mask, conn, 6), nullptr, "gpu conn " + std::to_string(conn));
  }
}

}  // namespace
