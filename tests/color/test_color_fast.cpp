// The fast float64 paths of rgb2lab and rgb2hsv (issue 7) on the CPU backend, which runs the same
// per-pixel functors as the CUDA kernels (src/color/colorconv.hpp):
// - the cube root (an FP32 seed and an FP64 series) within 0.9 ulp of the exact cube root, over
//   ~10^7 arguments from the Lab range to 2^1023, and +inf;
// - rgb2hsv's uint8 path (Markstein divisions from reciprocal tables) equal to the true divisions
//   for every one of the 2^24 uint8 pixels, and rgb2hsv equal in value to scikit-image 0.26 on
//   every golden input (uint8, uint16, int16, float32, float64 with signed zeros, negatives, huge
//   and infinite values);
// - rgb2lab / xyz2lab within 1e-12 (absolute, the Lab range) of scikit-image on the goldens, and
//   the uint8 path equal to the float64 path bit for bit.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cuskimage/util.hpp"
#include "src/color/colorconv.hpp"
#include "tests/color/color_test_common.hpp"

using namespace colortest;
namespace cd = cuskimage::color::detail;

namespace {

/// |x - cbrt(v)| in units of the last place of the exact result (long double reference).
double ulp_error(double x, double v) {
  const long double ref = cbrtl(static_cast<long double>(v));
  const double r = static_cast<double>(ref);
  const double ulp = std::nextafter(std::abs(r), std::numeric_limits<double>::infinity()) - std::abs(r);
  return static_cast<double>(fabsl(static_cast<long double>(x) - ref)) / ulp;
}

std::string sci(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", x);
  return buf;
}

/// The largest |a - e| over finite pairs.
double max_abs_diff(const Array& expected, const Array& actual) {
  const std::vector<double> e = expected.astype(DType::float64).to_vector<double>();
  const std::vector<double> a = actual.astype(DType::float64).to_vector<double>();
  double worst = 0;
  for (std::size_t i = 0; i < e.size() && i < a.size(); ++i)
    if (std::isfinite(e[i]) && std::isfinite(a[i])) worst = std::max(worst, std::abs(e[i] - a[i]));
  return worst;
}

}  // namespace

TEST(ColorFastCbrt, WithinAnUlpOfTheExactCubeRoot) {
  std::mt19937_64 rng(7);
  double worst = 0;
  std::int64_t n = 0;
  auto check = [&](double v) {
    const double x = cd::cbrt_pos(v);
    worst = std::max(worst, ulp_error(x, v));
    ++n;
  };
  // The range rgb2lab reaches from RGB in [0, 1], densely; then every exponent xyz2lab may see.
  std::uniform_real_distribution<double> lab(0.008856, 1.25);
  for (int i = 0; i < 4000000; ++i) check(lab(rng));
  for (double v = 1.0; v < 8.0; v += 2e-6) check(v);  // one period of the exponent mod 3
  std::uniform_real_distribution<double> expo(-6.8, 1023.9);
  for (int i = 0; i < 2000000; ++i) check(std::exp2(expo(rng)));
  // The ends of cbrt_core's range, the rescaled range beyond it, the largest double.
  for (double v : {0.008856, 0.0088560000000001, 0x1p127, std::nextafter(0x1p127, 0.0), std::nextafter(0x1p127, 1e300),
                   0x1p128, 0x1.fffffep127, 0x1p379, 0x1p631, 0x1p883, 1e300, std::numeric_limits<double>::max()})
    check(v);
  EXPECT_LE(worst, 0.9) << "over " << n << " arguments";
  RecordProperty("cbrt_max_ulp", sci(worst));
  EXPECT_EQ(cd::cbrt_pos(std::numeric_limits<double>::infinity()), std::numeric_limits<double>::infinity());
  // Perfect cubes come out exact.
  for (double c : {0.25, 0.5, 0.75, 1.0, 3.0, 1024.0}) EXPECT_EQ(cd::cbrt_pos(c * c * c), c);
}

