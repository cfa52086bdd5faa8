// skimage.morphology.remove_objects_by_distance.
// CPU: golden outputs of scikit-image 0.26 (tests/golden/cases_morphology_maxtree.py) on scattered
// labelled blobs (int32), random sparse labels (uint8), a labelled volume (uint16) and touching
// objects (int32): distances 0, 3, 5 and sqrt(2) (boundary ties), p-norms 1, 3 and inf,
// anisotropic spacing and a given priority. All exact. Also `out=` (a strided view and in place),
// a brute-force check of the rule on random images, and bad arguments. The device's building blocks on
// the CPU: the order keys (rod_before) against numpy's stable argsort reversed, the distance test
// (RodMetric) against the CPU's arithmetic, and the rounds against the greedy order.
// GPU (Gpu*): the CUDA backend equals the CPU backend on the goldens and on fresh random label images
// (blobs, thin lines, single pixels, lattices of equal objects, random sparse labels), distances from
// 0 to infinity, p-norms 1, 2, 3, 2.5, inf, spacings, priorities (ties, NaN, -0, host or device),
// 1-D to 4-D, every integer dtype, strided views, `out` (strided, in place), a non-default stream
// without the legacy stream, and the CLI; bad input on device arrays.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/morphology/remove_by_distance_ops.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
using namespace cuskimage::morphology;
using cusktest::load_golden;

const std::vector<std::string> kCases = {"blobs", "random", "vol", "touching"};

Array gold(const std::string& name) { return load_golden("morphology_maxtree/" + name + ".npy"); }

std::vector<double> spacing_for(int nd) {
  const std::vector<double> s = {1.5, 0.75, 1.0};
  return {s.begin(), s.begin() + nd};
}

/// Every golden case on `dev`'s backend (the priorities from the host; on a GPU also from the device).
void expect_goldens(Device dev) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c);
    const Array img = gold(c + "_in").to(dev);
    auto run = [&](double d, RemoveObjectsByDistanceOptions o = {}) { return remove_objects_by_distance(img, d, o); };
    EXPECT_ARRAY_EQ(gold(c + "_d0"), run(0));
    EXPECT_ARRAY_EQ(gold(c + "_d3"), run(3));
    EXPECT_ARRAY_EQ(gold(c + "_d5"), run(5));
    EXPECT_ARRAY_EQ(gold(c + "_d2p1"), run(2, {.p_norm = 1}));
    EXPECT_ARRAY_EQ(gold(c + "_d3pinf"), run(3, {.p_norm = std::numeric_limits<double>::infinity()}));
    EXPECT_ARRAY_EQ(gold(c + "_d4p3"), run(4, {.p_norm = 3}));
    EXPECT_ARRAY_EQ(gold(c + "_d3sp"), run(3, {.spacing = spacing_for(img.ndim())}));
    EXPECT_ARRAY_EQ(gold(c + "_d2sq"), run(std::sqrt(2.0)));
    EXPECT_ARRAY_EQ(gold(c + "_prio"), run(4, {.priority = gold(c + "_prio_p")}));
    if (dev.is_cuda()) EXPECT_ARRAY_EQ(gold(c + "_prio"), run(4, {.priority = gold(c + "_prio_p").to(dev)}));
  }
}

TEST(MorphologyRemoveByDistance, Golden) { expect_goldens(Device::cpu()); }

TEST(MorphologyRemoveByDistance, GoldenRemovesSomething) {
  // The goldens are not trivial: each case loses objects at distance 5.
  for (const auto& c : kCases) {
    EXPECT_FALSE(cusktest::arrays_equal(gold(c + "_in"), gold(c + "_d5"))) << c;
  }
}

TEST(MorphologyRemoveByDistance, Out) {
  const Array img = gold("blobs_in");
  // A strided `out`.
  Array big = Array::zeros({img.shape()[0], img.shape()[1] * 2}, DType::int32);
  Array view = big.slice({Slice{}, Slice{.step = 2}});
  remove_objects_by_distance_into(img, 3, view);
  EXPECT_ARRAY_EQ(gold("blobs_d3"), view);
  // In place.
  Array inplace = img.copy();
  remove_objects_by_distance_into(inplace, 5, inplace);
  EXPECT_ARRAY_EQ(gold("blobs_d5"), inplace);
  // A strided input.
  const Array wide = Array::zeros({img.shape()[0], img.shape()[1] * 2}, DType::int32);
  Array wv = wide.slice({Slice{}, Slice{.step = 2}});
  wv.copy_from(img);
  EXPECT_ARRAY_EQ(gold("blobs_d3"), remove_objects_by_distance(wv, 3));
}

/// The rule stated directly: objects by (priority desc, label desc); a present object is kept and
/// removes every present object with a boundary pixel within the distance (Euclidean, unit spacing).
std::vector<std::int32_t> brute(const std::vector<std::int32_t>& lab, std::int64_t rows, std::int64_t cols, double r) {
  const std::int32_t maxl = *std::max_element(lab.begin(), lab.end());
  std::vector<std::int64_t> size(maxl + 1, 0);
  for (auto v : lab) ++size[v];
  auto border = [&](std::int64_t y, std::int64_t x) {
    const std::int32_t v = lab[y * cols + x];
    const int dy[] = {-1, 1, 0, 0}, dx[] = {0, 0, -1, 1};
    for (int k = 0; k < 4; ++k) {
      const std::int64_t yy = y + dy[k], xx = x + dx[k];
      if (yy >= 0 && yy < rows && xx >= 0 && xx < cols && lab[yy * cols + xx] != v) return true;
    }
    return false;
  };
  std::vector<std::vector<std::pair<std::int64_t, std::int64_t>>> pts(maxl + 1);
  for (std::int64_t y = 0; y < rows; ++y)
    for (std::int64_t x = 0; x < cols; ++x)
      if (lab[y * cols + x] && border(y, x)) pts[lab[y * cols + x]].push_back({y, x});
  std::vector<int> ids;
  for (int l = 1; l <= maxl; ++l)
    if (!pts[l].empty()) ids.push_back(l);
  std::sort(ids.begin(), ids.end(), [&](int a, int b) { return size[a] != size[b] ? size[a] > size[b] : a > b; });
  std::vector<bool> gone(maxl + 1, false);
  for (int a : ids) {
    if (gone[a]) continue;
    for (int b : ids) {
      if (b == a || gone[b]) continue;
      bool near = false;
      for (auto [y0, x0] : pts[a])
        for (auto [y1, x1] : pts[b])
          near = near || double((y0 - y1) * (y0 - y1) + (x0 - x1) * (x0 - x1)) <= r * r;
      if (near) gone[b] = true;
    }
  }
  std::vector<std::int32_t> out = lab;
  for (auto& v : out)
    if (gone[v]) v = 0;
  return out;
}

