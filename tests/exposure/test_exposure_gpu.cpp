// GPU tier of skimage.exposure: CUDA results equal the CPU backend's on fresh random inputs (2-D,
// 3-D, strided views, odd shapes), golden parity on the device for CLAHE, and a non-default stream
// with the legacy default stream held busy. Exact unless noted: adjust_* (CUDA's pow / exp /
// log2 versus libm) within 1 of integer results and rtol 1e-6 / 1e-12 of float results;
// match_histograms and equalize_hist of float images within 1e-12 (same arithmetic, rn ops).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/exposure.hpp"
#include "tests/common/test_support.hpp"

namespace ex = cuskimage::exposure;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;

namespace {

Array in(const std::string& name) { return cusktest::load_golden("exposure/in_" + name + ".npy"); }
Array gold(const std::string& name) { return cusktest::load_golden("exposure/" + name + ".npy"); }

Array rnd(const Shape& shape, DType dt, std::uint64_t seed) {
  switch (dt) {
    case DType::uint16: return cusktest::random_array(shape, dt, seed, 100, 5000);
    case DType::int16: return cusktest::random_array(shape, dt, seed, -200, 700);
    case DType::int32:
    case DType::int64: return cusktest::random_array(shape, dt, seed, -5000, 5000);
    case DType::float32:
    case DType::float64: return cusktest::random_array(shape, dt, seed, 0.05, 0.9);
    default: return cusktest::random_array(shape, dt, seed);
  }
}

/// Every-other-row, reversed-column view (2-D and 3-D).
Array strided(const Array& a) {
  if (a.ndim() == 2) return a.slice({Slice{std::nullopt, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -1}});
  return a.slice({Slice{}, Slice{std::nullopt, std::nullopt, 2}, Slice{std::nullopt, std::nullopt, -1}});
}

const std::vector<DType> kTypes = {DType::uint8, DType::int8, DType::uint16, DType::int16,
                                   DType::int32, DType::int64, DType::float32, DType::float64};
const std::vector<Shape> kShapes = {{37, 41}, {1, 1}, {300, 257}, {7, 9, 11}};

}  // namespace

TEST(GpuExposure, HistogramsMatchCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 1;
  for (DType dt : kTypes) {
    for (const Shape& shape : kShapes) {
      const Array h = rnd(shape, dt, seed++);
      for (int v = 0; v < 2; ++v) {
        const Array hv = v ? strided(h) : h.share();
        if (hv.size() == 0) continue;
        const Array dv = v ? strided(h.to(Device::cuda(), s)) : h.to(Device::cuda(), s);
        const std::string what = std::string(cuskimage::dtype_name(dt)) + cuskimage::shape_str(shape) + (v ? " strided" : "");
        SCOPED_TRACE(what);
        for (const ex::HistogramOptions& o :
             {ex::HistogramOptions{}, ex::HistogramOptions{.nbins = 19, .normalize = true},
              ex::HistogramOptions{.nbins = 40, .source_range = ex::SourceRange::dtype}}) {
          if (o.source_range == ex::SourceRange::dtype && cuskimage::itemsize(dt) > 2 && !cuskimage::is_floating(dt))
            continue;  // the dtype's whole range is too many bins
          const auto a = ex::histogram(hv, o), b = ex::histogram(dv, o, s);
          EXPECT_ARRAY_EQ(a.hist, b.hist);
          EXPECT_ARRAY_EQ(a.bin_centers, b.bin_centers);
        }
        const auto ca = ex::cumulative_distribution(hv), cb = ex::cumulative_distribution(dv, {}, s);
        EXPECT_ARRAY_EQ(ca.cdf, cb.cdf);
        EXPECT_ARRAY_NEAR(ex::equalize_hist(hv), ex::equalize_hist(dv, {}, s), 1e-12, 1e-12);
        EXPECT_ARRAY_EQ(ex::rescale_intensity(hv), ex::rescale_intensity(dv, {}, s));
        EXPECT_ARRAY_EQ(ex::rescale_intensity(hv, {.in_range = "dtype", .out_range = {-2, 5}}),
                        ex::rescale_intensity(dv, {.in_range = "dtype", .out_range = {-2, 5}}, s));
        EXPECT_ARRAY_EQ(ex::rescale_intensity(hv, {.out_range = "uint12"}),
                        ex::rescale_intensity(dv, {.out_range = "uint12"}, s));
      }
    }
  }
  // Channels and masks.
  const Array rgb = rnd({40, 33, 3}, DType::float32, 99);
  const Array drgb = rgb.to(Device::cuda(), s);
  const auto a = ex::histogram(rgb, {.nbins = 30, .channel_axis = -1});
  const auto b = ex::histogram(drgb, {.nbins = 30, .channel_axis = -1}, s);
  EXPECT_ARRAY_EQ(a.hist, b.hist);
  const Array u8 = rnd({64, 70}, DType::uint8, 5);
  const Array mask = cusktest::random_array({64, 70}, DType::bool_, 6);
  EXPECT_ARRAY_EQ(ex::equalize_hist(u8, {.mask = mask.share()}),
                  ex::equalize_hist(u8.to(Device::cuda(), s), {.mask = mask.to(Device::cuda(), s)}, s));
  const Array f = rnd({64, 70}, DType::float64, 7);
  EXPECT_ARRAY_NEAR(ex::equalize_hist(f, {.nbins = 77, .mask = mask.share()}),
                    ex::equalize_hist(f.to(Device::cuda(), s), {.nbins = 77, .mask = mask.to(Device::cuda(), s)}, s),
                    1e-12, 1e-12);
}

