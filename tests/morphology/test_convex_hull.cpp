// skimage.morphology.convex_hull_image / convex_hull_object (2-D).
// CPU: golden outputs of scikit-image 0.26 (tests/golden/cases_morphology_skel.py, "ch_*" cases):
// horse, blobs, many small blobs, sparse points, touching objects of different values, a diagonal
// line and a single pixel (flat hulls without offset coordinates), float and uint16 inputs (NumPy's
// uint8 cast; measure.label's int64 cast); every option; 3-D hulls (CPU only) on blobs, sparse
// voxels, a coplanar set (Qhull fails: zeros) and a padded ball, with a non-default tolerance.
// Exact (bool results).
// 3-D on the host: the device quickhull's own source (src/morphology/convex_hull3d.hpp) run by
// std::threads with a std::barrier as the block, against the CPU backend's incremental hull.
// GPU (Gpu*): device vs CPU on fresh random inputs of several dtypes and densities, strided views,
// a non-default stream; 3-D: blobs, balls, sparse points, planes, lines, single voxels, thin and
// anisotropic volumes, every option, the goldens, and the batched per-region / per-segment entry
// points against per-region CPU hulls.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/stream.hpp"
#include "src/morphology/convex_hull3d.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using namespace cuskimage;
using namespace cuskimage::morphology;
using cusktest::load_golden;

const std::vector<std::string> kCases = {"horse", "blobs", "blobs_many", "random", "sparse",
                                         "two",   "diag",  "single",     "float",  "u16"};

Array gold(const std::string& c, const std::string& what) {
  return load_golden("morphology_skel/ch_" + c + "_" + what + ".npy");
}

template <class E, class F>
void expect_throw(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception, expected one mentioning " << needle;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(MorphologyConvexHull, ImageGolden) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c);
    const Array img = gold(c, "in");
    EXPECT_ARRAY_EQ(gold(c, "hull"), convex_hull_image(img));
    EXPECT_ARRAY_EQ(gold(c, "hull_nooff"), convex_hull_image(img, {.offset_coordinates = false}));
    EXPECT_ARRAY_EQ(gold(c, "hull_noborder"), convex_hull_image(img, {.include_borders = false}));
  }
}

TEST(MorphologyConvexHull, ObjectGolden) {
  for (const auto& c : kCases) {
    SCOPED_TRACE(c);
    const Array img = gold(c, "in");
    EXPECT_ARRAY_EQ(gold(c, "obj1"), convex_hull_object(img, {.connectivity = 1}));
    EXPECT_ARRAY_EQ(gold(c, "obj2"), convex_hull_object(img));
  }
}

TEST(MorphologyConvexHull, Image3dGolden) {
  for (const std::string c : {"blobs3", "sparse3", "plane3", "ball3"}) {
    SCOPED_TRACE(c);
    const Array img = gold(c, "in");
    EXPECT_ARRAY_EQ(gold(c, "hull"), convex_hull_image(img));
    EXPECT_ARRAY_EQ(gold(c, "hull_nooff"), convex_hull_image(img, {.offset_coordinates = false}));
    EXPECT_ARRAY_EQ(gold(c, "hull_tol"), convex_hull_image(img, {.tolerance = 0.3}));
  }
}

TEST(MorphologyConvexHull, StridedAndDegenerate) {
  const Array img = gold("blobs", "in");
  const Array v = img.slice({Slice{.start = 2, .step = 2}, Slice{.step = 3}});
  EXPECT_ARRAY_EQ(convex_hull_image(v.copy()), convex_hull_image(v));
  EXPECT_ARRAY_EQ(convex_hull_object(v.copy()), convex_hull_object(v));
  const Array t = img.transpose({1, 0});
  EXPECT_ARRAY_EQ(convex_hull_image(t.copy()), convex_hull_image(t));
  EXPECT_EQ(convex_hull_image(Array::zeros({0, 3}, DType::bool_)).shape(), (Shape{0, 3}));
  EXPECT_EQ(convex_hull_object(Array::zeros({0, 3}, DType::bool_)).shape(), (Shape{0, 3}));
  // An all-zero image has no hull (scikit-image warns and returns zeros).
  const Array z = Array::zeros({4, 6}, DType::uint8);
  EXPECT_ARRAY_EQ(z.astype(DType::bool_), convex_hull_image(z));
  EXPECT_ARRAY_EQ(z.astype(DType::bool_), convex_hull_object(z));
  // One pixel: its diamond holds its centre strictly inside.
  const Array one = Array::full({1, 1}, 1, DType::bool_);
  EXPECT_ARRAY_EQ(one, convex_hull_image(one));
  EXPECT_ARRAY_EQ(one, convex_hull_image(one, {.include_borders = false}));
}

TEST(MorphologyConvexHull, BadInput) {
  expect_throw<InvalidArgument>([] { convex_hull_image(Array::zeros({5}, DType::bool_)); }, "2D");
  expect_throw<NotSupported>([] { convex_hull_image(Array::zeros({2, 2, 2, 2}, DType::bool_)); }, "4-D");
  expect_throw<InvalidArgument>([] { convex_hull_object(Array::zeros({3, 3, 3}, DType::bool_)); }, "2D");
  expect_throw<InvalidArgument>([] { convex_hull_object(Array::zeros({3, 3}, DType::bool_), {.connectivity = 3}); },
                                "connectivity");
  expect_throw<InvalidArgument>([] { convex_hull_image(Array{}); }, "image");
}

TEST(MorphologyConvexHull, Cli) {
  const Array img = gold("two", "in");
  const std::string in = cusktest::temp_path("hull_cli_in.npy"), out = cusktest::temp_path("hull_cli_out.npy");
  io::imsave(in, img);
  auto run = [&](const std::vector<std::string>& args) {
    const auto r = cuskclitest::run_cli(args);
    if (r.rc != 0) ADD_FAILURE_AT(__FILE__, __LINE__) << cuskclitest::describe(r);
    return r.rc;
  };
  ASSERT_EQ(run({"morphology.convex_hull_image", in, out, "--include_borders", "false", "--device", "cpu"}), 0);
  EXPECT_ARRAY_EQ(gold("two", "hull_noborder"), io::imread(out));
  ASSERT_EQ(run({"morphology.convex_hull_object", in, out, "--connectivity", "1", "--device", "cpu"}), 0);
  EXPECT_ARRAY_EQ(gold("two", "obj1"), io::imread(out));
  EXPECT_EQ(cuskclitest::run_cli({"morphology.convex_hull_object", in, out, "--connectivity", "3"}).rc, 1);
}

