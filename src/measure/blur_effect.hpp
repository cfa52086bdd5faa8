// Private interface of blur_effect (src/measure/blur_effect.cpp, kernels/measure/blur_effect.cu).
#pragma once

#include <array>

#include "cuskimage/array.hpp"

namespace cuskimage::measure::detail {

/// blur_effect's sums over the interior region [2, s - 1) of every axis of two same-shaped
/// contiguous float arrays: sum max(eps, |sharp|) and sum max(0, max(eps,|sharp|) - max(eps,|blur|)).
template <class T>
std::array<double, 2> cuda_blur_sums(const Array& sharp, const Array& blur, const Stream& stream);

}  // namespace cuskimage::measure::detail