TEST(MorphologyRemoveByDistance, MatchesBruteForce) {
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const std::int64_t rows = 20 + seed, cols = 25 + 2 * seed;
    const Array u = cusktest::random_array({rows, cols}, DType::float64, seed);
    std::vector<double> uv = u.to_vector<double>();
    std::vector<std::int32_t> lab(uv.size());
    for (std::size_t i = 0; i < uv.size(); ++i) lab[i] = uv[i] < 0.12 ? 1 + static_cast<std::int32_t>(uv[i] * 150) : 0;
    const Array img = Array::from_vector(lab, {rows, cols});
    for (double r : {1.0, 2.5, 6.0}) {
      SCOPED_TRACE("seed " + std::to_string(seed) + " r " + std::to_string(r));
      EXPECT_EQ(brute(lab, rows, cols, r), remove_objects_by_distance(img, r).to_vector<std::int32_t>());
    }
  }
}

TEST(MorphologyRemoveByDistance, Degenerate) {
  // No objects, one object filling the image, 1-D.
  const Array zero = Array::zeros({5, 6}, DType::uint8);
  EXPECT_ARRAY_EQ(zero, remove_objects_by_distance(zero, 3));
  const Array full = Array::full({4, 4}, 2, DType::int64);
  EXPECT_ARRAY_EQ(full, remove_objects_by_distance(full, 10));
  const Array line = Array::from_vector<std::int32_t>({1, 1, 0, 2, 0, 0, 3, 3, 3}, {9});
  EXPECT_EQ(remove_objects_by_distance(line, 2).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{1, 1, 0, 0, 0, 0, 3, 3, 3}));
  EXPECT_EQ(remove_objects_by_distance(line, 3).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{1, 1, 0, 0, 0, 0, 3, 3, 3}));
  EXPECT_EQ(remove_objects_by_distance(line, 5).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{0, 0, 0, 0, 0, 0, 3, 3, 3}));
}

TEST(MorphologyRemoveByDistance, BadInput) {
  const Array img = gold("touching_in");
  EXPECT_THROW(remove_objects_by_distance(img, -1), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img.astype(DType::float32), 2), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img.astype(DType::bool_), 2), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.priority = Array::zeros({5}, DType::float64)}), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.priority = Array::zeros({2, 10}, DType::float64)}), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.p_norm = 0.5}), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.spacing = {1.0}}), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.spacing = {1.0, 0.0}}), InvalidArgument);
  Array neg = img.copy();
  neg.data<std::int32_t>()[0] = -4;
  EXPECT_THROW(remove_objects_by_distance(neg, 2), InvalidArgument);
  Array wrong = Array::zeros(img.shape(), DType::int64);
  EXPECT_THROW(remove_objects_by_distance_into(img, 2, wrong), InvalidArgument);
  Array small = Array::zeros({3, 3}, DType::int32);
  EXPECT_THROW(remove_objects_by_distance_into(img, 2, small), InvalidArgument);
}

TEST(MorphologyRemoveByDistance, Cli) {
  const std::string in = cusktest::golden_path("morphology_maxtree/blobs_in.npy");
  const std::string prio = cusktest::golden_path("morphology_maxtree/blobs_prio_p.npy");
  const std::string out = cusktest::temp_path("rod_cli_out.npy");
  auto run = [](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli_cpu(args);
    if (r.rc != 0) ADD_FAILURE() << cuskclitest::describe(r);
    return r.rc;
  };
  ASSERT_EQ(run({"morphology.remove_objects_by_distance", in, out, "--min_distance", "3"}), 0);
  EXPECT_ARRAY_EQ(gold("blobs_d3"), io::imread(out));
  ASSERT_EQ(run({"morphology.remove_objects_by_distance", in, out, "--min_distance", "3", "--spacing", "1.5,0.75"}), 0);
  EXPECT_ARRAY_EQ(gold("blobs_d3sp"), io::imread(out));
  ASSERT_EQ(run({"morphology.remove_objects_by_distance", in, prio, out, "--min_distance", "4"}), 0);
  EXPECT_ARRAY_EQ(gold("blobs_prio"), io::imread(out));
  EXPECT_NE(cuskclitest::run_cli_cpu({"morphology.remove_objects_by_distance", in, out, "--min_distance", "-1"}).rc, 0);
}


// ---- the CUDA backend's building blocks, on the CPU -------------------------------------------------

namespace rd = cuskimage::morphology::detail;

TEST(MorphologyRemoveByDistance, OrderKeysEqualReversedStableArgsort) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::mt19937_64 g(5);
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<double> pr;
    const double pool[] = {3.0, -1.5, 0.0, -0.0, nan, inf, -inf, 2.0, 7.25, 1e300, -1e-300};
    for (int k = 0; k < 40; ++k) pr.push_back(pool[g() % 11]);
    // The CPU's order: stable ascending argsort (NaN last), reversed.
    std::vector<std::int64_t> cpu(pr.size());
    std::iota(cpu.begin(), cpu.end(), std::int64_t{0});
    std::stable_sort(cpu.begin(), cpu.end(), [&](std::int64_t a, std::int64_t b) {
      const double x = pr[a], y = pr[b];
      if (std::isnan(x)) return false;
      if (std::isnan(y)) return true;
      return x < y;
    });
    std::reverse(cpu.begin(), cpu.end());
    std::vector<std::int64_t> dev(pr.size());
    std::iota(dev.begin(), dev.end(), std::int64_t{0});
    std::sort(dev.begin(), dev.end(), [&](std::int64_t a, std::int64_t b) {
      return rd::rod_before(rd::rod_priority_key(pr[a]), a, rd::rod_priority_key(pr[b]), b);
    });
    EXPECT_EQ(cpu, dev) << "trial " << trial;
  }
}

