// scipy.ndimage affine_transform and rotate on the GPU: the one sampler (geometry_sample.cuh) with
// the affine functor (rotate of a 2-D array) and the plane functor (rotate of a 3-D array, each
// plane of the rotation axes sampled on its own as scipy does).
#include "kernels/ndimage/geometry_sample.cuh"

namespace cuskimage::ndimage::detail {

CUSK_SAMPLE_INST(AffineMap<1>)
CUSK_SAMPLE_INST(AffineMap<2>)
CUSK_SAMPLE_INST(AffineMap<3>)
CUSK_SAMPLE_INST(PlaneMap<3>)

}  // namespace cuskimage::ndimage::detail
