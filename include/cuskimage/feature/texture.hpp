// skimage.feature.texture (scikit-image 0.26): local_binary_pattern, multiblock_lbp,
// draw_multiblock_lbp, graycomatrix, graycoprops.
//
// Semantics are scikit-image 0.26's:
// - local_binary_pattern reads the image as float64 and samples P points on the circle of radius R
//   (offsets rounded to 5 decimals, bilinear with 0 outside the image); a neighbour counts as set
//   when it is >= the centre - 1e-12. The result is a float64 image (var: NaN where the variance is 0).
// - graycomatrix counts pairs (image[r, c], image[r + round(sin(a) d), c + round(cos(a) d)]),
//   rounding half away from zero; the result is (levels, levels, distances, angles) uint32, or
//   float64 when normed (each (d, a) slice divided by its sum, empty slices left 0).
// - graycoprops normalises each slice as graycomatrix's normed does and returns a (distances,
//   angles) float64 array.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::feature {

enum class LbpMethod { default_, ror, uniform, nri_uniform, var };
CUSK_ENUM_NAMED(LbpMethod, (default_, "default"), (ror, "ror"), (uniform, "uniform"), (nri_uniform, "nri_uniform"),
                (var, "var"))

struct LocalBinaryPatternOptions {
  LbpMethod method = LbpMethod::default_;
};
CUSK_OPTIONS(LocalBinaryPatternOptions,
             (method, "default, ror (rotation invariant), uniform, nri_uniform or var"))

/// skimage.feature.local_binary_pattern: the (M, N) float64 LBP image of a 2-D numeric image.
/// P >= 1 sampling points on a circle of radius R > 0. One fused kernel on CUDA, equal to the CPU
/// backend bit for bit.
Array local_binary_pattern(const Array& image, int P, double R, const LocalBinaryPatternOptions& opts = {},
                           const Stream& stream = {});

/// skimage.feature.multiblock_lbp: the 8-bit MB-LBP code of the 3x3 grid of (height, width) blocks
/// whose top-left corner is (r, c), from a 2-D integral image (read as float32, as scikit-image
/// does). The grid must lie inside the image. Synchronises (the code is returned to the host).
int multiblock_lbp(const Array& int_image, std::int64_t r, std::int64_t c, std::int64_t width, std::int64_t height,
                   const Stream& stream = {});

struct DrawMultiblockLbpOptions {
  std::int64_t lbp_code = 0;
  std::array<double, 3> color_greater_block = {1, 1, 1};
  std::array<double, 3> color_less_block = {0, 0.69, 0.96};
  double alpha = 0.5;
};
CUSK_OPTIONS(DrawMultiblockLbpOptions,
             (lbp_code, "the MB-LBP code to draw (bit 7 - k set: neighbour block k is brighter)"),
             (color_greater_block, "RGB colour of the brighter neighbour blocks"),
             (color_less_block, "RGB colour of the darker neighbour blocks"),
             (alpha, "opacity of the colours over the image"))

/// skimage.feature.draw_multiblock_lbp: the image as float RGB (gray2rgb then img_as_float) with the
/// eight neighbour blocks of the code blended in. Returns the new image (the input is unchanged).
Array draw_multiblock_lbp(const Array& image, std::int64_t r, std::int64_t c, std::int64_t width,
                          std::int64_t height, const DrawMultiblockLbpOptions& opts = {}, const Stream& stream = {});

struct GraycomatrixOptions {
  /// Unset: 256, allowed only for uint8 and int8 images.
  std::optional<std::int64_t> levels = std::nullopt;
  bool symmetric = false;
  bool normed = false;
};
CUSK_OPTIONS(GraycomatrixOptions,
             (levels, "number of grey levels (required unless the image is uint8/int8), at most 65536"),
             (symmetric, "count each pair in both orders (P + P^T)"),
             (normed, "divide each (distance, angle) matrix by its sum (float64 result)"))

/// skimage.feature.graycomatrix: the (levels, levels, len(distances), len(angles)) grey-level
/// co-occurrence matrix of a 2-D non-negative integer image with values < levels. uint32, or
/// float64 when normed. CUDA: shared-memory histograms per block for levels <= 256, global atomics
/// beyond; exact.
Array graycomatrix(const Array& image, const std::vector<double>& distances, const std::vector<double>& angles,
                   const GraycomatrixOptions& opts = {}, const Stream& stream = {});

enum class GlcmProp { contrast, dissimilarity, homogeneity, energy, correlation, ASM, mean, variance, std, entropy };
CUSK_ENUM(GlcmProp, contrast, dissimilarity, homogeneity, energy, correlation, ASM, mean, variance, std, entropy)

/// skimage.feature.graycoprops: one property per (distance, angle) of a 4-D GLCM, (distances,
/// angles) float64 on P's device.
Array graycoprops(const Array& P, GlcmProp prop = GlcmProp::contrast, const Stream& stream = {});
/// As above, the property by scikit-image's name ("contrast", ..., "ASM", "entropy").
Array graycoprops(const Array& P, const std::string& prop, const Stream& stream = {});

}  // namespace cuskimage::feature