/// The CPU backend's test: sum of |x|^p (glibc pow), max for inf, against its bound.
bool cpu_within(const std::vector<double>& x, double p, double r) {
  const double bound = rd::rod_bound(p, r);
  double s = 0;
  for (double v : x) {
    if (p == 2.0) s += v * v;
    else if (p == 1.0) s += v;
    else if (std::isinf(p)) s = std::max(s, v);
    else s += std::pow(v, p);
  }
  return s <= bound;
}

TEST(MorphologyRemoveByDistance, DeviceMetricAgreesWithCpu) {
  const double inf = std::numeric_limits<double>::infinity();
  std::mt19937_64 g(17);
  std::int64_t undecided = 0, total = 0;
  for (double p : {1.0, 2.0, inf, 3.0, 4.0, 2.5, 1.5}) {
    for (double r : {0.0, 1.0, std::sqrt(2.0), 3.0, 4.0, 5.5, 17.0, inf}) {
      for (int nd : {1, 2, 3}) {
        const rd::RodMetric m = rd::RodMetric::make(p, r, nd);
        for (int t = 0; t < 400; ++t) {
          std::vector<double> x(nd);
          const double sp[] = {1.0, 0.75, 1.5, 0.7};
          for (int d = 0; d < nd; ++d) {
            const double c = static_cast<double>(g() % 9);
            x[d] = (t % 2 == 0) ? c : std::abs(c * sp[(t / 2 + d) % 4] - static_cast<double>(g() % 5) * sp[(t / 2 + d) % 4]);
          }
          const int e = m.eval(x.data());
          ++total;
          if (e < 0) {
            ++undecided;
            EXPECT_EQ(m.kind, 3);
            continue;
          }
          EXPECT_EQ(cpu_within(x, p, r), e == 1) << "p " << p << " r " << r << " x0 " << x[0];
        }
      }
    }
  }
  EXPECT_LT(undecided * 50, total);  // the host fallback is for near-ties only
  // Integer powers are exact: boundary cases are decided, not deferred.
  const rd::RodMetric m3 = rd::RodMetric::make(3.0, 4.0, 2);
  const double on[] = {4.0, 0.0}, off[] = {4.0, 1.0};
  EXPECT_EQ(m3.eval(on), 1);
  EXPECT_EQ(m3.eval(off), 0);
}

Array blob_labels(const Shape& shape, std::uint64_t seed, int size, double level) {
  const Array noise = cusktest::random_array(shape, DType::float64, seed);
  const Array s = ndimage::uniform_filter(noise, {.size = {size}});
  const std::vector<double> v = s.to_vector<double>();
  std::vector<std::uint8_t> m(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) m[i] = v[i] > level;
  return measure::label(Array::from_vector(m, shape).astype(DType::bool_), {.connectivity = 1});
}

/// The CUDA backend's point structure built on the host: boundary points sorted by (cell, object,
/// pixel), runs with boxes, the first run of each cell.
struct HostRuns {
  std::vector<std::int32_t> run_obj;
  std::vector<std::int64_t> run_start, cell_first;
  std::vector<std::uint64_t> run_cell;
  std::vector<double> lo, hi, s_pos;
  std::vector<std::int32_t> s_obj;
  rd::RodGrid grid;
  rd::RodRuns view() const {
    return {run_obj.data(), run_start.data(), run_cell.data(), lo.data(), hi.data(), cell_first.data(), s_pos.data(),
            static_cast<std::int64_t>(run_obj.size())};
  }
};

