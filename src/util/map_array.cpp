// skimage.util.map_array: public function and CPU backend (stable sort of the keys, then a binary
// search per pixel; the CUDA backend does the same with CUB's radix sort).
#include <algorithm>
#include <numeric>
#include <vector>

#include "cuskimage/util.hpp"
#include "src/core/elementwise.hpp"
#include "src/util/common.hpp"

namespace cuskimage::util {
namespace detail {

namespace {

template <class K, class U>
void cpu_map_array_typed(const Array& input_arr, const Array& keys, const Array& values, Array& out) {
  const std::int64_t n = keys.size();
  const K* k = static_cast<const K*>(keys.data());
  std::vector<std::int64_t> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return k[a] < k[b]; });
  std::vector<K> sorted(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) sorted[i] = k[order[i]];
  MapArrayFn<K, U> f;
  f.keys = sorted.data();
  f.order = order.data();
  f.values = static_cast<const U*>(values.data());
  f.n = n;
  Array out_u = Array::wrap(out.data(), out.shape(), dtype_v<U>, out.device(), {}, out.strides());
  cuskimage::detail::cpu_map<K, U>(input_arr, out_u, f);
}

}  // namespace

void cpu_map_array(const Array& input_arr, const Array& keys, const Array& values, Array& out) {
  dispatch<cuskimage::detail::IntegerTypes>(input_arr.dtype(), "util.map_array", [&]<class K>() {
    switch (out.itemsize()) {
      case 1: return cpu_map_array_typed<K, std::uint8_t>(input_arr, keys, values, out);
      case 2: return cpu_map_array_typed<K, std::uint16_t>(input_arr, keys, values, out);
      case 4: return cpu_map_array_typed<K, std::uint32_t>(input_arr, keys, values, out);
      default: return cpu_map_array_typed<K, std::uint64_t>(input_arr, keys, values, out);
    }
  });
}

}  // namespace detail

namespace {
constexpr std::string_view kFn = "util.map_array";

void check_inputs(const Array& input_arr, const Array& input_vals, const Array& output_vals) {
  detail::expect_valid(input_arr, kFn, "input_arr");
  detail::expect(is_integer(input_arr.dtype()), kFn, "input_arr", "must have an integer dtype, got ",
                 dtype_name(input_arr.dtype()));
  detail::expect_ndim(input_vals, kFn, "input_vals", 1, 1);
  detail::expect_ndim(output_vals, kFn, "output_vals", 1, 1);
  detail::expect(input_vals.shape()[0] == output_vals.shape()[0], kFn, "output_vals",
                 "must have the length of 'input_vals' (", input_vals.shape()[0], "), got ", output_vals.shape()[0]);
}
}  // namespace

Array map_array(const Array& input_arr, const Array& input_vals, const Array& output_vals, const Stream& stream) {
  check_inputs(input_arr, input_vals, output_vals);
  Array out = Array::empty(input_arr.shape(), output_vals.dtype(), input_arr.device(), stream);
  map_array_into(input_arr, input_vals, output_vals, out, stream);
  return out;
}

void map_array_into(const Array& input_arr, const Array& input_vals, const Array& output_vals, Array& out,
                    const Stream& stream) {
  check_inputs(input_arr, input_vals, output_vals);
  detail::expect_valid(out, kFn, "out");
  detail::expect_same_shape(input_arr, out, kFn, "input_arr", "out");
  detail::expect_same_device(input_arr, out, kFn, "input_arr", "out");
  // scikit-image casts the keys to the image dtype and the values to the output dtype.
  Array keys = input_vals.to(input_arr.device(), stream).astype(input_arr.dtype(), stream);
  Array values = output_vals.to(input_arr.device(), stream);
  values = values.dtype() == out.dtype() ? values.contiguous(stream) : values.astype(out.dtype(), stream);
  if (input_arr.size() == 0) return;
  detail::on_backend(
      input_arr, stream, [&] { detail::cpu_map_array(input_arr, keys, values, out); },
      [&](const Stream& s) { detail::cuda_map_array(input_arr, keys, values, out, s); });
}

}  // namespace cuskimage::util
