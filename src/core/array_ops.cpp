// CPU backend of the core Array operations.
#include <cstring>

#include "src/core/backend.hpp"
#include "src/core/convert.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/elementwise.hpp"

namespace cuskimage::detail {

void cpu_convert(const Array& src, Array& dst) {
  dispatch<AllTypes>(src.dtype(), "Array::astype", [&]<class In>() {
    dispatch<AllTypes>(dst.dtype(), "Array::astype", [&]<class Out>() { cpu_map<In, Out>(src, dst, Convert<Out, In>{}); });
  });
}

void cpu_fill(Array& dst, const void* element) {
  dispatch<AllTypes>(dst.dtype(), "Array::fill", [&]<class T>() {
    T v;
    std::memcpy(&v, element, sizeof(T));
    // The input operand is dst itself (never read): cpu_map only needs its layout.
    cpu_map<T, T>(dst, dst, [v](T) { return v; });
  });
}

void element_from_double(DType dt, double value, unsigned char out[8]) {
  dispatch<AllTypes>(dt, "Array::fill", [&]<class T>() {
    const T v = convert<T>(value);
    std::memcpy(out, &v, sizeof(T));
  });
}

}  // namespace cuskimage::detail
