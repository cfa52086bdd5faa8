// Internal: per-pixel code of local_binary_pattern and graycomatrix shared by the CPU backend
// (src/feature/lbp.cpp, graycomatrix.cpp) and the CUDA kernels (kernels/feature/texture.cu).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::feature::detail {

/// The sampling circle: P offsets (rows, then columns), rounded to 5 decimals as scikit-image does.
struct LbpCircle {
  int P = 0;
  const double* rp = nullptr;  // P row offsets then P column offsets (host or device memory)
};

/// scikit-image's method letters: default, ror, uniform, nri_uniform, var.
enum class LbpKind : int { def = 0, ror = 1, uniform = 2, nri = 3, var = 4 };

/// Image value at (r, c), 0 outside (bilinear_interpolation's mode 'C', cval 0).
template <class T>
CUSK_HD double lbp_pixel(const T* img, std::int64_t rows, std::int64_t cols, std::int64_t r, std::int64_t c) {
  if (r < 0 || r >= rows || c < 0 || c >= cols) return 0.0;
  return static_cast<double>(img[r * cols + c]);
}

/// scikit-image's bilinear_interpolation, every rounding step as its C code does (no fused ops).
template <class T>
CUSK_HD double lbp_bilinear(const T* img, std::int64_t rows, std::int64_t cols, double r, double c) {
  using cuskimage::detail::add_rn;
  using cuskimage::detail::mul_rn;
  using cuskimage::detail::sub_rn;
  const double fr = cuskimage::detail::floor_rn(r), fc = cuskimage::detail::floor_rn(c);
  const auto minr = static_cast<std::int64_t>(fr), minc = static_cast<std::int64_t>(fc);
  const std::int64_t maxr = fr == r ? minr : minr + 1, maxc = fc == c ? minc : minc + 1;
  const double dr = sub_rn(r, static_cast<double>(minr)), dc = sub_rn(c, static_cast<double>(minc));
  const double top = add_rn(mul_rn(sub_rn(1.0, dc), lbp_pixel(img, rows, cols, minr, minc)),
                            mul_rn(dc, lbp_pixel(img, rows, cols, minr, maxc)));
  const double bottom = add_rn(mul_rn(sub_rn(1.0, dc), lbp_pixel(img, rows, cols, maxr, minc)),
                               mul_rn(dc, lbp_pixel(img, rows, cols, maxr, maxc)));
  return add_rn(mul_rn(sub_rn(1.0, dr), top), mul_rn(dr, bottom));
}

/// NumPy's 2 ** arange(P, dtype=int32): wraps to INT_MIN at 31 and 0 beyond.
CUSK_HD std::int32_t lbp_weight(int i) {
  if (i < 31) return static_cast<std::int32_t>(1u << i);
  return i == 31 ? std::numeric_limits<std::int32_t>::min() : 0;
}

