// regionprops pass 1's warp-strip kernel (kernels/measure/regionprops_warp.cuh) run on the CPU
// under the SIMT emulator of tests/measure/warp_emu.hpp, against a per-pixel oracle: count, bbox,
// coordinate sums exact; intensity sums, extremes and weighted sums exact for integer
// intensities (32-bit run and table sums, doubles below 2^53), 1e-12 relative for floats. The
// driver below follows run_pass1 (kernels/measure/regionprops.cu): the fused mode (records and
// the max label, then the records' atomics), its fallbacks (a table without room, too many
// records) and the direct mode (global atomics at each flush; channel groups of 4), over the
// kernel's parameters (V, TH, Q, warps per block, record capacity; the library fixes V and the
// warps, tuning::RegionpropsPolicy sets the others) plus a grid of one block so that each warp
// walks many strips. The emulator also checks that all 32 lanes meet at every shuffle, ballot and
// vote. These run without a GPU; the GPU tests (test_regionprops_device.cpp) run the policy's
// settings through the library.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "tests/measure/warp_emu.hpp"

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunknown-pragmas"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
namespace cusk_emu {
#include "kernels/measure/regionprops_warp.cuh"
}  // namespace cusk_emu
#pragma GCC diagnostic pop

namespace {

using namespace cusk_emu;  // NOLINT: the fragment's names

struct Opt {
  int v = 4, th = 0, q = 0, warps = 8;
  bool fuse = true, lab_vec = true, int_vec = true;
  std::int64_t reccap = 0;
  unsigned max_grid = 0;  // 0: enough blocks for one strip per warp
  std::string str() const {
    return "v=" + std::to_string(v) + " th=" + std::to_string(th) + " q=" + std::to_string(q) + " warps=" +
           std::to_string(warps) + " fuse=" + std::to_string(fuse) + " vec=" + std::to_string(lab_vec) +
           std::to_string(int_vec) + " reccap=" + std::to_string(reccap) + " grid<=" + std::to_string(max_grid);
  }
};

struct Req {
  bool sum = true, minmax = false, weighted = false;
};

/// Pass 1 of one label image, emulated as run_pass1 drives it.
template <class L, class T>
struct Run {
  int nd = 2;
  std::int64_t nz = 1, ny = 0, nx = 0;
  int nch = 0;
  std::vector<L> lab;
  std::vector<T> in;
  // results
  std::int64_t S = 0;
  std::vector<std::int64_t> keys;  // sparse slots
  std::vector<u64> cnt, lo, hi, csum, imin, imax;
  std::vector<double> isum, iwsum;
  bool used_records = false, records_fell_back = false;
  std::string error;

  std::int64_t size() const { return nz * ny * nx; }

  Pass1Acc acc_for(int c0, const Req& r) {
    Pass1Acc a{};
    a.cnt = cnt.empty() ? nullptr : cnt.data();
    a.lo = lo.empty() ? nullptr : lo.data();
    a.hi = hi.empty() ? nullptr : hi.data();
    a.csum = csum.empty() ? nullptr : csum.data();
    a.isum = isum.empty() ? nullptr : isum.data();
    a.iwsum = iwsum.empty() ? nullptr : iwsum.data();
    a.imin = imin.empty() ? nullptr : imin.data();
    a.imax = imax.empty() ? nullptr : imax.data();
    a.nch = nch;
    a.c0 = c0;
    a.cc = nch > 0 ? std::min(4, nch - c0) : 0;
    a.geometry = c0 == 0;
    a.sum = nch > 0 && (r.sum || r.weighted);
    a.minmax = nch > 0 && r.minmax;
    a.weighted = nch > 0 && r.weighted;
    if (!a.sum && !a.minmax && !a.weighted) a.cc = 0;
    return a;
  }

  int pick_v(const Opt& o, const Pass1Acc& a) const {
    constexpr bool v8 = sizeof(L) == 4 && (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>);
    return (v8 && o.v == 8 && !(a.minmax || a.weighted) && a.cc <= 1) ? 8 : 4;
  }

