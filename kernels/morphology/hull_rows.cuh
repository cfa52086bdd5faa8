// Device pieces the 2-D convex hulls share (kernels/morphology/convex_hull.cu for
// convex_hull_image, kernels/measure/regionprops_shape.cu for image_convex / feret): a row's
// foreground extent found by one warp, and the per-row extent arrays as convex_hull_ops.hpp reads them.
#pragma once

#include <climits>
#include <cstdint>

namespace cuskimage::morphology::detail {

/// Per-row extents (rlo / rhi) as the hull rules of convex_hull_ops.hpp index them.
struct RowsView {
  const std::int64_t* p;
  __device__ std::int64_t operator()(std::int64_t i) const { return p[i]; }
};

/// The first and last column c < cols of a row with fg(c), by the 32 lanes of a warp together
/// (none: lo = LLONG_MAX, hi = -1); every lane gets the result.
template <class Fg>
__device__ __forceinline__ void warp_row_extent(std::int64_t cols, const Fg& fg, std::int64_t& lo, std::int64_t& hi) {
  lo = LLONG_MAX;
  hi = -1;
  for (std::int64_t c = threadIdx.x & 31; c < cols; c += 32)
    if (fg(c)) {
      lo = min(lo, c);
      hi = c;
    }
  for (int o = 16; o > 0; o >>= 1) {
    lo = min(lo, __shfl_xor_sync(0xffffffffu, lo, o));
    hi = max(hi, __shfl_xor_sync(0xffffffffu, hi, o));
  }
}

}  // namespace cuskimage::morphology::detail
