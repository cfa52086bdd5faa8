// segmentation.felzenszwalb: scikit-image's _felzenszwalb_cy.pyx. The float64 image is smoothed
// with the library's Gaussian on its device; the 8-connected edge weights are sorted by (weight,
// edge index) — on the host for the CPU backend, by a CUB radix sort for the CUDA backend (the same
// order: a stable sort of the indices), which also writes each sorted edge's two pixels — and the
// greedy merge runs on the host as in the .pyx (it is sequential: each decision depends on the
// segments the earlier ones made):
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

/// One segment-forest node: parent, size and inner cost side by side, so a find's last step and the
/// merge test touch one cache line per root (the edges come in weight order, i.e. at random places
/// of the image, and the merge is bound by those misses).
template <class I>
struct FzNode {
  I parent;
  I size;
  double cint;
};

/// Union-find whose root is the smallest index of its set, as measure._ccomp's join_trees keeps it.
template <class I>
I find_root(std::vector<FzNode<I>>& f, I x) {
  I r = x;
  while (f[r].parent != r) r = f[r].parent;
  while (f[x].parent != r) {
    const I n = f[x].parent;
    f[x].parent = r;
    x = n;
  }
  return r;
}

/// The .pyx's greedy merge over the edges in weight order (ends: 2 m pixel indices, w: m weights),
/// then its min_size pass over the same order, then labels by first pixel. Nodes of edges a few
/// places ahead, and their parents', are prefetched.
template <class I>
std::vector<std::int64_t> merge(std::int64_t n, std::int64_t m, const I* ends, const double* w, double scale,
                                std::int64_t min_size) {
  std::vector<FzNode<I>> f(static_cast<std::size_t>(n));
  for (std::int64_t p = 0; p < n; ++p) f[p] = {static_cast<I>(p), I(1), 0.0};
  constexpr std::int64_t kAhead = 16;
  auto prefetch = [&](std::int64_t i) {
    if (i + kAhead < m) {  // the ends' nodes, then (their lines requested kAhead / 2 edges ago) their parents'
      __builtin_prefetch(&f[ends[2 * (i + kAhead)]]);
      __builtin_prefetch(&f[ends[2 * (i + kAhead) + 1]]);
    }
    if (i + kAhead / 2 < m) {
      __builtin_prefetch(&f[f[ends[2 * (i + kAhead / 2)]].parent]);
      __builtin_prefetch(&f[f[ends[2 * (i + kAhead / 2) + 1]].parent]);
    }
  };
  // A segment's threshold float(cint + scale / size) is at most (the largest weight merged so far
  // + scale) for scale >= 0, rounded up by 2^-23 at most (double sum, then float): from the first edge at or above
  // that bound (the weights ascend), no edge of the first pass can merge.
  double merged_max = 0.0;
  for (std::int64_t i = 0; i < m; ++i) {
    if (scale >= 0 && w[i] >= (merged_max + scale) * (1.0 + 0x1p-23)) break;
    prefetch(i);
    const I s0 = find_root(f, ends[2 * i]), s1 = find_root(f, ends[2 * i + 1]);
    if (s0 == s1) continue;
    const float in0 = static_cast<float>(f[s0].cint + scale / static_cast<double>(f[s0].size));
    const float in1 = static_cast<float>(f[s1].cint + scale / static_cast<double>(f[s1].size));
    const float lim = in1 < in0 ? in1 : in0;
    if (w[i] < static_cast<double>(lim)) {
      const I r = std::min(s0, s1);
      f[std::max(s0, s1)].parent = r;
      f[r].size = f[s0].size + f[s1].size;
      f[r].cint = w[i];
      merged_max = std::max(merged_max, w[i]);
    }
  }
  // Flattened, the forest answers most edges of the second pass (both ends under one parent: one
  // segment) without a find.
  for (std::int64_t p = 0; p < n; ++p) f[p].parent = f[f[p].parent].parent;
  for (std::int64_t i = 0; i < m; ++i) {
    prefetch(i);
    if (f[ends[2 * i]].parent == f[ends[2 * i + 1]].parent) continue;
    const I s0 = find_root(f, ends[2 * i]), s1 = find_root(f, ends[2 * i + 1]);
    if (s0 == s1) continue;
    if (f[s0].size < min_size || f[s1].size < min_size) {
      const I r = std::min(s0, s1);
      f[std::max(s0, s1)].parent = r;
      f[r].size = f[s0].size + f[s1].size;
    }
  }
  std::vector<std::int64_t> label(static_cast<std::size_t>(n));
  std::int64_t next = 0;
  for (std::int64_t p = 0; p < n; ++p) {  // a root precedes its set's other pixels
    const I r = find_root(f, static_cast<I>(p));
    label[p] = r == p ? next++ : label[r];
  }
  return label;
}

/// The CPU backend's edges: weights, a stable sort of the indices by weight, then the sorted
/// weights and end pixels.
template <class I>
void cpu_sorted_edges(const Array& sm, const detail::FzGraph& g, Array& weights, Array& ends) {
  const double* v = sm.data<double>();
  const std::int64_t m = std::max<std::int64_t>(g.count(), 0);
  std::vector<double> all(static_cast<std::size_t>(m));
  for (std::int64_t e = 0; e < m; ++e) all[e] = g.weight(v, e);
  std::vector<std::int64_t> order(static_cast<std::size_t>(m));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return all[a] < all[b]; });
  weights = Array::empty({m}, DType::float64);
  ends = Array::empty({2 * m}, dtype_of<I>::value);
  double* w = weights.data<double>();
  I* ab = ends.data<I>();
  for (std::int64_t i = 0; i < m; ++i) {
    std::int64_t a, b;
    g.ends(order[i], a, b);
    w[i] = all[order[i]];
    ab[2 * i] = static_cast<I>(a);
    ab[2 * i + 1] = static_cast<I>(b);
  }
}

template <class I>
std::vector<std::int64_t> segment(const Array& sm, const detail::FzGraph& g, double scale, std::int64_t min_size,
                                  bool on_cpu, const Stream& stream) {
  Array weights, ends;
  if (on_cpu)
    cpu_sorted_edges<I>(sm, g, weights, ends);
  else
    cuskimage::detail::on_backend(
        sm, stream, [] {}, [&](auto) { detail::cuda_felzenszwalb_sorted_edges(sm, g, weights, ends, stream); });
  const std::int64_t m = weights.valid() ? weights.size() : 0;
  return merge<I>(g.height * g.width, m, m > 0 ? ends.data<I>() : nullptr, m > 0 ? weights.data<double>() : nullptr,
                  scale, min_size);
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
  const bool on_cpu = image.device().is_cpu();
  const std::vector<std::int64_t> lab =
      g.height * g.width < (std::int64_t(1) << 31)
          ? segment<std::int32_t>(sm, g, scale, opts.min_size, on_cpu, stream)
          : segment<std::int64_t>(sm, g, scale, opts.min_size, on_cpu, stream);
  Array out = Array::from_vector(lab, {g.height, g.width});
  if (on_cpu) return out;
  return out.to(image.device(), stream);
}

}  // namespace cuskimage::segmentation