  StripGeo geo(int v, const Opt& o) const {
    StripGeo g = make_strip_geo(nd, nz, ny, nx, v, o.th);
    g.lab_vec = o.lab_vec && g.nx % v == 0;
    g.int_vec = o.int_vec && nch == 1 && g.nx % v == 0;
    return g;
  }

  template <int V, int CH, bool FULL>
  void launch_inst(const StripGeo& g, const SlotMap& map, const Pass1Acc& a, const Records& rec, const Opt& o) {
    using Tr = ITraits<T>;
    const WarpLayout lay = warp_layout(warp_q(g, o.q), sizeof(L), sizeof(typename Tr::Sum), sizeof(typename Tr::Key), a);
    const unsigned need = static_cast<unsigned>((g.count + o.warps - 1) / o.warps);
    const unsigned grid = o.max_grid ? std::min(need, o.max_grid) : need;
    const L* lp = lab.data();
    const T* ip = nch > 0 ? in.data() : nullptr;
    const std::string e = launch(grid, 32 * o.warps, static_cast<std::size_t>(lay.stride) * o.warps, [&] {
      pass1_warp_kernel<L, T, V, CH, FULL>(lp, ip, g, map, a, lay, rec);
    });
    if (!e.empty() && error.empty()) error = e;
  }

  void launch_kernel(const StripGeo& g, int v, const SlotMap& map, const Pass1Acc& a, const Records& rec, const Opt& o) {
    const bool full = a.minmax || a.weighted;
    if (!full && a.cc <= 1) {
      if constexpr (sizeof(L) == 4 && (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>))
        if (v == 8) return launch_inst<8, 1, false>(g, map, a, rec, o);
      return launch_inst<4, 1, false>(g, map, a, rec, o);
    }
    if (a.cc <= 1) return launch_inst<4, 1, true>(g, map, a, rec, o);
    launch_inst<4, 4, true>(g, map, a, rec, o);
  }

  void alloc(const Req& r) {
    const int C = nch;
    cnt.assign(S, 0);
    lo.assign(S * nd, 0);
    hi.assign(S * nd, 0);
    csum.assign(S * nd, 0);
    isum.clear();
    imin.clear();
    imax.clear();
    iwsum.clear();
    if (C > 0 && (r.sum || r.weighted)) isum.assign(S * C, 0.0);
    if (C > 0 && r.minmax) {
      imin.assign(S * C, 0);
      imax.assign(S * C, 0);
    }
    if (C > 0 && r.weighted) iwsum.assign(S * C * nd, 0.0);
  }

  void slots_from(std::int64_t maxl, std::vector<std::int64_t> cand, SlotMap& map) {
    map = SlotMap{};
    keys.clear();
    if (maxl <= std::min<std::int64_t>(std::int64_t(1) << 24, 4 * size() + 1024)) {
      map.max_label = maxl;
      S = maxl + 1;
      return;
    }
    std::sort(cand.begin(), cand.end());
    cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
    cand.erase(std::remove_if(cand.begin(), cand.end(), [](std::int64_t x) { return x <= 0; }), cand.end());
    keys = cand;
    S = static_cast<std::int64_t>(keys.size());
    map.keys = keys.data();
    map.nkeys = S;
  }