TEST(ColorFastHsv, Uint8PathEqualsTheDivisionsForEveryPixel) {
  const cd::RgbToHsvOp op{};
  std::vector<double> tab(2 * 256);
  op.u8_table(tab.data());
  std::int64_t bad = 0;
  for (int r = 0; r < 256; ++r)
    for (int g = 0; g < 256; ++g)
      for (int b = 0; b < 256; ++b) {
        const std::uint8_t px[3] = {static_cast<std::uint8_t>(r), static_cast<std::uint8_t>(g),
                                    static_cast<std::uint8_t>(b)};
        const double x[3] = {tab[r], tab[g], tab[b]};
        double fast[3], host[3], ref[3];
        op.u8_impl<true>(px, tab.data(), fast);  // the device's Markstein divisions
        op.u8(px, tab.data(), host);             // the host's divisions
        op(x, ref);
        if ((std::memcmp(fast, ref, sizeof fast) != 0 || std::memcmp(host, ref, sizeof host) != 0) && bad++ < 5)
          ADD_FAILURE() << "pixel (" << r << ", " << g << ", " << b << "): h " << fast[0] << " / " << host[0] << " vs "
                        << ref[0] << ", s " << fast[1] << " / " << host[1] << " vs " << ref[1];
      }
  EXPECT_EQ(bad, 0);
  // The table values are img_as_float64's.
  const Array all = Array::from_vector(std::vector<std::uint8_t>{0, 1, 127, 128, 254, 255}, {6});
  const std::vector<double> f = cuskimage::util::img_as_float64(all).to_vector<double>();
  for (int i = 0; i < 6; ++i) EXPECT_EQ(tab[all.to_vector<std::uint8_t>()[i]], f[i]);
}

TEST(ColorFastHsv, EqualsScikitImageExactly) {
  for (const std::string c : {"u8_issue7", "f64_issue7", "astro", "f64", "f32", "u16", "vol", "i16", "px"}) {
    SCOPED_TRACE(c);
    const Array in = golden("in_" + c);
    const Array want = golden("rgb2hsv__" + c);
    for (const Array& got : {color::rgb2hsv(in), color::rgb2hsv(strided_twin(in))}) {
      EXPECT_EQ(got.dtype(), want.dtype());
      EXPECT_TRUE(values_equal(want, got));
    }
  }
  // The channel-first golden and a uint8 image against its float64 twin (two paths, one result).
  EXPECT_TRUE(values_equal(golden("rgb2hsv__astro_c0"), color::rgb2hsv(golden("in_astro_c0"), {.channel_axis = 0})));
  const Array u8 = golden("in_u8_issue7");
  EXPECT_ARRAY_EQ(color::rgb2hsv(cuskimage::util::img_as_float64(u8)), color::rgb2hsv(u8));
  // A NaN channel: NumPy's max is NaN, every output 0.
  const Array nan = Array::from_vector(std::vector<double>{0.5, std::nan(""), 0.2, 0.1, 0.9, std::nan("")}, {2, 3});
  EXPECT_ARRAY_EQ(Array::zeros({2, 3}, DType::float64), color::rgb2hsv(nan));
}

TEST(ColorFastLab, WithinTolerancesOfScikitImage) {
  // Lab's range (L <= 100, |a|, |b| <~ 200): 1e-12 absolute where scikit-image's float64 result is
  // itself ~1e-13 from the exact one.
  struct Case {
    std::string golden, input;
    color::IlluminantOptions o;
  };
  const std::vector<Case> cases = {{"rgb2lab__u8_issue7", "in_u8_issue7", {}},
                                   {"rgb2lab__u8_issue7_D50_10", "in_u8_issue7", {.illuminant = "D50", .observer = "10"}},
                                   {"rgb2lab__astro", "in_astro", {}},
                                   {"rgb2lab__f64", "in_f64", {}},
                                   {"rgb2lab__u16", "in_u16", {}},
                                   {"rgb2lab__vol", "in_vol", {}},
                                   {"rgb2lab__i16", "in_i16", {}},
                                   {"rgb2lab__D50_10", "in_f64", {.illuminant = "D50", .observer = "10"}},
                                   {"rgb2lab__A_R", "in_f64", {.illuminant = "A", .observer = "R"}}};
  double worst = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.golden);
    const Array got = color::rgb2lab(golden(c.input), c.o);
    EXPECT_EQ(got.dtype(), DType::float64);
    EXPECT_ARRAY_NEAR(golden(c.golden), got, 0, 1e-12);
    worst = std::max(worst, max_abs_diff(golden(c.golden), got));
  }
  RecordProperty("lab_max_abs_error", sci(worst));
  // Edge inputs (signed zeros, negatives, tiny, 1e3..1e100 so xyz reaches 1e240): relative.
  const Array f64 = golden("in_f64_issue7").slice({Slice{1, std::nullopt, 1}});
  EXPECT_ARRAY_NEAR(golden("rgb2lab__f64_issue7"), color::rgb2lab(f64), 1e-13, 1e-12);
  EXPECT_ARRAY_NEAR(golden("xyz2lab__xyz_issue7"), color::xyz2lab(golden("in_xyz_issue7")), 1e-13, 1e-12);
  // float32 keeps float32 (scikit-image's dtype rule) within the float tolerances.
  EXPECT_COLOR_NEAR(golden("rgb2lab__f32"), color::rgb2lab(golden("in_f32")));
}