/// The LBP value of pixel (r, c): _local_binary_pattern's per-pixel body, neighbours one at a time.
template <class T>
CUSK_HD double lbp_at(const T* img, std::int64_t rows, std::int64_t cols, std::int64_t r, std::int64_t c,
                      const LbpCircle& k, LbpKind kind) {
  using cuskimage::detail::add_rn;
  using cuskimage::detail::mul_rn;
  using cuskimage::detail::sub_rn;
  const int P = k.P;
  const double centre = static_cast<double>(img[r * cols + c]);
  double sum = 0, sq = 0, lbp = 0;
  int changes = 0, n_ones = 0, first_one = -1, first_zero = -1, prev = 0;
  for (int i = 0; i < P; ++i) {
    const double t = lbp_bilinear(img, rows, cols, add_rn(static_cast<double>(r), k.rp[i]),
                                  add_rn(static_cast<double>(c), k.rp[P + i]));
    const int s = sub_rn(t, centre) >= -1e-12 ? 1 : 0;
    if (kind == LbpKind::var) {
      sum = add_rn(sum, t);
      sq = add_rn(sq, mul_rn(t, t));
      continue;
    }
    if (i > 0) changes += s != prev;
    prev = s;
    if (s) {
      ++n_ones;
      if (first_one < 0) first_one = i;
    } else if (first_zero < 0) {
      first_zero = i;
    }
    if (kind == LbpKind::def || kind == LbpKind::ror) {
      lbp = add_rn(lbp, static_cast<double>(s * lbp_weight(i)));
    }
  }
  switch (kind) {
    case LbpKind::var: {
      const double n = static_cast<double>(P);
      const double v = cuskimage::detail::div_rn(sub_rn(sq, cuskimage::detail::div_rn(mul_rn(sum, sum), n)), n);
      return v != 0 ? v : std::numeric_limits<double>::quiet_NaN();
    }
    case LbpKind::uniform:
      return changes <= 2 ? static_cast<double>(n_ones) : static_cast<double>(P + 1);
    case LbpKind::nri: {
      if (changes > 2) return static_cast<double>(P * (P - 1) + 2);
      if (n_ones == 0) return 0.0;
      if (n_ones == P) return static_cast<double>(P * (P - 1) + 1);
      const int rot = first_one == 0 ? n_ones - first_zero : P - first_one;
      return static_cast<double>(1 + (n_ones - 1) * P + rot);
    }
    case LbpKind::ror: {
      // rotation_chain of int (32-bit) values, each the previous rotated right over P bits.
      std::int32_t v = static_cast<std::int32_t>(lbp), best = v;
      for (int i = 1; i < P; ++i) {
        const std::int32_t hi = P - 1 < 32 ? static_cast<std::int32_t>(static_cast<std::uint32_t>(v & 1) << (P - 1)) : 0;
        v = (v >> 1) | hi;
        best = v < best ? v : best;
      }
      return static_cast<double>(best);
    }
    default:
      return lbp;
  }
}

/// graycomatrix's pixel offset: _texture.pyx's round (half away from zero) of sin/cos * distance.
inline std::int64_t glcm_round(double v) { return static_cast<std::int64_t>(v > 0.0 ? v + 0.5 : v - 0.5); }

/// One (distance, angle) pair's offset and the rows/columns it covers.
struct GlcmPair {
  std::int64_t dr = 0, dc = 0;
  std::int64_t r0 = 0, r1 = 0, c0 = 0, c1 = 0;  // start (inclusive) .. end (exclusive)
};

/// The pairs in the output's (distance, angle) order (slice d * angles + a).
std::vector<GlcmPair> glcm_pairs(std::int64_t rows, std::int64_t cols, const std::vector<double>& distances,
                                 const std::vector<double>& angles);

/// CUDA backend of local_binary_pattern: image contiguous 2-D on the device (uint8, uint16, int32,
/// float32 or float64), out float64 of its shape.
void cuda_local_binary_pattern(const Array& image, const std::vector<double>& circle, LbpKind kind, Array& out,
                               const Stream& stream);

/// CUDA backend of graycomatrix's counts: image contiguous 2-D on the device (uint8 or uint16,
/// values < levels), out zeroed uint32 (levels, levels, nd, na).
void cuda_glcm(const Array& image, const std::vector<GlcmPair>& pairs, std::int64_t levels, std::int64_t nangles,
               Array& out, const Stream& stream);

/// The maximum of a contiguous uint8 / uint16 device image (synchronises: 4 bytes come back).
std::uint32_t cuda_glcm_max(const Array& image, const Stream& stream);

/// out (levels, levels, nd, na) = counts (+ counts^T when symmetric), / sums[slice] when out is
/// float64 (normed); out uint32 otherwise.
void cuda_glcm_finish(const Array& counts, const std::vector<double>& sums, bool symmetric, Array& out,
                      const Stream& stream);

}  // namespace cuskimage::feature::detail
