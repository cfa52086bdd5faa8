// wsi: Slide::open / read_region / read_regions / write_pyramid on slides generated here (the
// project's writer, libvips when installed), compared with OpenSlide 3.4 (bit-exact, when
// libopenslide was found at configure time), with libtiff's own RGBA decoding (always), and with
// the source pixels for lossless codecs. Malformed files must raise FormatError.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <atomic>
#include <cstring>
#include <functional>
#include <iostream>
#include <random>
#include <thread>
#include <filesystem>
#include <tuple>
#include <set>

#include "cuskimage/tuning.hpp"
#include "src/wsi/wsi_detail.hpp"
#include "src/wsi/ycc.hpp"
#include "tests/wsi/wsi_fixtures.hpp"

namespace {

using namespace cusktest::wsi;
using cuskimage::FormatError;
using cuskimage::InvalidArgument;
using cuskimage::wsi::PyramidOptions;
using cuskimage::wsi::ReadOptions;
using cuskimage::wsi::Region;
using cuskimage::wsi::Slide;

// ---- shared fixtures ---------------------------------------------------------------------------------
struct Fixtures {
  Array image;         // 1000 x 1300 RGB, not a multiple of the tile sizes
  Array label, macro;  // associated images
  std::string jpeg256, jpeg240_rgb, svs, bigtiff, subifd, deflate, lzw, none, zstd, webp;
  std::string vips_jpeg, vips_subifd, vips_big;
  std::string jpeg422, jpeg444;
};

const Fixtures& fx() {
  static const Fixtures f = [] {
    Fixtures f;
    f.image = synthetic_rgb(1000, 1300, 7);
    f.label = synthetic_rgb(120, 100, 3);
    f.macro = synthetic_rgb(150, 400, 5);
    f.jpeg256 = make_slide("jpeg256", f.image, {.tile_size = 256, .compression = "jpeg", .quality = 80, .mpp = 0.25});
    f.jpeg240_rgb = make_slide("jpeg240rgb", f.image, {.tile_size = 240, .compression = "jpeg", .quality = 90, .jpeg_colorspace = "rgb"});
    PyramidOptions svs{.tile_size = 240, .compression = "jpeg", .quality = 70, .aperio = true, .mpp = 0.499, .objective_power = 20};
    svs.associated = {{"label", &f.label}, {"macro", &f.macro}};
    f.svs = make_slide("svs", f.image, svs);
    f.bigtiff = make_slide("big", f.image, {.tile_size = 256, .compression = "jpeg", .bigtiff = true});
    f.subifd = make_slide("subifd", f.image, {.tile_size = 256, .compression = "jpeg", .subifds = true});
    f.deflate = make_slide("deflate", f.image, {.tile_size = 256, .compression = "deflate"});
    f.lzw = make_slide("lzw", f.image, {.tile_size = 240, .compression = "lzw"});
    f.none = make_slide("none", f.image, {.tile_size = 256, .compression = "none"});
    f.zstd = make_slide("zstd", f.image, {.tile_size = 256, .compression = "zstd"});
    f.webp = make_slide("webp", f.image, {.tile_size = 256, .compression = "webp", .quality = 90});
    f.jpeg422 = make_slide("jpeg422", f.image, {.tile_size = 256, .compression = "jpeg", .quality = 85, .ycbcr_subsampling = {2, 1}});
    f.jpeg444 = make_slide("jpeg444", f.image, {.tile_size = 256, .compression = "jpeg", .quality = 85, .ycbcr_subsampling = {1, 1}});
    f.vips_jpeg = make_vips_slide("jpeg", f.image, "--compression jpeg --Q 80 --tile-width 240 --tile-height 240");
    f.vips_subifd = make_vips_slide("subifd", f.image, "--compression jpeg --Q 85 --tile-width 256 --tile-height 256 --subifd");
    f.vips_big = make_vips_slide("big", f.image, "--compression deflate --bigtiff --tile-width 256 --tile-height 256");
    return f;
  }();
  return f;
}

/// The 2x2 mean pyramid step of the writer (rounded half up, edge blocks average what they have).
Array halve(const Array& a) {
  const std::int64_t h = a.shape(0), w = a.shape(1), oh = (h + 1) / 2, ow = (w + 1) / 2;
  Array o = Array::empty({oh, ow, 3}, DType::uint8);
  const auto* s = static_cast<const std::uint8_t*>(a.data());
  auto* d = static_cast<std::uint8_t*>(o.data());
  for (std::int64_t y = 0; y < oh; ++y)
    for (std::int64_t x = 0; x < ow; ++x)
      for (int c = 0; c < 3; ++c) {
        unsigned sum = 0, n = 0;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx)
            if (2 * y + dy < h && 2 * x + dx < w) sum += s[((2 * y + dy) * w + 2 * x + dx) * 3 + c], ++n;
        d[(y * ow + x) * 3 + c] = static_cast<std::uint8_t>((sum + n / 2) / n);
      }
  return o;
}

/// Host crop of an (h, w, c) array with zero fill outside.
Array crop(const Array& a, std::int64_t x, std::int64_t y, std::int64_t w, std::int64_t h) {
  const std::int64_t c = a.shape(2);
  Array o = Array::zeros({h, w, c}, DType::uint8);
  const auto* s = static_cast<const std::uint8_t*>(a.data());
  auto* d = static_cast<std::uint8_t*>(o.data());
  for (std::int64_t r = 0; r < h; ++r)
    for (std::int64_t q = 0; q < w; ++q)
      if (y + r >= 0 && y + r < a.shape(0) && x + q >= 0 && x + q < a.shape(1))
        for (std::int64_t k = 0; k < c; ++k) d[(r * w + q) * c + k] = s[((y + r) * a.shape(1) + x + q) * c + k];
  return o;
}

/// One level decoded by libtiff's RGBA interface (an independent JPEG path: libtiff's codec).
Array libtiff_level(const std::string& path, int dir, bool subifd_index = false, int subifd = 0) {
  TIFF* t = TIFFOpen(path.c_str(), "r");
  EXPECT_TRUE(t);
  if (subifd_index) {
    std::uint16_t n = 0;
    std::uint64_t* offs = nullptr;
    TIFFGetField(t, TIFFTAG_SUBIFD, &n, &offs);
    const std::uint64_t off = offs[subifd];
    TIFFSetSubDirectory(t, off);
  } else {
    TIFFSetDirectory(t, static_cast<tdir_t>(dir));
  }
  std::uint32_t w = 0, h = 0;
  TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w);
  TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h);
  std::vector<std::uint32_t> raster(std::size_t(w) * h);
  EXPECT_TRUE(TIFFReadRGBAImageOriented(t, w, h, raster.data(), ORIENTATION_TOPLEFT, 0));
  TIFFClose(t);
  Array o = Array::empty({h, w, 3}, DType::uint8);
  auto* d = static_cast<std::uint8_t*>(o.data());
  for (std::size_t i = 0; i < raster.size(); ++i)
    d[3 * i] = TIFFGetR(raster[i]), d[3 * i + 1] = TIFFGetG(raster[i]), d[3 * i + 2] = TIFFGetB(raster[i]);
  return o;
}

Array whole_level(const Slide& s, int level, const ReadOptions& opt = {}) {
  const auto& l = s.level(level);
  return s.read_region(0, 0, level, l.width, l.height, opt);
}

// ---- structure -------------------------------------------------------------------------------------------
TEST(Wsi, OpenGenericPyramid) {
  const Slide s = Slide::open(fx().jpeg256);
  EXPECT_EQ(s.vendor(), "generic-tiff");
  ASSERT_EQ(s.level_count(), 4);  // 1300x1000 -> 650x500 -> 325x250 -> 163x125
  EXPECT_EQ(s.level(0).width, 1300);
  EXPECT_EQ(s.level(0).height, 1000);
  EXPECT_EQ(s.level(1).width, 650);
  EXPECT_EQ(s.level(3).width, 163);
  EXPECT_EQ(s.level(3).height, 125);
  EXPECT_DOUBLE_EQ(s.level(1).downsample, 2.0);
  EXPECT_DOUBLE_EQ(s.level(3).downsample, (1000.0 / 125 + 1300.0 / 163) / 2);
  EXPECT_EQ(s.level(0).tile_width, 256);
  EXPECT_EQ(s.property("openslide.vendor"), "generic-tiff");
  EXPECT_EQ(s.property("openslide.level-count"), "4");
  EXPECT_EQ(s.property("openslide.level[1].downsample"), "2");
  EXPECT_EQ(s.property("openslide.mpp-x"), "0.25");
  EXPECT_EQ(s.property("tiff.ResolutionUnit"), "centimeter");
  EXPECT_EQ(s.best_level_for_downsample(0.5), 0);
  EXPECT_EQ(s.best_level_for_downsample(3.0), 1);
  EXPECT_EQ(s.best_level_for_downsample(100.0), 3);
  EXPECT_EQ(s.dimensions()[0], 1300);
  EXPECT_TRUE(s.associated_image_names().empty());
}

TEST(Wsi, OpenAperioSvs) {
  const Slide s = Slide::open(fx().svs);
  EXPECT_EQ(s.vendor(), "aperio");
  EXPECT_EQ(s.level_count(), 4);
  EXPECT_EQ(s.level(0).tile_width, 240);
  EXPECT_EQ(s.property("aperio.AppMag"), "20");
  EXPECT_EQ(s.property("aperio.MPP"), "0.499");
  EXPECT_EQ(s.property("openslide.mpp-x"), "0.499");
  EXPECT_EQ(s.property("openslide.objective-power"), "20");
  const auto names = s.associated_image_names();
  EXPECT_EQ(names, (std::vector<std::string>{"label", "macro", "thumbnail"}));
  const Array label = s.read_associated_image("label");
  EXPECT_ARRAY_EQ(fx().label, label);  // LZW: lossless
  const Array macro = s.read_associated_image("macro");
  EXPECT_EQ(macro.shape(), (cuskimage::Shape{150, 400, 3}));
  EXPECT_THROW(s.read_associated_image("nope"), InvalidArgument);
}

TEST(Wsi, SubIfdAndBigTiffPyramids) {
  for (const std::string& p : {fx().subifd, fx().bigtiff}) {
    const Slide s = Slide::open(p);
    ASSERT_EQ(s.level_count(), 4) << p;
    EXPECT_EQ(s.level(2).width, 325);
    EXPECT_ARRAY_EQ(whole_level(Slide::open(fx().jpeg256), 2), whole_level(s, 2));
  }
}

// ---- pixels ----------------------------------------------------------------------------------------------
TEST(Wsi, LosslessCodecsEqualSource) {
  const Array l1 = halve(fx().image);
  const Array l2 = halve(l1);
  for (const std::string& p : {fx().deflate, fx().lzw, fx().none, fx().zstd}) {
    const Slide s = Slide::open(p);
    EXPECT_ARRAY_EQ(fx().image, whole_level(s, 0)) << p;
    EXPECT_ARRAY_EQ(l1, whole_level(s, 1)) << p;
    EXPECT_ARRAY_EQ(l2, whole_level(s, 2)) << p;
    // Unaligned region straddling four tiles and the right edge.
    EXPECT_ARRAY_EQ(crop(fx().image, 1200, 230, 150, 60), s.read_region(1200, 230, 0, 150, 60)) << p;
  }
}

TEST(Wsi, WebpCloseToSource) {
  const Slide s = Slide::open(fx().webp);
  // Lossy WebP at quality 90: mean absolute error of a few levels on this noisy image.
  const auto a = fx().image.to_vector<double>(), b = whole_level(s, 0).to_vector<double>();
  ASSERT_EQ(a.size(), b.size());
  double err = 0;
  for (std::size_t i = 0; i < a.size(); ++i) err += std::abs(a[i] - b[i]);
  EXPECT_LT(err / a.size(), 6.0);
}

TEST(Wsi, JpegEqualsLibtiffDecoding) {
  // YCbCr 4:2:0 (JPEGTables + abbreviated tiles) and RGB JPEG, every level: bit-exact with
  // libtiff's JPEG codec (same libjpeg, same colour conversion and upsampling).
  for (const std::string& p : {fx().jpeg256, fx().jpeg240_rgb, fx().jpeg422, fx().jpeg444}) {
    const Slide s = Slide::open(p);
    for (int l = 0; l < s.level_count(); ++l) EXPECT_ARRAY_EQ(libtiff_level(p, l), whole_level(s, l)) << p << " level " << l;
  }
  const Slide sub = Slide::open(fx().subifd);
  EXPECT_ARRAY_EQ(libtiff_level(fx().subifd, 0, true, 1), whole_level(sub, 2));
}