  void run(const Opt& o, const Req& r) {
    const int C = nch;
    std::int64_t maxl = -1;
    SlotMap map;
    bool done = false;
    if (o.fuse && C <= 4 && size() > 0) {
      const Pass1Acc a = acc_for(0, r);
      const int v = pick_v(o, a);
      const StripGeo g = geo(v, o);
      if (g.count > 0) {
        const std::int64_t cap = o.reccap > 0 ? o.reccap : std::max<std::int64_t>(65536, size() / 32);
        const int cc = a.cc;
        std::vector<L> rl(cap);
        std::vector<unsigned> rs(cap), rn(cap), rb(cap), ry(cap), rx(cap);
        std::vector<double> d_s, d_mn, d_mx, d_wy, d_wx;
        if ((a.sum || a.weighted) && cc > 0) d_s.assign(cap * cc, 0);
        if (a.minmax && cc > 0) d_mn.assign(cap * cc, 0), d_mx.assign(cap * cc, 0);
        if (a.weighted && cc > 0) d_wy.assign(cap * cc, 0), d_wx.assign(cap * cc, 0);
        std::vector<u64> ctr(4, 0);
        Records rec;
        rec.on = true;
        rec.ctr = ctr.data();
        rec.cap = cap;
        rec.label = rl.data();
        rec.strip = rs.data();
        rec.n = rn.data();
        rec.box = rb.data();
        rec.ysum = ry.data();
        rec.xsum = rx.data();
        auto dp = [](std::vector<double>& v) { return v.empty() ? nullptr : v.data(); };
        rec.s = dp(d_s);
        rec.mn = dp(d_mn);
        rec.mx = dp(d_mx);
        rec.wy = dp(d_wy);
        rec.wx = dp(d_wx);
        launch_kernel(g, v, SlotMap{}, a, rec, o);
        const auto nrec = static_cast<std::int64_t>(ctr[0]);
        maxl = std::max<std::int64_t>(0, static_cast<std::int64_t>(ctr[2]));
        if (ctr[1] == 0 && nrec <= cap) {
          std::vector<std::int64_t> cand(rl.begin(), rl.begin() + nrec);
          slots_from(maxl, cand, map);
          alloc(r);
          const Pass1Acc fa = acc_for(0, r);
          const std::string e = launch(static_cast<unsigned>((nrec + 255) / 256 + 1), 256, 0, [&] {
            if (fa.cc <= 1)
              records_kernel<L, 1>(rec, nrec, g, map, fa);
            else
              records_kernel<L, 4>(rec, nrec, g, map, fa);
          });
          if (!e.empty() && error.empty()) error = e;
          done = true;
          used_records = true;
        } else {
          records_fell_back = true;
        }
      }
    }
    if (!done) {
      if (maxl < 0) {
        maxl = 0;
        for (const L x : lab) maxl = std::max<std::int64_t>(maxl, static_cast<std::int64_t>(x));
      }
      slots_from(maxl, std::vector<std::int64_t>(lab.begin(), lab.end()), map);
      alloc(r);
      for (int c0 = 0; c0 < std::max(C, 1); c0 += 4) {
        const Pass1Acc a = acc_for(c0, r);
        if (!a.geometry && a.cc == 0) continue;
        const int v = pick_v(o, a);
        const StripGeo g = geo(v, o);
        ASSERT_GT(g.count, 0);
        launch_kernel(g, v, map, a, Records{}, o);
      }
    }
  }
};

/// Per-label truth from the pixels (raster order, NaN ignored by the extremes as std::min does).
struct Truth {
  std::int64_t count = 0, lo[3], hi[3], csum[3] = {0, 0, 0};
  std::vector<double> isum, imin, imax, iw;
};

template <class L, class T>
std::map<std::int64_t, Truth> truth(const Run<L, T>& r) {
  std::map<std::int64_t, Truth> m;
  const int nd = r.nd, C = r.nch;
  for (std::int64_t z = 0; z < r.nz; ++z)
    for (std::int64_t y = 0; y < r.ny; ++y)
      for (std::int64_t x = 0; x < r.nx; ++x) {
        const std::int64_t i = (z * r.ny + y) * r.nx + x;
        const auto l = static_cast<std::int64_t>(r.lab[i]);
        if (l <= 0) continue;
        auto [it, fresh] = m.try_emplace(l);
        Truth& t = it->second;
        if (fresh) {
          for (int a = 0; a < 3; ++a) t.lo[a] = std::numeric_limits<std::int64_t>::max(), t.hi[a] = 0;
          t.isum.assign(C, 0.0);
          t.imin.assign(C, std::numeric_limits<double>::infinity());
          t.imax.assign(C, -std::numeric_limits<double>::infinity());
          t.iw.assign(C * nd, 0.0);
        }
        const std::int64_t c3[3] = {z, y, x};
        const std::int64_t* c = nd == 3 ? c3 : c3 + 1;
        ++t.count;
        for (int a = 0; a < nd; ++a) {
          t.lo[a] = std::min(t.lo[a], c[a]);
          t.hi[a] = std::max(t.hi[a], c[a] + 1);
          t.csum[a] += c[a];
        }
        for (int ch = 0; ch < C; ++ch) {
          const double v = static_cast<double>(r.in[i * C + ch]);
          t.isum[ch] += v;
          t.imin[ch] = std::min(t.imin[ch], v);
          t.imax[ch] = std::max(t.imax[ch], v);
          for (int a = 0; a < nd; ++a) t.iw[ch * nd + a] += v * static_cast<double>(c[a]);
        }
      }
  return m;
}

bool near(double want, double got, double rtol) {
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (rtol == 0) return want == got;
  return std::abs(want - got) <= rtol * std::max(1.0, std::abs(want));
}

template <class L, class T>
::testing::AssertionResult check(Run<L, T>& r, const Opt& o, const Req& q) {
  r.run(o, q);
  if (!r.error.empty()) return ::testing::AssertionFailure() << "emulator: " << r.error;
  const auto want = truth(r);
  const double rtol = std::is_integral_v<T> ? 0.0 : 1e-12;
  const int nd = r.nd, C = r.nch;
  std::size_t present = 0;
  for (std::int64_t s = 0; s < r.S; ++s)
    if (r.cnt[s] > 0 && (!r.keys.empty() || s > 0)) ++present;
  if (present != want.size())
    return ::testing::AssertionFailure() << present << " labels measured, " << want.size() << " present";
  for (const auto& [l, t] : want) {
    std::int64_t s = l;
    if (!r.keys.empty()) s = std::lower_bound(r.keys.begin(), r.keys.end(), l) - r.keys.begin();
    auto fail = [&](const char* what) {
      return ::testing::AssertionFailure() << "label " << l << ": " << what << (r.used_records ? " (records)" : " (direct)");
    };
    if (s >= r.S || (!r.keys.empty() && r.keys[s] != l)) return fail("no slot");
    if (static_cast<std::int64_t>(r.cnt[s]) != t.count) return fail("count");
    for (int a = 0; a < nd; ++a) {
      if (static_cast<std::int64_t>(~r.lo[s * nd + a]) != t.lo[a]) return fail("bbox lo");
      if (static_cast<std::int64_t>(r.hi[s * nd + a]) != t.hi[a]) return fail("bbox hi");
      if (static_cast<std::int64_t>(r.csum[s * nd + a]) != t.csum[a]) return fail("coordinate sum");
    }
    for (int c = 0; c < C; ++c) {
      if (!r.isum.empty() && !near(t.isum[c], r.isum[s * C + c], rtol)) return fail("intensity sum");
      if (!r.imin.empty()) {
        if (dkey_inv(~r.imin[s * C + c]) != t.imin[c]) return fail("intensity min");
        if (dkey_inv(r.imax[s * C + c]) != t.imax[c]) return fail("intensity max");
      }
      if (!r.iwsum.empty())
        for (int a = 0; a < nd; ++a)
          if (!near(t.iw[c * nd + a], r.iwsum[(s * C + c) * nd + a], rtol)) return fail("weighted sum");
    }
  }
  return ::testing::AssertionSuccess();
}

/// Overlapping random ellipses painted with labels 1..n (later ones over earlier ones: regions
/// with holes, several runs of one label in a row), ~40-60 % foreground, a few negative labels.
template <class L>
std::vector<L> blobs(std::int64_t nz, std::int64_t ny, std::int64_t nx, int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<L> v(static_cast<std::size_t>(nz * ny * nx), L(0));
  std::uniform_real_distribution<double> u(0, 1);
  for (int k = 1; k <= n; ++k) {
    const double cz = u(rng) * nz, cy = u(rng) * ny, cx = u(rng) * nx;
    const double rz = 0.5 + u(rng) * 3, ry = 1 + u(rng) * 9, rx = 1 + u(rng) * 25;
    for (std::int64_t z = 0; z < nz; ++z)
      for (std::int64_t y = std::max<std::int64_t>(0, static_cast<std::int64_t>(cy - ry));
           y < std::min<std::int64_t>(ny, static_cast<std::int64_t>(cy + ry) + 1); ++y)
        for (std::int64_t x = std::max<std::int64_t>(0, static_cast<std::int64_t>(cx - rx));
             x < std::min<std::int64_t>(nx, static_cast<std::int64_t>(cx + rx) + 1); ++x) {
          const double dz = nz > 1 ? (z - cz) / rz : 0, dy = (y - cy) / ry, dx = (x - cx) / rx;
          if (dz * dz + dy * dy + dx * dx <= 1) v[(z * ny + y) * nx + x] = static_cast<L>(k);
        }
  }
  for (int k = 0; k < 5 && !v.empty(); ++k) v[rng() % v.size()] = static_cast<L>(-3);
  return v;
}

template <class T>
std::vector<T> values(std::size_t n, std::uint64_t seed, bool nans = false) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) {
    if constexpr (std::is_integral_v<T>) {
      x = static_cast<T>(rng());
    } else {
      x = static_cast<T>(std::uniform_real_distribution<double>(-2, 3)(rng));
      if (nans && rng() % 97 == 0) x = std::numeric_limits<T>::quiet_NaN();
    }
  }
  return v;
}

