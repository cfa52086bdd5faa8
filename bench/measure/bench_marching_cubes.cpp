// measure.marching_cubes on a 256^3 float32 sphere (signed distance, level 0: ~0.2 M vertices) and
// a 192^3 smoothed-noise volume (many sheets and ambiguous cubes), Lewiner's method.
//
// CUDA: three passes over the volume (count, vertices, faces; ~1x volume each through L1/L2) plus
// the float32 min/max when the level is left to its default. 256^3 sphere with a given level:
// 3 x 67 MB read + ~12 MB written (28 B per vertex, 12 B per face, 8 B per key) = ~213 MB,
// floor ~0.051 ms at 4.2 TB/s. Prediction: ~0.25 ms (the per-cube rule of the crossed cubes, run up
// to 4x per vertex in the vertex pass, and the one host synchronisation that sizes the outputs).
// The CPU backend (OpenMP over z-slabs) is listed for the ratio.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/measure.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;
namespace measure = cuskimage::measure;

namespace {

/// Signed distance to a sphere of radius 0.4 n at the centre of an n^3 float32 volume.
Array sphere(std::int64_t n, Device device) {
  std::vector<float> v(static_cast<std::size_t>(n * n * n));
  const double c = (n - 1) / 2.0, r = 0.4 * static_cast<double>(n);
  for (std::int64_t z = 0; z < n; ++z)
    for (std::int64_t y = 0; y < n; ++y)
      for (std::int64_t x = 0; x < n; ++x)
        v[static_cast<std::size_t>((z * n + y) * n + x)] =
            static_cast<float>(r - std::sqrt((z - c) * (z - c) + (y - c) * (y - c) + (x - c) * (x - c)));
  return Array::from_vector(v, {n, n, n}).to(device);
}

/// Smooth noise: sum of a few sines, many closed and open sheets.
Array waves(std::int64_t n, Device device) {
  std::vector<float> v(static_cast<std::size_t>(n * n * n));
  for (std::int64_t z = 0; z < n; ++z)
    for (std::int64_t y = 0; y < n; ++y)
      for (std::int64_t x = 0; x < n; ++x)
        v[static_cast<std::size_t>((z * n + y) * n + x)] =
            static_cast<float>(std::sin(0.31 * x) * std::sin(0.23 * y + 0.5) + std::sin(0.17 * z + 0.13 * x));
  return Array::from_vector(v, {n, n, n}).to(device);
}

double bytes(const Array& vol) { return 3.0 * static_cast<double>(vol.nbytes()); }

void BM_MarchingCubes_Sphere256(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array vol = sphere(256, Device::cuda());
  st.SetLabel("[256, 256, 256] float32 sphere");
  cuskbench::run(st, bytes(vol),
                 [&](const Stream& s) { benchmark::DoNotOptimize(measure::marching_cubes(vol, {.level = 0.0}, s)); });
}

void BM_MarchingCubes_Waves192(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array vol = waves(192, Device::cuda());
  st.SetLabel("[192, 192, 192] float32 waves");
  cuskbench::run(st, bytes(vol),
                 [&](const Stream& s) { benchmark::DoNotOptimize(measure::marching_cubes(vol, {.level = 0.1}, s)); });
}

void BM_Cpu_MarchingCubes_Sphere256(benchmark::State& st) {
  const Array vol = sphere(256, Device::cpu());
  st.SetLabel("[256, 256, 256] float32 sphere");
  cuskbench::run_cpu(st, bytes(vol), [&] { benchmark::DoNotOptimize(measure::marching_cubes(vol, {.level = 0.0})); });
}

}  // namespace

BENCHMARK(BM_MarchingCubes_Sphere256)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MarchingCubes_Waves192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_MarchingCubes_Sphere256)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);
