// Optical density and Macenko stain extraction / normalisation (cucim.core.operations.color.
// stain_normalizer): validation, the CPU backend (the oracle of the CUDA kernels in
// kernels/pathology/macenko.cu, computing the same bits) and dispatch.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "cuskimage/pathology.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/elementwise.hpp"
#include "src/core/validate.hpp"
#include "src/pathology/common.hpp"

namespace cuskimage::pathology {
namespace detail {

using cuskimage::detail::dispatch;
using cuskimage::detail::expect;
using cuskimage::detail::Types;

PixelGeom pixel_geom(const Array& a, int channel_axis) {
  PixelGeom g;
  Shape shape;
  std::vector<std::int64_t> strides;
  for (int d = 0; d < a.ndim(); ++d) {
    if (d == channel_axis) continue;
    shape.push_back(a.shape()[d]);
    strides.push_back(a.strides()[d]);
  }
  g.channels = static_cast<int>(a.shape()[channel_axis]);
  g.cs = a.strides()[channel_axis];
  g.n = shape_size(shape);
  const auto L = cuskimage::detail::coalesce(shape, {strides});
  g.ix = L.indexer(0);
  g.flat = L.shape.size() <= 1;
  g.step = L.shape.empty() ? 0 : L.strides[0][0];
  return g;
}

namespace {

using Reals = Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t,
                    std::uint64_t, std::int64_t, float, double>;

/// Planar (3, n) float32 optical density of an RGB image (the CPU backend's working copy).
std::vector<float> planar_od(const Array& image, const PixelGeom& g, const MacenkoParams& p) {
  std::vector<float> od(static_cast<std::size_t>(3 * g.n));
  const bool is_float = is_floating(image.dtype());
  const float lo = static_cast<float>(is_float ? p.source_intensity / 255.0 : 1.0);
  const float hi = static_cast<float>(p.source_intensity);
  dispatch<Reals>(image.dtype(), "pathology.stain_extraction_pca", [&]<class T>() {
    const T* src = static_cast<const T*>(image.data());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < g.n; ++i) {
      const std::int64_t o = g.px(i);
      for (int c = 0; c < 3; ++c) {
        const float v = static_cast<float>(src[o + c * g.cs]);
        od[c * g.n + i] = p.absorbance_input ? v : absorbance_hd<float>(v, lo, hi);
      }
    }
  });
  return od;
}

/// The k-th smallest key of `keys` (copied: nth_element reorders).
std::uint32_t kth(std::vector<std::uint32_t>& keys, std::int64_t k) {
  std::nth_element(keys.begin(), keys.begin() + k, keys.end());
  return keys[static_cast<std::size_t>(k)];
}

void cpu_macenko(const Array& image, int channel_axis, const MacenkoParams& p, Array* stain, Array* out) {
  const PixelGeom g = pixel_geom(image, channel_axis);
  const std::vector<float> od = planar_od(image, g, p);
  const std::int64_t n = g.n;
  auto load = [&](std::int64_t i, float v[3]) {
    v[0] = od[i];
    v[1] = od[n + i];
    v[2] = od[2 * n + i];
  };
  // Moments of the opaque pixels (+ their count as a 10th exact double).
  std::vector<double> part = reduce_level(n, kMoments + 1, [&](std::int64_t i, double* m) {
    float v[3];
    load(i, v);
    const bool keep = opaque(v, p.beta);
    pixel_moments(v, keep, m);
    m[kMoments] = keep ? 1.0 : 0.0;
  });
  part = fold_to_one_cpu(std::move(part), kMoments + 1);
  const std::int64_t count = static_cast<std::int64_t>(part[kMoments]);
  if (count == 0)
    throw InvalidArgument("pathology.stain_extraction_pca: all pixels of the input image are below the threshold "
                          "(beta = " + std::to_string(p.beta) + ")");
  MacenkoFit f{};
  fit_axes(part.data(), count, p.alpha_fit, f);

  std::vector<std::uint32_t> keys;
  keys.reserve(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < n; ++i) {
    float v[3], x, y;
    load(i, v);
    if (!opaque(v, p.beta)) continue;
    project(f.ev, v, x, y);
    keys.push_back(order_key(pseudo_angle(x, y)));
  }
  float sel[4];
  for (int t = 0; t < 4; ++t) sel[t] = key_value(kth(keys, f.rank[t]));
  fit_stains(sel, f);
  if (stain) {
    float* s = stain->data<float>();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) s[i * 2 + j] = f.stain[i][j];
  }
  if (!out) return;

