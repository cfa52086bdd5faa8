// Memory resources. Device memory is stream-ordered and pooled (CUDA's cudaMallocAsync pools by
// default); a caller may install its own resource per device (e.g. one backed by RMM or PyTorch).
#pragma once

#include <cstddef>
#include <memory>

#include "cuskimage/stream.hpp"

namespace cuskimage {

class DeviceMemoryResource {
 public:
  virtual ~DeviceMemoryResource() = default;
  /// Returns memory usable by work queued on `stream` after this call. Throws OutOfMemory.
  virtual void* allocate(std::size_t bytes, const Stream& stream) = 0;
  /// Frees memory once the work queued on `stream` before this call is done.
  virtual void deallocate(void* ptr, std::size_t bytes, const Stream& stream) noexcept = 0;
};

/// The default: the device's own cudaMallocAsync pool, set to keep freed memory for reuse.
std::shared_ptr<DeviceMemoryResource> make_pool_resource(int device);

/// Resource used for new device arrays on `device` (created on first use).
std::shared_ptr<DeviceMemoryResource> device_resource(int device);
void set_device_resource(int device, std::shared_ptr<DeviceMemoryResource> resource);

/// Page-locked host memory (cudaMallocHost), used to stage host<->device copies.
/// Falls back to ordinary memory when no CUDA driver is present.
std::shared_ptr<void> allocate_pinned(std::size_t bytes);

}  // namespace cuskimage
