// The parallel max-tree of kernels/morphology/max_tree.cu, written once as __host__ __device__ code:
// the CUDA kernels call these bodies, and tests/morphology/test_max_tree.cpp runs the same bodies on
// host threads (std::atomic_ref) to check the algorithm against the sequential CPU oracle.
//
// The tree (scikit-image's canonical form, which does not depend on how it is computed):
//   * every node is the set of pixels of one value v in one connected component of {f >= v};
//     its canonical pixel is its pixel of smallest flat index (the one the stable argsort puts
//     first, i.e. the last one Berger's reverse-order union-find processes);
//   * a non-canonical pixel points to its node's canonical pixel, a canonical pixel to the
//     canonical pixel of the parent node (the node of the next lower value containing it); the
//     root (traverser[0]) points to itself.
// NaN pixels: scikit-image's `image[q] == image[parent[q]]` is false for NaN, so every NaN pixel
// stays its own node and keeps the raw union-find parent. The dense levels below give each NaN its
// own level, ordered by flat index (numpy's stable argsort puts NaNs last in index order), and the
// max-tree of those levels is exactly that raw parent; the same rules then give scikit-image's array.
//
// Algorithm (levels are the dense ranks of the sorted values, NaNs one level each):
//   1. par[p] = p (the tree being built), zpar[p] = p (a union-find of the components processed).
//   2. Levels are processed in batches of D consecutive levels from the top. In a batch, every edge
//      (p, q) whose lower end p (in (level, index) order) lies in the batch is merged into the tree
//      concurrently (merge(): the "connect" of two max-tree branches, lock-free with CAS, as in
//      Blin, Carlinet, Geraud et al., "Max-tree computation on GPUs", TPDS 2022). An end q in an
//      already processed component is first replaced by that component's union-find root (its
//      bottom node's level root), so walks stay inside the batch: at most D levels long. Then the
//      batch's edges are united in zpar (a second kernel, so the first sees the previous sets).
//   3. Merging equal levels always hangs the larger index under the smaller, so each node's level
//      root is its smallest index: the canonical pixel. finalize_*() write scikit-image's parent.
//   The tree is read and written through its links (TreePackedLinks: parent and parent's level
//   in one 64-bit word, so a walk step is one load).
//
// Why the concurrent merge is exact (no lock, any interleaving): every pointer par[a] = b it writes
// joins two pixels that are connected through pixels of level >= level(b) (true of the pair merge()
// starts from and kept by each step), so a node's subtree never leaves its component; pointers only
// go down in level, or between equal levels to a smaller index, so no cycle forms; and when all
// merges have returned, the branches of the two ends of every edge meet at the lower end's level.
// Those three facts make the tree the max-tree.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "src/core/hd.hpp"

