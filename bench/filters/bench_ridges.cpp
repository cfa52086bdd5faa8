// Ridge filters (frangi, hessian, meijering, sato) with scikit-image's default scales (1, 3, 5, 7, 9)
// on float32 images of the standard shapes (GPU), the CPU backend at 512^2 only, and the fused
// per-scale kernel alone on precomputed Hessian elements.
//
// Bytes moved per pixel and scale (float32, b = 4 bytes; n = ndim, k = n(n+1)/2 elements): the
// Hessian is n + k Gaussian-derivative filters of n separable passes, each reading and writing the
// image (2-D float32 passes are fused in pairs by ndimage, so 2 b instead of 2 n b per filter),
// then the fused kernel reads k elements and updates the running max (k + 2) b:
//   2-D: 5 filters * 8 B + 20 B = 60 B;  3-D: 9 * 3 * 8 B + 32 B = 248 B.
// Five scales, 8192^2: 67.1 M px * 60 B * 5 = 20.1 GB -> floor 4.8 ms at 4.2 TB/s; 192^3: 7.1 M px *
// 248 B * 5 = 8.8 GB -> floor 2.1 ms. The Gaussian taps (2 * int(8 sigma / sqrt 2 + 0.5) + 1, up to 103
// at sigma 9) make the large scales compute-bound rather than memory-bound: the floor is the bound
// to compare with, not a promise. The fused kernel alone (BM_RidgeScaleKernel): (k + 2) * 4 B/px,
// 8192^2 -> 1.34 GB, floor 0.32 ms.
#include <benchmark/benchmark.h>

#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/filters.hpp"
#include "src/core/device_guard.hpp"
#include "src/filters/hessian_matrix.hpp"
#include "src/filters/ridges.hpp"

namespace filters = cuskimage::filters;
namespace fd = cuskimage::filters::detail;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

using cuskbench::shape_arg;

constexpr int kScales = 5;

double bytes_moved(const Array& img, int scales) {
  const int n = img.ndim(), k = n * (n + 1) / 2;
  const double per_filter = n == 2 ? 2.0 : 2.0 * n;
  return static_cast<double>(img.size()) * static_cast<double>(img.itemsize()) * scales *
         ((n + k) * per_filter + k + 2);
}

template <class F>
void gpu_bench(benchmark::State& st, F&& f) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  cuskbench::run(st, bytes_moved(img, kScales), [&](const Stream& s) { benchmark::DoNotOptimize(f(img, s)); }, 1);
}

template <class F>
void cpu_bench(benchmark::State& st, F&& f) {
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cpu());
  cuskbench::run_cpu(st, bytes_moved(img, kScales), [&] { benchmark::DoNotOptimize(f(img, Stream())); });
}

Array frangi(const Array& a, const Stream& s) { return filters::frangi(a, {}, s); }
Array hessian(const Array& a, const Stream& s) { return filters::hessian(a, {}, s); }
Array meijering(const Array& a, const Stream& s) { return filters::meijering(a, {}, s); }
Array sato(const Array& a, const Stream& s) { return filters::sato(a, {}, s); }

void BM_Frangi_f32(benchmark::State& st) { gpu_bench(st, frangi); }
void BM_Hessian_f32(benchmark::State& st) { gpu_bench(st, hessian); }
void BM_Meijering_f32(benchmark::State& st) { gpu_bench(st, meijering); }
void BM_Sato_f32(benchmark::State& st) { gpu_bench(st, sato); }
void BM_Cpu_Frangi_f32(benchmark::State& st) { cpu_bench(st, frangi); }
void BM_Cpu_Meijering_f32(benchmark::State& st) { cpu_bench(st, meijering); }
void BM_Cpu_Sato_f32(benchmark::State& st) { cpu_bench(st, sato); }

/// The fused per-scale kernel alone (frangi, given gamma) on the Hessian of sigma 3.
void BM_RidgeScaleKernel_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  const std::vector<Array> h = fd::hessian_matrix(img, {.sigma = {3.0}, .mode = cuskimage::ndimage::Mode::reflect}, {});
  Array out = Array::zeros(img.shape(), DType::float32, Device::cuda());
  fd::RidgeState state;
  state.scalars = Array::zeros({2}, DType::float64, Device::cuda());
  const fd::RidgeScale p{.kind = fd::RidgeKind::frangi, .ndim = img.ndim(), .gamma = 15.0};
  const double bytes = static_cast<double>(img.size()) * 4.0 * (static_cast<double>(h.size()) + 2.0);
  cuskbench::run(st, bytes, [&](const Stream& s) {
    cuskimage::detail::DeviceGuard g(img.device().index());
    fd::cuda_ridge_scale<float>(h, out, p, state, s);
  });
}

}  // namespace

#define CUSK_RIDGE_BENCH(fn) BENCHMARK(fn)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond)
CUSK_RIDGE_BENCH(BM_Frangi_f32);
CUSK_RIDGE_BENCH(BM_Hessian_f32);
CUSK_RIDGE_BENCH(BM_Meijering_f32);
CUSK_RIDGE_BENCH(BM_Sato_f32);
CUSK_RIDGE_BENCH(BM_RidgeScaleKernel_f32);
// CPU backend at 512^2 only (five scales of up to 103-tap passes take about a second there).
BENCHMARK(BM_Cpu_Frangi_f32)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_Meijering_f32)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_Sato_f32)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);
