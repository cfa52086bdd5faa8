// skimage.feature.template (scikit-image 0.26): match_template.
//
// The response at each position is the normalised cross-correlation (Lewis, "Fast Normalized
// Cross-Correlation") of the template with the image window there: the correlation term by FFT
// (FFTW on the CPU, cuFFT on the GPU, on a 2,3,5,7-smooth grid), the window sums of the image and
// of its square from integral images (float64), as scikit-image's template.py computes them.
// Differences from scikit-image's float rounding: the correlation is taken with the
// mean-subtracted template (scikit-image subtracts window_sum * mean afterwards), and the window
// sums are float64 whatever the image dtype (scikit-image sums float32 images in float32); both
// are more accurate. Windows whose denominator is <= the output dtype's epsilon read 0, as there.
#pragma once

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

/// numpy.pad's modes that match_template passes on (mean/median/maximum/minimum/linear_ramp/empty
/// are not provided).
enum class TemplatePadMode { constant, edge, symmetric, reflect, wrap };
CUSK_ENUM(TemplatePadMode, constant, edge, symmetric, reflect, wrap)

struct MatchTemplateOptions {
  /// true: the output has the image's shape and each value is for the template centred there
  /// (the image is padded by the template's shape with `mode`); false: (M - m + 1, N - n + 1[, ...])
  /// values for the template's top-left corner.
  bool pad_input = false;
  TemplatePadMode mode = TemplatePadMode::constant;
  double constant_values = 0.0;
};
CUSK_OPTIONS(MatchTemplateOptions,
             (pad_input, "pad the image so the output has its shape (values for the template centre)"),
             (mode, "numpy.pad mode of the padding: constant, edge, symmetric, reflect, wrap"),
             (constant_values, "padding value for mode constant"))

/// skimage.feature.match_template: a 2-D or 3-D image and a template of the same ndim, each axis
/// no longer than the image's. Returns the response (values in [-1, 1]) as float32 for float32
/// images, float64 otherwise, on the image's device.
Array match_template(const Array& image, const Array& templ, const MatchTemplateOptions& opts = {},
                     const Stream& stream = {});

}  // namespace cuskimage::feature
