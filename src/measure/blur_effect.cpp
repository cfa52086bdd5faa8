// skimage.measure.blur_effect (Crete et al. 2007): per axis, the sobel gradients of the image and of
// its uniform-filtered copy (library filters), then two sums over the interior region (CPU loop or
// kernels/measure/blur_effect.cu).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/measure/blur_effect.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::dispatch;
using cuskimage::detail::expect;
using cuskimage::detail::expect_valid;
using cuskimage::detail::on_backend;

}  // namespace

std::vector<double> blur_effect_axes(const Array& image, const BlurEffectOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "measure.blur_effect";
  expect_valid(image, fn, "image");
  expect(opts.h_size >= 1, fn, "h_size", "must be >= 1, got ", opts.h_size);
  Array img;
  if (opts.channel_axis) {
    const int ax = cuskimage::detail::normalize_axis(*opts.channel_axis, image.ndim(), fn, "channel_axis");
    expect(image.shape(ax) == 3, fn, "image", "must have size 3 along `channel_axis` (RGB), got shape ",
           shape_str(image.shape()));
    // rgb2gray: img_as_float, then 0.2125 R + 0.7154 G + 0.0721 B as a 3-tap correlation centred
    // on the G channel.
    const Array f = util::img_as_float(image, {}, stream);
    const Array w = Array::from_vector(std::vector<double>{0.2125, 0.7154, 0.0721}, {3});
    const Array g = ndimage::correlate1d(f, w, {.axis = ax}, stream);
    img = g.index(ax, 1).contiguous(stream);
  } else {
    img = util::img_as_float(image, {}, stream);
  }
  const int nd = img.ndim();
  expect(nd >= 1, fn, "image", "must have at least one dimension");
  std::vector<double> B;
  for (int ax = 0; ax < nd; ++ax) {
    const Array filt = ndimage::uniform_filter1d(img, opts.h_size, {.axis = ax}, stream);
    const Array sharp = filters::sobel(img, {.axis = {ax}}, stream).contiguous(stream);
    const Array blur = filters::sobel(filt, {.axis = {ax}}, stream).contiguous(stream);
    const std::array<double, 2> m = dispatch<cuskimage::detail::FloatTypes>(sharp.dtype(), fn, [&]<class T>() {
      return on_backend(
          sharp, stream,
          [&] {
            const T* sp = static_cast<const T*>(sharp.data());
            const T* bp = static_cast<const T*>(blur.data());
            const Shape& sh = sharp.shape();
            // np.maximum against the float64 epsilon promotes float32 to float64 (NEP 50)
            const double eps = std::numeric_limits<double>::epsilon();
            double m1 = 0.0, m2 = 0.0;
            std::vector<std::int64_t> c(nd, 0);
            bool empty = false;
            for (int d = 0; d < nd; ++d) {
              c[d] = 2;
              empty = empty || sh[d] - 1 <= 2;
            }
            if (empty) return std::array<double, 2>{0.0, 0.0};
            for (;;) {
              std::int64_t off = 0;
              for (int d = 0; d < nd; ++d) off = off * sh[d] + c[d];
              const double s = std::max(eps, static_cast<double>(std::abs(sp[off])));
              const double b = std::max(eps, static_cast<double>(std::abs(bp[off])));
              m1 += s;
              m2 += std::max(0.0, s - b);
              int d = nd - 1;
              while (d >= 0 && ++c[d] >= sh[d] - 1) c[d--] = 2;
              if (d < 0) break;
            }
            return std::array<double, 2>{m1, m2};
          },
          [&](const auto&) { return detail::cuda_blur_sums<T>(sharp, blur, stream); });
    });
    B.push_back(std::abs(m[0] - m[1]) / m[0]);
  }
  return B;
}

double blur_effect(const Array& image, const BlurEffectOptions& opts, const Stream& stream) {
  const auto B = blur_effect_axes(image, opts, stream);
  switch (opts.reduce) {
    case BlurReduce::mean: {
      double s = 0.0;
      for (double b : B) s += b;
      return s / static_cast<double>(B.size());
    }
    case BlurReduce::min: {
      double m = B[0];
      for (double b : B) m = (b < m || b != b) ? b : m;
      return m;
    }
    default: {
      double m = B[0];
      for (double b : B) m = (b > m || b != b) ? b : m;
      return m;
    }
  }
}

}  // namespace cuskimage::measure