template <class L, class T>
Run<L, T> make(int nd, std::int64_t nz, std::int64_t ny, std::int64_t nx, std::vector<L> lab, int nch,
               std::uint64_t seed, bool nans = false) {
  Run<L, T> r;
  r.nd = nd;
  r.nz = nz;
  r.ny = ny;
  r.nx = nx;
  r.nch = nch;
  r.lab = std::move(lab);
  if (nch > 0) r.in = values<T>(r.lab.size() * static_cast<std::size_t>(nch), seed, nans);
  return r;
}

const std::vector<Opt>& options() {
  static const std::vector<Opt> o = [] {
    std::vector<Opt> v;
    v.push_back({});                                   // defaults, fused
    v.push_back({.fuse = false});                      // direct
    v.push_back({.v = 8});                             // 8 px per lane (where instantiated)
    v.push_back({.v = 8, .fuse = false, .max_grid = 1});
    v.push_back({.th = 1, .warps = 3});                // one-row strips, 3 warps per block
    v.push_back({.th = 5, .q = 32, .max_grid = 1});    // every warp walks many strips
    v.push_back({.th = 128, .q = 32, .fuse = false});  // tall strips, small tables: overflow runs
    v.push_back({.th = 7, .q = 128, .warps = 1, .lab_vec = false, .int_vec = false});  // scalar loads
    v.push_back({.reccap = 3});                        // too many records: the direct fallback
    return v;
  }();
  return o;
}

