// ndimage::distance_transform_edt: scipy goldens (bit-exact distances and identical features, ties
// included), argument errors, strided inputs and outputs, the banded envelope of the CUDA kernel
// emulated on the host against the sequential walk, and the GPU tier (device == CPU exactly).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "cuskimage/io.hpp"
#include "cuskimage/ndimage.hpp"
#include "src/ndimage/edt_line.hpp"
#include "tests/cli/cli_support.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace nd = cuskimage::ndimage;

Array golden(const std::string& name) { return cusktest::load_golden("ndimage_edt/" + name + ".npy"); }

// The same table as tests/golden/cases_ndimage_edt.py.
const std::map<std::string, std::vector<double>> kCases = {
    {"blobs2", {}},       {"blobs2_s21", {2.0, 1.0}},     {"blobs2_s0713", {0.7, 1.3}}, {"grid2", {}},
    {"grid2_s", {1.5, 0.75}}, {"sparse2", {}},          {"line1", {}},                {"line1_s", {0.3}},
    {"vol3", {}},         {"vol3_s", {1.0, 2.0, 0.5}},    {"vol3_s2", {0.9, 1.1, 1.7}}, {"grid3", {}},
    {"hyper4", {}},       {"ones2", {}},                  {"ones3", {2.0, 1.0, 1.0}},   {"float2", {}},
};

/// Foreground blobs: smoothed noise above its median (any ndim), as a bool array.
Array blobs(const Shape& shape, std::uint64_t seed, double keep = 0.5) {
  Array noise = cusktest::random_array(shape, DType::float64, seed);
  Array sm = nd::uniform_filter(noise, {.size = {5}, .mode = nd::Mode::wrap});
  std::vector<double> v = sm.to_vector<double>();
  std::vector<double> sorted = v;
  std::nth_element(sorted.begin(), sorted.begin() + static_cast<long>(sorted.size() * (1 - keep)), sorted.end());
  const double thr = sorted[static_cast<std::size_t>(sorted.size() * (1 - keep))];
  std::vector<std::uint8_t> b(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) b[i] = v[i] > thr;
  return Array::from_vector(b, shape).astype(DType::bool_);
}

/// Mostly foreground with a few background pixels (large distances, many equidistant features).
Array sparse(const Shape& shape, std::uint64_t seed, double p_zero) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<std::uint8_t> b(static_cast<std::size_t>(cuskimage::shape_size(shape)));
  for (auto& x : b) x = u(g) >= p_zero;
  return Array::from_vector(b, shape);
}

}  // namespace

TEST(Edt, GoldensBitExact) {
  for (const auto& [name, sampling] : kCases) {
    SCOPED_TRACE(name);
    const Array in = golden("in_" + name);
    const auto r = nd::distance_transform_edt(in, {.sampling = sampling, .return_indices = true});
    EXPECT_ARRAY_EQ(golden("dist_" + name), r.distances);
    EXPECT_ARRAY_EQ(golden("ind_" + name), r.indices);
  }
}

TEST(Edt, ReturnFlagsAndDefaults) {
  const Array in = golden("in_blobs2");
  const auto d = nd::distance_transform_edt(in);
  EXPECT_TRUE(d.distances.valid());
  EXPECT_FALSE(d.indices.valid());
  EXPECT_ARRAY_EQ(golden("dist_blobs2"), d.distances);
  const auto i = nd::distance_transform_edt(in, {.return_distances = false, .return_indices = true});
  EXPECT_FALSE(i.distances.valid());
  EXPECT_ARRAY_EQ(golden("ind_blobs2"), i.indices);
  // One sampling value for every axis.
  const auto s1 = nd::distance_transform_edt(golden("in_vol3"), {.sampling = {1.0}});
  EXPECT_ARRAY_EQ(golden("dist_vol3"), s1.distances);
  // 0-d input: scipy's atleast_1d.
  const auto z = nd::distance_transform_edt(Array::full({}, 3.0, DType::uint8));
  EXPECT_EQ(z.distances.shape(), Shape{1});
  EXPECT_EQ(z.distances.to_vector<double>()[0], 1.0);
  // Empty input.
  const auto e = nd::distance_transform_edt(Array::zeros({0, 4}, DType::uint8), {.return_indices = true});
  EXPECT_EQ(e.distances.shape(), (Shape{0, 4}));
  EXPECT_EQ(e.indices.shape(), (Shape{2, 0, 4}));
}

