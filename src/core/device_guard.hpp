// Makes a CUDA device current for a scope and restores the previous one.
#pragma once

#include <type_traits>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
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

/// The backend switch of every op: cpu() for host arrays, else cuda(stream) with a's device current.
template <class Cpu, class Cuda>
decltype(auto) on_backend(const Array& a, const Stream& stream, Cpu&& cpu, Cuda&& cuda) {
  if (a.device().is_cpu()) return cpu();
  DeviceGuard guard(a.device().index());
  return cuda(stream);
}

}  // namespace cuskimage::detail