// ---- GPU ------------------------------------------------------------------------------------------

Array sparse_mask(const Shape& shape, double p, std::uint64_t seed, DType dt) {
  const Array r = cusktest::random_array(shape, DType::float64, seed);
  std::vector<double> v = r.to_vector<double>();
  const Array vals = cusktest::random_array(shape, DType::uint8, seed + 100, 1, 3);
  const std::vector<double> w = vals.to_vector<double>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = v[i] < p ? w[i] : 0.0;
  return Array::from_vector(v, shape).astype(dt);
}

TEST(GpuMorphologyConvexHull, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 31;
  for (DType dt : {DType::bool_, DType::uint8, DType::uint16, DType::int32, DType::float32, DType::float64})
    for (double p : {0.0005, 0.01, 0.2, 0.7})
      for (const Shape& shape : {Shape{211, 317}, Shape{1, 50}, Shape{64, 1}, Shape{1030, 77}}) {
        SCOPED_TRACE(std::string(dtype_name(dt)) + " p=" + std::to_string(p) + " " + shape_str(shape));
        const Array h = sparse_mask(shape, p, seed++, dt);
        const Array d = h.to(Device::cuda(), s);
        EXPECT_ARRAY_EQ(convex_hull_image(h), convex_hull_image(d, {}, s));
        EXPECT_ARRAY_EQ(convex_hull_image(h, {.offset_coordinates = false}),
                        convex_hull_image(d, {.offset_coordinates = false}, s));
        EXPECT_ARRAY_EQ(convex_hull_image(h, {.include_borders = false}),
                        convex_hull_image(d, {.include_borders = false}, s));
        EXPECT_ARRAY_EQ(convex_hull_object(h, {.connectivity = 1}), convex_hull_object(d, {.connectivity = 1}, s));
        EXPECT_ARRAY_EQ(convex_hull_object(h), convex_hull_object(d, {}, s));
      }
}

TEST(GpuMorphologyConvexHull, GoldenOnDevice) {
  CUSK_REQUIRE_GPU();
  for (const auto& c : kCases) {
    SCOPED_TRACE(c);
    const Array d = gold(c, "in").to(Device::cuda());
    EXPECT_ARRAY_EQ(gold(c, "hull"), convex_hull_image(d));
    EXPECT_ARRAY_EQ(gold(c, "hull_nooff"), convex_hull_image(d, {.offset_coordinates = false}));
    EXPECT_ARRAY_EQ(gold(c, "obj2"), convex_hull_object(d));
  }
}

TEST(GpuMorphologyConvexHull, StridedViewsAndStream) {
  CUSK_REQUIRE_GPU();
  const Array h = sparse_mask({300, 280}, 0.01, 77, DType::uint8);
  const Array hv = h.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}});
  const Array d = h.to(Device::cuda());
  const Array dv = d.slice({Slice{.start = 1, .step = 2}, Slice{.step = 3}});
  EXPECT_ARRAY_EQ(convex_hull_image(hv), convex_hull_image(dv));
  EXPECT_ARRAY_EQ(convex_hull_object(hv), convex_hull_object(dv));
  Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array a = convex_hull_image(d, {}, s);
    Array b = convex_hull_object(d, {}, s);
    s.synchronize();
  }));
}

// ---- 3-D ------------------------------------------------------------------------------------------

namespace h3 = cuskimage::morphology::detail;
using i64 = std::int64_t;

i64 count_true(const Array& a) {
  i64 n = 0;
  for (double x : a.astype(DType::float64).to_vector<double>()) n += x != 0;
  return n;
}

/// A union of k random ellipsoids in `shape` (centres may lie outside: objects touch the borders),
/// semi-axes up to `scale` of the axis.
Array blobs3(const Shape& shape, int k, std::uint64_t seed, double scale = 1.0 / 3) {
  std::mt19937_64 g(seed);
  const i64 P = shape[0], R = shape[1], C = shape[2];
  std::vector<std::uint8_t> v(static_cast<std::size_t>(P * R * C), 0);
  auto uni = [&](double a, double b) { return std::uniform_real_distribution<double>(a, b)(g); };
  for (int e = 0; e < k; ++e) {
    const double c[3] = {uni(-0.1, 1.1) * P, uni(-0.1, 1.1) * R, uni(-0.1, 1.1) * C};
    const double r[3] = {uni(0.6, std::max(1.0, P * scale)), uni(0.6, std::max(1.0, R * scale)),
                         uni(0.6, std::max(1.0, C * scale))};
    for (i64 p = 0; p < P; ++p)
      for (i64 q = 0; q < R; ++q)
        for (i64 w = 0; w < C; ++w) {
          const double a = (p - c[0]) / r[0], b = (q - c[1]) / r[1], d = (w - c[2]) / r[2];
          if (a * a + b * b + d * d <= 1.0) v[static_cast<std::size_t>((p * R + q) * C + w)] = 1;
        }
  }
  return Array::from_vector(v, shape).astype(DType::bool_);
}

/// skimage.morphology.ball(r) (x^2 + y^2 + z^2 <= r^2) padded by pad[axis][before/after] (negative:
/// cropped, so the ball touches the border).
Array ball3(i64 r, const std::vector<i64>& pad) {
  const i64 P = 2 * r + 1 + pad[0] + pad[1], R = 2 * r + 1 + pad[2] + pad[3], C = 2 * r + 1 + pad[4] + pad[5];
  std::vector<std::uint8_t> v(static_cast<std::size_t>(P * R * C), 0);
  for (i64 p = 0; p < P; ++p)
    for (i64 q = 0; q < R; ++q)
      for (i64 w = 0; w < C; ++w) {
        const i64 a = p - pad[0] - r, b = q - pad[2] - r, c = w - pad[4] - r;
        if (a * a + b * b + c * c <= r * r) v[static_cast<std::size_t>((p * R + q) * C + w)] = 1;
      }
  return Array::from_vector(v, {P, R, C}).astype(DType::bool_);
}

