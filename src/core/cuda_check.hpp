// Checked CUDA runtime calls: every failure becomes a typed exception naming the call and site.
#pragma once

#include <cuda_runtime_api.h>

#include <string>

namespace cuskimage::detail {

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);

}  // namespace cuskimage::detail

#define CUSK_CUDA_CHECK(expr)                                                              \
  do {                                                                                     \
    cudaError_t cusk_err_ = (expr);                                                        \
    if (cusk_err_ != cudaSuccess)                                                          \
      ::cuskimage::detail::throw_cuda_error(cusk_err_, #expr, __FILE__, __LINE__);         \
  } while (0)

// After a kernel launch: reports launch-configuration errors without synchronizing.
#define CUSK_CUDA_CHECK_LAUNCH() CUSK_CUDA_CHECK(cudaGetLastError())
