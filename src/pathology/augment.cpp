// Colour jitter, intensity scaling, zoom, flips and quarter turns (cucim.core.operations.{color,
// intensity, spatial}): validation, random draws (host, Philox keyed by the seed, so both backends
// make the same choice), the CPU backend and dispatch to kernels/pathology/ops.cu.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "cuskimage/pathology.hpp"
#include "src/core/elementwise.hpp"
#include "src/core/validate.hpp"
#include "src/pathology/common.hpp"

namespace cuskimage::pathology {

using namespace detail;
using cuskimage::detail::expect;
using cuskimage::detail::expect_valid;
using cuskimage::detail::normalize_axis;

namespace {

// ---- colour jitter ------------------------------------------------------------------------------

/// cuCIM's _check_input: the [lo, hi] factor range, or nullopt when the jitter is the identity.
std::optional<std::pair<double, double>> check_range(const JitterRange& r, const char* name, double center,
                                                     double bound_lo, double bound_hi, bool clip_first) {
  constexpr std::string_view fn = "pathology.color_jitter";
  std::pair<double, double> v;
  if (!r.range) {
    expect(r.value >= 0, fn, name, "if a single number, must be non negative, got ", r.value);
    v = {center - r.value, center + r.value};
    if (clip_first) v.first = std::max(v.first, 0.0);
  } else {
    v = *r.range;
    expect(bound_lo <= v.first && v.first <= v.second && v.second <= bound_hi, fn, name,
           "values should be between (", bound_lo, ", ", bound_hi, ") in increasing order, got (", v.first, ", ",
           v.second, ")");
  }
  if (v.first == center && v.second == center) return std::nullopt;
  return v;
}

int jitter_channel_axis(const Array& image, int channel_axis, std::string_view fn) {
  expect_valid(image, fn, "image");
  expect(image.ndim() == 3 || image.ndim() == 4, fn, "image",
         "must be one image (3-D) or a batch (4-D) with a channel axis, got ndim ", image.ndim());
  const int ax = normalize_axis(channel_axis, image.ndim(), fn, "channel_axis");
  expect(ax == image.ndim() - 1 || ax == image.ndim() - 3, fn, "channel_axis",
         "must be the last axis or the one before the two spatial axes, got ", channel_axis);
  expect(image.shape()[ax] == 3, fn, "image", "must have 3 (RGB) channels on axis ", ax, ", got ", image.shape()[ax]);
  expect(image.dtype() != DType::bool_, fn, "image", "must be numeric, got bool");
  return ax;
}

void cpu_adjust_colors(Array& img, int ax, const ColorJitterParams& params) {
  const PixelGeom g = pixel_geom(img, ax);
  const std::int64_t images = img.ndim() == 4 ? img.shape()[0] : 1;
  const std::int64_t per_image = images ? g.n / images : 0;
  std::uint8_t* p = img.data<std::uint8_t>();
  for (int op : params.order) {
    if (op == 0 && params.brightness) {
      const float f = static_cast<float>(*params.brightness);
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < g.n; ++i)
        for (int c = 0; c < 3; ++c) p[g.px(i) + c * g.cs] = brightness_px(p[g.px(i) + c * g.cs], f);
    } else if (op == 1 && params.contrast) {
      const float f = static_cast<float>(*params.contrast);
      for (std::int64_t im = 0; im < images; ++im) {
        std::uint64_t sum = 0;
#pragma omp parallel for schedule(static) reduction(+ : sum)
        for (std::int64_t i = im * per_image; i < (im + 1) * per_image; ++i) {
          const std::int64_t o = g.px(i);
          sum += luma16(p[o], p[o + g.cs], p[o + 2 * g.cs]);
        }
        const float bc = contrast_constant(sum, per_image);
#pragma omp parallel for schedule(static)
        for (std::int64_t i = im * per_image; i < (im + 1) * per_image; ++i)
          for (int c = 0; c < 3; ++c) p[g.px(i) + c * g.cs] = blend_px(p[g.px(i) + c * g.cs], bc, f);
      }
    } else if ((op == 2 && params.saturation) || (op == 3 && params.hue)) {
      const float f = static_cast<float>(op == 2 ? *params.saturation : *params.hue);
#pragma omp parallel for schedule(static)
      for (std::int64_t i = 0; i < g.n; ++i) {
        const std::int64_t o = g.px(i);
        std::uint8_t rgb[3] = {p[o], p[o + g.cs], p[o + 2 * g.cs]};
        if (op == 2)
          saturation_px(rgb, f);
        else
          hue_px(rgb, f);
        for (int c = 0; c < 3; ++c) p[o + c * g.cs] = rgb[c];
      }
    }
  }
}

/// A seed for image i of a batch (a Philox draw, so neighbouring images are independent).
std::uint64_t image_seed(std::uint64_t seed, std::int64_t i) {
  util::detail::PixelRng g(seed, static_cast<std::uint64_t>(i), 0x5000000Fu);
  std::uint32_t r[4];
  g.next(r);
  return (static_cast<std::uint64_t>(r[0]) << 32) | r[1];
}

}  // namespace

