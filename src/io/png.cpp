// PNG through libpng. Reading gives what skimage.io.imread (imageio + Pillow) gives: grey (h, w),
// grey+alpha (h, w, 2), RGB (h, w, 3), RGBA (h, w, 4); 1-bit grey as bool, 2/4-bit grey scaled to
// uint8 (x 0x55 / 0x11), palettes expanded to RGB (transparency dropped, as Pillow's palette
// conversion does); tRNS of grey/RGB images ignored. One deliberate difference: 16-bit colour
// images stay uint16 where Pillow keeps only their high byte.
// Writing: uint8 or uint16, (h, w) or (h, w, 1..4).
//
// libpng reports errors by longjmp: every function below that calls libpng with setjmp holds no
// C++ object with a destructor, and the error text is copied into a plain buffer first.
#include <png.h>

#include <bit>
#include <csetjmp>
#include <cstring>
#include <vector>

#include "src/io/io_detail.hpp"

namespace cuskimage::io::detail {
namespace {

struct PngState {
  png_structp png = nullptr;
  png_infop info = nullptr;
  std::FILE* fp = nullptr;
  char error[256] = {};
  bool truncated = false;
  // Layout after transforms.
  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, channels = 0, out_depth = 0;
  png_size_t rowbytes = 0;
};

void on_error(png_structp png, png_const_charp msg) {
  auto* s = static_cast<PngState*>(png_get_error_ptr(png));
  if (s && !s->error[0]) std::snprintf(s->error, sizeof s->error, "%s", msg);
  png_longjmp(png, 1);
}

void on_warning(png_structp, png_const_charp) {}

void read_data(png_structp png, png_bytep out, png_size_t n) {
  auto* s = static_cast<PngState*>(png_get_io_ptr(png));
  if (std::fread(out, 1, n, s->fp) != n) {
    s->truncated = true;
    png_error(png, "unexpected end of file");
  }
}

void write_data(png_structp png, png_bytep data, png_size_t n) {
  auto* s = static_cast<PngState*>(png_get_io_ptr(png));
  if (std::fwrite(data, 1, n, s->fp) != n) png_error(png, "write failed (disk full?)");
}

void flush_data(png_structp png) {
  auto* s = static_cast<PngState*>(png_get_io_ptr(png));
  std::fflush(s->fp);
}

// Phase 1: header and transforms. Returns false on a libpng error (message in s.error).
bool read_header(PngState& s) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  png_set_read_fn(s.png, &s, read_data);
  png_set_sig_bytes(s.png, 8);
  png_set_user_limits(s.png, 0x7fffffff, 0x7fffffff);
  png_read_info(s.png, s.info);
  png_get_IHDR(s.png, s.info, &s.width, &s.height, &s.bit_depth, &s.color_type, nullptr, nullptr, nullptr);
  if (s.color_type == PNG_COLOR_TYPE_PALETTE) {
    png_set_palette_to_rgb(s.png);
    if (png_get_valid(s.png, s.info, PNG_INFO_tRNS)) png_set_strip_alpha(s.png);
  } else if (s.color_type == PNG_COLOR_TYPE_GRAY && s.bit_depth == 1) {
    png_set_packing(s.png);  // one byte per pixel, 0 or 1: a bool image
  } else if (s.color_type == PNG_COLOR_TYPE_GRAY && s.bit_depth < 8) {
    png_set_expand_gray_1_2_4_to_8(s.png);
  }
  if (s.bit_depth == 16 && std::endian::native == std::endian::little) png_set_swap(s.png);
  png_set_interlace_handling(s.png);
  png_read_update_info(s.png, s.info);
  s.channels = png_get_channels(s.png, s.info);
  s.out_depth = png_get_bit_depth(s.png, s.info);
  s.rowbytes = png_get_rowbytes(s.png, s.info);
  return true;
}

// Phase 2: the pixels. Returns false on a libpng error.
bool read_pixels(PngState& s, png_bytepp rows) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  png_read_image(s.png, rows);
  return true;
}

struct PngReadGuard {
  PngState& s;
  ~PngReadGuard() { png_destroy_read_struct(&s.png, &s.info, nullptr); }
};

}  // namespace

