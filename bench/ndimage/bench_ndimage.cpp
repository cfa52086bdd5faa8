// ndimage benchmarks on the standard shapes (512^2, 3840x2160, 8192^2, 192^3): CUDA-event timing with
// an L2 flush (cuskbench::run). Bytes moved are the logical traffic of one read and one write of the
// image per pass (separable filters: one pass per axis), so pct_floor shows how close each pass gets
// to the bandwidth floor; a 15x15 correlation is compute-bound and sits far below it.
#include <benchmark/benchmark.h>

#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/ndimage.hpp"

namespace nd = cuskimage::ndimage;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

using cuskbench::shape_arg;

double io_bytes(const Array& a, int passes = 1) { return 2.0 * passes * static_cast<double>(a.nbytes()); }

/// A normalised k x k (k x k x k for 3-D images) box of weights on the host.
Array box(int ndim, int k) {
  cuskimage::Shape shape(ndim, k);
  const std::int64_t n = cuskimage::shape_size(shape);
  return Array::from_vector(std::vector<float>(n, 1.0f / static_cast<float>(n)), shape);
}

void correlate_bench(benchmark::State& st, int k) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  // 192^3 gets the same k x k window in each plane (1 x k x k), the tiled single-plane path.
  const Array w = img.ndim() == 3 ? box(2, k).expand_dims(0) : box(2, k);
  Array out = Array::empty(img.shape(), img.dtype(), Device::cuda());
  cuskbench::run(st, io_bytes(img), [&](const Stream& s) { nd::correlate_into(img, w, out, {}, s); });
}

void BM_Correlate3x3_f32(benchmark::State& st) { correlate_bench(st, 3); }
void BM_Correlate5x5_f32(benchmark::State& st) { correlate_bench(st, 5); }
void BM_Correlate15x15_f32(benchmark::State& st) { correlate_bench(st, 15); }

void BM_UniformFilter5_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  cuskbench::run(st, io_bytes(img, img.ndim()), [&](const Stream& s) { (void)nd::uniform_filter(img, {.size = {5}}, s); });
}

void BM_MaximumFilter15_u8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::uint8, Device::cuda());
  cuskbench::run(st, io_bytes(img, img.ndim()), [&](const Stream& s) { (void)nd::maximum_filter(img, {.size = {15}}, s); });
}

void BM_Correlate1d7_axis0_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cuda());
  const Array w = Array::from_vector(std::vector<double>{1, 2, 3, 4, 3, 2, 1}, {7});
  Array out = Array::empty(img.shape(), img.dtype(), Device::cuda());
  cuskbench::run(st, io_bytes(img), [&](const Stream& s) { nd::correlate1d_into(img, w, out, {.axis = 0}, s); });
}

}  // namespace

#define CUSK_NDIMAGE_BENCH(fn) BENCHMARK(fn)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond)
CUSK_NDIMAGE_BENCH(BM_Correlate3x3_f32);
CUSK_NDIMAGE_BENCH(BM_Correlate5x5_f32);
CUSK_NDIMAGE_BENCH(BM_Correlate15x15_f32);
CUSK_NDIMAGE_BENCH(BM_UniformFilter5_f32);
CUSK_NDIMAGE_BENCH(BM_MaximumFilter15_u8);
CUSK_NDIMAGE_BENCH(BM_Correlate1d7_axis0_f32);
