// TIFF through libtiff: single and multi-page, stripped and tiled, contiguous and planar samples,
// 1-bit (bool) to 64-bit integers and float32/float64, any compression libtiff decodes (none,
// deflate, LZW, PackBits, JPEG, ...), classic and BigTIFF, either byte order.
//
// Shapes follow tifffile (which skimage.io uses): a page is (rows, cols) or (rows, cols, samples),
// planar pages (samples, rows, cols); pages of the first page's shape and dtype are stacked on a
// leading axis. imread() then applies skimage's channel-axis rule.
#include <tiffio.h>

#include <algorithm>
#include <cstdarg>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "src/io/io_detail.hpp"
#include "src/io/tiff_handle.hpp"

namespace cuskimage::io::detail {
namespace {

using Diagnostics = TiffDiagnostics;
std::string why(const Diagnostics& d) { return d.why(); }

// ---- reading ---------------------------------------------------------------------------------------
struct Page {
  std::uint32_t width = 0, height = 0;
  std::uint16_t spp = 1, bps = 1, sample_format = SAMPLEFORMAT_UINT, planar = PLANARCONFIG_CONTIG;
  std::uint16_t photometric = PHOTOMETRIC_MINISBLACK, compression = COMPRESSION_NONE;
  std::uint32_t subfile = 0;
  bool tiled = false;
  DType dtype = DType::uint8;

  bool planar_separate() const { return planar == PLANARCONFIG_SEPARATE && spp > 1; }
  Shape shape() const {
    if (spp == 1) return {height, width};
    if (planar_separate()) return {spp, height, width};
    return {height, width, spp};
  }
  bool same_layout(const Page& o) const {
    return width == o.width && height == o.height && spp == o.spp && dtype == o.dtype &&
           planar_separate() == o.planar_separate();
  }
};

/// Reads the current directory's layout; throws FormatError for layouts we cannot decode.
Page inspect(TIFF* t, const std::string& path, int index) {
  Page p;
  const std::string where = "page " + std::to_string(index) + ": ";
  if (!TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &p.width) || !TIFFGetField(t, TIFFTAG_IMAGELENGTH, &p.height))
    format_error(kRead, path, where + "missing image width or length");
  TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &p.spp);
  TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &p.bps);
  TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLEFORMAT, &p.sample_format);
  TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &p.planar);
  TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &p.compression);
  TIFFGetFieldDefaulted(t, TIFFTAG_SUBFILETYPE, &p.subfile);
  if (!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &p.photometric))
    p.photometric = p.spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
  p.tiled = TIFFIsTiled(t) != 0;
  if (p.width == 0 || p.height == 0) format_error(kRead, path, where + "image has zero width or length");
  if (p.spp == 0 || p.spp > 1024) format_error(kRead, path, where + "invalid samples per pixel " + std::to_string(p.spp));

  const auto unsupported = [&](const std::string& what) {
    format_error(kRead, path, where + what + " is not supported");
  };
  if (p.compression == COMPRESSION_OJPEG) unsupported("old-style JPEG compression");
  if (p.photometric == PHOTOMETRIC_YCBCR) {
    if (p.compression != COMPRESSION_JPEG) unsupported("YCbCr colour without JPEG compression");
    if (p.bps != 8 || p.spp != 3) unsupported("JPEG YCbCr with " + std::to_string(p.spp) + " samples of " + std::to_string(p.bps) + " bits");
    // libtiff's JPEG codec converts to RGB (what tifffile/imagecodecs return).
    TIFFSetField(t, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
  }
  const int fmt = p.sample_format;
  if (fmt == SAMPLEFORMAT_UINT || fmt == SAMPLEFORMAT_VOID) {
    switch (p.bps) {
      case 1: p.dtype = DType::bool_; break;
      case 8: p.dtype = DType::uint8; break;
      case 16: p.dtype = DType::uint16; break;
      case 32: p.dtype = DType::uint32; break;
      case 64: p.dtype = DType::uint64; break;
      default: unsupported(std::to_string(p.bps) + "-bit unsigned samples");
    }
  } else if (fmt == SAMPLEFORMAT_INT) {
    switch (p.bps) {
      case 8: p.dtype = DType::int8; break;
      case 16: p.dtype = DType::int16; break;
      case 32: p.dtype = DType::int32; break;
      case 64: p.dtype = DType::int64; break;
      default: unsupported(std::to_string(p.bps) + "-bit signed samples");
    }
  } else if (fmt == SAMPLEFORMAT_IEEEFP) {
    if (p.bps == 32) p.dtype = DType::float32;
    else if (p.bps == 64) p.dtype = DType::float64;
    else unsupported(std::to_string(p.bps) + "-bit floating-point samples");
  } else {
    unsupported("sample format " + std::to_string(fmt) + " (complex)");
  }
  return p;
}

