// The one point that turns a runtime DType into a template call. Each op names the dtypes it
// instantiates (compile time is a resource): dispatch<Types<uint8_t, float>>(dt, fn, f).
#pragma once

#include <cstdint>
#include <string_view>

#include "cuskimage/dtype.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::detail {

template <class... T>
struct Types {};

using AllTypes = Types<bool, std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t,
                       std::int32_t, std::uint64_t, std::int64_t, float, double>;
using IntegerTypes = Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t,
                           std::int32_t, std::uint64_t, std::int64_t>;
using FloatTypes = Types<float, double>;
/// The DESIGN.md core set: bool, uint8, uint16, int32, int64, float32, float64.
using CoreTypes = Types<bool, std::uint8_t, std::uint16_t, std::int32_t, std::int64_t, float, double>;

/// Applies macro M to every C++ type of AllTypes (explicit instantiation lists).
#define CUSK_FOR_EACH_DTYPE(M)                                                                    \
  M(bool) M(std::uint8_t) M(std::int8_t) M(std::uint16_t) M(std::int16_t) M(std::uint32_t)        \
  M(std::int32_t) M(std::uint64_t) M(std::int64_t) M(float) M(double)

template <class A, class B>
struct Concat;
template <class... A, class... B>
struct Concat<Types<A...>, Types<B...>> {
  using type = Types<A..., B...>;
};

[[noreturn]] void throw_unsupported_dtype(DType dt, std::string_view fn);

/// Calls f.template operator()<T>() for the T in `List` whose dtype is `dt`; any other dtype
/// raises InvalidArgument naming `fn`.
template <class List, class F>
decltype(auto) dispatch(DType dt, std::string_view fn, F&& f);

template <class T0, class... Ts, class F>
decltype(auto) dispatch_impl(Types<T0, Ts...>, DType dt, std::string_view fn, F&& f) {
  if (dt == dtype_v<T0>) return f.template operator()<T0>();
  if constexpr (sizeof...(Ts) > 0) {
    return dispatch_impl(Types<Ts...>{}, dt, fn, static_cast<F&&>(f));
  } else {
    throw_unsupported_dtype(dt, fn);
  }
}

template <class List, class F>
decltype(auto) dispatch(DType dt, std::string_view fn, F&& f) {
  return dispatch_impl(List{}, dt, fn, static_cast<F&&>(f));
}

}  // namespace cuskimage::detail
