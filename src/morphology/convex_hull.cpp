// skimage.morphology.convex_hull_image / convex_hull_object in 2-D with exact integer geometry.
//
// scikit-image takes the first and last foreground pixel of every row and column, adds the four
// edge midpoints of each pixel (offset_coordinates), runs Qhull, and labels the grid with
// grid_points_in_poly (0 outside, 1 inside, 2 vertex, 3 edge). All coordinates are multiples of
// 1/2, so in doubled coordinates (X = 2 row, Y = 2 col) the hull is an integer polygon, Qhull's
// vertices are its exact corners and the point test is exact: here the hull is a monotone chain
// pair (lower / upper in Y as functions of X) over the per-row extremes, and each row's covered
// columns follow from integer division. Same function on the CPU and (kernels/morphology/
// convex_hull.cu) on CUDA. 3-D: scikit-image's Qhull facets become exact integer planes on the
// doubled lattice (convex_hull_ops.hpp says why the tolerance test then never changes a voxel):
// the CPU runs a plain incremental hull over the first/last voxel of every (plane, row), CUDA a
// block-parallel quickhull (src/morphology/convex_hull3d.hpp, kernels/morphology/convex_hull3d.cu).
#include <algorithm>
#include <cmath>
#include <utility>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/convex_hull3d.hpp"
#include "src/morphology/convex_hull_ops.hpp"
#include "src/morphology/skeleton_ops.hpp"

