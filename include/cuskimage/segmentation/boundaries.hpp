// skimage.segmentation.boundaries (scikit-image 0.26): find_boundaries and mark_boundaries.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "cuskimage/array.hpp"
#include "cuskimage/options.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation {

/// How find_boundaries marks a boundary (scikit-image's `mode` strings).
enum class BoundaryMode { thick, inner, outer, subpixel };
CUSK_ENUM(BoundaryMode, thick, inner, outer, subpixel)

struct FindBoundariesOptions {
  /// Neighbours are pixels at most this many orthogonal hops away, 1..ndim.
  int connectivity = 1;
  BoundaryMode mode = BoundaryMode::thick;
  /// The background label of modes inner and outer.
  std::int64_t background = 0;
};
CUSK_OPTIONS(FindBoundariesOptions,
             (connectivity, "neighbour connectivity, 1..ndim"),
             (mode, "thick, inner, outer or subpixel"),
             (background, "background label (modes inner and outer)"))

/// skimage.segmentation.find_boundaries: a bool array, True where a pixel's neighbourhood (under
/// `connectivity`, pixels outside the image ignored, as the dilation/erosion pair scikit-image
/// uses) holds another label; inner keeps those off the background, outer those on the background
/// plus touching objects' pixels; subpixel returns the (2s - 1)-per-axis doubled grid whose
/// in-between pixels separate two labels. Labels: bool or any integer dtype; floats for thick and
/// inner (scikit-image needs np.iinfo for outer and subpixel). Up to 8 dimensions on both backends
/// (one stencil pass; 2-D and 3-D take fixed-dimension kernels on a CUDA device). int64 / uint64
/// labels in mode outer reproduce scipy's double round trip of the dtype's maximum in
/// scikit-image's erosion (objects next to a first-axis run of background are marked), as
/// scikit-image 0.26 does. Labels beyond 2^53 (rounded by scipy) are compared exactly.
/// Does not synchronise.
Array find_boundaries(const Array& label_img, const FindBoundariesOptions& opts = {}, const Stream& stream = {});

struct MarkBoundariesOptions {
  /// RGB colour of the boundary pixels.
  std::array<double, 3> color = {1.0, 1.0, 0.0};
  /// RGB colour of the 3x3 dilation of the boundaries (under the boundaries); unset: none.
  std::optional<std::array<double, 3>> outline_color = std::nullopt;
  BoundaryMode mode = BoundaryMode::outer;
  /// The background label of modes inner and outer.
  std::int64_t background_label = 0;
};
CUSK_OPTIONS(MarkBoundariesOptions,
             (color, "RGB colour of the boundaries"),
             (outline_color, "RGB colour around the boundaries (default: none)"),
             (mode, "thick, inner, outer or subpixel"),
             (background_label, "background label (modes inner and outer)"))

/// skimage.segmentation.mark_boundaries: the image (M, N) or (M, N, 3), read with img_as_float
/// (float32 stays float32, else float64) and made RGB, with the boundaries of the 2-D `label_img`
/// painted in `color` (and their 3x3 dilation first in `outline_color`). Mode subpixel first
/// zooms the image to (2M - 1, 2N - 1) with ndimage.zoom (cubic, mirror), as scikit-image.
Array mark_boundaries(const Array& image, const Array& label_img, const MarkBoundariesOptions& opts = {},
                      const Stream& stream = {});

}  // namespace cuskimage::segmentation
