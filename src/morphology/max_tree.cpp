// skimage.morphology.max_tree and its filters: area/diameter opening and closing,
// max_tree_local_maxima. CPU: the tree is a union-find over pixels in stable value order, processed
// from the highest value; the root of each partial tree is always the pixel processed last in it, so
// parent[] does not depend on how the union-find compresses paths, and scikit-image's parent /
// traverser come out exactly. Attributes (area, bounding-box extent) accumulate towards the root in
// reverse traverser order; the direct filter then walks the traverser forward, as scikit-image's
// _max_tree.pyx. CUDA: kernels/morphology/max_tree.cu (a parallel build of the same canonical tree;
// src/morphology/max_tree_ops.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <type_traits>

#include "cuskimage/error.hpp"
#include "cuskimage/morphology.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/max_tree_cuda.hpp"
#include "src/morphology/max_tree_ops.hpp"

namespace cuskimage::morphology {

using cuskimage::detail::expect;
namespace cd = cuskimage::detail;

namespace {

using TreeTypes = cd::Types<std::uint8_t, std::uint16_t, std::int32_t, std::int64_t, float, double>;

void expect_image(std::string_view fn, const Array& image, int connectivity) {
  cd::expect_valid(image, fn, "image");
  expect(image.ndim() >= 1, fn, "image", "must have at least one dimension, got 0");
  const DType dt = image.dtype();
  const bool ok = dt == DType::uint8 || dt == DType::uint16 || dt == DType::int32 || dt == DType::int64 ||
                  dt == DType::float32 || dt == DType::float64;
  expect(ok, fn, "image", "dtype must be uint8, uint16, int32, int64, float32 or float64, got ", dtype_name(dt));
  expect(connectivity >= 1 && connectivity <= image.ndim(), fn, "connectivity", "must be in [1, ", image.ndim(),
         "] for a ", image.ndim(), "-D image, got ", connectivity);
  if (!image.device().is_cpu()) {
    detail::TreeGeom g;
    if (!detail::make_tree_geom(image.shape(), connectivity, g))
      cd::fail<NotSupported>(fn, "argument 'image': the CUDA backend handles up to ", detail::kTreeMaxDims,
                             " axes and ", detail::kTreeMaxNeighbours, " neighbours, got ", image.ndim(),
                             "-D with connectivity ", connectivity);
    bool fits = image.size() <= detail::kTreeMaxPixels;
    for (auto e : image.shape()) fits = fits && e < (std::int64_t(1) << 31);
    if (!fits)
      cd::fail<NotSupported>(fn, "argument 'image': the CUDA backend handles up to ", detail::kTreeMaxPixels,
                             " pixels and 2^31 - 1 per axis, got ", shape_str(image.shape()));
  }
}

template <class T>
std::vector<T> host_values(const Array& image) {
  const Array a = image.contiguous();
  const T* p = a.data<T>();
  return std::vector<T>(p, p + a.size());
}

/// numpy's sort order: NaN last.
template <class T>
bool less_nan_last(T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(a)) return false;
    if (std::isnan(b)) return true;
  }
  return a < b;
}

struct Tree {
  std::vector<std::int64_t> parent;
  std::vector<std::int64_t> order;
};

