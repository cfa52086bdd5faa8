// Internal: hog's per-pixel, per-cell and per-block steps, shared by the CPU backend
// (src/feature/hog.cpp) and the CUDA kernels (kernels/feature/hog.cu).
#pragma once

#include <cmath>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/feature/hog.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::feature::detail {

struct HogGeom {
  std::int64_t rows = 0, cols = 0, channels = 1;
  std::int64_t st_r = 0, st_c = 0, st_ch = 0;  // element strides of the (rows, cols, channels) view
  std::int64_t cr = 8, cc = 8;                  // pixels per cell
  std::int64_t br = 3, bc = 3;                  // cells per block
  std::int64_t ncr = 0, ncc = 0;                // cells
  std::int64_t nbr = 0, nbc = 0;                // blocks
  int n = 9;                                    // orientations
  bool sqrt_image = false;
  HogBlockNorm norm = HogBlockNorm::L2_Hys;
};

/// The image value (after the optional square root) in the float dtype T.
template <class T>
CUSK_HD T hog_value(const T* img, const HogGeom& g, std::int64_t r, std::int64_t c, std::int64_t ch) {
  const T v = img[r * g.st_r + c * g.st_c + ch * g.st_ch];
  return g.sqrt_image ? static_cast<T>(sqrt(v)) : v;
}

/// One pixel's vote: its float64 magnitude and orientation bin (-1: none, an angle that rounds
/// to 180 after numpy's remainder, as in scikit-image; -2: every bin, a NaN angle).
template <class T>
CUSK_HD void hog_vote(const T* img, const HogGeom& g, std::int64_t r, std::int64_t c, double& mag, int& bin) {
  T gr = 0, gc = 0;
  T best = 0;
  for (std::int64_t ch = 0; ch < g.channels; ++ch) {
    const T a = (r == 0 || r == g.rows - 1) ? T(0) : hog_value(img, g, r + 1, c, ch) - hog_value(img, g, r - 1, c, ch);
    const T b = (c == 0 || c == g.cols - 1) ? T(0) : hog_value(img, g, r, c + 1, ch) - hog_value(img, g, r, c - 1, ch);
    if (g.channels == 1) {
      gr = a, gc = b;
      break;
    }
    const T m = std::hypot(a, b);  // hypotf for float32, as NumPy
    if (ch == 0 || m > best) best = m, gr = a, gc = b;  // argmax: first maximum
  }
  const double dr = static_cast<double>(gr), dc = static_cast<double>(gc);
  mag = hypot(dc, dr);
  const double x = atan2(dr, dc) * (180.0 / 3.141592653589793);
  double ori = fmod(x, 180.0);  // numpy's remainder: the sign of the divisor
  if (ori != 0.0) {
    if (ori < 0.0) ori += 180.0;
  } else {
    ori = 0.0;
  }
  if (ori != ori) {  // NaN: scikit-image's range test passes it into every bin
    bin = -2;
    return;
  }
  const double per = 180.0 / g.n;
  int b = static_cast<int>(ori / per);
  if (b > g.n) b = g.n;
  while (b > 0 && ori < per * b) --b;
  while (b < g.n && ori >= per * (b + 1)) ++b;
  bin = (b < g.n && ori >= per * b) ? b : -1;
}

/// A cell's value for one bin from its pixels' votes in row-major order: float32 sum (each step
/// rounded from float64), then divided by the area in float32.
template <class Votes>
CUSK_HD double hog_cell(const HogGeom& g, int bin, Votes&& vote_at) {
  float total = 0.0f;
  for (std::int64_t y = 0; y < g.cr; ++y)
    for (std::int64_t x = 0; x < g.cc; ++x) {
      double m;
      int b;
      vote_at(y, x, m, b);
      if (b == bin || b == -2) total = static_cast<float>(static_cast<double>(total) + m);
    }
  return static_cast<double>(total / static_cast<float>(g.cr * g.cc));
}

