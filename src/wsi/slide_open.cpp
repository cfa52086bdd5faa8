// wsi::Slide::open, stage 1: the TIFF directories parsed once with libtiff into the levels' tile
// tables, OpenSlide's properties (tiff.*, openslide.*, and the vendor's: Aperio's description
// fields, Philips' XML) and the associated images.
#include <fcntl.h>
#include <sys/stat.h>
#include <tiffio.h>
#include <turbojpeg.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "src/io/tiff_handle.hpp"
#include "src/wsi/slide_impl.hpp"
#include "src/wsi/wsi_detail.hpp"

namespace cuskimage::wsi {

using detail::format_error;
using detail::TiledImage;

namespace {

using Diagnostics = io::detail::TiffDiagnostics;
using io::detail::TiffPtr;

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

/// The directory chain and directory 0's SubIFDs.
struct DirWalk {
  std::vector<Dir> dirs;
  std::vector<std::uint64_t> subifd_offsets;
};

/// Directory 0's resolution tags (the generic vendor's microns per pixel).
struct Resolution {
  float xres = 0, yres = 0;
  std::uint16_t resunit = RESUNIT_INCH;
  bool have_x = false, have_y = false;
};

/// The vendor as directory 0 names it.
struct Vendor {
  bool aperio = false, philips = false;
  detail::PhilipsInfo phil;
};

/// The file's size and a descriptor for the tile reads (pread: shared, no lock).
void open_file(Slide::Impl& impl) {
  const std::string& path = impl.path;
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) format_error(path, std::string("cannot open: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) format_error(path, "not a regular file");
  impl.file_size = static_cast<std::uint64_t>(st.st_size);
  impl.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (impl.fd < 0) format_error(path, std::string("cannot open: ") + std::strerror(errno));
}

/// The directory chain (libtiff rejects IFD loops; the count bounds the walk).
DirWalk walk_directories(TIFF* t, const Slide::Impl& impl, Diagnostics& diag) {
  const std::string& path = impl.path;
  DirWalk w;
  std::vector<Dir>& dirs = w.dirs;
  std::vector<std::uint64_t>& subifd_offsets = w.subifd_offsets;
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
  if (const std::uint64_t next = next_ifd_offset(impl.fd, TIFFIsBigEndian(t) != 0, TIFFIsBigTIFF(t) != 0, dirs.back().offset,
                                                 impl.file_size);
      next != 0) {
    const bool loop = std::any_of(dirs.begin(), dirs.end(), [&](const Dir& d) { return d.offset == next; });
    format_error(path, loop ? "TIFF directory loop (IFD " + std::to_string(dirs.size() - 1) + " links back)"
                            : "TIFF directory " + std::to_string(dirs.size() - 1) + " links to an unreadable directory");
  }
  return w;
}

/// Directory 0's tags as OpenSlide's tiff.* set.
Resolution tiff_properties(TIFF* t, const std::string& path, std::map<std::string, std::string>& props) {
  Resolution r;
  if (!TIFFSetDirectory(t, 0)) format_error(path, "cannot re-read TIFF directory 0");
  const std::pair<ttag_t, const char*> string_tags[] = {
      {TIFFTAG_IMAGEDESCRIPTION, "ImageDescription"}, {TIFFTAG_MAKE, "Make"}, {TIFFTAG_MODEL, "Model"},
      {TIFFTAG_SOFTWARE, "Software"}, {TIFFTAG_DATETIME, "DateTime"}, {TIFFTAG_ARTIST, "Artist"},
      {TIFFTAG_HOSTCOMPUTER, "HostComputer"}, {TIFFTAG_COPYRIGHT, "Copyright"}, {TIFFTAG_DOCUMENTNAME, "DocumentName"}};
  for (const auto& [tag, name] : string_tags)
    if (const char* s = nullptr; TIFFGetField(t, tag, &s) && s) props[std::string("tiff.") + name] = s;
  r.have_x = TIFFGetField(t, TIFFTAG_XRESOLUTION, &r.xres) != 0;
  r.have_y = TIFFGetField(t, TIFFTAG_YRESOLUTION, &r.yres) != 0;
  if (r.have_x) props["tiff.XResolution"] = format_double(r.xres);
  if (r.have_y) props["tiff.YResolution"] = format_double(r.yres);
  if (TIFFGetFieldDefaulted(t, TIFFTAG_RESOLUTIONUNIT, &r.resunit))
    props["tiff.ResolutionUnit"] = r.resunit == RESUNIT_CENTIMETER ? "centimeter" : r.resunit == RESUNIT_INCH ? "inch" : "none";
  if (props.count("tiff.ImageDescription")) props["openslide.comment"] = props["tiff.ImageDescription"];
  return r;
}

/// The levels: every tiled directory the vendor counts (and directory 0's tiled SubIFDs), widest
/// first, with OpenSlide's downsamples; Aperio's untiled directories become associated images.
void collect_levels(TIFF* t, Slide::Impl& impl, const DirWalk& walk, const Vendor& v, Diagnostics& diag) {
  const std::string& path = impl.path;
  const std::vector<Dir>& dirs = walk.dirs;
  const std::vector<std::uint64_t>& subifd_offsets = walk.subifd_offsets;
  const bool aperio = v.aperio, philips = v.philips;
  const detail::PhilipsInfo& phil = v.phil;
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
      if (!name.empty() && d.width > 0 && d.height > 0) impl.associated[name] = {d.index, d.width, d.height, {}};
      continue;
    }
    if (philips && d.index != 0 && !(d.subfile & FILETYPE_REDUCEDIMAGE)) continue;
    if (!TIFFSetDirectory(t, d.index)) format_error(path, "cannot read TIFF " + where);
    cands.push_back({d, read_tiled(t, path, impl.file_size, where)});
  }
  if (!subifd_offsets.empty() && dirs[0].tiled) {
    for (std::size_t k = 0; k < subifd_offsets.size(); ++k) {
      const std::string where = "SubIFD " + std::to_string(k);
      diag.first_error.clear();
      if (subifd_offsets[k] >= impl.file_size || !TIFFSetSubDirectory(t, subifd_offsets[k]))
        format_error(path, "cannot read " + where + (diag.first_error.empty() ? "" : ": " + diag.first_error));
      if (!TIFFIsTiled(t)) continue;
      Dir d;
      d.subifd = true;
      d.tiled = true;
      cands.push_back({d, read_tiled(t, path, impl.file_size, where)});
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
    const std::size_t k = impl.levels.size();
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
    impl.levels.push_back(l);
    impl.images.push_back(std::move(c.image));
  }
}

/// OpenSlide's openslide.* properties and the vendor's own (Aperio's description fields, Philips'
/// XML, or the generic resolution tags).
void openslide_properties(Slide::Impl& impl, const std::string& desc0, Vendor& vendor, const Resolution& r) {
  auto& props = impl.properties;
  const bool aperio = vendor.aperio, philips = vendor.philips;
  detail::PhilipsInfo& phil = vendor.phil;
  const float xres = r.xres, yres = r.yres;
  const std::uint16_t resunit = r.resunit;
  const bool have_x = r.have_x, have_y = r.have_y;
  props["openslide.vendor"] = impl.vendor;
  props["openslide.level-count"] = std::to_string(impl.levels.size());
  for (std::size_t i = 0; i < impl.levels.size(); ++i) {
    const Level& l = impl.levels[i];
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
      if (jpeg_size(jpeg, w, h)) impl.associated[name] = {0, w, h, std::move(jpeg)};
    }
  } else if (resunit == RESUNIT_CENTIMETER && have_x && have_y && xres > 0 && yres > 0) {
    props["openslide.mpp-x"] = format_double(10000.0 / xres);
    props["openslide.mpp-y"] = format_double(10000.0 / yres);
  }
}

}  // namespace

Slide Slide::open(const std::string& path, const OpenOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->cache.set_capacity(options.cache_bytes);
  open_file(*impl);
  Diagnostics diag;
  TiffPtr tp = open_tiff(path, diag);
  if (!tp) format_error(path, "not a readable TIFF: " + (diag.first_error.empty() ? std::string("libtiff error") : diag.first_error));
  TIFF* t = tp.get();
  const DirWalk walk = walk_directories(t, *impl, diag);
  const Resolution res = tiff_properties(t, path, impl->properties);
  auto& props = impl->properties;
  const std::string& desc0 = walk.dirs[0].description;
  Vendor v;
  v.aperio = desc0.rfind("Aperio", 0) == 0;
  v.philips = !v.aperio && detail::is_philips(props.count("tiff.Software") ? props["tiff.Software"] : "", desc0);
  impl->vendor = v.aperio ? "aperio" : v.philips ? "philips" : "generic-tiff";
  if (v.philips) v.phil = detail::parse_philips(desc0, path);
  collect_levels(t, *impl, walk, v, diag);
  openslide_properties(*impl, desc0, v, res);
  return Slide(std::move(impl));
}

}  // namespace cuskimage::wsi