template <class T>
Tree build_tree(const std::vector<T>& v, const Shape& shape, int connectivity) {
  const int nd = static_cast<int>(shape.size());
  const std::int64_t n = static_cast<std::int64_t>(v.size());
  Tree t;
  t.order.resize(static_cast<std::size_t>(n));
  std::iota(t.order.begin(), t.order.end(), std::int64_t{0});
  if constexpr (sizeof(T) <= 2 && std::is_integral_v<T>) {
    // Counting sort: stable, as numpy's argsort(kind="stable").
    constexpr std::size_t K = std::size_t{1} << (8 * sizeof(T));
    std::vector<std::int64_t> start(K + 1, 0);
    for (T x : v) ++start[static_cast<std::size_t>(x) + 1];
    for (std::size_t k = 0; k < K; ++k) start[k + 1] += start[k];
    for (std::int64_t i = 0; i < n; ++i) t.order[start[static_cast<std::size_t>(v[i])]++] = i;
  } else {
    std::stable_sort(t.order.begin(), t.order.end(),
                     [&](std::int64_t a, std::int64_t b) { return less_nan_last(v[a], v[b]); });
  }

  // Neighbour offsets (coordinates and flat deltas) of generate_binary_structure(nd, connectivity).
  std::vector<std::int64_t> stride(nd, 1);
  for (int d = nd - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
  std::vector<std::vector<int>> offs;
  std::vector<std::int64_t> delta;
  detail::for_each_structure_offset(stride, connectivity, [&](const std::vector<int>& o, std::int64_t dl) {
    offs.push_back(o);
    delta.push_back(dl);
    return true;
  });

  t.parent.assign(static_cast<std::size_t>(n), -1);
  std::vector<std::int64_t> zpar(static_cast<std::size_t>(n), -1);
  std::vector<std::int64_t> coord(nd);
  auto find = [&](std::int64_t x) {
    while (zpar[x] != zpar[zpar[x]]) x = zpar[x] = zpar[zpar[x]];  // path halving
    return zpar[x];
  };
  for (std::int64_t k = n - 1; k >= 0; --k) {
    const std::int64_t p = t.order[k];
    t.parent[p] = p;
    zpar[p] = p;
    std::int64_t r = p;
    for (int d = nd - 1; d >= 0; --d) {
      coord[d] = r % shape[d];
      r /= shape[d];
    }
    bool interior = true;  // every neighbour inside: skip the per-neighbour bounds test
    for (int d = 0; d < nd; ++d) interior = interior && coord[d] > 0 && coord[d] < shape[d] - 1;
    for (std::size_t j = 0; j < offs.size(); ++j) {
      bool inside = true;
      for (int d = 0; d < nd && inside && !interior; ++d) {
        const std::int64_t c = coord[d] + offs[j][d];
        inside = c >= 0 && c < shape[d];
      }
      if (!inside) continue;
      const std::int64_t q = p + delta[j];
      if (t.parent[q] < 0) continue;  // not processed yet (lower value, or later in the order)
      const std::int64_t root = find(q);
      if (root != p) {
        zpar[root] = p;
        t.parent[root] = p;
      }
    }
  }
  // Canonize: every pixel points at the canonical pixel of its component.
  for (std::int64_t p : t.order) {
    const std::int64_t q = t.parent[p];
    if (v[q] == v[t.parent[q]]) t.parent[p] = t.parent[q];
  }
  return t;
}

/// A caller's (parent, tree_traverser): both or neither, int64, on the image's device, of its size.
void expect_given(std::string_view fn, const Array& image, const Array& parent, const Array& trav) {
  expect(parent.valid() == trav.valid(), fn, parent.valid() ? "tree_traverser" : "parent",
         "must be given together with ", parent.valid() ? "parent" : "tree_traverser");
  if (!parent.valid()) return;
  for (const Array* a : {&parent, &trav}) {
    const char* name = a == &parent ? "parent" : "tree_traverser";
    expect(a->device() == image.device(), fn, name, "must be on the image's device (", image.device().str(),
           "), got ", a->device().str());
    expect(a->dtype() == DType::int64, fn, name, "must be int64, got ", dtype_name(a->dtype()));
  }
  expect(parent.shape() == image.shape(), fn, "parent", "must have the image's shape");
  expect(trav.ndim() == 1 && trav.size() == image.size(), fn, "tree_traverser",
         "must be 1-D with one entry per pixel (", image.size(), "), got ", trav.size());
}

constexpr const char* kBadTree =
    "must form a tree of the image's pixels: indices inside the image, tree_traverser a permutation, every pixel's "
    "parent before it in tree_traverser (except tree_traverser[0], the root)";

/// The caller's tree on the CPU, checked as cuda_tree_valid checks it on the device.
Tree given_tree(std::string_view fn, const Array& parent, const Array& trav) {
  Tree t;
  t.parent = host_values<std::int64_t>(parent);
  t.order = host_values<std::int64_t>(trav);
  const std::int64_t n = static_cast<std::int64_t>(t.order.size());
  std::vector<std::int64_t> pos(static_cast<std::size_t>(n), -1);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t x = t.order[i];
    expect(x >= 0 && x < n && pos[x] < 0, fn, "parent/tree_traverser", kBadTree);
    pos[x] = i;
  }
  for (std::int64_t p = 0; p < n; ++p) {
    const std::int64_t q = t.parent[p];
    expect(q >= 0 && q < n && (p == t.order[0] || pos[q] < pos[p]), fn, "parent/tree_traverser", kBadTree);
  }
  return t;
}

