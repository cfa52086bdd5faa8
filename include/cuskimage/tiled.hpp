// The tiled engine: runs a per-tile pipeline over a whole slide (or any large RGB image) with a halo,
// labels the foreground it returns and stitches the labels across tiles exactly, so the result
// equals labelling the whole image at once: the same objects, numbered 1..N by their first pixel in
// raster order as scikit-image's `label` numbers them, with the same per-object measurements.
//
//   wsi::Slide slide = wsi::Slide::open("slide.svs");
//   tiled::Pipeline p{.halo = 8, .mask = [](const Array& rgb, const tiled::TileInfo&, const Stream& s) {
//     return my_threshold(rgb, s);  // bool (h, w), same h and w as rgb
//   }};
//   tiled::Result r = tiled::run(slide, p, {.tile_size = 2048, .max_size = 30});
//   r.write_csv("objects.csv");
//   r.write_label_tiff("labels.tif");
//
// How it works (docs/ARCHITECTURE.md, "tiled"):
//  1. Tissue: Otsu on the HSV saturation of a low-resolution level; tiles with no tissue pixel
//     (within one low-level pixel) are skipped and count as background.
//  2. Tiles: several lanes, each with its own CUDA stream and thread, read a tile plus its halo
//     (clipped at the slide's edges, so edge handling matches the whole image), run the pipeline,
//     label the tile's core and copy the core labels back; one lane's decode and host work overlap
//     the others' device work. Each tile keeps its per-object sums, its four border lines and its
//     labels (deflate-compressed, in memory or in the checkpoint directory).
//  3. Stitching: union-find over (tile, local label) pairs that touch across tile faces and
//     corners (under `connectivity`), O(N log N) in objects; objects of at most `max_size` pixels
//     are then dropped (exactly, on their whole-slide area) and the rest are numbered by their first
//     pixel. Labels are 64-bit throughout. A pipeline that labels its own objects
//     (Pipeline::objects: touching objects kept apart, e.g. the nuclei split) has its pieces joined
//     by their keys instead of by touching.
// Per-pixel results equal the whole image's when the pipeline's output at a pixel depends only on
// input within `halo` pixels of it (declare the halo from the pipeline's footprints and sigmas).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/device.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::wsi {
class Slide;
struct PyramidOptions;
}  // namespace cuskimage::wsi

