// Shared helpers of the pathology tests: golden loading and the "close up to a few rounding flips"
// comparison of 8-bit results.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>

#include "cuskimage/pathology.hpp"
#include "tests/common/test_support.hpp"

namespace pathtest {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;

inline Array golden(const std::string& name) { return cusktest::load_golden("pathology/" + name + ".npy"); }

/// Every |a - e| <= max_diff and at most max_fraction of the elements differ at all.
inline ::testing::AssertionResult nearly_equal(const Array& expected, const Array& actual, double max_diff,
                                               double max_fraction) {
  if (expected.shape() != actual.shape())
    return ::testing::AssertionFailure() << "shape " << cuskimage::shape_str(actual.shape()) << " != "
                                         << cuskimage::shape_str(expected.shape());
  const auto e = cusktest::host_copy(expected).to_vector<double>();
  const auto a = cusktest::host_copy(actual).to_vector<double>();
  std::size_t differ = 0;
  double worst = 0;
  for (std::size_t i = 0; i < e.size(); ++i) {
    const double d = std::fabs(e[i] - a[i]);
    if (d > 0) ++differ;
    worst = std::max(worst, d);
  }
  const double frac = e.empty() ? 0.0 : static_cast<double>(differ) / static_cast<double>(e.size());
  if (worst <= max_diff && frac <= max_fraction) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "max |diff| " << worst << " (allowed " << max_diff << "), " << differ
                                       << " of " << e.size() << " differ (allowed fraction " << max_fraction << ")";
}

}  // namespace pathtest
