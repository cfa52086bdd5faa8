// transform.frt2 and transform.ifrt2: argument handling and the CPU backend. The CUDA backend
// (kernels/transform/finite_radon.cu) evaluates the same per-output sums.
#include "cuskimage/transform/finite_radon_transform.hpp"

#include <cstdint>
#include <string_view>

#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/transform/finite_radon.hpp"

namespace cuskimage::transform {
namespace {

using cuskimage::detail::expect;
using UnsignedTypes = cuskimage::detail::Types<bool, std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t>;

}  // namespace

Array frt2(const Array& a, const Stream& stream) {
  constexpr std::string_view kFn = "transform.frt2";
  cuskimage::detail::expect_valid(a, kFn, "a");
  expect(a.ndim() == 2 && a.shape(0) == a.shape(1), kFn, "a", "must be a square, 2-D array, got ", a.str());
  const std::int64_t n = a.shape(0);
  Array out = Array::empty({n + 1, n}, DType::uint32, a.device(), stream);
  cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(a.dtype(), kFn, [&]<class T>() {
    cuskimage::detail::on_backend(
        a, stream,
        [&] {
          const Array c = a.contiguous();
          const T* p = static_cast<const T*>(c.data());
          auto* o = static_cast<std::uint32_t*>(out.data());
          for (std::int64_t m = 0; m <= n; ++m)
            for (std::int64_t col = 0; col < n; ++col) o[m * n + col] = detail::frt2_at(p, n, m, col);
        },
        [&](auto /*handle*/) { detail::cuda_frt2<T>(a.contiguous(stream), out, stream); });
  });
  return out;
}

Array ifrt2(const Array& a, const Stream& stream) {
  constexpr std::string_view kFn = "transform.ifrt2";
  cuskimage::detail::expect_valid(a, kFn, "a");
  expect(a.ndim() == 2 && a.shape(0) == a.shape(1) + 1, kFn, "a", "must be an (n+1) row x n column, 2-D array, got ",
         a.str());
  expect(a.dtype() == DType::bool_ || (is_integer(a.dtype()) && !is_signed(a.dtype())), kFn, "a",
         "must hold unsigned integers (numpy cannot add it into the uint32 result in place), got ",
         dtype_name(a.dtype()));
  const std::int64_t n = a.shape(1);
  expect(n >= 1, kFn, "a", "must have at least one column");
  Array out = Array::empty({n, n}, DType::float64, a.device(), stream);
  cuskimage::detail::dispatch<UnsignedTypes>(a.dtype(), kFn, [&]<class T>() {
    using A = detail::FrtAcc<T>;
    // sum(a[0]) is the one value every output needs: read on the host (a device input synchronises).
    const Array row = a.slice({Slice{0, 1}}).to(Device::cpu(), stream);
    stream.synchronize();
    A row0 = A(0);
    for (T v : row.to_vector<T>()) row0 = static_cast<A>(row0 + static_cast<A>(v));
    cuskimage::detail::on_backend(
        a, stream,
        [&] {
          const Array c = a.contiguous();
          const T* p = static_cast<const T*>(c.data());
          auto* o = static_cast<double*>(out.data());
          for (std::int64_t m = 0; m < n; ++m)
            for (std::int64_t col = 0; col < n; ++col) o[m * n + col] = detail::ifrt2_at(p, n, m, col, row0);
        },
        [&](auto /*handle*/) { detail::cuda_ifrt2<T>(a.contiguous(stream), out, row0, stream); });
  });
  return out;
}

}  // namespace cuskimage::transform
