// Internal: ORB's per-pixel and per-keypoint pieces as CUSK_HD code shared by the CPU backend
// (orb.cpp) and kernels/feature/orb.cu: scikit-image's corner_fast response, the OFAST intensity
// centroid orientation, the Harris 'k' response and the rotated-pair bit test. The images are
// contiguous float64.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"
#include "src/feature/orb_positions.hpp"

namespace cuskimage::feature::detail {

/// corner_fast's response at an interior pixel (3 <= i < rows - 3, same for columns): the sum of
/// |circle - centre| when `n` contiguous circle pixels are all brighter (else all darker) than
/// the centre by more than thr, else 0. n >= 12 first tests the four compass pixels.
CUSK_HD double fast_response(const double* img, std::int64_t cols, std::int64_t i, std::int64_t j, int n, double thr) {
  const int rp[16] = {0, 1, 2, 3, 3, 3, 2, 1, 0, -1, -2, -3, -3, -3, -2, -1};
  const int cp[16] = {3, 3, 2, 1, 0, -1, -2, -3, -3, -3, -2, -1, 0, 1, 2, 3};
  const double v = img[i * cols + j], lo = v - thr, hi = v + thr;
  if (n >= 12) {
    int b = 0, d = 0;
    for (int k = 0; k < 16; k += 4) {
      const double x = img[(i + rp[k]) * cols + j + cp[k]];
      if (x > hi)
        ++b;
      else if (x < lo)
        ++d;
    }
    if (d < 3 && b < 3) return 0;
  }
  double ring[16];
  char bins[16];
  for (int k = 0; k < 16; ++k) {
    ring[k] = img[(i + rp[k]) * cols + j + cp[k]];
    bins[k] = ring[k] > hi ? 'b' : ring[k] < lo ? 'd' : 's';
  }
  for (char state : {'b', 'd'}) {
    int run = 0;
    for (int l = 0; l < 15 + n; ++l) {
      if (bins[l % 16] != state) {
        run = 0;
        continue;
      }
      if (++run == n) {
        double r = 0;
        for (int m = 0; m < 16; ++m) r += fabs(ring[m] - v);
        return r;
      }
    }
  }
  return 0;
}

/// The OFAST disc's half-heights per column offset |dc| (scikit-image's OFAST_UMAX).
CUSK_HD int ofast_umax(int a) {
  const int u[16] = {15, 15, 15, 15, 14, 14, 14, 13, 13, 12, 11, 10, 9, 8, 6, 3};
  return u[a];
}

/// corner_orientations with the 31x31 OFAST mask: atan2 of the first moments about (r0, c0),
/// pixels outside the image read as 0, summed as scikit-image sums them (rows outer).
CUSK_HD double orb_orientation(const double* img, std::int64_t rows, std::int64_t cols, std::int64_t r0, std::int64_t c0) {
  double m01 = 0, m10 = 0;
  for (int r = 0; r < 31; ++r) {
    double row = 0;
    for (int c = 0; c < 31; ++c) {
      if (!((r - 15 < 0 ? 15 - r : r - 15) <= ofast_umax(c - 15 < 0 ? 15 - c : c - 15))) continue;
      const std::int64_t y = r0 + r - 15, x = c0 + c - 15;
      const double v = y >= 0 && y < rows && x >= 0 && x < cols ? img[y * cols + x] : 0.0;
      m10 = cuskimage::detail::add_rn(m10, cuskimage::detail::mul_rn(v, static_cast<double>(c - 15)));
      row += v;
    }
    m01 = cuskimage::detail::add_rn(m01, cuskimage::detail::mul_rn(row, static_cast<double>(r - 15)));
  }
  return atan2(m01, m10);
}

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

/// skimage.feature.structure_tensor(img, sigma, order='rc') of a contiguous float64 image on
/// either backend: (Arr, Arc, Acc), ndimage.sobel derivatives and gaussian_filter, mode constant.
/// (A private stand-in for the corner module's structure_tensor; CENSURE uses it too.)
std::array<Array, 3> structure_tensor_rc(const Array& img, double sigma, const Stream& stream);

/// CUDA backend (kernels/feature/orb.cu). img: contiguous float64 (rows, cols) on the device;
/// kp: (K, 2) int64 on the device.
void cuda_orb_fast(const Array& img, Array& out, int n, double thr, const Stream& stream);
void cuda_orb_product(const Array& a, const Array& b, Array& out, const Stream& stream);
/// Orientations and Harris responses (k) at the keypoints, into float64 (K) arrays.
void cuda_orb_keypoint_values(const Array& img, const Array& arr, const Array& arc, const Array& acc, const Array& kp,
                              double k, Array& ori, Array& resp, const Stream& stream);
/// Descriptors (K, 256) bool; ori (K) float64 on the device.
void cuda_orb_descriptors(const Array& img, const Array& kp, const Array& ori, Array& out, const Stream& stream);

}  // namespace cuskimage::feature::detail
