// Whole-slide reading throughput: 256x256 reads from a generated 20000x20000 JPEG Q80 slide
// (YCbCr 4:2:0, 256-pixel tiles), page cache warm, at 1, 2, 4, ... threads (up to the host's cores):
//   * cuskimage read_region, aligned tiles (decoded straight into the output) and unaligned 256²
//     regions (4 tiles each; each tile decoded only in the part the region needs: cropped columns,
//     skipped rows, see src/wsi/decode.cpp);
//   * OpenSlide's openslide_read_region on the same file and regions (the C API, same process),
//     when libopenslide was found;
//   * raw TurboJPEG decode of the same tiles' bytes (tables merged in): the ceiling of any CPU
//     reader of whole tiles; and the pieces of an aligned read (pread alone, TurboJPEG and the
//     library's decoder on tiles spread over the slide: BM_wsi_pread_tile, BM_wsi_decode_spread);
//   * read_regions into device memory (batches of 512 regions, all cores), when a GPU is present:
//     host decode + copy (mode 0), nvJPEG only (mode 1), hybrid nvJPEG + host workers (mode 2),
//     aligned and unaligned; tiles_per_s counts 256² regions delivered, GB_per_s their RGB bytes,
//     gpu_share the fraction of tile decodes nvJPEG did, tiles_per_region the decodes per region
//     (regions of a batch that share a tile get it decoded once), exact_share the GPU tiles that
//     took the exact colour path; the label names the GPU decoder. The device path's scheduler is
//     tuning::WsiNvjpegPolicy; $CUSK_WSI_BENCH_NVJPEG sets it for a run (bench/wsi/sweep.sh).
// Bytes moved per tile: ~10-20 KB compressed in, 196,608 B RGB out; the floor is the JPEG decoder
// (about 130 µs per tile per core here, 60 % of it Huffman decoding), not memory. Each benchmark
// runs 0.5 s (the whole binary well under 90 s on the GPU host). The slide is written once to
// $CUSK_WSI_BENCH_SLIDE (default /tmp/cuskimage_bench_20000.tif) and reused.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>
#include <tiffio.h>
#include <turbojpeg.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuskimage/tuning.hpp"
#include "cuskimage/wsi.hpp"
#include "src/wsi/wsi_detail.hpp"

#if CUSK_HAVE_OPENSLIDE
#include <openslide/openslide.h>
#endif

