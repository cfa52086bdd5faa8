// skimage.transform.radon_transform (scikit-image 0.26): radon, iradon, iradon_sart,
// order_angles_golden_ratio.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/dtype.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::transform {

struct RadonOptions {
  /// Projection angles in degrees; empty = 0, 1, ..., 179.
  std::vector<double> theta = {};
  /// Assume the image is zero outside the inscribed circle (the sinogram is as wide as the image's
  /// smaller side); otherwise the image is padded to its diagonal.
  bool circle = true;
  /// Keep integer values as they are instead of scaling them to [0, 1] (img_as_float).
  bool preserve_range = false;
};
CUSK_OPTIONS(RadonOptions,
             (theta, "projection angles in degrees (default: 0, 1, ..., 179)"),
             (circle, "assume the image is zero outside the inscribed circle"),
             (preserve_range, "keep integer values instead of scaling to [0, 1]"))

/// skimage.transform.radon: one column per angle, the column sums of the (square-cropped or padded)
/// image rotated by scikit-image's warp (bilinear, constant 0 outside). float64 (float32 for a
/// float32 image). Asynchronous.
Array radon(const Array& image, const RadonOptions& opts = {}, const Stream& stream = {});

/// iradon's frequency-domain filters.
enum class IradonFilter { ramp, shepp_logan, cosine, hamming, hann, none };
CUSK_ENUM_NAMED(IradonFilter, (ramp, "ramp"), (shepp_logan, "shepp-logan"), (cosine, "cosine"), (hamming, "hamming"),
                (hann, "hann"), (none, "none"), (none, "None"))

/// iradon's interpolation of the filtered projections.
enum class IradonInterpolation { linear, nearest, cubic };
CUSK_ENUM(IradonInterpolation, linear, nearest, cubic)

struct IradonOptions {
  /// Projection angles in degrees; empty = n angles evenly over [0, 180).
  std::vector<double> theta = {};
  /// Side of the reconstruction; unset = the sinogram's rows (circle) or rows / sqrt(2).
  std::optional<std::int64_t> output_size = std::nullopt;
  IradonFilter filter_name = IradonFilter::ramp;
  IradonInterpolation interpolation = IradonInterpolation::linear;
  /// The sinogram comes from an image zero outside the inscribed circle (radon's circle=True).
  bool circle = true;
  /// Keep integer values as they are instead of scaling them to [0, 1].
  bool preserve_range = true;
};
CUSK_OPTIONS(IradonOptions,
             (theta, "projection angles in degrees (default: evenly over [0, 180))"),
             (output_size, "side of the reconstruction (default: from the sinogram)"),
             (filter_name, "ramp, shepp-logan, cosine, hamming, hann or none"),
             (interpolation, "linear, nearest or cubic"),
             (circle, "the image was zero outside the inscribed circle"),
             (preserve_range, "keep integer values instead of scaling to [0, 1]"))

/// skimage.transform.iradon: filtered back-projection. The filter is applied as the circular
/// convolution it is (scikit-image multiplies FFTs; here the kernel's real part is summed
/// directly, in float64), then every output pixel sums the interpolated projections angle by
/// angle (linear: numpy.interp; nearest and cubic: scipy's interp1d, cubic a not-a-knot spline). float64 (float32 for a float32 sinogram with preserve_range). Asynchronous.
Array iradon(const Array& radon_image, const IradonOptions& opts = {}, const Stream& stream = {});

struct IradonSartOptions {
  /// Projection angles in degrees; empty = n angles evenly over [0, 180).
  std::vector<double> theta = {};
  /// Initial reconstruction (n x n); unset = zeros. Left unchanged (scikit-image updates a float
  /// `image` of the working dtype in place).
  std::optional<Array> image = std::nullopt;
  /// Per-projection shifts in pixels; empty = zeros.
  std::vector<double> projection_shifts = {};
  /// Clip the reconstruction to [lo, hi] after every update; unset = no clipping.
  std::optional<std::array<double, 2>> clip = std::nullopt;
  double relaxation = 0.15;
  /// float32 or float64; unset = the sinogram's float dtype (float64 for integers).
  std::optional<DType> dtype = std::nullopt;
};
CUSK_OPTIONS(IradonSartOptions,
             (theta, "projection angles in degrees (default: evenly over [0, 180))"),
             (image, "initial reconstruction (default: zeros)"),
             (projection_shifts, "per-projection shifts in pixels (default: zeros)"),
             (clip, "lo,hi: clip the reconstruction after every update"),
             (relaxation, "relaxation parameter of the update"),
             (dtype, "float32 or float64 (default: the sinogram's float dtype)"))

/// skimage.transform.iradon_sart: one pass of the simultaneous algebraic reconstruction technique
/// over the projections in golden-ratio order (bilinear ray sums and updates, Hamming-weighted).
/// The projections run one after another (each updates the estimate the next one reads); on CUDA
/// each is two launches (the rays' deviations, then every pixel's gathered update). Asynchronous.
Array iradon_sart(const Array& radon_image, const IradonSartOptions& opts = {}, const Stream& stream = {});

/// skimage.transform.order_angles_golden_ratio: the indices of `theta` (degrees) in the order that
/// keeps successive angles about 180 / phi^2 apart. `single` computes in float32 (a float32 theta).
std::vector<std::int64_t> order_angles_golden_ratio(const std::vector<double>& theta, bool single = false);

}  // namespace cuskimage::transform
