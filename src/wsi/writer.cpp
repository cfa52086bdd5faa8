// wsi::write_pyramid: a tiled pyramidal TIFF writer on libtiff (whose JPEG codec writes the
// JPEGTables + abbreviated tile streams that slide readers expect). Levels halve (ceil) until one
// tile holds the level; RGB levels average 2x2 blocks, label images take each block's mode.
#include <tiffio.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

#include "src/io/io_detail.hpp"
#include "src/io/tiff_handle.hpp"
#include "src/wsi/wsi_detail.hpp"

namespace cuskimage::wsi {
namespace {

constexpr const char* kFn = "wsi.write_pyramid";

using Diagnostics = io::detail::TiffDiagnostics;

/// A host image of one level: rows x cols x channels samples of 1 or 2 bytes.
struct Plane {
  std::int64_t rows = 0, cols = 0, ch = 1;
  int bytes = 1;
  std::vector<unsigned char> data;
  unsigned char* px(std::int64_t y, std::int64_t x) { return data.data() + ((y * cols + x) * ch) * bytes; }
  const unsigned char* px(std::int64_t y, std::int64_t x) const { return data.data() + ((y * cols + x) * ch) * bytes; }
};

template <class T>
void halve_typed(const Plane& in, Plane& out, bool label) {
  const T* src = reinterpret_cast<const T*>(in.data.data());
  T* dst = reinterpret_cast<T*>(out.data.data());
  const std::int64_t ch = in.ch;
#pragma omp parallel for schedule(static)
  for (std::int64_t y = 0; y < out.rows; ++y)
    for (std::int64_t x = 0; x < out.cols; ++x)
      for (std::int64_t c = 0; c < ch; ++c) {
        T v[4] = {};
        int n = 0;
        for (int dy = 0; dy < 2; ++dy)
          for (int dx = 0; dx < 2; ++dx) {
            const std::int64_t sy = 2 * y + dy, sx = 2 * x + dx;
            if (sy < in.rows && sx < in.cols) v[n++] = src[(sy * in.cols + sx) * ch + c];
          }
        T r;
        if (label) {  // the most frequent value, ties to the smallest: never a blend of classes
          for (int i = 1; i < n; ++i)  // insertion sort of <= 4 values
            for (int k = i; k > 0 && v[k] < v[k - 1]; --k) std::swap(v[k], v[k - 1]);
          int best = 0, best_count = 0;
          for (int i = 0; i < n;) {
            int j = i;
            while (j < n && v[j] == v[i]) ++j;
            if (j - i > best_count) best = i, best_count = j - i;
            i = j;
          }
          r = v[best];
        } else {
          std::uint32_t sum = 0;
          for (int i = 0; i < n; ++i) sum += v[i];
          r = static_cast<T>((sum + static_cast<std::uint32_t>(n) / 2) / static_cast<std::uint32_t>(n));
        }
        dst[(y * out.cols + x) * ch + c] = r;
      }
}

Plane halve(const Plane& in, bool label) {
  Plane out;
  out.rows = (in.rows + 1) / 2, out.cols = (in.cols + 1) / 2, out.ch = in.ch, out.bytes = in.bytes;
  out.data.resize(static_cast<std::size_t>(out.rows * out.cols * out.ch * out.bytes));
  if (in.bytes == 1) halve_typed<std::uint8_t>(in, out, label);
  else halve_typed<std::uint16_t>(in, out, label);
  return out;
}

Plane to_plane(const Array& image, const Stream& stream) {
  Array host = image.to(Device::cpu(), stream).contiguous(stream);
  Plane p;
  p.rows = host.shape(0), p.cols = host.shape(1), p.ch = host.ndim() == 3 ? host.shape(2) : 1;
  p.bytes = static_cast<int>(host.itemsize());
  const auto* b = static_cast<const unsigned char*>(host.data());
  p.data.assign(b, b + host.nbytes());
  return p;
}

struct Writer {
  TIFF* tif;
  const PyramidOptions& opt;
  Diagnostics& diag;
  const std::string& path;

