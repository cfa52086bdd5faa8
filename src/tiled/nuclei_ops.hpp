// Per-pixel steps of the nuclei pipeline, fused for speed: the haematoxylin channel of rgb2hed
// straight from uint8 RGB (three 256-entry tables: the per-channel optical density times the
// channel's hed_from_rgb coefficient), a threshold to bool, and the glue of the watershed split
// (src/tiled/nuclei_split.cpp): -EDT, markers from peaks, final labels and their keys.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "cuskimage/tiled.hpp"

namespace cuskimage::tiled::detail {

/// lut[c * 256 + v] = log(max(v / 255, 1e-6)) / log(1e-6) * hed_from_rgb[c][0] (float32).
struct HaemLut {
  float v[768];
};
HaemLut haematoxylin_lut();

/// H = max(0, sum_c lut[c][rgb_c]) as float32 (h, w), from contiguous uint8 (h, w, 3).
Array haematoxylin(const Array& rgb, const Stream& stream);
/// x > t as bool, from contiguous float32.
Array greater(const Array& x, float t, const Stream& stream);

/// The watershed split of one tile's mask (bool (h, w), contiguous) whose top-left pixel is (y0, x0)
/// on the level; see tiled::nuclei.
TileObjects split_nuclei(const Array& mask, std::int64_t y0, std::int64_t x0, std::int64_t min_distance,
                         std::int64_t footprint, int connectivity, const Stream& stream);

void cuda_negate(const double* x, std::int64_t n, double* out, const Stream& s);
/// markers[peaks[k]] = k + 1 over zeros (int32 (h, w)); peaks (n, 2) int64 (row, col).
void cuda_peak_markers(const std::int64_t* peaks, std::int64_t n, std::int64_t h, std::int64_t w,
                       std::int32_t* markers, const Stream& s);
/// out = ws > 0 ? ws : (comp > 0 ? n_peaks + comp : 0); first[out - 1] = min over its pixels of
/// ((y0 + y) << 32) | (x0 + x) (first filled with all ones here).
void cuda_split_finish(const std::int32_t* ws, const std::int32_t* comp, std::int64_t h, std::int64_t w,
                       std::int64_t n_peaks, std::int64_t n_labels, std::int64_t y0, std::int64_t x0,
                       std::int32_t* out, std::int64_t* first, const Stream& s);
void cuda_haematoxylin(const std::uint8_t* rgb, std::int64_t n, const HaemLut& lut, float* out, const Stream& s);
void cuda_greater(const float* x, std::int64_t n, float t, bool* out, const Stream& s);

}  // namespace cuskimage::tiled::detail