TEST(Wsi, RegionsStraddleTilesAndEdges) {
  const Slide s = Slide::open(fx().jpeg256);
  const Array all = whole_level(s, 0);
  const Region regions[] = {{0, 0, 0, 256, 256},  {100, 200, 0, 300, 100}, {1250, 950, 0, 100, 100},
                            {-30, -20, 0, 80, 70}, {5000, 10, 0, 10, 10},   {255, 255, 0, 2, 2}};
  for (const Region& r : regions) {
    Array got = s.read_region(r);
    EXPECT_ARRAY_EQ(crop(all, r.x, r.y, r.width, r.height), got) << r.x << "," << r.y;
  }
  // RGBA: alpha 255 inside, (0,0,0,0) outside; RGB background option.
  const Array rgba = s.read_region(1290, 995, 0, 20, 10, {.rgba = true});
  EXPECT_EQ(rgba.at<std::uint8_t>({0, 0, 3}), 255);
  EXPECT_EQ(rgba.at<std::uint8_t>({4, 9, 3}), 255);
  EXPECT_EQ(rgba.at<std::uint8_t>({4, 10, 3}), 0);
  EXPECT_EQ(rgba.at<std::uint8_t>({5, 0, 0}), 0);
  EXPECT_EQ(rgba.at<std::uint8_t>({0, 0, 0}), all.at<std::uint8_t>({995, 1290, 0}));
  const Array white = s.read_region(-5, 0, 0, 10, 1, {.background = {255, 255, 255}});
  EXPECT_EQ(white.at<std::uint8_t>({0, 4, 1}), 255);
  EXPECT_EQ(white.at<std::uint8_t>({0, 5, 1}), all.at<std::uint8_t>({0, 0, 1}));
  // Level 1 at a location on its grid and off it (rounded down to the level's pixel grid).
  const Array l1 = whole_level(s, 1);
  EXPECT_ARRAY_EQ(crop(l1, 101, 50, 200, 90), s.read_region(202, 100, 1, 200, 90));
  EXPECT_ARRAY_EQ(crop(l1, 101, 50, 200, 90), s.read_region(203, 101, 1, 200, 90));
}

TEST(Wsi, ReadIntoStridedView) {
  const Slide s = Slide::open(fx().jpeg256);
  Array big = Array::zeros({300, 400, 3}, DType::uint8);
  Array view = big.slice({{10, 110}, {20, 220}});
  s.read_region_into({300, 400, 0, 200, 100}, view);
  EXPECT_ARRAY_EQ(s.read_region(300, 400, 0, 200, 100), view.copy());
  EXPECT_EQ(big.at<std::uint8_t>({9, 20, 0}), 0);
  Array bad = Array::zeros({100, 200, 2}, DType::uint8);
  EXPECT_THROW(s.read_region_into({0, 0, 0, 200, 100}, bad), InvalidArgument);
}

