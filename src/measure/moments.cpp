// skimage.measure._moments on both backends: moments, moments_central, moments_coords(_central),
// moments_normalized, moments_hu, centroid, inertia_tensor, inertia_tensor_eigvals. The CPU backend
// contracts one axis after another in double, as scikit-image's einsum does; the CUDA backend
// (kernels/measure/moments.cu) runs the same contractions. float32 inputs give float32 results
// (scikit-image's _supported_float_type), computed in double and rounded once.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/measure/moments.hpp"
#include "src/measure/moments_math.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::expect;
using cuskimage::detail::on_backend;

DType float_type(DType dt) { return dt == DType::float32 ? DType::float32 : DType::float64; }

std::vector<double> spacing_for(const std::vector<double>& sp, int nd, std::string_view fn) {
  if (sp.empty()) return std::vector<double>(nd, 1.0);
  std::vector<double> out = sp.size() == 1 ? std::vector<double>(nd, sp[0]) : sp;
  expect(static_cast<int>(out.size()) == nd, fn, "spacing", "must have ", nd, " values, got ", sp.size());
  return out;
}

Shape cube(int nd, std::int64_t P) { return Shape(nd, P); }

/// CPU: sum I prod (x_a s_a - c_a)^p, contracted axis 0 first (scikit-image's einsum order).
std::vector<double> cpu_contract(const Array& image, const std::vector<double>& sp, const std::vector<double>& c,
                                 int order) {
  const Array f = image.astype(DType::float64).contiguous();
  std::vector<double> A(f.data<double>(), f.data<double>() + f.size());
  Shape cur = image.shape();
  const std::int64_t P = order + 1;
  for (int ax = 0; ax < image.ndim(); ++ax) {
    std::int64_t pre = 1, post = 1;
    for (int k = 0; k < ax; ++k) pre *= cur[k];
    for (int k = ax + 1; k < image.ndim(); ++k) post *= cur[k];
    const std::int64_t n = cur[ax];
    std::vector<double> out(static_cast<std::size_t>(pre * P * post), 0.0);
    std::vector<double> pw(static_cast<std::size_t>(P));
    for (std::int64_t i = 0; i < n; ++i) {
      const double d = static_cast<double>(i) * sp[ax] - c[ax];
      double v = 1;
      for (std::int64_t p = 0; p < P; ++p, v *= d) pw[p] = v;
      for (std::int64_t a = 0; a < pre; ++a)
        for (std::int64_t p = 0; p < P; ++p) {
          double* o = out.data() + (a * P + p) * post;
          const double* in = A.data() + (a * n + i) * post;
          for (std::int64_t b = 0; b < post; ++b) o[b] += in[b] * pw[p];
        }
    }
    A.swap(out);
    cur[ax] = P;
  }
  return A;
}

Array host_result(const std::vector<double>& v, const Shape& shape, DType dt) {
  return Array::from_vector(v, shape).astype(dt);
}

void check_image(const Array& image, std::string_view fn, int order) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() >= 1, fn, "image", "must have at least one dimension");
  expect(order >= 0, fn, "order", "must be >= 0, got ", order);
}

