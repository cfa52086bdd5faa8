// segmentation.slic against scikit-image 0.26's goldens (tests/golden/cases_segmentation_superpixels.py):
// grey and multichannel, 2-D and 3-D, float32 and float64 working types, spacing, sigma, SLIC-zero,
// connectivity on and off, size factors, masks (numpy's legacy RandomState seeds and scipy's
// kmeans2), start_label 0 and 1, channel_axis first; bad arguments; then the GPU tier.
//
// CPU backend: every case equals scikit-image's labels exactly (it runs the .pyx's arithmetic in
// its order). GPU backend: the assignment is exact for equal centres, but the centre sums are
// accumulated in double in another order, so centres may differ in the last bits and pixels at
// near-ties may change cluster; the GPU tier measures the pixels differing from the CPU backend (as
// partitions: pixels outside the best-matching segment) and asserts at most 2 % (expected 0 on
// float64 images, whose position sums are exact).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/segmentation.hpp"
#include "src/segmentation/slic.hpp"
#include "tests/common/test_support.hpp"
#include "tests/segmentation/superpixels_support.hpp"

namespace {

using namespace superpixels_test;  // NOLINT(google-build-using-namespace)
struct Case {
  std::string name, image;
  seg::SlicOptions opts;
  bool disc_mask = false;  // with the golden's mask_<image>.npy
};

std::vector<Case> cases() {
  auto grey = [](seg::SlicOptions o) {
    o.channel_axis = std::nullopt;
    return o;
  };
  std::vector<Case> c;
  c.push_back({"grey", "g2", grey({.n_segments = 30, .compactness = 0.1})});
  c.push_back({"grey_sigma", "g2", grey({.n_segments = 40, .compactness = 0.2, .sigma = {1.5}})});
  c.push_back({"grey_f32", "g2f", grey({.n_segments = 25, .compactness = 0.1})});
  c.push_back({"grey_spacing", "g2", grey({.n_segments = 30, .compactness = 0.1, .spacing = {1.0, 2.0}})});
  c.push_back({"grey_zero", "g2", grey({.n_segments = 30, .compactness = 0.1, .slic_zero = true})});
  c.push_back({"grey_nocon", "g2",
               grey({.n_segments = 30, .compactness = 0.1, .enforce_connectivity = false, .start_label = 0})});
  c.push_back({"grey_factors", "g2",
               grey({.n_segments = 50, .compactness = 0.05, .min_size_factor = 0.8, .max_size_factor = 1.5})});
  c.push_back({"rgb_nolab", "rgb", {.n_segments = 40, .compactness = 10, .convert2lab = false}});
  c.push_back({"rgb_lab", "rgb", {.n_segments = 40, .compactness = 10}});
  c.push_back({"rgb_lab_sigma", "rgb", {.n_segments = 60, .compactness = 20, .max_num_iter = 5, .sigma = {1.0}}});
  c.push_back({"two_channel_first", "c2", {.n_segments = 20, .compactness = 0.5, .channel_axis = 0}});
  c.push_back({"vol", "g3", grey({.n_segments = 40, .compactness = 0.1})});
  c.push_back({"vol_spacing_sigma", "g3",
               grey({.n_segments = 30, .compactness = 0.2, .sigma = {0.5, 1.0, 1.0}, .spacing = {2.0, 1.0, 1.0}})});
  c.push_back({"vol_rgb", "v3c", {.n_segments = 25, .compactness = 5, .convert2lab = false}});
  c.push_back({"grey_mask", "g2", grey({.n_segments = 20, .compactness = 0.1}), true});
  c.push_back({"rgb_mask", "rgb", {.n_segments = 30, .compactness = 10, .convert2lab = false}, true});
  c.push_back(
      {"rgb_mask_start0", "rgb", {.n_segments = 30, .compactness = 10, .convert2lab = false, .start_label = 0}, true});
  c.push_back({"iter0", "g2", grey({.n_segments = 30, .max_num_iter = 0})});
  return c;
}

seg::SlicOptions clone(const seg::SlicOptions& a) {
  return {.n_segments = a.n_segments,
          .compactness = a.compactness,
          .max_num_iter = a.max_num_iter,
          .sigma = a.sigma,
          .spacing = a.spacing,
          .convert2lab = a.convert2lab,
          .enforce_connectivity = a.enforce_connectivity,
          .min_size_factor = a.min_size_factor,
          .max_size_factor = a.max_size_factor,
          .slic_zero = a.slic_zero,
          .start_label = a.start_label,
          .mask = a.mask.valid() ? a.mask.share() : Array(),
          .channel_axis = a.channel_axis};
}

Array run_case(const Case& k, const Device& dev, const Stream& s) {
  seg::SlicOptions o = clone(k.opts);
  if (k.disc_mask) o.mask = golden("mask_" + k.image).to(dev, s);
  return seg::slic(golden("in_" + k.image).to(dev, s), o, s);
}

TEST(Slic, MatchesScikitImage) {
  for (const Case& k : cases()) {
    SCOPED_TRACE(k.name);
    const Array got = run_case(k, Device::cpu(), Stream());
    EXPECT_EQ(got.dtype(), DType::int64);
    EXPECT_ARRAY_EQ(golden("slic_" + k.name).astype(DType::int64), got);
  }
}

TEST(Slic, StridedInputEqualsContiguous) {
  const Array img = golden("in_rgb");
  const Array strided = img.slice({{std::nullopt, std::nullopt, 2}, {std::nullopt, std::nullopt, 2}});
  const seg::SlicOptions o{.n_segments = 12, .compactness = 10};
  EXPECT_ARRAY_EQ(seg::slic(strided.copy(), o), seg::slic(strided, o));
}

TEST(Slic, BadArgumentsRaiseInvalidArgument) {
  const Array g = golden("in_g2"), rgb = golden("in_rgb");
  const seg::SlicOptions grey{.channel_axis = std::nullopt};
  auto with = [&](auto f) {
    seg::SlicOptions o{.channel_axis = std::nullopt};
    f(o);
    return o;
  };
  EXPECT_THROW(seg::slic(g), cuskimage::InvalidArgument);  // default channel_axis=-1 on a 2-D image
  EXPECT_THROW(seg::slic(g, with([](auto& o) { o.n_segments = 0; })), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::slic(g, with([](auto& o) { o.compactness = -1; })), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::slic(g, with([](auto& o) { o.start_label = 2; })), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::slic(g, with([](auto& o) { o.spacing = {1, 2, 3, 4}; })), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::slic(g, with([](auto& o) {
                           o.mask = Array::zeros({3, 3}, DType::bool_);
                         })),
               cuskimage::InvalidArgument);
  EXPECT_THROW(seg::slic(golden("in_c2"), {.convert2lab = true, .channel_axis = 0}), cuskimage::InvalidArgument);
  Array nan = g.copy();
  nan.data<double>()[5] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(seg::slic(nan, grey), cuskimage::InvalidArgument);
  EXPECT_NO_THROW(seg::slic(rgb, {.n_segments = 5}));
  EXPECT_THROW(seg::slic(Array::zeros({0, 5}, DType::float64), grey), cuskimage::InvalidArgument);
}

// ---- GPU tier -------------------------------------------------------------------------------------

TEST(GpuSlic, AgreesWithCpuOnGoldenCases) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const Case& k : cases()) {
    const Array cpu = run_case(k, Device::cpu(), Stream());
    const Array gpu = run_case(k, Device::cuda(0), s);
    const std::int64_t d = pixels_differing(cpu, gpu);
    std::printf("slic %-18s GPU vs CPU: %lld of %lld pixels differ (as partitions)\n", k.name.c_str(),
                static_cast<long long>(d), static_cast<long long>(cpu.size()));
    EXPECT_LE(d, cpu.size() / 50) << k.name;
  }
}

