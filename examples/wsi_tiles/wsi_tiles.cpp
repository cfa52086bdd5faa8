// A training-loader style reader: opens a slide, finds tissue on its lowest level (pixels darker
// than the white background), and reads every level-0 tile that has tissue, in batches, with
// several decode threads, into device memory when a GPU is present.
//
//   wsi_tiles SLIDE [TILE=256] [WORKERS=2]
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "cuskimage/wsi.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s SLIDE [TILE=256] [WORKERS=2]\n", argv[0]);
    return 2;
  }
  namespace wsi = cuskimage::wsi;
  const std::int64_t tile = argc > 2 ? std::atoll(argv[2]) : 256;
  const int workers = argc > 3 ? std::atoi(argv[3]) : 2;
  try {
    const wsi::Slide slide = wsi::Slide::open(argv[1]);
    const auto [w, h] = slide.dimensions();
    std::printf("%s: %s, %lld x %lld, %d levels, mpp %s\n", argv[1], slide.vendor().c_str(), (long long)w, (long long)h,
                slide.level_count(), slide.property("openslide.mpp-x").value_or("?").c_str());

    // Tissue mask from the lowest level: one sample per level-0 tile.
    const int low = slide.level_count() - 1;
    const wsi::Level& lv = slide.level(low);
    const cuskimage::Array thumb = slide.read_region(0, 0, low, lv.width, lv.height);
    const auto* px = static_cast<const std::uint8_t*>(thumb.data());
    std::vector<wsi::Region> regions;
    for (std::int64_t y = 0; y < h; y += tile)
      for (std::int64_t x = 0; x < w; x += tile) {
        const auto tx = std::min<std::int64_t>(static_cast<std::int64_t>((x + tile / 2) / lv.downsample), lv.width - 1);
        const auto ty = std::min<std::int64_t>(static_cast<std::int64_t>((y + tile / 2) / lv.downsample), lv.height - 1);
        const std::uint8_t* p = px + (ty * lv.width + tx) * 3;
        if (p[0] + p[1] + p[2] < 3 * 220) regions.push_back({x, y, 0, tile, tile});
      }
    std::printf("%zu tissue tiles of %lld\n", regions.size(), (long long)(((w + tile - 1) / tile) * ((h + tile - 1) / tile)));

    const auto device = cuskimage::default_device();
    const cuskimage::Stream stream = device.is_cuda() ? cuskimage::Stream::create() : cuskimage::Stream();
    const auto t0 = std::chrono::steady_clock::now();
    std::size_t done = 0;
    for (std::size_t b = 0; b < regions.size(); b += 64) {
      std::vector<wsi::Region> batch(regions.begin() + b, regions.begin() + std::min(regions.size(), b + 64));
      const auto tiles = slide.read_regions(batch, {.device = device, .workers = workers}, stream);
      done += tiles.size();  // a training step would consume `tiles` here
    }
    if (device.is_cuda()) stream.synchronize();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("read %zu tiles into %s in %.2f s: %.0f tiles/s\n", done, device.str().c_str(), s, done / s);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
