// GPU tier of the color tests: every pixel conversion on device arrays equals the CPU backend on
// fresh random inputs (uint8, uint16, int16, float32, float64; 2-D, 3-D, one pixel, tile tails;
// contiguous, strided and channel_axis views), deltaE and label2rgb likewise, goldens on the
// device, and a non-default stream with the legacy default stream held busy. GpuColorFast: issue
// 7's rgb2lab / rgb2hsv / xyz2lab float64 paths byte for byte against the CPU.
//
// Device and host libm differ in the last bits of pow/cbrt/log/atan2 and nvcc contracts a*b+c
// into FMAs, so float results are compared with the golden tolerances (float64 1e-12 relative +
// 1e-10 absolute, float32 1e-5 + 2e-4: Lab's a = 500 (fx - fy) scales an ulp of fx by 500);
// integer results (gray2rgb, label2rgb avg on uint8) are exact.
#include <limits>
#include <random>

#include "cuskimage/tuning.hpp"
#include "tests/color/color_test_common.hpp"

using namespace colortest;

namespace {

Array dev(const Array& h, const Stream& s = {}) { return h.to(Device::cuda(), s); }

#define EXPECT_DEVICE_MATCHES(cpu, gpu)                                                        \
  do {                                                                                        \
    const ::cuskimage::Array& c_ = (cpu);                                                    \
    const ::cuskimage::Array& g_ = (gpu);                                                    \
    EXPECT_EQ(c_.dtype(), g_.dtype());                                                       \
    EXPECT_TRUE(g_.device().is_cuda());                                                      \
    const bool f32_ = c_.dtype() == ::cuskimage::DType::float32;                              \
    EXPECT_TRUE(::cusktest::arrays_close(c_, g_, f32_ ? 1e-5 : 1e-12, f32_ ? 2e-4 : 1e-10));  \
  } while (0)

/// A valid random input of `fn` in dtype `dt` (forward functions: RGB in [0, 1]; inverses: the
/// forward function's output on such RGB, cast).
Array input_for(const std::string& fn, const Shape& shape, DType dt, std::uint64_t seed) {
  if (dt != DType::float32 && dt != DType::float64) return cusktest::random_array(shape, dt, seed);
  const Array rgb = cusktest::random_array(shape, DType::float64, seed, 0, 1);
  static const std::map<std::string, std::string> fwd = {
      {"hsv2rgb", "rgb2hsv"},   {"xyz2rgb", "rgb2xyz"},     {"rgbcie2rgb", "rgb2rgbcie"}, {"lab2rgb", "rgb2lab"},
      {"luv2rgb", "rgb2luv"},   {"hed2rgb", "rgb2hed"},     {"yuv2rgb", "rgb2yuv"},       {"yiq2rgb", "rgb2yiq"},
      {"ypbpr2rgb", "rgb2ypbpr"}, {"ycbcr2rgb", "rgb2ycbcr"}, {"ydbdr2rgb", "rgb2ydbdr"},  {"xyz2lab", "rgb2xyz"},
      {"lab2xyz", "rgb2lab"},   {"xyz2luv", "rgb2xyz"},     {"luv2xyz", "rgb2luv"},       {"lab2lch", "rgb2lab"},
      {"lch2lab", "rgb2lab"}};
  const auto it = fwd.find(fn);
  Array src = it == fwd.end() ? rgb.share() : conversions().at(it->second)(rgb, -1, {});
  if (fn == "lch2lab") src = color::lab2lch(src);
  return dt == DType::float64 ? std::move(src) : src.astype(dt);
}

const std::vector<Shape>& shapes() {
  // 2-D, odd sizes across several 1024-pixel tiles with a tail, 3-D, one pixel, a single row.
  static const std::vector<Shape> s = {{37, 61, 3}, {5, 7, 9, 3}, {3}, {1, 1031, 3}};
  return s;
}

}  // namespace

TEST(GpuColorConv, EveryConversionMatchesCpu) {
  CUSK_REQUIRE_GPU();
  std::uint64_t seed = 10;
  for (const auto& [fn, conv] : conversions()) {
    for (DType dt : {DType::uint8, DType::uint16, DType::int16, DType::float32, DType::float64}) {
      for (const Shape& shape : shapes()) {
        SCOPED_TRACE(fn + " " + std::string(cuskimage::dtype_name(dt)) + " " + cuskimage::shape_str(shape));
        const Array h = input_for(fn, shape, dt, seed++);
        EXPECT_DEVICE_MATCHES(conv(h, -1, {}), conv(dev(h), -1, {}));
      }
    }
  }
}

