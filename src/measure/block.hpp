// Private interface of block_reduce (src/measure/block.cpp, kernels/measure/block.cu).
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "src/core/indexer.hpp"

namespace cuskimage::measure::detail {

using cuskimage::detail::kMaxDims;

/// block_reduce geometry: the input (any strides) and the C-order output grid of blocks.
struct BlockReduceParams {
  int ndim = 0;
  std::int64_t in_shape[kMaxDims] = {};
  std::int64_t in_stride[kMaxDims] = {};
  std::int64_t out_shape[kMaxDims] = {};
  std::int64_t block[kMaxDims] = {};
  std::int64_t block_elems = 1;
  int func = 0;  // BlockFunc
};

/// out (contiguous, dtype per BlockFunc) = func over each block of `in` (padding with cval).
template <class T>
void cuda_block_reduce(const Array& in, Array& out, const BlockReduceParams& p, double cval, const Stream& stream);

}  // namespace cuskimage::measure::detail
