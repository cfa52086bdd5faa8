// Reinhard normalisation on the device: the LAB sums by the fixed-order reduction (one block per
// chunk of 4096 pixels, folded to one; the CPU reproduces the bits), then the per-channel affine map
// reading the statistics from device memory (no host round trip), and the uint8 conversion.
// A 4096^2 RGB tile: rgb2lab and lab2rgb (color module) dominate; the statistics pass reads the
// float64 LAB image once (403 MB, ~100 us at 4 TB/s), the map reads and writes it (805 MB).
#include <cuda_runtime.h>

#include <cstdint>

#include "cuskimage/array.hpp"
#include "kernels/core/elementwise.cuh"
#include "kernels/pathology/fixed_reduce.cuh"
#include "src/core/dispatch.hpp"
#include "src/pathology/common.hpp"

namespace cuskimage::pathology::detail {

using cuskimage::detail::dispatch;
using cuskimage::detail::Types;

namespace {

template <class F>
struct LabItem {
  const F* p;
  PixelGeom g;
  __device__ __forceinline__ void operator()(std::int64_t i, double* m) const {
    const std::int64_t o = g.px(i);
    lab_moments(p[o], p[o + g.cs], p[o + 2 * g.cs], m);
  }
};

template <class F>
__global__ void __launch_bounds__(kLanes) lab_moments_kernel(LabItem<F> item, std::int64_t n, double* part) {
  chunk_reduce<6>(n, item, part);
}

struct Target {
  double mean[3], sd[3];
};

template <class F>
__global__ void reinhard_kernel(F* p, PixelGeom g, const double* __restrict__ m6, Target t) {
  __shared__ double mean[3], sd[3];
  if (threadIdx.x == 0) lab_mean_std(m6, g.n, mean, sd);
  __syncthreads();
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < g.n; i += stride) {
    const std::int64_t o = g.px(i);
    for (int c = 0; c < 3; ++c)
      p[o + c * g.cs] = static_cast<F>(reinhard_px(p[o + c * g.cs], mean[c], sd[c], t.mean[c], t.sd[c]));
  }
}

template <class F>
struct UnitToU8 {
  __device__ std::uint8_t operator()(F v) const { return unit_to_u8<F>(v); }
};

}  // namespace

void cuda_lab_moments(const Array& lab, int channel_axis, Array& moments6, const Stream& stream) {
  const PixelGeom g = pixel_geom(lab, channel_axis);
  const std::int64_t chunks = (g.n + kChunk - 1) / kChunk;
  Array part = Array::empty({chunks * 6}, DType::float64, lab.device(), stream);
  dispatch<Types<float, double>>(lab.dtype(), "pathology.lab_stats", [&]<class F>() {
    lab_moments_kernel<F><<<static_cast<unsigned>(chunks), kLanes, 0, stream.handle()>>>(
        LabItem<F>{static_cast<const F*>(lab.data()), g}, g.n, part.data<double>());
    CUSK_CUDA_CHECK_LAUNCH();
  });
  fold_to_one<6>(part, chunks, stream);
  CUSK_CUDA_CHECK(
      cudaMemcpyAsync(moments6.data(), part.data(), 6 * sizeof(double), cudaMemcpyDeviceToDevice, stream.handle()));
}

void cuda_reinhard_apply(Array& lab, int channel_axis, const Array& moments6, const LabStats& target, const Stream& s) {
  const PixelGeom g = pixel_geom(lab, channel_axis);
  Target t;
  for (int c = 0; c < 3; ++c) {
    t.mean[c] = target.mean[c];
    t.sd[c] = target.std[c];
  }
  const std::int64_t blocks = std::min<std::int64_t>((g.n + 255) / 256, 1 << 16);
  dispatch<Types<float, double>>(lab.dtype(), "pathology.normalize_reinhard", [&]<class F>() {
    reinhard_kernel<F><<<static_cast<unsigned>(blocks < 1 ? 1 : blocks), 256, 0, s.handle()>>>(
        static_cast<F*>(lab.data()), g, moments6.data<double>(), t);
    CUSK_CUDA_CHECK_LAUNCH();
  });
}

void cuda_unit_to_u8(const Array& in, Array& out, const Stream& s) {
  dispatch<Types<float, double>>(in.dtype(), "pathology.normalize_reinhard", [&]<class F>() {
    cuskimage::detail::cuda_map<F, std::uint8_t>(in, out, UnitToU8<F>{}, s.handle());
  });
}

}  // namespace cuskimage::pathology::detail
