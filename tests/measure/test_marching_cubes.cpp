// measure.marching_cubes against scikit-image goldens (tests/golden/cases_measure_mcubes.py): the
// vertex set (bit-exact float32), the values, the face count, each cube's polygon outline (the mesh
// edges that are not a diagonal inside the cube) and, for cubes whose polygons are triangles, the
// triangles themselves with their winding; normals within a stated angle (they are sums over
// triangles, and the diagonals of 4+-gons are chosen differently); the surface area within a stated
// tolerance. Also: consistent orientation, bad input, the CLI, and the CUDA backend against the
// CPU backend (the same arrays, bit for bit).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/measure.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Slice;
using cuskimage::Stream;
namespace measure = cuskimage::measure;
using measure::GradientDirection;
using measure::MarchingCubesMethod;
using measure::MarchingCubesOptions;
using measure::MarchingCubesResult;

Array golden(const std::string& name) { return cusktest::load_golden("measure_mcubes/" + name + ".npy"); }

using P3 = std::array<std::uint32_t, 3>;  // float32 bits of a vertex: exact keys

P3 bits3(const float* p) {
  P3 b;
  std::memcpy(b.data(), p, sizeof b);
  return b;
}

struct HostMesh {
  std::vector<float> v, n, val;
  std::vector<std::int64_t> f;
  std::int64_t nv = 0, nf = 0;
};

HostMesh host_mesh(const Array& verts, const Array& faces, const Array& normals, const Array& values) {
  HostMesh m;
  m.v = verts.to_vector<float>();
  m.n = normals.to_vector<float>();
  m.val = values.to_vector<float>();
  m.f = faces.to_vector<std::int64_t>();
  m.nv = verts.shape(0);
  m.nf = faces.shape(0);
  return m;
}

/// MarchingCubesOptions without the mask (the options hold an Array, which does not copy).
struct Params {
  std::optional<double> level;
  std::array<double, 3> spacing = {1.0, 1.0, 1.0};
  GradientDirection gradient_direction = GradientDirection::descent;
  std::int64_t step_size = 1;
  bool allow_degenerate = true;
  MarchingCubesMethod method = MarchingCubesMethod::lewiner;
};

MarchingCubesOptions to_options(const Params& p, Array mask = {}) {
  return {.level = p.level,
          .spacing = p.spacing,
          .gradient_direction = p.gradient_direction,
          .step_size = p.step_size,
          .allow_degenerate = p.allow_degenerate,
          .method = p.method,
          .mask = std::move(mask)};
}

struct Case {
  std::string name, volume;
  Params opts;
  bool mask = false;
  double area_rtol;   // |area - skimage's| / skimage's
  double min_dot;     // every normal's dot product with scikit-image's at least this
  double frac09;      // the fraction of normals within acos(0.9) (~26 degrees) of scikit-image's
};