ColorJitterParams sample_color_jitter(const ColorJitterOptions& opts) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto b = check_range(opts.brightness, "brightness", 1, 0, inf, true);
  const auto c = check_range(opts.contrast, "contrast", 1, 0, inf, true);
  const auto s = check_range(opts.saturation, "saturation", 1, 0, inf, true);
  if (!opts.hue.range)
    expect(opts.hue.value <= 0.5, "pathology.color_jitter", "hue", "must be in [-0.5, 0.5], got ", opts.hue.value);
  const auto h = check_range(opts.hue, "hue", 0, -0.5, 0.5, false);
  ColorJitterParams p;
  // np.random.permutation(4), then one uniform per enabled factor (Fisher-Yates on Philox draws).
  for (int i = 3; i > 0; --i) {
    const int j = static_cast<int>(uniform01(opts.seed, static_cast<std::uint64_t>(i), kDrawJitterOrder) * (i + 1));
    std::swap(p.order[i], p.order[std::min(j, i)]);
  }
  auto draw = [&](const std::optional<std::pair<double, double>>& r, int k) -> std::optional<double> {
    if (!r) return std::nullopt;
    const double u = uniform01(opts.seed, static_cast<std::uint64_t>(k), kDrawJitterFactor);
    return r->first + (r->second - r->first) * u;
  };
  p.brightness = draw(b, 0);
  p.contrast = draw(c, 1);
  p.saturation = draw(s, 2);
  p.hue = draw(h, 3);
  return p;
}

Array adjust_colors(const Array& image, const ColorJitterParams& params, int channel_axis, const Stream& stream) {
  constexpr std::string_view fn = "pathology.adjust_colors";
  const int ax = jitter_channel_axis(image, channel_axis, fn);
  if (params.hue) expect(*params.hue >= -0.5 && *params.hue <= 0.5, fn, "hue", "must be in [-0.5, 0.5], got ", *params.hue);
  for (int op : params.order) expect(op >= 0 && op < 4, fn, "order", "entries must be 0..3, got ", op);
  Array work = image.dtype() == DType::uint8 ? image.copy(stream) : image.astype(DType::uint8, stream);
  if (work.device().is_cuda())
    cuda_adjust_colors(work, ax, params, stream);
  else
    cpu_adjust_colors(work, ax, params);
  if (image.dtype() != DType::uint8) return work.astype(DType::float32, stream);
  return work;
}

Array color_jitter(const Array& image, const ColorJitterOptions& opts, const Stream& stream) {
  jitter_channel_axis(image, opts.channel_axis, "pathology.color_jitter");
  return adjust_colors(image, sample_color_jitter(opts), opts.channel_axis, stream);
}

