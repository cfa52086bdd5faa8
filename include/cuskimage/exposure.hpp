// skimage.exposure: histograms, histogram equalization (global and CLAHE), intensity rescaling,
// gamma / log / sigmoid correction, histogram matching and the low-contrast test. Every function
// runs on CPU arrays (OpenMP) and on CUDA arrays (CUDA kernels, asynchronous on `stream`); the
// input's device picks the backend.
//
// Semantics are scikit-image 0.26's (skimage/exposure/exposure.py, _adapthist.py,
// histogram_matching.py), including its dtype rules: float32 input gives float32 results where
// scikit-image computes in float32 (rescale_intensity, the adjust_* functions, equalize_hist,
// equalize_adapthist), other results are float64. Integer histograms count one bin per value.
//
// Supported dtypes: uint8, int8, uint16, int16, int32, int64, float32, float64 (equalize_adapthist
// takes any dtype util::img_as_uint takes). Data-dependent checks that scikit-image makes with a
// ValueError (negative pixels in adjust_*, float images outside [-1, 1] in equalize_adapthist) are
// made on CPU arrays only: on CUDA arrays they would need a host synchronization, so the device
// computes the formula on such input instead (NaN or clipped values) — the doc of each says so.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"

namespace cuskimage::exposure {

// ---- histograms -------------------------------------------------------------------------------

enum class SourceRange { image, dtype };
CUSK_ENUM(SourceRange, image, dtype)
/// "image" or "dtype" (InvalidArgument otherwise).
SourceRange source_range_from_name(std::string_view name);

struct HistogramOptions {
  /// Bins of float images (integer images get one bin per value).
  std::int64_t nbins = 256;
  /// image: the image's [min, max]; dtype: the dtype's range (float: [-1, 1], values outside it
  /// are not counted).
  SourceRange source_range = SourceRange::image;
  /// Divide the counts by their sum (float64 result).
  bool normalize = false;
  /// Axis of the channels: one histogram per channel over common bins, hist of shape (C, nbins).
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(HistogramOptions,
             (nbins, "number of bins (ignored for integer images)"),
             (source_range, "range of the bins"),
             (normalize, "divide by the sum of the counts"),
             (channel_axis, "axis of the channels (one histogram per channel)"))

/// `hist` (int64 counts, float64 when normalized) and `bin_centers` (int64 for integer images,
/// the image's float type otherwise), on the image's device.
struct HistogramResult {
  Array hist;
  Array bin_centers;
};

/// skimage.exposure.histogram. Float images: numpy.histogram's bins (edges computed as NumPy does,
/// bin membership by exact comparison with the edges); no synchronization. Integer images with
/// source_range image: the number of bins is max - min + 1, so CUDA arrays synchronize once to
/// learn it. Empty images raise InvalidArgument (NumPy fails on min of an empty array); so do
/// float images with a non-finite range on CPU arrays (on CUDA arrays, which do not synchronize to
/// check, the counts are then undefined).
HistogramResult histogram(const Array& image, const HistogramOptions& opts = {}, const Stream& stream = {});

struct CumulativeDistributionOptions {
  std::int64_t nbins = 256;
};
CUSK_OPTIONS(CumulativeDistributionOptions,
             (nbins, "number of bins (ignored for integer images)"))
/// `cdf` (float32 for float32 images, else float64) and `bin_centers`, as histogram's.
struct CumulativeDistributionResult {
  Array cdf;
  Array bin_centers;
};
/// skimage.exposure.cumulative_distribution: cumsum(hist) / total over histogram(image, nbins).
/// Synchronizes for integer images (as histogram).
CumulativeDistributionResult cumulative_distribution(const Array& image, const CumulativeDistributionOptions& opts = {},
                                                     const Stream& stream = {});

struct EqualizeHistOptions {
  std::int64_t nbins = 256;
  /// Same shape and device as the image; non-zero pixels are the ones whose histogram is used
  /// (the mapping is applied to every pixel). An empty handle uses every pixel.
  Array mask = {};
};
CUSK_OPTIONS(EqualizeHistOptions,
             (nbins, "number of bins (ignored for integer images)"),
             (mask, "pixels whose histogram is used (non-zero entries)"))
/// skimage.exposure.equalize_hist: numpy.interp(image, bin_centers, cdf), float32 for float32
/// input, else float64. 8- and 16-bit integer images and float images run without a host
/// synchronization; int32/int64 images synchronize once (their bin count is data-dependent).
/// An all-false mask raises InvalidArgument on CPU arrays (CUDA arrays: the result is NaN).
Array equalize_hist(const Array& image, const EqualizeHistOptions& opts = {}, const Stream& stream = {});

// ---- CLAHE ------------------------------------------------------------------------------------

struct EqualizeAdapthistOptions {
  /// Contextual region per spatial axis; empty: max(extent / 8, 1) per axis; one value: every axis.
  std::vector<std::int64_t> kernel_size = {};
  /// Normalized clip limit; <= 0 disables clipping (plain AHE).
  double clip_limit = 0.01;
  /// Grey bins of the tile histograms.
  std::int64_t nbins = 256;
  /// Axis of RGB(A) channels (3 or 4): CLAHE runs on the HSV value and the result is RGB (alpha
  /// dropped), as scikit-image's adapt_rgb(hsv_value). Unset: scikit-image's rule — a 3-D image
  /// whose last axis has 3 or 4 entries is RGB(A), anything else one grey image (2-D or 3-D).
  std::optional<int> channel_axis = std::nullopt;
  /// With channel_axis unset: false treats every 3-D image as a grey volume, even a (Z, Y, 3) one.
  bool detect_rgb = true;
};
CUSK_OPTIONS(EqualizeAdapthistOptions,
             (kernel_size, "contextual region per axis (default 1/8 of each extent)"),
             (clip_limit, "normalized clip limit (0: no clipping)"),
             (nbins, "grey bins of the region histograms"),
             (channel_axis, "axis of RGB(A) channels (default: a 3-D image with 3 or 4 entries last is RGB)"),
             (detect_rgb, "treat (M, N, 3|4) images as RGB when channel_axis is unset"))
/// skimage.exposure.equalize_adapthist (CLAHE) on 2-D and 3-D images: img_as_uint, 14-bit
/// rescale, per-tile histograms with scikit-image's clipping and redistribution, its float32
/// multilinear interpolation, then rescale to [0, 1]. The result is float32 for float32 input,
/// else float64, equal to scikit-image's bit for bit (the golden tests: 2-D, 3-D, RGB and RGBA).
/// CUDA: five kernels (range, tile histograms, clip + map per tile, interpolation, normalization),
/// no host synchronization. Float images outside [-1, 1] raise InvalidArgument on CPU arrays (as
/// img_as_uint does); on CUDA arrays they are clipped to [0, 1] without a check.
Array equalize_adapthist(const Array& image, const EqualizeAdapthistOptions& opts = {}, const Stream& stream = {});

// ---- intensity ---------------------------------------------------------------------------------

/// An intensity range as scikit-image accepts it: "image" (the image's min and max), "dtype" (the
/// image dtype's range), a dtype name ("uint8", "float32", "uint10", "uint12", "uint14", "float",
/// "int", ...: that dtype's range) or an explicit (min, max) pair.
struct IntensityRange {
  enum class Kind { image, dtype, name, values };
  Kind kind = Kind::image;
  std::string name;  // Kind::name
  double lo = 0, hi = 0;  // Kind::values

