#include "cuskimage/dtype.hpp"

#include <array>

#include "cuskimage/error.hpp"

namespace cuskimage {
namespace {
struct Info {
  std::string_view name;
  std::size_t size;
  bool floating, integer, is_signed;
};
constexpr std::array<Info, 11> kInfo = {{
    {"bool", 1, false, false, false},
    {"uint8", 1, false, true, false},
    {"int8", 1, false, true, true},
    {"uint16", 2, false, true, false},
    {"int16", 2, false, true, true},
    {"uint32", 4, false, true, false},
    {"int32", 4, false, true, true},
    {"uint64", 8, false, true, false},
    {"int64", 8, false, true, true},
    {"float32", 4, true, false, true},
    {"float64", 8, true, false, true},
}};
const Info& info(DType dt) { return kInfo.at(static_cast<std::size_t>(dt)); }
}  // namespace

std::string_view dtype_name(DType dt) { return info(dt).name; }
std::size_t itemsize(DType dt) { return info(dt).size; }
bool is_floating(DType dt) { return info(dt).floating; }
bool is_integer(DType dt) { return info(dt).integer; }
bool is_signed(DType dt) { return info(dt).is_signed; }

DType dtype_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kInfo.size(); ++i)
    if (kInfo[i].name == name) return static_cast<DType>(i);
  if (name == "bool_") return DType::bool_;
  if (name == "ubyte") return DType::uint8;
  if (name == "uint") return DType::uint16;  // scikit-image's img_as_uint target
  if (name == "float" || name == "double") return DType::float64;
  if (name == "single") return DType::float32;
  throw InvalidArgument("dtype_from_name: argument 'name' must name a dtype (bool, uint8, int8, uint16, int16, "
                        "uint32, int32, uint64, int64, float32, float64), got '" + std::string(name) + "'");
}

}  // namespace cuskimage
