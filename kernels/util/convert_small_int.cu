// img_as_ubyte / img_as_uint / img_as_int (and convert to int8) on the GPU.
#include "kernels/util/convert.cuh"

namespace cuskimage::util::detail {

void cuda_convert_to_small_int(const Array& src, Array& dst, const ConvertPlan& plan, const Stream& stream) {
  cuda_convert_group<cuskimage::detail::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t>>(src, dst, plan,
                                                                                                      stream);
}

}  // namespace cuskimage::util::detail
