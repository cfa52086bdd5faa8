// segmentation's label utilities on int32 labels of the measure benchmarks' blobs (measure.label of
// ~35% foreground in smooth blobs): the 4096^2 case and the standard shapes (512^2,
// 3840x2160, 8192^2, 192^3). Floors (bytes each op must move, int32 labels):
//   find_boundaries     read the labels, write the bool mask:                5 B/pixel
//   clear_border        read the labels, write the copy:                     8 B/pixel
//   expand_labels(3)    read the labels, write the result:                   8 B/pixel
//   relabel_sequential  read the labels, write the relabelled image:         8 B/pixel
//   mark_boundaries     float64 gray + int32 labels in, float64 RGB out:    36 B/pixel
// Targets (H200, 4096^2): 0.10 / 0.20 / 0.50 / 0.30 ms for the first four (cuCIM 0.81 / 2.76 / 3.91
// / 1.99 ms).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "bench/common/cuda_bench.hpp"
#include "bench/measure/blobs.hpp"
#include "cuskimage/measure.hpp"
#include "cuskimage/segmentation.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;
namespace seg = cuskimage::segmentation;

namespace {

/// int32 labels of the blobs: argument 0..3 a standard shape, N >= 4 an N x N image (4096: the
/// issue's case).
Array blob_labels(benchmark::State& st, Device dev = Device::cuda()) {
  Shape shape;
  if (st.range(0) < 4) {
    shape = cuskbench::shape_arg(st);
  } else {
    shape = {st.range(0), st.range(0)};
    st.SetLabel("[" + std::to_string(st.range(0)) + ", " + std::to_string(st.range(0)) + "]");
  }
  return cuskimage::measure::label(cuskbench::blobs(shape, dev), {.dtype = DType::int32});
}

void BM_FindBoundaries(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array lab = blob_labels(st);
  cuskbench::run(st, 5.0 * static_cast<double>(lab.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(seg::find_boundaries(lab, {}, s)); });
}

void BM_FindBoundaries_outer(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array lab = blob_labels(st);
  cuskbench::run(st, 5.0 * static_cast<double>(lab.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(seg::find_boundaries(lab, {.mode = seg::BoundaryMode::outer}, s));
  });
}

void BM_ClearBorder(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array lab = blob_labels(st);
  cuskbench::run(st, 8.0 * static_cast<double>(lab.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(seg::clear_border(lab, {}, s)); });
}

void BM_ExpandLabels3(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array lab = blob_labels(st);
  cuskbench::run(st, 8.0 * static_cast<double>(lab.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(seg::expand_labels(lab, {.distance = 3}, s)); });
}

void BM_RelabelSequential(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array lab = blob_labels(st);
  cuskbench::run(st, 8.0 * static_cast<double>(lab.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(seg::relabel_sequential(lab, {.offset = 5}, s)); });
}

void BM_MarkBoundaries(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array lab = blob_labels(st);
  const Array img = cuskbench::test_image(lab.shape(), DType::float64, Device::cuda());
  cuskbench::run(st, 36.0 * static_cast<double>(lab.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(seg::mark_boundaries(img, lab, {}, s)); });
}

void BM_Cpu_FindBoundaries(benchmark::State& st) {
  const Array lab = blob_labels(st, Device::cpu());
  cuskbench::run_cpu(st, 5.0 * static_cast<double>(lab.size()),
                     [&] { benchmark::DoNotOptimize(seg::find_boundaries(lab)); });
}

}  // namespace

BENCHMARK(BM_FindBoundaries)->Arg(4096)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FindBoundaries_outer)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ClearBorder)->Arg(4096)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ExpandLabels3)->Arg(4096)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RelabelSequential)->Arg(4096)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MarkBoundaries)->Arg(4096)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_FindBoundaries)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);
