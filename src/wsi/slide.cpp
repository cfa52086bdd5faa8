// wsi::Slide: stage 1 (parse the TIFF directories once with libtiff, keep the tile tables), stage 2
// (pread the raw tile bytes; the fd is shared, pread needs no lock) and the region assembly that
// drives stage 3 (decode_tile, straight into the output when a tile lies wholly inside it).
#include <fcntl.h>
#include <sys/stat.h>
#include <tiffio.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "src/io/tiff_handle.hpp"
#include "src/wsi/wsi_detail.hpp"

#if CUSK_HAVE_NVJPEG
#include <cuda_runtime.h>

#include "src/core/cuda_check.hpp"
#include "src/core/device_guard.hpp"
#endif

namespace cuskimage::wsi {

using detail::format_error;
using detail::TiledImage;

namespace {

using Diagnostics = io::detail::TiffDiagnostics;
using io::detail::TiffPtr;
io::detail::TiffPtr open_tiff(const std::string& path, Diagnostics& diag) { return io::detail::open_tiff(path, "r", diag); }

/// g_ascii_dtostr, which OpenSlide formats its numbers with: "%.17g".
std::string format_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

/// One TIFF directory as the vendor logic sees it.
struct Dir {
  tdir_t index = 0;
  std::uint64_t offset = 0;
  bool subifd = false;
  bool tiled = false;
  std::uint32_t width = 0, height = 0, subfile = 0;
  std::string description;
};

std::string get_string(TIFF* t, ttag_t tag) {
  const char* s = nullptr;
  if (TIFFGetField(t, tag, &s) && s) return s;
  return {};
}

/// The tile table and layout of the current directory; FormatError for anything inconsistent.
TiledImage read_tiled(TIFF* t, const std::string& path, std::uint64_t file_size, const std::string& where) {
  TiledImage ti;
  std::uint32_t w = 0, h = 0, tw = 0, th = 0;
  if (!TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(t, TIFFTAG_IMAGELENGTH, &h))
    format_error(path, where + ": missing image width or length");
  if (!TIFFGetField(t, TIFFTAG_TILEWIDTH, &tw) || !TIFFGetField(t, TIFFTAG_TILELENGTH, &th))
    format_error(path, where + ": missing tile width or length");
  if (w == 0 || h == 0) format_error(path, where + ": zero image width or length");
  if (tw == 0 || th == 0 || tw % 16 || th % 16 || std::uint64_t(tw) * th > (std::uint64_t(1) << 26))
    format_error(path, where + ": invalid tile size " + std::to_string(tw) + "x" + std::to_string(th));
  std::uint16_t planar = PLANARCONFIG_CONTIG;
  TIFFGetFieldDefaulted(t, TIFFTAG_COMPRESSION, &ti.compression);
  TIFFGetFieldDefaulted(t, TIFFTAG_SAMPLESPERPIXEL, &ti.spp);
  TIFFGetFieldDefaulted(t, TIFFTAG_BITSPERSAMPLE, &ti.bps);
  TIFFGetFieldDefaulted(t, TIFFTAG_PLANARCONFIG, &planar);
  if (ti.compression == detail::kLzw || ti.compression == detail::kDeflate || ti.compression == detail::kAdobeDeflate ||
      ti.compression == detail::kZstd)
    TIFFGetFieldDefaulted(t, TIFFTAG_PREDICTOR, &ti.predictor);
  if (!TIFFGetField(t, TIFFTAG_PHOTOMETRIC, &ti.photometric)) ti.photometric = ti.spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
  if (ti.spp == 0 || ti.spp > 16) format_error(path, where + ": invalid samples per pixel " + std::to_string(ti.spp));
  if (planar == PLANARCONFIG_SEPARATE && ti.spp > 1) format_error(path, where + ": planar (separate) samples are not supported");
  ti.width = w, ti.height = h, ti.tile_width = tw, ti.tile_height = th;
  ti.tiles_across = (ti.width + tw - 1) / tw;
  ti.tiles_down = (ti.height + th - 1) / th;
  const std::uint64_t tiles = static_cast<std::uint64_t>(ti.tiles_across) * static_cast<std::uint64_t>(ti.tiles_down);
  // Each tile needs an offset and a byte count in the file: absurd dimensions fail here, before
  // anything is allocated.
  if (tiles > file_size / 8 + 1) format_error(path, where + ": absurd image size " + std::to_string(w) + "x" + std::to_string(h) +
                                                        " for a " + std::to_string(file_size) + "-byte file");
  if (TIFFNumberOfTiles(t) != tiles) format_error(path, where + ": tile count does not match the image size");
  detail::check_decodable(ti, path);
  ti.offsets.resize(tiles);
  ti.byte_counts.resize(tiles);
  for (std::uint64_t i = 0; i < tiles; ++i) {
    int err = 0;
    ti.offsets[i] = TIFFGetStrileOffsetWithErr(t, static_cast<std::uint32_t>(i), &err);
    if (!err) ti.byte_counts[i] = TIFFGetStrileByteCountWithErr(t, static_cast<std::uint32_t>(i), &err);
    if (err) format_error(path, where + ": cannot read the tile offsets");
    if (ti.byte_counts[i] > 0 && (ti.offsets[i] > file_size || ti.byte_counts[i] > file_size - ti.offsets[i]))
      format_error(path, where + ": tile " + std::to_string(i) + " lies past the end of the file (truncated?)");
  }
  if (ti.compression == COMPRESSION_JPEG) {
    std::uint32_t n = 0;
    void* tables = nullptr;
    if (TIFFGetField(t, TIFFTAG_JPEGTABLES, &n, &tables) && tables && n > 4) {
      const auto* p = static_cast<const unsigned char*>(tables);
      ti.jpeg_tables.assign(p, p + n);
    }
  }
  return ti;
}

/// The next-IFD link stored after the directory at `off` (0 when it cannot be read).
std::uint64_t next_ifd_offset(int fd, bool big_endian, bool bigtiff, std::uint64_t off, std::uint64_t file_size) {
  const auto get = [&](std::uint64_t at, int n) -> std::optional<std::uint64_t> {
    unsigned char b[8];
    if (at + n > file_size || ::pread(fd, b, n, static_cast<off_t>(at)) != n) return std::nullopt;
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= std::uint64_t(b[big_endian ? n - 1 - i : i]) << (8 * i);
    return v;
  };
  const int count_size = bigtiff ? 8 : 2, entry = bigtiff ? 20 : 12, link = bigtiff ? 8 : 4;
  const auto n = get(off, count_size);
  if (!n || *n > 1000000) return 0;
  return get(off + count_size + *n * entry, link).value_or(0);
}

/// Frame size of a JPEG stream (TurboJPEG's header parse).
bool jpeg_size(const std::vector<unsigned char>& j, std::uint32_t& w, std::uint32_t& h) {
  tjhandle t = tjInitDecompress();
  int iw = 0, ih = 0, ss = 0, cs = 0;
  const bool ok = t && tjDecompressHeader3(t, j.data(), static_cast<unsigned long>(j.size()), &iw, &ih, &ss, &cs) == 0 && iw > 0 && ih > 0;
  if (t) tjDestroy(t);
  w = static_cast<std::uint32_t>(iw), h = static_cast<std::uint32_t>(ih);
  return ok;
}

std::uint64_t tile_key(int level, std::uint64_t index) { return (static_cast<std::uint64_t>(level) << 48) | index; }

}  // namespace

// ---- Impl --------------------------------------------------------------------------------------------
struct Slide::Impl {
  std::string path, vendor;
  std::vector<Level> levels;
  std::vector<TiledImage> images;
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

