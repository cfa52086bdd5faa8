// Internal pieces of the wsi module: the parsed directory of a slide (stage 1), tile codecs
// (stage 3), the decoded-tile LRU cache and the worker pool.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/wsi.hpp"

namespace cuskimage::wsi::detail {

[[noreturn]] void format_error(const std::string& path, const std::string& what);

// TIFF compression codes the tile decoder knows.
enum : std::uint16_t {
  kNone = 1,
  kLzw = 5,
  kJpeg = 7,
  kDeflate = 8,
  kAdobeDeflate = 32946,
  kAperioJ2kYCbCr = 33003,
  kAperioJ2kRgb = 33005,
  kZstd = 50000,
  kWebp = 50001,
};

/// Everything needed to fetch and decode one level's tiles without libtiff (so reads need no lock).
struct TiledImage {
  std::int64_t width = 0, height = 0;
  std::int64_t tile_width = 0, tile_height = 0;
  std::int64_t tiles_across = 0, tiles_down = 0;
  std::uint16_t compression = kNone, photometric = 2, spp = 3, bps = 8, predictor = 1;
  std::vector<std::uint64_t> offsets, byte_counts;
  std::vector<unsigned char> jpeg_tables;  // abbreviated-stream tables (JPEGTables), may be empty
};

/// Bytes per decoded tile at `channels` per pixel.
inline std::size_t tile_bytes(const TiledImage& t, int channels) {
  return static_cast<std::size_t>(t.tile_width * t.tile_height) * static_cast<std::size_t>(channels);
}

/// Decodes one tile's compressed bytes into RGB (channels 3) or RGBA (channels 4, alpha 255) rows
/// of tile_width pixels, `dst_stride` bytes apart, tile_height rows. Throws FormatError naming
/// `path` for corrupt data, NotSupported for a codec this build lacks.
void decode_tile(const TiledImage& t, const unsigned char* src, std::size_t n, unsigned char* dst,
                 std::ptrdiff_t dst_stride, int channels, const std::string& path);

/// Decodes the part [x0, x1) x [y0, y1) (tile pixels) of one tile into dst (its pixel (x0, y0) at
/// dst, rows `dst_stride` bytes apart). JPEG decodes only what the part needs (cropped columns,
/// skipped and unread rows: see decode.cpp), bit-identical to the same pixels of a full decode;
/// other codecs decode the whole tile into scratch and copy the part.
void decode_tile_part(const TiledImage& t, const unsigned char* src, std::size_t n, std::int64_t x0, std::int64_t y0,
                      std::int64_t x1, std::int64_t y1, unsigned char* dst, std::ptrdiff_t dst_stride, int channels,
                      const std::string& path);

/// Diagnostics and tests: a JPEG tile decoded (RGB, whole) with libjpeg-turbo's simple (replicated)
/// chroma upsampling instead of its default fancy upsampling -- what a decoder without
/// interpolated chroma upsampling produces (NVJPG's own RGB output does: see nvjpeg_decode.cpp).
void decode_tile_simple_upsampling(const TiledImage& t, const unsigned char* src, std::size_t n, unsigned char* dst,
                                   std::ptrdiff_t dst_stride, const std::string& path);

/// The component planes of a 3-component JPEG tile as libjpeg's IDCT leaves them (before chroma
/// upsampling and colour conversion): plane[c] holds width[c] x height[c] samples (whole DCT
/// blocks), chroma subsampled by hs x vs.
struct JpegPlanes {
  std::vector<unsigned char> plane[3];
  int width[3] = {0, 0, 0}, height[3] = {0, 0, 0};
  int hs = 1, vs = 1;
};
void decode_tile_planes(const TiledImage& t, const unsigned char* src, std::size_t n, JpegPlanes& out, const std::string& path);

/// Tests: the two functions above on a tile of an open slide's level (fetched as reads do), and a
/// whole region decoded through decode_tile_simple_upsampling (RGB; outside the level: 0).
JpegPlanes tile_planes_for_testing(const Slide& slide, int level, std::uint64_t tile);
Array read_region_simple_upsampling_for_testing(const Slide& slide, const Region& region);
/// Tests: the complete JPEG stream of a tile (merge_jpeg_tables of its bytes), as device reads hand it to nvJPEG.
std::vector<unsigned char> tile_stream_for_testing(const Slide& slide, int level, std::uint64_t tile);
/// Tests: a tile's bytes as stored, and its level's JPEGTables in `tables`.
std::vector<unsigned char> tile_raw_for_testing(const Slide& slide, int level, std::uint64_t tile, std::vector<unsigned char>& tables);

/// Whether decode_tile_part of `t` costs less than a whole-tile decode (JPEG only).
inline bool partial_decode_pays(const TiledImage& t) { return t.compression == kJpeg; }

/// Checks at open that this build can decode `t`'s tiles; FormatError/NotSupported otherwise.
void check_decodable(const TiledImage& t, const std::string& path);

/// TIFF LZW (the post-1992 variant) into exactly `out_n` bytes (a short result is an error).
bool lzw_decode(const unsigned char* src, std::size_t n, unsigned char* out, std::size_t out_n);

/// A complete JPEG stream of one abbreviated tile: the level's JPEGTables (without EOI) followed by
/// the tile (without SOI); the tile itself when the level has no tables.
std::vector<unsigned char> merge_jpeg_tables(const TiledImage& t, const std::vector<unsigned char>& tile);

/// Whether a level's JPEGTables is a whole tables stream (SOI ... EOI) that merge_jpeg_tables and
/// JpegStacker put in front of a tile's bytes (its EOI dropped).
inline bool mergeable_tables(const std::vector<unsigned char>& tb) {
  return tb.size() >= 4 && tb[0] == 0xFF && tb[1] == 0xD8 && tb[tb.size() - 2] == 0xFF && tb.back() == 0xD9;
}
/// merge_jpeg_tables into `out` (its storage reused).
void merge_jpeg_tables_into(const TiledImage& t, const std::vector<unsigned char>& tile, std::vector<unsigned char>& out);

/// Where the pieces of a complete single-scan JPEG stream lie (offsets from its SOI).
struct JpegLayout {
  std::size_t sof = 0, sos = 0;  // the SOF0/SOF1 and SOS markers
  std::size_t data = 0;          // the first entropy-coded byte
  std::size_t end = 0;           // the final EOI
  int width = 0, height = 0;     // the frame
  int mcu_w = 0, mcu_h = 0;      // the MCU, pixels
};
/// false unless `p` is one 8-bit baseline/extended-sequential Huffman frame with one interleaved
/// scan of all components, no restart interval, and nothing but entropy-coded data between the
/// scan header and the final EOI (jpeg_stack.cpp).
bool jpeg_layout(const unsigned char* p, std::size_t n, JpegLayout& out);
/// The restart interval that makes one frame of `l` one interval (its MCU count; 0 when its height
/// is not a whole number of MCU rows or the count exceeds 65535).
int jpeg_stack_interval(const JpegLayout& l);
/// Tiles of one encoding (jpeg_layout's kind, byte-identical up to their entropy-coded data: the
/// same frame and scan header) as one complete stream of a width x (k * height) frame: the level's
/// tables, a restart interval of one tile's MCUs and each tile's entropy-coded data in turn,
/// separated by RST0..7. It decodes to the tiles' component planes one below the other (why:
/// jpeg_stack.cpp). Built from the tiles as stored (abbreviated streams), one copy of each.
class JpegStacker {
 public:
  /// Starts a stack in `out` with `tile` (`tables`: the level's JPEGTables, or empty for complete
  /// tiles). false (out unspecified) when the tile cannot be stacked.
  bool begin(const std::vector<unsigned char>& tables, const unsigned char* tile, std::size_t n, std::vector<unsigned char>& out);
  /// Appends a tile with the first one's header; false (out unchanged) for another header or when
  /// the frame's height would pass 65535.
  bool add(const unsigned char* tile, std::size_t n, std::vector<unsigned char>& out);
  /// Ends the stack (EOI, the frame's height); the tiles in it.
  std::size_t finish(std::vector<unsigned char>& out);

