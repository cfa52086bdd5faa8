// Outputs of a tiled run: label crops, the object table as CSV and the pyramidal label TIFF.
//
// The label TIFF streams: one band of engine tiles (a tile row) is unpacked and mapped to final
// labels at a time; the band flows through one sink per pyramid level (whole TIFF tile rows are
// deflated straight from it, partial ones buffered; its row pairs are reduced by 2x2 mode into the
// next level in one parallel pass), and every TIFF tile is deflated in parallel. Level 0's tiles go straight into the file, the others into a temporary file, copied
// into their directories at the end as raw tiles. Memory: one band plus one TIFF tile row per level.
#include <tiffio.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>

#include "cuskimage/device.hpp"
#include "cuskimage/error.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/tiled.hpp"
#include "src/tiled/tiled_detail.hpp"

namespace cuskimage::tiled {
namespace {

/// Final labels of engine tile row `row` into `band` ((band height, W), reused across rows so a
/// whole-slide band is not page-faulted in again for every row).
void band_labels(const Result::Impl& R, std::int64_t row, std::vector<std::int64_t>& band) {
  const std::int64_t y0 = row * R.tile, bh = std::min(R.tile, R.height - y0);
  band.resize(static_cast<std::size_t>(bh * R.width));
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t c = 0; c < R.cols; ++c) {
    const std::int64_t ti = row * R.cols + c;
    const detail::TileRecord& rec = R.records[static_cast<std::size_t>(ti)];
    const std::int64_t x0 = c * R.tile, tw = std::min(R.tile, R.width - x0);
    if (rec.index < 0) {
      for (std::int64_t y = 0; y < bh; ++y) std::fill_n(band.data() + y * R.width + x0, tw, std::int64_t(0));
      continue;
    }
    thread_local std::vector<std::int32_t> lab;
    R.tile_labels(ti, lab);
    const auto& lut = R.lut[static_cast<std::size_t>(ti)];
    for (std::int64_t y = 0; y < rec.height; ++y)
      for (std::int64_t x = 0; x < rec.width; ++x)
        band[y * R.width + rec.x + x] = lut[static_cast<std::size_t>(lab[y * rec.width + x])];
  }
}

/// Mode of up to four labels, ties to the smallest.
std::int64_t mode4(std::int64_t* v, int n) {
  if (v[0] == v[n - 1] && (n < 3 || (v[0] == v[1] && v[0] == v[2]))) return v[0];  // uniform: most windows
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
  void push_rows(const std::int64_t* rows, std::int64_t n) { push(0, rows, n); }

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
    std::vector<std::int64_t> next;     // this band's rows of the next level
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

  /// n rows of level k: whole TIFF tile rows are deflated straight from `rows`, the rest is
  /// buffered; row pairs are reduced by 2x2 mode into level k + 1 in one parallel pass.
  void push(std::size_t k, const std::int64_t* rows, std::int64_t n) {
    Level& l = levels_[k];
    const std::int64_t w = l.w;
    std::int64_t i = 0;
    while (i < n) {
      if (l.rows.empty() && n - i >= ts_) {
        emit_tile_row(k, rows + i * w, ts_);
        i += ts_;
        continue;
      }
      const std::int64_t take = std::min(n - i, ts_ - static_cast<std::int64_t>(l.rows.size()) / w);
      l.rows.insert(l.rows.end(), rows + i * w, rows + (i + take) * w);
      i += take;
      if (static_cast<std::int64_t>(l.rows.size()) == ts_ * w) {
        emit_tile_row(k, l.rows.data(), ts_);
        l.rows.clear();
      }
    }
    l.rows_in += n;
    if (k + 1 == levels_.size() || n == 0) return;
    // Rows to reduce: a pending unpaired row first, then this batch; an odd last row of the level
    // is reduced alone.
    std::vector<const std::int64_t*> src;
    src.reserve(static_cast<std::size_t>(n + 1));
    if (!l.pending.empty()) src.push_back(l.pending.data());
    for (std::int64_t r = 0; r < n; ++r) src.push_back(rows + r * w);
    const bool last = l.rows_in == l.h;
    const std::int64_t pairs = static_cast<std::int64_t>(src.size()) / 2;
    const bool odd_tail = src.size() % 2 == 1;
    const std::int64_t m = pairs + (odd_tail && last ? 1 : 0);
    const std::int64_t w1 = levels_[k + 1].w;
    // Reused per level: a fresh band-sized vector per call cost page faults and unmaps (tens of
    // MB per band on a whole slide) that stall every other thread's faults.
    std::vector<std::int64_t>& out = l.next;
    out.resize(static_cast<std::size_t>(m * w1));
#pragma omp parallel for schedule(static)
    for (std::int64_t j = 0; j < m; ++j) {
      const std::int64_t* a = src[static_cast<std::size_t>(2 * j)];
      const std::int64_t* b = 2 * j + 1 < static_cast<std::int64_t>(src.size()) ? src[static_cast<std::size_t>(2 * j + 1)] : nullptr;
      std::int64_t* o = out.data() + j * w1;
      for (std::int64_t x = 0; x < w1; ++x) {
        std::int64_t v[4];
        int c = 0;
        const std::int64_t x0 = 2 * x, x1 = std::min(2 * x + 1, w - 1);
        v[c++] = a[x0];
        if (x1 != x0) v[c++] = a[x1];
        if (b) {
          v[c++] = b[x0];
          if (x1 != x0) v[c++] = b[x1];
        }
        o[x] = mode4(v, c);
      }
    }
    // Keep the unpaired row (copied: `rows` belongs to the caller) unless it was reduced alone.
    std::vector<std::int64_t> keep;
    if (odd_tail && !last) keep.assign(src.back(), src.back() + w);
    l.pending = std::move(keep);
    push(k + 1, out.data(), m);
  }

  void flush_level(std::size_t k) {
    Level& l = levels_[k];
    if (!l.rows.empty()) emit_tile_row(k, l.rows.data(), static_cast<std::int64_t>(l.rows.size()) / l.w);
    l.rows.clear();
  }

  /// Deflates the tiles of one TIFF tile row of level k (nrows <= ts rows, zero-padded) and
  /// stores them. Tiles of background only share one deflated blob.
  void emit_tile_row(std::size_t k, const std::int64_t* rows, std::int64_t nrows) {
    Level& l = levels_[k];
    const std::int64_t across = (l.w + ts_ - 1) / ts_;
    std::vector<std::vector<unsigned char>> blobs(static_cast<std::size_t>(across));
    std::vector<char> empty(static_cast<std::size_t>(across), 0);
    const std::size_t item = wide_ ? 8 : 4;
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t c = 0; c < across; ++c) {
      thread_local std::vector<unsigned char> tile;
      tile.assign(static_cast<std::size_t>(ts_ * ts_) * item, 0);
      bool any = false;
      const std::int64_t cw = std::min(ts_, l.w - c * ts_);
      for (std::int64_t y = 0; y < nrows; ++y) {
        const std::int64_t* src = rows + y * l.w + c * ts_;
        unsigned char* dst = tile.data() + static_cast<std::size_t>(y * ts_) * item;
        for (std::int64_t x = 0; x < cw; ++x) any |= src[x] != 0;
        if (wide_) {
          std::memcpy(dst, src, static_cast<std::size_t>(cw) * 8);
        } else {
          auto* d = reinterpret_cast<std::uint32_t*>(dst);
          for (std::int64_t x = 0; x < cw; ++x) d[x] = static_cast<std::uint32_t>(src[x]);
        }
      }
      if (!any) {
        empty[static_cast<std::size_t>(c)] = 1;
        continue;
      }
      blobs[static_cast<std::size_t>(c)] = detail::deflate_bytes(tile.data(), tile.size(), 1);  // speed over size: labels compress well anyway
    }
    if (zero_blob_.empty()) {
      const std::vector<unsigned char> zeros(static_cast<std::size_t>(ts_ * ts_) * item, 0);
      zero_blob_ = detail::deflate_bytes(zeros.data(), zeros.size(), 1);
    }
    for (std::int64_t c = 0; c < across; ++c) {
      const auto& b = empty[static_cast<std::size_t>(c)] ? zero_blob_ : blobs[static_cast<std::size_t>(c)];
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
  }

  std::string path_;
  std::int64_t ts_;
  bool wide_;
  std::vector<Level> levels_;
  TIFF* tif_ = nullptr;
  std::FILE* tmp_ = nullptr;
  std::vector<unsigned char> zero_blob_;  // a deflated all-background tile
};

/// One GeoJSON Feature: the longest contour at 0.5 of the object's uint8 mask m, whose (0, 0) is
/// level pixel (y0, x0) and whose border ring is outside the object.
std::string feature(const Object& ob, const Array& m, std::int64_t y0, std::int64_t x0, std::array<double, 2> ds) {
  measure::FindContoursOptions fo;
  fo.level = 0.5;
  // A mask of tens of megapixels (an object stitched across many tiles) is traced on the GPU when
  // there is one: the marching-squares scan of every cell is the cost, and the device's segments
  // are the same (find_contours assembles them on the host in scikit-image's order either way).
  const bool big = m.size() > (std::int64_t(1) << 24) && cuda_available();
  const std::vector<Array> cs =
      big ? measure::find_contours(m.to(Device::cuda(), Stream()), fo) : measure::find_contours(m, fo);
  const Array* best = nullptr;
  for (const Array& c : cs)
    if (!best || c.shape(0) > best->shape(0)) best = &c;
  // std::to_chars (shortest round-trip form): formatting is most of this function's cost through
  // an ostream on a slide's hundreds of thousands of outlines.
  std::string f;
  char buf[32];
  auto num = [&](double v) { f.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr); };
  auto inum = [&](std::int64_t v) { f.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr); };
  f += R"({"type":"Feature","geometry":{"type":"Polygon","coordinates":[[)";
  if (best) {
    const double* v = best->data<double>();
    f.reserve(f.size() + static_cast<std::size_t>(best->shape(0)) * 24 + 256);
    for (std::int64_t k = 0; k < best->shape(0); ++k) {
      f += k ? ",[" : "[";
      num((v[2 * k + 1] + static_cast<double>(x0)) * ds[0]);
      f += ',';
      num((v[2 * k] + static_cast<double>(y0)) * ds[1]);
      f += ']';
    }
  }
  f += R"(]]},"properties":{"objectType":"detection","name":"nucleus )";
  inum(ob.label);
  f += R"(","measurements":{"label":)";
  inum(ob.label);
  f += R"(,"area":)";
  num(static_cast<double>(ob.area) * ds[0] * ds[1]);
  f += R"(,"centroid_x":)";
  num((ob.centroid_x + 0.5) * ds[0] - 0.5);
  f += R"(,"centroid_y":)";
  num((ob.centroid_y + 0.5) * ds[1] - 0.5);
  if (!std::isnan(ob.intensity_mean)) {
    f += R"(,"intensity_mean":)";
    num(ob.intensity_mean);
  }
  f += "}}}";
  return f;
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
  // uint8 masks, not label crops: an object stitched over many tiles can have a bbox of hundreds of
  // megapixels (8 B per pixel as labels took seconds to allocate and clear on a 40k slide).
  std::vector<Array> crops(spanning.size());
