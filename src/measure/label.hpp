// Private interface of measure.label: the value key both backends compare, and the CUDA entry.
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"

namespace cuskimage::measure::detail {

#if defined(__CUDACC__)
#define CUSK_LABEL_HD __host__ __device__ __forceinline__
#else
#define CUSK_LABEL_HD inline
#endif

/// How a pixel's value becomes the integer the labelling compares: scikit-image casts the image to
/// intp (floats truncate toward zero; NaN and out-of-range values give INT64_MIN, as x86's cast does
/// in NumPy) and inverts a bool image when background is 1.
struct LabelKey {
  std::int64_t background = 0;
  bool invert = false;  // bool images with background 1

  template <class T>
  CUSK_LABEL_HD std::int64_t operator()(T v) const {
    if constexpr (std::is_same_v<T, bool>) {
      return (v != invert) ? 1 : 0;
    } else if constexpr (std::is_floating_point_v<T>) {
      const double d = static_cast<double>(v);
      return (d != d || d >= 9223372036854775808.0 || d < -9223372036854775808.0) ? INT64_MIN
                                                                                  : static_cast<std::int64_t>(d);
    } else {
      return static_cast<std::int64_t>(v);
    }
  }
};

/// Backward neighbour offsets (dz, dy, dx) of a 3-D C-order grid (1-D and 2-D use leading extents
/// of 1) under `connectivity` hops: the half of the neighbourhood that precedes a pixel in raster
/// order, so every neighbour pair is visited once.
struct LabelNeighbours {
  int n = 0;
  signed char d[13][3] = {};
};

inline LabelNeighbours backward_neighbours(int ndim, int connectivity) {
  LabelNeighbours nb;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        if ((ndim < 3 && dz != 0) || (ndim < 2 && dy != 0)) continue;
        const int hops = std::abs(dz) + std::abs(dy) + std::abs(dx);
        const bool before = dz < 0 || (dz == 0 && (dy < 0 || (dy == 0 && dx < 0)));
        if (hops == 0 || hops > connectivity || !before) continue;
        nb.d[nb.n][0] = static_cast<signed char>(dz);
        nb.d[nb.n][1] = static_cast<signed char>(dy);
        nb.d[nb.n][2] = static_cast<signed char>(dx);
        ++nb.n;
      }
  return nb;
}

/// Labels the contiguous 1- to 3-D device image `in` into the contiguous int32/int64 `out` (same
/// shape, same device), stream-ordered on `stream`; when `num` is non-null it receives the label
/// count, read back from the device (the only case that synchronises the stream).
template <class T>
void cuda_label(const Array& in, Array& out, const LabelKey& key, int connectivity, std::int64_t* num,
                const Stream& stream);

}  // namespace cuskimage::measure::detail