TEST(GpuSlic, AgreesWithCpuOnRandomRgbStridedNonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array host = cusktest::random_array({256, 320, 3}, DType::uint8, 21);
  const Array dev = host.to(Device::cuda(0), s).slice({{std::nullopt, std::nullopt, 2}});
  const seg::SlicOptions o{.n_segments = 200, .compactness = 10, .sigma = {1.0}};
  const Array cpu = seg::slic(host.slice({{std::nullopt, std::nullopt, 2}}), o);
  const Array gpu = seg::slic(dev, o, s);
  const std::int64_t d = pixels_differing(cpu, gpu);
  std::printf("slic random RGB 128x320 (strided rows): %lld of %lld pixels differ (as partitions)\n",
              static_cast<long long>(d), static_cast<long long>(cpu.size()));
  EXPECT_LE(d, cpu.size() / 50);
}

TEST(GpuSlic, RunsWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array img = golden("in_g3").to(Device::cuda(0));
  EXPECT_TRUE(cusktest::runs_without_legacy_stream(
      [&](const Stream& s) { (void)seg::slic(img, {.n_segments = 20, .channel_axis = std::nullopt}, s); }));
}

// The device connectivity pass equals the sequential one (src/segmentation/slic_cpu.cpp) exactly:
// blocky random labels with per-pixel noise give many fragments, segments met from the first pixel
// on with no visited neighbour, masked pixels (start_label - 1), and, with a small max_size,
// segments the .pyx's search cuts short (the host path).
struct Connectivity {
  std::int64_t d, h, w, block, min_size, max_size, start_label;
  double noise;
};