TEST(Wsi, ReadRegionsWorkersAndThreads) {
  const Slide s = Slide::open(fx().jpeg256, {.cache_bytes = 1 << 20});
  std::vector<Region> regions;
  for (int i = 0; i < 24; ++i) regions.push_back({(i * 97) % 1200, (i * 61) % 900, i % 3, 130, 90});
  const auto serial = s.read_regions(regions);
  const auto parallel = s.read_regions(regions, {.workers = 3});
  ASSERT_EQ(serial.size(), regions.size());
  for (std::size_t i = 0; i < regions.size(); ++i) {
    EXPECT_ARRAY_EQ(serial[i], parallel[i]);
    EXPECT_ARRAY_EQ(serial[i], s.read_region(regions[i]));
  }
  // Many threads reading one Slide.
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      for (int k = 0; k < 30; ++k) {
        const std::size_t i = static_cast<std::size_t>(t * 7 + k) % regions.size();
        const Array a = s.read_region(regions[i], {.workers = 2});
        if (a.to_vector<std::uint8_t>() != serial[i].to_vector<std::uint8_t>()) ++mismatches;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(Wsi, TileCacheBudget) {
  const Slide s = Slide::open(fx().jpeg256, {.cache_bytes = 3 * 256 * 256 * 3});
  s.read_region(100, 100, 0, 50, 50);  // part of a tile, first use: decoded in part, not cached
  EXPECT_EQ(s.cache_stats().entries, 0u);
  s.read_region(120, 110, 0, 50, 50);  // reused: decoded whole into the cache
  auto st = s.cache_stats();
  EXPECT_EQ(st.entries, 1u);
  EXPECT_EQ(st.hits, 0u);
  s.read_region(110, 105, 0, 50, 50);  // served by the cache
  st = s.cache_stats();
  EXPECT_EQ(st.entries, 1u);
  EXPECT_EQ(st.hits, 1u);
  // A batch whose regions share a tile decodes it whole once and caches it.
  const Slide b = Slide::open(fx().jpeg256, {.cache_bytes = 3 * 256 * 256 * 3});
  const auto outs = b.read_regions({{300, 300, 0, 40, 40}, {330, 310, 0, 40, 40}});
  EXPECT_EQ(b.cache_stats().entries, 1u);
  EXPECT_ARRAY_EQ(s.read_region(300, 300, 0, 40, 40), outs[0]);
  EXPECT_ARRAY_EQ(s.read_region(330, 310, 0, 40, 40), outs[1]);
  s.read_region(0, 0, 0, 1000, 1000, {.workers = 2});  // 16 tiles, partly cached: the budget holds
  st = s.cache_stats();
  EXPECT_LE(st.used_bytes, st.capacity_bytes);
  s.set_cache_capacity(0);
  EXPECT_EQ(s.cache_stats().entries, 0u);
  EXPECT_ARRAY_EQ(crop(whole_level(s, 0), 100, 100, 50, 50), s.read_region(100, 100, 0, 50, 50));
}

/// Regions that need tiles in part decode only the part (JPEG: cropped columns, skipped rows;
/// see src/wsi/decode.cpp): bit-identical to libtiff's full decodes of the same JPEG tiles, for
/// every row offset inside a tile (the skip), every column offset (the crop), regions ending on
/// every row and column, random regions across tiles and past the slide's edges, with the cache
/// off (every part decoded in part) and on (reused tiles decoded whole), RGB and RGBA.
/// crop() with row copies (the partial-decode test crops thousands of regions).
std::vector<std::uint8_t> crop_rows(const Array& a, const Region& r) {
  const std::int64_t H = a.shape(0), W = a.shape(1);
  std::vector<std::uint8_t> o(static_cast<std::size_t>(r.width * r.height * 3), 0);
  const auto* s = static_cast<const std::uint8_t*>(a.data());
  const std::int64_t x0 = std::max<std::int64_t>(r.x, 0), x1 = std::min(r.x + r.width, W);
  for (std::int64_t y = std::max<std::int64_t>(r.y, 0); y < std::min(r.y + r.height, H) && x0 < x1; ++y)
    std::memcpy(&o[static_cast<std::size_t>(((y - r.y) * r.width + (x0 - r.x)) * 3)], s + (y * W + x0) * 3, static_cast<std::size_t>(x1 - x0) * 3);
  return o;
}
bool same_bytes(const std::vector<std::uint8_t>& want, const Array& got) {
  return got.nbytes() == want.size() && std::memcmp(got.data(), want.data(), want.size()) == 0;
}

void expect_partial_equals_full(const std::string& path, bool every_offset) {
  SCOPED_TRACE(path);
  const Array full = libtiff_level(path, 0);
  const Slide off = Slide::open(path, {.cache_bytes = 0});
  const Slide on = Slide::open(path, {.cache_bytes = 4 << 20});
  const std::int64_t W = off.level(0).width, H = off.level(0).height;
  const std::int64_t tw = off.level(0).tile_width, th = off.level(0).tile_height;
  std::mt19937 rng(1234);
  const auto uni = [&](std::int64_t a, std::int64_t b) { return std::uniform_int_distribution<std::int64_t>(a, b)(rng); };
  std::vector<Region> regions;
  if (every_offset) {
    for (std::int64_t k = 0; k < th; ++k) {
      regions.push_back({uni(0, W - 40), th + k, 0, uni(1, 120), uni(1, th + 40)});  // starts on row k of a tile
      const std::int64_t y = uni(0, th - 1);
      regions.push_back({uni(0, W - 40), y, 0, uni(1, 120), th + k + 1 - y});  // ends on row k of a tile
    }
    for (std::int64_t k = 0; k < tw; ++k) {
      regions.push_back({tw + k, uni(0, H - 40), 0, uni(1, tw + 40), uni(1, 60)});  // starts on column k
      const std::int64_t x = uni(0, tw - 1);
      regions.push_back({x, uni(0, H - 40), 0, tw + k + 1 - x, uni(1, 60)});  // ends on column k
    }
  }
  for (int i = 0; i < 120; ++i) regions.push_back({uni(-50, W), uni(-50, H), 0, uni(1, 300), uni(1, 300)});
  for (int i = 0; i < 20; ++i) regions.push_back({W - uni(1, 300), H - uni(1, 300), 0, uni(1, 300), uni(1, 300)});  // slide edges
  std::size_t bad = 0;
  for (const Region& r : regions) {
    const auto want = crop_rows(full, r);
    const bool ok_off = same_bytes(want, off.read_region(r));
    const bool ok_on = same_bytes(want, on.read_region(r));
    if (!ok_off || !ok_on) {
      if (++bad <= 5) ADD_FAILURE() << "region " << r.x << "," << r.y << " " << r.width << "x" << r.height << " cache off ok "
                                    << ok_off << ", cache on ok " << ok_on;
    }
  }
  EXPECT_EQ(bad, 0u) << "of " << regions.size() << " regions";
  EXPECT_GT(on.cache_stats().entries, 0u);  // reused tiles were cached whole
  // RGBA: the same pixels, alpha 255 inside.
  for (int i = 0; i < 20; ++i) {
    const Region r{uni(0, W - 1), uni(0, H - 1), 0, uni(1, 300), uni(1, 300)};
    const Array rgb = off.read_region(r), rgba = off.read_region(r, {.rgba = true});
    const auto a = rgb.to_vector<std::uint8_t>(), b = rgba.to_vector<std::uint8_t>();
    std::size_t diff = 0;
    for (std::size_t p = 0; p < a.size() / 3; ++p)
      diff += a[3 * p] != b[4 * p] || a[3 * p + 1] != b[4 * p + 1] || a[3 * p + 2] != b[4 * p + 2] ||
              b[4 * p + 3] != ((r.x + static_cast<std::int64_t>(p) % r.width < W && r.y + static_cast<std::int64_t>(p) / r.width < H) ? 255 : 0);
    EXPECT_EQ(diff, 0u) << "RGBA region " << r.x << "," << r.y;
  }
}

TEST(Wsi, PartialDecodesEqualFullDecodes) {
  expect_partial_equals_full(fx().jpeg256, true);   // YCbCr 4:2:0, 256-pixel tiles
  expect_partial_equals_full(fx().jpeg422, true);   // 4:2:2
  expect_partial_equals_full(fx().jpeg444, false);  // 4:4:4
  expect_partial_equals_full(fx().jpeg240_rgb, true);  // RGB JPEG (no colour transform), 240-pixel tiles
  expect_partial_equals_full(fx().svs, true);       // Aperio SVS, YCbCr 4:2:0, 240-pixel tiles
  // Greyscale JPEG; a 4:2:0 slide of odd size with 16-pixel tiles (the crop and skip at every
  // iMCU of a tile).
  Array grey = Array::empty({517, 601}, DType::uint8);
  {
    const auto rgb = fx().image.to_vector<std::uint8_t>();
    auto* g = static_cast<std::uint8_t*>(grey.data());
    for (std::int64_t y = 0; y < 517; ++y)
      for (std::int64_t x = 0; x < 601; ++x) g[y * 601 + x] = rgb[(y * 1300 + x) * 3 + 1];
  }
  expect_partial_equals_full(make_slide("jpeg_grey", grey, {.tile_size = 128, .compression = "jpeg", .quality = 85}), true);
  expect_partial_equals_full(make_slide("jpeg_small_tiles", crop(fx().image, 0, 0, 333, 277),
                                        {.tile_size = 48, .compression = "jpeg", .quality = 75}), true);
  if (!fx().vips_jpeg.empty()) expect_partial_equals_full(fx().vips_jpeg, true);  // libvips' JPEG tiles, 240 pixels
#if CUSK_HAVE_OPENSLIDE
  // And OpenSlide's pixels for random unaligned regions (its decoder: full tiles).
  for (const std::string& p : {fx().jpeg256, fx().jpeg422, fx().svs, fx().jpeg240_rgb}) {
    OpenSlideRef ref(p);
    ASSERT_TRUE(ref.ok());
    const Slide s = Slide::open(p, {.cache_bytes = 0});
    std::mt19937 rng(99);
    for (int i = 0; i < 40; ++i) {
      const Region r{static_cast<std::int64_t>(rng() % 1300), static_cast<std::int64_t>(rng() % 1000), 0,
                     1 + static_cast<std::int64_t>(rng() % 300), 1 + static_cast<std::int64_t>(rng() % 300)};
      EXPECT_EQ(ref.read(r.x, r.y, 0, r.width, r.height), s.read_region(r, {.rgba = true}).to_vector<std::uint8_t>())
          << p << " " << r.x << "," << r.y << " " << r.width << "x" << r.height;
    }
  }
#endif
}

/// The GPU's exact colour path on the CPU: libjpeg's own YCbCr planes of a tile (its IDCT output,
/// raw_data_out) through ycc_job_pixel -- the per-pixel function of kernels/wsi/ycc_jobs.cu --
/// must give the host decoder's bytes, for whole tiles and for parts written at an offset into a
/// wider buffer (the device read's jobs), at every level of 4:2:0, 4:2:2 and 4:4:4 slides.
void expect_ycc_jobs_equal_host(const std::string& path, int tiles_per_level) {
  namespace wd = cuskimage::wsi::detail;
  const Slide s = Slide::open(path, {.cache_bytes = 0});
  std::mt19937 rng(5);
  for (int level = 0; level < s.level_count(); ++level) {
    const auto& l = s.level(level);
    const std::int64_t across = (l.width + l.tile_width - 1) / l.tile_width, down = (l.height + l.tile_height - 1) / l.tile_height;
    for (int k = 0; k < tiles_per_level && k < across * down; ++k) {
      const std::int64_t tile = k == 0 ? across * down - 1 : static_cast<std::int64_t>(rng() % (across * down));  // the corner tile first
      const std::int64_t tx = tile % across, ty = tile / across;
      const wd::JpegPlanes pl = wd::tile_planes_for_testing(s, level, static_cast<std::uint64_t>(tile));
      ASSERT_EQ(pl.width[0], l.tile_width) << path;
      ASSERT_EQ(pl.width[1], l.tile_width / pl.hs) << path;
      ASSERT_EQ(pl.height[1], l.tile_height / pl.vs) << path;
      // The part inside the level (edge tiles: the JPEG frame is the whole tile, the level ends in it).
      const std::int64_t w_in = std::min(l.tile_width, l.width - tx * l.tile_width), h_in = std::min(l.tile_height, l.height - ty * l.tile_height);
      const double ds = l.downsample;
      const Array want = s.read_region(static_cast<std::int64_t>(std::ceil(tx * l.tile_width * ds)),
                                       static_cast<std::int64_t>(std::ceil(ty * l.tile_height * ds)), level, w_in, h_in);
      // Only pixels the host read maps to this tile: the level coordinate of the region's origin
      // must be the tile's corner.
      ASSERT_EQ(static_cast<std::int64_t>(std::floor(std::ceil(tx * l.tile_width * ds) / ds)), tx * l.tile_width) << path;
      const auto want_v = want.to_vector<std::uint8_t>();
      for (int part = 0; part < 4; ++part) {
        wd::YccJob j;
        j.y = pl.plane[0].data(), j.cb = pl.plane[1].data(), j.cr = pl.plane[2].data();
        j.y_pitch = pl.width[0], j.c_pitch = pl.width[1], j.cw = pl.width[1], j.ch = pl.height[1], j.hs = pl.hs, j.vs = pl.vs;
        if (part == 0) {
          j.x0 = 0, j.y0 = 0, j.w = static_cast<std::int32_t>(w_in), j.h = static_cast<std::int32_t>(h_in);
        } else {
          j.x0 = static_cast<std::int32_t>(rng() % w_in), j.y0 = static_cast<std::int32_t>(rng() % h_in);
          j.w = 1 + static_cast<std::int32_t>(rng() % (w_in - j.x0)), j.h = 1 + static_cast<std::int32_t>(rng() % (h_in - j.y0));
        }
        const std::int64_t pitch = 3 * (j.w + 7) + 1;  // odd pitch, as an unaligned region's output
        std::vector<std::uint8_t> out(static_cast<std::size_t>(pitch * j.h), 0);
        j.dst = out.data(), j.dst_pitch = static_cast<std::uint64_t>(pitch);
        for (std::int32_t p = 0; p < j.w * j.h; ++p) wd::ycc_job_pixel(j, p);
        std::size_t differ = 0;
        for (std::int32_t y = 0; y < j.h; ++y)
          for (std::int32_t x = 0; x < 3 * j.w; ++x)
            differ += out[static_cast<std::size_t>(y * pitch + x)] != want_v[static_cast<std::size_t>(((j.y0 + y) * w_in + j.x0) * 3 + x)];
        EXPECT_EQ(differ, 0u) << path << " level " << level << " tile " << tile << " part " << j.x0 << "," << j.y0 << " " << j.w
                              << "x" << j.h << " (" << pl.hs << "x" << pl.vs << " chroma)";
      }
    }
  }
}

TEST(Wsi, GpuColourPathEqualsLibjpeg) {
  expect_ycc_jobs_equal_host(fx().jpeg256, 6);  // 4:2:0, 256-pixel tiles
  expect_ycc_jobs_equal_host(fx().jpeg422, 6);  // 4:2:2
  expect_ycc_jobs_equal_host(fx().jpeg444, 4);  // 4:4:4
  expect_ycc_jobs_equal_host(fx().svs, 6);      // Aperio, 4:2:0 Q70, 240-pixel tiles
  expect_ycc_jobs_equal_host(make_slide("jpeg_small_tiles", crop(fx().image, 0, 0, 333, 277),
                                        {.tile_size = 48, .compression = "jpeg", .quality = 75}), 8);
  if (!fx().vips_jpeg.empty()) expect_ycc_jobs_equal_host(fx().vips_jpeg, 6);  // libvips' JPEG tiles
  // The colour conversion alone over every (Y, Cb, Cr) corner and a grid: libjpeg's table values.
  unsigned char rgb[3];
  cuskimage::wsi::detail::ycc_to_rgb(128, 128, 128, rgb);
  EXPECT_EQ(rgb[0], 128);
  EXPECT_EQ(rgb[1], 128);
  EXPECT_EQ(rgb[2], 128);
  cuskimage::wsi::detail::ycc_to_rgb(0, 255, 255, rgb);  // R = round(1.402 * 127) = 178, B = round(1.772 * 127) = 225
  EXPECT_EQ(rgb[0], 178);
  EXPECT_EQ(rgb[1], 0);
  EXPECT_EQ(rgb[2], 225);
}

/// Tiles stacked into one stream (the GPU decoder's columns of tiles) decode to each tile's own
/// component planes, one below the other; streams that cannot be stacked are refused.
void expect_stack_decodes_to_tiles(const std::string& path, std::size_t k) {
  namespace wd = cuskimage::wsi::detail;
  const Slide s = Slide::open(path, {.cache_bytes = 0});
  std::mt19937 rng(11);
  for (int level = 0; level < s.level_count(); ++level) {
    const auto& l = s.level(level);
    const std::uint64_t count = static_cast<std::uint64_t>(((l.width + l.tile_width - 1) / l.tile_width) *
                                                           ((l.height + l.tile_height - 1) / l.tile_height));
    std::vector<std::vector<unsigned char>> streams;
    std::vector<std::uint64_t> ids;
    for (std::size_t i = 0; i < k; ++i) {
      ids.push_back(i == 0 ? count - 1 : rng() % count);  // the corner tile, then any (repeats too)
      streams.push_back(wd::tile_stream_for_testing(s, level, ids.back()));
      wd::JpegLayout lay;
      ASSERT_TRUE(wd::jpeg_layout(streams.back().data(), streams.back().size(), lay)) << path << " level " << level;
      ASSERT_EQ(lay.width, l.tile_width);
      ASSERT_EQ(lay.height, l.tile_height);
    }
    std::vector<const std::vector<unsigned char>*> in;
    for (const auto& v : streams) in.push_back(&v);
    std::vector<unsigned char> stacked;
    ASSERT_TRUE(wd::stack_jpeg_streams(in, stacked)) << path << " level " << level;
    // The same stream built as device reads build it: from the tiles as stored and the level's tables.
    {
      wd::JpegStacker st;
      std::vector<unsigned char> tables, from_raw;
      for (std::size_t i = 0; i < k; ++i) {
        const std::vector<unsigned char> raw = wd::tile_raw_for_testing(s, level, ids[i], tables);
        ASSERT_TRUE(i == 0 ? st.begin(tables, raw.data(), raw.size(), from_raw) : st.add(raw.data(), raw.size(), from_raw)) << path;
      }
      EXPECT_EQ(st.finish(from_raw), k);
      EXPECT_TRUE(from_raw == stacked) << path << " level " << level;
    }
    wd::TiledImage whole;
    whole.compression = wd::kJpeg, whole.tile_width = l.tile_width, whole.tile_height = l.tile_height * static_cast<std::int64_t>(k);
    wd::JpegPlanes got;
    wd::decode_tile_planes(whole, stacked.data(), stacked.size(), got, "stack");
    for (std::size_t i = 0; i < k; ++i) {
      const wd::JpegPlanes want = wd::tile_planes_for_testing(s, level, ids[i]);
      ASSERT_EQ(got.hs, want.hs);
      ASSERT_EQ(got.vs, want.vs);
      for (int c = 0; c < 3; ++c) {
        ASSERT_EQ(got.width[c], want.width[c]);
        ASSERT_EQ(got.height[c], want.height[c] * static_cast<int>(k)) << path << " component " << c;
        const std::size_t plane = want.plane[c].size();
        EXPECT_TRUE(std::equal(want.plane[c].begin(), want.plane[c].end(), got.plane[c].begin() + static_cast<std::ptrdiff_t>(i * plane)))
            << path << " level " << level << " tile " << ids[i] << " (stack position " << i << ") component " << c;
      }
    }
  }
}

TEST(Wsi, StackedTilesDecodeToTheirOwnPlanes) {
  expect_stack_decodes_to_tiles(fx().jpeg256, 9);  // 4:2:0; 9 > 8: the RST numbers wrap
  expect_stack_decodes_to_tiles(fx().jpeg422, 4);  // 4:2:2
  expect_stack_decodes_to_tiles(fx().jpeg444, 3);  // 4:4:4
  expect_stack_decodes_to_tiles(fx().svs, 5);      // Aperio, 240-pixel tiles
  expect_stack_decodes_to_tiles(make_slide("jpeg_stack_48", crop(fx().image, 0, 0, 333, 277),
                                           {.tile_size = 48, .compression = "jpeg", .quality = 75}), 16);
  if (!fx().vips_jpeg.empty()) expect_stack_decodes_to_tiles(fx().vips_jpeg, 6);
}

TEST(Wsi, StackRefusesWhatItCannotJoin) {
  namespace wd = cuskimage::wsi::detail;
  const Slide a = Slide::open(fx().jpeg256, {.cache_bytes = 0}), b = Slide::open(fx().svs, {.cache_bytes = 0});
  const std::vector<unsigned char> ta = wd::tile_stream_for_testing(a, 0, 0), tb = wd::tile_stream_for_testing(b, 0, 0);
  std::vector<unsigned char> out;
  EXPECT_TRUE(wd::stack_jpeg_streams({&ta, &ta}, out));
  EXPECT_FALSE(wd::stack_jpeg_streams({&ta, &tb}, out));  // other tables and frame
  {
    wd::JpegStacker st;  // a refused tile leaves the stack as it was
    std::vector<unsigned char> one, two;
    ASSERT_TRUE(st.begin({}, ta.data(), ta.size(), one));
    two = one;
    EXPECT_FALSE(st.add(tb.data(), tb.size(), one));
    EXPECT_TRUE(one == two);
    EXPECT_EQ(st.finish(one), 1u);
    wd::TiledImage t1;
    t1.compression = wd::kJpeg, t1.tile_width = 256, t1.tile_height = 256;
    wd::JpegPlanes p1, p0;
    wd::decode_tile_planes(t1, one.data(), one.size(), p1, "stack of one");
    wd::decode_tile_planes(t1, ta.data(), ta.size(), p0, "tile");
    for (int c = 0; c < 3; ++c) EXPECT_TRUE(p0.plane[c] == p1.plane[c]);
  }
  EXPECT_FALSE(wd::stack_jpeg_streams({}, out));
  wd::JpegLayout lay;
  ASSERT_TRUE(wd::jpeg_layout(ta.data(), ta.size(), lay));
  // A restart interval of its own.
  std::vector<unsigned char> dri(ta.begin(), ta.begin() + static_cast<std::ptrdiff_t>(lay.sos));
  for (unsigned char c : {0xFF, 0xDD, 0x00, 0x04, 0x00, 0x10}) dri.push_back(c);
  dri.insert(dri.end(), ta.begin() + static_cast<std::ptrdiff_t>(lay.sos), ta.end());
  EXPECT_FALSE(wd::jpeg_layout(dri.data(), dri.size(), lay));
  EXPECT_FALSE(wd::stack_jpeg_streams({&dri, &dri}, out));
  // Truncated, a marker inside the entropy-coded data, progressive.
  ASSERT_TRUE(wd::jpeg_layout(ta.data(), ta.size(), lay));
  std::vector<unsigned char> cut(ta.begin(), ta.begin() + static_cast<std::ptrdiff_t>(ta.size() / 2));
  EXPECT_FALSE(wd::jpeg_layout(cut.data(), cut.size(), lay));
  ASSERT_TRUE(wd::jpeg_layout(ta.data(), ta.size(), lay));
  std::vector<unsigned char> marker = ta;
  marker[lay.data + 40] = 0xFF, marker[lay.data + 41] = 0xD3;
  EXPECT_FALSE(wd::jpeg_layout(marker.data(), marker.size(), lay));
  ASSERT_TRUE(wd::jpeg_layout(ta.data(), ta.size(), lay));
  std::vector<unsigned char> prog = ta;
  prog[lay.sof + 1] = 0xC2;
  EXPECT_FALSE(wd::jpeg_layout(prog.data(), prog.size(), lay));
  // The stacked frame's height must fit JPEG's 16 bits: 256 tiles of 256 rows do not.
  std::vector<const std::vector<unsigned char>*> many(256, &ta);
  EXPECT_FALSE(wd::stack_jpeg_streams(many, out));
  many.resize(255);
  EXPECT_TRUE(wd::stack_jpeg_streams(many, out));
}

/// The host cost model behind the hybrid split: whole tiles cost 1, parts less, more rows more.
TEST(Wsi, HostDecodeCostModel) {
  namespace wd = cuskimage::wsi::detail;
  wd::TiledImage t;
  t.compression = wd::kJpeg, t.tile_width = 256, t.tile_height = 256;
  EXPECT_EQ(wd::host_decode_cost(t, 0, 0, 256, 256), 1.0);
  const double top = wd::host_decode_cost(t, 100, 0, 256, 77), bottom = wd::host_decode_cost(t, 100, 77, 256, 256);
  EXPECT_GT(top, 0.1);
  EXPECT_LT(top, 0.5);
  EXPECT_GT(bottom, top);
  EXPECT_LT(bottom, 1.0);
  t.compression = wd::kDeflate;  // other codecs decode whole tiles for any part
  EXPECT_EQ(wd::host_decode_cost(t, 100, 0, 256, 77), 1.0);
}

/// The hybrid's balance rule: both sides finish together.
TEST(Wsi, HybridBalanceRule) {
  namespace wd = cuskimage::wsi::detail;
  // 512 whole tiles, GPU 52 k tiles/s, host 43 k/s: the GPU's share is 52 / 95 of them.
  std::vector<double> prefix(513);
  for (std::size_t i = 0; i <= 512; ++i) prefix[i] = static_cast<double>(i);
  EXPECT_EQ(wd::gpu_chunk(0, 52000, 43000, prefix.data(), 0, 512, 128), 128u);
  EXPECT_EQ(wd::gpu_chunk(0, 52000, 43000, prefix.data(), 0, 512, 1000), 280u);  // 512 * 52 / 95 = 280.3
  // The GPU took 256, all in flight: (256 + c) / 52 <= (256 - c) / 43, so c <= 24.
  EXPECT_EQ(wd::gpu_chunk(256, 52000, 43000, prefix.data(), 256, 512, 128), 24u);
  EXPECT_EQ(wd::gpu_chunk(320, 52000, 43000, prefix.data(), 256, 512, 128), 0u);  // enough in flight
  // Once the host has taken 128 from the back and 200 of the GPU's are done: (56 + c) / 52 <= (128 - c) / 43.
  EXPECT_EQ(wd::gpu_chunk(56, 52000, 43000, prefix.data(), 256, 384, 128), 44u);
  // Units cheap for the host at the back (parts): the GPU takes fewer of the expensive ones.
  for (std::size_t i = 0; i < 512; ++i) prefix[i + 1] = prefix[i] + (i < 256 ? 1.0 : 0.25);
  const std::size_t c = wd::gpu_chunk(0, 52000, 43000, prefix.data(), 0, 512, 1000);
  EXPECT_NEAR((static_cast<double>(c)) / 52000, (prefix[512] - prefix[c]) / 43000, 1.0 / 43000);
  EXPECT_EQ(wd::gpu_chunk(0, 52000, 43000, prefix.data(), 10, 10, 128), 0u);  // nothing left
}

/// The nvJPEG policy's setter hands back the policy it replaces; host reads ignore it.
TEST(Wsi, NvjpegPolicySetterReturnsThePrevious) {
  namespace tuning = cuskimage::tuning;
  const Slide s = Slide::open(fx().jpeg256);
  const Array want = s.read_region(13, 17, 0, 301, 211);
  const tuning::WsiNvjpegPolicy old = tuning::set_wsi_nvjpeg_policy({.colour = tuning::NvjpegColour::nvjpeg_rgb, .stack = 1, .batch = 64});
  EXPECT_EQ(old.colour, tuning::NvjpegColour::automatic);
  EXPECT_EQ(old.stack, 0);
  EXPECT_ARRAY_EQ(want, s.read_region(13, 17, 0, 301, 211));
  const tuning::WsiNvjpegPolicy mine = tuning::set_wsi_nvjpeg_policy(old);
  EXPECT_EQ(mine.colour, tuning::NvjpegColour::nvjpeg_rgb);
  EXPECT_EQ(mine.stack, 1);
  EXPECT_EQ(mine.batch, 64);
  EXPECT_EQ(tuning::wsi_nvjpeg_policy().batch, 0);
}

TEST(Wsi, MissingTileIsTransparent) {
  auto b = read_bytes(fx().jpeg256);
  // Tile (1, 0) of level 0: byte count 0 (TileByteCounts = 325).
  wr32(b, long_array_element(b, 0, 325, 1), 0);
  const std::string p = cusktest::temp_path("wsi_missing.tif");
  write_bytes(p, b);
  const Slide s = Slide::open(p);
  const Array rgba = s.read_region(200, 0, 0, 100, 10, {.rgba = true});
  EXPECT_EQ(rgba.at<std::uint8_t>({0, 55, 3}), 255);
  EXPECT_EQ(rgba.at<std::uint8_t>({0, 56, 3}), 0);  // x = 256: the missing tile
  EXPECT_EQ(rgba.at<std::uint8_t>({0, 56, 0}), 0);
  EXPECT_EQ(s.read_region(256, 0, 0, 1, 1, {.background = {9, 9, 9}}).at<std::uint8_t>({0, 0, 2}), 9);
#if CUSK_HAVE_OPENSLIDE
  // OpenSlide 3.4 defines no fill here: the read fails ("Cannot read raw tile") and the handle
  // stays in error. (OpenSlide 4 returns transparent pixels, as here.)
  OpenSlideRef ref(p);
  ASSERT_TRUE(ref.ok());
  ref.read(200, 0, 0, 100, 10);
  EXPECT_FALSE(ref.ok());
#endif
}

// ---- OpenSlide 3.4 ----------------------------------------------------------------------------------------
#if CUSK_HAVE_OPENSLIDE
void compare_with_openslide(const std::string& path) {
  SCOPED_TRACE(path);
  OpenSlideRef ref(path);
  ASSERT_TRUE(ref.ok()) << (ref.osr ? openslide_get_error(ref.osr) : "not opened");
  const Slide s = Slide::open(path);
  // Properties: every one of OpenSlide's (but its quickhash) with the same value.
  const auto theirs = ref.properties();
  for (const auto& [k, v] : theirs) {
    if (k == "openslide.quickhash-1") continue;  // not computed here
    EXPECT_EQ(s.property(k).value_or("<missing>"), v) << k;
  }
  // Ours has nothing else, except the mpp that OpenSlide >= 4.0 (not 3.4) derives from a generic
  // TIFF's resolution in pixels per centimetre.
  for (const auto& [k, v] : s.properties())
    if (!(s.vendor() == "generic-tiff" && k.rfind("openslide.mpp-", 0) == 0))
      EXPECT_TRUE(theirs.count(k)) << "extra property " << k << " = " << v;
  ASSERT_EQ(s.level_count(), openslide_get_level_count(ref.osr));
  for (int l = 0; l < s.level_count(); ++l) {
    std::int64_t w = 0, h = 0;
    openslide_get_level_dimensions(ref.osr, l, &w, &h);
    EXPECT_EQ(s.level(l).width, w);
    EXPECT_EQ(s.level(l).height, h);
    EXPECT_EQ(s.level(l).downsample, openslide_get_level_downsample(ref.osr, l));
  }
  // Pixels: whole levels, then unaligned regions straddling tiles and the slide's edges. At
  // level > 0 the location is a multiple of the downsample (OpenSlide resamples otherwise).
  std::uint16_t compression = 0;
  {
    TIFF* t = TIFFOpen(path.c_str(), "r");
    TIFFGetField(t, TIFFTAG_COMPRESSION, &compression);
    TIFFClose(t);
  }
  for (int l = 0; l < s.level_count(); ++l) {
    const auto& lv = s.level(l);
    // OpenSlide 3.4 decodes non-JPEG tiles with libtiff's TIFFRGBAImage, which (libtiff >= 4.5)
    // returns garbage for a level narrower or shorter than one tile: only JPEG levels are
    // compared there (the lossless test checks ours against the source pixels).
    if (compression != COMPRESSION_JPEG && (lv.width < lv.tile_width || lv.height < lv.tile_height)) continue;
    EXPECT_EQ(ref.read(0, 0, l, lv.width + 7, lv.height + 3), s.read_region(0, 0, l, lv.width + 7, lv.height + 3, {.rgba = true}).to_vector<std::uint8_t>())
        << "level " << l;
  }
  const Region regions[] = {{13, 17, 0, 301, 211}, {-40, 990, 0, 120, 50}, {1199, 239, 0, 150, 20}, {240, 240, 0, 1, 1}};
  for (const Region& r : regions)
    EXPECT_EQ(ref.read(r.x, r.y, r.level, r.width, r.height), s.read_region(r, {.rgba = true}).to_vector<std::uint8_t>())
        << r.x << "," << r.y;
  if (s.level_count() > 1) {
    const double ds = s.level(1).downsample;
    const auto x = static_cast<std::int64_t>(ds * 61), y = static_cast<std::int64_t>(ds * 7);
    EXPECT_EQ(ref.read(x, y, 1, 333, 222), s.read_region(x, y, 1, 333, 222, {.rgba = true}).to_vector<std::uint8_t>());
  }
  // Associated images.
  for (const auto& name : s.associated_image_names()) {
    std::int64_t w = 0, h = 0;
    openslide_get_associated_image_dimensions(ref.osr, name.c_str(), &w, &h);
    std::vector<std::uint32_t> argb(static_cast<std::size_t>(w * h));
    openslide_read_associated_image(ref.osr, name.c_str(), argb.data());
    const Array ours = s.read_associated_image(name, {.rgba = true});
    ASSERT_EQ(ours.shape(), (cuskimage::Shape{h, w, 4})) << name;
    const auto v = ours.to_vector<std::uint8_t>();
    std::size_t bad = 0;
    for (std::size_t i = 0; i < argb.size(); ++i)
      bad += v[4 * i] != ((argb[i] >> 16) & 255) || v[4 * i + 1] != ((argb[i] >> 8) & 255) || v[4 * i + 2] != (argb[i] & 255);
    EXPECT_EQ(bad, 0u) << name;
  }
}

TEST(WsiOpenSlide, GeneratedJpegYCbCr) { compare_with_openslide(fx().jpeg256); }
TEST(WsiOpenSlide, GeneratedJpeg422And444) {
  compare_with_openslide(fx().jpeg422);
  compare_with_openslide(fx().jpeg444);
}
TEST(WsiOpenSlide, GeneratedJpegRgb240) { compare_with_openslide(fx().jpeg240_rgb); }
TEST(WsiOpenSlide, GeneratedSvs) { compare_with_openslide(fx().svs); }
TEST(WsiOpenSlide, GeneratedBigTiff) { compare_with_openslide(fx().bigtiff); }
TEST(WsiOpenSlide, GeneratedDeflateLzw) {
  compare_with_openslide(fx().deflate);
  compare_with_openslide(fx().lzw);
}
TEST(WsiOpenSlide, VipsJpeg240) {
  if (fx().vips_jpeg.empty()) GTEST_SKIP() << "vips not installed: libvips fixture skipped";
  compare_with_openslide(fx().vips_jpeg);
}
TEST(WsiOpenSlide, VipsBigTiffDeflate) {
  if (fx().vips_big.empty()) GTEST_SKIP() << "vips not installed: libvips fixture skipped";
  compare_with_openslide(fx().vips_big);
}
#else
TEST(WsiOpenSlide, Skipped) { GTEST_SKIP() << "libopenslide not found at configure time: OpenSlide comparisons skipped"; }
#endif

/// A Philips-style TIFF: DPUfsImport XML with the WSI image's attributes, four pixel-data
/// representations and a base64 JPEG label.
std::string philips_slide() {
  const std::string path = fixture_path("philips.tif");
  if (std::filesystem::exists(path)) return path;
  const std::string jpg = cusktest::temp_path("philips_label.jpg");
  cuskimage::io::imsave(jpg, fx().label, {.quality = 90, .check_contrast = false});
  const auto bytes = read_bytes(jpg);
  static const char* b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string enc;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const unsigned v = (bytes[i] << 16) | ((i + 1 < bytes.size() ? bytes[i + 1] : 0) << 8) | (i + 2 < bytes.size() ? bytes[i + 2] : 0);
    enc += b64[(v >> 18) & 63];
    enc += b64[(v >> 12) & 63];
    enc += i + 1 < bytes.size() ? b64[(v >> 6) & 63] : '=';
    enc += i + 2 < bytes.size() ? b64[v & 63] : '=';
  }
  const auto attr = [](const std::string& name, const std::string& value) {
    return "<Attribute Name=\"" + name + "\" Group=\"0x0000\" Element=\"0x0000\" PMSVR=\"IString\">" + value + "</Attribute>\n";
  };
  std::string reps;
  for (int k = 0; k < 4; ++k) {
    char sp[32];
    std::snprintf(sp, sizeof sp, "%.6g", 0.000243 * (1 << k));
    reps += "<DataObject ObjectType=\"PixelDataRepresentation\">\n" +
            attr("DICOM_PIXEL_SPACING", std::string("&quot;") + sp + "&quot; &quot;" + sp + "&quot;") +
            attr("PIIM_PIXEL_DATA_REPRESENTATION_NUMBER", std::to_string(k)) + "</DataObject>\n";
  }
  const std::string xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<DataObject ObjectType=\"DPUfsImport\">\n" + attr("DICOM_MANUFACTURER", "PHILIPS") +
      "<Attribute Name=\"PIM_DP_SCANNED_IMAGES\" Group=\"0x301D\" Element=\"0x1003\" PMSVR=\"IDataObjectArray\">\n<Array>\n"
      "<DataObject ObjectType=\"DPScannedImage\">\n" +
      attr("DICOM_PIXEL_SPACING", "&quot;0.000243&quot; &quot;0.000244&quot;") + attr("PIM_DP_IMAGE_TYPE", "WSI") +
      "<Attribute Name=\"PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE\" Group=\"0x1001\" Element=\"0x8B01\" PMSVR=\"IDataObjectArray\">\n<Array>\n" +
      reps + "</Array>\n</Attribute>\n</DataObject>\n<DataObject ObjectType=\"DPScannedImage\">\n" + attr("PIM_DP_IMAGE_TYPE", "LABELIMAGE") +
      attr("PIM_DP_IMAGE_DATA", enc) + "</DataObject>\n</Array>\n</Attribute>\n</DataObject>\n";
  return make_slide("philips", fx().image, {.tile_size = 256, .compression = "jpeg", .quality = 80, .description = xml, .software = "Philips DP v1.0"});
}

TEST(Wsi, PhilipsTiff) {
  const Slide s = Slide::open(philips_slide());
  EXPECT_EQ(s.vendor(), "philips");
  ASSERT_EQ(s.level_count(), 4);
  EXPECT_EQ(s.level(3).width, 162);  // from level 0 and the spacing, not the padded directory
  EXPECT_EQ(s.level(3).downsample, 8.0);
  EXPECT_EQ(s.property("philips.DICOM_MANUFACTURER"), "PHILIPS");
  EXPECT_EQ(s.property("openslide.mpp-x"), "0.24399999999999999");
  EXPECT_EQ(s.property("philips.PIIM_PIXEL_DATA_REPRESENTATION_SEQUENCE[1].PIIM_PIXEL_DATA_REPRESENTATION_NUMBER"), "1");
  EXPECT_EQ(s.associated_image_names(), std::vector<std::string>{"label"});
  EXPECT_ARRAY_NEAR(fx().label, s.read_associated_image("label"), 0, 40);  // JPEG q90 of a noisy image
#if CUSK_HAVE_OPENSLIDE
  compare_with_openslide(philips_slide());
#endif
}

TEST(Wsi, VipsSubIfdPyramid) {
  if (fx().vips_subifd.empty()) GTEST_SKIP() << "vips not installed: libvips fixture skipped";
  const Slide s = Slide::open(fx().vips_subifd);
  ASSERT_GE(s.level_count(), 3);
  EXPECT_EQ(s.level(1).width, 650);
  EXPECT_ARRAY_EQ(libtiff_level(fx().vips_subifd, 0), whole_level(s, 0));
  EXPECT_ARRAY_EQ(libtiff_level(fx().vips_subifd, 0, true, 0), whole_level(s, 1));
}

// ---- writer -------------------------------------------------------------------------------------------------
TEST(Wsi, WriterLabelLevelsUseMode) {
  Array lab = Array::zeros({64, 64}, DType::uint8);
  auto* p = static_cast<std::uint8_t*>(lab.data());
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x) p[y * 64 + x] = static_cast<std::uint8_t>((x / 3 + y / 5) % 4 * 60);
  const std::string path = cusktest::temp_path("wsi_label.tif");
  cuskimage::wsi::write_pyramid(path, lab, {.tile_size = 16, .compression = "deflate", .label = true});
  const Slide s = Slide::open(path);
  ASSERT_EQ(s.level_count(), 3);
  const auto v = whole_level(s, 1).to_vector<std::uint8_t>();
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i] % 60, 0) << i;  // only the classes, never blends
}