std::vector<Case> cases() {
  auto o = [](std::optional<double> level, MarchingCubesMethod m = MarchingCubesMethod::lewiner) {
    Params x;
    x.level = level;
    x.method = m;
    return x;
  };
  std::vector<Case> c;
  c.push_back({"sphere_lew", "sphere", o(0.0), false, 2e-3, 0.98, 1.0});
  c.push_back({"sphere_lor", "sphere", o(0.0, MarchingCubesMethod::lorensen), false, 2e-3, 0.98, 1.0});
  auto asc = o(0.0);
  asc.gradient_direction = GradientDirection::ascent;
  c.push_back({"sphere_asc", "sphere", asc, false, 2e-3, 0.98, 1.0});
  auto s2 = o(0.0);
  s2.step_size = 2;
  c.push_back({"sphere_step2", "sphere", s2, false, 5e-3, 0.95, 1.0});
  auto s3 = o(0.0, MarchingCubesMethod::lorensen);
  s3.step_size = 3;
  c.push_back({"sphere_step3_lor", "sphere", s3, false, 1e-2, 0.9, 1.0});
  auto an = o(0.0);
  an.spacing = {1.5, 0.5, 2.0};
  c.push_back({"ellipsoid_aniso", "ellipsoid", an, false, 3e-3, 0.98, 1.0});
  c.push_back({"smooth_lew", "smooth", o(std::nullopt), false, 5e-3, 0.5, 0.99});
  c.push_back({"smooth_lor", "smooth", o(std::nullopt, MarchingCubesMethod::lorensen), false, 5e-3, 0.5, 0.99});
  c.push_back({"smooth_mask", "smooth", o(std::nullopt), true, 5e-3, 0.5, 0.99});
  c.push_back({"noisy_lew", "noisy", o(0.5), false, 3e-2, -1.0, 0.9});
  c.push_back({"noisy_lor", "noisy", o(0.5, MarchingCubesMethod::lorensen), false, 3e-2, -1.0, 0.9});
  auto na = o(0.4, MarchingCubesMethod::lorensen);
  na.gradient_direction = GradientDirection::ascent;
  c.push_back({"noisy_asc_lor", "noisy", na, false, 3e-2, -1.0, 0.9});
  c.push_back({"ints_lew", "ints", o(1.5), false, 3e-2, -1.0, 0.9});
  c.push_back({"ints_lor", "ints", o(1.5, MarchingCubesMethod::lorensen), false, 3e-2, -1.0, 0.9});
  auto dg = o(1.0, MarchingCubesMethod::lorensen);
  dg.allow_degenerate = false;
  c.push_back({"ints_degenerate", "ints", dg, false, 3e-2, -1.0, 0.9});
  c.push_back({"ball_lew", "ball", o(std::nullopt), false, 2e-2, 0.9, 1.0});
  c.push_back({"ball_lor", "ball", o(std::nullopt, MarchingCubesMethod::lorensen), false, 2e-2, 0.9, 1.0});
  return c;
}

using Tri = std::array<P3, 3>;
using Seg = std::pair<P3, P3>;
using CubeKey = std::array<std::int64_t, 3>;

/// Triangle as its vertices, rotated to start at the smallest (winding kept).
Tri tri_of(const HostMesh& m, std::int64_t f) {
  Tri t;
  for (int k = 0; k < 3; ++k) t[k] = bits3(&m.v[3 * m.f[3 * f + k]]);
  const int s = static_cast<int>(std::min_element(t.begin(), t.end()) - t.begin());
  return {t[s], t[(s + 1) % 3], t[(s + 2) % 3]};
}

struct CubeInfo {
  std::vector<Tri> tris;
  std::multiset<Seg> outline;  // undirected edges used by one triangle of the cube
};

struct Cubes {
  std::map<CubeKey, CubeInfo> cubes;
  std::set<CubeKey> tainted;  // cubes a triangle lying in a cube face (or a corner vertex) may belong to
};

/// Groups the triangles by cube: a vertex at lattice coordinate u (in steps) lies in the cubes
/// floor(u), or u - 1 and u when u is a lattice plane; a triangle belongs to the cubes of all three
/// of its vertices. Triangles with two candidates taint both cubes (not compared).
Cubes per_cube(const HostMesh& m, const std::array<double, 3>& sp, std::int64_t step) {
  Cubes out;
  for (std::int64_t f = 0; f < m.nf; ++f) {
    std::array<std::int64_t, 3> lo{}, hi{};
    for (int a = 0; a < 3; ++a) {
      lo[a] = INT64_MIN, hi[a] = INT64_MAX;
      for (int k = 0; k < 3; ++k) {
        const double u = m.v[3 * m.f[3 * f + k] + a] / sp[a] / static_cast<double>(step);
        const double fu = std::floor(u);
        const auto c = static_cast<std::int64_t>(fu);
        lo[a] = std::max(lo[a], u == fu ? c - 1 : c);
        hi[a] = std::min(hi[a], c);
      }
    }
    if (lo == hi) {
      out.cubes[lo].tris.push_back(tri_of(m, f));
    } else {
      for (std::int64_t z = lo[0]; z <= hi[0]; ++z)
        for (std::int64_t y = lo[1]; y <= hi[1]; ++y)
          for (std::int64_t x = lo[2]; x <= hi[2]; ++x) out.tainted.insert({z, y, x});
    }
  }
  for (auto& [key, c] : out.cubes) {
    std::map<Seg, int> count;
    for (const Tri& t : c.tris)
      for (int k = 0; k < 3; ++k) {
        const P3 a = t[k], b = t[(k + 1) % 3];
        count[a < b ? Seg{a, b} : Seg{b, a}]++;
      }
    for (const auto& [s, n] : count)
      if (n == 1) c.outline.insert(s);
    std::sort(c.tris.begin(), c.tris.end());
  }
  return out;
}

