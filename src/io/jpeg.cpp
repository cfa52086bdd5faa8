// JPEG through TurboJPEG (libjpeg-turbo's tj* API, 2.x). Reading gives uint8 (h, w) for greyscale
// and (h, w, 3) RGB otherwise, decoded with the accurate integer IDCT and fancy upsampling, the
// libjpeg defaults Pillow uses, so results equal skimage.io.imread's. CMYK/YCCK files are not
// supported. Writing: uint8 (h, w), (h, w, 1) or (h, w, 3), baseline with 4:2:0 chroma
// subsampling like Pillow's default, at the given quality.
#include <turbojpeg.h>

#include <cstring>
#include <memory>
#include <vector>

#include "src/io/io_detail.hpp"

namespace cuskimage::io::detail {
namespace {

struct TjCloser {
  void operator()(void* h) const { tjDestroy(h); }
};
using TjPtr = std::unique_ptr<void, TjCloser>;

std::string tj_error(void* h) { return tjGetErrorStr2(h); }

}  // namespace

Array read_jpeg(const std::string& path) {
  std::vector<unsigned char> data;
  {
    File f = File::open_read(kRead, path);
    const std::uint64_t size = f.size();
    if (size > (std::uint64_t(1) << 32)) format_error(kRead, path, "JPEG file larger than 4 GiB");
    data.resize(static_cast<std::size_t>(size));
    f.read_exact(data.data(), data.size(), kRead, path, "JPEG data");
  }
  TjPtr h(tjInitDecompress());
  if (!h) format_error(kRead, path, std::string("cannot create a JPEG decoder: ") + tjGetErrorStr2(nullptr));
  int width = 0, height = 0, subsamp = 0, colorspace = 0;
  if (tjDecompressHeader3(h.get(), data.data(), static_cast<unsigned long>(data.size()), &width, &height, &subsamp,
                          &colorspace) != 0)
    format_error(kRead, path, "corrupt JPEG header: " + tj_error(h.get()));
  if (width <= 0 || height <= 0) format_error(kRead, path, "truncated or corrupt JPEG header (no frame size)");
  if (colorspace == TJCS_CMYK || colorspace == TJCS_YCCK) format_error(kRead, path, "CMYK/YCCK JPEG is not supported");
  const bool gray = colorspace == TJCS_GRAY;
  check_plausible_size(kRead, path, static_cast<double>(width) * height * (gray ? 1 : 3), data.size());
  Shape shape = {height, width};
  if (!gray) shape.push_back(3);
  Array out = Array::empty(shape, DType::uint8);
  const int flags = TJFLAG_LIMITSCANS;  // bounds the work of hostile progressive files
  if (tjDecompress2(h.get(), data.data(), static_cast<unsigned long>(data.size()), static_cast<unsigned char*>(out.data()),
                    width, 0, height, gray ? TJPF_GRAY : TJPF_RGB, flags) != 0) {
    const std::string msg = tj_error(h.get());
    // Recoverable libjpeg warnings (extraneous bytes, ...) leave a complete image, as in Pillow;
    // a premature end of data does not (Pillow: "image file is truncated").
    const bool warning = tjGetErrorCode(h.get()) == TJERR_WARNING;
    if (msg.find("Premature end") != std::string::npos) format_error(kRead, path, "truncated JPEG data (" + msg + ")");
    if (!warning) format_error(kRead, path, "corrupt JPEG data: " + msg);
  }
  return out;
}

void check_jpeg(const std::string& path, const Array& a, int quality) {
  if (a.dtype() != DType::uint8)
    invalid_image(path, "must be uint8 (or bool) for JPEG, got " + std::string(dtype_name(a.dtype())));
  const bool ok = a.ndim() == 2 || (a.ndim() == 3 && (a.shape(2) == 1 || a.shape(2) == 3));
  if (!ok) invalid_image(path, "must have shape (rows, cols), (rows, cols, 1) or (rows, cols, 3) for JPEG, got " + shape_str(a.shape()));
  if (a.shape(0) > 65535 || a.shape(1) > 65535) invalid_image(path, "exceeds JPEG's 65535-pixel limit, shape " + shape_str(a.shape()));
  if (quality < 1 || quality > 100)
    throw InvalidArgument("io.imsave: argument 'quality' must be in 1..100, got " + std::to_string(quality) + " (writing '" + path + "')");
}

void write_jpeg(const std::string& path, const std::string& out_path, const Array& a, int quality) {
  TjPtr h(tjInitCompress());
  if (!h) format_error(kSave, path, std::string("cannot create a JPEG encoder: ") + tjGetErrorStr2(nullptr));
  const bool gray = a.ndim() == 2 || a.shape(2) == 1;
  unsigned char* buf = nullptr;
  unsigned long size = 0;
  const int rc = tjCompress2(h.get(), static_cast<const unsigned char*>(a.data()), static_cast<int>(a.shape(1)), 0,
                             static_cast<int>(a.shape(0)), gray ? TJPF_GRAY : TJPF_RGB, &buf, &size,
                             gray ? TJSAMP_GRAY : TJSAMP_420, quality, 0);
  std::unique_ptr<unsigned char, void (*)(unsigned char*)> owned(buf, [](unsigned char* p) { tjFree(p); });
  if (rc != 0) format_error(kSave, path, "JPEG encoding failed: " + tj_error(h.get()));
  File f = File::open_write(kSave, out_path);
  f.write_all(buf, size, kSave, path);
  f.finish(kSave, path);
}

}  // namespace cuskimage::io::detail