namespace cuskimage::morphology {
namespace {

using cuskimage::detail::expect;
using cuskimage::detail::fail;
using detail::HullPt;
using HullTypes = cuskimage::detail::AllTypes;

/// Fills out (bool, contiguous rows x cols, zeroed) with the hull of rows [r0, r0 + n) whose
/// foreground spans columns [rlo[k], rhi[k]] (lo > hi: none).
void cpu_fill_hull(const std::int64_t* rlo, const std::int64_t* rhi, std::int64_t n, std::int64_t r0, bool offset,
                   bool include_borders, bool* out, std::int64_t rows, std::int64_t cols) {
  auto lo_of = [&](std::int64_t k) { return rlo[k]; };
  auto hi_of = [&](std::int64_t k) { return rhi[k]; };
  std::vector<HullPt> lo(static_cast<std::size_t>(3 * n + 2)), hi(lo.size());
  std::int64_t nlo = 0, nhi = 0;
  for (std::int64_t x = 2 * r0 - 1; x <= 2 * (r0 + n) - 1; ++x) {
    std::int64_t ymin = 0, ymax = 0;
    if (!detail::hull_candidates(lo_of, hi_of, n, r0, offset, x, ymin, ymax)) continue;
    detail::chain_push(lo.data(), nlo, {x, ymin}, true);
    detail::chain_push(hi.data(), nhi, {x, ymax}, false);
  }
  if (!detail::hull_has_area(lo.data(), nlo, hi.data(), nhi)) return;  // Qhull fails: scikit-image returns zeros
  for (std::int64_t r = std::max<std::int64_t>(r0, 0); r < std::min(r0 + n, rows); ++r) {  // the hull's rows
    std::int64_t c0, c1;
    detail::hull_row(lo.data(), nlo, hi.data(), nhi, r, !include_borders, c0, c1);
    c0 = std::max<std::int64_t>(c0, 0);
    c1 = std::min<std::int64_t>(c1, cols - 1);
    for (std::int64_t c = c0; c <= c1; ++c) out[r * cols + c] = true;
  }
}

template <class T>
void cpu_hull_image(const Array& image, Array& out, bool offset, bool include_borders) {
  const Array c = image.contiguous();
  const T* v = static_cast<const T*>(c.data());
  const std::int64_t R = c.shape(0), C = c.shape(1);
  std::vector<std::int64_t> rlo(static_cast<std::size_t>(R), 1), rhi(static_cast<std::size_t>(R), 0);
#pragma omp parallel for schedule(static)
  for (std::int64_t r = 0; r < R; ++r)
    for (std::int64_t k = 0; k < C; ++k)
      if (detail::hull_fg(v[r * C + k])) {
        if (rlo[r] > rhi[r]) rlo[r] = k;
        rhi[r] = k;
      }
  cpu_fill_hull(rlo.data(), rhi.data(), R, 0, offset, include_borders, static_cast<bool*>(out.data()), R, C);
}

std::int64_t find_root(std::vector<std::int64_t>& p, std::int64_t x) {
  while (p[x] != x) {
    p[x] = p[p[x]];
    x = p[x];
  }
  return x;
}

template <class T>
void cpu_hull_object(const Array& image, Array& out, int connectivity) {
  const Array c = image.contiguous();
  const T* v = static_cast<const T*>(c.data());
  const std::int64_t R = c.shape(0), C = c.shape(1), n = R * C;
  // skimage.measure.label: neighbours of equal non-zero value are one object.
  std::vector<std::int64_t> parent(static_cast<std::size_t>(n), -1);
  for (std::int64_t i = 0; i < n; ++i)
    if (detail::label_fg(v[i])) parent[i] = i;
  auto join = [&](std::int64_t a, std::int64_t b) {
    if (parent[b] < 0 || !detail::label_same(v[a], v[b])) return;
    const std::int64_t ra = find_root(parent, a), rb = find_root(parent, b);
    if (ra != rb) parent[std::max(ra, rb)] = std::min(ra, rb);
  };
  for (std::int64_t r = 0; r < R; ++r)
    for (std::int64_t k = 0; k < C; ++k) {
      const std::int64_t i = r * C + k;
      if (parent[i] < 0) continue;
      if (k > 0) join(i, i - 1);
      if (r > 0) {
        join(i, i - C);
        if (connectivity == 2 && k > 0) join(i, i - C - 1);
        if (connectivity == 2 && k + 1 < C) join(i, i - C + 1);
      }
    }
  // Per object (root = its first pixel, so its top row): the per-row extremes in one flat array
  // (an object spans consecutive rows), then its hull OR-ed into the output.
  std::vector<std::int64_t> slot(static_cast<std::size_t>(n), -1), roots, bottom;
  for (std::int64_t i = 0; i < n; ++i)
    if (parent[i] >= 0) {
      parent[i] = find_root(parent, i);
      if (parent[i] == i) {
        slot[i] = static_cast<std::int64_t>(roots.size());
        roots.push_back(i);
        bottom.push_back(0);
      }
      bottom[static_cast<std::size_t>(slot[parent[i]])] = i / C;
    }
  std::vector<std::int64_t> offs(roots.size() + 1, 0);
  for (std::size_t k = 0; k < roots.size(); ++k) offs[k + 1] = offs[k] + bottom[k] - roots[k] / C + 1;
  std::vector<std::int64_t> rlo(static_cast<std::size_t>(offs.back()), std::numeric_limits<std::int64_t>::max()),
      rhi(rlo.size(), -1);
  for (std::int64_t i = 0; i < n; ++i)
    if (parent[i] >= 0) {
      const std::int64_t k = slot[parent[i]];
      const std::size_t s = static_cast<std::size_t>(offs[k] + i / C - roots[k] / C);
      rlo[s] = std::min(rlo[s], i % C);
      rhi[s] = std::max(rhi[s], i % C);
    }
  bool* o = static_cast<bool*>(out.data());
  for (std::size_t k = 0; k < roots.size(); ++k)
    cpu_fill_hull(rlo.data() + offs[k], rhi.data() + offs[k], offs[k + 1] - offs[k], roots[k] / C, true, true, o, R, C);
}

// ---- 3-D (CPU): incremental hull with exact integer arithmetic, doubled coordinates ------------
// The oracle of the device quickhull (kernels/morphology/convex_hull3d.cu): every point tested
// against every facet, no outside sets. Planes and the voxel test are convex_hull_ops.hpp's.

using detail::Hull3Plane;
using detail::Hull3Pt;

struct Face {
  int a, b, c;
  Hull3Plane pl;  // outward, through a, b, c in this order
};

/// Facets of the convex hull of `pts` (outward); empty when the points are coplanar (Qhull fails).
std::vector<Face> hull3(const std::vector<Hull3Pt>& pts) {
  const int n = static_cast<int>(pts.size());
  auto make = [&](int a, int b, int c) { return Face{a, b, c, detail::hull3_plane(pts[a], pts[b], pts[c])}; };
  auto same = [](Hull3Pt p, Hull3Pt q) { return p.x == q.x && p.y == q.y && p.z == q.z; };
  int i1 = -1, i2 = -1, i3 = -1;
  for (int i = 1; i < n && i1 < 0; ++i)
    if (!same(pts[i], pts[0])) i1 = i;
  if (i1 < 0) return {};
  for (int i = 1; i < n && i2 < 0; ++i) {
    const Hull3Plane pl = detail::hull3_plane(pts[0], pts[i1], pts[i]);
    if (pl.nx || pl.ny || pl.nz) i2 = i;
  }
  if (i2 < 0) return {};
  const Face base = make(0, i1, i2);
  for (int i = 1; i < n && i3 < 0; ++i)
    if (detail::hull3_eval(base.pl, pts[i]) != 0) i3 = i;
  if (i3 < 0) return {};
  // The tetrahedron's faces, each turned to face away from the opposite vertex.
  std::vector<Face> faces;
  const int tet[4][4] = {{0, i1, i2, i3}, {0, i1, i3, i2}, {0, i2, i3, i1}, {i1, i2, i3, 0}};
  for (const auto& t : tet) {
    Face f = make(t[0], t[1], t[2]);
    if (detail::hull3_eval(f.pl, pts[t[3]]) > 0) f = make(t[0], t[2], t[1]);
    faces.push_back(f);
  }
  std::vector<std::pair<int, int>> edges;
  for (int q = 0; q < n; ++q) {
    if (q == 0 || q == i1 || q == i2 || q == i3) continue;
    std::vector<Face> keep;
    edges.clear();
    for (const Face& f : faces) {
      if (detail::hull3_eval(f.pl, pts[q]) > 0) {
        edges.push_back({f.a, f.b});
        edges.push_back({f.b, f.c});
        edges.push_back({f.c, f.a});
      } else {
        keep.push_back(f);
      }
    }
    if (edges.empty()) continue;
    std::sort(edges.begin(), edges.end());
    for (const auto& e : edges)  // horizon: visible edges whose reverse is not visible
      if (!std::binary_search(edges.begin(), edges.end(), std::make_pair(e.second, e.first)))
        keep.push_back(make(e.first, e.second, q));
    faces = std::move(keep);
  }
  return faces;
}

void check_3d_extent(std::string_view fn, const Array& image) {
  for (int a = 0; a < 3; ++a)
    if (image.shape(a) > detail::kHull3MaxExtent)
      fail<NotSupported>(fn, "argument 'image' has an axis of ", image.shape(a),
                         " voxels: the exact 3-D hull supports up to ", detail::kHull3MaxExtent, " per axis");
}

template <class T>
void cpu_hull_image_3d(const Array& image, Array& out, bool offset, double tolerance) {
  const Array c = image.contiguous();
  const T* v = static_cast<const T*>(c.data());
  const std::int64_t P = c.shape(0), R = c.shape(1), C = c.shape(2);
  // scikit-image's N-d path: np.nonzero of the image itself (no uint8 cast). Per (plane, row) the
  // first and last voxel span every hull vertex.
  std::vector<Hull3Pt> centres;
  for (std::int64_t p = 0; p < P; ++p)
    for (std::int64_t r = 0; r < R; ++r) {
      std::int64_t lo = -1, hi = -1;
      for (std::int64_t k = 0; k < C; ++k)
        if (detail::hull3_fg(v[(p * R + r) * C + k])) {
          if (lo < 0) lo = k;
          hi = k;
        }
      if (lo < 0) continue;
      auto pt = [&](std::int64_t k) {
        return Hull3Pt{static_cast<std::int32_t>(2 * p), static_cast<std::int32_t>(2 * r),
                       static_cast<std::int32_t>(2 * k)};
      };
      centres.push_back(pt(lo));
      if (hi != lo) centres.push_back(pt(hi));
    }
  if (centres.empty()) return;
  std::vector<Face> faces = hull3(centres);  // Qhull of the centres fails when they are coplanar
  if (faces.empty()) return;
  if (offset) {  // the 6 face centres of each vertex of that hull (scikit-image's hull0.vertices)
    std::vector<char> is_vertex(centres.size(), 0);
    for (const Face& f : faces) is_vertex[f.a] = is_vertex[f.b] = is_vertex[f.c] = 1;
    std::vector<Hull3Pt> pts;
    for (std::size_t i = 0; i < centres.size(); ++i) {
      if (!is_vertex[i]) continue;
      const Hull3Pt q = centres[i];
      for (const Hull3Pt o : {Hull3Pt{1, 0, 0}, Hull3Pt{-1, 0, 0}, Hull3Pt{0, 1, 0}, Hull3Pt{0, -1, 0},
                              Hull3Pt{0, 0, 1}, Hull3Pt{0, 0, -1}})
        pts.push_back({q.x + o.x, q.y + o.y, q.z + o.z});
    }
    faces = hull3(pts);
  }
  std::vector<Hull3Plane> planes(faces.size());
  for (std::size_t f = 0; f < faces.size(); ++f) planes[f] = detail::hull3_fold(faces[f].pl, tolerance);
  bool* o = static_cast<bool*>(out.data());
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t p = 0; p < P; ++p)
    for (std::int64_t r = 0; r < R; ++r) {
      std::int64_t c0 = 0, c1 = C - 1;
      for (std::size_t f = 0; f < planes.size() && c0 <= c1; ++f) detail::hull3_clip(planes[f], p, r, c0, c1);
      for (std::int64_t k = c0; k <= c1; ++k) o[(p * R + r) * C + k] = true;
    }
}

void check_2d(std::string_view fn, const Array& image) {
  cuskimage::detail::expect_valid(image, fn, "image");
  expect(image.ndim() == 2, fn, "image", "must be a 2D image, got ", image.ndim(), "D");
}

}  // namespace