/// The listed voxels set in a zero volume.
Array voxels3(const Shape& shape, const std::vector<std::array<i64, 3>>& pts) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(shape[0] * shape[1] * shape[2]), 0);
  for (const auto& q : pts) v[static_cast<std::size_t>((q[0] * shape[1] + q[1]) * shape[2] + q[2])] = 1;
  return Array::from_vector(v, shape).astype(DType::bool_);
}

/// The 3-D cases both the host quickhull and the device run: (name, bool volume).
std::vector<std::pair<std::string, Array>> hull3_cases(bool large) {
  std::vector<std::pair<std::string, Array>> c;
  c.emplace_back("blobs_a", blobs3({12, 15, 17}, 4, 1));
  c.emplace_back("blobs_b", blobs3({16, 9, 21}, 7, 2));
  c.emplace_back("sparse", sparse_mask({9, 11, 13}, 0.03, 3, DType::bool_));
  c.emplace_back("sparse5", voxels3({7, 8, 9}, {{0, 0, 0}, {6, 7, 8}, {3, 1, 4}, {1, 5, 2}, {6, 0, 3}}));
  c.emplace_back("ball5", ball3(5, {1, 2, 0, 3, 2, 1}));
  c.emplace_back("ball9_cut", ball3(9, {-3, 0, 1, -5, 0, 0}));
  c.emplace_back("plane", voxels3({5, 6, 7}, {{2, 1, 1}, {2, 4, 5}, {2, 3, 2}, {2, 1, 6}}));
  c.emplace_back("diag_plane", voxels3({6, 6, 6}, {{0, 0, 1}, {1, 1, 1}, {2, 2, 3}, {5, 5, 0}, {4, 4, 4}}));
  c.emplace_back("line", voxels3({6, 7, 8}, {{1, 1, 1}, {3, 3, 3}, {5, 5, 5}}));
  c.emplace_back("single", voxels3({4, 5, 6}, {{2, 3, 1}}));
  c.emplace_back("two", voxels3({4, 5, 6}, {{0, 0, 0}, {3, 4, 5}}));
  c.emplace_back("tetra", voxels3({4, 5, 6}, {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {1, 0, 0}}));
  c.emplace_back("corners", voxels3({5, 6, 7}, {{0, 0, 0}, {4, 5, 6}, {0, 5, 6}, {4, 0, 0}, {4, 5, 0}, {0, 0, 6}}));
  c.emplace_back("flat_1xNxM", blobs3({1, 20, 25}, 3, 4));
  c.emplace_back("slab_2xNxM", sparse_mask({2, 20, 20}, 0.05, 5, DType::bool_));
  c.emplace_back("aniso", blobs3({3, 40, 5}, 3, 6));
  c.emplace_back("empty", Array::zeros({3, 4, 5}, DType::bool_));
  if (large) {
    c.emplace_back("blobs_big", blobs3({33, 17, 61}, 9, 7));
    c.emplace_back("ball20", ball3(20, {0, 0, 0, 0, 0, 0}));
    c.emplace_back("dense", sparse_mask({20, 22, 24}, 0.4, 8, DType::bool_));
  }
  return c;
}

// ---- the device quickhull's source on the host -------------------------------------------------------

/// Block executor of std::threads (convex_hull3d.hpp's Ex).
struct HostBlock {
  int id, T;
  std::barrier<>* bar;
  std::vector<int>* buf;
  int tid() const { return id; }
  int size() const { return T; }
  void sync() const { bar->arrive_and_wait(); }
  int scan(int v, int& total) const {
    (*buf)[static_cast<std::size_t>(id)] = v;
    sync();
    int pre = 0, tot = 0;
    for (int j = 0; j < T; ++j) {
      if (j < id) pre += (*buf)[static_cast<std::size_t>(j)];
      tot += (*buf)[static_cast<std::size_t>(j)];
    }
    sync();
    total = tot;
    return pre;
  }
  template <class X>
  static void amin_(X* p, X v) {
    std::atomic_ref<X> a(*p);
    X c = a.load();
    while (v < c && !a.compare_exchange_weak(c, v)) {
    }
  }
  template <class X>
  static void amax_(X* p, X v) {
    std::atomic_ref<X> a(*p);
    X c = a.load();
    while (v > c && !a.compare_exchange_weak(c, v)) {
    }
  }
  void amin(int* p, int v) const { amin_(p, v); }
  int aadd(int* p, int v) const { return std::atomic_ref<int>(*p).fetch_add(v); }
  void aadd64(unsigned long long* p, unsigned long long v) const {
    std::atomic_ref<unsigned long long>(*p).fetch_add(v);
  }
  void amax(int* p, int v) const { amax_(p, v); }
  void amin64(unsigned long long* p, unsigned long long v) const { amin_(p, v); }
  void amax64(unsigned long long* p, unsigned long long v) const { amax_(p, v); }
};

void run_block(int T, const std::function<void(HostBlock&)>& f) {
  std::barrier<> bar(T);
  std::vector<int> buf(static_cast<std::size_t>(T));
  std::vector<std::thread> th;
  for (int i = 0; i < T; ++i)
    th.emplace_back([&, i] {
      HostBlock ex{i, T, &bar, &buf};
      f(ex);
    });
  for (auto& t : th) t.join();
}

