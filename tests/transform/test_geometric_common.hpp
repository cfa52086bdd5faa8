// Shared helpers of the geometric transform tests: goldens and relative comparison of float64 data.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "cuskimage/transform/geometric.hpp"
#include "tests/common/test_support.hpp"

namespace geomtest {

using cuskimage::Array;
namespace tr = cuskimage::transform;

inline Array golden(const std::string& name) {
  return cusktest::load_golden("transform_geometric/" + name + ".npy");
}

/// Every value within `rel` of the golden's, relative to the golden's largest magnitude.
inline void expect_close(const std::vector<double>& got, const std::vector<double>& want, double rel,
                         const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 0.0;
  for (double w : want) scale = std::max(scale, std::abs(w));
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], rel * std::max(scale, 1e-300)) << what << " [" << i << "]";
}

inline void expect_close(const tr::Matrix& got, const std::string& golden_name, double rel = 1e-10) {
  const Array want = golden(golden_name);
  ASSERT_EQ(want.ndim(), 2) << golden_name;
  EXPECT_EQ(got.rows, want.shape(0)) << golden_name;
  EXPECT_EQ(got.cols, want.shape(1)) << golden_name;
  expect_close(got.data, want.to_vector<double>(), rel, golden_name);
}

inline void expect_close(const Array& got, const std::string& golden_name, double rel = 1e-10) {
  const Array want = golden(golden_name);
  EXPECT_EQ(got.shape(), want.shape()) << golden_name;
  expect_close(got.to_vector<double>(), want.to_vector<double>(), rel, golden_name);
}

inline Array points(const std::vector<double>& v, std::int64_t d) {
  return Array::from_vector(v, cuskimage::Shape{static_cast<std::int64_t>(v.size()) / d, d});
}

}  // namespace geomtest

namespace {
using cuskimage::Array;
using cuskimage::InvalidArgument;
using cuskimage::NotSupported;
using geomtest::expect_close;
using geomtest::golden;
using geomtest::points;
namespace tr = cuskimage::transform;
}  // namespace
