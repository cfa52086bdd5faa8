// Backend entry points of the core Array operations (CPU in array_ops.cpp, CUDA in
// kernels/core/array_ops.cu). Both take operands of one shape on the same device.
#pragma once

#include "cuskimage/array.hpp"

namespace cuskimage::detail {

/// dst = src converted to dst's dtype (Array::astype semantics), any strides.
void cpu_convert(const Array& src, Array& dst);
void cuda_convert(const Array& src, Array& dst, const Stream& stream);

/// Every element of dst = the value at `element` (one element of dst's dtype, in host memory).
void cpu_fill(Array& dst, const void* element);
void cuda_fill(Array& dst, const void* element, const Stream& stream);

/// One element of `dt` holding `value` converted as np.full does; returns its bytes in `out[8]`.
void element_from_double(DType dt, double value, unsigned char out[8]);

}  // namespace cuskimage::detail