struct HostPools {
  std::vector<h3::Hull3Facet> fac;
  std::vector<unsigned long long> u64;
  std::vector<std::int32_t> i32, pt, vis;
  std::vector<h3::Hull3Edge> hor;
  std::vector<h3::Hull3Cone> cone;
  h3::Hull3Pools p{};
  HostPools(i64 N, i64 S) {
    const i64 F = h3::hull3_facet_off(N, S);
    fac.resize(static_cast<std::size_t>(F));
    u64.resize(static_cast<std::size_t>(3 * F));
    i32.resize(static_cast<std::size_t>(8 * F));
    pt.resize(static_cast<std::size_t>(4 * N + 1));
    vis.resize(static_cast<std::size_t>(h3::hull3_vis_off(N, S)));
    hor.resize(static_cast<std::size_t>(h3::hull3_hor_off(N, S)));
    cone.resize(hor.size());
    // Garbage, as the device's uninitialised scratch: the hull must set what it reads.
    auto fill = [](auto& v) { std::memset(static_cast<void*>(v.data()), 0x5b, v.size() * sizeof(v[0])); };
    fill(fac);
    fill(u64);
    fill(i32);
    fill(pt);
    fill(vis);
    fill(hor);
    fill(cone);
    std::int32_t* q = i32.data();
    std::int32_t* t = pt.data();
    p = h3::Hull3Pools{fac.data(), u64.data(), u64.data() + F, u64.data() + 2 * F, q,     q + F,
                       q + 2 * F,  q + 3 * F,  q + 4 * F,      q + 5 * F,          q + 6 * F, q + 7 * F,
                       t,          t + N,      t + 2 * N,      t + 3 * N,          vis.data(), hor.data(),
                       cone.data()};
  }
};

/// What the host runs went through (hull3_build's statistics), summed.
struct QuickhullStats {
  i64 hulls = 0, rounds = 0, inserted = 0, aborted = 0, fallbacks = 0, multi = 0;
};
QuickhullStats g_stats;

struct HostHulls {
  std::vector<int> status;
  std::vector<std::int32_t> nplanes;
  std::vector<h3::Hull3Plane> planes;
};

/// The quickhull of every segment [off[k], off[k+1]) of `pts` (one pool for all, as on the device).
HostHulls host_hulls(const std::vector<h3::Hull3Pt>& pts, const std::vector<i64>& off, double tol, int T, int vcap,
                     int lcap, const std::vector<h3::Hull3Pt>* base = nullptr,
                     const std::vector<i64>* base_off = nullptr) {
  const i64 S = static_cast<i64>(off.size()) - 1, N = off.back();
  HostPools pools(N, S);
  HostHulls r;
  r.status.assign(static_cast<std::size_t>(S), -1);
  r.nplanes.assign(static_cast<std::size_t>(S), -1);
  r.planes.resize(static_cast<std::size_t>(h3::hull3_facet_off(N, S)));
  std::vector<h3::Hull3Pt> p = pts;
  p.push_back({0, 0, 0});
  for (i64 k = 0; k < S; ++k) {
    const h3::Hull3Work w = h3::hull3_work(pools.p, p.data(), off[k], off[k + 1] - off[k], k, vcap, lcap);
    h3::Hull3Shared sh{};
    run_block(T, [&](HostBlock& ex) {
      if (base)
        h3::hull3_build(ex, sh, w, base->data() + (*base_off)[k],
                        static_cast<int>((*base_off)[k + 1] - (*base_off)[k]));
      else
        h3::hull3_build(ex, sh, w);
      h3::hull3_finalize(ex, sh, w, r.planes.data() + h3::hull3_facet_off(off[k], k), &r.nplanes[k], tol);
    });
    r.status[k] = sh.status;
    g_stats.hulls += 1;
    g_stats.rounds += sh.rounds;
    g_stats.inserted += sh.inserted;
    g_stats.aborted += sh.aborted;
    g_stats.fallbacks += sh.fallbacks;
    g_stats.multi += sh.inserted > sh.rounds;  // some round inserted several points
  }
  return r;
}

enum class Cand { filtered, lines, all };

