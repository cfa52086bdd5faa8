// Whole-slide images: read tiled pyramidal TIFF slides (Aperio SVS, generic tiled TIFF, BigTIFF,
// SubIFD pyramids as OME-TIFF and libvips write them) into host or device memory, and write them.
//
// Slide::open parses the TIFF directories once (libtiff), then every read fetches the raw tile bytes
// it needs with pread and decodes them in parallel straight into the output: JPEG (abbreviated
// streams with JPEGTables; YCbCr 4:2:0/4:2:2/4:4:4; Aperio RGB JPEG without colour transform) with
// libjpeg-turbo, Deflate, LZW, none, and when built with them zstd, WebP and Aperio JPEG 2000
// (33003 YCbCr, 33005 RGB) with OpenJPEG. A JPEG tile needed only in part (an unaligned region's
// edge) decodes only that part: libjpeg-turbo crops the columns and skips the rows above it (still
// entropy-decoded) and stops after the rows below, bit-identical to a full decode. Decoded tiles go
// through an LRU cache with a byte budget: tiles needed whole are decoded straight into the output
// (uncached unless already cached), tiles needed in part are cached whole only when they are being
// reused (needed by several regions of one read_regions, or needed again while the cache could
// have kept them), and decoded in part otherwise.
// A Slide is immutable after open: any number of threads may read one Slide at once.
//
// Compatibility with OpenSlide 3.4 (the reference; tests compare against libopenslide):
//   * levels, their dimensions, downsamples and tile sizes, and the property names and values
//     (openslide.vendor, openslide.mpp-x/y, openslide.objective-power, openslide.level[N].*,
//     openslide.comment, aperio.*, tiff.*) are OpenSlide's;
//   * read_region takes its location in level-0 pixels; pixels of JPEG, Deflate, LZW and
//     uncompressed slides are bit-identical to OpenSlide's whenever the location divided by the
//     level's downsample is a whole number (always at level 0). Elsewhere OpenSlide resamples the
//     level by the fractional offset (cairo, bilinear); here the location is rounded down to the
//     level's pixel grid instead (no resampling): pixels are the stored ones, shifted by < 1 pixel;
//   * outside the level OpenSlide returns transparent pixels (premultiplied ARGB 0,0,0,0): RGBA
//     output gives (0, 0, 0, 0) there, RGB output (0, 0, 0) -- OpenSlide's colour values with the
//     alpha dropped -- unless ReadOptions::background is set. Missing tiles (byte count 0) get
//     the same fill (OpenSlide 4's behaviour; OpenSlide 3.4 fails such reads);
//   * not reproduced: OpenSlide 3.4's openslide.quickhash-1, and its garbage for non-JPEG levels
//     smaller than one tile (libtiff's RGBA reader there); generic TIFFs with a resolution in
//     pixels per centimetre also get openslide.mpp-x/y (as OpenSlide 4 gives).
// Philips TIFF: philips.* properties from the DPUfsImport XML (the WSI image's attributes at top
// level, sequences as NAME[i].CHILD), mpp from DICOM_PIXEL_SPACING, downsamples from the pixel-data
// representations, base64 JPEG label/macro images; sparse (byte count 0) tiles are missing tiles.
// Not read (FormatError names them): stripped (untiled) levels, non-TIFF formats. Malformed files (truncated, offsets past the end, absurd sizes,
// a photometric tag that contradicts the data, zero byte counts in required data, IFD loops) raise
// FormatError; allocation sizes are bounded by the file's size.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/device.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::wsi {

namespace detail {
struct SlideAccess;  // the library's internals (src/wsi)
}

/// One pyramid level, as OpenSlide describes it.
struct Level {
  std::int64_t width = 0, height = 0;
  /// OpenSlide's: the mean of level-0 width / width and level-0 height / height.
  double downsample = 1.0;
  std::int64_t tile_width = 0, tile_height = 0;
};

