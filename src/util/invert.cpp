// skimage.util.invert: public function and CPU backend.
#include "cuskimage/util.hpp"
#include "src/core/elementwise.hpp"
#include "src/util/common.hpp"

namespace cuskimage::util {
namespace detail {

void cpu_invert(const Array& src, Array& dst, bool signed_float) {
  dispatch<cuskimage::detail::AllTypes>(src.dtype(), "util.invert", [&]<class T>() {
    cuskimage::detail::cpu_map<T, T>(src, dst, Invert<T>{signed_float});
  });
}

}  // namespace detail

Array invert(const Array& image, const InvertOptions& opts, const Stream& stream) {
  detail::expect_valid(image, "util.invert", "image");
  Array out = Array::empty(image.shape(), image.dtype(), image.device(), stream);
  invert_into(image, out, opts, stream);
  return out;
}

void invert_into(const Array& image, Array& out, const InvertOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "util.invert";
  detail::expect_valid(image, fn, "image");
  detail::expect_valid(out, fn, "out");
  detail::expect_same_shape(image, out, fn, "image", "out");
  detail::expect_same_device(image, out, fn, "image", "out");
  detail::expect(out.dtype() == image.dtype(), fn, "out", "must have the dtype of 'image' (", dtype_name(image.dtype()),
                 "), got ", dtype_name(out.dtype()));
  if (image.size() == 0) return;
  detail::on_backend(
      image, stream, [&] { detail::cpu_invert(image, out, opts.signed_float); },
      [&](const Stream& s) { detail::cuda_invert(image, out, opts.signed_float, s); });
}

}  // namespace cuskimage::util
