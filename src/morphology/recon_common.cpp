// Shared helpers of the reconstruction / extrema / flood / remove_small family (recon_common.hpp).
#include "src/morphology/recon_common.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "src/core/validate.hpp"

namespace cuskimage::morphology::detail {

using cuskimage::detail::expect;

Array footprint_bool(std::string_view fn, const Array& footprint, int ndim) {
  cuskimage::detail::expect_valid(footprint, fn, "footprint");
  expect(footprint.ndim() == ndim, fn, "footprint", "must have the image's number of dimensions (", ndim, "), got ",
         footprint.ndim());
  return footprint.to(Device::cpu()).astype(DType::bool_).contiguous();
}

Array binary_structure(int ndim, int connectivity) {
  Array a = Array::zeros(Shape(ndim, 3), DType::bool_);
  bool* p = a.data<bool>();
  for (std::int64_t i = 0; i < a.size(); ++i) {
    std::int64_t r = i, dist = 0;
    for (int d = 0; d < ndim; ++d, r /= 3) dist += (r % 3) != 1;
    p[i] = dist <= std::max(connectivity, 0);
  }
  return a;
}

std::vector<Offset> true_offsets(const Array& fp, const Offset& centre) {
  std::vector<Offset> out;
  const bool* p = fp.data<bool>();
  const int nd = fp.ndim();
  for (std::int64_t i = 0; i < fp.size(); ++i) {
    if (!p[i]) continue;
    Offset o(nd);
    std::int64_t r = i;
    for (int d = nd - 1; d >= 0; --d) {
      o[d] = r % fp.shape()[d] - centre[d];
      r /= fp.shape()[d];
    }
    out.push_back(std::move(o));
  }
  return out;
}

std::vector<Offset> neighbour_offsets(const Array& fp, const Offset& centre) {
  std::vector<Offset> offs = true_offsets(fp, centre);
  auto len2 = [](const Offset& o) {
    std::int64_t s = 0;
    for (auto v : o) s += v * v;
    return s;
  };
  std::stable_sort(offs.begin(), offs.end(), [&](const Offset& a, const Offset& b) { return len2(a) < len2(b); });
  if (!offs.empty()) offs.erase(offs.begin());
  return offs;
}

bool symmetric(const std::vector<Offset>& offsets) {
  for (const auto& o : offsets) {
    Offset n(o.size());
    for (std::size_t d = 0; d < o.size(); ++d) n[d] = -o[d];
    if (std::find(offsets.begin(), offsets.end(), n) == offsets.end()) return false;
  }
  return true;
}

PaddedGrid::PaddedGrid(const Shape& s, const Shape& l, const Shape& h) : shape(s), padded(s), lo(l) {
  for (std::size_t d = 0; d < s.size(); ++d) padded[d] = s[d] + l[d] + h[d];
  strides = contiguous_strides(padded);
}

std::int64_t PaddedGrid::delta(const Offset& o) const {
  std::int64_t k = 0;
  for (std::size_t d = 0; d < o.size(); ++d) k += o[d] * strides[d];
  return k;
}

std::vector<std::int64_t> PaddedGrid::interior() const {
  const std::int64_t n = shape_size(shape);
  std::vector<std::int64_t> idx(static_cast<std::size_t>(n));
  const int nd = static_cast<int>(shape.size());
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t r = i, k = 0;
    for (int d = nd - 1; d >= 0; --d) {
      k += (r % shape[d] + lo[d]) * strides[d];
      r /= shape[d];
    }
    idx[static_cast<std::size_t>(i)] = k;
  }
  return idx;
}

void pad_for(const std::vector<Offset>& offsets, int ndim, Shape& lo, Shape& hi) {
  lo.assign(ndim, 0);
  hi.assign(ndim, 0);
  for (const auto& o : offsets)
    for (int d = 0; d < ndim; ++d) {
      lo[d] = std::max(lo[d], -o[d]);
      hi[d] = std::max(hi[d], o[d]);
    }
}

std::vector<double> host_doubles(const Array& a, const Stream& stream) {
  return a.to(Device::cpu(), stream).to_vector<double>();  // a device-to-host copy waits for `stream`
}

UnionFind::UnionFind(std::int64_t n) : parent(static_cast<std::size_t>(n)) {
  std::iota(parent.begin(), parent.end(), std::int64_t(0));
}

std::int64_t UnionFind::find(std::int64_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

void UnionFind::unite(std::int64_t a, std::int64_t b) {
  a = find(a);
  b = find(b);
  if (a < b)
    parent[b] = a;
  else if (b < a)
    parent[a] = b;
}

Geom3 geom3(const Shape& shape) {
  Geom3 g;
  std::int64_t* dims[3] = {&g.nz, &g.ny, &g.nx};
  const int nd = static_cast<int>(shape.size());
  for (int d = 0; d < nd; ++d) *dims[3 - nd + d] = shape[d];
  return g;
}

std::vector<Off3> offsets3(const std::vector<Offset>& offsets) {
  std::vector<Off3> out;
  for (const auto& o : offsets) {
    int v[3] = {0, 0, 0};
    const int nd = static_cast<int>(o.size());
    for (int d = 0; d < nd; ++d) v[3 - nd + d] = static_cast<int>(o[d]);
    out.push_back({v[0], v[1], v[2]});
  }
  return out;
}

}  // namespace cuskimage::morphology::detail
