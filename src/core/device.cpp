#include "cuskimage/device.hpp"

#include <cuda_runtime_api.h>

#include <cstdlib>

#include "cuskimage/error.hpp"

namespace cuskimage {

Device Device::parse(const std::string& text) {
  if (text == "cpu") return cpu();
  if (text == "cuda" || text == "gpu") return cuda(0);
  if (text.rfind("cuda:", 0) == 0) {
    char* end = nullptr;
    const long i = std::strtol(text.c_str() + 5, &end, 10);
    if (end && *end == '\0' && end != text.c_str() + 5 && i >= 0) return cuda(static_cast<int>(i));
  }
  throw InvalidArgument("Device::parse: argument 'text' must be 'cpu', 'cuda' or 'cuda:N', got '" + text + "'");
}

std::string Device::str() const { return is_cpu() ? "cpu" : "cuda:" + std::to_string(index_); }

int cuda_device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // clear the sticky "no device" error
      return 0;
    }
    return n;
  }();
  return count;
}

Device default_device() { return cuda_available() ? Device::cuda(0) : Device::cpu(); }

}  // namespace cuskimage