  void fetch(const TiledImage& t, std::uint64_t index, std::vector<unsigned char>& buf) const {
    const std::uint64_t n = t.byte_counts[index], off = t.offsets[index];
    buf.resize(n);
    std::size_t done = 0;
    while (done < n) {
      const ssize_t got = ::pread(fd, buf.data() + done, n - done, static_cast<off_t>(off + done));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) format_error(path, "cannot read tile data (file truncated or unreadable)");
      done += static_cast<std::size_t>(got);
    }
  }

  /// A tile the cache lacks, decoded whole (RGB) and put in the cache.
  detail::TileCache::Tile decode_and_cache(int level, std::uint64_t index) const {
    const TiledImage& t = images[level];
    thread_local std::vector<unsigned char> raw;
    fetch(t, index, raw);
    auto out = std::make_shared<std::vector<unsigned char>>(detail::tile_bytes(t, 3));
    detail::decode_tile(t, raw.data(), raw.size(), out->data(), t.tile_width * 3, 3, path);
    cache.put(tile_key(level, index), out);
    return out;
  }
};

namespace {

/// One tile's part of one output region.
struct TileJob {
  Array* out;
  int level;
  std::int64_t tx, ty;  // tile column and row
  std::int64_t ox, oy;  // the output position of the region's level-pixel origin: pixel (lx, ly)
  bool shared = false;  // other regions of the same batch need this tile in part too
};

void check_region(const Slide& s, const Region& r, const char* fn) {
  if (r.level < 0 || r.level >= s.level_count())
    throw InvalidArgument(std::string(fn) + ": argument 'level' must be in [0, " + std::to_string(s.level_count()) +
                          "), got " + std::to_string(r.level));
  if (r.width <= 0 || r.height <= 0)
    throw InvalidArgument(std::string(fn) + ": argument 'size' must be positive, got " + std::to_string(r.width) + "x" +
                          std::to_string(r.height));
  if (r.width > (std::int64_t(1) << 31) || r.height > (std::int64_t(1) << 31))
    throw InvalidArgument(std::string(fn) + ": argument 'size' is too large, got " + std::to_string(r.width) + "x" +
                          std::to_string(r.height));
}

}  // namespace