  // Concentrations of every pixel and their (100 - alpha) percentiles.
  std::vector<std::uint32_t> ck[2];
  for (auto& k : ck) k.resize(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    float v[3], c[2];
    load(i, v);
    concentrations(f.pinv, v, c);
    ck[0][i] = order_key(c[0]);
    ck[1][i] = order_key(c[1]);
  }
  std::int64_t lo;
  double t;
  percentile_rank(sub_rn(100.0, p.alpha_conc), n, lo, t);
  const std::int64_t hi = lo + 1 < n ? lo + 1 : n - 1;
  double factor[2];
  for (int r = 0; r < 2; ++r) {
    const float a = key_value(kth(ck[r], lo)), b = key_value(kth(ck[r], hi));
    factor[r] = div_rn(p.ref_max_conc[r], lerp_percentile(a, b, t));
  }
  const PixelGeom go = pixel_geom(*out, channel_axis);
  std::uint8_t* dst = out->data<std::uint8_t>();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < n; ++i) {
    float v[3], c[2];
    std::uint8_t px[3];
    load(i, v);
    concentrations(f.pinv, v, c);
    reconstruct(c, factor, p.ref, p.source_intensity, px);
    const std::int64_t o = go.px(i);
    for (int ch = 0; ch < 3; ++ch) dst[o + ch * go.cs] = px[ch];
  }
}

/// Validation common to stain_extraction_pca and normalize_colors_pca; returns the channel axis.
int check_rgb(const Array& image, int channel_axis, std::string_view fn) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() >= 1, fn, "image", "must have a channel axis, got a 0-d array");
  const int ax = cuskimage::detail::normalize_axis(channel_axis, image.ndim(), fn, "channel_axis");
  expect(image.shape()[ax] == 3, fn, "image", "must be an RGB image (3 channels on axis ", channel_axis, "), got ",
         image.shape()[ax], " channels");
  expect(image.dtype() != DType::bool_, fn, "image", "must be numeric, got bool");
  // cuCIM: "Image should not have negative values" (checked on the host only: no round trip on CUDA).
  if (image.device().is_cpu() && (is_floating(image.dtype()) || is_signed(image.dtype()))) {
    bool negative = false;
    dispatch<Reals>(image.dtype(), fn, [&]<class T>() {
      if constexpr (std::is_signed_v<T>) {
        const PixelGeom g = pixel_geom(image, ax);
        const T* s = static_cast<const T*>(image.data());
        for (std::int64_t i = 0; i < g.n && !negative; ++i)
          for (int c = 0; c < 3; ++c) negative |= s[g.px(i) + c * g.cs] < T(0);
      }
    });
    expect(!negative, fn, "image", "should not have negative values");
  }
  return ax;
}

}  // namespace
}  // namespace detail

using namespace detail;

Array image_to_absorbance(const Array& image, const ImageToAbsorbanceOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "pathology.image_to_absorbance";
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(opts.dtype == DType::float32 || opts.dtype == DType::float64, fn, "dtype",
         "must be a floating point type, got ", dtype_name(opts.dtype));
  expect(opts.source_intensity >= 0, fn, "source_intensity", "must be a positive value, got ", opts.source_intensity);
  expect(image.dtype() != DType::bool_, fn, "image", "must be numeric, got bool");
  const bool is_float = is_floating(image.dtype());
  const double lo = is_float ? opts.source_intensity / 255.0 : 1.0;
  const double hi = opts.source_intensity;
  Array out = Array::empty(image.shape(), opts.dtype, image.device(), stream);
  if (image.device().is_cuda()) {
    cuda_absorbance(image, out, lo, hi, stream);
    return out;
  }
  dispatch<Reals>(image.dtype(), fn, [&]<class T>() {
    if (opts.dtype == DType::float32) {
      const float l = static_cast<float>(lo), h = static_cast<float>(hi);
      cuskimage::detail::cpu_map<T, float>(image, out, [=](T v) { return absorbance_hd<float>(static_cast<float>(v), l, h); });
    } else {
      cuskimage::detail::cpu_map<T, double>(image, out, [=](T v) { return absorbance_hd<double>(static_cast<double>(v), lo, hi); });
    }
  });
  return out;
}

