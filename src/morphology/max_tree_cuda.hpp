// CUDA backend of max_tree, the area/diameter filters and max_tree_local_maxima
// (kernels/morphology/max_tree.cu). Arguments are validated by src/morphology/max_tree.cpp; arrays
// live on the current device; results are exactly the CPU backend's.
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::morphology::detail {

/// Pixels the CUDA max-tree handles (32-bit indices).
inline constexpr std::int64_t kTreeMaxPixels = (std::int64_t(1) << 32) - 2;

/// (parent int64 of the image's shape, traverser int64 1-D). Synchronizes the stream once (the
/// number of levels decides the batches; tuning::MaxTreePolicy can fix their size).
void cuda_max_tree(const Array& image, int connectivity, Array& parent, Array& traverser, const Stream& stream);

/// Whether a caller's (parent, traverser) (int64, contiguous or not, on the current device) is a
/// tree of `n` pixels: indices inside the image, the traverser a permutation, every pixel's parent
/// before it in the traverser (the root, traverser[0], excepted). Synchronizes the stream.
bool cuda_tree_valid(const Array& parent, const Array& traverser, const Stream& stream);

/// area (diameter == false) or diameter opening; closing: on util.invert(image), inverted back.
/// parent / traverser: a caller's tree already checked by cuda_tree_valid, or both empty.
Array cuda_tree_filter(const Array& image, bool diameter, bool closing, double threshold, int connectivity,
                       const Array& parent, const Array& traverser, const Stream& stream);

Array cuda_max_tree_local_maxima(const Array& image, int connectivity, const Array& parent, const Array& traverser,
                                 const Stream& stream);

}  // namespace cuskimage::morphology::detail
