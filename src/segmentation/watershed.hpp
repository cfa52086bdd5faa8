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