namespace {

using cuskimage::Array;
using cuskimage::DType;
namespace wsi = cuskimage::wsi;

constexpr std::int64_t kSide = 20000, kTile = 256;

/// $CUSK_WSI_BENCH_NVJPEG, e.g. "batch=256,depth=3,stack=4,ramp=-1,min_chunk=32,colour=nvjpeg_rgb":
/// the nvJPEG policy of this run (sweeps run one process per setting; the library itself reads no
/// environment). Unknown names abort, so a sweep cannot silently measure the default.
const bool g_nvjpeg_policy_set = [] {
  const char* env = std::getenv("CUSK_WSI_BENCH_NVJPEG");
  if (env == nullptr || *env == '\0') return false;
  namespace tuning = cuskimage::tuning;
  tuning::WsiNvjpegPolicy p;
  std::string spec(env);
  for (std::size_t at = 0; at < spec.size();) {
    const std::size_t end = std::min(spec.find(',', at), spec.size());
    const std::string item = spec.substr(at, end - at);
    at = end + 1;
    const std::size_t eq = item.find('=');
    const std::string name = item.substr(0, eq), value = eq == std::string::npos ? "" : item.substr(eq + 1);
    if (name == "colour") p.colour = value == "nvjpeg_rgb" ? tuning::NvjpegColour::nvjpeg_rgb : tuning::NvjpegColour::exact;
    else if (name == "stack") p.stack = std::stoi(value);
    else if (name == "batch") p.batch = std::stoi(value);
    else if (name == "depth") p.depth = std::stoi(value);
    else if (name == "ramp") p.ramp = std::stoi(value);
    else if (name == "min_chunk") p.min_chunk = std::stoi(value);
    else {
      std::fprintf(stderr, "CUSK_WSI_BENCH_NVJPEG: unknown setting '%s'\n", name.c_str());
      std::abort();
    }
  }
  tuning::set_wsi_nvjpeg_policy(p);
  return true;
}();

std::string slide_path() {
  const char* env = std::getenv("CUSK_WSI_BENCH_SLIDE");
  const std::string p = env && *env ? env : "/tmp/cuskimage_bench_20000.tif";
  if (std::filesystem::exists(p)) return p;
  // Tissue-like content: smooth colour fields, cell-like blobs and noise (JPEG Q80 gives
  // ~15 KB tiles, like real H&E slides).
  Array img = Array::empty({kSide, kSide, 3}, DType::uint8);
  auto* d = static_cast<std::uint8_t*>(img.data());
#pragma omp parallel for schedule(static)
  for (std::int64_t y = 0; y < kSide; ++y) {
    std::uint32_t s = static_cast<std::uint32_t>(y) * 2654435761u + 1u;
    const double fy = std::sin(y / 41.0);
    for (std::int64_t x = 0; x < kSide; ++x) {
      s = s * 1664525u + 1013904223u;
      const int noise = static_cast<int>((s >> 24) & 15) - 8;
      const double f = std::sin(x / 37.0) * fy;
      const bool cell = ((x / 23 + y / 29) % 7) == 0;
      std::uint8_t* p = d + (y * kSide + x) * 3;
      p[0] = static_cast<std::uint8_t>(std::clamp(static_cast<int>(210 + 30 * f) + noise - (cell ? 100 : 0), 0, 255));
      p[1] = static_cast<std::uint8_t>(std::clamp(static_cast<int>(160 + 40 * f) + noise - (cell ? 60 : 0), 0, 255));
      p[2] = static_cast<std::uint8_t>(std::clamp(static_cast<int>(200 + 20 * f) + noise, 0, 255));
    }
  }
  wsi::write_pyramid(p, img, {.tile_size = kTile, .compression = "jpeg", .quality = 80, .levels = 3});
  return p;
}

const wsi::Slide& slide() {
  static const wsi::Slide s = wsi::Slide::open(slide_path(), {.cache_bytes = std::size_t(64) << 20});
  return s;
}

/// Tile origins in a fixed random order (distinct tiles: the tile cache and OpenSlide's cache miss).
const std::vector<std::pair<std::int64_t, std::int64_t>>& tile_order() {
  static const auto order = [] {
    std::vector<std::pair<std::int64_t, std::int64_t>> v;
    const std::int64_t n = kSide / kTile;
    for (std::int64_t ty = 0; ty < n; ++ty)
      for (std::int64_t tx = 0; tx < n; ++tx) v.push_back({tx * kTile, ty * kTile});
    std::mt19937 rng(42);
    std::shuffle(v.begin(), v.end(), rng);
    return v;
  }();
  return order;
}

std::atomic<std::size_t> g_next{0};

void finish(benchmark::State& st) {
  st.SetItemsProcessed(st.iterations());
  st.counters["tiles_per_s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  st.SetBytesProcessed(st.iterations() * kTile * kTile * 3);
}

/// Runs first: writes the slide when missing, then reads all of level 0 once with every core (page
/// cache, decoders, the pool's threads), so the 1-thread figures that follow measure reads alone.
void BM_wsi_prepare(benchmark::State& st) {
  for (auto _ : st) {
    const auto& s = slide();
    std::vector<wsi::Region> all;
    for (const auto& [x, y] : tile_order()) all.push_back({x, y, 0, kTile, kTile});
    for (std::size_t i = 0; i < all.size(); i += 512) {
      const std::vector<wsi::Region> part(all.begin() + static_cast<std::ptrdiff_t>(i),
                                          all.begin() + static_cast<std::ptrdiff_t>(std::min(all.size(), i + 512)));
      benchmark::DoNotOptimize(s.read_regions(part, {.workers = 0}).data());
    }
  }
}

void BM_wsi_cuskimage_aligned(benchmark::State& st) {
  const auto& s = slide();
  const auto& order = tile_order();
  Array out = Array::empty({kTile, kTile, 3}, DType::uint8);
  for (auto _ : st) {
    const auto& [x, y] = order[g_next.fetch_add(1) % order.size()];
    s.read_region_into({x, y, 0, kTile, kTile}, out);
    benchmark::DoNotOptimize(out.data());
  }
  finish(st);
}

void BM_wsi_cuskimage_unaligned(benchmark::State& st) {
  const auto& s = slide();
  const auto& order = tile_order();
  Array out = Array::empty({kTile, kTile, 3}, DType::uint8);
  for (auto _ : st) {
    const auto& [x, y] = order[g_next.fetch_add(1) % order.size()];
    s.read_region_into({std::min(x + 100, kSide - 300), std::min(y + 77, kSide - 300), 0, kTile, kTile}, out);
    benchmark::DoNotOptimize(out.data());
  }
  finish(st);
}

void BM_wsi_cuskimage_read_regions(benchmark::State& st) {
  // One batch of 64 aligned tiles decoded by `range(0)` workers (the loader-style API).
  const auto& s = slide();
  const auto& order = tile_order();
  std::size_t k = 0;
  for (auto _ : st) {
    std::vector<wsi::Region> batch;
    for (int i = 0; i < 64; ++i, ++k) batch.push_back({order[k % order.size()].first, order[k % order.size()].second, 0, kTile, kTile});
    auto outs = s.read_regions(batch, {.workers = static_cast<int>(st.range(0))});
    benchmark::DoNotOptimize(outs.data());
  }
  st.counters["tiles_per_s"] = benchmark::Counter(64.0 * static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}

#if CUSK_HAVE_OPENSLIDE
openslide_t* osr() {
  static openslide_t* o = openslide_open(slide_path().c_str());
  return o;
}

void BM_wsi_openslide_aligned(benchmark::State& st) {
  const auto& order = tile_order();
  std::vector<std::uint32_t> buf(kTile * kTile);
  for (auto _ : st) {
    const auto& [x, y] = order[g_next.fetch_add(1) % order.size()];
    openslide_read_region(osr(), buf.data(), x, y, 0, kTile, kTile);
    benchmark::DoNotOptimize(buf.data());
  }
  finish(st);
}

void BM_wsi_openslide_unaligned(benchmark::State& st) {
  const auto& order = tile_order();
  std::vector<std::uint32_t> buf(kTile * kTile);
  for (auto _ : st) {
    const auto& [x, y] = order[g_next.fetch_add(1) % order.size()];
    openslide_read_region(osr(), buf.data(), std::min(x + 100, kSide - 300), std::min(y + 77, kSide - 300), 0, kTile, kTile);
    benchmark::DoNotOptimize(buf.data());
  }
  finish(st);
}
#endif

/// Complete JPEG streams (JPEGTables merged into each abbreviated tile) of the first 512 tiles.
const std::vector<std::vector<unsigned char>>& raw_tiles() {
  static const auto tiles = [] {
    std::vector<std::vector<unsigned char>> v;
    TIFF* t = TIFFOpen(slide_path().c_str(), "r");
    std::uint32_t n = 0;
    void* tables = nullptr;
    TIFFGetField(t, TIFFTAG_JPEGTABLES, &n, &tables);
    const auto* tb = static_cast<const unsigned char*>(tables);
    std::vector<unsigned char> buf(1 << 22);
    for (ttile_t i = 0; i < 512; ++i) {
      const tmsize_t got = TIFFReadRawTile(t, i, buf.data(), static_cast<tmsize_t>(buf.size()));
      std::vector<unsigned char> j(tb, tb + n - 2);             // tables without EOI
      j.insert(j.end(), buf.begin() + 2, buf.begin() + got);  // tile without SOI
      v.push_back(std::move(j));
    }
    TIFFClose(t);
    return v;
  }();
  return tiles;
}

/// Level 0's tile table and JPEGTables (libtiff), as the library's reader holds them.
const cuskimage::wsi::detail::TiledImage& level0() {
  static const auto t = [] {
    cuskimage::wsi::detail::TiledImage ti;
    TIFF* tif = TIFFOpen(slide_path().c_str(), "r");
    std::uint32_t w = 0, h = 0, tw = 0, th = 0;
    TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w);
    TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &h);
    TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw);
    TIFFGetField(tif, TIFFTAG_TILELENGTH, &th);
    ti.width = w, ti.height = h, ti.tile_width = tw, ti.tile_height = th;
    ti.tiles_across = (w + tw - 1) / tw, ti.tiles_down = (h + th - 1) / th;
    ti.compression = cuskimage::wsi::detail::kJpeg, ti.photometric = 6, ti.spp = 3, ti.bps = 8;
    const auto n = static_cast<std::uint32_t>(ti.tiles_across * ti.tiles_down);
    for (std::uint32_t i = 0; i < n; ++i) {
      ti.offsets.push_back(TIFFGetStrileOffset(tif, i));
      ti.byte_counts.push_back(TIFFGetStrileByteCount(tif, i));
    }
    std::uint32_t nt = 0;
    void* tables = nullptr;
    TIFFGetField(tif, TIFFTAG_JPEGTABLES, &nt, &tables);
    ti.jpeg_tables.assign(static_cast<const unsigned char*>(tables), static_cast<const unsigned char*>(tables) + nt);
    TIFFClose(tif);
    return ti;
  }();
  return t;
}