namespace cuskimage::tiled {

/// Where a tile lies, in pixels of the processed level.
struct TileInfo {
  std::int64_t index = 0, row = 0, col = 0;  // row-major tile index and grid position
  std::int64_t x = 0, y = 0;                 // top-left of the tile's core
  std::int64_t width = 0, height = 0;        // the core's size
  std::int64_t core_x = 0, core_y = 0;       // the core's offset inside the input (the clipped halo)
  int level = 0;
};

/// Objects a pipeline labels itself (Pipeline::objects), over the whole input tile (core + halo).
struct TileObjects {
  /// int32 (h, w) on the engine's device: 0 background, 1..keys.size() objects.
  Array labels;
  /// keys[l - 1] names object l across tiles: pieces with the same key, in any tiles, are one object
  /// (e.g. the whole-slide position of the object's first pixel). A negative key: no pixels.
  std::vector<std::int64_t> keys;
};

/// A per-tile pipeline. `rgb` is the tile with its halo, uint8 (h, w, 3) on the engine's device;
/// each callable works on the given stream and returns an array of the same h and w.
struct Pipeline {
  /// Pixels of context each output pixel needs on every side.
  std::int64_t halo = 0;
  /// The foreground (bool or any integer/float: non-zero is foreground).
  std::function<Array(const Array& rgb, const TileInfo& tile, const Stream& stream)> mask;
  /// Optional, instead of labelling `mask`: the tile's objects labelled by the pipeline (touching
  /// objects may stay apart). Objects are then joined across tiles by key only, never by touching;
  /// an object is exact when every tile holding a piece of it sees it whole (within its halo).
  std::function<TileObjects(const Array& rgb, const TileInfo& tile, const Stream& stream)> objects;
  /// Optional: a per-pixel intensity (any real dtype) whose per-object mean the table reports.
  std::function<Array(const Array& rgb, const TileInfo& tile, const Stream& stream)> intensity;
};

struct Options {
  /// Pyramid level to process.
  int level = 0;
  /// Core tile size in pixels (square); a multiple of 256 keeps the label TIFF's tiles aligned.
  std::int64_t tile_size = 2048;
  /// Neighbourhood of the labelling: 1 (faces) .. 2 (faces and corners), scikit-image's.
  int connectivity = 2;
  /// Objects of at most this many pixels are removed (remove_small_objects' max_size); 0 keeps all.
  std::int64_t max_size = 0;
  /// Skip tiles without tissue (Otsu on saturation of a low level, as MONAI and CLAM do).
  bool skip_background = true;
  /// Level for tissue detection; -1: the lowest-resolution level.
  int tissue_level = -1;
  /// Saturation threshold in [0, 1]; unset: Otsu's.
  std::optional<double> tissue_threshold;
  /// Device of the per-tile work; unset: CUDA device 0 when present, else the CPU.
  std::optional<Device> device;
  /// Concurrent tiles (each with its own stream and host thread).
  int lanes = 4;
  /// Decode threads per tile read (0: hardware threads / lanes).
  int read_workers = 0;
  /// When set, per-tile results are written there (one file per tile, atomically) and a rerun with
  /// the same slide and options resumes: finished tiles are loaded, not recomputed.
  std::string checkpoint_dir;
  /// A progress line (tiles done/total, tiles/s, ETA) on stderr when it is a terminal.
  bool progress = true;
  /// Stop after this many newly processed tiles (tests of resume; < 0: no limit).
  std::int64_t stop_after = -1;
};
CUSK_OPTIONS(Options,
             (level, "pyramid level to process"),
             (tile_size, "core tile size in pixels"),
             (connectivity, "neighbourhood of the labelling (1 or 2)"),
             (max_size, "objects of at most this many pixels are removed (0 keeps all)"),
             (skip_background, "skip tiles without tissue"),
             (tissue_level, "level for tissue detection (-1: the lowest resolution)"),
             (tissue_threshold, "saturation threshold of tissue (default: Otsu)"),
             (device, "device of the per-tile work"),
             (lanes, "tiles processed concurrently"),
             (read_workers, "decode threads per tile read (0: automatic)"),
             (checkpoint_dir, "directory of per-tile checkpoints (resume a killed run)"),
             (progress, "a progress line on stderr when it is a terminal"),
             (stop_after, "stop after this many newly processed tiles (< 0: no limit)"))

/// One object, measured on the whole slide (coordinates in pixels of the processed level).
struct Object {
  std::int64_t label = 0;
  std::int64_t area = 0;
  double centroid_y = 0, centroid_x = 0;
  std::int64_t bbox_min_y = 0, bbox_min_x = 0, bbox_max_y = 0, bbox_max_x = 0;  // max exclusive
  double intensity_mean = 0;  // NaN without Pipeline::intensity
};

/// Seconds spent in each stage, summed over lanes (wall-clock for `total`).
struct Timing {
  double read = 0, copy = 0, compute = 0, stitch = 0, write = 0, total = 0;
};

class Result {
 public:
  Result();
  ~Result();
  Result(Result&&) noexcept;
  Result& operator=(Result&&) noexcept;

  std::int64_t width() const;  // of the processed level
  std::int64_t height() const;
  std::int64_t tiles_total() const;
  std::int64_t tiles_processed() const;  // not skipped as background
  std::int64_t tiles_computed() const;   // computed by this run (the rest loaded from checkpoints)
  bool complete() const;                 // false after stop_after cut the run
  /// Level-0 pixels per processed-level pixel (x, y) and microns per level-0 pixel, when known.
  std::array<double, 2> downsample() const;
  std::optional<std::array<double, 2>> mpp() const;

  /// Tissue mask (bool, at the tissue level) and which tiles were processed (bool (rows, cols)).
  const Array& tissue_mask() const;
  const Array& tile_mask() const;
  const std::vector<Object>& objects() const;
  const Timing& timing() const;

