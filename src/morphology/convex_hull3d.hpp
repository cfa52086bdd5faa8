// The device 3-D convex hull (kernels/morphology/convex_hull3d.cu): a quickhull run by one thread
// block per hull, written once as __host__ __device__ code over an "executor" (the block), so the
// same source also runs on the host (the tests run it with std::threads and a std::barrier against
// the CPU backend's incremental hull). Exact integer arithmetic on the doubled lattice
// (convex_hull_ops.hpp: primitive planes, no rounding anywhere), so the hull as a point set is
// unique and the voxel mask is the CPU backend's bit for bit.
//
// The algorithm, per hull of n points (all indices int32, all state in global memory):
// * Initial simplex: the lexicographic min and max point, the point farthest (L-inf of the cross
//   product) from their line, the point farthest from their plane; any of them missing means the
//   points are identical, collinear or coplanar: the hull is flat (Qhull fails: scikit-image
//   returns an all-false image), status kHull3Flat. With offset_coordinates the points are the face
//   centres of the candidate voxels and the voxels themselves get this test (scikit-image's first
//   Qhull is of the voxels).
// * Every point strictly above a facet belongs to the first such facet (its outside set); the
//   others are inside for good. The live entries (point, owner facet) hold the points that may
//   still have an owner, and best[f] (an atomic max of (float distance, index)) is facet f's
//   farthest outside point. Both are exact across rounds: a facet's outside set changes only when
//   the facet is replaced, so a round touches only the entries of replaced facets.
// * Rounds, until no entry has an owner: (1) each facet with outside points proposes its farthest
//   point (the first kHull3MaxProposals in slot order); (2) one thread per proposal walks the
//   facets visible from its point (a breadth-first search over neighbours, at most kHull3Vis
//   facets; a larger region aborts the proposal this round) and records its horizon: V the visible
//   facets, N the facets beyond the horizon. (3) Proposals P, Q conflict when V_P meets V_Q or N_Q
//   (or V_Q meets N_P); a maximal non-conflicting set is chosen in up to kHull3MisIters iterations
//   (an undecided proposal wins when no lower undecided one conflicts with it, found by atomic
//   maxima of (iteration, ~index) over V and over N; the undecided ones conflicting with a winner
//   drop out). Non-conflicting insertions in parallel are the same as one after another: a facet
//   of one winner's cone cannot be visible from another (the visible region of a point is
//   connected and would have to reach the cone through the first winner's N, which the second's V
//   avoids), and a facet in two N's only gets two different edges relinked. The lowest unaborted
//   proposal always wins; when every proposal aborted, thread 0 inserts proposal 0 with the whole
//   pool (no cap), so each round inserts at least one point. (4) each winner replaces its visible
//   facets by the cone over its horizon (the visible region is a disk, so h <= v + 2 new facets for
//   v visible: the new facets reuse the visible slots and append at most 2, so 2 n + 16 slots
//   suffice); (5) one pass over the live entries: those of replaced facets go to the first new
//   facet of the winner they are above (Barber et al.: a point above a visible facet is inside the
//   new hull or above a new facet), raising its best[], or are inside for good; (6) the entries
//   are compacted once half of them are dead. Visibility is strict (n.X > d), so points on a face
//   never enter: coplanar triangles may stay, which changes no plane. Facet planes are kept
//   unreduced (hull3_plane_raw: a positive multiple, the same signs, no gcd in the rounds) and
//   reduced once at the end. Ball(100) with offsets: 54.8 k points, 7.1 k inserted in 90 rounds.
//
// Determinism: proposals, winners and new slots follow slot order through block scans; only the
// order of atomics differs from run to run, never a result.
//
// The pieces: hull3_state.hpp (data, scratch layout, collectives), hull3_quickhull.hpp (the rounds),
// hull3_mask.hpp (candidate filters and voxel masks); the CUDA entries are declared here.
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "src/morphology/hull3_mask.hpp"
#include "src/morphology/hull3_quickhull.hpp"
#include "src/morphology/hull3_state.hpp"