Array read_png(const std::string& path) {
  File f = File::open_read(kRead, path);
  {
    unsigned char sig[8] = {};
    const std::size_t n = std::fread(sig, 1, 8, f.get());
    if (n < 8 && png_sig_cmp(sig, 0, n) == 0) format_error(kRead, path, "truncated PNG file (ends inside the signature)");
    if (png_sig_cmp(sig, 0, 8) != 0) format_error(kRead, path, "not a PNG file (bad signature)");
  }
  PngState s;
  s.fp = f.get();
  s.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning);
  if (!s.png) throw OutOfMemory("io.imread: cannot create a PNG decoder for '" + path + "'");
  s.info = png_create_info_struct(s.png);
  PngReadGuard guard{s};
  if (!s.info) throw OutOfMemory("io.imread: cannot create a PNG decoder for '" + path + "'");
  const auto fail = [&](const char* stage) {
    if (s.truncated) format_error(kRead, path, std::string("truncated PNG file (ends inside the ") + stage + ")");
    format_error(kRead, path, std::string("corrupt PNG ") + stage + ": " + s.error);
  };
  if (!read_header(s)) fail("header");
  if (s.out_depth != 8 && s.out_depth != 16)
    format_error(kRead, path, "unsupported PNG layout (bit depth " + std::to_string(s.out_depth) + " after expansion)");
  const bool is_bool = s.color_type == PNG_COLOR_TYPE_GRAY && s.bit_depth == 1;
  const DType dt = is_bool ? DType::bool_ : (s.out_depth == 16 ? DType::uint16 : DType::uint8);
  Shape shape = {static_cast<std::int64_t>(s.height), static_cast<std::int64_t>(s.width)};
  if (s.channels > 1) shape.push_back(s.channels);
  // Deflate reaches ~1032:1; 1-bit palettes expand 24x on top.
  check_plausible_size(kRead, path, static_cast<double>(s.rowbytes) * s.height, f.size(), 32768.0);
  Array out = Array::empty(shape, dt);
  const std::size_t row = static_cast<std::size_t>(s.width) * s.channels * (s.out_depth / 8);
  if (row != s.rowbytes) format_error(kRead, path, "unsupported PNG layout (unexpected row size)");
  std::vector<png_bytep> rows(s.height);
  auto* base = static_cast<unsigned char*>(out.data());
  for (png_uint_32 y = 0; y < s.height; ++y) rows[y] = base + y * row;
  if (!read_pixels(s, rows.data())) fail("image data");
  return out;
}

// ---- writing ---------------------------------------------------------------------------------------
void check_png(const std::string& path, const Array& a) {
  if (a.dtype() != DType::uint8 && a.dtype() != DType::uint16)
    invalid_image(path, "must be uint8 or uint16 (or bool) for PNG, got " + std::string(dtype_name(a.dtype())));
  const bool ok = a.ndim() == 2 || (a.ndim() == 3 && a.shape(2) >= 1 && a.shape(2) <= 4);
  if (!ok) invalid_image(path, "must have shape (rows, cols) or (rows, cols, 1..4) for PNG, got " + shape_str(a.shape()));
  if (a.shape(0) > 0x7fffffff || a.shape(1) > 0x7fffffff) invalid_image(path, "is too large for PNG, shape " + shape_str(a.shape()));
}

namespace {

bool write_all(PngState& s, int color_type, png_bytepp rows) {
  if (setjmp(png_jmpbuf(s.png))) return false;
  png_set_write_fn(s.png, &s, write_data, flush_data);
  png_set_user_limits(s.png, 0x7fffffff, 0x7fffffff);
  png_set_IHDR(s.png, s.info, s.width, s.height, s.bit_depth, color_type, PNG_INTERLACE_NONE,
               PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  png_write_info(s.png, s.info);
  if (s.bit_depth == 16 && std::endian::native == std::endian::little) png_set_swap(s.png);
  png_write_image(s.png, rows);
  png_write_end(s.png, nullptr);
  return true;
}

struct PngWriteGuard {
  PngState& s;
  ~PngWriteGuard() { png_destroy_write_struct(&s.png, &s.info); }
};

}  // namespace

void write_png(const std::string& path, const std::string& out_path, const Array& a) {
  File f = File::open_write(kSave, out_path);
  PngState s;
  s.fp = f.get();
  s.png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &s, on_error, on_warning);
  if (!s.png) throw OutOfMemory("io.imsave: cannot create a PNG encoder for '" + path + "'");
  s.info = png_create_info_struct(s.png);
  PngWriteGuard guard{s};
  if (!s.info) throw OutOfMemory("io.imsave: cannot create a PNG encoder for '" + path + "'");
  const int ch = a.ndim() == 2 ? 1 : static_cast<int>(a.shape(2));
  static constexpr int kTypes[5] = {0, PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_GRAY_ALPHA, PNG_COLOR_TYPE_RGB,
                                    PNG_COLOR_TYPE_RGB_ALPHA};
  s.width = static_cast<png_uint_32>(a.shape(1));
  s.height = static_cast<png_uint_32>(a.shape(0));
  s.bit_depth = a.dtype() == DType::uint16 ? 16 : 8;
  const std::size_t row = static_cast<std::size_t>(s.width) * ch * a.itemsize();
  std::vector<png_bytep> rows(s.height);
  auto* base = static_cast<unsigned char*>(a.data());
  for (png_uint_32 y = 0; y < s.height; ++y) rows[y] = base + y * row;
  if (!write_all(s, kTypes[ch], rows.data())) format_error(kSave, path, std::string("PNG encoding failed: ") + s.error);
  f.finish(kSave, path);
}

}  // namespace cuskimage::io::detail
