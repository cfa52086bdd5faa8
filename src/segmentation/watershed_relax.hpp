// The parallel watershed of the CUDA backend, as per-pixel code shared with a host reference.
//
// For markers without compactness or watershed line, scikit-image's flood labels a pixel from
// its first dequeued neighbour; dequeues come in order of (level, age), where a pixel's level is
// its minimax (bottleneck) path value from the markers: L(q) = max(image(q), L(parent)). The
// relaxation below computes, for every pixel, the neighbour scikit-image dequeues first and takes
// L and the label from it. Inside one level scikit-image's queue is first-in first-out (every
// entry into a level is queued before the level's first dequeue), i.e. a breadth-first search
// from the level's entry pixels in the order they were queued, which is their parents' order.
// The key models that order as (L, h, L', h', m): h the hops since the level was entered, (L', h')
// the level and hops of the entry pixel's parent (markers, queued first, have L' = -inf), m the
// marker's linear index as the last resort. (L, h) is a monotone function of the neighbours' (L, h), so from
// "unreached" everywhere any fair order of updates (Jacobi sweeps, tiles) decreases it to the same
// fixed point; there every parent is strictly less in (L, h), so the marker indices, settled
// last, have one fixed point too: the device and the host reference agree exactly.
//
// Exactness: when no two pixels in the mask share a value, all pixels of one level reached from
// the markers are flooded through the one pixel of that value, so all least-L neighbours carry
// one label and the labels equal scikit-image's. With plateaus, ties the key cannot tell apart
// (deeper ancestry, markers of equal value) fall to m: still a watershed partition (every label a
// connected flood of least bottleneck from its marker), measured against the CPU backend in the
// tests.
#pragma once

#include <cstdint>
#include <limits>

#include "src/core/hd.hpp"

namespace cuskimage::segmentation::detail {

struct WsState {
  double level;       // +inf: not reached
  std::uint32_t hops;  // steps since the level was entered
  std::int32_t src;    // linear index of the marker; -1: not reached, -2: wall (outside mask or image)
  double elevel;       // L' (see above): the level the entry pixel of this level was reached from
  std::uint32_t ehops;  // h': the hops of that parent
  std::uint32_t pad;
};

CUSK_HD bool ws_less(const WsState& a, const WsState& b) {
  if (a.level != b.level) return a.level < b.level;
  if (a.hops != b.hops) return a.hops < b.hops;
  if (a.elevel != b.elevel) return a.elevel < b.elevel;
  if (a.ehops != b.ehops) return a.ehops < b.ehops;
  return a.src < b.src;
}

CUSK_HD bool ws_same(const WsState& a, const WsState& b) {
  return a.level == b.level && a.hops == b.hops && a.src == b.src && a.elevel == b.elevel && a.ehops == b.ehops;
}

CUSK_HD WsState ws_unreached() { return {std::numeric_limits<double>::infinity(), 0u, -1, 0.0, 0u, 0u}; }
CUSK_HD WsState ws_marker(double v, std::int32_t index) {
  return {v, 0u, index, -std::numeric_limits<double>::infinity(), 0u, 0u};
}
CUSK_HD WsState ws_wall() { return {std::numeric_limits<double>::infinity(), 0u, -2, 0.0, 0u, 0u}; }

/// Folds neighbour `r` into the best parent so far.
CUSK_HD void ws_consider(WsState& best, const WsState& r) {
  if (r.src >= 0 && (best.src < 0 || ws_less(r, best))) best = r;
}

/// The state of a free pixel of value `v` whose least neighbour is `best`.
CUSK_HD WsState ws_from_parent(double v, const WsState& best) {
  if (best.src < 0) return ws_unreached();
  if (v > best.level) return {v, 0u, best.src, best.level, best.hops, 0u};
  return {best.level, best.hops + 1u, best.src, best.elevel, best.ehops, 0u};
}

}  // namespace cuskimage::segmentation::detail
