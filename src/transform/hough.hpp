// Private interface of transform.hough_transform: the per-vote arithmetic both backends share and
// the CUDA entries (kernels/transform/hough.cu).
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::transform::detail {

/// scikit-image's round (shared/interpolation.pxd): half away from zero, by truncation.
CUSK_HD std::int64_t hough_round(double r) {
  return static_cast<std::int64_t>(r > 0.0 ? r + 0.5 : r - 0.5);
}

/// The distance bin of pixel (x, y) at an angle of cosine c and sine s: round(c x + s y) + offset,
/// each operation rounded separately as scikit-image's compiled loop does (no fused multiply-add).
CUSK_HD std::int64_t rho_index(double c, double s, std::int64_t x, std::int64_t y, std::int64_t offset) {
  using cuskimage::detail::add_rn;
  using cuskimage::detail::mul_rn;
  return hough_round(add_rn(mul_rn(c, static_cast<double>(x)), mul_rn(s, static_cast<double>(y)))) + offset;
}

/// skimage.draw.circle_perimeter(0, 0, radius) (Bresenham), duplicates included: (rows, cols).
void circle_offsets(std::int64_t radius, std::vector<std::int32_t>& rr, std::vector<std::int32_t>& cc);

/// hspace (uint64 (2 offset + 1, ntheta), zeroed by the callee) from the nonzero pixels of the
/// contiguous 2-D device image; cos/sin are device float64 arrays of ntheta.
template <class T>
void cuda_hough_line(const Array& image, const Array& cos_t, const Array& sin_t, std::int64_t offset, Array& hspace,
                     const Stream& stream);

/// acc (float64 (nr, rows + 2 pad, cols + 2 pad)): per radius k, incr[k] added at every circle
/// offset (rr, cc)[begin[k], begin[k + 1]) around every nonzero pixel (kept inside when pad == 0).
template <class T>
void cuda_hough_circle(const Array& image, const Array& rr, const Array& cc, const Array& begin,
                       const Array& incr, std::int64_t pad, Array& acc, const Stream& stream);

}  // namespace cuskimage::transform::detail