TEST(Edt, StridedInputAndOutputs) {
  const Array full = golden("in_blobs2");  // 37 x 45
  const Array base = Array::zeros({37, 90}, DType::uint8);
  Array wide = base.share();
  wide.slice({Slice{}, Slice{0, 90, 2}}).copy_from(full);
  const Array view = wide.slice({Slice{}, Slice{0, 90, 2}});
  ASSERT_FALSE(view.is_contiguous());
  Array dist = Array::zeros({45, 37}, DType::float64).transpose({1, 0});
  Array ind = Array::zeros({2, 45, 37}, DType::int32).transpose({0, 2, 1});
  nd::distance_transform_edt_into(view, dist, ind, {.return_indices = true});
  EXPECT_ARRAY_EQ(golden("dist_blobs2"), dist);
  EXPECT_ARRAY_EQ(golden("ind_blobs2"), ind);
}

TEST(Edt, BadArguments) {
  const Array in = golden("in_blobs2");
  EXPECT_THROW(nd::distance_transform_edt(in, {.return_distances = false, .return_indices = false}), InvalidArgument);
  EXPECT_THROW(nd::distance_transform_edt(in, {.sampling = {1.0, 2.0, 3.0}}), InvalidArgument);
  EXPECT_THROW(nd::distance_transform_edt(in, {.sampling = {1.0, -2.0}}), InvalidArgument);
  EXPECT_THROW(nd::distance_transform_edt(in, {.sampling = {0.0}}), InvalidArgument);
  EXPECT_THROW(nd::distance_transform_edt(in, {.sampling = {NAN}}), InvalidArgument);
  EXPECT_THROW(nd::distance_transform_edt(Array()), InvalidArgument);
  Array d32 = Array::empty(in.shape(), DType::float32);
  Array none;
  EXPECT_THROW(nd::distance_transform_edt_into(in, d32, none), InvalidArgument);
  Array dshape = Array::empty({37, 44}, DType::float64);
  EXPECT_THROW(nd::distance_transform_edt_into(in, dshape, none), InvalidArgument);
  Array d = Array::empty(in.shape(), DType::float64);
  Array i64 = Array::empty({2, 37, 45}, DType::int64);
  EXPECT_THROW(nd::distance_transform_edt_into(in, d, i64, {.return_indices = true}), InvalidArgument);
  Array ishape = Array::empty({1, 37, 45}, DType::int32);
  EXPECT_THROW(nd::distance_transform_edt_into(in, d, ishape, {.return_indices = true}), InvalidArgument);
  // An output given without its return flag (scipy raises too).
  Array i32 = Array::empty({2, 37, 45}, DType::int32);
  EXPECT_THROW(nd::distance_transform_edt_into(in, d, i32), InvalidArgument);
  // The requested output missing.
  EXPECT_THROW(nd::distance_transform_edt_into(in, none, none), InvalidArgument);
}

