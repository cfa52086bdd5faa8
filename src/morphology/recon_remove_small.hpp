// remove_small_objects / remove_small_holes: the size test shared by the CPU oracle
// (remove_small.cpp) and the CUDA kernels (kernels/morphology/recon_remove_small.cu).
#pragma once

#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/morphology/recon_common.hpp"

namespace cuskimage::morphology::detail {

/// A component of `size` pixels is removed: size <= threshold, or size < threshold with use_min
/// (the pre-0.26 min_size meaning; unused while 0.26 forwards min_size to max_size).
struct SizeTest {
  std::int64_t threshold;
  bool use_min;
  CUSK_HD bool operator()(std::int64_t size) const { return use_min ? size < threshold : size <= threshold; }
};

/// Binary input already labelled by measure::label (int32 or int64, labels 1..num, 0 = the other
/// set): out (bool, contiguous) = labelled pixels whose component is not small; holes negate it.
void cuda_remove_small_labelled(const Array& labels, std::int64_t num, bool holes, SizeTest small, Array& out,
                                const Stream& stream);
/// Label input (all labels in [0, max_label]): out (contiguous, T) = 0 where the label is small.
template <class T>
void cuda_remove_small_labels(const Array& in, Array& out, std::int64_t max_label, SizeTest small,
                              const Stream& stream);

}  // namespace cuskimage::morphology::detail
