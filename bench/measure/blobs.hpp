// The measure benchmarks' input: the benchmark texture above its 65th percentile, ~35% foreground
// in smooth blobs (issue 6's "binary blobs").
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/array.hpp"

namespace cuskbench {

inline cuskimage::Array blobs(const cuskimage::Shape& shape, cuskimage::Device device) {
  using cuskimage::Array;
  const Array f = test_image(shape, cuskimage::DType::float64, cuskimage::Device::cpu());
  const double* p = f.data<double>();
  std::vector<double> sample;
  for (std::int64_t i = 0; i < f.size(); i += 97) sample.push_back(p[i]);
  auto k = sample.begin() + static_cast<std::ptrdiff_t>(0.65 * static_cast<double>(sample.size()));
  std::nth_element(sample.begin(), k, sample.end());
  const double t = *k;
  Array b = Array::empty(shape, cuskimage::DType::bool_);
  bool* q = b.data<bool>();
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < f.size(); ++i) q[i] = p[i] > t;
  return b.to(device);
}

}  // namespace cuskbench
