// Private interface of segmentation.watershed: the CPU priority flood on scikit-image's padded
// raveled layout (shared by the CPU backend and the CUDA backend's exact paths).
#pragma once

#include <cstdint>
#include <vector>

namespace cuskimage::segmentation::detail {

/// The padded image's raveled geometry: its size, its C strides (elements) and the neighbour
/// offsets in scikit-image's order.
struct FloodGrid {
  std::int64_t size = 0;
  std::vector<std::int64_t> strides;
  std::vector<std::int64_t> neighbours;
};

/// scikit-image's watershed_raveled: floods `out` (non-zero at the markers) over the pixels where
/// `mask` is set; `mask` is cleared on watershed-line pixels as scikit-image does.
void flood(const FloodGrid& g, const std::vector<double>& image, std::vector<std::int8_t>& mask,
           std::vector<std::int64_t>& out, double compactness, bool watershed_line);

}  // namespace cuskimage::segmentation::detail

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::segmentation::detail {

/// The relaxation of watershed_relax.hpp on a 1- to 3-D host image (float64 `image`, uint8
/// `mask`, int64 `markers` already zero outside the mask; `nbrs` the (dz, dy, dx) neighbour
/// steps, 3 ints each): int64 labels. The CUDA backend's algorithm, run sequentially; tests use
/// it to check the algorithm's agreement with the exact flood on the host.
enum class RelaxOrder { jacobi, in_place };
Array relax_reference(const Array& image, const Array& mask, const Array& markers, const std::vector<int>& nbrs,
                      RelaxOrder order = RelaxOrder::jacobi);

/// The CUDA relaxation (kernels/segmentation/watershed.cu): same arguments on the device,
/// contiguous, 1- to 3-D, fewer than 2^31 pixels; writes int64 labels into `out`.
void cuda_relax(const Array& image, const Array& mask, const Array& markers, const std::vector<int>& nbrs,
                Array& out, const Stream& stream);

}  // namespace cuskimage::segmentation::detail
