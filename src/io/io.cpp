// skimage.io's imread / imsave: format detection, skimage's post-processing (channel axis, as_gray,
// bool and low-contrast handling), device transfer and atomic writes. The codecs live in
// npy.cpp, tiff.cpp, png.cpp and jpeg.cpp.
#include "cuskimage/io.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <vector>

#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/io/io_detail.hpp"

namespace cuskimage::io {
namespace detail {

void format_error(std::string_view fn, const std::string& path, const std::string& what) {
  throw FormatError(std::string(fn) + ": '" + path + "': " + what);
}

void invalid_image(const std::string& path, const std::string& what) {
  throw InvalidArgument("io.imsave: argument 'image' " + what + " (writing '" + path + "')");
}

namespace {
std::string lower_extension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}
}  // namespace

Format format_from_extension(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".tif" || ext == ".tiff") return Format::tiff;
  if (ext == ".png") return Format::png;
  if (ext == ".jpg" || ext == ".jpeg") return Format::jpeg;
  if (ext == ".npy") return Format::npy;
  return Format::unknown;
}

Format format_from_magic(const unsigned char* b, std::size_t n) {
  if (n >= 6 && std::memcmp(b, "\x93NUMPY", 6) == 0) return Format::npy;
  if (n >= 8 && std::memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0) return Format::png;
  if (n >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return Format::jpeg;
  if (n >= 4 && ((b[0] == 'I' && b[1] == 'I' && (b[2] == 42 || b[2] == 43) && b[3] == 0) ||
                 (b[0] == 'M' && b[1] == 'M' && b[2] == 0 && (b[3] == 42 || b[3] == 43))))
    return Format::tiff;
  return Format::unknown;
}

void check_plausible_size(std::string_view fn, const std::string& path, double out_bytes, std::uint64_t file_bytes,
                          double max_ratio) {
  if (out_bytes > static_cast<double>(file_bytes) * max_ratio + 65536.0)
    format_error(fn, path, "corrupt or truncated header: the image would need " + std::to_string(static_cast<unsigned long long>(std::min(out_bytes, 1e19))) +
                               " bytes of pixels, far more than a " + std::to_string(file_bytes) + "-byte file can hold");
}

// ---- File ----------------------------------------------------------------------------------------
File File::open_read(std::string_view fn, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) format_error(fn, path, "is a directory, not a file");
  File f;
  f.f_ = std::fopen(path.c_str(), "rb");
  if (!f.f_) {
    const int e = errno;
    format_error(fn, path, e == ENOENT ? "no such file" : std::string("cannot open: ") + std::strerror(e));
  }
  return f;
}

File File::open_write(std::string_view fn, const std::string& path) {
  File f;
  f.f_ = std::fopen(path.c_str(), "wb");
  if (!f.f_) format_error(fn, path, std::string("cannot open for writing: ") + std::strerror(errno));
  return f;
}

std::uint64_t File::size() const {
  struct stat st {};
  if (fstat(fileno(f_), &st) != 0) return 0;
  return static_cast<std::uint64_t>(st.st_size);
}

void File::read_exact(void* dst, std::size_t n, std::string_view fn, const std::string& path, const char* what) {
  auto* p = static_cast<unsigned char*>(dst);
  std::size_t done = 0;
  while (done < n) {
    const std::size_t got = std::fread(p + done, 1, n - done, f_);
    if (got == 0) {
      if (std::ferror(f_)) format_error(fn, path, std::string("read error in ") + what + ": " + std::strerror(errno));
      format_error(fn, path, std::string("truncated file: ") + what + " ends after " + std::to_string(done) + " of " +
                                 std::to_string(n) + " bytes");
    }
    done += got;
  }
}

void File::write_all(const void* src, std::size_t n, std::string_view fn, const std::string& path) {
  if (n && std::fwrite(src, 1, n, f_) != n) format_error(fn, path, std::string("write failed: ") + std::strerror(errno));
}

void File::finish(std::string_view fn, const std::string& path) {
  std::FILE* f = f_;
  f_ = nullptr;
  const bool ok = std::fflush(f) == 0;
  const int e = errno;
  const bool closed = std::fclose(f) == 0;
  if (!ok || !closed) format_error(fn, path, std::string("write failed: ") + std::strerror(ok ? errno : e));
}

void File::close() {
  if (f_) std::fclose(f_);
  f_ = nullptr;
}