TEST(GpuColorConv, ManyTilesEveryLaunchClass) {
  // More tiles than one wave of blocks holds, with a partial last tile: the light ops (one tile per
  // block: rgb2gray, rgb2hed / rgb2xyz from uint8, the matrices) and the heavy ones (a persistent
  // wave), from uint8, uint16 and float32, and rgba2rgb.
  CUSK_REQUIRE_GPU();
  std::uint64_t seed = 300;
  for (const std::string& fn : from_rgb()) {
    for (DType dt : {DType::uint8, DType::uint16, DType::float32}) {
      SCOPED_TRACE(fn + " " + std::string(cuskimage::dtype_name(dt)));
      const Array h = input_for(fn, {1201, 1001, 3}, dt, seed++);
      EXPECT_DEVICE_MATCHES(conversions().at(fn)(h, -1, {}), conversions().at(fn)(dev(h), -1, {}));
    }
  }
  const Array rgba = cusktest::random_array({999, 1001, 4}, DType::uint8, seed++);
  EXPECT_DEVICE_MATCHES(color::rgba2rgb(rgba), color::rgba2rgb(dev(rgba)));
}

TEST(GpuColorConv, EveryGridPolicyMatchesCpu) {
  // Each grid forced through tuning::set_color_policy for every op (heavy ops one tile per block,
  // light ops persistent), more tiles than a wave, a partial last tile.
  CUSK_REQUIRE_GPU();
  namespace tuning = cuskimage::tuning;
  std::uint64_t seed = 400;
  for (tuning::ColorGrid grid : {tuning::ColorGrid::one_tile_per_block, tuning::ColorGrid::persistent}) {
    const tuning::ColorPolicy old = tuning::set_color_policy({grid});
    for (const std::string& fn : from_rgb()) {
      for (DType dt : {DType::uint8, DType::float32}) {
        SCOPED_TRACE(fn + " " + std::string(cuskimage::dtype_name(dt)) + " grid " + std::to_string(int(grid)));
        const Array h = input_for(fn, {601, 1001, 3}, dt, seed++);
        EXPECT_DEVICE_MATCHES(conversions().at(fn)(h, -1, {}), conversions().at(fn)(dev(h), -1, {}));
      }
    }
    tuning::set_color_policy(old);
  }
}

TEST(GpuColorConv, StridedAndChannelAxisViews) {
  CUSK_REQUIRE_GPU();
  std::uint64_t seed = 500;
  for (const auto& [fn, conv] : conversions()) {
    for (DType dt : {DType::uint8, DType::float32, DType::float64}) {
      SCOPED_TRACE(fn + " " + std::string(cuskimage::dtype_name(dt)));
      const Array h = input_for(fn, {40, 50, 3}, dt, seed++);
      const Array d = dev(h);
      // A crop with steps (strided pixels) and the channels reversed (negative channel stride).
      const std::initializer_list<Slice> crop = {Slice{3, 37, 2}, Slice{1, 50, 3}, Slice{std::nullopt, std::nullopt, -1}};
      EXPECT_DEVICE_MATCHES(conv(h.slice(crop), -1, {}), conv(d.slice(crop), -1, {}));
      // Channels first.
      EXPECT_DEVICE_MATCHES(conv(h.transpose({2, 0, 1}), 0, {}), conv(d.transpose({2, 0, 1}), 0, {}));
      // An unaligned contiguous start (one pixel in) falls back to the strided kernel.
      const std::initializer_list<Slice> shift = {Slice{1, std::nullopt, 1}};
      EXPECT_DEVICE_MATCHES(conv(h.slice(shift), -1, {}), conv(d.slice(shift), -1, {}));
    }
  }
}