/// The device pipeline (kernels/morphology/convex_hull3d.cu) on the host with its own HD pieces:
/// candidates (the planar filters as the device runs them, or the first and last voxel of every
/// line, or every voxel), their face centres with offset_coordinates (the voxels tested for
/// flatness), the quickhull, the tiled masks (hull3_mask_tile) and counts. All volumes in one pool.
std::vector<Array> host_pipeline(const std::vector<Array>& vols, bool offset, double tol, int T, int vcap, int lcap,
                                 Cand mode) {
  std::vector<h3::Hull3Pt> pts;
  std::vector<i64> off = {0};
  for (const Array& v : vols) {
    const Array b = v.astype(DType::bool_);
    const bool* d = b.data<bool>();
    const i64 P = b.shape(0), R = b.shape(1), C = b.shape(2);
    std::vector<std::int32_t> lo(static_cast<std::size_t>(P * R + 1), INT32_MAX), hi(lo.size(), -1);
    for (i64 p = 0; p < P; ++p)
      for (i64 r = 0; r < R; ++r)
        for (i64 c = 0; c < C; ++c)
          if (d[(p * R + r) * C + c]) {
            if (mode == Cand::all) pts.push_back({int(2 * p), int(2 * r), int(2 * c)});
            const std::size_t l = static_cast<std::size_t>(p * R + r);
            lo[l] = std::min<std::int32_t>(lo[l], static_cast<std::int32_t>(c));
            hi[l] = static_cast<std::int32_t>(c);
          }
    std::vector<std::uint8_t> f2(lo.size(), 3), f3(lo.size(), 3);
    if (mode == Cand::filtered) {  // the chain kernel's tasks and stack layout (one region, l0 = 0)
      std::vector<std::int32_t> stack(static_cast<std::size_t>(4 * P * R + 1));
      for (i64 j = 0; j < P + R; ++j) {
        const bool plane = j < P;
        const i64 len = plane ? R : P, lbase = plane ? j * R : j - P, lstep = plane ? 1 : R;
        std::int32_t* low = stack.data() + (plane ? j * 2 * R : 2 * P * R + (j - P) * 2 * P);
        h3::hull3_chain_task(lo.data(), hi.data(), lbase, lstep, len, low, low + len, plane ? f2.data() : f3.data());
      }
    }
    if (mode != Cand::all)
      for (i64 l = 0; l < P * R; ++l) {
        bool first = false, last = false;
        h3::hull3_line_candidates(lo[l], hi[l], f2[l], f3[l], first, last);
        const int p2 = int(2 * (l / R)), r2 = int(2 * (l % R));
        if (first) pts.push_back({p2, r2, 2 * lo[l]});
        if (last) pts.push_back({p2, r2, 2 * hi[l]});
      }
    off.push_back(static_cast<i64>(pts.size()));
  }
  const i64 S = static_cast<i64>(vols.size());
  std::vector<h3::Hull3Pt> pts1;
  std::vector<i64> off1;
  if (offset) {  // the 6 face centres of every candidate (as the device: one hull, same polytope)
    for (const h3::Hull3Pt q : pts)
      for (int o = 0; o < 6; ++o) {
        const int dd = (o & 1) ? 1 : -1;
        pts1.push_back({q.x + (o >> 1 == 0 ? dd : 0), q.y + (o >> 1 == 1 ? dd : 0), q.z + (o >> 1 == 2 ? dd : 0)});
      }
    for (i64 o : off) off1.push_back(6 * o);
  }
  pts.push_back({0, 0, 0});
  const HostHulls h =
      offset ? host_hulls(pts1, off1, tol, T, vcap, lcap, &pts, &off) : host_hulls(pts, off, tol, T, vcap, lcap);
  const std::vector<i64>& foff = offset ? off1 : off;
  std::vector<Array> out;
  for (i64 k = 0; k < S; ++k) {
    EXPECT_NE(h.status[k], h3::kHull3Overflow);
    const Array& v = vols[static_cast<std::size_t>(k)];
    Array m = Array::full(v.shape(), 1, DType::bool_);  // every voxel is written by the tiles
    const i64 P = v.shape(0), R = v.shape(1), C = v.shape(2);
    const bool flat = h.status[k] != h3::kHull3Ok;
    unsigned long long count = 0;
    for (i64 p0 = 0; p0 < P; p0 += h3::kHull3TileP)
      for (i64 r0 = 0; r0 < R; r0 += h3::kHull3TileR) {
        h3::Hull3TileShared sm{};
        std::vector<unsigned long long> got(static_cast<std::size_t>(T));
        run_block(T, [&](HostBlock& ex) {
          got[static_cast<std::size_t>(ex.tid())] = h3::hull3_mask_tile(
              ex, sm, h.planes.data() + h3::hull3_facet_off(foff[k], k), flat ? 0 : h.nplanes[k], flat, P, R, C, p0, r0,
              m.data<bool>());
        });
        for (unsigned long long g : got) EXPECT_EQ(got[0], g);  // every thread returns the tile's count
        count += got[0];
      }
    EXPECT_EQ(count_true(m), static_cast<i64>(count));
    out.push_back(std::move(m));
  }
  return out;
}

TEST(MorphologyConvexHull3d, QuickhullSourceOnHost) {
  std::vector<std::string> names;
  std::vector<Array> vols;
  for (auto& [name, vol] : hull3_cases(true)) {
    names.push_back(name);
    vols.push_back(std::move(vol));
  }
  struct Cfg {
    int T, vcap;
    Cand mode;
    bool offset;
    double tol;
    int lcap = h3::kHull3LocalHorizon;  // 0: every cone linked through the pools (hull3_insert)
  };
  for (const Cfg& g : {Cfg{1, 32, Cand::filtered, true, 1e-10}, Cfg{4, 32, Cand::filtered, true, 1e-10},
                       Cfg{3, 2, Cand::lines, true, 1e-10}, Cfg{4, 5, Cand::all, false, 1e-10},
                       Cfg{2, 32, Cand::filtered, false, 0.3, 0}, Cfg{5, 3, Cand::all, true, 0.3, 0},
                       Cfg{1, 2, Cand::filtered, false, 0.0}, Cfg{3, 32, Cand::lines, true, -0.2}})
  {
    SCOPED_TRACE("T=" + std::to_string(g.T) + " vcap=" + std::to_string(g.vcap) + " mode=" +
                 std::to_string(int(g.mode)) + " offset=" + std::to_string(g.offset) + " tol=" + std::to_string(g.tol) +
                 " lcap=" + std::to_string(g.lcap));
    g_stats = {};
    const std::vector<Array> got = host_pipeline(vols, g.offset, g.tol, g.T, g.vcap, g.lcap, g.mode);
    // The parallel paths were taken: rounds inserting several points, and with a small cap
    // aborted proposals and whole-pool fallbacks.
    EXPECT_GT(g_stats.multi, 5);
    EXPECT_GT(g_stats.inserted, g_stats.rounds);
    if (g.vcap <= 3) {
      EXPECT_GT(g_stats.aborted, 0);
      EXPECT_GT(g_stats.fallbacks, 0);
    }
    std::printf("T=%d vcap=%d: %lld hulls, %lld rounds, %lld points inserted, %lld proposals aborted, %lld fallbacks\n",
                g.T, g.vcap, (long long)g_stats.hulls, (long long)g_stats.rounds, (long long)g_stats.inserted,
                (long long)g_stats.aborted, (long long)g_stats.fallbacks);
    for (std::size_t i = 0; i < vols.size(); ++i) {
      SCOPED_TRACE(names[i]);
      EXPECT_ARRAY_EQ(convex_hull_image(vols[i], {.offset_coordinates = g.offset, .tolerance = g.tol}), got[i]);
    }
  }
}

TEST(MorphologyConvexHull3d, CasesAreNotTrivial) {  // the cases above cover full, flat and empty hulls
  int full = 0, none = 0;
  for (const auto& [name, vol] : hull3_cases(false)) {
    const Array h = convex_hull_image(vol);
    const std::vector<double> v = h.astype(DType::float64).to_vector<double>();
    double n = 0;
    for (double x : v) n += x;
    (n > 0 ? full : none) += 1;
    if (name == "plane" || name == "line" || name == "single" || name == "flat_1xNxM" || name == "empty" ||
        name == "diag_plane" || name == "two")
      EXPECT_EQ(n, 0) << name;  // Qhull fails: scikit-image returns zeros
    else
      EXPECT_GT(n, 0) << name;
  }
  EXPECT_GE(full, 8);
  EXPECT_GE(none, 6);
}

