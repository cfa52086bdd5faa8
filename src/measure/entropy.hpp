// Private interface of shannon_entropy (src/measure/entropy.cpp, kernels/measure/entropy.cu).
#pragma once

#include "cuskimage/array.hpp"

namespace cuskimage::measure::detail {

/// Entropy of the distinct values (synchronises).
template <class T>
double cuda_shannon_entropy(const Array& in, double base, const Stream& stream);

}  // namespace cuskimage::measure::detail