TEST(GpuColorConv, OtherOpsMatchCpu) {
  CUSK_REQUIRE_GPU();
  const Array rgba = cusktest::random_array({33, 47, 4}, DType::uint8, 1);
  EXPECT_DEVICE_MATCHES(color::rgba2rgb(rgba, {.background = {0.1, 0.2, 0.3}}),
                        color::rgba2rgb(dev(rgba), {.background = {0.1, 0.2, 0.3}}));
  const Array rgba32 = cusktest::random_array({3, 4, 5, 4}, DType::float32, 2);
  EXPECT_DEVICE_MATCHES(color::rgba2rgb(rgba32), color::rgba2rgb(dev(rgba32)));
  const Array rgb = cusktest::random_array({29, 31, 3}, DType::float64, 3);
  const Array st = cusktest::random_array({29, 31, 3}, DType::float64, 4, 0, 0.4);
  for (const color::Matrix3& m : {color::hdx_from_rgb, color::bro_from_rgb, color::ahx_from_rgb})
    EXPECT_DEVICE_MATCHES(color::separate_stains(rgb, m), color::separate_stains(dev(rgb), m));
  EXPECT_DEVICE_MATCHES(color::combine_stains(st, color::rgb_from_fgx), color::combine_stains(dev(st), color::rgb_from_fgx));
  const Array lab4 = color::lab2lch(cusktest::random_array({9, 10, 5}, DType::float64, 5, -50, 80));
  EXPECT_DEVICE_MATCHES(color::lab2lch(lab4), color::lab2lch(dev(lab4)));
  EXPECT_DEVICE_MATCHES(color::lch2lab(lab4), color::lch2lab(dev(lab4)));
  for (auto [ill, ob] : {std::pair{"D50", "10"}, {"A", "R"}}) {
    const color::IlluminantOptions o{.illuminant = ill, .observer = ob};
    EXPECT_DEVICE_MATCHES(color::rgb2lab(rgb, o), color::rgb2lab(dev(rgb), o));
    EXPECT_DEVICE_MATCHES(color::xyz2luv(rgb, o), color::xyz2luv(dev(rgb), o));
  }
  EXPECT_DEVICE_MATCHES(color::convert_colorspace(rgb, "hsv", "ycbcr"), color::convert_colorspace(dev(rgb), "hsv", "ycbcr"));
  const Array gray = cusktest::random_array({17, 19}, DType::uint16, 6);
  EXPECT_ARRAY_EQ(color::gray2rgb(gray, {.channel_axis = 0}), color::gray2rgb(dev(gray), {.channel_axis = 0}));
  EXPECT_ARRAY_EQ(color::gray2rgba(gray), color::gray2rgba(dev(gray)));
  const Array alpha = cusktest::random_array({19}, DType::uint16, 7);
  EXPECT_ARRAY_EQ(color::gray2rgba(gray, alpha), color::gray2rgba(dev(gray), dev(alpha)));
}

TEST(GpuColorConv, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  for (const std::string fn : {"rgb2lab", "rgb2hed", "rgb2gray", "rgb2hsv"}) {
    const Array out = conversions().at(fn)(dev(golden("in_astro")), -1, {});
    EXPECT_TRUE(out.device().is_cuda());
    EXPECT_COLOR_NEAR(golden(fn + "__astro"), out);
  }
  EXPECT_COLOR_NEAR(golden("lab2rgb__lab_wide"), color::lab2rgb(dev(golden("in_lab_wide"))));
  EXPECT_COLOR_NEAR(golden("ycbcr2rgb__ycc_u8"), color::ycbcr2rgb(dev(golden("in_ycc_u8"))));
  EXPECT_COLOR_NEAR(golden("rgb2lab__vol_c1"), color::rgb2lab(dev(golden("in_vol_c1")), {.channel_axis = 1}));
}

TEST(GpuColorDeltaE, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Array a = cusktest::random_array({23, 29, 3}, DType::float64, 1, -80, 100);
  const Array b = cusktest::random_array({23, 29, 3}, DType::float64, 2, -80, 100);
  const Array ref = cusktest::random_array({1, 29, 3}, DType::float64, 3, -80, 100);
  const Array af = a.astype(DType::float32), bf = b.astype(DType::float32);
  EXPECT_DEVICE_MATCHES(color::deltaE_cie76(a, b), color::deltaE_cie76(dev(a), dev(b)));
  EXPECT_DEVICE_MATCHES(color::deltaE_ciede94(a, ref), color::deltaE_ciede94(dev(a), dev(ref)));
  EXPECT_DEVICE_MATCHES(color::deltaE_ciede2000(a, b), color::deltaE_ciede2000(dev(a), dev(b)));
  EXPECT_DEVICE_MATCHES(color::deltaE_ciede2000(af, bf), color::deltaE_ciede2000(dev(af), dev(bf)));
  EXPECT_DEVICE_MATCHES(color::deltaE_cmc(af, bf, {.kL = 2}), color::deltaE_cmc(dev(af), dev(bf), {.kL = 2}));
  EXPECT_DEVICE_MATCHES(color::deltaE_cmc(a.transpose({2, 0, 1}), b.transpose({2, 0, 1}), {.channel_axis = 0}),
                        color::deltaE_cmc(dev(a).transpose({2, 0, 1}), dev(b).transpose({2, 0, 1}), {.channel_axis = 0}));
  const Array pairs = golden("in_sharma");
  const Array pd = dev(pairs);
  EXPECT_COLOR_NEAR(golden("deltaE_ciede2000__sharma"),
                    color::deltaE_ciede2000(pd.slice({Slice{}, Slice{0, 3, 1}}), pd.slice({Slice{}, Slice{3, 6, 1}})));
}