/// Compares our mesh with scikit-image's golden `c.name`.
void expect_matches_golden(const Case& c, const MarchingCubesResult& r) {
  SCOPED_TRACE(c.name);
  ASSERT_EQ(r.verts.dtype(), DType::float32);
  ASSERT_EQ(r.normals.dtype(), DType::float32);
  ASSERT_EQ(r.values.dtype(), DType::float32);
  ASSERT_EQ(r.faces.dtype(), c.opts.allow_degenerate ? DType::int32 : DType::int64);
  const HostMesh ours = host_mesh(r.verts, r.faces, r.normals, r.values);
  const HostMesh sk = host_mesh(golden(c.name + "_verts"), golden(c.name + "_faces"), golden(c.name + "_normals"),
                                golden(c.name + "_values"));
  const double area = measure::mesh_surface_area(r.verts, r.faces);
  const double sk_area = golden(c.name + "_area").to_vector<double>()[0];
  EXPECT_NEAR(area, sk_area, c.area_rtol * sk_area);
  if (!c.opts.allow_degenerate) {
    // Which faces are degenerate depends on the diagonals, so only the points are compared: the
    // same distinct vertex positions, and no face left with two equal vertices.
    std::set<P3> po, ps;
    for (std::int64_t i = 0; i < ours.nv; ++i) po.insert(bits3(&ours.v[3 * i]));
    for (std::int64_t i = 0; i < sk.nv; ++i) ps.insert(bits3(&sk.v[3 * i]));
    EXPECT_TRUE(po == ps);
    std::int64_t degenerate = 0;
    for (std::int64_t t = 0; t < ours.nf; ++t) {
      const P3 a = bits3(&ours.v[3 * ours.f[3 * t]]), b = bits3(&ours.v[3 * ours.f[3 * t + 1]]),
               d = bits3(&ours.v[3 * ours.f[3 * t + 2]]);
      degenerate += (a == b || a == d || b == d) ? 1 : 0;
    }
    EXPECT_EQ(degenerate, 0);
    EXPECT_LT(std::abs(ours.nf - sk.nf), sk.nf / 50 + 1);
    return;
  }
  ASSERT_EQ(ours.nv, sk.nv);
  ASSERT_EQ(ours.nf, sk.nf);
  // vertex set with values: (bits, value) sorted
  auto sorted_rows = [](const HostMesh& m) {
    std::vector<std::tuple<P3, float, std::int64_t>> rows;
    for (std::int64_t i = 0; i < m.nv; ++i) rows.emplace_back(bits3(&m.v[3 * i]), m.val[i], i);
    std::sort(rows.begin(), rows.end());
    return rows;
  };
  const auto a = sorted_rows(ours), b = sorted_rows(sk);
  std::int64_t pos_bad = 0, val_bad = 0, normal_bad = 0, within09 = 0;
  double worst_dot = 1.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::get<0>(a[i]) != std::get<0>(b[i])) {
      ++pos_bad;
      continue;
    }
    if (std::get<1>(a[i]) != std::get<1>(b[i])) ++val_bad;
    const float* na = &ours.n[3 * std::get<2>(a[i])];
    const float* nb = &sk.n[3 * std::get<2>(b[i])];
    const double dot = double(na[0]) * nb[0] + double(na[1]) * nb[1] + double(na[2]) * nb[2];
    worst_dot = std::min(worst_dot, dot);
    if (!(dot >= c.min_dot)) ++normal_bad;
    within09 += dot > 0.9 ? 1 : 0;
  }
  EXPECT_EQ(pos_bad, 0) << "vertices not bit-identical to scikit-image's";
  EXPECT_EQ(val_bad, 0) << "values differ";
  EXPECT_EQ(normal_bad, 0) << "normals off by more than acos(" << c.min_dot << "), worst dot " << worst_dot;
  EXPECT_GE(static_cast<double>(within09), c.frac09 * static_cast<double>(ours.nv)) << "normals within 26 degrees";
  // per cube: triangle count and outline always; the triangles themselves (with winding) where the
  // cube's polygons are all triangles (no diagonal choice)
  const std::array<double, 3> sp = c.opts.spacing;
  const Cubes co = per_cube(ours, sp, c.opts.step_size), cs = per_cube(sk, sp, c.opts.step_size);
  std::set<CubeKey> keys;
  for (const auto* m : {&co, &cs})
    for (const auto& kv : m->cubes)
      if (!co.tainted.count(kv.first) && !cs.tainted.count(kv.first)) keys.insert(kv.first);
  std::int64_t count_bad = 0, outline_bad = 0, tri_bad = 0, tri_cubes = 0;
  const CubeInfo empty;
  for (const CubeKey& key : keys) {
    const auto io = co.cubes.find(key), is = cs.cubes.find(key);
    const CubeInfo& o = io == co.cubes.end() ? empty : io->second;
    const CubeInfo& s = is == cs.cubes.end() ? empty : is->second;
    if (o.tris.size() != s.tris.size()) ++count_bad;
    if (o.outline != s.outline) ++outline_bad;
    if (!s.tris.empty() && s.outline.size() == 3 * s.tris.size()) {  // every polygon a triangle
      ++tri_cubes;
      if (o.tris != s.tris) ++tri_bad;
    }
  }
  EXPECT_GT(keys.size(), co.tainted.size() + cs.tainted.size()) << "too few cubes compared";
  EXPECT_EQ(count_bad, 0) << "cubes with another triangle count (of " << keys.size() << ")";
  EXPECT_EQ(outline_bad, 0) << "cubes with another polygon outline";
  EXPECT_EQ(tri_bad, 0) << "triangle cubes (" << tri_cubes << ") with other triangles or winding";
  EXPECT_GT(tri_cubes, 0);
}