/// Copies one decoded block (strip or tile) of `block_rows` rows, `row_bytes` bytes each, holding
/// `block_cols` pixels of `spp` samples, into the page at (y0, x0). `dst` is the page (or plane)
/// with `dst_cols` pixels per row.
void place_block(const unsigned char* src, std::size_t row_bytes, std::int64_t block_rows, std::int64_t block_cols,
                 std::int64_t y0, std::int64_t x0, const Page& p, int spp, unsigned char* dst, std::int64_t dst_rows,
                 std::int64_t dst_cols) {
  const std::int64_t rows = std::min(block_rows, dst_rows - y0);
  const std::int64_t cols = std::min(block_cols, dst_cols - x0);
  if (rows <= 0 || cols <= 0) return;
  if (p.bps == 1) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const unsigned char* s = src + r * row_bytes;
      unsigned char* d = dst + ((y0 + r) * dst_cols + x0) * spp;
      for (std::int64_t i = 0; i < cols * spp; ++i) d[i] = (s[i >> 3] >> (7 - (i & 7))) & 1;
    }
    return;
  }
  const std::size_t px = static_cast<std::size_t>(spp) * (p.bps / 8);
  for (std::int64_t r = 0; r < rows; ++r)
    std::memcpy(dst + ((y0 + r) * dst_cols + x0) * px, src + r * row_bytes, static_cast<std::size_t>(cols) * px);
}

void read_page(TIFF* t, const Page& p, unsigned char* dst, const std::string& path, int index, Diagnostics& diag,
               std::uint64_t file_bytes) {
  const int planes = p.planar_separate() ? p.spp : 1;
  const int spp = p.planar_separate() ? 1 : p.spp;
  const std::size_t item = p.bps == 1 ? 1 : p.bps / 8;
  const std::size_t plane_bytes = std::size_t(p.width) * p.height * spp * item;
  const std::string where = "page " + std::to_string(index);
  const auto fail = [&](const std::string& what) { format_error(kRead, path, "corrupt TIFF data in " + where + ", " + what + ": " + why(diag)); };

  if (p.tiled) {
    std::uint32_t tw = 0, th = 0;
    if (!TIFFGetField(t, TIFFTAG_TILEWIDTH, &tw) || !TIFFGetField(t, TIFFTAG_TILELENGTH, &th) || tw == 0 || th == 0)
      format_error(kRead, path, where + ": invalid tile size");
    const tmsize_t tile_size = TIFFTileSize(t);
    const tmsize_t row_bytes = TIFFTileRowSize(t);
    if (tile_size <= 0 || row_bytes <= 0) fail("tile size");
    check_plausible_size(kRead, path, static_cast<double>(tile_size), file_bytes, 4096.0);
    std::vector<unsigned char> buf(static_cast<std::size_t>(tile_size));
    for (int s = 0; s < planes; ++s)
      for (std::uint32_t y = 0; y < p.height; y += th)
        for (std::uint32_t x = 0; x < p.width; x += tw) {
          const ttile_t tile = TIFFComputeTile(t, x, y, 0, static_cast<std::uint16_t>(s));
          if (TIFFReadEncodedTile(t, tile, buf.data(), tile_size) < 0) fail("tile " + std::to_string(tile));
          place_block(buf.data(), static_cast<std::size_t>(row_bytes), th, tw, y, x, p, spp, dst + s * plane_bytes,
                      p.height, p.width);
        }
    return;
  }

  std::uint32_t rps = p.height;
  TIFFGetFieldDefaulted(t, TIFFTAG_ROWSPERSTRIP, &rps);
  if (rps == 0 || rps > p.height) rps = p.height;
  const tmsize_t scanline = TIFFScanlineSize(t);
  if (scanline <= 0) fail("scanline size");
  const std::uint32_t strips_per_plane = (p.height + rps - 1) / rps;
  const bool direct = p.bps != 1 && static_cast<std::size_t>(scanline) == std::size_t(p.width) * spp * item;
  std::vector<unsigned char> buf;
  if (!direct) buf.resize(static_cast<std::size_t>(scanline) * rps);
  for (int s = 0; s < planes; ++s)
    for (std::uint32_t k = 0; k < strips_per_plane; ++k) {
      const std::uint32_t y = k * rps;
      const std::uint32_t rows = std::min(rps, p.height - y);
      const tstrip_t strip = static_cast<tstrip_t>(s) * strips_per_plane + k;
      const tmsize_t want = static_cast<tmsize_t>(rows) * scanline;
      unsigned char* out = direct ? dst + s * plane_bytes + static_cast<std::size_t>(y) * scanline : buf.data();
      const tmsize_t got = TIFFReadEncodedStrip(t, strip, out, want);
      if (got < 0) fail("strip " + std::to_string(strip));
      if (got < want) format_error(kRead, path, "truncated TIFF data in " + where + ", strip " + std::to_string(strip));
      if (!direct)
        place_block(buf.data(), static_cast<std::size_t>(scanline), rows, p.width, y, 0, p, spp, dst + s * plane_bytes,
                    p.height, p.width);
    }
}

