// segmentation.felzenszwalb internals: the edge list of _felzenszwalb_cy.pyx (right, down,
// down-right, up-right; in that order, each in raster order of its first pixel) and its weight,
// written once for the CPU backend and kernels/segmentation/felzenszwalb.cu.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::segmentation::detail {

struct FzGraph {
  std::int64_t height, width, channels;
  CUSK_HD std::int64_t n_right() const { return height * (width - 1); }
  CUSK_HD std::int64_t n_down() const { return (height - 1) * width; }
  CUSK_HD std::int64_t n_diag() const { return (height - 1) * (width - 1); }
  CUSK_HD std::int64_t count() const { return n_right() + n_down() + 2 * n_diag(); }
  /// Pixels (a, b) joined by edge e.
  CUSK_HD void ends(std::int64_t e, std::int64_t& a, std::int64_t& b) const {
    if (e < n_right()) {
      const std::int64_t r = e / (width - 1), c = e % (width - 1);
      a = r * width + c + 1, b = r * width + c;
      return;
    }
    e -= n_right();
    if (e < n_down()) {
      a = e + width, b = e;
      return;
    }
    e -= n_down();
    const bool up = e >= n_diag();
    if (up) e -= n_diag();
    const std::int64_t r = e / (width - 1), c = e % (width - 1);
    if (!up) {
      a = (r + 1) * width + c + 1, b = r * width + c;
    } else {
      a = r * width + c + 1, b = (r + 1) * width + c;
    }
  }
  /// numpy's sqrt(sum((p - q) * (p - q), axis=-1)) of the smoothed float64 image.
  CUSK_HD double weight(const double* img, std::int64_t e) const {
    std::int64_t a, b;
    ends(e, a, b);
    double s = 0;
    for (std::int64_t c = 0; c < channels; ++c) {
      const double d = cuskimage::detail::sub_rn(img[a * channels + c], img[b * channels + c]);
      s = cuskimage::detail::add_rn(s, cuskimage::detail::mul_rn(d, d));
    }
    return cuskimage::detail::sqrt_rn(s);
  }
};

/// The edges sorted by (weight, index) on the device (CUB radix sort), brought to the host as the
/// sorted weights (float64, m) and their end pixels (2 m, int32 below 2^31 pixels, else int64).
void cuda_felzenszwalb_sorted_edges(const Array& smoothed, const FzGraph& g, Array& weights, Array& ends,
                                    const Stream& stream);

}  // namespace cuskimage::segmentation::detail