MarchingCubesResult run_case(const Case& c, const Device& dev, const Stream& stream = {}) {
  return measure::marching_cubes(golden(c.volume + "_in").to(dev),
                                 to_options(c.opts, c.mask ? golden(c.volume + "_mask_mask").to(dev) : Array()), stream);
}

TEST(MeasureMarchingCubes, GoldenEveryCase) {
  for (const Case& c : cases()) expect_matches_golden(c, run_case(c, Device::cpu()));
}

/// Directed edges used by two faces (0 for a consistently oriented mesh) and edges used in one
/// direction only (0 on a closed surface).
std::pair<std::int64_t, std::int64_t> orientation_defects(const Array& faces) {
  const auto f = faces.to_vector<std::int64_t>();
  std::map<std::pair<std::int64_t, std::int64_t>, int> directed;
  for (std::size_t t = 0; t + 2 < f.size(); t += 3)
    for (int k = 0; k < 3; ++k) directed[{f[t + k], f[t + (k + 1) % 3]}]++;
  std::int64_t twice = 0, open = 0;
  for (const auto& [e, n] : directed) {
    if (n > 1) ++twice;
    if (!directed.count({e.second, e.first})) ++open;
  }
  return {twice, open};
}

TEST(MeasureMarchingCubes, ConsistentOrientation) {
  // Ties (corner values whose face products cancel exactly) can make both cubes of a face build a
  // triangle in that face; scikit-image's tables do too, so goldens allow as many as it has.
  for (const Case& c : cases()) {
    if (!c.opts.allow_degenerate) continue;
    SCOPED_TRACE(c.name);
    const auto [twice, open] = orientation_defects(run_case(c, Device::cpu()).faces);
    const auto [sk_twice, sk_open] = orientation_defects(golden(c.name + "_faces"));
    EXPECT_LE(twice, sk_twice);
    if (c.volume == "sphere" || c.volume == "ellipsoid") EXPECT_EQ(open, 0);
  }
  // random volumes exercise every ambiguous case and the tunnels
  for (auto method : {MarchingCubesMethod::lewiner, MarchingCubesMethod::lorensen})
    for (std::uint64_t seed : {11, 12}) {
      const Array v = cusktest::random_array({15, 16, 17}, DType::float64, seed);
      EXPECT_EQ(orientation_defects(measure::marching_cubes(v, {.level = 0.5, .method = method}).faces).first, 0);
    }
}

