// feature.peak_local_max / corner_peaks: argument handling and the CPU backend (scikit-image 0.26's
// steps, in its order; see include/cuskimage/feature/peak.hpp for the semantics). The CUDA backend
// is kernels/feature/peak.cu; corner_peaks' final suppression runs on the host for both (the list
// of peaks is small).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cuskimage/feature.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/feature/peak.hpp"

namespace cuskimage::feature {
namespace {

using cuskimage::detail::expect;
using Coords = std::vector<std::int64_t>;  // N rows of ndim, row-major
using Types = cuskimage::detail::Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t,
                                       std::int32_t, std::uint64_t, std::int64_t, float, double>;

constexpr std::string_view kPlm = "feature.peak_local_max";

/// The threshold's comparison type: NumPy compares a float32 image with a Python float in float32.
template <class T>
using Cmp = std::conditional_t<std::is_same_v<T, float>, float, double>;

/// scikit-image sorts by -intensity in the image's dtype: integer negation wraps.
template <class T>
T neg(T v) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(U{0} - static_cast<U>(v)));
  } else {
    return -v;
  }
}

struct Geometry {
  Shape shape;
  Strides st;  // contiguous strides in elements
  std::int64_t size = 0;
  explicit Geometry(Shape s) : shape(std::move(s)), st(contiguous_strides(shape)) {
    size = 1;
    for (auto n : shape) size *= n;
  }
  void unravel(std::int64_t i, std::int64_t* c) const {
    for (int a = static_cast<int>(shape.size()) - 1; a >= 0; --a) {
      c[a] = i % shape[a];
      i /= shape[a];
    }
  }
};

/// Minkowski distance test between integer offsets: d < r (strict, ensure_spacing's cdist test)
/// or d <= r (inclusive, corner_peaks' KD-tree ball, compared in p-th powers as the tree does).
bool within(const std::int64_t* d, int nd, double r, double p, bool strict) {
  double s = 0;
  if (std::isinf(p)) {
    for (int a = 0; a < nd; ++a) s = std::max(s, static_cast<double>(std::llabs(d[a])));
    return strict ? s < r : s <= r;
  }
  for (int a = 0; a < nd; ++a) {
    const double x = static_cast<double>(std::llabs(d[a]));
    s += p == 1 ? x : p == 2 ? x * x : std::pow(x, p);
  }
  if (!strict) return s <= (p == 1 ? r : p == 2 ? r * r : std::pow(r, p));
  const double dist = p == 1 ? s : p == 2 ? std::sqrt(s) : std::pow(s, 1.0 / p);
  return dist < r;
}

/// Greedy in the given order: keep a point unless one kept before is within r. Candidates are
/// points of `g`'s grid; a dense bitmap of kept points is scanned over the (2r+1)^ndim window.
Coords greedy_spacing(const Coords& pts, const Geometry& g, double r, double p, bool strict,
                      std::int64_t max_out) {
  const int nd = static_cast<int>(g.shape.size());
  const std::int64_t n = static_cast<std::int64_t>(pts.size()) / nd;
  const std::int64_t w = static_cast<std::int64_t>(std::floor(r));
  std::vector<std::uint8_t> kept(static_cast<std::size_t>(g.size), 0);
  Coords out;
  std::vector<std::int64_t> d(nd), lo(nd), hi(nd), q(nd);
  for (std::int64_t i = 0; i < n && static_cast<std::int64_t>(out.size()) / nd < max_out; ++i) {
    const std::int64_t* c = &pts[i * nd];
    bool hit = false;
    for (int a = 0; a < nd; ++a) {
      lo[a] = std::max<std::int64_t>(0, c[a] - w);
      hi[a] = std::min<std::int64_t>(g.shape[a] - 1, c[a] + w);
      q[a] = lo[a];
    }
    while (!hit) {  // odometer over the clipped window
      std::int64_t lin = 0;
      for (int a = 0; a < nd; ++a) {
        lin += q[a] * g.st[a];
        d[a] = q[a] - c[a];
      }
      if (kept[lin] && within(d.data(), nd, r, p, strict)) hit = true;
      int a = nd - 1;
      while (a >= 0 && q[a] == hi[a]) q[a] = lo[a], --a;
      if (a < 0) break;
      ++q[a];
    }
    if (hit) continue;
    std::int64_t lin = 0;
    for (int a = 0; a < nd; ++a) lin += c[a] * g.st[a];
    kept[lin] = 1;
    out.insert(out.end(), c, c + nd);
  }
  return out;
}

