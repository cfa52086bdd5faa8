// img_as_bool on the GPU.
#include "kernels/util/convert.cuh"

namespace cuskimage::util::detail {

void cuda_convert_to_bool(const Array& src, Array& dst, const ConvertPlan& plan, const Stream& stream) {
  cuda_convert_group<cuskimage::detail::Types<bool>>(src, dst, plan, stream);
}

}  // namespace cuskimage::util::detail
