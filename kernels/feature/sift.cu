// feature.SIFT, CUDA backend: differences of Gaussians (one thread per voxel), extrema with their
// refinement (one thread per interior voxel; the extrema are appended with their C-order key,
// which the host sorts), orientation histograms and descriptors (one thread per keypoint, its
// histogram in global scratch, summed in scikit-image's pixel order).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/sift.hpp"

namespace cuskimage::feature::detail {
namespace {

using cuskimage::detail::grid_blocks;
using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
constexpr int kThreads = 256;

__global__ void k_dog(const double* g, std::int64_t plane, std::int64_t n, double* dog) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    dog[i] = g[i + plane] - g[i];
}

/// Interior voxels in C order (row, col, scale) of the DoG; extrema appended to `rows` (6 doubles).
__global__ void k_candidates(SiftOctave o, SiftParams p, unsigned long long* count, unsigned long long cap,
                             double* rows) {
  const std::int64_t R = o.rows - 2, C = o.cols - 2, L = o.layers - 3, n = R * C * L;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t l = i % L + 1, c = (i / L) % C + 1, r = i / (L * C) + 1;
    if (!sift_extremum(o, r, c, l, p.threshold)) continue;
    const SiftCandidate k = sift_refine(o, p, r, c, l);
    const unsigned long long at = atomicAdd(count, 1ull);
    if (at >= cap) continue;
    double* w = rows + 6 * at;
    w[0] = static_cast<double>(i), w[1] = k.keep, w[2] = k.y, w[3] = k.x, w[4] = k.sigma;
    w[5] = static_cast<double>(k.scale);
  }
}

__global__ void k_orientations(const SiftOctave* octs, SiftParams p, const double* kp, std::int64_t n, double* scratch,
                               int* counts, double* oris) {
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double* k = kp + 5 * i;
    counts[i] = sift_orientations(octs[static_cast<int>(k[4])], p, k[0], k[1], k[2], static_cast<std::int64_t>(k[3]),
                                  scratch + 2 * p.n_bins * i, oris + p.n_bins * i);
  }
}

__global__ void k_descriptors(const SiftOctave* octs, SiftParams p, const double* kp, std::int64_t n, double* scratch,
                              std::uint8_t* out) {
  const std::int64_t len = static_cast<std::int64_t>(p.n_hist) * p.n_hist * p.n_ori;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const double* k = kp + 6 * i;
    sift_descriptor(octs[static_cast<int>(k[4])], p, k[0], k[1], k[2], static_cast<std::int64_t>(k[3]), k[5],
                    scratch + len * i, out + len * i);
  }
}

Array upload_octaves(const std::vector<SiftOctave>& octs, Device dev, const Stream& s) {
  const std::size_t bytes = octs.size() * sizeof(SiftOctave);
  Array a = Array::empty({static_cast<std::int64_t>(bytes)}, DType::uint8, dev, s);
  CUSK_CUDA_CHECK(cudaMemcpyAsync(a.data(), octs.data(), bytes, cudaMemcpyHostToDevice, s.handle()));
  return a;
}

}  // namespace

void cuda_sift_dog(const Array& g, Array& dog, const Stream& stream) {
  const std::int64_t n = dog.size();
  k_dog<<<grid_blocks(n, kThreads, 1 << 16), kThreads, 0, stream.handle()>>>(cptr<double>(g), g.shape(1) * g.shape(2), n,
                                                                             ptr<double>(dog));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

std::vector<double> cuda_sift_candidates(const SiftOctave& o, const SiftParams& p, Device dev, const Stream& stream) {
  const std::int64_t n = (o.rows - 2) * (o.cols - 2) * (o.layers - 3);
  if (n <= 0) return {};
  Array count = Array::zeros({1}, DType::uint64, dev, stream);
  unsigned long long cap = 1 << 14, got = 0;
  for (;;) {
    Array rows = Array::empty({static_cast<std::int64_t>(6 * cap)}, DType::float64, dev, stream);
    count.fill(0, stream);
    k_candidates<<<grid_blocks(n, kThreads, 1 << 16), kThreads, 0, stream.handle()>>>(
        o, p, ptr<unsigned long long>(count), cap, ptr<double>(rows));
    CUSK_CUDA_CHECK(cudaGetLastError());
    got = count.to(Device::cpu(), stream).to_vector<std::uint64_t>()[0];
    if (got <= cap) {
      if (got == 0) return {};
      return rows.slice({Slice{0, static_cast<std::int64_t>(6 * got)}}).to(Device::cpu(), stream).to_vector<double>();
    }
    cap = got;
  }
}

void cuda_sift_orientations(const std::vector<SiftOctave>& octs, const SiftParams& p, const std::vector<double>& kp,
                            std::vector<int>& counts, std::vector<double>& oris, Device dev, const Stream& stream) {
  const std::int64_t n = static_cast<std::int64_t>(kp.size() / 5);
  const Array table = upload_octaves(octs, dev, stream);
  const Array k = Array::from_vector(kp, {static_cast<std::int64_t>(kp.size())}).to(dev, stream);
  Array scratch = Array::empty({2 * p.n_bins * n}, DType::float64, dev, stream);
  Array c = Array::empty({n}, DType::int32, dev, stream), o = Array::empty({p.n_bins * n}, DType::float64, dev, stream);
  k_orientations<<<grid_blocks(n, 128, 1 << 16), 128, 0, stream.handle()>>>(
      cptr<SiftOctave>(table), p, cptr<double>(k), n, ptr<double>(scratch), ptr<int>(c), ptr<double>(o));
  CUSK_CUDA_CHECK(cudaGetLastError());
  counts = c.to(Device::cpu(), stream).to_vector<int>();
  oris = o.to(Device::cpu(), stream).to_vector<double>();
}

void cuda_sift_descriptors(const std::vector<SiftOctave>& octs, const SiftParams& p, const std::vector<double>& kp,
                           Array& out, const Stream& stream) {
  const Device dev = out.device();
  const std::int64_t n = out.shape(0), len = out.shape(1);
  const Array table = upload_octaves(octs, dev, stream);
  const Array k = Array::from_vector(kp, {static_cast<std::int64_t>(kp.size())}).to(dev, stream);
  Array scratch = Array::empty({len * n}, DType::float64, dev, stream);
  k_descriptors<<<grid_blocks(n, 64, 1 << 16), 64, 0, stream.handle()>>>(cptr<SiftOctave>(table), p, cptr<double>(k), n,
                                                                          ptr<double>(scratch), ptr<std::uint8_t>(out));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuskimage::feature::detail