namespace cuskimage::morphology::detail {

inline constexpr int kTreeMaxDims = 8;
inline constexpr int kTreeMaxNeighbours = 80;

/// Image geometry and the neighbour offsets of generate_binary_structure(nd, connectivity).
struct TreeGeom {
  int nd = 0;
  int nnb = 0;
  std::int64_t shape[kTreeMaxDims] = {};
  std::int64_t delta[kTreeMaxNeighbours] = {};
  std::int8_t dc[kTreeMaxNeighbours][kTreeMaxDims] = {};
};

/// The offsets of generate_binary_structure(nd, connectivity) but the centre, in raster order (the
/// neighbour order of both backends): f(o, delta) with o the nd offsets in {-1, 0, 1} and delta
/// the flat step for `stride`; f returns false to stop (then so does this).
template <class F>
bool for_each_structure_offset(const std::vector<std::int64_t>& stride, int connectivity, F&& f) {
  const int nd = static_cast<int>(stride.size());
  std::int64_t total = 1;
  for (int d = 0; d < nd; ++d) total *= 3;
  std::vector<int> o(static_cast<std::size_t>(nd));
  for (std::int64_t k = 0; k < total; ++k) {
    std::int64_t r = k, dl = 0;
    int steps = 0;
    for (int d = nd - 1; d >= 0; --d) {
      o[d] = static_cast<int>(r % 3) - 1;
      r /= 3;
      steps += o[d] != 0;
      dl += o[d] * stride[d];
    }
    if (steps == 0 || steps > connectivity) continue;
    if (!f(o, dl)) return false;
  }
  return true;
}

/// False when the image has more than kTreeMaxDims axes or the structure more than
/// kTreeMaxNeighbours neighbours.
inline bool make_tree_geom(const std::vector<std::int64_t>& shape, int connectivity, TreeGeom& g) {
  const int nd = static_cast<int>(shape.size());
  if (nd < 1 || nd > kTreeMaxDims) return false;
  g = TreeGeom{};
  g.nd = nd;
  std::vector<std::int64_t> stride(static_cast<std::size_t>(nd));
  for (int d = nd - 1; d >= 0; --d) {
    g.shape[d] = shape[d];
    stride[d] = d == nd - 1 ? 1 : stride[d + 1] * shape[d + 1];
  }
  return for_each_structure_offset(stride, connectivity, [&](const std::vector<int>& o, std::int64_t dl) {
    if (g.nnb == kTreeMaxNeighbours) return false;
    for (int d = 0; d < nd; ++d) g.dc[g.nnb][d] = static_cast<std::int8_t>(o[d]);
    g.delta[g.nnb++] = dl;
    return true;
  });
}

/// Calls f(q) for every neighbour q of pixel p inside the image.
template <class I, class F>
CUSK_HD void for_each_neighbour(const TreeGeom& g, I p, F&& f) {
  I c[kTreeMaxDims];
  I r = p;
  bool interior = true;
  for (int d = g.nd - 1; d >= 0; --d) {
    const I s = static_cast<I>(g.shape[d]);
    c[d] = r % s;
    r /= s;
    interior = interior && c[d] > 0 && c[d] + 1 < s;
  }
  for (int k = 0; k < g.nnb; ++k) {
    if (!interior) {
      bool in = true;
      for (int d = 0; d < g.nd; ++d) {
        const std::int64_t cc = static_cast<std::int64_t>(c[d]) + g.dc[k][d];
        in = in && cc >= 0 && cc < g.shape[d];
      }
      if (!in) continue;
    }
    f(static_cast<I>(static_cast<std::int64_t>(p) + g.delta[k]));
  }
}

// ---- values -------------------------------------------------------------------------------------

/// Unsigned sort key with numpy's order (NaN last, -0 == +0); NaN keys are all ones.
template <class T>
struct TreeKey {
  using type = std::conditional_t<sizeof(T) == 1, std::uint8_t,
                                  std::conditional_t<sizeof(T) == 2, std::uint16_t,
                                                     std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;
  static constexpr type nan_key = static_cast<type>(~type(0));
  CUSK_HD static type of(T x) {
    if constexpr (std::is_floating_point_v<T>) {
      if (x != x) return nan_key;
      if (x == T(0)) x = T(0);  // -0 sorts with +0
      type b;
      std::memcpy(&b, &x, sizeof(b));
      constexpr type sign = type(1) << (8 * sizeof(type) - 1);
      return (b & sign) ? static_cast<type>(~b) : static_cast<type>(b | sign);
    } else if constexpr (std::is_signed_v<T>) {
      constexpr type sign = type(1) << (8 * sizeof(type) - 1);
      return static_cast<type>(static_cast<type>(x) ^ sign);
    } else {
      return static_cast<type>(x);
    }
  }
  /// Each NaN is a level of its own (NaN != NaN in scikit-image's canonicalisation).
  CUSK_HD static bool own_level(type k) { return std::is_floating_point_v<T> && k == nan_key; }
};

/// util.invert for the tree's dtypes: max - x (unsigned), -1 - x (signed), np.subtract(1, x) in the
/// image's dtype (float). For a NaN, numpy's 1 - x on x86 (SSE/AVX) returns x itself with its quiet
/// bit set (sign and payload kept: -NaN stays -NaN, a signalling NaN becomes quiet), and so does the
/// closing's second inversion; NVIDIA's float subtraction would return the canonical NaN 0x7fffffff
/// instead. So NaNs are inverted by their bits, the same on both backends. -0 and +0 both give 1
/// (and a closing turns a kept -0 into +0, 1 - 1).
template <class T>
CUSK_HD T tree_invert(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    if (x != x) {
      using B = typename TreeKey<T>::type;
      constexpr B quiet = B(1) << (std::numeric_limits<T>::digits - 2);
      B b;
      std::memcpy(&b, &x, sizeof(b));
      b = static_cast<B>(b | quiet);
      std::memcpy(&x, &b, sizeof(b));
      return x;
    }
    return T(T(1) - x);
  } else if constexpr (std::is_unsigned_v<T>) {
    return T(std::numeric_limits<T>::max() - x);
  } else {
    return T(T(-1) - x);
  }
}

