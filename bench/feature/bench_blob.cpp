// blob_log on the float32 test texture (max_sigma 10, 5 scales, the shape) and
// multiscale_basic_features on the uint8 test texture (default sigmas 0.5..16: 6 scales x 4
// features = 24 float32 channels).
// Bytes moved:
//   blob_log: the float32 image read (4 B), the (H, W, 5) float32 cube written once and read by the
//     peak search (2 x 20 B) per pixel: 1024^2: 46 MB, floor 0.010 ms at 4.8 TB/s. Target
//     (1024^2, H200): <= 1.0 ms (cuCIM 4.95 ms).
//   blob_doh (default: max_sigma 30, 10 scales): the float32 image read (4 B), each scale's float32
//     cube layer written and read by the peak search (10 x 2 x 4 B) per pixel: 1024^2: 88 MB, floor
//     0.018 ms (the determinant's integral image and its float64 layers come on top).
//   multiscale_basic_features: the uint8 image read (1 B) and 24 float32 features written (96 B)
//     per pixel: 1024^2: 102 MB, floor 0.021 ms. Target (1024^2, H200): <= 1.5 ms (cuCIM 10.0 ms).
#include <benchmark/benchmark.h>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/feature.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

void BM_BlobLog(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array img = cuskbench::test_image({n, n}, DType::float32, Device::cuda());
  cuskbench::run(st, 44.0 * static_cast<double>(img.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::feature::blob_log(img, {.max_sigma = 10.0, .num_sigma = 5}, s));
  });
}

void BM_BlobDog(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array img = cuskbench::test_image({n, n}, DType::float32, Device::cuda());
  // max_sigma 10, ratio 1.6: 5 differences of 6 smoothings.
  cuskbench::run(st, 44.0 * static_cast<double>(img.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::feature::blob_dog(img, {.max_sigma = 10.0}, s));
  });
}

void BM_BlobDoh(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array img = cuskbench::test_image({n, n}, DType::float32, Device::cuda());
  // max_sigma 30, 10 scales: the float64 determinant per scale, stored into the float32 cube.
  cuskbench::run(st, 4.0 * static_cast<double>(img.size()) * (1 + 10 * 2), [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::feature::blob_doh(img, {}, s));
  });
}

void BM_MultiscaleBasicFeatures(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const std::int64_t n = st.range(0);
  const Array img = cuskbench::test_image({n, n}, DType::uint8, Device::cuda());
  cuskbench::run(st, 97.0 * static_cast<double>(img.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::feature::multiscale_basic_features(img, {}, s));
  });
}

}  // namespace

BENCHMARK(BM_BlobLog)->Arg(1024)->Arg(2048)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlobDog)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlobDoh)->Arg(1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MultiscaleBasicFeatures)->Arg(1024)->Arg(2048)->UseManualTime()->Unit(benchmark::kMillisecond);
