// img_as_float* (to float32 / float64) on the GPU.
#include "kernels/util/convert.cuh"

namespace cuskimage::util::detail {

void cuda_convert_to_float(const Array& src, Array& dst, const ConvertPlan& plan, const Stream& stream) {
  cuda_convert_group<cuskimage::detail::Types<float, double>>(src, dst, plan, stream);
}

}  // namespace cuskimage::util::detail
