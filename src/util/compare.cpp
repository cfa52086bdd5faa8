// skimage.util.compare_images: public function and CPU backend.
#include <string>

#include "cuskimage/util.hpp"
#include "src/core/elementwise.hpp"
#include "src/util/common.hpp"

namespace cuskimage::util {
namespace detail {

void cpu_compare(const Array& a, const Array& b, Array& out, const CompareParams& p) {
  dispatch<cuskimage::detail::FloatTypes>(a.dtype(), "util.compare_images", [&]<class T>() {
    using cuskimage::detail::cpu_map2;
    switch (p.op) {
      case CompareOp::diff:
        return cpu_map2<T, T, T>(a, b, out, DiffFn<T>{});
      case CompareOp::blend:
        return cpu_map2<T, T, T>(a, b, out, BlendFn<T>{});
      case CompareOp::checkerboard:
        return cpu_map2<T, T, T>(a, b, out, CheckerboardFn<T>{p.cols, p.stepx, p.stepy, p.tiles_x, p.tiles_y});
    }
  });
}

}  // namespace detail

namespace {
constexpr std::string_view kMethods[] = {"diff", "blend", "checkerboard"};
}

CompareMethod compare_method_from_name(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kMethods); ++i)
    if (name == kMethods[i]) return static_cast<CompareMethod>(i);
  detail::fail("util.compare_images", "argument 'method' must be one of 'diff', 'blend', 'checkerboard', got '",
               std::string(name), "'");
}

std::string_view compare_method_name(CompareMethod method) { return kMethods[static_cast<int>(method)]; }

Array compare_images(const Array& image0, const Array& image1, const CompareImagesOptions& opts,
                     const Stream& stream) {
  constexpr std::string_view fn = "util.compare_images";
  detail::expect_valid(image0, fn, "image0");
  detail::expect_valid(image1, fn, "image1");
  detail::expect_same_shape(image0, image1, fn, "image0", "image1");
  detail::expect_same_device(image0, image1, fn, "image0", "image1");
  const int m = static_cast<int>(opts.method);
  detail::expect(m >= 0 && m < 3, fn, "method", "is not a valid CompareMethod");
  detail::CompareParams p;
  p.op = static_cast<detail::CompareOp>(m);
  if (opts.method == CompareMethod::checkerboard) {
    detail::expect(image0.ndim() == 2, fn, "image0", "must be 2-D for the checkerboard method, got ndim ",
                   image0.ndim());
    detail::expect(opts.n_tiles[0] > 0 && opts.n_tiles[1] > 0, fn, "n_tiles", "must be positive, got (",
                   opts.n_tiles[0], ", ", opts.n_tiles[1], ")");
    p.cols = image0.shape()[1];
    p.stepx = image0.shape()[0] / opts.n_tiles[0];
    p.stepy = image0.shape()[1] / opts.n_tiles[1];
    p.tiles_x = opts.n_tiles[0];
    p.tiles_y = opts.n_tiles[1];
  }
  Array f0 = img_as_float(image0, {}, stream);
  Array f1 = img_as_float(image1, {}, stream);
  // NumPy promotion for diff / blend; checkerboard writes into zeros_like(image0's float).
  DType out_dtype = f0.dtype();
  if (opts.method != CompareMethod::checkerboard && f1.dtype() == DType::float64) out_dtype = DType::float64;
  if (f0.dtype() != out_dtype) f0 = f0.astype(out_dtype, stream);
  if (f1.dtype() != out_dtype) f1 = f1.astype(out_dtype, stream);
  Array out = Array::empty(image0.shape(), out_dtype, image0.device(), stream);
  if (out.size() == 0) return out;
  detail::on_backend(
      f0, stream, [&] { detail::cpu_compare(f0, f1, out, p); },
      [&](const Stream& s) { detail::cuda_compare(f0, f1, out, p, s); });
  return out;
}

}  // namespace cuskimage::util