/// A region to read: location in level-0 pixels, size in pixels of `level`.
struct Region {
  std::int64_t x = 0, y = 0;
  int level = 0;
  std::int64_t width = 0, height = 0;
};

struct OpenOptions {
  /// Byte budget of the decoded-tile LRU cache shared by all readers of the Slide (0 disables it).
  std::size_t cache_bytes = std::size_t(64) << 20;
};
CUSK_OPTIONS(OpenOptions,
             (cache_bytes, "byte budget of the decoded-tile cache (0 disables it)"))

struct ReadOptions {
  /// (h, w, 4) RGBA with OpenSlide's alpha (255 inside the slide, 0 outside and in missing tiles)
  /// instead of (h, w, 3) RGB.
  bool rgba = false;
  /// Colour of pixels outside the level or in missing tiles for RGB output (RGBA output is always
  /// transparent (0, 0, 0, 0) there). OpenSlide's premultiplied values are (0, 0, 0).
  std::array<std::uint8_t, 3> background = {0, 0, 0};
  /// Device of the returned array: with a CUDA device, tiles decode with nvJPEG (see `nvjpeg`)
  /// and/or on the host (copied up, stream-ordered on the call's stream).
  Device device = Device::cpu();
  /// With a CUDA `device`, decode YCbCr JPEG tiles on the GPU with batched nvJPEG when the build
  /// has it (RGB output, grey background only; else the host decodes): the hardware JPEG decoders
  /// (NVJPG, on A100/H100/H200) when nvJPEG offers them, else its CUDA backend (gpu_jpeg_decoder()
  /// says which). A tile several regions of one read need is decoded once.
  /// Pixels: nvJPEG hands over the tiles' YCbCr planes and the library upsamples the chroma and
  /// converts to RGB on the GPU exactly as libjpeg-turbo does (its "fancy" upsampling, as the host
  /// path and OpenSlide). Where the GPU's IDCT is libjpeg's (NVJPG: H200 measured), device reads
  /// are bit-identical to host reads; the stated tolerance, for any GPU, is |difference| <= 4 and
  /// a mean <= 0.1 per region (tests/wsi), and a self-check of one tile at the first read turns
  /// the path off (gpu_jpeg_decoder() says why) beyond it. tuning::set_wsi_nvjpeg_policy with
  /// NvjpegColour::nvjpeg_rgb uses nvJPEG's own RGB output instead: NVJPG replicates 4:2:0/4:2:2 chroma there (up to 35 levels
  /// from libjpeg at colour edges, mean up to 4.6 on busy reduced levels) unless its interpolation
  /// flag takes effect.
  bool nvjpeg = true;
  /// With `nvjpeg`: the CPU workers decode part of the tiles too (libjpeg-turbo into pinned host
  /// memory, copied up asynchronously; those pixels are exactly the host path's) while the GPU
  /// decodes the rest: the GPU takes the tiles that cost the host most (whole tiles), the host
  /// the cheapest (small parts decode in part), and the GPU's work in flight is kept to what the
  /// host needs for the rest, at rates measured on earlier reads, so both finish together. false:
  /// nvJPEG decodes every tile it can (the workers only fetch and prepare its batches).
  bool hybrid = true;
  /// Threads decoding the tiles of one region (read_regions: of the whole batch). 1 decodes on the
  /// calling thread; 0 uses std::thread::hardware_concurrency(). With nvJPEG, one or two threads
  /// (two from 6 workers) feed the GPU's decoder, mostly waiting on it, and with `hybrid`
  /// workers - 1 more decode on the host (workers - 5 from 12 workers: the feeders need cores).
  int workers = 1;
};
CUSK_OPTIONS(ReadOptions,
             (rgba, "write RGBA with OpenSlide's alpha (0 outside the slide)"),
             (background, "RGB colour outside the level and in missing tiles"),
             (device, "device of the returned array"),
             (nvjpeg, "decode JPEG tiles on the GPU with nvJPEG (CUDA devices)"),
             (hybrid, "with nvjpeg: host workers decode part of the tiles too"),
             (workers, "threads decoding the tiles of one region (0: all)"))

