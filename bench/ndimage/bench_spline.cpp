// ndimage spline interpolation: map_coordinates of a 4096^2 float32 image with an identity-plus-shift
// float64 coordinate field (the case kernels/ndimage/spline.cu's notes predict), with and without the
// prefilter, and spline_filter alone on the standard shapes.
// Bytes moved (the notes' model): prefilter ~63 B/px for a 2-D float32 image (float64 coefficients
// written and re-read per axis, the init sums re-reading ~1/3 of a line); map 28 B/px (coordinates
// 16, coefficients ~8, output 4). Predicted (4096^2, order 3): map alone ~0.15 ms, with the
// prefilter ~0.85 ms (floor 0.36 ms; the prefilter is bound by its 4096 sequential lines per axis,
// see kernels/ndimage/spline.cu).
#include <benchmark/benchmark.h>

#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/ndimage.hpp"

namespace nd = cuskimage::ndimage;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

constexpr std::int64_t kN = 4096;

/// (2, n, n) float64 coordinates: (i + 0.3, j - 0.45).
Array shifted_grid(std::int64_t n) {
  std::vector<double> c(static_cast<std::size_t>(2 * n * n));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      c[static_cast<std::size_t>(i * n + j)] = static_cast<double>(i) + 0.3;
      c[static_cast<std::size_t>(n * n + i * n + j)] = static_cast<double>(j) - 0.45;
    }
  return Array::from_vector(c, {2, n, n}).to(Device::cuda());
}

void BM_MapCoordinates(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const int order = static_cast<int>(st.range(0));
  const bool prefilter = st.range(1) != 0;
  const Array img = cuskbench::test_image({kN, kN}, DType::float32, Device::cuda());
  const Array co = shifted_grid(kN);
  const double px = static_cast<double>(kN * kN);
  const double bytes = (prefilter && order > 1 ? 63.0 + 28.0 : 24.0) * px;  // unfiltered: 4 + 16 + 4
  st.SetLabel("4096^2 float32 order " + std::to_string(order) + (prefilter ? "" : " no prefilter"));
  cuskbench::run(st, bytes, [&](const Stream& s) {
    (void)nd::map_coordinates(img, co, {.order = order, .mode = nd::InterpMode::reflect, .prefilter = prefilter}, s);
  });
}

void BM_SplineFilter(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cuda());
  const double bytes = (img.ndim() == 2 ? 63.0 : 97.0) * static_cast<double>(img.size());
  cuskbench::run(st, bytes, [&](const Stream& s) { (void)nd::spline_filter(img, {.order = 3}, s); });
}

}  // namespace

BENCHMARK(BM_MapCoordinates)->Args({3, 1})->Args({3, 0})->Args({1, 0})->Args({5, 1})->UseManualTime()->Unit(
    benchmark::kMillisecond);
BENCHMARK(BM_SplineFilter)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
