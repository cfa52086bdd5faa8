// skimage.feature.corner, the window detectors and per-corner estimators: corner_moravec,
// corner_fast, corner_subpix, corner_orientations. One functor per pixel or per corner
// (src/feature/corner.hpp) run by the CPU loop or the CUDA grid-stride kernel.
#include <algorithm>
#include <cmath>

#include "cuskimage/feature.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/feature/corner.hpp"

namespace cuskimage::feature {
namespace detail {
namespace {

/// Regularised incomplete beta I_x(a, b) by its continued fraction (modified Lentz), x in (0, 1).
double betainc(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double lbeta = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b);
  const double front = std::exp(lbeta + a * std::log(x) + b * std::log1p(-x));
  if (x > (a + 1) / (a + b + 2)) return 1 - betainc(b, a, 1 - x);
  const double tiny = 1e-300;
  double f = 1, c = 1, d = 0;
  for (int i = 0; i <= 400; ++i) {
    const int m = i / 2;
    double num;
    if (i == 0)
      num = 1;
    else if (i % 2 == 0)
      num = (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m));
    else
      num = -((a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
    d = 1 + num * d;
    d = std::fabs(d) < tiny ? tiny : d;
    d = 1 / d;
    c = 1 + num / c;
    c = std::fabs(c) < tiny ? tiny : c;
    const double cd = c * d;
    f *= cd;
    if (std::fabs(1 - cd) < 1e-16) break;
  }
  return front * (f - 1) / a;
}

template <class T>
T* ptr(const Array& a) {
  return static_cast<T*>(a.data());
}

/// The 2-D float image the Cython detectors see (img_as_float, contiguous).
Array prepared(const Array& image, const char* fn, const Stream& s) { return prepare_float(image, fn, 2, 2, true, s); }

/// (K, 2) int64 corners, contiguous on the image's device.
Array corner_list(const Array& corners, const Array& img, const char* fn, const Stream& s) {
  cuskimage::detail::expect_valid(corners, fn, "corners");
  cuskimage::detail::expect(corners.ndim() == 2 && corners.shape(1) == 2, fn, "corners",
                            "must have shape (K, 2), got ", corners.ndim(), "-D");
  cuskimage::detail::expect(!is_floating(corners.dtype()) && corners.dtype() != DType::bool_, fn, "corners",
                            "must hold integer coordinates");
  return corners.to(img.device(), s).astype(DType::int64, s).contiguous(s);
}

}  // namespace

double f_isf_equal_dof(double q, double d) {
  // X ~ F(d, d) <=> B = X / (1 + X) ~ Beta(d/2, d/2): solve I_b = 1 - q by bisection on b.
  const double a = d / 2, target = 1 - q;
  double lo = 0, hi = 1;
  for (int i = 0; i < 200 && hi - lo > 0; ++i) {
    const double mid = 0.5 * (lo + hi);
    if (mid == lo || mid == hi) break;
    (betainc(a, a, mid) < target ? lo : hi) = mid;
  }
  const double b = 0.5 * (lo + hi);
  return b / (1 - b);
}

}  // namespace detail

Array corner_moravec(const Array& image, const CornerMoravecOptions& opts, const Stream& stream) {
  const char* fn = "feature.corner_moravec";
  cuskimage::detail::expect(opts.window_size >= 0, fn, "window_size", "must be >= 0, got ", opts.window_size);
  const Array img = detail::prepared(image, fn, stream);
  Array out = Array::empty(img.shape(), img.dtype(), img.device(), stream);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(img.dtype(), fn, [&]<class T>() {
    detail::Moravec<T> f{detail::ptr<T>(img), detail::ptr<T>(out), img.shape(0), img.shape(1), opts.window_size};
    detail::for_each_index(img, img.size(), f, stream);
  });
  return out;
}

Array corner_fast(const Array& image, const CornerFastOptions& opts, const Stream& stream) {
  const char* fn = "feature.corner_fast";
  // scikit-image takes n as a C signed char; n > 16 asks for all 16 circle pixels, n <= 0 for none.
  cuskimage::detail::expect(opts.n >= -128 && opts.n <= 127, fn, "n", "must fit a signed char, got ", opts.n);
  const Array img = detail::prepared(image, fn, stream);
  Array out = Array::empty(img.shape(), img.dtype(), img.device(), stream);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(img.dtype(), fn, [&]<class T>() {
    detail::Fast<T> f{detail::ptr<T>(img), detail::ptr<T>(out), img.shape(0), img.shape(1), static_cast<int>(opts.n),
                      static_cast<T>(opts.threshold)};
    detail::for_each_index(img, img.size(), f, stream);
  });
  return out;
}

Array corner_subpix(const Array& image, const Array& corners, const CornerSubpixOptions& opts, const Stream& stream) {
  const char* fn = "feature.corner_subpix";
  cuskimage::detail::expect(opts.window_size >= 3 && opts.window_size % 2 == 1, fn, "window_size",
                            "must be odd and >= 3, got ", opts.window_size);
  cuskimage::detail::expect(opts.alpha > 0 && opts.alpha < 1, fn, "alpha", "must be in (0, 1), got ", opts.alpha);
  cuskimage::detail::expect_valid(image, fn, "image");
  cuskimage::detail::expect(image.ndim() == 2, fn, "image", "must be 2-D, got ", image.ndim(), "-D");
  // corner_subpix casts without img_as_float (integers keep their scale).
  const Array img = detail::prepare_float(image, fn, 2, 2, false, stream);
  const Array c = detail::corner_list(corners, img, fn, stream);
  Array out = Array::empty({c.shape(0), 2}, img.dtype(), img.device(), stream);
  const double red = static_cast<double>(opts.window_size * opts.window_size - 2);
  const double t_dot = detail::f_isf_equal_dof(1 - opts.alpha, red);
  const double t_edge = detail::f_isf_equal_dof(opts.alpha, red);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(img.dtype(), fn, [&]<class T>() {
    detail::Subpix<T> f{detail::ptr<T>(img), detail::ptr<std::int64_t>(c), detail::ptr<T>(out), img.shape(0),
                        img.shape(1), (opts.window_size - 1) / 2, t_dot, t_edge};
    detail::for_each_index(img, c.shape(0), f, stream);
  });
  return out;
}

Array corner_orientations(const Array& image, const Array& corners, const Array& mask, const Stream& stream) {
  const char* fn = "feature.corner_orientations";
  const Array img = detail::prepared(image, fn, stream);
  cuskimage::detail::expect_valid(mask, fn, "mask");
  cuskimage::detail::expect(mask.ndim() == 2, fn, "mask", "must be 2-D, got ", mask.ndim(), "-D");
  cuskimage::detail::expect(mask.shape(0) % 2 == 1 && mask.shape(1) % 2 == 1, fn, "mask",
                            "size of mask must be uneven, got ", mask.shape(0), "x", mask.shape(1));
  const Array c = detail::corner_list(corners, img, fn, stream);
  // mask != 0 as uint8 on the image's device
  const Array mh = mask.to(Device::cpu(), stream).astype(DType::float64, stream);
  stream.synchronize();
  std::vector<std::uint8_t> mv(static_cast<std::size_t>(mh.size()));
  for (std::int64_t i = 0; i < mh.size(); ++i) mv[static_cast<std::size_t>(i)] = mh.data<double>()[i] != 0;
  const Array m = Array::from_vector(mv, mask.shape()).to(img.device(), stream);
  Array out = Array::empty({c.shape(0)}, img.dtype(), img.device(), stream);
  cuskimage::detail::dispatch<cuskimage::detail::FloatTypes>(img.dtype(), fn, [&]<class T>() {
    detail::Orientation<T> f{detail::ptr<T>(img), detail::ptr<std::int64_t>(c), detail::ptr<std::uint8_t>(m),
                             detail::ptr<T>(out), img.shape(0), img.shape(1), mask.shape(0), mask.shape(1)};
    detail::for_each_index(img, c.shape(0), f, stream);
  });
  return out;
}

}  // namespace cuskimage::feature
