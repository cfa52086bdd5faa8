// Tile codecs (stage 3 of a read): compressed tile bytes -> RGB/RGBA rows in the output.
//
// JPEG goes through libjpeg-turbo's jpeglib API rather than TurboJPEG because slides need what
// TurboJPEG cannot do: load the level's JPEGTables into the decoder before an abbreviated tile
// stream, and force the colour space from the TIFF photometric tag (Aperio's RGB JPEG carries no
// marker saying it is RGB; a libjpeg guess would apply a YCbCr transform). Decoding uses libjpeg's
// defaults (accurate integer IDCT, fancy upsampling) exactly as OpenSlide 3.4 does, so pixels are
// bit-identical to it. A decoder per thread is kept and reused: creating one costs about as much
// as decoding a small tile.
#include <cstddef>
#include <cstdio>
// jpeglib.h needs size_t and FILE declared first.
#include <jpeglib.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstring>
#include <memory>
#include <vector>

#if CUSK_HAVE_ZSTD
#include <zstd.h>
#endif
#if CUSK_HAVE_WEBP
#include <webp/decode.h>
#endif
#if CUSK_HAVE_OPENJPEG
#include <openjpeg.h>
#endif

#include "src/wsi/wsi_detail.hpp"

namespace cuskimage::wsi::detail {
namespace {

constexpr std::uint16_t kPhotoMinIsBlack = 1, kPhotoRgb = 2, kPhotoYCbCr = 6;

// ---- JPEG ---------------------------------------------------------------------------------------------
struct JpegError {
  jpeg_error_mgr mgr;
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

void on_jpeg_error(j_common_ptr cinfo) {
  auto* e = reinterpret_cast<JpegError*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, e->message);
  std::longjmp(e->jump, 1);
}
void on_jpeg_message(j_common_ptr, int) {}  // warnings (corrupt data recovered from) are ignored, as OpenSlide

struct JpegDecoder {
  jpeg_decompress_struct cinfo{};
  JpegError err{};
  JpegDecoder() {
    cinfo.err = jpeg_std_error(&err.mgr);
    err.mgr.error_exit = on_jpeg_error;
    err.mgr.emit_message = on_jpeg_message;
    jpeg_create_decompress(&cinfo);
  }
  ~JpegDecoder() { jpeg_destroy_decompress(&cinfo); }
};

/// The part of a tile to decode, in tile pixels: columns [x0, x1), rows [y0, y1).
struct Rect {
  std::int64_t x0, y0, x1, y1;
};

// The level's JPEGTables (abbreviated streams), then the tile's header. Called under the caller's
// setjmp: no locals with destructors here either.
bool read_tile_header(jpeg_decompress_struct* cinfo, const TiledImage& t, const unsigned char* src, std::size_t n,
                      std::string& why) {
  if (!t.jpeg_tables.empty()) {
    jpeg_mem_src(cinfo, t.jpeg_tables.data(), static_cast<unsigned long>(t.jpeg_tables.size()));
    if (jpeg_read_header(cinfo, FALSE) != JPEG_HEADER_TABLES_ONLY) {
      why = "JPEGTables is not a tables-only JPEG stream";
      jpeg_abort_decompress(cinfo);
      return false;
    }
  }
  jpeg_mem_src(cinfo, src, static_cast<unsigned long>(n));
  jpeg_read_header(cinfo, TRUE);
  return true;
}

// Kept out of line: setjmp must not share a frame with C++ objects that need destruction.
// `dst` receives the rectangle `r` of the tile: its pixel (r.x0, r.y0) at dst, rows `stride` apart.
// The whole tile decodes straight into dst; a part decodes only what it needs (see decode_tile_part).
// `fancy` false: simple (replicated) chroma upsampling instead of libjpeg's default (diagnostics).
bool jpeg_decode(JpegDecoder& d, const TiledImage& t, const unsigned char* src, std::size_t n, unsigned char* dst,
                 std::ptrdiff_t stride, int channels, Rect r, std::vector<unsigned char>& scratch, std::string& why,
                 bool fancy = true) {
  jpeg_decompress_struct* cinfo = &d.cinfo;
  if (setjmp(d.err.jump)) {
    why = d.err.message;
    jpeg_abort_decompress(cinfo);
    return false;
  }
  if (!read_tile_header(cinfo, t, src, n, why)) return false;
  const int comps = cinfo->num_components;
  const bool grey = t.photometric == kPhotoMinIsBlack;
  if (comps != (grey ? 1 : 3)) {
    why = "JPEG tile has " + std::to_string(comps) + " components, the photometric tag says " + (grey ? "1" : "3");
    jpeg_abort_decompress(cinfo);
    return false;
  }
  if (static_cast<std::int64_t>(cinfo->image_width) < t.tile_width ||
      static_cast<std::int64_t>(cinfo->image_height) < t.tile_height) {
    why = "JPEG tile is " + std::to_string(cinfo->image_width) + "x" + std::to_string(cinfo->image_height) +
          ", the tile size is " + std::to_string(t.tile_width) + "x" + std::to_string(t.tile_height);
    jpeg_abort_decompress(cinfo);
    return false;
  }
  if (!grey) cinfo->jpeg_color_space = t.photometric == kPhotoYCbCr ? JCS_YCbCr : JCS_RGB;
  cinfo->out_color_space = channels == 4 ? JCS_EXT_RGBA : JCS_RGB;
  cinfo->do_fancy_upsampling = fancy ? TRUE : FALSE;
  jpeg_start_decompress(cinfo);
  const std::int64_t w = cinfo->output_width;
  const bool whole = r.x0 == 0 && r.y0 == 0 && r.x1 == t.tile_width && r.y1 == t.tile_height;
  if (whole && w == t.tile_width) {
    JSAMPROW rows[16];
    while (cinfo->output_scanline < static_cast<JDIMENSION>(t.tile_height)) {
      const JDIMENSION y = cinfo->output_scanline;
      const JDIMENSION k = std::min<JDIMENSION>(16, static_cast<JDIMENSION>(t.tile_height) - y);
      for (JDIMENSION q = 0; q < k; ++q) rows[q] = dst + static_cast<std::ptrdiff_t>(y + q) * stride;
      jpeg_read_scanlines(cinfo, rows, k);
    }
    jpeg_abort_decompress(cinfo);  // the rest of the stream (EOI) is not needed
    return true;
  }
  // A part (or a JPEG wider than the tile). Columns: libjpeg-turbo decodes whole iMCU columns
  // (jpeg_crop_scanline moves the left edge down to one), and its fancy upsampling (h2v1, h2v2)
  // treats the first and last column of the crop as image edges (the neighbour replicated), so
  // those two columns differ from a full decode; a crop whose chroma is under 2 samples wide even
  // switches to another upsampler (all of it differs). Measured with libjpeg-turbo 2.1.5 over every
  // crop and skip of a 256-pixel 4:2:0 and 4:2:2 JPEG: only the crop's edge columns differ once it
  // is 3 or more pixels wide. So the crop keeps 2 columns of margin on each side that is not a real
  // edge of the JPEG (which also makes it >= 3 wide). Rows: jpeg_skip_scanlines from row 0 still
  // entropy-decodes the skipped iMCU rows (Huffman data is sequential) but skips their IDCT,
  // upsampling and colour conversion; with h2v2 fancy upsampling it reads (and discards) the last
  // rows before the target itself, so the rows after the skip see the same context as in a full
  // decode (measured: every skip offset exact). Rows past the part are never decoded
  // (jpeg_abort_decompress). tests/wsi: partial == full decode, bit for bit, for every row and
  // column offset in a tile, 4:2:0, 4:2:2, 4:4:4, RGB, grey, 16..256-pixel tiles.
  constexpr std::int64_t kMargin = 2;
  JDIMENSION cx = static_cast<JDIMENSION>(std::max<std::int64_t>(0, r.x0 - kMargin));
  const std::int64_t right = std::min<std::int64_t>(w, r.x1 + kMargin);
  JDIMENSION cw = static_cast<JDIMENSION>(right) - cx;
  if (cx > 0 || cw < static_cast<JDIMENSION>(w)) jpeg_crop_scanline(cinfo, &cx, &cw);  // cx moves down to an iMCU edge
  if (r.y0 > 0) jpeg_skip_scanlines(cinfo, static_cast<JDIMENSION>(r.y0));
  const std::size_t row_bytes = static_cast<std::size_t>(cw) * static_cast<std::size_t>(channels);
  constexpr JDIMENSION kRows = 16;
  if (scratch.size() < row_bytes * kRows) scratch.resize(row_bytes * kRows);
  JSAMPROW rows[kRows];
  for (JDIMENSION k = 0; k < kRows; ++k) rows[k] = scratch.data() + k * row_bytes;
  const std::size_t skip = static_cast<std::size_t>(r.x0 - static_cast<std::int64_t>(cx)) * static_cast<std::size_t>(channels);
  const std::size_t copy = static_cast<std::size_t>(r.x1 - r.x0) * static_cast<std::size_t>(channels);
  while (cinfo->output_scanline < static_cast<JDIMENSION>(r.y1)) {
    const JDIMENSION y = cinfo->output_scanline;
    const JDIMENSION got = jpeg_read_scanlines(cinfo, rows, std::min<JDIMENSION>(kRows, static_cast<JDIMENSION>(r.y1) - y));
    if (got == 0) {
      why = "JPEG tile ended early";
      jpeg_abort_decompress(cinfo);
      return false;
    }
    for (JDIMENSION k = 0; k < got; ++k)
      std::memcpy(dst + static_cast<std::ptrdiff_t>(y + k - r.y0) * stride, rows[k] + skip, copy);
  }
  jpeg_abort_decompress(cinfo);
  return true;
}

/// The thread's JPEG decoder. libjpeg keeps tables loaded for earlier images: a tile of a level
/// without JPEGTables must not see another level's, so the decoder is renewed when it last loaded
/// tables.
void jpeg_tile(const TiledImage& t, const unsigned char* src, std::size_t n, unsigned char* dst, std::ptrdiff_t stride,
               int channels, Rect r, const std::string& path, bool fancy = true) {
  thread_local std::unique_ptr<JpegDecoder> decoder;
  thread_local bool has_tables = false;
  thread_local std::vector<unsigned char> scratch;
  if (!decoder || (has_tables && t.jpeg_tables.empty())) decoder = std::make_unique<JpegDecoder>();
  has_tables = !t.jpeg_tables.empty();
  std::string why;
  if (!jpeg_decode(*decoder, t, src, n, dst, stride, channels, r, scratch, why, fancy)) {
    decoder.reset();  // fresh state after an error
    format_error(path, "corrupt JPEG tile: " + why);
  }
}

// The component planes a JPEG tile's IDCT produces (raw_data_out: no upsampling, no colour
// conversion). Kept out of line for setjmp, as jpeg_decode.
bool jpeg_planes(JpegDecoder& d, const TiledImage& t, const unsigned char* src, std::size_t n, JpegPlanes& out,
                 std::string& why) {
  jpeg_decompress_struct* cinfo = &d.cinfo;
  if (setjmp(d.err.jump)) {
    why = d.err.message;
    jpeg_abort_decompress(cinfo);
    return false;
  }
  if (!read_tile_header(cinfo, t, src, n, why)) return false;
  if (cinfo->num_components != 3) {
    why = "not a 3-component JPEG";
    jpeg_abort_decompress(cinfo);
    return false;
  }
  cinfo->raw_data_out = TRUE;
  jpeg_start_decompress(cinfo);
  const int vmax = cinfo->max_v_samp_factor, hmax = cinfo->max_h_samp_factor;
  out.hs = hmax / cinfo->comp_info[1].h_samp_factor;
  out.vs = vmax / cinfo->comp_info[1].v_samp_factor;
  int rows_per_pass[3];
  std::vector<std::vector<JSAMPROW>> rows(3);
  for (int c = 0; c < 3; ++c) {
    const jpeg_component_info& ci = cinfo->comp_info[c];
    out.width[c] = static_cast<int>(ci.width_in_blocks) * DCTSIZE;
    out.height[c] = static_cast<int>(ci.height_in_blocks) * DCTSIZE;
    out.plane[c].assign(static_cast<std::size_t>(out.width[c]) * static_cast<std::size_t>(out.height[c]) + 
                            static_cast<std::size_t>(out.width[c]) * DCTSIZE * 2, 0);  // + slack for the last pass
    rows_per_pass[c] = ci.v_samp_factor * DCTSIZE;
    rows[c].resize(static_cast<std::size_t>(rows_per_pass[c]));
  }
  for (int pass = 0; cinfo->output_scanline < cinfo->output_height; ++pass) {
    JSAMPARRAY planes[3];
    for (int c = 0; c < 3; ++c) {
      for (int k = 0; k < rows_per_pass[c]; ++k)
        rows[c][static_cast<std::size_t>(k)] =
            out.plane[c].data() + static_cast<std::size_t>(pass * rows_per_pass[c] + k) * static_cast<std::size_t>(out.width[c]);
      planes[c] = rows[c].data();
    }
    if (jpeg_read_raw_data(cinfo, planes, static_cast<JDIMENSION>(vmax * DCTSIZE)) == 0) {
      why = "JPEG tile ended early";
      jpeg_abort_decompress(cinfo);
      return false;
    }
  }
  for (int c = 0; c < 3; ++c) out.plane[c].resize(static_cast<std::size_t>(out.width[c]) * static_cast<std::size_t>(out.height[c]));
  jpeg_abort_decompress(cinfo);
  return true;
}

// ---- raw samples -> RGB(A) ------------------------------------------------------------------------
/// Undoes TIFF horizontal differencing (predictor 2) on 8-bit samples.
void undo_predictor(unsigned char* buf, std::int64_t w, std::int64_t h, int spp) {
  for (std::int64_t y = 0; y < h; ++y) {
    unsigned char* row = buf + y * w * spp;
    for (std::int64_t x = spp; x < w * spp; ++x) row[x] = static_cast<unsigned char>(row[x] + row[x - spp]);
  }
}

/// Pixel-interleaved 8-bit samples (1 grey, 3 RGB, 4+ RGB + extras ignored) to RGB(A) rows.
void place_samples(const TiledImage& t, const unsigned char* s, unsigned char* dst, std::ptrdiff_t stride, int channels) {
  const int spp = t.spp;
  for (std::int64_t y = 0; y < t.tile_height; ++y) {
    const unsigned char* in = s + y * t.tile_width * spp;
    unsigned char* out = dst + y * stride;
    if (spp == 3 && channels == 3) {
      std::memcpy(out, in, static_cast<std::size_t>(t.tile_width) * 3);
      continue;
    }
    for (std::int64_t x = 0; x < t.tile_width; ++x, in += spp, out += channels) {
      if (spp == 1) out[0] = out[1] = out[2] = in[0];
      else out[0] = in[0], out[1] = in[1], out[2] = in[2];
      if (channels == 4) out[3] = 255;
    }
  }
}

#if CUSK_HAVE_OPENJPEG
struct OpjMemory {
  const unsigned char* data;
  std::size_t size, pos;
};
OPJ_SIZE_T opj_read(void* buf, OPJ_SIZE_T n, void* user) {
  auto* m = static_cast<OpjMemory*>(user);
  if (m->pos >= m->size) return static_cast<OPJ_SIZE_T>(-1);
  const std::size_t k = std::min<std::size_t>(n, m->size - m->pos);
  std::memcpy(buf, m->data + m->pos, k);
  m->pos += k;
  return k;
}
OPJ_OFF_T opj_skip(OPJ_OFF_T n, void* user) {
  auto* m = static_cast<OpjMemory*>(user);
  if (n < 0 || static_cast<std::size_t>(n) > m->size - m->pos) return -1;
  m->pos += static_cast<std::size_t>(n);
  return n;
}
OPJ_BOOL opj_seek(OPJ_OFF_T n, void* user) {
  auto* m = static_cast<OpjMemory*>(user);
  if (n < 0 || static_cast<std::size_t>(n) > m->size) return OPJ_FALSE;
  m->pos = static_cast<std::size_t>(n);
  return OPJ_TRUE;
}
void opj_quiet(const char*, void*) {}

unsigned char clamp255(double v) { return static_cast<unsigned char>(std::clamp(v, 0.0, 255.0)); }

/// Aperio JPEG 2000: a raw J2K codestream per tile; 33003 holds YCbCr (converted here with the
/// ITU-R BT.601 full-range equations, rounded), 33005 RGB.
void j2k_decode(const TiledImage& t, const unsigned char* src, std::size_t n, unsigned char* dst, std::ptrdiff_t stride,
                int channels, const std::string& path) {
  OpjMemory mem{src, n, 0};
  opj_stream_t* stream = opj_stream_create(1 << 16, OPJ_TRUE);
  opj_stream_set_user_data(stream, &mem, nullptr);
  opj_stream_set_user_data_length(stream, n);
  opj_stream_set_read_function(stream, opj_read);
  opj_stream_set_skip_function(stream, opj_skip);
  opj_stream_set_seek_function(stream, opj_seek);
  opj_codec_t* codec = opj_create_decompress(n >= 12 && src[4] == 'j' && src[5] == 'P' ? OPJ_CODEC_JP2 : OPJ_CODEC_J2K);
  opj_set_info_handler(codec, opj_quiet, nullptr);
  opj_set_warning_handler(codec, opj_quiet, nullptr);
  opj_set_error_handler(codec, opj_quiet, nullptr);
  opj_dparameters_t params;
  opj_set_default_decoder_parameters(&params);
  opj_image_t* image = nullptr;
  bool ok = opj_setup_decoder(codec, &params) && opj_read_header(stream, codec, &image) &&
            opj_decode(codec, stream, image) && opj_end_decompress(codec, stream);
  std::string why = "corrupt JPEG 2000 tile";
  if (ok && (image->numcomps < 3 || image->comps[0].w < t.tile_width || image->comps[0].h < t.tile_height)) {
    ok = false;
    why = "JPEG 2000 tile has " + std::to_string(image->numcomps) + " components of " +
          std::to_string(image->comps[0].w) + "x" + std::to_string(image->comps[0].h) + " pixels";
  }
  if (ok)
    for (int c = 0; c < 3; ++c)
      if (image->comps[c].prec != 8 || image->comps[c].dx == 0 || image->comps[c].dy == 0 || !image->comps[c].data) ok = false;
  if (ok) {
    const bool ycc = t.compression == kAperioJ2kYCbCr;
    for (std::int64_t y = 0; y < t.tile_height; ++y) {
      unsigned char* out = dst + y * stride;
      for (std::int64_t x = 0; x < t.tile_width; ++x, out += channels) {
        int v[3];
        for (int c = 0; c < 3; ++c) {
          const auto& cp = image->comps[c];
          const std::int64_t cx = std::min<std::int64_t>(x / cp.dx, cp.w - 1), cy = std::min<std::int64_t>(y / cp.dy, cp.h - 1);
          v[c] = cp.data[cy * cp.w + cx];
        }
        if (ycc) {
          const double Y = v[0], cb = v[1] - 128.0, cr = v[2] - 128.0;
          out[0] = clamp255(std::round(Y + 1.402 * cr));
          out[1] = clamp255(std::round(Y - 0.344136 * cb - 0.714136 * cr));
          out[2] = clamp255(std::round(Y + 1.772 * cb));
        } else {
          for (int c = 0; c < 3; ++c) out[c] = static_cast<unsigned char>(std::clamp(v[c], 0, 255));
        }
        if (channels == 4) out[3] = 255;
      }
    }
  }
  if (image) opj_image_destroy(image);
  opj_destroy_codec(codec);
  opj_stream_destroy(stream);
  if (!ok) format_error(path, why);
}
#endif

}  // namespace

void check_decodable(const TiledImage& t, const std::string& path) {
  const auto unsupported = [&](const std::string& what) { format_error(path, what + " is not supported"); };
  switch (t.compression) {
    case kNone:
    case kLzw:
    case kDeflate:
    case kAdobeDeflate:
      break;
    case kJpeg:
      if (t.photometric != kPhotoMinIsBlack && t.photometric != kPhotoRgb && t.photometric != kPhotoYCbCr)
        unsupported("JPEG with photometric " + std::to_string(t.photometric));
      break;
    case kAperioJ2kYCbCr:
    case kAperioJ2kRgb:
#if !CUSK_HAVE_OPENJPEG
      throw NotSupported("wsi: '" + path + "': JPEG 2000 tiles need OpenJPEG, which this build lacks");
#endif
      break;
    case kZstd:
#if !CUSK_HAVE_ZSTD
      throw NotSupported("wsi: '" + path + "': zstd tiles need libzstd, which this build lacks");
#endif
      break;
    case kWebp:
#if !CUSK_HAVE_WEBP
      throw NotSupported("wsi: '" + path + "': WebP tiles need libwebp, which this build lacks");
#endif
      break;
    default:
      unsupported("TIFF compression " + std::to_string(t.compression));
  }
  if (t.bps != 8) unsupported(std::to_string(t.bps) + "-bit samples");
  if (t.compression != kJpeg && t.compression != kAperioJ2kYCbCr && t.compression != kAperioJ2kRgb) {
    if (t.photometric == kPhotoYCbCr) unsupported("YCbCr without JPEG compression");
    if (t.photometric != kPhotoMinIsBlack && t.photometric != kPhotoRgb)
      unsupported("photometric interpretation " + std::to_string(t.photometric));
    if (t.photometric == kPhotoRgb && t.spp < 3)
      format_error(path, "photometric RGB with " + std::to_string(t.spp) + " samples per pixel");
    if (t.photometric == kPhotoMinIsBlack && t.spp != 1 && t.spp != 2)
      format_error(path, "greyscale photometric with " + std::to_string(t.spp) + " samples per pixel");
  }
  if (t.predictor != 1 && t.predictor != 2) unsupported("predictor " + std::to_string(t.predictor));
}

void decode_tile(const TiledImage& t, const unsigned char* src, std::size_t n, unsigned char* dst,
                 std::ptrdiff_t dst_stride, int channels, const std::string& path) {
  if (t.compression == kJpeg) {
    jpeg_tile(t, src, n, dst, dst_stride, channels, {0, 0, t.tile_width, t.tile_height}, path);
    return;
  }
#if CUSK_HAVE_OPENJPEG
  if (t.compression == kAperioJ2kYCbCr || t.compression == kAperioJ2kRgb) {
    j2k_decode(t, src, n, dst, dst_stride, channels, path);
    return;
  }
#endif
#if CUSK_HAVE_WEBP
  if (t.compression == kWebp) {
    // libtiff's WebP tiles hold a tile-sized RGB or RGBA WebP image.
    int w = 0, h = 0;
    if (!WebPGetInfo(src, n, &w, &h) || w != t.tile_width || h != t.tile_height)
      format_error(path, "corrupt WebP tile (or not of the tile size)");
    const std::size_t need = static_cast<std::size_t>(dst_stride) * static_cast<std::size_t>(t.tile_height - 1) +
                             static_cast<std::size_t>(t.tile_width) * channels;
    const auto* ok = channels == 4 ? WebPDecodeRGBAInto(src, n, dst, need, static_cast<int>(dst_stride))
                                   : WebPDecodeRGBInto(src, n, dst, need, static_cast<int>(dst_stride));
    if (!ok) format_error(path, "corrupt WebP tile");
    if (channels == 4)  // OpenSlide-style opaque output: the tile's own alpha is not premultiplied in
      for (std::int64_t y = 0; y < t.tile_height; ++y)
        for (std::int64_t x = 0; x < t.tile_width; ++x) dst[y * dst_stride + x * 4 + 3] = 255;
    return;
  }
#endif
  // Uncompressed-size codecs: decode into a scratch buffer of the tile's samples.
  const std::size_t raw = static_cast<std::size_t>(t.tile_width * t.tile_height) * t.spp;
  thread_local std::vector<unsigned char> scratch;
  const unsigned char* samples = src;
  if (t.compression == kNone) {
    if (n < raw) format_error(path, "truncated uncompressed tile");
  } else {
    scratch.resize(raw);
    bool ok = false;
    if (t.compression == kDeflate || t.compression == kAdobeDeflate) {
      uLongf len = static_cast<uLongf>(raw);
      const int rc = uncompress(scratch.data(), &len, src, static_cast<uLong>(n));
      ok = (rc == Z_OK || rc == Z_BUF_ERROR) && len == raw;  // Z_BUF_ERROR: more data than the tile needs
    } else if (t.compression == kLzw) {
      ok = lzw_decode(src, n, scratch.data(), raw);
    }
#if CUSK_HAVE_ZSTD
    else if (t.compression == kZstd) {
      const std::size_t got = ZSTD_decompress(scratch.data(), raw, src, n);
      ok = !ZSTD_isError(got) && got == raw;
    }
#endif
    if (!ok) format_error(path, "corrupt or truncated compressed tile (compression " + std::to_string(t.compression) + ")");
    if (t.predictor == 2) undo_predictor(scratch.data(), t.tile_width, t.tile_height, t.spp);
    samples = scratch.data();
  }
  place_samples(t, samples, dst, dst_stride, channels);
}

void decode_tile_part(const TiledImage& t, const unsigned char* src, std::size_t n, std::int64_t x0, std::int64_t y0,
                      std::int64_t x1, std::int64_t y1, unsigned char* dst, std::ptrdiff_t dst_stride, int channels,
                      const std::string& path) {
  if (t.compression == kJpeg) {
    jpeg_tile(t, src, n, dst, dst_stride, channels, {x0, y0, x1, y1}, path);
    return;
  }
  // Other codecs decode whole tiles: into scratch, then the part is copied out.
  thread_local std::vector<unsigned char> whole;
  const std::size_t row = static_cast<std::size_t>(t.tile_width) * static_cast<std::size_t>(channels);
  whole.resize(row * static_cast<std::size_t>(t.tile_height));
  decode_tile(t, src, n, whole.data(), static_cast<std::ptrdiff_t>(row), channels, path);
  for (std::int64_t y = y0; y < y1; ++y)
    std::memcpy(dst + (y - y0) * dst_stride, whole.data() + static_cast<std::size_t>(y) * row + static_cast<std::size_t>(x0) * channels,
                static_cast<std::size_t>(x1 - x0) * static_cast<std::size_t>(channels));
}

double host_decode_cost(const TiledImage& t, std::int64_t x0, std::int64_t y0, std::int64_t x1, std::int64_t y1) {
  const double tw = static_cast<double>(t.tile_width), th = static_cast<double>(t.tile_height);
  if ((x0 == 0 && y0 == 0 && x1 == t.tile_width && y1 == t.tile_height) || !partial_decode_pays(t)) return 1.0;
  // A partial JPEG decode (jpeg_decode above) entropy-decodes every iMCU row down to the part's
  // last (plus one for the upsampler's context) and runs IDCT, upsampling and colour conversion on
  // the cropped columns (2-pixel margins, left edge down to an iMCU) of the part's rows. Entropy
  // decoding is about 60 % of a whole tile's decode (bench_wsi's profile).
  constexpr double kEntropy = 0.6, kSetup = 0.02;
  const double rows = std::min(th, static_cast<double>((y1 + 15) / 16 * 16 + 16));
  const double left = static_cast<double>(std::max<std::int64_t>(0, x0 - 2) / 16 * 16);
  const double right = std::min(tw, static_cast<double>(x1 + 2));
  const double area = (right - left) * static_cast<double>(y1 - y0) / (tw * th);
  return std::min(1.0, kSetup + kEntropy * rows / th + (1.0 - kEntropy) * area);
}

void decode_tile_simple_upsampling(const TiledImage& t, const unsigned char* src, std::size_t n, unsigned char* dst,
                                   std::ptrdiff_t dst_stride, const std::string& path) {
  if (t.compression != kJpeg) throw InvalidArgument("decode_tile_simple_upsampling: not a JPEG level");
  jpeg_tile(t, src, n, dst, dst_stride, 3, {0, 0, t.tile_width, t.tile_height}, path, false);
}

void decode_tile_planes(const TiledImage& t, const unsigned char* src, std::size_t n, JpegPlanes& out, const std::string& path) {
  if (t.compression != kJpeg) throw InvalidArgument("decode_tile_planes: not a JPEG level");
  JpegDecoder d;  // a fresh decoder: raw mode is not left in the thread's
  std::string why;
  if (!jpeg_planes(d, t, src, n, out, why)) format_error(path, "corrupt JPEG tile: " + why);
}

void merge_jpeg_tables_into(const TiledImage& t, const std::vector<unsigned char>& tile, std::vector<unsigned char>& out) {
  const auto& tb = t.jpeg_tables;
  const bool soi = tile.size() >= 2 && tile[0] == 0xFF && tile[1] == 0xD8;
  if (!mergeable_tables(tb) || !soi) {
    out.assign(tile.begin(), tile.end());
    return;
  }
  out.resize(tb.size() - 2 + tile.size() - 2);
  std::memcpy(out.data(), tb.data(), tb.size() - 2);
  std::memcpy(out.data() + tb.size() - 2, tile.data() + 2, tile.size() - 2);
}

std::vector<unsigned char> merge_jpeg_tables(const TiledImage& t, const std::vector<unsigned char>& tile) {
  std::vector<unsigned char> out;
  merge_jpeg_tables_into(t, tile, out);
  return out;
}

// ---- LZW (TIFF 6.0, MSB-first codes, early change) -------------------------------------------------
bool lzw_decode(const unsigned char* src, std::size_t n, unsigned char* out, std::size_t out_n) {
  constexpr int kClear = 256, kEoi = 257;
  // Each code's string is its prefix code's string plus one byte; strings are written by walking
  // the prefix chain backwards into place (lengths are known).
  std::vector<std::uint16_t> prefix(4096);
  std::vector<unsigned char> last(4096), first(4096);
  std::vector<std::uint16_t> length(4096);
  for (int i = 0; i < 256; ++i) prefix[i] = 0, last[i] = first[i] = static_cast<unsigned char>(i), length[i] = 1;
  std::size_t pos = 0;       // output position
  std::uint64_t bits = 0;    // bit buffer
  int nbits = 0, width = 9, next = 258, old = -1;
  std::size_t in = 0;
  for (;;) {
    while (nbits < width && in < n) bits = (bits << 8) | src[in++], nbits += 8;
    if (nbits < width) break;  // out of data without EOI: accept what we have
    const int code = static_cast<int>((bits >> (nbits - width)) & ((1u << width) - 1));
    nbits -= width;
    if (code == kEoi) break;
    if (code == kClear) {
      width = 9, next = 258, old = -1;
      continue;
    }
    int emit;
    if (old < 0) {
      if (code > 255) return false;
      emit = code;
    } else {
      if (code > next || next >= 4096) return false;
      // New entry: old's string + first byte of code's string (of old's when code is the new one).
      const unsigned char f = code < next ? first[code] : first[old];
      prefix[next] = static_cast<std::uint16_t>(old);
      last[next] = f;
      first[next] = first[old];
      length[next] = static_cast<std::uint16_t>(length[old] + 1);
      ++next;
      emit = code;
    }
    const std::size_t len = length[emit];
    if (pos + len > out_n) {  // clip the final string
      if (pos >= out_n) break;
    }
    for (std::size_t k = len, c = static_cast<std::size_t>(emit); k-- > 0; c = prefix[c])
      if (pos + k < out_n) out[pos + k] = last[c];
    pos += len;
    old = code;
    // Early change: the width grows one code before the table fills it.
    if (next + 1 >= (1 << width) && width < 12) ++width;
  }
  return pos >= out_n;
}

}  // namespace cuskimage::wsi::detail
