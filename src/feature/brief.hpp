// Internal: BRIEF's per-bit test (shared by the CPU backend and kernels/feature/brief.cu), the
// keypoint border mask of scikit-image's feature.util, and the CUDA entry point.
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::feature::detail {

/// One pixel of the smoothed image at a flat C-order offset, 0 outside the buffer (see brief.hpp).
template <class T>
CUSK_HD T brief_pixel(const T* img, std::int64_t size, std::int64_t flat) {
  return flat >= 0 && flat < size ? img[flat] : T(0);
}

/// Bit p of the descriptor of keypoint (kr, kc); pos holds (r1, c1, r2, c2) per bit.
template <class T>
CUSK_HD bool brief_bit(const T* img, std::int64_t rows, std::int64_t cols, std::int64_t kr, std::int64_t kc,
                       const std::int32_t* pos) {
  const std::int64_t size = rows * cols;
  return brief_pixel(img, size, (kr + pos[0]) * cols + kc + pos[1]) <
         brief_pixel(img, size, (kr + pos[2]) * cols + kc + pos[3]);
}

/// scikit-image's _mask_border_keypoints: keypoints (row, col pairs) farther than `distance - 1`
/// from the first row/column and closer than rows/cols - distance + 1.
std::vector<std::uint8_t> mask_border_keypoints(std::int64_t rows, std::int64_t cols, const std::vector<double>& kp,
                                                std::int64_t distance);

/// CUDA backend: img contiguous (rows, cols) T on the device, kp (K, 2) int64 and pos (D, 4) int32
/// on the device, out (K, D) bool.
template <class T>
void cuda_brief(const Array& img, const Array& kp, const Array& pos, Array& out, const Stream& stream);

}  // namespace cuskimage::feature::detail
