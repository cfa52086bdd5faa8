// feature.multiscale_basic_features: argument handling and the pipeline on the image's device, per
// channel and sigma: filters::gaussian (mode 'nearest'), filters::sobel when edges are asked for,
// then one pass writing that sigma's features into the interleaved output (CPU here, CUDA in
// kernels/feature/basic_features.cu; per-pixel code in src/feature/basic_features.hpp).
#include <cmath>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cuskimage/feature.hpp"
#include "cuskimage/filters.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/feature/basic_features.hpp"

namespace cuskimage::feature {
namespace {

using cuskimage::detail::expect;

/// np.logspace(log2 lo, log2 hi, num, base=2): 2 ** linspace (float64).
std::vector<double> feature_sigmas(double lo, double hi, std::int64_t num) {
  const double a = std::log2(lo), b = std::log2(hi);
  std::vector<double> s(static_cast<std::size_t>(num));
  const double step = num > 1 ? (b - a) / static_cast<double>(num - 1) : 0.0;
  for (std::int64_t i = 0; i < num; ++i) {
    double y = num > 1 && step == 0 ? static_cast<double>(i) / static_cast<double>(num - 1) * (b - a) + a
                                    : static_cast<double>(i) * step + a;
    if (num > 1 && i == num - 1) y = b;
    s[i] = std::pow(2.0, y);
  }
  return s;
}

void write_features(const Array& g, const Array& sob, const detail::FeatGrid& G, const detail::FeatLayer& L,
                    Array& out, const Stream& stream) {
  cuskimage::detail::on_backend(
      g, stream,
      [&] {
        const float* gp = g.data<float>();
        const float* sp = sob.valid() ? sob.data<float>() : nullptr;
        float* op = out.data<float>();
        const std::int64_t n = g.size();
#pragma omp parallel for schedule(static) if (n > 65536)
        for (std::int64_t i = 0; i < n; ++i) {
          if (G.nd == 2)
            detail::feat_pixel<2>(gp, sp, G, L, i, op);
          else
            detail::feat_pixel<3>(gp, sp, G, L, i, op);
        }
      },
      [&](const Stream& s) { detail::cuda_basic_features(g, sob, G, L, out, s); });
}

}  // namespace

Array multiscale_basic_features(const Array& image, const MultiscaleBasicFeaturesOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "feature.multiscale_basic_features";
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(opts.intensity || opts.edges || opts.texture, fn, "intensity",
         "At least one of `intensity`, `edges` or `textures` must be True for features to be computed.");
  Array img = image.share();
  if (opts.channel_axis) {
    const int nd = image.ndim();
    const int ax = *opts.channel_axis < 0 ? *opts.channel_axis + nd : *opts.channel_axis;
    expect(ax >= 0 && ax < nd, fn, "channel_axis", "must be in [-", nd, ", ", nd - 1, "], got ", *opts.channel_axis);
    std::vector<int> perm;
    for (int a = 0; a < nd; ++a)
      if (a != ax) perm.push_back(a);
    perm.push_back(ax);
    img = image.transpose(perm);
  }
  const int sd = img.ndim() - (opts.channel_axis ? 1 : 0);
  expect(sd == 2 || sd == 3, fn, "image", "must have 2 or 3 spatial dimensions, got ", sd);
  for (int a = 0; a < sd; ++a)
    expect(img.shape(a) >= 2 || !opts.texture, fn, "image",
           "must have at least 2 pixels along every axis for the texture features (np.gradient), got shape ",
           shape_str(img.shape()));
  expect(opts.sigma_min > 0 && opts.sigma_max > 0, fn, "sigma_min", "and sigma_max must be positive, got ",
         opts.sigma_min, " and ", opts.sigma_max);
  const std::int64_t num = opts.num_sigma.value_or(
      static_cast<std::int64_t>(std::log2(opts.sigma_max) - std::log2(opts.sigma_min) + 1));
  expect(num >= 1, fn, "num_sigma", "must be positive, got ", num);
  const std::vector<double> sigmas = feature_sigmas(opts.sigma_min, opts.sigma_max, num);
  const std::int64_t channels = opts.channel_axis ? img.shape(img.ndim() - 1) : 1;
  const std::int64_t per = (opts.intensity ? 1 : 0) + (opts.edges ? 1 : 0) + (opts.texture ? sd : 0);
  const std::int64_t nf = channels * num * per;
  Shape os(img.shape().begin(), img.shape().begin() + sd);
  os.push_back(nf);
  Array out = Array::empty(os, DType::float32, image.device(), stream);
  detail::FeatGrid G{{1, 1, 1}, {0, 0, 0}, sd};
  for (int a = 0; a < sd; ++a) G.s[3 - sd + a] = img.shape(a);
  G.st[2] = 1, G.st[1] = G.s[2], G.st[0] = G.s[1] * G.s[2];
  for (std::int64_t ch = 0; ch < channels; ++ch) {
    const Array plane = opts.channel_axis ? img.index(img.ndim() - 1, ch) : img.share();
    const Array f = util::img_as_float32(plane, {}, stream).contiguous(stream);
    for (std::int64_t k = 0; k < num; ++k) {
      const Array g = filters::gaussian(f, {.sigma = sigmas[k]}, stream).contiguous(stream);
      const Array sob = opts.edges ? filters::sobel(g, {}, stream).contiguous(stream) : Array();
      const detail::FeatLayer L{nf, (ch * num + k) * per, opts.intensity, opts.edges, opts.texture};
      write_features(g, sob, G, L, out, stream);
    }
  }
  return out;
}

}  // namespace cuskimage::feature