std::vector<std::int64_t> blocky_labels(const Connectivity& c, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> lab(c.start_label - 1, c.start_label + 5);
  std::uniform_real_distribution<double> u(0, 1);
  const std::int64_t bz = (c.d + c.block - 1) / c.block, by = (c.h + c.block - 1) / c.block,
                     bx = (c.w + c.block - 1) / c.block;
  std::vector<std::int64_t> blocks(static_cast<std::size_t>(bz * by * bx));
  for (auto& b : blocks) b = lab(rng);
  std::vector<std::int64_t> v(static_cast<std::size_t>(c.d * c.h * c.w));
  for (std::int64_t z = 0; z < c.d; ++z)
    for (std::int64_t y = 0; y < c.h; ++y)
      for (std::int64_t x = 0; x < c.w; ++x) {
        const std::int64_t b = ((z / c.block) * by + y / c.block) * bx + x / c.block;
        v[static_cast<std::size_t>((z * c.h + y) * c.w + x)] = u(rng) < c.noise ? lab(rng) : blocks[b];
      }
  return v;
}

TEST(GpuSlicConnectivity, EqualsSequentialPass) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const std::vector<Connectivity> cases = {
      {1, 300, 257, 9, 40, 100000, 1, 0.15},   // 2-D, default-like factors
      {1, 300, 257, 9, 40, 100000, 0, 0.15},   // start_label 0
      {1, 128, 200, 6, 0, 100000, 1, 0.30},    // min_size 0: no merges
      {1, 128, 200, 6, 500, 100000, 1, 0.10},  // large min_size: long merge chains, stranded segments
      {1, 64, 64, 4, 300, 200, 1, 0.05},       // min_size above max_size (a factor case)
      {1, 200, 180, 12, 30, 60, 1, 0.05},      // segments over max_size: the .pyx's cut-off search
      {1, 1, 1000, 7, 5, 100000, 1, 0.20},     // one row
      {12, 40, 50, 5, 20, 100000, 1, 0.15},    // 3-D
      {12, 40, 50, 5, 20, 100000, 0, 0.15},    // 3-D, start_label 0
      {10, 30, 30, 6, 40, 50, 1, 0.05},        // 3-D, segments over max_size
  };
  int k = 0;
  for (const Connectivity& c : cases) {
    std::vector<std::int64_t> host = blocky_labels(c, 1000 + k++);
    const Array in = Array::from_vector(host, {c.d, c.h, c.w});
    Array dev = in.to(Device::cuda(0), s);
    seg::detail::cuda_enforce_label_connectivity(dev, c.d, c.h, c.w, c.min_size, c.max_size, c.start_label, s);
    seg::detail::enforce_label_connectivity(host.data(), c.d, c.h, c.w, c.min_size, c.max_size, c.start_label);
    const Array want = Array::from_vector(host, {c.d, c.h, c.w});
    EXPECT_ARRAY_EQ(want, dev.to(Device::cpu(), s)) << "case " << k - 1;
  }
}

TEST(GpuSlicConnectivity, SlicSizeFactorsAgreeWithCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array host = cusktest::random_array({96, 128, 3}, DType::float64, 5);
  for (auto [lo, hi] : {std::pair{0.5, 3.0}, std::pair{0.9, 1.2}, std::pair{0.0, 0.5}}) {
    const seg::SlicOptions o{.n_segments = 60, .compactness = 10, .min_size_factor = lo, .max_size_factor = hi};
    const Array cpu = seg::slic(host, o);
    const Array gpu = seg::slic(host.to(Device::cuda(0), s), o, s);
    const std::int64_t d = pixels_differing(cpu, gpu);
    std::printf("slic size factors %.1f/%.1f GPU vs CPU: %lld of %lld pixels differ (as partitions)\n", lo, hi,
                static_cast<long long>(d), static_cast<long long>(cpu.size()));
    EXPECT_LE(d, cpu.size() / 50);
  }
}

}  // namespace
