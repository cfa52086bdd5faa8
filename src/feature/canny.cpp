// skimage.feature.canny: argument handling, scikit-image's smoothing (ndimage's Gaussian, either
// backend), then on the CPU the composed steps (Sobel by ndimage, magnitude, suppression functor,
// union-find hysteresis) and on the GPU one fused kernel from the smoothed image to the class image
// plus the union-find labelling (kernels/feature/canny.cu).
#include "src/feature/canny.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "cuskimage/feature.hpp"
#include "cuskimage/util.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/feature/corner.hpp"

namespace cuskimage::feature {
namespace detail {
namespace {

using cuskimage::detail::expect;

double dtype_max(DType dt) {
  switch (dt) {
    case DType::bool_: return 1;
    case DType::uint8: return 255;
    case DType::int8: return 127;
    case DType::uint16: return 65535;
    case DType::int16: return 32767;
    case DType::uint32: return 4294967295.0;
    case DType::int32: return 2147483647.0;
    default: return 1;  // floats: dtype_limits gives (-1, 1)
  }
}

/// np.percentile(values, 100 * q) with the linear method, as NumPy computes it for a T array.
template <class T>
double percentile(std::vector<T>& v, double q) {
  const std::size_t n = v.size();
  const double vi = static_cast<double>(n - 1) * ((100.0 * q) / 100.0);
  const double prev = std::floor(vi);
  const auto lo = static_cast<std::size_t>(std::clamp(prev, 0.0, static_cast<double>(n - 1)));
  const std::size_t hi = std::min(lo + 1, n - 1);
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  const T a = v[lo];
  const T b = hi == lo ? a : *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  const double t = vi - prev;
  const double d = static_cast<double>(static_cast<T>(b - a));
  return t >= 0.5 ? static_cast<double>(b) - d * (1 - t) : static_cast<double>(a) + d * t;
}

/// CPU hysteresis: 8-connected union-find over classes > 0, keeping components with a 2.
void cpu_hysteresis(const std::uint8_t* cls, bool* out, std::int64_t ny, std::int64_t nx) {
  const std::int64_t n = ny * nx;
  std::vector<std::int64_t> parent(static_cast<std::size_t>(n));
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](std::int64_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  auto unite = [&](std::int64_t a, std::int64_t b) {
    a = find(a), b = find(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  };
  for (std::int64_t y = 0; y < ny; ++y)
    for (std::int64_t x = 0; x < nx; ++x) {
      const std::int64_t i = y * nx + x;
      if (!cls[i]) continue;
      if (x > 0 && cls[i - 1]) unite(i, i - 1);
      if (y > 0)
        for (std::int64_t dx = -1; dx <= 1; ++dx)
          if (x + dx >= 0 && x + dx < nx && cls[i - nx + dx]) unite(i, i - nx + dx);
    }
  std::vector<std::uint8_t> good(static_cast<std::size_t>(n), 0);
  for (std::int64_t i = 0; i < n; ++i)
    if (cls[i] == 2) good[find(i)] = 1;
  for (std::int64_t i = 0; i < n; ++i) out[i] = cls[i] && good[find(i)];
}

/// The row pass of scipy's Gaussian of an all-ones image under mode constant (cval outside), in T,
/// for each row (v[0, ny)), then the column pass's value away from the left and right edges, where
/// every tap is inside (v[ny, 2 ny)): the kernel loops over taps only near those edges.
template <class T>
std::vector<double> ones_row_profile(std::int64_t ny, const std::vector<double>& w0, const std::vector<double>& w1,
                                     double cval) {
  auto pass = [](double centre, const std::vector<double>& w, auto&& at) {
    const std::int64_t r = static_cast<std::int64_t>(w.size()) / 2;
    double acc = centre * w[static_cast<std::size_t>(r)];
    for (std::int64_t j = 1; j <= r; ++j) acc += (at(j) + at(-j)) * w[static_cast<std::size_t>(r + j)];
    return static_cast<double>(static_cast<T>(acc));
  };
  std::vector<double> v(static_cast<std::size_t>(2 * ny));
  for (std::int64_t y = 0; y < ny; ++y) {
    v[static_cast<std::size_t>(y)] = pass(1.0, w0, [&](std::int64_t j) { return y + j >= 0 && y + j < ny ? 1.0 : cval; });
    const double row = v[static_cast<std::size_t>(y)];
    v[static_cast<std::size_t>(ny + y)] = pass(row, w1, [&](std::int64_t) { return row; });
  }
  return v;
}

}  // namespace
}  // namespace detail

Array canny(const Array& image, const CannyOptions& opts, const Stream& stream) {
  using cuskimage::detail::expect;
  const char* fn = "feature.canny";
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.dtype() != DType::int64 && image.dtype() != DType::uint64, fn, "image",
         "64-bit integer images are not supported");
  expect(image.ndim() == 2, fn, "image", "must be 2-D, got ", image.ndim(), "-D");
  const double dmax = detail::dtype_max(image.dtype());
  auto threshold = [&](const std::optional<double>& t, double dflt, const char* name) {
    if (!t) return dflt;
    if (opts.use_quantiles) {
      expect(*t >= 0.0 && *t <= 1.0, fn, name, "quantile thresholds must be between 0 and 1, got ", *t);
      return *t;
    }
    return *t / dmax;
  };
  const double low = threshold(opts.low_threshold, 0.1, "low_threshold");
  const double high = threshold(opts.high_threshold, 0.2, "high_threshold");
  expect(!(high < low), fn, "high_threshold", "low_threshold should be lower than high_threshold");
  std::vector<double> sigma = opts.sigma.v;
  expect(sigma.size() == 1 || sigma.size() == 2, fn, "sigma", "must hold one value or one per axis");
  if (sigma.size() == 1) sigma.push_back(sigma[0]);
  for (double s : sigma) expect(s >= 0, fn, "sigma", "values less than zero are not valid");
  const bool has_mask = opts.mask.valid();
  if (has_mask) {
    cuskimage::detail::expect_same_shape(image, opts.mask, fn, "image", "mask");
  }
  const std::int64_t ny = image.shape(0), nx = image.shape(1);
  const Device dev = image.device();
  const DType ft = image.dtype() == DType::float32 ? DType::float32 : DType::float64;
  const bool bleedover = opts.mode == ndimage::Mode::constant || has_mask;
  const ndimage::GaussianFilterOptions gopt{.mode = opts.mode, .cval = opts.cval, .truncate = 4.0};

