// feature.match_template: argument handling, the geometry, and the CPU backend (FFTW real
// transforms of the padded region and of the mean-subtracted template, float64 integral images
// from transform::integral_image). The CUDA backend is kernels/feature/template.cu.
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "cuskimage/feature.hpp"
#include "cuskimage/transform/integral.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/fft.hpp"
#include "src/core/validate.hpp"
#include "src/feature/template.hpp"

namespace cuskimage::feature {
namespace {

using cuskimage::detail::expect;
using detail::TemplateGeom;
constexpr std::string_view kFn = "feature.match_template";

#if CUSK_HAVE_FFTW
using cuskimage::detail::fft::Fftw;
using cuskimage::detail::fft::fftw_run;

template <class T>
Array cpu_match_template(const Array& image, const Array& tmpl0, const TemplateGeom& g) {
  const Array img = image.astype(dtype_v<T>).contiguous();
  const T* ip = img.data<T>();
  const std::int64_t ist[3] = {g.img[1] * g.img[2], g.img[2], 1};
  // R and R^2 in float64, and R on the FFT grid (slot 0) beside the template (slot 1).
  const std::int64_t P = g.l_size(), H = g.spec_size();
  Array r1 = Array::empty({g.r[0], g.r[1], g.r[2]}, DType::float64);
  Array r2 = Array::empty({g.r[0], g.r[1], g.r[2]}, DType::float64);
  Array bufa = Array::zeros({2 * P}, dtype_v<T>);
  T* buf = bufa.data<T>();
  double* p1 = r1.data<double>();
  double* p2 = r2.data<double>();
  for (std::int64_t a = 0, i = 0; a < g.r[0]; ++a)
    for (std::int64_t b = 0; b < g.r[1]; ++b)
      for (std::int64_t c = 0; c < g.r[2]; ++c, ++i) {
        const double v = detail::padded_value(ip, ist, g, a, b, c);
        p1[i] = v, p2[i] = v * v;
        buf[(a * g.L[1] + b) * g.L[2] + c] = static_cast<T>(v);
      }
  const T* tp = tmpl0.data<T>();
  for (std::int64_t a = 0, i = 0; a < g.m[0]; ++a)
    for (std::int64_t b = 0; b < g.m[1]; ++b)
      for (std::int64_t c = 0; c < g.m[2]; ++c, ++i) buf[P + (a * g.L[1] + b) * g.L[2] + c] = tp[i];
  const Array ii1 = transform::integral_image(r1), ii2 = transform::integral_image(r2);
  std::vector<int> ext;
  for (int a = 3 - g.nd; a < 3; ++a) ext.push_back(cuskimage::detail::fft::as_int(g.L[a], "feature.match_template"));
  const int pi = cuskimage::detail::fft::as_int(P, "feature.match_template");
  const int hi = cuskimage::detail::fft::as_int(H, "feature.match_template");
  Array speca = Array::empty({2 * H, 2}, dtype_v<T>);
  T* sp = speca.data<T>();
  fftw_run<T>("feature.match_template", "rfftn", [&] { return Fftw<T>::r2c(g.nd, ext.data(), 2, buf, pi, sp, hi); });
  auto* S = reinterpret_cast<std::complex<T>*>(sp);
  for (std::int64_t i = 0; i < H; ++i) S[i] *= std::conj(S[H + i]);
  fftw_run<T>("feature.match_template", "irfftn", [&] { return Fftw<T>::c2r(g.nd, ext.data(), 1, sp, hi, buf, pi); });
  const double scale = 1.0 / static_cast<double>(P);
  Shape os;
  for (int a = 3 - g.nd; a < 3; ++a) os.push_back(g.out[a]);
  Array out = Array::empty(os, dtype_v<T>);
  T* op = out.data<T>();
  const double* q1 = ii1.data<double>();
  const double* q2 = ii2.data<double>();
  for (std::int64_t a = 0, i = 0; a < g.out[0]; ++a)
    for (std::int64_t b = 0; b < g.out[1]; ++b)
      for (std::int64_t c = 0; c < g.out[2]; ++c, ++i) {
        const double corr = static_cast<double>(buf[(a * g.L[1] + b) * g.L[2] + c]) * scale;
        op[i] = static_cast<T>(detail::ncc_response(q1, q2, g, a, b, c, corr));
      }
  return out;
}
#endif  // CUSK_HAVE_FFTW

/// The geometry, and the template's mean, sum of squared deviations and mean-subtracted values.
TemplateGeom plan(const Array& image, const Array& tmpl, const MatchTemplateOptions& opts, bool single,
                  std::vector<double>& t0, const Stream& stream) {
  TemplateGeom g;
  g.nd = image.ndim();
  const int lead = 3 - g.nd;
  for (int a = 0; a < g.nd; ++a) {
    g.img[lead + a] = image.shape(a);
    g.m[lead + a] = tmpl.shape(a);
  }
  for (int a = 0; a < 3; ++a) {
    g.out[a] = opts.pad_input ? g.img[a] : g.img[a] - g.m[a] + 1;
    g.off[a] = opts.pad_input ? g.m[a] / 2 : 0;
    g.r[a] = g.out[a] + g.m[a] - 1;
    g.L[a] = a < lead ? 1 : detail::smooth_len(g.r[a]);
  }
  g.mode = opts.mode;
  g.cval = opts.constant_values;
  g.eps = single ? std::numeric_limits<float>::epsilon() : std::numeric_limits<double>::epsilon();
  const Array th = tmpl.to(Device::cpu(), stream).astype(DType::float64);
  stream.synchronize();
  t0 = th.contiguous().to_vector<double>();
  g.vol = static_cast<double>(t0.size());
  double mean = 0.0;
  for (double v : t0) mean += v;
  mean /= g.vol;
  for (double& v : t0) {
    v -= mean;
    g.tssd += v * v;
  }
  return g;
}

}  // namespace

Array match_template(const Array& image, const Array& templ, const MatchTemplateOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  cuskimage::detail::expect_valid(templ, kFn, "template");
  cuskimage::detail::expect_ndim(image, kFn, "image", 2, 3);
  expect(templ.ndim() == image.ndim(), kFn, "template", "must have the image's ndim (", image.ndim(), "), got ",
         templ.ndim());
  for (int a = 0; a < image.ndim(); ++a)
    expect(templ.shape(a) >= 1 && templ.shape(a) <= image.shape(a), kFn, "template",
           "must be no larger than the image on every axis (image ", image.str(), ", template ", templ.str(), ")");
  const bool single = image.dtype() == DType::float32;
  std::vector<double> t0;
  const TemplateGeom g = plan(image, templ, opts, single, t0, stream);
  auto run = [&]<class T>() -> Array {
    std::vector<T> tv(t0.begin(), t0.end());
    const Array tmpl0 = Array::from_vector(tv, {static_cast<std::int64_t>(tv.size())});
    return cuskimage::detail::on_backend(
        image, stream,
        [&]() -> Array {
#if CUSK_HAVE_FFTW
          return cpu_match_template<T>(image, tmpl0, g);
#else
          throw NotSupported(std::string(kFn) + ": needs FFTW3 on CPU arrays; this build has none");
#endif
        },
        [&](auto) -> Array {
          const Array img = image.dtype() == dtype_v<T> ? image.share() : image.astype(dtype_v<T>, stream);
          return detail::cuda_match_template<T>(img, tmpl0, g, stream);
        });
  };
  return single ? run.template operator()<float>() : run.template operator()<double>();
}

}  // namespace cuskimage::feature
