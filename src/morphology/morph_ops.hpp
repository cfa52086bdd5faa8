// Internal helpers shared by gray.cpp, binary.cpp and kernels/morphology/tophat.cu.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"


namespace cuskimage::morphology::detail {

/// The footprint as host (footprint, num_iter) pairs of the image's ndim, each zero-padded to odd
/// sizes (at the end or the front of even axes); None becomes the connectivity-1 cross.
std::vector<FootprintElement> normalize_footprint(std::string_view fn, const Array& image, const Footprint& fp,
                                                  bool pad_end);
/// Each element reversed along every axis (order kept, as scikit-image's mirror_footprint).
std::vector<FootprintElement> mirror_elements(const std::vector<FootprintElement>& els);
/// True when a host footprint has a non-zero element.
bool any_nonzero(const Array& footprint);
/// `out` must be a valid array of `shape`, `dtype` and the image's device.
void expect_out(std::string_view fn, const Array& image, const Array& out, DType dtype);

/// scikit-image's tophat difference: a - b wrapping for integers, a != b for bool.
struct TophatSubOp {
  template <class T>
  CUSK_HD T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a != b;
    } else if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
    } else {
      return a - b;
    }
  }
};

/// CUDA backend of out = TophatSubOp(a, b) (same shape, dtype T, any strides).
template <class T>
void cuda_tophat_sub(const Array& a, const Array& b, Array& out, cudaStream_t stream);

}  // namespace cuskimage::morphology::detail