Array rand_color_jitter(const Array& image, const ColorJitterOptions& opts, const RandomOptions& rand,
                        const Stream& stream) {
  constexpr std::string_view fn = "pathology.rand_color_jitter";
  const int ax = jitter_channel_axis(image, opts.channel_axis, fn);
  sample_color_jitter(opts);  // validates the ranges whatever the draw
  if (image.ndim() == 4 && !rand.whole_batch) {
    Array out;
    for (std::int64_t i = 0; i < image.shape()[0]; ++i) {
      if (!(uniform01(opts.seed, static_cast<std::uint64_t>(i), kDrawApply) < rand.prob)) continue;
      if (!out.valid()) out = image.copy(stream);
      ColorJitterOptions o = opts;
      o.seed = image_seed(opts.seed, i);
      const Array one = image.index(0, i);
      Array slot = out.index(0, i);
      slot.copy_from(adjust_colors(one, sample_color_jitter(o), ax - 1, stream), stream);
    }
    return out.valid() ? std::move(out) : image.share();
  }
  if (uniform01(opts.seed, 0, kDrawApply) < rand.prob) return color_jitter(image, opts, stream);
  return image.share();
}

// ---- intensity -----------------------------------------------------------------------------------

namespace {

Array intensity_map(const Array& image, int op, float a, float b, float lo, float hi, std::string_view fn,
                    const Stream& stream) {
  expect_valid(image, fn, "image");
  expect(image.dtype() != DType::bool_, fn, "image", "must be numeric, got bool");
  const Array in = image.dtype() == DType::float32 ? image.share() : image.astype(DType::float32, stream);
  Array out = Array::empty(in.shape(), DType::float32, in.device(), stream);
  if (in.device().is_cuda()) {
    cuda_intensity(in, out, op, a, b, lo, hi, stream);
  } else {
    cuskimage::detail::cpu_map<float, float>(in, out, [=](float v) { return intensity_px(v, op, a, b, lo, hi); });
  }
  if (image.dtype() != DType::float32) return out.astype(image.dtype(), stream);
  return out;
}

}  // namespace

Array normalize_data(const Array& image, double norm_constant, double min_value, double max_value, NormalizeType type,
                     const Stream& stream) {
  constexpr std::string_view fn = "pathology.normalize_data";
  expect(max_value - min_value != 0.0, fn, "max_value", "must differ from min_value (minimum and maximum intensity "
         "are the same), got ", max_value);
  const float nf = static_cast<float>(norm_constant / (max_value - min_value));
  return intensity_map(image, type == NormalizeType::atan ? kOpAtan : kOpRange, nf, static_cast<float>(min_value), 0,
                       0, fn, stream);
}

Array scale_intensity_range(const Array& image, const ScaleIntensityRangeOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "pathology.scale_intensity_range";
  expect(opts.a_max - opts.a_min != 0.0, fn, "a_max", "must differ from a_min (original intensity range min and max "
         "are the same), got ", opts.a_max);
  const double x = (opts.b_max - opts.b_min) / (opts.a_max - opts.a_min);
  const double y = opts.a_min * x - opts.b_min;
  const float inf = std::numeric_limits<float>::infinity();
  return intensity_map(image, kOpScale, static_cast<float>(x), static_cast<float>(y),
                       opts.clip ? static_cast<float>(opts.b_min) : -inf, opts.clip ? static_cast<float>(opts.b_max) : inf,
                       fn, stream);
}

// ---- zoom ----------------------------------------------------------------------------------------

