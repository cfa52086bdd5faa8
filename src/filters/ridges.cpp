// Ridge filters of skimage.filters (frangi, hessian, meijering, sato): validation, the scale loop
// (Hessian by Gaussian derivatives, then one fused per-pixel step per scale) and the CPU backend of
// that step.
#include "src/filters/ridges.hpp"

#include <cmath>
#include <string>

#include "cuskimage/filters.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::filters {
namespace detail {

template <class T, int N>
void cpu_scale_n(const std::vector<Array>& h, Array& out, const RidgeScale& p, RidgeState& st) {
  RidgePixels<T, N> px{};
  for (std::size_t i = 0; i < h.size(); ++i) px.h[i] = static_cast<const T*>(h[i].data());
  px.n = p.ndim;
  px.negate = p.negate;
  const std::int64_t npix = out.size();
  T* o = static_cast<T*>(out.data());
  double* sc = static_cast<double*>(st.scalars.data());
  RidgeCoeffs<T> c = ridge_coeffs<T>(p);

  // Max of non-negative values (or NaN) through their integer keys, as the device does.
  auto reduce_max = [&](auto&& value) {
    unsigned long long key = 0;
#pragma omp parallel for schedule(static) reduction(max : key) if (npix > 16384)
    for (std::int64_t i = 0; i < npix; ++i) {
      const unsigned long long k = max_key(static_cast<double>(value(i)));
      key = k > key ? k : key;
    }
    return static_cast<T>(from_max_key(key));
  };

  if (p.kind == RidgeKind::frangi) {
    if (p.gamma_from == GammaFrom::compute) {
      c.g = frangi_auto_two_g2(reduce_max([&](std::int64_t i) { return px.frangi_s(i); }));
      sc[1] = static_cast<double>(c.g);
    } else if (p.gamma_from == GammaFrom::state) {
      c.g = static_cast<T>(sc[1]);
    }
  }
  if (p.kind == RidgeKind::meijering) {
    T* v = static_cast<T*>(st.scratch.data());
    const T vmax = reduce_max([&](std::int64_t i) { return v[i] = px.response(p.kind, i, c); });
#pragma omp parallel for schedule(static) if (npix > 16384)
    for (std::int64_t i = 0; i < npix; ++i) o[i] = nan_max(o[i], meijering_normalize(v[i], vmax));
    return;
  }
#pragma omp parallel for schedule(static) if (npix > 16384)
  for (std::int64_t i = 0; i < npix; ++i) {
    const T r = nan_max(o[i], px.response(p.kind, i, c));
    o[i] = p.hessian_final ? hessian_finish(r) : r;
  }
}

template <class T>
void cpu_ridge_scale(const std::vector<Array>& h, Array& out, const RidgeScale& p, RidgeState& st) {
  if (p.ndim == 2) return cpu_scale_n<T, 2>(h, out, p, st);
  if (p.ndim == 3) return cpu_scale_n<T, 3>(h, out, p, st);
  return cpu_scale_n<T, 0>(h, out, p, st);
}

template void cpu_ridge_scale<float>(const std::vector<Array>&, Array&, const RidgeScale&, RidgeState&);
template void cpu_ridge_scale<double>(const std::vector<Array>&, Array&, const RidgeScale&, RidgeState&);

}  // namespace detail

namespace {

using cuskimage::detail::expect;
using detail::GammaFrom;
using detail::RidgeKind;
using detail::RidgeScale;

struct Common {
  std::vector<double> sigmas;
  bool black_ridges = true;
  ndimage::Mode mode = ndimage::Mode::reflect;
  double cval = 0.0;
};

/// np.arange(start, stop, step) for floats: ceil((stop - start) / step) values start + i * delta with
/// delta = (start + step) - start, as NumPy fills them.
std::vector<double> arange(double start, double stop, double step, const char* fn) {
  expect(step != 0 && std::isfinite(step), fn, "scale_step", "must be non-zero and finite, got ", step);
  expect(std::isfinite(start) && std::isfinite(stop), fn, "scale_range", "must be finite, got (", start, ", ", stop,
         ")");
  const double len = std::ceil((stop - start) / step);
  std::vector<double> v;
  if (!(len > 0)) return v;
  expect(len < 1e6, fn, "scale_range", "gives too many scales (", len, ")");
  const double delta = (start + step) - start;
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(len); ++i)
    v.push_back(i == 0 ? start : (i == 1 ? start + step : start + static_cast<double>(i) * delta));
  return v;
}

void check_image(const Array& image, const char* fn, bool only_2d_3d) {
  cuskimage::detail::expect_valid(image, fn, "image");
  if (only_2d_3d) {
    expect(image.size() > 0, fn, "image", "cannot be an empty array, got shape ", shape_str(image.shape()));
    expect(image.ndim() == 2 || image.ndim() == 3, fn, "image", "must be a 2-or-3-dimensional array, got ndim ",
           image.ndim());
  } else {
    expect(image.ndim() >= 1 && image.ndim() <= detail::kMaxHessianDims, fn, "image", "must have 1 to ",
           detail::kMaxHessianDims, " dimensions, got ", image.ndim());
    expect(image.size() > 0, fn, "image", "cannot be an empty array, got shape ", shape_str(image.shape()));
  }
}

