// Host-side helpers shared by the util module's public functions: backend selection by the input's
// device, and reductions that return host values.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/util/backend.hpp"

namespace cuskimage::util::detail {

using cuskimage::detail::dispatch;
using cuskimage::detail::expect;
using cuskimage::detail::expect_dtype;
using cuskimage::detail::expect_ndim;
using cuskimage::detail::expect_same_device;
using cuskimage::detail::expect_same_shape;
using cuskimage::detail::expect_valid;
using cuskimage::detail::fail;
using cuskimage::detail::normalize_axis;
using cuskimage::detail::Types;

using cuskimage::detail::on_backend;

/// Extremes per segment (see cpu_minmax); synchronizes for device arrays.
template <class T>
std::vector<MinMax<T>> minmax(const Array& a, std::int64_t segments, const Stream& stream) {
  return on_backend(
      a, stream, [&] { return cpu_minmax<T>(a, segments); },
      [&](const Stream& s) { return cuda_minmax<T>(a, segments, s); });
}

template <class T>
std::vector<double> sums(const Array& a, std::int64_t segments, const Stream& stream) {
  return on_backend(
      a, stream, [&] { return cpu_sum<T>(a, segments); }, [&](const Stream& s) { return cuda_sum<T>(a, segments, s); });
}

/// Minimum and maximum of a whole array as doubles (NaN when it holds a NaN, as NumPy); any = false
/// for an empty array.
struct Range {
  double lo = 0, hi = 0;
  bool any = false;
};
Range value_range(const Array& a, const Stream& stream, std::string_view fn);

}  // namespace cuskimage::util::detail
