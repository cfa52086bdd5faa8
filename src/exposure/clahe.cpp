// equalize_adapthist (CLAHE): the public function (grey / RGB routing, kernel_size rules) and the
// CPU backend, a direct transcription of scikit-image 0.26's _clahe: reflect-padded contextual
// regions, per-region histograms of the 14-bit image's bins, clip_histogram (clipping, even
// redistribution, then the strided one-by-one passes), map_histogram, and the float32 multilinear
// interpolation of the 2^D neighbouring maps.
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <vector>

#include "cuskimage/exposure.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"
#include "src/core/validate.hpp"
#include "src/exposure/backend.hpp"
#include "src/exposure/clahe_clip.hpp"

namespace cuskimage::exposure {
namespace detail {
namespace {

using cuskimage::detail::Indexer;

template <int D, class T, class F>
void clahe_cpu(const Array& image, Array& out, const ClaheParams& p) {
  ClaheGeom<D> g{};
  std::int64_t n = 1;
  for (int d = 0; d < D; ++d) {
    g.shape[d] = image.shape(d);
    g.k[d] = p.kernel_size[d];
    g.tiles[d] = (g.shape[d] + g.k[d] - 1) / g.k[d];
    n *= g.shape[d];
  }
  g.nbins = p.nbins;
  g.bin_size = 1 + kGrayLevels / p.nbins;
  const T* src = static_cast<const T*>(image.data());
  std::int64_t st[D];
  for (int d = 0; d < D; ++d) st[d] = image.strides()[d];
  auto coords = [&](std::int64_t i, std::int64_t* x) {
    for (int d = D - 1; d >= 0; --d) {
      x[d] = i % g.shape[d];
      i /= g.shape[d];
    }
  };
  auto offset = [&](const std::int64_t* x) {
    std::int64_t o = 0;
    for (int d = 0; d < D; ++d) o += x[d] * st[d];
    return o;
  };
  // img_as_uint, then the 14-bit rescale over the uint16 image's range, then the bin.
  std::vector<std::uint16_t> u(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t x[D];
    coords(i, x);
    u[i] = to_uint16(src[offset(x)]);
  }
  const auto [umin_it, umax_it] = std::minmax_element(u.begin(), u.end());
  const double umin = *umin_it, umax = *umax_it;
  std::vector<std::uint16_t> bin(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i)
    bin[i] = static_cast<std::uint16_t>(to_gray14(u[i], umin, umax) / g.bin_size);

  // Region histograms over the reflect-padded image.
  const std::int64_t ntiles = g.ntiles(), nb = p.nbins;
  std::int64_t ke = 1;
  for (int d = 0; d < D; ++d) ke *= g.k[d];
  std::vector<std::int64_t> hist(static_cast<std::size_t>(ntiles * nb), 0);
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t t = 0; t < ntiles; ++t) {
    std::int64_t tc[D];
    for (std::int64_t r = t, d = D - 1; d >= 0; --d) {
      tc[d] = r % g.tiles[d];
      r /= g.tiles[d];
    }
    std::int64_t* h = hist.data() + t * nb;
    for (std::int64_t e = 0; e < ke; ++e) {
      std::int64_t lin = 0, rem = e;
      std::int64_t o[D];
      for (int d = D - 1; d >= 0; --d) {
        o[d] = rem % g.k[d];
        rem /= g.k[d];
      }
      for (int d = 0; d < D; ++d) lin = lin * g.shape[d] + reflect_index(tc[d] * g.k[d] + o[d], g.shape[d]);
      ++h[bin[lin]];
    }
  }
  const std::int64_t clim =
      p.clip_limit > 0.0 ? static_cast<std::int64_t>(std::max(p.clip_limit * double(ke), 1.0)) : ke;
  const double scale = double(kGrayLevels - 1) / double(ke);
  std::vector<std::uint16_t> lut(static_cast<std::size_t>(ntiles * nb));
#pragma omp parallel for schedule(dynamic)
  for (std::int64_t t = 0; t < ntiles; ++t) {
    std::int64_t* h = hist.data() + t * nb;
    clip_histogram_seq(h, nb, clim);
    std::int64_t cum = 0;
    for (std::int64_t b = 0; b < nb; ++b) lut[t * nb + b] = clahe_map_value(cum += h[b], scale);
  }
  // Interpolation, then rescale_intensity of the float image to [0, 1].
  std::vector<std::uint16_t> res(static_cast<std::size_t>(n));
  const auto lk = [&](std::int64_t tile, std::int64_t b) { return lut[tile * nb + b]; };
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t x[D];
    coords(i, x);
    res[i] = clahe_interpolate<D>(g, x, bin[i], lk);
  }
  const auto [cmin_it, cmax_it] = std::minmax_element(res.begin(), res.end());
  const RescaleResolved rr{double(*cmin_it), double(*cmax_it), 0.0, 1.0};
  F* o = static_cast<F*>(out.data());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) o[i] = rescale_value<F>(static_cast<F>(res[i]), rr);
}

}  // namespace

void cpu_clahe(const Array& image, Array& out, const ClaheParams& p) {
  cuskimage::detail::dispatch<cuskimage::detail::Types<std::uint8_t, std::uint16_t, float, double>>(
      image.dtype(), "exposure.equalize_adapthist", [&]<class T>() {
        auto run = [&]<class F>() {
          if (image.ndim() == 2) clahe_cpu<2, T, F>(image, out, p);
          else clahe_cpu<3, T, F>(image, out, p);
        };
        if (out.dtype() == DType::float32) run.template operator()<float>();
        else run.template operator()<double>();
      });
}

}  // namespace detail