#pragma omp parallel for schedule(dynamic)
  for (std::size_t j = 0; j < spanning.size(); ++j) {
    const auto g = crop_geom(R.objects[spanning[j]]);
    crops[j] = Array::zeros({g[2], g[3]}, DType::uint8);
  }
  std::vector<std::string> feats(R.objects.size());
  // Tiles in parallel (unpacking a tile is the costly part): each writes its own objects' features
  // and its own, disjoint, parts of the crossing objects' crops.
#pragma omp parallel for schedule(dynamic)
  for (std::size_t ti = 0; ti < ntiles; ++ti) {
    if (inside[ti].empty() && touching[ti].empty()) continue;
    const detail::TileRecord& rec = R.records[ti];
    if (rec.index < 0) continue;
    thread_local std::vector<std::int32_t> lab;
    R.tile_labels(static_cast<std::int64_t>(ti), lab);
    const auto& lut = R.lut[ti];
    // Final label at level pixel (y, x) of this tile, 0 outside it.
    auto at = [&](std::int64_t y, std::int64_t x) -> std::int64_t {
      if (y < rec.y || x < rec.x || y >= rec.y + rec.height || x >= rec.x + rec.width) return 0;
      return lut[static_cast<std::size_t>(lab[(y - rec.y) * rec.width + (x - rec.x)])];
    };
    for (std::size_t j = 0; j < inside[ti].size(); ++j) {
      const Object& o = R.objects[inside[ti][j]];
      const auto g = crop_geom(o);
      Array m = Array::zeros({g[2], g[3]}, DType::uint8);
      std::uint8_t* q = m.data<std::uint8_t>();
      for (std::int64_t y = 1; y < g[2] - 1; ++y)
        for (std::int64_t x = 1; x < g[3] - 1; ++x) q[y * g[3] + x] = at(g[0] + y, g[1] + x) == o.label;
      feats[inside[ti][j]] = feature(o, m, g[0], g[1], R.downsample);
    }
    for (std::size_t q = 0; q < touching[ti].size(); ++q) {
      const std::size_t j = touching[ti][q];
      const std::int64_t label = R.objects[spanning[j]].label;
      const auto g = crop_geom(R.objects[spanning[j]]);
      std::uint8_t* m = crops[j].data<std::uint8_t>();
      const std::int64_t ys = std::max(g[0] + 1, rec.y), ye = std::min(g[0] + g[2] - 1, rec.y + rec.height);
      const std::int64_t xs = std::max(g[1] + 1, rec.x), xe = std::min(g[1] + g[3] - 1, rec.x + rec.width);
      for (std::int64_t y = ys; y < ye; ++y)
        for (std::int64_t x = xs; x < xe; ++x) m[(y - g[0]) * g[3] + (x - g[1])] = at(y, x) == label;
    }
  }