TEST(MorphologyConvexHull3d, TooLargeAxis) {
  // One axis above 2^18 voxels is beyond the int64-exact bound (convex_hull_ops.hpp).
  expect_throw<NotSupported>([] { convex_hull_image(Array::zeros({1, 1, (1 << 18) + 1}, DType::bool_)); }, "262144");
}

// ---- 3-D on the device -----------------------------------------------------------------------------

/// The volume as several dtypes, each with the same non-zero set (scikit-image's np.nonzero).
std::vector<Array> as_dtypes(const Array& b, std::uint64_t seed) {
  std::vector<double> v = b.astype(DType::float64).to_vector<double>();
  std::mt19937_64 g(seed);
  std::vector<double> i(v), f(v), d(v);
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (v[k] == 0) continue;
    i[k] = (g() % 2) ? -3 : 7;
    f[k] = 0.5;  // non-zero: foreground in 3-D (no uint8 cast, unlike 2-D)
    d[k] = (g() % 3) ? 2.5 : std::nan("");
  }
  std::vector<Array> r;
  r.push_back(b.copy());
  r.push_back(b.astype(DType::uint8));
  r.push_back(Array::from_vector(i, b.shape()).astype(DType::int32));
  r.push_back(Array::from_vector(f, b.shape()).astype(DType::float32));
  r.push_back(Array::from_vector(d, b.shape()));
  return r;
}

TEST(GpuMorphologyConvexHull3d, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  auto cases = hull3_cases(true);
  cases.emplace_back("blobs_64x80x96", blobs3({64, 80, 96}, 12, 11));
  cases.emplace_back("blobs_x1", blobs3({30, 1, 40}, 3, 12));
  cases.emplace_back("blobs_1x", blobs3({30, 40, 1}, 3, 13));
  cases.emplace_back("sparse_rare", sparse_mask({40, 50, 60}, 0.0005, 14, DType::bool_));
  cases.emplace_back("sparse_mid", sparse_mask({40, 50, 60}, 0.01, 15, DType::bool_));
  cases.emplace_back("sparse_dense", sparse_mask({17, 129, 33}, 0.3, 16, DType::bool_));
  cases.emplace_back("ball12", ball3(12, {2, 0, 5, 1, 0, 3}));
  cases.emplace_back("ball30_cut", ball3(30, {-7, 2, 0, -11, 3, -1}));
  std::uint64_t seed = 100;
  const std::vector<ConvexHullOptions> opts = [] {
    std::vector<ConvexHullOptions> v;
    for (bool off : {true, false})
      for (double tol : {1e-10, 0.3, 0.0, -0.2}) v.push_back({.offset_coordinates = off, .tolerance = tol});
    return v;
  }();
  for (const auto& [name, vol] : cases) {
    // The CPU oracle once per case and options (every dtype has the same non-zero set; the CPU
    // backend's dtype handling is the CPU tests' business): it dominates this test's time.
    std::vector<Array> want;
    for (const ConvexHullOptions& o : opts) want.push_back(convex_hull_image(vol, o));
    const std::vector<Array> typed = as_dtypes(vol, seed++);
    for (std::size_t t = 0; t < typed.size(); ++t) {
      if (t > 0 && vol.size() > 100000) continue;  // dtypes on the small cases
      SCOPED_TRACE(name + " " + std::string(dtype_name(typed[t].dtype())));
      const Array d = typed[t].to(Device::cuda(), s);
      for (std::size_t i = 0; i < opts.size(); ++i) {
        SCOPED_TRACE("offset=" + std::to_string(opts[i].offset_coordinates) +
                     " tol=" + std::to_string(opts[i].tolerance));
        EXPECT_ARRAY_EQ(want[i], convex_hull_image(d, opts[i], s));
      }
      // include_borders is unused in 3-D (as in scikit-image)
      EXPECT_ARRAY_EQ(want[0], convex_hull_image(d, {.include_borders = false}, s));
    }
  }
}

TEST(GpuMorphologyConvexHull3d, LargeBallAndBlobs) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::vector<Array> vols;
  vols.push_back(ball3(40, {1, 0, 0, 2, 3, 0}));
  vols.push_back(blobs3({128, 96, 112}, 25, 21));
  for (const Array& h : vols) {
    const Array d = h.to(Device::cuda(), s);
    EXPECT_ARRAY_EQ(convex_hull_image(h), convex_hull_image(d, {}, s));
    EXPECT_ARRAY_EQ(convex_hull_image(h, {.offset_coordinates = false}),
                    convex_hull_image(d, {.offset_coordinates = false}, s));
  }
}

TEST(GpuMorphologyConvexHull3d, GoldenOnDevice) {
  CUSK_REQUIRE_GPU();
  for (const std::string c : {"blobs3", "sparse3", "plane3", "ball3"}) {
    SCOPED_TRACE(c);
    const Array d = gold(c, "in").to(Device::cuda());
    EXPECT_ARRAY_EQ(gold(c, "hull"), convex_hull_image(d));
    EXPECT_ARRAY_EQ(gold(c, "hull_nooff"), convex_hull_image(d, {.offset_coordinates = false}));
    EXPECT_ARRAY_EQ(gold(c, "hull_tol"), convex_hull_image(d, {.tolerance = 0.3}));
  }
}

// ---- the batched entry points ------------------------------------------------------------------------

struct Regions {
  std::vector<i64> label, lo, hi, crop_off;
};

