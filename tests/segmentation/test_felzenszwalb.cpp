// segmentation.felzenszwalb against scikit-image 0.26's goldens (tests/golden/cases_segmentation_superpixels.py):
// grey and RGB, float and uint8, sigma 0 and above, small and large scale and min_size,
// channel_axis first; bad arguments; then the GPU tier.
//
// CPU backend: equal to scikit-image. Edges of equal weight are taken in (weight, index) order;
// scikit-image takes them in numpy's argsort order (unstable, CPU-dependent); the float goldens have
// no ties, and the uint8 astronaut's ties do not change its result. GPU backend: the same weights
// and the same stable order (CUB radix sort), the same host merge: equal to the CPU backend exactly.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/segmentation.hpp"
#include "tests/common/test_support.hpp"
#include "tests/segmentation/superpixels_support.hpp"

namespace {

using namespace superpixels_test;  // NOLINT(google-build-using-namespace)
using Case = superpixels_test::Case<seg::FelzenszwalbOptions>;

const std::vector<Case> kCases = {
    {"fz_grey", "g2", {.scale = 1, .sigma = 0.8, .min_size = 20}},
    {"fz_grey_scale", "g2", {.scale = 50, .sigma = 0.5, .min_size = 5}},
    {"fz_grey_nosmooth", "g2", {.scale = 10, .sigma = 0, .min_size = 1}},
    {"fz_rgb_float", "frgb", {.scale = 100, .sigma = 1.0, .min_size = 10}},
    {"fz_rgb_float_big", "frgb", {.scale = 400, .sigma = 0.8, .min_size = 50}},
    {"fz_astro", "rgb", {.scale = 100, .sigma = 0.5, .min_size = 15}},
    {"fz_astro_default", "rgb", {}},
    {"fz_two_channel_first", "c2", {.scale = 30, .sigma = 0.7, .min_size = 8, .channel_axis = 0}},
};

TEST(Felzenszwalb, MatchesScikitImage) {
  for (const Case& k : kCases) {
    SCOPED_TRACE(k.name);
    const Array got = seg::felzenszwalb(golden("in_" + k.image), k.opts);
    EXPECT_EQ(got.dtype(), DType::int64);
    EXPECT_ARRAY_EQ(golden(k.name).astype(DType::int64), got);
  }
}

TEST(Felzenszwalb, StridedInputEqualsContiguous) {
  const Array img = golden("in_rgb");
  const Array strided = img.slice({{std::nullopt, std::nullopt, 2}, {1, std::nullopt, 3}});
  EXPECT_ARRAY_EQ(seg::felzenszwalb(strided.copy(), {.scale = 50}), seg::felzenszwalb(strided, {.scale = 50}));
}

TEST(Felzenszwalb, BadArgumentsRaiseInvalidArgument) {
  EXPECT_THROW(seg::felzenszwalb(golden("in_g2"), {.sigma = -1}), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::felzenszwalb(golden("in_g3"), {.channel_axis = std::nullopt}), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::felzenszwalb(golden("in_v3c")), cuskimage::InvalidArgument);  // 4-D
  EXPECT_THROW(seg::felzenszwalb(golden("in_rgb"), {.channel_axis = 3}), cuskimage::InvalidArgument);
  EXPECT_THROW(seg::felzenszwalb(Array::zeros({0, 5}, DType::float64)), cuskimage::InvalidArgument);
}

TEST(GpuFelzenszwalb, EqualsCpuOnGoldensRandomStridedNonDefaultStream) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  for (const Case& k : kCases) {
    const Array in = golden("in_" + k.image);
    EXPECT_ARRAY_EQ(seg::felzenszwalb(in, k.opts), seg::felzenszwalb(in.to(Device::cuda(0), s), k.opts, s)) << k.name;
  }
  const Array host = cusktest::random_array({300, 257, 3}, DType::uint8, 7);
  const Array view = host.slice({{std::nullopt, std::nullopt, 2}});
  const Array dev = host.to(Device::cuda(0), s).slice({{std::nullopt, std::nullopt, 2}});
  EXPECT_ARRAY_EQ(seg::felzenszwalb(view, {.scale = 200}), seg::felzenszwalb(dev, {.scale = 200}, s));
}

TEST(GpuFelzenszwalb, RunsWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array img = golden("in_rgb").to(Device::cuda(0));
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) { (void)seg::felzenszwalb(img, {}, s); }));
}

}  // namespace
