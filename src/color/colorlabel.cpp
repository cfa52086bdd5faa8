// skimage.color.label2rgb (overlay and avg) and its CPU backend.
//
// scikit-image ranks the distinct label values in increasing order; the background label (when
// present) maps to 0 (bg_color) and the others to 1, 2, ... (colour (m - 1) mod ncolors). Both
// backends compute each pixel's rank among the sorted distinct values of the whole image, so the
// colours match scikit-image's for any label values.
//
// With bg_color None scikit-image shows the image where the *mapped* label equals
// bg_label - min(label.min(), bg_label) (it compares the array it has just overwritten with the
// mapped labels); with labels >= 0 and bg_label 0 those are the background pixels. Both backends
// reproduce that rule.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/color.hpp"
#include "cuskimage/util.hpp"
#include "src/color/common.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/elementwise.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::color {

namespace detail {

using cuskimage::detail::for_each_row;
using cuskimage::detail::Layout;
using cuskimage::detail::layout_of;
using cuskimage::detail::Types;

void cpu_label_ranks(const Array& labels, std::int64_t bg_label, Array& ranks, Array& bg_rank) {
  std::vector<std::int64_t> v = labels.to_vector<std::int64_t>();
  std::vector<std::int64_t> u = v;
  std::sort(u.begin(), u.end());
  u.erase(std::unique(u.begin(), u.end()), u.end());
  std::int64_t* r = ranks.data<std::int64_t>();  // contiguous, C order as labels
#pragma omp parallel for schedule(static) if (v.size() > 32768)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(v.size()); ++i)
    r[i] = std::lower_bound(u.begin(), u.end(), v[i]) - u.begin();
  const auto it = std::lower_bound(u.begin(), u.end(), bg_label);
  const bool present = it != u.end() && *it == bg_label;
  std::int64_t* b = bg_rank.data<std::int64_t>();
  b[0] = present ? (it - u.begin()) : -1;
  b[1] = present ? bg_label - std::min(u.empty() ? bg_label : u.front(), bg_label) : -1;
}

/// scikit-image's mapped label of a rank: 0 for the background, else 1-based among the others.
inline std::int64_t mapped_label(std::int64_t rank, std::int64_t bg_rank) {
  if (bg_rank < 0) return rank + 1;
  if (rank == bg_rank) return 0;
  return rank < bg_rank ? rank + 1 : rank;
}

void cpu_label_overlay(const Array& ranks, const Array& bg_rank, const Array& palette, const Array& image,
                       Array& out, const OverlayParams& p) {
  const std::int64_t* r = ranks.data<std::int64_t>();
  const std::int64_t bg = bg_rank.data<std::int64_t>()[0];
  const std::int64_t keep_m = bg_rank.data<std::int64_t>()[1];
  const double* pal = palette.data<double>();
  double* o = out.data<double>();  // contiguous (..., 3)
  const std::int64_t n = ranks.size();
  auto color_of = [&](std::int64_t i) {
    const std::int64_t m = mapped_label(r[i], bg);
    return m == 0 ? pal : pal + 3 * (1 + (m - 1) % p.n_colors);
  };
  if (!image.valid()) {
#pragma omp parallel for schedule(static) if (n > 32768)
    for (std::int64_t i = 0; i < n; ++i) {
      const double* c = color_of(i);
      const bool keep = p.keep_image_on_bg && mapped_label(r[i], bg) == keep_m;
      for (int k = 0; k < 3; ++k) o[3 * i + k] = keep ? 0.0 : c[k] * p.alpha + 0.0 * (1 - p.alpha);
    }
    return;
  }
  cuskimage::detail::dispatch<Types<float, double>>(image.dtype(), "color.label2rgb", [&]<class T>() {
    const Array img_px = image.index(image.ndim() - 1, 0);
    const Layout L = layout_of({&ranks, &img_px});  // ranks: contiguous, so `first` is the C-order index
    const std::int64_t cs = image.strides().back();
    const T* ip = static_cast<const T*>(image.data());
    const std::int64_t si = L.shape.empty() ? 1 : L.strides[1].back();
    const T one_minus_alpha = static_cast<T>(1 - p.alpha);
    for_each_row<2>(L, [&](std::int64_t first, std::int64_t cnt, const std::int64_t* off) {
      for (std::int64_t j = 0; j < cnt; ++j) {
        const std::int64_t i = first + j;
        const T* px = ip + off[1] + j * si;
        const double* c = color_of(i);
        const bool keep = p.keep_image_on_bg && mapped_label(r[i], bg) == keep_m;
        for (int k = 0; k < 3; ++k) {
          const T v = px[k * cs];
          o[3 * i + k] = keep ? double(v) : c[k] * p.alpha + double(v * one_minus_alpha);
        }
      }
    });
  });
}

void cpu_label_sums(const Array& ranks, const Array& image, Array& sums) {
  const std::int64_t* r = ranks.data<std::int64_t>();
  double* s = sums.data<double>();
  cuskimage::detail::dispatch<Types<std::uint8_t, std::uint16_t, float, double>>(
      image.dtype(), "color.label2rgb", [&]<class T>() {
        const Array img_px = image.index(image.ndim() - 1, 0);
        const Layout L = layout_of({&ranks, &img_px});
        const std::int64_t cs = image.strides().back();
        const T* ip = static_cast<const T*>(image.data());
        const std::int64_t si = L.shape.empty() ? 1 : L.strides[1].back();
        // Sequential: the per-label sums are shared.
        const std::int64_t inner = L.shape.empty() ? 1 : L.shape.back();
        const std::int64_t rows = inner == 0 ? 0 : L.size() / inner;
        cuskimage::detail::Indexer outer = L.indexer(1);
        if (outer.ndim > 0) outer.ndim -= 1;
        for (std::int64_t row = 0; row < rows; ++row) {
          const T* base = ip + outer.offset(row);
          for (std::int64_t j = 0; j < inner; ++j) {
            const std::int64_t i = row * inner + j;
            const T* px = base + j * si;
            double* d = s + 4 * r[i];
            for (int k = 0; k < 3; ++k) d[k] += double(px[k * cs]);
            d[3] += 1;
          }
        }
      });
}

void cpu_label_avg(const Array& ranks, const Array& bg_rank, const Array& sums, const double bg[3], Array& out) {
  const std::int64_t* r = ranks.data<std::int64_t>();
  const std::int64_t b = bg_rank.data<std::int64_t>()[0];
  const double* s = sums.data<double>();
  cuskimage::detail::dispatch<Types<std::uint8_t, std::uint16_t, float, double>>(
      out.dtype(), "color.label2rgb", [&]<class T>() {
        T* o = out.data<T>();
        const std::int64_t n = ranks.size();
#pragma omp parallel for schedule(static) if (n > 32768)
        for (std::int64_t i = 0; i < n; ++i)
          for (int k = 0; k < 3; ++k) {
            const double v = r[i] == b ? bg[k] : s[4 * r[i] + k] / s[4 * r[i] + 3];
            o[3 * i + k] = cuskimage::detail::convert<T>(v);
          }
      });
}

}  // namespace detail

