// Internal: daisy's per-pixel responses and per-descriptor gather + normalisation, shared by the
// CPU backend (src/feature/daisy.cpp) and the CUDA kernels (kernels/feature/daisy.cu).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/feature/daisy.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::feature::detail {

struct DaisyGeom {
  std::int64_t rows = 0, cols = 0;
  std::int64_t radius = 0, step = 1;
  std::int64_t P = 0, Q = 0, D = 0;  // descriptor grid and length
  int orientations = 8, rings = 3, histograms = 8;
  DaisyNormalization norm = DaisyNormalization::l1;
};

/// The orientation responses of pixel (r, c) of the contiguous image into hist (O, rows, cols).
template <class T>
CUSK_HD void daisy_pixel(const T* img, const DaisyGeom& g, std::int64_t r, std::int64_t c, T* hist) {
  const std::int64_t i = r * g.cols + c;
  const T dx = c < g.cols - 1 ? T(img[i + 1] - img[i]) : T(0);
  const T dy = r < g.rows - 1 ? T(img[i + g.cols] - img[i]) : T(0);
  const T mag = static_cast<T>(sqrt(dx * dx + dy * dy));
  const T ori = std::atan2(dy, dx);  // atan2f for float32, as NumPy
  const double pi = 3.141592653589793;
  const T kappa = static_cast<T>(g.orientations / pi);
  const std::int64_t plane = g.rows * g.cols;
  for (int o = 0; o < g.orientations; ++o) {
    const T angle = static_cast<T>(2 * o * pi / g.orientations - pi);
    hist[o * plane + i] = std::exp(static_cast<T>(kappa * std::cos(static_cast<T>(ori - angle)))) * mag;
  }
}

/// Descriptor (p, q) into out[0, D): `smooth` is (rings + 1, O, rows, cols) contiguous; `offs`
/// holds (dy, dx) per (ring, histogram) relative to the descriptor's centre.
template <class T>
CUSK_HD void daisy_descriptor(const T* smooth, const DaisyGeom& g, const std::int32_t* offs, std::int64_t p,
                              std::int64_t q, T* out) {
  const std::int64_t plane = g.rows * g.cols, O = g.orientations;
  const std::int64_t y = p * g.step + g.radius, x = q * g.step + g.radius;
  for (std::int64_t o = 0; o < O; ++o) out[o] = smooth[o * plane + y * g.cols + x];
  std::int64_t k = O;
  for (int i = 0; i < g.rings; ++i)
    for (int j = 0; j < g.histograms; ++j) {
      const std::int32_t* d = offs + 2 * (i * g.histograms + j);
      const T* s = smooth + (i + 1) * O * plane + (y + d[0]) * g.cols + (x + d[1]);
      for (std::int64_t o = 0; o < O; ++o) out[k++] = s[o * plane];
    }
  if (g.norm == DaisyNormalization::off) return;
  for (std::int64_t e = 0; e < g.D; ++e) out[e] = static_cast<T>(out[e] + T(1e-10));
  auto scale = [&](std::int64_t a, std::int64_t b, bool l1) {
    double s = 0.0;
    for (std::int64_t e = a; e < b; ++e) s += l1 ? static_cast<double>(out[e]) : static_cast<double>(out[e]) * out[e];
    const T n = l1 ? static_cast<T>(s) : static_cast<T>(sqrt(static_cast<T>(s)));
    for (std::int64_t e = a; e < b; ++e) out[e] = static_cast<T>(out[e] / n);
  };
  if (g.norm == DaisyNormalization::daisy) {
    for (std::int64_t a = 0; a < g.D; a += O) scale(a, a + O, false);
  } else {
    scale(0, g.D, g.norm == DaisyNormalization::l1);
  }
}

/// The visualize drawing (host; src/feature/daisy_draw.cpp) of `image` (img_as_float) and `descs`
/// (any device, read on `stream`), with the smoothing sigmas ([sigmas[0]] + sigmas).
Array daisy_draw(const Array& image, const Array& descs, const DaisyGeom& g, const std::vector<double>& sigmas,
                 const std::vector<double>& ring_radii, const Stream& stream);

/// CUDA backend: hist (O, rows, cols) from the contiguous device image.
template <class T>
void cuda_daisy_hist(const Array& img, const DaisyGeom& g, Array& hist, const Stream& stream);
/// CUDA backend: the descriptors (P, Q, D) from the smoothed stack and the device offsets.
template <class T>
void cuda_daisy_descs(const Array& smooth, const DaisyGeom& g, const Array& offs, Array& descs, const Stream& stream);

}  // namespace cuskimage::feature::detail