/// The shape tifffile records in a series' first ImageDescription ({"shape": [2, 5, 12, 10], ...}),
/// or empty.
Shape tifffile_shape(TIFF* t) {
  const char* desc = nullptr;
  if (!TIFFGetField(t, TIFFTAG_IMAGEDESCRIPTION, &desc) || !desc) return {};
  std::string_view d(desc);
  const auto start = d.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || d[start] != '{') return {};
  auto i = d.find("\"shape\"");
  if (i == std::string_view::npos) return {};
  i += 7;
  const auto skip = [&] {
    while (i < d.size() && (d[i] == ' ' || d[i] == '\t')) ++i;
  };
  skip();
  if (i >= d.size() || d[i++] != ':') return {};
  skip();
  if (i >= d.size() || d[i++] != '[') return {};
  Shape shape;
  for (;;) {
    skip();
    if (i < d.size() && d[i] == ']') break;
    std::int64_t v = 0;
    const auto begin = i;
    while (i < d.size() && d[i] >= '0' && d[i] <= '9' && v < (std::int64_t(1) << 40)) v = v * 10 + (d[i++] - '0');
    if (i == begin) return {};
    shape.push_back(v);
    skip();
    if (i < d.size() && d[i] == ',') ++i;
    else if (i >= d.size() || d[i] != ']') return {};
    if (shape.size() > 32) return {};
  }
  return shape;
}

}  // namespace