HostRuns build_runs(const std::vector<std::int64_t>& lab, const Shape& shape, double r, const std::vector<double>& sp,
                    double p, std::int64_t coarsen_to) {
  const int nd = static_cast<int>(shape.size());
  const std::int64_t n = static_cast<std::int64_t>(lab.size());
  const bool iso = std::all_of(sp.begin(), sp.end(), [&](double v) { return v == sp[0]; });
  const int conn = (iso && p <= 2) ? 1 : nd;
  std::vector<std::int64_t> border;
  std::vector<std::int64_t> c(nd);
  for (std::int64_t i = 0; i < n; ++i) {
    if (!lab[i]) continue;
    std::int64_t rem = i;
    for (int d = nd - 1; d >= 0; --d) c[d] = rem % shape[d], rem /= shape[d];
    bool is_border = false;
    int total = 1;
    for (int d = 0; d < nd; ++d) total *= 3;
    for (int t = 0; t < total && !is_border; ++t) {
      int tr = t, steps = 0;
      std::int64_t q = 0, stride = 1;
      bool inside = true;
      for (int d = nd - 1; d >= 0; --d) {
        const int o = tr % 3 - 1;
        tr /= 3;
        steps += o != 0;
        inside = inside && c[d] + o >= 0 && c[d] + o < shape[d];
        q += (c[d] + o) * stride;
        stride *= shape[d];
      }
      if (steps == 0 || steps > conn || !inside) continue;
      is_border = lab[q] != lab[i];
    }
    if (is_border) border.push_back(i);
  }
  std::vector<std::int64_t> labels;
  for (auto i : border) labels.push_back(lab[i]);
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  HostRuns h;
  h.grid = rd::RodGrid::make(shape, r, sp);
  if (coarsen_to > 0) h.grid.coarsen(shape, coarsen_to);
  struct Pt {
    std::uint64_t cell;
    std::int32_t obj;
    std::int64_t pix;
  };
  std::vector<Pt> pts;
  for (auto i : border) {
    std::int64_t rem = i, cell = 0;
    for (int d = nd - 1; d >= 0; --d) {
      cell += (rem % shape[d]) / h.grid.w[d] * h.grid.cstride[d];
      rem /= shape[d];
    }
    const auto o = static_cast<std::int32_t>(std::lower_bound(labels.begin(), labels.end(), lab[i]) - labels.begin());
    pts.push_back({static_cast<std::uint64_t>(cell), o, i});
  }
  std::sort(pts.begin(), pts.end(), [](const Pt& x, const Pt& y) {
    return x.cell != y.cell ? x.cell < y.cell : x.obj != y.obj ? x.obj < y.obj : x.pix < y.pix;
  });
  for (std::size_t s = 0; s < pts.size(); ++s) {
    std::int64_t rem = pts[s].pix;
    std::vector<double> pos(nd);
    for (int d = nd - 1; d >= 0; --d) pos[d] = static_cast<double>(rem % shape[d]) * sp[d], rem /= shape[d];
    h.s_pos.insert(h.s_pos.end(), pos.begin(), pos.end());
    h.s_obj.push_back(pts[s].obj);
    if (s == 0 || pts[s].cell != pts[s - 1].cell || pts[s].obj != pts[s - 1].obj) {
      h.run_start.push_back(static_cast<std::int64_t>(s));
      h.run_obj.push_back(pts[s].obj);
      h.run_cell.push_back(pts[s].cell);
      h.lo.insert(h.lo.end(), pos.begin(), pos.end());
      h.hi.insert(h.hi.end(), pos.begin(), pos.end());
    }
    for (int d = 0; d < nd; ++d) {
      double& l = h.lo[(h.run_obj.size() - 1) * nd + d];
      double& u = h.hi[(h.run_obj.size() - 1) * nd + d];
      l = std::min(l, pos[d]);
      u = std::max(u, pos[d]);
    }
  }
  h.run_start.push_back(static_cast<std::int64_t>(pts.size()));
  for (std::int64_t cell = 0; cell <= h.grid.cells; ++cell)
    h.cell_first.push_back(std::lower_bound(h.run_cell.begin(), h.run_cell.end(), static_cast<std::uint64_t>(cell)) -
                           h.run_cell.begin());
  return h;
}

TEST(MorphologyRemoveByDistance, RunPairSearchFindsExactlyTheNearPairs) {
  // rod_run_pairs (the CUDA pair kernel's thread) over every run, borderline pairs decided with the
  // CPU's arithmetic, against all pairs of boundary points of different objects.
  const double inf = std::numeric_limits<double>::infinity();
  std::mt19937_64 g(31);
  int cases = 0;
  for (int trial = 0; trial < 24; ++trial) {
    const bool vol = trial % 6 == 5;
    const Shape shape = vol ? Shape{9, 11, 13} : Shape{30 + trial, 41 - trial / 2};
    const std::int64_t n = shape_size(shape);
    std::vector<std::int64_t> lab(static_cast<std::size_t>(n), 0);
    if (trial % 2 == 0) {  // scattered labels
      for (auto& v : lab) v = g() % 100 < 12 ? 1 + static_cast<std::int64_t>(g() % 40) : 0;
    } else {  // labelled blobs
      const Array b = blob_labels(shape, static_cast<std::uint64_t>(trial), 3, 0.55);
      lab = b.to_vector<std::int64_t>();
    }
    const double ps[] = {2.0, 1.0, inf, 3.0, 2.5};
    const double rs[] = {0.0, 1.0, std::sqrt(2.0), 3.0, 6.5};
    const double p = ps[trial % 5], r = rs[(trial / 5) % 5];
    std::vector<double> sp(shape.size(), 1.0);
    if (trial % 4 == 1) sp[0] = 1.5, sp[1] = 0.75;
    if (trial % 4 == 3) sp[0] = 0.7, sp[1] = 1.3;
    const HostRuns h = build_runs(lab, shape, r, sp, p, trial % 3 == 2 ? 16 : 0);
    const int nd = static_cast<int>(shape.size());
    const rd::RodMetric m = rd::RodMetric::make(p, r, nd);
    auto within = [&](std::int64_t sa, std::int64_t sb) {
      std::vector<double> x(nd);
      for (int d = 0; d < nd; ++d) x[d] = std::abs(h.s_pos[sa * nd + d] - h.s_pos[sb * nd + d]);
      return cpu_within(x, p, r);
    };
    std::set<std::pair<int, int>> got, want;
    const rd::RodRuns view = h.view();
    int split = 1;  // odd trials: one call per adjacent cell, as the kernel's threads
    for (int d = 0; d < nd && trial % 2 == 1; ++d) split *= 3;
    for (std::int64_t ra = 0; ra < view.nr; ++ra) {
      const int a = h.run_obj[ra];
      for (int only = split == 1 ? -1 : 0; only < split; ++only) {
        rd::rod_run_pairs(
            view, h.grid, m, ra, [&](std::int32_t b) { got.insert({a, b}); },
            [&](std::int64_t sa, std::int64_t sb, std::int32_t b) {
              if (within(sa, sb)) got.insert({a, b});
            },
            only);
        if (split == 1) break;
      }
    }
    const std::int64_t pts = static_cast<std::int64_t>(h.s_obj.size());
    for (std::int64_t sa = 0; sa < pts; ++sa)
      for (std::int64_t sb = 0; sb < pts; ++sb)
        if (h.s_obj[sa] < h.s_obj[sb] && within(sa, sb)) want.insert({h.s_obj[sa], h.s_obj[sb]});
    EXPECT_EQ(want, got) << "trial " << trial << " p " << p << " r " << r;
    cases += !want.empty();
  }
  EXPECT_GT(cases, 12);  // most cases have near pairs
}

