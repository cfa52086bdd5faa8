// Test fixtures for the wsi module: synthetic tissue-like images, slides written by the project's
// writer (and by libvips when installed), byte-level TIFF patching for malformed files, and a thin
// wrapper over OpenSlide's C API (the reference) when libopenslide was found.
#pragma once

#include <gtest/gtest.h>
#include <tiffio.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/wsi.hpp"
#include "tests/common/test_support.hpp"

#if CUSK_HAVE_OPENSLIDE
#include <openslide/openslide.h>
#endif

namespace cusktest::wsi {

using cuskimage::Array;
using cuskimage::DType;

/// Deterministic RGB image with smooth blobs, edges and noise (compresses like tissue, exercises
/// chroma subsampling).
inline Array synthetic_rgb(std::int64_t rows, std::int64_t cols, std::uint32_t seed = 1) {
  Array a = Array::empty({rows, cols, 3}, DType::uint8);
  auto* p = static_cast<std::uint8_t*>(a.data());
  std::uint32_t s = seed * 2654435761u + 12345u;
  for (std::int64_t y = 0; y < rows; ++y)
    for (std::int64_t x = 0; x < cols; ++x) {
      s = s * 1664525u + 1013904223u;
      const int noise = static_cast<int>((s >> 24) & 15) - 8;
      const double u = static_cast<double>(x) / 37.0, v = static_cast<double>(y) / 23.0;
      const double blob = std::sin(u + seed) * std::cos(v * 0.7) + 0.5 * std::sin((x + y) / 11.0);
      const bool cell = ((x / 29 + y / 31) % 5) == 0;
      int r = static_cast<int>(200 + 40 * blob) + noise - (cell ? 90 : 0);
      int g = static_cast<int>(150 + 60 * std::sin(v + u * 0.3)) + noise - (cell ? 40 : 0);
      int b = static_cast<int>(190 + 30 * blob) + noise;
      p[(y * cols + x) * 3 + 0] = static_cast<std::uint8_t>(std::clamp(r, 0, 255));
      p[(y * cols + x) * 3 + 1] = static_cast<std::uint8_t>(std::clamp(g, 0, 255));
      p[(y * cols + x) * 3 + 2] = static_cast<std::uint8_t>(std::clamp(b, 0, 255));
    }
  return a;
}

inline std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<unsigned char>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}
inline void write_bytes(const std::string& path, const std::vector<unsigned char>& b) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

// ---- classic little-endian TIFF patching -------------------------------------------------------------
inline std::uint32_t rd32(const std::vector<unsigned char>& b, std::size_t o) {
  return b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (std::uint32_t(b[o + 3]) << 24);
}
inline std::uint16_t rd16(const std::vector<unsigned char>& b, std::size_t o) { return static_cast<std::uint16_t>(b[o] | (b[o + 1] << 8)); }
inline void wr32(std::vector<unsigned char>& b, std::size_t o, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) b[o + i] = static_cast<unsigned char>(v >> (8 * i));
}
inline void wr16(std::vector<unsigned char>& b, std::size_t o, std::uint16_t v) {
  b[o] = static_cast<unsigned char>(v), b[o + 1] = static_cast<unsigned char>(v >> 8);
}
/// Offset of IFD number `ifd` of a classic little-endian TIFF.
inline std::size_t ifd_offset(const std::vector<unsigned char>& b, int ifd) {
  std::size_t off = rd32(b, 4);
  for (int i = 0; i < ifd; ++i) off = rd32(b, off + 2 + 12 * rd16(b, off));
  return off;
}
/// Offset of the 12-byte entry of `tag` in IFD `ifd` (0 when absent).
inline std::size_t tag_entry(const std::vector<unsigned char>& b, int ifd, std::uint16_t tag) {
  const std::size_t off = ifd_offset(b, ifd);
  for (std::size_t i = 0, n = rd16(b, off); i < n; ++i)
    if (rd16(b, off + 2 + 12 * i) == tag) return off + 2 + 12 * i;
  return 0;
}
/// Where element k of a LONG array tag's values lies.
inline std::size_t long_array_element(const std::vector<unsigned char>& b, int ifd, std::uint16_t tag, std::size_t k) {
  const std::size_t e = tag_entry(b, ifd, tag);
  const std::uint32_t count = rd32(b, e + 4);
  const std::size_t base = count * 4 <= 4 ? e + 8 : rd32(b, e + 8);
  return base + 4 * k;
}

/// A directory shared by the test processes of one build (ctest runs each test in its own
/// process): fixtures are written once. Bump the version when a fixture's recipe changes.
inline std::string fixture_path(const std::string& name) {
  const std::string dir = std::string(CUSK_TEST_TMP_DIR) + "/wsi_fixtures_v1";
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

/// Writes a slide with the project's writer (once per build tree; the writer renames a finished
/// file into place, so concurrent test processes never see half a file).
inline std::string make_slide(const std::string& name, const Array& image, const cuskimage::wsi::PyramidOptions& opt) {
  const std::string path = fixture_path(name + ".tif");
  if (!std::filesystem::exists(path)) cuskimage::wsi::write_pyramid(path, image, opt);
  return path;
}

inline bool have_vips() { return std::string(CUSK_VIPS_EXE).size() > 0; }

/// libvips' pyramid of `image` (written first as an uncompressed TIFF); "" when vips is absent.
inline std::string make_vips_slide(const std::string& name, const Array& image, const std::string& args) {
  if (!have_vips()) return {};
  const std::string out = fixture_path("vips_" + name + ".tif");
  if (std::filesystem::exists(out)) return out;
  const std::string src = temp_path("wsi_vips_src_" + name + ".tif");
  cuskimage::io::imsave(src, image, {.check_contrast = false});
  const std::string part = temp_path("wsi_vips_" + name + ".tif");
  const std::string cmd = std::string(CUSK_VIPS_EXE) + " tiffsave '" + src + "' '" + part + "' --tile --pyramid " + args + " >/dev/null 2>&1";
  if (std::system(cmd.c_str()) != 0) return {};
  std::filesystem::rename(part, out);
  return out;
}

#if CUSK_HAVE_OPENSLIDE
/// OpenSlide's read_region as RGBA bytes (un-premultiplied for opaque pixels = identical values).
struct OpenSlideRef {
  openslide_t* osr = nullptr;
  explicit OpenSlideRef(const std::string& path) { osr = openslide_open(path.c_str()); }
  ~OpenSlideRef() {
    if (osr) openslide_close(osr);
  }
  bool ok() const { return osr && !openslide_get_error(osr); }
  std::vector<std::uint8_t> read(std::int64_t x, std::int64_t y, int level, std::int64_t w, std::int64_t h) const {
    std::vector<std::uint32_t> argb(static_cast<std::size_t>(w * h));
    openslide_read_region(osr, argb.data(), x, y, level, w, h);
    std::vector<std::uint8_t> rgba(argb.size() * 4);
    for (std::size_t i = 0; i < argb.size(); ++i) {
      const std::uint32_t p = argb[i];
      rgba[4 * i] = (p >> 16) & 255, rgba[4 * i + 1] = (p >> 8) & 255, rgba[4 * i + 2] = p & 255, rgba[4 * i + 3] = p >> 24;
    }
    return rgba;
  }
  std::map<std::string, std::string> properties() const {
    std::map<std::string, std::string> m;
    for (const char* const* n = openslide_get_property_names(osr); *n; ++n) m[*n] = openslide_get_property_value(osr, *n);
    return m;
  }
};
#endif

}  // namespace cusktest::wsi
