#include "tests/common/test_support.hpp"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>
#include <stdexcept>

#include <cuda_runtime.h>


namespace cusktest {

using cuskimage::Device;

Array random_array(const Shape& shape, DType dtype, std::uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  Array a = Array::empty(shape, DType::float64);
  double* p = a.data<double>();
  const std::int64_t n = a.size();
  if (dtype == DType::bool_) {
    for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<double>(rng() & 1);
  } else if (cuskimage::is_floating(dtype)) {
    if (lo == 0 && hi == 0) hi = 1;
    std::uniform_real_distribution<double> d(lo, hi);
    for (std::int64_t i = 0; i < n; ++i) p[i] = d(rng);
  } else {
    if (lo == 0 && hi == 0) {
      const int bits = static_cast<int>(cuskimage::itemsize(dtype)) * 8;
      const bool s = cuskimage::is_signed(dtype);
      // 64-bit ranges are limited to what a double carries exactly.
      const int b = std::min(bits, 53);
      lo = s ? -std::ldexp(1.0, b - 1) : 0.0;
      hi = s ? std::ldexp(1.0, b - 1) - 1 : std::ldexp(1.0, b) - 1;
    }
    std::uniform_int_distribution<std::int64_t> d(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
    for (std::int64_t i = 0; i < n; ++i) p[i] = static_cast<double>(d(rng));
  }
  return a.astype(dtype);
}

Array host_copy(const Array& a) {
  // The array may come from work queued on any stream (tests use non-blocking streams that do not
  // order with the per-thread stream `to` copies on), so wait for all of the device's work first.
  if (a.device().is_cuda()) {
    const cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) throw std::runtime_error(std::string("cudaDeviceSynchronize: ") + cudaGetErrorString(e));
  }
  return a.to(Device::cpu());
}

namespace {
std::string index_str(const Shape& shape, std::int64_t linear) {
  Shape idx(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    idx[d] = linear % shape[d];
    linear /= shape[d];
  }
  return cuskimage::shape_str(idx);
}
}  // namespace

::testing::AssertionResult arrays_equal(const Array& expected, const Array& actual) {
  if (expected.dtype() != actual.dtype())
    return ::testing::AssertionFailure() << "dtype differs: expected " << cuskimage::dtype_name(expected.dtype())
                                         << ", got " << cuskimage::dtype_name(actual.dtype());
  if (expected.shape() != actual.shape())
    return ::testing::AssertionFailure() << "shape differs: expected " << cuskimage::shape_str(expected.shape())
                                         << ", got " << cuskimage::shape_str(actual.shape());
  // Compare bytes of contiguous host copies (exact, NaN payload aside).
  Array e = host_copy(expected).contiguous();
  Array a = host_copy(actual).contiguous();
  const std::size_t item = e.itemsize();
  const auto* pe = static_cast<const unsigned char*>(e.data());
  const auto* pa = static_cast<const unsigned char*>(a.data());
  std::int64_t bad = 0, first = -1;
  for (std::int64_t i = 0; i < e.size(); ++i) {
    if (std::memcmp(pe + i * item, pa + i * item, item) != 0) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  Array ed = e.astype(DType::float64), ad = a.astype(DType::float64);
  return ::testing::AssertionFailure() << bad << " of " << e.size() << " elements differ; first at "
                                       << index_str(e.shape(), first) << ": expected "
                                       << ed.data<double>()[first] << ", got " << ad.data<double>()[first];
}

::testing::AssertionResult arrays_close(const Array& expected, const Array& actual, double rtol, double atol) {
  if (expected.shape() != actual.shape())
    return ::testing::AssertionFailure() << "shape differs: expected " << cuskimage::shape_str(expected.shape())
                                         << ", got " << cuskimage::shape_str(actual.shape());
  Array e = host_copy(expected).astype(DType::float64);
  Array a = host_copy(actual).astype(DType::float64);
  const double* pe = e.data<double>();
  const double* pa = a.data<double>();
  std::int64_t bad = 0, worst = -1;
  double worst_err = 0;
  for (std::int64_t i = 0; i < e.size(); ++i) {
    if (std::isnan(pe[i]) && std::isnan(pa[i])) continue;
    const double err = std::abs(pa[i] - pe[i]);
    if (!(err <= atol + rtol * std::abs(pe[i]))) {
      ++bad;
      if (worst < 0 || err > worst_err || std::isnan(err)) worst = i, worst_err = err;
    }
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << e.size() << " elements outside rtol " << rtol
                                       << ", atol " << atol << "; worst at " << index_str(e.shape(), worst)
                                       << ": expected " << pe[worst] << ", got " << pa[worst];
}

std::string temp_path(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string dir = std::string(CUSK_TEST_TMP_DIR) + "/" + (info ? std::string(info->test_suite_name()) + "." + info->name() : "misc");
  std::filesystem::create_directories(dir);
  return dir + "/" + name;
}

::testing::AssertionResult result_outlives_stream(const std::function<Array(const cuskimage::Stream&)>& op,
                                                  Array& out) {
  cuskimage::Stream().synchronize();  // the caller's uploads are done before the stream is created
  cudaStream_t old = nullptr;
  Array r;
  {
    const cuskimage::Stream s = cuskimage::Stream::create();
    old = s.handle();
    r = op(s);
  }
  const cuskimage::Stream other = cuskimage::Stream::create();
  if (other.handle() == old) {
    new Array(std::move(r));  // leaked on purpose
    return ::testing::AssertionFailure() << "the result did not keep its stream alive (its handle was reused)";
  }
  out = std::move(r);
  return ::testing::AssertionSuccess();
}

}  // namespace cusktest
