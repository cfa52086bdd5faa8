// Public functions of skimage.exposure: validation, scikit-image's dtype and range rules, and the
// backend choice by the image's device (src/exposure/backend.hpp).
#include "cuskimage/exposure.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <string>

#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/exposure/backend.hpp"

namespace cuskimage::exposure {
namespace {

using cuskimage::detail::expect;
using cuskimage::detail::expect_valid;
using cuskimage::detail::fail;
using cuskimage::detail::on_backend;
using namespace detail;

/// Largest histogram scikit-image could allocate here (integer images with a huge value range).
constexpr std::int64_t kMaxIntBins = std::int64_t(1) << 28;

void expect_image_dtype(const Array& a, std::string_view fn, std::string_view arg) {
  switch (a.dtype()) {
    case DType::uint8: case DType::int8: case DType::uint16: case DType::int16: case DType::int32:
    case DType::int64: case DType::float32: case DType::float64: return;
    default:
      fail(fn, "argument '", arg, "' has dtype ", dtype_name(a.dtype()),
           "; supported: uint8, int8, uint16, int16, int32, int64, float32, float64");
  }
}

void expect_image(const Array& a, std::string_view fn, std::string_view arg = "image") {
  expect_valid(a, fn, arg);
  expect_image_dtype(a, fn, arg);
  expect(a.size() > 0, fn, arg, "must not be empty, got shape ", shape_str(a.shape()));
}

/// _supported_float_type: float32 stays float32, everything else computes in float64.
DType float_type(DType dt) { return dt == DType::float32 ? DType::float32 : DType::float64; }

Array minmax(const Array& image, const Array& mask, const Stream& stream) {
  Array r = Array::empty({2}, DType::float64, image.device(), stream);
  on_backend(
      image, stream, [&] { cpu_minmax(image, mask, r); }, [&](const Stream& s) { cuda_minmax(image, mask, r, s); });
  return r;
}

/// A float64 array's values on the host, copied on `stream` (synchronizes it for device arrays).
std::vector<double> host_values(const Array& a, const Stream& stream) {
  const Array h = a.to(Device::cpu(), stream);
  const double* p = static_cast<const double*>(h.data());
  return std::vector<double>(p, p + h.size());
}

/// {min, max} on the host (synchronizes for device arrays).
std::pair<double, double> host_minmax(const Array& image, const Array& mask, const Stream& stream) {
  const auto v = host_values(minmax(image, mask, stream), stream);
  return {v[0], v[1]};
}

/// View with `axis` moved last.
Array move_last(const Array& a, int axis) {
  std::vector<int> perm;
  for (int d = 0; d < a.ndim(); ++d)
    if (d != axis) perm.push_back(d);
  perm.push_back(axis);
  return a.transpose(perm);
}
/// Inverse of move_last for an array whose last axis came from `axis`.
Array move_back(const Array& a, int axis) {
  std::vector<int> perm;
  const int n = a.ndim();
  for (int d = 0, src = 0; d < n; ++d) perm.push_back(d == axis ? n - 1 : src++);
  return a.transpose(perm);
}

/// An integer arange [lo, lo + n) as int64 on `device`.
Array arange(std::int64_t lo, std::int64_t n, Device device, const Stream& stream) {
  Array h = Array::empty({n}, DType::int64);
  auto* p = static_cast<std::int64_t*>(h.data());
  for (std::int64_t i = 0; i < n; ++i) p[i] = lo + i;
  return h.to(device, stream);
}

/// scikit-image's DTYPE_RANGE by name, and the dtype a name gives rescale_intensity's output.
struct NamedRange {
  double lo, hi;
  DType dtype;
};
const std::map<std::string, NamedRange>& named_ranges() {
  static const std::map<std::string, NamedRange> m = [] {
    std::map<std::string, NamedRange> r;
    auto lim = [](DType dt) { return util::dtype_limits(dt); };
    for (DType dt : {DType::uint8, DType::int8, DType::uint16, DType::int16, DType::uint32, DType::int32, DType::uint64,
                     DType::int64}) {
      const auto l = lim(dt);
      r[std::string(dtype_name(dt))] = {l.imin, l.imax, dt};
    }
    r["bool"] = {0, 1, DType::bool_};
    r["float16"] = {-1, 1, DType::float32};  // no float16 here: the nearest float type
    r["float32"] = {-1, 1, DType::float32};
    r["float64"] = {-1, 1, DType::float64};
    r["float"] = {-1, 1, DType::float64};
    r["int"] = r["longlong"] = r["int64"];
    r["ulonglong"] = r["uint64"];
    r["uint10"] = {0, 1023, DType::uint16};
    r["uint12"] = {0, 4095, DType::uint16};
    r["uint14"] = {0, 16383, DType::uint16};
    return r;
  }();
  return m;
}

const NamedRange& named_range(const std::string& name, std::string_view fn, std::string_view arg) {
  const auto& m = named_ranges();
  const auto it = m.find(name);
  if (it == m.end())
    fail(fn, "argument '", arg, "' must be 'image', 'dtype', a dtype name or a (min, max) pair, got '", name, "'");
  return it->second;
}

template <class F>
void with_backend(const Array& a, const Stream& stream, F&& f) {
  on_backend(a, stream, [&] { f(true, stream); }, [&](const Stream& s) { f(false, s); });
}

/// Counts of `image` (channels last when channels > 1) as histogram() bins them.
struct Counts {
  Array counts;        // int64 (channels * nbins)
  Array centers;       // int64 or the float dtype
  std::int64_t lo = 0;  // integer images: value of bin 0
  std::int64_t nbins = 0;
  Array range;         // float64[2] (float images, source image; integer images: min and max)
};

Counts count(const Array& image, const Array& mask, std::int64_t channels, std::int64_t nbins, SourceRange src,
             bool full_int_range, const Stream& stream, std::string_view fn) {
  Counts c;
  const Device dev = image.device();
  if (is_integer(image.dtype())) {
    if (src == SourceRange::dtype || full_int_range) {
      const auto l = util::dtype_limits(image.dtype());
      c.lo = static_cast<std::int64_t>(l.imin);
      c.nbins = static_cast<std::int64_t>(l.imax - l.imin) + 1;
      if (full_int_range) c.range = minmax(image, mask, stream);
    } else {
      c.range = minmax(image, mask, stream);
      const auto v = host_values(c.range, stream);  // the bin count decides the output's size
      c.lo = static_cast<std::int64_t>(v[0]);
      c.nbins = static_cast<std::int64_t>(v[1]) - c.lo + 1;
    }
    expect(c.nbins <= kMaxIntBins, fn, "image", "value range needs ", c.nbins, " bins, more than ", kMaxIntBins);
    c.counts = Array::empty({channels * c.nbins}, DType::int64, dev, stream);
    with_backend(image, stream, [&](bool cpu, const Stream& s) {
      if (cpu) cpu_histogram(image, mask, channels, c.lo, c.nbins, nullptr, c.counts);
      else cuda_histogram(image, mask, channels, c.lo, c.nbins, nullptr, c.counts, s);
    });
    if (!full_int_range) c.centers = arange(c.lo, c.nbins, dev, stream);
    return c;
  }
  expect(nbins >= 1, fn, "nbins", "must be positive, got ", nbins);
  c.nbins = nbins;
  const Array* rp = nullptr;
  if (src == SourceRange::image) {
    c.range = minmax(image, mask, stream);
    if (dev.is_cpu()) {
      const double* r = static_cast<const double*>(c.range.data());
      expect(std::isfinite(r[0]) && std::isfinite(r[1]), fn, "image", "autodetected range of [", r[0], ", ", r[1],
             "] is not finite");
    }
    rp = &c.range;
  }
  c.counts = Array::empty({channels * nbins}, DType::int64, dev, stream);
  c.centers = Array::empty({nbins}, image.dtype(), dev, stream);
  with_backend(image, stream, [&](bool cpu, const Stream& s) {
    if (cpu) {
      cpu_histogram(image, mask, channels, 0, nbins, rp, c.counts);
      cpu_float_centers(rp, nbins, c.centers);
    } else {
      cuda_histogram(image, mask, channels, 0, nbins, rp, c.counts, s);
      cuda_float_centers(rp, nbins, c.centers, s);
    }
  });
  return c;
}

Array counts_to(const Array& counts, std::int64_t rows, std::int64_t nbins, DType dt, bool cumulative,
                const Stream& stream) {
  Array out = Array::empty({rows, nbins}, dt, counts.device(), stream);
  const Array c2 = counts.reshape({rows, nbins});
  with_backend(counts, stream, [&](bool cpu, const Stream& s) {
    if (cpu) cpu_counts_to(c2, out, cumulative);
    else cuda_counts_to(c2, out, cumulative, s);
  });
  return out;
}

/// Elementwise adjust_* with the non-negative check on CPU arrays.
Array adjust(const Array& image, AdjustKind kind, double a, double b, const Stream& stream, std::string_view fn) {
  expect_image(image, fn);
  if (!(kind == AdjustKind::gamma && image.dtype() == DType::uint8) && image.device().is_cpu() &&
      is_signed(image.dtype())) {
    const auto [lo, hi] = host_minmax(image, Array{}, stream);
    (void)hi;
    expect(!(lo < 0), fn, "image",
           "must hold non-negative values only (Image Correction methods work correctly only on images with "
           "non-negative values; use exposure.rescale_intensity), got a minimum of ", lo);
  }
  Array out = Array::empty(image.shape(), image.dtype(), image.device(), stream);
  with_backend(image, stream, [&](bool cpu, const Stream& s) {
    if (cpu) cpu_adjust(image, out, kind, a, b);
    else cuda_adjust(image, out, kind, a, b, s);
  });
  return out;
}

}  // namespace

SourceRange source_range_from_name(std::string_view name) {
  if (name == "image") return SourceRange::image;
  if (name == "dtype") return SourceRange::dtype;
  fail("exposure.histogram", "argument 'source_range' must be 'image' or 'dtype', got '", name, "'");
}

IntensityRange::IntensityRange(std::string s) {
  if (s == "image") kind = Kind::image;
  else if (s == "dtype") kind = Kind::dtype;
  else {
    kind = Kind::name;
    name = std::move(s);
  }
}

HistogramResult histogram(const Array& image, const HistogramOptions& opts, const Stream& stream) {
  const std::string_view fn = "exposure.histogram";
  expect_image(image, fn);
  Array view = image.share();
  std::int64_t channels = 1;
  if (opts.channel_axis) {
    const int ax = cuskimage::detail::normalize_axis(*opts.channel_axis, image.ndim(), fn, "channel_axis");
    view = move_last(image, ax);
    channels = view.shape(-1);
  }
  Counts c = count(view, Array{}, channels, opts.nbins, opts.source_range, false, stream, fn);
  HistogramResult r;
  if (opts.normalize) r.hist = counts_to(c.counts, channels, c.nbins, DType::float64, false, stream);
  else r.hist = c.counts.reshape({channels, c.nbins});
  if (!opts.channel_axis) r.hist = r.hist.reshape({c.nbins});
  r.bin_centers = std::move(c.centers);
  return r;
}

CumulativeDistributionResult cumulative_distribution(const Array& image, const CumulativeDistributionOptions& opts,
                                                     const Stream& stream) {
  const std::string_view fn = "exposure.cumulative_distribution";
  expect_image(image, fn);
  Counts c = count(image, Array{}, 1, opts.nbins, SourceRange::image, false, stream, fn);
  CumulativeDistributionResult r;
  r.cdf = counts_to(c.counts, 1, c.nbins, float_type(image.dtype()), true, stream).reshape({c.nbins});
  r.bin_centers = std::move(c.centers);
  return r;
}

Array equalize_hist(const Array& image, const EqualizeHistOptions& opts, const Stream& stream) {
  const std::string_view fn = "exposure.equalize_hist";
  expect_image(image, fn);
  Array mask;
  if (opts.mask.valid()) {
    cuskimage::detail::expect_same_shape(image, opts.mask, fn, "image", "mask");
    cuskimage::detail::expect_same_device(image, opts.mask, fn, "image", "mask");
    mask = opts.mask.dtype() == DType::bool_ ? opts.mask.share() : opts.mask.astype(DType::bool_, stream);
  }
  // 8/16-bit integers: counts over the dtype's whole range, so that nothing waits for the image's
  // min and max (the cdf is the same over [min, max]).
  const bool full = is_integer(image.dtype()) && itemsize(image.dtype()) <= 2;
  Counts c = count(image, mask, 1, opts.nbins, SourceRange::image, full, stream, fn);
  const Array cdf = counts_to(c.counts, 1, c.nbins, float_type(image.dtype()), true, stream).reshape({c.nbins});
  Array out = Array::empty(image.shape(), float_type(image.dtype()), image.device(), stream);
  with_backend(image, stream, [&](bool cpu, const Stream& s) {
    if (cpu) cpu_equalize_apply(image, c.lo, c.range, cdf, out);
    else cuda_equalize_apply(image, c.lo, c.range, cdf, out, s);
  });
  return out;
}

Array rescale_intensity(const Array& image, const RescaleIntensityOptions& opts, const Stream& stream) {
  const std::string_view fn = "exposure.rescale_intensity";
  expect_image(image, fn);
  const DType dt = image.dtype();
  const DType comp = float_type(dt);
  const auto own = util::dtype_limits(dt);
  RescaleSpec spec;
  switch (opts.in_range.kind) {
    case IntensityRange::Kind::image: spec.in_image = true; break;
    case IntensityRange::Kind::dtype:
      spec.in_image = false;
      spec.in_lo = own.imin;
      spec.in_hi = own.imax;
      break;
    case IntensityRange::Kind::name: {
      const auto& nr = named_range(opts.in_range.name, fn, "in_range");
      spec.in_image = false;
      spec.in_lo = nr.lo;
      spec.in_hi = nr.hi;
      break;
    }
    case IntensityRange::Kind::values:
      spec.in_image = false;
      spec.in_lo = opts.in_range.lo;
      spec.in_hi = opts.in_range.hi;
      break;
  }
  DType out_dt = dt;
  switch (opts.out_range.kind) {
    case IntensityRange::Kind::image: spec.out_kind = 1; break;
    case IntensityRange::Kind::dtype:
      spec.out_kind = 2;
      spec.out_lo = own.imin;
      spec.out_hi = own.imax;
      break;
    case IntensityRange::Kind::name: {
      const auto& nr = named_range(opts.out_range.name, fn, "out_range");
      spec.out_kind = 2;
      spec.out_lo = nr.lo;
      spec.out_hi = nr.hi;
      out_dt = nr.dtype;
      break;
    }
    case IntensityRange::Kind::values:
      spec.out_kind = 0;
      spec.out_lo = opts.out_range.lo;
      spec.out_hi = opts.out_range.hi;
      out_dt = comp;
      break;
  }
  const Array range = spec.needs_range() ? minmax(image, Array{}, stream) : Array::zeros({2}, DType::float64, image.device(), stream);
  const bool direct = out_dt == dt || out_dt == comp;
  Array out = Array::empty(image.shape(), direct ? out_dt : comp, image.device(), stream);
  with_backend(image, stream, [&](bool cpu, const Stream& s) {
    if (cpu) cpu_rescale(image, out, spec, range);
    else cuda_rescale(image, out, spec, range, s);
  });
  return direct ? std::move(out) : out.astype(out_dt, stream);
}

Array adjust_gamma(const Array& image, const AdjustGammaOptions& opts, const Stream& stream) {
  expect(opts.gamma >= 0, "exposure.adjust_gamma", "gamma", "must be a non-negative real number, got ", opts.gamma);
  return adjust(image, AdjustKind::gamma, opts.gamma, opts.gain, stream, "exposure.adjust_gamma");
}

Array adjust_log(const Array& image, const AdjustLogOptions& opts, const Stream& stream) {
  return adjust(image, opts.inv ? AdjustKind::log_inv : AdjustKind::log, opts.gain, 0.0, stream, "exposure.adjust_log");
}

Array adjust_sigmoid(const Array& image, const AdjustSigmoidOptions& opts, const Stream& stream) {
  return adjust(image, opts.inv ? AdjustKind::sigmoid_inv : AdjustKind::sigmoid, opts.cutoff, opts.gain, stream,
                "exposure.adjust_sigmoid");
}

Array match_histograms(const Array& image, const Array& reference, const MatchHistogramsOptions& opts,
                       const Stream& stream) {
  const std::string_view fn = "exposure.match_histograms";
  expect_image(image, fn);
  expect_image(reference, fn, "reference");
  cuskimage::detail::expect_same_device(image, reference, fn, "image", "reference");
  expect(image.ndim() == reference.ndim(), fn, "reference",
         "must have the same number of dimensions as image (image and reference must have the same number of "
         "channels), got ", reference.ndim(), " and ", image.ndim());
  const DType dt = image.dtype();
  if (!is_signed(dt))
    expect(is_integer(reference.dtype()), fn, "reference", "must have an integer dtype for an unsigned image (bincount), got ",
           dtype_name(reference.dtype()));
  auto run = [&](const Array& src, const Array& tmpl, Array& out) {
    with_backend(src, stream, [&](bool cpu, const Stream& s) {
      if (cpu) cpu_match(src, tmpl, out);
      else cuda_match(src, tmpl, out, s);
    });
  };
  if (!opts.channel_axis) {
    Array out = Array::empty(image.shape(), DType::float64, image.device(), stream);
    run(image, reference, out);
    return float_type(dt) == DType::float64 ? std::move(out) : out.astype(DType::float32, stream);
  }
  const int ax = cuskimage::detail::normalize_axis(*opts.channel_axis, image.ndim(), fn, "channel_axis");
  const Array src = move_last(image, ax);
  const Array tmpl = move_last(reference, ax);
  expect(src.shape(-1) == tmpl.shape(-1), fn, "reference",
         "must have as many channels as image (number of channels in the input image and reference image must "
         "match), got ", tmpl.shape(-1), " and ", src.shape(-1));
  Array out = Array::empty(src.shape(), dt, image.device(), stream);
  Shape chan_shape(src.shape().begin(), src.shape().end() - 1);
  Array tmp = Array::empty(chan_shape, DType::float64, image.device(), stream);
  for (std::int64_t c = 0; c < src.shape(-1); ++c) {
    run(src.index(-1, c), tmpl.index(-1, c), tmp);
    Array oc = out.index(-1, c);
    oc.copy_from(tmp, stream);  // matched[..., c] = ... (astype into the image dtype)
  }
  return move_back(out, ax).copy(stream);
}

bool is_low_contrast(const Array& image, const IsLowContrastOptions& opts, const Stream& stream) {
  const std::string_view fn = "exposure.is_low_contrast";
  expect_valid(image, fn, "image");
  expect(image.size() > 0, fn, "image", "must not be empty");
  expect(opts.method == "linear", fn, "method", "must be 'linear' (the only available option), got '", opts.method,
         "'");
  expect(opts.lower_percentile >= 0 && opts.lower_percentile <= 100 && opts.upper_percentile >= 0 &&
             opts.upper_percentile <= 100,
         fn, "lower_percentile/upper_percentile", "must be in the range [0, 100], got ", opts.lower_percentile, " and ",
         opts.upper_percentile);
  if (image.dtype() == DType::bool_) {
    const auto [lo, hi] = host_minmax(image.astype(DType::uint8, stream), Array{}, stream);
    return !(hi == 1 && lo == 0);
  }
  expect_image_dtype(image, fn, "image");
  Array img = image.share();
  if (image.ndim() == 3 && (image.shape(2) == 3 || image.shape(2) == 4)) {
    img = Array::empty({image.shape(0), image.shape(1)}, float_type(image.dtype()), image.device(), stream);
    with_backend(image, stream, [&](bool cpu, const Stream& s) {
      if (cpu) cpu_rgb_to_gray(image, img);
      else cuda_rgb_to_gray(image, img, s);
    });
  }
  const auto dl = util::dtype_limits(img.dtype());
  const std::int64_t n = img.size();
  struct Pick {
    std::int64_t prev, next;
    double gamma;
  };
  auto pick = [&](double p) {
    const double vi = double(n - 1) * (p / 100.0);
    Pick k{};
    k.prev = static_cast<std::int64_t>(std::floor(vi));
    k.next = k.prev + 1;
    if (vi >= double(n - 1)) k.prev = k.next = n - 1;
    if (vi < 0) k.prev = k.next = 0;
    k.gamma = vi - std::floor(vi);
    return k;
  };
  const Pick a = pick(opts.lower_percentile), b = pick(opts.upper_percentile);
  const std::vector<std::int64_t> pos = {a.prev, a.next, b.prev, b.next};
  std::vector<double> v;
  on_backend(
      img, stream, [&] { v = cpu_order_statistics(img, pos); },
      [&](const Stream& s) { v = cuda_order_statistics(img, pos, s); });
  const bool f32 = img.dtype() == DType::float32;
  auto lerp = [&](double lo, double hi, double t) {
    double diff = hi - lo;
    if (f32) diff = static_cast<float>(static_cast<float>(hi) - static_cast<float>(lo));
    double r = lo + diff * t;
    if (t >= 0.5) r = hi - diff * (1 - t);
    return r;
  };
  const double l0 = lerp(v[0], v[1], a.gamma), l1 = lerp(v[2], v[3], b.gamma);
  const double ratio = (l1 - l0) / (dl.imax - dl.imin);
  return ratio < opts.fraction_threshold;
}

}  // namespace cuskimage::exposure
