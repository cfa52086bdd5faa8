// random_walker against scikit-image 0.26's goldens (tests/golden/cases_segmentation_random_walker.py):
// the CPU runs scipy's conjugate-gradient iterations in the same order, with its own summation
// order for the dot products and float64 differences for float32 data, so the probabilities agree
// within 1e-6 absolute (Jacobi-preconditioned runs ~1e-7; plain cg drifts to ~4e-7 over its longer
// runs), and the labels exactly wherever the two best probabilities are more than 1e-6 apart. On
// badly conditioned systems (beta 130 on pure noise: weights down to 1e-10) rounding differences
// grow through the iterations and the probabilities can differ from scipy's by ~5e-3, while scipy's
// own error at tol 1e-3 is larger still. GPU tier: same iterations, CUB dot products in another
// order: probabilities within 5e-6 of the CPU's, labels equal where the CPU's top two differ by
// more than 1e-5. The GPU solves all labels as one batch, each column stopping on its own test:
// the batch tests put columns that stop at different iterations (one at once, its right-hand side
// zero) side by side.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cuskimage/segmentation.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Stream;
namespace seg = cuskimage::segmentation;

Array golden(const std::string& name) { return cusktest::load_golden("segmentation_random_walker/" + name + ".npy"); }

struct Case {
  std::string key, image, labels;
  seg::RandomWalkerOptions o;
};

std::vector<Case> cases() {
  using M = seg::RandomWalkerMode;
  return {
      {"default", "img2", "lab2", {}},
      {"cg", "img2", "lab2", {.beta = 90, .mode = M::cg}},
      {"mg", "img2", "lab2", {.mode = M::cg_mg}},
      {"tol", "img2", "lab2", {.beta = 300, .tol = 1e-6}},
      {"spacing", "img2", "lab2", {.spacing = {1.0, 2.5}}},
      {"u8", "img2u8", "lab2", {}},
      {"neg", "img2", "lab2n", {}},
      {"neg_cg", "img2", "lab2n", {.mode = M::cg, .tol = 1e-5}},
      {"iso", "img2", "labiso", {}},
      {"vol", "img3", "lab3", {}},
      {"vol_sp", "img3", "lab3", {.beta = 50, .spacing = {2.0, 1.0, 0.5}}},
      {"rgb", "rgb2", "labrgb", {.channel_axis = -1}},
      {"rgb0", "rgb2c0", "labrgb", {.channel_axis = 0}},
  };
}

/// Labels equal wherever the reference probabilities' two best are more than `sep` apart.
void expect_labels(const Array& expected, const Array& actual, const Array& prob, double sep, double max_close = 0.01) {
  ASSERT_EQ(expected.shape(), actual.shape());
  EXPECT_EQ(expected.dtype(), actual.dtype());
  const auto e = expected.to_vector<std::int64_t>(), a = actual.to(Device::cpu()).to_vector<std::int64_t>();
  const auto p = prob.to(Device::cpu()).to_vector<double>();
  const std::size_t n = e.size(), nl = p.size() / n;
  std::size_t close = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> v(nl);
    for (std::size_t l = 0; l < nl; ++l) v[l] = p[l * n + i];
    std::sort(v.rbegin(), v.rend());
    if (nl > 1 && v[0] - v[1] <= sep) {
      close += v[0] > 0.0;  // inactive pixels (all zero) keep their label: compared
      if (v[0] > 0.0) continue;
    }
    EXPECT_EQ(e[i], a[i]) << "pixel " << i;
  }
  EXPECT_LE(double(close), max_close * double(n)) << "too few well-separated pixels to compare";
}

