// scikit-image's _prune_blobs on the host. The result depends on the order the overlapping pairs
// are visited (a pruned blob no longer prunes others), which is Python's iteration order of the set
// scipy's cKDTree.query_pairs returns. That order is the set's hash-table slot order: computed here
// by inserting the pairs, in sorted order, into a replica of CPython's set table (tuple hash,
// linear probes, perturbation, growth). scipy inserts them in its tree traversal order instead;
// the two differ only where pairs collide in the table.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <utility>
#include <vector>

#include "src/feature/blob.hpp"

namespace cuskimage::feature::detail {
namespace {

using u64 = std::uint64_t;
using Pair = std::pair<std::int64_t, std::int64_t>;

/// CPython's hash of the tuple (i, j) of non-negative ints (the xxHash-based tuple hash).
u64 tuple_hash(std::int64_t i, std::int64_t j) {
  constexpr u64 p1 = 11400714785074694791ULL, p2 = 14029467366897019727ULL, p5 = 2870177450012600261ULL;
  u64 acc = p5;
  for (u64 lane : {static_cast<u64>(i), static_cast<u64>(j)}) {
    acc += lane * p2;
    acc = (acc << 31) | (acc >> 33);
    acc *= p1;
  }
  acc += 2 ^ (p5 ^ 3527539ULL);
  return acc == ~u64{0} ? 1546275796ULL : acc;
}

struct Slot {
  u64 hash = 0;
  std::int64_t key = -1;  // index into the pair list; -1 empty
};

/// CPython's probe sequence: up to 9 linear probes after the home slot, then the perturbed jump.
std::size_t free_slot(const std::vector<Slot>& t, u64 hash) {
  const u64 mask = t.size() - 1;
  u64 perturb = hash, i = hash & mask;
  for (;;) {
    const int probes = i + 9 <= mask ? 9 : 0;
    for (int k = 0; k <= probes; ++k)
      if (t[i + k].key < 0) return i + k;
    perturb >>= 5;
    i = (i * 5 + 1 + perturb) & mask;
  }
}

/// Python's list(set(pairs)) for pairs added in the given order.
std::vector<Pair> python_set_order(const std::vector<Pair>& pairs) {
  std::vector<Slot> table(8);
  std::size_t fill = 0;
  for (std::size_t n = 0; n < pairs.size(); ++n) {
    const u64 h = tuple_hash(pairs[n].first, pairs[n].second);
    table[free_slot(table, h)] = {h, static_cast<std::int64_t>(n)};
    ++fill;
    if (fill * 5 < (table.size() - 1) * 3) continue;
    const std::size_t minused = fill > 50000 ? fill * 2 : fill * 4;
    std::size_t size = 8;
    while (size <= minused) size <<= 1;
    std::vector<Slot> grown(size);
    for (const Slot& s : table)
      if (s.key >= 0) grown[free_slot(grown, s.hash)] = s;
    table.swap(grown);
  }
  std::vector<Pair> out;
  out.reserve(pairs.size());
  for (const Slot& s : table)
    if (s.key >= 0) out.push_back(pairs[s.key]);
  return out;
}

double disk_overlap(double d, double r1, double r2) {
  const double ratio1 = std::clamp((d * d + r1 * r1 - r2 * r2) / (2 * d * r1), -1.0, 1.0);
  const double ratio2 = std::clamp((d * d + r2 * r2 - r1 * r1) / (2 * d * r2), -1.0, 1.0);
  const double acos1 = std::acos(ratio1), acos2 = std::acos(ratio2);
  const double a = -d + r2 + r1, b = d - r2 + r1, c = d + r2 - r1, e = d + r2 + r1;
  const double area = r1 * r1 * acos1 + r2 * r2 * acos2 - 0.5 * std::sqrt(std::abs(a * b * c * e));
  return area / (std::numbers::pi * (std::min(r1, r2) * std::min(r1, r2)));
}

double sphere_overlap(double d, double r1, double r2) {
  const double s = r1 + r2 - d;
  const double vol = std::numbers::pi / (12 * d) * (s * s) *
                     (d * d + 2 * d * (r1 + r2) - 3 * (r1 * r1 + r2 * r2) + 6 * r1 * r2);
  return vol / (4.0 / 3 * std::numbers::pi * std::pow(std::min(r1, r2), 3.0));
}

/// _blob_overlap: the overlap fraction of the smaller blob, positions scaled by the larger blob's
/// sigma(s) times sqrt(ndim).
double blob_overlap(const double* b1, const double* b2, int cols, int sigma_dim) {
  const int nd = cols - sigma_dim;
  if (nd > 3) return 0.0;
  const double root = std::sqrt(static_cast<double>(nd));
  const double s1 = b1[cols - 1], s2 = b2[cols - 1];
  if (s1 == s2 && s2 == 0) return 0.0;
  const double* ms = s1 > s2 ? b1 + nd : b2 + nd;
  const double r1 = s1 > s2 ? 1.0 : s1 / s2, r2 = s1 > s2 ? s2 / s1 : 1.0;
  double sum = 0;
  for (int a = 0; a < nd; ++a) {
    const double m = ms[sigma_dim == 1 ? 0 : a] * root;
    const double diff = b2[a] / m - b1[a] / m;
    sum += diff * diff;
  }
  const double d = std::sqrt(sum);
  if (d > r1 + r2) return 0.0;
  if (d <= std::abs(r1 - r2)) return 1.0;
  return nd == 2 ? disk_overlap(d, r1, r2) : sphere_overlap(d, r1, r2);
}

}  // namespace

std::vector<double> prune_blobs(std::vector<double> rows, int cols, int sigma_dim, double overlap) {
  const auto n = static_cast<std::int64_t>(rows.size()) / cols;
  if (n == 0) return rows;
  const int nd = cols - sigma_dim;
  double sigma = rows[cols - sigma_dim];
  for (std::int64_t i = 0; i < n; ++i)
    for (int k = nd; k < cols; ++k) sigma = std::max(sigma, rows[i * cols + k]);
  const double r = 2 * sigma * std::sqrt(static_cast<double>(nd));
  // query_pairs: every i < j within r (squared Euclidean distance <= r^2, as the tree tests it),
  // found through a grid of r-sized cells (3^ndim neighbour cells per blob), then sorted.
  std::vector<Pair> pairs;
  const double cell = r > 0 ? r : 1.0;
  std::vector<std::int64_t> lo(nd, 0), ext(nd, 1);
  std::vector<std::int64_t> cc(static_cast<std::size_t>(n * nd));
  for (int a = 0; a < nd; ++a) {
    std::int64_t mn = 0, mx = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      cc[i * nd + a] = static_cast<std::int64_t>(std::floor(rows[i * cols + a] / cell));
      mn = i ? std::min(mn, cc[i * nd + a]) : cc[i * nd + a];
      mx = i ? std::max(mx, cc[i * nd + a]) : cc[i * nd + a];
    }
    lo[a] = mn;
    ext[a] = mx - mn + 1;
  }
  auto cell_of = [&](const std::int64_t* c) {
    std::int64_t k = 0;
    for (int a = 0; a < nd; ++a) k = k * ext[a] + (c[a] - lo[a]);
    return k;
  };
  std::vector<std::pair<std::int64_t, std::int64_t>> order(static_cast<std::size_t>(n));  // (cell, blob)
  for (std::int64_t i = 0; i < n; ++i) order[i] = {cell_of(&cc[i * nd]), i};
  std::sort(order.begin(), order.end());
  std::vector<std::int64_t> q(nd), off(nd);
  for (std::int64_t i = 0; i < n; ++i) {
    std::fill(off.begin(), off.end(), -1);
    for (;;) {  // every neighbour cell offset in {-1, 0, 1}^nd
      bool inside = true;
      for (int a = 0; a < nd; ++a) {
        q[a] = cc[i * nd + a] + off[a];
        inside = inside && q[a] >= lo[a] && q[a] < lo[a] + ext[a];
      }
      if (inside) {
        const std::int64_t key = cell_of(q.data());
        auto it = std::lower_bound(order.begin(), order.end(), std::make_pair(key, std::int64_t{0}));
        for (; it != order.end() && it->first == key; ++it) {
          const std::int64_t j = it->second;
          if (j <= i) continue;
          double d2 = 0;
          for (int a = 0; a < nd; ++a) {
            const double t = rows[i * cols + a] - rows[j * cols + a];
            d2 += t * t;
          }
          if (d2 <= r * r) pairs.emplace_back(i, j);
        }
      }
      int a = nd - 1;
      while (a >= 0 && off[a] == 1) off[a--] = -1;
      if (a < 0) break;
      ++off[a];
    }
  }
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());  // cell keys may wrap in high ndim
  for (const auto& [i, j] : python_set_order(pairs)) {
    double* b1 = &rows[i * cols];
    double* b2 = &rows[j * cols];
    if (blob_overlap(b1, b2, cols, sigma_dim) > overlap) {
      if (b1[cols - 1] > b2[cols - 1])
        b2[cols - 1] = 0;
      else
        b1[cols - 1] = 0;
    }
  }
  std::vector<double> out;
  for (std::int64_t i = 0; i < n; ++i)
    if (rows[i * cols + cols - 1] > 0) out.insert(out.end(), rows.begin() + i * cols, rows.begin() + (i + 1) * cols);
  return out;
}

}  // namespace cuskimage::feature::detail
