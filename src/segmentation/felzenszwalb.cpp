// segmentation.felzenszwalb: scikit-image's _felzenszwalb_cy.pyx. The float64 image is smoothed
// with the library's Gaussian on its device; the 8-connected edge weights are sorted by (weight,
// edge index) — on the host for the CPU backend, by a CUB radix sort for the CUDA backend (the same
// order: a stable sort of the indices) — and the greedy merge runs on the host as in the .pyx:
// roots are each segment's smallest pixel index, inner costs rounded to float32 as it declares them,
// then the min_size pass over the same order, then labels by first pixel (np.unique's inverse).
#include "cuskimage/segmentation/felzenszwalb.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "cuskimage/filters.hpp"
#include "cuskimage/util.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/validate.hpp"
#include "src/segmentation/felzenszwalb.hpp"

namespace cuskimage::segmentation {
namespace {

using cuskimage::detail::expect;
constexpr std::string_view kFn = "segmentation.felzenszwalb";

/// Union-find whose root is the smallest index of its set, as measure._ccomp's join_trees keeps it.
struct MinForest {
  std::vector<std::int64_t> parent;
  explicit MinForest(std::int64_t n) : parent(static_cast<std::size_t>(n)) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  std::int64_t find(std::int64_t x) {
    std::int64_t r = x;
    while (parent[r] != r) r = parent[r];
    while (parent[x] != r) {
      const std::int64_t n = parent[x];
      parent[x] = r;
      x = n;
    }
    return r;
  }
  std::int64_t join(std::int64_t a, std::int64_t b) {  // roots a != b; returns the new root
    const std::int64_t r = std::min(a, b);
    parent[std::max(a, b)] = r;
    return r;
  }
};

std::vector<std::int64_t> merge(const detail::FzGraph& g, const std::vector<std::int64_t>& order,
                                const std::vector<double>& w, double scale, std::int64_t min_size) {
  const std::int64_t n = g.height * g.width;
  MinForest f(n);
  std::vector<std::int64_t> size(static_cast<std::size_t>(n), 1);
  std::vector<double> cint(static_cast<std::size_t>(n), 0.0);
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::int64_t a, b;
    g.ends(order[i], a, b);
    const std::int64_t s0 = f.find(a), s1 = f.find(b);
    if (s0 == s1) continue;
    const float in0 = static_cast<float>(cint[s0] + scale / static_cast<double>(size[s0]));
    const float in1 = static_cast<float>(cint[s1] + scale / static_cast<double>(size[s1]));
    const float lim = in1 < in0 ? in1 : in0;
    if (w[i] < static_cast<double>(lim)) {
      const std::int64_t r = f.join(s0, s1);
      size[r] = size[s0] + size[s1];
      cint[r] = w[i];
    }
  }
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::int64_t a, b;
    g.ends(order[i], a, b);
    const std::int64_t s0 = f.find(a), s1 = f.find(b);
    if (s0 == s1) continue;
    if (size[s0] < min_size || size[s1] < min_size) {
      const std::int64_t r = f.join(s0, s1);
      size[r] = size[s0] + size[s1];
    }
  }
  std::vector<std::int64_t> label(static_cast<std::size_t>(n));
  std::int64_t next = 0;
  for (std::int64_t p = 0; p < n; ++p) {  // a root precedes its set's other pixels
    const std::int64_t r = f.find(p);
    label[p] = r == p ? next++ : label[r];
  }
  return label;
}

}  // namespace

Array felzenszwalb(const Array& image, const FelzenszwalbOptions& opts, const Stream& stream) {
  cuskimage::detail::expect_valid(image, kFn, "image");
  expect(image.size() > 0, kFn, "image", "must not be empty");
  expect(opts.sigma >= 0, kFn, "sigma", "must be non-negative, got ", opts.sigma);
  const int nd = image.ndim();
  Array img;
  if (nd == 2) {
    img = image.expand_dims(2);
  } else {
    expect(nd == 3 && opts.channel_axis.has_value(), kFn, "image", "must be a single or multi-channel 2-D image, got ",
           nd, " dimensions", opts.channel_axis ? "" : " without a channel axis");
    const int ax = *opts.channel_axis < 0 ? *opts.channel_axis + nd : *opts.channel_axis;
    expect(ax >= 0 && ax < nd, kFn, "channel_axis", "is out of range for a 3-D image, got ", *opts.channel_axis);
    std::vector<int> perm;
    for (int a = 0; a < nd; ++a)
      if (a != ax) perm.push_back(a);
    perm.push_back(ax);
    img = image.transpose(perm);
  }
  const detail::FzGraph g{img.shape(0), img.shape(1), img.shape(2)};
  const Array sm =
      filters::gaussian(util::img_as_float64(img, {}, stream),
                        {.sigma = std::vector<double>{opts.sigma, opts.sigma, 0.0}, .mode = ndimage::Mode::reflect},
                        stream)
          .astype(DType::float64, stream)
          .contiguous(stream);
  const double scale = opts.scale / 255.0;
  std::vector<double> w;
  std::vector<std::int64_t> order;
  const bool on_cpu = image.device().is_cpu();
  if (on_cpu) {
    const double* v = sm.data<double>();
    const std::int64_t m = g.count();
    std::vector<double> all(static_cast<std::size_t>(std::max<std::int64_t>(m, 0)));
    for (std::int64_t e = 0; e < m; ++e) all[e] = g.weight(v, e);
    order.resize(all.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return all[a] < all[b]; });
    w.resize(all.size());
    for (std::size_t i = 0; i < order.size(); ++i) w[i] = all[order[i]];
  } else {
    cuskimage::detail::on_backend(
        sm, stream, [] {}, [&](auto) { order = detail::cuda_felzenszwalb_sorted_edges(sm, g, w, stream); });
  }
  const std::vector<std::int64_t> lab = merge(g, order, w, scale, opts.min_size);
  Array out = Array::from_vector(lab, {g.height, g.width});
  if (on_cpu) return out;
  return out.to(image.device(), stream);
}

}  // namespace cuskimage::segmentation
