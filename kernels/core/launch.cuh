// Launch geometry shared by the grid-stride kernels.
#pragma once

#include <algorithm>
#include <cstdint>

namespace cuskimage::detail {

/// Blocks of `threads` threads for a grid-stride loop over n items: ceil(n / threads), clamped to
/// [1, cap] (the loop covers what the cap leaves out).
inline unsigned grid_blocks(std::int64_t n, int threads, std::int64_t cap) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((n + threads - 1) / threads, 1, cap));
}

}  // namespace cuskimage::detail
