// match_descriptors against scikit-image 0.26's goldens (tests/golden/cases_feature_keypoints.py):
// bool descriptors (hamming by default) and float64 ones with duplicate rows (argmin ties), every
// supported metric, cross_check on and off, max_distance, max_ratio. Indices exactly. Then bad
// arguments and the GPU tier.
#include <gtest/gtest.h>

#include <string>

#include "cuskimage/error.hpp"
#include "cuskimage/feature.hpp"
#include "tests/common/test_support.hpp"

namespace {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::InvalidArgument;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

Array golden(const std::string& name) { return cusktest::load_golden("feature_keypoints/" + name + ".npy"); }

ft::MatchDescriptorsOptions case_options(const std::vector<double>& p) {
  ft::MatchDescriptorsOptions o{.p = p[1], .max_distance = p[2], .cross_check = p[3] != 0, .max_ratio = p[4]};
  if (p[0] >= 0) o.metric = static_cast<ft::MatchMetric>(static_cast<int>(p[0]));
  return o;
}

void run_goldens(const Device& dev, const Stream& s) {
  const int n = static_cast<int>(golden("ncases").to_vector<double>()[1]);
  const Array b1 = golden("match_b1").to(dev, s), b2 = golden("match_b2").to(dev, s);
  const Array f1 = golden("match_f1").to(dev, s), f2 = golden("match_f2").to(dev, s);
  for (int c = 0; c < n; ++c) {
    SCOPED_TRACE("match case " + std::to_string(c));
    const auto p = golden("match_p_" + std::to_string(c)).to_vector<double>();
    const Array got = p[5] == 0 ? ft::match_descriptors(b1, b2, case_options(p), s)
                                : ft::match_descriptors(f1, f2, case_options(p), s);
    EXPECT_EQ(got.device(), dev);
    EXPECT_TRUE(cusktest::arrays_equal(golden("match_out_" + std::to_string(c)), cusktest::host_copy(got)));
  }
}

TEST(FeatureMatch, Goldens) { run_goldens(Device::cpu(), Stream()); }

TEST(FeatureMatch, EmptyAndSingle) {
  const Array a = cusktest::random_array({3, 4}, DType::float64, 1, 0, 1);
  const Array none = Array::zeros({0, 4}, DType::float64);
  const Array out = ft::match_descriptors(none, a, {.cross_check = false});
  EXPECT_EQ(out.shape(0), 0);
  EXPECT_EQ(out.shape(1), 2);
  // One candidate: no second best (infinite), every ratio passes.
  const Array one = ft::match_descriptors(a, a.slice({cuskimage::Slice{0, 1}}), {.cross_check = false, .max_ratio = 0.5});
  EXPECT_EQ(one.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 0, 1, 0, 2, 0}));
}

TEST(FeatureMatch, BadArguments) {
  const Array a = cusktest::random_array({3, 4}, DType::float64, 1, 0, 1);
  EXPECT_THROW(ft::match_descriptors(a, Array::zeros({3, 5}, DType::float64)), InvalidArgument);
  EXPECT_THROW(ft::match_descriptors(a, Array::zeros({12}, DType::float64)), InvalidArgument);
  EXPECT_THROW(ft::match_descriptors(a, Array::zeros({0, 4}, DType::float64)), InvalidArgument);
  EXPECT_THROW(ft::match_descriptors(Array::zeros({0, 4}, DType::float64), a), InvalidArgument);
  EXPECT_THROW(ft::match_descriptors(a, a, {.metric = ft::MatchMetric::minkowski, .p = 0}), InvalidArgument);
}

TEST(GpuFeatureMatch, GoldensOnDevice) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  run_goldens(Device::cuda(), s);
}

TEST(GpuFeatureMatch, MatchesCpu) {
  CUSK_REQUIRE_GPU();
  const Stream s = Stream::create();
  const Array b1 = cusktest::random_array({700, 256}, DType::bool_, 3);
  const Array b2 = cusktest::random_array({650, 256}, DType::bool_, 4);
  const Array f1 = cusktest::random_array({300, 128}, DType::float32, 5, -1, 1);
  const Array f2 = cusktest::random_array({333, 128}, DType::float32, 6, -1, 1);
  for (int m = 0; m <= static_cast<int>(ft::MatchMetric::jaccard); ++m)
    for (bool cc : {true, false}) {
      SCOPED_TRACE(std::to_string(m) + (cc ? " cross" : ""));
      const ft::MatchDescriptorsOptions o{.metric = static_cast<ft::MatchMetric>(m), .p = 3, .cross_check = cc,
                                          .max_ratio = 0.95};
      const bool binary = m == static_cast<int>(ft::MatchMetric::hamming) || m == static_cast<int>(ft::MatchMetric::jaccard);
      const Array& x = binary ? b1 : f1;
      const Array& y = binary ? b2 : f2;
      const Array want = ft::match_descriptors(x, y, o);
      EXPECT_TRUE(cusktest::arrays_equal(want, cusktest::host_copy(ft::match_descriptors(
                                                   x.to(Device::cuda(), s), y.to(Device::cuda(), s), o, s))));
    }
  // a table past 2^26 entries: row chunks, the cross check's column minima merged across them
  const Array g1 = cusktest::random_array({9000, 4}, DType::float32, 9, 0, 4);
  const Array g2 = cusktest::random_array({8000, 4}, DType::float32, 10, 0, 4);
  EXPECT_TRUE(cusktest::arrays_equal(ft::match_descriptors(g1, g2, {.metric = ft::MatchMetric::cityblock}),
                                     cusktest::host_copy(ft::match_descriptors(
                                         g1.to(Device::cuda(), s), g2.to(Device::cuda(), s),
                                         {.metric = ft::MatchMetric::cityblock}, s))));
  // a strided view
  const Array fv = f1.slice({cuskimage::Slice{std::nullopt, std::nullopt, 2}});
  EXPECT_TRUE(cusktest::arrays_equal(ft::match_descriptors(fv, f2),
                                     cusktest::host_copy(ft::match_descriptors(fv.to(Device::cuda(), s),
                                                                               f2.to(Device::cuda(), s), {}, s))));
}

TEST(GpuFeatureMatch, RunsWithoutLegacyStream) {
  CUSK_REQUIRE_GPU();
  const Array a = cusktest::random_array({200, 64}, DType::bool_, 7).to(Device::cuda());
  const Array b = cusktest::random_array({150, 64}, DType::bool_, 8).to(Device::cuda());
  EXPECT_TRUE(cusktest::runs_without_legacy_stream([&](const Stream& s) { ft::match_descriptors(a, b, {.max_ratio = 0.9}, s); }));
}

}  // namespace
