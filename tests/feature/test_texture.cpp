// local_binary_pattern, multiblock_lbp, draw_multiblock_lbp, graycomatrix and graycoprops against
// scikit-image 0.26's goldens (tests/golden/cases_feature_texture.py): LBP images, co-occurrence
// matrices and MB-LBP codes exactly; graycoprops within 1e-12 relative (summation order); drawings
// within 1e-15 (float64) / exactly (float32). Then bad arguments and the GPU tier (device == CPU
// bit for bit on fresh inputs, strided views, a non-default stream).
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

Array golden(const std::string& name) { return cusktest::load_golden("feature_texture/" + name + ".npy"); }

struct LbpCase {
  const char* img;
  int P;
  double R;
  const char* tag;
};
constexpr LbpCase kLbp[] = {{"u8", 8, 1, "1"}, {"u8", 16, 2, "2"}, {"f64", 12, 2.5, "2.5"}, {"u16", 8, 3, "3"},
                            {"i32", 6, 1, "1"}};
constexpr const char* kMethods[] = {"default", "ror", "uniform", "nri_uniform", "var"};
const char* const kImages[] = {"u8", "f64", "u16", "i32", "q8"};
constexpr const char* kProps[] = {"contrast", "dissimilarity", "homogeneity", "energy", "correlation",
                                  "ASM",      "mean",          "variance",    "std",    "entropy"};

void lbp_goldens(const Device& dev, const Stream& s) {
  for (const auto& c : kLbp)
    for (const char* m : kMethods) {
      const std::string name = std::string("lbp_") + c.img + "_" + std::to_string(c.P) + "_" + c.tag + "_" + m;
      SCOPED_TRACE(name);
      const Array img = golden(std::string("img_") + c.img).to(dev, s);
      const auto method = *cuskimage::meta::enum_from_name<ft::LbpMethod>(m);
      const Array got = ft::local_binary_pattern(img, c.P, c.R, {.method = method}, s);
      EXPECT_EQ(got.device(), dev);
      EXPECT_ARRAY_EQ(golden(name), cusktest::host_copy(got));
    }
}

void glcm_goldens(const Device& dev, const Stream& s) {
  const auto n = golden("nglcm").to_vector<std::int64_t>()[0];
  ASSERT_EQ(n, 7);
  for (int k = 0; k < n; ++k) {
    SCOPED_TRACE("glcm " + std::to_string(k));
    const auto p = golden("glcmp_" + std::to_string(k)).to_vector<std::int64_t>();
    const Array img = golden(std::string("img_") + kImages[p[0]]).to(dev, s);
    ft::GraycomatrixOptions o{.symmetric = p[2] != 0, .normed = p[3] != 0};
    if (p[1] > 0) o.levels = p[1];
    const Array P = ft::graycomatrix(img, golden("glcmd_" + std::to_string(k)).to_vector<double>(),
                                     golden("glcma_" + std::to_string(k)).to_vector<double>(), o, s);
    EXPECT_EQ(P.device(), dev);
    EXPECT_ARRAY_EQ(golden("glcm_" + std::to_string(k)), cusktest::host_copy(P));
    if (k != 1 && k != 3 && k != 5) continue;
    for (const char* prop : kProps) {
      SCOPED_TRACE(prop);
      const Array want = golden("props_" + std::to_string(k) + "_" + prop);
      EXPECT_ARRAY_NEAR(want, cusktest::host_copy(ft::graycoprops(P, std::string(prop), s)), 1e-12, 1e-14);
    }
  }
}

TEST(FeatureTexture, LbpGoldens) { lbp_goldens(Device::cpu(), Stream()); }
TEST(FeatureTexture, GlcmGoldens) { glcm_goldens(Device::cpu(), Stream()); }

TEST(FeatureTexture, MultiblockLbpGoldens) {
  // transform.integral_image of the uint8 image: cumulative sums in uint64 (the image's kind).
  const auto u8 = golden("img_u8").to_vector<std::uint8_t>();
  std::vector<double> ii(u8.size());
  for (int r = 0; r < 64; ++r)
    for (int c = 0; c < 64; ++c)
      ii[r * 64 + c] = u8[r * 64 + c] + (r ? ii[(r - 1) * 64 + c] : 0) + (c ? ii[r * 64 + c - 1] : 0) -
                       (r && c ? ii[(r - 1) * 64 + c - 1] : 0);
  const Array sat = Array::from_vector(ii, {64, 64});
  const auto args = golden("mblbp_args").to_vector<std::int64_t>();
  const auto want = golden("mblbp").to_vector<std::int64_t>();
  for (std::size_t k = 0; k < want.size(); ++k)
    EXPECT_EQ(ft::multiblock_lbp(sat, args[4 * k], args[4 * k + 1], args[4 * k + 2], args[4 * k + 3]), want[k]) << k;
}

