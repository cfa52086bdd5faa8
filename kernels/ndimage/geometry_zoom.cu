// scipy.ndimage zoom and shift (and affine_transform with a diagonal matrix) on the GPU: the one
// sampler (geometry_sample.cuh) with the zoom/shift coordinate functor, coordinates in-kernel.
#include "kernels/ndimage/geometry_sample.cuh"

namespace cuskimage::ndimage::detail {

CUSK_SAMPLE_INST(ZoomShiftMap<1>)
CUSK_SAMPLE_INST(ZoomShiftMap<2>)
CUSK_SAMPLE_INST(ZoomShiftMap<3>)

}  // namespace cuskimage::ndimage::detail
