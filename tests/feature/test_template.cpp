// match_template against scikit-image 0.26's goldens (tests/golden/cases_feature_hog.py): 2-D
// float64 (every pad mode, pad_input, constant_values, a template as large as the image), float32,
// uint8, 3-D, and scikit-image's docstring example. Tolerances: 1e-8 absolute for float64 outputs
// (the correlation here uses the mean-subtracted template and float64 integral images, so rounding
// differs), 2e-4 for float32 (scikit-image sums float32 windows in float32). Then bad arguments and
// the GPU tier (device == CPU within 1e-9 for float64, 1e-4 for float32 whose FFT is single).
#include <gtest/gtest.h>

#include <string>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "cuskimage/ndimage.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

Array golden(const std::string& name) { return cusktest::load_golden("feature_hog/" + name + ".npy"); }

void run_goldens(const Device& dev, const Stream& s) {
  const auto n = golden("mt_ncases").to_vector<std::int64_t>()[0];
  ASSERT_GT(n, 0);
  for (std::int64_t c = 0; c < n; ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    const auto p = golden("mt_p_" + std::to_string(c)).to_vector<double>();
    const Array img = golden("mt_img_" + std::to_string(static_cast<int>(p[0]))).to(dev, s);
    const Array tpl = golden("mt_tpl_" + std::to_string(static_cast<int>(p[1]))).to(dev, s);
    const ft::MatchTemplateOptions o{.pad_input = p[2] != 0,
                                     .mode = static_cast<ft::TemplatePadMode>(static_cast<int>(p[3])),
                                     .constant_values = p[4]};
    const Array want = golden("mt_out_" + std::to_string(c));
    const Array got = cusktest::host_copy(ft::match_template(img, tpl, o, s));
    EXPECT_EQ(got.dtype(), want.dtype());
    const double tol = want.dtype() == DType::float32 ? 2e-4 : 1e-8;
    EXPECT_TRUE(cusktest::arrays_close(want, got, 0, tol));
  }
}

TEST(FeatureTemplate, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(FeatureTemplate, FindsTheTemplate) {
  const Array img = cuskimage::ndimage::gaussian_filter(cusktest::random_array({50, 60}, DType::float64, 7), 1.0);
  const Array tpl = img.slice({Slice{12, 21}, Slice{30, 41}}).copy();
  const Array r = ft::match_template(img, tpl);
  ASSERT_EQ(r.shape(), (Shape{42, 50}));
  EXPECT_NEAR(r.at<double>({12, 30}), 1.0, 1e-9);
  const Array rp = ft::match_template(img, tpl, {.pad_input = true});
  ASSERT_EQ(rp.shape(), img.shape());
  EXPECT_NEAR(rp.at<double>({16, 35}), 1.0, 1e-9);  // the template's centre
}

TEST(FeatureTemplate, BadArguments) {
  const Array img = Array::zeros({16, 16}, DType::float32);
  EXPECT_THROW(ft::match_template(img, Array::zeros({17, 3}, DType::float32)), InvalidArgument);
  EXPECT_THROW(ft::match_template(img, Array::zeros({3, 3, 3}, DType::float32)), InvalidArgument);
  EXPECT_THROW(ft::match_template(img, Array::zeros({3}, DType::float32)), InvalidArgument);
  EXPECT_THROW(ft::match_template(Array::zeros({16}, DType::float32), Array::zeros({3}, DType::float32)),
               InvalidArgument);
  EXPECT_THROW(ft::match_template(Array::zeros({4, 4, 4, 4}, DType::float32), Array::zeros({2, 2, 2, 2}, DType::float32)),
               InvalidArgument);
  EXPECT_THROW(ft::match_template(img, Array()), InvalidArgument);
}

// ---- GPU tier ------------------------------------------------------------------------------------------

TEST(GpuFeatureTemplate, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s);
}

TEST(GpuFeatureTemplate, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 90;
  for (DType dt : {DType::float32, DType::float64, DType::uint8}) {
    for (const auto& [shape, tshape] : {std::pair{Shape{300, 257}, Shape{31, 17}}, std::pair{Shape{40, 33, 29}, Shape{7, 6, 9}}}) {
      const Array h = cusktest::random_array(shape, dt, seed++, 0, 200);
      const Array t = cusktest::random_array(tshape, DType::float64, seed++, 0, 1);
      const Array d = h.to(Device::cuda(), s);
      const double tol = dt == DType::float32 ? 1e-4 : 1e-9;
      for (int mode = 0; mode < 5; ++mode)
        for (bool pad : {false, true}) {
          const ft::MatchTemplateOptions o{.pad_input = pad, .mode = static_cast<ft::TemplatePadMode>(mode),
                                           .constant_values = 3.0};
          SCOPED_TRACE(std::to_string(mode) + (pad ? " pad" : ""));
          const Array want = ft::match_template(h, t, o);
          const Array got = ft::match_template(d, t.to(Device::cuda(), s), o, s);
          EXPECT_EQ(got.device(), d.device());
          EXPECT_TRUE(cusktest::arrays_close(want, cusktest::host_copy(got), 0, tol));
        }
      // a strided view
      const Array hv = h.slice({Slice{std::nullopt, std::nullopt, 2}}).slice({Slice{}, Slice{1, std::nullopt, 3}});
      const Array dv = d.slice({Slice{std::nullopt, std::nullopt, 2}}).slice({Slice{}, Slice{1, std::nullopt, 3}});
      const Array ts = t.slice({Slice{0, 4}, Slice{0, 4}});
      EXPECT_TRUE(cusktest::arrays_close(ft::match_template(hv, ts), cusktest::host_copy(ft::match_template(dv, ts, {}, s)), 0, tol));
    }
  }
}

TEST(GpuFeatureTemplate, StaysOnItsStream) {
  CUSK_REQUIRE_GPU();
  const Array h = cusktest::random_array({512, 480}, DType::float32, 5);
  const Array t = h.slice({Slice{100, 140}, Slice{200, 232}}).copy();
  const Array d = h.to(Device::cuda()), td = t.to(Device::cuda());
  cuskimage::Stream().synchronize();
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    (void)ft::match_template(d, td, {.pad_input = true, .mode = ft::TemplatePadMode::reflect}, s);
  }));
}

}  // namespace
