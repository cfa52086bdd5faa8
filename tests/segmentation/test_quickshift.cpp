// segmentation.quickshift against scikit-image 0.26's goldens (tests/golden/cases_segmentation_superpixels.py):
// RGB with and without Lab, float32 and float64, greyscale, channel_axis first, sigma, several seeds,
// and return_tree's parent and distance arrays; bad arguments; then the GPU tier.
//
// CPU backend: labels equal to scikit-image's for the same seed (numpy's PCG64 and ziggurat normal
// reproduced; the ziggurat tables agree with numpy's to ~1e-15 relative, which moves no density
// comparison here). GPU backend: the device exp may differ from glibc's by an ulp; the GPU tier
// measures the pixels whose label differs from the CPU backend and asserts at most 0.5 %.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/segmentation.hpp"
#include "tests/common/test_support.hpp"
#include "tests/segmentation/superpixels_support.hpp"

namespace {

using namespace superpixels_test;  // NOLINT(google-build-using-namespace)
using Case = superpixels_test::Case<seg::QuickshiftOptions>;

const std::vector<Case> kCases = {
    {"qs_astro", "rgb", {}},
    {"qs_astro_small", "rgb", {.ratio = 0.5, .kernel_size = 3, .max_dist = 6, .sigma = 1.0, .rng = 7}},
    {"qs_rgb_float_nolab", "frgb", {.ratio = 1.0, .kernel_size = 2, .max_dist = 0.5, .convert2lab = false, .rng = 3}},
    {"qs_rgb_f32", "frgb32", {.kernel_size = 2.5, .max_dist = 20, .rng = 11}},
    {"qs_grey", "g2", {.kernel_size = 2, .max_dist = 3, .convert2lab = false, .rng = 0}},
    {"qs_two_channel_first", "c2", {.kernel_size = 2, .max_dist = 4, .convert2lab = false, .channel_axis = 0}},
};

TEST(Quickshift, MatchesScikitImage) {
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.name);
    const Array got = seg::quickshift(golden("in_" + k.image), k.opts);
    EXPECT_EQ(got.dtype(), DType::int64);
    EXPECT_ARRAY_EQ(golden(k.name).astype(DType::int64), got);
  }
}

TEST(Quickshift, TreeMatchesScikitImage) {
  const auto t =
      seg::quickshift_tree(golden("in_rgb"), {.ratio = 0.5, .kernel_size = 3, .max_dist = 6, .sigma = 1.0, .rng = 7});
  EXPECT_ARRAY_EQ(golden("qs_astro_small").astype(DType::int64), t.labels);
  EXPECT_ARRAY_EQ(golden("qs_tree_parent").astype(DType::int64), t.parent);
  // The library's Lab conversion and Gaussian round a few ulps away from scikit-image's, so the
  // distances agree to 1e-13 relative; the comparisons they feed come out the same here.
  EXPECT_ARRAY_NEAR(golden("qs_tree_dist"), t.dist_parent, 1e-13, 0);
}

TEST(Quickshift, BadArgumentsRaiseInvalidArgument) {
  EXPECT_THROW(seg::quickshift(golden("in_rgb"), {.kernel_size = 0.5}), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::quickshift(golden("in_g2")), cuskimage::InvalidArgument);   // Lab needs RGB
  EXPECT_THROW(seg::quickshift(golden("in_v3c")), cuskimage::InvalidArgument);  // 4-D
  EXPECT_THROW(seg::quickshift(golden("in_rgb"), {.sigma = -1}), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::quickshift(Array::zeros({4, 0, 3}, DType::float64)), cuskimage::InvalidArgument);
}

TEST(GpuQuickshift, AgreesWithCpuOnGoldensRandomStridedNonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const Case& k : kCases) {
    const Array in = golden("in_" + k.image);
    const Array cpu = seg::quickshift(in, k.opts), gpu = seg::quickshift(in.to(Device::cuda(0), s), k.opts, s);
    const std::int64_t d = pixels_differing(cpu, gpu);
    std::printf("quickshift %-22s GPU vs CPU: %lld of %lld pixels differ (as partitions)\n", k.name.c_str(),
                static_cast<long long>(d), static_cast<long long>(cpu.size()));
    EXPECT_LE(d * 200, cpu.size()) << k.name;
  }
  const Array host = cusktest::random_array({160, 130, 3}, DType::uint8, 5);
  const Array view = host.slice({{std::nullopt, std::nullopt, 2}});
  const Array dev = host.to(Device::cuda(0), s).slice({{std::nullopt, std::nullopt, 2}});
  const seg::QuickshiftOptions o{.kernel_size = 3, .max_dist = 8};
  const std::int64_t d = pixels_differing(seg::quickshift(view, o), seg::quickshift(dev, o, s));
  std::printf("quickshift random RGB 80x130 (strided rows): %lld of %lld pixels differ (as partitions)\n",
              static_cast<long long>(d), static_cast<long long>(view.shape(0) * view.shape(1)));
  EXPECT_LE(d * 200, view.shape(0) * view.shape(1));
}

TEST(GpuQuickshift, RunsWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array img = golden("in_rgb").to(Device::cuda(0));
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) { (void)seg::quickshift(img, {}, s); }));
}

}  // namespace