/// _get_high_intensity_peaks: candidates by a stable sort of -intensity, the spacing greedy for
/// min_distance > 1, at most num_peaks.
template <class T>
Coords high_intensity_peaks(const T* img, const std::uint8_t* mask, const Geometry& g, std::int64_t num_peaks,
                            std::int64_t min_distance, double p_norm) {
  const int nd = static_cast<int>(g.shape.size());
  std::vector<std::int64_t> idx;
  for (std::int64_t i = 0; i < g.size; ++i)
    if (mask[i]) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(), [&](std::int64_t a, std::int64_t b) { return neg(img[a]) < neg(img[b]); });
  Coords c(idx.size() * nd);
  for (std::size_t k = 0; k < idx.size(); ++k) g.unravel(idx[k], &c[k * nd]);
  if (min_distance > 1) c = greedy_spacing(c, g, static_cast<double>(min_distance), p_norm, true, num_peaks);
  if (static_cast<std::int64_t>(c.size()) / nd > num_peaks) c.resize(static_cast<std::size_t>(num_peaks * nd));
  return c;
}

/// scipy's binary_opening with the cross structure, border 0.
std::vector<std::uint8_t> opening(const std::vector<std::uint8_t>& m, const Geometry& g) {
  const int nd = static_cast<int>(g.shape.size());
  std::vector<std::int64_t> c(nd);
  auto morph = [&](const std::vector<std::uint8_t>& in, bool erode) {
    std::vector<std::uint8_t> out(in.size());
    for (std::int64_t i = 0; i < g.size; ++i) {
      g.unravel(i, c.data());
      bool v = in[i] != 0;
      for (int a = 0; a < nd; ++a)
        for (int s = -1; s <= 1; s += 2) {
          const std::int64_t q = c[a] + s;
          const bool nb = q >= 0 && q < g.shape[a] && in[i + s * g.st[a]];
          v = erode ? (v && nb) : (v || nb);
        }
      out[i] = v;
    }
    return out;
  };
  return morph(morph(m, true), false);
}

/// scipy's maximum_filter with mode 'nearest' (window origin size // 2): the box separably, a
/// footprint directly. Every dtype (ndimage::maximum_filter covers fewer).
template <class T>
std::vector<T> max_filter_nearest(const T* img, const Geometry& g, const Array& footprint, std::int64_t box) {
  const int nd = static_cast<int>(g.shape.size());
  std::vector<std::int64_t> c(nd), q(nd);
  auto clamped = [&](std::int64_t a, std::int64_t v) { return std::clamp<std::int64_t>(v, 0, g.shape[a] - 1); };
  if (!footprint.valid()) {
    std::vector<T> cur(img, img + g.size), nxt(cur.size());
    for (int a = 0; a < nd; ++a) {
      for (std::int64_t i = 0; i < g.size; ++i) {
        g.unravel(i, c.data());
        const std::int64_t base = i - c[a] * g.st[a];
        T m = cur[base + clamped(a, c[a] - box / 2) * g.st[a]];
        for (std::int64_t k = 1; k < box; ++k) m = std::max(m, cur[base + clamped(a, c[a] - box / 2 + k) * g.st[a]]);
        nxt[i] = m;
      }
      cur.swap(nxt);
    }
    return cur;
  }
  const Array& f = footprint;  // on the host, bool, contiguous: compute() prepared it once
  const Geometry fg(f.shape());
  std::vector<std::int64_t> offs;
  for (std::int64_t k = 0; k < fg.size; ++k) {
    if (!f.data<bool>()[k]) continue;
    fg.unravel(k, q.data());
    for (int a = 0; a < nd; ++a) offs.push_back(q[a] - fg.shape[a] / 2);
  }
  std::vector<T> out(static_cast<std::size_t>(g.size));
  for (std::int64_t i = 0; i < g.size; ++i) {
    g.unravel(i, c.data());
    bool first = true;
    T m{};
    for (std::size_t k = 0; k < offs.size(); k += nd) {
      std::int64_t lin = 0;
      for (int a = 0; a < nd; ++a) lin += clamped(a, c[a] + offs[k + a]) * g.st[a];
      if (first || img[lin] > m) m = img[lin];
      first = false;
    }
    out[i] = m;
  }
  return out;
}

