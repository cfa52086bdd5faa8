// Helpers shared by the color tests: golden loading, the table of conversion functions by
// scikit-image name, and the tolerances of each result dtype.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cuskimage/color.hpp"
#include "tests/common/test_support.hpp"

namespace colortest {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;
namespace color = cuskimage::color;

inline Array golden(const std::string& name) { return cusktest::load_golden("color/" + name + ".npy"); }

/// A conversion called with its channel_axis and stream.
using Conv = std::function<Array(const Array&, int, const Stream&)>;

inline const std::map<std::string, Conv>& conversions() {
#define CUSK_CONV(fn) \
  {#fn, [](const Array& a, int ax, const Stream& s) { return color::fn(a, {.channel_axis = ax}, s); }}
  static const std::map<std::string, Conv> m = {
      CUSK_CONV(rgb2hsv),   CUSK_CONV(hsv2rgb),   CUSK_CONV(rgb2xyz),   CUSK_CONV(xyz2rgb),
      CUSK_CONV(rgb2rgbcie), CUSK_CONV(rgbcie2rgb), CUSK_CONV(rgb2gray), CUSK_CONV(rgb2lab),
      CUSK_CONV(lab2rgb),   CUSK_CONV(xyz2lab),   CUSK_CONV(lab2xyz),   CUSK_CONV(rgb2luv),
      CUSK_CONV(luv2rgb),   CUSK_CONV(xyz2luv),   CUSK_CONV(luv2xyz),   CUSK_CONV(rgb2hed),
      CUSK_CONV(hed2rgb),   CUSK_CONV(lab2lch),   CUSK_CONV(lch2lab),   CUSK_CONV(rgb2yuv),
      CUSK_CONV(yuv2rgb),   CUSK_CONV(rgb2yiq),   CUSK_CONV(yiq2rgb),   CUSK_CONV(rgb2ypbpr),
      CUSK_CONV(ypbpr2rgb), CUSK_CONV(rgb2ycbcr), CUSK_CONV(ycbcr2rgb), CUSK_CONV(rgb2ydbdr),
      CUSK_CONV(ydbdr2rgb),
  };
#undef CUSK_CONV
  return m;
}

inline const std::vector<std::string>& from_rgb() {
  static const std::vector<std::string> v = {"rgb2hsv", "rgb2xyz",  "rgb2rgbcie", "rgb2gray",  "rgb2lab",  "rgb2luv",
                                             "rgb2hed", "rgb2yuv",  "rgb2yiq",    "rgb2ypbpr", "rgb2ycbcr", "rgb2ydbdr"};
  return v;
}

inline const std::vector<std::string>& to_rgb() {
  static const std::vector<std::string> v = {"hsv2rgb",   "xyz2rgb", "rgbcie2rgb", "lab2rgb", "luv2rgb", "hed2rgb",
                                             "yuv2rgb",   "yiq2rgb", "ypbpr2rgb",  "ycbcr2rgb", "ydbdr2rgb",
                                             "xyz2lab",   "lab2xyz", "xyz2luv",    "luv2xyz", "lab2lch", "lch2lab"};
  return v;
}

/// Stated tolerances against scikit-image: float64 ~1e-12 relative, float32 ~1e-5 relative (plus an
/// absolute floor for values that cancel, e.g. Lab's a = 500 (fx - fy)).
inline double rtol_for(DType dt) { return dt == DType::float32 ? 1e-5 : 1e-12; }
inline double atol_for(DType dt) { return dt == DType::float32 ? 2e-4 : 1e-10; }

#define EXPECT_COLOR_NEAR(expected, actual)                                                       \
  do {                                                                                            \
    const ::cuskimage::Array& e_ = (expected);                                                   \
    const ::cuskimage::Array& a_ = (actual);                                                     \
    EXPECT_TRUE(::cusktest::arrays_close(e_, a_, ::colortest::rtol_for(a_.dtype()),             \
                                         ::colortest::atol_for(a_.dtype())));                    \
  } while (0)

/// Equal values elementwise (-0 equals +0, NaN equals NaN; infinities compare equal), any devices:
/// exact checks against NumPy results, which do not pin the sign of a zero maximum.
inline ::testing::AssertionResult values_equal(const Array& expected, const Array& actual) {
  if (expected.shape() != actual.shape())
    return ::testing::AssertionFailure() << "shape differs: " << cuskimage::shape_str(expected.shape()) << " vs "
                                         << cuskimage::shape_str(actual.shape());
  const std::vector<double> e = cusktest::host_copy(expected).astype(DType::float64).to_vector<double>();
  const std::vector<double> a = cusktest::host_copy(actual).astype(DType::float64).to_vector<double>();
  std::int64_t bad = 0, first = -1;
  double worst = 0;
  for (std::size_t i = 0; i < e.size(); ++i) {
    if (e[i] == a[i] || (std::isnan(e[i]) && std::isnan(a[i]))) continue;
    if (first < 0) first = static_cast<std::int64_t>(i);
    ++bad;
    worst = std::max(worst, std::abs(e[i] - a[i]));
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << e.size() << " values differ (largest by " << worst
                                       << "); first at flat index " << first << ": expected " << e[first] << ", got "
                                       << a[first];
}

/// A non-contiguous view with the same values (a reversed copy read backwards along axis 0).
inline Array strided_twin(const Array& a) {
  if (a.ndim() == 0 || a.shape()[0] == 0) return a.share();
  Array rev = a.slice({Slice{std::nullopt, std::nullopt, -1}}).copy();
  return rev.slice({Slice{std::nullopt, std::nullopt, -1}});
}

}  // namespace colortest