/// The tile index of a level-0 origin in tile_order().
std::uint64_t tile_index(std::int64_t x, std::int64_t y) {
  return static_cast<std::uint64_t>((y / kTile) * level0().tiles_across + x / kTile);
}

/// Raw (abbreviated) tile bytes of 2048 tiles spread over the whole slide, in tile_order().
const std::vector<std::vector<unsigned char>>& spread_tiles() {
  static const auto tiles = [] {
    std::vector<std::vector<unsigned char>> v;
    const auto& t = level0();
    const int fd = ::open(slide_path().c_str(), O_RDONLY);
    for (std::size_t k = 0; k < 2048; ++k) {
      const auto& [x, y] = tile_order()[(k * 3) % tile_order().size()];
      const std::uint64_t i = tile_index(x, y);
      std::vector<unsigned char> b(t.byte_counts[i]);
      if (::pread(fd, b.data(), b.size(), static_cast<off_t>(t.offsets[i])) != static_cast<ssize_t>(b.size())) b.clear();
      v.push_back(std::move(b));
    }
    ::close(fd);
    return v;
  }();
  return tiles;
}

/// Where a read's time goes, piece by piece (aligned 256² tiles, page cache warm):
///   BM_wsi_pread_tile: the fetch alone (pread of one random tile's bytes);
///   BM_wsi_decode_spread/0: TurboJPEG on 2048 preloaded tiles spread over the slide (the tables
///     merged in), /1: the library's decoder (jpeglib API, JPEGTables loaded per tile) on the same
///     tiles -- against BM_wsi_raw_turbojpeg (512 neighbouring tiles, hot in the caches) and
///     BM_wsi_cuskimage_aligned (fetch + decode + the read's bookkeeping).
void BM_wsi_pread_tile(benchmark::State& st) {
  const auto& t = level0();
  const auto& order = tile_order();
  static const int fd = ::open(slide_path().c_str(), O_RDONLY);
  std::vector<unsigned char> buf(1 << 20);
  for (auto _ : st) {
    const auto& [x, y] = order[g_next.fetch_add(1) % order.size()];
    const std::uint64_t i = tile_index(x, y);
    benchmark::DoNotOptimize(::pread(fd, buf.data(), t.byte_counts[i], static_cast<off_t>(t.offsets[i])));
  }
  finish(st);
}