/// _get_peak_mask: pixels equal to their nearest-mode maximum filter and above the threshold.
template <class T>
std::vector<std::uint8_t> peak_mask(const T* img, const Geometry& g, const Array& footprint,
                                    std::int64_t box, Cmp<T> thr, const std::vector<std::uint8_t>* lmask) {
  std::vector<std::uint8_t> out(static_cast<std::size_t>(g.size));
  const bool single = footprint.valid() ? footprint.size() == 1 : box == 1;
  if (single || g.size == 1) {
    for (std::int64_t i = 0; i < g.size; ++i) out[i] = static_cast<Cmp<T>>(img[i]) > thr;
    return out;
  }
  const std::vector<T> mx = max_filter_nearest(img, g, footprint, box);
  const T* m = mx.data();
  bool trivial = true;
  for (std::int64_t i = 0; i < g.size; ++i) {
    out[i] = img[i] == m[i];
    if (!out[i] && (!lmask || (*lmask)[i])) trivial = false;
  }
  if (trivial) {
    std::fill(out.begin(), out.end(), 0);
    if (lmask) {
      const auto op = opening(*lmask, g);
      for (std::int64_t i = 0; i < g.size; ++i) out[i] = (*lmask)[i] != op[i];
    }
  }
  for (std::int64_t i = 0; i < g.size; ++i) out[i] = out[i] && static_cast<Cmp<T>>(img[i]) > thr;
  return out;
}

/// Zeroes the first and last width pixels along every axis.
template <class V>
void exclude_border(V* v, const Geometry& g, const std::vector<std::int64_t>& widths) {
  const int nd = static_cast<int>(g.shape.size());
  std::vector<std::int64_t> c(nd);
  for (std::int64_t i = 0; i < g.size; ++i) {
    g.unravel(i, c.data());
    for (int a = 0; a < nd; ++a)
      if (c[a] < widths[a] || c[a] >= g.shape[a] - widths[a]) {
        v[i] = 0;
        break;
      }
  }
}

using Plan = detail::PeakPlan;


template <class T>
Coords by_label(const T* img, const Geometry& g, const std::vector<std::int64_t>& labels, const Plan& plan,
                const PeakLocalMaxOptions& o, Cmp<T> thr, bool* any_label) {
  const int nd = static_cast<int>(g.shape.size());
  std::vector<std::int64_t> inner = labels;
  exclude_border(inner.data(), g, plan.border);
  // find_objects: per-label bounding boxes (labels >= 1) of the border-excluded labels.
  std::int64_t nlab = 0;
  for (auto v : inner) nlab = std::max(nlab, v);
  std::vector<std::int64_t> lo(static_cast<std::size_t>(nlab * nd), std::numeric_limits<std::int64_t>::max());
  std::vector<std::int64_t> hi(static_cast<std::size_t>(nlab * nd), -1);
  std::vector<std::int64_t> c(nd);
  for (std::int64_t i = 0; i < g.size; ++i) {
    if (inner[i] <= 0) continue;
    g.unravel(i, c.data());
    for (int a = 0; a < nd; ++a) {
      auto& l = lo[(inner[i] - 1) * nd + a];
      auto& h = hi[(inner[i] - 1) * nd + a];
      l = std::min(l, c[a]);
      h = std::max(h, c[a]);
    }
  }
  const T bg = std::numeric_limits<T>::lowest();
  Coords all;
  for (std::int64_t l = 0; l < nlab; ++l) {
    if (hi[l * nd] < 0) continue;
    *any_label = true;
    Shape rs(nd);
    for (int a = 0; a < nd; ++a) rs[a] = hi[l * nd + a] - lo[l * nd + a] + 1;
    const Geometry rg(rs);
    std::vector<T> obj(static_cast<std::size_t>(rg.size));
    std::vector<std::uint8_t> lm(static_cast<std::size_t>(rg.size));
    for (std::int64_t k = 0; k < rg.size; ++k) {
      rg.unravel(k, c.data());
      std::int64_t lin = 0;
      for (int a = 0; a < nd; ++a) lin += (c[a] + lo[l * nd + a]) * g.st[a];
      lm[k] = labels[lin] == l + 1;
      obj[k] = lm[k] ? img[lin] : bg;
    }
    const auto mask = peak_mask(obj.data(), rg, o.footprint, plan.box, thr, &lm);
    Coords pk = high_intensity_peaks(obj.data(), mask.data(), rg, plan.per_label, o.min_distance, o.p_norm);
    for (std::size_t k = 0; k < pk.size(); ++k) pk[k] += lo[l * nd + static_cast<std::int64_t>(k % nd)];
    all.insert(all.end(), pk.begin(), pk.end());
  }
  if (static_cast<std::int64_t>(all.size()) / nd > plan.num_peaks) {
    std::vector<std::uint8_t> out(static_cast<std::size_t>(g.size), 0);
    for (std::size_t k = 0; k < all.size(); k += nd) {
      std::int64_t lin = 0;
      for (int a = 0; a < nd; ++a) lin += all[k + a] * g.st[a];
      out[lin] = 1;
    }
    all = high_intensity_peaks(img, out.data(), g, plan.num_peaks, o.min_distance, o.p_norm);
  }
  return all;
}