// ---- AtomicOutput --------------------------------------------------------------------------------
AtomicOutput::AtomicOutput(const std::string& path) : path_(path) {
  static std::atomic<unsigned> counter{0};
  const std::filesystem::path p(path);
  const std::string dir = p.has_parent_path() ? p.parent_path().string() : std::string(".");
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string name = dir + "/." + p.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" +
                             std::to_string(counter.fetch_add(1));
    const int fd = ::open(name.c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::close(fd);
      temp_ = name;
      return;
    }
    if (errno != EEXIST)
      format_error(kSave, path, std::string("cannot create a file in '") + dir + "': " + std::strerror(errno));
  }
  format_error(kSave, path, "cannot create a temporary file next to it");
}

AtomicOutput::~AtomicOutput() {
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

void AtomicOutput::commit() {
  if (std::rename(temp_.c_str(), path_.c_str()) != 0)
    format_error(kSave, path_, std::string("cannot rename the finished temporary file onto it: ") + std::strerror(errno));
  committed_ = true;
}

// ---- colour helpers ------------------------------------------------------------------------------
namespace {

/// img_as_float of one value in the float type F (skimage's _convert: unsigned x * (1/imax),
/// signed max(x * (1/imax), -1), bool 0/1, floats unchanged).
template <class F, class T>
F as_float(T x) {
  if constexpr (std::is_same_v<T, bool>) {
    return x ? F(1) : F(0);
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<F>(x);
  } else if constexpr (std::is_unsigned_v<T>) {
    return static_cast<F>(static_cast<double>(x) * (1.0 / static_cast<double>(std::numeric_limits<T>::max())));
  } else {
    const double v = static_cast<double>(x) * (1.0 / static_cast<double>(std::numeric_limits<T>::max()));
    return static_cast<F>(std::max(v, -1.0));
  }
}

/// rgb2gray(rgba2rgb(img)) (drop_alpha) or rgb2gray(img) over the last axis of a host contiguous
/// array; float32 stays float32, everything else gives float64.
Array luminance(const Array& img, bool drop_alpha) {
  const bool f32 = img.dtype() == DType::float32;
  Shape shape(img.shape().begin(), img.shape().end() - 1);
  Array out = Array::empty(shape, f32 ? DType::float32 : DType::float64);
  const std::int64_t n = out.size();
  const int ch = static_cast<int>(img.shape().back());
  cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(img.dtype(), kRead, [&]<class T>() {
    const T* src = static_cast<const T*>(img.data());
    const auto run = [&]<class F>(F* dst) {
      const F c0 = static_cast<F>(0.2125), c1 = static_cast<F>(0.7154), c2 = static_cast<F>(0.0721);
      for (std::int64_t i = 0; i < n; ++i) {
        const T* px = src + i * ch;
        F r = as_float<F>(px[0]), g = as_float<F>(px[1]), b = as_float<F>(px[2]);
        if (drop_alpha) {
          const F a = as_float<F>(px[3]);
          const F w = F(1) - a;  // background 1
          r = std::clamp(w * F(1) + a * r, F(0), F(1));
          g = std::clamp(w * F(1) + a * g, F(0), F(1));
          b = std::clamp(w * F(1) + a * b, F(0), F(1));
        }
        dst[i] = r * c0 + g * c1 + b * c2;
      }
    };
    if (f32) run(out.data<float>());
    else run(out.data<double>());
  });
  return out;
}

double percentile_sorted_select(std::vector<double>& v, double q) {
  const double idx = q / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(idx));
  const double t = idx - static_cast<double>(lo);
  std::nth_element(v.begin(), v.begin() + lo, v.end());
  const double a = v[lo];
  if (lo + 1 >= v.size() || t == 0) return a;
  const double b = *std::min_element(v.begin() + lo + 1, v.end());
  return a + (b - a) * t;
}

}  // namespace

Array as_gray(const std::string& path, Array img) {
  if (img.ndim() <= 2) return img;
  img = img.contiguous();
  const bool rgba = img.shape(2) == 4;
  const std::int64_t last = img.shape(-1);
  if ((rgba && last != 4) || (!rgba && last != 3))
    throw InvalidArgument("io.imread: argument 'as_gray' needs RGB or RGBA channels in the last axis; '" + path +
                          "' has shape " + shape_str(img.shape()));
  return luminance(img, rgba);
}