/// Every option set on one input; `records`: the fused mode should keep its records (tables with
/// room for every label of a strip), else it should fall back to the direct pass.
template <class L, class T>
void sweep(Run<L, T> r, const Req& q, const std::string& what, bool records = true) {
  for (const Opt& o : options()) {
    Run<L, T> x = r;
    EXPECT_TRUE(check(x, o, q)) << what << " " << o.str();
    if (!o.fuse || r.nch > 4) continue;
    if (o.reccap == 3 || !records)
      EXPECT_TRUE(x.records_fell_back) << what << " " << o.str();
    else if (o.q != 32)
      EXPECT_TRUE(x.used_records) << what << " " << o.str();
  }
}

TEST(RegionpropsWarpEmu, IssueSixTable) {
  // int32 labels, uint8 intensity, count / bbox / centroid / mean: the sum-only kernel.
  sweep(make<std::int32_t, std::uint8_t>(2, 1, 70, 300, blobs<std::int32_t>(1, 70, 300, 60, 1), 1, 2), Req{},
        "blobs uint8");
  sweep(make<std::int32_t, std::uint8_t>(2, 1, 41, 256, blobs<std::int32_t>(1, 41, 256, 30, 3), 0, 4), Req{},
        "blobs, no intensity");
  sweep(make<std::int32_t, std::uint16_t>(2, 1, 33, 515, blobs<std::int32_t>(1, 33, 515, 40, 5), 1, 6), Req{},
        "blobs uint16, odd width");
}

