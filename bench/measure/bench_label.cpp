// measure.label on binary blobs (35% foreground, the case) over the standard shapes
// (/2 is 8192^2) and on a 512^3 volume, plus multi-valued uint8 blobs (the keyed path). Floor: one
// read of the bool image and one write of the int32 labels (5 B/pixel: 8192^2 -> 335 MB,
// 0.080 ms). The tiled design (kernels/measure/label.cu) reads the image once; pass 1 leaves row
// masks and per-run root ordinals from which the final pass writes the labels (16-byte stores),
// and the face, root and scan passes move sparse data: ~0.55 GB at 8192^2, 0.13 ms at 4.2 TB/s.
// Predicted on the H200 (8192^2): local 0.10, faces 0.05, roots 0.03, scan 0.016, final 0.09 ms,
// ~0.3 ms in all (was 0.95 ms; target <= 0.6 ms, CuPy 5.97 ms). 512^3: ~1.2 ms (was 4.11; the
// face buffers of 0.81 entries per pixel dominate).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "bench/common/cuda_bench.hpp"
#include "bench/measure/blobs.hpp"
#include "cuskimage/measure.hpp"

using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;

namespace {

using cuskbench::blobs;

/// 512^3 blobs from a few sines (the texture generator is 2-D-oriented and slow at this size).
Array volume_blobs(std::int64_t n) {
  Array b = Array::empty({n, n, n}, DType::bool_);
  bool* q = b.data<bool>();
#pragma omp parallel for schedule(static)
  for (std::int64_t z = 0; z < n; ++z)
    for (std::int64_t y = 0; y < n; ++y)
      for (std::int64_t x = 0; x < n; ++x)
        q[(z * n + y) * n + x] = std::sin(x / 7.0) + std::sin(y / 9.0 + z / 13.0) + std::sin(z / 5.0 + x / 17.0) > 0.9;
  return b.to(Device::cuda());
}

void BM_Label_blobs(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = blobs(cuskbench::shape_arg(st), Device::cuda());
  cuskbench::run(st, 5.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(cuskimage::measure::label(img, {}, s)); });
}

void BM_Label_blobs_512cube(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = volume_blobs(512);
  st.SetLabel("[512, 512, 512]");
  cuskbench::run(st, 5.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(cuskimage::measure::label(img, {}, s)); });
}

/// The blobs with three values (runs of 97 pixels along x alternate between 1, 2 and 3): uint8
/// takes the keyed path (a key per pixel in shared memory, int64 labels by default).
void BM_Label_blobs_u8_levels(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array b = blobs(cuskbench::shape_arg(st), Device::cpu());
  Array img = Array::empty(b.shape(), DType::uint8);
  const bool* p = b.data<bool>();
  std::uint8_t* q = img.data<std::uint8_t>();
  for (std::int64_t i = 0; i < img.size(); ++i) q[i] = p[i] ? static_cast<std::uint8_t>(1 + (i / 97) % 3) : 0;
  const Array d = img.to(Device::cuda());
  cuskbench::run(st, 9.0 * static_cast<double>(d.size()),
                 [&](const Stream& s) { benchmark::DoNotOptimize(cuskimage::measure::label(d, {}, s)); });
}

void BM_Cpu_Label_blobs(benchmark::State& st) {
  const Array img = blobs(cuskbench::shape_arg(st), Device::cpu());
  cuskbench::run_cpu(st, 5.0 * static_cast<double>(img.size()),
                     [&] { benchmark::DoNotOptimize(cuskimage::measure::label(img)); });
}

}  // namespace

BENCHMARK(BM_Label_blobs)->DenseRange(0, 3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Label_blobs_512cube)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Label_blobs_u8_levels)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_Label_blobs)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);