TEST(Wsi, WriterRejectsBadArguments) {
  const Array img = synthetic_rgb(32, 32);
  const std::string p = cusktest::temp_path("wsi_bad.tif");
  using cuskimage::wsi::write_pyramid;
  EXPECT_THROW(write_pyramid(p, img, {.tile_size = 100}), InvalidArgument);
  EXPECT_THROW(write_pyramid(p, img, {.compression = "gif"}), InvalidArgument);
  EXPECT_THROW(write_pyramid(p, img, {.quality = 0}), InvalidArgument);
  EXPECT_THROW(write_pyramid(p, img, {.jpeg_colorspace = "cmyk"}), InvalidArgument);
  EXPECT_THROW(write_pyramid(p, img, {.levels = -1}), InvalidArgument);
  EXPECT_THROW(write_pyramid(p, img, {.ycbcr_subsampling = {1, 2}}), InvalidArgument);
  EXPECT_THROW(write_pyramid(p, img, {.mpp = -1.0}), InvalidArgument);
  EXPECT_THROW(write_pyramid(p, Array::zeros({8, 8, 2}, DType::uint8), {}), InvalidArgument);
  EXPECT_THROW(write_pyramid(p, Array::zeros({8, 8}, DType::float32), {}), InvalidArgument);
  EXPECT_THROW(write_pyramid(p, Array::zeros({8, 8}, DType::uint16), {.compression = "jpeg"}), InvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(p));
  EXPECT_THROW(write_pyramid("/nonexistent-dir/x.tif", img, {}), FormatError);
}