TEST(MeasureMarchingCubes, DefaultsDtypesAndViews) {
  // default level (min + max) / 2 in float32; integer volumes are read as float32
  const Array ints = golden("ints_in");
  const auto a = measure::marching_cubes(ints);
  const auto b = measure::marching_cubes(ints.astype(DType::float32), {.level = 1.5});
  EXPECT_ARRAY_EQ(b.verts, a.verts);
  EXPECT_ARRAY_EQ(b.faces, a.faces);
  // a strided view equals its contiguous copy
  const Array big = cusktest::random_array({21, 20, 19}, DType::float32, 4);
  const Array view = big.slice({Slice{1, std::nullopt, 2}, Slice{0, std::nullopt, 1}, Slice{0, std::nullopt, 2}});
  const auto sv = measure::marching_cubes(view, {.level = 0.5});
  const auto sc = measure::marching_cubes(view.copy(), {.level = 0.5});
  EXPECT_ARRAY_EQ(sc.verts, sv.verts);
  EXPECT_ARRAY_EQ(sc.faces, sv.faces);
  EXPECT_ARRAY_EQ(sc.normals, sv.normals);
  // descent and ascent wind the same triangles in opposite directions
  const auto d = measure::marching_cubes(view, {.level = 0.5});
  const auto u = measure::marching_cubes(view, {.level = 0.5, .gradient_direction = GradientDirection::ascent});
  const auto fd = d.faces.to_vector<std::int32_t>(), fu = u.faces.to_vector<std::int32_t>();
  ASSERT_EQ(fd.size(), fu.size());
  for (std::size_t t = 0; t < fd.size(); t += 3) {
    EXPECT_EQ(fd[t], fu[t + 2]);
    EXPECT_EQ(fd[t + 1], fu[t + 1]);
  }
  // the smallest volume: one cube, one corner above the level, one triangle
  Array one = Array::zeros({2, 2, 2}, DType::float64);
  static_cast<double*>(one.data())[0] = 1.0;
  const auto m = measure::marching_cubes(one, {.level = 0.5});
  EXPECT_EQ(m.verts.shape(0), 3);
  EXPECT_EQ(m.faces.shape(0), 1);
  EXPECT_EQ(m.verts.to_vector<float>(), (std::vector<float>{0.f, 0.f, 0.5f, 0.f, 0.5f, 0.f, 0.5f, 0.f, 0.f}));
}

TEST(MeasureMarchingCubes, BadInput) {
  using cuskimage::InvalidArgument;
  const Array v = golden("smooth_in");
  EXPECT_THROW(measure::marching_cubes(Array()), InvalidArgument);
  EXPECT_THROW(measure::marching_cubes(Array::zeros({5, 5}, DType::float32)), InvalidArgument);
  EXPECT_THROW(measure::marching_cubes(Array::zeros({1, 5, 5}, DType::float32)), InvalidArgument);
  EXPECT_THROW(measure::marching_cubes(v, {.step_size = 0}), InvalidArgument);
  EXPECT_THROW(measure::marching_cubes(v, {.level = 2.0}), InvalidArgument);   // above the max
  EXPECT_THROW(measure::marching_cubes(v, {.level = -1.0}), InvalidArgument);  // below the min
  EXPECT_THROW(measure::marching_cubes(v, {.mask = Array::zeros({18, 20, 21}, DType::bool_)}), InvalidArgument);
  // no surface: a constant volume at its own value, or everything masked out
  EXPECT_THROW(measure::marching_cubes(Array::zeros({4, 4, 4}, DType::float32), {.level = 0.0}), InvalidArgument);
  EXPECT_THROW(measure::marching_cubes(v, {.mask = Array::zeros({18, 20, 22}, DType::bool_)}), InvalidArgument);
}