TEST(Edt, Cli) {
  const std::string in = cusktest::golden_path("ndimage_edt/in_blobs2_s21.npy");
  const std::string dist = cusktest::temp_path("edt_dist.npy"), ind = cusktest::temp_path("edt_ind.npy");
  auto r = cuskclitest::run_cli_cpu({"ndimage.distance_transform_edt", in, dist, "--sampling", "2,1"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("dist_blobs2_s21"), cuskimage::io::imread(dist));
  r = cuskclitest::run_cli_cpu({"ndimage.distance_transform_edt", in, ind, "--sampling", "2,1", "--return_distances",
                                "false", "--return_indices", "true"});
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_ARRAY_EQ(golden("ind_blobs2_s21"), cuskimage::io::imread(ind));
  // Both outputs asked for (the tool writes one): a usage error; a bad sampling: a library error.
  EXPECT_EQ(cuskclitest::run_cli_cpu({"ndimage.distance_transform_edt", in, ind, "--return_indices", "true"}).rc, 2);
  EXPECT_EQ(cuskclitest::run_cli_cpu({"ndimage.distance_transform_edt", in, dist, "--sampling", "1,2,3"}).rc, 1);
}

// ---- the CUDA last-axis algorithm, emulated on the host ---------------------------------------------
namespace {

struct HostSites {
  const std::vector<std::int64_t>* f0;  // feature row of each position, -1: none
  std::int64_t row;
  double s0;
  bool is_site(std::int64_t j) const { return (*f0)[j] >= 0; }
  double wr(std::int64_t j) const { return nd::detail::edt_term((*f0)[j], row, s0); }
};

struct HostLinks {
  std::vector<std::int32_t> nx, pv;
  std::int32_t prv(std::int32_t j) const { return pv[j]; }
  std::int32_t nxt(std::int32_t j) const { return nx[j]; }
  void set_prv(std::int32_t j, std::int32_t v) { pv[j] = v; }
  void set_nxt(std::int32_t j, std::int32_t v) { nx[j] = v; }
  void drop(std::int32_t j) { nx[j] = -2; }
};

/// Owner (site position) of every position by bands + merges + interval starts, as edt_last_axis.
std::vector<std::int64_t> banded_owner(const HostSites& S, std::int64_t n, int T, double s1) {
  HostLinks L{std::vector<std::int32_t>(n, -1), std::vector<std::int32_t>(n, -1)};
  const std::int64_t W = (n + T - 1) / T;
  std::vector<nd::detail::EdtBandList> lists(T);
  for (int t = 0; t < T; ++t)
    lists[t] = nd::detail::edt_band_build(S, L, std::min(n, t * W), std::min(n, t * W + W), s1);
  for (int step = 1; step < T; step *= 2)
    for (int t = 0; t + step < T; t += 2 * step) lists[t] = nd::detail::edt_merge(S, L, lists[t], lists[t + step], s1);
  std::vector<std::int64_t> own(n, -1);
  for (std::int64_t j = 0; j < n; ++j) {
    if (!S.is_site(j) || L.nx[j] == -2) continue;
    std::int64_t start = 0;
    if (j != lists[0].head) start = nd::detail::edt_interval_start(L.pv[j], S.wr(L.pv[j]), j, S.wr(j), s1, n);
    if (start < n) own[start] = std::max(own[start], j);
  }
  for (std::int64_t x = 1; x < n; ++x) own[x] = std::max(own[x], own[x - 1]);
  return own;
}

/// The same line by scipy's sequential walk (pass d = 1 of a 2-D image).
std::vector<std::int64_t> sequential_owner(const std::vector<std::int64_t>& f0, std::int64_t row, std::int64_t n,
                                           const double* s) {
  std::vector<std::int64_t> own(n, -1), stack(n);
  const std::int64_t coor[2] = {row, 0};
  struct Stk {
    std::int64_t* p;
    std::int64_t get(std::int64_t k) const { return p[k]; }
    void set(std::int64_t k, std::int64_t v) { p[k] = v; }
  } stk{stack.data()};
  const auto in = [&](std::int64_t i, int jj) -> std::int64_t { return jj == 0 ? f0[i] : i; };
  const auto out = [&](std::int64_t i, int jj, std::int64_t v) {
    if (jj == 1) own[i] = v;
  };
  nd::detail::edt_voronoi_line(in, out, stk, n, 1, coor, s);
  return own;
}

}  // namespace

TEST(Edt, BandedEnvelopeEqualsSequentialWalk) {
  std::mt19937_64 g(77);
  const double samplings[][2] = {{1.0, 1.0}, {2.0, 0.5}, {1.25, 3.0}};
  int lines = 0;
  for (int rep = 0; rep < 400; ++rep) {
    const std::int64_t n = 1 + static_cast<std::int64_t>(g() % 700);
    const int T = rep % 3 == 0 ? 256 : (rep % 3 == 1 ? 32 : 7);
    const std::int64_t row = static_cast<std::int64_t>(g() % 200);
    std::vector<std::int64_t> f0(n);
    const int kind = rep % 4;
    for (std::int64_t j = 0; j < n; ++j) {
      if (kind == 0)  // random rows, some missing
        f0[j] = g() % 5 == 0 ? -1 : static_cast<std::int64_t>(g() % 400);
      else if (kind == 1)  // a disk: all lifted points collinear
        f0[j] = row + static_cast<std::int64_t>(std::llround(std::sqrt(std::max(0.0, 90000.0 - (j - n / 2.0) * (j - n / 2.0)))));
      else if (kind == 2)  // few sites
        f0[j] = g() % 50 == 0 ? static_cast<std::int64_t>(g() % 400) : -1;
      else  // smooth rows with plateaus (equidistant ties)
        f0[j] = row + 3 * static_cast<std::int64_t>((j / 7) % 5);
    }
    const double* s = samplings[rep % 3];
    const HostSites S{&f0, row, s[0]};
    const auto want = sequential_owner(f0, row, n, s);
    const auto got = banded_owner(S, n, T, s[1]);
    bool any = false;
    for (auto v : f0) any = any || v >= 0;
    if (!any) continue;
    ++lines;
    ASSERT_EQ(want, got) << "n=" << n << " T=" << T << " kind=" << kind;
  }
  EXPECT_GT(lines, 300);
}

TEST(Edt, WindowOwnerEqualsSequentialWalk) {
  // The unit-sampling search of the CUDA last-axis fast path against scipy's walk, ties included:
  // wherever it reports a settled position its owner must be the walk's.
  std::mt19937_64 g(91);
  const double unit[2] = {1.0, 1.0};
  const int dmax = 64;
  std::int64_t settled = 0, open = 0;
  for (int rep = 0; rep < 600; ++rep) {
    const std::int64_t n = 1 + static_cast<std::int64_t>(g() % 500);
    const std::int64_t row = static_cast<std::int64_t>(g() % 300);
    const int kind = rep % 4;
    std::vector<std::int64_t> f0(n);
    for (std::int64_t j = 0; j < n; ++j) {
      if (kind == 0)  // rows near the line: many equal distances
        f0[j] = g() % 7 == 0 ? -1 : row + static_cast<std::int64_t>(g() % 9) - 4;
      else if (kind == 1)  // far rows (large g: long searches, some beyond dmax)
        f0[j] = g() % 3 == 0 ? -1 : static_cast<std::int64_t>(g() % 400);
      else if (kind == 2)  // sparse sites
        f0[j] = g() % 40 == 0 ? row + static_cast<std::int64_t>(g() % 61) - 30 : -1;
      else  // plateaus
        f0[j] = row + 2 * static_cast<std::int64_t>((j / 5) % 4);
      if (f0[j] < -1) f0[j] = -1;
    }
    bool any = false;
    for (auto v : f0) any = any || v >= 0;
    if (!any) continue;
    const auto want = sequential_owner(f0, row, n, unit);
    const auto gk = [&](std::int64_t k) -> std::uint32_t {
      if (k < 0 || k >= n || f0[k] < 0) return nd::detail::kEdtNoSite;
      return static_cast<std::uint32_t>((f0[k] - row) * (f0[k] - row));
    };
    for (std::int64_t x = 0; x < n; ++x) {
      std::uint32_t best = 0;
      std::int64_t k = -1;
      if (!nd::detail::edt_window_owner(gk, x, dmax, best, k)) {
        ++open;
        continue;
      }
      ++settled;
      ASSERT_EQ(want[x], k) << "x=" << x << " n=" << n << " kind=" << kind;
      const std::int64_t d2 = (f0[k] - row) * (f0[k] - row) + (k - x) * (k - x);
      ASSERT_EQ(static_cast<std::int64_t>(best), d2);
    }
  }
  EXPECT_GT(settled, 50000);
  EXPECT_GT(open, 100);  // far sites do leave positions to the banded envelope
  // A lone site farther than dmax: not settled.
  std::uint32_t best = 0;
  std::int64_t k = 0;
  const auto lone = [](std::int64_t j) { return j == 200 ? 0u : nd::detail::kEdtNoSite; };
  EXPECT_FALSE(nd::detail::edt_window_owner(lone, std::int64_t{100}, dmax, best, k));
  EXPECT_TRUE(nd::detail::edt_window_owner(lone, std::int64_t{150}, dmax, best, k));
  EXPECT_EQ(k, 200);
  EXPECT_EQ(best, 2500u);
}

TEST(Edt, Pass0WordsEqualBruteForce) {
  // The CUDA pass 0 (32-row zero-bit words, chunk links, nearest by clz/ffs) against a direct search.
  std::mt19937_64 g(3);
  for (int rep = 0; rep < 60; ++rep) {
    const std::int64_t n0 = 1 + static_cast<std::int64_t>(g() % 300);
    const double p_zero = rep % 3 == 0 ? 0.5 : (rep % 3 == 1 ? 0.03 : 0.002);
    std::vector<std::uint8_t> zero(n0);
    for (auto& z : zero) z = std::uniform_real_distribution<double>(0, 1)(g) < p_zero;
    const std::int64_t nch = (n0 + 31) / 32;
    std::vector<std::uint32_t> w(nch, 0);
    for (std::int64_t r = 0; r < n0; ++r)
      if (zero[r]) w[r / 32] |= 1u << (r % 32);
    std::vector<std::int32_t> above(nch), below(nch);
    std::int32_t last = -1;
    for (std::int64_t c = 0; c < nch; ++c) {
      above[c] = last;
      for (int k = 0; k < 32; ++k)
        if (w[c] >> k & 1) last = static_cast<std::int32_t>(c * 32 + k);
    }
    std::int32_t first = -1;
    for (std::int64_t c = nch - 1; c >= 0; --c) {
      below[c] = first;
      for (int k = 31; k >= 0; --k)
        if (w[c] >> k & 1) first = static_cast<std::int32_t>(c * 32 + k);
    }
    for (std::int64_t r = 0; r < n0; ++r) {
      std::int32_t best = -1;
      for (std::int64_t z = 0; z < n0; ++z)
        if (zero[z] && (best < 0 || std::abs(z - r) < std::abs(best - r))) best = static_cast<std::int32_t>(z);
      const std::int32_t c = static_cast<std::int32_t>(r / 32);
      ASSERT_EQ(best, nd::detail::edt_nearest_zero(
                          w[c], static_cast<int>(r % 32), c, [&] { return above[c]; }, [&] { return below[c]; },
                          static_cast<std::int32_t>(r)))
          << "row " << r << " of " << n0;
    }
  }
}

// ---- GPU tier -----------------------------------------------------------------------------------------
namespace {

void expect_device_equals_cpu(const Array& host_in, const std::vector<double>& sampling, const Stream& s,
                              bool indices = true) {
  const nd::EdtOptions o{.sampling = sampling, .return_indices = indices};
  const auto want = nd::distance_transform_edt(host_in, o);
  const auto got = nd::distance_transform_edt(host_in.to(Device::cuda(), s), o, s);
  EXPECT_EQ(got.distances.device(), Device::cuda());
  EXPECT_ARRAY_EQ(want.distances, got.distances);
  if (indices) EXPECT_ARRAY_EQ(want.indices, got.indices);
}

}  // namespace

TEST(GpuEdt, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const auto& [name, sampling] : kCases) {
    if (name == "hyper4") continue;  // 4-D: CPU only (NotSupported below)
    SCOPED_TRACE(name);
    const auto r = nd::distance_transform_edt(golden("in_" + name).to(Device::cuda(), s),
                                              {.sampling = sampling, .return_indices = true}, s);
    // Non-dyadic samplings may pick another equidistant-up-to-rounding feature: distances within 1e-12.
    const bool exact = name != "blobs2_s0713" && name != "vol3_s2";
    if (exact) {
      EXPECT_ARRAY_EQ(golden("dist_" + name), r.distances);
      EXPECT_ARRAY_EQ(golden("ind_" + name), r.indices);
    } else {
      EXPECT_ARRAY_NEAR(golden("dist_" + name), r.distances, 1e-12, 0);
    }
  }
  EXPECT_THROW(nd::distance_transform_edt(golden("in_hyper4").to(Device::cuda(), s), {}, s), cuskimage::NotSupported);
}