// ---- the concurrent tree ------------------------------------------------------------------------
// M is the memory policy: M::load(p), M::store(p, v) (relaxed atomics) and M::cas(p, expected,
// desired) -> bool. Levels are read-only during the build.
//
// The tree being built is read and written through its links L: a link of pixel x is its parent
// and the parent's level (every walk step compares levels), L::get(x), L::set(x, link),
// L::cas(x, expected, desired). TreePackedLinks keeps both in one 64-bit word per pixel (a step is
// one load; a level never changes, so comparing words compares parents). Parents kept apart from
// the levels (par[] beside lev[]: two dependent loads per step) were 3-22 % slower at every batch
// size of the H200 sweep.

/// A pixel's parent and the parent's level.
template <class I>
struct TreeLink {
  I to;
  I lev;
};

/// word = parent | level(parent) << 32 (32-bit pixel indices).
template <class M>
struct TreePackedLinks {
  std::uint64_t* word;
  CUSK_HD static std::uint64_t pack(TreeLink<std::uint32_t> l) { return (std::uint64_t(l.lev) << 32) | l.to; }
  CUSK_HD TreeLink<std::uint32_t> get(std::uint32_t x) const {
    const std::uint64_t w = M::load(word + x);
    return {static_cast<std::uint32_t>(w), static_cast<std::uint32_t>(w >> 32)};
  }
  CUSK_HD void set(std::uint32_t x, TreeLink<std::uint32_t> l) const { M::store(word + x, pack(l)); }
  CUSK_HD bool cas(std::uint32_t x, TreeLink<std::uint32_t> expected, TreeLink<std::uint32_t> desired) const {
    return M::cas(word + x, pack(expected), pack(desired));
  }
};

/// (level, index) order: a is processed before b in scikit-image's reverse traversal.
template <class I>
CUSK_HD bool tree_above(I la, I a, I lb, I b) {
  return la > lb || (la == lb && a > b);
}

/// The level root of x's node (lx: x's level): follow parents of the same level (path halving;
/// only pixels that already have a parent of their own level are rewritten, and those never get a
/// CAS).
template <class L, class I>
CUSK_HD I tree_level_root(const L& t, I x, I lx) {
  while (true) {
    const TreeLink<I> y = t.get(x);
    if (y.to == x || y.lev != lx) return x;
    const TreeLink<I> z = t.get(y.to);
    if (z.to == y.to || z.lev != lx) return y.to;
    t.set(x, z);
    x = z.to;
  }
}

/// Merges the branches of a and b (levels la, lb; two pixels connected through pixels of level >=
/// min(la, lb)) into one, interleaving their nodes by level and joining equal levels.
template <class L, class I>
CUSK_HD void tree_merge(const L& t, I a, I la, I b, I lb) {
  while (true) {
    a = tree_level_root(t, a, la);
    b = tree_level_root(t, b, lb);
    if (a == b) return;
    if (tree_above(lb, b, la, a)) {
      const I u = a, v = la;
      a = b;
      la = lb;
      b = u;
      lb = v;
    }
    // a is above b: b's node goes somewhere below a on a's branch.
    const TreeLink<I> z = t.get(a);
    if (z.to != a && z.lev == la) continue;  // a was joined to a node of its level meanwhile
    if (z.to == a || z.lev < lb) {
      // b fits between a and its parent z (or a is a root): hang a under b, then merge b's branch
      // with z's.
      if (t.cas(a, z, TreeLink<I>{b, lb})) {
        if (z.to == a) return;
        a = b;
        la = lb;
        b = z.to;
        lb = z.lev;
      }
      continue;
    }
    a = z.to;  // z is still at or above b's level: go down a's branch
    la = z.lev;
  }
}

template <class M, class I>
CUSK_HD I tree_zfind(I* zp, I x) {
  while (true) {
    const I y = M::load(zp + x);
    if (y == x) return x;
    const I z = M::load(zp + y);
    if (z == y) return y;
    M::store(zp + x, z);
    x = z;
  }
}

/// Unites the sets of a and b; the root is always the set's lowest pixel in (level, index) order.
template <class M, class I>
CUSK_HD void tree_zunite(I* zp, const I* lev, I a, I b) {
  while (true) {
    a = tree_zfind<M>(zp, a);
    b = tree_zfind<M>(zp, b);
    if (a == b) return;
    if (tree_above(lev[b], b, lev[a], a)) {
      const I t = a;
      a = b;
      b = t;
    }
    if (M::cas(zp + a, a, b)) return;
  }
}

