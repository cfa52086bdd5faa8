// Shared memory block behind Arrays. Views keep it alive through shared_ptr.
#pragma once

#include <cstddef>
#include <functional>

#include "cuskimage/device.hpp"

namespace cuskimage::detail {

class Buffer {
 public:
  Buffer(void* ptr, std::size_t bytes, Device device, std::function<void(void*)> release)
      : ptr_(ptr), bytes_(bytes), device_(device), release_(std::move(release)) {}
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (release_) release_(ptr_);
  }
  void* ptr() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  Device device() const { return device_; }

 private:
  void* ptr_;
  std::size_t bytes_;
  Device device_;
  std::function<void(void*)> release_;
};

}  // namespace cuskimage::detail
