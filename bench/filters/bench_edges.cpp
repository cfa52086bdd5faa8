// Smoothing and edge filters over the standard shapes (GPU) and at 512x512 (CPU).
// Bytes moved: one read and one write of the image (the fused kernels' design; a 3-D gaussian runs the
// axis-0 pass, then the fused kernel over the planes, and moves twice that). 8192^2 float32: 537 MB,
// floor 0.128 ms at 4.2 TB/s. Predicted after the perfsep rewrite (H200, 8192^2): gaussian sigma=3
// f32 ~0.22 ms, sigma=1 ~0.15, f64 ~0.35, ndimage u8 sigma=3 ~0.45 (FP64-bound, exact), sobel ~0.16,
// farid ~0.19; 192^3 sobel/farid/laplace ~0.03 ms, gaussian ~0.06 ms.
// Targets (H200, 8192^2 float32): gaussian sigma=3 <= 0.30 ms, sobel <= 0.20 ms (CuPy: 5.56 / 3.41 ms).
#include <benchmark/benchmark.h>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/filters.hpp"
#include "cuskimage/ndimage.hpp"

namespace filters = cuskimage::filters;
namespace nd = cuskimage::ndimage;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

using cuskbench::shape_arg;

template <class F>
void gpu_case(benchmark::State& st, DType dt, F&& f) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), dt, Device::cuda());
  cuskbench::run(st, 2.0 * static_cast<double>(img.nbytes()), [&](const Stream& s) { benchmark::DoNotOptimize(f(img, s)); });
}

template <class F>
void cpu_case(benchmark::State& st, DType dt, F&& f) {
  const Array img = cuskbench::test_image(shape_arg(st), dt, Device::cpu());
  cuskbench::run_cpu(st, 2.0 * static_cast<double>(img.nbytes()), [&] { benchmark::DoNotOptimize(f(img, Stream())); });
}

Array gauss3(const Array& a, const Stream& s) { return filters::gaussian(a, {.sigma = 3.0}, s); }
Array gauss1(const Array& a, const Stream& s) { return filters::gaussian(a, {.sigma = 1.0}, s); }
Array gauss_nd_u8(const Array& a, const Stream& s) { return nd::gaussian_filter(a, 3.0, {}, s); }
// Different sigma per axis: the runtime-K fused kernel (float windows differ in length).
Array gauss13(const Array& a, const Stream& s) { return filters::gaussian(a, {.sigma = {1.0, 3.0}}, s); }
Array sobel(const Array& a, const Stream& s) { return filters::sobel(a, {}, s); }
Array sobel_h(const Array& a, const Stream& s) { return filters::sobel_h(a, {}, s); }
Array scharr(const Array& a, const Stream& s) { return filters::scharr(a, {}, s); }
Array farid(const Array& a, const Stream& s) { return filters::farid(a, {}, s); }
Array laplace(const Array& a, const Stream& s) { return filters::laplace(a, {}, s); }
Array roberts(const Array& a, const Stream& s) { return filters::roberts(a, {}, s); }
Array dog(const Array& a, const Stream& s) { return filters::difference_of_gaussians(a, 1.0, {}, s); }
Array unsharp(const Array& a, const Stream& s) {
  return filters::unsharp_mask(a, {.radius = 2.0, .preserve_range = true}, s);
}

void BM_Gaussian3_f32(benchmark::State& st) { gpu_case(st, DType::float32, gauss3); }
void BM_Gaussian1_f32(benchmark::State& st) { gpu_case(st, DType::float32, gauss1); }
void BM_Gaussian3_f64(benchmark::State& st) { gpu_case(st, DType::float64, gauss3); }
void BM_GaussianFilter3_u8(benchmark::State& st) { gpu_case(st, DType::uint8, gauss_nd_u8); }
void BM_GaussianFilter3_u16(benchmark::State& st) { gpu_case(st, DType::uint16, gauss_nd_u8); }
void BM_Gaussian1x3_f32(benchmark::State& st) { gpu_case(st, DType::float32, gauss13); }
void BM_Sobel_f32(benchmark::State& st) { gpu_case(st, DType::float32, sobel); }
void BM_SobelH_f32(benchmark::State& st) { gpu_case(st, DType::float32, sobel_h); }
void BM_Scharr_f32(benchmark::State& st) { gpu_case(st, DType::float32, scharr); }
void BM_Farid_f32(benchmark::State& st) { gpu_case(st, DType::float32, farid); }
void BM_Laplace_f32(benchmark::State& st) { gpu_case(st, DType::float32, laplace); }
void BM_Roberts_f32(benchmark::State& st) { gpu_case(st, DType::float32, roberts); }
void BM_DoG_f32(benchmark::State& st) { gpu_case(st, DType::float32, dog); }
void BM_Unsharp_f32(benchmark::State& st) { gpu_case(st, DType::float32, unsharp); }

void BM_Cpu_Gaussian3_f32(benchmark::State& st) { cpu_case(st, DType::float32, gauss3); }
void BM_Cpu_Sobel_f32(benchmark::State& st) { cpu_case(st, DType::float32, sobel); }

}  // namespace

#define CUSK_EDGES_BENCH(fn) BENCHMARK(fn)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond)
// The 2-D-only filters skip 192^3.
#define CUSK_EDGES_BENCH_2D(fn) BENCHMARK(fn)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond)
CUSK_EDGES_BENCH(BM_Gaussian3_f32);
CUSK_EDGES_BENCH(BM_Gaussian1_f32);
CUSK_EDGES_BENCH(BM_Gaussian3_f64);
CUSK_EDGES_BENCH(BM_GaussianFilter3_u8);
CUSK_EDGES_BENCH(BM_GaussianFilter3_u16);
CUSK_EDGES_BENCH_2D(BM_Gaussian1x3_f32);
CUSK_EDGES_BENCH(BM_Sobel_f32);
CUSK_EDGES_BENCH_2D(BM_SobelH_f32);
CUSK_EDGES_BENCH(BM_Scharr_f32);
CUSK_EDGES_BENCH(BM_Farid_f32);
CUSK_EDGES_BENCH(BM_Laplace_f32);
CUSK_EDGES_BENCH_2D(BM_Roberts_f32);
CUSK_EDGES_BENCH(BM_DoG_f32);
CUSK_EDGES_BENCH(BM_Unsharp_f32);
// CPU: 512x512 only, to keep the benchmark run short.
BENCHMARK(BM_Cpu_Gaussian3_f32)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_Sobel_f32)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);