TEST(GpuExposure, AdjustMatchCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 300;
  for (DType dt : kTypes) {
    const Array h0 = rnd({123, 77}, dt, seed++);
    // Non-negative input: the device does not check (see exposure.hpp).
    const Array h = cuskimage::is_signed(dt) && !cuskimage::is_floating(dt)
                        ? ex::rescale_intensity(h0, {.out_range = {0, 100}}).astype(dt)
                        : h0.share();
    const Array d = h.to(Device::cuda(), s);
    SCOPED_TRACE(std::string(cuskimage::dtype_name(dt)));
    const bool fl = cuskimage::is_floating(dt);
    const double rt = dt == DType::float32 ? 1e-6 : (fl ? 1e-12 : 0), at = fl ? rt : 1;
    EXPECT_ARRAY_NEAR(ex::adjust_gamma(h, {.gamma = 2.2, .gain = 0.9}), ex::adjust_gamma(d, {.gamma = 2.2, .gain = 0.9}, s),
                      rt, at);
    EXPECT_ARRAY_NEAR(ex::adjust_gamma(h, {.gamma = 0.5}), ex::adjust_gamma(d, {.gamma = 0.5}, s), rt, at);
    EXPECT_ARRAY_NEAR(ex::adjust_log(h, {.gain = 1.3}), ex::adjust_log(d, {.gain = 1.3}, s), rt, at);
    EXPECT_ARRAY_NEAR(ex::adjust_log(h, {.inv = true}), ex::adjust_log(d, {.inv = true}, s), rt, at);
    EXPECT_ARRAY_NEAR(ex::adjust_sigmoid(h), ex::adjust_sigmoid(d, {}, s), rt, at);
    EXPECT_ARRAY_NEAR(ex::adjust_sigmoid(strided(h), {.inv = true}), ex::adjust_sigmoid(strided(d), {.inv = true}, s),
                      rt, at);
  }
  EXPECT_THROW(ex::adjust_gamma(Array::zeros({3, 3}, DType::uint8, Device::cuda()), {.gamma = -0.5}),
               cuskimage::InvalidArgument);
}