TEST(GpuColorLabel, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Array lab = cusktest::random_array({61, 67}, DType::int32, 1, -3, 40);
  const Array img = cusktest::random_array({61, 67, 3}, DType::uint8, 2);
  const Array gray = cusktest::random_array({61, 67}, DType::float32, 3);
  EXPECT_DEVICE_MATCHES(color::label2rgb(lab), color::label2rgb(dev(lab)));
  EXPECT_DEVICE_MATCHES(color::label2rgb(lab, {.bg_label = 7, .bg_color = std::nullopt}),
                        color::label2rgb(dev(lab), {.bg_label = 7, .bg_color = std::nullopt}));
  const color::Label2RgbOptions o{.colors = {"navy", {0.2, 0.9, 0.1}}, .alpha = 0.6, .bg_label = -3,
                                  .image_alpha = 0.8, .saturation = 0.3};
  EXPECT_DEVICE_MATCHES(color::label2rgb(lab, img, o), color::label2rgb(dev(lab), dev(img), o));
  EXPECT_DEVICE_MATCHES(color::label2rgb(lab, gray, o), color::label2rgb(dev(lab), dev(gray), o));
  const color::Label2RgbOptions avg{.kind = color::Label2RgbKind::avg};
  EXPECT_ARRAY_EQ(color::label2rgb(lab, img, avg), color::label2rgb(dev(lab), dev(img), avg));
  EXPECT_DEVICE_MATCHES(color::label2rgb(lab, gray, avg), color::label2rgb(dev(lab), dev(gray), avg));
  const Array lab3 = cusktest::random_array({5, 6, 7}, DType::uint16, 4, 0, 9);
  EXPECT_DEVICE_MATCHES(color::label2rgb(lab3), color::label2rgb(dev(lab3)));
  EXPECT_DEVICE_MATCHES(color::label2rgb(strided_twin(lab), strided_twin(img)),
                        color::label2rgb(dev(strided_twin(lab)), dev(strided_twin(img))));
  EXPECT_COLOR_NEAR(golden("label2rgb__image_opts"),
                    color::label2rgb(dev(golden("in_labels")), dev(golden("in_lbl_img")),
                                     {.alpha = 0.5, .bg_label = 2, .bg_color = std::nullopt, .image_alpha = 0.7,
                                      .saturation = 0.5}));
  EXPECT_ARRAY_EQ(golden("label2rgb__avg"), color::label2rgb(dev(golden("in_labels")), dev(golden("in_lbl_img")), avg));
}

TEST(GpuColorStream, NoLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array rgb = dev(cusktest::random_array({256, 300, 3}, DType::uint8, 1));
  const Array lab = dev(cusktest::random_array({256, 300}, DType::int32, 2, 0, 20));
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    Array a = color::rgb2lab(rgb, {}, s);
    Array b = color::rgb2hed(rgb, {}, s);
    Array c = color::rgb2gray(rgb, {}, s);
    Array d = color::rgb2hsv(rgb, {}, s);
    Array e = color::lab2rgb(a, {}, s);
    Array f = color::deltaE_ciede2000(a, e, {}, s);
    Array g = color::label2rgb(lab, rgb, {}, s);
    s.synchronize();
  }));
  // The result on a non-default stream equals the default stream's.
  const Stream s = Stream::create();
  const Array x = color::rgb2lab(rgb, {}, s);
  s.synchronize();
  EXPECT_ARRAY_EQ(color::rgb2lab(rgb), x);
}