void BM_wsi_decode_spread(benchmark::State& st) {
  const auto& t = level0();
  const auto& tiles = spread_tiles();
  std::vector<std::vector<unsigned char>> merged;
  if (st.range(0) == 0)
    for (const auto& b : tiles) merged.push_back(cuskimage::wsi::detail::merge_jpeg_tables(t, b));
  std::unique_ptr<void, int (*)(void*)> h(tjInitDecompress(), tjDestroy);
  std::vector<unsigned char> out(kTile * kTile * 3);
  std::size_t k = static_cast<std::size_t>(st.thread_index()) * 97;
  for (auto _ : st) {
    const std::size_t i = k++ % tiles.size();
    if (st.range(0) == 0)
      tjDecompress2(h.get(), merged[i].data(), static_cast<unsigned long>(merged[i].size()), out.data(), kTile, 0, kTile, TJPF_RGB, 0);
    else
      cuskimage::wsi::detail::decode_tile(t, tiles[i].data(), tiles[i].size(), out.data(), kTile * 3, 3, "bench");
    benchmark::DoNotOptimize(out.data());
  }
  finish(st);
  st.SetLabel(st.range(0) == 0 ? "TurboJPEG" : "library decode_tile");
}

void BM_wsi_raw_turbojpeg(benchmark::State& st) {
  const auto& tiles = raw_tiles();
  std::unique_ptr<void, int (*)(void*)> h(tjInitDecompress(), tjDestroy);
  std::vector<unsigned char> out(kTile * kTile * 3);
  std::size_t k = 0;
  for (auto _ : st) {
    const auto& j = tiles[k++ % tiles.size()];
    tjDecompress2(h.get(), j.data(), static_cast<unsigned long>(j.size()), out.data(), kTile, 0, kTile, TJPF_RGB, 0);
    benchmark::DoNotOptimize(out.data());
  }
  finish(st);
}