/// Raw or central moments of an image, float64 on the image's device. About the centroid
/// (centroid_default) entries are kept as scikit-image's raw-to-central conversion keeps them:
/// power sums <= order, first-order ones exactly 0, the rest 0.
Array moments_f64(const Array& image, std::vector<double> center, bool centroid_default, int order,
                  const std::vector<double>& sp, const Stream& stream) {
  const int nd = image.ndim();
  return on_backend(
      image, stream,
      [&] {
        if (centroid_default) {
          const auto m1 = cpu_contract(image, sp, std::vector<double>(nd, 0.0), 1);
          center.assign(nd, 0.0);
          for (int a = 0; a < nd; ++a) center[a] = m1[std::int64_t(1) << (nd - 1 - a)] / m1[0];
        }
        std::vector<double> mu = cpu_contract(image, sp, center, order);
        if (centroid_default) {  // scikit-image's raw-to-central conversion: power sums <= order, first order 0
          for (std::size_t k = 0; k < mu.size(); ++k) {
            std::int64_t r = static_cast<std::int64_t>(k);
            int s = 0;
            for (int a = 0; a < nd; ++a, r /= order + 1) s += static_cast<int>(r % (order + 1));
            if (s > order || s == 1) mu[k] = 0.0;
          }
        }
        return Array::from_vector(mu, cube(nd, order + 1));
      },
      [&](const Stream& s) {
        const Array c = image.contiguous(stream);
        Array out = Array::zeros(cube(nd, order + 1), DType::float64, image.device(), stream);
        if (centroid_default) {
          Array m1 = Array::zeros(cube(nd, 2), DType::float64, image.device(), stream);
          detail::cuda_moments(c, sp, nullptr, 1, m1, s);
          Array cen = Array::empty({nd}, DType::float64, image.device(), stream);
          detail::cuda_centroid_from_m1(m1, cen, s);
          detail::cuda_moments(c, sp, static_cast<const double*>(cen.data()), order, out, s);
          detail::cuda_zero_outside_order(out, order, s);
        } else {
          Array cen = Array::from_vector(center, {nd}).to(image.device(), stream);
          detail::cuda_moments(c, sp, static_cast<const double*>(cen.data()), order, out, s);
        }
        return out;
      });
}

}  // namespace

Array moments(const Array& image, const MomentsOptions& opts, const Stream& stream) {
  constexpr std::string_view kFn = "measure.moments";
  check_image(image, kFn, opts.order);
  const auto sp = spacing_for(opts.spacing, image.ndim(), kFn);
  return moments_f64(image, std::vector<double>(image.ndim(), 0.0), false, opts.order, sp, stream)
      .astype(float_type(image.dtype()), stream);
}

Array moments_central(const Array& image, const MomentsCentralOptions& opts, const Stream& stream) {
  constexpr std::string_view kFn = "measure.moments_central";
  check_image(image, kFn, opts.order);
  const auto sp = spacing_for(opts.spacing, image.ndim(), kFn);
  expect(opts.center.empty() || static_cast<int>(opts.center.size()) == image.ndim(), kFn, "center", "must have ",
         image.ndim(), " values, got ", opts.center.size());
  return moments_f64(image, opts.center, opts.center.empty(), opts.order, sp, stream)
      .astype(float_type(image.dtype()), stream);
}

Array moments_coords_central(const Array& coords, const std::vector<double>& center, int order,
                             const Stream& stream) {
  constexpr std::string_view kFn = "measure.moments_coords_central";
  cuskimage::detail::expect_valid(coords, kFn, "coords");
  expect(coords.ndim() == 2, kFn, "coords", "must be a 2-D (K, ndim) array, got ", coords.ndim(), "-D");
  expect(order >= 0, kFn, "order", "must be >= 0, got ", order);
  const std::int64_t K = coords.shape(0);
  const int D = static_cast<int>(coords.shape(1));
  expect(center.empty() || static_cast<int>(center.size()) == D, kFn, "center", "must have ", D, " values, got ",
         center.size());
  const std::int64_t P = order + 1;
  const DType odt = float_type(coords.dtype());
  const Array c = coords.astype(DType::float64, stream);
  return on_backend(
      coords, stream,
      [&] {
        const double* x = c.data<double>();
        std::vector<double> ctr = center;
        if (ctr.empty()) {
          ctr.assign(D, 0.0);
          for (int a = 0; a < D; ++a) {
            for (std::int64_t k = 0; k < K; ++k) ctr[a] += x[k * D + a];
            ctr[a] /= static_cast<double>(K);
          }
        }
        std::int64_t M = 1;
        for (int a = 0; a < D; ++a) M *= P;
        std::vector<double> out(static_cast<std::size_t>(M), 0.0);
        std::vector<double> pw(static_cast<std::size_t>(D * P));
        for (std::int64_t k = 0; k < K; ++k) {
          for (int a = 0; a < D; ++a) {
            const double d = x[k * D + a] - ctr[a];
            double v = 1;
            for (std::int64_t p = 0; p < P; ++p, v *= d) pw[a * P + p] = v;
          }
          for (std::int64_t m = 0; m < M; ++m) {
            double v = 1;
            std::int64_t r = m;
            for (int a = D - 1; a >= 0; --a, r /= P) v *= pw[a * P + r % P];
            out[m] += v;
          }
        }
        return host_result(out, cube(D, P), odt);
      },
      [&](const Stream& s) {
        expect(D <= 16, kFn, "coords", "must have at most 16 columns on a CUDA device, got ", D);
        Array out = Array::zeros(cube(D, P), DType::float64, coords.device(), stream);
        Array ctr;
        if (!center.empty()) ctr = Array::from_vector(center, {D}).to(coords.device(), stream);
        detail::cuda_moments_coords(c, ctr.valid() ? static_cast<const double*>(ctr.data()) : nullptr, order, out, s);
        return out.astype(odt, stream);
      });
}