TEST(MorphologyRemoveByDistance, RoundsEqualGreedyOrder) {
  // The device's rounds on random neighbour graphs and priorities with ties: an object is removed
  // when an earlier neighbour is kept and kept when all earlier neighbours are removed, reading
  // other objects' states as they change (mode 0) or from the previous round (mode 1).
  std::mt19937_64 g(23);
  for (int trial = 0; trial < 30; ++trial) {
    const int K = 5 + static_cast<int>(g() % 200);
    std::vector<std::vector<int>> nb(K);
    const int chain = trial % 3 == 0;  // a path of equal priorities: the longest dependency chain
    for (int a = 0; a < K; ++a)
      for (int b = a + 1; b < K; ++b)
        if (chain ? b == a + 1 : g() % 100 < 4) nb[a].push_back(b), nb[b].push_back(a);
    std::vector<double> pr(K);
    for (auto& v : pr) v = chain ? 1.0 : static_cast<double>(g() % 6);
    std::vector<std::uint64_t> key(K);
    for (int a = 0; a < K; ++a) key[a] = rd::rod_priority_key(pr[a]);
    std::vector<int> order(K);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](int a, int b) { return rd::rod_before(key[a], a, key[b], b); });
    std::vector<int> greedy(K, 0);  // 1 kept, 2 removed
    for (int a : order) {
      if (greedy[a]) continue;
      greedy[a] = 1;
      for (int b : nb[a])
        if (!greedy[b]) greedy[b] = 2;
    }
    for (int mode = 0; mode < 2; ++mode) {
      std::vector<int> st(K, 0), pend(K);
      std::iota(pend.begin(), pend.end(), 0);
      while (!pend.empty()) {
        const std::vector<int> snap = st;
        std::shuffle(pend.begin(), pend.end(), g);
        std::vector<int> next;
        for (int x : pend) {
          const std::vector<int>& view = mode == 0 ? st : snap;
          bool open = false, removed = false;
          for (int y : nb[x]) {
            if (!rd::rod_before(key[y], y, key[x], x)) continue;
            removed = removed || view[y] == 1;
            open = open || view[y] == 0;
          }
          if (!removed && open)
            next.push_back(x);
          else
            st[x] = removed ? 2 : 1;
        }
        ASSERT_LT(next.size(), pend.size());
        pend.swap(next);
      }
      EXPECT_EQ(greedy, st) << "trial " << trial << " mode " << mode;
    }
  }
}

// ---- GPU ------------------------------------------------------------------------------------------

RemoveObjectsByDistanceOptions clone(const RemoveObjectsByDistanceOptions& o, bool priority_on_device = false) {
  RemoveObjectsByDistanceOptions c{.p_norm = o.p_norm, .spacing = o.spacing};
  if (o.priority.valid()) c.priority = priority_on_device ? o.priority.to(Device::cuda()) : o.priority.share();
  return c;
}

/// The CUDA backend on a device copy of `host` equals the CPU backend.
void expect_device_equals_cpu(const Array& host, double r, const RemoveObjectsByDistanceOptions& o = {},
                              bool priority_on_device = false) {
  const Array cpu = remove_objects_by_distance(host, r, o);
  const Array dev = remove_objects_by_distance(host.to(Device::cuda()), r, clone(o, priority_on_device));
  ASSERT_TRUE(dev.device().is_cuda());
  EXPECT_ARRAY_EQ(cpu, dev);
}

/// Each pixel with probability p its own object, labels in raster order.
Array dot_labels(const Shape& shape, std::uint64_t seed, double p) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::int32_t> v(static_cast<std::size_t>(shape_size(shape)), 0);
  std::int32_t next = 0;
  for (auto& x : v)
    if (u(g) < p) x = ++next;
  return Array::from_vector(v, shape);
}

TEST(GpuMorphologyRemoveByDistance, Golden) {
  CUSK_REQUIRE_GPU();
  expect_goldens(Device::cuda());
}

TEST(GpuMorphologyRemoveByDistance, MatchesCpuOnRandomLabels) {
  CUSK_REQUIRE_GPU();
  const double inf = std::numeric_limits<double>::infinity();
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const Shape shape{83 + 11 * static_cast<std::int64_t>(seed), 127 - 7 * static_cast<std::int64_t>(seed)};
    SCOPED_TRACE("seed " + std::to_string(seed));
    const Array blobs = blob_labels(shape, seed, 5, 0.55);
    const Array dots = dot_labels(shape, seed, 0.02);
    const Array dense_dots = dot_labels(shape, seed + 7, 0.3);
    // Random sparse labels: the same label on scattered pixels (objects need not be connected).
    const Array u = cusktest::random_array(shape, DType::float64, seed + 3);
    std::vector<double> uv = u.to_vector<double>();
    std::vector<std::int32_t> sparse(uv.size());
    for (std::size_t i = 0; i < uv.size(); ++i) sparse[i] = uv[i] < 0.12 ? 1 + static_cast<std::int32_t>(uv[i] * 150) : 0;
    const Array scattered = Array::from_vector(sparse, shape);
    for (double r : {0.0, 1.0, std::sqrt(2.0), 3.0, 7.5, 40.0, inf}) {
      SCOPED_TRACE("r " + std::to_string(r));
      expect_device_equals_cpu(blobs, r);
      expect_device_equals_cpu(dots, r);
      expect_device_equals_cpu(scattered, r);
      if (r <= 3.0) expect_device_equals_cpu(dense_dots, r);
    }
    for (double p : {1.0, 3.0, 2.5, inf}) {
      SCOPED_TRACE("p " + std::to_string(p));
      expect_device_equals_cpu(blobs, 4.0, {.p_norm = p});
      expect_device_equals_cpu(dots, 6.0, {.p_norm = p});
      expect_device_equals_cpu(blobs, 3.3, {.p_norm = p, .spacing = {0.7, 1.3}});
    }
    expect_device_equals_cpu(blobs, 3.0, {.spacing = {1.5, 0.75}});
    expect_device_equals_cpu(dots, 5.0, {.spacing = {0.5, 2.0}});
  }
}

