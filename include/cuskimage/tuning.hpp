// Kernel tuning policies: how a kernel family with more than one implementation picks one.
//
// A policy is a plain struct (CUB style). Each family's dispatch picks the policy from the device's
// architecture, the shape and the dtype; its fields' zero / `automatic` values mean "let the
// dispatch choose". A caller (a test, a benchmark sweep, an application that knows better) overrides
// the choice process-wide with the family's setter and restores it with the setter's previous value
// (or `{}`):
//
//   auto old = cuskimage::tuning::set_label_policy({.grid = 2});  // force a variant
//   ...
//   cuskimage::tuning::set_label_policy(old);
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

// ---- filters edge stencils -----------------------------------------------------------------------

// ---- ndimage separable 2-D filters ---------------------------------------------------------------

// ---- wsi nvJPEG decoding -------------------------------------------------------------------------

// ---- tiled ---------------------------------------------------------------------------------------

}  // namespace cuskimage::tuning
