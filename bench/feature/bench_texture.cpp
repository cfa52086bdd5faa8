// local_binary_pattern and graycomatrix on the uint8 test texture.
// Bytes moved:
//   LBP P=8 R=1: the uint8 image read once (1 B) and the float64 LBP image written (8 B) per pixel:
//     2048^2: 37.7 MB, floor 0.008 ms at 4.8 TB/s. Target (2048^2, H200): <= 0.5 ms (scikit-image 707 ms).
//   graycomatrix, distance 1, angles 0, pi/4, pi/2, 3 pi/4, levels 256: the image read once per
//     (distance, angle) pair (4 x 1 B per pixel; the neighbour reads hit the cache) and the 1 MiB
//     uint32 matrix written: 2048^2: 17.8 MB, floor 0.004 ms; the shared-memory atomics bound it in
//     practice. Target (2048^2, H200): <= 0.3 ms (scikit-image 27.5 ms).
#include <benchmark/benchmark.h>

#include <numbers>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/feature.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

void BM_LocalBinaryPattern(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array img = cuskbench::test_image({n, n}, DType::uint8, Device::cuda());
  cuskbench::run(st, 9.0 * static_cast<double>(img.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::feature::local_binary_pattern(img, 8, 1.0, {}, s));
  });
}

void BM_LocalBinaryPatternUniform(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array img = cuskbench::test_image({n, n}, DType::uint8, Device::cuda());
  cuskbench::run(st, 9.0 * static_cast<double>(img.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::feature::local_binary_pattern(
        img, 24, 3.0, {.method = cuskimage::feature::LbpMethod::uniform}, s));
  });
}

void BM_Graycomatrix(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array img = cuskbench::test_image({n, n}, DType::uint8, Device::cuda());
  const double pi = std::numbers::pi;
  cuskbench::run(st, 4.0 * static_cast<double>(img.size()) + 4.0 * 256 * 256 * 4, [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::feature::graycomatrix(img, {1}, {0, pi / 4, pi / 2, 3 * pi / 4}, {}, s));
  });
}

}  // namespace

BENCHMARK(BM_LocalBinaryPattern)->Arg(2048)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LocalBinaryPatternUniform)->Arg(2048)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Graycomatrix)->Arg(2048)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
