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

// ---- measure.regionprops -------------------------------------------------------------------------

// ---- morphology.max_tree -------------------------------------------------------------------------

// ---- morphology row chains (erosion/dilation by disks and balls) ---------------------------------

// ---- color (per-pixel conversions) ---------------------------------------------------------------

// ---- filters edge stencils -----------------------------------------------------------------------

// ---- ndimage separable 2-D filters ---------------------------------------------------------------

// ---- wsi nvJPEG decoding -------------------------------------------------------------------------

// ---- tiled ---------------------------------------------------------------------------------------

}  // namespace cuskimage::tuning
