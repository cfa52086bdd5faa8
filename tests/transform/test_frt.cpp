// frt2 and ifrt2 against scikit-image's goldens (tests/golden/cases_transform_radon.py): exact
// (integer sums; float64 sums in numpy's row order), on both backends; the round trip on a prime size.
#include <gtest/gtest.h>

#include <string>

#include "cuskimage/transform.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Slice;
using cuskimage::Stream;
namespace tf = cuskimage::transform;

Array golden(const std::string& name) { return cusktest::load_golden("transform_radon/" + name + ".npy"); }

void frt_goldens(const Device& dev, const Stream& s) {
  for (const std::string key : {"u8", "i16", "f64", "b"}) {
    SCOPED_TRACE(key);
    const Array f = tf::frt2(golden("in_" + key).to(dev, s), s);
    EXPECT_ARRAY_EQ(golden("frt_" + key), f);
    EXPECT_ARRAY_EQ(golden("ifrt_" + key), tf::ifrt2(f, s));
  }
  EXPECT_ARRAY_EQ(golden("ifrt_u8raw"), tf::ifrt2(golden("raw_u8").to(dev, s), s));
}

}  // namespace

TEST(TransformFrt, Goldens) { frt_goldens(Device::cpu(), Stream()); }

TEST(TransformFrt, RoundTripAndErrors) {
  const Array a = cusktest::random_array({31, 31}, DType::uint16, 4, 0, 1000);
  EXPECT_ARRAY_EQ(a.astype(DType::float64), tf::ifrt2(tf::frt2(a)));
  EXPECT_THROW(tf::frt2(Array::zeros({3, 4}, DType::uint8)), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::ifrt2(Array::zeros({4, 4}, DType::uint32)), cuskimage::InvalidArgument);
  EXPECT_THROW(tf::ifrt2(Array::zeros({5, 4}, DType::int32)), cuskimage::InvalidArgument);
}

TEST(GpuTransformFrt, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  frt_goldens(Device::cuda(0), Stream());
}

TEST(GpuTransformFrt, MatchesCpuStridedAndStream) {
  CUSK_REQUIRE_GPU();
  const Array h = cusktest::random_array({202, 101}, DType::int32, 9, -1000, 1000);
  const Array hv = h.slice({Slice{0, 202, 2}, Slice{0, 101}});
  const Array dv = h.to(Device::cuda(0)).slice({Slice{0, 202, 2}, Slice{0, 101}});
  EXPECT_ARRAY_EQ(tf::frt2(hv), tf::frt2(dv));
  const Array u = cusktest::random_array({102, 101}, DType::uint32, 10);
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) {
    const Array d = u.to(Device::cuda(0), s);
    (void)tf::frt2(d.slice({Slice{0, 101}, Slice{0, 101}}), s);
    (void)tf::ifrt2(d, s);
  }));
  EXPECT_ARRAY_EQ(tf::ifrt2(u), tf::ifrt2(u.to(Device::cuda(0))));
}
