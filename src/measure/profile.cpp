// skimage.measure.profile_line: the sample coordinates on the host, samples of order 0 / 1 from the
// strided image (CPU loop or kernels/measure/profile.cu), higher orders through
// ndimage::map_coordinates, then the reduction over the line width on the host.
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "cuskimage/measure.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/measure/coords.hpp"
#include "src/measure/profile.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::AllTypes;
using cuskimage::detail::dispatch;
using cuskimage::detail::expect;
using cuskimage::detail::expect_valid;
using cuskimage::detail::on_backend;
using detail::host_values;

/// np.linspace(a, b, num)[i].
double linspace_at(double a, double b, std::int64_t num, std::int64_t i) {
  if (num == 1) return a;
  if (i == num - 1) return b;
  const double step = (b - a) / static_cast<double>(num - 1);
  if (step == 0.0) return (static_cast<double>(i) / static_cast<double>(num - 1)) * (b - a) + a;
  return static_cast<double>(i) * step + a;
}

}  // namespace

Array profile_line(const Array& image, std::pair<double, double> src, std::pair<double, double> dst,
                   const ProfileLineOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "measure.profile_line";
  expect_valid(image, fn, "image");
  expect(image.ndim() == 2 || image.ndim() == 3, fn, "image", "must be 2-D or 3-D (channel-last), got ndim ",
         image.ndim());
  const bool is_bool = image.dtype() == DType::bool_;
  const int order = opts.order.value_or(is_bool ? 0 : 1);
  expect(order >= 0 && order <= 5, fn, "order", "must be in the range 0-5, got ", order);
  expect(!(is_bool && order != 0), fn, "order",
         "must be 0 for a bool image (interpolation is not defined with bool data type), got ", order);
  expect(opts.linewidth >= 1, fn, "linewidth", "must be >= 1, got ", opts.linewidth);
  expect(opts.reduce != ProfileReduce::custom || static_cast<bool>(opts.reduce_func), fn, "reduce_func",
         "must be set for ProfileReduce::custom");
  // Sample coordinates (skimage's _line_profile_coordinates), computed on the host.
  const double d_row = dst.first - src.first, d_col = dst.second - src.second;
  const double theta = std::atan2(d_row, d_col);
  const auto length = static_cast<std::int64_t>(std::ceil(std::hypot(d_row, d_col) + 1));
  const std::int64_t lw = opts.linewidth;
  const double col_width = static_cast<double>(lw - 1) * std::sin(-theta) / 2;
  const double row_width = static_cast<double>(lw - 1) * std::cos(theta) / 2;
  const std::int64_t npts = length * lw;
  std::vector<double> coords(2 * npts);
  for (std::int64_t i = 0; i < length; ++i) {
    const double row_i = linspace_at(src.first, dst.first, length, i);
    const double col_i = linspace_at(src.second, dst.second, length, i);
    for (std::int64_t j = 0; j < lw; ++j) {
      // pixels are flipped along the width afterwards: sample j holds perpendicular point lw-1-j
      const std::int64_t q = lw - 1 - j;
      coords[2 * (i * lw + j)] = linspace_at(row_i - row_width, row_i + row_width, lw, q);
      coords[2 * (i * lw + j) + 1] = linspace_at(col_i - col_width, col_i + col_width, lw, q);
    }
  }
  const std::int64_t nch = image.ndim() == 3 ? image.shape(2) : 1;
  const detail::InterpMode mode = detail::interp_mode(opts.mode);
  Array samples = Array::empty({npts, nch}, image.dtype(), image.device(), stream);
  if (order > 1) {
    // Prefiltered orders: ndimage::map_coordinates per channel, as scikit-image calls scipy's
    // (prefilter=True, constant/wrap as the grid variants). Orders 0/1 below sample the strided
    // image directly (no prefilter, no copy of the channel planes).
    const Array pts = Array::from_vector(coords, {npts, 2}).to(image.device(), stream).transpose({1, 0});
    for (std::int64_t ch = 0; ch < nch; ++ch) {
      const Array plane = image.ndim() == 3 ? image.index(2, ch) : image.share();
      Array col = samples.index(1, ch);
      col.copy_from(ndimage::map_coordinates(plane, pts, {.order = order, .mode = mode, .cval = opts.cval}, stream),
                    stream);
    }
  } else {
    dispatch<AllTypes>(image.dtype(), fn, [&]<class T>() {
      on_backend(
          image, stream,
          [&] {
            T* o = static_cast<T*>(samples.data());
            const T* p = static_cast<const T*>(image.data());
            const auto& st = image.strides();
            for (std::int64_t k = 0; k < npts; ++k)
              for (std::int64_t ch = 0; ch < nch; ++ch)
                o[k * nch + ch] =
                    detail::profile_sample<T>(p + (nch > 1 ? ch * st[2] : 0), image.shape(0), image.shape(1), st[0],
                                              st[1], coords[2 * k], coords[2 * k + 1], order, mode, opts.cval);
          },
          [&](const auto&) {
            const Array dc = Array::from_vector(coords, {npts, 2}).to(image.device(), stream);
            detail::cuda_profile_samples<T>(image, dc, samples, order, mode, opts.cval, stream);
          });
    });
  }
  if (opts.reduce == ProfileReduce::none) {
    return image.ndim() == 3 ? samples.reshape({length, lw, nch}) : samples.reshape({length, lw});
  }
  // mean / custom: over the width, on the host (length * linewidth values).
  const std::vector<double> v = host_values(samples, stream);  // ordered after the samples on `stream`
  Array out = Array::empty(image.ndim() == 3 ? Shape{length, nch} : Shape{length}, DType::float64);
  double* o = static_cast<double*>(out.data());
  std::vector<double> row(lw);
  for (std::int64_t i = 0; i < length; ++i)
    for (std::int64_t ch = 0; ch < nch; ++ch) {
      for (std::int64_t j = 0; j < lw; ++j) row[j] = v[(i * lw + j) * nch + ch];
      if (opts.reduce == ProfileReduce::custom) {
        o[i * nch + ch] = opts.reduce_func(row);
      } else {
        double s = 0.0;
        for (double x : row) s += x;
        o[i * nch + ch] = s / static_cast<double>(lw);
      }
    }
  return out;
}

}  // namespace cuskimage::measure
