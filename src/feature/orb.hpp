// Internal: ORB's per-keypoint pieces as CUSK_HD code shared by the CPU backend (orb.cpp) and
// kernels/feature/orb.cu: the Harris 'k' response at a keypoint and the rotated-pair bit test.
// The images are contiguous float64.
#pragma once

#include <cmath>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"
#include "src/feature/orb_positions.hpp"

namespace cuskimage::feature::detail {

/// corner_harris, method 'k', from the smoothed structure tensor entries.
CUSK_HD double harris_k(double arr, double arc, double acc, double k) {
  using cuskimage::detail::mul_rn;
  using cuskimage::detail::sub_rn;
  const double tr = arr + acc;
  return sub_rn(sub_rn(mul_rn(arr, acc), mul_rn(arc, arc)), mul_rn(k, mul_rn(tr, tr)));
}

/// skimage's round(): half away from zero.
CUSK_HD std::int64_t round_away(double x) { return static_cast<std::int64_t>(x > 0.0 ? x + 0.5 : x - 0.5); }

/// The bit of pair (r0, c0, r1, c1) in the ORB descriptor of keypoint (kr, kc) with orientation
/// sin/cos (the pairs: kOrbPairs, passed by pointer so that kernels read a device copy).
CUSK_HD bool orb_bit(const double* img, std::int64_t cols, std::int64_t kr, std::int64_t kc, double s, double c,
                     const std::int8_t* pair) {
  const double pr0 = pair[0], pc0 = pair[1], pr1 = pair[2], pc1 = pair[3];
  using cuskimage::detail::add_rn;
  using cuskimage::detail::mul_rn;
  using cuskimage::detail::sub_rn;
  // Each product rounded on its own, as on the host (no fused multiply-add on the device).
  const std::int64_t r0 = round_away(add_rn(mul_rn(s, pr0), mul_rn(c, pc0)));
  const std::int64_t c0 = round_away(sub_rn(mul_rn(c, pr0), mul_rn(s, pc0)));
  const std::int64_t r1 = round_away(add_rn(mul_rn(s, pr1), mul_rn(c, pc1)));
  const std::int64_t c1 = round_away(sub_rn(mul_rn(c, pr1), mul_rn(s, pc1)));
  return img[(kr + r0) * cols + kc + c0] < img[(kr + r1) * cols + kc + c1];
}

/// CUDA backend (kernels/feature/orb.cu). img: contiguous float64 (rows, cols) on the device;
/// kp: (K, 2) int64 on the device.
/// Harris responses (k) at the keypoints from the structure tensor entries, into float64 (K).
void cuda_orb_harris_at(const Array& arr, const Array& arc, const Array& acc, const Array& kp, double k, Array& resp,
                        const Stream& stream);
/// Descriptors (K, 256) bool; ori (K) float64 on the device.
void cuda_orb_descriptors(const Array& img, const Array& kp, const Array& ori, Array& out, const Stream& stream);

}  // namespace cuskimage::feature::detail
