// measure.label: argument handling and the CPU backend (a sequential union-find over the backward
// half of the neighbourhood, any number of dimensions, then numbering in raster order). The CUDA
// backend is kernels/measure/label.cu; both number regions by their first pixel, so they agree
// with each other and with scikit-image exactly.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cuskimage/measure.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/indexer.hpp"
#include "src/core/validate.hpp"
#include "src/measure/label.hpp"

namespace cuskimage::measure {
namespace {

using cuskimage::detail::AllTypes;
using cuskimage::detail::expect;

constexpr std::string_view kFn = "measure.label";

std::int64_t find_root(std::vector<std::int64_t>& p, std::int64_t x) {
  while (p[x] != x) {
    p[x] = p[p[x]];
    x = p[x];
  }
  return x;
}

/// Backward neighbour offsets of an N-d grid under `connectivity` hops, as per-axis steps.
std::vector<std::vector<int>> backward_offsets(int nd, int connectivity) {
  std::vector<std::vector<int>> out;
  std::vector<int> d(nd, -1);
  for (;;) {
    int hops = 0, first = 0;
    for (int k = 0; k < nd; ++k) {
      hops += d[k] != 0;
      if (first == 0) first = d[k];
    }
    if (hops > 0 && hops <= connectivity && first < 0) out.push_back(d);
    int k = nd - 1;
    while (k >= 0 && d[k] == 1) d[k--] = -1;
    if (k < 0) break;
    ++d[k];
  }
  return out;
}

template <class T, class L>
std::int64_t cpu_label(const Array& img, Array& out, const detail::LabelKey& key, int connectivity) {
  const Array c = img.contiguous();
  const T* v = static_cast<const T*>(c.data());
  L* o = static_cast<L*>(out.data());
  const std::int64_t n = c.size();
  const int nd = c.ndim();
  const Shape& shape = c.shape();
  const Strides st = contiguous_strides(shape);
  const auto offs = backward_offsets(nd, connectivity);
  std::vector<std::int64_t> lin(offs.size());
  for (std::size_t e = 0; e < offs.size(); ++e)
    for (int k = 0; k < nd; ++k) lin[e] += offs[e][k] * st[k];

  std::vector<std::int64_t> parent(static_cast<std::size_t>(n), -1);
  std::vector<std::int64_t> coord(nd, 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t k = key(v[i]);
    if (k != key.background) {
      parent[i] = i;
      for (std::size_t e = 0; e < offs.size(); ++e) {
        bool inside = true;
        for (int a = 0; a < nd && inside; ++a) {
          const std::int64_t q = coord[a] + offs[e][a];
          inside = q >= 0 && q < shape[a];
        }
        if (!inside) continue;
        const std::int64_t j = i + lin[e];
        if (parent[j] < 0 || key(v[j]) != k) continue;
        const std::int64_t a = find_root(parent, i), b = find_root(parent, j);
        if (a != b) parent[std::max(a, b)] = std::min(a, b);
      }
    }
    for (int a = nd - 1; a >= 0; --a) {  // next coordinate, C order
      if (++coord[a] < shape[a]) break;
      coord[a] = 0;
    }
  }
  std::int64_t count = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (parent[i] < 0) {
      o[i] = 0;
      continue;
    }
    const std::int64_t r = find_root(parent, i);
    o[i] = r == i ? static_cast<L>(++count) : o[r];  // a root is its region's first pixel
  }
  return count;
}

LabelResult run(const Array& image, const LabelOptions& opts, bool want_num, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  expect(image.ndim() >= 1, kFn, "image", "must have at least one dimension, got a 0-D array");
  const int nd = image.ndim();
  const int conn = opts.connectivity.value_or(nd);
  expect(conn >= 1 && conn <= nd, kFn, "connectivity", "for a ", nd, "D image must be in [1, ..., ", nd, "], got ",
         conn);
  const bool is_bool = image.dtype() == DType::bool_;
  const DType odt = opts.dtype.value_or(is_bool ? DType::int32 : DType::int64);
  expect(odt == DType::int32 || odt == DType::int64, kFn, "dtype", "must be int32 or int64, got ", dtype_name(odt));
  detail::LabelKey key;
  if (is_bool) {
    key.invert = opts.background.value_or(0) == 1;  // scikit-image: background 1 labels the false pixels
    key.background = 0;
  } else {
    key.background = opts.background.value_or(0);
  }
  LabelResult r;
  r.labels = Array::empty(image.shape(), odt, image.device(), stream);
  cuskimage::detail::dispatch<AllTypes>(image.dtype(), kFn, [&]<class T>() {
    cuskimage::detail::on_backend(
        image, stream,
        [&] {
          r.num = odt == DType::int32 ? cpu_label<T, std::int32_t>(image, r.labels, key, conn)
                                      : cpu_label<T, std::int64_t>(image, r.labels, key, conn);
        },
        [&](auto /*handle*/) {
          if (nd > 3)
            cuskimage::detail::fail<NotSupported>(kFn, "argument 'image' must be 1-D to 3-D on a CUDA device, got ",
                                                  nd, "-D");
          const Array c = image.contiguous(stream);
          detail::cuda_label<T>(c, r.labels, key, conn, want_num ? &r.num : nullptr, stream);
        });
  });
  return r;
}

}  // namespace

Array label(const Array& image, const LabelOptions& opts, const Stream& stream) {
  return run(image, opts, false, stream).labels;
}

LabelResult label_with_num(const Array& image, const LabelOptions& opts, const Stream& stream) {
  return run(image, opts, true, stream);
}

}  // namespace cuskimage::measure