TEST(GpuColorInto, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Array h = cusktest::random_array({45, 51, 3}, DType::uint8, 9);
  const Array d = dev(h);
  Array lab = Array::empty({45, 51, 3}, DType::float64, Device::cuda());
  color::rgb2lab_into(d, lab);
  EXPECT_DEVICE_MATCHES(color::rgb2lab(h), lab);
  Array big = Array::zeros({3, 50, 60}, DType::float64, Device::cuda());
  Array view = big.slice({Slice{}, Slice{2, 47, 1}, Slice{5, 56, 1}});
  color::rgb2hed_into(d.transpose({2, 0, 1}), view, {.channel_axis = 0});
  EXPECT_DEVICE_MATCHES(color::rgb2hed(h).transpose({2, 0, 1}), view);
  Array gray = Array::empty({45, 51}, DType::float64, Device::cuda());
  color::rgb2gray_into(d, gray);
  EXPECT_DEVICE_MATCHES(color::rgb2gray(h), gray);
  Array host_out = Array::empty({45, 51, 3}, DType::float64);
  EXPECT_THROW(color::rgb2hsv_into(d, host_out), cuskimage::InvalidArgument);  // other device
}

// ---- issue 7: the fast float64 paths of rgb2lab / rgb2hsv, bit for bit with the CPU ---------------
//
// rgb2hsv is exactly rounded at every step on both backends (any dtype), rgb2lab's uint8 path reads
// the host's sRGB table and rounds each step explicitly, xyz2lab float64 likewise: those compare
// bytes. rgb2lab from other dtypes linearises with each side's own pow (the golden tolerances).

namespace {

/// Tile tails, one pixel, whole tiles only, and images with more tiles than the persistent grid has
/// blocks (several tiles per block through the prefetch, then a partial tile).
const std::vector<Shape>& fast_shapes() {
  static const std::vector<Shape> s = {{37, 61, 3}, {3}, {1, 1031, 3}, {64, 64, 3}, {1201, 1001, 3}, {2, 1024, 1024, 3}};
  return s;
}

bool big(const Shape& s) { return cuskimage::shape_size(s) > (std::int64_t(1) << 20); }

/// Random RGB of `dt`: the dtype's range for integers, [-0.25, 1.25) for floats (negative and
/// above-one channels included).
Array rgb_of(const Shape& shape, DType dt, std::uint64_t seed) {
  if (dt == DType::float32 || dt == DType::float64) return cusktest::random_array(shape, dt, seed, -0.25, 1.25);
  return cusktest::random_array(shape, dt, seed);
}

}  // namespace

TEST(GpuColorFast, HsvEqualsCpuBitForBitEveryDtype) {
  CUSK_REQUIRE_GPU();
  std::uint64_t seed = 700;
  for (DType dt : {DType::uint8, DType::uint16, DType::int16, DType::int32, DType::bool_, DType::float32, DType::float64}) {
    for (const Shape& shape : fast_shapes()) {
      if (big(shape) && dt != DType::uint8 && dt != DType::float32 && dt != DType::float64) continue;
      SCOPED_TRACE(std::string(cuskimage::dtype_name(dt)) + " " + cuskimage::shape_str(shape));
      const Array h = rgb_of(shape, dt, seed++);
      EXPECT_ARRAY_EQ(color::rgb2hsv(h), color::rgb2hsv(dev(h)));
    }
  }
  // Grey pixels and channel ties (the uint8 path's flat and last-maximum cases), device goldens.
  for (const std::string c : {"u8_issue7", "f64_issue7", "f32", "u16"}) {
    SCOPED_TRACE(c);
    const Array in = golden("in_" + c);
    EXPECT_ARRAY_EQ(color::rgb2hsv(in), color::rgb2hsv(dev(in)));
    EXPECT_TRUE(values_equal(golden("rgb2hsv__" + c), color::rgb2hsv(dev(in))));
  }
}

