// Host-side coordinate lists of the polygon and profile measures: small arrays read back as
// float64 values in C order.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "cuskimage/array.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::measure::detail {

/// Values of a small host or device array as float64 in C order (polygon vertices, points).
inline std::vector<double> host_values(const Array& a, const Stream& stream = {}) {
  Array t = a.to(Device::cpu(), stream);
  const Array c = t.astype(DType::float64).contiguous();
  const double* p = static_cast<const double*>(c.data());
  return std::vector<double>(p, p + c.size());
}

/// An (N, 2) coordinate array: checks and returns its values (row-major pairs).
inline std::vector<double> coords2(const Array& a, std::string_view fn, std::string_view arg) {
  cuskimage::detail::expect_valid(a, fn, arg);
  cuskimage::detail::expect(a.ndim() == 2 && a.shape(1) == 2, fn, arg, "must have shape (N, 2), got ",
                            shape_str(a.shape()));
  cuskimage::detail::expect(a.dtype() != DType::bool_, fn, arg, "must hold numbers, got bool");
  return host_values(a);
}

/// Row-major pairs as an (N, 2) float64 array.
inline Array from_pairs(const std::vector<double>& v) {
  return Array::from_vector(v, {static_cast<std::int64_t>(v.size() / 2), 2});
}

}  // namespace cuskimage::measure::detail