template <class T>
Tree tree_for(std::string_view fn, const std::vector<T>& v, const Array& image, int connectivity, const Array& parent,
              const Array& trav) {
  if (parent.valid()) return given_tree(fn, parent, trav);
  return build_tree(v, image.shape(), connectivity);
}

std::vector<double> area_attribute(const Tree& t) {
  std::vector<double> area(t.parent.size(), 1.0);
  const std::int64_t root = t.order[0];
  for (auto it = t.order.rbegin(); it != t.order.rend(); ++it)
    if (*it != root) area[t.parent[*it]] += area[*it];
  return area;
}

std::vector<double> extension_attribute(const Tree& t, const Shape& shape) {
  const int nd = static_cast<int>(shape.size());
  const std::size_t n = t.parent.size();
  std::vector<std::int64_t> lo(n * nd), hi(n * nd);
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t r = static_cast<std::int64_t>(i);
    for (int d = nd - 1; d >= 0; --d) {
      lo[i * nd + d] = hi[i * nd + d] = r % shape[d];
      r /= shape[d];
    }
  }
  std::vector<double> ext(n, 1.0);
  const std::int64_t root = t.order[0];
  for (auto it = t.order.rbegin(); it != t.order.rend(); ++it) {
    const std::int64_t p = *it;
    if (p == root) continue;
    const std::int64_t q = t.parent[p];
    std::int64_t m = 0;
    for (int d = 0; d < nd; ++d) {
      lo[q * nd + d] = std::min(lo[q * nd + d], lo[p * nd + d]);
      hi[q * nd + d] = std::max(hi[q * nd + d], hi[p * nd + d]);
      m = std::max(m, hi[q * nd + d] - lo[q * nd + d]);
    }
    ext[q] = static_cast<double>(m + 1);
  }
  return ext;
}

template <class T>
std::vector<T> direct_filter(const std::vector<T>& v, const Tree& t, const std::vector<double>& attr, double thr) {
  std::vector<T> out(v.size());
  const std::int64_t root = t.order[0];
  out[root] = attr[root] < thr ? T(0) : v[root];
  for (std::int64_t p : t.order) {
    if (p == root) continue;
    const std::int64_t q = t.parent[p];
    // Non-canonical pixels, and components failing the criterion, take their parent's level.
    out[p] = (v[p] == v[q] || attr[p] < thr) ? out[q] : v[p];
  }
  return out;
}

enum class Attr { area, diameter };

template <class T>
Array filter_impl(std::string_view fn, const Array& image, Attr attr, bool closing, double thr, int connectivity,
                  const Array& parent, const Array& trav) {
  std::vector<T> v = host_values<T>(image);
  if (closing)
    for (auto& x : v) x = detail::tree_invert(x);
  Array out = Array::empty(image.shape(), image.dtype());
  if (v.empty()) return out;
  const Tree t = tree_for(fn, v, image, connectivity, parent, trav);
  const std::vector<double> a = attr == Attr::area ? area_attribute(t) : extension_attribute(t, image.shape());
  std::vector<T> r = direct_filter(v, t, a, thr);
  if (closing)
    for (auto& x : r) x = detail::tree_invert(x);
  std::copy(r.begin(), r.end(), out.data<T>());
  return out;
}

/// Checks a caller's tree on the image's device (the CPU checks it while reading it).
void expect_tree(std::string_view fn, const Array& image, const Array& parent, const Array& trav,
                 const Stream& stream) {
  expect_given(fn, image, parent, trav);
  if (!parent.valid() || image.device().is_cpu() || image.size() == 0) return;
  cd::DeviceGuard guard(image.device().index());
  expect(detail::cuda_tree_valid(parent, trav, stream), fn, "parent/tree_traverser", kBadTree);
}

