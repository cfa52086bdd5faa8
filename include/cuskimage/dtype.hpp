// Runtime element types. Names follow NumPy's; the C++ type behind each is dtype_t<DType::x>.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cuskimage {

enum class DType : std::uint8_t {
  bool_,
  uint8,
  int8,
  uint16,
  int16,
  uint32,
  int32,
  uint64,
  int64,
  float32,
  float64,
};

/// NumPy's name ("uint8", "bool", "float32").
std::string_view dtype_name(DType dt);
/// Inverse of dtype_name; also accepts "bool_", "float", "double", "ubyte", "uint". Throws InvalidArgument.
DType dtype_from_name(std::string_view name);

std::size_t itemsize(DType dt);
bool is_floating(DType dt);
bool is_integer(DType dt);  // bool excluded
bool is_signed(DType dt);   // signed integers and floats

template <class T> struct dtype_of;
template <> struct dtype_of<bool> { static constexpr DType value = DType::bool_; };
template <> struct dtype_of<std::uint8_t> { static constexpr DType value = DType::uint8; };
template <> struct dtype_of<std::int8_t> { static constexpr DType value = DType::int8; };
template <> struct dtype_of<std::uint16_t> { static constexpr DType value = DType::uint16; };
template <> struct dtype_of<std::int16_t> { static constexpr DType value = DType::int16; };
template <> struct dtype_of<std::uint32_t> { static constexpr DType value = DType::uint32; };
template <> struct dtype_of<std::int32_t> { static constexpr DType value = DType::int32; };
template <> struct dtype_of<std::uint64_t> { static constexpr DType value = DType::uint64; };
template <> struct dtype_of<std::int64_t> { static constexpr DType value = DType::int64; };
template <> struct dtype_of<float> { static constexpr DType value = DType::float32; };
template <> struct dtype_of<double> { static constexpr DType value = DType::float64; };
template <class T> inline constexpr DType dtype_v = dtype_of<T>::value;

template <DType D> struct dtype_type;
template <> struct dtype_type<DType::bool_> { using type = bool; };
template <> struct dtype_type<DType::uint8> { using type = std::uint8_t; };
template <> struct dtype_type<DType::int8> { using type = std::int8_t; };
template <> struct dtype_type<DType::uint16> { using type = std::uint16_t; };
template <> struct dtype_type<DType::int16> { using type = std::int16_t; };
template <> struct dtype_type<DType::uint32> { using type = std::uint32_t; };
template <> struct dtype_type<DType::int32> { using type = std::int32_t; };
template <> struct dtype_type<DType::uint64> { using type = std::uint64_t; };
template <> struct dtype_type<DType::int64> { using type = std::int64_t; };
template <> struct dtype_type<DType::float32> { using type = float; };
template <> struct dtype_type<DType::float64> { using type = double; };
template <DType D> using dtype_t = typename dtype_type<D>::type;

}  // namespace cuskimage