TEST(RandomWalker, GoldensCpu) {
  for (auto& c : cases()) {
    SCOPED_TRACE(c.key);
    const Array img = golden(c.image), lab = golden(c.labels);
    const Array prob_ref = golden("rwp_" + c.key);
    const Array out = seg::random_walker(img, lab, c.o);
    // "iso": the region beyond the wall holds one seed pixel and stops at tol with probabilities
    // ~1e-6: most of it is not separated (scikit-image's result, not a solver failure).
    expect_labels(golden("rw_" + c.key), out, prob_ref, 1e-6, c.key == "iso" ? 0.5 : 0.01);
    c.o.return_full_prob = true;
    const Array prob = seg::random_walker(img, lab, c.o);
    EXPECT_EQ(prob.dtype(), DType::float64);
    EXPECT_ARRAY_NEAR(prob_ref, prob, 0.0, 1e-6);
  }
}

TEST(RandomWalker, NoUnlabelledPixelsReturnsLabels) {
  std::vector<std::int32_t> v(30, 1);
  v[7] = 2;
  v[8] = -1;
  const Array lab = Array::from_vector(v, {5, 6});
  const Array out = seg::random_walker(cusktest::random_array({5, 6}, DType::float64, 3, 0, 1), lab);
  EXPECT_ARRAY_EQ(lab, out);
}

TEST(RandomWalker, AllUnlabelledCutOff) {
  EXPECT_ARRAY_EQ(golden("rw_all"), seg::random_walker(golden("img2"), golden("laball")));
}

TEST(RandomWalker, BadInput) {
  const Array img = golden("img2"), lab = golden("lab2");
  EXPECT_THROW(seg::random_walker(img, Array::zeros({40, 43}, DType::int32)), InvalidArgument);
  EXPECT_THROW(seg::random_walker(img, Array::zeros({40, 44}, DType::int32)), InvalidArgument);  // no seeds
  EXPECT_THROW(seg::random_walker(img, lab.astype(DType::float64)), InvalidArgument);
  EXPECT_THROW(seg::random_walker(img, lab, {.spacing = {1.0, 1.0, 1.0}}), InvalidArgument);
  EXPECT_THROW(seg::random_walker(Array::zeros({4}, DType::float64), Array::zeros({4}, DType::int32)),
               InvalidArgument);
  EXPECT_THROW(seg::random_walker(img, lab, {.channel_axis = -1}), InvalidArgument);  // 2-D multichannel
  EXPECT_THROW(seg::random_walker(golden("rgb2"), golden("labrgb")), InvalidArgument);  // shape without channels
}

TEST(GpuRandomWalker, MatchesCpuStridedAndStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (auto& c : cases()) {
    SCOPED_TRACE(c.key);
    const Array img = golden(c.image), lab = golden(c.labels);
    c.o.return_full_prob = true;
    const Array cpu_prob = seg::random_walker(img, lab, c.o);
    const Array gpu_prob = seg::random_walker(img.to(Device::cuda(), s), lab.to(Device::cuda(), s), c.o, s);
    EXPECT_TRUE(gpu_prob.device().is_cuda());
    EXPECT_ARRAY_NEAR(cpu_prob, gpu_prob, 0.0, 5e-6);
    c.o.return_full_prob = false;
    const Array cpu = seg::random_walker(img, lab, c.o);
    const Array gpu = seg::random_walker(img.to(Device::cuda(), s), lab.to(Device::cuda(), s), c.o, s);
    expect_labels(cpu, gpu, cpu_prob, 1e-5, c.key == "iso" ? 0.5 : 0.01);
  }
  // Fresh random data, a strided view of a wider image, three labels.
  const Array wide = cusktest::random_array({48, 100}, DType::float64, 11, 0, 1);
  std::vector<std::int32_t> v(48 * 50, 0);
  v[3 * 50 + 4] = 1;
  v[40 * 50 + 10] = 2;
  v[24 * 50 + 45] = 3;
  const Array lab = Array::from_vector(v, {48, 50});
  const cuskimage::Slice all{}, every2{0, 100, 2};
  const Array view = wide.slice({all, every2});
  const Array dview = wide.to(Device::cuda(), s).slice({all, every2});
  const seg::RandomWalkerOptions po{.beta = 20, .return_full_prob = true};
  const Array cpu_prob = seg::random_walker(view, lab, po);
  EXPECT_ARRAY_NEAR(cpu_prob, seg::random_walker(dview, lab.to(Device::cuda(), s), po, s), 0.0, 5e-6);
  expect_labels(seg::random_walker(view, lab, {.beta = 20}),
                seg::random_walker(dview, lab.to(Device::cuda(), s), {.beta = 20}, s), cpu_prob, 1e-5);
}

