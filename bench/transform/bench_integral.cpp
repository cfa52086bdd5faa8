// integral_image on the standard shapes (512^2, 3840x2160, 8192^2, 192^3).
// Bytes moved (one-pass floor): the input read once and the accumulation-dtype output written once:
// float32 -> float64 12 B per element (8192^2: 805 MB, floor 0.19 ms), uint8 -> uint64 9 B.
// The implementation writes the output and re-reads/re-writes it once per further axis (2-D
// float32: 28 B per element, ~0.45 ms at 4.2 TB/s). Target (8192^2 float32, H200): <= 0.50 ms
// (cuCIM 5.87 ms).
#include <benchmark/benchmark.h>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/transform/integral.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

void integral(benchmark::State& st, DType dt, double in_bytes) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), dt, Device::cuda());
  Array out;
  cuskbench::run(st, (in_bytes + 8.0) * static_cast<double>(img.size()),
                 [&](const Stream& s) { out = cuskimage::transform::integral_image(img, {}, s); });
}

void BM_IntegralImage_f32(benchmark::State& st) { integral(st, DType::float32, 4.0); }
void BM_IntegralImage_u8(benchmark::State& st) { integral(st, DType::uint8, 1.0); }

void BM_IntegralImage_f32_cpu(benchmark::State& st) {
  const Array img = cuskbench::test_image(cuskbench::shape_arg(st), DType::float32, Device::cpu());
  Array out;
  cuskbench::run_cpu(st, 12.0 * static_cast<double>(img.size()),
                     [&] { out = cuskimage::transform::integral_image(img); });
}

}  // namespace

BENCHMARK(BM_IntegralImage_f32)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_IntegralImage_u8)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_IntegralImage_f32_cpu)->DenseRange(0, 1)->UseRealTime()->Unit(benchmark::kMillisecond);