namespace {

void cpu_zoom(const Array& in, Array& out, int ah, int aw, std::int64_t zh, std::int64_t zw, int interp) {
  Shape pshape;
  std::vector<std::int64_t> istr, ostr;
  for (int d = 0; d < in.ndim(); ++d) {
    if (d == ah || d == aw) continue;
    pshape.push_back(in.shape()[d]);
    istr.push_back(in.strides()[d]);
    ostr.push_back(out.strides()[d]);
  }
  Indexer ii, oi;
  ii.ndim = oi.ndim = static_cast<int>(pshape.size());
  for (int d = 0; d < ii.ndim; ++d) {
    ii.shape[d] = oi.shape[d] = pshape[d];
    ii.stride[d] = istr[d];
    oi.stride[d] = ostr[d];
  }
  const std::int64_t h = in.shape()[ah], w = in.shape()[aw], planes = shape_size(pshape);
  const float* ip = static_cast<const float*>(in.data());
  float* op = static_cast<float*>(out.data());
#pragma omp parallel for schedule(static) collapse(2)
  for (std::int64_t pl = 0; pl < planes; ++pl)
    for (std::int64_t y = 0; y < h; ++y) {
      const Plane P{ip + ii.offset(pl), in.strides()[ah], in.strides()[aw], h, w};
      float* row = op + oi.offset(pl) + y * out.strides()[ah];
      for (std::int64_t x = 0; x < w; ++x) row[x * out.strides()[aw]] = zoom_px(P, y, x, zh, zw, interp);
    }
}

std::array<int, 2> spatial_pair(const Array& image, const std::array<int, 2>& axes, std::string_view fn) {
  const int a0 = normalize_axis(axes[0], image.ndim(), fn, "spatial_axis");
  const int a1 = normalize_axis(axes[1], image.ndim(), fn, "spatial_axis");
  expect(a0 != a1, fn, "spatial_axis", "must name two different axes, got (", axes[0], ", ", axes[1], ")");
  return {a0, a1};
}

}  // namespace

Array zoom(const Array& image, const std::array<double, 2>& zoom_factor, const ZoomOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "pathology.zoom";
  expect_valid(image, fn, "image");
  expect(image.ndim() >= 2, fn, "image", "must have two spatial axes, got ndim ", image.ndim());
  expect(image.dtype() != DType::bool_, fn, "image", "must be numeric, got bool");
  const auto [ah, aw] = spatial_pair(image, opts.spatial_axis, fn);
  for (double z : zoom_factor) expect(std::isfinite(z) && z > 0, fn, "zoom_factor", "must be positive, got ", z);
  const std::int64_t h = image.shape()[ah], w = image.shape()[aw];
  const auto zh = static_cast<std::int64_t>(std::floor(static_cast<double>(h) * zoom_factor[0]));
  const auto zw = static_cast<std::int64_t>(std::floor(static_cast<double>(w) * zoom_factor[1]));
  if (zh == h && zw == w) return image.share();
  const bool in = zh > h && zw > w, out_ = zh < h && zw < w;
  expect(in || out_, fn, "zoom_factor",
         "must expand (or shrink) both spatial axes together, got sizes (", zh, ", ", zw, ") for (", h, ", ", w, ")");
  expect(zh >= 1 && zw >= 1, fn, "zoom_factor", "shrinks an axis to nothing: (", zh, ", ", zw, ")");
  const Array src = image.dtype() == DType::float32 ? image.share() : image.astype(DType::float32, stream);
  Array out = Array::empty(image.shape(), DType::float32, image.device(), stream);
  if (src.device().is_cuda())
    cuda_zoom(src, out, ah, aw, zh, zw, opts.interpolation, stream);
  else
    cpu_zoom(src, out, ah, aw, zh, zw, static_cast<int>(opts.interpolation));
  if (image.dtype() != DType::float32) return out.astype(image.dtype(), stream);
  return out;
}