struct CacheStats {
  std::size_t capacity_bytes = 0, used_bytes = 0, entries = 0;
  std::uint64_t hits = 0, misses = 0;
};

/// Tile decodes of device reads (read_region(s) with a CUDA device) since the Slide was opened.
struct DeviceDecodeStats {
  std::uint64_t gpu_tiles = 0;   ///< by nvJPEG (a tile several regions of one read need counts once)
  std::uint64_t host_tiles = 0;  ///< by the host decoder (hybrid workers, or the host path), copied up
  /// Of gpu_tiles, those whose YCbCr planes were upsampled and converted by the exact colour path
  /// (the host decoder's pixels; see ReadOptions::nvjpeg).
  std::uint64_t gpu_exact_tiles = 0;
};

/// The GPU JPEG decoder that device reads use on `device`, in words: "nvJPEG 13.0.4, hardware
/// backend (NVJPG: 7 engines x 5 cores)", "nvJPEG 13.0.4, default backend (CUDA; hardware backend
/// unavailable: ...)", or "none: ..." (a build without nvJPEG, no such GPU, nvJPEG failed to start).
/// Starts nvJPEG on that device if needed.
std::string gpu_jpeg_decoder(const Device& device = Device::cuda());

class Slide {
 public:
  /// Opens a slide. Throws FormatError naming the path for a missing, unreadable, malformed or
  /// unsupported file.
  static Slide open(const std::string& path, const OpenOptions& options = {});

  Slide(Slide&&) noexcept;
  Slide& operator=(Slide&&) noexcept;
  ~Slide();

  const std::string& path() const;
  /// OpenSlide's vendor name: "aperio", "philips", "generic-tiff" (SubIFD pyramids too).
  const std::string& vendor() const;
  int level_count() const;
  const Level& level(int index) const;
  const std::vector<Level>& levels() const;
  /// Level 0's {width, height}.
  std::array<std::int64_t, 2> dimensions() const;
  /// OpenSlide's openslide_get_best_level_for_downsample.
  int best_level_for_downsample(double downsample) const;

  /// All properties, under OpenSlide's names.
  const std::map<std::string, std::string>& properties() const;
  /// One property, or nullopt.
  std::optional<std::string> property(const std::string& name) const;

  /// Names of the associated images ("thumbnail", "label", "macro"), sorted.
  std::vector<std::string> associated_image_names() const;
  /// An associated image as uint8 (h, w, 3) RGB (or RGBA with `rgba`). InvalidArgument for an
  /// unknown name.
  Array read_associated_image(const std::string& name, const ReadOptions& options = {},
                              const Stream& stream = {}) const;

  /// uint8 (height, width, 3) RGB (or (height, width, 4) RGBA) of `level`, its top-left corner at
  /// (x, y) in level-0 pixels (see the header comment for OpenSlide compatibility). The region may
  /// extend past the slide (also to negative x, y). InvalidArgument for a bad level or size.
  Array read_region(std::int64_t x, std::int64_t y, int level, std::int64_t width, std::int64_t height,
                    const ReadOptions& options = {}, const Stream& stream = {}) const;
  Array read_region(const Region& region, const ReadOptions& options = {}, const Stream& stream = {}) const;
  /// Decodes into `out`: a host uint8 array of shape (height, width, 3|4) with a unit channel
  /// stride (rows may be strided: a view of a larger buffer). 4 channels write RGBA.
  void read_region_into(const Region& region, Array& out, const ReadOptions& options = {}) const;
  /// Many regions, their tiles decoded by `options.workers` threads; results in the order of
  /// `regions`. Tiles shared by several regions are decoded once when the cache holds them.
  std::vector<Array> read_regions(const std::vector<Region>& regions, const ReadOptions& options = {},
                                  const Stream& stream = {}) const;

