// Local filters on the standard shapes (GPU) and 512^2 (CPU). Bytes moved = image read + output
// written (floor_ms = bytes / 4.2 TB/s): median uint8 8192^2 5x5 = 134 MB -> floor 0.032 ms (target
// <= 0.25 ms; CuPy 5.08 ms, NPP 1.50 ms); niblack float32 counts its float64 integral images.
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

void median_gpu(benchmark::State& st, DType dt, int k) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), dt, Device::cuda());
  const Array fp = Array::full({k, k}, 1, DType::uint8);
  if (img.ndim() != 2) return st.SkipWithError("2-D benchmark");
  cuskbench::run(st, 2.0 * static_cast<double>(img.nbytes()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(filters::median(img, {.footprint = fp.share()}, s)); });
}
void BM_Median3_u8(benchmark::State& st) { median_gpu(st, DType::uint8, 3); }
void BM_Median5_u8(benchmark::State& st) { median_gpu(st, DType::uint8, 5); }
void BM_Median5_f32(benchmark::State& st) { median_gpu(st, DType::float32, 5); }
void BM_Median7_u8(benchmark::State& st) { median_gpu(st, DType::uint8, 7); }
void BM_Median5_u16(benchmark::State& st) { median_gpu(st, DType::uint16, 5); }

void BM_MedianDisk5_u8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint8, Device::cuda());
  if (img.ndim() != 2) return st.SkipWithError("2-D benchmark");
  Array fp = Array::zeros({11, 11}, DType::uint8);
  for (int y = 0; y < 11; ++y)
    for (int x = 0; x < 11; ++x)
      if ((y - 5) * (y - 5) + (x - 5) * (x - 5) <= 25) static_cast<std::uint8_t*>(fp.data())[y * 11 + x] = 1;
  cuskbench::run(st, 2.0 * static_cast<double>(img.nbytes()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(filters::median(img, {.footprint = fp.share()}, s)); });
}

void BM_Niblack_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  // F read + 2 float64 arrays written, scanned (read+write) once per axis, corners read, F written.
  const double n = static_cast<double>(img.size());
  cuskbench::run(st, n * (4 + 16 + 32 * img.ndim() + 16 + 4),
                 [&](const Stream& s) { benchmark::DoNotOptimize(filters::threshold_niblack(img, {}, s)); });
}

void BM_Hysteresis_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  const double n = static_cast<double>(img.size());
  cuskbench::run(st, n * (3 * 4 + 4 * 4 + 2),
                 [&](const Stream& s) { benchmark::DoNotOptimize(filters::apply_hysteresis_threshold(img, 0.3, 0.6, s)); });
}

void BM_Cpu_Median5_u8(benchmark::State& st) {
  const Array img = cuskbench::test_image({512, 512}, DType::uint8, Device::cpu());
  const Array fp = Array::full({5, 5}, 1, DType::uint8);
  cuskbench::run_cpu(st, 2.0 * static_cast<double>(img.nbytes()),
                     [&] { benchmark::DoNotOptimize(filters::median(img, {.footprint = fp.share()})); });
}

void BM_Cpu_Niblack_f32(benchmark::State& st) {
  const Array img = cuskbench::test_image({512, 512}, DType::float32, Device::cpu());
  cuskbench::run_cpu(st, 8.0 * static_cast<double>(img.size()),
                     [&] { benchmark::DoNotOptimize(filters::threshold_niblack(img)); });
}

}  // namespace

#define CUSK_LOCAL_BENCH(fn) BENCHMARK(fn)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond)
// The median benchmarks take 2-D footprints: the 2-D standard shapes only (0-2; 3 is 192^3).
#define CUSK_LOCAL_BENCH_2D(fn) BENCHMARK(fn)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond)
CUSK_LOCAL_BENCH_2D(BM_Median3_u8);
CUSK_LOCAL_BENCH_2D(BM_Median5_u8);
CUSK_LOCAL_BENCH_2D(BM_Median5_f32);
CUSK_LOCAL_BENCH_2D(BM_Median7_u8);
CUSK_LOCAL_BENCH_2D(BM_Median5_u16);
CUSK_LOCAL_BENCH_2D(BM_MedianDisk5_u8);
CUSK_LOCAL_BENCH(BM_Niblack_f32);
CUSK_LOCAL_BENCH(BM_Hysteresis_f32);
BENCHMARK(BM_Cpu_Median5_u8)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_Niblack_f32)->UseManualTime()->Unit(benchmark::kMillisecond);
