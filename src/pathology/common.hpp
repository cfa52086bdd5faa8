// Host-side helpers shared by the pathology sources and their CUDA entry points: pixel geometry of a
// channel axis (the spatial positions as one C-order index, the channel as a stride) and the
// backend declarations.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/pathology.hpp"
#include "src/core/indexer.hpp"
#include "src/pathology/hd_math.hpp"

namespace cuskimage::pathology::detail {

using cuskimage::detail::Indexer;

/// The pixels of an image with a channel axis: pixel i (C order over the other axes) starts at
/// element offset px(i); channel c adds c * cs.
struct PixelGeom {
  Indexer ix;
  bool flat = true;          // ix has at most one axis: offset = i * step
  std::int64_t step = 0;
  std::int64_t cs = 0;       // channel stride
  std::int64_t n = 0;        // pixels
  int channels = 0;
  CUSK_HD std::int64_t px(std::int64_t i) const { return flat ? i * step : ix.offset(i); }
};
PixelGeom pixel_geom(const Array& a, int channel_axis);

#if !defined(__CUDACC__)  // CPU backend only (OpenMP)
/// One level of the fixed-order reduction: `width` doubles per item, items [0, n) -> one partial
/// per chunk of kChunk items.
template <class Item>
inline std::vector<double> reduce_level(std::int64_t n, int width, const Item& item) {
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<double> out(static_cast<std::size_t>(chunks * width));
#pragma omp parallel for schedule(static)
  for (std::int64_t ch = 0; ch < chunks; ++ch) {
    std::vector<double> acc(static_cast<std::size_t>(kLanes * width), 0.0);
    double v[16] = {};
    for (int l = 0; l < kLanes; ++l)
      for (int j = 0; j < kPerLane; ++j) {
        const std::int64_t i = ch * kChunk + l + std::int64_t(kLanes) * j;
        if (i >= n) break;
        item(i, v);
        for (int k = 0; k < width; ++k) acc[l * width + k] = add_rn(acc[l * width + k], v[k]);
      }
    for (int s = kLanes / 2; s >= 1; s /= 2)
      for (int l = 0; l < s; ++l)
        for (int k = 0; k < width; ++k) acc[l * width + k] = add_rn(acc[l * width + k], acc[(l + s) * width + k]);
    for (int k = 0; k < width; ++k) out[ch * width + k] = acc[k];
  }
  return out;
}

/// Folds partials of `width` doubles down to one with reduce_level (the CPU twin of fold_to_one).
inline std::vector<double> fold_to_one_cpu(std::vector<double> part, int width) {
  while (part.size() > static_cast<std::size_t>(width)) {
    const std::int64_t items = static_cast<std::int64_t>(part.size()) / width;
    const std::vector<double> prev = std::move(part);
    part = reduce_level(items, width, [&](std::int64_t i, double* m) {
      for (int k = 0; k < width; ++k) m[k] = prev[i * width + k];
    });
  }
  if (part.empty()) part.assign(static_cast<std::size_t>(width), 0.0);
  return part;
}

#endif

/// Parameters of one Macenko run (normalize_colors_pca or stain_extraction_pca).
struct MacenkoParams {
  double source_intensity;
  double alpha_fit;    // percentile of the angle extremes
  double alpha_conc;   // 100 - this is the concentration percentile
  float beta;
  bool absorbance_input;
  double ref[3][2];
  double ref_max_conc[2];
};

// CUDA backend (kernels/pathology/*.cu).
void cuda_macenko(const Array& image, int channel_axis, const MacenkoParams& p, Array* stain, Array* out,
                  const Stream& stream);
void cuda_absorbance(const Array& in, Array& out, double lo, double hi, const Stream& stream);
void cuda_absorbance_to_image(const Array& in, Array& out, double source, const Stream& stream);
/// In place on a contiguous-or-strided uint8 image; `mean_luma` scratch: one uint64 per image.
void cuda_adjust_colors(Array& img, int channel_axis, const ColorJitterParams& params, const Stream& stream);
void cuda_intensity(const Array& in, Array& out, int op, float a, float b, float lo, float hi, const Stream& stream);
/// Reinhard: per-channel sum and sum of squares of the LAB image (6 doubles, fixed order) into a
/// device buffer, then lab_out = (lab - mean) / std * target_std + target_mean in place.
void cuda_lab_moments(const Array& lab, int channel_axis, Array& moments6, const Stream& stream);
void cuda_reinhard_apply(Array& lab, int channel_axis, const Array& moments6, const LabStats& target,
                         const Stream& stream);
/// uint8 from a float image in [0, 1] as img_as_ubyte (rint(x * 255), clipped), no range check.
void cuda_unit_to_u8(const Array& in, Array& out, const Stream& stream);
void cuda_zoom(const Array& in, Array& out, int ah, int aw, std::int64_t zh, std::int64_t zw, ZoomInterpolation interp,
               const Stream& stream);

}  // namespace cuskimage::pathology::detail