TEST(GpuEdt, RandomBlobs2dEqualCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 11;
  for (const Shape& shape : {Shape{301, 517}, Shape{64, 8192}, Shape{1000, 33}, Shape{5, 1}, Shape{1, 700}}) {
    SCOPED_TRACE(cuskimage::shape_str(shape));
    expect_device_equals_cpu(blobs(shape, seed++), {}, s);
    expect_device_equals_cpu(blobs(shape, seed++, 0.9), {2.0, 0.5}, s);
    expect_device_equals_cpu(sparse(shape, seed++, 0.01), {1.25, 1.0}, s);
    expect_device_equals_cpu(sparse(shape, seed++, 0.002), {}, s, false);
  }
}

TEST(GpuEdt, LongRowsFallback) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // Rows longer than the shared-memory kernel takes: the sequential walk per row.
  expect_device_equals_cpu(sparse({3, 40000}, 5, 0.001), {}, s);
  expect_device_equals_cpu(sparse({50000}, 6, 0.01), {}, s);  // 1-D
  expect_device_equals_cpu(sparse({4000}, 7, 0.3), {0.5}, s);
}

TEST(GpuEdt, RandomBlobs3dEqualCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  expect_device_equals_cpu(blobs({19, 37, 45}, 21), {}, s);
  expect_device_equals_cpu(blobs({19, 37, 45}, 22, 0.85), {2.0, 1.0, 0.5}, s);
  expect_device_equals_cpu(sparse({24, 30, 41}, 23, 0.003), {1.5, 0.75, 1.0}, s);
  expect_device_equals_cpu(sparse({2, 3, 33000}, 24, 0.001), {}, s);  // x-lines too long: walk fallback
  expect_device_equals_cpu(Array::full({4, 5, 6}, 1.0, DType::uint8), {}, s);  // no background
}

