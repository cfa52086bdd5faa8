// Detects work queued on the legacy default stream (see test_support.hpp).
#include <cuda_runtime.h>

#include <chrono>
#include <future>
#include <thread>

#include "tests/common/test_support.hpp"

namespace cusktest {
namespace {

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Spins until the host sets *flag or `limit_ns` pass. The deadline is the safety net: a test must
// never hang, even where a host write to mapped memory is slow to become visible to the GPU.
__global__ void spin_until(volatile int* flag, unsigned long long limit_ns) {
  const unsigned long long start = global_ns();
  while (*flag == 0 && global_ns() - start < limit_ns) {
    __nanosleep(1000);
  }
}

}  // namespace

::testing::AssertionResult runs_without_legacy_stream(const std::function<void(const cuskimage::Stream&)>& op,
                                                      int timeout_ms) {
  cuskimage::Stream stream = cuskimage::Stream::create();
  // Warm-up outside the guard: lazy module loading on first launch may itself synchronise.
  op(stream);
  stream.synchronize();

  int* flag = nullptr;
  if (cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped) != cudaSuccess)
    return ::testing::AssertionFailure() << "cudaHostAlloc failed";
  *flag = 0;
  int* dflag = nullptr;
  cudaHostGetDevicePointer(&dflag, flag, 0);
  // The spinner outlives the wait below, so "op finished" means it finished while stream 0 was busy.
  const auto limit_ns = static_cast<unsigned long long>(timeout_ms + 2000) * 1000000ull;
  spin_until<<<1, 1, 0, cudaStreamLegacy>>>(dflag, limit_ns);
  if (cudaGetLastError() != cudaSuccess) return ::testing::AssertionFailure() << "spinner launch failed";

  std::string error;
  auto done = std::async(std::launch::async, [&] {
    try {
      op(stream);
      stream.synchronize();
    } catch (const std::exception& e) {
      error = e.what();
    }
  });
  const bool finished = done.wait_for(std::chrono::milliseconds(timeout_ms)) == std::future_status::ready;
  *reinterpret_cast<volatile int*>(flag) = 1;  // release the spinner either way
  done.wait();
  cudaStreamSynchronize(cudaStreamLegacy);
  cudaFreeHost(flag);
  if (!error.empty()) return ::testing::AssertionFailure() << "op threw: " << error;
  if (!finished)
    return ::testing::AssertionFailure() << "op did not finish while the legacy default stream was busy: it "
                                            "queued work on stream 0 or synchronised the device";
  return ::testing::AssertionSuccess();
}

}  // namespace cusktest
