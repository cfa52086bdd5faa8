#include "cuskimage/stream.hpp"

#include "cuskimage/device.hpp"
#include "cuskimage/error.hpp"
#include "src/core/cuda_check.hpp"

namespace cuskimage {

Stream::Stream(cudaStream_t handle) : handle_(handle) {
  if (handle == nullptr)
    throw InvalidArgument("Stream: argument 'handle' is the legacy default stream (0); pass a stream you created, "
                          "or use Stream() for the per-thread default stream");
}

cudaStream_t Stream::per_thread_handle() { return cudaStreamPerThread; }

Stream Stream::create() {
  cudaStream_t s = nullptr;
  CUSK_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Stream out(s);
  out.owner_ = std::shared_ptr<void>(s, [](void* p) { cudaStreamDestroy(static_cast<cudaStream_t>(p)); });
  return out;
}

void Stream::synchronize() const {
  // Host-only programs never touched CUDA: nothing can be queued, and there may be no driver.
  if (!owner_ && cuda_device_count() == 0) return;
  CUSK_CUDA_CHECK(cudaStreamSynchronize(handle_));
}

namespace detail {
[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  std::string msg = std::string("CUDA error ") + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ") in " +
                    expr + " at " + file + ":" + std::to_string(line);
  if (err == cudaErrorMemoryAllocation) throw OutOfMemory(msg);
  throw CudaError(msg, static_cast<int>(err));
}
}  // namespace detail

}  // namespace cuskimage