TEST(GpuMorphologyRemoveByDistance, ThinLinesAndLattices) {
  CUSK_REQUIRE_GPU();
  // Thin lines: one object per line, long runs of boundary points.
  std::vector<std::int32_t> lines(150 * 170, 0);
  std::mt19937_64 g(4);
  for (int l = 1; l <= 70; ++l) {
    std::int64_t y = static_cast<std::int64_t>(g() % 150), x = static_cast<std::int64_t>(g() % 170);
    const int dy = static_cast<int>(g() % 3) - 1, dx = dy == 0 ? 1 : static_cast<int>(g() % 3) - 1;
    for (int k = 0; k < 60 && y >= 0 && y < 150 && x >= 0 && x < 170; ++k, y += dy, x += dx) lines[y * 170 + x] = l;
  }
  const Array ln = Array::from_vector(lines, {150, 170});
  for (double r : {1.0, 2.0, 5.0, 12.0}) expect_device_equals_cpu(ln, r);
  // A lattice of equal single pixels: ties everywhere, the rounds follow label order across the
  // image (long dependency chains, several blocks).
  for (int step : {2, 3}) {
    std::vector<std::int32_t> lat(300 * 310, 0);
    std::int32_t next = 0;
    for (int y = 0; y < 300; y += step)
      for (int x = 0; x < 310; x += step) lat[y * 310 + x] = ++next;
    const Array la = Array::from_vector(lat, {300, 310});
    for (double r : {static_cast<double>(step), step * 1.5, step * 4.0}) {
      SCOPED_TRACE("lattice " + std::to_string(step) + " r " + std::to_string(r));
      expect_device_equals_cpu(la, r);
    }
  }
}

TEST(GpuMorphologyRemoveByDistance, PrioritiesAndDimensions) {
  CUSK_REQUIRE_GPU();
  const Array blobs = blob_labels({120, 140}, 9, 5, 0.55);
  const std::vector<std::int64_t> bv = blobs.to_vector<std::int64_t>();
  const std::int64_t maxl = *std::max_element(bv.begin(), bv.end());
  std::mt19937_64 g(8);
  std::vector<double> pr(static_cast<std::size_t>(maxl + 3));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (auto& v : pr) {
    const int c = static_cast<int>(g() % 10);
    v = c == 0 ? nan : c == 1 ? -0.0 : c == 2 ? 0.0 : static_cast<double>(g() % 4);
  }
  const Array prio = Array::from_vector(pr, {static_cast<std::int64_t>(pr.size())});
  for (double r : {2.0, 6.0}) {
    expect_device_equals_cpu(blobs, r, {.priority = prio.share()});
    expect_device_equals_cpu(blobs, r, {.priority = prio.astype(DType::float32)}, true);
    expect_device_equals_cpu(blobs, r, {.priority = prio.astype(DType::int16)}, true);
  }
  // 1-D, 3-D (the cross footprint and, anisotropic, the full block), 4-D.
  expect_device_equals_cpu(Array::from_vector<std::int32_t>({1, 1, 0, 2, 0, 0, 3, 3, 3}, {9}), 2);
  const Array line = dot_labels({500}, 3, 0.2);
  for (double r : {1.0, 2.0, 9.0}) expect_device_equals_cpu(line, r);
  const Array vol = blob_labels({23, 29, 31}, 4, 5, 0.55);
  for (double r : {0.0, 2.0, 4.5}) {
    expect_device_equals_cpu(vol, r);
    expect_device_equals_cpu(vol, r, {.spacing = {2.0, 1.0, 0.5}});
    expect_device_equals_cpu(vol, r, {.p_norm = 1});
  }
  expect_device_equals_cpu(dot_labels({7, 8, 9, 10}, 5, 0.05), 3.0);
  expect_device_equals_cpu(blob_labels({9, 10, 11, 12}, 6, 3, 0.55), 2.0, {.p_norm = std::numeric_limits<double>::infinity()});
}

TEST(GpuMorphologyRemoveByDistance, DtypesViewsOutAndDegenerate) {
  CUSK_REQUIRE_GPU();
  const Array blobs = blob_labels({90, 110}, 12, 5, 0.55);  // int32
  // Labels folded into 1..120 for the 8-bit dtypes (objects need not be connected).
  std::vector<std::int32_t> folded = blobs.to_vector<std::int32_t>();
  for (auto& v : folded)
    if (v) v = (v - 1) % 120 + 1;
  const Array small_labels = Array::from_vector(folded, blobs.shape());
  for (DType dt : {DType::uint8, DType::int8, DType::uint16, DType::int16, DType::uint32, DType::int32, DType::uint64,
                   DType::int64}) {
    SCOPED_TRACE(cuskimage::dtype_name(dt));
    expect_device_equals_cpu(small_labels.astype(dt), 3.0);
  }
  // Large label values (binary-search lookup instead of the dense table).
  std::vector<std::int64_t> big = blobs.to_vector<std::int64_t>();
  for (auto& v : big)
    if (v) v = v * 1000003 + (std::int64_t{1} << 40);
  expect_device_equals_cpu(Array::from_vector(big, blobs.shape()), 4.0);
  // Strided and transposed device views.
  const Array d = blobs.to(Device::cuda());
  for (int k = 0; k < 2; ++k) {
    const Array hv = k == 0 ? blobs.slice({Slice{.start = 3, .step = 2}, Slice{.step = 3}}) : blobs.transpose({1, 0});
    const Array dv = k == 0 ? d.slice({Slice{.start = 3, .step = 2}, Slice{.step = 3}}) : d.transpose({1, 0});
    EXPECT_ARRAY_EQ(remove_objects_by_distance(hv, 2.5), remove_objects_by_distance(dv, 2.5));
  }
  // `out`: a strided device view, and in place.
  const Array expect3 = remove_objects_by_distance(blobs, 3);
  Array wide = Array::zeros({blobs.shape()[0], blobs.shape()[1] * 2}, DType::int32, Device::cuda());
  Array view = wide.slice({Slice{}, Slice{.step = 2}});
  remove_objects_by_distance_into(d, 3, view);
  EXPECT_ARRAY_EQ(expect3, view);
  Array inplace = d.copy();
  remove_objects_by_distance_into(inplace, 3, inplace);
  EXPECT_ARRAY_EQ(expect3, inplace);
  // No objects, one object filling the image, one object, a single pixel.
  for (const Array& a : {Array::zeros({5, 6}, DType::uint8), Array::full({4, 4}, 2, DType::int64),
                         Array::from_vector<std::int32_t>({0, 0, 5, 5, 0, 5}, {2, 3}), Array::full({1}, 7, DType::int16),
                         Array::full({1, 1}, 0, DType::int32), Array::zeros({0, 4}, DType::int32)})
    expect_device_equals_cpu(a, 3.0);
}

