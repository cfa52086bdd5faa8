// wsi::Slide's reads: the accessors, stage 2 (pread the raw tile bytes; the fd is shared, pread
// needs no lock) and the region assembly that drives stage 3 (decode_tile, straight into the
// output when a tile lies wholly inside it). Stage 1, parsing the TIFF directories once with
// libtiff, is src/wsi/slide_open.cpp.
#include <tiffio.h>
#include <turbojpeg.h>

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
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "src/io/tiff_handle.hpp"
#include "src/wsi/slide_impl.hpp"
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
/// The tile cache's key of a job's tile.
static std::uint64_t job_tile_key(const Slide::Impl& s, const TileJob& j) {
  return tile_key(j.level, static_cast<std::uint64_t>(j.ty * s.images[j.level].tiles_across + j.tx));
}

static void mark_shared(const Slide::Impl& s, std::vector<TileJob>& jobs, const std::vector<Region>& regions,
                        const std::vector<std::size_t>& owner) {
  std::unordered_map<std::uint64_t, int> uses;
  std::vector<std::uint64_t> keys(jobs.size(), ~std::uint64_t(0));
  for (std::size_t k = 0; k < jobs.size(); ++k) {
    const TileJob& j = jobs[k];
    const TiledImage& t = s.images[j.level];
    if (job_span(t, j.tx, j.ty, j.ox, j.oy, regions[owner[k]]).whole) continue;
    keys[k] = job_tile_key(s, j);
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
  // cores, stacks of 6-8: 10 host workers 67-86 k tiles/s, 15 of them 57-79 k).
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
    plan_region(*impl_, regions[i], outs.back(), options, jobs);
    owner.resize(jobs.size(), i);
  }
  mark_shared(*impl_, jobs, regions, owner);
  detail::parallel_for(jobs.size(), options.workers, [&](std::size_t k) { run_job(*impl_, jobs[k], regions[owner[k]]); });
  if (!options.device.is_cpu()) {
    // Tiles, not jobs: a tile several regions share is one decode, as on the nvJPEG path.
    std::unordered_set<std::uint64_t> tiles;
    for (const TileJob& j : jobs) tiles.insert(job_tile_key(*impl_, j));
    impl_->host_tiles += tiles.size();
    for (auto& o : outs) o = o.to(options.device, stream);
  }
  return outs;
}

}  // namespace cuskimage::wsi
