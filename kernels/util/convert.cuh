// CUDA backend of img_as_* / convert: one element-wise map per (input, output) dtype pair, split
// over several translation units by output dtype so they compile in parallel.
//
// Bytes moved: size * (itemsize(in) + itemsize(out)); contiguous aligned operands take core's
// 16-byte vector path (uint8 -> float32 on 8192^2: 335 MB, floor 0.080 ms at 4.2 TB/s).
#pragma once

#include "kernels/core/elementwise.cuh"
#include "src/core/dispatch.hpp"
#include "src/util/backend.hpp"

namespace cuskimage::util::detail {

template <class OutList>
void cuda_convert_group(const Array& src, Array& dst, const ConvertPlan& plan, const Stream& stream) {
  using namespace cuskimage::detail;
  dispatch<AllTypes>(src.dtype(), "util.convert", [&]<class In>() {
    dispatch<OutList>(dst.dtype(), "util.convert",
                      [&]<class Out>() { cuda_map<In, Out>(src, dst, ImgConvert<In, Out>{plan}, stream.handle()); });
  });
}

}  // namespace cuskimage::util::detail
