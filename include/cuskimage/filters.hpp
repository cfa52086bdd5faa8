// skimage.filters. Every function runs on CPU arrays (OpenMP) and on CUDA arrays (CUDA kernels on
// `stream`); the input's device picks the backend.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/device.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/options.hpp"

namespace cuskimage::filters {

// ==== thresholding ================================================================================
// Histogram-based thresholds reproduce scikit-image 0.26 exactly: the histogram of
// skimage.exposure.histogram(source_range='image') (integer images: one bin per value over
// [min, max], nbins ignored; float images: numpy.histogram's nbins equal bins over [min, max] in the
// image's precision), float32 counts, NumPy's evaluation order and first-index tie-breaking. The
// returned threshold is a bin centre (integer images: an integer value; float32 images: a float32
// value) given as a double. Supported dtypes: uint8, int8, uint16, int16, float32, float64.
//
// On CUDA arrays the histogram, its range and the threshold selection run on the device; only the
// result crosses to the host, and the call synchronizes `stream` (the one allowed sync).

/// A precomputed histogram (scikit-image's `hist=` argument): counts and, optionally, bin centres
/// (default 0, 1, 2, ...). Host arrays; zero counts at both ends are trimmed as scikit-image does.
struct Histogram {
  Array counts;                       // 1-D, any real dtype (used as float32)
  std::optional<Array> bin_centers;   // 1-D, same length (int64, float32 or float64)
};

struct ThresholdOtsuOptions {
  std::int64_t nbins = 256;
  std::optional<Histogram> hist = std::nullopt;  // used instead of the image when set
};
CUSK_OPTIONS(ThresholdOtsuOptions,
             (nbins, "number of histogram bins (ignored for integer images)"),
             (hist, "precomputed histogram used instead of the image"))
/// skimage.filters.threshold_otsu. A constant image returns its value. `image` may be an empty
/// handle when `hist` is set.
double threshold_otsu(const Array& image, const ThresholdOtsuOptions& opts = {}, const Stream& stream = {});

struct ThresholdMultiotsuOptions {
  int classes = 3;
  std::int64_t nbins = 256;
  std::optional<Histogram> hist = std::nullopt;
};
CUSK_OPTIONS(ThresholdMultiotsuOptions,
             (classes, "number of classes"),
             (nbins, "number of histogram bins (ignored for integer images)"),
             (hist, "precomputed histogram used instead of the image"))
/// skimage.filters.threshold_multiotsu: classes - 1 thresholds in increasing order. InvalidArgument
/// when the binned image has fewer than `classes` distinct values. The search is exhaustive
/// (O(nbins^(classes-1))) as in scikit-image.
std::vector<double> threshold_multiotsu(const Array& image, const ThresholdMultiotsuOptions& opts = {},
                                        const Stream& stream = {});

struct ThresholdIsodataOptions {
  std::int64_t nbins = 256;
  std::optional<Histogram> hist = std::nullopt;
};
CUSK_OPTIONS(ThresholdIsodataOptions,
             (nbins, "number of histogram bins (ignored for integer images)"),
             (hist, "precomputed histogram used instead of the image"))
/// skimage.filters.threshold_isodata (return_all=False): the lowest threshold satisfying
/// t = (mean(image <= t) + mean(image > t)) / 2. InvalidArgument when none exists.
double threshold_isodata(const Array& image, const ThresholdIsodataOptions& opts = {}, const Stream& stream = {});
/// threshold_isodata(..., return_all=True): every such threshold, increasing.
std::vector<double> threshold_isodata_all(const Array& image, const ThresholdIsodataOptions& opts = {},
                                          const Stream& stream = {});

struct ThresholdYenOptions {
  std::int64_t nbins = 256;
  std::optional<Histogram> hist = std::nullopt;
};
CUSK_OPTIONS(ThresholdYenOptions,
             (nbins, "number of histogram bins (ignored for integer images)"),
             (hist, "precomputed histogram used instead of the image"))
/// skimage.filters.threshold_yen.
double threshold_yen(const Array& image, const ThresholdYenOptions& opts = {}, const Stream& stream = {});

struct ThresholdMinimumOptions {
  std::int64_t nbins = 256;
  std::int64_t max_num_iter = 10000;
  std::optional<Histogram> hist = std::nullopt;
};
CUSK_OPTIONS(ThresholdMinimumOptions,
             (nbins, "number of histogram bins (ignored for integer images)"),
             (max_num_iter, "maximum number of smoothing iterations"),
             (hist, "precomputed histogram used instead of the image"))
/// skimage.filters.threshold_minimum: smooths the histogram (3-bin mean, reflect) until it has two
/// maxima and returns the minimum between them. InvalidArgument where scikit-image raises
/// RuntimeError (no two maxima, or max_num_iter reached).
double threshold_minimum(const Array& image, const ThresholdMinimumOptions& opts = {}, const Stream& stream = {});

struct ThresholdTriangleOptions {
  std::int64_t nbins = 256;
};
CUSK_OPTIONS(ThresholdTriangleOptions,
             (nbins, "number of histogram bins (ignored for integer images)"))
/// skimage.filters.threshold_triangle.
double threshold_triangle(const Array& image, const ThresholdTriangleOptions& opts = {}, const Stream& stream = {});

struct ThresholdLiOptions {
  /// Stop when the threshold moves less than this; unset (or 0): 0.5 for integer images, half the
  /// smallest gap between distinct values for float images (that one sorts the image).
  std::optional<double> tolerance = std::nullopt;
  /// Starting threshold inside the image's range (InvalidArgument otherwise); unset: the mean.
  std::optional<double> initial_guess = std::nullopt;
};
CUSK_OPTIONS(ThresholdLiOptions,
             (tolerance, "stop when the threshold changes less than this"),
             (initial_guess, "starting threshold (default: the mean)"))
/// skimage.filters.threshold_li (Li's minimum cross entropy, iterative). NaNs are ignored; an image
/// of one value returns it; only infinities returns 0. Integer images iterate on the histogram as
/// scikit-image does (float64, NumPy's pairwise sums; equal results). Float images iterate on the
/// pixels; the CPU backend sums pairwise in the image's precision as NumPy does, the CUDA backend
/// in float64. float64 images match scikit-image; for float32 images NumPy's float32 log is not
/// correctly rounded (and depends on the CPU's SIMD level), so a last-bit difference can move
/// where the iteration stops: results agree within the tolerance (typically 1e-6..1e-5
/// relative). On CUDA arrays each iteration is one device reduction; only four scalars cross.
double threshold_li(const Array& image, const ThresholdLiOptions& opts = {}, const Stream& stream = {});

/// skimage.filters.threshold_mean: np.mean(image). Integer images: float64 mean. float32 images:
/// the mean of a float64 sum rounded to float32 (NumPy sums float32 pairwise in float32; the two
/// agree within a few float32 ulps). An empty image gives NaN.
double threshold_mean(const Array& image, const Stream& stream = {});

// ==== edges and smoothing (gaussian, difference_of_gaussians, sobel/scharr/prewitt/roberts/farid,
// laplace, unsharp_mask) =============================================================================

// dtypes follow scikit-image: integer and bool images are converted with img_as_float (float64;
// preserve_range=true keeps their values), float32 stays float32, float64 stays float64. All
// functions take any ndim the CPU backend supports unless noted (2-D only: the *_h/*_v forms, roberts*,
// farid_h/v); on CUDA the N-d edge filters run 1-D to 3-D.
//
// CPU: scipy's double sums (the golden tests compare within 1e-6 for float32 and 1e-12 for float64).
// CUDA, 2-D float images: gaussian runs ndimage::gaussian_filter's fused kernel and the edge filters one
// fused stencil kernel (image -> magnitude, masked), both summing float32 images in float32: results
// agree with the CPU backend within 1e-5 (gaussian) / 2e-6 (edges) times max|image| absolute.

/// sigma: one value for every axis or one per axis.
struct Sigma {
  std::vector<double> v;
  Sigma(double s) : v{s} {}                                  // NOLINT(google-explicit-constructor)
  Sigma(std::initializer_list<double> l) : v(l) {}
  Sigma(std::vector<double> l) : v(std::move(l)) {}          // NOLINT
};

struct GaussianOptions {
  Sigma sigma = 1.0;
  ndimage::Modes mode = ndimage::Mode::nearest;
  double cval = 0.0;
  bool preserve_range = false;
  double truncate = 4.0;
  /// Axis of colour channels (not smoothed); sigma then has one value or one per spatial axis.
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(GaussianOptions,
             (sigma, "standard deviation, one or one per axis"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"),
             (preserve_range, "keep integer values instead of img_as_float"),
             (truncate, "kernel radius in standard deviations"),
             (channel_axis, "axis of colour channels (not filtered)"))
/// skimage.filters.gaussian (ndimage::gaussian_filter of the float image).
Array gaussian(const Array& image, const GaussianOptions& opts = {}, const Stream& stream = {});
/// gaussian into `out` (the image's shape and device, float32 or float64, any strides).
void gaussian_into(const Array& image, Array& out, const GaussianOptions& opts = {}, const Stream& stream = {});

struct DifferenceOfGaussiansOptions {
  /// Unset: 1.6 * low_sigma.
  std::optional<Sigma> high_sigma = std::nullopt;
  ndimage::Modes mode = ndimage::Mode::nearest;
  double cval = 0.0;
  std::optional<int> channel_axis = std::nullopt;
  double truncate = 4.0;
};
CUSK_OPTIONS(DifferenceOfGaussiansOptions,
             (high_sigma, "the larger standard deviation(s) (default 1.6 * low)"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"),
             (channel_axis, "axis of colour channels (not filtered)"),
             (truncate, "kernel radius in standard deviations"))
/// skimage.filters.difference_of_gaussians: gaussian(low_sigma) - gaussian(high_sigma) of
/// img_as_float(image). Sigmas: one value or one per spatial axis; high_sigma >= low_sigma.
Array difference_of_gaussians(const Array& image, const Sigma& low_sigma, const DifferenceOfGaussiansOptions& opts = {},
                              const Stream& stream = {});

struct UnsharpMaskOptions {
  Sigma radius = 1.0;  // the Gaussian's sigma
  double amount = 1.0;
  bool preserve_range = false;
  std::optional<int> channel_axis = std::nullopt;
};
CUSK_OPTIONS(UnsharpMaskOptions,
             (radius, "the Gaussian's standard deviation(s)"),
             (amount, "strength of the sharpening"),
             (preserve_range, "keep the value range (no clipping)"),
             (channel_axis, "axis of colour channels (not filtered)"))
/// skimage.filters.unsharp_mask: image + (image - gaussian(image, radius, mode='reflect')) * amount,
/// clipped to [0, 1] (or [-1, 1] when the float image has negative values) unless preserve_range.
/// Without preserve_range, a float image is scanned for negative values (on CUDA a device reduction
/// whose flag the clipping kernel reads: no synchronisation).
Array unsharp_mask(const Array& image, const UnsharpMaskOptions& opts = {}, const Stream& stream = {});

/// Options of the N-d edge filters sobel, scharr, prewitt and farid.
struct EdgeOptions {
  /// Optional: only pixels whose full 3^ndim neighbourhood lies in the mask (binary erosion,
  /// border 0) keep their value, the rest are 0. Any dtype (non-zero = in), the image's shape.
  Array mask = {};
  /// Empty: every axis. One axis: the signed derivative along it; several: the magnitude over them
  /// (divided by sqrt(ndim), as scikit-image does). Negative axes count from the end.
  std::vector<int> axis = {};
  ndimage::Mode mode = ndimage::Mode::reflect;
  double cval = 0.0;
};
CUSK_OPTIONS(EdgeOptions,
             (mask, "only pixels inside the (eroded) mask are kept"),
             (axis, "axis or axes (default all: the magnitude)"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"))

/// skimage.filters.sobel / scharr / prewitt / farid: sqrt(sum over axes of (edge along the axis,
/// smoothing along the others)^2 / ndim), or one axis's signed response.
Array sobel(const Array& image, const EdgeOptions& opts = {}, const Stream& stream = {});
Array scharr(const Array& image, const EdgeOptions& opts = {}, const Stream& stream = {});
Array prewitt(const Array& image, const EdgeOptions& opts = {}, const Stream& stream = {});
Array farid(const Array& image, const EdgeOptions& opts = {}, const Stream& stream = {});

/// The 2-D single-direction forms (mode reflect): *_h finds horizontal edges (derivative along axis
/// 0), *_v vertical ones (axis 1). `mask` as in EdgeOptions (empty: none).
Array sobel_h(const Array& image, const Array& mask = {}, const Stream& stream = {});
Array sobel_v(const Array& image, const Array& mask = {}, const Stream& stream = {});
Array scharr_h(const Array& image, const Array& mask = {}, const Stream& stream = {});
Array scharr_v(const Array& image, const Array& mask = {}, const Stream& stream = {});
Array prewitt_h(const Array& image, const Array& mask = {}, const Stream& stream = {});
Array prewitt_v(const Array& image, const Array& mask = {}, const Stream& stream = {});
Array farid_h(const Array& image, const Array& mask = {}, const Stream& stream = {});
Array farid_v(const Array& image, const Array& mask = {}, const Stream& stream = {});

/// skimage.filters.roberts (2-D): sqrt(pos_diag^2 + neg_diag^2) / sqrt(2).
Array roberts(const Array& image, const Array& mask = {}, const Stream& stream = {});
/// Convolution with [[1, 0], [0, -1]] (mode reflect), 2-D.
Array roberts_pos_diag(const Array& image, const Array& mask = {}, const Stream& stream = {});
/// Convolution with [[0, 1], [-1, 0]] (mode reflect), 2-D.
Array roberts_neg_diag(const Array& image, const Array& mask = {}, const Stream& stream = {});

struct LaplaceOptions {
  /// Accepted for scikit-image compatibility: its discrete Laplacian is always the 3^ndim operator.
  std::int64_t ksize = 3;
  Array mask = {};
};
CUSK_OPTIONS(LaplaceOptions,
             (ksize, "accepted for compatibility (the operator is always 3^ndim)"),
             (mask, "only pixels inside the (eroded) mask are kept"))
/// skimage.filters.laplace: convolution with the 3^ndim Laplacian (centre 2 ndim, -1 on each axis
/// neighbour; mode reflect), any ndim.
Array laplace(const Array& image, const LaplaceOptions& opts = {}, const Stream& stream = {});
// @@edges@@

// ==== rank and local filters (median, rank_order, correlate_sparse, window, local thresholds,
// apply_hysteresis_threshold, try_all_threshold) =====================================================

/// scikit-image's `behavior` of median: scipy.ndimage.median_filter, or skimage.filters.rank.median.
enum class MedianBehavior { ndimage, rank };
CUSK_ENUM(MedianBehavior, ndimage, rank)

struct MedianOptions {
  /// Non-zero entries are the window; the image's ndim. Unset: all ones of shape 3^ndim.
  Array footprint = {};
  /// Boundary mode and cval (behavior='ndimage' only; 'rank' ignores samples outside the image).
  ndimage::Mode mode = ndimage::Mode::nearest;
  double cval = 0.0;
  MedianBehavior behavior = MedianBehavior::ndimage;
};
CUSK_OPTIONS(MedianOptions,
             (footprint, "window (non-zero entries); default 3^ndim ones"),
             (mode, "boundary mode (behavior='ndimage')"),
             (cval, "value past the edges for mode 'constant'"),
             (behavior, "implementation semantics"))
/// skimage.filters.median. behavior='ndimage' (scipy.ndimage.median_filter): rank K / 2 of the K
/// window samples (the upper median for even K; even-sized footprints are centred at size // 2 as
/// scipy does), any ndim on the CPU and 1-D to 3-D on CUDA, dtypes uint8, int8, uint16, int16,
/// uint32, int32, uint64, int64, float32, float64 (result: the input's dtype; values pass through
/// double as in scipy, so 64-bit integers past 2^53 round; NaN handling unspecified).
/// behavior='rank' (skimage.filters.rank.median): 2-D or 3-D, samples outside the image are left out
/// (rank n / 2 of the n inside; mode and cval are ignored), uint8/uint16 kept, bool rejected, other
/// dtypes converted with util::img_as_ubyte first (scikit-image warns) and the result is uint8.
/// CUDA: 2-D full 3x3 and 5x5 windows run a shared-memory forgetful selection network (uint8: four
/// pixels per 32-bit word with byte-SIMD min/max); other windows a per-pixel radix select.
Array median(const Array& image, const MedianOptions& opts = {}, const Stream& stream = {});
/// median with scikit-image's `out=`: `out` has the result's shape, dtype and device, any strides,
/// and does not overlap `image`.
void median_into(const Array& image, Array& out, const MedianOptions& opts = {}, const Stream& stream = {});

struct RankOrderResult {
  /// Rank of each pixel among the sorted unique values; dtype np.min_scalar_type(image.size)
  /// (uint8, uint16, uint32 or uint64), the image's shape.
  Array labels;
  /// The unique values, increasing, in the image's dtype (1-D).
  Array original_values;
};
/// skimage.filters.rank_order (all dtypes but bool; float NaNs are unspecified). On CUDA the sort
/// runs on the device (CUB radix sort) and the call synchronizes `stream` once to size the unique
/// values.
RankOrderResult rank_order(const Array& image, const Stream& stream = {});

struct CorrelateSparseOptions {
  /// scipy's boundary names ('reflect', 'mirror', 'nearest', 'wrap', 'constant' (zeros), with the
  /// grid- aliases) or 'valid' (no padding: the result shrinks by kernel.shape - 1).
  std::string mode = "reflect";
};
CUSK_OPTIONS(CorrelateSparseOptions,
             (mode, "padding mode, or 'valid'"))
/// skimage.filters.correlate_sparse: correlation with `kernel` (the image's ndim, odd sizes unless
/// mode 'valid') summed term by term over its non-zero entries in C order, in the image's float type
/// (float32 stays float32, others float64), exactly as scikit-image's NumPy arithmetic. `kernel`
/// may live on either device (copied to the host).
Array correlate_sparse(const Array& image, const Array& kernel, const CorrelateSparseOptions& opts = {},
                       const Stream& stream = {});

/// A scipy.signal.get_window window type: a name and its parameters (scipy's tuple form).
/// Supported (symmetric windows, fftbins=False): boxcar (box, ones, rect, rectangular), triang
/// (triangle, tri), blackman (black, blk), hamming (hamm, ham), hann (han), bartlett (bart, brt),
/// flattop (flat, flt), parzen (parz, par), bohman (bman, bmn), blackmanharris (blackharr, bkh),
/// nuttall (nutl, nut), barthann (brthan, bth), cosine (halfcosine), lanczos (sinc),
/// tukey [alpha = 0.5] (tuk), general_hamming (alpha) (general hamming), exponential [center =
/// None (pass NaN), tau = 1] (poisson), kaiser (beta) (ksr), gaussian (std) (gauss, gss),
/// general_gaussian (p, sig) (general gaussian, general_gauss, general gauss, ggs), taylor [nbar = 4,
/// sll = 30, norm = 1] (taylorwin). Not supported: chebwin, dpss, general_cosine, kaiser_bessel_derived.
struct WindowType {
  std::string name;
  std::vector<double> params = {};
  WindowType(const char* n) : name(n) {}                 // NOLINT(google-explicit-constructor)
  WindowType(std::string n, std::vector<double> p = {})  // NOLINT(google-explicit-constructor)
      : name(std::move(n)), params(std::move(p)) {}
};
struct WindowOptions {
  /// Where the window is generated (CUDA: on the device, by a kernel).
  Device device = Device::cpu();
};
CUSK_OPTIONS(WindowOptions,
             (device, "where the window is generated"))
/// skimage.filters.window: the 1-D window of length max(shape) rotated into `shape` (any ndim >= 1)
/// with linear interpolation (warp's order 1, mode constant), float64. scikit-image's `warp_kwargs`
/// is not supported. Agrees with scikit-image within 1e-12 (its float32 radius is reproduced).
Array window(const WindowType& window_type, const Shape& shape, const WindowOptions& opts = {},
             const Stream& stream = {});

enum class ThresholdLocalMethod { gaussian, mean, median, generic };
CUSK_ENUM(ThresholdLocalMethod, gaussian, mean, median, generic)
struct ThresholdLocalOptions {
  /// Odd sizes: one for every axis or one per axis.
  std::vector<std::int64_t> block_size = {3};
  ThresholdLocalMethod method = ThresholdLocalMethod::gaussian;
  double offset = 0.0;
  ndimage::Mode mode = ndimage::Mode::reflect;
  /// method 'gaussian': sigma (one, or one per axis); empty: (block_size - 1) / 6 per axis.
  std::vector<double> param = {};
  /// method 'generic' (scikit-image's callable `param`): receives the window's samples (C order,
  /// boundary-extended) and returns the local threshold. CPU arrays only (NotSupported on CUDA).
  std::function<double(const std::vector<double>&)> function = {};
  double cval = 0.0;
};
CUSK_OPTIONS(ThresholdLocalOptions,
             (block_size, "odd block size (one or per axis)"),
             (method, "local statistic"),
             (offset, "subtracted from the local statistic"),
             (mode, "boundary mode"),
             (param, "sigma for method 'gaussian'"),
             (function, "method 'generic': the local threshold of a window's samples"),
             (cval, "value past the edges for mode 'constant'"))
/// skimage.filters.threshold_local: the local threshold image (float32 for float32 input, else
/// float64) = filter(image as float) - offset, with ndimage::gaussian_filter (truncate 4),
/// uniform_filter or median over block_size.
Array threshold_local(const Array& image, const ThresholdLocalOptions& opts = {}, const Stream& stream = {});

struct ThresholdNiblackOptions {
  /// Odd sizes: one for every axis or one per axis.
  std::vector<std::int64_t> window_size = {15};
  double k = 0.2;
};
CUSK_OPTIONS(ThresholdNiblackOptions,
             (window_size, "odd window size"),
             (k, "weight of the local standard deviation"))
/// skimage.filters.threshold_niblack: m - k * s with the local mean and standard deviation from
/// float64 integral images of the image padded by NumPy's 'reflect' (scikit-image's _mean_std,
/// reproduced term by term; float32 input gives float32). Any ndim on the CPU, 1-D to 3-D on CUDA.
/// CUDA results agree within 1e-12 relative (float64) / 1 float32 ulp of the window sums' rounding.
Array threshold_niblack(const Array& image, const ThresholdNiblackOptions& opts = {}, const Stream& stream = {});

struct ThresholdSauvolaOptions {
  std::vector<std::int64_t> window_size = {15};
  double k = 0.2;
  /// Dynamic range of the standard deviation; unset: half the dtype's range (dtype_limits).
  std::optional<double> r = std::nullopt;
};
CUSK_OPTIONS(ThresholdSauvolaOptions,
             (window_size, "odd window size"),
             (k, "weight of the local standard deviation"),
             (r, "dynamic range of the standard deviation"))
/// skimage.filters.threshold_sauvola: m * (1 + k * (s / r - 1)), m and s as threshold_niblack.
Array threshold_sauvola(const Array& image, const ThresholdSauvolaOptions& opts = {}, const Stream& stream = {});

/// skimage.filters.apply_hysteresis_threshold: bool mask of the connected components (face
/// connectivity, scipy.ndimage.label's default) of image > min(low, high) that hold a pixel of
/// image > high. As NumPy compares: float32 images compare with float32(high) and with low in double
/// (np.clip makes it a float64 scalar). Any ndim on the CPU; 1-D to 3-D on CUDA (union-find
/// connected components, kernels/core/union_find.cuh). Every dtype, bool included.
Array apply_hysteresis_threshold(const Array& image, double low, double high, const Stream& stream = {});

/// skimage.filters.try_all_threshold without the figure: (name, image > threshold) for Isodata, Li,
/// Mean, Minimum, Otsu, Triangle and Yen, in that order (scikit-image's errors propagate, e.g.
/// threshold_minimum's). Comparisons are made in the image's precision.
std::vector<std::pair<std::string, Array>> try_all_threshold(const Array& image, const Stream& stream = {});

// @@local@@

// ==== frequency-domain filters (butterworth, wiener, LPIFilter2D, filter_forward/inverse, gabor) ====

// FFTs run through FFTW3 on CPU arrays and cuFFT on CUDA arrays; a build without the backend's
// library (CUSK_HAVE_FFTW / CUSK_HAVE_CUFFT) raises NotSupported. scikit-image's steps (padding,
// rfftn/irfftn, fftn/ifftn, ifftshift, centring) are reproduced; only the FFT's rounding differs
// from scipy.fft's pocketfft: results agree within ~1e-12 (float64) or ~1e-5 (float32) relative to
// the largest output value. Complex values have no dtype: complex results come back as two real
// arrays (real, imag) and spectra are never returned.

struct ButterworthOptions {
  /// Cut-off as a fraction of the sampling frequency, in [0, 0.5].
  double cutoff_frequency_ratio = 0.005;
  bool high_pass = true;
  double order = 2.0;
  /// Axis of the channels (not filtered), or unset: every axis is spatial.
  std::optional<int> channel_axis = std::nullopt;
  /// True: the textbook (squared) Butterworth gain; false: its square root.
  bool squared_butterworth = true;
  /// Edge-padding (np.pad mode='edge') of every spatial axis before the FFT, cropped afterwards.
  std::int64_t npad = 0;
};
CUSK_OPTIONS(ButterworthOptions,
             (cutoff_frequency_ratio, "cut-off as a fraction of the sampling frequency"),
             (high_pass, "high-pass (true) or low-pass (false)"),
             (order, "filter order (slope at the cut-off)"),
             (channel_axis, "axis of the channels, not filtered"),
             (squared_butterworth, "use the squared Butterworth gain"),
             (npad, "edge padding of every axis before the FFT"))
/// skimage.filters.butterworth on N-d real images (any real dtype; float32 stays float32, others give
/// float64): rfftn over the spatial axes, the Butterworth gain, irfftn. Both backends take up to 7
/// spatial axes (CUDA: past cuFFT's 3, leading axes go through extra batched C2C transforms).
Array butterworth(const Array& image, const ButterworthOptions& opts = {}, const Stream& stream = {});

/// scikit-image's `impulse_response(r, c, **filter_params)`: the filter's value at row/column offset
/// (r, c) from its centre. Parameters are captured by the callable, e.g.
///   [sigma](double r, double c) { return std::exp(-(r * r + c * c) / (2 * sigma * sigma)); }
/// It is evaluated on the host (for float32 data the values are rounded to float32, where scikit-image
/// evaluates the Python function on float32 coordinates).
using ImpulseResponse = std::function<double(double r, double c)>;

/// skimage.filters.LPIFilter2D: a linear position-invariant 2-D filter defined by its impulse
/// response. The filter's spectrum is cached for the last data shape, precision and device, as
/// scikit-image caches it; copies share the cache (thread-safe). Work using one cached spectrum
/// from several streams is ordered after the stream that made it.
class LPIFilter2D {
 public:
  /// InvalidArgument when `impulse_response` is empty ("Impulse response must be a callable").
  explicit LPIFilter2D(ImpulseResponse impulse_response);
  /// __call__: |ifftn(F * G)| cropped to data's shape, where F and G are the spectra of the impulse
  /// response and of `data` (2-D, any real dtype), both zero-padded to (2M-1, 2N-1). Returns float32
  /// for float32 data, else float64.
  Array operator()(const Array& data, const Stream& stream = {}) const;
  const ImpulseResponse& impulse_response() const;

  struct State;  // impulse response + cached spectrum (internal)
  const std::shared_ptr<State>& state() const { return state_; }

 private:
  std::shared_ptr<State> state_;
};

struct FilterForwardOptions {
  /// Required unless predefined_filter is set.
  ImpulseResponse impulse_response = {};
  /// Reuses a filter (and its cached spectrum) across calls; takes precedence over impulse_response.
  std::optional<LPIFilter2D> predefined_filter = std::nullopt;
};
CUSK_OPTIONS(FilterForwardOptions,
             (impulse_response, "the filter's impulse response"),
             (predefined_filter, "a filter reused across calls"))
/// skimage.filters.filter_forward: predefined_filter(data), or LPIFilter2D(impulse_response)(data).
Array filter_forward(const Array& data, const FilterForwardOptions& opts = {}, const Stream& stream = {});

struct FilterInverseOptions {
  ImpulseResponse impulse_response = {};
  /// Limits the inverse filter's gain |1/F|.
  double max_gain = 2.0;
  std::optional<LPIFilter2D> predefined_filter = std::nullopt;
};
CUSK_OPTIONS(FilterInverseOptions,
             (impulse_response, "the filter's impulse response"),
             (max_gain, "limit of the inverse filter's gain"),
             (predefined_filter, "a filter reused across calls"))
/// skimage.filters.filter_inverse: |ifftshift(ifftn(G / F))| centred, with |F| raised to the
/// precision's epsilon and |1/F| clipped to max_gain.
Array filter_inverse(const Array& data, const FilterInverseOptions& opts = {}, const Stream& stream = {});

struct WienerOptions {
  ImpulseResponse impulse_response = {};
  /// Noise-to-signal power ratio: a scalar, or a 2-D array broadcastable to the padded spectrum's
  /// shape (2M-1, 2N-1) as NumPy broadcasts it (extents equal or 1; any real dtype, any device).
  std::variant<double, Array> K = 0.25;
  std::optional<LPIFilter2D> predefined_filter = std::nullopt;
};
CUSK_OPTIONS(WienerOptions,
             (impulse_response, "the filter's impulse response"),
             (K, "noise-to-signal power ratio (a number or a 2-D array)"),
             (predefined_filter, "a filter reused across calls"))
/// skimage.filters.wiener: |ifftshift(ifftn(G * (1/F) |F|^2 / (|F|^2 + K)))| centred, |F| raised to
/// the precision's epsilon first. The result keeps data's precision (float32 data with a K array: scikit-image promotes to
/// float64; here the result stays float32).
Array wiener(const Array& data, const WienerOptions& opts = {}, const Stream& stream = {});

struct GaborKernelOptions {
  double theta = 0.0;
  double bandwidth = 1.0;
  /// Unset: derived from bandwidth and frequency.
  std::optional<double> sigma_x = std::nullopt;
  std::optional<double> sigma_y = std::nullopt;
  double n_stds = 3.0;
  double offset = 0.0;
  /// float64 (scikit-image's complex128, the default) or float32 (complex64): the precision of the
  /// two parts.
  DType dtype = DType::float64;
};
CUSK_OPTIONS(GaborKernelOptions,
             (theta, "orientation in radians"),
             (bandwidth, "bandwidth (ignored when sigma_x and sigma_y are given)"),
             (sigma_x, "standard deviation along x before rotation"),
             (sigma_y, "standard deviation along y before rotation"),
             (n_stds, "kernel half-size in standard deviations"),
             (offset, "phase offset in radians"),
             (dtype, "precision of the two parts (float64 or float32)"))
/// A complex array as two real arrays of one shape and dtype.
struct ComplexParts {
  Array real;
  Array imag;
};
/// skimage.filters.gabor_kernel: the complex kernel as its real and imaginary parts (host arrays of
/// shape (2*y0+1, 2*x0+1), float64, or float32 for dtype float32).
ComplexParts gabor_kernel(double frequency, const GaborKernelOptions& opts = {});

struct GaborOptions {
  double theta = 0.0;
  double bandwidth = 1.0;
  std::optional<double> sigma_x = std::nullopt;
  std::optional<double> sigma_y = std::nullopt;
  double n_stds = 3.0;
  double offset = 0.0;
  ndimage::Mode mode = ndimage::Mode::reflect;
  double cval = 0.0;
};
CUSK_OPTIONS(GaborOptions,
             (theta, "orientation in radians"),
             (bandwidth, "bandwidth (ignored when sigma_x and sigma_y are given)"),
             (sigma_x, "standard deviation along x before rotation"),
             (sigma_y, "standard deviation along y before rotation"),
             (n_stds, "kernel half-size in standard deviations"),
             (offset, "phase offset in radians"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value beyond the edges in 'constant' mode"))
/// skimage.filters.gabor: ndimage::convolve of the 2-D image with the kernel's real and imaginary
/// parts. As in scikit-image integer images are not converted: the responses keep the image's dtype
/// (truncated as scipy does); float32 images use the complex64 kernel. dtypes: uint8, uint16, int32,
/// float32, float64.
ComplexParts gabor(const Array& image, double frequency, const GaborOptions& opts = {}, const Stream& stream = {});

// @@frequency@@

// ==== ridge filters (hessian, frangi, meijering, sato) ==============================================

// Hessian-based ridge filters. Every scale computes the Hessian by Gaussian derivatives
// (skimage.feature.hessian_matrix(image, sigma, use_gaussian_derivatives=True): two first-derivative
// Gaussian passes of sigma / sqrt(2), truncated at 8 sigma, or 100 when sigma <= 1), its eigenvalues
// per pixel, and folds the scale's response into a running maximum. The input is cast (not scaled):
// float32 stays float32, every other real dtype (bool and integers included) becomes float64, and so
// does the result. 2-D and 3-D images (meijering: 1-D to 8-D). Sigmas must be positive (scikit-image
// does not check; scipy then silently skips the smoothing). Nothing synchronizes: frangi's automatic
// gamma and meijering's per-scale normalization are reductions that stay on the device.
// CUDA: per scale, the Gaussian passes and then one kernel computing eigenvalues, response and
// running max (no eigenvalue arrays are stored).
// Against scikit-image: 2-D eigenvalues use scikit-image's formula in the image's precision; 3-D
// ones are solved in float64 (trigonometric, Jacobi near double roots) where NumPy's eigvalsh is
// LAPACK in the image's precision; the Gaussian passes of the CUDA backend may round differently
// (see ndimage::gaussian_filter). Results agree within ~1e-9 (float64) and ~1e-4 (float32) of the
// output's maximum, except where a response hinges on an eigenvalue's sign near 0 (frangi's clipping
// at 1e-10 makes such pixels flip between 0 and their value; tests bound how many).

struct FrangiOptions {
  /// Scales (standard deviations of the Gaussian). scikit-image's default: range(1, 10, 2).
  std::vector<double> sigmas = {1, 3, 5, 7, 9};
  /// When both are set, sigmas = np.arange(scale_range[0], scale_range[1], scale_step) (deprecated
  /// in scikit-image, kept for its signature).
  std::optional<std::array<double, 2>> scale_range = std::nullopt;
  std::optional<double> scale_step = std::nullopt;
  /// Sensitivity to deviation from a plate-like structure (3-D only).
  double alpha = 0.5;
  /// Sensitivity to deviation from a blob-like structure.
  double beta = 0.5;
  /// Sensitivity to areas of high variance; unset: half the largest Hessian norm of the first scale
  /// (1 when that is 0), then kept for the other scales as scikit-image does.
  std::optional<double> gamma = std::nullopt;
  /// True: detect black ridges; false: white ones.
  bool black_ridges = true;
  ndimage::Mode mode = ndimage::Mode::reflect;
  double cval = 0.0;
};
CUSK_OPTIONS(FrangiOptions,
             (sigmas, "scales (Gaussian standard deviations)"),
             (scale_range, "(start, stop) of the scales; with scale_step replaces sigmas"),
             (scale_step, "step between scales (with scale_range)"),
             (alpha, "sensitivity to deviation from a plate-like structure"),
             (beta, "sensitivity to deviation from a blob-like structure"),
             (gamma, "sensitivity to high-variance areas (none: automatic)"),
             (black_ridges, "detect black ridges (false: white ones)"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"))
/// skimage.filters.frangi: Frangi's vesselness, the maximum over the scales. 2-D or 3-D, non-empty.
Array frangi(const Array& image, const FrangiOptions& opts = {}, const Stream& stream = {});

struct HessianOptions {
  std::vector<double> sigmas = {1, 3, 5, 7, 9};
  std::optional<std::array<double, 2>> scale_range = std::nullopt;
  std::optional<double> scale_step = std::nullopt;
  double alpha = 0.5;
  double beta = 0.5;
  /// scikit-image's default is 15; unset: frangi's automatic gamma.
  std::optional<double> gamma = 15.0;
  bool black_ridges = true;
  ndimage::Mode mode = ndimage::Mode::reflect;
  double cval = 0.0;
};
CUSK_OPTIONS(HessianOptions,
             (sigmas, "scales (Gaussian standard deviations)"),
             (scale_range, "(start, stop) of the scales; with scale_step replaces sigmas"),
             (scale_step, "step between scales (with scale_range)"),
             (alpha, "sensitivity to deviation from a plate-like structure"),
             (beta, "sensitivity to deviation from a blob-like structure"),
             (gamma, "sensitivity to high-variance areas (none: automatic)"),
             (black_ridges, "detect black ridges (false: white ones)"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"))
/// skimage.filters.hessian (hybrid Hessian filter): frangi with these defaults, then every value
/// <= 0 set to 1.
Array hessian(const Array& image, const HessianOptions& opts = {}, const Stream& stream = {});

struct MeijeringOptions {
  std::vector<double> sigmas = {1, 3, 5, 7, 9};
  /// Shaping constant; unset: 1 / (ndim + 1).
  std::optional<double> alpha = std::nullopt;
  bool black_ridges = true;
  ndimage::Mode mode = ndimage::Mode::reflect;
  double cval = 0.0;
};
CUSK_OPTIONS(MeijeringOptions,
             (sigmas, "scales (Gaussian standard deviations)"),
             (alpha, "shaping constant (none: 1 / (ndim + 1))"),
             (black_ridges, "detect black ridges (false: white ones)"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"))
/// skimage.filters.meijering: Meijering's neuriteness, each scale normalized to a maximum of 1
/// (unless it is all zero), the maximum over the scales. N-d (1 to 8 dimensions), non-empty.
Array meijering(const Array& image, const MeijeringOptions& opts = {}, const Stream& stream = {});

struct SatoOptions {
  std::vector<double> sigmas = {1, 3, 5, 7, 9};
  bool black_ridges = true;
  ndimage::Mode mode = ndimage::Mode::reflect;
  double cval = 0.0;
};
CUSK_OPTIONS(SatoOptions,
             (sigmas, "scales (Gaussian standard deviations)"),
             (black_ridges, "detect black ridges (false: white ones)"),
             (mode, "how the image is extended beyond its edges"),
             (cval, "value outside the edges for mode 'constant'"))
/// skimage.filters.sato: Sato's tubeness, the maximum over the scales. 2-D or 3-D, non-empty.
Array sato(const Array& image, const SatoOptions& opts = {}, const Stream& stream = {});
// @@ridges@@

}  // namespace cuskimage::filters
