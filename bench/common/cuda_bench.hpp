// Benchmark harness: CUDA-event timing reported as manual time, an L2 flush before each timed
// iteration, bytes processed, achieved GB/s and percent of the H200's 4.2 TB/s copy floor.
//
//   static void BM_Invert(benchmark::State& st) {
//     Array img = ...on device...;
//     cuskbench::run(st, bytes_moved, [&](const Stream& s) { util::invert(img, s); });
//   }
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "cuskimage/array.hpp"

namespace cuskbench {

/// Measured device-to-device copy bandwidth of an H200 (bytes read + written per second).
inline constexpr double kFloorBandwidth = 4.2e12;

/// Times `op` with CUDA events once per benchmark iteration after `warmup` untimed calls,
/// flushing L2 before each; sets manual time, bytes processed and the counters GB/s,
/// floor_ms (bytes / 4.2 TB/s) and pct_floor (floor / measured).
void run(benchmark::State& state, double bytes_moved, const std::function<void(const cuskimage::Stream&)>& op,
         int warmup = 3);

/// Same for a CPU op (wall-clock time, no flush).
void run_cpu(benchmark::State& state, double bytes_moved, const std::function<void()>& op);

/// Deterministic texture-like test image (tiled smooth noise with edges), host or device.
cuskimage::Array test_image(const cuskimage::Shape& shape, cuskimage::DType dtype, cuskimage::Device device);

/// Standard shapes of DESIGN.md §7: 512², 3840×2160, 8192², 192³.
const std::vector<cuskimage::Shape>& standard_shapes();

/// The standard shape selected by the benchmark's first argument (an index into standard_shapes());
/// also labels the run with it.
const cuskimage::Shape& shape_arg(benchmark::State& state);

/// Skips the benchmark (state.SkipWithError) when no GPU is present; returns false then.
bool require_gpu(benchmark::State& state);

}  // namespace cuskbench
