#include "bench/common/cuda_bench.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <string>

#include "cuskimage/device.hpp"
#include "src/core/cuda_check.hpp"

namespace cuskbench {
namespace {

__global__ void flush_kernel(float* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += gridDim.x * std::int64_t(blockDim.x))
    p[i] = p[i] * 0.5f + 1.0f;
}

// Writing a buffer larger than L2 (60 MB on the H200) evicts whatever the op left there.
void flush_l2(cudaStream_t s) {
  static float* buf = nullptr;
  static std::int64_t n = 0;
  if (!buf) {
    int dev = 0, l2 = 0;
    CUSK_CUDA_CHECK(cudaGetDevice(&dev));
    CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    n = std::max<std::int64_t>(l2, 1 << 20) * 2 / sizeof(float);
    CUSK_CUDA_CHECK(cudaMalloc(&buf, n * sizeof(float)));
    CUSK_CUDA_CHECK(cudaMemset(buf, 0, n * sizeof(float)));
  }
  flush_kernel<<<1024, 256, 0, s>>>(buf, n);
}

void set_counters(benchmark::State& state, double bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes * state.iterations()));
  state.counters["floor_ms"] = bytes / kFloorBandwidth * 1e3;
  // Rates over the per-iteration manual time.
  state.counters["GBps"] = benchmark::Counter(bytes * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["pct_floor"] =
      benchmark::Counter(bytes / kFloorBandwidth * 100.0, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

bool require_gpu(benchmark::State& state) {
  if (cuskimage::cuda_available()) return true;
  state.SkipWithError("no CUDA device");
  return false;
}

void run(benchmark::State& state, double bytes_moved, const std::function<void(const cuskimage::Stream&)>& op,
         int warmup) {
  // The timing stream is non-blocking: it does not wait for inputs a benchmark's setup uploaded on
  // another stream (Array::to, measure::label ...). Let the setup finish first.
  CUSK_CUDA_CHECK(cudaDeviceSynchronize());
  cuskimage::Stream stream = cuskimage::Stream::create();
  cudaStream_t s = stream.handle();
  for (int i = 0; i < warmup; ++i) op(stream);
  cudaEvent_t start, stop;
  CUSK_CUDA_CHECK(cudaEventCreate(&start));
  CUSK_CUDA_CHECK(cudaEventCreate(&stop));
  for (auto _ : state) {
    flush_l2(s);
    CUSK_CUDA_CHECK(cudaEventRecord(start, s));
    op(stream);
    CUSK_CUDA_CHECK(cudaEventRecord(stop, s));
    CUSK_CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CUSK_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    state.SetIterationTime(ms * 1e-3);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  set_counters(state, bytes_moved);
}

void run_cpu(benchmark::State& state, double bytes_moved, const std::function<void()>& op) {
  op();
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    op();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  set_counters(state, bytes_moved);
}

namespace {

cuskimage::Array make_test_image(const cuskimage::Shape& shape, cuskimage::DType dtype, cuskimage::Device device) {
  using cuskimage::Array;
  Array f = Array::empty(shape, cuskimage::DType::float64);
  double* p = f.data<double>();
  const std::int64_t n = f.size();
  const std::int64_t w = shape.back();
  for (std::int64_t i = 0; i < n; ++i) {
    const double x = double(i % w), y = double(i / w);
    double v = 0.5 + 0.25 * std::sin(x * 0.05) * std::cos(y * 0.031) + 0.2 * std::sin((x + 2 * y) * 0.4);
    v += ((i * 2654435761u) % 1000) * 5e-5;  // fine grain
    p[i] = std::clamp(v, 0.0, 1.0);
  }
  double scale = 1.0;
  if (cuskimage::is_integer(dtype)) scale = dtype == cuskimage::DType::uint8 ? 255.0 : 65535.0;
  if (scale != 1.0)
    for (std::int64_t i = 0; i < n; ++i) p[i] = std::round(p[i] * scale);
  return f.astype(dtype).to(device);
}

}  // namespace

// Google Benchmark calls a benchmark function several times while it sizes the iteration count, and
// generating an 8192^2 texture takes seconds on one core: images are made once per (shape, dtype,
// device) and each call gets its own copy (a device copy of 8192^2 float32 takes ~0.1 ms).
cuskimage::Array test_image(const cuskimage::Shape& shape, cuskimage::DType dtype, cuskimage::Device device) {
  static std::mutex m;
  static std::map<std::string, cuskimage::Array> cache;
  const std::string key = cuskimage::shape_str(shape) + std::string(cuskimage::dtype_name(dtype)) + device.str();
  std::lock_guard lock(m);
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, make_test_image(shape, dtype, device)).first;
  cuskimage::Array out = it->second.copy();
  if (!device.is_cpu()) cuskimage::Stream().synchronize();
  return out;
}

const std::vector<cuskimage::Shape>& standard_shapes() {
  static const std::vector<cuskimage::Shape> s = {{512, 512}, {2160, 3840}, {8192, 8192}, {192, 192, 192}};
  return s;
}

const cuskimage::Shape& shape_arg(benchmark::State& state) {
  const auto& s = standard_shapes()[static_cast<std::size_t>(state.range(0))];
  state.SetLabel(cuskimage::shape_str(s));
  return s;
}

}  // namespace cuskbench