void BM_wsi_cuskimage_device(benchmark::State& st) {
  if (!cuskimage::cuda_available()) {
    st.SkipWithError("no CUDA device");
    return;
  }
  const int mode = static_cast<int>(st.range(0));  // 0 host decode + copy, 1 nvJPEG only, 2 hybrid
  const bool aligned = st.range(1) != 0;
  const auto& s = slide();
  const auto& order = tile_order();
  const cuskimage::Stream stream = cuskimage::Stream::create();
  const wsi::ReadOptions opt{.device = cuskimage::Device::cuda(), .nvjpeg = mode != 0, .hybrid = mode == 2, .workers = 0};
  constexpr int kBatch = 512;
  std::vector<wsi::Region> batch(kBatch);
  const auto fill = [&] {
    for (auto& r : batch) {
      const auto& [x, y] = order[g_next.fetch_add(1) % order.size()];
      r = aligned ? wsi::Region{x, y, 0, kTile, kTile}
                  : wsi::Region{std::min(x + 100, kSide - 300), std::min(y + 77, kSide - 300), 0, kTile, kTile};
    }
  };
  // Warm-up: nvJPEG start, slots, a state per batch size, pinned staging rings, the hybrid's rate
  // estimates. A process's first reads run ~100 ms a batch for ~0.5 s on the H200 host (3 batches
  // were not enough: the first device benchmark of a process measured 4.6 k tiles/s, the same
  // settings 45 k after it), so warm for at least 1.5 s.
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 3 || std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(1500); ++i) {
    fill();
    s.read_regions(batch, opt, stream);
    stream.synchronize();
  }
  const auto before = s.device_decode_stats();
  for (auto _ : st) {
    fill();
    auto outs = s.read_regions(batch, opt, stream);
    stream.synchronize();
    benchmark::DoNotOptimize(outs.data());
  }
  const auto after = s.device_decode_stats();
  const double n = static_cast<double>(kBatch) * static_cast<double>(st.iterations());
  st.counters["tiles_per_s"] = benchmark::Counter(n, benchmark::Counter::kIsRate);
  st.counters["GB_per_s"] = benchmark::Counter(n * kTile * kTile * 3 / 1e9, benchmark::Counter::kIsRate);
  const double g = static_cast<double>(after.gpu_tiles - before.gpu_tiles), h = static_cast<double>(after.host_tiles - before.host_tiles);
  st.counters["gpu_share"] = g + h > 0 ? g / (g + h) : 0.0;
  // Tile decodes per region (below 4 for unaligned reads: regions of one batch share tiles).
  st.counters["tiles_per_region"] = (g + h) / n;
  st.counters["exact_share"] = g > 0 ? static_cast<double>(after.gpu_exact_tiles - before.gpu_exact_tiles) / g : 0.0;
  static const char* names[] = {"host decode + copy", "nvJPEG only", "hybrid"};
  st.SetLabel(std::string(names[mode]) + (mode ? "; " + wsi::gpu_jpeg_decoder() : std::string()));
}

/// Threads 1, 2, 4, ... up to the host's cores (2 here, 16 on the GPU host).
int max_threads() { return std::max(2, static_cast<int>(std::thread::hardware_concurrency())); }

constexpr double kMin = 0.5;  // seconds per benchmark
BENCHMARK(BM_wsi_prepare)->Iterations(1)->UseRealTime();
BENCHMARK(BM_wsi_cuskimage_aligned)->ThreadRange(1, max_threads())->UseRealTime()->MinTime(kMin);
BENCHMARK(BM_wsi_cuskimage_unaligned)->ThreadRange(1, max_threads())->UseRealTime()->MinTime(kMin);
BENCHMARK(BM_wsi_cuskimage_read_regions)->RangeMultiplier(2)->Range(1, max_threads())->UseRealTime()->MinTime(kMin);
#if CUSK_HAVE_OPENSLIDE
BENCHMARK(BM_wsi_openslide_aligned)->ThreadRange(1, max_threads())->UseRealTime()->MinTime(kMin);
BENCHMARK(BM_wsi_openslide_unaligned)->ThreadRange(1, max_threads())->UseRealTime()->MinTime(kMin);
#endif
BENCHMARK(BM_wsi_raw_turbojpeg)->ThreadRange(1, max_threads())->UseRealTime()->MinTime(kMin);
BENCHMARK(BM_wsi_pread_tile)->ThreadRange(1, max_threads())->UseRealTime()->MinTime(kMin);
BENCHMARK(BM_wsi_decode_spread)->Arg(0)->Arg(1)->ThreadRange(1, max_threads())->UseRealTime()->MinTime(kMin);
BENCHMARK(BM_wsi_cuskimage_device)->ArgsProduct({{0, 1, 2}, {1, 0}})->ArgNames({"mode", "aligned"})->UseRealTime()->MinTime(kMin);

}  // namespace