/// Batch of levels [lo, hi): merges the edges whose lower end is pixel p (a pixel of the batch).
template <class M, class L, class I>
CUSK_HD void tree_batch_merge(const TreeGeom& g, const L& t, I* zp, const I* lev, I p, I hi) {
  const I lp = lev[p];
  I last = p;  // the processed component merged last (neighbours often share one)
  for_each_neighbour(g, p, [&](I q) {
    const I lq = lev[q];
    if (!tree_above(lq, q, lp, p)) return;  // the edge belongs to q
    if (lq >= hi) {
      const I r = tree_zfind<M>(zp, q);
      if (r == last) return;
      last = r;
      tree_merge(t, p, lp, r, lev[r]);
    } else {
      tree_merge(t, p, lp, q, lq);
    }
  });
}

/// Second pass of a batch: the same edges into the union-find.
template <class M, class I>
CUSK_HD void tree_batch_union(const TreeGeom& g, I* zp, const I* lev, I p) {
  const I lp = lev[p];
  for_each_neighbour(g, p, [&](I q) {
    if (tree_above(lev[q], q, lp, p)) tree_zunite<M>(zp, lev, p, q);
  });
}

/// Finalisation 1: out[p] = p's canonical pixel (its node's level root).
template <class L, class I>
CUSK_HD void tree_finalize_canonical(const L& t, const I* lev, I p, std::int64_t* out) {
  out[p] = static_cast<std::int64_t>(tree_level_root(t, p, lev[p]));
}

/// Finalisation 2 (after 1 everywhere): a canonical pixel points to the canonical pixel of its
/// parent node. Reads out[] only of non-canonical pixels, which this pass does not rewrite.
template <class L, class I>
CUSK_HD void tree_finalize_parent(const L& t, I p, std::int64_t* out) {
  if (out[p] != static_cast<std::int64_t>(p)) return;
  const TreeLink<I> x = t.get(p);
  if (x.to == p) return;  // the root
  const TreeLink<I> y = t.get(x.to);
  out[p] = (y.to != x.to && y.lev == x.lev) ? out[x.to] : static_cast<std::int64_t>(x.to);
}

// ---- attributes and filters over a tree given by a parent array ---------------------------------
// The tree: parent P (int64, any valid tree: every pixel's parent before it in the traverser), root
// = traverser[0]; P[root] is never read, as in scikit-image. These reproduce the sequential loops of
// _max_tree.pyx, which for such a tree do not depend on the traversal order (except the labels'
// numbering, which comes from the traverser positions).
//
// The direct filter only compares attributes with the threshold, and both attributes grow towards
// the root (a subtree's pixel count and bounding box contain its children's). So the accumulation
// climbs from the leaves only through nodes still below the threshold: a node that reaches it is
// "big", and so are all its ancestors, whose exact values do not matter. A node is small iff all its
// children were small and pushed (pending == 0) and its own value is below the threshold; every
// climb and every filter walk then passes only small nodes, fewer than the threshold's area
// (area) or threshold^ndim (diameter) of them, however deep the tree.

/// area[z] += area[y] (area starts at 1 per pixel: the subtree's pixel count).
struct TreeAreaAcc {
  std::uint32_t* area;
  template <class M>
  CUSK_HD void push(std::uint32_t y, std::uint32_t z) const {
    M::add(area + z, M::load(area + y));
  }
  template <class M>
  CUSK_HD double value(std::uint32_t y) const {
    return static_cast<double>(M::load(area + y));
  }
};

/// Bounding box (lo, hi per axis, pixel-major: [p * nd + d]) of z grown by y's; the value is the
/// longest side, as _compute_extension (1 for a pixel).
struct TreeBoxAcc {
  std::int32_t* lo;
  std::int32_t* hi;
  int nd;
  template <class M>
  CUSK_HD void push(std::uint32_t y, std::uint32_t z) const {
    for (int d = 0; d < nd; ++d) {
      M::min(lo + std::size_t(z) * nd + d, M::load(lo + std::size_t(y) * nd + d));
      M::max(hi + std::size_t(z) * nd + d, M::load(hi + std::size_t(y) * nd + d));
    }
  }
  template <class M>
  CUSK_HD double value(std::uint32_t y) const {
    std::int32_t m = 0;
    for (int d = 0; d < nd; ++d) {
      const std::int32_t e = M::load(hi + std::size_t(y) * nd + d) - M::load(lo + std::size_t(y) * nd + d);
      m = e > m ? e : m;
    }
    return static_cast<double>(m) + 1.0;
  }
};

