// Private interface of euler_number, perimeter and perimeter_crofton
// (src/measure/regionprops_utils.cpp, kernels/measure/regionprops_utils.cu).
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::measure::detail {

/// A pixel as perimeter's uint8 image holds it (scikit-image converts with astype(np.uint8)).
template <class T>
CUSK_HD std::uint8_t as_u8(T v) {
  if constexpr (std::is_same_v<T, bool>) return v ? 1 : 0;
  else if constexpr (std::is_floating_point_v<T>) return static_cast<std::uint8_t>(static_cast<std::int64_t>(v));
  else return static_cast<std::uint8_t>(v);
}

/// Histogram of the 2x2 (2-D, 16 bins) or 2x2x2 (3-D, 256 bins) configurations of (value > 0) over
/// the zero-padded image, as skimage's euler_number / perimeter_crofton count them.
template <class T>
std::vector<std::int64_t> cuda_config_histogram(const Array& in, const Stream& stream);

/// Histogram (256 bins) of skimage.measure.perimeter's weighted border codes of a 2-D image.
template <class T>
std::vector<std::int64_t> cuda_perimeter_histogram(const Array& in, bool eight, const Stream& stream);

}  // namespace cuskimage::measure::detail
