// peak_local_max and corner_peaks against scikit-image 0.26's goldens (tests/golden/
// cases_feature_peak.py): 2-D float64 with plateau ties, float32, uint8, int16 (negative
// threshold), a distance transform with labels, 3-D; every parameter. Coordinates exactly, in
// scikit-image's order. Then bad arguments, and the GPU tier (device == CPU on fresh inputs,
// strided views, a non-default stream).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "cuskimage/ndimage.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

Array golden(const std::string& name) { return cusktest::load_golden("feature_peak/" + name + ".npy"); }

std::optional<double> opt(double v) { return std::isnan(v) ? std::nullopt : std::optional<double>(v); }
std::optional<std::int64_t> lim(double v) {
  return std::isinf(v) ? std::nullopt : std::optional<std::int64_t>(static_cast<std::int64_t>(v));
}

/// Runs golden case n on `dev`; returns (expected, actual).
std::pair<Array, Array> run_case(int n, const Device& dev, const Stream& s) {
  const auto p = golden("p_" + std::to_string(n)).to_vector<double>();
  const Array img = golden("img_" + std::to_string(static_cast<int>(p[0]))).to(dev, s);
  const int nd = img.ndim();
  ft::ExcludeBorder eb = true;
  const int kind = static_cast<int>(p[4]);
  if (kind == 1) eb = false;
  if (kind == 2) eb = static_cast<std::int64_t>(p[5]);
  if (kind == 3) eb = std::vector<std::int64_t>(p.begin() + 5, p.begin() + 5 + nd);
  Array fp = p[11] < 0 ? Array() : golden("fp_" + std::to_string(static_cast<int>(p[11]))).to(dev, s);
  Array lab = p[12] < 0 ? Array() : golden("lab_" + std::to_string(static_cast<int>(p[12]))).to(dev, s);
  const int fn = static_cast<int>(p[13]);
  Array out;
  if (fn == 0) {
    ft::PeakLocalMaxOptions o{.min_distance = static_cast<std::int64_t>(p[1]), .threshold_abs = opt(p[2]),
                              .threshold_rel = opt(p[3]), .exclude_border = eb, .num_peaks = lim(p[8]),
                              .footprint = std::move(fp), .labels = std::move(lab),
                              .num_peaks_per_label = lim(p[9]), .p_norm = p[10]};
    out = ft::peak_local_max(img, o, s);
  } else {
    ft::CornerPeaksOptions o{.min_distance = static_cast<std::int64_t>(p[1]), .threshold_abs = opt(p[2]),
                             .threshold_rel = opt(p[3]), .exclude_border = eb, .indices = fn == 1,
                             .num_peaks = lim(p[8]), .footprint = std::move(fp), .labels = std::move(lab),
                             .num_peaks_per_label = lim(p[9]), .p_norm = p[10]};
    out = ft::corner_peaks(img, o, s);
  }
  EXPECT_EQ(out.device(), dev);
  return {golden("out_" + std::to_string(n)), cusktest::host_copy(out)};
}

void run_goldens(const Device& dev, const Stream& s) {
  const auto count = golden("ncases").to_vector<std::int64_t>()[0];
  ASSERT_GE(count, 40);
  for (int n = 0; n < count; ++n) {
    SCOPED_TRACE("case " + std::to_string(n));
    const auto [want, got] = run_case(n, dev, s);
    EXPECT_TRUE(cusktest::arrays_equal(want, got));
  }
}

TEST(FeaturePeak, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(FeaturePeak, DocstringExamples) {
  Array img = Array::zeros({7, 7}, DType::float64);
  img.data<double>()[3 * 7 + 4] = 1;
  img.data<double>()[3 * 7 + 2] = 1.5;
  EXPECT_EQ(ft::peak_local_max(img).to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 2, 3, 4}));
  EXPECT_EQ(ft::peak_local_max(img, {.min_distance = 2}).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{3, 2}));
  Array r = Array::zeros({5, 5}, DType::float64);
  for (int i : {12, 13, 17, 18}) r.data<double>()[i] = 1;
  EXPECT_EQ(ft::peak_local_max(r).shape(), (Shape{4, 2}));
  EXPECT_EQ(ft::corner_peaks(r).to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 2}));
}