TEST(GpuEdt, StridedDeviceViewsAndOutputs) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array h = blobs({120, 260}, 31);
  const Array hv = h.slice({Slice{1, 119, 3}, Slice{0, 260, 2}});
  const auto want = nd::distance_transform_edt(hv, {.return_indices = true});
  const Array d = h.to(Device::cuda(), s);
  const Array dv = d.slice({Slice{1, 119, 3}, Slice{0, 260, 2}});
  Array dist = Array::zeros({130, 40}, DType::float64, Device::cuda(), s).transpose({1, 0});
  Array ind = Array::zeros({2, 130, 40}, DType::int32, Device::cuda(), s).transpose({0, 2, 1});
  nd::distance_transform_edt_into(dv, dist, ind, {.return_indices = true}, s);
  EXPECT_ARRAY_EQ(want.distances, dist);
  EXPECT_ARRAY_EQ(want.indices, ind);
}

TEST(GpuEdt, NonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Array h = blobs({512, 700}, 41);
  const Array h3 = blobs({20, 30, 40}, 42);
  const auto want = nd::distance_transform_edt(h, {.return_indices = true});
  const auto want3 = nd::distance_transform_edt(h3, {.return_indices = true});
  nd::EdtResult got, got3;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    got = nd::distance_transform_edt(h.to(Device::cuda(), s), {.return_indices = true}, s);
    got3 = nd::distance_transform_edt(h3.to(Device::cuda(), s), {.return_indices = true}, s);
    s.synchronize();
  }));
  EXPECT_ARRAY_EQ(want.distances, got.distances);
  EXPECT_ARRAY_EQ(want.indices, got.indices);
  EXPECT_ARRAY_EQ(want3.distances, got3.distances);
  EXPECT_ARRAY_EQ(want3.indices, got3.indices);
}

