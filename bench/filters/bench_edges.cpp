// Smoothing and edge filters over the standard shapes (GPU) and at 512x512 (CPU).
// Bytes moved: one read and one write of the image (the fused kernels' design; a 3-D gaussian runs the
// axis-0 pass, then the fused kernel over the planes, and moves twice that). 8192^2 float32: 537 MB,
// floor 0.128 ms at 4.2 TB/s. Shapes by DenseRange index: 0 = 512^2, 1 = 3840x2160, 2 = 8192^2,
// 3 = 192^3.
// Kernel choice (kernels/filters/edges.cu, kernels/ndimage/separable2d.cu): gaussian float32
// K <= 17 taps (sigma <= 2) and float64: the tile kernel, float32 K >= 19: the row kernel; 3x3
// stencils: the row kernel, farid (5x5): the tile kernel. Measured (H200, 8192^2 float32, ms):
// sobel 0.157, laplace 0.150, farid 0.353 (tile; rows 0.452), gaussian sigma=3 0.267 (rows; tile
// 0.303), sigma=1 0.197 (tile; rows 0.240), sigma=3 float64 0.493 (tile; rows 0.674 spilling).
// Predicted for the switchable variants (temporary env switches, see those files): farid sep
// ~0.20 ms, gaussian sigma=1 rows32 ~0.17, sigma=3 float64 rows (streamed, no spills) ~0.38;
// sigma=2 (K = 17, the float32 crossover) ~0.25 either way. The tile kernel that unaligned widths
// keep (BM_SobelOddWidth_f32, 8192 x 8190): ~0.23 ms.
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
Array gauss2(const Array& a, const Stream& s) { return filters::gaussian(a, {.sigma = 2.0}, s); }
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
void BM_Gaussian2_f32(benchmark::State& st) { gpu_case(st, DType::float32, gauss2); }
void BM_Gaussian3_f64(benchmark::State& st) { gpu_case(st, DType::float64, gauss3); }
void BM_Gaussian1_f64(benchmark::State& st) { gpu_case(st, DType::float64, gauss1); }
void BM_GaussianFilter3_u8(benchmark::State& st) { gpu_case(st, DType::uint8, gauss_nd_u8); }
void BM_GaussianFilter3_u16(benchmark::State& st) { gpu_case(st, DType::uint16, gauss_nd_u8); }
void BM_Gaussian1x3_f32(benchmark::State& st) { gpu_case(st, DType::float32, gauss13); }
void BM_Sobel_f32(benchmark::State& st) { gpu_case(st, DType::float32, sobel); }
void BM_Sobel_f64(benchmark::State& st) { gpu_case(st, DType::float64, sobel); }
// A width that is not a multiple of 4: the tile kernel (the row kernel needs 16-byte rows).
void BM_SobelOddWidth_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image({8192, 8190}, DType::float32, Device::cuda());
  st.SetLabel("8192x8190");
  cuskbench::run(st, 2.0 * static_cast<double>(img.nbytes()), [&](const Stream& s) { benchmark::DoNotOptimize(sobel(img, s)); });
}
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
CUSK_EDGES_BENCH_2D(BM_Gaussian2_f32);
CUSK_EDGES_BENCH(BM_Gaussian3_f64);
CUSK_EDGES_BENCH_2D(BM_Gaussian1_f64);
CUSK_EDGES_BENCH(BM_GaussianFilter3_u8);
CUSK_EDGES_BENCH(BM_GaussianFilter3_u16);
CUSK_EDGES_BENCH_2D(BM_Gaussian1x3_f32);
CUSK_EDGES_BENCH(BM_Sobel_f32);
CUSK_EDGES_BENCH(BM_Sobel_f64);
BENCHMARK(BM_SobelOddWidth_f32)->UseManualTime()->Unit(benchmark::kMillisecond);
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
