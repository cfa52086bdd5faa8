// Zero-copy exchange with other libraries through DLPack (PyTorch, CuPy, JAX, cuCIM, NumPy).
#pragma once

#include "cuskimage/array.hpp"

struct DLManagedTensor;  // <dlpack/dlpack.h>

namespace cuskimage {

/// Takes ownership of `tensor`: the returned Array shares its memory and calls the tensor's
/// deleter when the last handle goes. Supported devices: kDLCPU, kDLCUDAHost (as cpu), kDLCUDA;
/// dtypes: the ones DType names (bool as kDLBool or kDLUInt with 8 bits). Strides may be null.
Array from_dlpack(DLManagedTensor* tensor);

/// Exports a handle to `a`'s memory; the consumer calls tensor->deleter when done. The Array's
/// buffer stays alive until then.
DLManagedTensor* to_dlpack(const Array& a);

}  // namespace cuskimage