// ---- GPU tier: the unit-sampling outward search and its hand-over to the banded envelope / walk ------
namespace {

/// Blobs with a foreground square of side `side` in the last two axes (through every z of a volume):
/// positions deep inside it are farther than the search radius (64) from any site, so their lines go to
/// the banded envelope (last axis) or the walk (3-D middle axis) while the other lines are settled by
/// the search.
Array blobs_with_square(const Shape& shape, std::uint64_t seed, std::int64_t side) {
  std::vector<std::uint8_t> v = blobs(shape, seed).astype(DType::uint8).to_vector<std::uint8_t>();
  const std::int64_t nx = shape.back(), ny = shape[shape.size() - 2];
  const std::int64_t nz = static_cast<std::int64_t>(v.size()) / (nx * ny);
  const std::int64_t y0 = ny / 3, x0 = nx / 4;
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = y0; y < std::min(ny, y0 + side); ++y)
      for (std::int64_t x = x0; x < std::min(nx, x0 + side); ++x) v[(z * ny + y) * nx + x] = 1;
  return Array::from_vector(v, shape).astype(DType::bool_);
}

}  // namespace

TEST(GpuEdt, WindowAndHardLinesEqualCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  // 2-D: rows settled by the search next to rows through a square of radius > 64 (short rows: 128-thread
  // envelope; long rows: 512 threads).
  expect_device_equals_cpu(blobs_with_square({400, 520}, 51, 180), {}, s);
  expect_device_equals_cpu(blobs_with_square({300, 4100}, 52, 200), {}, s);
  expect_device_equals_cpu(blobs_with_square({300, 4100}, 53, 200), {}, s, false);
  // 3-D: a 150 x 150 prism through every z: hard lines on the middle axis and on the last axis.
  expect_device_equals_cpu(blobs_with_square({6, 200, 190}, 54, 150), {}, s);
  // A volume whose z-slices are mostly foreground (axis-0 sites far off): hard middle-axis lines.
  Array vol = sparse({70, 90, 45}, 55, 0.0005);
  expect_device_equals_cpu(vol, {}, s);
  expect_device_equals_cpu(vol, {}, s, false);
}

