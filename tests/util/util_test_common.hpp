// Helpers shared by the util tests.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "cuskimage/util.hpp"
#include "tests/common/test_support.hpp"

namespace utiltest {

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Slice;
using cuskimage::Stream;

inline Array golden(const std::string& name) { return cusktest::load_golden("util/" + name + ".npy"); }
inline bool golden_exists(const std::string& name) {
  return std::filesystem::exists(cusktest::golden_path("util/" + name + ".npy"));
}

/// The input names of the dtype golden cases (tests/golden/cases_util.py).
inline const std::vector<std::string>& dtype_inputs() {
  static const std::vector<std::string> v = {
      "bool",  "uint8", "int8",         "uint16",        "int16",        "uint32",       "int32",
      "uint64", "int64", "float32",     "float64",       "uint16_small", "uint32_small", "int32_small",
      "int64_small", "int16_small", "uint64_small"};
  return v;
}

/// A non-contiguous view holding the same values as `a` (a reversed copy read backwards along axis 0).
inline Array strided_twin(const Array& a) {
  if (a.ndim() == 0 || a.shape()[0] == 0) return a.share();
  Array rev = a.slice({Slice{std::nullopt, std::nullopt, -1}}).copy();
  return rev.slice({Slice{std::nullopt, std::nullopt, -1}});
}

/// Expects `f` to throw E whose message contains every one of `parts`.
template <class E, class F>
::testing::AssertionResult throws_with(F&& f, std::initializer_list<std::string> parts) {
  try {
    f();
  } catch (const E& e) {
    const std::string what = e.what();
    for (const auto& p : parts)
      if (what.find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "message '" << what << "' lacks '" << p << "'";
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "threw another exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "did not throw";
}

}  // namespace utiltest
