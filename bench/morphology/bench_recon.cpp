// Reconstruction and remove_small_objects at 8192^2 (and 192^3), CUDA-event timed.
//
// Reconstruction (an h-dome: seed = image - 0.2 clipped at 0, mask = the float32 test image,
// result float32): the floor of the call is one read of seed and mask and one write of the
// result, 12 B/px = 0.81 GB at 8192^2 -> 0.19 ms at 4.2 TB/s (bytes reported below). The
// implementation moves more: the seed > mask check (8 B/px), the contiguous float copies (16 B/px
// for float32 input already contiguous: none), and each sweep reads rec + halo and mask and writes
// rec (12 B/px for an active tile): ~3-6 sweeps on smooth images -> predicted ~1-2 ms (5-10x the
// floor), the line scans in shared memory rather than DRAM being the limit for the dense sweeps.
//
// remove_small_objects (bool blobs, max_size 64): floor one read and one write, 2 B/px = 134 MB
// -> 32 us; the union-find pipeline moves ~30 B/px (4-byte parents written, merged, flattened,
// read twice; 8-byte sizes), ~2 GB -> predicted ~0.6-1 ms.
#include <benchmark/benchmark.h>

#include <algorithm>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/morphology.hpp"

namespace morph = cuskimage::morphology;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Stream;

namespace {

using cuskbench::shape_arg;

void BM_ReconstructionDilation_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array img = cuskbench::test_image(shape_arg(st), DType::float32, Device::cpu());
  Array seed = img.copy();
  float* p = seed.data<float>();
  for (std::int64_t i = 0; i < seed.size(); ++i) p[i] = std::max(p[i] - 0.2f, 0.0f);
  const Array dimg = img.to(Device::cuda()), dseed = seed.to(Device::cuda());
  Stream().synchronize();
  cuskbench::run(st, 12.0 * static_cast<double>(img.size()),
                 [&](const Stream& s) { (void)morph::reconstruction(dseed, dimg, {}, s); });
}

void BM_RemoveSmallObjects_b8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Array f = cuskbench::test_image(shape_arg(st), DType::float64, Device::cpu());
  Array b = Array::empty(f.shape(), DType::bool_);
  const double* p = f.data<double>();
  bool* q = b.data<bool>();
  for (std::int64_t i = 0; i < f.size(); ++i) q[i] = p[i] > 0.5;
  const Array d = b.to(Device::cuda());
  Stream().synchronize();
  cuskbench::run(st, 2.0 * static_cast<double>(b.size()),
                 [&](const Stream& s) { (void)morph::remove_small_objects(d, {.max_size = 64}, s); });
}

}  // namespace

BENCHMARK(BM_ReconstructionDilation_f32)->Arg(2)->Arg(3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RemoveSmallObjects_b8)->Arg(2)->Arg(3)->UseManualTime()->Unit(benchmark::kMillisecond);