Array moments_coords(const Array& coords, int order, const Stream& stream) {
  cuskimage::detail::expect_valid(coords, "measure.moments_coords", "coords");
  expect(coords.ndim() == 2, "measure.moments_coords", "coords", "must be a 2-D (K, ndim) array, got ", coords.ndim(),
         "-D");
  return moments_coords_central(coords, std::vector<double>(coords.shape(1), 0.0), order, stream);
}

Array moments_normalized(const Array& mu, int order, const std::vector<double>& spacing, const Stream& stream) {
  constexpr std::string_view kFn = "measure.moments_normalized";
  cuskimage::detail::expect_valid(mu, kFn, "mu");
  expect(mu.ndim() >= 1, kFn, "mu", "must have at least one dimension");
  const std::int64_t P = mu.shape(0);
  for (int a = 0; a < mu.ndim(); ++a) {
    expect(mu.shape(a) > order, kFn, "mu", "shape of image moments must be >= `order`, got ", shape_str(mu.shape()),
           " for order ", order);
    expect(mu.shape(a) == P, kFn, "mu", "must have equal extents, got ", shape_str(mu.shape()));
  }
  const auto sp = spacing_for(spacing, mu.ndim(), kFn);
  const double scale = *std::min_element(sp.begin(), sp.end());
  const DType odt = float_type(mu.dtype());
  const Array m = mu.astype(DType::float64, stream);
  return on_backend(
      mu, stream,
      [&] {
        std::vector<double> out(static_cast<std::size_t>(m.size()));
        for (std::int64_t k = 0; k < m.size(); ++k)
          out[k] = detail::normalized_moment(m.data<double>(), k, mu.ndim(), P, order, scale);
        return host_result(out, mu.shape(), odt);
      },
      [&](const Stream& s) {
        Array out = Array::empty(mu.shape(), DType::float64, mu.device(), stream);
        detail::cuda_moments_normalized(m, order, scale, out, s);
        return out.astype(odt, stream);
      });
}

Array moments_hu(const Array& nu, const Stream& stream) {
  constexpr std::string_view kFn = "measure.moments_hu";
  cuskimage::detail::expect_valid(nu, kFn, "nu");
  expect(nu.ndim() == 2 && nu.shape(0) >= 4 && nu.shape(1) == nu.shape(0), kFn, "nu",
         "must be 2-D normalized moments of order >= 3 (shape (n, n), n >= 4), got ", shape_str(nu.shape()));
  const DType odt = nu.dtype() == DType::float32 ? DType::float32 : DType::float64;
  const Array m = nu.astype(DType::float64, stream);
  return on_backend(
      nu, stream,
      [&] {
        std::vector<double> hu(7);
        detail::hu_moments(m.data<double>(), static_cast<int>(nu.shape(1)), hu.data());
        return host_result(hu, {7}, odt);
      },
      [&](const Stream& s) {
        Array out = Array::empty({7}, DType::float64, nu.device(), stream);
        detail::cuda_moments_hu(m, out, s);
        return out.astype(odt, stream);
      });
}