TEST(GpuExposure, ClaheGoldenOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  EXPECT_ARRAY_EQ(gold("clahe_cam"), ex::equalize_adapthist(in("cam").to(Device::cuda(), s), {}, s));
  EXPECT_ARRAY_EQ(gold("clahe_cam_k17"),
                  ex::equalize_adapthist(in("cam").to(Device::cuda(), s), {.kernel_size = {17}, .clip_limit = 0.03, .nbins = 128}, s));
  EXPECT_ARRAY_EQ(gold("clahe_cam_big"),
                  ex::equalize_adapthist(in("cam").to(Device::cuda(), s), {.kernel_size = {300}, .clip_limit = 0.2}, s));
  EXPECT_ARRAY_EQ(gold("clahe_cam_tiny"),
                  ex::equalize_adapthist(in("cam").to(Device::cuda(), s), {.kernel_size = {30}, .clip_limit = 0.003}, s));
  EXPECT_ARRAY_EQ(gold("clahe_f64"),
                  ex::equalize_adapthist(in("f64").to(Device::cuda(), s), {.kernel_size = {8}, .nbins = 1000}, s));
  EXPECT_ARRAY_EQ(gold("clahe_vol"), ex::equalize_adapthist(in("vol").to(Device::cuda(), s), {.kernel_size = {5, 6, 7}}, s));
  EXPECT_ARRAY_EQ(gold("clahe_volf"), ex::equalize_adapthist(in("volf").to(Device::cuda(), s), {}, s));
  EXPECT_ARRAY_NEAR(gold("clahe_rgb"), ex::equalize_adapthist(in("rgb").to(Device::cuda(), s), {}, s), 1e-12, 1e-12);
}