  CacheStats cache_stats() const;
  DeviceDecodeStats device_decode_stats() const;
  /// Changes the cache's byte budget (evicting as needed); 0 disables it.
  void set_cache_capacity(std::size_t bytes) const;

  struct Impl;

 private:
  friend struct detail::SlideAccess;
  explicit Slide(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

struct PyramidOptions {
  /// Square tile size in pixels, a positive multiple of 16.
  std::int64_t tile_size = 256;
  /// "jpeg", "deflate", "lzw", "none", "zstd" or "webp" (the last two when libtiff has them).
  std::string compression = "jpeg";
  /// JPEG / WebP quality 1..100.
  int quality = 80;
  /// JPEG colour: "ycbcr" (4:2:0 subsampled, the usual) or "rgb" (Aperio RGB JPEG, no transform).
  std::string jpeg_colorspace = "ycbcr";
  /// Chroma subsampling of YCbCr JPEG {horizontal, vertical}: {2, 2} 4:2:0, {2, 1} 4:2:2, {1, 1} 4:4:4.
  std::array<int, 2> ycbcr_subsampling = {2, 2};
  /// Number of levels; 0 halves until the level fits one tile.
  int levels = 0;
  /// BigTIFF even when a classic TIFF would do (always used past ~4 GB).
  bool bigtiff = false;
  /// Store the reduced levels as SubIFDs of level 0 (OME-TIFF style) instead of successive IFDs.
  bool subifds = false;
  /// Aperio SVS layout and ImageDescription ("Aperio Image Library ...|AppMag = ..|MPP = ..") so
  /// OpenSlide reads the file as "aperio"; a thumbnail is added when `associated` has none.
  bool aperio = false;
  /// Microns per pixel at level 0: TIFF resolution (pixels per centimetre) and Aperio's MPP.
  std::optional<double> mpp;
  /// Aperio's AppMag (with `aperio`).
  std::optional<double> objective_power;
  /// A label image (integer classes): levels downsample by the mode of each 2x2 block (ties to the
  /// smallest value), never by blending. Otherwise 2x2 means, rounded half up.
  bool label = false;
  /// ImageDescription of level 0 (e.g. OME-XML or a vendor's XML); replaces the Aperio one.
  std::optional<std::string> description;
  /// The Software tag of every page.
  std::string software = "cuskimage";
  /// Associated images written as stripped pages (with `aperio`): "thumbnail", "label", "macro";
  /// uint8 (h, w, 3) RGB.
  std::map<std::string, const Array*> associated;
};
CUSK_OPTIONS(PyramidOptions,
             (tile_size, "tile size, a multiple of 16"),
             (compression, "tile compression"),
             (quality, "JPEG/WebP quality, 1..100"),
             (jpeg_colorspace, "JPEG colour: ycbcr or rgb (Aperio RGB JPEG)"),
             (ycbcr_subsampling, "chroma subsampling of YCbCr JPEG (horizontal,vertical)"),
             (levels, "number of levels (0: halve until one tile)"),
             (bigtiff, "write BigTIFF"),
             (subifds, "reduced levels as SubIFDs (OME-TIFF style)"),
             (aperio, "Aperio SVS layout and description"),
             (mpp, "microns per pixel at level 0"),
             (objective_power, "Aperio's AppMag (with aperio)"),
             (label, "label image: levels by 2x2 mode, never blended"),
             (description, "ImageDescription of level 0"),
             (software, "the Software tag of every page"),
             (associated, "associated images (thumbnail, label, macro)"))

/// Writes `image` (uint8 (h, w), (h, w, 3) or (h, w, 4); also uint16 without JPEG/WebP; any device
/// and strides) as a tiled pyramidal TIFF that OpenSlide, libvips and tifffile read. The file
/// appears only when complete (written to a temporary file, then renamed). InvalidArgument for bad
/// options or an unsupported image, FormatError when the file cannot be written.
void write_pyramid(const std::string& path, const Array& image, const PyramidOptions& options = {},
                   const Stream& stream = {});

}  // namespace cuskimage::wsi
