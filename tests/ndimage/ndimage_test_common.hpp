// Shared pieces of the ndimage tests: the golden case table (the same cases as
// tests/golden/cases_ndimage.py), dtype lists and the float tolerances.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cuskimage/ndimage.hpp"
#include "tests/common/test_support.hpp"

namespace ndtest {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;
using cuskimage::ndimage::Mode;
namespace nd = cuskimage::ndimage;

inline const std::vector<std::string> kModeNames = {"reflect", "mirror", "nearest", "wrap", "constant"};
inline const std::vector<std::string> kDtypes = {"uint8", "uint16", "int32", "float32", "float64"};

inline Array golden(const std::string& name) { return cusktest::load_golden("ndimage/" + name + ".npy"); }

/// cases_ndimage.py's cval_for.
inline double cval_for(DType dt) { return cuskimage::is_floating(dt) ? 2.5 : 7.0; }

/// Exact for integer and bool outputs; 1e-5 relative for float32, 1e-12 for float64.
inline ::testing::AssertionResult matches(const Array& expected, const Array& actual) {
  if (expected.dtype() == DType::float32) return cusktest::arrays_close(expected, actual, 1e-5, 1e-5);
  if (expected.dtype() == DType::float64) return cusktest::arrays_close(expected, actual, 1e-12, 1e-12);
  return cusktest::arrays_equal(expected, actual);
}

struct Case {
  std::string name;  // golden prefix: <name>_<mode>_<dtype>
  int ndim;          // which input: in2_* or in3_*
  bool rank;         // also run on bool
  std::function<Array(const Array&, Mode, double, const Stream&)> run;
};

inline std::vector<Case> cases() {
  using FO = nd::FilterOptions;
  std::vector<Case> c;
  auto w = [](const char* n) { return golden(std::string("w_") + n); };
  c.push_back({"c1d_w5_ax0", 2, false, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::correlate1d(a, w("w5"), {.axis = 0, .mode = m, .cval = cv}, s);
               }});
  c.push_back({"c1d_w4_o1", 2, false, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::correlate1d(a, w("w4"), {.axis = -1, .mode = m, .cval = cv, .origin = 1}, s);
               }});
  c.push_back({"c1d_w3a", 2, false, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::correlate1d(a, w("w3a"), {.axis = 1, .mode = m, .cval = cv}, s);
               }});
  c.push_back({"c1d_w7n", 2, false, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::correlate1d(a, w("w7n"), {.axis = 0, .mode = m, .cval = cv}, s);
               }});
  c.push_back({"cv1d_w4", 2, false, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::convolve1d(a, w("w4"), {.axis = 1, .mode = m, .cval = cv, .origin = -1}, s);
               }});
  c.push_back({"c2d", 2, false, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::correlate(a, w("w2d"), FO{.mode = m, .cval = cv, .origin = {0, 1}}, s);
               }});
  c.push_back({"cv2d", 2, false, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::convolve(a, w("w2d"), FO{.mode = m, .cval = cv}, s);
               }});
  c.push_back({"c3d", 3, false, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::correlate(a, w("w3d"), FO{.mode = m, .cval = cv}, s);
               }});
  c.push_back({"u1d", 2, false, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::uniform_filter1d(a, 4, {.axis = 0, .mode = m, .cval = cv}, s);
               }});
  c.push_back({"u2d", 2, false, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::uniform_filter(a, {.size = {3, 5}, .mode = m, .cval = cv, .origin = {1, 0}}, s);
               }});
  c.push_back({"u3d", 3, false, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::uniform_filter(a, {.size = {3}, .mode = m, .cval = cv}, s);
               }});
  c.push_back({"min1d", 2, true, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::minimum_filter1d(a, 4, {.axis = 1, .mode = m, .cval = cv}, s);
               }});
  c.push_back({"max1d", 2, true, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::maximum_filter1d(a, 5, {.axis = 0, .mode = m, .cval = cv, .origin = -2}, s);
               }});
  c.push_back({"min2d", 2, true, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::minimum_filter(a, {.size = {3, 4}, .mode = m, .cval = cv}, s);
               }});
  c.push_back({"max2d", 2, true, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::maximum_filter(a, {.size = {5, 2}, .mode = m, .cval = cv}, s);
               }});
  c.push_back({"minfp", 2, true, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::minimum_filter(a, {.footprint = w("fp2"), .mode = m, .cval = cv}, s);
               }});
  c.push_back({"maxfp", 2, true, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::maximum_filter(a, {.footprint = w("fp2"), .mode = m, .cval = cv, .origin = {1, -1}}, s);
               }});
  c.push_back({"max3d", 3, true, [=](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::maximum_filter(a, {.footprint = w("fp3"), .mode = m, .cval = cv}, s);
               }});
  return c;
}

/// The tiny-axis cases (small<shape>_<mode>_<dtype>), windows wider than the axis.
inline std::vector<Case> small_cases() {
  std::vector<Case> c;
  c.push_back({"c1d", 2, false, [](const Array& a, Mode m, double cv, const Stream& s) {
                 std::vector<double> w(9);
                 for (int i = 0; i < 9; ++i) w[i] = (i + 1) / 7.0;
                 return nd::correlate1d(a, Array::from_vector(w, {9}), {.axis = 0, .mode = m, .cval = cv}, s);
               }});
  c.push_back({"c2d", 2, false, [](const Array& a, Mode m, double cv, const Stream& s) {
                 std::vector<double> w(35);
                 for (int i = 0; i < 5; ++i)
                   for (int j = 0; j < 7; ++j) w[i * 7 + j] = (i + 1) * (j + 1) / 20.0;
                 return nd::correlate(a, Array::from_vector(w, {5, 7}), {.mode = m, .cval = cv}, s);
               }});
  c.push_back({"u", 2, false, [](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::uniform_filter(a, {.size = {7}, .mode = m, .cval = cv}, s);
               }});
  c.push_back({"max", 2, true, [](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::maximum_filter(a, {.size = {5, 9}, .mode = m, .cval = cv}, s);
               }});
  c.push_back({"min", 2, true, [](const Array& a, Mode m, double cv, const Stream& s) {
                 return nd::minimum_filter1d(a, 8, {.axis = 1, .mode = m, .cval = cv}, s);
               }});
  return c;
}

inline const std::vector<std::string> kSmallShapes = {"1x7", "2x3", "3x1"};

}  // namespace ndtest
