// Strided N-d addressing shared by the CPU loops and the CUDA kernels. Host code first merges axes
// that are contiguous with respect to every operand (coalesce), so most views need 1 or 2 axes and
// the per-element divisions stay few.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "src/core/hd.hpp"

namespace cuskimage::detail {

inline constexpr int kMaxDims = 8;

/// Linear (C-order) element number -> element offset, for up to kMaxDims axes.
struct Indexer {
  int ndim = 0;
  std::int64_t shape[kMaxDims] = {};
  std::int64_t stride[kMaxDims] = {};

  CUSK_HD std::int64_t offset(std::int64_t linear) const {
    std::int64_t off = 0;
CUSK_UNROLL
    for (int d = kMaxDims - 1; d >= 0; --d) {
      if (d < ndim) {
        const std::int64_t q = linear / shape[d];
        off += (linear - q * shape[d]) * stride[d];
        linear = q;
      }
    }
    return off;
  }
};

/// Shape and per-operand strides after merging axes that can be walked as one.
struct Layout {
  std::vector<std::int64_t> shape;
  std::vector<std::vector<std::int64_t>> strides;  // one per operand
  std::int64_t size() const {
    std::int64_t n = 1;
    for (auto s : shape) n *= s;
    return n;
  }
  bool contiguous(std::size_t operand) const {
    return shape.size() <= 1 && (shape.empty() || strides[operand][0] == 1);
  }
  Indexer indexer(std::size_t operand) const;
};

/// Drops unit axes and merges axis d into d+1 when stride[d] == shape[d+1] * stride[d+1] for every
/// operand. Throws NotSupported past kMaxDims axes remaining.
Layout coalesce(const std::vector<std::int64_t>& shape, const std::vector<std::vector<std::int64_t>>& strides);

}  // namespace cuskimage::detail

namespace cuskimage {
class Array;
}

namespace cuskimage::detail {

/// coalesce() over arrays of one shape (the first operand's).
Layout layout_of(std::initializer_list<const Array*> operands);

}  // namespace cuskimage::detail