Array read_tiff(const std::string& path) {
  Diagnostics diag;
  TiffPtr t = open_tiff(path, "r", diag);
  if (!t) format_error(kRead, path, "cannot open as TIFF: " + why(diag));

  // Directory walk: the first page fixes the layout. A file written by tifffile names the shape of
  // its first series in the first page's description: that many consecutive pages, in that shape.
  // Otherwise later pages of the same layout are stacked (reduced-resolution pages and pages of
  // another shape or dtype are skipped), as tifffile's generic series does.
  std::vector<tdir_t> dirs;
  Page first;
  Shape series_shape;
  std::int64_t series_pages = 0;
  for (tdir_t d = 0;; ++d) {
    if (d == 0) {
      first = inspect(t.get(), path, 0);
      dirs.push_back(d);
      series_shape = tifffile_shape(t.get());
      const std::int64_t per_page = shape_size(first.shape());
      const std::int64_t total = series_shape.empty() ? 0 : shape_size(series_shape);
      if (total > 0 && total % per_page == 0) series_pages = total / per_page;
      else series_shape.clear();
    } else {
      if (series_pages > 0 && static_cast<std::int64_t>(dirs.size()) >= series_pages) break;
      std::optional<Page> p;
      try {
        p = inspect(t.get(), path, static_cast<int>(d));
      } catch (const FormatError&) {  // a page we cannot decode is not part of the first series
      }
      const bool member = p && p->same_layout(first) && (series_pages > 0 || !(p->subfile & FILETYPE_REDUCEDIMAGE));
      if (member) dirs.push_back(d);
      else if (series_pages > 0) break;
    }
    if (series_pages == 1) break;
    diag.first_error.clear();
    if (!TIFFReadDirectory(t.get())) break;  // no more pages (or a broken link: keep what we have)
    if (d > 1000000) format_error(kRead, path, "too many TIFF directories (a directory loop?)");
  }

  // Pixel bytes as stored; uncompressed pages must all be inside the file.
  std::error_code ec;
  const std::uint64_t file_bytes = std::filesystem::file_size(path, ec);
  {
    const double stored = static_cast<double>(first.width) * first.height * first.spp * first.bps / 8.0 * dirs.size();
    check_plausible_size(kRead, path, stored, ec ? 0 : file_bytes, first.compression == COMPRESSION_NONE ? 1.0 : 4096.0);
  }
  Shape page_shape = first.shape();
  Shape shape = page_shape;
  if (dirs.size() > 1) shape.insert(shape.begin(), static_cast<std::int64_t>(dirs.size()));
  if (series_pages > 0 && static_cast<std::int64_t>(dirs.size()) == series_pages) shape = series_shape;
  Array out = Array::empty(shape, first.dtype);
  const std::size_t page_bytes = static_cast<std::size_t>(shape_size(page_shape)) * itemsize(first.dtype);
  auto* base = static_cast<unsigned char*>(out.data());
  for (std::size_t i = 0; i < dirs.size(); ++i) {
    diag.first_error.clear();
    if (!TIFFSetDirectory(t.get(), dirs[i])) format_error(kRead, path, "cannot read TIFF directory " + std::to_string(dirs[i]) + ": " + why(diag));
    const Page p = inspect(t.get(), path, static_cast<int>(dirs[i]));  // also sets the JPEG colour mode
    read_page(t.get(), p, base + i * page_bytes, path, static_cast<int>(dirs[i]), diag, file_bytes);
  }
  return out;
}

// ---- writing -----------------------------------------------------------------------------------------
namespace {

struct WriteLayout {
  std::int64_t pages = 1, rows = 0, cols = 0, spp = 1;
  bool planar = false;
};

/// skimage.io.imsave's TIFF rules (its tifffile plugin): a 3-D array whose first axis is 3 or 4 is
/// a planar RGB(A) image; a last axis of 3 or 4 is RGB(A) (a 4-D array: pages of RGB(A)); otherwise
/// 2-D is one grey page and 3-D a stack of grey pages.
WriteLayout layout_of(const std::string& path, const Array& a) {
  const Shape& s = a.shape();
  WriteLayout l;
  const auto rgb = [](std::int64_t n) { return n == 3 || n == 4; };
  if (a.ndim() == 2) {
    l.rows = s[0], l.cols = s[1];
  } else if (a.ndim() == 3 && rgb(s[0])) {
    l.planar = true, l.spp = s[0], l.rows = s[1], l.cols = s[2];
  } else if (a.ndim() == 3 && rgb(s[2])) {
    l.rows = s[0], l.cols = s[1], l.spp = s[2];
  } else if (a.ndim() == 3) {
    l.pages = s[0], l.rows = s[1], l.cols = s[2];
  } else if (a.ndim() == 4 && rgb(s[3])) {
    l.pages = s[0], l.rows = s[1], l.cols = s[2], l.spp = s[3];
  } else {
    invalid_image(path, "must have shape (rows, cols), (rows, cols, 3|4), (3|4, rows, cols), (pages, rows, cols) or "
                        "(pages, rows, cols, 3|4) for TIFF, got " + shape_str(s));
  }
  if (l.rows > 0xFFFFFFFFll || l.cols > 0xFFFFFFFFll) invalid_image(path, "is too large for TIFF, shape " + shape_str(s));
  return l;
}

int compression_code(const std::string& path, const std::string& c) {
  if (c == "none" || c.empty()) return COMPRESSION_NONE;
  if (c == "deflate" || c == "zlib") return COMPRESSION_ADOBE_DEFLATE;
  if (c == "lzw") return COMPRESSION_LZW;
  if (c == "jpeg") return COMPRESSION_JPEG;
  throw InvalidArgument("io.imsave: argument 'compression' must be 'none', 'deflate', 'lzw' or 'jpeg', got '" + c +
                        "' (writing '" + path + "')");
}

}  // namespace

