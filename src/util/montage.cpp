// skimage.util.montage: public function and CPU backend. One gather pass builds the output (every
// output pixel finds its tile and source pixel, or takes the fill value); rescale_intensity and
// fill = 'mean' add per-image / per-channel reductions first.
#include <cmath>
#include <numeric>

#include "cuskimage/util.hpp"
#include "src/core/convert.hpp"
#include "src/core/elementwise.hpp"
#include "src/util/common.hpp"
#include "src/util/cpu_loops.hpp"

namespace cuskimage::util {
namespace detail {

void cpu_rescale_stack(const Array& src, Array& dst, const Array& params) {
  const std::int64_t image_size = src.shape()[0] > 0 ? src.size() / src.shape()[0] : 1;
  dispatch<cuskimage::detail::AllTypes>(src.dtype(), "util.montage", [&]<class T>() {
    cuskimage::detail::cpu_map<T, T>(src, dst,
                                     RescaleStackFn<T>{static_cast<const double*>(params.data()), image_size});
  });
}

void cpu_montage(const Array& src, Array& out, const Array& fill, std::int64_t pad, std::int64_t ntiles_col) {
  dispatch<cuskimage::detail::AllTypes>(src.dtype(), "util.montage", [&]<class T>() {
    const auto f = make_montage_fn<T>(src, out, fill, pad, ntiles_col);
    cpu_generate<T>(out, f);
  });
}

}  // namespace detail

Array montage(const Array& arr_in, const MontageOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "util.montage";
  detail::expect_valid(arr_in, fn, "arr_in");
  Array stack;
  if (opts.channel_axis) {
    detail::expect(arr_in.ndim() == 4, fn, "arr_in",
                   "must be 4-D (images, rows, cols, channels) when 'channel_axis' is given, got ndim ", arr_in.ndim());
    const int ax = detail::normalize_axis(*opts.channel_axis, 4, fn, "channel_axis");
    std::vector<int> perm;
    for (int d = 0; d < 4; ++d)
      if (d != ax) perm.push_back(d);
    perm.push_back(ax);
    stack = arr_in.transpose(perm);
  } else {
    detail::expect(arr_in.ndim() == 3, fn, "arr_in",
                   "must be 3-D (images, rows, cols) for grayscale images, or 4-D with 'channel_axis', got ndim ",
                   arr_in.ndim());
    stack = arr_in.expand_dims(3);
  }
  const DType dt = stack.dtype();
  const std::int64_t K = stack.shape()[0], M = stack.shape()[1], N = stack.shape()[2], C = stack.shape()[3];
  std::int64_t rows, cols;
  if (opts.grid_shape) {
    rows = (*opts.grid_shape)[0];
    cols = (*opts.grid_shape)[1];
    detail::expect(rows >= 0 && cols >= 0, fn, "grid_shape", "must be non-negative, got (", rows, ", ", cols, ")");
  } else {
    rows = cols = static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(K))));
  }
  detail::expect(rows * cols >= K, fn, "grid_shape", "(", rows, ", ", cols, ") has fewer tiles than the ", K,
                 " images");
  const std::int64_t pad = opts.padding_width;
  detail::expect(pad >= 0, fn, "padding_width", "must be non-negative, got ", pad);
  detail::expect(opts.fill.empty() || opts.fill.size() == 1 || static_cast<std::int64_t>(opts.fill.size()) == C, fn,
                 "fill", "must have one value or one per channel (", C, "), got ", opts.fill.size());

  if (opts.rescale_intensity && K > 0 && M * N * C > 0) {
    // exposure.rescale_intensity(image) per image: in_range = the image's (min, max), out_range =
    // the dtype's range, its negative part clipped when the image has no negatives.
    std::vector<double> params(static_cast<std::size_t>(4 * K));
    detail::dispatch<cuskimage::detail::AllTypes>(dt, fn, [&]<class T>() {
      const auto mm = detail::minmax<T>(stack, K, stream);
      for (std::int64_t k = 0; k < K; ++k) {
        const double imin = mm[k].nan ? NAN : static_cast<double>(mm[k].lo);
        const double imax = mm[k].nan ? NAN : static_cast<double>(mm[k].hi);
        const DtypeLimits lim = dtype_limits(dt, imin >= 0);
        params[4 * k] = imin;
        params[4 * k + 1] = imax;
        params[4 * k + 2] = lim.imin;
        params[4 * k + 3] = lim.imax;
      }
    });
    const Array p = Array::from_vector(params, {K, 4}).to(stack.device(), stream);
    Array rescaled = Array::empty(stack.shape(), dt, stack.device(), stream);
    detail::on_backend(
        stack, stream, [&] { detail::cpu_rescale_stack(stack, rescaled, p); },
        [&](const Stream& s) { detail::cuda_rescale_stack(stack, rescaled, p, s); });
    stack = std::move(rescaled);
  }

  // Fill values, cast to the image dtype as NumPy's astype (saturating instead of undefined).
  std::vector<double> fill(static_cast<std::size_t>(C));
  if (opts.fill.empty()) {
    detail::dispatch<cuskimage::detail::AllTypes>(dt, fn, [&]<class T>() {
      const Array by_channel = stack.transpose({3, 0, 1, 2});
      const std::vector<double> s = detail::sums<T>(by_channel, C, stream);
      const double count = static_cast<double>(K * M * N);
      for (std::int64_t c = 0; c < C; ++c) fill[c] = s[c] / count;
    });
  } else {
    for (std::int64_t c = 0; c < C; ++c) fill[c] = opts.fill.size() == 1 ? opts.fill[0] : opts.fill[c];
  }
  Array fill_arr = Array::empty({C}, dt, Device::cpu());
  detail::dispatch<cuskimage::detail::AllTypes>(dt, fn, [&]<class T>() {
    for (std::int64_t c = 0; c < C; ++c) static_cast<T*>(fill_arr.data())[c] = cuskimage::detail::convert<T>(fill[c]);
  });
  const Array fill_dev = fill_arr.to(stack.device(), stream);

  const Shape out_shape{(M + pad) * rows + pad, (N + pad) * cols + pad, C};
  Array out = Array::empty(out_shape, dt, stack.device(), stream);
  if (out.size() > 0) {
    detail::on_backend(
        stack, stream, [&] { detail::cpu_montage(stack, out, fill_dev, pad, cols); },
        [&](const Stream& s) { detail::cuda_montage(stack, out, fill_dev, pad, cols, s); });
  }
  if (!opts.channel_axis) return out.index(2, 0);
  return out;
}

}  // namespace cuskimage::util