TEST(GpuMorphologyRemoveByDistance, NonDefaultStreamWithoutLegacyStream) {
  // No device array made on the guard's stream outlives the guard (which destroys that stream): the
  // input is uploaded before it and the results come back to the host inside the op, so a
  // misbehaving op fails the test instead of crashing the binary.
  CUSK_REQUIRE_GPU();
  const Array blobs = blob_labels({200, 230}, 13, 5, 0.55);
  const Array expect = remove_objects_by_distance(blobs, 4.0, {.p_norm = 2.5});
  const Array expect2 = remove_objects_by_distance(blobs, 9.0);
  const Array d = blobs.to(Device::cuda());
  Stream().synchronize();
  Array got, got2, got_into;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    {
      got = remove_objects_by_distance(d, 4.0, {.p_norm = 2.5}, s).to(Device::cpu(), s);
      got2 = remove_objects_by_distance(d, 9.0, {}, s).to(Device::cpu(), s);
      Array out = Array::empty(blobs.shape(), blobs.dtype(), Device::cuda(), s);
      remove_objects_by_distance_into(d, 4.0, out, {.p_norm = 2.5}, s);
      got_into = out.to(Device::cpu(), s);
    }
    s.synchronize();
  }));
  ASSERT_TRUE(got.valid() && got2.valid() && got_into.valid());
  EXPECT_ARRAY_EQ(expect, got);
  EXPECT_ARRAY_EQ(expect2, got2);
  EXPECT_ARRAY_EQ(expect, got_into);
  const Stream own = Stream::create();
  const Array d2 = blobs.to(Device::cuda(), own);
  Array out = Array::empty(blobs.shape(), blobs.dtype(), Device::cuda(), own);
  remove_objects_by_distance_into(d2, 4.0, out, {.p_norm = 2.5}, own);
  own.synchronize();
  EXPECT_ARRAY_EQ(expect, out);
}

TEST(GpuMorphologyRemoveByDistance, ResultOutlivesItsStream) {
  // The result is allocated on the caller's stream and keeps it alive (see GpuMedialAxis's twin):
  // while it lives a new stream cannot get the old handle; if it does, the result is leaked
  // rather than freed on a destroyed stream, so the failure is reported instead of crashing.
  CUSK_REQUIRE_GPU();
  const Array blobs = blob_labels({150, 160}, 23, 5, 0.55);
  const Array expect = remove_objects_by_distance(blobs, 6.0);
  const Array d = blobs.to(Device::cuda());
  Array got;
  ASSERT_TRUE(cusktest::result_outlives_stream(
      [&](const Stream& s) { return remove_objects_by_distance(d, 6.0, {}, s); }, got));
  EXPECT_ARRAY_EQ(expect, got);
}

TEST(GpuMorphologyRemoveByDistance, ManyCallsOnOneInput) {
  // The benchmark's pattern: one device label image, many calls in a row with different
  // min_distance (each call's scratch reuses the pool blocks the previous calls freed, full of their
  // data), on the default and on a created stream, into fresh and into reused outputs. Every
  // result equals the CPU's and the input never changes. The labels are made on the device by
  // measure.label on the op's own stream (so ordered before it); the device labeller leaves
  // unordered readers garbage, which is what the first benchmark read from another stream.
  CUSK_REQUIRE_GPU();
  const Array mask = blob_labels({380, 410}, 31, 5, 0.53).astype(DType::bool_);
  const std::vector<double> radii = {5, 20, 0, 3, 50, 5, 20, 1.5, 20, 5};
  for (int pass = 0; pass < 2; ++pass) {
    SCOPED_TRACE(pass == 0 ? "default stream" : "created stream");
    const Stream s = pass == 0 ? Stream() : Stream::create();
    const Array d = measure::label(mask.to(Device::cuda(), s), {.connectivity = 1, .dtype = DType::int32}, s);
    const Array host = d.to(Device::cpu(), s);
    std::vector<Array> want;
    for (double r : radii) want.push_back(remove_objects_by_distance(host, r));
    Array out = Array::empty(host.shape(), DType::int32, Device::cuda(), s);
    for (int rep = 0; rep < 3; ++rep)
      for (std::size_t k = 0; k < radii.size(); ++k) {
        SCOPED_TRACE("rep " + std::to_string(rep) + " min_distance " + std::to_string(radii[k]));
        const Array got = remove_objects_by_distance(d, radii[k], {}, s).to(Device::cpu(), s);
        EXPECT_ARRAY_EQ(want[k], got);
        remove_objects_by_distance_into(d, radii[k], out, {}, s);
        EXPECT_ARRAY_EQ(want[k], out.to(Device::cpu(), s));
      }
    EXPECT_ARRAY_EQ(host, d.to(Device::cpu(), s));  // the input is never written
  }
}