void check_tiff(const std::string& path, const Array& a, const ImsaveOptions& opt) {
  const WriteLayout l = layout_of(path, a);
  const int comp = compression_code(path, opt.compression);
  if (comp == COMPRESSION_JPEG) {
    if (a.dtype() != DType::uint8) invalid_image(path, "must be uint8 for JPEG-compressed TIFF, got " + std::string(dtype_name(a.dtype())));
    if (l.spp != 1 && l.spp != 3) invalid_image(path, "must be grey or RGB for JPEG-compressed TIFF, got shape " + shape_str(a.shape()));
    if (opt.quality < 1 || opt.quality > 100)
      throw InvalidArgument("io.imsave: argument 'quality' must be in 1..100, got " + std::to_string(opt.quality));
  }
  const auto& tile = opt.tile;
  if (tile[0] != 0 || tile[1] != 0) {
    if (tile[0] <= 0 || tile[1] <= 0 || tile[0] % 16 || tile[1] % 16 || tile[0] > 65536 || tile[1] > 65536)
      throw InvalidArgument("io.imsave: argument 'tile' must be two positive multiples of 16, got {" +
                            std::to_string(tile[0]) + ", " + std::to_string(tile[1]) + "} (writing '" + path + "')");
  }
}

void write_tiff(const std::string& path, const std::string& out_path, const Array& a, const ImsaveOptions& opt) {
  const WriteLayout l = layout_of(path, a);
  const int comp = compression_code(path, opt.compression);
  const bool tiled = opt.tile[0] > 0 && opt.tile[1] > 0;
  const std::size_t item = a.itemsize();
  // Classic TIFF offsets are 32-bit: BigTIFF when the data (plus directories) may pass 4 GiB.
  const bool big = opt.bigtiff || a.nbytes() > (std::uint64_t(1) << 32) - (std::uint64_t(1) << 25);
  Diagnostics diag;
  TiffPtr t = open_tiff(out_path, big ? "w8" : "w", diag);
  if (!t) format_error(kSave, path, "cannot create TIFF: " + why(diag));

  std::uint16_t sample_format = SAMPLEFORMAT_UINT;
  if (is_floating(a.dtype())) sample_format = SAMPLEFORMAT_IEEEFP;
  else if (is_signed(a.dtype())) sample_format = SAMPLEFORMAT_INT;
  const std::int64_t spp_in_block = l.planar ? 1 : l.spp;
  const std::size_t row_bytes = static_cast<std::size_t>(l.cols * spp_in_block) * item;
  const std::size_t plane_bytes = row_bytes * static_cast<std::size_t>(l.rows);
  const std::size_t page_bytes = plane_bytes * (l.planar ? l.spp : 1);
  const auto* base = static_cast<const unsigned char*>(a.data());
  const auto fail = [&](const std::string& what) { format_error(kSave, path, "writing TIFF " + what + " failed: " + why(diag)); };

  for (std::int64_t pg = 0; pg < l.pages; ++pg) {
    TIFF* tf = t.get();
    TIFFSetField(tf, TIFFTAG_SUBFILETYPE, 0);
    TIFFSetField(tf, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(l.cols));
    TIFFSetField(tf, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(l.rows));
    TIFFSetField(tf, TIFFTAG_SAMPLESPERPIXEL, static_cast<std::uint16_t>(l.spp));
    TIFFSetField(tf, TIFFTAG_BITSPERSAMPLE, static_cast<std::uint16_t>(item * 8));
    TIFFSetField(tf, TIFFTAG_SAMPLEFORMAT, sample_format);
    TIFFSetField(tf, TIFFTAG_PLANARCONFIG, l.planar ? PLANARCONFIG_SEPARATE : PLANARCONFIG_CONTIG);
    TIFFSetField(tf, TIFFTAG_COMPRESSION, static_cast<std::uint16_t>(comp));
    TIFFSetField(tf, TIFFTAG_SOFTWARE, "cuskimage");
    if (pg == 0) {
      // tifffile's shaped-series description, so tifffile (and skimage) read the array's shape back.
      std::string desc = "{\"shape\": [";
      for (int i = 0; i < a.ndim(); ++i) desc += (i ? ", " : "") + std::to_string(a.shape(i));
      desc += "]}";
      TIFFSetField(tf, TIFFTAG_IMAGEDESCRIPTION, desc.c_str());
    }
    if (l.pages > 1) TIFFSetField(tf, TIFFTAG_PAGENUMBER, static_cast<std::uint16_t>(std::min<std::int64_t>(pg, 65535)),
                                  static_cast<std::uint16_t>(std::min<std::int64_t>(l.pages, 65535)));
    if (l.spp >= 3) {
      if (comp == COMPRESSION_JPEG) {
        TIFFSetField(tf, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_YCBCR);
      } else {
        TIFFSetField(tf, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_RGB);
      }
      if (l.spp == 4) {
        const std::uint16_t extra[1] = {EXTRASAMPLE_UNASSALPHA};
        TIFFSetField(tf, TIFFTAG_EXTRASAMPLES, 1, extra);
      }
    } else {
      TIFFSetField(tf, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
    }
    if (comp == COMPRESSION_JPEG) {
      TIFFSetField(tf, TIFFTAG_JPEGQUALITY, opt.quality);
      if (l.spp == 3) TIFFSetField(tf, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
    }
    if (comp == COMPRESSION_ADOBE_DEFLATE) TIFFSetField(tf, TIFFTAG_ZIPQUALITY, 6);

    const unsigned char* page = base + static_cast<std::size_t>(pg) * page_bytes;
    const int planes = l.planar ? static_cast<int>(l.spp) : 1;
    if (tiled) {
      const auto th = static_cast<std::uint32_t>(opt.tile[0]), tw = static_cast<std::uint32_t>(opt.tile[1]);
      TIFFSetField(tf, TIFFTAG_TILELENGTH, th);
      TIFFSetField(tf, TIFFTAG_TILEWIDTH, tw);
      const std::size_t trow = static_cast<std::size_t>(tw * spp_in_block) * item;
      std::vector<unsigned char> buf(trow * th);
      for (int s = 0; s < planes; ++s)
        for (std::int64_t y = 0; y < l.rows; y += th)
          for (std::int64_t x = 0; x < l.cols; x += tw) {
            std::fill(buf.begin(), buf.end(), 0);
            const std::int64_t rows = std::min<std::int64_t>(th, l.rows - y), cols = std::min<std::int64_t>(tw, l.cols - x);
            for (std::int64_t r = 0; r < rows; ++r)
              std::memcpy(buf.data() + r * trow, page + s * plane_bytes + (y + r) * row_bytes + x * spp_in_block * item,
                          static_cast<std::size_t>(cols * spp_in_block) * item);
            const ttile_t tile = TIFFComputeTile(tf, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 0,
                                                 static_cast<std::uint16_t>(s));
            if (TIFFWriteEncodedTile(tf, tile, buf.data(), static_cast<tmsize_t>(buf.size())) < 0)
              fail("tile " + std::to_string(tile));
          }
    } else {
      // About 256 KiB per strip; JPEG needs whole MCU rows (16 for YCbCr 2x2 subsampling).
      std::int64_t rps = std::max<std::int64_t>(1, (std::int64_t(1) << 18) / std::max<std::size_t>(row_bytes, 1));
      if (comp == COMPRESSION_JPEG) rps = std::max<std::int64_t>(16, rps / 16 * 16);
      rps = std::min(rps, l.rows);
      TIFFSetField(tf, TIFFTAG_ROWSPERSTRIP, static_cast<std::uint32_t>(rps));
      const std::int64_t strips = (l.rows + rps - 1) / rps;
      for (int s = 0; s < planes; ++s)
        for (std::int64_t k = 0; k < strips; ++k) {
          const std::int64_t rows = std::min(rps, l.rows - k * rps);
          const unsigned char* src = page + s * plane_bytes + k * rps * row_bytes;
          const tstrip_t strip = static_cast<tstrip_t>(s * strips + k);
          if (TIFFWriteEncodedStrip(tf, strip, const_cast<unsigned char*>(src), static_cast<tmsize_t>(rows * row_bytes)) < 0)
            fail("strip " + std::to_string(strip));
        }
    }
    if (!TIFFWriteDirectory(tf)) fail("directory of page " + std::to_string(pg));
  }
  TIFF* raw = t.release();
  TIFFClose(raw);  // flushes; errors were reported by TIFFWriteDirectory
  if (!diag.first_error.empty()) format_error(kSave, path, "writing TIFF failed: " + why(diag));
}

}  // namespace cuskimage::io::detail
