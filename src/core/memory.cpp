#include "cuskimage/memory.hpp"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

#include "cuskimage/error.hpp"
#include "src/core/cuda_check.hpp"
#include "src/core/device_guard.hpp"

namespace cuskimage {
namespace {

class PoolResource final : public DeviceMemoryResource {
 public:
  explicit PoolResource(int device) : device_(device) {
    detail::DeviceGuard g(device);
    CUSK_CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool_, device));
    // Keep freed blocks in the pool instead of returning them at every synchronisation.
    std::uint64_t threshold = UINT64_MAX;
    CUSK_CUDA_CHECK(cudaMemPoolSetAttribute(pool_, cudaMemPoolAttrReleaseThreshold, &threshold));
  }
  void* allocate(std::size_t bytes, const Stream& stream) override {
    void* p = nullptr;
    const cudaError_t err = cudaMallocFromPoolAsync(&p, bytes == 0 ? 1 : bytes, pool_, stream.handle());
    if (err == cudaErrorMemoryAllocation) {
      cudaGetLastError();
      throw OutOfMemory("allocate: cannot allocate " + std::to_string(bytes) + " bytes on cuda:" +
                        std::to_string(device_));
    }
    CUSK_CUDA_CHECK(err);
    return p;
  }
  void deallocate(void* ptr, std::size_t, const Stream& stream) noexcept override {
    cudaFreeAsync(ptr, stream.handle());
  }

 private:
  int device_;
  cudaMemPool_t pool_{};
};

std::mutex g_mutex;
std::map<int, std::shared_ptr<DeviceMemoryResource>>& resources() {
  static auto* m = new std::map<int, std::shared_ptr<DeviceMemoryResource>>();  // outlives static arrays
  return *m;
}

}  // namespace

std::shared_ptr<DeviceMemoryResource> make_pool_resource(int device) {
  return std::make_shared<PoolResource>(device);
}

std::shared_ptr<DeviceMemoryResource> device_resource(int device) {
  std::lock_guard lock(g_mutex);
  auto& r = resources()[device];
  if (!r) r = make_pool_resource(device);
  return r;
}

void set_device_resource(int device, std::shared_ptr<DeviceMemoryResource> resource) {
  if (!resource) throw InvalidArgument("set_device_resource: argument 'resource' must not be null");
  std::lock_guard lock(g_mutex);
  resources()[device] = std::move(resource);
}

std::shared_ptr<void> allocate_pinned(std::size_t bytes) {
  void* p = nullptr;
  if (cudaMallocHost(&p, bytes == 0 ? 1 : bytes) == cudaSuccess)
    return std::shared_ptr<void>(p, [](void* q) { cudaFreeHost(q); });
  cudaGetLastError();
  p = std::malloc(bytes == 0 ? 1 : bytes);
  if (!p) throw OutOfMemory("allocate_pinned: cannot allocate " + std::to_string(bytes) + " bytes");
  return std::shared_ptr<void>(p, [](void* q) { std::free(q); });
}

}  // namespace cuskimage
