// Outputs of a tiled run: label crops, the object table as CSV and the pyramidal label TIFF.
//
// The label TIFF streams: one band of engine tiles (a tile row) is unpacked and mapped to final
// labels at a time; its rows flow through one row sink per pyramid level (each keeps one TIFF tile
// row and pairs rows for the next level's 2x2 mode), and every full TIFF tile is deflated in
// parallel. Level 0's tiles go straight into the file, the others into a temporary file, copied
// into their directories at the end as raw tiles. Memory: one band plus one TIFF tile row per level.
#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <memory>
#include <sstream>

#include "cuskimage/error.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/tiled.hpp"
#include "src/tiled/tiled_detail.hpp"

namespace cuskimage::tiled {
namespace {

std::vector<std::int64_t> band_labels(const Result::Impl& R, std::int64_t row) {
  // Final labels of engine tile row `row`: (band height, W).
  const std::int64_t y0 = row * R.tile, bh = std::min(R.tile, R.height - y0);
  std::vector<std::int64_t> band(static_cast<std::size_t>(bh * R.width), 0);
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t c = 0; c < R.cols; ++c) {
    const std::int64_t ti = row * R.cols + c;
    const detail::TileRecord& rec = R.records[static_cast<std::size_t>(ti)];
    if (rec.index < 0) continue;
    const std::vector<std::int32_t> lab = R.tile_labels(ti);
    const auto& lut = R.lut[static_cast<std::size_t>(ti)];
    for (std::int64_t y = 0; y < rec.height; ++y)
      for (std::int64_t x = 0; x < rec.width; ++x)
        band[y * R.width + rec.x + x] = lut[static_cast<std::size_t>(lab[y * rec.width + x])];
  }
  return band;
}

/// Mode of up to four labels, ties to the smallest.
std::int64_t mode4(std::int64_t* v, int n) {
  for (int i = 1; i < n; ++i)  // insertion sort of at most four
    for (int j = i; j > 0 && v[j] < v[j - 1]; --j) std::swap(v[j], v[j - 1]);
  std::int64_t best = v[0];
  int best_n = 0;
  for (int i = 0; i < n;) {
    int j = i;
    while (j < n && v[j] == v[i]) ++j;
    if (j - i > best_n) {
      best_n = j - i;
      best = v[i];
    }
    i = j;
  }
  return best;
}

class LabelTiffWriter {
 public:
  LabelTiffWriter(const std::string& path, std::int64_t W, std::int64_t H, std::int64_t ts, bool wide)
      : path_(path), ts_(ts), wide_(wide) {
    for (std::int64_t w = W, h = H;; w = (w + 1) / 2, h = (h + 1) / 2) {
      Level l;
      l.w = w;
      l.h = h;
      levels_.push_back(std::move(l));
      if (w <= ts && h <= ts) break;
    }
    const double raw = static_cast<double>(W) * static_cast<double>(H) * (wide ? 8 : 4) * 1.4;
    tif_ = TIFFOpen((path + ".part").c_str(), raw > 3.9e9 ? "w8" : "w");
    if (!tif_) throw FormatError("tiled: cannot create " + path);
    tmp_ = std::tmpfile();
    if (!tmp_) throw FormatError("tiled: cannot create a temporary file for the label pyramid");
    for (auto& l : levels_) l.rows.reserve(static_cast<std::size_t>(ts * l.w));
    set_fields(0);
  }
  ~LabelTiffWriter() {
    if (tif_) TIFFClose(tif_);
    if (tmp_) std::fclose(tmp_);
  }

  /// Level-0 rows, in order, each W labels.
  void push_rows(const std::int64_t* rows, std::int64_t n) {
    for (std::int64_t r = 0; r < n; ++r) push(0, rows + r * levels_[0].w);
  }

  void finish() {
    for (std::size_t k = 0; k < levels_.size(); ++k) flush_level(k);
    // Level 0 is the current directory; the others come from the temporary file.
    if (!TIFFWriteDirectory(tif_)) throw FormatError("tiled: cannot write " + path_);
    std::vector<unsigned char> buf;
    for (std::size_t k = 1; k < levels_.size(); ++k) {
      set_fields(static_cast<int>(k));
      for (std::size_t t = 0; t < levels_[k].tiles.size(); ++t) {
        const auto [off, len] = levels_[k].tiles[t];
        buf.resize(len);
        if (std::fseek(tmp_, static_cast<long>(off), SEEK_SET) != 0 || std::fread(buf.data(), 1, len, tmp_) != len)
          throw FormatError("tiled: temporary pyramid file read failed");
        if (TIFFWriteRawTile(tif_, static_cast<uint32_t>(t), buf.data(), static_cast<tmsize_t>(len)) < 0)
          throw FormatError("tiled: cannot write " + path_);
      }
      if (!TIFFWriteDirectory(tif_)) throw FormatError("tiled: cannot write " + path_);
    }
    TIFFClose(tif_);
    tif_ = nullptr;
    if (std::rename((path_ + ".part").c_str(), path_.c_str()) != 0) throw FormatError("tiled: cannot rename to " + path_);
  }