Array rand_zoom(const Array& image, const RandZoomOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "pathology.rand_zoom";
  expect(opts.min_zoom.size() == opts.max_zoom.size() && (opts.min_zoom.size() == 1 || opts.min_zoom.size() == 2), fn,
         "min_zoom", "and max_zoom must both hold 1 or 2 values, got ", opts.min_zoom.size(), " and ",
         opts.max_zoom.size());
  for (std::size_t i = 0; i < opts.min_zoom.size(); ++i)
    expect(opts.min_zoom[i] <= opts.max_zoom[i], fn, "min_zoom", "must not exceed max_zoom, got ", opts.min_zoom[i],
           " > ", opts.max_zoom[i]);
  if (!(uniform01(opts.seed, 0, kDrawApply) < opts.prob)) return image.share();
  std::array<double, 2> z;
  for (std::size_t i = 0; i < 2; ++i) {
    const std::size_t k = opts.min_zoom.size() == 1 ? 0 : i;
    const double u = uniform01(opts.seed, k, kDrawZoom);
    z[i] = opts.min_zoom[k] + (opts.max_zoom[k] - opts.min_zoom[k]) * u;
  }
  return zoom(image, z, opts.zoom, stream);
}

// ---- flips and quarter turns ------------------------------------------------------------------

namespace {

Array flipped_view(const Array& image, const std::vector<int>& axes, std::string_view fn) {
  std::vector<Slice> sl(static_cast<std::size_t>(image.ndim()));
  std::vector<bool> seen(static_cast<std::size_t>(image.ndim()), false);
  for (int a : axes) {
    const int d = normalize_axis(a, image.ndim(), fn, "spatial_axis");
    expect(!seen[d], fn, "spatial_axis", "repeats axis ", a);
    seen[d] = true;
    sl[d].step = -1;
  }
  return image.slice(std::span<const Slice>(sl.data(), sl.size()));
}

}  // namespace

Array image_flip(const Array& image, const std::vector<int>& spatial_axis, const Stream& stream) {
  constexpr std::string_view fn = "pathology.image_flip";
  expect_valid(image, fn, "image");
  return flipped_view(image, spatial_axis, fn).copy(stream);
}

Array image_rotate_90(const Array& image, int k, const std::array<int, 2>& spatial_axis, const Stream& stream) {
  constexpr std::string_view fn = "pathology.image_rotate_90";
  expect_valid(image, fn, "image");
  expect(image.ndim() >= 2, fn, "image", "must have at least 2 axes, got ndim ", image.ndim());
  const auto [a0, a1] = spatial_pair(image, spatial_axis, fn);
  k = ((k % 4) + 4) % 4;
  if (k == 0) return image.copy(stream);
  if (k == 2) return flipped_view(image, {a0, a1}, fn).copy(stream);
  std::vector<int> perm(static_cast<std::size_t>(image.ndim()));
  for (int d = 0; d < image.ndim(); ++d) perm[d] = d;
  std::swap(perm[a0], perm[a1]);
  if (k == 1) return flipped_view(image, {a1}, fn).transpose(perm).copy(stream);
  return flipped_view(image.transpose(perm), {a1}, fn).copy(stream);
}

Array rand_image_flip(const Array& image, const std::vector<int>& spatial_axis, const RandFlipOptions& opts,
                      const Stream& stream) {
  expect_valid(image, "pathology.rand_image_flip", "image");
  if (uniform01(opts.seed, 0, kDrawApply) < opts.prob) return image_flip(image, spatial_axis, stream);
  flipped_view(image, spatial_axis, "pathology.rand_image_flip");  // validates the axes either way
  return image.share();
}

Array rand_image_rotate_90(const Array& image, const std::array<int, 2>& spatial_axis, const RandRotate90Options& opts,
                           const Stream& stream) {
  constexpr std::string_view fn = "pathology.rand_image_rotate_90";
  expect_valid(image, fn, "image");
  expect(opts.max_k >= 1, fn, "max_k", "must be at least 1, got ", opts.max_k);
  spatial_pair(image, spatial_axis, fn);
  // np.random.randint(max_k) + 1, drawn before the coin as cuCIM does.
  const int k = std::min(opts.max_k - 1, static_cast<int>(uniform01(opts.seed, 0, kDrawRotK) * opts.max_k)) + 1;
  if (uniform01(opts.seed, 0, kDrawApply) < opts.prob) return image_rotate_90(image, k, spatial_axis, stream);
  return image.share();
}

}  // namespace cuskimage::pathology