Array centroid(const Array& image, const std::vector<double>& spacing, const Stream& stream) {
  constexpr std::string_view kFn = "measure.centroid";
  check_image(image, kFn, 1);
  const int nd = image.ndim();
  const auto sp = spacing_for(spacing, nd, kFn);
  const Array m1 = moments_f64(image, std::vector<double>(nd, 0.0), false, 1, sp, stream);
  const DType odt = float_type(image.dtype());
  return on_backend(
      image, stream,
      [&] {
        std::vector<double> c(nd);
        for (int a = 0; a < nd; ++a) c[a] = m1.data<double>()[std::int64_t(1) << (nd - 1 - a)] / m1.data<double>()[0];
        return host_result(c, {nd}, odt);
      },
      [&](const Stream& s) {
        Array out = Array::empty({nd}, DType::float64, image.device(), stream);
        detail::cuda_centroid_from_m1(m1, out, s);
        return out.astype(odt, stream);
      });
}

Array inertia_tensor(const Array& image, const Array& mu_in, const std::vector<double>& spacing, const Stream& stream) {
  constexpr std::string_view kFn = "measure.inertia_tensor";
  check_image(image, kFn, 2);
  const int nd = image.ndim();
  expect(nd <= 3, kFn, "image", "must be 1-D to 3-D here, got ", nd, "-D");
  Array mu;
  if (mu_in.valid()) {
    expect(mu_in.ndim() == nd && mu_in.shape(0) >= 3, kFn, "mu", "must be central moments of order >= 2 with ", nd,
           " axes, got ", shape_str(mu_in.shape()));
    cuskimage::detail::expect_same_device(image, mu_in, kFn, "image", "mu");
    mu = mu_in.astype(DType::float64, stream);
  } else {
    mu = moments_f64(image, {}, true, 2, spacing_for(spacing, nd, kFn), stream);
  }
  const DType odt = mu_in.valid() ? float_type(mu_in.dtype()) : float_type(image.dtype());
  return on_backend(
      image, stream,
      [&] {
        std::vector<double> T(nd * nd);
        detail::inertia_from_central(mu.data<double>(), nd, static_cast<int>(mu.shape(0)), T.data());
        return host_result(T, {nd, nd}, odt);
      },
      [&](const Stream& s) {
        Array out = Array::empty({nd, nd}, DType::float64, image.device(), stream);
        detail::cuda_inertia_tensor(mu, out, s);
        return out.astype(odt, stream);
      });
}

std::vector<double> inertia_tensor_eigvals(const Array& image, const Array& mu, const Array& T,
                                           const std::vector<double>& spacing, const Stream& stream) {
  constexpr std::string_view kFn = "measure.inertia_tensor_eigvals";
  Array t;
  if (T.valid()) {
    cuskimage::detail::expect_valid(image, kFn, "image");
    expect(T.ndim() == 2 && T.shape(0) == T.shape(1) && T.shape(0) == image.ndim(), kFn, "T",
           "must be an (ndim, ndim) tensor, got ", shape_str(T.shape()));
    expect(T.shape(0) <= 3, kFn, "T", "must be at most 3 x 3 here, got ", shape_str(T.shape()));
    t = T.share();
  } else {
    t = inertia_tensor(image, mu, spacing, stream);
  }
  const Array h = t.to(Device::cpu(), stream).astype(DType::float64);
  const int nd = static_cast<int>(h.shape(0));
  std::vector<double> ev(nd);
  detail::symmetric_eigvals_desc(h.data<double>(), nd, ev.data());
  return ev;
}

}  // namespace cuskimage::measure