#pragma omp parallel for schedule(dynamic)
  for (std::size_t j = 0; j < spanning.size(); ++j) {
    const Object& o = R.objects[spanning[j]];
    const auto g = crop_geom(o);
    feats[spanning[j]] = feature(o, crops[j], g[0], g[1], R.downsample);
    crops[j] = Array();  // freed as soon as it is outlined
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
      std::vector<std::int32_t> lab;
      R.tile_labels(ti, lab);
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
  std::ofstream f(path, std::ios::binary);
  if (!f) throw FormatError("tiled::Result::write_csv: cannot create " + path);
  const double dx = R.downsample[0], dy = R.downsample[1];
  std::string s = "label,area,centroid-0,centroid-1,bbox-0,bbox-1,bbox-2,bbox-3";
  if (R.mpp) s += ",area_um2,centroid_um-0,centroid_um-1";
  s += ",intensity_mean\n";
  // std::to_chars: the shortest text that reads back exactly, several times faster than an ostream.
  char buf[32];
  auto num = [&](double v) { s.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr); };
  auto inum = [&](std::int64_t v) { s.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr); };
  for (const Object& o : R.objects) {
    // Level pixel centres map to level-0 coordinates (c + 0.5) * downsample - 0.5.
    const double cy = (o.centroid_y + 0.5) * dy - 0.5, cx = (o.centroid_x + 0.5) * dx - 0.5;
    inum(o.label);
    s += ',';
    num(static_cast<double>(o.area) * dx * dy);
    s += ',';
    num(cy);
    s += ',';
    num(cx);
    for (const std::int64_t v : {std::llround(o.bbox_min_y * dy), std::llround(o.bbox_min_x * dx),
                                 std::llround(o.bbox_max_y * dy), std::llround(o.bbox_max_x * dx)}) {
      s += ',';
      inum(v);
    }
    if (R.mpp) {
      const auto m = *R.mpp;
      s += ',';
      num(static_cast<double>(o.area) * dx * dy * m[0] * m[1]);
      s += ',';
      num(cy * m[1]);
      s += ',';
      num(cx * m[0]);
    }
    s += ',';
    if (!std::isnan(o.intensity_mean)) num(o.intensity_mean);
    s += '\n';
    if (s.size() > (1u << 20)) {
      f.write(s.data(), static_cast<std::streamsize>(s.size()));
      s.clear();
    }
  }
  f.write(s.data(), static_cast<std::streamsize>(s.size()));
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
  std::vector<std::int64_t> band;
  for (std::int64_t r = 0; r < R.rows; ++r) {
    band_labels(R, r, band);
    w.push_rows(band.data(), static_cast<std::int64_t>(band.size()) / R.width);
  }
  w.finish();
}

}  // namespace cuskimage::tiled
