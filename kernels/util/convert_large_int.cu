// convert to 32- and 64-bit integers on the GPU.
#include "kernels/util/convert.cuh"

namespace cuskimage::util::detail {

void cuda_convert_to_large_int(const Array& src, Array& dst, const ConvertPlan& plan, const Stream& stream) {
  cuda_convert_group<cuskimage::detail::Types<std::uint32_t, std::int32_t, std::uint64_t, std::int64_t>>(src, dst, plan,
                                                                                                        stream);
}

}  // namespace cuskimage::util::detail