/// 3-D seeds for the batched solve: labels 1..3 in three corners, label 4 a single pixel walled
/// in by label 3 (its right-hand side is zero: that column stops before the first iteration), an
/// inactive (-2) slab, and an unlabelled pocket behind it that no seed reaches.
Array batch_labels(const cuskimage::Shape& s) {
  const std::int64_t nz = s[0], ny = s[1], nx = s[2];
  std::vector<std::int16_t> v(nz * ny * nx, 0);
  auto at = [&](std::int64_t z, std::int64_t y, std::int64_t x) -> std::int16_t& { return v[(z * ny + y) * nx + x]; };
  at(1, 1, 1) = 1;
  at(nz - 2, ny - 2, 2) = 2;
  for (std::int64_t z = 0; z < 3; ++z)
    for (std::int64_t y = ny - 3; y < ny; ++y)
      for (std::int64_t x = 4; x < 7; ++x) at(z, y, x) = 3;
  at(1, ny - 2, 5) = 4;
  for (std::int64_t z = 0; z < nz; ++z)
    for (std::int64_t y = 0; y < ny; ++y) at(z, y, nx - 4) = -2;  // cuts off x > nx - 4
  return Array::from_vector(v, s);
}

TEST(GpuRandomWalker, BatchedLabels3dMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  using M = seg::RandomWalkerMode;
  const cuskimage::Shape shape{9, 14, 17};
  const Array img = cusktest::random_array(shape, DType::float32, 21, 0, 1);
  const Array lab = batch_labels(shape);
  const Array dimg = img.to(Device::cuda(), s), dlab = lab.to(Device::cuda(), s);
  const std::vector<seg::RandomWalkerOptions> opts = {
      {.beta = 40, .tol = 1e-5, .spacing = {2.0, 1.0, 0.75}},
      {.beta = 10, .mode = M::cg, .tol = 1e-4},
      {.beta = 60, .mode = M::cg_mg},
  };
  for (auto o : opts) {
    o.return_full_prob = true;
    const Array cpu_prob = seg::random_walker(img, lab, o);
    const Array gpu_prob = seg::random_walker(dimg, dlab, o, s);
    ASSERT_EQ(gpu_prob.shape(), (cuskimage::Shape{4, 9, 14, 17}));
    EXPECT_ARRAY_NEAR(cpu_prob, gpu_prob, 0.0, 5e-6);
    // Deterministic: fixed reduction order, whatever the timing.
    EXPECT_ARRAY_EQ(gpu_prob.to(Device::cpu(), s), seg::random_walker(dimg, dlab, o, s).to(Device::cpu(), s));
    o.return_full_prob = false;
    const Array gpu = seg::random_walker(dimg, dlab, o, s);
    EXPECT_EQ(gpu.dtype(), DType::int16);
    expect_labels(seg::random_walker(img, lab, o), gpu, cpu_prob, 1e-5);
  }
}

TEST(GpuRandomWalker, MultichannelVolumeMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array img = cusktest::random_array({2, 9, 14, 17}, DType::float64, 5, 0, 1);  // channels first
  const Array lab = batch_labels({9, 14, 17});
  const seg::RandomWalkerOptions o{.beta = 30, .return_full_prob = true, .channel_axis = 0};
  EXPECT_ARRAY_NEAR(seg::random_walker(img, lab, o),
                    seg::random_walker(img.to(Device::cuda(), s), lab.to(Device::cuda(), s), o, s), 0.0, 5e-6);
}

}  // namespace
