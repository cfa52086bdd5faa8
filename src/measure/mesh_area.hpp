// Private interface of mesh_surface_area (src/measure/mesh_area.cpp, kernels/measure/mesh_area.cu).
#pragma once

#include "cuskimage/array.hpp"

namespace cuskimage::measure::detail {

/// Sum of the triangle areas (|cross| / 2 summed, then halved by the caller as scikit-image) of
/// contiguous float64 verts (V, 3) and int64 faces (F, 3); negative when a face index is out of
/// bounds.
double cuda_mesh_area(const Array& verts, const Array& faces, const Stream& stream);

}  // namespace cuskimage::measure::detail