 private:
  JpegLayout first_;
  std::vector<unsigned char> header_;  // the first tile's bytes before its entropy-coded data
  std::size_t count_ = 0, height_at_ = 0;
  int interval_ = 0;
};
/// The complete streams `in` stacked (JpegStacker, no tables); false when they cannot be.
bool stack_jpeg_streams(const std::vector<const std::vector<unsigned char>*>& in, std::vector<unsigned char>& out);

/// One tile's part of a device read (see device_decode).
struct DevicePart {
  const TiledImage* image;
  std::uint64_t index;          // the tile in its level
  std::int64_t x0, y0, x1, y1;  // the part, in tile pixels
  unsigned char* dst;           // device address of the part's first pixel in the output (RGB)
  std::size_t pitch;            // the output's row pitch, bytes
};
/// What a worker takes at a time: one tile and every part of it the read needs (parts[first,
/// first + count), all of the same tile: regions that share a tile get it decoded once).
struct DeviceUnit {
  std::size_t first = 0, count = 0;
  /// The host decoder's cost for this unit relative to a whole-tile decode (a single part needed
  /// in part decodes only that part: see host_decode_cost). nvJPEG's cost is one tile either way.
  double host_cost = 1.0;
};
/// host_decode_cost of one part (whole tile: 1).
double host_decode_cost(const TiledImage& t, std::int64_t x0, std::int64_t y0, std::int64_t x1, std::int64_t y1);
struct DeviceDecodeCounts {
  std::uint64_t gpu = 0, host = 0;  // tiles decoded by nvJPEG / by the host decoder
  std::uint64_t gpu_exact = 0;      // of `gpu`, converted to RGB by the exact colour path (ycc.hpp)
};
using FetchFn = std::function<void(const TiledImage&, std::uint64_t, std::vector<unsigned char>&)>;

/// The GPU JPEG decoder of device `device` in words (wsi::gpu_jpeg_decoder).
std::string gpu_jpeg_decoder_info(int device);

/// The hybrid's balance rule: the most units a feeder may take now from order[front, back) (at
/// most `limit`) so that the GPU's tiles in flight plus them take no longer at `gpu_rate` (tiles/s)
/// than the host workers need for what would be left at `host_rate` (host cost/s, all workers);
/// `prefix[i]` is the host cost of order[0, i). 0: the GPU has enough for now.
std::size_t gpu_chunk(double in_flight, double gpu_rate, double host_rate, const double* prefix, std::size_t front,
                      std::size_t back, std::size_t limit);

#if CUSK_HAVE_NVJPEG
/// Decodes the units' tiles into their parts in device memory on CUDA device `device`
/// (nvjpeg_decode.cpp, under tuning::WsiNvjpegPolicy): `feeders` threads run nvJPEG batches (several in flight, the next batch
/// fetched and merged with its JPEGTables while the engines decode), `host_workers` threads decode
/// units with libjpeg-turbo into pinned memory and copy them up; the GPU takes units from the most
/// expensive end for the host, the host workers from the cheapest, and a feeder takes a batch only
/// while the GPU's work in flight stays below what the host workers need for the rest. Tiles of
/// levels the GPU decoder rejects go to the host decoder. All work is ordered after `stream`'s
/// earlier work and before its later work. Throws NotSupported when nvJPEG cannot start,
/// FormatError for a tile neither decoder can read.
DeviceDecodeCounts device_decode(int device, const std::vector<DevicePart>& parts, const std::vector<DeviceUnit>& units,
                                 int feeders, int host_workers, const FetchFn& fetch, const std::string& path,
                                 cudaStream_t stream);
#endif

/// What a Philips TIFF's XML description says (see philips.cpp).
struct PhilipsInfo {
  std::map<std::string, std::string> properties;                     // philips.*
  std::map<std::string, std::vector<unsigned char>> associated;      // "label"/"macro" -> JPEG bytes
  std::vector<double> level_spacing;                                 // per pixel-data representation
};
bool is_philips(const std::string& software, const std::string& description);
PhilipsInfo parse_philips(const std::string& description, const std::string& path);

/// Decoded-tile LRU cache with a byte budget; thread-safe.
class TileCache {
 public:
  using Tile = std::shared_ptr<const std::vector<unsigned char>>;
  explicit TileCache(std::size_t capacity) : capacity_(capacity) {}
  Tile get(std::uint64_t key);
  void put(std::uint64_t key, Tile tile);
  /// Admission of a tile needed only in part (which can be decoded in part, uncached): true when
  /// the cache is on and the tile was needed recently, i.e. it is being reused within the span the
  /// cache could hold (then decode it whole and put it); else false, and the tile is remembered. The
  /// memory of recent keys is a direct-mapped table of about twice the cache's tile count.
  bool admit(std::uint64_t key, std::size_t tile_bytes);
  void set_capacity(std::size_t bytes);
  std::size_t capacity() const {
    std::lock_guard lock(mu_);
    return capacity_;
  }
  CacheStats stats() const;

 private:
  void evict_locked();
  struct Entry {
    std::uint64_t key;
    Tile tile;
  };
  mutable std::mutex mu_;
  std::size_t capacity_, used_ = 0;
  std::list<Entry> lru_;  // front = most recent
  std::unordered_map<std::uint64_t, std::list<Entry>::iterator> index_;
  std::vector<std::uint64_t> recent_;  // key + 1 of recently needed partial tiles (0: empty)
  int recent_bits_ = 0;
  std::uint64_t hits_ = 0, misses_ = 0;
};

/// Runs fn(i) for i in [0, n) on the calling thread plus up to workers - 1 threads of a shared
/// pool; rethrows the first exception after all started work is done.
void parallel_for(std::size_t n, int workers, const std::function<void(std::size_t)>& fn);

}  // namespace cuskimage::wsi::detail