TEST(MeasureMarchingCubes, Cli) {
  const std::string in = cusktest::golden_path("measure_mcubes/sphere_in.npy");
  const std::string v = cusktest::temp_path("mc_v.npy"), f = cusktest::temp_path("mc_f.npy"),
                    n = cusktest::temp_path("mc_n.npy"), x = cusktest::temp_path("mc_x.npy");
  const auto run = cuskclitest::run_cli_cpu({"measure.marching_cubes", in, v, f, n, x, "--level", "0"});
  ASSERT_EQ(run.rc, 0) << cuskclitest::describe(run);
  const Array sk = golden("sphere_lew_verts");
  EXPECT_TRUE(cuskclitest::contains(run.out, "\"vertices\": " + std::to_string(sk.shape(0)))) << run.out;
  const Array verts = cuskimage::io::imread(v);
  EXPECT_EQ(verts.shape(0), sk.shape(0));
  EXPECT_EQ(cuskimage::io::imread(f).shape(0), golden("sphere_lew_faces").shape(0));
  EXPECT_EQ(cuskclitest::run_cli_cpu({"measure.marching_cubes", in, v, f, n, x, "--method", "cubes"}).rc, 2);
}

// ---- GPU tier ------------------------------------------------------------------------------------

void expect_same_mesh(const MarchingCubesResult& cpu, const MarchingCubesResult& gpu) {
  EXPECT_EQ(gpu.verts.device(), gpu.faces.device());
  EXPECT_ARRAY_EQ(cpu.verts, gpu.verts);
  EXPECT_ARRAY_EQ(cpu.faces, gpu.faces);
  EXPECT_ARRAY_EQ(cpu.normals, gpu.normals);
  EXPECT_ARRAY_EQ(cpu.values, gpu.values);
}

TEST(GpuMeasureMarchingCubes, GoldenEveryCase) {
  CUSK_REQUIRE_GPU();
  for (const Case& c : cases()) {
    const auto g = run_case(c, Device::cuda(0));
    EXPECT_TRUE(g.verts.device().is_cuda());
    expect_matches_golden(c, g);
    expect_same_mesh(run_case(c, Device::cpu()), g);
  }
}

TEST(GpuMeasureMarchingCubes, MatchesCpuOnRandomInputs) {
  CUSK_REQUIRE_GPU();
  const Device gpu = Device::cuda(0);
  const Array noisy = cusktest::random_array({23, 31, 37}, DType::float32, 7);
  const Array ints = cusktest::random_array({40, 33, 29}, DType::uint8, 8, 0, 3);
  for (const Array* pv : {&noisy, &ints}) {
    const Array& v = *pv;
    for (auto method : {MarchingCubesMethod::lewiner, MarchingCubesMethod::lorensen})
      for (std::int64_t step : {1, 2}) {
        Params p{.level = 0.5, .step_size = step, .method = method};
        if (v.dtype() == DType::uint8) p.level = 1.0;  // corners exactly at the level: ties
        expect_same_mesh(measure::marching_cubes(v, to_options(p)), measure::marching_cubes(v.to(gpu), to_options(p)));
        p.allow_degenerate = false;
        expect_same_mesh(measure::marching_cubes(v, to_options(p)), measure::marching_cubes(v.to(gpu), to_options(p)));
      }
  }
  // a mask and a strided view
  const Array mask = cusktest::random_array({23, 31, 37}, DType::bool_, 9);
  expect_same_mesh(measure::marching_cubes(noisy, {.level = 0.5, .mask = mask.share()}),
                   measure::marching_cubes(noisy.to(gpu), {.level = 0.5, .mask = mask.to(gpu)}));
  const Array view = noisy.to(gpu).slice({Slice{0, std::nullopt, 2}, Slice{1, std::nullopt}, Slice{0, std::nullopt, 3}});
  expect_same_mesh(measure::marching_cubes(view.to(Device::cpu()), {.level = 0.5}),
                   measure::marching_cubes(view, {.level = 0.5}));
}

TEST(GpuMeasureMarchingCubes, NonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Array v = golden("smooth_in").to(Device::cuda(0));
  const auto cpu = measure::marching_cubes(golden("smooth_in"));
  MarchingCubesResult g;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) { g = measure::marching_cubes(v, {}, s); }));
  expect_same_mesh(cpu, g);
}

}  // namespace