/// Every label 1..max of a host label volume with its bbox, and the packed crops' offsets.
Regions regions_of(const Array& labels) {
  const std::vector<double> v = labels.astype(DType::float64).to_vector<double>();
  const i64 P = labels.shape(0), R = labels.shape(1), C = labels.shape(2);
  i64 mx = 0;
  for (double x : v) mx = std::max<i64>(mx, static_cast<i64>(x));
  Regions g;
  std::vector<i64> lo(static_cast<std::size_t>(3 * (mx + 1)), INT64_MAX), hi(lo.size(), -1);
  for (i64 p = 0; p < P; ++p)
    for (i64 r = 0; r < R; ++r)
      for (i64 c = 0; c < C; ++c) {
        const i64 l = static_cast<i64>(v[static_cast<std::size_t>((p * R + r) * C + c)]);
        if (l <= 0) continue;
        const i64 x[3] = {p, r, c};
        for (int a = 0; a < 3; ++a) {
          lo[3 * l + a] = std::min(lo[3 * l + a], x[a]);
          hi[3 * l + a] = std::max(hi[3 * l + a], x[a] + 1);
        }
      }
  g.crop_off.push_back(0);
  for (i64 l = 1; l <= mx; ++l) {
    if (hi[3 * l] < 0) continue;
    g.label.push_back(l);
    i64 vol = 1;
    for (int a = 0; a < 3; ++a) {
      g.lo.push_back(lo[3 * l + a]);
      g.hi.push_back(hi[3 * l + a]);
      vol *= hi[3 * l + a] - lo[3 * l + a];
    }
    g.crop_off.push_back(g.crop_off.back() + vol);
  }
  return g;
}

/// labels[lo:hi] == label (host bool crop).
Array crop_mask(const Array& labels, const Regions& g, std::size_t k) {
  const Array c = labels.slice({Slice{.start = g.lo[3 * k], .stop = g.hi[3 * k]},
                                Slice{.start = g.lo[3 * k + 1], .stop = g.hi[3 * k + 1]},
                                Slice{.start = g.lo[3 * k + 2], .stop = g.hi[3 * k + 2]}});
  std::vector<double> v = c.astype(DType::float64).to_vector<double>();
  for (double& x : v) x = x == static_cast<double>(g.label[k]) ? 1 : 0;
  return Array::from_vector(v, c.shape()).astype(DType::bool_);
}

/// Blobs plus scattered voxels (single-voxel and short-line regions: flat hulls).
Array region_volume() {
  const Array b = blobs3({48, 40, 56}, 70, 41, 0.12);
  std::vector<std::uint8_t> v = b.astype(DType::uint8).to_vector<std::uint8_t>();
  const std::vector<std::uint8_t> w = sparse_mask(b.shape(), 0.0004, 42, DType::uint8).to_vector<std::uint8_t>();
  for (std::size_t i = 0; i < v.size(); ++i) v[i] |= w[i] ? 1 : 0;
  return Array::from_vector(v, b.shape()).astype(DType::bool_);
}

TEST(GpuMorphologyConvexHull3d, BatchedRegionsMatchPerRegionCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // Blobs plus scattered single voxels and short lines (flat regions), labelled with every
  // connectivity, as int32 and int64.
  const Array vol = region_volume();
  for (int conn : {1, 2, 3})
    for (DType lt : {DType::int32, DType::int64}) {
      SCOPED_TRACE("connectivity=" + std::to_string(conn) + " " + std::string(dtype_name(lt)));
      const Array labels = measure::label(vol, {.connectivity = conn, .dtype = lt});
      const Regions g = regions_of(labels);
      ASSERT_GT(g.label.size(), 10u);
      const Array d = labels.to(Device::cuda(), s);
      Array images = Array::zeros({std::max<i64>(g.crop_off.back(), 1)}, DType::bool_, Device::cuda(), s);
      std::vector<i64> count;
      if (lt == DType::int32)
        h3::cuda_hull3d_regions<std::int32_t>(d, g.label, g.lo, g.hi, images.data<bool>(), &g.crop_off, count,
                                              s);
      else
        h3::cuda_hull3d_regions<std::int64_t>(d, g.label, g.lo, g.hi, images.data<bool>(), &g.crop_off, count,
                                              s);
      const Array himg = images.to(Device::cpu(), s);
      s.synchronize();
      ASSERT_EQ(count.size(), g.label.size());
      int flat = 0;
      for (std::size_t k = 0; k < g.label.size(); ++k) {
        SCOPED_TRACE("region " + std::to_string(g.label[k]));
        const Array expect = convex_hull_image(crop_mask(labels, g, k));
        EXPECT_EQ(count_true(expect), count[k]);
        flat += count[k] == 0;
        const Array got =
            himg.slice({Slice{.start = g.crop_off[k], .stop = g.crop_off[k + 1]}}).reshape(expect.shape());
        EXPECT_ARRAY_EQ(expect, got);
      }
      EXPECT_GT(flat, 0);  // single voxels and lines are flat: count 0, image false
    }
  // Without images: counts only.
  const Array labels = measure::label(vol, {.dtype = DType::int32});
  const Regions g = regions_of(labels);
  std::vector<i64> count;
  h3::cuda_hull3d_regions<std::int32_t>(labels.to(Device::cuda(), s), g.label, g.lo, g.hi, nullptr, nullptr, count,
                                        s);
  for (std::size_t k = 0; k < g.label.size(); ++k)
    EXPECT_EQ(count_true(convex_hull_image(crop_mask(labels, g, k))), count[k]);
}

