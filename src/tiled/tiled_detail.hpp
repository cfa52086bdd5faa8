// Internals of the tiled engine shared by its sources: the tile record (what a tile leaves behind),
// its checkpoint file format, and the stitched result.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/tiled.hpp"

namespace cuskimage::tiled::detail {

/// Per-object sums of one tile's core (local labels 1..n, index l - 1). Exact integer sums so the
/// merged centroids do not depend on the tile grid.
struct LocalObjects {
  std::vector<std::int64_t> area, first;  // first: raster index y * W + x of the first pixel
  std::vector<std::int64_t> sum_y, sum_x;
  std::vector<std::int64_t> min_y, min_x, max_y, max_x;  // max inclusive
  std::vector<double> sum_i;                            // intensity sums (empty without intensity)
  std::vector<std::int64_t> key;                        // Pipeline::objects' keys (else empty)
  std::int64_t size() const { return static_cast<std::int64_t>(area.size()); }
};

/// What a processed tile leaves behind.
struct TileRecord {
  std::int64_t index = -1, x = 0, y = 0, width = 0, height = 0;
  LocalObjects objects;
  std::vector<std::int32_t> top, bottom, left, right;  // border lines of local labels
  std::vector<unsigned char> packed;                    // pack_labels of the core labels (may be
                                                        // empty when only on disk)
};

/// The source of tiles: a slide level or an in-memory image.
struct Source {
  std::int64_t width = 0, height = 0;
  int level = 0;
  std::array<double, 2> downsample{1.0, 1.0};  // level-0 pixels per level pixel (x, y)
  std::optional<std::array<double, 2>> mpp;
  std::string identity;  // for checkpoint compatibility
  /// Reads the level's pixels [x, x + w) x [y, y + h) as uint8 (h, w, 3) on `device`.
  std::function<Array(std::int64_t x, std::int64_t y, std::int64_t w, std::int64_t h, Device device, int workers,
                      const Stream& stream)>
      read;
  /// A low-resolution RGB uint8 (h, w, 3) host image for tissue detection, and the level pixels
  /// per thumbnail pixel (x, y).
  std::function<Array(std::array<double, 2>& scale)> thumbnail;
};

std::vector<unsigned char> deflate_bytes(const void* data, std::size_t bytes, int level = 1);
/// Label images as deflated runs: (value, length) pairs over the flattened image, then deflate.
/// Labels are long runs, so this packs and unpacks several times faster than deflating the
/// pixels (a 2048^2 tile: ~1 MB of runs instead of 16 MB through zlib) and is smaller.
std::vector<unsigned char> pack_labels(const std::int32_t* labels, std::size_t n);
void unpack_labels(const std::vector<unsigned char>& packed, std::int32_t* out, std::size_t n);

void write_record(const std::string& path, const TileRecord& rec);
/// Reads a record; false when the file is missing or incomplete (it is then recomputed).
bool read_record(const std::string& path, TileRecord& rec, bool with_labels);

/// Tissue of an RGB uint8 (h, w, 3) host image: HSV saturation above `threshold` (unset: Otsu's).
Array tissue_mask(const Array& rgb, const std::optional<double>& threshold);

}  // namespace cuskimage::tiled::detail

namespace cuskimage::tiled {

struct Result::Impl {
  std::int64_t width = 0, height = 0, tile = 0, rows = 0, cols = 0;
  std::int64_t processed = 0, computed = 0;
  bool complete = true, has_intensity = false;
  bool keyed = false;  // objects joined by key (Pipeline::objects), not by touching
  std::array<double, 2> downsample{1.0, 1.0};
  std::optional<std::array<double, 2>> mpp;
  Array tissue, tiles;
  std::vector<detail::TileRecord> records;  // by tile index; index -1 where skipped
  std::vector<std::vector<std::int64_t>> lut;  // per tile: local label -> final label (0: dropped)
  std::vector<Object> objects;
  Timing timing;
  std::string checkpoint_dir;

  /// The int32 local labels of a tile's core (from memory or its checkpoint file).
  /// A tile's local labels into `out` (resized; callers reuse one buffer per thread: a fresh 16 MB
  /// vector per tile spent more time in page faults than in unpacking).
  void tile_labels(std::int64_t index, std::vector<std::int32_t>& out) const;
};

}  // namespace cuskimage::tiled
