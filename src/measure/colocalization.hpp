// Private interface of the colocalisation coefficients (src/measure/colocalization.cpp,
// kernels/measure/colocalization.cu).
#pragma once

#include <array>

#include "cuskimage/array.hpp"

namespace cuskimage::measure::detail {

/// Colocalisation sums over the elements where `mask` (bool, or invalid for all) is true, of two
/// contiguous float64 arrays. kind 0 (pearson pass 1): n, sum x, sum y, nan count, min x, max x,
/// min y, max y. kind 1 (pearson pass 2, with means a, b): sum (x-a)^2, sum (y-b)^2,
/// sum (x-a)(y-b). kind 2 (manders): n, sum x, sum x*y, sum x^2, sum y^2, min x, min y.
std::array<double, 8> cuda_coloc_sums(const Array& x, const Array& y, const Array& mask, int kind, double a, double b,
                                      const Stream& stream);

}  // namespace cuskimage::measure::detail