TEST(GpuEdt, EdgeImagesEqualCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const Shape& shape : {Shape{1, 1}, Shape{1, 33}, Shape{33, 1}, Shape{7, 9001}, Shape{257, 129}, Shape{1, 1, 1},
                             Shape{3, 70, 5}, Shape{2, 1, 300}, Shape{65, 2, 3}}) {
    SCOPED_TRACE(cuskimage::shape_str(shape));
    const std::int64_t size = cuskimage::shape_size(shape);
    expect_device_equals_cpu(Array::zeros(shape, DType::bool_), {}, s);             // all background
    expect_device_equals_cpu(Array::full(shape, 1.0, DType::uint8), {}, s);         // no background at all
    std::vector<std::uint8_t> one(static_cast<std::size_t>(size), 1), lone(static_cast<std::size_t>(size), 0);
    one[static_cast<std::size_t>(size / 2)] = 0;   // a single background pixel: far lines everywhere
    lone[static_cast<std::size_t>(size / 3)] = 1;  // a single foreground pixel
    expect_device_equals_cpu(Array::from_vector(one, shape), {}, s);
    expect_device_equals_cpu(Array::from_vector(lone, shape), {}, s);
    expect_device_equals_cpu(sparse(shape, 61 + static_cast<std::uint64_t>(size), 0.02), {}, s);
  }
}

TEST(GpuEdt, WindowNonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Array h = blobs_with_square({300, 3000}, 71, 170);
  const Array h3 = blobs_with_square({8, 160, 150}, 72, 140);
  const auto want = nd::distance_transform_edt(h, {.return_indices = true});
  const auto want3 = nd::distance_transform_edt(h3, {.return_indices = true});
  nd::EdtResult got, got3;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    got = nd::distance_transform_edt(h.to(Device::cuda(), s), {.return_indices = true}, s);
    got3 = nd::distance_transform_edt(h3.to(Device::cuda(), s), {.return_indices = true}, s);
    s.synchronize();
  }));
  EXPECT_ARRAY_EQ(want.distances, got.distances);
  EXPECT_ARRAY_EQ(want.indices, got.indices);
  EXPECT_ARRAY_EQ(want3.distances, got3.distances);
  EXPECT_ARRAY_EQ(want3.indices, got3.indices);
}