TEST(GpuExposure, ClaheMatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 500;
  struct Case {
    Shape shape;
    ex::EqualizeAdapthistOptions o;
  };
  const std::vector<Case> cases = {
      {{300, 257}, {}},
      {{300, 257}, {.kernel_size = {31, 17}, .clip_limit = 0.02, .nbins = 100}},
      {{513, 129}, {.kernel_size = {64}, .clip_limit = 0}},
      {{70, 90}, {.kernel_size = {200}, .clip_limit = 0.5}},
      {{64, 64}, {.nbins = 20000}},  // global-memory histograms and clipping
      {{33, 40, 29}, {}},
      {{33, 40, 29}, {.kernel_size = {4, 9, 5}, .clip_limit = 0.05, .nbins = 64}},
      {{5, 7, 3}, {.detect_rgb = false}},
  };
  for (DType dt : {DType::uint8, DType::uint16, DType::float32, DType::float64, DType::int16}) {
    for (const auto& c : cases) {
      const Array h = rnd(c.shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      SCOPED_TRACE(std::string(cuskimage::dtype_name(dt)) + cuskimage::shape_str(c.shape));
      EXPECT_ARRAY_EQ(ex::equalize_adapthist(h, c.o), ex::equalize_adapthist(d, c.o, s));
      EXPECT_ARRAY_EQ(ex::equalize_adapthist(strided(h), c.o), ex::equalize_adapthist(strided(d), c.o, s));
    }
  }
  const Array rgb = rnd({45, 52, 3}, DType::uint8, 77);
  EXPECT_ARRAY_NEAR(ex::equalize_adapthist(rgb), ex::equalize_adapthist(rgb.to(Device::cuda(), s), {}, s), 1e-12, 1e-12);
  const Array rgba = rnd({4, 30, 31}, DType::float32, 78);
  EXPECT_ARRAY_NEAR(ex::equalize_adapthist(rgba, {.channel_axis = 0}),
                    ex::equalize_adapthist(rgba.to(Device::cuda(), s), {.channel_axis = 0}, s), 1e-6, 1e-6);
}

TEST(GpuExposure, MatchAndLowContrast) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 700;
  for (DType dt : kTypes) {
    const Array a = rnd({61, 47}, dt, seed++);
    const Array r = rnd({30, 33}, cuskimage::is_signed(dt) ? DType::float64 : DType::uint16, seed++);
    SCOPED_TRACE(std::string(cuskimage::dtype_name(dt)));
    EXPECT_ARRAY_NEAR(ex::match_histograms(a, r), ex::match_histograms(a.to(Device::cuda(), s), r.to(Device::cuda(), s), {}, s),
                      1e-12, 1e-12);
    EXPECT_ARRAY_NEAR(ex::match_histograms(strided(a), r),
                      ex::match_histograms(strided(a.to(Device::cuda(), s)), r.to(Device::cuda(), s), {}, s), 1e-12, 1e-12);
    for (double thr : {0.01, 0.05, 0.3, 0.9})
      EXPECT_EQ(ex::is_low_contrast(a, {.fraction_threshold = thr}),
                ex::is_low_contrast(a.to(Device::cuda(), s), {.fraction_threshold = thr}, s));
  }
  const Array rgb = rnd({20, 21, 3}, DType::uint8, 1), ref = rnd({9, 8, 3}, DType::uint8, 2);
  EXPECT_ARRAY_EQ(ex::match_histograms(rgb, ref, {.channel_axis = 2}),
                  ex::match_histograms(rgb.to(Device::cuda(), s), ref.to(Device::cuda(), s), {.channel_axis = 2}, s));
  EXPECT_ARRAY_EQ(gold("match_rgb_ch"), ex::match_histograms(in("rgb").to(Device::cuda(), s),
                                                             in("ref_rgb").to(Device::cuda(), s), {.channel_axis = -1}, s));
  const auto e = gold("lowcontrast").to_vector<bool>();
  EXPECT_EQ(e[0], ex::is_low_contrast(in("cam").to(Device::cuda(), s), {}, s));
  EXPECT_EQ(e[6], ex::is_low_contrast(in("rgb").to(Device::cuda(), s), {}, s));
  EXPECT_EQ(e[7], ex::is_low_contrast(in("rgba").to(Device::cuda(), s), {}, s));
  EXPECT_EQ(e[12], ex::is_low_contrast(in("i16").to(Device::cuda(), s), {.fraction_threshold = 0.0178}, s));
  EXPECT_EQ(e[13], ex::is_low_contrast(in("i16").to(Device::cuda(), s), {.fraction_threshold = 0.0177}, s));
}

TEST(GpuExposure, NonDefaultStreamWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array h = rnd({257, 300}, DType::float32, 11);
  const Array hv = rnd({20, 24, 22}, DType::uint8, 12);
  const Array d = h.to(Device::cuda());
  const Array dv = hv.to(Device::cuda());
  const Array href = rnd({40, 52}, DType::uint8, 13);  // match_histograms wants the image's ndim
  const Array dref = href.to(Device::cuda());
  Stream().synchronize();
  Array c2, c3, rs, eq, mt;
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    c2 = ex::equalize_adapthist(d, {}, s);
    c3 = ex::equalize_adapthist(dv, {.kernel_size = {5}}, s);
    rs = ex::rescale_intensity(d, {.out_range = "uint8"}, s);
    eq = ex::equalize_hist(dv, {}, s);
    mt = ex::match_histograms(d, dref, {}, s);
    s.synchronize();
  }));
  EXPECT_ARRAY_EQ(ex::equalize_adapthist(h), c2);
  EXPECT_ARRAY_EQ(ex::equalize_adapthist(hv, {.kernel_size = {5}}), c3);
  EXPECT_ARRAY_EQ(ex::rescale_intensity(h, {.out_range = "uint8"}), rs);
  EXPECT_ARRAY_EQ(ex::equalize_hist(hv), eq);
  EXPECT_ARRAY_NEAR(ex::match_histograms(h, href), mt, 1e-6, 1e-7);
}