/// Normalises block (r, c) of the (ncr, ncc, n) float64 histogram into its br * bc * n outputs.
template <class T>
CUSK_HD void hog_block(const double* hist, const HogGeom& g, std::int64_t r, std::int64_t c, T* out) {
  constexpr double eps = 1e-5;
  const std::int64_t m = g.br * g.bc * g.n;
  auto at = [&](std::int64_t k) {
    const std::int64_t o = k % g.n, cell = k / g.n, y = cell / g.bc, x = cell % g.bc;
    return hist[((r + y) * g.ncc + (c + x)) * g.n + o];
  };
  double s = 0.0;
  if (g.norm == HogBlockNorm::L1 || g.norm == HogBlockNorm::L1_sqrt) {
    for (std::int64_t k = 0; k < m; ++k) s += fabs(at(k));
    for (std::int64_t k = 0; k < m; ++k) {
      const double v = at(k) / (s + eps);
      out[k] = static_cast<T>(g.norm == HogBlockNorm::L1 ? v : sqrt(v));
    }
    return;
  }
  for (std::int64_t k = 0; k < m; ++k) s += at(k) * at(k);
  const double d = sqrt(s + eps * eps);
  if (g.norm == HogBlockNorm::L2) {
    for (std::int64_t k = 0; k < m; ++k) out[k] = static_cast<T>(at(k) / d);
    return;
  }
  double s2 = 0.0;
  for (std::int64_t k = 0; k < m; ++k) {
    const double v = fmin(at(k) / d, 0.2);
    s2 += v * v;
  }
  const double d2 = sqrt(s2 + eps * eps);
  for (std::int64_t k = 0; k < m; ++k) out[k] = static_cast<T>(fmin(at(k) / d, 0.2) / d2);
}

/// skimage.draw.line's Bresenham pixels from (r0, c0) to (r1, c1), in its order.
template <class F>
CUSK_HD void hog_line(std::int64_t r0, std::int64_t c0, std::int64_t r1, std::int64_t c1, F&& put) {
  std::int64_t y = r0, x = c0, y2 = r1, x2 = c1;
  std::int64_t dx = x2 - x < 0 ? x - x2 : x2 - x, dy = y2 - y < 0 ? y - y2 : y2 - y;
  std::int64_t sx = (x2 - x) > 0 ? 1 : -1, sy = (y2 - y) > 0 ? 1 : -1;
  const bool steep = dy > dx;
  if (steep) {
    std::int64_t t = x;
    x = y, y = t;
    t = dx, dx = dy, dy = t;
    t = sx, sx = sy, sy = t;
  }
  std::int64_t d = 2 * dy - dx;
  for (std::int64_t i = 0; i < dx; ++i) {
    if (steep)
      put(x, y);
    else
      put(y, x);
    while (d >= 0) {
      y += sy;
      d -= 2 * dx;
    }
    x += sx;
    d += 2 * dy;
  }
  put(r1, c1);
}

/// Draws cell (r, c)'s orientation lines into the (rows, cols) image of T, as scikit-image: line o
/// through the cell centre at the bin's mid angle, radius min(cell) // 2 - 1, each pixel += the
/// bin's value (added in float64, stored in T).
template <class T>
CUSK_HD void hog_draw_cell(const double* hist, const HogGeom& g, std::int64_t r, std::int64_t c, T* image) {
  const std::int64_t radius = (g.cr < g.cc ? g.cr : g.cc) / 2 - 1;
  const std::int64_t cy = r * g.cr + g.cr / 2, cx = c * g.cc + g.cc / 2;
  for (int o = 0; o < g.n; ++o) {
    const double mid = 3.141592653589793 * (o + 0.5) / g.n;
    const double dr = static_cast<double>(radius) * sin(mid), dc = static_cast<double>(radius) * cos(mid);
    const double v = hist[(r * g.ncc + c) * g.n + o];
    hog_line(static_cast<std::int64_t>(cy - dc), static_cast<std::int64_t>(cx + dr),
             static_cast<std::int64_t>(cy + dc), static_cast<std::int64_t>(cx - dr),
             [&](std::int64_t y, std::int64_t x) {
               if (y < 0 || y >= g.rows || x < 0 || x >= g.cols) return;
               T& p = image[y * g.cols + x];
               p = static_cast<T>(static_cast<double>(p) + v);
             });
  }
}

/// CUDA backend: `image` on the device in T, viewed as (rows, cols, channels) by g's strides.
/// Fills the (ncr, ncc, n) float64 histogram, the features (contiguous T, nbr*nbc*br*bc*n) and,
/// when `hog_image` is valid, the drawing.
template <class T>
void cuda_hog(const Array& image, const HogGeom& g, Array& hist, Array& features, Array& hog_image,
              const Stream& stream);

}  // namespace cuskimage::feature::detail
