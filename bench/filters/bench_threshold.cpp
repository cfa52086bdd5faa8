// threshold_otsu on uint8 images of the standard shapes (GPU and CPU backends). Bytes moved: the
// image read once (the histogram pass); the selection kernel and the result copy are tiny, so the
// gap to floor_ms is launch overhead plus the one synchronization the function makes.
#include <benchmark/benchmark.h>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/filters.hpp"

namespace filters = cuskimage::filters;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

using cuskbench::shape_arg;

void BM_ThresholdOtsu_u8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint8, Device::cuda());
  cuskbench::run(st, static_cast<double>(img.nbytes()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(filters::threshold_otsu(img, {}, s)); });
}

void BM_ThresholdOtsu_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  cuskbench::run(st, 2.0 * static_cast<double>(img.nbytes()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(filters::threshold_otsu(img, {}, s)); });
}

void BM_Cpu_ThresholdOtsu_u8(benchmark::State& st) {
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint8, Device::cpu());
  cuskbench::run_cpu(st, static_cast<double>(img.nbytes()),
                     [&] { benchmark::DoNotOptimize(filters::threshold_otsu(img)); });
}

}  // namespace

#define CUSK_THRESHOLD_BENCH(fn) BENCHMARK(fn)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond)
CUSK_THRESHOLD_BENCH(BM_ThresholdOtsu_u8);
CUSK_THRESHOLD_BENCH(BM_ThresholdOtsu_f32);
CUSK_THRESHOLD_BENCH(BM_Cpu_ThresholdOtsu_u8);