Plan make_plan(const Array& image, const PeakLocalMaxOptions& o, std::string_view fn) {
  const int nd = image.ndim();
  expect(o.min_distance >= 0, fn, "min_distance", "must be non-negative, got ", o.min_distance);
  expect(o.p_norm >= 1, fn, "p_norm", "must be in [1, inf], got ", o.p_norm);
  Plan p;
  p.min_distance = o.min_distance;
  p.p_norm = o.p_norm;
  p.threshold_abs = o.threshold_abs;
  p.threshold_rel = o.threshold_rel;
  if (!o.exclude_border.widths) {
    p.border.assign(nd, o.min_distance);
  } else {
    const auto& w = *o.exclude_border.widths;
    expect(w.size() == 1 || static_cast<int>(w.size()) == nd, fn, "exclude_border",
           "should have the same length as the dimensionality of the image (", nd, "), got ", w.size(), " values");
    for (auto x : w) expect(x >= 0, fn, "exclude_border", "cannot be a negative value, got ", x);
    p.border = w.size() == 1 ? std::vector<std::int64_t>(nd, w[0]) : w;
  }
  p.box = 2 * o.min_distance + 1;
  if (o.num_peaks) {
    expect(*o.num_peaks >= 0, fn, "num_peaks", "must be non-negative, got ", *o.num_peaks);
    p.num_peaks = *o.num_peaks;
  }
  if (o.num_peaks_per_label) {
    expect(*o.num_peaks_per_label >= 0, fn, "num_peaks_per_label", "must be non-negative, got ",
           *o.num_peaks_per_label);
    p.per_label = *o.num_peaks_per_label;
  }
  if (o.footprint.valid())
    expect(o.footprint.ndim() == nd, fn, "footprint", "must have the image's ndim (", nd, "), got ",
           o.footprint.ndim(), "-D");
  if (o.labels.valid()) {
    cuskimage::detail::expect_same_shape(image, o.labels, fn, "image", "labels");
    const DType lt = o.labels.dtype();
    expect(lt == DType::bool_ || (is_integer(lt) && lt != DType::uint64), fn, "labels",
           "must be an integer (or bool) label image castable to int64, got ", dtype_name(lt));
  }
  return p;
}

template <class T>
Coords run_host(const Array& c, const PeakLocalMaxOptions& o, const Plan& plan, int* ncols) {
  const T* v = c.data<T>();
  const Geometry g(c.shape());
  const int nd = c.ndim();
  *ncols = nd;
  if (g.size == 0) return {};
  const auto [mn, mx] = std::minmax_element(v, v + g.size);
  const Cmp<T> thr = detail::peak_threshold<Cmp<T>>(plan, static_cast<Cmp<T>>(*mn), static_cast<Cmp<T>>(*mx));
  if (!o.labels.valid()) {
    auto mask = peak_mask(v, g, o.footprint, plan.box, thr, nullptr);
    exclude_border(mask.data(), g, plan.border);
    return high_intensity_peaks(v, mask.data(), g, plan.num_peaks, o.min_distance, o.p_norm);
  }
  const std::int64_t* lp = o.labels.data<std::int64_t>();
  bool any_label = false;
  Coords r = by_label(v, g, std::vector<std::int64_t>(lp, lp + g.size), plan, o, thr, &any_label);
  if (!any_label) *ncols = 2;  // scikit-image's np.empty((0, 2)) whatever the ndim
  return r;
}

/// The host backend: image, labels and footprint brought to the host once, on the caller's stream
/// (a device-to-host copy waits for that stream), as the contiguous dtypes run_host reads.
Coords compute(const Array& image, const PeakLocalMaxOptions& o, std::string_view fn, int* ncols,
               const Stream& stream) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() >= 1, fn, "image", "must have at least one dimension, got a 0-D array");
  expect(image.dtype() != DType::bool_, fn, "image", "must be numeric (scikit-image negates the intensities), got bool");
  const Plan plan = make_plan(image, o, fn);
  const Array host = image.to(Device::cpu(), stream).contiguous();
  PeakLocalMaxOptions h{.min_distance = o.min_distance, .threshold_abs = o.threshold_abs,
                        .threshold_rel = o.threshold_rel, .exclude_border = o.exclude_border,
                        .num_peaks = o.num_peaks, .num_peaks_per_label = o.num_peaks_per_label, .p_norm = o.p_norm};
  if (o.labels.valid()) h.labels = o.labels.to(Device::cpu(), stream).astype(DType::int64).contiguous();
  if (o.footprint.valid()) h.footprint = o.footprint.to(Device::cpu(), stream).astype(DType::bool_).contiguous();
  Coords out;
  cuskimage::detail::dispatch<Types>(image.dtype(), fn,
                                     [&]<class T>() { out = run_host<T>(host, h, plan, ncols); });
  return out;
}