TEST(GpuColorFast, LabUint8EqualsCpuBitForBit) {
  CUSK_REQUIRE_GPU();
  std::uint64_t seed = 800;
  for (const Shape& shape : fast_shapes()) {
    SCOPED_TRACE(cuskimage::shape_str(shape));
    const Array h = rgb_of(shape, DType::uint8, seed++);
    const Array d = dev(h);
    EXPECT_ARRAY_EQ(color::rgb2lab(h), color::rgb2lab(d));
    const color::IlluminantOptions o{.illuminant = "A", .observer = "10"};
    if (!big(shape)) EXPECT_ARRAY_EQ(color::rgb2lab(h, o), color::rgb2lab(d, o));
  }
  const Array u8 = golden("in_u8_issue7");
  EXPECT_ARRAY_EQ(color::rgb2lab(u8), color::rgb2lab(dev(u8)));
  EXPECT_ARRAY_NEAR(golden("rgb2lab__u8_issue7"), color::rgb2lab(dev(u8)), 0, 1e-12);
  EXPECT_ARRAY_NEAR(golden("rgb2lab__u8_issue7_D50_10"), color::rgb2lab(dev(u8), {.illuminant = "D50", .observer = "10"}),
                    0, 1e-12);
  // Other dtypes: the same functor, each backend's pow for the linearisation.
  for (DType dt : {DType::uint16, DType::int16, DType::float32, DType::float64}) {
    for (const Shape& shape : {Shape{37, 61, 3}, Shape{1201, 1001, 3}}) {
      SCOPED_TRACE(std::string(cuskimage::dtype_name(dt)) + " " + cuskimage::shape_str(shape));
      const Array h = rgb_of(shape, dt, seed++);
      EXPECT_DEVICE_MATCHES(color::rgb2lab(h), color::rgb2lab(dev(h)));
    }
  }
}

TEST(GpuColorFast, Xyz2LabFloat64EqualsCpuBitForBit) {
  CUSK_REQUIRE_GPU();
  // X over 600 decades (the cube root's rescaled range above 2^127 and +inf), Y and Z from dark
  // (the linear segment, negatives) to bright.
  Array xyz = cusktest::random_array({97, 89, 3}, DType::float64, 900, -0.05, 1.2);
  std::vector<double> v = xyz.to_vector<double>();
  std::mt19937_64 rng(901);
  std::uniform_real_distribution<double> expo(-300, 300);
  for (std::size_t i = 0; i < v.size(); i += 3) v[i] = std::pow(10.0, expo(rng));
  v[0] = std::numeric_limits<double>::infinity();
  v[3] = -std::numeric_limits<double>::infinity();
  v[6] = 0.008856 * 0.95047;
  v[9] = -0.0;
  v[12] = std::numeric_limits<double>::max();
  xyz = Array::from_vector(v, xyz.shape());
  EXPECT_ARRAY_EQ(color::xyz2lab(xyz), color::xyz2lab(dev(xyz)));
  EXPECT_ARRAY_EQ(color::xyz2lab(xyz, {.illuminant = "D75", .observer = "R"}),
                  color::xyz2lab(dev(xyz), {.illuminant = "D75", .observer = "R"}));
  EXPECT_ARRAY_NEAR(golden("xyz2lab__xyz_issue7"), color::xyz2lab(dev(golden("in_xyz_issue7"))), 1e-13, 1e-12);
}