Array convex_hull_image(const Array& image, const ConvexHullOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "morphology.convex_hull_image";
  cuskimage::detail::expect_valid(image, fn, "image");
  if (image.ndim() == 3) {
    check_3d_extent(fn, image);
    Array out = Array::zeros(image.shape(), DType::bool_, image.device(), stream);
    if (image.size() == 0) return out;
    cuskimage::detail::dispatch<HullTypes>(image.dtype(), fn, [&]<class T>() {
      cuskimage::detail::on_backend(
          image, stream, [&] { cpu_hull_image_3d<T>(image, out, opts.offset_coordinates, opts.tolerance); },
          [&](const auto&) {
            const Array c = image.contiguous(stream);
            detail::cuda_convex_hull_image_3d<T>(c, out, opts.offset_coordinates, opts.tolerance, stream);
          });
    });
    return out;
  }
  if (image.ndim() > 3)
    fail<NotSupported>(fn, "argument 'image' is ", image.ndim(), "-D: only 2-D and 3-D hulls are implemented");
  check_2d(fn, image);
  Array out = Array::zeros(image.shape(), DType::bool_, image.device(), stream);
  if (image.size() == 0) return out;
  cuskimage::detail::dispatch<HullTypes>(image.dtype(), fn, [&]<class T>() {
    cuskimage::detail::on_backend(
        image, stream, [&] { cpu_hull_image<T>(image, out, opts.offset_coordinates, opts.include_borders); },
        [&](const Stream& s) {
          const Array c = image.contiguous(stream);
          detail::cuda_convex_hull_image<T>(c, out, opts.offset_coordinates, opts.include_borders, s);
        });
  });
  return out;
}

Array convex_hull_object(const Array& image, const ConvexHullObjectOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "morphology.convex_hull_object";
  check_2d(fn, image);
  expect(opts.connectivity == 1 || opts.connectivity == 2, fn, "connectivity", "must be either 1 or 2, got ",
         opts.connectivity);
  Array out = Array::zeros(image.shape(), DType::bool_, image.device(), stream);
  if (image.size() == 0) return out;
  cuskimage::detail::dispatch<HullTypes>(image.dtype(), fn, [&]<class T>() {
    cuskimage::detail::on_backend(
        image, stream, [&] { cpu_hull_object<T>(image, out, opts.connectivity); },
        [&](const Stream& s) {
          const Array c = image.contiguous(stream);
          detail::cuda_convex_hull_object<T>(c, out, opts.connectivity, s);
        });
  });
  return out;
}

}  // namespace cuskimage::morphology
