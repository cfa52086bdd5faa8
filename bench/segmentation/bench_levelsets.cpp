// segmentation level sets: morphsnakes (the morphological_chan_vese 1024^2, 50 iterations;
// cuCIM 26.10: 97.7 ms, target <= 5 ms), MorphGAC, inverse_gaussian_gradient, chan_vese, and the
// CPU-only active_contour.
//
// morphological_chan_vese, 1024^2 float32, 50 iterations, smoothing 1: per iteration the means
// reduction reads image + level set (5 B/px), the data step reads the image and the level set and
// writes the next (6 B/px; neighbours from L1), IS and SI read and write int8 (2 + 2 B/px): 15 B/px
// x 1 M x 50 = 0.79 GB -> floor 0.19 ms at 4.2 TB/s. Five launches per iteration (250 in all,
// ~2-3 us each, the tiny reductions included) put the expected time at ~0.7-1 ms: launch bound.
// MorphGAC with a balloon: 16 B/px per iteration (balloon and attraction steps read gimage).
// inverse_gaussian_gradient 4096^2 float32: two Gaussian-derivative filters (each 4 B in + 4 B out
// per pass, two passes) and the combination (8 B in, 4 B out): ~44 B/px = 0.74 GB -> 0.18 ms.
// chan_vese 1024^2 float32, 100 iterations (tol 0): variation 12 B/px, statistics 12 B/px, energy
// 8 B/px (4 B/px are neighbour re-reads from L1): 32 B/px x 1 M x 100 = 3.4 GB -> 0.8 ms, plus one
// host synchronisation per iteration (the stopping test): ~1.5-2.5 ms expected.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/segmentation.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;
namespace seg = cuskimage::segmentation;

namespace {

const Shape k1024 = {1024, 1024};

void BM_MorphChanVese_f32_1024(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(k1024, DType::float32, Device::cuda());
  st.SetLabel("[1024, 1024] float32, 50 iterations");
  cuskbench::run(st, 15.0 * 50.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(seg::morphological_chan_vese(img, 50, {}, s)); });
}

void BM_Cpu_MorphChanVese_f32_1024(benchmark::State& st) {
  const Array img = cuskbench::test_image(k1024, DType::float32, Device::cpu());
  st.SetLabel("[1024, 1024] float32, 50 iterations");
  cuskbench::run_cpu(st, 15.0 * 50.0 * static_cast<double>(img.size()),
                     [&] { benchmark::DoNotOptimize(seg::morphological_chan_vese(img, 50)); });
}

void BM_MorphGAC_f32_1024(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(k1024, DType::float32, Device::cuda());
  const Array g = seg::inverse_gaussian_gradient(img, {.sigma = 2.0});
  st.SetLabel("[1024, 1024] float32, 50 iterations, balloon 1");
  cuskbench::run(st, 16.0 * 50.0 * static_cast<double>(img.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(seg::morphological_geodesic_active_contour(g, 50, {.threshold = 0.5, .balloon = 1.0}, s));
  });
}

void BM_InverseGaussianGradient_f32_4096(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image({4096, 4096}, DType::float32, Device::cuda());
  cuskbench::run(st, 44.0 * static_cast<double>(img.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(seg::inverse_gaussian_gradient(img, {.sigma = 2.0}, s));
  });
}

void BM_ChanVese_f32_1024(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(k1024, DType::float32, Device::cuda());
  st.SetLabel("[1024, 1024] float32, 100 iterations");
  cuskbench::run(st, 32.0 * 100.0 * static_cast<double>(img.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(seg::chan_vese(img, {.tol = 0.0, .max_num_iter = 100}, s));
  });
}

void BM_Cpu_ActiveContour_512(benchmark::State& st) {
  const Array img = cuskbench::test_image({512, 512}, DType::float64, Device::cpu());
  std::vector<double> pts;
  for (int i = 0; i < 400; ++i) {
    const double t = 2.0 * 3.14159265358979 * i / 400.0;
    pts.push_back(256.0 + 200.0 * std::sin(t));
    pts.push_back(256.0 + 200.0 * std::cos(t));
  }
  const Array snake = Array::from_vector(pts, {400, 2});
  st.SetLabel("[512, 512] float64, 400 points, 500 iterations");
  cuskbench::run_cpu(st, 8.0 * static_cast<double>(img.size()), [&] {
    benchmark::DoNotOptimize(seg::active_contour(img, snake, {.max_num_iter = 500, .convergence = 0.0}));
  });
}

}  // namespace

BENCHMARK(BM_MorphChanVese_f32_1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_MorphChanVese_f32_1024)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(2);
BENCHMARK(BM_MorphGAC_f32_1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_InverseGaussianGradient_f32_4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ChanVese_f32_1024)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_ActiveContour_512)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(2);
