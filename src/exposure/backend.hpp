// Backend entry points of skimage.exposure: cpu_* in src/exposure/cpu_*.cpp (OpenMP), cuda_* in
// kernels/exposure/*.cu. Inputs are validated, non-empty and of a supported dtype; outputs are
// preallocated on the input's device. CUDA functions only queue work on `stream` (no host
// synchronization) unless their comment says otherwise.
//
// "range" arrays are float64[2] = {min, max} on the image's device, written by *_minmax (NaN when
// the image holds one, as NumPy's min / max).
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/exposure.hpp"
#include "src/exposure/exposure_math.hpp"

namespace cuskimage::exposure::detail {

/// Types of the element-wise functions and histograms.
using ImageTypes = cuskimage::detail::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::int32_t,
                                            std::int64_t, float, double>;

/// range = {min, max} over the pixels (the non-zero mask pixels when `mask` is valid; bool mask of
/// the image's shape).
void cpu_minmax(const Array& image, const Array& mask, Array& range);
void cuda_minmax(const Array& image, const Array& mask, Array& range, const Stream& stream);

/// out = rescale_value(image) in the computation type, converted to out's dtype (the image's dtype
/// or the computation type).
void cpu_rescale(const Array& image, Array& out, const RescaleSpec& spec, const Array& range);
void cuda_rescale(const Array& image, Array& out, const RescaleSpec& spec, const Array& range, const Stream& stream);

/// adjust_* (out has the image's dtype); uint8 gamma through the table.
void cpu_adjust(const Array& image, Array& out, AdjustKind kind, double a, double b);
void cuda_adjust(const Array& image, Array& out, AdjustKind kind, double a, double b, const Stream& stream);

/// Histogram counts (int64, zeroed by the callee) of shape (channels * nbins): the image is a view
/// whose last axis holds `channels` channels (1: none); pixel x of channel c counts in bin
/// c * nbins + index. Integer images: index = x - lo for lo <= x < lo + nbins. Float images:
/// FloatBins over range (range null: the fixed [-1, 1] of source_range dtype).
void cpu_histogram(const Array& image, const Array& mask, std::int64_t channels, std::int64_t lo, std::int64_t nbins,
                   const Array* range, Array& counts);
void cuda_histogram(const Array& image, const Array& mask, std::int64_t channels, std::int64_t lo, std::int64_t nbins,
                    const Array* range, Array& counts, const Stream& stream);

/// Bin centers (the image's float dtype) of FloatBins over range (null: [-1, 1]).
void cpu_float_centers(const Array* range, std::int64_t nbins, Array& centers);
void cuda_float_centers(const Array* range, std::int64_t nbins, Array& centers, const Stream& stream);

/// Per row of counts (rows x nbins): normalized (float64 counts / sum) when !cumulative, else the
/// cdf cumsum / total rounded to out's dtype (float32 or float64).
void cpu_counts_to(const Array& counts, Array& out, bool cumulative);
void cuda_counts_to(const Array& counts, Array& out, bool cumulative, const Stream& stream);

/// equalize_hist's np.interp(image, centers, cdf). Integer images: centers are lo, lo + 1, ...
/// (nbins of them) and the pixel is first clamped to `range` (the histogram's own min and max);
/// float images: centers are FloatBins' over range.
void cpu_equalize_apply(const Array& image, std::int64_t lo, const Array& range, const Array& cdf, Array& out);
void cuda_equalize_apply(const Array& image, std::int64_t lo, const Array& range, const Array& cdf, Array& out,
                         const Stream& stream);

/// CLAHE of one grey 2-D or 3-D image into out (float32 or float64, same shape).
struct ClaheParams {
  std::vector<std::int64_t> kernel_size;
  double clip_limit = 0.01;
  std::int64_t nbins = 256;
};
void cpu_clahe(const Array& image, Array& out, const ClaheParams& p);
void cuda_clahe(const Array& image, Array& out, const ClaheParams& p, const Stream& stream);

/// RGB(A) (channels last, 3-D) -> HSV of out's float dtype (channels last, 3 channels).
void cpu_rgb_to_hsv(const Array& rgb, Array& hsv);
void cuda_rgb_to_hsv(const Array& rgb, Array& hsv, const Stream& stream);
/// HSV (channels last) -> RGB, both of one float dtype.
void cpu_hsv_to_rgb(const Array& hsv, Array& rgb);
void cuda_hsv_to_rgb(const Array& hsv, Array& rgb, const Stream& stream);
/// rgba2rgb + rgb2gray (3 or 4 channels last) into out (float32 for float32 input, else float64).
void cpu_rgb_to_gray(const Array& rgb, Array& out);
void cuda_rgb_to_gray(const Array& rgb, Array& out, const Stream& stream);

/// Sorted values (as float64) of the image (host vector); CUDA: radix sort on the device, then the
/// values at `positions` only are copied back (synchronizes). Returns the values at `positions`.
std::vector<double> cpu_order_statistics(const Array& image, const std::vector<std::int64_t>& positions);
std::vector<double> cuda_order_statistics(const Array& image, const std::vector<std::int64_t>& positions,
                                          const Stream& stream);

/// _match_cumulative_cdf of one channel: out (float64, or the image dtype) = interp of each
/// source value's quantile through the template's (quantile, value) pairs.
void cpu_match(const Array& source, const Array& tmpl, Array& out);
void cuda_match(const Array& source, const Array& tmpl, Array& out, const Stream& stream);

}  // namespace cuskimage::exposure::detail
