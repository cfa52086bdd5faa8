// radon (180 angles, circle=True) on 512^2 (the shape), 2048^2 and 3840x2160 (cropped to
// 2160^2 by circle=True), float64 input; iradon of the 512^2 sinogram; frt2 on 509^2 (prime) uint16.
// Bytes moved: the image read once and the sinogram written once (512^2: 2.1 MB + 0.7 MB, floor
// 0.7 us): radon is bound by its n^2 x angles bilinear samples (4 L1/L2 gathers and ~10 FP64 ops
// each), not by DRAM; the time per sample is the figure to watch. Target (512^2, H200): <= 4 ms
// (scikit-image 813 ms).
#include <benchmark/benchmark.h>

#include <string>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/transform/finite_radon_transform.hpp"
#include "cuskimage/transform/radon_transform.hpp"

namespace tf = cuskimage::transform;
using cuskimage::Array, cuskimage::Device, cuskimage::DType, cuskimage::Shape, cuskimage::Stream;

namespace {

/// The (rows, cols) of the benchmark's two arguments, set as its label for compare.py.
Shape labelled_shape(benchmark::State& st) {
  const Shape s{st.range(0), st.range(1)};
  st.SetLabel("[" + std::to_string(s[0]) + ", " + std::to_string(s[1]) + "]");
  return s;
}

void BM_Radon180(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Shape shape = labelled_shape(st);
  const Array img = cuskbench::test_image(shape, DType::float64, Device::cuda());
  const double n = static_cast<double>(std::min(shape[0], shape[1]));
  Array out;
  cuskbench::run(st, 8.0 * (n * n + n * 180), [&](const Stream& s) { out = tf::radon(img, {}, s); });
}

/// iradon of radon's 512^2 sinogram (512 x 180): the filter by cuFFT (180 projections padded to
/// 2048, D2Z + Z2D), back-projection 512^2 x 180 interpolations; bytes: sinogram in, image out
/// (the floor is far below the back-projection's gathers: watch the time).
void BM_Iradon180(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(labelled_shape(st), DType::float64, Device::cuda());
  const Array sino = tf::radon(img);
  Array out;
  cuskbench::run(st, 8.0 * (512.0 * 180 + 512.0 * 512), [&](const Stream& s) { out = tf::iradon(sino, {}, s); });
}

/// One SART pass over radon's 512^2 sinogram (180 projections, each a deviation launch and a
/// gather launch); bytes: the image read and written once per projection.
void BM_IradonSart180(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(labelled_shape(st), DType::float64, Device::cuda());
  const Array sino = tf::radon(img);
  Array out;
  cuskbench::run(st, 16.0 * 512 * 512 * 180, [&](const Stream& s) { out = tf::iradon_sart(sino, {}, s); });
}

void BM_Frt2_u16(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(labelled_shape(st), DType::uint16, Device::cuda());
  Array out;
  cuskbench::run(st, 2.0 * 509 * 509 + 4.0 * 510 * 509, [&](const Stream& s) { out = tf::frt2(img, s); });
}

}  // namespace

BENCHMARK(BM_Radon180)
    ->Args({512, 512})
    ->Args({2048, 2048})
    ->Args({2160, 3840})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Iradon180)->Args({512, 512})->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_IradonSart180)->Args({512, 512})->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Frt2_u16)->Args({509, 509})->UseManualTime()->Unit(benchmark::kMillisecond);
