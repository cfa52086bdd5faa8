// Per-pixel steps of the nuclei pipeline, fused for speed: the haematoxylin channel of rgb2hed
// straight from uint8 RGB (three 256-entry tables: the per-channel optical density times the
// channel's hed_from_rgb coefficient), and a threshold to bool.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"

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

void cuda_haematoxylin(const std::uint8_t* rgb, std::int64_t n, const HaemLut& lut, float* out, const Stream& s);
void cuda_greater(const float* x, std::int64_t n, float t, bool* out, const Stream& s);

}  // namespace cuskimage::tiled::detail