  Array mask8;  // mask != 0 as one byte per pixel, contiguous on the image's device
  Array masked = image.contiguous(stream);
  if (has_mask) {
    mask8 = opts.mask.to(dev, stream).astype(DType::bool_, stream).contiguous(stream);
    masked = image.copy(stream).contiguous(stream);
    detail::for_each_index(masked, masked.size(),
                           detail::ZeroMasked{static_cast<unsigned char*>(masked.data()),
                                              static_cast<const std::uint8_t*>(mask8.data()),
                                              static_cast<int>(masked.itemsize())},
                           stream);
  }
  auto eroded_mask = [&] {
    Array e = Array::empty({ny, nx}, DType::uint8, dev, stream);
    detail::for_each_index(e, e.size(),
                           detail::ErodedMask{has_mask ? static_cast<const std::uint8_t*>(mask8.data()) : nullptr,
                                              static_cast<std::uint8_t*>(e.data()), ny, nx},
                           stream);
    return e;
  };
  Array fimg = util::img_as_float(masked, {}, stream);
  if (fimg.dtype() != ft) fimg = fimg.astype(ft, stream);
  Array smoothed = ndimage::gaussian_filter(fimg, sigma, gopt, stream).contiguous(stream);
  fimg = Array();
  Array cls = Array::empty({ny, nx}, DType::uint8, dev, stream);
  Array out = Array::empty({ny, nx}, DType::bool_, dev, stream);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(ft, fn, [&]<class T>() {
    const T eps = std::numeric_limits<T>::epsilon();
    detail::CannyThresholds th{static_cast<float>(low), high, ft == DType::float32};
    // The GPU's fused path: no quantiles (they need the magnitude image), sigma passes present.
    const bool fused = !dev.is_cpu() && !opts.use_quantiles && sigma[0] > 1e-15 && sigma[1] > 1e-15;
    if (fused && !(has_mask || !bleedover)) {
      // bleed-over of an all-ones image: separable, computed in the kernel from its row profile
      const std::int64_t r0 = static_cast<std::int64_t>(4.0 * sigma[0] + 0.5);
      const std::int64_t r1 = static_cast<std::int64_t>(4.0 * sigma[1] + 0.5);
      const auto w0 = ndimage::gaussian_kernel1d(sigma[0], 0, r0), w1 = ndimage::gaussian_kernel1d(sigma[1], 0, r1);
      if (th.low == 0) th.low = 1e-14f;
      cuskimage::detail::DeviceGuard guard(dev.index());
      if (detail::cuda_canny_fused<T>(smoothed, Array(), detail::ones_row_profile<T>(ny, w0, w1, opts.cval), w1, opts.cval,
                                      Array(), true, th, cls, stream)) {
        detail::cuda_canny_hysteresis(cls, out, stream);
        return;
      }
    }
    Array bleed;
    if (bleedover) {
      Array ones = has_mask ? mask8.astype(ft, stream) : Array::full({ny, nx}, 1.0, ft, dev, stream);
      bleed = ndimage::gaussian_filter(ones, sigma, gopt, stream).contiguous(stream);
    }
    if (fused) {
      if (th.low == 0) th.low = 1e-14f;
      cuskimage::detail::DeviceGuard guard(dev.index());
      const Array er = has_mask ? eroded_mask() : Array();
      if (detail::cuda_canny_fused<T>(smoothed, bleed, {}, {}, opts.cval, er, bleedover, th, cls, stream)) {
        detail::cuda_canny_hysteresis(cls, out, stream);
        return;
      }
    }
    if (bleedover)
      detail::for_each_index(smoothed, smoothed.size(),
                             detail::BleedDivide<T>{static_cast<T*>(smoothed.data()),
                                                    static_cast<const T*>(bleed.data()), eps},
                             stream);
    const Array js = detail::ndi_sobel(smoothed, 1, ndimage::Mode::reflect, 0.0, stream);
    const Array is = detail::ndi_sobel(smoothed, 0, ndimage::Mode::reflect, 0.0, stream);
    Array mag = Array::empty({ny, nx}, ft, dev, stream);
    detail::for_each_index(mag, mag.size(),
                           detail::Magnitude<T>{static_cast<const T*>(is.data()), static_cast<const T*>(js.data()),
                                                static_cast<T*>(mag.data())},
                           stream);
    if (opts.use_quantiles) {
      // NumPy's percentile: float64 results, compared in float64 against the class image.
      const Array hm = mag.to(Device::cpu(), stream);
      stream.synchronize();
      std::vector<T> v(hm.data<T>(), hm.data<T>() + hm.size());
      std::vector<T> v2 = v;
      th.low = static_cast<float>(detail::percentile(v, low));
      th.high = detail::percentile(v2, high);
      th.high_in_t = false;
    }
    if (th.low == 0) th.low = 1e-14f;
    const Array eroded = eroded_mask();
    detail::NmsClass<T> f{static_cast<const T*>(is.data()), static_cast<const T*>(js.data()),
                          static_cast<const T*>(mag.data()), static_cast<const std::uint8_t*>(eroded.data()),
                          static_cast<std::uint8_t*>(cls.data()), nx, th};
    detail::for_each_index(cls, cls.size(), f, stream);
    cuskimage::detail::on_backend(
        cls, stream,
        [&] { detail::cpu_hysteresis(static_cast<const std::uint8_t*>(cls.data()), out.data<bool>(), ny, nx); },
        [&](const Stream& s) { detail::cuda_canny_hysteresis(cls, out, s); });
  });
  return out;
}

}  // namespace cuskimage::feature
