// measure.regionprops / regionprops_table: argument checks, the property catalogue (scikit-image
// 0.26's names, shapes, table dtypes and 2-D-only rules), the derived properties computed per
// region from the batched statistics (src/measure/regionprops_stats.cpp on the CPU,
// kernels/measure/regionprops.cu on CUDA), and the table expansion ("bbox-0", "moments-0-1").
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <numbers>
#include <string>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/measure/moments_math.hpp"
#include "src/measure/regionprops.hpp"

namespace cuskimage::measure {
namespace detail {

using cuskimage::detail::expect;
using cuskimage::detail::fail;

namespace {

constexpr double kPi = std::numbers::pi;

/// Where a property comes from.
enum class Src {
  stat,    // batched statistics (both backends)
  shape,   // the region's host mask (CPU arrays only)
  local,   // CPU: the region's mask; CUDA: a batched pass over the label image
  object,  // an array without a table column
};

struct PropInfo {
  std::string_view name;
  Src src;
  bool integer = false;    // int64 table column
  bool intensity = false;  // needs intensity_image
  bool only2d = false;     // NotImplementedError for 3-D in scikit-image
};

constexpr PropInfo kProps[] = {
    {"area", Src::stat},
    {"area_bbox", Src::stat},
    {"area_convex", Src::shape},
    {"area_filled", Src::shape},
    {"axis_major_length", Src::stat},
    {"axis_minor_length", Src::stat},
    {"bbox", Src::stat, true},
    {"centroid", Src::stat},
    {"centroid_local", Src::stat},
    {"centroid_weighted", Src::stat, false, true},
    {"centroid_weighted_local", Src::stat, false, true},
    {"coords", Src::object},
    {"coords_scaled", Src::object},
    {"eccentricity", Src::stat, false, false, true},
    {"equivalent_diameter_area", Src::stat},
    {"euler_number", Src::local, true},
    {"extent", Src::stat},
    {"feret_diameter_max", Src::shape},
    {"image", Src::object},
    {"image_convex", Src::object},
    {"image_filled", Src::object},
    {"image_intensity", Src::object, false, true},
    {"inertia_tensor", Src::stat},
    {"inertia_tensor_eigvals", Src::stat},
    {"intensity_max", Src::stat, false, true},
    {"intensity_mean", Src::stat, false, true},
    {"intensity_median", Src::shape, false, true},
    {"intensity_min", Src::stat, false, true},
    {"intensity_std", Src::stat, false, true},
    {"label", Src::stat, true},
    {"moments", Src::stat},
    {"moments_central", Src::stat},
    {"moments_hu", Src::stat, false, false, true},
    {"moments_normalized", Src::stat},
    {"moments_weighted", Src::stat, false, true},
    {"moments_weighted_central", Src::stat, false, true},
    {"moments_weighted_hu", Src::stat, false, true, true},
    {"moments_weighted_normalized", Src::stat, false, true},
    {"num_pixels", Src::stat, true},
    {"orientation", Src::stat, false, false, true},
    {"perimeter", Src::local, false, false, true},
    {"perimeter_crofton", Src::local, false, false, true},
    {"slice", Src::object},
    {"solidity", Src::shape},
};

/// scikit-image's deprecated names (PROPS) -> current names.
const std::map<std::string_view, std::string_view>& deprecated() {
  static const std::map<std::string_view, std::string_view> m = {
      {"Area", "area"},
      {"BoundingBox", "bbox"},
      {"BoundingBoxArea", "area_bbox"},
      {"bbox_area", "area_bbox"},
      {"CentralMoments", "moments_central"},
      {"Centroid", "centroid"},
      {"ConvexArea", "area_convex"},
      {"convex_area", "area_convex"},
      {"ConvexImage", "image_convex"},
      {"convex_image", "image_convex"},
      {"Coordinates", "coords"},
      {"Eccentricity", "eccentricity"},
      {"EquivDiameter", "equivalent_diameter_area"},
      {"equivalent_diameter", "equivalent_diameter_area"},
      {"EulerNumber", "euler_number"},
      {"Extent", "extent"},
      {"FeretDiameter", "feret_diameter_max"},
      {"FeretDiameterMax", "feret_diameter_max"},
      {"FilledArea", "area_filled"},
      {"filled_area", "area_filled"},
      {"FilledImage", "image_filled"},
      {"filled_image", "image_filled"},
      {"HuMoments", "moments_hu"},
      {"Image", "image"},
      {"InertiaTensor", "inertia_tensor"},
      {"InertiaTensorEigvals", "inertia_tensor_eigvals"},
      {"IntensityImage", "image_intensity"},
      {"intensity_image", "image_intensity"},
      {"Label", "label"},
      {"LocalCentroid", "centroid_local"},
      {"local_centroid", "centroid_local"},
      {"MajorAxisLength", "axis_major_length"},
      {"major_axis_length", "axis_major_length"},
      {"MaxIntensity", "intensity_max"},
      {"max_intensity", "intensity_max"},
      {"MeanIntensity", "intensity_mean"},
      {"mean_intensity", "intensity_mean"},
      {"MinIntensity", "intensity_min"},
      {"min_intensity", "intensity_min"},
      {"std_intensity", "intensity_std"},
      {"MinorAxisLength", "axis_minor_length"},
      {"minor_axis_length", "axis_minor_length"},
      {"Moments", "moments"},
      {"NormalizedMoments", "moments_normalized"},
      {"Orientation", "orientation"},
      {"Perimeter", "perimeter"},
      {"CroftonPerimeter", "perimeter_crofton"},
      {"Slice", "slice"},
      {"Solidity", "solidity"},
      {"WeightedCentralMoments", "moments_weighted_central"},
      {"weighted_moments_central", "moments_weighted_central"},
      {"WeightedCentroid", "centroid_weighted"},
      {"weighted_centroid", "centroid_weighted"},
      {"WeightedHuMoments", "moments_weighted_hu"},
      {"weighted_moments_hu", "moments_weighted_hu"},
      {"WeightedLocalCentroid", "centroid_weighted_local"},
      {"weighted_local_centroid", "centroid_weighted_local"},
      {"WeightedMoments", "moments_weighted"},
      {"weighted_moments", "moments_weighted"},
      {"WeightedNormalizedMoments", "moments_weighted_normalized"},
      {"weighted_moments_normalized", "moments_weighted_normalized"},
  };
  return m;
}

const PropInfo* find_prop(std::string_view name) {
  for (const auto& p : kProps)
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<double> normalize_spacing(const std::vector<double>& sp, int nd, std::string_view fn) {
  if (sp.empty()) return std::vector<double>(nd, 1.0);
  std::vector<double> out = sp.size() == 1 ? std::vector<double>(nd, sp[0]) : sp;
  expect(static_cast<int>(out.size()) == nd, fn, "spacing", "must be a scalar or a sequence of ", nd,
         " values, got ", sp.size());
  for (double s : out) expect(std::isfinite(s), fn, "spacing", "must be finite, got ", s);
  return out;
}

bool isotropic(const std::vector<double>& sp) {
  return std::all_of(sp.begin(), sp.end(), [&](double s) { return s == sp[0]; });
}

/// Moments of one row as a vector (4^ndim, C order).
std::vector<double> row_slice(const std::vector<double>& v, std::int64_t at, int len) {
  return std::vector<double>(v.begin() + at, v.begin() + at + len);
}

/// Interleaves per-channel vectors (each of length k) into shape (k, C) C order.
std::vector<double> stack_channels(const std::vector<std::vector<double>>& per_ch) {
  const std::size_t C = per_ch.size(), k = per_ch.empty() ? 0 : per_ch[0].size();
  std::vector<double> out(k * C);
  for (std::size_t c = 0; c < C; ++c)
    for (std::size_t i = 0; i < k; ++i) out[i * C + c] = per_ch[c][i];
  return out;
}

std::vector<double> normalized(const std::vector<double>& mu, int nd, const std::vector<double>& sp) {
  const double scale = *std::min_element(sp.begin(), sp.end());
  std::vector<double> nu(mu.size());
  for (std::size_t k = 0; k < mu.size(); ++k) nu[k] = normalized_moment(mu.data(), static_cast<std::int64_t>(k), nd, 4, 3, scale);
  return nu;
}

std::vector<double> hu_of(const std::vector<double>& nu) {
  std::vector<double> hu(7);
  hu_moments(nu.data(), 4, hu.data());
  return hu;
}

}  // namespace

// ---- the region set ------------------------------------------------------------------------------

Shape RegionSet::prop_shape(std::string_view name) const {
  const std::int64_t d = ndim;
  Shape ch = multichannel ? Shape{nch} : Shape{};
  auto with_ch = [&](Shape s) {
    s.insert(s.end(), ch.begin(), ch.end());
    return s;
  };
  if (name == "bbox") return {2 * d};
  if (name == "centroid" || name == "centroid_local" || name == "inertia_tensor_eigvals") return {d};
  if (name == "centroid_weighted" || name == "centroid_weighted_local") return with_ch({d});
  if (name == "inertia_tensor") return {d, d};
  if (name == "intensity_max" || name == "intensity_mean" || name == "intensity_min" || name == "intensity_std" ||
      name == "intensity_median")
    return ch;
  if (name == "moments" || name == "moments_central" || name == "moments_normalized") return Shape(ndim, 4);
  if (name == "moments_weighted" || name == "moments_weighted_central" || name == "moments_weighted_normalized")
    return with_ch(Shape(ndim, 4));
  if (name == "moments_hu") return {7};
  if (name == "moments_weighted_hu") return with_ch({7});
  return {};
}

/// Canonical name of `name` (deprecated names mapped), with scikit-image's checks; extra
/// properties keep their names.
std::string RegionSet::resolve(std::string_view name, std::string_view fn) const {
  for (const auto& e : extras)
    if (e.name == name && !find_prop(name)) return std::string(name);
  std::string_view canon = name;
  if (auto it = deprecated().find(name); it != deprecated().end()) canon = it->second;
  const PropInfo* p = find_prop(canon);
  if (!p) fail(fn, "argument 'properties': unknown region property '", name, "'");
  if (p->intensity && nch == 0)
    fail(fn, "argument 'properties': '", name, "' is unavailable when intensity_image has not been specified");
  if (p->only2d && ndim > 2)
    fail<NotSupported>(fn, "property '", name, "' is not implemented for 3D images (as in scikit-image)");
  if ((canon == "moments_hu" || canon == "moments_weighted_hu") &&
      std::any_of(spacing.begin(), spacing.end(), [](double s) { return s != 1.0; }))
    fail<NotSupported>(fn, "property '", name, "' supports spacing = (1, 1) only (as in scikit-image)");
  if ((canon == "perimeter" || canon == "perimeter_crofton") && !isotropic(spacing))
    fail<NotSupported>(fn, "property '", name, "' supports isotropic spacings only (as in scikit-image)");
  // 3-D feret_diameter_max is marching_cubes of each region's convex image plus a pairwise maximum:
  // not batched over regions on the device yet.
  if (canon == "feret_diameter_max" && ndim == 3 && !labels.device().is_cpu())
    fail<NotSupported>(fn, "property '", name,
                       "' in 3-D is measured on the CPU only; pass a host label image: label_image.to(Device::cpu())");
  return std::string(canon);
}

StatsRequest RegionSet::request_for(std::string_view canon) {
  StatsRequest r;
  const bool moments = canon == "moments" || canon == "moments_central" || canon == "moments_normalized" ||
                       canon == "moments_hu" || canon == "inertia_tensor" || canon == "inertia_tensor_eigvals" ||
                       canon == "eccentricity" || canon == "orientation" || canon == "axis_major_length" ||
                       canon == "axis_minor_length";
  r.moments = moments;
  r.weighted_moments = canon.starts_with("moments_weighted");
  r.weighted_first = r.weighted_moments || canon.starts_with("centroid_weighted");
  r.intensity_sum = r.weighted_first || canon == "intensity_mean" || canon == "intensity_std";
  r.intensity_minmax = canon == "intensity_min" || canon == "intensity_max";
  r.intensity_sqdev = canon == "intensity_std";
  r.euler = canon == "euler_number";
  r.perimeter = canon == "perimeter";
  r.crofton = canon == "perimeter_crofton";
  return r;
}

std::vector<double> RegionSet::value(std::int64_t r, std::string_view name) const {
  const int nd = ndim, C = static_cast<int>(nch), M = st.monomials();
  const double cnt = static_cast<double>(st.count[r]);
  double pixel_area = 1;
  for (double s : spacing) pixel_area *= s;
  auto lo = [&](int a) { return static_cast<double>(st.lo[r * nd + a]); };
  auto hi = [&](int a) { return static_cast<double>(st.hi[r * nd + a]); };
  auto need = [&](const std::vector<double>& v, std::string_view what) {
    if (v.empty()) fail<std::logic_error>("measure.regionprops", "internal: ", what, " was not measured");
  };
  if (name == "label") return {static_cast<double>(st.label[r])};
  if (name == "num_pixels") return {cnt};
  if (name == "area") return {cnt * pixel_area};
  if (name == "bbox") {
    std::vector<double> v(2 * nd);
    for (int a = 0; a < nd; ++a) {
      v[a] = lo(a);
      v[nd + a] = hi(a);
    }
    return v;
  }
  if (name == "area_bbox") {
    double v = pixel_area;
    for (int a = 0; a < nd; ++a) v *= hi(a) - lo(a);
    return {v};
  }
  if (name == "extent") return {value(r, "area")[0] / value(r, "area_bbox")[0]};
  if (name == "equivalent_diameter_area")
    return {std::pow(2.0 * nd * value(r, "area")[0] / kPi, 1.0 / nd)};
  if (name == "centroid" || name == "centroid_local") {
    std::vector<double> v(nd);
    for (int a = 0; a < nd; ++a) {
      const double mean = st.coord_sum[r * nd + a] / cnt;
      v[a] = name == "centroid" ? mean * spacing[a] + static_cast<double>(offset[a]) : (mean - lo(a)) * spacing[a];
    }
    return v;
  }
  if (name == "centroid_weighted" || name == "centroid_weighted_local") {
    need(st.iwsum, "sum I*x");
    std::vector<double> v(nd * C);  // (ndim, C)
    for (int a = 0; a < nd; ++a)
      for (int c = 0; c < C; ++c) {
        const double local = (st.iwsum[(r * C + c) * nd + a] / st.isum[r * C + c] - lo(a)) * spacing[a];
        v[a * C + c] = name == "centroid_weighted" ? local + lo(a) * spacing[a] : local;
      }
    return v;
  }
  if (name == "intensity_mean" || name == "intensity_min" || name == "intensity_max" || name == "intensity_std") {
    std::vector<double> v(C);
    for (int c = 0; c < C; ++c) {
      if (name == "intensity_mean") v[c] = st.isum[r * C + c] / cnt;
      if (name == "intensity_min") v[c] = st.imin[r * C + c];
      if (name == "intensity_max") v[c] = st.imax[r * C + c];
      if (name == "intensity_std") {
        need(st.isqdev, "squared deviations");
        v[c] = std::sqrt(st.isqdev[r * C + c] / cnt);
      }
    }
    return v;
  }
  if (name == "moments" || name == "moments_central") {
    need(st.m_raw, "moments");
    return row_slice(name == "moments" ? st.m_raw : st.m_cen, r * M, M);
  }
  if (name == "moments_normalized") return normalized(value(r, "moments_central"), nd, spacing);
  if (name == "moments_hu") return hu_of(value(r, "moments_normalized"));
  if (name == "moments_weighted" || name == "moments_weighted_central" || name == "moments_weighted_normalized" ||
      name == "moments_weighted_hu") {
    need(st.wm_raw, "weighted moments");
    std::vector<std::vector<double>> per(C);
    for (int c = 0; c < C; ++c) {
      const auto& src = name == "moments_weighted" ? st.wm_raw : st.wm_cen;
      per[c] = row_slice(src, (r * C + c) * M, M);
      if (name == "moments_weighted_normalized" || name == "moments_weighted_hu") per[c] = normalized(per[c], nd, spacing);
      if (name == "moments_weighted_hu") per[c] = hu_of(per[c]);
    }
    return multichannel ? stack_channels(per) : per[0];
  }
  if (name == "inertia_tensor") {
    const auto mu = value(r, "moments_central");
    std::vector<double> T(nd * nd);
    inertia_from_central(mu.data(), nd, 4, T.data());
    return T;
  }
  if (name == "inertia_tensor_eigvals") {
    const auto T = value(r, "inertia_tensor");
    std::vector<double> ev(nd);
    symmetric_eigvals_desc(T.data(), nd, ev.data());
    return ev;
  }
  if (name == "eccentricity") {
    const auto ev = value(r, "inertia_tensor_eigvals");
    return {ev[0] == 0 ? 0.0 : std::sqrt(1.0 - ev[1] / ev[0])};
  }
  if (name == "orientation") {
    const auto T = value(r, "inertia_tensor");
    const double a = T[0], b = T[1], c = T[3];
    if (a - c == 0) return {b < 0 ? kPi / 4.0 : -kPi / 4.0};
    return {0.5 * std::atan2(-2.0 * b, c - a)};
  }
  if (name == "axis_major_length" || name == "axis_minor_length") {
    const auto ev = value(r, "inertia_tensor_eigvals");
    const bool major = name == "axis_major_length";
    if (nd == 2) return {4.0 * std::sqrt(major ? ev[0] : ev[1])};
    const double l2 = major ? 10.0 * (ev[0] + ev[1] - ev[2]) : 10.0 * (-ev[0] + ev[1] + ev[2]);
    return {std::sqrt(std::max(0.0, l2))};
  }
  const bool on_device = !labels.device().is_cpu();
  if (name == "area_convex")
    return {static_cast<double>(on_device ? device_area_convex(r) : count_true(image_convex(r))) * pixel_area};
  if (name == "area_filled")
    return {static_cast<double>(on_device ? device_area_filled(r) : count_true(image_filled(r))) * pixel_area};
  if (name == "solidity") return {value(r, "area")[0] / value(r, "area_convex")[0]};
  if (name == "euler_number") {
    if (st.euler.empty()) return {static_cast<double>(euler_number_of(host_mask(r)))};
    return {nd == 3 ? static_cast<double>(static_cast<std::int64_t>(0.125 * st.euler[r])) : st.euler[r]};
  }
  if (name == "perimeter") return {(st.perimeter.empty() ? perimeter4(host_mask(r)) : st.perimeter[r]) * spacing[0]};
  if (name == "perimeter_crofton")
    return {(st.crofton.empty() ? crofton4(host_mask(r)) : st.crofton[r]) * spacing[0]};
  if (name == "feret_diameter_max") return {on_device ? device_feret(r) : feret_max(image_convex(r), spacing)};
  if (name == "intensity_median") return intensity_median(r);
  for (const auto& e : extras)
    if (e.name == name) return extra_value(r, e);
  fail("measure.regionprops", "argument 'property': '", name, "' has no numeric value (use the accessor of that name)");
}

/// Table columns of the cheapest statistics straight from the arrays (same arithmetic as value()).
bool fast_columns(const RegionSet& s, std::string_view name, std::vector<std::vector<double>>& cols) {
  const RegionStats& st = s.st;
  const int nd = s.ndim, C = static_cast<int>(s.nch);
  double pixel_area = 1;
  for (double sp : s.spacing) pixel_area *= sp;
  const std::int64_t n = st.n;
  if (name == "label" || name == "num_pixels" || name == "area") {
    for (std::int64_t r = 0; r < n; ++r)
      cols[0][r] = name == "label"        ? static_cast<double>(st.label[r])
                   : name == "num_pixels" ? static_cast<double>(st.count[r])
                                          : static_cast<double>(st.count[r]) * pixel_area;
    return true;
  }
  if (name == "bbox") {
    for (std::int64_t r = 0; r < n; ++r)
      for (int a = 0; a < nd; ++a) {
        cols[a][r] = static_cast<double>(st.lo[r * nd + a]);
        cols[nd + a][r] = static_cast<double>(st.hi[r * nd + a]);
      }
    return true;
  }
  if (name == "centroid" || name == "centroid_local") {
    const bool global = name == "centroid";
    for (std::int64_t r = 0; r < n; ++r) {
      const double cnt = static_cast<double>(st.count[r]);
      for (int a = 0; a < nd; ++a) {
        const double mean = st.coord_sum[r * nd + a] / cnt;
        cols[a][r] = global ? mean * s.spacing[a] + static_cast<double>(s.offset[a])
                            : (mean - static_cast<double>(st.lo[r * nd + a])) * s.spacing[a];
      }
    }
    return true;
  }
  if (name == "intensity_mean" || name == "intensity_min" || name == "intensity_max") {
    for (std::int64_t r = 0; r < n; ++r)
      for (int c = 0; c < C; ++c)
        cols[c][r] = name == "intensity_mean" ? st.isum[r * C + c] / static_cast<double>(st.count[r])
                     : name == "intensity_min" ? st.imin[r * C + c]
                                               : st.imax[r * C + c];
    return true;
  }
  return false;
}

/// regionprops_table's name of element i (C order) of a property of shape `shape`: "bbox-2".
std::string column_name(const std::string& name, const Shape& shape, std::int64_t i, const std::string& sep) {
  std::string col = name;
  std::vector<std::int64_t> idx(shape.size());
  for (int a = static_cast<int>(shape.size()) - 1; a >= 0; --a) {
    idx[a] = i % shape[a];
    i /= shape[a];
  }
  for (auto x : idx) col += sep + std::to_string(x);
  return col;
}

// ---- measuring ----------------------------------------------------------------------------------

std::shared_ptr<RegionSet> make_set(const Array& label_image, const Array& intensity_image,
                                    const RegionpropsOptions& opts, const Stream& stream, std::string_view fn) {
  cuskimage::detail::expect_valid(label_image, fn, "label_image");
  expect(label_image.ndim() == 2 || label_image.ndim() == 3, fn, "label_image",
         "must be 2-D or 3-D (only 2-D and 3-D images supported), got ", label_image.ndim(), "-D");
  const DType dt = label_image.dtype();
  if (dt == DType::bool_)
    fail(fn, "argument 'label_image': non-integer image types are ambiguous: use measure::label to label the "
             "connected components of label_image, or astype(uint8) to interpret the true values as one label");
  expect(is_integer(dt), fn, "label_image", "must have an integer dtype (non-integer label_image types are ambiguous), got ",
         dtype_name(dt));
  auto s = std::make_shared<RegionSet>();
  s->ndim = label_image.ndim();
  s->labels = label_image.share();
  s->stream = stream;
  if (intensity_image.valid()) {
    const int nd = s->ndim;
    bool ok = intensity_image.ndim() == nd || intensity_image.ndim() == nd + 1;
    for (int a = 0; ok && a < nd; ++a) ok = intensity_image.shape(a) == label_image.shape(a);
    expect(ok, fn, "intensity_image",
           "must have the label image's shape plus optionally a trailing channel axis (label and intensity "
           "image shapes must match, except for channel (last) axis), got ",
           shape_str(intensity_image.shape()), " for labels ", shape_str(label_image.shape()));
    cuskimage::detail::expect_same_device(label_image, intensity_image, fn, "label_image", "intensity_image");
    s->intensity = intensity_image.share();
    s->multichannel = intensity_image.ndim() == nd + 1;
    s->nch = s->multichannel ? intensity_image.shape(nd) : 1;
    expect(s->nch >= 1, fn, "intensity_image", "must have at least one channel");
  }
  s->spacing = normalize_spacing(opts.spacing, s->ndim, fn);
  if (opts.offset.empty()) {
    s->offset.assign(s->ndim, 0);
  } else {
    expect(static_cast<int>(opts.offset.size()) == s->ndim, fn, "offset",
           "should be an array-like of integers of shape (label_image.ndim,), got ", opts.offset.size(), " values");
    s->offset = opts.offset;
  }
  for (const auto& e : opts.extra_properties) {
    expect(!e.name.empty() && static_cast<bool>(e.fn), fn, "extra_properties", "entries need a name and a callable");
    expect(!e.uses_intensity || s->nch > 0, fn, "extra_properties", "'", e.name,
           "' needs an intensity image (intensity image required to calculate ", e.name, ")");
  }
  s->extras = opts.extra_properties;
  return s;
}

void measure_set(RegionSet& s, const StatsRequest& req) {
  cuskimage::detail::on_backend(
      s.labels, s.stream,
      [&] { cpu_region_stats(s.labels, s.intensity, static_cast<int>(s.nch), s.spacing, req, s.st); },
      [&](auto /*handle*/) {
        // The kernels read int32/int64 labels and uint8/uint16/float32/float64 intensities; other
        // dtypes are converted once on the device.
        const Array lab = s.device_labels();
        Array inten;
        if (s.nch > 0) {
          const DType idt = s.intensity.dtype();
          const bool native = idt == DType::uint8 || idt == DType::uint16 || idt == DType::float32 || idt == DType::float64;
          inten = native ? s.intensity.contiguous(s.stream) : s.intensity.astype(DType::float64, s.stream);
        }
        cuda_region_stats(lab, inten, static_cast<int>(s.nch), s.spacing, req, s.st, s.stream);
      });
}


/// The pass-1 device columns of `properties` (regionprops_table's names, C order) into `names`
/// and `specs`; false when a property is not one of them (it then needs the host statistics).
/// Validates every property as regionprops_table does.
bool device_column_specs(const RegionSet& set, const std::vector<std::string>& properties, const std::string& sep,
                         std::string_view fn, std::vector<std::string>& names, std::vector<DeviceColumnSpec>& specs) {
  bool device = true;
  for (const auto& p : properties) {
    const std::string cn = set.resolve(p, fn);
    const PropInfo* info = find_prop(cn);
    if (info && info->src == Src::object)
      fail(fn, "argument 'properties': '", p, "' is an array per region with no table column; use measure::regionprops");
    int kind = -1;
    if (cn == "label") kind = kColLabel;
    else if (cn == "area") kind = kColArea;
    else if (cn == "num_pixels") kind = kColNumPixels;
    else if (cn == "bbox") kind = kColBboxLo;
    else if (cn == "centroid") kind = kColCentroid;
    else if (cn == "centroid_local") kind = kColCentroidLocal;
    else if (cn == "intensity_mean") kind = kColIntensityMean;
    else if (cn == "intensity_min") kind = kColIntensityMin;
    else if (cn == "intensity_max") kind = kColIntensityMax;
    if (kind < 0) device = false;
    const Shape shape = set.prop_shape(cn);
    const std::int64_t k = shape_size(shape);
    for (std::int64_t i = 0; i < k; ++i) {
      names.push_back(column_name(p, shape, i, sep));
      DeviceColumnSpec c;
      c.kind = kind;
      c.index = static_cast<int>(i);
      if (kind == kColBboxLo && i >= set.ndim) {
        c.kind = kColBboxHi;
        c.index = static_cast<int>(i - set.ndim);
      }
      c.integer = info && info->integer;
      specs.push_back(c);
    }
  }
  return device;
}

/// The columns of `specs` on the label image's (CUDA) device: pass 1 and one kernel, one host read
/// (the region count).
std::vector<Array> device_columns(const RegionSet& set, const Array& label_image, const Array& intensity_image,
                                  const std::vector<DeviceColumnSpec>& specs, const Stream& stream) {
  std::vector<Array> out;
  cuskimage::detail::on_backend(
      label_image, stream, [] {},
      [&](auto /*handle*/) {
        const DType ldt = label_image.dtype();
        const Array lab = (ldt == DType::int32 || ldt == DType::int64) ? label_image.contiguous(stream)
                                                                       : label_image.astype(DType::int64, stream);
        Array inten;
        if (set.nch > 0) {
          const DType idt = intensity_image.dtype();
          const bool native = idt == DType::uint8 || idt == DType::uint16 || idt == DType::float32 || idt == DType::float64;
          inten = native ? intensity_image.contiguous(stream) : intensity_image.astype(DType::float64, stream);
        }
        out = cuda_region_columns(lab, inten, static_cast<int>(set.nch), set.spacing, set.offset, specs, stream);
      });
  return out;
}

}  // namespace detail

// ---- public API ---------------------------------------------------------------------------------

using detail::RegionSet;

std::int64_t RegionProperties::label() const { return set_->st.label[row_]; }
int RegionProperties::ndim() const { return set_->ndim; }

std::vector<double> RegionProperties::get(std::string_view property) const {
  const std::string canon = set_->resolve(property, "measure.RegionProperties");
  return set_->value(row_, canon);
}

Shape RegionProperties::shape_of(std::string_view property) const {
  const std::string canon = set_->resolve(property, "measure.RegionProperties");
  for (const auto& e : set_->extras)
    if (e.name == canon) return set_->extra_shape(e);
  return set_->prop_shape(canon);
}

Array RegionProperties::array(std::string_view property) const {
  const auto v = get(property);
  Shape shape = shape_of(property);
  if (shape.empty()) shape = {static_cast<std::int64_t>(v.size())};
  return Array::from_vector(v, shape);
}

std::vector<std::int64_t> RegionProperties::bbox() const {
  const auto v = get("bbox");
  return std::vector<std::int64_t>(v.begin(), v.end());
}

std::vector<Slice> RegionProperties::slice() const {
  std::vector<Slice> s;
  for (int a = 0; a < set_->ndim; ++a)
    s.push_back(Slice{set_->st.lo[row_ * set_->ndim + a], set_->st.hi[row_ * set_->ndim + a], 1});
  return s;
}

Array RegionProperties::image() const { return set_->image(row_); }
Array RegionProperties::image_convex() const {
  set_->resolve("image_convex", "measure.RegionProperties");
  return set_->image_convex(row_);
}
Array RegionProperties::image_filled() const { return set_->image_filled(row_); }
Array RegionProperties::image_intensity() const {
  set_->resolve("image_intensity", "measure.RegionProperties");
  return set_->image_intensity(row_);
}
Array RegionProperties::coords() const { return set_->coords(row_, false); }
Array RegionProperties::coords_scaled() const { return set_->coords(row_, true); }

std::vector<RegionProperties> regionprops(const Array& label_image, const Array& intensity_image,
                                          const RegionpropsOptions& opts, const Stream& stream) {
  auto set = detail::make_set(label_image, intensity_image, opts, stream, "measure.regionprops");
  detail::StatsRequest req;
  req.moments = true;
  if (set->nch > 0) {
    req.intensity_sum = req.intensity_minmax = req.weighted_first = true;
    req.weighted_moments = req.intensity_sqdev = true;
  }
  if (!label_image.device().is_cpu()) {  // the batched local passes (the CPU measures crops on demand)
    req.euler = true;
    req.perimeter = req.crofton = set->ndim == 2;
  }
  detail::measure_set(*set, req);
  std::vector<RegionProperties> out;
  out.reserve(static_cast<std::size_t>(set->st.n));
  for (std::int64_t r = 0; r < set->st.n; ++r) out.emplace_back(set, r);
  return out;
}

Table regionprops_table(const Array& label_image, const Array& intensity_image,
                        const std::vector<std::string>& properties, const RegionpropsOptions& opts,
                        const Stream& stream) {
  constexpr std::string_view kFn = "measure.regionprops_table";
  auto set = detail::make_set(label_image, intensity_image, opts, stream, kFn);
  std::vector<std::string> names = properties;
  for (const auto& e : opts.extra_properties) names.push_back(e.name);
  std::vector<std::string> canon;
  detail::StatsRequest req;
  for (const auto& p : names) {
    canon.push_back(set->resolve(p, kFn));
    if (const auto* info = detail::find_prop(canon.back()); info && info->src == detail::Src::object)
      detail::fail(kFn, "argument 'properties': '", p,
                   "' is an array per region with no table column; use measure::regionprops");
    const auto r = RegionSet::request_for(canon.back());
    req.intensity_sum |= r.intensity_sum;
    req.intensity_minmax |= r.intensity_minmax;
    req.weighted_first |= r.weighted_first;
    req.moments |= r.moments;
    req.weighted_moments |= r.weighted_moments;
    req.intensity_sqdev |= r.intensity_sqdev;
    req.euler |= r.euler;
    req.perimeter |= r.perimeter;
    req.crofton |= r.crofton;
  }
  if (label_image.device().is_cuda() && opts.extra_properties.empty()) {
    std::vector<std::string> cols;
    std::vector<detail::DeviceColumnSpec> specs;
    if (detail::device_column_specs(*set, properties, opts.separator, kFn, cols, specs)) {
      // Pass 1's columns computed on the device, each copied once into its host column.
      const std::vector<Array> dev = detail::device_columns(*set, label_image, intensity_image, specs, stream);
      Table t;
      for (std::size_t j = 0; j < cols.size(); ++j) {
        const std::int64_t rows = dev[j].shape(0);
        if (specs[j].integer) {
          std::vector<std::int64_t> v(static_cast<std::size_t>(rows));
          if (rows > 0) Array::wrap(v.data(), {rows}, DType::int64, Device::cpu()).copy_from(dev[j], stream);
          t.add_column(cols[j], std::move(v));
        } else {
          std::vector<double> v(static_cast<std::size_t>(rows));
          if (rows > 0) Array::wrap(v.data(), {rows}, DType::float64, Device::cpu()).copy_from(dev[j], stream);
          t.add_column(cols[j], std::move(v));
        }
      }
      return t;
    }
  }
  detail::measure_set(*set, req);

  Table t;
  const std::int64_t n = set->st.n;
  for (std::size_t j = 0; j < names.size(); ++j) {
    const std::string& cn = canon[j];
    const detail::PropInfo* info = detail::find_prop(cn);
    const ExtraProperty* extra = nullptr;
    for (const auto& e : set->extras)
      if (e.name == cn && !info) extra = &e;
    const Shape shape = extra ? set->extra_shape(*extra) : set->prop_shape(cn);
    const bool integer = !extra && info->integer;
    const std::int64_t k = shape_size(shape);
    std::vector<std::vector<double>> cols(static_cast<std::size_t>(k), std::vector<double>(static_cast<std::size_t>(n)));
    if (!extra && detail::fast_columns(*set, cn, cols)) {
      // filled without per-row vectors (the common table of large label images)
    } else {
      for (std::int64_t r = 0; r < n; ++r) {
        const auto v = set->value(r, cn);
        detail::expect(static_cast<std::int64_t>(v.size()) == k, kFn, "extra_properties", "'", cn, "' returned ",
                       v.size(), " values, expected ", k);
        for (std::int64_t i = 0; i < k; ++i) cols[i][r] = v[i];
      }
    }
    for (std::int64_t i = 0; i < k; ++i) {
      std::string col = detail::column_name(names[j], shape, i, opts.separator);
      if (integer) {
        std::vector<std::int64_t> iv(cols[i].begin(), cols[i].end());
        t.add_column(col, std::move(iv));
      } else {
        t.add_column(col, std::move(cols[i]));
      }
    }
  }
  return t;
}

const Array& DeviceTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return columns[i];
  throw InvalidArgument("measure.DeviceTable::column: no column '" + std::string(name) + "'");
}

DeviceTable regionprops_table_device(const Array& label_image, const Array& intensity_image,
                                     const std::vector<std::string>& properties, const RegionpropsOptions& opts,
                                     const Stream& stream) {
  constexpr std::string_view kFn = "measure.regionprops_table_device";
  auto set = detail::make_set(label_image, intensity_image, opts, stream, kFn);
  // The device pass serves these; anything else goes through regionprops_table.
  DeviceTable t;
  std::vector<detail::DeviceColumnSpec> specs;
  const bool device = detail::device_column_specs(*set, properties, opts.separator, kFn, t.names, specs) &&
                      label_image.device().is_cuda() && opts.extra_properties.empty();
  if (!device) {
    const Table host = regionprops_table(label_image, intensity_image, properties, opts, stream);
    t.names = host.names();
    for (const auto& name : t.names) {
      const auto& col = host.column(name);
      const auto n = static_cast<std::int64_t>(host.num_rows());
      Array a = std::holds_alternative<std::vector<std::int64_t>>(col)
                    ? Array::from_vector(std::get<std::vector<std::int64_t>>(col), {n})
                    : Array::from_vector(std::get<std::vector<double>>(col), {n});
      t.columns.push_back(label_image.device().is_cpu() ? std::move(a) : a.to(label_image.device(), stream));
    }
    return t;
  }
  t.columns = detail::device_columns(*set, label_image, intensity_image, specs, stream);
  return t;
}

}  // namespace cuskimage::measure
