// wsi::Slide's state (src/wsi/slide.cpp reads regions with it, src/wsi/slide_open.cpp fills it):
// the levels' tile tables, the properties, the associated images, the shared file descriptor and
// the decoded-tile cache.
#pragma once

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cuskimage/wsi.hpp"
#include "src/io/tiff_handle.hpp"
#include "src/wsi/wsi_detail.hpp"

namespace cuskimage::wsi {

/// The tile cache's key of tile `index` of `level`.
inline std::uint64_t tile_key(int level, std::uint64_t index) {
  return (static_cast<std::uint64_t>(level) << 48) | index;
}

/// The slide's TIFF through libtiff, read-only.
inline io::detail::TiffPtr open_tiff(const std::string& path, io::detail::TiffDiagnostics& diag) {
  return io::detail::open_tiff(path, "r", diag);
}

struct Slide::Impl {
  std::string path, vendor;
  std::vector<Level> levels;
  std::vector<detail::TiledImage> images;
  std::map<std::string, std::string> properties;
  struct Associated {
    tdir_t dir;
    std::uint32_t width, height;
    std::vector<unsigned char> jpeg;  // Philips: a JPEG from the XML instead of a directory
  };
  std::map<std::string, Associated> associated;
  int fd = -1;
  std::uint64_t file_size = 0;
  mutable detail::TileCache cache{0};
  mutable std::atomic<std::uint64_t> gpu_tiles{0}, host_tiles{0}, gpu_exact_tiles{0};  // device reads' tile decodes

  ~Impl() {
    if (fd >= 0) ::close(fd);
  }

  void fetch(const detail::TiledImage& t, std::uint64_t index, std::vector<unsigned char>& buf) const {
    const std::uint64_t n = t.byte_counts[index], off = t.offsets[index];
    buf.resize(n);
    std::size_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(fd, buf.data() + done, n - done, static_cast<off_t>(off + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) detail::format_error(path, "cannot read tile data (file truncated or unreadable)");
      done += static_cast<std::size_t>(got);
    }
  }

  /// A tile the cache lacks, decoded whole (RGB) and put in the cache.
  detail::TileCache::Tile decode_and_cache(int level, std::uint64_t index) const {
    const detail::TiledImage& t = images[level];
    thread_local std::vector<unsigned char> raw;
    fetch(t, index, raw);
    auto out = std::make_shared<std::vector<unsigned char>>(detail::tile_bytes(t, 3));
    detail::decode_tile(t, raw.data(), raw.size(), out->data(), t.tile_width * 3, 3, path);
    cache.put(tile_key(level, index), out);
    return out;
  }
};

}  // namespace cuskimage::wsi