namespace {

using cuskimage::detail::expect;
using cuskimage::detail::on_backend;

/// CLAHE of one grey image (2-D or 3-D) into a new array of float dtype `fdt`.
Array clahe_grey(const Array& image, DType fdt, const EqualizeAdapthistOptions& opts, const Stream& stream) {
  const std::string_view fn = "exposure.equalize_adapthist";
  const int nd = image.ndim();
  expect(nd == 2 || nd == 3, fn, "image", "must be 2-D or 3-D (grey), or RGB(A) with channel_axis, got shape ",
         shape_str(image.shape()));
  detail::ClaheParams p;
  p.clip_limit = opts.clip_limit;
  p.nbins = opts.nbins;
  expect(opts.nbins >= 1, fn, "nbins", "must be positive, got ", opts.nbins);
  if (opts.kernel_size.empty()) {
    for (int d = 0; d < nd; ++d) p.kernel_size.push_back(std::max<std::int64_t>(image.shape(d) / 8, 1));
  } else if (opts.kernel_size.size() == 1) {
    p.kernel_size.assign(static_cast<std::size_t>(nd), opts.kernel_size[0]);
  } else {
    expect(static_cast<int>(opts.kernel_size.size()) == nd, fn, "kernel_size", "must have one value or ", nd,
           " values (one per spatial axis), got ", opts.kernel_size.size());
    p.kernel_size = opts.kernel_size;
  }
  for (auto k : p.kernel_size) expect(k >= 1, fn, "kernel_size", "values must be positive, got ", k);
  Array src = image.share();
  switch (image.dtype()) {
    case DType::uint8: case DType::uint16: case DType::float32: case DType::float64: break;
    default: src = util::img_as_uint(image, {}, stream);
  }
  if (is_floating(src.dtype()) && src.device().is_cpu()) {
    const auto r = util::dtype_limits(src.dtype());
    Array range = Array::empty({2}, DType::float64);
    detail::cpu_minmax(src, Array{}, range);
    const double* v = static_cast<const double*>(range.data());
    expect(v[0] >= r.imin && v[1] <= r.imax, fn, "image",
           "float values must lie in [-1, 1] (images of type float must be between -1 and 1), got [", v[0], ", ", v[1],
           "]");
  }
  Array out = Array::empty(image.shape(), fdt, image.device(), stream);
  on_backend(
      src, stream, [&] { detail::cpu_clahe(src, out, p); },
      [&](const Stream& s) { detail::cuda_clahe(src, out, p, s); });
  return out;
}

}  // namespace

Array equalize_adapthist(const Array& image, const EqualizeAdapthistOptions& opts, const Stream& stream) {
  const std::string_view fn = "exposure.equalize_adapthist";
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.size() > 0, fn, "image", "must not be empty, got shape ", shape_str(image.shape()));
  const DType fdt = image.dtype() == DType::float32 ? DType::float32 : DType::float64;
  int axis = -1;
  if (opts.channel_axis) {
    axis = cuskimage::detail::normalize_axis(*opts.channel_axis, image.ndim(), fn, "channel_axis");
    expect(image.shape(axis) == 3 || image.shape(axis) == 4, fn, "image",
           "must have 3 or 4 (RGB or RGBA) channels along channel_axis, got ", image.shape(axis));
    expect(image.ndim() == 3 || image.ndim() == 4, fn, "image", "must have 2 or 3 spatial axes plus channels, got shape ",
           shape_str(image.shape()));
  } else if (opts.detect_rgb && image.ndim() == 3 && (image.shape(2) == 3 || image.shape(2) == 4)) {
    axis = 2;
  }
  if (axis < 0) return clahe_grey(image, fdt, opts, stream);

  // adapt_rgb(hsv_value): CLAHE on the HSV value, alpha dropped.
  std::vector<int> perm;
  for (int d = 0; d < image.ndim(); ++d)
    if (d != axis) perm.push_back(d);
  perm.push_back(axis);
  const Array rgb = image.transpose(perm);
  Shape hshape(rgb.shape().begin(), rgb.shape().end() - 1);
  hshape.push_back(3);
  Array hsv = Array::empty(hshape, fdt, image.device(), stream);
  on_backend(
      rgb, stream, [&] { detail::cpu_rgb_to_hsv(rgb, hsv); },
      [&](const Stream& s) { detail::cuda_rgb_to_hsv(rgb, hsv, s); });
  Array value = hsv.index(-1, 2);
  EqualizeAdapthistOptions grey = opts;
  grey.channel_axis = std::nullopt;
  const Array v2 = clahe_grey(value, fdt, grey, stream);
  value.copy_from(v2, stream);
  Array out = Array::empty(hshape, fdt, image.device(), stream);
  on_backend(
      hsv, stream, [&] { detail::cpu_hsv_to_rgb(hsv, out); },
      [&](const Stream& s) { detail::cuda_hsv_to_rgb(hsv, out, s); });
  if (axis == image.ndim() - 1) return out;
  std::vector<int> back;
  const int n = image.ndim();
  for (int d = 0, src = 0; d < n; ++d) back.push_back(d == axis ? n - 1 : src++);
  return out.transpose(back).copy(stream);
}

}  // namespace cuskimage::exposure
