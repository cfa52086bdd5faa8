// feature.SIFT, CUDA backend: differences of Gaussians (one thread per voxel), extrema with their
// refinement (one thread per interior voxel; the extrema are appended with their C-order key,
// which the host sorts), orientation histograms and descriptors (one warp per keypoint, its
// histogram in shared memory, each bin summed in scikit-image's pixel order).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "cuskimage/error.hpp"
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

/// One warp per keypoint: the lanes compute 32 consecutive pixels' votes, lane 0 adds them to
/// the warp's shared histogram in pixel order (scikit-image's np.add.at order).
__global__ void k_orientations(const SiftOctave* octs, SiftParams p, const double* kp, std::int64_t n, int* counts,
                               double* oris) {
  extern __shared__ double sh[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, nb = p.n_bins;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / 32) + warp;
  if (i >= n) return;
  double* hist = sh + static_cast<std::int64_t>(warp) * 2 * nb;
  const double* k = kp + 5 * i;
  const SiftOctave& o = octs[static_cast<int>(k[4])];
  const std::int64_t s = static_cast<std::int64_t>(k[3]);
  const double kr = 3 * p.lambda_ori;
  const SiftWindow w = sift_window(o, k[0], k[1], k[2], [kr](double sg) { return kr * sg; });
  const double lam = p.lambda_ori * w.sigma, den = -2 * (lam * lam);
  for (int b = lane; b < nb; b += 32) hist[b] = 0;
  __syncwarp();
  const std::int64_t W = w.c1 - w.c0 + 1, npx = W * (w.r1 - w.r0 + 1);
  for (std::int64_t base = 0; base < npx; base += 32) {
    const std::int64_t q = base + lane;
    int bin = -1;
    double v = 0;
    if (q < npx) v = sift_ori_vote(o, s, w.r0 + q / W, w.c0 + q % W, w, den, nb, bin);
    for (int j = 0; j < 32; ++j) {
      const double vj = __shfl_sync(0xffffffffu, v, j);
      const int bj = __shfl_sync(0xffffffffu, bin, j);
      if (lane == 0 && bj >= 0) hist[bj] += vj;
    }
  }
  __syncwarp();
  if (lane == 0) counts[i] = sift_ori_peaks(hist, hist + nb, nb, p.c_max, oris + nb * i);
}

/// One warp per keypoint: the lanes compute 32 consecutive patch pixels, then every pixel's votes
/// are added in pixel order, each lane owning the bins of its spatial cells (no two lanes add to
/// one bin, so each bin sums in scikit-image's order).
__global__ void k_descriptors(const SiftOctave* octs, SiftParams p, const double* kp, std::int64_t n,
                              std::uint8_t* out) {
  extern __shared__ double sh[];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int nh = p.n_hist, no = p.n_ori, len = nh * nh * no, cells = nh * nh;
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * (blockDim.x / 32) + warp;
  if (i >= n) return;
  double* hist = sh + static_cast<std::int64_t>(warp) * len;
  const double* k = kp + 6 * i;
  const SiftOctave& o = octs[static_cast<int>(k[4])];
  const std::int64_t s = static_cast<std::int64_t>(k[3]);
  const SiftDescr d = sift_descr_setup(o, p, k[0], k[1], k[2], k[5]);
  for (int b = lane; b < len; b += 32) hist[b] = 0;
  __syncwarp();
  const std::int64_t W = d.w.c1 - d.w.c0, H = d.w.r1 - d.w.r0;
  const std::int64_t npx = W > 0 && H > 0 ? W * H : 0;
  for (std::int64_t base = 0; base < npx; base += 32) {
    const std::int64_t q = base + lane;
    SiftSample a{false, 0, 0, 0, 0, 0};
    if (q < npx) a = sift_descr_sample(o, s, d.w.r0 + q / W, d.w.c0 + q % W, d, no);
    for (int j = 0; j < 32; ++j) {
      SiftSample b;
      b.in = __shfl_sync(0xffffffffu, static_cast<int>(a.in), j) != 0;
      b.rn = __shfl_sync(0xffffffffu, a.rn, j);
      b.cn = __shfl_sync(0xffffffffu, a.cn, j);
      b.mag = __shfl_sync(0xffffffffu, a.mag, j);
      b.dist = __shfl_sync(0xffffffffu, a.dist, j);
      b.near = __shfl_sync(0xffffffffu, a.near, j);
      if (!b.in) continue;
      for (int cell = lane; cell < cells; cell += 32) sift_descr_vote(hist, b, d, nh, no, cell / nh, cell % nh);
    }
  }
  __syncwarp();
  if (lane == 0) sift_descr_finish(hist, len, out + static_cast<std::int64_t>(len) * i);
}

/// Warps per block for `bytes` of shared histogram per warp (at most 4, within 48 KiB).
int warps_for(std::size_t bytes) {
  const std::size_t w = (48u << 10) / (bytes > 0 ? bytes : 1);
  if (w < 1) throw NotSupported("feature.SIFT: the histograms of one keypoint exceed 48 KiB of shared memory");
  return static_cast<int>(w < 4 ? w : 4);
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
  Array c = Array::empty({n}, DType::int32, dev, stream), o = Array::empty({p.n_bins * n}, DType::float64, dev, stream);
  const std::size_t bytes = 2 * sizeof(double) * static_cast<std::size_t>(p.n_bins);
  const int warps = warps_for(bytes);
  k_orientations<<<static_cast<unsigned>((n + warps - 1) / warps), 32 * warps, bytes * warps, stream.handle()>>>(
      cptr<SiftOctave>(table), p, cptr<double>(k), n, ptr<int>(c), ptr<double>(o));
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
  const std::size_t bytes = sizeof(double) * static_cast<std::size_t>(len);
  const int warps = warps_for(bytes);
  k_descriptors<<<static_cast<unsigned>((n + warps - 1) / warps), 32 * warps, bytes * warps, stream.handle()>>>(
      cptr<SiftOctave>(table), p, cptr<double>(k), n, ptr<std::uint8_t>(out));
  CUSK_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuskimage::feature::detail