template <class T>
Array run(const Array& image, const Common& c, RidgeScale base, bool gamma_auto, const char* fn,
          const Stream& stream) {
  // image.astype(_supported_float_type(image.dtype)): a cast, not img_as_float (no scaling).
  const Array img = image.dtype() == dtype_v<T> ? image.contiguous(stream) : image.astype(dtype_v<T>, stream);
  Array out = Array::zeros(image.shape(), dtype_v<T>, image.device(), stream);
  detail::RidgeState st;
  st.scalars = Array::zeros({2}, DType::float64, image.device(), stream);
  if (base.kind == RidgeKind::meijering) st.scratch = Array::empty(image.shape(), dtype_v<T>, image.device(), stream);
  base.ndim = image.ndim();
  base.negate = !c.black_ridges;
  // hessian(-image, cval) == -hessian(image, -cval) exactly (negation commutes with every rounding
  // step of the correlations), so the sign is applied when the elements are read.
  const double cval = c.black_ridges ? c.cval : -c.cval;
  for (std::size_t i = 0; i < c.sigmas.size(); ++i) {
    const std::vector<Array> h =
        detail::hessian_matrix(img, {.sigma = {c.sigmas[i]}, .mode = c.mode, .cval = cval}, stream, fn);
    RidgeScale p = base;
    p.sigma = c.sigmas[i];
    if (base.kind == RidgeKind::frangi && gamma_auto) p.gamma_from = i == 0 ? GammaFrom::compute : GammaFrom::state;
    p.hessian_final = base.hessian_final && i + 1 == c.sigmas.size();
    cuskimage::detail::on_backend(
        image, stream, [&] { detail::cpu_ridge_scale<T>(h, out, p, st); },
        [&](const Stream& s) { detail::cuda_ridge_scale<T>(h, out, p, st, s); });
  }
  if (base.hessian_final && c.sigmas.empty()) out.fill(1.0, stream);  // zeros <= 0 become 1
  return out;
}

Array dispatch_run(const Array& image, const Common& c, const RidgeScale& base, bool gamma_auto, const char* fn,
                   const Stream& stream) {
  for (double s : c.sigmas) expect(std::isfinite(s) && s > 0, fn, "sigmas", "must be positive and finite, got ", s);
  if (image.dtype() == DType::float32) return run<float>(image, c, base, gamma_auto, fn, stream);
  return run<double>(image, c, base, gamma_auto, fn, stream);
}

std::vector<double> frangi_sigmas(const std::vector<double>& sigmas, const std::optional<std::array<double, 2>>& range,
                                  const std::optional<double>& step, const char* fn) {
  if (range && step) return arange((*range)[0], (*range)[1], *step, fn);
  return sigmas;
}

}  // namespace

Array frangi(const Array& image, const FrangiOptions& opts, const Stream& stream) {
  const char* fn = "filters.frangi";
  check_image(image, fn, true);
  const Common c{frangi_sigmas(opts.sigmas, opts.scale_range, opts.scale_step, fn), opts.black_ridges, opts.mode,
                 opts.cval};
  RidgeScale base{.kind = RidgeKind::frangi, .alpha = opts.alpha, .beta = opts.beta, .gamma = opts.gamma.value_or(0)};
  return dispatch_run(image, c, base, !opts.gamma.has_value(), fn, stream);
}

Array hessian(const Array& image, const HessianOptions& opts, const Stream& stream) {
  const char* fn = "filters.hessian";
  check_image(image, fn, true);
  const Common c{frangi_sigmas(opts.sigmas, opts.scale_range, opts.scale_step, fn), opts.black_ridges, opts.mode,
                 opts.cval};
  RidgeScale base{.kind = RidgeKind::frangi,
                  .alpha = opts.alpha,
                  .beta = opts.beta,
                  .gamma = opts.gamma.value_or(0),
                  .hessian_final = true};
  return dispatch_run(image, c, base, !opts.gamma.has_value(), fn, stream);
}

Array meijering(const Array& image, const MeijeringOptions& opts, const Stream& stream) {
  const char* fn = "filters.meijering";
  check_image(image, fn, false);
  const Common c{opts.sigmas, opts.black_ridges, opts.mode, opts.cval};
  const double alpha = opts.alpha ? *opts.alpha : 1.0 / (image.ndim() + 1);
  RidgeScale base{.kind = RidgeKind::meijering, .alpha = alpha};
  return dispatch_run(image, c, base, false, fn, stream);
}

Array sato(const Array& image, const SatoOptions& opts, const Stream& stream) {
  const char* fn = "filters.sato";
  check_image(image, fn, true);
  const Common c{opts.sigmas, opts.black_ridges, opts.mode, opts.cval};
  return dispatch_run(image, c, RidgeScale{.kind = RidgeKind::sato}, false, fn, stream);
}

}  // namespace cuskimage::filters
