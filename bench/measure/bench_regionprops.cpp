// measure.regionprops_table on labelled blobs (35% foreground, the case: measure.label of
// the benchmark texture above its 65th percentile, int32 labels) with a uint8 intensity image.
// 8192^2: 145,316 regions (the CPU backend's measure.label of the same blobs; the device
// benchmark reports its count as `regions`), ~3.5 M row runs of ~6.7 px. Floor for (area, centroid, bbox, intensity_mean): pass 1 reads labels +
// intensity (5 B/px): 8192^2 -> 335 MB, 0.08 ms at 4.2 TB/s (the direct mode's max-label pass
// adds 4 B/px: 0.144 ms; bytes_processed below stays 9 B/px for comparison with earlier runs).
// Target (H200, 8192^2): <= 1.0 ms. Pass 1's kernel and strip geometry follow
// cuskimage::tuning::RegionpropsPolicy (include/cuskimage/tuning.hpp); set it to compare.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>
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

struct Inputs {
  Array labels, intensity;
};

/// Labels and intensity for a shape, made once per shape and device (benchmarks re-enter).
const Inputs& inputs(const Shape& shape, Device device) {
  static std::map<std::pair<Shape, bool>, Inputs> cache;
  const auto key = std::make_pair(shape, device.is_cpu());
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  Inputs in;
  in.labels = cuskimage::measure::label(cuskbench::blobs(shape, device)).astype(DType::int32);
  in.intensity = cuskbench::test_image(shape, DType::uint8, device);
  Stream().synchronize();
  return cache.emplace(key, std::move(in)).first->second;
}

const std::vector<std::string> kTargetProps = {"area", "centroid", "bbox", "intensity_mean"};

void BM_RegionpropsTable_target(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Inputs& in = inputs(cuskbench::shape_arg(st), Device::cuda());
  cuskbench::run(st, 9.0 * static_cast<double>(in.labels.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::measure::regionprops_table(in.labels, in.intensity, kTargetProps, {}, s));
  });
}

// The host Table of these pass-1 columns: the device columns below, each copied once into its
// host column (8 x 145 k values, 9.3 MB); it measured 11.6 and 20.5 ms through the packed
// per-label statistics (15 MB of packed rows, then ~25 MB of host vectors built from them: page
// faults of fresh host memory on every call). Predicted 2-5 ms (host memory bound).

/// The same columns left on the device (regionprops_table_device; cuCIM also returns device
/// arrays): one host read of the max label and record count, one of the region count. The tile
/// kernel measured pass 1 0.814 ms (1.01 ms end to end); the warp-strip kernel with the fused max
/// label: predicted pass 1 0.13-0.2 ms, 0.25-0.4 ms end to end (target 1.0, stretch 0.5).
void BM_RegionpropsTableDevice_target(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Inputs& in = inputs(cuskbench::shape_arg(st), Device::cuda());
  cuskbench::run(st, 9.0 * static_cast<double>(in.labels.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::measure::regionprops_table_device(in.labels, in.intensity, kTargetProps, {}, s));
  });
  const auto t = cuskimage::measure::regionprops_table_device(in.labels, in.intensity, kTargetProps);
  st.counters["regions"] = static_cast<double>(t.columns.front().shape(0));
}

/// Report only: the table's worst case, labels from a hash of the pixel index (1..2^20, ~4000
/// labels per 32 x 128 strip): the tables overflow and most runs (one pixel each) take the direct
/// global atomics, ~67 M flushes (12.6 ms with the tile kernel; the fused mode adds one wasted
/// pass over the image before it falls back).
void BM_RegionpropsTableDevice_noise(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  static Array labels, intensity;
  if (!labels.valid()) {
    const cuskimage::Shape shape = cuskbench::shape_arg(st);
    Array h = Array::empty(shape, DType::int32);
    auto* p = h.data<std::int32_t>();
    for (std::int64_t i = 0; i < h.size(); ++i)
      p[i] = 1 + static_cast<std::int32_t>((static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull) >> 44);
    labels = h.to(Device::cuda());
    intensity = cuskbench::test_image(shape, DType::uint8, Device::cuda());
    Stream().synchronize();
  } else {
    cuskbench::shape_arg(st);
  }
  cuskbench::run(st, 9.0 * static_cast<double>(labels.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::measure::regionprops_table_device(labels, intensity, kTargetProps, {}, s));
  });
}

/// Adds pass 2 (order-3 raw/central moments, weighted moments, intensity std): 2 x 9 B/px floor.
void BM_RegionpropsTable_moments(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Inputs& in = inputs(cuskbench::shape_arg(st), Device::cuda());
  const std::vector<std::string> props = {"label", "area", "bbox", "centroid", "moments_central", "inertia_tensor",
                                          "moments_weighted_central", "intensity_std", "intensity_min"};
  cuskbench::run(st, 14.0 * static_cast<double>(in.labels.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::measure::regionprops_table(in.labels, in.intensity, props, {}, s));
  });
}

void BM_Cpu_RegionpropsTable_target(benchmark::State& st) {
  const Inputs& in = inputs(cuskbench::shape_arg(st), Device::cpu());
  cuskbench::run_cpu(st, 9.0 * static_cast<double>(in.labels.size()), [&] {
    benchmark::DoNotOptimize(cuskimage::measure::regionprops_table(in.labels, in.intensity, kTargetProps));
  });
}

void BM_Moments_central(benchmark::State& st) {
  if (!cuskbench::require_gpu(st)) return;
  const Inputs& in = inputs(cuskbench::shape_arg(st), Device::cuda());
  cuskbench::run(st, 2.0 * static_cast<double>(in.intensity.size()), [&](const Stream& s) {
    benchmark::DoNotOptimize(cuskimage::measure::moments_central(in.intensity, {}, s));
  });
}

}  // namespace

BENCHMARK(BM_RegionpropsTable_target)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RegionpropsTableDevice_target)->DenseRange(0, 2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RegionpropsTableDevice_noise)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RegionpropsTable_moments)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Cpu_RegionpropsTable_target)->Arg(0)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Moments_central)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond);
