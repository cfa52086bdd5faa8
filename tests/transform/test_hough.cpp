// hough_line, hough_line_peaks, hough_circle, hough_circle_peaks, probabilistic_hough_line and
// hough_ellipse against scikit-image's goldens (tests/golden/cases_transform_hough.py). Accumulators
// and peaks are exact (integer counts; hough_circle's float sums add one increment repeatedly, which
// the CPU performs in scikit-image's order); probabilistic_hough_line equals scikit-image's lines for
// the same seed. GPU tier: hough_line / hough_circle on the device equal the CPU backend exactly.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/transform.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Slice;
using cuskimage::Stream;
namespace tf = cuskimage::transform;

Array golden(const std::string& name) { return cusktest::load_golden("transform_hough/" + name + ".npy"); }
std::vector<double> gvec(const std::string& name) { return golden(name).astype(DType::float64).to_vector<double>(); }
const std::vector<std::int64_t> kRadii = {4, 7, 10};

void hough_goldens(const Device& dev, const Stream& s) {
  for (const std::string key : {"lines", "lines_u8"}) {
    const tf::HoughLineResult r = tf::hough_line(golden(key).to(dev, s), {}, s);
    ASSERT_EQ(r.hspace.dtype(), DType::uint64);
    EXPECT_ARRAY_EQ(golden("hl_default"), r.hspace.astype(DType::uint16, s));
    EXPECT_EQ(r.angles, golden("hl_angles").to_vector<double>());
    EXPECT_EQ(r.distances, golden("hl_dists").to_vector<double>());
  }
  const std::vector<double> theta = golden("hl_theta").to_vector<double>();
  EXPECT_ARRAY_EQ(golden("hl_custom"), tf::hough_line(golden("lines").to(dev, s), {.theta = theta}, s).hspace);
  const Array circ = golden("circles").to(dev, s);
  EXPECT_ARRAY_EQ(golden("hc_norm"), tf::hough_circle(circ, kRadii, {}, s));
  EXPECT_ARRAY_EQ(golden("hc_raw"), tf::hough_circle(circ, kRadii, {.normalize = false}, s));
  EXPECT_ARRAY_EQ(golden("hc_full"), tf::hough_circle(circ, {3, 6}, {.full_output = true}, s));
}

}  // namespace

TEST(TransformHough, Goldens) { hough_goldens(Device::cpu(), Stream()); }

TEST(TransformHough, LinePeaks) {
  const tf::HoughLineResult r = tf::hough_line(golden("lines"));
  const std::vector<tf::HoughLinePeaksOptions> opts = {
      {}, {.num_peaks = 3}, {.min_distance = 3, .min_angle = 4, .threshold = 6}, {.min_angle = 200}};
  for (std::size_t k = 0; k < opts.size(); ++k) {
    SCOPED_TRACE(k);
    const tf::HoughLinePeaksResult p = tf::hough_line_peaks(r.hspace, r.angles, r.distances, opts[k]);
    const std::string b = "peaks_" + std::to_string(k);
    EXPECT_EQ(p.accum, gvec(b + "_h"));
    EXPECT_EQ(p.angles, gvec(b + "_a"));
    EXPECT_EQ(p.distances, gvec(b + "_d"));
  }
}

TEST(TransformHough, CirclePeaks) {
  const Array hc = golden("hc_norm");
  const std::vector<tf::HoughCirclePeaksOptions> opts = {
      {},
      {.min_xdistance = 5, .min_ydistance = 5},
      {.total_num_peaks = 3, .normalize = true},
      {.min_xdistance = 3, .min_ydistance = 2, .threshold = 0.3, .num_peaks = 2}};
  for (std::size_t k = 0; k < opts.size(); ++k) {
    SCOPED_TRACE(k);
    const tf::HoughCirclePeaksResult p = tf::hough_circle_peaks(hc, kRadii, opts[k]);
    const std::string b = "hcp_" + std::to_string(k);
    EXPECT_EQ(p.accum, gvec(b + "_h"));
    EXPECT_EQ(p.cx, golden(b + "_x").to_vector<std::int64_t>());
    EXPECT_EQ(p.cy, golden(b + "_y").to_vector<std::int64_t>());
    EXPECT_EQ(p.radii, golden(b + "_r").to_vector<std::int64_t>());
  }
}