TEST(FeaturePeak, BadArguments) {
  const Array img = cusktest::random_array({16, 16}, DType::float64, 5);
  using cuskimage::InvalidArgument;
  EXPECT_THROW(ft::peak_local_max(img, {.min_distance = -1}), InvalidArgument);
  EXPECT_THROW(ft::peak_local_max(img, {.exclude_border = -2}), InvalidArgument);
  EXPECT_THROW(ft::peak_local_max(img, {.exclude_border = std::vector<std::int64_t>{1, 2, 3}}), InvalidArgument);
  EXPECT_THROW(ft::peak_local_max(img, {.p_norm = 0.5}), InvalidArgument);
  EXPECT_THROW(ft::peak_local_max(img, {.labels = Array::zeros({16, 15}, DType::int32)}), InvalidArgument);
  EXPECT_THROW(ft::peak_local_max(img, {.labels = Array::zeros({16, 16}, DType::float32)}), InvalidArgument);
  EXPECT_THROW(ft::peak_local_max(img, {.footprint = Array::zeros({3}, DType::bool_)}), InvalidArgument);
  EXPECT_THROW(ft::peak_local_max(Array::zeros({4, 4}, DType::bool_)), InvalidArgument);
  EXPECT_THROW(ft::corner_peaks(img, {.num_peaks = -1}), InvalidArgument);
}

// ---- GPU tier ------------------------------------------------------------------------------------------

Array smooth(const Shape& shape, DType dt, std::uint64_t seed) {
  const Array r = cusktest::random_array(shape, DType::float64, seed, 0, 100);
  return cuskimage::ndimage::gaussian_filter(r, 2.0).astype(dt);
}

void expect_same(const Array& h, const Array& d, const ft::PeakLocalMaxOptions& o, const Stream& s) {
  const Array want = ft::peak_local_max(h, o);
  const Array got = ft::peak_local_max(d, o, s);
  EXPECT_EQ(got.device(), d.device());
  EXPECT_TRUE(cusktest::arrays_equal(want, cusktest::host_copy(got)));
}

TEST(GpuFeaturePeak, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s);
}

TEST(GpuFeaturePeak, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  std::uint64_t seed = 40;
  for (const Shape& shape : {Shape{300, 257}, Shape{24, 40, 37}})
    for (DType dt : {DType::float32, DType::float64, DType::uint8, DType::int16}) {
      const Array h = smooth(shape, dt, seed++);
      const Array d = h.to(Device::cuda(), s);
      for (std::int64_t md : {1, 3, 7}) {
        SCOPED_TRACE(std::to_string(md));
        expect_same(h, d, {.min_distance = md}, s);
        expect_same(h, d, {.min_distance = md, .threshold_rel = 0.3, .exclude_border = false, .p_norm = 2}, s);
        const Array lab = cusktest::random_array(shape, DType::int32, seed++, 0, 5);
        ft::PeakLocalMaxOptions o{.min_distance = md, .num_peaks = 50, .labels = lab.to(Device::cuda(), s),
                                  .num_peaks_per_label = 20};
        const Array want = ft::peak_local_max(h, {.min_distance = md, .num_peaks = 50, .labels = lab.share(),
                                                  .num_peaks_per_label = 20});
        EXPECT_TRUE(cusktest::arrays_equal(want, cusktest::host_copy(ft::peak_local_max(d, o, s))));
      }
      Array box3 = Array::full(Shape(shape.size(), 3), 1.0, DType::bool_);
      expect_same(h, d, {.min_distance = 2, .footprint = std::move(box3)}, s);
      const Array cw = ft::corner_peaks(h, {.min_distance = 4, .p_norm = 2});
      EXPECT_TRUE(cusktest::arrays_equal(cw, cusktest::host_copy(ft::corner_peaks(d, {.min_distance = 4, .p_norm = 2}, s))));
      // a strided view
      const Array hv = h.slice({Slice{std::nullopt, std::nullopt, 2}});
      const Array dv = d.slice({Slice{std::nullopt, std::nullopt, 2}});
      expect_same(hv, dv, {.min_distance = 2}, s);
    }
}

}  // namespace
