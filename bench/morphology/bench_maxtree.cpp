// max_tree and area_opening on the device, CUDA-event timed (kernels/morphology/max_tree.cu).
//
// Floors (bytes the call must move at least / 4.2 TB/s): max_tree reads the image and writes
// parent and traverser (int64): 17 B/px -> 2048^2: 71 MB, 17 us; 8192^2: 1.14 GB, 0.27 ms.
// area_opening reads the image and writes the result: 2 B/px -> 2048^2: 8 MB, 2 us; 8192^2: 134 MB,
// 32 us. The implementation is a union-find: latency-bound random accesses (~20 per pixel in the
// merge and union passes, most in L2 at 2048^2, most in DRAM at 8192^2) and one pair of launches per
// batch of levels (256 batches at 8192^2 uint8). Predictions on the H200 for the uint8 texture:
// max_tree ~4 ms (2048^2) and ~40 ms (8192^2); area_opening (threshold 64) ~5 ms and ~50 ms; uint8
// noise ~20% slower; the float32 texture (nearly every pixel its own level: ~4M levels in ~9600
// batches, the merge walks' latency adding up over the levels) at 2048^2 ~1-3 s, no faster than the
// CPU backend (the known weak case, see kernels/morphology/max_tree.cu). Measured (H200): max_tree
// 10.7 / 145 ms, area_opening 12.5 / 169 ms (noise 12.1 / 194 ms), float32 1.83 s, CPU 1.62 s: the
// batches are bound by their longest dependent chains, not their bytes (max_tree.cu's notes);
// BM_MaxTreeSweep times levels per batch (tuning::MaxTreePolicy) against the default rule.
#include <benchmark/benchmark.h>

#include <string>

#include "bench/common/cuda_bench.hpp"
#include "cuskimage/morphology.hpp"
#include "cuskimage/tuning.hpp"

namespace morph = cuskimage::morphology;
using cuskimage::Array;
using cuskimage::Device;
using cuskimage::DType;
using cuskimage::Shape;
using cuskimage::Stream;

namespace {

Shape square(benchmark::State& st) {
  const Shape s{st.range(0), st.range(0)};
  st.SetLabel(cuskimage::shape_str(s));
  return s;
}

void BM_MaxTree_u8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Shape shape = square(st);
  const Array d = cuskbench::test_image(shape, DType::uint8, Device::cuda());
  cuskbench::run(st, 17.0 * static_cast<double>(d.size()), [&](const Stream& s) { (void)morph::max_tree(d, {}, s); });
}

void BM_AreaOpening_u8(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Shape shape = square(st);
  const Array d = cuskbench::test_image(shape, DType::uint8, Device::cuda());
  cuskbench::run(st, 2.0 * static_cast<double>(d.size()),
                 [&](const Stream& s) { (void)morph::area_opening(d, {.area_threshold = 64}, s); });
}

/// uint8 noise: every pixel a small node, many ties.
void BM_AreaOpening_u8_noise(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Shape shape = square(st);
  Array h = Array::empty(shape, DType::uint8);
  std::uint64_t x = 7;
  for (std::int64_t i = 0; i < h.size(); ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    h.data<std::uint8_t>()[i] = static_cast<std::uint8_t>(x >> 56);
  }
  const Array d = h.to(Device::cuda());
  Stream().synchronize();
  cuskbench::run(st, 2.0 * static_cast<double>(d.size()),
                 [&](const Stream& s) { (void)morph::area_opening(d, {.area_threshold = 64}, s); });
}

/// float32 texture: (nearly) every pixel its own level, a deep tree: the hard case.
void BM_AreaOpening_f32(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Shape shape = square(st);
  const Array d = cuskbench::test_image(shape, DType::float32, Device::cuda());
  cuskbench::run(
      st, 8.0 * static_cast<double>(d.size()),
      [&](const Stream& s) { (void)morph::area_opening(d, {.area_threshold = 64}, s); }, 1);
}

/// max_tree of the uint8 texture (or float32, range(2) = 1) with range(1) levels per batch
/// (tuning::MaxTreePolicy; 0: the default rule) in one process (the 8192^2 texture is made once).
/// Exact results whatever the setting; only the time changes.
void BM_MaxTreeSweep(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Shape shape{st.range(0), st.range(0)};
  const DType dt = st.range(2) ? DType::float32 : DType::uint8;
  const Array d = cuskbench::test_image(shape, dt, Device::cuda());
  const auto levels = static_cast<unsigned>(st.range(1));
  const cuskimage::tuning::MaxTreePolicy old = cuskimage::tuning::set_max_tree_policy({.levels_per_batch = levels});
  st.SetLabel(cuskimage::shape_str(shape) + " " + std::string(cuskimage::dtype_name(dt)) +
              " D=" + (levels ? std::to_string(levels) : std::string("rule")));
  const auto op = [&](const Stream& s) { (void)morph::max_tree(d, {}, s); };
  if (dt == DType::float32) cuskbench::run(st, 17.0 * static_cast<double>(d.size()), op, 0);  // seconds a call
  else cuskbench::run(st, 17.0 * static_cast<double>(d.size()), op, 1);
  cuskimage::tuning::set_max_tree_policy(old);
}

void sweep_args(benchmark::internal::Benchmark* b) {
  for (std::int64_t side : {2048, 8192})
    for (std::int64_t D : {0, 1, 2, 4, 8, 16, 32}) b->Args({side, D, 0});
}

/// The CPU backend on the same uint8 texture, for the ratio.
void BM_AreaOpening_u8_cpu(benchmark::State& st) {
  const Shape shape = square(st);
  const Array h = cuskbench::test_image(shape, DType::uint8, Device::cpu());
  cuskbench::run_cpu(st, 2.0 * static_cast<double>(h.size()),
                     [&] { (void)morph::area_opening(h, {.area_threshold = 64}); });
}

}  // namespace

BENCHMARK(BM_MaxTree_u8)->Arg(2048)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AreaOpening_u8)->Arg(2048)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AreaOpening_u8_noise)->Arg(2048)->Arg(8192)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AreaOpening_f32)->Arg(2048)->Iterations(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MaxTreeSweep)->Apply(sweep_args)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MaxTreeSweep)->Name("BM_MaxTreeSweep_f32")->Args({2048, 0, 1})->Iterations(1)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AreaOpening_u8_cpu)->Arg(2048)->Iterations(2)->UseManualTime()->Unit(benchmark::kMillisecond);
