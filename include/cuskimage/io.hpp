// skimage.io: imread / imsave for TIFF (libtiff), PNG (libpng), JPEG (TurboJPEG) and NPY.
// The format is chosen by the file's extension (imsave) or its magic bytes (imread).
#pragma once

#include <string>

#include "cuskimage/array.hpp"

namespace cuskimage::io {

struct ImreadOptions {
  /// skimage's as_gray: convert colour images to float64 luminance (rgb2gray weights).
  bool as_gray = false;
  /// Device of the returned array (decoding runs on the host).
  Device device = Device::cpu();
};

/// Reads an image: (rows, cols) or (rows, cols, channels); multi-page TIFF gives (pages, rows,
/// cols[, channels]). NPY gives the stored array. Throws FormatError naming the path for a missing,
/// truncated, corrupt or unsupported file.
Array imread(const std::string& path, const ImreadOptions& options = {}, const Stream& stream = {});

struct ImsaveOptions {
  /// JPEG quality 1..100 (scikit-image / imageio default 75).
  int quality = 75;
  /// skimage's check_contrast: warn on stderr when the image is low contrast.
  bool check_contrast = true;
  /// TIFF compression: "none", "deflate", "lzw", "jpeg".
  std::string compression = "none";
};

/// Writes an image; the file appears only when complete (written to a temporary, then renamed).
/// Accepts arrays on any device. Throws InvalidArgument for a dtype/shape the format cannot hold.
void imsave(const std::string& path, const Array& image, const ImsaveOptions& options = {},
            const Stream& stream = {});

}  // namespace cuskimage::io
