// cuskimage::registration — skimage.registration (0.26): phase_cross_correlation,
// optical_flow_tvl1, optical_flow_ilk.
//
// The FFTs run in FFTW3 on CPU arrays and in cuFFT on CUDA arrays (both optional at build time:
// without them the functions raise NotSupported on that backend).
#pragma once

#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/dtype.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::registration {

// ==== phase_cross_correlation =======================================================================

/// How phase_cross_correlation reads its inputs: images, or their (full, complex) spectra.
enum class Space { real, fourier };
CUSK_ENUM(Space, real, fourier)

/// The cross-power spectrum's normalization: "phase" (phase correlation) or none.
enum class Normalization { phase, none };
CUSK_ENUM_NAMED(Normalization, (phase, "phase"), (none, "none"), (none, "None"))

struct PhaseCrossCorrelationOptions {
  /// Register to within 1 / upsample_factor of a pixel (>= 1; 1: whole pixels, no upsampling).
  double upsample_factor = 1.0;
  /// real: the inputs are images. fourier: the inputs are their spectra (np.fft.fftn), given as real
  /// arrays with a trailing axis of 2 (real, imaginary): shape (*image_shape, 2).
  Space space = Space::real;
  /// Resolve the shift's period ambiguity by the real-space correlation of the 2^ndim candidates.
  bool disambiguate = false;
  /// Masked variant (Padfield's masked normalized cross-correlation) when either mask is set: the
  /// mask is true (non-zero) on valid pixels and has its image's shape. Unset moving_mask =
  /// reference_mask. Masked, upsample_factor, space and normalization are not used, and the images
  /// may differ in shape.
  Array reference_mask;
  Array moving_mask;
  /// Masked variant: translations whose overlap is below this fraction of the largest are ignored.
  double overlap_ratio = 0.3;
  Normalization normalization = Normalization::phase;
};
CUSK_OPTIONS(PhaseCrossCorrelationOptions,
             (upsample_factor, "upsampling factor: register to within 1/upsample_factor of a pixel"),
             (space, "real: the inputs are images; fourier: they are spectra (trailing axis of 2: re, im)"),
             (disambiguate, "resolve the period ambiguity of the shift in real space"),
             (reference_mask, "masked variant: valid pixels of the reference image"),
             (moving_mask, "masked variant: valid pixels of the moving image (default: reference_mask)"),
             (overlap_ratio, "masked variant: minimum overlap ratio of a translation"),
             (normalization, "cross-correlation normalization: phase or none"))

struct PhaseCrossCorrelationResult {
  /// The shift (pixels, one per axis) that registers the moving image with the reference.
  std::vector<double> shift;
  /// Translation-invariant normalized RMS error (NaN for the masked variant).
  double error = 0.0;
  /// Global phase difference of the two images (NaN for the masked variant).
  double phasediff = 0.0;
};

/// skimage.registration.phase_cross_correlation: the translation between two images by the peak of
/// their (phase) cross-correlation, refined by an upsampled DFT around it (Guizar-Sicairos et al.),
/// or, with masks, by masked normalized cross-correlation. N-d on CPU arrays; CUDA arrays take up
/// to 3 axes longer than 1 (cuFFT's ranks; more raise NotSupported). The spectra are computed in the
/// images' float precision (float32 stays float32, others float64), as scikit-image does; shifts
/// agree with scikit-image's exactly on well-separated peaks, error and phasediff to ~1e-5
/// (float32) / 1e-10 (float64). The masked variant averages the positions equal to the maximum, as
/// scikit-image does: where translations of a few overlapping pixels reach the clipped value 1 (a
/// small overlap_ratio), which of them tie depends on rounding and may differ from scikit-image's.
/// disambiguate runs on host copies of the images; with space fourier it
/// raises NotSupported (it would need the complex images). Synchronizes (returns host values).
PhaseCrossCorrelationResult phase_cross_correlation(const Array& reference_image, const Array& moving_image,
                                                    const PhaseCrossCorrelationOptions& opts = {},
                                                    const Stream& stream = {});

// ==== optical flow ==================================================================================

struct OpticalFlowTvl1Options {
  /// Attachment weight (larger: a more accurate but noisier flow).
  double attachment = 15.0;
  /// Tightness weight (larger: the flow converges faster but is less smooth).
  double tightness = 0.3;
  /// Image warps per pyramid level.
  int num_warp = 5;
  /// Fixed-point iterations per warp.
  int num_iter = 10;
  /// Stop a warp's iterations once the flow's mean squared change is below tol.
  double tol = 1e-4;
  /// Median-filter (3^ndim) the flow after each warp.
  bool prefilter = false;
  /// Output dtype: float32 or float64.
  DType dtype = DType::float32;
};
CUSK_OPTIONS(OpticalFlowTvl1Options,
             (attachment, "attachment parameter (larger: more accurate, noisier flow)"),
             (tightness, "tightness parameter (larger: faster convergence, less smooth flow)"),
             (num_warp, "image warps per pyramid level"),
             (num_iter, "fixed-point iterations per warp"),
             (tol, "convergence tolerance of the flow's mean squared change"),
             (prefilter, "median-filter the flow after each warp"),
             (dtype, "output dtype: float32 or float64"))

/// skimage.registration.optical_flow_tvl1: TV-L1 optical flow (Zach et al., Wedel et al.) on a
/// coarse-to-fine pyramid. 1-D to 3-D images (more raise NotSupported), every axis at least 2
/// long. Returns (ndim, *shape) in `dtype`: the flow v such that moving(x + v(x)) ~ reference(x).
/// Within ~1e-12 (float64) / ~1e-4 (float32) of scikit-image's on well-posed inputs.
Array optical_flow_tvl1(const Array& reference_image, const Array& moving_image,
                        const OpticalFlowTvl1Options& opts = {}, const Stream& stream = {});

struct OpticalFlowIlkOptions {
  /// Radius of the window over which the flow is assumed constant.
  int radius = 7;
  /// Image warps per pyramid level.
  int num_warp = 10;
  /// A Gaussian window (sigma = radius / 2) instead of a uniform one.
  bool gaussian = false;
  /// Median-filter (3^ndim) the flow after each warp.
  bool prefilter = false;
  /// Output dtype: float32 or float64.
  DType dtype = DType::float32;
};
CUSK_OPTIONS(OpticalFlowIlkOptions,
             (radius, "radius of the window in which the flow is assumed constant"),
             (num_warp, "image warps per pyramid level"),
             (gaussian, "Gaussian window instead of a uniform one"),
             (prefilter, "median-filter the flow after each warp"),
             (dtype, "output dtype: float32 or float64"))

/// skimage.registration.optical_flow_ilk: iterative Lucas-Kanade optical flow on a coarse-to-fine
/// pyramid. 1-D to 3-D images, every axis at least 2 long. Returns (ndim, *shape) in `dtype`.
Array optical_flow_ilk(const Array& reference_image, const Array& moving_image, const OpticalFlowIlkOptions& opts = {},
                       const Stream& stream = {});

}  // namespace cuskimage::registration