 private:
  struct Level {
    std::int64_t w = 0, h = 0;
    std::vector<std::int64_t> rows;  // up to ts rows of the current TIFF tile row
    std::int64_t rows_in = 0;        // rows received so far
    std::int64_t tile_row = 0;
    std::vector<std::int64_t> pending;  // an unpaired row for the next level
    std::vector<std::pair<std::uint64_t, std::size_t>> tiles;  // temp-file blobs (levels >= 1)
  };

  void set_fields(int k) {
    const Level& l = levels_[static_cast<std::size_t>(k)];
    TIFFSetField(tif_, TIFFTAG_SUBFILETYPE, k == 0 ? 0 : FILETYPE_REDUCEDIMAGE);
    TIFFSetField(tif_, TIFFTAG_IMAGEWIDTH, static_cast<uint32_t>(l.w));
    TIFFSetField(tif_, TIFFTAG_IMAGELENGTH, static_cast<uint32_t>(l.h));
    TIFFSetField(tif_, TIFFTAG_TILEWIDTH, static_cast<uint32_t>(ts_));
    TIFFSetField(tif_, TIFFTAG_TILELENGTH, static_cast<uint32_t>(ts_));
    TIFFSetField(tif_, TIFFTAG_BITSPERSAMPLE, wide_ ? 64 : 32);
    TIFFSetField(tif_, TIFFTAG_SAMPLESPERPIXEL, 1);
    TIFFSetField(tif_, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
    TIFFSetField(tif_, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    TIFFSetField(tif_, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif_, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
    TIFFSetField(tif_, TIFFTAG_SOFTWARE, "cuskimage tiled");
  }

  void push(std::size_t k, const std::int64_t* row) {
    Level& l = levels_[k];
    l.rows.insert(l.rows.end(), row, row + l.w);
    ++l.rows_in;
    if (static_cast<std::int64_t>(l.rows.size()) == ts_ * l.w) emit_tile_row(k);
    if (k + 1 < levels_.size()) {
      if (l.pending.empty()) {
        l.pending.assign(row, row + l.w);
        if (l.rows_in == l.h) downsample_into(k, l.pending.data(), nullptr);  // odd last row
      } else {
        downsample_into(k, l.pending.data(), row);
        l.pending.clear();
      }
    }
  }

  void downsample_into(std::size_t k, const std::int64_t* a, const std::int64_t* b) {
    const Level& l = levels_[k];
    std::vector<std::int64_t> out(static_cast<std::size_t>(levels_[k + 1].w));
    // Rows of a whole slide are tens of thousands of labels wide: worth the threads (from 256, so
    // the tests cover this path too).
#pragma omp parallel for schedule(static) if (levels_[k + 1].w >= 256)
    for (std::int64_t x = 0; x < levels_[k + 1].w; ++x) {
      std::int64_t v[4];
      int n = 0;
      const std::int64_t x0 = 2 * x, x1 = std::min(2 * x + 1, l.w - 1);
      v[n++] = a[x0];
      if (x1 != x0) v[n++] = a[x1];
      if (b) {
        v[n++] = b[x0];
        if (x1 != x0) v[n++] = b[x1];
      }
      out[static_cast<std::size_t>(x)] = mode4(v, n);
    }
    push(k + 1, out.data());
  }

  void flush_level(std::size_t k) {
    if (!levels_[k].rows.empty()) emit_tile_row(k);
  }

  /// Deflates the tiles of level k's buffered tile row (zero-padded) and stores them.
  void emit_tile_row(std::size_t k) {
    Level& l = levels_[k];
    const std::int64_t nrows = static_cast<std::int64_t>(l.rows.size()) / l.w;
    const std::int64_t across = (l.w + ts_ - 1) / ts_;
    std::vector<std::vector<unsigned char>> blobs(static_cast<std::size_t>(across));
    const std::size_t item = wide_ ? 8 : 4;
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t c = 0; c < across; ++c) {
      std::vector<unsigned char> tile(static_cast<std::size_t>(ts_ * ts_) * item, 0);
      for (std::int64_t y = 0; y < nrows; ++y)
        for (std::int64_t x = 0; x < ts_ && c * ts_ + x < l.w; ++x) {
          const std::int64_t v = l.rows[static_cast<std::size_t>(y * l.w + c * ts_ + x)];
          const std::size_t at = static_cast<std::size_t>(y * ts_ + x) * item;
          if (wide_) {
            const std::uint64_t u = static_cast<std::uint64_t>(v);
            std::memcpy(&tile[at], &u, 8);
          } else {
            const std::uint32_t u = static_cast<std::uint32_t>(v);
            std::memcpy(&tile[at], &u, 4);
          }
        }
      blobs[static_cast<std::size_t>(c)] = detail::deflate_bytes(tile.data(), tile.size(), 1);  // speed over size: labels compress well anyway
    }
    for (std::int64_t c = 0; c < across; ++c) {
      const auto& b = blobs[static_cast<std::size_t>(c)];
      if (k == 0) {
        const uint32_t t = static_cast<uint32_t>(l.tile_row * across + c);
        if (TIFFWriteRawTile(tif_, t, const_cast<unsigned char*>(b.data()), static_cast<tmsize_t>(b.size())) < 0)
          throw FormatError("tiled: cannot write " + path_);
      } else {
        if (std::fseek(tmp_, 0, SEEK_END) != 0) throw FormatError("tiled: temporary file seek failed");
        const std::uint64_t off = static_cast<std::uint64_t>(std::ftell(tmp_));
        if (std::fwrite(b.data(), 1, b.size(), tmp_) != b.size())
          throw FormatError("tiled: temporary pyramid file write failed");
        l.tiles.emplace_back(off, b.size());
      }
    }
    ++l.tile_row;
    l.rows.clear();
  }

  std::string path_;
  std::int64_t ts_;
  bool wide_;
  std::vector<Level> levels_;
  TIFF* tif_ = nullptr;
  std::FILE* tmp_ = nullptr;
};

/// One GeoJSON Feature: the longest contour at 0.5 of (crop == label); crop is (h, w) final labels
/// whose (0, 0) is level pixel (y0, x0) and whose border ring is outside the object.
std::string feature(const Object& ob, const std::int64_t* crop, std::int64_t h, std::int64_t w, std::int64_t y0,
                    std::int64_t x0, std::array<double, 2> ds) {
  Array m = Array::empty({h, w}, DType::uint8);
  std::uint8_t* q = m.data<std::uint8_t>();
  for (std::int64_t i = 0; i < h * w; ++i) q[i] = crop[i] == ob.label ? 1 : 0;
  measure::FindContoursOptions fo;
  fo.level = 0.5;
  const std::vector<Array> cs = measure::find_contours(m, fo);
  const Array* best = nullptr;
  for (const Array& c : cs)
    if (!best || c.shape(0) > best->shape(0)) best = &c;
  std::ostringstream f;
  f << std::setprecision(10);
  f << R"({"type":"Feature","geometry":{"type":"Polygon","coordinates":[[)";
  if (best) {
    const double* v = best->data<double>();
    for (std::int64_t k = 0; k < best->shape(0); ++k)
      f << (k ? "," : "") << '[' << (v[2 * k + 1] + x0) * ds[0] << ',' << (v[2 * k] + y0) * ds[1] << ']';
  }
  f << R"(]]},"properties":{"objectType":"detection","name":"nucleus )" << ob.label << R"(","measurements":{)"
    << R"("label":)" << ob.label << R"(,"area":)" << static_cast<double>(ob.area) * ds[0] * ds[1]
    << R"(,"centroid_x":)" << (ob.centroid_x + 0.5) * ds[0] - 0.5 << R"(,"centroid_y":)"
    << (ob.centroid_y + 0.5) * ds[1] - 0.5;
  if (!std::isnan(ob.intensity_mean)) f << R"(,"intensity_mean":)" << ob.intensity_mean;
  f << "}}}";
  return f.str();
}

}  // namespace

void Result::write_geojson(const std::string& path) const {
  const Impl& R = *impl_;
  if (!R.complete) throw InvalidArgument("tiled::Result::write_geojson: the run did not finish (stop_after)");
  std::ofstream out(path);
  if (!out) throw FormatError("tiled::Result::write_geojson: cannot create " + path);
  // Every tile is unpacked once. Objects inside one tile are outlined from it directly; objects
  // that cross tiles get a padded crop filled piece by piece from each tile they touch (a crop of
  // the stitched labels per object would unpack whole tiles per object: minutes on a 40k slide).
  const std::size_t ntiles = R.records.size();
  std::vector<std::vector<std::size_t>> inside(ntiles), touching(ntiles);
  std::vector<std::size_t> spanning;
  for (std::size_t k = 0; k < R.objects.size(); ++k) {
    const Object& o = R.objects[k];
    const std::int64_t r0 = o.bbox_min_y / R.tile, r1 = (o.bbox_max_y - 1) / R.tile;
    const std::int64_t c0 = o.bbox_min_x / R.tile, c1 = (o.bbox_max_x - 1) / R.tile;
    if (r0 == r1 && c0 == c1) {
      inside[static_cast<std::size_t>(r0 * R.cols + c0)].push_back(k);
      continue;
    }
    for (std::int64_t r = r0; r <= r1; ++r)
      for (std::int64_t c = c0; c <= c1; ++c) touching[static_cast<std::size_t>(r * R.cols + c)].push_back(spanning.size());
    spanning.push_back(k);
  }
  // Crops are the bbox plus a one-pixel ring of background, so every contour closes.
  auto crop_geom = [&](const Object& o) {
    return std::array<std::int64_t, 4>{o.bbox_min_y - 1, o.bbox_min_x - 1, o.bbox_max_y - o.bbox_min_y + 2,
                                       o.bbox_max_x - o.bbox_min_x + 2};
  };
  std::vector<std::vector<std::int64_t>> crops(spanning.size());
  for (std::size_t j = 0; j < spanning.size(); ++j) {
    const auto g = crop_geom(R.objects[spanning[j]]);
    crops[j].assign(static_cast<std::size_t>(g[2] * g[3]), 0);
  }
  std::vector<std::string> feats(R.objects.size());
  // Tiles in parallel (unpacking a tile is the costly part): each writes its own objects' features
  // and its own, disjoint, parts of the crossing objects' crops.
#pragma omp parallel for schedule(dynamic)
  for (std::size_t ti = 0; ti < ntiles; ++ti) {
    if (inside[ti].empty() && touching[ti].empty()) continue;
    const detail::TileRecord& rec = R.records[ti];
    if (rec.index < 0) continue;
    const std::vector<std::int32_t> lab = R.tile_labels(static_cast<std::int64_t>(ti));
    const auto& lut = R.lut[ti];
    // Final label at level pixel (y, x) of this tile, 0 outside it.
    auto at = [&](std::int64_t y, std::int64_t x) -> std::int64_t {
      if (y < rec.y || x < rec.x || y >= rec.y + rec.height || x >= rec.x + rec.width) return 0;
      return lut[static_cast<std::size_t>(lab[(y - rec.y) * rec.width + (x - rec.x)])];
    };
    for (std::size_t j = 0; j < inside[ti].size(); ++j) {
      const Object& o = R.objects[inside[ti][j]];
      const auto g = crop_geom(o);
      std::vector<std::int64_t> crop(static_cast<std::size_t>(g[2] * g[3]), 0);
      for (std::int64_t y = 1; y < g[2] - 1; ++y)
        for (std::int64_t x = 1; x < g[3] - 1; ++x) crop[y * g[3] + x] = at(g[0] + y, g[1] + x);
      feats[inside[ti][j]] = feature(o, crop.data(), g[2], g[3], g[0], g[1], R.downsample);
    }
    for (std::size_t q = 0; q < touching[ti].size(); ++q) {
      const std::size_t j = touching[ti][q];
      const auto g = crop_geom(R.objects[spanning[j]]);
      const std::int64_t ys = std::max(g[0] + 1, rec.y), ye = std::min(g[0] + g[2] - 1, rec.y + rec.height);
      const std::int64_t xs = std::max(g[1] + 1, rec.x), xe = std::min(g[1] + g[3] - 1, rec.x + rec.width);
      for (std::int64_t y = ys; y < ye; ++y)
        for (std::int64_t x = xs; x < xe; ++x) crops[j][(y - g[0]) * g[3] + (x - g[1])] = at(y, x);
    }
  }
#pragma omp parallel for schedule(dynamic)
  for (std::size_t j = 0; j < spanning.size(); ++j) {
    const Object& o = R.objects[spanning[j]];
    const auto g = crop_geom(o);
    feats[spanning[j]] = feature(o, crops[j].data(), g[2], g[3], g[0], g[1], R.downsample);
  }
  out << R"({"type":"FeatureCollection","features":[)";
  for (std::size_t k = 0; k < feats.size(); ++k) out << (k ? ",\n" : "\n") << feats[k];
  out << "\n]}\n";
  if (!out) throw FormatError("tiled::Result::write_geojson: cannot write " + path);
}

Array Result::labels(std::int64_t x, std::int64_t y, std::int64_t width, std::int64_t height) const {
  const Impl& R = *impl_;
  if (x < 0 || y < 0 || width < 0 || height < 0 || x + width > R.width || y + height > R.height)
    throw InvalidArgument("tiled::Result::labels: the region is outside the level");
  if (!R.complete) throw InvalidArgument("tiled::Result::labels: the run did not finish (stop_after)");
  Array out = Array::zeros({height, width}, DType::int64);
  std::int64_t* o = out.data<std::int64_t>();
  if (R.tile == 0) return out;
  for (std::int64_t r = y / R.tile; r < R.rows && r * R.tile < y + height; ++r)
    for (std::int64_t c = x / R.tile; c < R.cols && c * R.tile < x + width; ++c) {
      const std::int64_t ti = r * R.cols + c;
      const detail::TileRecord& rec = R.records[static_cast<std::size_t>(ti)];
      if (rec.index < 0) continue;
      const std::vector<std::int32_t> lab = R.tile_labels(ti);
      const auto& lut = R.lut[static_cast<std::size_t>(ti)];
      const std::int64_t ys = std::max(y, rec.y), ye = std::min(y + height, rec.y + rec.height);
      const std::int64_t xs = std::max(x, rec.x), xe = std::min(x + width, rec.x + rec.width);
      for (std::int64_t yy = ys; yy < ye; ++yy)
        for (std::int64_t xx = xs; xx < xe; ++xx)
          o[(yy - y) * width + (xx - x)] = lut[static_cast<std::size_t>(lab[(yy - rec.y) * rec.width + (xx - rec.x)])];
    }
  return out;
}

void Result::write_csv(const std::string& path) const {
  const Impl& R = *impl_;
  std::ofstream f(path);
  if (!f) throw FormatError("tiled::Result::write_csv: cannot create " + path);
  const double dx = R.downsample[0], dy = R.downsample[1];
  f << "label,area,centroid-0,centroid-1,bbox-0,bbox-1,bbox-2,bbox-3";
  if (R.mpp) f << ",area_um2,centroid_um-0,centroid_um-1";
  f << ",intensity_mean\n";
  f << std::setprecision(17);
  for (const Object& o : R.objects) {
    // Level pixel centres map to level-0 coordinates (c + 0.5) * downsample - 0.5.
    const double cy = (o.centroid_y + 0.5) * dy - 0.5, cx = (o.centroid_x + 0.5) * dx - 0.5;
    f << o.label << ',' << static_cast<double>(o.area) * dx * dy << ',' << cy << ',' << cx << ','
      << std::llround(o.bbox_min_y * dy) << ',' << std::llround(o.bbox_min_x * dx) << ','
      << std::llround(o.bbox_max_y * dy) << ',' << std::llround(o.bbox_max_x * dx);
    if (R.mpp) {
      const auto m = *R.mpp;
      f << ',' << static_cast<double>(o.area) * dx * dy * m[0] * m[1] << ',' << cy * m[1] << ',' << cx * m[0];
    }
    f << ',';
    if (!std::isnan(o.intensity_mean)) f << o.intensity_mean;
    f << '\n';
  }
  if (!f) throw FormatError("tiled::Result::write_csv: cannot write " + path);
}

void Result::write_label_tiff(const std::string& path, std::int64_t tile_size) const {
  const Impl& R = *impl_;
  if (tile_size <= 0 || tile_size % 16 != 0)
    throw InvalidArgument("tiled::Result::write_label_tiff: tile_size must be a positive multiple of 16");
  if (!R.complete) throw InvalidArgument("tiled::Result::write_label_tiff: the run did not finish (stop_after)");
  if (R.width == 0 || R.height == 0) throw InvalidArgument("tiled::Result::write_label_tiff: empty level");
  const bool wide = static_cast<std::uint64_t>(R.objects.size()) > std::numeric_limits<std::uint32_t>::max();
  LabelTiffWriter w(path, R.width, R.height, tile_size, wide);
  for (std::int64_t r = 0; r < R.rows; ++r) {
    const std::vector<std::int64_t> band = band_labels(R, r);
    w.push_rows(band.data(), static_cast<std::int64_t>(band.size()) / R.width);
  }
  w.finish();
}

}  // namespace cuskimage::tiled
