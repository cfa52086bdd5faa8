// Internal pieces of the io module: format codecs (one file each), error helpers, the
// atomic-write file and the small colour/contrast helpers imread/imsave need.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "cuskimage/array.hpp"
#include "cuskimage/error.hpp"
#include "cuskimage/io.hpp"

namespace cuskimage::io::detail {

inline constexpr std::string_view kRead = "io.imread";
inline constexpr std::string_view kSave = "io.imsave";

enum class Format { unknown, npy, tiff, png, jpeg };

/// "io.imread: '<path>': <what>" as FormatError.
[[noreturn]] void format_error(std::string_view fn, const std::string& path, const std::string& what);
/// "io.imsave: argument 'image' <what> (writing '<path>')" as InvalidArgument.
[[noreturn]] void invalid_image(const std::string& path, const std::string& what);

/// Format from the file name's extension (case-insensitive); unknown when none matches.
Format format_from_extension(const std::string& path);
/// Format from the first bytes of a file; unknown when none matches.
Format format_from_magic(const unsigned char* bytes, std::size_t n);

/// RAII std::FILE*; open() throws FormatError naming the path (missing file, permissions, directory).
class File {
 public:
  File() = default;
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  File(File&& o) noexcept : f_(o.f_) { o.f_ = nullptr; }
  ~File() { close(); }
  static File open_read(std::string_view fn, const std::string& path);
  static File open_write(std::string_view fn, const std::string& path);
  std::FILE* get() const { return f_; }
  /// Size in bytes of the open file.
  std::uint64_t size() const;
  /// Reads exactly n bytes at the current position or throws FormatError("truncated ...").
  void read_exact(void* dst, std::size_t n, std::string_view fn, const std::string& path, const char* what);
  void write_all(const void* src, std::size_t n, std::string_view fn, const std::string& path);
  /// fflush + fclose; throws on failure (full disk).
  void finish(std::string_view fn, const std::string& path);
  void close();

 private:
  std::FILE* f_ = nullptr;
};

/// A temporary file next to `path`; commit() renames it onto `path`, the destructor removes it
/// when not committed. Nothing half-written ever appears under `path`.
class AtomicOutput {
 public:
  explicit AtomicOutput(const std::string& path);
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  ~AtomicOutput();
  const std::string& temp_path() const { return temp_; }
  void commit();

 private:
  std::string path_, temp_;
  bool committed_ = false;
};

/// Guards allocations against corrupt headers: an image needing `out_bytes` cannot come from a file
/// of `file_bytes` compressed at more than `max_ratio`:1 (no codec here gets near 4096:1).
void check_plausible_size(std::string_view fn, const std::string& path, double out_bytes, std::uint64_t file_bytes,
                          double max_ratio = 4096.0);

// ---- codecs: readers return host arrays; writers take host C-contiguous arrays ------------------
Array read_npy(const std::string& path);
void write_npy(const std::string& path, const std::string& out_path, const Array& a);

Array read_tiff(const std::string& path);
void write_tiff(const std::string& path, const std::string& out_path, const Array& a, const ImsaveOptions& opt);

Array read_png(const std::string& path);
void write_png(const std::string& path, const std::string& out_path, const Array& a);

Array read_jpeg(const std::string& path);
void write_jpeg(const std::string& path, const std::string& out_path, const Array& a, int quality);

/// Shape/dtype checks of each writer, run before anything is written (InvalidArgument).
void check_tiff(const std::string& path, const Array& a, const ImsaveOptions& opt);
void check_png(const std::string& path, const Array& a);
void check_jpeg(const std::string& path, const Array& a, int quality);

// ---- colour helpers (skimage semantics, host only) -----------------------------------------------
/// skimage.io.imread's as_gray step: colour (last axis 3 or 4) to luminance, float64 (float32 for
/// float32 input) with rgba2rgb on a white background first. Grey images are returned unchanged.
Array as_gray(const std::string& path, Array img);
/// skimage.exposure.is_low_contrast with its defaults (0.05, 1st and 99th percentiles, linear).
bool is_low_contrast(const Array& host_image);

}  // namespace cuskimage::io::detail
