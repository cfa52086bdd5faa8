// util benchmarks on the standard shapes (512^2, 3840x2160, 8192^2, 192^3): CUDA-event timing with
// an L2 flush (cuskbench::run) and the CPU backend (cuskbench::run_cpu). Bytes moved are the op's
// logical traffic, input read once plus output written once; ops that scikit-image makes inspect
// the data first (img_as_ubyte of floats: the [-1, 1] check; random_noise: the input's minimum)
// read the input once more, which shows as a lower pct_floor.
#include <benchmark/benchmark.h>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/util.hpp"

namespace util = cuskimage::util;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

using cuskbench::shape_arg;

double bytes(const Array& in, DType out) {
  return static_cast<double>(in.size()) * static_cast<double>(in.itemsize() + cuskimage::itemsize(out));
}

// ---- GPU -------------------------------------------------------------------------------------------
void BM_Invert_u8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint8, Device::cuda());
  Array out = Array::empty(img.shape(), DType::uint8, Device::cuda());
  cuskbench::run(st, bytes(img, DType::uint8), [&](const Stream& s) { util::invert_into(img, out, {}, s); });
}

void BM_ImgAsFloat32_u8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint8, Device::cuda());
  Array out = Array::empty(img.shape(), DType::float32, Device::cuda());
  cuskbench::run(st, bytes(img, DType::float32), [&](const Stream& s) { util::convert_into(img, out, {}, s); });
}

void BM_ImgAsUbyte_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  cuskbench::run(st, bytes(img, DType::uint8), [&](const Stream& s) { (void)util::img_as_ubyte(img, {}, s); });
}

void BM_ImgAsFloat_u16(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint16, Device::cuda());
  cuskbench::run(st, bytes(img, DType::float64), [&](const Stream& s) { (void)util::img_as_float(img, {}, s); });
}

void BM_RandomNoiseGaussian_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  cuskbench::run(st, bytes(img, DType::float32),
                 [&](const Stream& s) { (void)util::random_noise(img, {.rng = 1}, s); });
}

void BM_CropCopy_u8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint8, Device::cuda());
  const Array probe = util::crop(img, 16);
  cuskbench::run(st, 2.0 * static_cast<double>(probe.nbytes()),
                 [&](const Stream& s) { (void)util::crop(img, 16, {.copy = true}, s); });
}

// ---- CPU backend -----------------------------------------------------------------------------------
void BM_Cpu_Invert_u8(benchmark::State& st) {
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint8, Device::cpu());
  Array out = Array::empty(img.shape(), DType::uint8);
  cuskbench::run_cpu(st, bytes(img, DType::uint8), [&] { util::invert_into(img, out); });
}

void BM_Cpu_ImgAsFloat32_u8(benchmark::State& st) {
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint8, Device::cpu());
  Array out = Array::empty(img.shape(), DType::float32);
  cuskbench::run_cpu(st, bytes(img, DType::float32), [&] { util::convert_into(img, out); });
}

void BM_Cpu_ImgAsUbyte_f32(benchmark::State& st) {
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cpu());
  cuskbench::run_cpu(st, bytes(img, DType::uint8), [&] { (void)util::img_as_ubyte(img); });
}

void BM_Cpu_ImgAsFloat_u16(benchmark::State& st) {
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint16, Device::cpu());
  cuskbench::run_cpu(st, bytes(img, DType::float64), [&] { (void)util::img_as_float(img); });
}

void BM_Cpu_RandomNoiseGaussian_f32(benchmark::State& st) {
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cpu());
  cuskbench::run_cpu(st, bytes(img, DType::float32), [&] { (void)util::random_noise(img, {.rng = 1}); });
}

void BM_Cpu_CropCopy_u8(benchmark::State& st) {
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint8, Device::cpu());
  const Array probe = util::crop(img, 16);
  cuskbench::run_cpu(st, 2.0 * static_cast<double>(probe.nbytes()), [&] { (void)util::crop(img, 16, {.copy = true}); });
}

}  // namespace

#define CUSK_UTIL_BENCH(fn) BENCHMARK(fn)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond)
// The CPU backend at 512^2 and 3840x2160 only: at 8192^2 its slow ops held a whole benchmark run past
// the device's time limit (scikit-image's own times come from bench/compare).
#define CUSK_UTIL_CPU_BENCH(fn) BENCHMARK(fn)->DenseRange(0, 1)->UseManualTime()->Unit(benchmark::kMillisecond)
CUSK_UTIL_BENCH(BM_Invert_u8);
CUSK_UTIL_BENCH(BM_ImgAsFloat32_u8);
CUSK_UTIL_BENCH(BM_ImgAsUbyte_f32);
CUSK_UTIL_BENCH(BM_ImgAsFloat_u16);
CUSK_UTIL_BENCH(BM_RandomNoiseGaussian_f32);
CUSK_UTIL_BENCH(BM_CropCopy_u8);
CUSK_UTIL_CPU_BENCH(BM_Cpu_Invert_u8);
CUSK_UTIL_CPU_BENCH(BM_Cpu_ImgAsFloat32_u8);
CUSK_UTIL_CPU_BENCH(BM_Cpu_ImgAsUbyte_f32);
CUSK_UTIL_CPU_BENCH(BM_Cpu_ImgAsFloat_u16);
CUSK_UTIL_CPU_BENCH(BM_Cpu_RandomNoiseGaussian_f32);
CUSK_UTIL_CPU_BENCH(BM_Cpu_CropCopy_u8);