// ---- open ----------------------------------------------------------------------------------------------
Slide Slide::open(const std::string& path, const OpenOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->cache.set_capacity(options.cache_bytes);
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) format_error(path, std::string("cannot open: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) format_error(path, "not a regular file");
  impl->file_size = static_cast<std::uint64_t>(st.st_size);
  impl->fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (impl->fd < 0) format_error(path, std::string("cannot open: ") + std::strerror(errno));

  Diagnostics diag;
  TiffPtr tp = open_tiff(path, diag);
  if (!tp) format_error(path, "not a readable TIFF: " + (diag.first_error.empty() ? std::string("libtiff error") : diag.first_error));
  TIFF* t = tp.get();

  // Stage 1: walk the directory chain (libtiff rejects IFD loops; the count bounds the walk).
  std::vector<Dir> dirs;
  std::vector<std::uint64_t> subifd_offsets;
  for (tdir_t d = 0;; ++d) {
    if (d >= 4096) format_error(path, "more than 4096 TIFF directories");
    Dir dir;
    dir.index = d;
    dir.offset = TIFFCurrentDirOffset(t);
    dir.tiled = TIFFIsTiled(t) != 0;
    TIFFGetField(t, TIFFTAG_IMAGEWIDTH, &dir.width);
    TIFFGetField(t, TIFFTAG_IMAGELENGTH, &dir.height);
    dir.description = get_string(t, TIFFTAG_IMAGEDESCRIPTION);
    TIFFGetField(t, TIFFTAG_SUBFILETYPE, &dir.subfile);
    if (d == 0) {
      std::uint16_t n = 0;
      std::uint64_t* offs = nullptr;
      if (TIFFGetField(t, TIFFTAG_SUBIFD, &n, &offs) && offs) subifd_offsets.assign(offs, offs + n);
    }
    dirs.push_back(dir);
    diag.first_error.clear();
    if (!TIFFReadDirectory(t)) {
      if (!diag.first_error.empty()) format_error(path, "bad TIFF directory after directory " + std::to_string(d) + ": " + diag.first_error);
      break;
    }
  }
  // libtiff stops quietly at a directory link that loops back or leads nowhere: the last
  // directory's link must be 0.
  if (const std::uint64_t next = next_ifd_offset(impl->fd, TIFFIsBigEndian(t) != 0, TIFFIsBigTIFF(t) != 0, dirs.back().offset,
                                                 impl->file_size);
      next != 0) {
    const bool loop = std::any_of(dirs.begin(), dirs.end(), [&](const Dir& d) { return d.offset == next; });
    format_error(path, loop ? "TIFF directory loop (IFD " + std::to_string(dirs.size() - 1) + " links back)"
                            : "TIFF directory " + std::to_string(dirs.size() - 1) + " links to an unreadable directory");
  }

  // Properties of directory 0, as OpenSlide's tiff.* set.
  if (!TIFFSetDirectory(t, 0)) format_error(path, "cannot re-read TIFF directory 0");
  auto& props = impl->properties;
  const std::pair<ttag_t, const char*> string_tags[] = {
      {TIFFTAG_IMAGEDESCRIPTION, "ImageDescription"}, {TIFFTAG_MAKE, "Make"}, {TIFFTAG_MODEL, "Model"},
      {TIFFTAG_SOFTWARE, "Software"}, {TIFFTAG_DATETIME, "DateTime"}, {TIFFTAG_ARTIST, "Artist"},
      {TIFFTAG_HOSTCOMPUTER, "HostComputer"}, {TIFFTAG_COPYRIGHT, "Copyright"}, {TIFFTAG_DOCUMENTNAME, "DocumentName"}};
  for (const auto& [tag, name] : string_tags)
    if (const char* s = nullptr; TIFFGetField(t, tag, &s) && s) props[std::string("tiff.") + name] = s;
  float xres = 0, yres = 0;
  std::uint16_t resunit = RESUNIT_INCH;
  const bool have_x = TIFFGetField(t, TIFFTAG_XRESOLUTION, &xres) != 0;
  const bool have_y = TIFFGetField(t, TIFFTAG_YRESOLUTION, &yres) != 0;
  if (have_x) props["tiff.XResolution"] = format_double(xres);
  if (have_y) props["tiff.YResolution"] = format_double(yres);
  if (TIFFGetFieldDefaulted(t, TIFFTAG_RESOLUTIONUNIT, &resunit))
    props["tiff.ResolutionUnit"] = resunit == RESUNIT_CENTIMETER ? "centimeter" : resunit == RESUNIT_INCH ? "inch" : "none";
  if (props.count("tiff.ImageDescription")) props["openslide.comment"] = props["tiff.ImageDescription"];

  // Vendor and levels.
  const std::string& desc0 = dirs[0].description;
  const bool aperio = desc0.rfind("Aperio", 0) == 0;
  const bool philips = !aperio && detail::is_philips(props.count("tiff.Software") ? props["tiff.Software"] : "", desc0);
  impl->vendor = aperio ? "aperio" : philips ? "philips" : "generic-tiff";
  detail::PhilipsInfo phil;
  if (philips) phil = detail::parse_philips(desc0, path);
  struct Candidate {
    Dir dir;
    TiledImage image;
  };
  std::vector<Candidate> cands;
  for (const Dir& d : dirs) {
    const std::string where = "directory " + std::to_string(d.index);
    if (!d.tiled) {
      if (!aperio) continue;
      // Aperio associated images: directory 1 is the thumbnail; others say "label ..." or
      // "macro ..." on the second line of their description.
      std::string name;
      if (d.index == 1) {
        name = "thumbnail";
      } else if (auto nl = d.description.find('\n'); nl != std::string::npos) {
        std::istringstream line(d.description.substr(nl + 1));
        line >> name;
      }
      if (!name.empty() && d.width > 0 && d.height > 0) impl->associated[name] = {d.index, d.width, d.height, {}};
      continue;
    }
    if (philips && d.index != 0 && !(d.subfile & FILETYPE_REDUCEDIMAGE)) continue;
    if (!TIFFSetDirectory(t, d.index)) format_error(path, "cannot read TIFF " + where);
    cands.push_back({d, read_tiled(t, path, impl->file_size, where)});
  }
  if (!subifd_offsets.empty() && dirs[0].tiled) {
    for (std::size_t k = 0; k < subifd_offsets.size(); ++k) {
      const std::string where = "SubIFD " + std::to_string(k);
      diag.first_error.clear();
      if (subifd_offsets[k] >= impl->file_size || !TIFFSetSubDirectory(t, subifd_offsets[k]))
        format_error(path, "cannot read " + where + (diag.first_error.empty() ? "" : ": " + diag.first_error));
      if (!TIFFIsTiled(t)) continue;
      Dir d;
      d.subifd = true;
      d.tiled = true;
      cands.push_back({d, read_tiled(t, path, impl->file_size, where)});
    }
  }
  if (cands.empty()) format_error(path, "no tiled image: not a tiled pyramidal TIFF slide");
  if (!aperio && !dirs[0].tiled) format_error(path, "the first image is not tiled: not a tiled pyramidal TIFF slide");
  std::stable_sort(cands.begin(), cands.end(), [](const Candidate& a, const Candidate& b) { return a.image.width > b.image.width; });
  const double w0 = static_cast<double>(cands[0].image.width), h0 = static_cast<double>(cands[0].image.height);
  for (auto& c : cands) {
    Level l;
    l.width = c.image.width, l.height = c.image.height;
    l.tile_width = c.image.tile_width, l.tile_height = c.image.tile_height;
    l.downsample = (h0 / static_cast<double>(l.height) + w0 / static_cast<double>(l.width)) / 2.0;
    const std::size_t k = impl->levels.size();
    if (philips && phil.level_spacing.size() >= cands.size() && phil.level_spacing[0] > 0 && k > 0) {
      // Philips pads levels to whole tiles: the downsample comes from the pixel spacing, the
      // size from level 0's (as OpenSlide does).
      l.downsample = phil.level_spacing[k] / phil.level_spacing[0];
      if (l.downsample >= 1) {
        l.width = std::min<std::int64_t>(l.width, static_cast<std::int64_t>(w0 / l.downsample));
        l.height = std::min<std::int64_t>(l.height, static_cast<std::int64_t>(h0 / l.downsample));
        c.image.width = std::max<std::int64_t>(l.width, 1), c.image.height = std::max<std::int64_t>(l.height, 1);
        l.width = c.image.width, l.height = c.image.height;
      }
    }
    impl->levels.push_back(l);
    impl->images.push_back(std::move(c.image));
  }

  // OpenSlide's properties.
  props["openslide.vendor"] = impl->vendor;
  props["openslide.level-count"] = std::to_string(impl->levels.size());
  for (std::size_t i = 0; i < impl->levels.size(); ++i) {
    const Level& l = impl->levels[i];
    const std::string p = "openslide.level[" + std::to_string(i) + "].";
    props[p + "width"] = std::to_string(l.width);
    props[p + "height"] = std::to_string(l.height);
    props[p + "downsample"] = format_double(l.downsample);
    props[p + "tile-width"] = std::to_string(l.tile_width);
    props[p + "tile-height"] = std::to_string(l.tile_height);
  }
  if (aperio) {
    // "Aperio Image Library vX \n<size info>|Key = Value|Key = Value..."
    std::size_t start = desc0.find('|');
    while (start != std::string::npos) {
      const std::size_t end = desc0.find('|', start + 1);
      const std::string item = desc0.substr(start + 1, end == std::string::npos ? std::string::npos : end - start - 1);
      if (auto eq = item.find('='); eq != std::string::npos) {
        const std::string key = trim(item.substr(0, eq));
        if (!key.empty()) props["aperio." + key] = trim(item.substr(eq + 1));
      }
      start = end;
    }
    const auto dup_double = [&](const char* from, const char* to) {
      if (auto it = props.find(from); it != props.end()) {
        char* end = nullptr;
        const double v = std::strtod(it->second.c_str(), &end);
        if (end != it->second.c_str() && *end == '\0') props[to] = format_double(v);
      }
    };
    dup_double("aperio.MPP", "openslide.mpp-x");
    dup_double("aperio.MPP", "openslide.mpp-y");
    dup_double("aperio.AppMag", "openslide.objective-power");
  } else if (philips) {
    // OpenSlide leaves the (large) XML out of the properties: its content is the philips.* set.
    props.erase("tiff.ImageDescription");
    props.erase("openslide.comment");
    for (const auto& [k, v] : phil.properties) props[k] = v;
    // DICOM pixel spacing "row" "column" in millimetres.
    if (auto it = props.find("philips.DICOM_PIXEL_SPACING"); it != props.end()) {
      double v[2] = {0, 0};
      if (std::sscanf(it->second.c_str(), " \"%lf\" \"%lf\"", &v[0], &v[1]) == 2 && v[0] > 0 && v[1] > 0) {
        props["openslide.mpp-x"] = format_double(v[1] * 1000.0);
        props["openslide.mpp-y"] = format_double(v[0] * 1000.0);
      }
    }
    for (auto& [name, jpeg] : phil.associated) {
      std::uint32_t w = 0, h = 0;
      if (jpeg_size(jpeg, w, h)) impl->associated[name] = {0, w, h, std::move(jpeg)};
    }
  } else if (resunit == RESUNIT_CENTIMETER && have_x && have_y && xres > 0 && yres > 0) {
    props["openslide.mpp-x"] = format_double(10000.0 / xres);
    props["openslide.mpp-y"] = format_double(10000.0 / yres);
  }
  return Slide(std::move(impl));
}

// ---- accessors -----------------------------------------------------------------------------------------
Slide::Slide(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Slide::Slide(Slide&&) noexcept = default;
Slide& Slide::operator=(Slide&&) noexcept = default;
Slide::~Slide() = default;

const std::string& Slide::path() const { return impl_->path; }
const std::string& Slide::vendor() const { return impl_->vendor; }
int Slide::level_count() const { return static_cast<int>(impl_->levels.size()); }
const std::vector<Level>& Slide::levels() const { return impl_->levels; }
const Level& Slide::level(int index) const {
  if (index < 0 || index >= level_count())
    throw InvalidArgument("wsi.Slide.level: argument 'index' must be in [0, " + std::to_string(level_count()) + "), got " +
                          std::to_string(index));
  return impl_->levels[index];
}
std::array<std::int64_t, 2> Slide::dimensions() const { return {impl_->levels[0].width, impl_->levels[0].height}; }

int Slide::best_level_for_downsample(double downsample) const {
  const auto& l = impl_->levels;
  if (downsample < l[0].downsample) return 0;
  for (std::size_t i = 1; i < l.size(); ++i)
    if (downsample < l[i].downsample) return static_cast<int>(i) - 1;
  return level_count() - 1;
}

const std::map<std::string, std::string>& Slide::properties() const { return impl_->properties; }
std::optional<std::string> Slide::property(const std::string& name) const {
  auto it = impl_->properties.find(name);
  if (it == impl_->properties.end()) return std::nullopt;
  return it->second;
}

std::vector<std::string> Slide::associated_image_names() const {
  std::vector<std::string> names;
  for (const auto& [name, a] : impl_->associated) names.push_back(name);
  return names;
}

Array Slide::read_associated_image(const std::string& name, const ReadOptions& options, const Stream& stream) const {
  auto it = impl_->associated.find(name);
  if (it == impl_->associated.end()) {
    std::string known;
    for (const auto& n : associated_image_names()) known += (known.empty() ? "" : ", ") + n;
    throw InvalidArgument("wsi.Slide.read_associated_image: argument 'name' must be one of {" + known + "}, got '" + name + "'");
  }
  const auto& a = it->second;
  const std::uint64_t px = std::uint64_t(a.width) * a.height;
  if (static_cast<double>(px) * 4 > static_cast<double>(impl_->file_size) * 4096.0 + 65536.0)
    format_error(impl_->path, "associated image '" + name + "' is absurdly large for the file");
  const int ch = options.rgba ? 4 : 3;
  if (!a.jpeg.empty()) {  // Philips: JPEG from the XML, decoded as libjpeg's defaults (as OpenSlide)
    Array out = Array::empty({a.height, a.width, ch}, DType::uint8);
    tjhandle t = tjInitDecompress();
    const int rc = t ? tjDecompress2(t, a.jpeg.data(), static_cast<unsigned long>(a.jpeg.size()), static_cast<unsigned char*>(out.data()),
                                     static_cast<int>(a.width), 0, static_cast<int>(a.height), ch == 4 ? TJPF_RGBA : TJPF_RGB, 0)
                     : -1;
    const bool warning = t && rc != 0 && tjGetErrorCode(t) == TJERR_WARNING;
    if (t) tjDestroy(t);
    if (rc != 0 && !warning) format_error(impl_->path, "cannot decode associated image '" + name + "'");
    if (options.device.is_cpu()) return out;
    return out.to(options.device, stream);
  }
  // Decoded by libtiff's RGBA interface, as OpenSlide does (these images are small, read once).
  Diagnostics diag;
  TiffPtr tp = open_tiff(impl_->path, diag);
  if (!tp || !TIFFSetDirectory(tp.get(), a.dir)) format_error(impl_->path, "cannot read associated image '" + name + "'");
  std::vector<std::uint32_t> raster(px);
  if (!TIFFReadRGBAImageOriented(tp.get(), a.width, a.height, raster.data(), ORIENTATION_TOPLEFT, 0))
    format_error(impl_->path, "cannot decode associated image '" + name + "': " + diag.first_error);
  Array out = Array::empty({a.height, a.width, ch}, DType::uint8);
  auto* o = static_cast<unsigned char*>(out.data());
  for (std::uint64_t i = 0; i < px; ++i, o += ch) {
    const std::uint32_t p = raster[i];
    o[0] = static_cast<unsigned char>(TIFFGetR(p));
    o[1] = static_cast<unsigned char>(TIFFGetG(p));
    o[2] = static_cast<unsigned char>(TIFFGetB(p));
    if (ch == 4) o[3] = static_cast<unsigned char>(TIFFGetA(p));
  }
  if (options.device.is_cpu()) return out;
  return out.to(options.device, stream);
}

CacheStats Slide::cache_stats() const { return impl_->cache.stats(); }
DeviceDecodeStats Slide::device_decode_stats() const {
  return {impl_->gpu_tiles.load(), impl_->host_tiles.load(), impl_->gpu_exact_tiles.load()};
}

std::string gpu_jpeg_decoder(const Device& device) {
  if (!device.is_cuda()) return "none: " + device.str() + " is not a CUDA device";
  return detail::gpu_jpeg_decoder_info(device.index());
}
void Slide::set_cache_capacity(std::size_t bytes) const { impl_->cache.set_capacity(bytes); }

// ---- reading regions --------------------------------------------------------------------------------------
namespace {

/// Level-pixel origin of a region (OpenSlide divides the level-0 location by the downsample; we
/// round down to the level's grid, see wsi.hpp).
std::int64_t level_coord(std::int64_t v, double ds) {
  if (ds == 1.0) return v;
  return static_cast<std::int64_t>(std::floor(static_cast<double>(v) / ds));
}

void check_output(const Region& r, const Array& out, const char* fn) {
  const bool ok = out.device().is_cpu() && out.dtype() == DType::uint8 && out.ndim() == 3 && out.shape(0) == r.height &&
                  out.shape(1) == r.width && (out.shape(2) == 3 || out.shape(2) == 4) && out.strides()[2] == 1 &&
                  out.strides()[1] == out.shape(2);
  if (!ok)
    throw InvalidArgument(std::string(fn) + ": argument 'out' must be a host uint8 array of shape (" + std::to_string(r.height) +
                          ", " + std::to_string(r.width) + ", 3|4) with contiguous pixels, got " + out.str());
}

}  // namespace

/// Plans the tiles of one region into `jobs`; fills the output's background first when part of it
/// has no tile data (outside the level, missing tiles).
static void plan_region(const Slide::Impl& s, const Region& r, Array& out, const ReadOptions& opt,
                        std::vector<TileJob>& jobs) {
  const TiledImage& t = s.images[r.level];
  const double ds = s.levels[r.level].downsample;
  const std::int64_t lx = level_coord(r.x, ds), ly = level_coord(r.y, ds);
  const std::int64_t x0 = std::max<std::int64_t>(lx, 0), y0 = std::max<std::int64_t>(ly, 0);
  const std::int64_t x1 = std::min(lx + r.width, t.width), y1 = std::min(ly + r.height, t.height);
  bool fill = !(lx >= 0 && ly >= 0 && lx + r.width <= t.width && ly + r.height <= t.height);
  const std::size_t first = jobs.size();
  if (x0 < x1 && y0 < y1) {
    for (std::int64_t ty = y0 / t.tile_height; ty <= (y1 - 1) / t.tile_height; ++ty)
      for (std::int64_t tx = x0 / t.tile_width; tx <= (x1 - 1) / t.tile_width; ++tx) {
        if (t.byte_counts[static_cast<std::size_t>(ty * t.tiles_across + tx)] == 0) {
          fill = true;  // a missing tile: transparent in OpenSlide
          continue;
        }
        jobs.push_back({&out, r.level, tx, ty, lx, ly});
      }
  }
  (void)first;
  if (fill) {
    const int ch = static_cast<int>(out.shape(2));
    const std::ptrdiff_t stride = out.strides()[0];
    auto* base = static_cast<unsigned char*>(out.data());
    for (std::int64_t y = 0; y < r.height; ++y) {
      unsigned char* row = base + y * stride;
      if (ch == 4) {
        std::memset(row, 0, static_cast<std::size_t>(r.width) * 4);
      } else {
        for (std::int64_t x = 0; x < r.width; ++x)
          row[3 * x] = opt.background[0], row[3 * x + 1] = opt.background[1], row[3 * x + 2] = opt.background[2];
      }
    }
  }
}

/// The tile's part inside the region and the level: [ax, bx) x [ay, by) in level pixels; whether
/// that is the whole tile.
struct Span {
  std::int64_t px, py, ax, ay, bx, by;
  bool whole;
};
static Span job_span(const TiledImage& t, std::int64_t tx, std::int64_t ty, std::int64_t ox, std::int64_t oy, const Region& r) {
  Span p;
  p.px = tx * t.tile_width, p.py = ty * t.tile_height;
  p.ax = std::max(p.px, ox), p.ay = std::max(p.py, oy);
  p.bx = std::min({p.px + t.tile_width, ox + r.width, t.width});
  p.by = std::min({p.py + t.tile_height, oy + r.height, t.height});
  p.whole = p.ax == p.px && p.ay == p.py && p.bx == p.px + t.tile_width && p.by == p.py + t.tile_height;
  return p;
}

/// Marks the jobs whose tile other jobs of the batch also need in part (decoded once, cached).
static void mark_shared(const Slide::Impl& s, std::vector<TileJob>& jobs, const std::vector<Region>& regions,
                        const std::vector<std::size_t>& owner) {
  std::unordered_map<std::uint64_t, int> uses;
  std::vector<std::uint64_t> keys(jobs.size(), ~std::uint64_t(0));
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const TileJob& j = jobs[k];
    const TiledImage& t = s.images[j.level];
    if (job_span(t, j.tx, j.ty, j.ox, j.oy, regions[owner[k]]).whole) continue;
    keys[k] = tile_key(j.level, static_cast<std::uint64_t>(j.ty * t.tiles_across + j.tx));
    ++uses[keys[k]];
  }
  for (std::size_t k = 0; k < jobs.size(); ++k)
    if (keys[k] != ~std::uint64_t(0) && uses[keys[k]] > 1) jobs[k].shared = true;
}

/// Decodes one tile's part of a region into the output.
static void run_job(const Slide::Impl& s, const TileJob& j, const Region& r) {
  const TiledImage& t = s.images[j.level];
  Array& out = *j.out;
  const int ch = static_cast<int>(out.shape(2));
  const std::ptrdiff_t stride = out.strides()[0];
  auto* base = static_cast<unsigned char*>(out.data());
  const Span sp = job_span(t, j.tx, j.ty, j.ox, j.oy, r);
  const std::int64_t px = sp.px, py = sp.py, ax = sp.ax, ay = sp.ay, bx = sp.bx, by = sp.by;
  const std::uint64_t index = static_cast<std::uint64_t>(j.ty * t.tiles_across + j.tx);
  if (sp.whole) {
    // Straight into the output, unless the cache already holds it.
    if (auto hit = s.cache.get(tile_key(j.level, index)); !hit) {
      thread_local std::vector<unsigned char> raw;
      s.fetch(t, index, raw);
      detail::decode_tile(t, raw.data(), raw.size(), base + (py - j.oy) * stride + (px - j.ox) * ch, stride, ch, s.path);
      return;
    } else {
      for (std::int64_t y = 0; y < t.tile_height; ++y) {
        const unsigned char* src = hit->data() + y * t.tile_width * 3;
        unsigned char* dst = base + (py - j.oy + y) * stride + (px - j.ox) * ch;
        if (ch == 3) {
          std::memcpy(dst, src, static_cast<std::size_t>(t.tile_width) * 3);
        } else {
          for (std::int64_t x = 0; x < t.tile_width; ++x)
            dst[4 * x] = src[3 * x], dst[4 * x + 1] = src[3 * x + 1], dst[4 * x + 2] = src[3 * x + 2], dst[4 * x + 3] = 255;
        }
      }
      return;
    }
  }
  // Part of a tile: from the cache when it holds the tile. Otherwise JPEG decodes only the part
  // (uncached: the cache keeps whole tiles) unless the tile is being reused -- other regions of
  // this batch need it, or a recent read needed it (TileCache::admit) -- then it is decoded whole
  // and cached, so overlapping reads decode each tile about once.
  const std::uint64_t key = tile_key(j.level, index);
  auto tile = s.cache.get(key);
  if (!tile) {
    const bool partial = detail::partial_decode_pays(t) &&
                         !((j.shared && s.cache.capacity() >= detail::tile_bytes(t, 3)) ||
                           s.cache.admit(key, detail::tile_bytes(t, 3)));
    if (partial) {
      thread_local std::vector<unsigned char> raw;
      s.fetch(t, index, raw);
      detail::decode_tile_part(t, raw.data(), raw.size(), ax - px, ay - py, bx - px, by - py,
                               base + (ay - j.oy) * stride + (ax - j.ox) * ch, stride, ch, s.path);
      return;
    }
    tile = s.decode_and_cache(j.level, index);
  }
  const std::int64_t w = bx - ax;
  for (std::int64_t y = ay; y < by; ++y) {
    const unsigned char* src = tile->data() + ((y - py) * t.tile_width + (ax - px)) * 3;
    unsigned char* dst = base + (y - j.oy) * stride + (ax - j.ox) * ch;
    if (ch == 3) {
      std::memcpy(dst, src, static_cast<std::size_t>(w) * 3);
    } else {
      for (std::int64_t x = 0; x < w; ++x)
        dst[4 * x] = src[3 * x], dst[4 * x + 1] = src[3 * x + 1], dst[4 * x + 2] = src[3 * x + 2], dst[4 * x + 3] = 255;
    }
  }
}

namespace detail {

struct SlideAccess {
  static const Slide::Impl& impl(const Slide& s) { return *s.impl_; }
};

JpegPlanes tile_planes_for_testing(const Slide& slide, int level, std::uint64_t tile) {
  const Slide::Impl& s = SlideAccess::impl(slide);
  const TiledImage& t = s.images.at(static_cast<std::size_t>(level));
  std::vector<unsigned char> raw;
  s.fetch(t, tile, raw);
  JpegPlanes planes;
  decode_tile_planes(t, raw.data(), raw.size(), planes, s.path);
  return planes;
}

std::vector<unsigned char> tile_raw_for_testing(const Slide& slide, int level, std::uint64_t tile, std::vector<unsigned char>& tables) {
  const Slide::Impl& s = SlideAccess::impl(slide);
  const TiledImage& t = s.images.at(static_cast<std::size_t>(level));
  std::vector<unsigned char> raw;
  s.fetch(t, tile, raw);
  tables = t.jpeg_tables;
  return raw;
}

std::vector<unsigned char> tile_stream_for_testing(const Slide& slide, int level, std::uint64_t tile) {
  TiledImage tables;  // merge_jpeg_tables reads only the tables
  const std::vector<unsigned char> raw = tile_raw_for_testing(slide, level, tile, tables.jpeg_tables);
  return merge_jpeg_tables(tables, raw);
}

Array read_region_simple_upsampling_for_testing(const Slide& slide, const Region& r) {
  const Slide::Impl& s = SlideAccess::impl(slide);
  const TiledImage& t = s.images.at(static_cast<std::size_t>(r.level));
  Array out = Array::zeros({r.height, r.width, 3}, DType::uint8);
  auto* base = static_cast<unsigned char*>(out.data());
  const double ds = s.levels[static_cast<std::size_t>(r.level)].downsample;
  const std::int64_t lx = level_coord(r.x, ds), ly = level_coord(r.y, ds);
  const std::int64_t x0 = std::max<std::int64_t>(lx, 0), y0 = std::max<std::int64_t>(ly, 0);
  const std::int64_t x1 = std::min(lx + r.width, t.width), y1 = std::min(ly + r.height, t.height);
  std::vector<unsigned char> raw, tile(tile_bytes(t, 3));
  if (x0 < x1 && y0 < y1)
    for (std::int64_t ty = y0 / t.tile_height; ty <= (y1 - 1) / t.tile_height; ++ty)
      for (std::int64_t tx = x0 / t.tile_width; tx <= (x1 - 1) / t.tile_width; ++tx) {
        const auto index = static_cast<std::uint64_t>(ty * t.tiles_across + tx);
        if (t.byte_counts[index] == 0) continue;
        const Span sp = job_span(t, tx, ty, lx, ly, r);
        s.fetch(t, index, raw);
        decode_tile_simple_upsampling(t, raw.data(), raw.size(), tile.data(), t.tile_width * 3, s.path);
        for (std::int64_t y = sp.ay; y < sp.by; ++y)
          std::memcpy(base + ((y - ly) * r.width + (sp.ax - lx)) * 3,
                      tile.data() + ((y - sp.py) * t.tile_width + (sp.ax - sp.px)) * 3, static_cast<std::size_t>(sp.bx - sp.ax) * 3);
      }
  return out;
}

}  // namespace detail

#if CUSK_HAVE_NVJPEG
/// Whether nvJPEG can serve these reads (YCbCr JPEG levels, RGB output, a one-byte background).
static bool nvjpeg_eligible(const Slide::Impl& s, const std::vector<Region>& rs, const ReadOptions& o) {
  if (!o.device.is_cuda() || !o.nvjpeg || o.rgba) return false;
  if (o.background[0] != o.background[1] || o.background[1] != o.background[2]) return false;
  for (const Region& r : rs) {
    const TiledImage& t = s.images[r.level];
    if (t.compression != detail::kJpeg || t.photometric != PHOTOMETRIC_YCBCR) return false;
  }
  return true;
}

/// Device reads through nvJPEG (src/wsi/nvjpeg_decode.cpp): plans each region's tile parts, groups
/// the parts by tile (a tile that several regions need is decoded once: one unit of work with all
/// its parts), then decodes with the GPU and, with `hybrid`, the host workers alongside.
static std::vector<Array> nvjpeg_read(const Slide::Impl& s, const std::vector<Region>& rs, const ReadOptions& o,
                                      const Stream& stream) {
  cuskimage::detail::DeviceGuard guard(o.device.index());
  cudaStream_t cs = stream.handle();
  std::vector<Array> outs;
  outs.reserve(rs.size());
  std::vector<detail::DevicePart> planned;
  for (const Region& r : rs) {
    const TiledImage& t = s.images[r.level];
    const double ds = s.levels[r.level].downsample;
    outs.push_back(Array::empty({r.height, r.width, 3}, DType::uint8, o.device, stream));
    auto* base = static_cast<unsigned char*>(outs.back().data());
    const std::size_t pitch = static_cast<std::size_t>(r.width) * 3;
    const std::int64_t lx = level_coord(r.x, ds), ly = level_coord(r.y, ds);
    const std::int64_t x0 = std::max<std::int64_t>(lx, 0), y0 = std::max<std::int64_t>(ly, 0);
    const std::int64_t x1 = std::min(lx + r.width, t.width), y1 = std::min(ly + r.height, t.height);
    bool fill = !(lx >= 0 && ly >= 0 && lx + r.width <= t.width && ly + r.height <= t.height);
    if (x0 < x1 && y0 < y1)
      for (std::int64_t ty = y0 / t.tile_height; ty <= (y1 - 1) / t.tile_height; ++ty)
        for (std::int64_t tx = x0 / t.tile_width; tx <= (x1 - 1) / t.tile_width; ++tx) {
          const auto index = static_cast<std::uint64_t>(ty * t.tiles_across + tx);
          if (t.byte_counts[index] == 0) {
            fill = true;
            continue;
          }
          const Span sp = job_span(t, tx, ty, lx, ly, r);
          planned.push_back({&t, index, sp.ax - sp.px, sp.ay - sp.py, sp.bx - sp.px, sp.by - sp.py,
                             base + (sp.ay - ly) * static_cast<std::int64_t>(pitch) + (sp.ax - lx) * 3, pitch});
        }
    if (fill) CUSK_CUDA_CHECK(cudaMemsetAsync(base, o.background[0], outs.back().nbytes(), cs));
  }
  // One unit per tile (parts in plan order within it).
  std::vector<std::size_t> by_tile(planned.size());
  std::iota(by_tile.begin(), by_tile.end(), std::size_t(0));
  std::stable_sort(by_tile.begin(), by_tile.end(), [&](std::size_t a, std::size_t b) {
    const auto& pa = planned[a];
    const auto& pb = planned[b];
    return pa.image != pb.image ? std::less<const TiledImage*>()(pa.image, pb.image) : pa.index < pb.index;
  });
  std::vector<detail::DevicePart> parts;
  parts.reserve(planned.size());
  std::vector<detail::DeviceUnit> units;
  for (std::size_t k = 0; k < by_tile.size(); ++k) {
    const detail::DevicePart& p = planned[by_tile[k]];
    if (k == 0 || p.image != parts.back().image || p.index != parts.back().index) units.push_back({parts.size(), 0, 1.0});
    parts.push_back(p);
    ++units.back().count;
  }
  for (detail::DeviceUnit& u : units) {
    const detail::DevicePart& p = parts[u.first];
    u.host_cost = u.count > 1 ? 1.0 : detail::host_decode_cost(*p.image, p.x0, p.y0, p.x1, p.y1);
  }
  // With hybrid, the host decodes on all but one of the workers' cores, and from 12 cores on all but
  // five: with stacked tiles NVJPG outruns the host decoders, and its feeders (pread, stacking,
  // nvJPEG's own host work) need the cores more than a few more host workers do (H200 host, 16
  // cores, stacks of 6-8: 10 host workers 67-86 k tiles/s, 15 of them 57-79 k). CUSK_WSI_HOST_WORKERS
  // overrides it.
  int workers = o.workers > 0 ? o.workers : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int feeders = o.hybrid ? (workers >= 6 ? 2 : 1) : std::min(2, workers);
  const int host = o.hybrid ? std::max(0, workers - (workers >= 12 ? 5 : 1)) : 0;
  const auto fetch = [&s](const TiledImage& t, std::uint64_t index, std::vector<unsigned char>& buf) { s.fetch(t, index, buf); };
  const auto counts = detail::device_decode(o.device.index(), parts, units, feeders, host, fetch, s.path, cs);
  s.gpu_tiles += counts.gpu;
  s.host_tiles += counts.host;
  s.gpu_exact_tiles += counts.gpu_exact;
  return outs;
}
#endif

void Slide::read_region_into(const Region& region, Array& out, const ReadOptions& options) const {
  check_region(*this, region, "wsi.Slide.read_region");
  check_output(region, out, "wsi.Slide.read_region_into");
  std::vector<TileJob> jobs;
  plan_region(*impl_, region, out, options, jobs);
  detail::parallel_for(jobs.size(), options.workers, [&](std::size_t i) { run_job(*impl_, jobs[i], region); });
}

Array Slide::read_region(const Region& region, const ReadOptions& options, const Stream& stream) const {
  check_region(*this, region, "wsi.Slide.read_region");
  if (!options.device.is_cpu()) return std::move(read_regions({region}, options, stream)[0]);
  Array out = Array::empty({region.height, region.width, options.rgba ? 4 : 3}, DType::uint8);
  read_region_into(region, out, options);
  return out;
}

Array Slide::read_region(std::int64_t x, std::int64_t y, int level, std::int64_t width, std::int64_t height,
                         const ReadOptions& options, const Stream& stream) const {
  return read_region(Region{x, y, level, width, height}, options, stream);
}

std::vector<Array> Slide::read_regions(const std::vector<Region>& regions, const ReadOptions& options,
                                       const Stream& stream) const {
  for (const Region& r : regions) check_region(*this, r, "wsi.Slide.read_regions");
#if CUSK_HAVE_NVJPEG
  if (nvjpeg_eligible(*impl_, regions, options)) {
    try {
      return nvjpeg_read(*impl_, regions, options, stream);
    } catch (const Error&) {  // a stream nvJPEG rejects: the host decoder decides (or raises)
    }
  }
#endif
  std::vector<Array> outs;
  outs.reserve(regions.size());
  std::vector<TileJob> jobs;
  std::vector<std::size_t> owner;
  for (std::size_t i = 0; i < regions.size(); ++i) {
    outs.push_back(Array::empty({regions[i].height, regions[i].width, options.rgba ? 4 : 3}, DType::uint8));
    const std::size_t before = jobs.size();
    plan_region(*impl_, regions[i], outs.back(), options, jobs);
    owner.resize(jobs.size(), i);
    (void)before;
  }
  mark_shared(*impl_, jobs, regions, owner);
  detail::parallel_for(jobs.size(), options.workers, [&](std::size_t k) { run_job(*impl_, jobs[k], regions[owner[k]]); });
  if (!options.device.is_cpu()) {
    impl_->host_tiles += jobs.size();
    for (auto& o : outs) o = o.to(options.device, stream);
  }
  return outs;
}

}  // namespace cuskimage::wsi
