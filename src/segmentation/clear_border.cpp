// segmentation.clear_border: argument handling and the CPU backend. Components come from
// measure.label (background 0, full connectivity: scikit-image's call), then one pass flags the
// labels met in the border and one pass clears the flagged ones (kernels/segmentation/clear_border.cu
// on a CUDA device).
#include "cuskimage/segmentation/clear_border.hpp"

#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

#include "cuskimage/measure.hpp"
#include "src/core/backend.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/segmentation/clear_border.hpp"

namespace cuskimage::segmentation {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "segmentation.clear_border";

template <class T, class L>
void cpu_clear_border(const detail::BorderRule& rule, const L* label, std::uint8_t* flags,
                      const detail::Source<T>& src, T* out, T bgval, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i)
    if (rule(i)) flags[label[i]] = 1;
  for (std::int64_t i = 0; i < n; ++i) out[i] = flags[label[i]] ? bgval : src(i);
}

}  // namespace

Array clear_border(const Array& labels, const ClearBorderOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(labels, kFn, "labels");
  const int nd = labels.ndim();
  expect(nd >= 1 && nd <= cuskimage::detail::kMaxDims, kFn, "labels", "must have 1 to ",
         cuskimage::detail::kMaxDims, " dimensions, got ", nd);
  expect(opts.buffer_size >= 0, kFn, "buffer_size", "must be >= 0, got ", opts.buffer_size);
  const bool has_mask = opts.mask.valid();
  if (has_mask) {
    cuskimage::detail::expect_same_shape(labels, opts.mask, kFn, "labels", "mask");
    cuskimage::detail::expect_dtype(opts.mask, kFn, "mask", {DType::bool_});
    cuskimage::detail::expect_same_device(labels, opts.mask, kFn, "labels", "mask");
  } else {
    for (int a = 0; a < nd; ++a)
      expect(opts.buffer_size < labels.shape(a), kFn, "buffer_size", "may not be greater than labels size (",
             opts.buffer_size, " for shape ", shape_str(labels.shape()), ")");
  }
  Array out = Array::empty(labels.shape(), labels.dtype(), labels.device(), stream);
  const std::int64_t n = out.size();
  if (n == 0) return out;
  const bool wide = n >= std::numeric_limits<std::int32_t>::max();
  const Array lab = measure::label(
      labels, {.background = 0, .connectivity = nd, .dtype = wide ? DType::int64 : DType::int32}, stream);
  const Array mask = has_mask ? opts.mask.contiguous(stream) : Array();
  Array flags = Array::zeros({n + 1}, DType::uint8, labels.device(), stream);
  detail::BorderRule rule;
  rule.g.nd = nd;
  for (int a = 0; a < nd; ++a) rule.g.shape[a] = labels.shape(a);
  rule.ext = opts.buffer_size + 1;
  rule.mask = has_mask ? static_cast<const bool*>(mask.data()) : nullptr;
  unsigned char bytes[8];
  cuskimage::detail::element_from_double(labels.dtype(), opts.bgval, bytes);
  cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(labels.dtype(), kFn, [&]<class T>() {
    T bg;
    std::memcpy(&bg, bytes, sizeof(T));
    T* o = static_cast<T*>(out.data());
    detail::Source<T> src;
    src.in = static_cast<const T*>(labels.data());
    src.g = detail::grid_of(labels);
    src.contiguous = labels.is_contiguous();
    auto* f = static_cast<std::uint8_t*>(flags.data());
    auto run = [&]<class L>() {
      const L* l = static_cast<const L*>(lab.data());
      cuskimage::detail::on_backend(
          labels, stream, [&] { cpu_clear_border<T, L>(rule, l, f, src, o, bg, n); },
          [&](auto) { detail::cuda_clear_border<T, L>(rule, l, f, src, o, bg, n, stream); });
    };
    if (wide) run.template operator()<std::int64_t>();
    else run.template operator()<std::int32_t>();
  });
  return out;
}

}  // namespace cuskimage::segmentation