  /// The label image of a region of the processed level (int64 (h, w), host). Fine for tests and
  /// crops; a whole slide is written with write_label_tiff instead.
  Array labels(std::int64_t x, std::int64_t y, std::int64_t width, std::int64_t height) const;
  /// CSV: label, area, centroid and bbox in level-0 pixels, the same in µm when the slide has mpp,
  /// and intensity_mean.
  void write_csv(const std::string& path) const;
  /// Pyramidal tiled TIFF of the labels (uint32, or uint64 past 2^32 - 1 objects), deflate, levels
  /// by the mode of 2x2 blocks (ties to the smaller label). Only `tile_size`, `levels` and `bigtiff`
  /// of the options apply. Written tile by tile: memory stays bounded by a few tiles.
  void write_label_tiff(const std::string& path, std::int64_t tile_size = 256) const;
  /// QuPath-compatible GeoJSON: one Feature per object, objectType "detection", its outline (the
  /// longest measure::find_contours contour at 0.5 of the object's mask, closed, level-0 pixel
  /// coordinates x, y) and its measurements (area, centroid, intensity_mean).
  void write_geojson(const std::string& path) const;

  struct Impl;
  explicit Result(std::unique_ptr<Impl> impl);
  Impl& impl() const { return *impl_; }

 private:
  std::unique_ptr<Impl> impl_;
};

// ---- the nuclei pipeline (examples/nuclei, `cuskimage nuclei`) --------------------------------------

/// How the nuclei job separates touching nuclei.
enum class NucleiSplit {
  none,       // one object per connected component of the mask
  watershed,  // per tile: EDT -> peak_local_max per component -> watershed of -EDT within the mask
};
CUSK_ENUM(NucleiSplit, none, watershed)

struct NucleiOptions {
  int level = 0;
  std::int64_t tile_size = 2048;
  /// Gaussian smoothing of the haematoxylin channel.
  double sigma = 1.0;
  /// binary_opening with disk(opening_radius).
  std::int64_t opening_radius = 2;
  /// Nuclei of at most this many pixels are dropped (on their whole-slide area).
  std::int64_t max_size = 30;
  /// Haematoxylin threshold (rgb2hed units). Unset: Otsu's threshold of the tissue pixels of the
  /// tissue level, computed once, so every tile uses the same value (a per-tile threshold would
  /// make the result depend on the tiling).
  std::optional<double> threshold;
  /// Touching nuclei split by a distance-transform watershed (see nuclei()). Off by default: on the
  /// H200 it costs the 40,000^2 synthetic slide 27 % of its time (9.4 -> 12.0 s), over the 20 % the
  /// default allows; it finds 466,581 of 466,260 nuclei there against 391,876 without.
  NucleiSplit split = NucleiSplit::none;
  /// peak_local_max's min_distance for the split's markers (exclude_border false, labels = the
  /// mask's connected components): of two peaks within this (Chebyshev) distance the lower goes.
  std::int64_t min_distance = 6;
  /// Half-width of the split's square peak footprint (candidates are maxima of a
  /// (2 f + 1)^2 box; smaller than min_distance so a smaller touching neighbour keeps its peak).
  std::int64_t peak_footprint = 1;
  /// With a split: components of the mask up to this many pixels across (bounding box, each axis)
  /// are split exactly as on the whole image; the tile halo grows by it.
  std::int64_t split_extent = 48;
  std::optional<Device> device;
  int lanes = 4;
  std::string checkpoint_dir;
  bool progress = true;
  /// Overlay region (level-0 x, y, width, height); unset: 1024 x 1024 around the tissue's
  /// centre of mass.
  std::optional<std::array<std::int64_t, 4>> overlay;
};
CUSK_OPTIONS(NucleiOptions,
             (level, "pyramid level to process"),
             (tile_size, "tile size in pixels"),
             (sigma, "Gaussian sigma of the haematoxylin channel"),
             (opening_radius, "radius of the disk of the binary opening"),
             (max_size, "nuclei of at most this many pixels are dropped"),
             (threshold, "haematoxylin threshold (default: Otsu of the tissue)"),
             (split, "separate touching nuclei: none or watershed (EDT, peaks, watershed)"),
             (min_distance, "min_distance of the split's EDT peaks (markers)"),
             (peak_footprint, "half-width of the square footprint of the split's EDT peaks"),
             (split_extent, "objects up to this size (pixels, each axis) split as on the whole image"),
             (device, "device of the per-tile work"),
             (lanes, "tiles processed concurrently"),
             (checkpoint_dir, "directory of per-tile checkpoints (resume a killed run)"),
             (progress, "a progress line on stderr when it is a terminal"),
             (overlay, "overlay region x,y,width,height at level 0 (default: around the tissue's centre)"))

struct NucleiReport {
  std::int64_t objects = 0, tiles_total = 0, tiles_processed = 0;
  double threshold = 0;
  Timing timing;  // the tiled run plus the writing of every output
  /// Wall seconds of each output (label pyramid, table and GeoJSON are written concurrently).
  double write_labels_s = 0, write_csv_s = 0, write_geojson_s = 0, write_overlay_s = 0;
  std::string labels_tiff, csv, geojson, overlay_png;
};

/// The nuclei job: rgb2hed -> haematoxylin -> gaussian(sigma) -> > threshold -> binary_opening
/// (disk) -> [split] -> remove small objects -> per-object table, over the slide in tiles, writing
/// labels.tif, nuclei.csv, nuclei.geojson and overlay.png to `out_dir`.
///
/// split = watershed, per tile (device work on the lane's stream for CUDA, the same functions on
/// the CPU): C = label(mask) (connectivity 2); D = distance_transform_edt(mask); markers = the
/// peak_local_max(D, min_distance, footprint ones((2 peak_footprint + 1)^2), exclude_border false,
/// labels C) numbered in peak order; watershed(-D, markers, connectivity 2, mask); a component
/// without a peak stays whole. The defaults (min_distance 6, peak_footprint 1) were chosen on
/// synthetic slides: touching 0.3 finds the true count within 1.5 %, touching 0 and 0.6 within 3 %;
/// ~2 % of single nuclei are split along their EDT ridge and some pairs whose neck is as wide as
/// the smaller nucleus stay merged (the distance transform cannot tell them from one nucleus).
/// Objects are keyed by their first pixel and joined across tiles by key (Pipeline::objects).
///
/// Halo: the mask at a pixel needs h0 = int(4 sigma + 0.5) + 2 opening_radius pixels of context.
/// The split of a component depends only on the mask inside the component's bounding box plus a
/// one-pixel ring: the nearest background of any of its pixels lies there (the open disk up to the
/// nearest background is foreground, hence in the component), peak_local_max with labels works in
/// each label's bounding box, and the masked flood never leaves the component (its queue order
/// inside the component does not depend on other components). A component touching a tile's core
/// with a bounding box of at most E pixels per axis lies within E - 1 pixels of the core, its ring
/// within E; so halo = h0 + split_extent makes every component up to split_extent across split
/// exactly as on the whole image, in every tile that holds a piece of it, and its pieces carry the
/// same keys. Larger components may be split differently near tile faces (their pieces can then
/// end at the face).
NucleiReport nuclei(const wsi::Slide& slide, const std::string& out_dir, const NucleiOptions& options = {});

/// A synthetic H&E-like slide: eosin-pink tissue with haematoxylin-purple elliptical nuclei on white
/// glass, JPEG tiles in an Aperio SVS layout (mpp 0.25, 40x), written with wsi::write_pyramid.
/// Deterministic for a seed. `touching` in [0, 1): about this fraction of the nuclei overlap a
/// partner slightly (each nucleus gets a partner with probability touching / (2 - touching), in a
/// random direction, 0.5 pixel closer than where their outlines would touch). Returns the number of
/// nuclei drawn (centre inside the image and on tissue): the count a perfect job would find.
std::int64_t write_synthetic_slide(const std::string& path, std::int64_t width, std::int64_t height,
                                   std::uint32_t seed = 1, double touching = 0.0);

/// Runs `pipeline` over `level` of `slide` in tiles. InvalidArgument for bad options (tile_size <
/// 16, connectivity outside 1..2, negative halo or max_size, level out of range, missing mask).
Result run(const wsi::Slide& slide, const Pipeline& pipeline, const Options& options = {});

/// The same engine over an RGB uint8 (h, w, 3) image in memory (host or device): the reference for
/// tests and a way to tile large in-memory images. Tissue detection runs on the image itself.
Result run(const Array& rgb, const Pipeline& pipeline, const Options& options = {});

}  // namespace cuskimage::tiled
