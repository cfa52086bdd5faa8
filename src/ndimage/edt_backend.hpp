// Backends of ndimage::distance_transform_edt (CPU in src/ndimage/edt.cpp, CUDA in
// kernels/ndimage/edt.cu). Both take the foreground mask as a contiguous bool array and the
// sampling per axis, and write contiguous outputs.
#pragma once

#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::ndimage::detail {

/// Features (int32, contiguous, shape (ndim, *mask.shape)) of a host mask; any ndim.
void cpu_edt_features(const Array& mask, const std::vector<double>& sampling, Array& features);
/// Distances (float64, contiguous, mask's shape) from the features.
void cpu_edt_distances(const Array& features, const std::vector<double>& sampling, Array& distances);

/// CUDA: mask on the device, ndim 1..3; `distances` / `features` contiguous or invalid (not wanted;
/// at least one valid).
void cuda_edt(const Array& mask, const std::vector<double>& sampling, Array& distances, Array& features,
              const Stream& stream);

}  // namespace cuskimage::ndimage::detail
