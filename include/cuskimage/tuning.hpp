// Kernel tuning policies: how a kernel family with more than one implementation picks one.
//
// A policy is a plain struct (CUB style). Each family's dispatch picks the policy from the device's
// architecture, the shape and the dtype; its fields' zero / `automatic` values mean "let the
// dispatch choose". A caller (a test, a benchmark sweep, an application that knows better) overrides
// the choice process-wide with the family's setter and restores it with the setter's previous value
// (or `{}`):
//
//   auto old = cuskimage::tuning::set_regionprops_policy({.strip_rows = 16});  // force a variant
//   ...
//   cuskimage::tuning::set_regionprops_policy(old);
//
// The library never reads the environment for these. A variant kept only as a fallback (e.g. for
// images too large for the fast path) says so at its field. Setters are thread-safe; a kernel reads
// the policy once per call.
#pragma once

namespace cuskimage::tuning {

// ---- measure.label -------------------------------------------------------------------------------

// No policy: the labeller has one variant per image. Bool / uint8 / int8 images whose rows are
// 16-byte aligned are read a row per lane in 16-byte words and labels are stored in 16-byte words
// where the rows allow; other images take the pixel-per-lane loads and stores. (The sweeps'
// alternatives -- column loads for aligned rows, a resident grid, tile prefetch, per-lane stores,
// face rows loaded after their unions -- never beat these and were removed.)

// ---- measure.regionprops -------------------------------------------------------------------------

/// The kernel of regionprops' pass 1 (the per-label sums every property starts from).
enum class RegionpropsPass1 {
  automatic,  ///< warp strips (one label table per warp), tiles where the strips do not fit
  tiles,      ///< fallback only: 16 x 128 tiles staged in shared memory, ~3x slower than the warp
              ///< strips; taken for images with an axis of 2^31 - 1024 pixels or more
};
/// Pass 1's kernel and the warp-strip kernel's geometry. Zero fields: the dispatch's choice (the
/// H200 sweep's fastest). Results are exact whatever the policy says.
struct RegionpropsPolicy {
  RegionpropsPass1 pass1 = RegionpropsPass1::automatic;
  int strip_rows = 0;              ///< rows per warp strip, 1 .. 128 (0: 32, halved down to 4 while
                                   ///< the image has fewer than 8192 strips)
  int table_entries = 0;           ///< label-table entries per warp, 32 / 64 / 128 (0: a strip's
                                   ///< pixels / 64 within that); a run without room goes to global atomics
  long long record_capacity = 0;   ///< (label, strip) records of the fused pass before it falls
                                   ///< back to global atomics (0: max(65536, pixels / 32))
};
/// Sets the process-wide regionprops policy; returns the previous one.
RegionpropsPolicy set_regionprops_policy(const RegionpropsPolicy& policy);
RegionpropsPolicy regionprops_policy();

// ---- morphology.max_tree -------------------------------------------------------------------------

/// The CUDA max-tree build: batches of levels merged from the top level down.
struct MaxTreePolicy {
  /// Levels per batch (0: floor(sqrt(levels * 4.4e6 / pixels)) within [1, 4096], the H200 sweep's
  /// rule: 16 for a 2048^2 uint8 texture, 4 at 8192^2). Fewer levels: more, shorter batches.
  unsigned levels_per_batch = 0;
};
/// Sets the process-wide max-tree policy; returns the previous one.
MaxTreePolicy set_max_tree_policy(const MaxTreePolicy& policy);
MaxTreePolicy max_tree_policy();

// ---- morphology row chains (erosion/dilation by disks and balls) ---------------------------------

// No policy: integer erosions and dilations by footprints of nested row runs (disks, balls, ...)
// take the row chain, 4 warps per block, segment lengths from the image's shape; other footprints
// and floats the sparse-table kernel. (The sweeps' alternatives -- other block sizes and segment
// lengths, L2 prefetch, an unrolled step loop, the sparse-table kernel for chain footprints --
// never beat these and were removed.)

// ---- color (per-pixel conversions) ---------------------------------------------------------------

/// How the colour tile kernel (contiguous channel-last images) spreads its tiles of pixels over blocks.
enum class ColorGrid {
  automatic,           ///< by op and input dtype: ops light per pixel one tile per block, heavy ones persistent
  one_tile_per_block,  ///< grid = tiles (rgb2gray, rgb2hed, the matrix conversions; rgb2lab from uint8)
  persistent,          ///< one wave of resident blocks, each walking tiles with its next tile's loads in
                       ///< flight (rgb2hsv, luv, the inverses, float inputs of the transcendental ops)
};
struct ColorPolicy {
  ColorGrid grid = ColorGrid::automatic;
};
/// Sets the process-wide colour policy; returns the previous one.
ColorPolicy set_color_policy(const ColorPolicy& policy);
ColorPolicy color_policy();

// ---- filters edge stencils -----------------------------------------------------------------------

/// The kernel of a 2-D edge stencil (sobel, scharr, prewitt, roberts, laplace: radius 1; farid: 2).
enum class StencilKernel {
  automatic,       ///< radius 1: rows; float32 radius 2: separable_rows (rank-1 windows, else rows)
  tile,            ///< shared-memory tiles; also the fallback for widths not a multiple of 4 and
                   ///< misaligned views (and the only kernel of float64 radius 2)
  rows,            ///< row strips in registers, halo columns by shuffles
  separable_rows,  ///< rows, each row filtered along x once (float32 radius 2 rank-1 windows; else rows)
};
/// One choice per radius and dtype that has more than one kernel. Images the row kernels cannot
/// take run the tile kernel whatever is asked, and images taller than its grid the row kernel.
struct StencilPolicy {
  StencilKernel r1_f32 = StencilKernel::automatic;
  StencilKernel r1_f64 = StencilKernel::automatic;
  StencilKernel r2_f32 = StencilKernel::automatic;
};
/// Sets the process-wide stencil policy; returns the previous one.
StencilPolicy set_stencil_policy(const StencilPolicy& policy);
StencilPolicy stencil_policy();

// ---- ndimage separable 2-D filters ---------------------------------------------------------------

/// The kernel of a fused separable 2-D correlation (gaussian) of float images, 3 .. 33 taps.
enum class Separable2dKernel {
  automatic,  ///< float32: tile below 17 taps, rows from 17; float64: tile; several planes: rows
  tile,       ///< both passes from a shared-memory tile (low fixed costs: small windows)
  rows,       ///< vertical pass streamed down row strips in registers (fewer instructions per tap);
              ///< also the fallback for images taller than the tile kernel's grid
};
struct Separable2dPolicy {
  Separable2dKernel f32 = Separable2dKernel::automatic;
  Separable2dKernel f64 = Separable2dKernel::automatic;
};
/// Sets the process-wide separable 2-D policy; returns the previous one.
Separable2dPolicy set_separable2d_policy(const Separable2dPolicy& policy);
Separable2dPolicy separable2d_policy();

// ---- wsi nvJPEG decoding -------------------------------------------------------------------------

/// How device reads turn nvJPEG's output into RGB.
enum class NvjpegColour {
  automatic,   ///< exact
  exact,       ///< nvJPEG's YCbCr planes, upsampled and converted as libjpeg-turbo does (the host's bytes)
  nvjpeg_rgb,  ///< nvJPEG's own RGB (replicated or interpolated chroma: not the host's bytes, ~1.5x
               ///< faster without stacking); also the fallback when nvJPEG refuses YCbCr output
};
/// The device reads' nvJPEG scheduler (builds with nvJPEG; no effect elsewhere). Zero fields: the
/// defaults, the fastest settings measured on the H200.
struct WsiNvjpegPolicy {
  NvjpegColour colour = NvjpegColour::automatic;
  int stack = 0;      ///< tiles of a level per nvJPEG image on the exact path (0: 8; 1: no stacking)
  int batch = 0;      ///< largest batch of tiles per nvJPEG call (0: 128)
  int depth = 0;      ///< batches in flight per feeder thread (0: 2)
  int ramp = 0;       ///< a read's first batch, doubled per batch up to `batch` (0: 32; < 0: full batches)
  int min_chunk = 0;  ///< hybrid reads: a smaller batch waits for the GPU's work in flight (0: 8)
};
/// Sets the process-wide nvJPEG policy; returns the previous one.
WsiNvjpegPolicy set_wsi_nvjpeg_policy(const WsiNvjpegPolicy& policy);
WsiNvjpegPolicy wsi_nvjpeg_policy();

// ---- transform.warp ------------------------------------------------------------------------------

/// The CUDA kernel of scikit-image's _warp_fast (warp, rotate and the transforms' fast path: orders
/// 1 and 3 under a 3x3 matrix). Results are the same bits whichever runs.
enum class WarpKernel {
  automatic,  ///< tiles
  tiles,      ///< 32-column output tiles, 4 (order 1) / 2 (order 3) rows per thread; samples whose taps
              ///< all lie inside the image skip the mode handling; where cval may widen the clip range
              ///< the output is clipped afterwards only in the tiles holding a value the clip can change
  pixels,     ///< fallback only: one thread per pixel through the generic interpolators, the output's
              ///< range folded per block, the clip a second pass over the output; taken for images or
              ///< outputs of 2^31 elements or more or an axis of 2^21 or more
};
struct WarpPolicy {
  WarpKernel kernel = WarpKernel::automatic;
};
/// Sets the process-wide warp policy; returns the previous one.
WarpPolicy set_warp_policy(const WarpPolicy& policy);
WarpPolicy warp_policy();

// ---- tiled ---------------------------------------------------------------------------------------

}  // namespace cuskimage::tuning
