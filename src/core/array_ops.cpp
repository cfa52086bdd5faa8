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
    // Writes only: dst may be uninitialised (Array::full), and loading such bytes as T is undefined
    // behaviour (a bool byte other than 0 or 1), even if the value went unused.
    const Layout L = layout_of({&dst});
    T* base = static_cast<T*>(dst.data());
    const std::int64_t step = L.shape.empty() ? 1 : L.strides[0].back();
    for_each_row<1>(L, [&](std::int64_t, std::int64_t n, const std::int64_t* off) {
      T* o = base + off[0];
      for (std::int64_t j = 0; j < n; ++j) o[j * step] = v;
    });
  });
}

void element_from_double(DType dt, double value, unsigned char out[8]) {
  dispatch<AllTypes>(dt, "Array::fill", [&]<class T>() {
    const T v = convert<T>(value);
    std::memcpy(out, &v, sizeof(T));
  });
}

}  // namespace cuskimage::detail
