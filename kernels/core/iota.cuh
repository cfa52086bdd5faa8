// p[i] = i on the device: the identity permutation that CUB's SortPairs carries as its values (CUB
// takes the values as a pointer, so a counting iterator cannot stand in).
#pragma once

#include <thrust/sequence.h>
#include <thrust/system/cuda/execution_policy.h>

#include <cstdint>

#include "cuskimage/stream.hpp"

namespace cuskimage::detail {

/// Fills p[0..n) with 0..n-1, ordered on `stream`, without synchronising it.
inline void device_iota(std::int64_t* p, std::int64_t n, const Stream& stream) {
  if (n > 0) thrust::sequence(thrust::cuda::par_nosync.on(stream.handle()), p, p + n);
}

}  // namespace cuskimage::detail