TEST(Wsi, ReadRejectsBadArguments) {
  const Slide s = Slide::open(fx().jpeg256);
  EXPECT_THROW(s.read_region(0, 0, 4, 10, 10), InvalidArgument);
  EXPECT_THROW(s.read_region(0, 0, -1, 10, 10), InvalidArgument);
  EXPECT_THROW(s.read_region(0, 0, 0, 0, 10), InvalidArgument);
  EXPECT_THROW(s.read_region(0, 0, 0, 10, -1), InvalidArgument);
  EXPECT_THROW(s.level(9), InvalidArgument);
}

// ---- malformed files ------------------------------------------------------------------------------------------
template <class F>
void expect_format_error(F&& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << what << ": no exception";
  } catch (const FormatError&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": wrong exception: " << e.what();
  }
}

std::string patched(const std::string& name, const std::string& from, const std::function<void(std::vector<unsigned char>&)>& edit) {
  auto b = read_bytes(from);
  edit(b);
  const std::string p = cusktest::temp_path("wsi_bad_" + name + ".tif");
  write_bytes(p, b);
  return p;
}

/// Opens and reads every level whole: must raise FormatError somewhere.
void open_and_read(const std::string& p) {
  const Slide s = Slide::open(p);
  for (int l = 0; l < s.level_count(); ++l) whole_level(s, l);
}

TEST(Wsi, MalformedFilesRaiseFormatError) {
  expect_format_error([] { Slide::open("/nonexistent/slide.svs"); }, "missing");
  expect_format_error([] { Slide::open(cusktest::temp_path("")); }, "directory");
  const std::string text = cusktest::temp_path("wsi_text.tif");
  write_bytes(text, {'h', 'e', 'l', 'l', 'o', '\n'});
  expect_format_error([&] { Slide::open(text); }, "not a TIFF");
  // A stripped (untiled) TIFF is no slide.
  const std::string strip = cusktest::temp_path("wsi_strip.tif");
  cuskimage::io::imsave(strip, synthetic_rgb(40, 40), {.check_contrast = false});
  expect_format_error([&] { Slide::open(strip); }, "stripped");

  const std::string& src = fx().jpeg256;
  const auto size = read_bytes(src).size();
  // Truncated: the tile data of the last levels is cut off.
  expect_format_error([&] { open_and_read(patched("trunc", src, [&](auto& b) { b.resize(size / 2); })); }, "truncated");
  expect_format_error([&] { open_and_read(patched("trunc8", src, [&](auto& b) { b.resize(8); })); }, "header only");
  // Offset past the end.
  expect_format_error([&] { open_and_read(patched("offset", src, [](auto& b) { wr32(b, long_array_element(b, 0, 324, 2), 0x7FFFFFF0u); })); },
                      "offset");
  // Absurd dimensions (width 2^31 - 1 with 256-pixel tiles).
  expect_format_error([&] { open_and_read(patched("dims", src, [](auto& b) {
                            const auto e = tag_entry(b, 0, 256);
                            wr16(b, e + 2, 4), wr32(b, e + 8, 0x7FFFFFFFu);
                          })); },
                      "dimensions");
  // A photometric tag that lies: greyscale for 3-component JPEG tiles.
  expect_format_error([&] { open_and_read(patched("photo", src, [](auto& b) { wr16(b, tag_entry(b, 0, 262) + 8, 1); })); }, "photometric");
  // Corrupt tile bytes (the first tile's data overwritten).
  expect_format_error([&] { open_and_read(patched("data", src, [](auto& b) {
                            const std::size_t off = rd32(b, long_array_element(b, 0, 324, 0));
                            for (std::size_t i = 0; i < 64; ++i) b[off + i] = 0xFF;
                          })); },
                      "corrupt data");
  // Zero byte count for the JPEGTables: tiles without tables cannot decode.
  expect_format_error([&] { open_and_read(patched("tables", src, [](auto& b) {
                            const auto e = tag_entry(b, 0, 347);
                            if (e) wr32(b, e + 4, 0);
                          })); },
                      "zero-length JPEGTables");
  // IFD loop: the last directory links back to the first.
  expect_format_error([&] { open_and_read(patched("loop", src, [](auto& b) {
                            const std::size_t last = ifd_offset(b, 3);
                            wr32(b, last + 2 + 12 * rd16(b, last), rd32(b, 4));
                          })); },
                      "IFD loop");
}

