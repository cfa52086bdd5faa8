// feature.blob_log / blob_dog, CUDA backend of the scale-space layer: one pass per scale that sums
// the per-axis second derivatives (LoG) or subtracts two smoothings (DoG), scales, and writes the
// layer into the (..., K) cube (src/feature/blob.hpp's blob_layer_value, shared with the CPU).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/blob.hpp"

namespace cuskimage::feature::detail {
namespace {

template <class T>
struct Terms {
  const T* p[kBlobMaxTerms];
  int n;
};

template <class T>
__global__ void k_layer(Terms<T> t, bool dog, T scale, std::int64_t n, std::int64_t K, std::int64_t k,
                        T* __restrict__ cube) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    cube[i * K + k] = blob_layer_value<T>([&](int a) { return t.p[a][i]; }, t.n, dog, scale);
}

template <class T>
void launch(const std::vector<Array>& terms, bool dog, double scale, Array& cube, std::int64_t k, const Stream& s) {
  Terms<T> t{};
  std::vector<Array> keep;
  for (const Array& a : terms) {
    keep.push_back(a.contiguous(s));
    t.p[t.n++] = static_cast<const T*>(keep.back().data());
  }
  const std::int64_t K = cube.shape(cube.ndim() - 1), n = cube.size() / K;
  constexpr int threads = 256;
  k_layer<T><<<cuskimage::detail::grid_blocks(n, threads, 65535LL * 8), threads, 0, s.handle()>>>(
      t, dog, static_cast<T>(scale), n, K, k, static_cast<T*>(cube.data()));
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace

void cuda_blob_layer(const std::vector<Array>& terms, bool dog, double scale, Array& cube, std::int64_t k,
                     const Stream& stream) {
  if (cube.dtype() == DType::float32)
    launch<float>(terms, dog, scale, cube, k, stream);
  else
    launch<double>(terms, dog, scale, cube, k, stream);
}

}  // namespace cuskimage::feature::detail