  IntensityRange(const char* s) : IntensityRange(std::string(s)) {}  // NOLINT(google-explicit-constructor)
  IntensityRange(std::string s);                                     // NOLINT(google-explicit-constructor)
  IntensityRange(double min, double max) : kind(Kind::values), lo(min), hi(max) {}
};

struct RescaleIntensityOptions {
  IntensityRange in_range = "image";
  IntensityRange out_range = "dtype";
};
CUSK_OPTIONS(RescaleIntensityOptions,
             (in_range, "'image', 'dtype', a dtype name or MIN,MAX"),
             (out_range, "'image', 'dtype', a dtype name or MIN,MAX"))
/// skimage.exposure.rescale_intensity: clip to in_range, then map linearly onto out_range. The
/// result has the image's dtype for "image"/"dtype", the named dtype for a dtype name (uint16 for
/// uint10/12/14), and float64 (float32 for float32 input) for a pair. Integer targets truncate
/// (astype). "image" ranges come from a device reduction (no synchronization). Unknown names raise
/// InvalidArgument.
Array rescale_intensity(const Array& image, const RescaleIntensityOptions& opts = {}, const Stream& stream = {});

struct AdjustGammaOptions {
  /// Non-negative exponent.
  double gamma = 1.0;
  double gain = 1.0;
};
CUSK_OPTIONS(AdjustGammaOptions,
             (gamma, "non-negative exponent"),
             (gain, "constant multiplier"))
/// skimage.exposure.adjust_gamma: uint8 through scikit-image's 256-entry table (exact); other
/// dtypes ((x / scale) ** gamma) * scale * gain with scale = the dtype's positive maximum (1 for
/// floats), truncated to the dtype. pow differs between libm and CUDA by up to 2 ulp, so integer
/// results may differ by one where the exact value is within that of an integer. Negative gamma
/// raises InvalidArgument; negative pixels raise it on CPU arrays only.
Array adjust_gamma(const Array& image, const AdjustGammaOptions& opts = {}, const Stream& stream = {});

struct AdjustLogOptions {
  double gain = 1.0;
  /// Inverse: gain * (2 ** (x / scale) - 1) * scale.
  bool inv = false;
};
CUSK_OPTIONS(AdjustLogOptions,
             (gain, "constant multiplier"),
             (inv, "inverse: gain * (2 ** x - 1)"))
/// skimage.exposure.adjust_log: gain * log2(1 + x / scale) * scale. Negative pixels raise
/// InvalidArgument on CPU arrays only.
Array adjust_log(const Array& image, const AdjustLogOptions& opts = {}, const Stream& stream = {});

struct AdjustSigmoidOptions {
  double cutoff = 0.5;
  double gain = 10.0;
  /// Negative sigmoid: 1 - sigmoid.
  bool inv = false;
};
CUSK_OPTIONS(AdjustSigmoidOptions,
             (cutoff, "horizontal shift of the curve"),
             (gain, "multiplier in the exponent"),
             (inv, "negative sigmoid"))
/// skimage.exposure.adjust_sigmoid: scale / (1 + exp(gain * (cutoff - x / scale))). Negative
/// pixels raise InvalidArgument on CPU arrays only.
Array adjust_sigmoid(const Array& image, const AdjustSigmoidOptions& opts = {}, const Stream& stream = {});

// ---- matching, contrast test -------------------------------------------------------------------

struct MatchHistogramsOptions {
  /// Axis of the channels (matched one by one; image and reference need the same count).
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(MatchHistogramsOptions,
             (channel_axis, "axis of the channels (matched one by one)"))
/// skimage.exposure.match_histograms: each value's quantile in `image` mapped through the
/// reference's quantiles (numpy.interp). Without channel_axis the result is float64 (float32 for
/// float32 input); with channel_axis it has the image's dtype (integer images truncate, as
/// scikit-image's preallocated output does). Unsigned images need an integer reference (scikit-
/// image's bincount). CUDA: radix sort (CUB) or, for 8/16-bit unsigned data, histograms; no
/// host synchronization. image and reference must have the same ndim (InvalidArgument).
Array match_histograms(const Array& image, const Array& reference, const MatchHistogramsOptions& opts = {},
                       const Stream& stream = {});

struct IsLowContrastOptions {
  double fraction_threshold = 0.05;
  double lower_percentile = 1.0;
  double upper_percentile = 99.0;
  /// The contrast method; "linear" is the only one.
  std::string method = "linear";
};
CUSK_OPTIONS(IsLowContrastOptions,
             (fraction_threshold, "low-contrast fraction of the dtype range"),
             (lower_percentile, "lower percentile of the range"),
             (upper_percentile, "upper percentile of the range"),
             (method, "contrast determination method"))
/// skimage.exposure.is_low_contrast: (percentile(upper) - percentile(lower)) / (dtype range) <
/// fraction_threshold, NumPy's linear percentiles. 3-D images with 3 or 4 channels last go through
/// rgba2rgb / rgb2gray first (float images then, whose dtype range is [-1, 1]); bool images are
/// low contrast unless both values occur. Synchronizes (returns a host value); on CUDA the order
/// statistics come from a device radix sort.
bool is_low_contrast(const Array& image, const IsLowContrastOptions& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::exposure