/// Bounded random-mutation fuzzing (runs in CI without clang; tests/wsi/fuzz/ holds the libFuzzer
/// entry point): small slides with bytes flipped, runs of bytes overwritten and the file cut at
/// random places must open and read or raise FormatError/NotSupported -- never crash or hang.
TEST(Wsi, MutatedFilesNeverCrash) {
  const Array img = crop(fx().image, 0, 0, 200, 150);
  const std::string seeds[] = {make_slide("fuzz_jpeg", img, {.tile_size = 64, .compression = "jpeg"}),
                               make_slide("fuzz_lzw", img, {.tile_size = 64, .compression = "lzw", .bigtiff = true}),
                               make_slide("fuzz_svs", img, {.tile_size = 64, .compression = "deflate", .aperio = true})};
  std::uint32_t rng = 12345;
  const auto next = [&] { return rng = rng * 1664525u + 1013904223u; };
  int opened = 0, rejected = 0;
  for (const std::string& seed : seeds) {
    const auto original = read_bytes(seed);
    for (int k = 0; k < 60; ++k) {
      auto b = original;
      const int kind = static_cast<int>(next() % 3);
      if (kind == 0) {
        for (int i = 0; i < 8; ++i) b[next() % b.size()] ^= static_cast<unsigned char>(1u << (next() % 8));
      } else if (kind == 1) {
        // Mostly the header and directories (first 512 bytes and the tail where libtiff puts IFDs).
        const std::size_t at = (next() % 2) ? next() % std::min<std::size_t>(512, b.size()) : b.size() - 1 - next() % std::min<std::size_t>(2048, b.size());
        for (std::size_t i = at; i < std::min(b.size(), at + 4); ++i) b[i] = static_cast<unsigned char>(next());
      } else {
        b.resize(8 + next() % (b.size() - 8));
      }
      const std::string p = cusktest::temp_path("fuzz.tif");
      write_bytes(p, b);
      try {
        const Slide s = Slide::open(p);
        ++opened;
        for (int l = 0; l < s.level_count(); ++l) {
          const auto& lv = s.level(l);
          if (lv.width * lv.height > 4096 * 4096) continue;  // a mutated size: reading it whole is the caller's choice
          s.read_region(-3, -3, l, std::min<std::int64_t>(lv.width + 6, 512), std::min<std::int64_t>(lv.height + 6, 512));
        }
      } catch (const FormatError&) {
        ++rejected;
      } catch (const cuskimage::NotSupported&) {
        ++rejected;
      }
    }
  }
  EXPECT_GT(opened, 0);
  EXPECT_GT(rejected, 0);
  std::printf("mutated slides: %d opened, %d rejected\n", opened, rejected);
}

// ---- Aperio JPEG 2000 (33003 YCbCr, 33005 RGB) ------------------------------------------------------------
#if CUSK_HAVE_OPENJPEG
}  // namespace
#include <openjpeg.h>
namespace {

struct J2kSink {
  std::vector<unsigned char> bytes;
  std::size_t pos = 0;
};
OPJ_SIZE_T j2k_write(void* buf, OPJ_SIZE_T n, void* user) {
  auto* s = static_cast<J2kSink*>(user);
  if (s->pos + n > s->bytes.size()) s->bytes.resize(s->pos + n);
  std::memcpy(s->bytes.data() + s->pos, buf, n);
  s->pos += n;
  return n;
}
OPJ_OFF_T j2k_skip(OPJ_OFF_T n, void* user) {
  auto* s = static_cast<J2kSink*>(user);
  s->pos += static_cast<std::size_t>(n);
  if (s->pos > s->bytes.size()) s->bytes.resize(s->pos);
  return n;
}
OPJ_BOOL j2k_seek(OPJ_OFF_T n, void* user) {
  static_cast<J2kSink*>(user)->pos = static_cast<std::size_t>(n);
  return OPJ_TRUE;
}

/// Lossless (5/3, no colour transform) J2K codestream of three 8-bit planes.
std::vector<unsigned char> j2k_encode(const std::vector<int> planes[3], int w, int h) {
  opj_image_cmptparm_t cp[3]{};
  for (auto& c : cp) c.dx = c.dy = 1, c.w = static_cast<OPJ_UINT32>(w), c.h = static_cast<OPJ_UINT32>(h), c.prec = 8, c.sgnd = 0;
  opj_image_t* img = opj_image_create(3, cp, OPJ_CLRSPC_UNSPECIFIED);
  img->x1 = static_cast<OPJ_UINT32>(w), img->y1 = static_cast<OPJ_UINT32>(h);
  for (int c = 0; c < 3; ++c) std::copy(planes[c].begin(), planes[c].end(), img->comps[c].data);
  opj_cparameters_t par;
  opj_set_default_encoder_parameters(&par);
  par.tcp_numlayers = 1, par.tcp_rates[0] = 0, par.cp_disto_alloc = 1, par.tcp_mct = 0;
  opj_codec_t* codec = opj_create_compress(OPJ_CODEC_J2K);
  opj_setup_encoder(codec, &par, img);
  J2kSink sink;
  opj_stream_t* st = opj_stream_default_create(OPJ_FALSE);
  opj_stream_set_user_data(st, &sink, nullptr);
  opj_stream_set_write_function(st, j2k_write);
  opj_stream_set_skip_function(st, j2k_skip);
  opj_stream_set_seek_function(st, j2k_seek);
  EXPECT_TRUE(opj_start_compress(codec, img, st) && opj_encode(codec, st) && opj_end_compress(codec, st));
  opj_stream_destroy(st);
  opj_destroy_codec(codec);
  opj_image_destroy(img);
  return sink.bytes;
}

/// One-level Aperio-style JPEG 2000 slide of `image` (tiles as raw J2K codestreams).
std::string make_j2k_slide(const std::string& name, const Array& image, bool ycbcr) {
  const std::string path = fixture_path("j2k_" + name + ".svs");
  if (std::filesystem::exists(path)) return path;
  const std::string part = cusktest::temp_path("wsi_j2k_" + name + ".svs");
  const int ts = 128, H = static_cast<int>(image.shape(0)), W = static_cast<int>(image.shape(1));
  const auto* px = static_cast<const std::uint8_t*>(image.data());
  TIFF* t = TIFFOpen(part.c_str(), "w");
  TIFFSetField(t, TIFFTAG_IMAGEWIDTH, W);
  TIFFSetField(t, TIFFTAG_IMAGELENGTH, H);
  TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 3);
  TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 8);
  TIFFSetField(t, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
  TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
  TIFFSetField(t, TIFFTAG_COMPRESSION, ycbcr ? 33003 : 33005);
  TIFFSetField(t, TIFFTAG_TILEWIDTH, ts);
  TIFFSetField(t, TIFFTAG_TILELENGTH, ts);
  TIFFSetField(t, TIFFTAG_IMAGEDESCRIPTION, "Aperio Image Library v12.0.15\n1300x1000 (128x128) J2K/KDU Q=70|AppMag = 40|MPP = 0.25");
  for (int ty = 0; ty < H; ty += ts)
    for (int tx = 0; tx < W; tx += ts) {
      std::vector<int> planes[3];
      for (auto& p : planes) p.resize(static_cast<std::size_t>(ts * ts));
      for (int y = 0; y < ts; ++y)
        for (int x = 0; x < ts; ++x) {
          const int sy = std::min(ty + y, H - 1), sx = std::min(tx + x, W - 1);
          const double r = px[(sy * W + sx) * 3], g = px[(sy * W + sx) * 3 + 1], b = px[(sy * W + sx) * 3 + 2];
          double v[3] = {r, g, b};
          if (ycbcr) {
            v[0] = 0.299 * r + 0.587 * g + 0.114 * b;
            v[1] = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b;
            v[2] = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b;
          }
          for (int c = 0; c < 3; ++c) planes[c][static_cast<std::size_t>(y * ts + x)] = std::clamp(static_cast<int>(std::lround(v[c])), 0, 255);
        }
      const auto bytes = j2k_encode(planes, ts, ts);
      TIFFWriteRawTile(t, TIFFComputeTile(t, tx, ty, 0, 0), const_cast<unsigned char*>(bytes.data()), static_cast<tmsize_t>(bytes.size()));
    }
  TIFFWriteDirectory(t);
  TIFFClose(t);
  std::filesystem::rename(part, path);
  return path;
}

TEST(Wsi, AperioJpeg2000) {
  const Array img = crop(fx().image, 0, 0, 300, 200);
  const Slide rgb = Slide::open(make_j2k_slide("rgb", img, false));
  EXPECT_EQ(rgb.vendor(), "aperio");
  EXPECT_EQ(rgb.property("openslide.objective-power"), "40");
  EXPECT_ARRAY_EQ(img, whole_level(rgb, 0));  // lossless RGB codestream: exact
  const Slide ycc = Slide::open(make_j2k_slide("ycc", img, true));
  // YCbCr rounded to 8 bits, then back to RGB: within 2 levels.
  EXPECT_ARRAY_NEAR(img, whole_level(ycc, 0), 0, 2);
  EXPECT_ARRAY_EQ(crop(whole_level(ycc, 0), 100, 50, 150, 100), ycc.read_region(100, 50, 0, 150, 100));
}
#endif

// ---- GPU: device output = host output (the same host decode, then one stream-ordered copy) ------------------
TEST(GpuWsi, ReadRegionIntoDeviceMemory) {
  CUSK_REQUIRE_GPU();
  const Slide s = Slide::open(fx().jpeg256);
  const cuskimage::Stream stream = cuskimage::Stream::create();
  const Region regions[] = {{0, 0, 0, 256, 256}, {13, 17, 0, 301, 211}, {-40, 990, 0, 120, 50}, {202, 100, 1, 200, 90}};
  for (const Region& r : regions) {
    for (bool rgba : {false, true}) {
      const Array d = s.read_region(r, {.rgba = rgba, .device = cuskimage::Device::cuda(), .nvjpeg = false}, stream);
      EXPECT_TRUE(d.device().is_cuda());
      stream.synchronize();
      EXPECT_ARRAY_EQ(s.read_region(r, {.rgba = rgba}), d);  // exact: identical decode
    }
  }
  std::vector<Region> batch(std::begin(regions), std::end(regions));
  const auto outs = s.read_regions(batch, {.device = cuskimage::Device::cuda(), .nvjpeg = false, .workers = 2}, stream);
  stream.synchronize();
  for (std::size_t i = 0; i < batch.size(); ++i) EXPECT_ARRAY_EQ(s.read_region(batch[i]), outs[i]);
  const Slide svs = Slide::open(fx().svs);
  const Array label = svs.read_associated_image("label", {.device = cuskimage::Device::cuda()}, stream);
  stream.synchronize();
  EXPECT_ARRAY_EQ(fx().label, label);
}

/// |device - host| over the samples of one or more reads.
struct DiffStats {
  std::size_t n = 0, over2 = 0, over8 = 0, over32 = 0;
  double sum = 0;
  int max = 0;
  void add(const Array& want_host, const Array& got) {
    const auto w = want_host.to_vector<int>();
    const auto g = cusktest::host_copy(got).to_vector<int>();
    ASSERT_EQ(w.size(), g.size());
    for (std::size_t k = 0; k < w.size(); ++k) {
      const int d = std::abs(w[k] - g[k]);
      sum += d, max = std::max(max, d);
      over2 += d > 2, over8 += d > 8, over32 += d > 32;
    }
    n += w.size();
  }
  void add(const DiffStats& o) {
    n += o.n, over2 += o.over2, over8 += o.over8, over32 += o.over32, sum += o.sum, max = std::max(max, o.max);
  }
  double mean() const { return n ? sum / static_cast<double>(n) : 0.0; }
  std::string str() const {
    const auto pct = [&](std::size_t k) { return std::to_string(n ? 100.0 * static_cast<double>(k) / static_cast<double>(n) : 0.0); };
    return "max " + std::to_string(max) + ", mean " + std::to_string(mean()) + ", >2 " + pct(over2) + " %, >8 " + pct(over8) +
           " %, >32 " + pct(over32) + " % of " + std::to_string(n) + " samples" + (n && max == 0 ? " (bit-identical)" : "");
  }
};

/// Which colour path a device read's GPU tiles took (from the decode counters).
enum class GpuColour { none, exact, nvjpeg_rgb };
GpuColour colour_of(const cuskimage::wsi::DeviceDecodeStats& before, const cuskimage::wsi::DeviceDecodeStats& after) {
  const auto gpu = after.gpu_tiles - before.gpu_tiles, exact = after.gpu_exact_tiles - before.gpu_exact_tiles;
  return gpu == 0 ? GpuColour::none : exact == gpu ? GpuColour::exact : GpuColour::nvjpeg_rgb;
}