/// The message of the InvalidArgument `f` throws ("" when it does not throw).
template <class F>
std::string invalid_message(F&& f) {
  try {
    f();
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(GpuMorphologyRemoveByDistance, LabelRangeReduction) {
  // The device's label min / max (the negative-label check and the priority size) on images whose
  // labels are all 0, all equal, or zero but for one pixel, placed first, mid-way or last, on sizes
  // below one block, around it, and past the reduction's 1024-block grid (grid-stride loops),
  // for every integer dtype. The min is checked through the exact negative ID in the message,
  // the max through the smallest priority array accepted.
  CUSK_REQUIRE_GPU();
  const std::vector<DType> dtypes = {DType::int8,  DType::uint8,  DType::int16, DType::uint16,
                                     DType::int32, DType::uint32, DType::int64, DType::uint64};
  for (const Shape& shape : {Shape{1}, Shape{1, 255}, Shape{16, 16}, Shape{1, 257}, Shape{300, 301}, Shape{1030, 1031}}) {
    const std::int64_t n = shape_size(shape);
    for (DType dt : dtypes) {
      SCOPED_TRACE(shape_str(shape) + " " + std::string(dtype_name(dt)));
      const bool big = n > 100000;
      if (big && dt != DType::int32 && dt != DType::uint8 && dt != DType::int64) continue;
      expect_device_equals_cpu(Array::zeros(shape, dt), 3.0);
      expect_device_equals_cpu(Array::full(shape, 7, dt), 3.0);
      for (std::int64_t at : {std::int64_t{0}, n / 2, n - 1}) {
        SCOPED_TRACE("pixel " + std::to_string(at));
        std::vector<std::int64_t> v(static_cast<std::size_t>(n), 0);
        v[static_cast<std::size_t>(at)] = 100;
        const Array one = Array::from_vector(v, shape).astype(dt);
        expect_device_equals_cpu(one, 3.0);
        const Array d = one.to(Device::cuda());
        if (n > 1) {  // (a lone pixel of a 1-pixel image is no boundary: the priority is never read)
          EXPECT_NO_THROW(remove_objects_by_distance(d, 2, {.priority = Array::zeros({101}, DType::float64)}).to(Device::cpu()));
          EXPECT_NE(invalid_message([&] { remove_objects_by_distance(d, 2, {.priority = Array::zeros({100}, DType::float64)}); })
                        .find("(101,)"),
                    std::string::npos);
        }
        if (!is_signed(dt)) continue;
        // One negative pixel among zeros and positive labels: the min is exactly that value.
        const double lowest = dt == DType::int8    ? -128.0
                              : dt == DType::int16 ? -32768.0
                              : dt == DType::int32 ? -2147483648.0
                                                   : -9223372036854775808.0;  // -2^63, exact in double
        for (double neg : {-1.0, lowest}) {
          std::vector<double> w(static_cast<std::size_t>(n), 0.0);
          for (std::int64_t i = 0; i < n; i += 3) w[static_cast<std::size_t>(i)] = 5.0;
          w[static_cast<std::size_t>(at)] = neg;
          const Array bad = Array::from_vector(w, shape).astype(dt).to(Device::cuda());
          const std::string msg = invalid_message([&] { remove_objects_by_distance(bad, 2); });
          char expect[64];
          std::snprintf(expect, sizeof expect, "negative ID %lld", static_cast<long long>(neg));
          EXPECT_NE(msg.find(expect), std::string::npos) << "got: " << msg;
        }
      }
    }
  }
}

TEST(GpuMorphologyRemoveByDistance, LargeImageMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Array blobs = blob_labels({700, 900}, 14, 7, 0.52);
  for (double r : {3.0, 10.0, 30.0}) expect_device_equals_cpu(blobs, r);
  expect_device_equals_cpu(dot_labels({600, 800}, 15, 0.01), 12.0);
}

TEST(GpuMorphologyRemoveByDistance, BadInput) {
  CUSK_REQUIRE_GPU();
  const Array img = gold("touching_in").to(Device::cuda());
  EXPECT_THROW(remove_objects_by_distance(img, -1), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, std::numeric_limits<double>::quiet_NaN()), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img.astype(DType::float32), 2), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img.astype(DType::bool_), 2), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.priority = Array::zeros({5}, DType::float64)}), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.priority = Array::zeros({5}, DType::float64, Device::cuda())}),
               InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.priority = Array::zeros({2, 10}, DType::float64)}), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.p_norm = 0.5}), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.spacing = {1.0}}), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(img, 2, {.spacing = {1.0, 0.0}}), InvalidArgument);
  Array neg = gold("touching_in");
  neg.data<std::int32_t>()[0] = -4;
  EXPECT_THROW(remove_objects_by_distance(neg.to(Device::cuda()), 2), InvalidArgument);
  const Array huge = Array::full({3, 3}, 1.0e19, DType::uint64).to(Device::cuda());  // above 2^63 - 1
  EXPECT_THROW(remove_objects_by_distance(huge, 2), InvalidArgument);
  Array wrong = Array::zeros(img.shape(), DType::int64, Device::cuda());
  EXPECT_THROW(remove_objects_by_distance_into(img, 2, wrong), InvalidArgument);
  Array small = Array::zeros({3, 3}, DType::int32, Device::cuda());
  EXPECT_THROW(remove_objects_by_distance_into(img, 2, small), InvalidArgument);
  Array host_out = Array::zeros(img.shape(), img.dtype());
  EXPECT_THROW(remove_objects_by_distance_into(img, 2, host_out), InvalidArgument);
  EXPECT_THROW(remove_objects_by_distance(Array::zeros({2, 2, 2, 2, 2, 2, 2, 2, 2}, DType::int32, Device::cuda()), 1),
               NotSupported);
}

TEST(GpuMorphologyRemoveByDistance, Cli) {
  CUSK_REQUIRE_GPU();
  const std::string in = cusktest::golden_path("morphology_maxtree/blobs_in.npy");
  const std::string prio = cusktest::golden_path("morphology_maxtree/blobs_prio_p.npy");
  const std::string out = cusktest::temp_path("rod_cli_gpu.npy");
  auto r = cuskclitest::run_cli({"morphology.remove_objects_by_distance", in, out, "--min_distance", "3", "--device", "cuda"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_ARRAY_EQ(gold("blobs_d3"), io::imread(out));
  r = cuskclitest::run_cli({"morphology.remove_objects_by_distance", in, prio, out, "--min_distance", "4", "--device", "cuda"});
  ASSERT_EQ(r.rc, 0) << cuskclitest::describe(r);
  EXPECT_ARRAY_EQ(gold("blobs_prio"), io::imread(out));
}

}  // namespace