TEST(GpuColorFast, StridedViewsAndStreams) {
  CUSK_REQUIRE_GPU();
  const Array u8 = rgb_of({300, 257, 3}, DType::uint8, 1000);
  const Array f64 = rgb_of({300, 257, 3}, DType::float64, 1001);
  const std::initializer_list<Slice> crop = {Slice{3, 290, 2}, Slice{1, 250, 3}, Slice{std::nullopt, std::nullopt, -1}};
  for (const Array* h : {&u8, &f64}) {
    SCOPED_TRACE(cuskimage::dtype_name(h->dtype()));
    const Array d = dev(*h);
    // Strided pixels with reversed channels; channels first; an unaligned start (strided kernel).
    EXPECT_ARRAY_EQ(color::rgb2hsv(h->slice(crop)), color::rgb2hsv(d.slice(crop)));
    EXPECT_ARRAY_EQ(color::rgb2hsv(h->transpose({2, 0, 1}), {.channel_axis = 0}),
                    color::rgb2hsv(d.transpose({2, 0, 1}), {.channel_axis = 0}));
    const std::initializer_list<Slice> shift = {Slice{1, std::nullopt, 1}};
    EXPECT_ARRAY_EQ(color::rgb2hsv(h->slice(shift)), color::rgb2hsv(d.slice(shift)));
    if (h->dtype() == DType::uint8) {
      EXPECT_ARRAY_EQ(color::rgb2lab(h->slice(crop)), color::rgb2lab(d.slice(crop)));
      EXPECT_ARRAY_EQ(color::rgb2lab(h->transpose({2, 0, 1}), {.channel_axis = 0}),
                      color::rgb2lab(d.transpose({2, 0, 1}), {.channel_axis = 0}));
      EXPECT_ARRAY_EQ(color::rgb2lab(h->slice(shift)), color::rgb2lab(d.slice(shift)));
      // Into a strided device view.
      Array big_out = Array::zeros({3, 310, 270}, DType::float64, Device::cuda());
      Array view = big_out.slice({Slice{}, Slice{5, 305, 1}, Slice{7, 264, 1}});
      color::rgb2lab_into(d.transpose({2, 0, 1}), view, {.channel_axis = 0});
      EXPECT_ARRAY_EQ(color::rgb2lab(*h).transpose({2, 0, 1}), view);
    }
  }
  // A non-default stream, with the legacy default stream held busy, for every instantiation (run
  // once before: a kernel's first use loads it, which may wait for the spinning kernel).
  const Array d8 = dev(u8), d64 = dev(f64), d32 = dev(f64.astype(DType::float32)), d16 = dev(u8.astype(DType::uint16));
  auto convert_all = [&](const Stream& s) {
    for (const Array* d : {&d8, &d64, &d32, &d16}) {
      Array a = color::rgb2hsv(*d, {}, s);
      Array b = color::rgb2lab(*d, {}, s);
      Array c = color::xyz2lab(*d, {}, s);
    }
    s.synchronize();
  };
  convert_all(Stream::create());
  EXPECT_TRUE(cusktest::runs_without_legacy_stream(convert_all));
  const Stream s = Stream::create();
  const Array hs = color::rgb2hsv(d8, {}, s), ls = color::rgb2lab(d8, {}, s), h64 = color::rgb2hsv(d64, {}, s);
  s.synchronize();
  EXPECT_ARRAY_EQ(color::rgb2hsv(u8), hs);
  EXPECT_ARRAY_EQ(color::rgb2lab(u8), ls);
  EXPECT_ARRAY_EQ(color::rgb2hsv(f64), h64);
}

TEST(GpuColorFast, UnsignedInputsConvertExactlyOnDevice) {
  // uint8 / uint16 -> float64 on the device is one FMA on the bits of 2^52 + x (unsigned_unit); the
  // host subtracts and multiplies. xyz2lab rounds every later step explicitly and rgb2hsv's value
  // channel is the largest converted channel, so both compare bytes with the CPU: every uint8 and
  // uint16 value in every channel, in whole tiles.
  CUSK_REQUIRE_GPU();
  std::vector<std::uint8_t> b(8 * 256 * 3);
  for (std::size_t i = 0; i < b.size() / 3; ++i) {
    b[3 * i] = static_cast<std::uint8_t>(i);
    b[3 * i + 1] = static_cast<std::uint8_t>(255 - i % 256);
    b[3 * i + 2] = static_cast<std::uint8_t>(i * 7 + i / 256);
  }
  const Array u8 = Array::from_vector(b, {8, 256, 3});
  EXPECT_ARRAY_EQ(color::xyz2lab(u8), color::xyz2lab(dev(u8)));
  std::vector<std::uint16_t> w(65536 * 3);
  for (std::size_t i = 0; i < w.size() / 3; ++i) {
    w[3 * i] = static_cast<std::uint16_t>(i);
    w[3 * i + 1] = static_cast<std::uint16_t>(65535 - i);
    w[3 * i + 2] = static_cast<std::uint16_t>(i * 40503u);
  }
  const Array u16 = Array::from_vector(w, {256, 256, 3});
  EXPECT_ARRAY_EQ(color::xyz2lab(u16), color::xyz2lab(dev(u16)));
  EXPECT_ARRAY_EQ(color::rgb2hsv(u16), color::rgb2hsv(dev(u16)));
  // The value channel is img_as_float of the largest channel, exactly.
  const std::vector<double> hsv = color::rgb2hsv(dev(u16)).to(Device::cpu()).to_vector<double>();
  for (std::size_t i = 0; i < w.size() / 3; ++i) {
    const std::uint16_t m = std::max({w[3 * i], w[3 * i + 1], w[3 * i + 2]});
    ASSERT_EQ(hsv[3 * i + 2], static_cast<double>(m) * (1.0 / 65535.0)) << i;
  }
}
