// The corner/edge detectors of skimage.feature on the benchmark texture (float32), the issue's
// shapes:
//  * structure_tensor sigma 1 (8192^2): the image read once, three elements written: 16 B/px,
//    8192^2 -> 1.07 GB, floor 0.26 ms at 4.2 TB/s (target <= 0.40 ms; cuCIM 3.45 ms);
//  * corner_harris (4096^2): image read, response written: 8 B/px -> 134 MB, floor 0.032 ms
//    (target <= 0.20 ms; cuCIM 1.60 ms);
//  * canny sigma 2 (8192^2): the Gaussian (image read + smoothed written, 8 B/px), the fused
//    suppression (smoothed read, class byte written, 5 B/px), the hysteresis labelling (the class
//    byte read 5 times, the bool written, 4-byte parents at the edge pixels only: ~6-7 B/px):
//    ~20 B/px -> 1.3 GB, floor 0.32 ms (target <= 1.0 ms; cuCIM 9.70 ms). The bytes passed below
//    are the op's unavoidable 5 B/px (image in, bool out): 0.34 GB, floor 0.08 ms.
//  * corner_fast / corner_moravec / hessian_matrix_det (2048^2): image read + response written.
#include <benchmark/benchmark.h>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/feature.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;
namespace ft = cuskimage::feature;

namespace {

Array texture(std::int64_t n) {
  Array a = cuskbench::test_image({n, n}, DType::float32, Device::cuda());
  Stream().synchronize();
  return a;
}

void BM_StructureTensor_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = texture(st.range(0));
  cuskbench::run(st, 16.0 * static_cast<double>(img.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(ft::structure_tensor(img, {.sigma = 1.0}, s));
  });
}

void BM_CornerHarris_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = texture(st.range(0));
  cuskbench::run(st, 8.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(ft::corner_harris(img, {}, s)); });
}

void BM_CornerShiTomasi_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = texture(st.range(0));
  cuskbench::run(st, 8.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(ft::corner_shi_tomasi(img, {}, s)); });
}

void BM_Canny_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = texture(st.range(0));
  cuskbench::run(st, 5.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(ft::canny(img, {.sigma = 2.0}, s)); });
}

void BM_CornerFast_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = texture(st.range(0));
  cuskbench::run(st, 8.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(ft::corner_fast(img, {.n = 9}, s)); });
}

void BM_CornerMoravec_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = texture(st.range(0));
  cuskbench::run(st, 8.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(ft::corner_moravec(img, {}, s)); });
}

void BM_HessianMatrixDet_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = texture(st.range(0));
  // integral image (float64 written and read) + float64 determinant written
  cuskbench::run(st, 28.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(ft::hessian_matrix_det(img, {.sigma = 3}, s)); });
}

}  // namespace

BENCHMARK(BM_StructureTensor_f32)->Arg(2048)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CornerHarris_f32)->Arg(1024)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CornerShiTomasi_f32)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Canny_f32)->Arg(2048)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CornerFast_f32)->Arg(2048)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CornerMoravec_f32)->Arg(2048)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HessianMatrixDet_f32)->Arg(2048)->UseManualTime()->Unit(benchmark::kMillisecond);
