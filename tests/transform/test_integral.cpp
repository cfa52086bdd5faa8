// integral_image and integrate against scikit-image's goldens (tests/golden/cases_transform_integral.py):
// 1-D to 3-D, integer (wrapping), bool and float inputs, explicit dtypes, windows with negative
// coordinates; then the GPU tier. The CPU backend runs numpy's sequential cumsum, so its results are
// equal to scikit-image's. GPU: integer results equal the CPU's exactly; float results are summed in
// another association (block scans, chunk prefixes): within 1e-12 relative of the CPU's (float64) plus
// an absolute 1e-13 * n * max|x| (the size of the largest partial sum, n the image size); float32
// accumulation within 1e-5 relative plus 1e-6 * n * max|x|.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/stream.hpp"
#include "cuskimage/transform.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Slice;
using cuskimage::Stream;
namespace tf = cuskimage::transform;

Array golden(const std::string& name) { return cusktest::load_golden("transform_integral/" + name + ".npy"); }

const std::vector<std::string> kKeys = {"1i", "2u", "2b", "2f", "2d", "3f", "2w"};

void run_goldens(const Device& dev, const Stream& s) {
  for (const auto& key : kKeys) {
    SCOPED_TRACE(key);
    const Array in = golden("in_" + key).to(dev, s);
    const Array want = golden("ii_" + key);
    const Array got = tf::integral_image(in, {}, s);
    if (dev.is_cpu() || !cuskimage::is_floating(want.dtype()))
      EXPECT_ARRAY_EQ(want, got);
    else
      EXPECT_ARRAY_NEAR(want, got, 1e-12, 1e-13 * static_cast<double>(in.size()) * 1e3);
  }
  const Array u = golden("in_2u").to(dev, s);
  EXPECT_ARRAY_EQ(golden("ii_2u_uint8"), tf::integral_image(u, {.dtype = DType::uint8}, s));
  EXPECT_ARRAY_EQ(golden("ii_2u_int32"), tf::integral_image(u, {.dtype = DType::int32}, s));
  EXPECT_ARRAY_EQ(golden("ii_2w_int32"), tf::integral_image(golden("in_2w").to(dev, s), {.dtype = DType::int32}, s));
  const Array f32 = tf::integral_image(golden("in_2f").to(dev, s), {.dtype = DType::float32}, s);
  if (dev.is_cpu())
    EXPECT_ARRAY_EQ(golden("ii_2f_float32"), f32);
  else
    EXPECT_ARRAY_NEAR(golden("ii_2f_float32"), f32, 1e-5, 1e-6 * 70 * 65 * 5);
  const Array ii = tf::integral_image(u, {}, s);
  EXPECT_ARRAY_EQ(golden("sums_2u"),
                  tf::integrate(ii, golden("win_start").to(dev, s), golden("win_end").to(dev, s), s));
  const Array ii3 = golden("ii_3f").to(dev, s);
  EXPECT_ARRAY_EQ(golden("sums_3f"),
                  tf::integrate(ii3, golden("win3_start").to(dev, s), golden("win3_end").to(dev, s), s));
}

}  // namespace

TEST(TransformIntegral, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(TransformIntegral, SingleWindowAndStridedView) {
  const Array big = cusktest::random_array({20, 30}, DType::int32, 3, -50, 50);
  const Array view = big.slice({Slice{1, 19, 2}, Slice{29, 0, -3}});
  EXPECT_ARRAY_EQ(tf::integral_image(view.copy()), tf::integral_image(view));
  const Array ii = tf::integral_image(view);
  const Array one = Array::from_vector<std::int64_t>({0, 0}, {2});
  const Array last = Array::from_vector<std::int64_t>({-1, -1}, {2});
  const Array sum = tf::integrate(ii, one, last);
  ASSERT_EQ(sum.shape(), (cuskimage::Shape{1}));
  EXPECT_EQ(sum.at<double>({0}), static_cast<double>(ii.at<std::int64_t>({8, 9})));
}

TEST(TransformIntegral, BadArguments) {
  const Array ii = tf::integral_image(Array::full({4, 5}, 1.0, DType::float64));
  const auto w = [](std::int64_t a, std::int64_t b) { return Array::from_vector<std::int64_t>({a, b}, {1, 2}); };
  EXPECT_THROW(tf::integrate(ii, w(2, 2), w(1, 3)), cuskimage::InvalidArgument);  // end before start
  EXPECT_THROW(tf::integrate(ii, w(0, 0), w(4, 1)), cuskimage::InvalidArgument);  // outside
  EXPECT_THROW(tf::integrate(ii, Array::from_vector<std::int64_t>({0, 0, 0}, {3}), w(1, 1)),
               cuskimage::InvalidArgument);  // wrong length
  EXPECT_THROW(tf::integrate(ii, Array::full({1, 2}, 0.0, DType::float64), w(1, 1)), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::integral_image(Array::full({}, 1.0, DType::float64)), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::integral_image(ii, {.dtype = DType::bool_}), cuskimage::InvalidArgument);
}

TEST(GpuTransformIntegral, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  run_goldens(Device::cuda(0), Stream());
}

TEST(GpuTransformIntegral, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s;
  for (const auto& shape : {cuskimage::Shape{517, 1031}, cuskimage::Shape{3000}, cuskimage::Shape{37, 45, 61},
                            cuskimage::Shape{300, 2}, cuskimage::Shape{2, 300}}) {
    for (DType dt : {DType::uint8, DType::int32, DType::float32, DType::float64}) {
      const Array h = cusktest::random_array(shape, dt, 11, 0, 100);
      const Array want = tf::integral_image(h);
      const Array got = tf::integral_image(h.to(Device::cuda(0), s), {}, s);
      if (cuskimage::is_floating(dt))
        EXPECT_ARRAY_NEAR(want, got, 1e-12, 1e-13 * static_cast<double>(h.size()) * 100);
      else
        EXPECT_ARRAY_EQ(want, got);
      EXPECT_ARRAY_EQ(tf::integral_image(h, {.dtype = DType::uint16}),
                      tf::integral_image(h.to(Device::cuda(0), s), {.dtype = DType::uint16}, s));
    }
  }
}

TEST(GpuTransformIntegral, StridedViewAndStream) {
  CUSK_REQUIRE_GPU();
  const Array h = cusktest::random_array({200, 300}, DType::int16, 5, -1000, 1000);
  const Array d = h.to(Device::cuda(0));
  const Array hv = h.slice({Slice{3, 190, 3}, Slice{1, 290, 2}});
  const Array dv = d.slice({Slice{3, 190, 3}, Slice{1, 290, 2}});
  EXPECT_ARRAY_EQ(tf::integral_image(hv), tf::integral_image(dv));
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    const Array ii = tf::integral_image(d, {}, s);
    (void)tf::integrate(ii, Array::from_vector<std::int64_t>({1, 2, 0, 0}, {2, 2}).to(Device::cuda(0), s),
                        Array::from_vector<std::int64_t>({5, 9, -1, -1}, {2, 2}).to(Device::cuda(0), s), s);
  }));
}
