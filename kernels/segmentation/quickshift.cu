// CUDA segmentation.quickshift (src/segmentation/quickshift.cpp): a thread per pixel for the
// densities and for the parent search (src/segmentation/quickshift.hpp, the .pyx's loops), then a
// thread per pixel follows its parent chain to its root after the max_dist cut, roots are numbered
// in index order by a CUB scan of root flags, and every pixel takes its root's number. The device's
// exp may differ from glibc's in the last bit, so densities can differ from the CPU backend's by an
// ulp, which changes a parent only where two neighbours' densities are that close (the tests
// measure it).
#include <cstdint>
#include <cub/device/device_scan.cuh>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/segmentation/quickshift.hpp"

namespace cuskimage::segmentation::detail {
namespace {

using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
constexpr int kThreads = 256;

template <class T>
__global__ void density_kernel(const T* __restrict__ img, QsProblem p, T* __restrict__ dens) {
  const std::int64_t n = p.height * p.width;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * kThreads)
    dens[i] = qs_density(img, p, i / p.width, i % p.width, dens[i]);  // dens holds the noise on entry
}

template <class T>
__global__ void parent_kernel(const T* __restrict__ img, const T* __restrict__ dens, QsProblem p, T max_dist,
                              std::int64_t* __restrict__ parent, T* __restrict__ dist_parent,
                              std::int64_t* __restrict__ cut, int* __restrict__ is_root) {
  const std::int64_t n = p.height * p.width;
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * kThreads) {
    std::int64_t par;
    T d;
    qs_parent(img, dens, p, i / p.width, i % p.width, par, d);
    parent[i] = par;
    dist_parent[i] = d;
    cut[i] = d > max_dist ? i : par;
    is_root[i] = cut[i] == i;
  }
}

__global__ void label_kernel(const std::int64_t* __restrict__ cut, const int* __restrict__ rank, std::int64_t n,
                             std::int64_t* __restrict__ labels) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * kThreads) {
    std::int64_t j = i;
    while (cut[j] != j) j = cut[j];
    labels[i] = rank[j];
  }
}

}  // namespace

template <class T>
void cuda_quickshift(const Array& image, const std::vector<T>& noise, const QsProblem& p, T max_dist, Array& labels,
                     Array& parent, Array& dist_parent, const Stream& stream) {
  const std::int64_t n = p.height * p.width;
  if (n == 0) return;
  const Device dev = image.device();
  const cudaStream_t s = stream.handle();
  const unsigned blocks = cuskimage::detail::grid_blocks(n, kThreads, 8192);
  Array dens = cuskimage::detail::buf::upload(noise, dev, stream);
  density_kernel<T><<<blocks, kThreads, 0, s>>>(cptr<T>(image), p, ptr<T>(dens));
  CUSK_CUDA_CHECK_LAUNCH();
  Array cut = Array::empty({n}, DType::int64, dev, stream);
  Array flag = Array::empty({n + 1}, DType::int32, dev, stream),
        rank = Array::empty({n + 1}, DType::int32, dev, stream);
  parent_kernel<T><<<blocks, kThreads, 0, s>>>(cptr<T>(image), cptr<T>(dens), p, max_dist, ptr<std::int64_t>(parent),
                                               ptr<T>(dist_parent), ptr<std::int64_t>(cut), ptr<int>(flag));
  CUSK_CUDA_CHECK_LAUNCH();
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, ptr<int>(flag), ptr<int>(rank), n, s));
  Array tmp = cuskimage::detail::buf::scratch(bytes, dev, stream);
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, ptr<int>(flag), ptr<int>(rank), n, s));
  label_kernel<<<blocks, kThreads, 0, s>>>(cptr<std::int64_t>(cut), cptr<int>(rank), n, ptr<std::int64_t>(labels));
  CUSK_CUDA_CHECK_LAUNCH();
}

template void cuda_quickshift<float>(const Array&, const std::vector<float>&, const QsProblem&, float, Array&, Array&,
                                     Array&, const Stream&);
template void cuda_quickshift<double>(const Array&, const std::vector<double>&, const QsProblem&, double, Array&,
                                      Array&, Array&, const Stream&);

}  // namespace cuskimage::segmentation::detail
