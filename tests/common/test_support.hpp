// Shared test helpers: GPU gating, seeded random inputs, exact and tolerance comparisons across
// devices, golden-file loading and the legacy-default-stream guard.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>

#include "cuskimage/array.hpp"
#include "cuskimage/device.hpp"

/// First statement of every Gpu* test: skips (with a message) only when no GPU is present.
#define CUSK_REQUIRE_GPU()                                                            \
  do {                                                                                \
    if (!::cuskimage::cuda_available()) GTEST_SKIP() << "no CUDA device: GPU test skipped"; \
  } while (0)

namespace cusktest {

using cuskimage::Array;
using cuskimage::DType;
using cuskimage::Shape;

/// Host array of uniform random values: integers over [lo, hi] (the dtype's range when lo == hi == 0),
/// floats over [lo, hi) (default [0, 1)), bool with P(true) = 0.5. Deterministic in `seed`.
Array random_array(const Shape& shape, DType dtype, std::uint64_t seed, double lo = 0, double hi = 0);

/// A host copy of `a`; for a device array it waits for all of the device's work first (see the .cpp).
Array host_copy(const Array& a);

/// Exact equality of dtype, shape and every value (arrays may live on any device, any strides).
::testing::AssertionResult arrays_equal(const Array& expected, const Array& actual);
/// |a - e| <= atol + rtol * |e| elementwise (as numpy.allclose), NaNs equal; shapes must match.
::testing::AssertionResult arrays_close(const Array& expected, const Array& actual, double rtol, double atol);

#define EXPECT_ARRAY_EQ(expected, actual) EXPECT_TRUE(::cusktest::arrays_equal(expected, actual))
#define EXPECT_ARRAY_NEAR(expected, actual, rtol, atol) \
  EXPECT_TRUE(::cusktest::arrays_close(expected, actual, rtol, atol))

/// Path of the golden file "<case>/<name>": tests/golden/data/<case>/<name> when that file exists,
/// else entry <name> of the archive tests/golden/data/<case>.npz, extracted once per process under
/// the build's test tmp dir (golden_data.cpp). When neither exists, a path that does not exist
/// (so existence probes work).
std::string golden_path(const std::string& relative);
/// Loads a golden .npy (host array) found as golden_path does; throws std::runtime_error naming the
/// file and the archive entry looked for when neither exists.
Array load_golden(const std::string& relative);
/// A fresh path under the build's test tmp dir.
std::string temp_path(const std::string& name);

/// Runs `op` on a non-blocking stream while the legacy default stream is held busy by a spinning
/// kernel. If `op` queues anything on the legacy stream (or synchronises the device), it cannot
/// finish while the spinner runs; the guard detects that within `timeout_ms`, releases the
/// spinner and fails. `op` receives the stream to use.
::testing::AssertionResult runs_without_legacy_stream(const std::function<void(const cuskimage::Stream&)>& op,
                                                      int timeout_ms = 3000);

/// Runs `op` on a stream created for it and destroyed as soon as `op` returns, before the result is
/// read: a device result must keep its stream alive. Fails when the next created stream gets the
/// destroyed one's handle (the result did not hold it); the result is then leaked on purpose, since
/// freeing it would use the destroyed stream. Otherwise `out` is the result.
::testing::AssertionResult result_outlives_stream(const std::function<Array(const cuskimage::Stream&)>& op, Array& out);

}  // namespace cusktest