TEST(GpuMorphologyConvexHull3d, BatchedSegmentsMatchPerRegionCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array labels = measure::label(region_volume(), {.connectivity = 1, .dtype = DType::int32});
  const Regions g = regions_of(labels);
  const std::size_t n = g.label.size();
  ASSERT_GT(n, 10u);
  // Segments of every voxel of each region (crop coordinates): any superset of the vertices works.
  std::vector<std::int32_t> pts;
  std::vector<i64> off = {0}, box, img_off = {0};
  std::vector<Array> masks;
  for (std::size_t k = 0; k < n; ++k) {
    masks.push_back(crop_mask(labels, g, k));
    const Array& m = masks.back();
    const bool* b = m.data<bool>();
    for (i64 p = 0; p < m.shape(0); ++p)
      for (i64 r = 0; r < m.shape(1); ++r)
        for (i64 c = 0; c < m.shape(2); ++c)
          if (b[(p * m.shape(1) + r) * m.shape(2) + c]) {
            pts.push_back(static_cast<std::int32_t>(p));
            pts.push_back(static_cast<std::int32_t>(r));
            pts.push_back(static_cast<std::int32_t>(c));
          }
    off.push_back(static_cast<i64>(pts.size() / 3));
    for (int a = 0; a < 3; ++a) box.push_back(m.shape(a));
    img_off.push_back(img_off.back() + m.size());
  }
  const Array dpts = Array::from_vector(pts, {static_cast<i64>(pts.size())}).to(Device::cuda(), s);
  const Array doff = Array::from_vector(off, {static_cast<i64>(off.size())}).to(Device::cuda(), s);
  for (bool offc : {true, false})
    for (double tol : {1e-10, 0.3}) {
      SCOPED_TRACE("offset=" + std::to_string(offc) + " tol=" + std::to_string(tol));
      Array images = Array::zeros({img_off.back()}, DType::bool_, Device::cuda(), s);
      h3::Hull3Segments seg;
      seg.nseg = static_cast<i64>(n);
      seg.points = dpts.data<std::int32_t>();
      seg.offsets = doff.data<i64>();
      seg.host_offsets = off.data();
      seg.box = box.data();
      h3::Hull3Options o;
      o.offset_coordinates = offc;
      o.tolerance = tol;
      o.images = images.data<bool>();
      o.image_off = img_off.data();
      o.want_planes = true;
      h3::Hull3Output r;
      h3::cuda_hull3d_segments(seg, o, r, s);
      const Array himg = images.to(Device::cpu(), s);
      const Array hpl = r.planes.to(Device::cpu(), s);
      s.synchronize();
      ASSERT_EQ(r.count.size(), n);
      const auto* pl = static_cast<const h3::Hull3Plane*>(hpl.data());
      for (std::size_t k = 0; k < n; ++k) {
        SCOPED_TRACE("region " + std::to_string(g.label[k]));
        const Array expect = convex_hull_image(masks[k], {.offset_coordinates = offc, .tolerance = tol});
        EXPECT_EQ(count_true(expect), r.count[k]);
        EXPECT_EQ(r.flat[k] != 0, r.nplanes[k] == 0);
        EXPECT_ARRAY_EQ(expect,
                        himg.slice({Slice{.start = img_off[k], .stop = img_off[k + 1]}}).reshape(expect.shape()));
        // The planes: every voxel of the region passes all of them (the hull holds its points).
        for (i64 i = off[k]; i < off[k + 1] && tol > 0; ++i) {
          const h3::Hull3Pt q{2 * pts[3 * i], 2 * pts[3 * i + 1], 2 * pts[3 * i + 2]};
          for (i64 j = 0; j < r.nplanes[k]; ++j) ASSERT_LE(h3::hull3_eval(pl[r.plane_off[k] + j], q), 0);
        }
      }
    }
}

TEST(GpuMorphologyConvexHull3d, StridedViewsAndStream) {
  CUSK_REQUIRE_GPU();
  const Array h = blobs3({40, 36, 50}, 6, 31).astype(DType::uint8);
  const Array d = h.to(Device::cuda());
  for (const auto& sl : {std::vector<Slice>{Slice{.start = 1, .step = 2}, Slice{}, Slice{.step = 3}},
                         std::vector<Slice>{Slice{.step = -1}, Slice{.start = 3, .stop = 30}, Slice{.start = 5}}}) {
    const Array hv = h.slice(sl), dv = d.slice(sl);
    EXPECT_ARRAY_EQ(convex_hull_image(hv), convex_hull_image(dv));
  }
  const Array ht = h.transpose({2, 0, 1}), dt = d.transpose({2, 0, 1});
  EXPECT_ARRAY_EQ(convex_hull_image(ht), convex_hull_image(dt));
  EXPECT_EQ(convex_hull_image(Array::zeros({0, 3, 4}, DType::bool_, Device::cuda())).shape(), (Shape{0, 3, 4}));
  EXPECT_ARRAY_EQ(Array::zeros({3, 4, 5}, DType::bool_),
                  convex_hull_image(Array::zeros({3, 4, 5}, DType::uint8, Device::cuda())));
  expect_throw<InvalidArgument>(
      [] {
        convex_hull_object(Array::zeros({3, 3, 3}, DType::bool_, Device::cuda()));
      },
      "2D");
  expect_throw<NotSupported>(
      [] {
        convex_hull_image(Array::zeros({1, 1, (1 << 18) + 1}, DType::bool_, Device::cuda()));
      },
      "262144");
  // The op only: comparing inside it would wait for the whole device (host_copy), legacy stream
  // included. Both entry points (the image's and regionprops' batched one) run under the guard.
  const Array expect = convex_hull_image(h);
  const Array labels = measure::label(h, {.dtype = DType::int32});
  const Regions g = regions_of(labels);
  const Array dl = labels.to(Device::cuda());
  Stream().synchronize();
  Array got, crops;
  std::vector<i64> counts;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& st) {
    got = convex_hull_image(d, {}, st);
    crops = Array::empty({std::max<i64>(g.crop_off.back(), 1)}, DType::bool_, Device::cuda(), st);
    h3::cuda_hull3d_regions<std::int32_t>(dl, g.label, g.lo, g.hi, crops.data<bool>(), &g.crop_off, counts,
                                          st);
    st.synchronize();
  }));
  EXPECT_ARRAY_EQ(expect, got);
  ASSERT_EQ(counts.size(), g.label.size());
  ASSERT_GT(g.label.size(), 1u);
  for (std::size_t k = 0; k < g.label.size(); ++k) {
    const Array want = convex_hull_image(crop_mask(labels, g, k));
    EXPECT_EQ(counts[k], count_true(want)) << k;
    EXPECT_ARRAY_EQ(want,
                    crops.slice({Slice{.start = g.crop_off[k], .stop = g.crop_off[k + 1]}}).reshape(want.shape()));
  }
}

}  // namespace