  [[noreturn]] void fail(const std::string& what) const {
    throw FormatError(std::string(kFn) + ": '" + path + "': " + what + (diag.first_error.empty() ? "" : ": " + diag.first_error));
  }

  std::uint16_t compression_code(const std::string& c) const {
    if (c == "jpeg") return COMPRESSION_JPEG;
    if (c == "deflate") return COMPRESSION_ADOBE_DEFLATE;
    if (c == "lzw") return COMPRESSION_LZW;
    if (c == "none") return COMPRESSION_NONE;
    if (c == "zstd") return COMPRESSION_ZSTD;
    if (c == "webp") return COMPRESSION_WEBP;
    throw InvalidArgument(std::string(kFn) + ": argument 'compression' must be 'jpeg', 'deflate', 'lzw', 'none', 'zstd' or "
                          "'webp', got '" + c + "'");
  }

  /// Tags of one page (tiled when tile > 0, else stripped).
  void set_tags(const Plane& p, std::uint16_t comp, std::int64_t tile, std::uint32_t subfile, const std::string& desc,
                bool with_resolution) {
    TIFFSetField(tif, TIFFTAG_SUBFILETYPE, subfile);
    TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, static_cast<std::uint32_t>(p.cols));
    TIFFSetField(tif, TIFFTAG_IMAGELENGTH, static_cast<std::uint32_t>(p.rows));
    TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, static_cast<std::uint16_t>(p.ch));
    TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, static_cast<std::uint16_t>(8 * p.bytes));
    TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
    TIFFSetField(tif, TIFFTAG_COMPRESSION, comp);
    TIFFSetField(tif, TIFFTAG_SOFTWARE, opt.software.c_str());
    if (!desc.empty()) TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, desc.c_str());
    if (p.ch == 4) {
      const std::uint16_t extra[1] = {EXTRASAMPLE_UNASSALPHA};
      TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, 1, extra);
    }
    const bool colour = p.ch >= 3;
    if (comp == COMPRESSION_JPEG) {
      const bool ycc = colour && opt.jpeg_colorspace == "ycbcr";
      TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, ycc ? PHOTOMETRIC_YCBCR : colour ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
      TIFFSetField(tif, TIFFTAG_JPEGQUALITY, opt.quality);
      if (ycc) {
        TIFFSetField(tif, TIFFTAG_YCBCRSUBSAMPLING, static_cast<std::uint16_t>(opt.ycbcr_subsampling[0]),
                     static_cast<std::uint16_t>(opt.ycbcr_subsampling[1]));
        TIFFSetField(tif, TIFFTAG_JPEGCOLORMODE, JPEGCOLORMODE_RGB);
      }
    } else {
      TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, colour ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK);
      if (comp == COMPRESSION_WEBP) {
        TIFFSetField(tif, TIFFTAG_WEBP_LEVEL, opt.quality);
      }
      if (comp == COMPRESSION_ADOBE_DEFLATE || comp == COMPRESSION_LZW || comp == COMPRESSION_ZSTD)
        TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
    }
    if (with_resolution && opt.mpp) {
      const float res = static_cast<float>(10000.0 / *opt.mpp);
      TIFFSetField(tif, TIFFTAG_XRESOLUTION, res);
      TIFFSetField(tif, TIFFTAG_YRESOLUTION, res);
      TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, RESUNIT_CENTIMETER);
    }
    if (tile > 0) {
      TIFFSetField(tif, TIFFTAG_TILEWIDTH, static_cast<std::uint32_t>(tile));
      TIFFSetField(tif, TIFFTAG_TILELENGTH, static_cast<std::uint32_t>(tile));
    }
  }

  void write_tiled(const Plane& p, std::uint16_t comp, std::uint32_t subfile, const std::string& desc, bool res) {
    const std::int64_t ts = opt.tile_size;
    set_tags(p, comp, ts, subfile, desc, res);
    const std::size_t pix = static_cast<std::size_t>(p.ch * p.bytes);
    std::vector<unsigned char> buf(static_cast<std::size_t>(ts * ts) * pix);
    for (std::int64_t y = 0; y < p.rows; y += ts)
      for (std::int64_t x = 0; x < p.cols; x += ts) {
        // Edge tiles repeat the last row/column (compresses better than a hard edge; readers clip).
        for (std::int64_t r = 0; r < ts; ++r) {
          const std::int64_t sy = std::min(y + r, p.rows - 1);
          const std::int64_t n = std::min(ts, p.cols - x);
          unsigned char* dst = buf.data() + static_cast<std::size_t>(r * ts) * pix;
          std::memcpy(dst, p.px(sy, x), static_cast<std::size_t>(n) * pix);
          for (std::int64_t c = n; c < ts; ++c) std::memcpy(dst + c * pix, dst + (n - 1) * pix, pix);
        }
        const ttile_t t = TIFFComputeTile(tif, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y), 0, 0);
        if (TIFFWriteEncodedTile(tif, t, buf.data(), static_cast<tmsize_t>(buf.size())) < 0) fail("writing a tile failed");
      }
    if (!TIFFWriteDirectory(tif)) fail("writing a directory failed");
  }

  void write_stripped(const Plane& p, std::uint16_t comp, std::uint32_t subfile, const std::string& desc) {
    set_tags(p, comp, 0, subfile, desc, false);
    const std::size_t row = static_cast<std::size_t>(p.cols * p.ch * p.bytes);
    std::int64_t rps = std::max<std::int64_t>(16, static_cast<std::int64_t>((std::size_t(1) << 18) / std::max<std::size_t>(row, 1)) / 16 * 16);
    rps = std::min(rps, p.rows);
    TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, static_cast<std::uint32_t>(rps));
    for (std::int64_t k = 0; k * rps < p.rows; ++k) {
      const std::int64_t rows = std::min(rps, p.rows - k * rps);
      if (TIFFWriteEncodedStrip(tif, static_cast<tstrip_t>(k), const_cast<unsigned char*>(p.px(k * rps, 0)),
                                static_cast<tmsize_t>(rows * row)) < 0)
        fail("writing a strip failed");
    }
    if (!TIFFWriteDirectory(tif)) fail("writing a directory failed");
  }
};

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