Array absorbance_to_image(const Array& absorbance, const AbsorbanceToImageOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "pathology.absorbance_to_image";
  cuskimage::detail::expect_valid(absorbance, fn, "absorbance");
  expect(opts.source_intensity >= 0, fn, "source_intensity", "must be a positive value, got ", opts.source_intensity);
  expect(opts.dtype != DType::bool_, fn, "dtype", "must be numeric, got bool");
  // Integer absorbance is computed in float32 (cuCIM promotes with float16).
  const Array a = is_floating(absorbance.dtype()) ? absorbance.share() : absorbance.astype(DType::float32, stream);
  Array out = Array::empty(a.shape(), opts.dtype, a.device(), stream);
  if (a.device().is_cuda()) {
    cuda_absorbance_to_image(a, out, opts.source_intensity, stream);
    return out;
  }
  dispatch<Types<float, double>>(a.dtype(), fn, [&]<class F>() {
    dispatch<Reals>(opts.dtype, fn, [&]<class O>() {
      const double s = opts.source_intensity;
      cuskimage::detail::cpu_map<F, O>(a, out, [=](F v) { return absorbance_to_image_hd<F, O>(v, s); });
    });
  });
  return out;
}

namespace {

MacenkoParams params_of(double source, double alpha_fit, double alpha_conc, double beta, ImageType type) {
  MacenkoParams p{};
  p.source_intensity = source;
  p.alpha_fit = alpha_fit;
  p.alpha_conc = alpha_conc;
  p.beta = static_cast<float>(beta);
  p.absorbance_input = type == ImageType::absorbance;
  return p;
}

}  // namespace

Array stain_extraction_pca(const Array& image, const StainExtractionOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "pathology.stain_extraction_pca";
  const int ax = check_rgb(image, opts.channel_axis, fn);
  expect(opts.alpha >= 0 && opts.alpha <= 100, fn, "alpha", "must be a percentile in range [0, 100], got ", opts.alpha);
  expect(opts.beta >= 0, fn, "beta", "must be nonnegative, got ", opts.beta);
  expect(opts.source_intensity >= 0, fn, "source_intensity", "must be a positive value, got ", opts.source_intensity);
  const MacenkoParams p = params_of(opts.source_intensity, opts.alpha, opts.alpha, opts.beta, opts.image_type);
  Array stain = Array::empty({3, 2}, DType::float32, image.device(), stream);
  if (image.device().is_cuda())
    cuda_macenko(image, ax, p, &stain, nullptr, stream);
  else
    cpu_macenko(image, ax, p, &stain, nullptr);
  return stain;
}

Array normalize_colors_pca(const Array& image, const NormalizeColorsPcaOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "pathology.normalize_colors_pca";
  const int ax = check_rgb(image, opts.channel_axis, fn);
  expect(opts.alpha >= 0 && opts.alpha <= 100, fn, "alpha", "must be a percentile in range [0, 100], got ", opts.alpha);
  expect(opts.beta >= 0, fn, "beta", "must be nonnegative, got ", opts.beta);
  expect(opts.source_intensity >= 0, fn, "source_intensity", "must be a positive value, got ", opts.source_intensity);
  for (double c : opts.ref_max_conc)
    expect(std::isfinite(c), fn, "ref_max_conc", "must be finite, got ", c);
  // cuCIM extracts the stains with stain_extraction_pca's default alpha (1).
  MacenkoParams p = params_of(opts.source_intensity, 1.0, opts.alpha, opts.beta, opts.image_type);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) p.ref[i][j] = opts.ref_stain_coeff[i][j];
  p.ref_max_conc[0] = opts.ref_max_conc[0];
  p.ref_max_conc[1] = opts.ref_max_conc[1];
  Array out = Array::empty(image.shape(), DType::uint8, image.device(), stream);
  if (out.size() == 0) return out;
  if (image.device().is_cuda())
    cuda_macenko(image, ax, p, nullptr, &out, stream);
  else
    cpu_macenko(image, ax, p, nullptr, &out);
  return out;
}

}  // namespace cuskimage::pathology