TEST(ColorFastLab, Uint8PathEqualsTheFloat64Path) {
  // uint8 reads the linearised values from a table and skips the cube root's range test; the
  // float64 path linearises per element with the same host pow: the same bits.
  const Array u8 = golden("in_u8_issue7");
  const Array f = cuskimage::util::img_as_float64(u8);
  EXPECT_ARRAY_EQ(color::rgb2lab(f), color::rgb2lab(u8));
  EXPECT_ARRAY_EQ(color::rgb2lab(f, {.illuminant = "A", .observer = "10"}),
                  color::rgb2lab(u8, {.illuminant = "A", .observer = "10"}));
  const Array strided = strided_twin(u8);
  EXPECT_ARRAY_EQ(color::rgb2lab(u8), color::rgb2lab(strided));
}

TEST(ColorFastConvert, UnsignedUnitIsImgAsFloatForEveryValue) {
  // uint8 / uint16 -> float64 from the bits of 2^52 + x (the host's subtract-and-multiply; the
  // device's single FMA is checked against it in the GPU tier): ImgConvert's RN(x * (1 / max)).
  namespace ud = cuskimage::util::detail;
  for (int v = 0; v < 256; ++v) {
    const auto x = static_cast<std::uint8_t>(v);
    ASSERT_EQ(ud::bits_of(cd::unsigned_unit(x)), ud::bits_of(ud::ImgConvert<std::uint8_t, double>{}(x))) << v;
    ASSERT_EQ(cd::unsigned_unit(x), static_cast<double>(v) * (1.0 / 255.0)) << v;
  }
  for (int v = 0; v < 65536; ++v) {
    const auto x = static_cast<std::uint16_t>(v);
    ASSERT_EQ(ud::bits_of(cd::unsigned_unit(x)), ud::bits_of(ud::ImgConvert<std::uint16_t, double>{}(x))) << v;
  }
  // The public conversion agrees (img_as_float64 on the CPU backend).
  std::vector<std::uint8_t> all(256);
  for (int v = 0; v < 256; ++v) all[v] = static_cast<std::uint8_t>(v);
  const std::vector<double> f = cuskimage::util::img_as_float64(Array::from_vector(all, {256})).to_vector<double>();
  for (int v = 0; v < 256; ++v) ASSERT_EQ(ud::bits_of(f[v]), ud::bits_of(cd::unsigned_unit(all[v]))) << v;
}

TEST(ColorFastConvert, GrayAndStainsFromUint8EqualTheFloat64Path) {
  // rgb2gray converts bytes with unsigned_unit, rgb2hed reads its host-built log table: both equal
  // the float64 path on img_as_float's values bit for bit (the same functor after the load), and
  // np.maximum(rgb, 1e-6) and np.maximum(stains, 0) keep NaN, and negatives and -0 become +0.
  const Array u8 = golden("in_u8_issue7");
  const Array f = cuskimage::util::img_as_float64(u8);
  EXPECT_ARRAY_EQ(color::rgb2gray(f), color::rgb2gray(u8));
  EXPECT_ARRAY_EQ(color::rgb2hed(f), color::rgb2hed(u8));
  EXPECT_ARRAY_EQ(color::rgb2ycbcr(f), color::rgb2ycbcr(u8));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Array odd = Array::from_vector(std::vector<double>{nan, 0.5, 0.5, -0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 0.2, 0.9, 0.1},
                                       {4, 3});
  const std::vector<double> hed = color::rgb2hed(odd).to_vector<double>();
  for (int c = 0; c < 3; ++c) EXPECT_TRUE(std::isnan(hed[c])) << c;  // NaN propagates through log and the product
  for (std::size_t i = 3; i < hed.size(); ++i) {
    EXPECT_GE(hed[i], 0.0) << i;
    EXPECT_FALSE(std::signbit(hed[i])) << i;  // maximum(-0 or negative, 0) is +0 here
  }
}