Array to_array(const Coords& c, int ncols, Device dev, const Stream& stream) {
  const std::int64_t n = static_cast<std::int64_t>(c.size()) / ncols;
  Array a = Array::empty({n, ncols}, DType::int64);
  if (!c.empty()) std::memcpy(a.data(), c.data(), c.size() * sizeof(std::int64_t));
  return dev.is_cpu() ? std::move(a) : a.to(dev, stream);
}

/// The CUDA backend for 1-D..3-D device images; an invalid Array where the host must do it.
Array device_peaks(const Array& image, const PeakLocalMaxOptions& o, const Stream& stream) {
  const Plan plan = make_plan(image, o, kPlm);
  if (image.ndim() > 3 || image.size() == 0) return {};
  if (o.labels.valid()) {
    const DType lt = o.labels.dtype();
    if (lt == DType::int64 || lt == DType::uint32) return {};  // labels beyond int32: the host's
  } else {
    const DType t = image.dtype();  // ndimage::maximum_filter's dtypes; the rest run on the host
    if (t != DType::uint8 && t != DType::uint16 && t != DType::int32 && t != DType::float32 && t != DType::float64)
      return {};
  }
  Array out;
  cuskimage::detail::dispatch<Types>(image.dtype(), kPlm, [&]<class T>() {
    cuskimage::detail::on_backend(
        image, stream, [] {},
        [&](auto) {
          const Array c = image.contiguous(stream);
          const Array lab = o.labels.valid()
                                ? o.labels.to(image.device(), stream).astype(DType::int32, stream).contiguous(stream)
                                : Array();
          out = detail::cuda_peak_local_max<T>(c, lab, o.footprint, plan, stream);
        });
  });
  return out;
}

}  // namespace

Array peak_local_max(const Array& image, const PeakLocalMaxOptions& opts, const Stream& stream) {
  if (!image.device().is_cpu() && image.valid() && image.dtype() != DType::bool_) {
    Array d = device_peaks(image, opts, stream);
    if (d.valid()) return d;
  }
  int ncols = 0;
  const Coords c = compute(image, opts, kPlm, &ncols, stream);
  return to_array(c, ncols, image.device(), stream);
}

Array corner_peaks(const Array& image, const CornerPeaksOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "feature.corner_peaks";
  PeakLocalMaxOptions p;
  p.min_distance = opts.min_distance;
  p.threshold_abs = opts.threshold_abs;
  p.threshold_rel = opts.threshold_rel;
  p.exclude_border = opts.exclude_border;
  p.footprint = opts.footprint.share();
  p.labels = opts.labels.share();
  p.num_peaks_per_label = opts.num_peaks_per_label;  // num_peaks and p_norm: scikit-image's defaults
  expect(opts.p_norm >= 1, fn, "p_norm", "must be in [1, inf], got ", opts.p_norm);
  if (opts.num_peaks) expect(*opts.num_peaks >= 0, fn, "num_peaks", "must be non-negative, got ", *opts.num_peaks);
  // The peaks come to the host on the caller's stream: to_vector() of a device array copies on the
  // per-thread default stream, which waits for the legacy stream (ORB's legacy-stream test caught it).
  const Array pk = peak_local_max(image, p, stream).to(Device::cpu(), stream);
  stream.synchronize();
  const int ncols = static_cast<int>(pk.shape(1));
  Coords c = pk.to_vector<std::int64_t>();
  if (!c.empty()) {
    const Geometry g(image.shape());
    c = greedy_spacing(c, g, static_cast<double>(opts.min_distance), opts.p_norm, false,
                       opts.num_peaks.value_or(std::numeric_limits<std::int64_t>::max()));
  }
  if (opts.indices) return to_array(c, ncols, image.device(), stream);
  Array peaks = Array::zeros(image.shape(), DType::bool_);
  const Strides st = contiguous_strides(image.shape());
  auto* pp = peaks.data<bool>();
  for (std::size_t k = 0; k < c.size(); k += ncols) {
    std::int64_t lin = 0;
    for (int a = 0; a < ncols; ++a) lin += c[k + a] * st[a];
    pp[lin] = true;
  }
  return image.device().is_cpu() ? std::move(peaks) : peaks.to(image.device(), stream);
}

}  // namespace cuskimage::feature
