// Argument validation in the style of scikit-image's ValueErrors. Messages read
// "<module>.<function>: argument '<name>' <what was expected>, got <what came>".
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "cuskimage/array.hpp"
#include "cuskimage/error.hpp"

namespace cuskimage::detail {

template <class E = InvalidArgument, class... Parts>
[[noreturn]] void fail(std::string_view fn, const Parts&... parts) {
  std::ostringstream os;
  os << fn << ": ";
  (os << ... << parts);
  throw E(os.str());
}

/// Throws InvalidArgument "fn: argument 'arg' <parts...>" unless cond.
template <class... Parts>
void expect(bool cond, std::string_view fn, std::string_view arg, const Parts&... parts) {
  if (!cond) fail(fn, "argument '", arg, "' ", parts...);
}

void expect_valid(const Array& a, std::string_view fn, std::string_view arg);
void expect_ndim(const Array& a, std::string_view fn, std::string_view arg, int lo, int hi);
void expect_same_shape(const Array& a, const Array& b, std::string_view fn, std::string_view arg_a,
                       std::string_view arg_b);
void expect_same_device(const Array& a, const Array& b, std::string_view fn, std::string_view arg_a,
                        std::string_view arg_b);
/// dtype must be one of `allowed`.
void expect_dtype(const Array& a, std::string_view fn, std::string_view arg,
                  std::initializer_list<DType> allowed);
/// Normalises a possibly negative axis; throws InvalidArgument when out of range.
int normalize_axis(int axis, int ndim, std::string_view fn, std::string_view arg);

}  // namespace cuskimage::detail