bool is_low_contrast(const Array& image) {
  if (image.size() == 0) return false;
  if (image.dtype() == DType::bool_) {
    const auto* p = static_cast<const unsigned char*>(image.data());
    const bool any = std::any_of(p, p + image.size(), [](unsigned char c) { return c != 0; });
    const bool all = std::all_of(p, p + image.size(), [](unsigned char c) { return c != 0; });
    return !(any && !all);
  }
  Array gray;
  const Array* src = &image;
  if (image.ndim() == 3 && (image.shape(2) == 3 || image.shape(2) == 4)) {
    gray = luminance(image, image.shape(2) == 4);
    src = &gray;
  }
  double lo = -1, hi = 1;
  if (!is_floating(src->dtype())) {
    cuskimage::detail::dispatch<cuskimage::detail::IntegerTypes>(src->dtype(), kSave, [&]<class T>() {
      lo = static_cast<double>(std::numeric_limits<T>::min());
      hi = static_cast<double>(std::numeric_limits<T>::max());
    });
  }
  std::vector<double> v = src->to_vector<double>();
  if (std::any_of(v.begin(), v.end(), [](double x) { return std::isnan(x); })) return false;
  const double p1 = percentile_sorted_select(v, 1.0);
  const double p99 = percentile_sorted_select(v, 99.0);
  return (p99 - p1) / (hi - lo) < 0.05;
}

}  // namespace detail

// ---- public API ------------------------------------------------------------------------------------
using namespace detail;

Array imread(const std::string& path, const ImreadOptions& options, const Stream& stream) {
  Format fmt;
  {
    File f = File::open_read(kRead, path);
    unsigned char magic[16] = {};
    const std::size_t n = std::fread(magic, 1, sizeof magic, f.get());
    if (n == 0) format_error(kRead, path, "file is empty");
    fmt = format_from_magic(magic, n);
    if (fmt == Format::unknown) fmt = format_from_extension(path);
    if (fmt == Format::unknown)
      format_error(kRead, path, "unrecognised file format (not TIFF, PNG, JPEG or NPY by content or extension)");
  }
  Array img;
  switch (fmt) {
    case Format::npy: img = read_npy(path); break;
    case Format::tiff: img = read_tiff(path); break;
    case Format::png: img = read_png(path); break;
    case Format::jpeg: img = read_jpeg(path); break;
    case Format::unknown: break;
  }
  // skimage.io.imread moves a channel axis of 3 or 4 found third from the end to the end, for
  // every image format (planar TIFF samples, but also stacks of 3 or 4 TIFF pages and grey+alpha
  // PNGs of 3 or 4 rows). NPY is not an image format of skimage's and is returned as stored.
  if (fmt != Format::npy && img.ndim() > 2) {
    const std::int64_t last = img.shape(-1), third = img.shape(-3);
    if (last != 3 && last != 4 && (third == 3 || third == 4)) {
      std::vector<int> axes;
      const int nd = img.ndim();
      for (int i = 0; i < nd - 3; ++i) axes.push_back(i);
      axes.insert(axes.end(), {nd - 2, nd - 1, nd - 3});
      img = img.transpose(axes).copy();
    }
  }
  if (options.as_gray) img = as_gray(path, std::move(img));
  if (!(options.device == Device::cpu())) img = img.to(options.device, stream);
  return img;
}

void imsave(const std::string& path, const Array& image, const ImsaveOptions& options, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kSave, "image");
  const Format fmt = format_from_extension(path);
  if (fmt == Format::unknown)
    throw InvalidArgument("io.imsave: argument 'path' has an unknown extension ('" + path +
                          "'); expected .tif, .tiff, .png, .jpg, .jpeg or .npy");
  Array host = image.to(Device::cpu(), stream).contiguous();

  if (fmt != Format::npy) {
    if (host.dtype() == DType::bool_) {
      // skimage.io.imsave: bool images are written as uint8 0/255 (with a warning).
      std::fprintf(stderr,
                   "io.imsave: warning: '%s' is a boolean image: setting True to 255 and False to 0. To silence "
                   "this warning, please convert the image using util.img_as_ubyte.\n",
                   path.c_str());
      Array u = host.astype(DType::uint8);
      auto* p = static_cast<unsigned char*>(u.data());
      for (std::int64_t i = 0; i < u.size(); ++i) p[i] = p[i] ? 255 : 0;
      host = std::move(u);
    }
    if (host.size() == 0) invalid_image(path, "has no pixels, shape " + shape_str(host.shape()));
    switch (fmt) {
      case Format::tiff: check_tiff(path, host, options); break;
      case Format::png: check_png(path, host); break;
      case Format::jpeg: check_jpeg(path, host, options.quality); break;
      default: break;
    }
    if (options.check_contrast && is_low_contrast(host))
      std::fprintf(stderr, "io.imsave: warning: '%s' is a low contrast image\n", path.c_str());
  }

  AtomicOutput out(path);
  switch (fmt) {
    case Format::npy: write_npy(path, out.temp_path(), host); break;
    case Format::tiff: write_tiff(path, out.temp_path(), host, options); break;
    case Format::png: write_png(path, out.temp_path(), host); break;
    case Format::jpeg: write_jpeg(path, out.temp_path(), host, options.quality); break;
    case Format::unknown: break;
  }
  out.commit();
}

}  // namespace cuskimage::io
