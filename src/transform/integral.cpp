// transform.integral_image and transform.integrate: argument handling and the CPU backend (numpy's
// sequential cumsum along each axis in turn, in the accumulation dtype). The CUDA backend is
// kernels/transform/integral.cu.
#include "cuskimage/transform/integral.hpp"

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/transform/integral.hpp"

namespace cuskimage::transform {
namespace {

using cuskimage::detail::expect;
using cuskimage::detail::Types;

using AccTypes = Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t,
                       std::uint64_t, std::int64_t, float, double>;

/// numpy's cumsum dtype for an input dtype (integral_image's default).
DType default_dtype(DType dt) {
  if (is_floating(dt)) return DType::float64;
  if (dt == DType::uint8 || dt == DType::uint16 || dt == DType::uint32 || dt == DType::uint64) return DType::uint64;
  return DType::int64;
}

/// default_dtype at compile time.
template <class T>
using DefaultAcc = std::conditional_t<std::is_floating_point_v<T>, double,
                                      std::conditional_t<std::is_unsigned_v<T> && !std::is_same_v<T, bool>,
                                                         std::uint64_t, std::int64_t>>;

template <class D>
void cpu_integral_image(Array& out) {
  D* p = static_cast<D*>(out.data());
  const Shape& shape = out.shape();
  const int nd = out.ndim();
  std::int64_t inner = out.size();
  for (int a = 0; a < nd; ++a) {
    const std::int64_t n = shape[a];
    if (n == 0) return;
    inner /= n;
    const std::int64_t outer = out.size() / (n * inner);
    for (std::int64_t o = 0; o < outer; ++o) {
      D* base = p + o * n * inner;
      for (std::int64_t i = 1; i < n; ++i) {
        D* row = base + i * inner;
        const D* prev = row - inner;
        for (std::int64_t j = 0; j < inner; ++j) row[j] = detail::wrap_add(prev[j], row[j]);
      }
    }
  }
}

/// (n, nd) int64 windows from a (n, nd) or (nd,) integer array, negatives counted from the end.
std::vector<std::int64_t> windows(const Array& a, const Array& ii, std::string_view arg, const Stream& stream) {
  constexpr std::string_view kFn = "transform.integrate";
  cuskimage::detail::expect_valid(a, kFn, arg);
  expect(is_integer(a.dtype()), kFn, arg, "must hold integer coordinates, got ", dtype_name(a.dtype()));
  const int nd = ii.ndim();
  expect((a.ndim() == 1 && a.shape(0) == nd) || (a.ndim() == 2 && a.shape(1) == nd), kFn, arg,
         "must have shape (n, ", nd, ") or (", nd, ",), got ", a.str());
  const Array h = a.to(Device::cpu(), stream).astype(DType::int64);
  stream.synchronize();
  const Array hc = h.contiguous();
  const auto* hp = static_cast<const std::int64_t*>(hc.data());
  std::vector<std::int64_t> v(hp, hp + h.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::int64_t n = ii.shape(static_cast<int>(i % nd));
    if (v[i] < 0) v[i] += n;
    expect(v[i] >= 0 && v[i] < n, kFn, arg, "holds coordinate ", v[i], " outside axis ", i % nd, " of size ", n);
  }
  return v;
}

}  // namespace

Array integral_image(const Array& image, const IntegralImageOptions& opts, const Stream& stream) {
  constexpr std::string_view kFn = "transform.integral_image";
  cuskimage::detail::expect_valid(image, kFn, "image");
  expect(image.ndim() >= 1, kFn, "image", "must have at least one dimension, got a 0-D array");
  const DType def = default_dtype(image.dtype());
  const DType acc = opts.dtype.value_or(def);
  expect(acc != DType::bool_, kFn, "dtype", "must be a numeric dtype, got bool");
  Array out;
  cuskimage::detail::dispatch<AccTypes>(acc, kFn, [&]<class D>() {
    cuskimage::detail::on_backend(
        image, stream,
        [&] {
          out = image.astype(acc).contiguous();
          if (out.data() == image.data()) out = out.copy();
          cpu_integral_image<D>(out);
        },
        [&](auto /*handle*/) {
          out = Array::empty(image.shape(), acc, image.device(), stream);
          if (out.size() == 0) return;
          if (acc != def) {
            detail::cuda_integral_image<D, D>(image.astype(acc, stream).contiguous(stream), out, stream);
            return;
          }
          cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(image.dtype(), kFn, [&]<class T>() {
            if constexpr (std::is_same_v<D, DefaultAcc<T>>)
              detail::cuda_integral_image<T, D>(image.contiguous(stream), out, stream);
          });
        });
  });
  return out;
}

Array integrate(const Array& ii, const Array& start, const Array& end, const Stream& stream) {
  constexpr std::string_view kFn = "transform.integrate";
  cuskimage::detail::expect_valid(ii, kFn, "ii");
  expect(ii.ndim() >= 1 && ii.ndim() <= detail::kIntegrateMaxDims, kFn, "ii", "must have 1 to ",
         detail::kIntegrateMaxDims, " dimensions, got ", ii.ndim());
  expect(ii.dtype() != DType::bool_, kFn, "ii", "must be numeric, got bool");
  std::vector<std::int64_t> s = windows(start, ii, "start", stream), e = windows(end, ii, "end", stream);
  expect(s.size() == e.size(), kFn, "end", "must hold as many windows as 'start'");
  for (std::size_t i = 0; i < s.size(); ++i)
    expect(e[i] >= s[i], kFn, "end", "coordinates must be greater or equal to start");
  const int nd = ii.ndim();
  const std::int64_t n = static_cast<std::int64_t>(s.size()) / nd;
  Array out = Array::empty({n}, DType::float64, ii.device(), stream);
  cuskimage::detail::dispatch<AccTypes>(ii.dtype(), kFn, [&]<class D>() {
    cuskimage::detail::on_backend(
        ii, stream,
        [&] {
          const Array c = ii.contiguous();
          const Strides st = contiguous_strides(c.shape());
          double* o = static_cast<double*>(out.data());
          for (std::int64_t w = 0; w < n; ++w)
            o[w] = detail::integrate_window(static_cast<const D*>(c.data()), st.data(), nd, s.data() + w * nd,
                                            e.data() + w * nd);
        },
        [&](auto /*handle*/) {
          const Array sd = Array::from_vector(s, {n, nd}).to(ii.device(), stream);
          const Array ed = Array::from_vector(e, {n, nd}).to(ii.device(), stream);
          detail::cuda_integrate<D>(ii.contiguous(stream), sd, ed, out, stream);
        });
  });
  return out;
}

}  // namespace cuskimage::transform