/// The stated tolerance of device reads (wsi.hpp, ReadOptions::nvjpeg), per region:
///   * host-decoded tiles and the exact colour path: the host decoder's bytes where the GPU's IDCT
///     is libjpeg's ISLOW (NVJPG: measured bit-identical on the H200); allowed |d| <= 4 and mean
///     <= 0.1, what another accurate IDCT gives (libjpeg's float IDCT against ISLOW: max 3, mean
///     0.03 on these fixtures). Wrong chroma siting, upsampling or rows would be far outside it
///     (replicated chroma: max 35, mean 4.6 on the 4:2:0 fixture's level 3);
///   * nvJPEG's own RGB output (NvjpegColour::nvjpeg_rgb): within that tolerance of libjpeg-
///     turbo's fancy upsampling or of its simple (replicated) upsampling -- nvJPEG without the
///     interpolation flag is the latter, sample for sample, on the H200 -- or, for another
///     interpolation, mean <= 1.0 from the host's.
/// `vs_simple` collects the distance to the simple upsampling (nvJPEG RGB only).
void expect_gpu_region(const Slide& s, const Region& r, const Array& got, GpuColour colour, DiffStats& vs_host, DiffStats& vs_simple,
                       const std::string& what) {
  DiffStats d, ds;
  d.add(s.read_region(r), got);
  vs_host.add(d);
  if (colour != GpuColour::nvjpeg_rgb) {
    EXPECT_TRUE(d.max <= 4 && d.mean() <= 0.1) << what << ": " << d.str();
    return;
  }
  ds.add(cuskimage::wsi::detail::read_region_simple_upsampling_for_testing(s, r), got);
  vs_simple.add(ds);
  const bool fancy = d.max <= 4 && d.mean() <= 0.1, simple = ds.max <= 4 && ds.mean() <= 0.1;
  EXPECT_TRUE(fancy || simple || d.mean() <= 1.0) << what << ": against the host " << d.str() << "; against simple upsampling " << ds.str();
}

/// Distinct tiles holding pixels of the regions (a device read decodes each once).
std::uint64_t distinct_tiles(const Slide& s, const std::vector<Region>& regions) {
  std::set<std::tuple<int, std::int64_t, std::int64_t>> tiles;
  for (const Region& r : regions) {
    const auto& l = s.level(r.level);
    const double ds = l.downsample;
    const auto lx = ds == 1.0 ? r.x : static_cast<std::int64_t>(std::floor(static_cast<double>(r.x) / ds));
    const auto ly = ds == 1.0 ? r.y : static_cast<std::int64_t>(std::floor(static_cast<double>(r.y) / ds));
    const std::int64_t x0 = std::max<std::int64_t>(lx, 0), y0 = std::max<std::int64_t>(ly, 0);
    const std::int64_t x1 = std::min(lx + r.width, l.width), y1 = std::min(ly + r.height, l.height);
    if (x0 >= x1 || y0 >= y1) continue;
    for (std::int64_t ty = y0 / l.tile_height; ty <= (y1 - 1) / l.tile_height; ++ty)
      for (std::int64_t tx = x0 / l.tile_width; tx <= (x1 - 1) / l.tile_width; ++tx) tiles.insert({r.level, tx, ty});
  }
  return tiles.size();
}

bool built_with_nvjpeg() { return cuskimage::wsi::gpu_jpeg_decoder().rfind("none: this build has no nvJPEG", 0) != 0; }

/// Sets the device reads' colour path (tuning::WsiNvjpegPolicy) for a scope, restoring the policy after.
struct ColourPath {
  explicit ColourPath(cuskimage::tuning::NvjpegColour colour) {
    auto p = cuskimage::tuning::wsi_nvjpeg_policy();
    p.colour = colour;
    old = cuskimage::tuning::set_wsi_nvjpeg_policy(p);
  }
  ~ColourPath() { cuskimage::tuning::set_wsi_nvjpeg_policy(old); }
  cuskimage::tuning::WsiNvjpegPolicy old;
};

TEST(GpuWsi, NvjpegWithinToleranceOfCpu) {
  CUSK_REQUIRE_GPU();
  std::cout << "GPU JPEG decoder: " << cuskimage::wsi::gpu_jpeg_decoder() << std::endl;
  const cuskimage::Stream stream = cuskimage::Stream::create();
  const std::vector<std::string> paths = {fx().jpeg256, fx().bigtiff, fx().jpeg422, fx().jpeg444, fx().svs};
  // Whole tiles (in place), unaligned and odd-width regions (crops; odd row pitches), outside the
  // slide, reduced levels, a region over 4 MB, and regions sharing tiles (decoded once).
  const std::vector<Region> batch = {{0, 0, 0, 256, 256},   {256, 256, 0, 512, 512}, {13, 17, 0, 301, 211}, {-40, 990, 0, 120, 50},
                                     {202, 100, 1, 200, 90}, {0, 0, 3, 170, 130},    {1100, 800, 0, 400, 400},
                                     {-20, -30, 0, 1400, 1100}, {700, 300, 0, 256, 256}};
  for (const std::string& path : paths) {
    const Slide s = Slide::open(path);
    const std::uint64_t tiles = distinct_tiles(s, batch);
    DiffStats all, unused;
    for (bool hybrid : {false, true})
      for (int workers : {1, 3, 8}) {
        const auto before = s.device_decode_stats();
        const auto gpu = s.read_regions(batch, {.device = cuskimage::Device::cuda(), .hybrid = hybrid, .workers = workers}, stream);
        stream.synchronize();
        const auto after = s.device_decode_stats();
        EXPECT_EQ(after.gpu_tiles + after.host_tiles - before.gpu_tiles - before.host_tiles, tiles) << path;
        if (built_with_nvjpeg() && !hybrid && path == fx().jpeg256) {
          EXPECT_EQ(after.host_tiles, before.host_tiles) << "nvJPEG only: every tile on the GPU";
          EXPECT_EQ(after.gpu_tiles - before.gpu_tiles, tiles);
        }
        if (!built_with_nvjpeg()) EXPECT_EQ(after.gpu_tiles, 0u);
        const GpuColour colour = colour_of(before, after);
        for (std::size_t i = 0; i < batch.size(); ++i)
          expect_gpu_region(s, batch[i], gpu[i], colour, all, unused,
                            path + " region " + std::to_string(i) + " hybrid " + std::to_string(hybrid) + " workers " + std::to_string(workers));
      }
    std::cout << "device vs host, " << std::filesystem::path(path).filename().string() << ": " << all.str() << std::endl;
    // One region at a time (read_region); outside the slide: the background exactly.
    {
      const Region r{13, 17, 0, 301, 211};
      const auto before = s.device_decode_stats();
      const Array got = s.read_region(r, {.device = cuskimage::Device::cuda()}, stream);
      stream.synchronize();
      expect_gpu_region(s, r, got, colour_of(before, s.device_decode_stats()), all, unused, path + " read_region");
    }
    const Array out = s.read_region(-10, -10, 0, 8, 8, {.device = cuskimage::Device::cuda()}, stream);
    stream.synchronize();
    EXPECT_ARRAY_EQ(Array::zeros({8, 8, 3}, DType::uint8), out);
    // A grey background around slide pixels: the background exactly, the pixels within tolerance.
    const Region g{-10, -10, 0, 30, 30};
    const auto before = s.device_decode_stats();
    const Array grey = cusktest::host_copy(s.read_region(g, {.background = {77, 77, 77}, .device = cuskimage::Device::cuda()}, stream));
    const GpuColour colour = colour_of(before, s.device_decode_stats());
    const Array want = s.read_region(g, {.background = {77, 77, 77}});
    const auto gv = grey.to_vector<int>(), wv = want.to_vector<int>();
    std::size_t background_wrong = 0;
    for (std::int64_t y = 0; y < 30; ++y)
      for (std::int64_t x = 0; x < 30; ++x)
        if (y < 10 || x < 10)
          for (int c = 0; c < 3; ++c) background_wrong += gv[static_cast<std::size_t>((y * 30 + x) * 3 + c)] != 77 || wv[static_cast<std::size_t>((y * 30 + x) * 3 + c)] != 77;
    EXPECT_EQ(background_wrong, 0u) << path;
    DiffStats d;
    d.add(want, grey);
    EXPECT_TRUE(colour == GpuColour::nvjpeg_rgb || (d.max <= 4 && d.mean() <= 0.1)) << path << " grey background: " << d.str();
  }
  // nvJPEG's own RGB output (NvjpegColour::nvjpeg_rgb), on the GPU alone: how far it is from
  // the host (fancy upsampling) and from libjpeg's simple upsampling, recorded per fixture.
  if (built_with_nvjpeg()) {
    const ColourPath rgb(cuskimage::tuning::NvjpegColour::nvjpeg_rgb);
    std::cout << "GPU JPEG decoder, nvJPEG RGB: " << cuskimage::wsi::gpu_jpeg_decoder() << std::endl;
    for (const std::string& path : paths) {
      const Slide s = Slide::open(path);
      DiffStats vs_host, vs_simple;
      const auto before = s.device_decode_stats();
      const auto gpu = s.read_regions(batch, {.device = cuskimage::Device::cuda(), .hybrid = false, .workers = 3}, stream);
      stream.synchronize();
      const GpuColour colour = colour_of(before, s.device_decode_stats());
      EXPECT_NE(colour, GpuColour::exact) << path;
      for (std::size_t i = 0; i < batch.size(); ++i) expect_gpu_region(s, batch[i], gpu[i], colour, vs_host, vs_simple, path + " RGB region " + std::to_string(i));
      std::cout << "nvJPEG RGB vs host, " << std::filesystem::path(path).filename().string() << ": " << vs_host.str()
                << "; vs simple upsampling: " << vs_simple.str() << std::endl;
    }
  }
  // RGB (Aperio) JPEG and RGBA output take the host path: exact.
  const Slide rgb = Slide::open(fx().jpeg240_rgb);
  const auto d = rgb.read_regions({{13, 17, 0, 301, 211}, {240, 0, 0, 240, 240}}, {.device = cuskimage::Device::cuda(), .workers = 4}, stream);
  stream.synchronize();
  EXPECT_ARRAY_EQ(rgb.read_region(13, 17, 0, 301, 211), d[0]);
  EXPECT_ARRAY_EQ(rgb.read_region(240, 0, 0, 240, 240), d[1]);
}

/// Sets the tiles per stacked nvJPEG image (tuning::WsiNvjpegPolicy::stack) for a scope.
struct StackTiles {
  explicit StackTiles(int k) {
    auto p = cuskimage::tuning::wsi_nvjpeg_policy();
    p.stack = k;
    old = cuskimage::tuning::set_wsi_nvjpeg_policy(p);
  }
  ~StackTiles() { cuskimage::tuning::set_wsi_nvjpeg_policy(old); }
  cuskimage::tuning::WsiNvjpegPolicy old;
};

