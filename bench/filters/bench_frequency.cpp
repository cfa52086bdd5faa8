// Frequency-domain filters on the standard shapes (GPU) and at 512x512 (CPU backend).
//
// Bytes moved (N pixels; each FFT counted as one read + one write sweep, its floor):
//   butterworth float32 2-D/3-D: gather 4N + 4N, R2C 4N + 4N, gain 4N + 4N (N/2 complex), C2R
//     4N + 4N, crop 4N + 4N = 40N bytes (8192^2: 2.7 GB -> floor 0.64 ms). uint8 input reads N
//     instead of 4N in the gather.
//   wiener / filter_forward float32 on the (2M-1)(2N-1) ~ 4N complex grid: pad 4N + 32N, forward
//     C2C 64N, spectral op 96N (G, F read, G written), inverse C2C 64N, crop 8N + 4N ~ 272N bytes
//     (8192^2: 18 GB -> floor 4.3 ms); 192^3 is not run (2-D only).
//   gabor float32: two ndimage::convolve passes, 2 x (4N + 4N) = 16N bytes; with a 13x13 (frequency
//     0.2) kernel the taps make it compute-bound (~340 flops per pixel), so floor_ms understates it.
#include <benchmark/benchmark.h>

#include <cmath>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/filters.hpp"

namespace filters = cuskimage::filters;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

using cuskbench::shape_arg;

double gauss(double r, double c) { return std::exp(-(r * r + c * c) / 2); }

void BM_Butterworth_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  cuskbench::run(st, 10.0 * static_cast<double>(img.nbytes()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(filters::butterworth(img, {}, s)); });
}

void BM_Butterworth_u8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint8, Device::cuda());
  // float64 work (uint8 gives float64): 1 + 8 + (8 x 8) + 8 ... = 73 bytes per pixel.
  cuskbench::run(st, 73.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(filters::butterworth(img, {}, s)); });
}

void BM_Wiener_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  const filters::LPIFilter2D f(gauss);
  cuskbench::run(st, 68.0 * static_cast<double>(img.nbytes()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(filters::wiener(img, {.predefined_filter = f}, s)); });
}

void BM_Gabor_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  cuskbench::run(st, 4.0 * static_cast<double>(img.nbytes()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(filters::gabor(img, 0.2, {}, s)); });
}

void BM_Cpu_Butterworth_f32(benchmark::State& st) {
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cpu());
  cuskbench::run_cpu(st, 10.0 * static_cast<double>(img.nbytes()),
                     [&] { benchmark::DoNotOptimize(filters::butterworth(img)); });
}

void BM_Cpu_Wiener_f32(benchmark::State& st) {
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cpu());
  const filters::LPIFilter2D f(gauss);
  cuskbench::run_cpu(st, 68.0 * static_cast<double>(img.nbytes()),
                     [&] { benchmark::DoNotOptimize(filters::wiener(img, {.predefined_filter = f})); });
}

void BM_Cpu_Gabor_f32(benchmark::State& st) {
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cpu());
  cuskbench::run_cpu(st, 4.0 * static_cast<double>(img.nbytes()),
                     [&] { benchmark::DoNotOptimize(filters::gabor(img, 0.2)); });
}

}  // namespace

// GPU: every standard shape (2-D-only filters skip 192^3); CPU: 512x512 only, to keep the run short.
BENCHMARK(BM_Butterworth_f32)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Butterworth_u8)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Wiener_f32)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gabor_f32)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_Butterworth_f32)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_Wiener_f32)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_Gabor_f32)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);
