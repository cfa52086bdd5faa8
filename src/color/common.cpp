#include "src/color/common.hpp"

#include <algorithm>

#include "cuskimage/color.hpp"
#include "cuskimage/tuning.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/policy_slot.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::color::detail {

using cuskimage::detail::expect;

Array move_axis_last(const Array& a, int axis) {
  if (axis == a.ndim() - 1) return a.share();
  std::vector<int> order;
  for (int d = 0; d < a.ndim(); ++d)
    if (d != axis) order.push_back(d);
  order.push_back(axis);
  return a.transpose(order);
}

Array move_last_to(const Array& a, int axis) {
  const int n = a.ndim();
  if (axis == n - 1) return a.share();
  std::vector<int> order;
  for (int d = 0, k = 0; d < n; ++d) order.push_back(d == axis ? n - 1 : k++);
  return a.transpose(order);
}

bool direct_dtype(DType dt) {
  return dt == DType::uint8 || dt == DType::uint16 || dt == DType::float32 || dt == DType::float64;
}

Array readable(const Array& a, const Stream& stream) {
  return direct_dtype(a.dtype()) ? a.share() : util::img_as_float64(a, {}, stream);
}

DType float_type(DType dt) { return dt == DType::float32 ? DType::float32 : DType::float64; }

void pixel_into(Op op, const PixelParams& p, const Array& in, Array& out, const Stream& stream) {
  cuskimage::detail::on_backend(
      in, stream, [&] { cpu_pixel(op, p, in, out); }, [&](cudaStream_t s) { cuda_pixel(op, p, in, out, s); });
}

Array pixel_op(std::string_view fn, std::string_view arg, const Array& arr, int channel_axis, Op op,
               const PixelParams& p, int cin, int cout, bool drop, const Stream& stream) {
  cuskimage::detail::expect_valid(arr, fn, arg);
  expect(arr.ndim() >= 1, fn, arg, "must have a channel axis, got a 0-d array");
  const int ax = cuskimage::detail::normalize_axis(channel_axis, arr.ndim(), fn, "channel_axis");
  expect(arr.shape(ax) == cin, fn, arg, "must have size ", cin, " along channel_axis, got shape ",
         shape_str(arr.shape()));
  // ycbcr2rgb subtracts its offsets in the input's own integer dtype: those are read raw.
  const bool raw_int = op == Op::linear && p.has_pre && is_integer(arr.dtype());
  const Array in = raw_int ? move_axis_last(arr, ax) : readable(move_axis_last(arr, ax), stream);
  Shape os = in.shape();
  os.back() = cout;
  Array out = Array::empty(os, float_type(in.dtype()), arr.device(), stream);
  pixel_into(op, p, in, out, stream);
  if (drop) return out.squeeze(out.ndim() - 1);
  return move_last_to(out, ax);
}

void pixel_op_into(std::string_view fn, std::string_view arg, const Array& arr, Array& out, int channel_axis, Op op,
                   const PixelParams& p, int cin, int cout, bool drop, const Stream& stream) {
  cuskimage::detail::expect_valid(arr, fn, arg);
  cuskimage::detail::expect_valid(out, fn, "out");
  expect(arr.ndim() >= 1, fn, arg, "must have a channel axis, got a 0-d array");
  const int ax = cuskimage::detail::normalize_axis(channel_axis, arr.ndim(), fn, "channel_axis");
  expect(arr.shape(ax) == cin, fn, arg, "must have size ", cin, " along channel_axis, got shape ",
         shape_str(arr.shape()));
  cuskimage::detail::expect_same_device(arr, out, fn, arg, "out");
  Shape want = arr.shape();
  if (drop)
    want.erase(want.begin() + ax);
  else
    want[static_cast<std::size_t>(ax)] = cout;
  expect(out.shape() == want, fn, "out", "must have shape ", shape_str(want), ", got ", shape_str(out.shape()));
  const DType dt = float_type(arr.dtype());
  expect(out.dtype() == dt, fn, "out", "must have dtype ", dtype_name(dt), ", got ", dtype_name(out.dtype()));
  const Array in = readable(move_axis_last(arr, ax), stream);
  Array out_cl = drop ? out.expand_dims(out.ndim()) : move_axis_last(out, ax);
  pixel_into(op, p, in, out_cl, stream);
}

void set_white(PixelParams& p, std::string_view /*fn*/, std::string_view illuminant, std::string_view observer) {
  const Rgb w = xyz_tristimulus_values(illuminant, observer);
  for (int c = 0; c < 3; ++c) {
    p.white[c] = w[c];
    p.inv_white[c] = 1.0 / w[c];
  }
}

Shape broadcast_shapes(const Shape& a, const Shape& b, std::string_view fn, std::string_view what) {
  const std::size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int64_t x = i < n - a.size() ? 1 : a[i - (n - a.size())];
    const std::int64_t y = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (x != y && x != 1 && y != 1)
      cuskimage::detail::fail(fn, what, " shapes ", shape_str(a), " and ", shape_str(b), " do not broadcast");
    out[i] = x == 1 ? y : x;
  }
  return out;
}

Array broadcast_to(const Array& a, const Shape& shape) {
  const std::size_t n = shape.size(), k = static_cast<std::size_t>(a.ndim());
  Strides st(n, 0);
  for (std::size_t i = 0; i < k; ++i) {
    const std::size_t j = n - k + i;
    st[j] = a.shape()[i] == shape[j] ? a.strides()[i] : 0;
  }
  return a.as_strided(shape, st);
}

}  // namespace cuskimage::color::detail

namespace cuskimage::tuning {
CUSK_TUNING_POLICY(ColorPolicy, color_policy)
}  // namespace cuskimage::tuning
