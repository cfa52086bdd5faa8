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
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/segmentation.hpp"
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

}  // namespace
