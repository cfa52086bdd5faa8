// Host-side helpers shared by the pathology sources and their CUDA entry points: pixel geometry of a
// channel axis (the spatial positions as one C-order index, the channel as a stride) and the
// backend declarations.
#pragma once

#include <cstdint>
#include <string_view>

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
                  cudaStream_t stream);
void cuda_absorbance(const Array& in, Array& out, double lo, double hi, cudaStream_t stream);
void cuda_absorbance_to_image(const Array& in, Array& out, double source, cudaStream_t stream);
/// In place on a contiguous-or-strided uint8 image; `mean_luma` scratch: one uint64 per image.
void cuda_adjust_colors(Array& img, int channel_axis, const ColorJitterParams& params, cudaStream_t stream);
void cuda_intensity(const Array& in, Array& out, int op, float a, float b, float lo, float hi, cudaStream_t stream);
void cuda_zoom(const Array& in, Array& out, int ah, int aw, std::int64_t zh, std::int64_t zw,
               ZoomInterpolation interp, cudaStream_t stream);

}  // namespace cuskimage::pathology::detail
