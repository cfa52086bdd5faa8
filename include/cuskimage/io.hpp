// skimage.io: imread / imsave for TIFF (libtiff), PNG (libpng), JPEG (TurboJPEG) and NPY (NumPy's
// array format). imread chooses the decoder by the file's first bytes (falling back to its
// extension); imsave chooses the encoder by the extension: .tif/.tiff, .png, .jpg/.jpeg, .npy.
//
// What imread returns (the arrays skimage.io.imread returns for the same files):
//   TIFF  every page of the first page's shape and dtype, stacked on a leading axis; a file written
//         by tifffile gives its first series in the shape tifffile recorded. Pages are (rows, cols)
//         or (rows, cols, samples); dtypes bool (1-bit), uint8/16/32/64, int8/16/32/64,
//         float32/64; any compression libtiff decodes (none, deflate, LZW, PackBits, JPEG, ...),
//         strips or tiles, classic or BigTIFF, either byte order, contiguous or planar samples.
//   PNG   uint8 or uint16: (rows, cols) grey, (rows, cols, 2) grey+alpha, (rows, cols, 3|4) RGB(A);
//         1-bit grey as bool; 2/4-bit grey scaled to 0..255; palettes expanded to RGB (Pillow
//         drops palette transparency too). Deliberate difference: Pillow reduces 16-bit colour
//         PNGs to their high byte (and 16-bit grey+alpha to 8-bit RGBA); here they stay uint16.
//   JPEG  uint8 (rows, cols) or (rows, cols, 3), decoded exactly as Pillow's libjpeg-turbo does
//         (accurate integer IDCT, fancy upsampling). CMYK JPEGs are not supported.
//   NPY   the stored array, any dtype above, C or Fortran order (returned C-contiguous), either
//         byte order, format versions 1.0-3.0.
// For TIFF, PNG and JPEG, skimage's channel rule applies: when a result of 3+ dimensions has a
// last axis other than 3 or 4 and a third-from-last axis of 3 or 4, that axis moves last (planar
// RGB (3, rows, cols) becomes (rows, cols, 3); so does a stack of 3 or 4 grey pages).
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"

namespace cuskimage::io {

struct ImreadOptions {
  /// skimage's as_gray: colour images (last axis 3, or 4 with alpha composited on white first, as
  /// rgba2rgb) become luminance 0.2125 R + 0.7154 G + 0.0721 B of img_as_float data: float64, or
  /// float32 for float32 files. Grey images are returned unchanged (their own dtype).
  bool as_gray = false;
  /// Device of the returned array (decoding runs on the host, then one copy on `stream`).
  Device device = Device::cpu();
};
CUSK_OPTIONS(ImreadOptions,
             (as_gray, "convert colour images to grey-level (float64, rgb2gray weights)"),
             (device, "device of the returned array"))

/// Reads an image (see above). Throws FormatError naming the path and what was wrong for a
/// missing, empty, truncated, corrupt or unsupported file; InvalidArgument when as_gray meets an
/// image whose channels are not RGB or RGBA.
Array imread(const std::string& path, const ImreadOptions& options = {}, const Stream& stream = {});

struct ImsaveOptions {
  /// JPEG quality 1..100 (Pillow's default 75); also used by JPEG-compressed TIFF.
  int quality = 75;
  /// skimage's check_contrast: warn on stderr when the image is low contrast (skimage's
  /// is_low_contrast: 1st-99th percentile range below 5 % of the dtype's range). Not for NPY.
  bool check_contrast = true;
  /// TIFF compression: "none", "deflate" (zlib), "lzw", "jpeg" (uint8 grey or RGB only, uses `quality`).
  std::string compression = "none";
  /// TIFF tile size {rows, cols} (each a positive multiple of 16); {0, 0} writes strips.
  std::array<std::int64_t, 2> tile = {0, 0};
  /// Write BigTIFF even when the data would fit a classic TIFF (always used past ~4 GB).
  bool bigtiff = false;
};
CUSK_OPTIONS(ImsaveOptions,
             (quality, "JPEG quality, 1..100"),
             (check_contrast, "warn on stderr when the image is low contrast"),
             (compression, "TIFF compression (jpeg: uint8 grey or RGB only, uses --quality)"),
             (tile, "TIFF tile size rows,cols (multiples of 16); 0,0 writes strips"),
             (bigtiff, "write BigTIFF even when a classic TIFF would do"))

/// Writes an image. The file appears only when complete: it is written to a temporary file in the
/// same directory and renamed, so a failure never leaves a partial file (nor replaces an old one).
/// Accepts arrays on any device and with any strides (copied to contiguous host memory first).
///   TIFF  any dtype, following skimage's TIFF rules: (rows, cols) one grey page; (rows, cols, 3|4)
///         RGB(A); (3|4, rows, cols) planar RGB(A); (pages, rows, cols) grey pages;
///         (pages, rows, cols, 3|4) RGB(A) pages. The shape is recorded as tifffile does.
///   PNG   uint8 or uint16, (rows, cols) or (rows, cols, 1..4).
///   JPEG  uint8, (rows, cols), (rows, cols, 1) or (rows, cols, 3); 4:2:0 chroma subsampling.
///   NPY   any array (format 1.0, little-endian, C order: the bytes np.save writes).
/// As skimage.io.imsave, bool images are written to TIFF/PNG/JPEG as uint8 0/255 with a warning.
/// Throws InvalidArgument for an unknown extension or a dtype/shape the format cannot hold, and
/// FormatError naming the path when the file cannot be written.
void imsave(const std::string& path, const Array& image, const ImsaveOptions& options = {},
            const Stream& stream = {});

}  // namespace cuskimage::io