namespace {

constexpr const char* kFn = "color.label2rgb";

const std::vector<Color>& default_colors() {
  static const std::vector<Color> c = {"red",   "blue", "yellow", "magenta", "green",
                                       "indigo", "darkorange", "cyan", "pink", "yellowgreen"};
  return c;
}

/// int64 labels (C-order contiguous) and their ranks.
struct Ranked {
  Array labels, ranks, bg_rank;
};

Ranked rank_labels(const Array& label, std::int64_t bg_label, const Stream& s) {
  cuskimage::detail::expect_valid(label, kFn, "label");
  const DType dt = label.dtype();
  cuskimage::detail::expect(dt != DType::float32 && dt != DType::float64, kFn, "label",
                            "must have an integer or bool dtype, got ", dtype_name(dt));
  Ranked r;
  r.labels = (dt == DType::int64 ? label.share() : label.astype(DType::int64, s)).contiguous(s);
  r.ranks = Array::empty(label.shape(), DType::int64, label.device(), s);
  r.bg_rank = Array::empty({2}, DType::int64, label.device(), s);
  cuskimage::detail::on_backend(
      label, s, [&] { detail::cpu_label_ranks(r.labels, bg_label, r.ranks, r.bg_rank); },
      [&](const Stream& cs) { detail::cuda_label_ranks(r.labels, bg_label, r.ranks, r.bg_rank, cs); });
  return r;
}

Array overlay(const Array& label, const Array* image_in, const Label2RgbOptions& o, const Stream& s) {
  const std::vector<Color>& colors = o.colors.empty() ? default_colors() : o.colors;
  Array image;  // (..., 3) float view, or invalid
  double alpha = o.alpha;
  if (image_in) {
    const Array& img = *image_in;
    const DType ft = detail::float_type(img.dtype());
    Array f = ft == DType::float32 ? util::img_as_float32(img, {}, s) : util::img_as_float64(img, {}, s);
    if (img.ndim() > label.ndim()) {
      Array sat = Array::empty(f.shape(), ft, f.device(), s);
      detail::PixelParams p;
      p.factor = o.saturation;
      detail::pixel_into(detail::Op::saturate, p, f, sat, s);
      f = std::move(sat);
    } else {
      Shape sh = f.shape();
      sh.push_back(3);
      Strides st = f.strides();
      st.push_back(0);
      f = f.as_strided(sh, st);  // gray2rgb as a zero-stride view
    }
    if (o.image_alpha != 1.0) {
      // image * image_alpha + (1 - image_alpha), in the image's float dtype.
      Array blended = Array::empty(f.shape(), ft, f.device(), s);
      detail::PixelParams p;
      for (int i = 0; i < 3; ++i) p.m[i][i] = o.image_alpha;
      for (int i = 0; i < 3; ++i) p.post[i] = 1 - o.image_alpha;
      detail::pixel_into(detail::Op::linear, p, f, blended, s);
      f = std::move(blended);
    }
    image = std::move(f);
  } else {
    alpha = 1.0;
  }
  if (label.size() == 0) {
    if (image.valid()) return image.contiguous(s);
    Shape sh = label.shape();
    sh.push_back(3);
    return Array::zeros(sh, DType::float64, label.device(), s);
  }
  Ranked r = rank_labels(label, o.bg_label, s);
  // Palette: row 0 the background colour, rows 1.. the colours.
  std::vector<double> pal;
  const Rgb bg = o.bg_color ? o.bg_color->rgb : Rgb{0, 0, 0};
  pal.insert(pal.end(), bg.begin(), bg.end());
  for (const Color& c : colors) pal.insert(pal.end(), c.rgb.begin(), c.rgb.end());
  const Array palette =
      Array::from_vector(pal, {static_cast<std::int64_t>(colors.size()) + 1, 3}).to(label.device(), s);
  Shape sh = label.shape();
  sh.push_back(3);
  Array out = Array::empty(sh, DType::float64, label.device(), s);
  const detail::OverlayParams p{.alpha = alpha,
                                .keep_image_on_bg = !o.bg_color.has_value(),
                                .n_colors = static_cast<std::int64_t>(colors.size())};
  cuskimage::detail::on_backend(
      label, s, [&] { detail::cpu_label_overlay(r.ranks, r.bg_rank, palette, image, out, p); },
      [&](const Stream& cs) { detail::cuda_label_overlay(r.ranks, r.bg_rank, palette, image, out, p, cs); });
  // Keep the host-side palette alive until the device has read it (staged copy; `to` returns after
  // the source is copied into pinned memory, so nothing to do here).
  return out;
}

Array average(const Array& label, const Array& image_in, const Label2RgbOptions& o, const Stream& s) {
  cuskimage::detail::expect(o.bg_color.has_value(), kFn, "bg_color", "must be a colour for kind 'avg'");
  const DType dt = image_in.dtype();
  const bool direct = detail::direct_dtype(dt);
  Array img = direct ? image_in.share() : image_in.astype(DType::float64, s);
  if (img.ndim() == label.ndim()) {
    Shape sh = img.shape();
    sh.push_back(3);
    Strides st = img.strides();
    st.push_back(0);
    img = img.as_strided(sh, st);
  }
  Shape sh = label.shape();
  sh.push_back(3);
  Array out = Array::zeros(sh, img.dtype(), label.device(), s);
  if (label.size() == 0) return direct ? std::move(out) : out.astype(dt, s);
  Ranked r = rank_labels(label, o.bg_label, s);
  const double bg[3] = {o.bg_color->rgb[0], o.bg_color->rgb[1], o.bg_color->rgb[2]};
  cuskimage::detail::on_backend(
      label, s,
      [&] {
        const std::int64_t k = r.ranks.size() == 0 ? 0 : *std::max_element(r.ranks.data<std::int64_t>(),
                                                                            r.ranks.data<std::int64_t>() + r.ranks.size()) + 1;
        Array sums = Array::zeros({k, 4}, DType::float64);
        detail::cpu_label_sums(r.ranks, img, sums);
        detail::cpu_label_avg(r.ranks, r.bg_rank, sums, bg, out);
      },
      [&](const Stream& cs) {
        // The number of distinct labels sizes the sums: the one host synchronisation.
        const std::int64_t k = detail::cuda_label_count(r.ranks, cs);
        Array sums = Array::zeros({k, 4}, DType::float64, label.device(), s);
        detail::cuda_label_sums(r.ranks, img, sums, cs);
        detail::cuda_label_avg(r.ranks, r.bg_rank, sums, bg, out, cs);
      });
  return direct ? std::move(out) : out.astype(dt, s);
}

Array run(const Array& label, const Array* image, const Label2RgbOptions& o, const Stream& s) {
  cuskimage::detail::expect_valid(label, kFn, "label");
  Array img;
  if (image) {
    cuskimage::detail::expect_valid(*image, kFn, "image");
    cuskimage::detail::expect_same_device(label, *image, kFn, "label", "image");
    const int ax = cuskimage::detail::normalize_axis(o.channel_axis, image->ndim(), kFn, "channel_axis");
    img = detail::move_axis_last(*image, ax);
    const bool same_prefix =
        img.ndim() >= label.ndim() && std::equal(label.shape().begin(), label.shape().end(), img.shape().begin());
    cuskimage::detail::expect(same_prefix && img.ndim() <= label.ndim() + 1, kFn, "image",
                              "and 'label' must be the same shape, got ", shape_str(image->shape()), " and ",
                              shape_str(label.shape()));
    cuskimage::detail::expect(img.ndim() == label.ndim() || img.shape().back() == 3, kFn, "image",
                              "must be RGB (3 channels along channel_axis), got shape ", shape_str(image->shape()));
  }
  Array rgb;
  if (o.kind == Label2RgbKind::overlay) {
    rgb = overlay(label, image ? &img : nullptr, o, s);
  } else {
    cuskimage::detail::expect(image != nullptr, kFn, "image", "is required for kind 'avg'");
    rgb = average(label, img, o, s);
  }
  const int out_ax = cuskimage::detail::normalize_axis(o.channel_axis, rgb.ndim(), kFn, "channel_axis");
  return detail::move_last_to(rgb, out_ax);
}

}  // namespace

Array label2rgb(const Array& label, const Label2RgbOptions& opts, const Stream& stream) {
  return run(label, nullptr, opts, stream);
}

Array label2rgb(const Array& label, const Array& image, const Label2RgbOptions& opts, const Stream& stream) {
  return run(label, &image, opts, stream);
}

}  // namespace cuskimage::color
