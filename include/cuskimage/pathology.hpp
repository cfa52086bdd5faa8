// cuskimage::pathology — stain and augmentation operations for H&E tiles: what cuCIM offers
// outside scikit-image (cucim.core.operations.{color, intensity, spatial}) plus Reinhard colour
// normalisation. Every function runs on CPU arrays and on CUDA arrays (the input's device picks the
// backend) and the two backends compute the same values: per-pixel arithmetic is shared
// __host__ __device__ code with every rounding spelled out, reductions run in one fixed order, and
// random choices come from a counter-based generator (Philox4x32-10) keyed by the caller's seed.
//
// Semantics follow cuCIM 24.x's Python sources (see each function). Where cuCIM has a bug we do the
// documented thing and say so. Random ops cannot reproduce NumPy's global generator: the same seed
// gives the same result on both backends, not the same draw as cuCIM.
//
// Layouts. cuCIM's colour jitter, zoom and intensity ops take channel-first images (C, H, W) or
// batches (N, C, H, W); the stain functions take any layout with an RGB channel axis. Here each op
// takes an explicit channel_axis / spatial_axis so that channel-last tiles (H, W, 3) straight from
// the slide reader work as well as channel-first tensors.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"

namespace cuskimage::pathology {

// ---- optical density ----------------------------------------------------------------------------

struct ImageToAbsorbanceOptions {
  /// Transmitted light intensity (positive).
  double source_intensity = 255.0;
  /// float32 or float64.
  DType dtype = DType::float32;
};
CUSK_OPTIONS(ImageToAbsorbanceOptions,
             (source_intensity, "transmitted light intensity"),
             (dtype, "float32 or float64"))
/// cucim image_to_absorbance: -log(clip(image, lo, source_intensity) / source_intensity) in `dtype`;
/// lo = 1 for integer images, source_intensity / 255 for float images. Any shape.
Array image_to_absorbance(const Array& image, const ImageToAbsorbanceOptions& opts = {}, const Stream& stream = {});

struct AbsorbanceToImageOptions {
  double source_intensity = 255.0;
  /// Output dtype: integers are clipped to their range and rounded half to even; floats are not.
  DType dtype = DType::uint8;
};
CUSK_OPTIONS(AbsorbanceToImageOptions,
             (source_intensity, "transmitted light intensity"),
             (dtype, "output dtype"))
/// cucim absorbance_to_image: exp(-absorbance) * source_intensity. Integer absorbance is taken as
/// float32 (NumPy's promotion with float16 would give float16 for 8-bit types; we do not have it).
Array absorbance_to_image(const Array& absorbance, const AbsorbanceToImageOptions& opts = {},
                          const Stream& stream = {});

// ---- Macenko stain extraction and normalisation -------------------------------------------------

enum class ImageType { intensity, absorbance };
CUSK_ENUM(ImageType, intensity, absorbance)

struct StainExtractionOptions {
  /// Transmitted light intensity (image_type == intensity only).
  double source_intensity = 240.0;
  /// The [alpha, 100 - alpha] percentiles of the angle distribution are the robust extremes.
  double alpha = 1.0;
  /// Optical density below which (in any channel) a pixel is transparent and ignored.
  double beta = 0.345;
  /// The RGB axis (extent 3). cuCIM's code default is 0 (channel-first); ours is the last axis.
  int channel_axis = -1;
  ImageType image_type = ImageType::intensity;
};
CUSK_OPTIONS(StainExtractionOptions,
             (source_intensity, "transmitted light intensity"),
             (alpha, "percentile of the robust angle extremes"),
             (beta, "optical density threshold of transparent pixels"),
             (channel_axis, "RGB axis"),
             (image_type, "input kind"))
/// cucim stain_extraction_pca (Macenko et al., ISBI 2009): the (3, 2) float32 matrix whose columns
/// are the unit H and E absorbance vectors. Everything runs on the input's device (optical density,
/// transparent mask, covariance by a fixed-order reduction, a one-thread 3x3 Jacobi
/// eigen-decomposition, angle percentiles by radix selection): no host round trip.
/// Throws InvalidArgument for a channel axis of extent != 3, alpha outside [0, 100], beta < 0,
/// negative values in a float image (CPU only: the check would need a host round trip on CUDA,
/// where negative values are clipped like any value below the floor), and (CPU only) when every
/// pixel is transparent; on CUDA that case yields a NaN matrix.
/// Angles are taken from an exactly monotone pseudo-angle of the float32 projections; against
/// cuCIM's float32 arctan2 the vectors agree to ~1e-5.
Array stain_extraction_pca(const Array& image, const StainExtractionOptions& opts = {}, const Stream& stream = {});

struct NormalizeColorsPcaOptions {
  double source_intensity = 240.0;
  /// Percentile 100 - alpha of each stain's concentration is its robust maximum. As in cuCIM, the
  /// stain extraction inside uses its own default alpha (1), not this one.
  double alpha = 1.0;
  double beta = 0.345;
  /// Reference stain vectors (rows R, G, B; columns H, E).
  std::array<std::array<double, 2>, 3> ref_stain_coeff = {{{0.5626, 0.2159}, {0.7201, 0.8012}, {0.4062, 0.5581}}};
  std::array<double, 2> ref_max_conc = {1.9705, 1.0308};
  ImageType image_type = ImageType::intensity;
  int channel_axis = -1;
};
CUSK_OPTIONS(NormalizeColorsPcaOptions,
             (source_intensity, "transmitted light intensity"),
             (alpha, "100 - alpha is the percentile of the maximum concentrations"),
             (beta, "optical density threshold of transparent pixels"),
             (ref_stain_coeff, "reference stain matrix, row-major (3, 2): R_H,R_E,G_H,G_E,B_H,B_E"),
             (ref_max_conc, "reference maximum concentrations (H, E)"),
             (image_type, "input kind"),
             (channel_axis, "RGB axis"))
/// cucim normalize_colors_pca: Macenko fit (stain_extraction_pca), concentrations by the
/// pseudo-inverse of the stain matrix, rescaling to ref_max_conc by the (100 - alpha) percentile
/// and reconstruction with ref_stain_coeff. uint8 result of the input's shape. Fit and apply stay on
/// the device. Errors as stain_extraction_pca.
Array normalize_colors_pca(const Array& image, const NormalizeColorsPcaOptions& opts = {}, const Stream& stream = {});

// ---- Reinhard colour normalisation --------------------------------------------------------------

/// Mean and (population) standard deviation of each CIE-LAB channel (L, a, b).
struct LabStats {
  std::array<double, 3> mean = {0, 0, 0};
  std::array<double, 3> std = {1, 1, 1};
};
/// The LAB statistics of an RGB image (color::rgb2lab, D65): the target of normalize_reinhard taken
/// from a reference tile. Returns a host value: synchronizes `stream`.
LabStats lab_stats(const Array& rgb, int channel_axis = -1, const Stream& stream = {});

struct ReinhardOptions {
  LabStats target;
  int channel_axis = -1;
};
CUSK_OPTIONS(ReinhardOptions,
             (target, "target LAB means and standard deviations"),
             (channel_axis, "RGB axis"))
/// Reinhard et al. (2001) colour transfer in CIE-LAB: every channel of the image is standardised
/// with its own mean and standard deviation (computed on the device, no host round trip; a channel
/// of zero spread maps to the target mean), rescaled to the target's and converted back with
/// color::lab2rgb (clipped to [0, 1]). uint8 input gives uint8 (img_as_ubyte rounding), other input
/// the float dtype of color::rgb2lab. Not part of cuCIM.
Array normalize_reinhard(const Array& rgb, const ReinhardOptions& opts, const Stream& stream = {});

// ---- colour jitter (cucim.core.operations.color) -------------------------------------------------

/// A jitter amount as cuCIM takes it: one number v (range [max(0, c - v), c + v] around the
/// neutral value c; hue: [-v, v]) or an explicit [lo, hi] range.
struct JitterRange {
  double value = 0;
  std::optional<std::pair<double, double>> range;
  JitterRange(double v = 0) : value(v) {}  // NOLINT(google-explicit-constructor)
  JitterRange(double lo, double hi) : range(std::make_pair(lo, hi)) {}
};

struct ColorJitterOptions {
  JitterRange brightness = 0;
  JitterRange contrast = 0;
  JitterRange saturation = 0;
  /// Within [-0.5, 0.5].
  JitterRange hue = 0;
  /// Axis of the 3 RGB channels: the last axis ((H, W, 3), (N, H, W, 3)) or the axis before the two
  /// spatial ones ((3, H, W), (N, 3, H, W): cuCIM's layout).
  int channel_axis = -1;
  /// Seed of the factors and of the order of the four operations.
  std::uint64_t seed = 0;
};
CUSK_OPTIONS(ColorJitterOptions,
             (brightness, "factor range [max(0, 1 - v), 1 + v], or lo,hi"),
             (contrast, "factor range [max(0, 1 - v), 1 + v], or lo,hi"),
             (saturation, "factor range [max(0, 1 - v), 1 + v], or lo,hi"),
             (hue, "shift range [-v, v] within [-0.5, 0.5], or lo,hi"),
             (channel_axis, "RGB axis: last, or the one before the spatial axes (channel-first)"),
             (seed, "seed of the random draws (same result on CPU and GPU)"))

/// One draw of the jitter: the order of the operations (0 brightness, 1 contrast, 2 saturation,
/// 3 hue) and their factors (unset: skipped). Apply it with adjust_colors for a fixed jitter.
struct ColorJitterParams {
  std::array<int, 4> order = {0, 1, 2, 3};
  std::optional<double> brightness;
  std::optional<double> contrast;
  std::optional<double> saturation;
  std::optional<double> hue;
};
/// The draw color_jitter makes for these options (host only; validates the ranges like cuCIM's
/// _check_input: negative scalars, lo > hi, hue outside [-0.5, 0.5] raise InvalidArgument).
ColorJitterParams sample_color_jitter(const ColorJitterOptions& opts);

/// Fixed jitter: applies `params` in their order, with cuCIM's uint8 kernels (brightness scales and
/// truncates; contrast blends with the rounded mean of the image's 16-bit-weighted luma (one mean
/// per image of a batch); saturation blends with each pixel's luma; hue rotates an 8-bit HSV hue).
/// uint8 images are used as they are; other dtypes are cast to uint8 first (Array::astype) and the
/// result is float32, as cuCIM does. ndim 3 (one image) or 4 (a batch on axis 0).
Array adjust_colors(const Array& image, const ColorJitterParams& params, int channel_axis = -1,
                    const Stream& stream = {});

/// cucim color_jitter: sample_color_jitter(opts) applied with adjust_colors.
Array color_jitter(const Array& image, const ColorJitterOptions& opts = {}, const Stream& stream = {});

struct RandomOptions {
  /// Probability of applying the transform.
  double prob = 0.1;
  /// Batches (N, ...): one decision for the whole batch instead of one per image (color jitter).
  bool whole_batch = false;
};
CUSK_OPTIONS(RandomOptions,
             (prob, "probability of applying the transform"),
             (whole_batch, "one decision for the whole batch"))
/// cucim rand_color_jitter: with probability prob the image (or each image of a batch, unless
/// whole_batch) gets color_jitter with its own draw; otherwise it is returned unchanged (shared).
/// cuCIM ignores prob for single images and whole batches; we apply it everywhere.
Array rand_color_jitter(const Array& image, const ColorJitterOptions& opts = {}, const RandomOptions& rand = {},
                        const Stream& stream = {});

// ---- intensity (cucim.core.operations.intensity) ------------------------------------------------

enum class NormalizeType { range, atan };
CUSK_ENUM(NormalizeType, range, atan)
/// cucim normalize_data: float32 norm_factor * (x - min_value) (range) or norm_factor *
/// atan(x - min_value) (atan), norm_factor = norm_constant / (max_value - min_value); the result
/// is cast back to the input dtype (Array::astype) unless it is float32. Any shape.
/// (cuCIM selects the atan kernel with `type == 2`, which a string never equals, so its 'atan' gives
/// the range result; we compute the documented arctangent.)
Array normalize_data(const Array& image, double norm_constant, double min_value, double max_value,
                     NormalizeType type = NormalizeType::range, const Stream& stream = {});

struct ScaleIntensityRangeOptions {
  double a_min = 0, a_max = 0;  // original range (a_max != a_min)
  double b_min = 0, b_max = 0;  // target range
  bool clip = false;
};
CUSK_OPTIONS(ScaleIntensityRangeOptions,
             (a_min, "original range min"),
             (a_max, "original range max"),
             (b_min, "target range min"),
             (b_max, "target range max"),
             (clip, "clip to [b_min, b_max]"))
/// cucim scale_intensity_range: float32 x * scale - offset (scale = (b_max - b_min) / (a_max -
/// a_min), offset = a_min * scale - b_min), clipped to [b_min, b_max] when clip; cast back as
/// normalize_data. Any shape.
Array scale_intensity_range(const Array& image, const ScaleIntensityRangeOptions& opts, const Stream& stream = {});

enum class ZoomInterpolation {
  area,      // cuCIM's kernels: mean of the input pixels each output pixel covers
  nearest,   // input pixel floor((o + 0.5) / z)
  bilinear,  // half-pixel centres, edge clamped
};
CUSK_ENUM(ZoomInterpolation, area, nearest, bilinear)
struct ZoomOptions {
  ZoomInterpolation interpolation = ZoomInterpolation::area;
  /// Axes (H, W) of the planes; default: the last two (cuCIM's (C, H, W) and (N, C, H, W)). Use
  /// {0, 1} or {-3, -2} for channel-last images.
  std::array<int, 2> spatial_axis = {-2, -1};
};
CUSK_OPTIONS(ZoomOptions,
             (interpolation, "resampling"),
             (spatial_axis, "the two spatial axes"))
/// cucim zoom: resamples every plane to floor(H * z0) x floor(W * z1), then centre-crops (zoom in)
/// or centre-places and edge-pads (zoom out) back to H x W, so the shape is unchanged. The
/// computation is float32; the result is cast to the input dtype (astype). Both factors must zoom the
/// same way (both in or both out), as cuCIM requires; factors giving the same size return the input.
Array zoom(const Array& image, const std::array<double, 2>& zoom_factor, const ZoomOptions& opts = {},
           const Stream& stream = {});

struct RandZoomOptions {
  /// Factor range per spatial axis; a single value applies to both axes (same draw).
  std::vector<double> min_zoom = {0.9};
  std::vector<double> max_zoom = {1.1};
  double prob = 0.1;
  std::uint64_t seed = 0;
  ZoomOptions zoom = {};
};
CUSK_OPTIONS(RandZoomOptions,
             (min_zoom, "minimum factor (one value or one per axis)"),
             (max_zoom, "maximum factor (one value or one per axis)"),
             (prob, "probability of zooming"),
             (seed, "seed of the random draws"),
             (zoom, "zoom's options (ZoomOptions)"))
/// cucim rand_zoom: with probability prob, zoom with factors drawn uniformly in [min, max].
Array rand_zoom(const Array& image, const RandZoomOptions& opts = {}, const Stream& stream = {});

// ---- spatial (cucim.core.operations.spatial) ----------------------------------------------------

/// cucim image_flip: the image reversed along every axis of `spatial_axis`; a new contiguous array.
Array image_flip(const Array& image, const std::vector<int>& spatial_axis, const Stream& stream = {});
/// cucim image_rotate_90 (np.rot90): k quarter turns from the first axis of `spatial_axis` towards the
/// second; a new contiguous array (shape of the two axes swapped for odd k).
Array image_rotate_90(const Array& image, int k, const std::array<int, 2>& spatial_axis, const Stream& stream = {});

struct RandFlipOptions {
  double prob = 0.1;
  std::uint64_t seed = 0;
};
CUSK_OPTIONS(RandFlipOptions,
             (prob, "probability of flipping"),
             (seed, "seed of the random draw"))
/// cucim rand_image_flip: image_flip with probability prob, else the input (shared).
Array rand_image_flip(const Array& image, const std::vector<int>& spatial_axis, const RandFlipOptions& opts = {},
                      const Stream& stream = {});

struct RandRotate90Options {
  double prob = 0.1;
  /// Quarter turns are drawn from 1..max_k.
  int max_k = 3;
  std::uint64_t seed = 0;
};
CUSK_OPTIONS(RandRotate90Options,
             (prob, "probability of rotating"),
             (max_k, "largest number of quarter turns"),
             (seed, "seed of the random draws"))
/// cucim rand_image_rotate_90: image_rotate_90 by a random k with probability prob, else the input.
Array rand_image_rotate_90(const Array& image, const std::array<int, 2>& spatial_axis,
                           const RandRotate90Options& opts = {}, const Stream& stream = {});

}  // namespace cuskimage::pathology