TEST(RegionpropsWarpEmu, ExtremesWeightedAndChannels) {
  Req all;
  all.minmax = all.weighted = true;
  sweep(make<std::int64_t, float>(2, 1, 50, 260, blobs<std::int64_t>(1, 50, 260, 40, 7), 1, 8, true), all,
        "float32 with NaN, int64 labels");
  sweep(make<std::int32_t, std::uint8_t>(2, 1, 37, 140, blobs<std::int32_t>(1, 37, 140, 25, 9), 3, 10), all,
        "uint8 x 3 channels");
  sweep(make<std::int32_t, double>(3, 4, 19, 150, blobs<std::int32_t>(4, 19, 150, 30, 11), 5, 12), all,
        "3-D float64 x 5 channels (two launches)");
  Req mm;
  mm.sum = false;
  mm.minmax = true;
  sweep(make<std::int64_t, std::uint16_t>(3, 3, 20, 131, blobs<std::int64_t>(3, 20, 131, 20, 13), 2, 14), mm,
        "3-D uint16 x 2 extremes only");
}

TEST(RegionpropsWarpEmu, CrowdedTablesAndSparseLabels) {
  std::mt19937_64 rng(21);
  std::vector<std::int32_t> noise(60 * 200);
  for (auto& x : noise) x = static_cast<std::int32_t>(rng() % 3000);
  sweep(make<std::int32_t, std::uint8_t>(2, 1, 60, 200, noise, 1, 22), Req{}, "noise labels", false);
  std::vector<std::int64_t> each(23 * 131);
  for (std::size_t i = 0; i < each.size(); ++i) each[i] = static_cast<std::int64_t>(i) + 1;
  Req all;
  all.minmax = all.weighted = true;
  sweep(make<std::int64_t, float>(2, 1, 23, 131, each, 1, 23), all, "one pixel per label", false);
  auto big = blobs<std::int64_t>(1, 45, 200, 50, 24);
  for (auto& x : big)
    if (x > 0) x = x * ((std::int64_t(1) << 33) + 7) + 5;  // sparse: sorted-key slots
  sweep(make<std::int64_t, std::uint8_t>(2, 1, 45, 200, big, 1, 25), Req{}, "sparse labels");
}

TEST(RegionpropsWarpEmu, RunsAcrossLanesAndShapes) {
  std::vector<std::int32_t> one(40 * 300, 7);  // one label: every run crosses all 32 lanes
  sweep(make<std::int32_t, std::uint8_t>(2, 1, 40, 300, one, 1, 31), Req{}, "one label");
  std::vector<std::int32_t> chk(16 * 260);  // one-pixel runs: V emission rounds per lane
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 260; ++x) chk[y * 260 + x] = 1 + ((x + y) & 1);
  sweep(make<std::int32_t, std::uint16_t>(2, 1, 16, 260, chk, 1, 32), Req{}, "checkerboard");
  std::vector<std::int32_t> stripes(20 * 256);  // runs of 3 px: runs end inside lanes and across
  for (int i = 0; i < 20 * 256; ++i) stripes[i] = (i / 3) % 4;
  sweep(make<std::int32_t, std::uint8_t>(2, 1, 20, 256, stripes, 1, 33), Req{}, "stripes");
  for (auto [ny, nx] : {std::pair<int, int>{1, 1000}, {1000, 1}, {3, 5}, {17, 129}}) {
    std::mt19937_64 rng(34 + nx);
    std::vector<std::int32_t> v(static_cast<std::size_t>(ny) * nx);
    for (auto& x : v) x = static_cast<std::int32_t>(rng() % 6);
    sweep(make<std::int32_t, std::uint8_t>(2, 1, ny, nx, v, 1, 35), Req{}, std::to_string(ny) + "x" + std::to_string(nx));
  }
  std::vector<std::int32_t> d3 = {0, 1, 1, 2, 0, 2, 2, 1, 1, 1, 0, 3, 3, 3};
  sweep(make<std::int32_t, std::uint8_t>(3, 2, 1, 7, d3, 1, 36), Req{}, "2x1x7");
}

}  // namespace
