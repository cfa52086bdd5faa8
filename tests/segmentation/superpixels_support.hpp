// Shared pieces of the superpixel tests (test_slic.cpp, test_felzenszwalb.cpp, test_quickshift.cpp):
// their goldens, a named case, and the count of pixels whose label differs between two results.
#pragma once

#include <cstdint>
#include <string>

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

/// Pixels whose label differs (any devices, same shape).
inline std::int64_t pixels_differing(const Array& a, const Array& b) {
  const auto x = cusktest::host_copy(a).to_vector<std::int64_t>(), y = cusktest::host_copy(b).to_vector<std::int64_t>();
  std::int64_t d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) d += x[i] != y[i];
  return d;
}

}  // namespace superpixels_test
