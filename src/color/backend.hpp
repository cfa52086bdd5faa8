// Backend entry points of the color module: cpu_* in src/color/*.cpp (OpenMP), cuda_* in
// kernels/color/*.cu (asynchronous on `stream` unless they say otherwise). The public functions
// (src/color/*.cpp) validate, pick dtypes and allocate; operands share one device.
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "src/color/colorconv.hpp"
#include "src/color/delta_e.hpp"

namespace cuskimage::color::detail {

/// Pixel conversion: `in` is (..., CI) channel-last (any strides; uint8, uint16, float32 or
/// float64), `out` is (..., CO) of the same pixel shape (any strides; float32 when `in` is float32,
/// else float64).
void cpu_pixel(Op op, const PixelParams& p, const Array& in, Array& out);
void cuda_pixel(Op op, const PixelParams& p, const Array& in, Array& out, const Stream& stream);
/// The CUDA side is split by op family over two translation units (compile time).
bool cuda_pixel_cie(Op op, const PixelParams& p, const Array& in, Array& out, cudaStream_t stream);
bool cuda_pixel_basic(Op op, const PixelParams& p, const Array& in, Array& out, cudaStream_t stream);

/// Colour difference: lab1, lab2 (..., C>=3) channel-last views of one shape (broadcast by
/// strides) and one float dtype; out (...) of that dtype.
void cpu_delta_e(DeltaKind kind, const DeltaParams& p, const Array& lab1, const Array& lab2, Array& out);
void cuda_delta_e(DeltaKind kind, const DeltaParams& p, const Array& lab1, const Array& lab2, Array& out,
                  const Stream& stream);

/// label2rgb: rank[i] = index of label value i among the sorted distinct values of `labels` (int64,
/// C-order contiguous; ranks the same); `bg_rank` (int64, 2 elements) = {rank of bg_label or -1
/// when absent, the mapped label whose pixels keep the image when bg_color is None (-1: none)}.
/// Both backends, no host round trip.
void cpu_label_ranks(const Array& labels, std::int64_t bg_label, Array& ranks, Array& bg_rank);
void cuda_label_ranks(const Array& labels, std::int64_t bg_label, Array& ranks, Array& bg_rank, const Stream& stream);

/// Overlay: out (..., 3) float64 = colour(rank) * alpha + image * (1 - alpha), colours from the
/// palette (float64 (K, 3), contiguous, same device): mapped 0 = bg (palette row 0), label ranks
/// mapped as scikit-image (see colorlabel.cpp). image: (..., 3) float32/float64 (already
/// saturated/alpha-blended) or an invalid handle (then alpha is 1 and there is no image).
struct OverlayParams {
  double alpha = 0.3;
  bool keep_image_on_bg = false;  // bg_color None
  std::int64_t n_colors = 1;      // palette rows after row 0
};
void cpu_label_overlay(const Array& ranks, const Array& bg_rank, const Array& palette, const Array& image,
                       Array& out, const OverlayParams& p);
void cuda_label_overlay(const Array& ranks, const Array& bg_rank, const Array& palette, const Array& image, Array& out,
                        const OverlayParams& p, const Stream& stream);

/// Avg: sums (n_labels, 4) float64 zeroed; per label rank the channel sums and the count. image:
/// (..., 3) uint8/uint16/float32/float64 view (a grey image as a zero-stride channel axis).
void cpu_label_sums(const Array& ranks, const Array& image, Array& sums);
void cuda_label_sums(const Array& ranks, const Array& image, Array& sums, const Stream& stream);
/// Number of distinct labels (max rank + 1) of device ranks; synchronizes `stream`.
std::int64_t cuda_label_count(const Array& ranks, const Stream& stream);
/// out (..., 3) image dtype = mean of the pixel's label (cast as astype), bg pixels = bg colour.
void cpu_label_avg(const Array& ranks, const Array& bg_rank, const Array& sums, const double bg[3], Array& out);
void cuda_label_avg(const Array& ranks, const Array& bg_rank, const Array& sums, const double bg[3], Array& out,
                    const Stream& stream);

}  // namespace cuskimage::color::detail