/// Stacked tiles (several tiles per nvJPEG image, the exact path's default) give the bytes of one
/// tile per image, every fixture, 3, 8 and 64 per stack, aligned, unaligned and reduced-level
/// regions, nvJPEG alone and hybrid; and stacking stays on after its self-check.
TEST(GpuWsi, StackedTilesEqualSingleTiles) {
  CUSK_REQUIRE_GPU();
  const cuskimage::Stream stream = cuskimage::Stream::create();
  const std::string small = make_slide("jpeg_stack_gpu_48", crop(fx().image, 0, 0, 333, 277), {.tile_size = 48, .compression = "jpeg", .quality = 75});
  const std::string large = make_slide("jpeg_large", synthetic_rgb(2100, 3000, 13), {.tile_size = 256, .compression = "jpeg", .quality = 80});
  std::mt19937 rng(3);
  for (const std::string& path : {fx().jpeg256, fx().jpeg422, fx().jpeg444, fx().svs, small, large}) {
    const Slide s = Slide::open(path, {.cache_bytes = 0});
    std::vector<Region> batch = {{0, 0, 0, 256, 256}, {13, 17, 0, 301, 211}, {202, 100, 1, 200, 90}, {-20, -30, 0, 700, 500}};
    const auto& l0 = s.level(0);
    for (int i = 0; i < 160; ++i) {
      const std::int64_t x = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(l0.width)),
                         y = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(l0.height));
      batch.push_back(i % 2 ? Region{x / l0.tile_width * l0.tile_width, y / l0.tile_height * l0.tile_height, 0, l0.tile_width, l0.tile_height}
                            : Region{x, y, 0, 150, 120});
    }
    for (bool hybrid : {false, true}) {
      std::vector<Array> single;
      {
        const StackTiles one(1);
        for (const Array& a : s.read_regions(batch, {.device = cuskimage::Device::cuda(), .hybrid = hybrid, .workers = 4}, stream))
          single.push_back(a.to(cuskimage::Device::cpu(), stream));
      }
      for (int k : {3, 8, 64}) {
        const StackTiles stack(k);
        const auto before = s.device_decode_stats();
        const auto got = s.read_regions(batch, {.device = cuskimage::Device::cuda(), .hybrid = hybrid, .workers = 4}, stream);
        stream.synchronize();
        const GpuColour colour = colour_of(before, s.device_decode_stats());
        if (built_with_nvjpeg() && !hybrid) EXPECT_EQ(colour, GpuColour::exact) << path;
        const std::string what = cuskimage::wsi::gpu_jpeg_decoder();
        if (built_with_nvjpeg()) EXPECT_NE(what.find("tiles stacked per image"), std::string::npos) << what;
        DiffStats all, unused;
        for (std::size_t i = 0; i < batch.size(); ++i) {
          if (colour == GpuColour::exact && !hybrid) EXPECT_ARRAY_EQ(single[i], got[i].to(cuskimage::Device::cpu(), stream));
          expect_gpu_region(s, batch[i], got[i], colour, all, unused, path + " stack " + std::to_string(k) + " region " + std::to_string(i));
        }
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

/// The scheduler's parameters (tuning::WsiNvjpegPolicy: small batches, one slot per feeder, no
/// ramp, every chunk taken) change who decodes what and when, never the bytes: the device read
/// equals the host path's within the exact path's tolerance, every distinct tile decoded once.
TEST(GpuWsi, SchedulerPolicyKeepsThePixels) {
  CUSK_REQUIRE_GPU();
  namespace tuning = cuskimage::tuning;
  const std::string path = make_slide("jpeg_large", synthetic_rgb(2100, 3000, 13), {.tile_size = 256, .compression = "jpeg", .quality = 80});
  const Slide s = Slide::open(path, {.cache_bytes = 0});
  std::vector<Region> batch;
  for (std::int64_t i = 0; i < 60; ++i) batch.push_back({(i % 11) * 256 + (i % 2) * 100, (i % 8) * 256 + (i % 3) * 50, 0, 256, 256});
  const std::uint64_t tiles = distinct_tiles(s, batch);
  const cuskimage::Stream stream = cuskimage::Stream::create();
  for (const tuning::WsiNvjpegPolicy& p : {tuning::WsiNvjpegPolicy{.batch = 4, .depth = 1, .ramp = -1, .min_chunk = 1},
                                           tuning::WsiNvjpegPolicy{.stack = 3, .batch = 16, .depth = 3, .ramp = 2}}) {
    const tuning::WsiNvjpegPolicy old = tuning::set_wsi_nvjpeg_policy(p);
    for (bool hybrid : {false, true}) {
      const auto before = s.device_decode_stats();
      const auto got = s.read_regions(batch, {.device = cuskimage::Device::cuda(), .hybrid = hybrid, .workers = 6}, stream);
      stream.synchronize();
      const auto after = s.device_decode_stats();
      EXPECT_EQ(after.gpu_tiles + after.host_tiles - before.gpu_tiles - before.host_tiles, tiles);
      const GpuColour colour = colour_of(before, after);
      DiffStats all, unused;
      for (std::size_t i = 0; i < batch.size(); ++i)
        expect_gpu_region(s, batch[i], got[i], colour, all, unused,
                          "batch " + std::to_string(p.batch) + " hybrid " + std::to_string(hybrid) + " region " + std::to_string(i));
    }
    tuning::set_wsi_nvjpeg_policy(old);
  }
}

/// A larger batch of aligned and unaligned regions, many sharing tiles: the hybrid scheduler splits
/// it between nvJPEG and the host workers (both take some), every distinct tile is decoded once,
/// pixels within the tolerance; the host path (nvjpeg = false) is exact. On the caller's
/// per-thread default stream too.
TEST(GpuWsi, HybridSplitsLargeBatches) {
  CUSK_REQUIRE_GPU();
  const std::string path = make_slide("jpeg_large", synthetic_rgb(2100, 3000, 13), {.tile_size = 256, .compression = "jpeg", .quality = 80});
  const Slide s = Slide::open(path, {.cache_bytes = 0});
  std::mt19937 rng(7);
  std::vector<Region> batch;
  for (int i = 0; i < 240; ++i) {
    const std::int64_t tx = rng() % 11, ty = rng() % 8;
    if (i % 2 == 0) batch.push_back({tx * 256, ty * 256, 0, 256, 256});
    else batch.push_back({tx * 256 + 100, ty * 256 + 77, 0, 256, 256});
  }
  const std::uint64_t tiles = distinct_tiles(s, batch);
  const cuskimage::Stream stream = cuskimage::Stream::create();
  DiffStats all, unused;
  for (int rep = 0; rep < 3; ++rep) {  // later reads use the rates the earlier ones measured
    const auto before = s.device_decode_stats();
    const auto got = s.read_regions(batch, {.device = cuskimage::Device::cuda(), .hybrid = true, .workers = 8}, stream);
    stream.synchronize();
    const auto after = s.device_decode_stats();
    EXPECT_EQ(after.gpu_tiles + after.host_tiles - before.gpu_tiles - before.host_tiles, tiles);
    if (built_with_nvjpeg()) {
      EXPECT_GT(after.gpu_tiles, before.gpu_tiles) << "the GPU took no tiles";
      EXPECT_GT(after.host_tiles, before.host_tiles) << "the host workers took no tiles";
      std::cout << "hybrid split: " << after.gpu_tiles - before.gpu_tiles << " tiles on the GPU, "
                << after.host_tiles - before.host_tiles << " on the host (" << tiles << " distinct tiles in " << batch.size()
                << " regions)" << std::endl;
    }
    const GpuColour colour = colour_of(before, after);
    for (std::size_t i = 0; i < batch.size(); ++i) expect_gpu_region(s, batch[i], got[i], colour, all, unused, "region " + std::to_string(i));
  }
  std::cout << "hybrid device vs host: " << all.str() << std::endl;
  const auto exact = s.read_regions(batch, {.device = cuskimage::Device::cuda(), .nvjpeg = false, .workers = 4}, stream);
  stream.synchronize();
  for (std::size_t i = 0; i < batch.size(); i += 7) EXPECT_ARRAY_EQ(s.read_region(batch[i]), exact[i]);
  // The default stream of a thread that is not the pool's: the workers' streams join it.
  std::thread([&] {
    const auto before = s.device_decode_stats();
    const auto got = s.read_regions(batch, {.device = cuskimage::Device::cuda(), .workers = 6});
    cuskimage::Stream().synchronize();
    const GpuColour colour = colour_of(before, s.device_decode_stats());
    for (std::size_t i = 0; i < batch.size(); i += 5)
      expect_gpu_region(s, batch[i], got[i], colour, all, unused, "per-thread stream, region " + std::to_string(i));
  }).join();
}

/// The GPU decoder in use is reported; GPUs with NVJPG engines (A100, H100, H200) must use them.
TEST(GpuWsi, NvjpegBackendReported) {
  CUSK_REQUIRE_GPU();
  const std::string what = cuskimage::wsi::gpu_jpeg_decoder();
  std::cout << "GPU JPEG decoder: " << what << std::endl;
  if (!built_with_nvjpeg()) {
    // A build without nvJPEG (it is optional) says so, and device reads decode on the host: the
    // host path's pixels, no GPU tiles.
    const Slide s = Slide::open(fx().jpeg256);
    const auto before = s.device_decode_stats();
    const cuskimage::Stream stream = cuskimage::Stream::create();
    const Array d = s.read_region(100, 77, 0, 300, 211, {.device = cuskimage::Device::cuda()}, stream);
    EXPECT_ARRAY_EQ(s.read_region(100, 77, 0, 300, 211), d.to(cuskimage::Device::cpu(), stream));
    EXPECT_EQ(s.device_decode_stats().gpu_tiles, before.gpu_tiles) << what;
    return;
  }
  EXPECT_EQ(what.rfind("nvJPEG ", 0), 0u) << what;
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  const std::string name = prop.name;
  for (const char* nvjpg : {"A100", "A800", "H100", "H200", "H800", "GH200"})
    if (name.find(nvjpg) != std::string::npos) EXPECT_NE(what.find("hardware backend"), std::string::npos) << name << ": " << what;
  // The exact colour path is on after its self-check (one read starts it), on every GPU.
  const Slide s = Slide::open(fx().jpeg256);
  const cuskimage::Stream stream = cuskimage::Stream::create();
  (void)s.read_region(0, 0, 0, 256, 256, {.device = cuskimage::Device::cuda()}, stream);
  stream.synchronize();
  const std::string after = cuskimage::wsi::gpu_jpeg_decoder();
  std::cout << "GPU JPEG decoder after a read: " << after << std::endl;
  EXPECT_NE(after.find("colour: exact"), std::string::npos) << after;
  EXPECT_EQ(cuskimage::wsi::gpu_jpeg_decoder(cuskimage::Device::cpu()).rfind("none: ", 0), 0u);
}

TEST(GpuWsi, DeviceReadsAvoidLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Slide s = Slide::open(fx().jpeg256);
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const cuskimage::Stream& st) {
    const Array d = s.read_region(13, 17, 0, 301, 211, {.device = cuskimage::Device::cuda()}, st);
    const auto outs = s.read_regions({{0, 0, 0, 64, 64}, {500, 500, 1, 64, 64}}, {.device = cuskimage::Device::cuda()}, st);
    st.synchronize();
  }));
}

TEST(GpuWsi, WritePyramidFromDeviceArray) {
  CUSK_REQUIRE_GPU();
  const cuskimage::Stream stream = cuskimage::Stream::create();
  const Array host = synthetic_rgb(200, 300, 11);
  const Array dev = host.to(cuskimage::Device::cuda(), stream);
  const std::string p = cusktest::temp_path("wsi_from_device.tif");
  cuskimage::wsi::write_pyramid(p, dev, {.tile_size = 64, .compression = "deflate"}, stream);
  EXPECT_ARRAY_EQ(host, whole_level(Slide::open(p), 0));
}

// ---- CLI --------------------------------------------------------------------------------------------------------
#ifdef CUSK_CLI_EXE
}  // namespace
#include "tests/cli/cli_support.hpp"
namespace {

TEST(WsiCli, SlideInfoReadRegionConvert) {
  using cuskclitest::describe;
  using cuskclitest::run_cli;
  auto r = run_cli({"wsi.slide-info", fx().svs});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_NE(r.out.find("\"openslide.vendor\": \"aperio\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"openslide.mpp-x\": \"0.499\""), std::string::npos);

  const std::string out = cusktest::temp_path("wsi_cli_region.png");
  r = run_cli({"wsi.read-region", fx().jpeg256, "100", "200", "64", "32", out, "--level", "1"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(Slide::open(fx().jpeg256).read_region(100, 200, 1, 64, 32), cuskimage::io::imread(out));

  const std::string png = cusktest::temp_path("wsi_cli_src.png");
  cuskimage::io::imsave(png, synthetic_rgb(300, 500), {.check_contrast = false});
  const std::string conv = cusktest::temp_path("wsi_cli_conv.tif");
  r = run_cli({"wsi.convert", png, conv, "--compression", "deflate", "--tile_size", "128"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_NE(r.out.find("\"levels\": 3"), std::string::npos) << r.out;
  EXPECT_ARRAY_EQ(synthetic_rgb(300, 500), whole_level(Slide::open(conv), 0));

  r = run_cli({"wsi.read-region", fx().jpeg256, "0", "0", "10", "10", out, "--level", "9"});
  EXPECT_EQ(r.rc, 1) << describe(r);
  r = run_cli({"wsi.slide-info", cusktest::temp_path("nope.svs")});
  EXPECT_EQ(r.rc, 1) << describe(r);

  // The short names are aliases of the wsi.* commands.
  const auto info = run_cli({"wsi.slide-info", fx().svs});
  r = run_cli({"slide-info", fx().svs});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_EQ(r.out, info.out);
  const std::string out2 = cusktest::temp_path("wsi_cli_region_alias.png");
  r = run_cli({"read-region", fx().jpeg256, "100", "200", "64", "32", out2, "--level", "1"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(cuskimage::io::imread(out), cuskimage::io::imread(out2));
  const std::string conv2 = cusktest::temp_path("wsi_cli_conv_alias.tif");
  r = run_cli({"convert", png, conv2, "--compression", "deflate", "--tile_size", "128"});
  ASSERT_EQ(r.rc, 0) << describe(r);
  EXPECT_ARRAY_EQ(synthetic_rgb(300, 500), whole_level(Slide::open(conv2), 0));
}
#endif

}  // namespace
