#include "cuskimage/stream.hpp"

#include <mutex>
#include <unordered_map>

#include "cuskimage/device.hpp"
#include "cuskimage/error.hpp"
#include "src/core/cuda_check.hpp"

namespace cuskimage {

namespace {
// Streams made by Stream::create(), by handle. A Stream made from a bare handle (Stream(handle))
// shares the creator's ownership through this registry, so an Array allocated on it keeps the
// stream alive until the Array's stream-ordered free, however long it outlives the caller's Stream
// object (a wrapper that did not own would free on a destroyed stream).
struct Registry {
  std::mutex mu;
  std::unordered_map<cudaStream_t, std::weak_ptr<void>> owners;
};
Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: streams may die during static destruction
  return *r;
}
}  // namespace

Stream::Stream(cudaStream_t handle) : handle_(handle) {
  if (handle == nullptr)
    throw InvalidArgument("Stream: argument 'handle' is the legacy default stream (0); pass a stream you created, "
                          "or use Stream() for the per-thread default stream");
  if (handle == cudaStreamPerThread) return;
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  if (auto it = r.owners.find(handle); it != r.owners.end()) owner_ = it->second.lock();
}

cudaStream_t Stream::per_thread_handle() { return cudaStreamPerThread; }

Stream Stream::create() {
  cudaStream_t s = nullptr;
  CUSK_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  Stream out(s);
  out.owner_ = std::shared_ptr<void>(s, [](void* p) {
    const auto h = static_cast<cudaStream_t>(p);
    {
      Registry& r = registry();
      std::lock_guard lock(r.mu);
      // Only this owner's entry: a wrapper made while it was alive holds a strong reference, so
      // the entry still names this (expiring) owner here.
      if (auto it = r.owners.find(h); it != r.owners.end() && it->second.expired()) r.owners.erase(it);
    }
    cudaStreamDestroy(h);
  });
  Registry& r = registry();
  std::lock_guard lock(r.mu);
  r.owners[s] = out.owner_;
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
