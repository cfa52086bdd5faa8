// skimage.morphology.remove_objects_by_distance (scikit-image 0.26). CPU backend below; CUDA backend in
// kernels/morphology/remove_by_distance.cu (same result: the relation between objects built once, the
// greedy order resolved in rounds; see its header).
// scikit-image keeps objects in order of decreasing priority (a stable sort of label-sorted pixels,
// reversed: ties go to the higher label); each object still present when its turn comes is kept and
// removes every other present object with a boundary pixel within min_distance (cKDTree's
// query_ball_point on boundary pixels: sum |d|^p <= r^p, |d|^2 sums against r*r for p = 2, max |d|
// for p = inf). Boundary pixels are those whose footprint neighbourhood (cross for isotropic
// spacing and p <= 2, else the full 3^n block; the edge reflected) holds another label, as its
// maximum_filter != minimum_filter test. Instead of a KD-tree this uses a uniform grid whose
// cells are at least min_distance wide, with each cell's points grouped by object, so own and
// removed objects are skipped a run at a time.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/morphology.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/remove_by_distance_ops.hpp"

namespace cuskimage::morphology {

using cuskimage::detail::expect;
namespace cd = cuskimage::detail;

namespace {

constexpr std::string_view kFn = "morphology.remove_objects_by_distance";

struct Object {
  std::int64_t label;
  double priority;
};

/// Labels as int64 (C order); negative labels are rejected as scikit-image does.
std::vector<std::int64_t> read_labels(const Array& img) {
  return cd::dispatch<cd::IntegerTypes>(img.dtype(), kFn, [&]<class T>() {
    const Array a = img.contiguous();
    const T* p = a.data<T>();
    std::vector<std::int64_t> v(static_cast<std::size_t>(a.size()));
    for (std::int64_t i = 0; i < a.size(); ++i) {
      if constexpr (std::is_signed_v<T>) {
        expect(p[i] >= 0, kFn, "label_image", "found object with negative ID ", static_cast<std::int64_t>(p[i]));
      } else if constexpr (sizeof(T) == 8) {
        expect(p[i] <= static_cast<T>(std::numeric_limits<std::int64_t>::max()), kFn, "label_image",
               "labels above 2^63 - 1 are not supported");
      }
      v[i] = static_cast<std::int64_t>(p[i]);
    }
    return v;
  });
}

/// Distance test of cKDTree.query_ball_point between two points (coordinates already scaled).
struct Within {
  double p, r, bound;
  int nd;
  explicit Within(double p_, double r_, int nd_) : p(p_), r(r_), nd(nd_) {
    bound = (p == 2.0) ? r * r : (std::isinf(p) || std::isinf(r) || p == 1.0) ? r : std::pow(r, p);
  }
  bool operator()(const double* a, const double* b) const {
    double s = 0;
    for (int d = 0; d < nd; ++d) {
      const double x = std::abs(a[d] - b[d]);
      if (p == 2.0) s += x * x;
      else if (p == 1.0) s += x;
      else if (std::isinf(p)) s = std::max(s, x);
      else s += std::pow(x, p);
    }
    return s <= bound;
  }
};

/// The boundary pixels of objects in C order: a neighbour in the footprint (the cross for isotropic
/// spacing and p <= 2, else the full 3^nd block) holds another label; neighbours outside the image
/// reflect onto the pixel itself.
std::vector<std::int64_t> boundary_pixels(const std::vector<std::int64_t>& lab, const Shape& shape,
                                          const std::vector<double>& sp, double p_norm) {
  const int nd = static_cast<int>(shape.size());
  const std::int64_t n = static_cast<std::int64_t>(lab.size());
  const bool isotropic = std::all_of(sp.begin(), sp.end(), [&](double s) { return s == sp[0]; });
  const int fp_conn = (isotropic && p_norm <= 2) ? 1 : nd;
  std::vector<std::int64_t> stride(nd, 1);
  for (int d = nd - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
  std::vector<std::vector<int>> offs;
  std::int64_t total = 1;
  for (int d = 0; d < nd; ++d) total *= 3;
  for (std::int64_t k = 0; k < total; ++k) {
    std::vector<int> off(nd);
    std::int64_t rem = k;
    int steps = 0;
    for (int d = nd - 1; d >= 0; --d) {
      off[d] = static_cast<int>(rem % 3) - 1;
      rem /= 3;
      steps += off[d] != 0;
    }
    if (steps > 0 && steps <= fp_conn) offs.push_back(off);
  }
  std::vector<std::int64_t> border;
  std::vector<std::int64_t> coord(nd);
  for (std::int64_t i = 0; i < n; ++i) {
    if (lab[i] == 0) continue;
    std::int64_t rem = i;
    for (int d = nd - 1; d >= 0; --d) {
      coord[d] = rem % shape[d];
      rem /= shape[d];
    }
    bool is_border = false;
    for (const auto& off : offs) {
      std::int64_t q = i;
      bool inside = true;
      for (int d = 0; d < nd && inside; ++d) {
        const std::int64_t c = coord[d] + off[d];
        inside = c >= 0 && c < shape[d];
        q += off[d] * stride[d];
      }
      if (inside && lab[q] != lab[i]) {
        is_border = true;
        break;
      }
    }
    if (is_border) border.push_back(i);
  }
  return border;
}

/// The objects met on the boundary (label order) with their priorities: given, or pixel counts.
std::vector<Object> boundary_objects(const std::vector<std::int64_t>& lab, const std::vector<std::int64_t>& border,
                                     const RemoveObjectsByDistanceOptions& o, std::vector<std::int64_t>& labels) {
  for (auto i : border) labels.push_back(lab[i]);
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  const std::int64_t max_label = labels.back();
  std::vector<Object> objs(labels.size());
  if (o.priority.valid()) {
    const std::vector<double> pr = o.priority.to_vector<double>();
    expect(static_cast<std::int64_t>(pr.size()) > max_label, kFn, "priority", "shape of `priority` must be (",
           "max(label_image) + 1,) = (", max_label + 1, ",), got (", pr.size(), ",)");
    for (std::size_t k = 0; k < labels.size(); ++k) objs[k] = {labels[k], pr[static_cast<std::size_t>(labels[k])]};
  } else {
    std::vector<std::int64_t> sorted_all;
    sorted_all.reserve(lab.size());
    for (auto v : lab)
      if (v != 0) sorted_all.push_back(v);
    std::sort(sorted_all.begin(), sorted_all.end());
    for (std::size_t k = 0; k < labels.size(); ++k) {
      const auto rg = std::equal_range(sorted_all.begin(), sorted_all.end(), labels[k]);
      objs[k] = {labels[k], static_cast<double>(rg.second - rg.first)};
    }
  }
  return objs;
}

/// Processing order: numpy's ascending stable argsort of priority (NaN last) over label-sorted
/// objects, reversed.
std::vector<std::int64_t> processing_order(const std::vector<Object>& objs) {
  std::vector<std::int64_t> order(objs.size());
  std::iota(order.begin(), order.end(), std::int64_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
    const double x = objs[a].priority, y = objs[b].priority;
    if (std::isnan(x)) return false;
    if (std::isnan(y)) return true;
    return x < y;
  });
  std::reverse(order.begin(), order.end());
  return order;
}

/// The boundary points on a uniform grid: cells of w_d pixels along axis d, with w_d >
/// min_distance / spacing_d, so every point within the distance lies in a neighbouring cell.
struct PointGrid {
  int nd = 0;
  std::vector<std::int64_t> ncell, cstride;
  std::vector<double> pos;                       // point k's scaled coordinates at k * nd
  std::vector<std::int64_t> pcell, obj_of;       // point k's cell coordinates (k * nd), object
  std::vector<std::int64_t> pts;                 // points sorted by (cell, object, index)
  std::vector<std::int64_t> cell_start, run_end;  // per cell its first sorted slot; per slot its run's end
  std::vector<std::int64_t> obj_start, obj_pts;  // each object's points
};

PointGrid point_grid(const std::vector<std::int64_t>& lab, const std::vector<std::int64_t>& border, const Shape& shape,
                     const std::vector<double>& sp, double r, const std::vector<std::int64_t>& labels) {
  const int nd = static_cast<int>(shape.size());
  PointGrid g;
  g.nd = nd;
  std::vector<std::int64_t> w(nd);
  g.ncell.assign(nd, 0);
  g.cstride.assign(nd, 1);
  for (int d = 0; d < nd; ++d) {
    const double span = r / sp[d];
    w[d] = span >= static_cast<double>(shape[d]) ? shape[d] : std::min<std::int64_t>(shape[d], static_cast<std::int64_t>(span) + 2);
    w[d] = std::max<std::int64_t>(w[d], 1);
    g.ncell[d] = (shape[d] + w[d] - 1) / w[d];
  }
  for (int d = nd - 2; d >= 0; --d) g.cstride[d] = g.cstride[d + 1] * g.ncell[d + 1];
  const std::int64_t cells = g.cstride[0] * g.ncell[0];
  auto object_of = [&](std::int64_t label) {
    return static_cast<std::int64_t>(std::lower_bound(labels.begin(), labels.end(), label) - labels.begin());
  };
  const std::size_t m = border.size();
  g.pos.resize(m * nd);
  g.pcell.resize(m * nd);
  g.obj_of.resize(m);
  std::vector<std::int64_t> cell_of(m);
  for (std::size_t k = 0; k < m; ++k) {
    std::int64_t rem = border[k], c = 0;
    for (int d = nd - 1; d >= 0; --d) {
      const std::int64_t x = rem % shape[d];
      rem /= shape[d];
      g.pos[k * nd + d] = static_cast<double>(x) * sp[d];
      g.pcell[k * nd + d] = x / w[d];
    }
    for (int d = 0; d < nd; ++d) c += g.pcell[k * nd + d] * g.cstride[d];
    cell_of[k] = c;
    g.obj_of[k] = object_of(lab[border[k]]);
  }
  // Points sorted by (cell, object); runs of one object within a cell.
  const auto& obj_of = g.obj_of;
  g.pts.resize(m);
  std::iota(g.pts.begin(), g.pts.end(), std::int64_t{0});
  std::sort(g.pts.begin(), g.pts.end(), [&](std::int64_t a, std::int64_t b) {
    return cell_of[a] != cell_of[b] ? cell_of[a] < cell_of[b] : (obj_of[a] != obj_of[b] ? obj_of[a] < obj_of[b] : a < b);
  });
  g.cell_start.assign(static_cast<std::size_t>(cells) + 1, 0);
  for (std::size_t k = 0; k < m; ++k) ++g.cell_start[cell_of[k] + 1];
  for (std::int64_t c = 0; c < cells; ++c) g.cell_start[c + 1] += g.cell_start[c];
  const auto& pts = g.pts;
  g.run_end.resize(m);
  for (std::size_t s = m; s-- > 0;) {
    const bool last = s + 1 == m || cell_of[pts[s + 1]] != cell_of[pts[s]] || obj_of[pts[s + 1]] != obj_of[pts[s]];
    g.run_end[s] = last ? static_cast<std::int64_t>(s + 1) : g.run_end[s + 1];
  }
  g.obj_start.assign(labels.size() + 1, 0);
  g.obj_pts.resize(m);
  for (std::size_t k = 0; k < m; ++k) ++g.obj_start[obj_of[k] + 1];
  for (std::size_t k = 0; k < labels.size(); ++k) g.obj_start[k + 1] += g.obj_start[k];
  {
    std::vector<std::int64_t> fill(g.obj_start.begin(), g.obj_start.end() - 1);
    for (std::size_t k = 0; k < m; ++k) g.obj_pts[fill[obj_of[k]]++] = static_cast<std::int64_t>(k);
  }
  return g;
}

/// scikit-image's greedy scan: in processing order, an object still present removes every other
/// object with a point within the distance. Returns removed[object].
std::vector<std::uint8_t> greedy_removal(const PointGrid& g, const std::vector<std::int64_t>& order, const Within& within,
                                         std::size_t nobj) {
  const int nd = g.nd;
  std::int64_t nbr_total = 1;
  for (int d = 0; d < nd; ++d) nbr_total *= 3;
  std::vector<std::uint8_t> removed(nobj, 0);
  std::vector<std::int64_t> nc(nd);
  for (std::int64_t ob : order) {
    if (removed[ob]) continue;
    for (std::int64_t s = g.obj_start[ob]; s < g.obj_start[ob + 1]; ++s) {
      const std::int64_t k = g.obj_pts[s];
      for (std::int64_t t = 0; t < nbr_total; ++t) {
        std::int64_t rem = t, c = 0;
        bool inside = true;
        for (int d = nd - 1; d >= 0 && inside; --d) {
          nc[d] = g.pcell[k * nd + d] + (rem % 3) - 1;
          rem /= 3;
          inside = nc[d] >= 0 && nc[d] < g.ncell[d];
          c += nc[d] * g.cstride[d];
        }
        if (!inside) continue;
        for (std::int64_t u = g.cell_start[c]; u < g.cell_start[c + 1];) {
          const std::int64_t other = g.obj_of[g.pts[u]];
          const std::int64_t end = g.run_end[u];
          if (other != ob && !removed[other]) {
            for (std::int64_t v = u; v < end; ++v)
              if (within(&g.pos[k * nd], &g.pos[g.pts[v] * nd])) {
                removed[other] = 1;
                break;
              }
          }
          u = end;
        }
      }
    }
  }
  return removed;
}

/// The labels after removal (C order).
std::vector<std::int64_t> remove_by_distance(std::vector<std::int64_t> lab, const Shape& shape, double r,
                                             const RemoveObjectsByDistanceOptions& o) {
  const int nd = static_cast<int>(shape.size());
  const std::vector<double> sp = o.spacing.empty() ? std::vector<double>(nd, 1.0) : o.spacing;
  const std::vector<std::int64_t> border = boundary_pixels(lab, shape, sp, o.p_norm);
  if (border.empty()) return lab;  // no object, or one filling the image
  std::vector<std::int64_t> labels;
  const std::vector<Object> objs = boundary_objects(lab, border, o, labels);
  const std::vector<std::int64_t> order = processing_order(objs);
  const PointGrid g = point_grid(lab, border, shape, sp, r, labels);
  const std::vector<std::uint8_t> removed = greedy_removal(g, order, Within(o.p_norm, r, nd), objs.size());
  for (auto& v : lab)
    if (v != 0 && removed[std::lower_bound(labels.begin(), labels.end(), v) - labels.begin()]) v = 0;
  return lab;
}

void validate(const Array& label_image, double min_distance, const RemoveObjectsByDistanceOptions& o) {
  cd::expect_valid(label_image, kFn, "label_image");
  expect(label_image.ndim() >= 1, kFn, "label_image", "must have at least one dimension, got 0");
  const DType dt = label_image.dtype();
  expect(dt != DType::bool_ && dt != DType::float32 && dt != DType::float64, kFn, "label_image",
         "must be of integer dtype, got ", dtype_name(dt));
  expect(min_distance >= 0, kFn, "min_distance", "must be >= 0, was ", min_distance);
  expect(o.p_norm >= 1, kFn, "p_norm", "only p-norms with 1 <= p <= infinity are permitted, got ", o.p_norm);
  if (!o.spacing.empty()) {
    bool ok = static_cast<int>(o.spacing.size()) == label_image.ndim();
    for (double s : o.spacing) ok = ok && s > 0 && std::isfinite(s);
    expect(ok, kFn, "spacing", "must contain exactly one positive factor for each dimension of `label_image`");
  }
  if (o.priority.valid()) {
    if (label_image.device().is_cpu() && !o.priority.device().is_cpu())
      cd::fail<NotSupported>(kFn, ": a host label image takes `priority` as a host array");
    expect(o.priority.device().is_cpu() || o.priority.device() == label_image.device(), kFn, "priority",
           "must be a host array or on the label image's device ", label_image.device().str(), ", got ",
           o.priority.device().str());
    expect(o.priority.ndim() == 1, kFn, "priority", "must be 1-D, got ", o.priority.ndim(), "-D");
  }
  if (label_image.device().is_cuda() && label_image.ndim() > detail::kRodMaxDims)
    cd::fail<NotSupported>(kFn, ": the CUDA backend handles up to ", detail::kRodMaxDims, " dimensions, got ",
                           label_image.ndim());
}

/// The CPU's distance test between two flat pixel indices (the CUDA backend's borderline pairs).
struct WithinCtx {
  Shape shape;
  std::vector<double> sp;
  Within within;
};

bool within_pixels(const void* c, std::int64_t a, std::int64_t b) {
  const WithinCtx& x = *static_cast<const WithinCtx*>(c);
  const int nd = static_cast<int>(x.shape.size());
  double pa[detail::kRodMaxDims], pb[detail::kRodMaxDims];
  for (int d = nd - 1; d >= 0; --d) {
    pa[d] = static_cast<double>(a % x.shape[d]) * x.sp[d];
    pb[d] = static_cast<double>(b % x.shape[d]) * x.sp[d];
    a /= x.shape[d];
    b /= x.shape[d];
  }
  return x.within(pa, pb);
}

Array compute_cuda(const Array& label_image, double min_distance, const RemoveObjectsByDistanceOptions& o,
                   const Stream& stream) {
  cd::DeviceGuard guard(label_image.device().index());
  const int nd = label_image.ndim();
  detail::RodDeviceArgs a;
  a.min_distance = min_distance;
  a.p_norm = o.p_norm;
  a.spacing = o.spacing.empty() ? std::vector<double>(static_cast<std::size_t>(nd), 1.0) : o.spacing;
  if (o.priority.valid()) a.priority = o.priority.to(label_image.device(), stream).astype(DType::float64, stream);
  const WithinCtx ctx{label_image.shape(), a.spacing, Within(o.p_norm, min_distance, nd)};
  a.within = &within_pixels;
  a.within_ctx = &ctx;
  return detail::cuda_remove_objects_by_distance(label_image.contiguous(stream), a, stream);
}

template <class T>
Array to_dtype(const std::vector<std::int64_t>& v, const Array& like) {
  Array out = Array::empty(like.shape(), like.dtype());
  T* p = out.data<T>();
  for (std::size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
  return out;
}

Array compute(const Array& label_image, double min_distance, const RemoveObjectsByDistanceOptions& o,
              const Stream& stream) {
  validate(label_image, min_distance, o);
  if (label_image.device().is_cuda()) return compute_cuda(label_image, min_distance, o, stream);
  const std::vector<std::int64_t> res = remove_by_distance(read_labels(label_image), label_image.shape(), min_distance, o);
  return cd::dispatch<cd::IntegerTypes>(label_image.dtype(), kFn,
                                        [&]<class T>() { return to_dtype<T>(res, label_image); });
}

}  // namespace

Array remove_objects_by_distance(const Array& label_image, double min_distance, const RemoveObjectsByDistanceOptions& o,
                                 const Stream& stream) {
  return compute(label_image, min_distance, o, stream);
}

void remove_objects_by_distance_into(const Array& label_image, double min_distance, Array& out,
                                     const RemoveObjectsByDistanceOptions& o, const Stream& stream) {
  cd::expect_valid(label_image, kFn, "label_image");
  cd::expect_valid(out, kFn, "out");
  expect(out.device() == label_image.device(), kFn, "out", "must be on the label image's device ",
         label_image.device().str(), ", got ", out.device().str());
  expect(out.shape() == label_image.shape(), kFn, "out", "must have the label image's shape");
  expect(out.dtype() == label_image.dtype(), kFn, "out", "must have the label image's dtype ",
         dtype_name(label_image.dtype()), ", got ", dtype_name(out.dtype()));
  const Array res = compute(label_image, min_distance, o, stream);
  out.copy_from(res, stream);
}

}  // namespace cuskimage::morphology