Array filter(std::string_view fn, const Array& image, Attr attr, bool closing, double thr, std::string_view thr_name,
             int connectivity, const Array& parent, const Array& trav, const Stream& stream) {
  expect_image(fn, image, connectivity);
  expect(thr >= 0, fn, thr_name, "must be non-negative, got ", thr);
  expect_tree(fn, image, parent, trav, stream);
  return cd::dispatch<TreeTypes>(image.dtype(), fn, [&]<class T>() {
    return cd::on_backend(
        image, stream, [&] { return filter_impl<T>(fn, image, attr, closing, thr, connectivity, parent, trav); },
        [&](const Stream&) {
          return detail::cuda_tree_filter(image, attr == Attr::diameter, closing, thr, connectivity, parent, trav,
                                          stream);
        });
  });
}

Array to_array(const std::vector<std::int64_t>& v, const Shape& shape) {
  Array a = Array::empty(shape, DType::int64);
  std::copy(v.begin(), v.end(), a.data<std::int64_t>());
  return a;
}

}  // namespace

MaxTree max_tree(const Array& image, const MaxTreeOptions& opts, const Stream& stream) {
  constexpr std::string_view fn = "morphology.max_tree";
  expect_image(fn, image, opts.connectivity);
  return cd::dispatch<TreeTypes>(image.dtype(), fn, [&]<class T>() {
    return cd::on_backend(
        image, stream,
        [&] {
          const std::vector<T> v = host_values<T>(image);
          const Tree t = build_tree(v, image.shape(), opts.connectivity);
          return MaxTree{to_array(t.parent, image.shape()), to_array(t.order, {image.size()})};
        },
        [&](const Stream&) {
          MaxTree t;
          detail::cuda_max_tree(image, opts.connectivity, t.parent, t.traverser, stream);
          return t;
        });
  });
}

Array area_opening(const Array& image, const AreaFilterOptions& o, const Stream& stream) {
  return filter("morphology.area_opening", image, Attr::area, false, o.area_threshold, "area_threshold", o.connectivity,
                o.parent, o.tree_traverser, stream);
}

Array area_closing(const Array& image, const AreaFilterOptions& o, const Stream& stream) {
  return filter("morphology.area_closing", image, Attr::area, true, o.area_threshold, "area_threshold", o.connectivity,
                o.parent, o.tree_traverser, stream);
}

Array diameter_opening(const Array& image, const DiameterFilterOptions& o, const Stream& stream) {
  return filter("morphology.diameter_opening", image, Attr::diameter, false, o.diameter_threshold, "diameter_threshold",
                o.connectivity, o.parent, o.tree_traverser, stream);
}

Array diameter_closing(const Array& image, const DiameterFilterOptions& o, const Stream& stream) {
  return filter("morphology.diameter_closing", image, Attr::diameter, true, o.diameter_threshold, "diameter_threshold",
                o.connectivity, o.parent, o.tree_traverser, stream);
}

Array max_tree_local_maxima(const Array& image, const MaxTreeLocalMaximaOptions& o, const Stream& stream) {
  constexpr std::string_view fn = "morphology.max_tree_local_maxima";
  expect_image(fn, image, o.connectivity);
  expect_tree(fn, image, o.parent, o.tree_traverser, stream);
  return cd::dispatch<TreeTypes>(image.dtype(), fn, [&]<class T>() {
    return cd::on_backend(
        image, stream,
        [&] {
          const std::vector<T> v = host_values<T>(image);
          Array out = Array::empty(image.shape(), DType::uint64);
          if (v.empty()) return out;
          const Tree t = tree_for(fn, v, image, o.connectivity, o.parent, o.tree_traverser);
          std::uint64_t* lab = out.data<std::uint64_t>();
          std::fill(lab, lab + image.size(), std::uint64_t{1});
          const std::int64_t root = t.order[0];
          std::uint64_t next = 1;
          // Canonical pixels, deepest first: a node with a child loses its mark; leaves get labels.
          for (auto it = t.order.rbegin(); it != t.order.rend(); ++it) {
            const std::int64_t p = *it, q = t.parent[p];
            if (p == root || v[p] == v[q]) continue;
            lab[q] = 0;
            if (lab[p] > 0) lab[p] = next++;
          }
          for (auto it = t.order.rbegin(); it != t.order.rend(); ++it) {
            const std::int64_t p = *it, q = t.parent[p];
            if (p != root && v[p] == v[q]) lab[p] = lab[q];
          }
          return out;
        },
        [&](const Stream&) {
          return detail::cuda_max_tree_local_maxima(image, o.connectivity, o.parent, o.tree_traverser, stream);
        });
  });
}

}  // namespace cuskimage::morphology