TEST(FeatureTexture, DrawMultiblockLbpGoldens) {
  for (int k = 0; k < 3; ++k) {
    SCOPED_TRACE(k);
    const auto a = golden("draw_args_" + std::to_string(k)).to_vector<double>();
    Array img = golden("img_u8");
    if (k == 1) {  // the float32 image the cases make: (u8 / 255.0).astype(float32)
      std::vector<float> f;
      for (auto v : img.to_vector<std::uint8_t>()) f.push_back(static_cast<float>(v / 255.0));
      img = Array::from_vector(f, img.shape());
    }
    const ft::DrawMultiblockLbpOptions o{.lbp_code = static_cast<std::int64_t>(a[4]),
                                         .color_greater_block = {a[5], a[6], a[7]},
                                         .color_less_block = {a[8], a[9], a[10]},
                                         .alpha = a[11]};
    const Array got = ft::draw_multiblock_lbp(img, static_cast<std::int64_t>(a[0]), static_cast<std::int64_t>(a[1]),
                                              static_cast<std::int64_t>(a[2]), static_cast<std::int64_t>(a[3]), o);
    EXPECT_ARRAY_EQ(golden("draw_" + std::to_string(k)), got);
  }
}

TEST(FeatureTexture, BadArguments) {
  using cuskimage::InvalidArgument;
  const Array img = cusktest::random_array({16, 16}, DType::uint8, 3);
  EXPECT_THROW(ft::local_binary_pattern(img, 0, 1), InvalidArgument);
  EXPECT_THROW(ft::local_binary_pattern(img, 8, 0), InvalidArgument);
  EXPECT_THROW(ft::local_binary_pattern(img, 8, -1), InvalidArgument);
  EXPECT_THROW(ft::local_binary_pattern(Array::zeros({4, 4, 4}, DType::uint8), 8, 1), InvalidArgument);
  EXPECT_THROW(ft::graycomatrix(Array::zeros({4, 4}, DType::float32), {1}, {0}), InvalidArgument);
  EXPECT_THROW(ft::graycomatrix(Array::zeros({4, 4}, DType::uint16), {1}, {0}), InvalidArgument);  // no levels
  EXPECT_THROW(ft::graycomatrix(img, {1}, {0}, {.levels = 100}), InvalidArgument);  // values >= levels
  EXPECT_THROW(ft::graycomatrix(Array::full({4, 4}, -1, DType::int16), {1}, {0}, {.levels = 8}), InvalidArgument);
  EXPECT_THROW(ft::graycomatrix(Array::zeros({4, 4, 2}, DType::uint8), {1}, {0}), InvalidArgument);
  EXPECT_THROW(ft::graycomatrix(Array::zeros({4, 4}, DType::uint16), {1}, {0}, {.levels = 70000}), InvalidArgument);
  EXPECT_THROW(ft::graycoprops(Array::zeros({4, 5, 1, 1}, DType::uint32)), InvalidArgument);
  EXPECT_THROW(ft::graycoprops(Array::zeros({4, 4, 1}, DType::uint32)), InvalidArgument);
  EXPECT_THROW(ft::graycoprops(Array::zeros({4, 4, 1, 1}, DType::uint32), std::string("bogus")), InvalidArgument);
  const Array sat = Array::zeros({10, 10}, DType::float64);
  EXPECT_THROW(ft::multiblock_lbp(sat, 2, 2, 3, 3), InvalidArgument);  // grid 9x9 from (2, 2) leaves the image
  EXPECT_THROW(ft::multiblock_lbp(sat, 0, 0, 0, 3), InvalidArgument);
  EXPECT_THROW(ft::draw_multiblock_lbp(Array::zeros({4, 4, 4}, DType::uint8), 0, 0, 1, 1), InvalidArgument);
}

// ---- GPU tier ------------------------------------------------------------------------------------------

TEST(GpuFeatureTexture, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  lbp_goldens(Device::cuda(), s);
  glcm_goldens(Device::cuda(), s);
}

