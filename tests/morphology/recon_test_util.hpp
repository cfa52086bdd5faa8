// Shared pieces of test_reconstruction / test_extrema / test_flood / test_remove_small: the named
// footprints of tests/golden/cases_morphology_recon.py, golden loading, typed-exception checks.
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "cuskimage/morphology.hpp"
#include "tests/common/test_support.hpp"

namespace recontest {

using namespace cuskimage;

inline Array golden(const std::string& name) { return cusktest::load_golden("morphology_recon/" + name + ".npy"); }

inline Array u8(std::initializer_list<std::uint8_t> v, const Shape& shape) {
  return Array::from_vector(std::vector<std::uint8_t>(v), shape);
}

/// The footprints of FOOTPRINTS in cases_morphology_recon.py ("none": an invalid Array).
inline Array fp(const std::string& name) {
  if (name == "none") return {};
  if (name == "cross") return u8({0, 1, 0, 1, 1, 1, 0, 1, 0}, {3, 3});
  if (name == "asym") return u8({1, 1, 0, 0, 1, 0, 0, 0, 1}, {3, 3});
  if (name == "disk2") return morphology::disk(2).array().share();
  if (name == "hollow5")
    return u8({0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 0, 0, 1, 0, 0}, {5, 5});
  if (name == "ball1") return morphology::ball(1).array().share();
  if (name == "cross3") {
    Array a = Array::zeros({3, 3, 3}, DType::uint8);
    auto* p = a.data<std::uint8_t>();
    for (int i : {4, 10, 12, 13, 14, 16, 22}) p[i] = 1;
    return a;
  }
  throw std::runtime_error("unknown footprint " + name);
}

/// Runs f, expecting exception E whose message contains `what`.
template <class E = InvalidArgument, class F>
void expect_throw(F&& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no exception, expected " << what;
  } catch (const E& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

/// Random host image with few distinct values (plateaus and ties): integers over [lo, hi],
/// floats the same integers halved, bool fair coins.
inline Array few_values(const Shape& shape, DType dt, std::uint64_t seed, int lo = 0, int hi = 3) {
  if (dt == DType::bool_) return cusktest::random_array(shape, dt, seed);
  Array a = cusktest::random_array(shape, DType::int32, seed, lo, hi);
  if (dt == DType::float32 || dt == DType::float64) {
    Array f = a.astype(dt);
    auto v = f.to_vector<double>();
    for (auto& x : v) x *= 0.5;
    return dt == DType::float32 ? Array::from_vector(std::vector<float>(v.begin(), v.end()), shape)
                                : Array::from_vector(v, shape);
  }
  return a.astype(dt);
}

}  // namespace recontest
