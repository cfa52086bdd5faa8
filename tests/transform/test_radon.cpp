// radon, iradon_sart and order_angles_golden_ratio against scikit-image's goldens
// (tests/golden/cases_transform_radon.py). iradon_sart runs scikit-image's float / double arithmetic
// step for step: equal to within a few ulps (1e-12 relative for float64, 1e-5 for float32, where
// libm's cos/sin/sqrt may differ from the build scikit-image used by an ulp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuskimage/transform.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;
namespace tf = cuskimage::transform;

Array golden(const std::string& name) { return cusktest::load_golden("transform_radon/" + name + ".npy"); }
std::vector<double> gvec(const std::string& name) { return golden(name).astype(DType::float64).to_vector<double>(); }

::testing::AssertionResult near(const Array& want, const Array& got) {
  if (want.dtype() != got.dtype()) return ::testing::AssertionFailure() << "dtype " << got.str();
  return want.dtype() == DType::float32 ? cusktest::arrays_close(want, got, 1e-5, 1e-6)
                                        : cusktest::arrays_close(want, got, 1e-12, 1e-13);
}

void sart_goldens(const Device& dev, const Stream& s) {
  const Array f64 = golden("sino_f64").to(dev, s);
  const std::vector<double> theta = gvec("golden_theta_0");
  EXPECT_TRUE(near(golden("sart_f64"), tf::iradon_sart(f64, {}, s)));
  EXPECT_TRUE(near(golden("sart_f64_theta"), tf::iradon_sart(f64, {.theta = theta}, s)));
  EXPECT_TRUE(near(golden("sart_f32"), tf::iradon_sart(golden("sino_f32").to(dev, s), {}, s)));
  EXPECT_TRUE(near(golden("sart_f64_as_f32"), tf::iradon_sart(f64, {.dtype = DType::float32}, s)));
  EXPECT_TRUE(near(golden("sart_u8"), tf::iradon_sart(golden("sino_u8").to(dev, s), {}, s)));
  const Array first = golden("sart_f64_theta").to(dev, s);
  EXPECT_TRUE(near(golden("sart_f64_second"),
                   tf::iradon_sart(f64, {.theta = theta, .image = first.copy(s), .clip = std::array<double, 2>{0, 1},
                                         .relaxation = 0.3},
                                   s)));
  EXPECT_TRUE(near(golden("sart_f64_shift"), tf::iradon_sart(f64, {.projection_shifts = gvec("sart_shifts")}, s)));
  EXPECT_TRUE(near(golden("sart_f32_second"),
                   tf::iradon_sart(golden("sino_f32").to(dev, s),
                                   {.image = first.astype(DType::float32, s), .clip = std::array<double, 2>{0.1, 0.9}},
                                   s)));
}

}  // namespace

TEST(TransformRadon, SartGoldens) { sart_goldens(Device::cpu(), Stream()); }

TEST(TransformRadon, GoldenRatioOrder) {
  for (int k = 0; k < 3; ++k)
    EXPECT_EQ(tf::order_angles_golden_ratio(gvec("golden_theta_" + std::to_string(k))),
              golden("golden_" + std::to_string(k)).to_vector<std::int64_t>())
        << k;
  EXPECT_EQ(tf::order_angles_golden_ratio(gvec("golden_theta_f32"), true), golden("golden_f32").to_vector<std::int64_t>());
}

TEST(TransformRadon, SartBadArguments) {
  const Array sino = golden("sino_f64");
  EXPECT_THROW(tf::iradon_sart(Array::zeros({4}, DType::float64)), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::iradon_sart(sino, {.theta = {1.0, 2.0}}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::iradon_sart(sino, {.projection_shifts = {1.0}}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::iradon_sart(sino, {.image = Array::zeros({3, 3}, DType::float64)}), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::iradon_sart(sino, {.dtype = DType::int32}), cuskimage::InvalidArgument);
}

TEST(GpuTransformRadon, SartOnDevice) {
  CUSK_REQUIRE_GPU();
  sart_goldens(Device::cuda(0), Stream());
}