void write_pyramid(const std::string& path, const Array& image, const PyramidOptions& opt, const Stream& stream) {
  // ---- validation ----
  const std::string fn = kFn;
  if (!image.valid()) throw InvalidArgument(fn + ": argument 'image' is an empty array");
  const bool shape_ok = image.ndim() == 2 || (image.ndim() == 3 && (image.shape(2) == 3 || image.shape(2) == 4 || image.shape(2) == 1));
  if (!shape_ok || image.shape(0) <= 0 || image.shape(1) <= 0)
    throw InvalidArgument(fn + ": argument 'image' must have shape (rows, cols), (rows, cols, 3) or (rows, cols, 4), got " +
                          shape_str(image.shape()));
  if (image.dtype() != DType::uint8 && image.dtype() != DType::uint16)
    throw InvalidArgument(fn + ": argument 'image' must be uint8 or uint16, got " + std::string(dtype_name(image.dtype())));
  if (image.shape(0) > 0xFFFFFFFFll || image.shape(1) > 0xFFFFFFFFll)
    throw InvalidArgument(fn + ": argument 'image' is too large for TIFF, shape " + shape_str(image.shape()));
  if (opt.tile_size <= 0 || opt.tile_size % 16 || opt.tile_size > 4096)
    throw InvalidArgument(fn + ": argument 'tile_size' must be a positive multiple of 16 up to 4096, got " + std::to_string(opt.tile_size));
  if (opt.quality < 1 || opt.quality > 100)
    throw InvalidArgument(fn + ": argument 'quality' must be in 1..100, got " + std::to_string(opt.quality));
  if (opt.levels < 0) throw InvalidArgument(fn + ": argument 'levels' must be >= 0, got " + std::to_string(opt.levels));
  if (opt.jpeg_colorspace != "ycbcr" && opt.jpeg_colorspace != "rgb")
    throw InvalidArgument(fn + ": argument 'jpeg_colorspace' must be 'ycbcr' or 'rgb', got '" + opt.jpeg_colorspace + "'");
  {
    const auto& ss = opt.ycbcr_subsampling;
    const bool ok = (ss[0] == 1 || ss[0] == 2) && (ss[1] == 1 || ss[1] == 2) && ss[1] <= ss[0];
    if (!ok)
      throw InvalidArgument(fn + ": argument 'ycbcr_subsampling' must be {2, 2}, {2, 1} or {1, 1}, got {" +
                            std::to_string(ss[0]) + ", " + std::to_string(ss[1]) + "}");
  }
  if (opt.mpp && !(*opt.mpp > 0 && std::isfinite(*opt.mpp)))
    throw InvalidArgument(fn + ": argument 'mpp' must be positive, got " + fmt(*opt.mpp));
  Diagnostics diag;
  const std::string none;
  Writer probe{nullptr, opt, diag, none};
  const std::uint16_t comp = probe.compression_code(opt.compression);
  const std::int64_t channels = image.ndim() == 3 ? image.shape(2) : 1;
  if ((comp == COMPRESSION_JPEG || comp == COMPRESSION_WEBP) && image.dtype() != DType::uint8)
    throw InvalidArgument(fn + ": argument 'image' must be uint8 for " + opt.compression + ", got " + std::string(dtype_name(image.dtype())));
  if (comp == COMPRESSION_JPEG && channels == 4)
    throw InvalidArgument(fn + ": argument 'image' must be grey or RGB for jpeg, got shape " + shape_str(image.shape()));
  if (comp == COMPRESSION_WEBP && channels < 3)
    throw InvalidArgument(fn + ": argument 'image' must be RGB or RGBA for webp, got shape " + shape_str(image.shape()));
  if (!TIFFIsCODECConfigured(comp))
    throw NotSupported(fn + ": compression '" + opt.compression + "' is not available in this libtiff");
  for (const auto& [name, a] : opt.associated) {
    if (name != "thumbnail" && name != "label" && name != "macro")
      throw InvalidArgument(fn + ": argument 'associated' names must be thumbnail, label or macro, got '" + name + "'");
    if (!a || !a->valid() || a->dtype() != DType::uint8 || a->ndim() != 3 || a->shape(2) != 3)
      throw InvalidArgument(fn + ": argument 'associated' image '" + name + "' must be uint8 (rows, cols, 3)");
  }

  // ---- levels ----
  std::vector<Plane> levels;
  levels.push_back(to_plane(image, stream));
  const std::int64_t want = opt.levels;
  for (;;) {
    const Plane& last = levels.back();
    if (want > 0 ? static_cast<std::int64_t>(levels.size()) >= want : std::max(last.rows, last.cols) <= opt.tile_size) break;
    if (last.rows == 1 && last.cols == 1) break;
    levels.push_back(halve(last, opt.label));
  }

  const std::uint64_t bytes = levels[0].data.size() * 4 / 3 + (std::uint64_t(1) << 20);
  const bool big = opt.bigtiff || bytes > (std::uint64_t(1) << 32) - (std::uint64_t(1) << 26);
  io::detail::AtomicOutput out(path);
  io::detail::TiffPtr guard = io::detail::open_tiff(out.temp_path(), big ? "w8" : "w", diag);
  if (!guard) throw FormatError(fn + ": '" + path + "': cannot create the file: " + diag.first_error);
  TIFF* tif = guard.get();
  Writer w{tif, opt, diag, path};

  const Plane& l0 = levels[0];
  const std::string head = "Aperio Image Library v12.0.15 (cuskimage)\n";
  const std::string mag = opt.objective_power ? "|AppMag = " + fmt(*opt.objective_power) : "";
  const std::string mpp = opt.mpp ? "|MPP = " + fmt(*opt.mpp) : "";
  const std::string comp_name = comp == COMPRESSION_JPEG ? "JPEG/RGB Q=" + std::to_string(opt.quality) : opt.compression;
  const auto level_desc = [&](std::size_t i) -> std::string {
    if (i == 0 && opt.description) return *opt.description;
    if (!opt.aperio) return {};
    const std::string size0 = std::to_string(l0.cols) + "x" + std::to_string(l0.rows);
    if (i == 0)
      return head + size0 + " [0,0 " + size0 + "] (" + std::to_string(opt.tile_size) + "x" + std::to_string(opt.tile_size) +
             ") " + comp_name + mag + mpp;
    return head + size0 + " -> " + std::to_string(levels[i].cols) + "x" + std::to_string(levels[i].rows) + " - " + mag + mpp;
  };

  if (opt.subifds && levels.size() > 1) {
    std::vector<std::uint64_t> zero(levels.size() - 1, 0);
    w.set_tags(levels[0], comp, opt.tile_size, 0, level_desc(0), true);
    TIFFSetField(tif, TIFFTAG_SUBIFD, static_cast<std::uint16_t>(zero.size()), zero.data());
    // write_tiled sets the same tags again (harmless) and writes the tiles and directory.
  }
  w.write_tiled(levels[0], comp, 0, level_desc(0), true);
  if (opt.aperio) {
    // Directory 1 is the thumbnail in SVS.
    Plane thumb;
    if (auto it = opt.associated.find("thumbnail"); it != opt.associated.end()) {
      thumb = to_plane(*it->second, stream);
    } else {
      std::size_t k = 0;
      while (k + 1 < levels.size() && std::max(levels[k].rows, levels[k].cols) > 1024) ++k;
      thumb = levels[k];
      if (thumb.ch != 3) throw InvalidArgument(fn + ": argument 'aperio' needs an RGB image");
    }
    const std::string desc = head + std::to_string(l0.cols) + "x" + std::to_string(l0.rows) + " -> " +
                             std::to_string(thumb.cols) + "x" + std::to_string(thumb.rows) + " - " + mag + mpp;
    w.write_stripped(thumb, thumb.bytes == 1 && thumb.ch != 4 ? COMPRESSION_JPEG : COMPRESSION_LZW, 0, desc);
  }
  for (std::size_t i = 1; i < levels.size(); ++i) w.write_tiled(levels[i], comp, opt.aperio ? 0 : FILETYPE_REDUCEDIMAGE, level_desc(i), false);
  if (opt.aperio) {
    if (auto it = opt.associated.find("label"); it != opt.associated.end()) {
      const Plane p = to_plane(*it->second, stream);
      w.write_stripped(p, COMPRESSION_LZW, FILETYPE_REDUCEDIMAGE, head + "label " + std::to_string(p.cols) + "x" + std::to_string(p.rows));
    }
    if (auto it = opt.associated.find("macro"); it != opt.associated.end()) {
      const Plane p = to_plane(*it->second, stream);
      w.write_stripped(p, COMPRESSION_JPEG, FILETYPE_REDUCEDIMAGE | FILETYPE_MASK,
                       head + "macro " + std::to_string(p.cols) + "x" + std::to_string(p.rows));
    }
  }
  guard.reset();
  if (!diag.first_error.empty()) throw FormatError(fn + ": '" + path + "': writing failed: " + diag.first_error);
  out.commit();
}

}  // namespace cuskimage::wsi
