// segmentation.find_boundaries / mark_boundaries: argument handling and the CPU backend; the
// per-pixel rules are src/segmentation/boundaries.hpp, shared with kernels/segmentation/boundaries.cu.
#include "cuskimage/segmentation/boundaries.hpp"

#include <cstdint>
#include <string_view>

#include "cuskimage/color.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/segmentation/boundaries.hpp"

namespace cuskimage::segmentation {
namespace {

using cuskimage::detail::expect;
using LabelTypes = cuskimage::detail::AllTypes;

Array boundaries_impl(const Array& label_img, const FindBoundariesOptions& opts, std::string_view fn,
                      const Stream& stream) {
  cuskimage::detail::expect_valid(label_img, fn, "label_img");
  const int nd = label_img.ndim();
  expect(nd >= 1 && nd <= cuskimage::detail::kMaxDims, fn, "label_img", "must have 1 to ",
         cuskimage::detail::kMaxDims, " dimensions, got ", nd);
  expect(opts.connectivity >= 1 && opts.connectivity <= nd, fn, "connectivity", "must be in [1, ", nd, "], got ",
         opts.connectivity);
  const bool needs_int = opts.mode == BoundaryMode::outer || opts.mode == BoundaryMode::subpixel;
  expect(!(needs_int && is_floating(label_img.dtype())), fn, "label_img",
         "must be bool or integer for modes outer and subpixel (np.iinfo of its dtype), got ",
         dtype_name(label_img.dtype()));
  Shape out_shape = label_img.shape();
  if (opts.mode == BoundaryMode::subpixel)
    for (auto& s : out_shape) s = s > 0 ? 2 * s - 1 : 0;
  Array out = Array::empty(out_shape, DType::bool_, label_img.device(), stream);
  if (out.size() == 0) return out;
  cuskimage::detail::dispatch<LabelTypes>(label_img.dtype(), fn, [&]<class T>() {
    detail::BoundaryRule<T> rule;
    rule.img = static_cast<const T*>(label_img.data());
    rule.g = detail::grid_of(label_img);
    rule.conn = opts.connectivity;
    rule.mode = static_cast<int>(opts.mode);
    rule.background = opts.background;
    cuskimage::detail::on_backend(
        label_img, stream,
        [&] {
          bool* o = static_cast<bool*>(out.data());
          const std::int64_t n = out.size();
          if (nd == 2 && rule.mode != 3) {  // the common case without per-pixel divisions
            detail::BoundaryRule<T, 2> r2;
            r2.img = rule.img;
            r2.g = rule.g;
            r2.conn = rule.conn;
            r2.mode = rule.mode;
            r2.background = rule.background;
            std::int64_t c[2], i = 0;
            for (c[0] = 0; c[0] < rule.g.shape[0]; ++c[0])
              for (c[1] = 0; c[1] < rule.g.shape[1]; ++c[1])
                o[i++] = r2.at(c, c[0] * rule.g.stride[0] + c[1] * rule.g.stride[1]);
            return;
          }
          for (std::int64_t i = 0; i < n; ++i) o[i] = rule(i);
        },
        [&](auto) { detail::cuda_find_boundaries<T>(rule, out, stream); });
  });
  return out;
}

}  // namespace

Array find_boundaries(const Array& label_img, const FindBoundariesOptions& opts, const Stream& stream) {
  return boundaries_impl(label_img, opts, "segmentation.find_boundaries", stream);
}

Array mark_boundaries(const Array& image, const Array& label_img, const MarkBoundariesOptions& opts,
                      const Stream& stream) {
  constexpr std::string_view fn = "segmentation.mark_boundaries";
  cuskimage::detail::expect_valid(image, fn, "image");
  cuskimage::detail::expect_valid(label_img, fn, "label_img");
  expect(label_img.ndim() == 2, fn, "label_img", "must be 2-D, got ", label_img.ndim(), "-D");
  expect(image.ndim() == 2 || (image.ndim() == 3 && image.shape(2) == 3), fn, "image",
         "must be (M, N) or (M, N, 3), got ", shape_str(image.shape()));
  expect(image.shape(0) == label_img.shape(0) && image.shape(1) == label_img.shape(1), fn, "label_img",
         "must have the image's (M, N), got ", shape_str(label_img.shape()), " for an image of ",
         shape_str(image.shape()));
  cuskimage::detail::expect_same_device(image, label_img, fn, "image", "label_img");
  // scikit-image: img_as_float (a copy), float32 kept, then gray2rgb.
  Array marked = util::img_as_float(image, {.force_copy = true}, stream);
  if (marked.ndim() == 2) marked = color::gray2rgb(marked, {}, stream);
  if (opts.mode == BoundaryMode::subpixel) {
    const double zy = 2.0 - 1.0 / static_cast<double>(marked.shape(0));
    const double zx = 2.0 - 1.0 / static_cast<double>(marked.shape(1));
    marked = ndimage::zoom(marked, {zy, zx, 1.0}, {.mode = ndimage::InterpMode::mirror}, stream);
  }
  marked = marked.contiguous(stream);
  const Array bnd = boundaries_impl(
      label_img, {.connectivity = 1, .mode = opts.mode, .background = opts.background_label}, fn, stream);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(marked.dtype(), fn, [&]<class F>() {
    detail::PaintRule<F> rule;
    rule.rgb = static_cast<F*>(marked.data());
    rule.bnd = static_cast<const bool*>(bnd.data());
    rule.h = bnd.shape(0);
    rule.w = bnd.shape(1);
    for (int k = 0; k < 3; ++k) {
      rule.color[k] = static_cast<F>(opts.color[k]);
      rule.outline[k] = static_cast<F>(opts.outline_color ? (*opts.outline_color)[k] : 0.0);
    }
    rule.has_outline = opts.outline_color.has_value();
    const std::int64_t n = bnd.size();
    cuskimage::detail::on_backend(
        marked, stream,
        [&] {
          for (std::int64_t i = 0; i < n; ++i) rule(i);
        },
        [&](auto) { detail::cuda_paint<F>(rule, n, stream); });
  });
  return marked;
}

}  // namespace cuskimage::segmentation
