// Makes a CUDA device current for a scope and restores the previous one.
#pragma once

#include "src/core/cuda_check.hpp"

namespace cuskimage::detail {

class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    CUSK_CUDA_CHECK(cudaGetDevice(&previous_));
    if (previous_ != device) CUSK_CUDA_CHECK(cudaSetDevice(device));
  }
  ~DeviceGuard() {
    int now = previous_;
    cudaGetDevice(&now);
    if (now != previous_) cudaSetDevice(previous_);
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace cuskimage::detail
