// Shared pieces of the superpixel tests (test_slic.cpp, test_felzenszwalb.cpp, test_quickshift.cpp):
// their goldens, a named case, and the count of pixels whose label differs between two results.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "cuskimage/segmentation.hpp"
#include "tests/common/test_support.hpp"

namespace superpixels_test {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;
namespace seg = cuskimage::segmentation;

inline Array golden(const std::string& name) {
  return cusktest::load_golden("segmentation_superpixels/" + name + ".npy");
}

/// One golden case: output name, input key (in_<image>.npy) and the options.
template <class Options>
struct Case {
  std::string name, image;
  Options opts;
};

/// Pixels on which two label images disagree as partitions: for every label of `a`, its pixels
/// outside the label of `b` that covers most of them. Label numbers themselves are not compared: both
/// methods number segments in raster order, so one segment more or less early in the image would
/// renumber every later one without changing them.
inline std::int64_t pixels_differing(const Array& a, const Array& b) {
  const auto x = cusktest::host_copy(a).to_vector<std::int64_t>(), y = cusktest::host_copy(b).to_vector<std::int64_t>();
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> pairs;
  for (std::size_t i = 0; i < x.size(); ++i) ++pairs[{x[i], y[i]}];
  std::map<std::int64_t, std::int64_t> best;
  for (const auto& [k, n] : pairs) best[k.first] = std::max(best[k.first], n);
  std::int64_t agree = 0;
  for (const auto& [k, n] : best) agree += n;
  return static_cast<std::int64_t>(x.size()) - agree;
}

}  // namespace superpixels_test