namespace cuskimage::morphology::detail {

// ---- entry points (kernels/morphology/convex_hull3d.cu) ----------------------------------------------

/// out (bool, contiguous P x R x C, on the device) = convex_hull_image of the contiguous 3-D `img`
/// (dtype T): scikit-image's N-d path exactly. Synchronises the stream twice: to size the hull's
/// scratch from the candidate count, and to check the hull's status.
template <class T>
void cuda_convex_hull_image_3d(const Array& img, Array& out, bool offset, double tolerance, const Stream& stream);

/// Batched hulls, one per segment: convex_hull_image(box_k, offset_coordinates, tolerance) of the
/// voxel set given by segment k's candidate points, over a box of shape box[3k..3k+3).
struct Hull3Segments {
  std::int64_t nseg = 0;
  /// Device, (npoints, 3) int32 voxel coordinates (plane, row, column) inside each segment's box.
  /// Any superset of the hull's vertices gives the same hull: e.g. the first and last voxel of
  /// every (plane, row) line of the region (the whole voxel set works too, slower).
  const std::int32_t* points = nullptr;
  /// Device, nseg + 1 offsets into `points` (CSR); `host_offsets` the same on the host.
  const std::int64_t* offsets = nullptr;
  const std::int64_t* host_offsets = nullptr;
  /// Host, nseg * 3: the box (P, R, C) of each segment; the mask and the count cover [0, P) x
  /// [0, R) x [0, C). Every axis <= kHull3MaxExtent.
  const std::int64_t* box = nullptr;
};

struct Hull3Options {
  bool offset_coordinates = true;
  double tolerance = 1e-10;
  /// Device, optional: the bool hull image of segment k (contiguous, its box's shape) is written at
  /// images + image_off[k] (image_off on the host, nseg entries). Every voxel of each box is written.
  bool* images = nullptr;
  const std::int64_t* image_off = nullptr;
  /// Keep the final facet planes (Hull3Output::planes).
  bool want_planes = false;
};

struct Hull3Output {
  /// Per segment: voxels of the box inside the hull (scikit-image's image_convex.sum()).
  std::vector<std::int64_t> count;
  /// Per segment: 1 when the voxels are coplanar (or fewer than 4): no hull, count 0, image false
  /// (Qhull fails; scikit-image warns and returns zeros).
  std::vector<std::uint8_t> flat;
  /// want_planes: device Hull3Plane array; segment k's nplanes[k] planes start at plane_off[k]. A
  /// voxel X (doubled: X = 2 * index) of the box is inside iff nx X0 + ny X1 + nz X2 <= d for all
  /// of them (the tolerance is folded into d).
  Array planes;
  std::vector<std::int64_t> plane_off, nplanes;
};

/// All segments' hulls at once: a few launches (face centres, hulls, masks) and one stream
/// synchronisation (the counts and statuses) whatever the number of segments.
void cuda_hull3d_segments(const Hull3Segments& seg, const Hull3Options& opts, Hull3Output& out, const Stream& stream);

/// regionprops' entry: for each region k, convex_hull_image(labels[lo_k:hi_k] == label[k]) (the
/// bbox crop, default options of regionprops: offset_coordinates, tolerance 1e-10) of the
/// contiguous 3-D int32 / int64 device label image. count[k] = image_convex.sum(); with `images`
/// (device bool, caller's buffer), region k's crop is written at images + crop_off[k]. lo / hi:
/// host, n * 3, hi exclusive. Synchronises the stream twice (the candidate counts, the results).
template <class L>
void cuda_hull3d_regions(const Array& labels, const std::vector<std::int64_t>& label,
                         const std::vector<std::int64_t>& lo, const std::vector<std::int64_t>& hi, bool* images,
                         const std::vector<std::int64_t>* crop_off, std::vector<std::int64_t>& count,
                         const Stream& stream);

}  // namespace cuskimage::morphology::detail