TEST(TransformHough, ProbabilisticSameSeed) {
  const Array img = golden("lines");
  const std::vector<double> t30 = golden("phl_theta").to_vector<double>();
  const std::vector<tf::ProbabilisticHoughLineOptions> opts = {
      {.rng = 7},
      {.threshold = 5, .line_length = 10, .line_gap = 3, .rng = 123},
      {.threshold = 3, .line_length = 5, .line_gap = 1, .rng = (std::uint64_t(1) << 40) + 5},
      {.threshold = 4, .line_length = 8, .line_gap = 2, .theta = t30, .rng = 0}};
  for (std::size_t k = 0; k < opts.size(); ++k) {
    SCOPED_TRACE(k);
    std::vector<std::int64_t> flat;
    for (const auto& l : tf::probabilistic_hough_line(img, opts[k])) flat.insert(flat.end(), {l[0][0], l[0][1], l[1][0], l[1][1]});
    EXPECT_EQ(flat, golden("phl_" + std::to_string(k)).to_vector<std::int64_t>());
  }
  // A device image gives the same lines (the transform runs on the host).
  if (cuskimage::cuda_available())
    EXPECT_EQ(tf::probabilistic_hough_line(img.to(Device::cuda(0)), opts[1]), tf::probabilistic_hough_line(img, opts[1]));
}

TEST(TransformHough, Ellipse) {
  const Array img = golden("ellipse");
  const std::vector<tf::HoughEllipseOptions> opts = {{.threshold = 8},
                                                     {.threshold = 4, .accuracy = 2, .min_size = 3, .max_size = 9}};
  for (std::size_t k = 0; k < opts.size(); ++k) {
    SCOPED_TRACE(k);
    const std::vector<tf::HoughEllipse> r = tf::hough_ellipse(img, opts[k]);
    std::vector<double> flat;
    for (const auto& e : r)
      flat.insert(flat.end(), {static_cast<double>(e.accumulator), e.yc, e.xc, e.a, e.b, e.orientation});
    EXPECT_EQ(flat, gvec("he_" + std::to_string(k)));
  }
  EXPECT_TRUE(tf::hough_ellipse(Array::zeros({5, 5}, DType::uint8)).empty());
}

TEST(TransformHough, BadArguments) {
  const Array three = Array::zeros({3, 4, 5}, DType::uint8);
  EXPECT_THROW(tf::hough_line(three), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::hough_circle(three, {3}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::hough_circle(Array::zeros({4, 5}, DType::uint8), {-1}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::probabilistic_hough_line(three), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::hough_ellipse(three), cuskimage::InvalidArgument);
  const tf::HoughLineResult r = tf::hough_line(Array::zeros({4, 5}, DType::uint8));
  EXPECT_THROW(tf::hough_line_peaks(r.hspace, {1.0}, r.distances), cuskimage::InvalidArgument);
}

TEST(GpuTransformHough, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  hough_goldens(Device::cuda(0), Stream());
}

TEST(GpuTransformHough, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s;
  for (const auto& shape : {cuskimage::Shape{301, 517}, cuskimage::Shape{1024, 1024}, cuskimage::Shape{1, 7}}) {
    const Array h = cusktest::random_array(shape, DType::float32, 21, 0, 1);
    Array edges = Array::empty(shape, DType::uint8);
    const std::vector<float> v = h.to_vector<float>();
    for (std::size_t i = 0; i < v.size(); ++i) static_cast<std::uint8_t*>(edges.data())[i] = v[i] > 0.9f;
    const Array d = edges.to(Device::cuda(0), s);
    EXPECT_ARRAY_EQ(tf::hough_line(edges).hspace, tf::hough_line(d, {}, s).hspace);
    EXPECT_ARRAY_EQ(tf::hough_circle(edges, {2, 9, 15}), tf::hough_circle(d, {2, 9, 15}, {}, s));
    EXPECT_ARRAY_EQ(tf::hough_circle(edges, {5}, {.normalize = false, .full_output = true}),
                    tf::hough_circle(d, {5}, {.normalize = false, .full_output = true}, s));
  }
  // A long distance axis (the global-atomics path) and a float image.
  const Array tall = cusktest::random_array({30000, 4}, DType::float64, 3, -1, 1);
  EXPECT_ARRAY_EQ(tf::hough_line(tall).hspace, tf::hough_line(tall.to(Device::cuda(0), s), {}, s).hspace);
}

TEST(GpuTransformHough, StridedViewAndStream) {
  CUSK_REQUIRE_GPU();
  const Array h = golden("lines");
  const Array d = h.to(Device::cuda(0));
  const Array hv = h.slice({Slice{1, 40, 2}, Slice{0, 50, 3}});
  const Array dv = d.slice({Slice{1, 40, 2}, Slice{0, 50, 3}});
  EXPECT_ARRAY_EQ(tf::hough_line(hv).hspace, tf::hough_line(dv).hspace);
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    (void)tf::hough_line(d, {}, s);
    (void)tf::hough_circle(d, {3, 5}, {}, s);
  }));
}
