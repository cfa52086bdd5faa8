// Internal: the per-pixel steps of skimage.feature.canny shared by the CPU loops (canny.cpp) and the
// CUDA kernels (kernels/feature/canny.cu), and the backend entry points.
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::feature::detail {

/// Zeroes the masked-out elements of a contiguous array of any dtype (scikit-image's
/// masked_image[mask] = image[mask] on zeros_like(image)).
struct ZeroMasked {
  unsigned char* data;
  const std::uint8_t* mask;
  int itemsize;
  CUSK_HD void operator()(std::int64_t i) const {
    if (!mask[i])
      for (int b = 0; b < itemsize; ++b) data[i * itemsize + b] = 0;
  }
};

/// The eroded mask: binary_erosion(mask, 3x3, border_value=0), or (mask null) every pixel off the
/// image's outer ring.
struct ErodedMask {
  const std::uint8_t* mask;
  std::uint8_t* out;
  std::int64_t rows, cols;
  CUSK_HD void operator()(std::int64_t i) const {
    const std::int64_t r = i / cols, c = i - r * cols;
    bool v = r > 0 && r < rows - 1 && c > 0 && c < cols - 1;
    if (v && mask)
      for (int dr = -1; dr <= 1 && v; ++dr)
        for (int dc = -1; dc <= 1; ++dc) v = v && mask[i + dr * cols + dc];
    out[i] = v;
  }
};

/// smoothed /= (bleed + eps), in T.
template <class T>
struct BleedDivide {
  T* smoothed;
  const T* bleed;
  T eps;
  CUSK_HD void operator()(std::int64_t i) const {
    smoothed[i] = cuskimage::detail::div_rn(smoothed[i], cuskimage::detail::add_rn(bleed[i], eps));
  }
};

/// magnitude = sqrt(isobel^2 + jsobel^2), in T.
template <class T>
CUSK_HD T grad_magnitude(T is, T js) {
  using namespace cuskimage::detail;
  return sqrt(add_rn(mul_rn(is, is), mul_rn(js, js)));
}

/// The thresholds as scikit-image compares them: `low` is a C float (Cython's signature), 1e-14
/// when 0; `high` compares in T for a Python float against a float32 array (high_in_t), else in
/// double (a NumPy float64 scalar from np.percentile).
struct CannyThresholds {
  float low;
  double high;
  bool high_in_t;
};

/// Bilinear non-maximum suppression of one pixel (scikit-image's _nonmaximum_suppression_bilinear)
/// and the hysteresis class: 0 suppressed, 1 low, 2 high. `mag(dr, dc)` reads the magnitude of a
/// neighbour (always inside the image: the eroded mask excludes the outer ring).
template <class T, class Mag>
CUSK_HD std::uint8_t canny_class(T is, T js, T m, bool inside, const CannyThresholds& th, const Mag& mag) {
  using namespace cuskimage::detail;
  if (!(inside && static_cast<double>(m) >= static_cast<double>(th.low))) return 0;
  const bool down = is <= 0, up = is >= 0, left = js <= 0, right = js >= 0;
  const bool c1 = (up && right) || (down && left), c2 = (down && right) || (up && left);
  if (!c1 && !c2) return 0;
  const T ai = is < 0 ? -is : is, aj = js < 0 ? -js : js;
  T w, n11, n12, n21, n22;
  if (c1) {
    if (ai > aj) {
      w = div_rn(aj, ai);
      n11 = mag(1, 0), n12 = mag(1, 1), n21 = mag(-1, 0), n22 = mag(-1, -1);
    } else {
      w = div_rn(ai, aj);
      n11 = mag(0, 1), n12 = mag(1, 1), n21 = mag(0, -1), n22 = mag(-1, -1);
    }
  } else if (ai < aj) {
    w = div_rn(ai, aj);
    n11 = mag(0, 1), n12 = mag(-1, 1), n21 = mag(0, -1), n22 = mag(1, -1);
  } else {
    w = div_rn(aj, ai);
    n11 = mag(-1, 0), n12 = mag(-1, 1), n21 = mag(1, 0), n22 = mag(1, -1);
  }
  // C arithmetic of the Cython source: n * w in T, (1.0 - w) and the sum in double.
  const double omw = sub_rn(1.0, static_cast<double>(w)), md = static_cast<double>(m);
  if (!(add_rn(static_cast<double>(mul_rn(n12, w)), mul_rn(static_cast<double>(n11), omw)) <= md)) return 0;
  if (!(add_rn(static_cast<double>(mul_rn(n22, w)), mul_rn(static_cast<double>(n21), omw)) <= md)) return 0;
  const bool high = th.high_in_t ? m >= static_cast<T>(th.high) : md >= th.high;
  return high ? 2 : 1;
}

/// canny_class over contiguous isobel / jsobel / magnitude arrays.
template <class T>
struct NmsClass {
  const T *is, *js, *mag;
  const std::uint8_t* eroded;
  std::uint8_t* out;
  std::int64_t cols;
  CannyThresholds th;
  CUSK_HD void operator()(std::int64_t i) const {
    auto at = [&](int dr, int dc) { return mag[i + dr * cols + dc]; };
    out[i] = canny_class(is[i], js[i], mag[i], eroded[i] != 0, th, at);
  }
};

template <class T>
struct Magnitude {
  const T *is, *js;
  T* out;
  CUSK_HD void operator()(std::int64_t i) const { out[i] = grad_magnitude(is[i], js[i]); }
};

/// The CUDA hysteresis of the class image (rows x cols, contiguous uint8; its bytes are reused as
/// marks): the 8-connected components of classes > 0 that hold a 2 become true in `out` (bool,
/// contiguous).
void cuda_canny_hysteresis(Array& cls, Array& out, const Stream& stream);

/// The fused CUDA step smoothed -> class: bleed division (bleed array, or the separable profile of a
/// Gaussian of ones when `bleed_rows` is set), Sobel (mode reflect), magnitude and the suppression.
/// `eroded` invalid: no mask (the outer ring is excluded). Returns false where it does not apply
/// (the caller composes the steps instead).
template <class T>
bool cuda_canny_fused(const Array& smoothed, const Array& bleed, const std::vector<double>& bleed_rows,
                      const std::vector<double>& col_weights, double cval, const Array& eroded, bool use_bleed,
                      const CannyThresholds& th, Array& cls, const Stream& stream);

}  // namespace cuskimage::feature::detail
