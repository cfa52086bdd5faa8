// measure.find_contours on a 4096^2 binary blob mask (the case), plus the histogram and
// block measures of the same module at 8192^2.
//
// find_contours, CUDA: the device part reads the mask twice (count, emit: 2 x 16.8 MB for a bool
// 4096^2 mask, ~8 us at 4.2 TB/s) and writes 32 B per segment; this texture has millions of
// contour points (a 4096^2 float version at level 0.5: 60,723 contours, 5.57 M points), so the
// device-to-host copy of the segments (~180 MB pageable, ~15-30 ms) and above all the host
// assembly (scikit-image's dictionary walk, inherently sequential: ~85% of the CPU backend's time
// in perf) dominate. Measured here (2 shared cores, contended): CPU backend 1.8 s CPU per call.
// Prediction on the H200 host: GPU path ~0.85 x the CPU backend's time (0.5-1.5 s), i.e. bound by
// the host assembly, not by the device; scikit-image 0.26 is ~5x slower than our CPU backend
// (5.1 s vs 1.1 s on the 1024^2 texture here).
// euler_number / perimeter_crofton / perimeter, 8192^2 bool: one read of the image (67 MB,
// floor 0.016 ms) plus the neighbourhood reads from L1/L2; perimeter also writes and re-reads its
// uint8 border image (3 x 67 MB, floor 0.048 ms). Prediction: 0.05-0.1 ms (perimeter ~0.15 ms).
// block_reduce mean 4x4, 8192^2 uint8 -> float64: 67 MB in, 34 MB out, floor 0.024 ms; the
// per-thread strided block walk makes it ~3x the floor.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "bench/measure/blobs.hpp"
#include "cuskimage/measure.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;
namespace measure = cuskimage::measure;

namespace {

using cuskbench::blobs;

const Shape k4096 = {4096, 4096};
const Shape k8192 = {8192, 8192};

void BM_FindContours_4096(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = blobs(k4096, Device::cuda());
  st.SetLabel("[4096, 4096] bool blobs");
  cuskbench::run(st, 2.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(measure::find_contours(img, {}, s)); });
}

void BM_Cpu_FindContours_4096(benchmark::State& st) {
  const Array img = blobs(k4096, Device::cpu());
  st.SetLabel("[4096, 4096] bool blobs");
  cuskbench::run_cpu(st, 2.0 * static_cast<double>(img.size()),
                     [&] { benchmark::DoNotOptimize(measure::find_contours(img)); });
}

void BM_EulerNumber_8192(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = blobs(k8192, Device::cuda());
  cuskbench::run(st, static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(measure::euler_number(img, std::nullopt, s)); });
}

void BM_Perimeter_8192(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = blobs(k8192, Device::cuda());
  cuskbench::run(st, 3.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(measure::perimeter(img, 4, s)); });
}

void BM_BlockReduceMean_8192(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(k8192, DType::uint8, Device::cuda());
  cuskbench::run(st, static_cast<double>(img.size()) * (1.0 + 8.0 / 16.0), [&](const Stream& s) {
    benchmark::DoNotOptimize(measure::block_reduce(img, {4, 4}, {.func = measure::BlockFunc::mean}, s));
  });
}

void BM_ShannonEntropy_8192(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(k8192, DType::uint8, Device::cuda());
  // radix sort of 64-bit keys: ~8 passes over 16 B per element dominate
  cuskbench::run(st, static_cast<double>(img.size()) * (1.0 + 8.0 * 16.0),
                 [&](const Stream& s) { benchmark::DoNotOptimize(measure::shannon_entropy(img, 2.0, s)); });
}

}  // namespace

BENCHMARK(BM_FindContours_4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_FindContours_4096)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
BENCHMARK(BM_EulerNumber_8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Perimeter_8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BlockReduceMean_8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ShannonEntropy_8192)->UseManualTime()->Unit(benchmark::kMillisecond);