/// y is complete (all its children pushed): while it stays below the threshold, push it to its
/// parent and go on if this thread brought the parent's last child (pending: children not pushed).
template <class M, class Acc>
CUSK_HD void tree_climb(const std::int64_t* P, std::uint32_t root, std::uint32_t y, const Acc& acc,
                        std::uint32_t* pending, double thr) {
  while (y != root && acc.template value<M>(y) < thr) {
    const auto z = static_cast<std::uint32_t>(P[y]);
    acc.template push<M>(y, z);
    M::fence();
    if (M::sub(pending + z, 1u) != 1u) return;
    M::fence();
    y = z;
  }
}

/// After the climb: p's attribute reaches the threshold (exact for small nodes; a node with a child
/// left unpushed has a big child).
template <class M, class Acc>
CUSK_HD bool tree_big(const std::uint32_t* pending, const Acc& acc, std::uint32_t p, double thr) {
  return pending[p] != 0 || acc.template value<M>(p) >= thr;
}

/// Direct filter: p keeps its value when it is canonical (its parent's value differs) and big; else
/// it takes its parent's output. link(p) is p itself for such pixels and the root, else the parent;
/// the output is the value at the end of the links.
template <class T, class Big>
CUSK_HD std::uint32_t tree_filter_link(const T* v, const std::int64_t* P, std::uint32_t root, std::uint32_t p,
                                       const Big& big) {
  if (p == root) return p;
  const auto q = static_cast<std::uint32_t>(P[p]);
  return (!(v[p] == v[q]) && big(p)) ? p : q;
}

/// End of the links from x (path halving: every rewrite keeps the same end).
template <class M>
CUSK_HD std::uint32_t tree_link_end(std::uint32_t* link, std::uint32_t x) {
  return tree_zfind<M>(link, x);
}

/// The root outputs 0 when its attribute is below the threshold, as _direct_filter.
template <class T>
CUSK_HD T tree_filter_value(const T* v, std::uint32_t root, std::uint32_t end, bool root_big) {
  if (end == root) return root_big ? v[root] : T(0);
  return v[end];
}

/// max_tree_local_maxima: p != root whose value differs from its parent's.
template <class T>
CUSK_HD bool tree_lm_canonical(const T* v, const std::int64_t* P, std::uint32_t root, std::uint32_t p) {
  return p != root && !(v[p] == v[static_cast<std::uint32_t>(P[p])]);
}

/// First pass's output of pixel x at traverser position i: the label of a leaf (a canonical pixel
/// that no canonical pixel points to), counted from the end of the traverser; 0 for a pixel some
/// canonical pixel points to; 1 otherwise. `before`: leaves at positions < i; `leaves`: all.
CUSK_HD std::uint64_t tree_lm_first(bool canonical, bool has_canonical_child, std::uint32_t before,
                                    std::uint32_t leaves) {
  if (has_canonical_child) return 0;
  return canonical ? std::uint64_t(leaves - before) : 1;
}

/// A batch of the build: levels [lo, hi).
struct TreeBatch {
  std::uint32_t lo, hi;
};

/// The batches from the top level down, `per` levels each (per >= 1).
inline std::vector<TreeBatch> tree_batch_plan(std::uint32_t levels, std::uint32_t per) {
  std::vector<TreeBatch> plan;
  if (per == 0) per = 1;
  for (std::uint32_t hi = levels; hi > 0;) {
    const std::uint32_t lo = hi > per ? hi - per : 0;
    plan.push_back({lo, hi});
    hi = lo;
  }
  return plan;
}

/// Levels per batch: a batch costs two launches and a drain, and a merge walks up to D levels; D
/// ~ sqrt(L c / n) balances the two. c = 4.4e6 from the H200 sweep of packed links on uint8
/// texture: D = 16 at 2048^2 (8.6 ms; the first rule's D = 3: 10.1 ms) and D = 4 at
/// 8192^2 (127 ms; D = 1: 147 ms).
inline std::uint32_t tree_levels_per_batch(std::uint64_t n, std::uint64_t levels) {
  if (n == 0) return 1;
  const double d = std::floor(std::sqrt(static_cast<double>(levels) * 4.4e6 / static_cast<double>(n)));
  return static_cast<std::uint32_t>(d < 1 ? 1 : d > 4096 ? 4096 : d);
}

}  // namespace cuskimage::morphology::detail