TEST(GpuFeatureTexture, MultiblockOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array sat = cusktest::random_array({40, 50}, DType::float64, 8, 0, 1000);
  const Array d = sat.to(Device::cuda(), s);
  EXPECT_EQ(ft::multiblock_lbp(sat, 2, 3, 4, 5), ft::multiblock_lbp(d, 2, 3, 4, 5, s));
  const Array img = cusktest::random_array({30, 31}, DType::uint8, 9);
  const Array got = ft::draw_multiblock_lbp(img.to(Device::cuda(), s), 1, 2, 3, 4, {.lbp_code = 77}, s);
  EXPECT_EQ(got.device(), Device::cuda());
  EXPECT_ARRAY_EQ(ft::draw_multiblock_lbp(img, 1, 2, 3, 4, {.lbp_code = 77}), cusktest::host_copy(got));
}

TEST(GpuFeatureTexture, LbpMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 70;
  for (DType dt : {DType::uint8, DType::float32, DType::int16})
    for (const Shape& shape : {Shape{257, 300}, Shape{64, 1}}) {
      const Array h = cusktest::random_array(shape, dt, seed++, 0, 40);
      const Array d = h.to(Device::cuda(), s);
      for (int P : {8, 24, 70})
        for (const char* m : kMethods) {
          SCOPED_TRACE(std::string(m) + " P=" + std::to_string(P));
          const ft::LocalBinaryPatternOptions o{.method = *cuskimage::meta::enum_from_name<ft::LbpMethod>(m)};
          EXPECT_ARRAY_EQ(ft::local_binary_pattern(h, P, 2.7, o), cusktest::host_copy(ft::local_binary_pattern(d, P, 2.7, o, s)));
        }
      const Array hv = h.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -1}});
      const Array dv = d.slice({Slice{1, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -1}});
      EXPECT_ARRAY_EQ(ft::local_binary_pattern(hv, 8, 1), cusktest::host_copy(ft::local_binary_pattern(dv, 8, 1, {}, s)));
    }
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([](const Stream& st) {
    const Array d = cusktest::random_array({128, 128}, DType::uint8, 9).to(Device::cuda(), st);
    (void)ft::local_binary_pattern(d, 8, 1, {}, st);
  }));
}

TEST(GpuFeatureTexture, GlcmMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const std::vector<double> dist{1, 3, 10}, ang{0, std::numbers::pi / 4, std::numbers::pi / 2, 2.5};
  std::uint64_t seed = 90;
  // levels 16 (uint32 shared bins), 256 (packed 16-bit shared bins), 1000 and 4096 (global atomics).
  for (std::int64_t levels : {16, 256, 1000, 4096}) {
    const DType dt = levels <= 256 ? DType::uint8 : (levels == 1000 ? DType::int32 : DType::uint16);
    const Shape shape = levels == 4096 ? Shape{64, 80} : Shape{700, 523};
    const Array h = cusktest::random_array(shape, dt, seed++, 0, static_cast<double>(levels - 1));
    const Array d = h.to(Device::cuda(), s);
    const std::vector<double> dd = levels == 4096 ? std::vector<double>{1} : dist;
    const std::vector<double> aa = levels == 4096 ? std::vector<double>{0} : ang;
    for (bool sym : {false, true})
      for (bool normed : {false, true}) {
        if (levels == 4096 && sym) continue;  // 64 MiB matrices: one each
        SCOPED_TRACE(std::to_string(levels) + (sym ? " sym" : "") + (normed ? " normed" : ""));
        const ft::GraycomatrixOptions o{.levels = levels, .symmetric = sym, .normed = normed};
        EXPECT_ARRAY_EQ(ft::graycomatrix(h, dd, aa, o), cusktest::host_copy(ft::graycomatrix(d, dd, aa, o, s)));
      }
    if (levels == 256) {
      const Array hv = h.slice({Slice{std::nullopt, std::nullopt, 3}, Slice{5, std::nullopt}});
      const Array dv = d.slice({Slice{std::nullopt, std::nullopt, 3}, Slice{5, std::nullopt}});
      EXPECT_ARRAY_EQ(ft::graycomatrix(hv, dist, ang), cusktest::host_copy(ft::graycomatrix(dv, dist, ang, {}, s)));
      const Array P = ft::graycomatrix(h, dist, ang);
      EXPECT_ARRAY_EQ(ft::graycoprops(P, ft::GlcmProp::correlation),
                      cusktest::host_copy(ft::graycoprops(P.to(Device::cuda(), s), ft::GlcmProp::correlation, s)));
    }
  }
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([](const Stream& st) {
    const Array d = cusktest::random_array({128, 128}, DType::uint8, 9).to(Device::cuda(), st);
    (void)ft::graycomatrix(d, {1}, {0}, {.symmetric = true, .normed = true}, st);
  }));
}

}  // namespace
