// CUDA pieces of resize and the pyramids beyond the Gaussian and the spline sampling they reuse:
// the grid-mode zoom coordinates and the difference image of pyramid_laplacian's layers.
#include <cstdint>

#include "cuskimage/error.hpp"

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/transform/warps_backend.hpp"

namespace cuskimage::transform::detail {

namespace {

template <class F>
__global__ void subtract_kernel(const F* __restrict__ a, const F* __restrict__ b, F* __restrict__ o, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    o[i] = a[i] - b[i];
}

constexpr int kMaxZoomDims = 8;
struct ZoomShape {
  int nd;
  std::int64_t in[kMaxZoomDims], out[kMaxZoomDims];
};

__global__ void zoom_coords_kernel(ZoomShape zs, double* __restrict__ c, std::int64_t n) {
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < n;
       k += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t rest = k;
    for (int a = zs.nd - 1; a >= 0; --a) {
      c[a * n + k] = zoom_coordinate(rest % zs.out[a], zs.in[a], zs.out[a]);
      rest /= zs.out[a];
    }
  }
}

}  // namespace

void cuda_zoom_coords(const Shape& in_shape, Array& coords, const Stream& stream) {
  ZoomShape zs{};
  zs.nd = static_cast<int>(in_shape.size());
  if (zs.nd > kMaxZoomDims) throw NotSupported("transform: more than 8 dimensions on a CUDA device");
  for (int a = 0; a < zs.nd; ++a) zs.in[a] = in_shape[a], zs.out[a] = coords.shape(a + 1);
  const std::int64_t n = coords.size() / (zs.nd > 0 ? zs.nd : 1);
  if (n == 0) return;
  zoom_coords_kernel<<<cuskimage::detail::grid_blocks(n, 256, 1 << 16), 256, 0, stream.handle()>>>(
      zs, coords.data<double>(), n);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class F>
void cuda_subtract(const Array& a, const Array& b, Array& out, const Stream& stream) {
  const std::int64_t n = out.size();
  if (n == 0) return;
  subtract_kernel<F><<<cuskimage::detail::grid_blocks(n, 256, 1 << 16), 256, 0, stream.handle()>>>(
      static_cast<const F*>(a.data()), static_cast<const F*>(b.data()), static_cast<F*>(out.data()), n);
  CUSK_CUDA_CHECK_LAUNCH();
}
template void cuda_subtract<float>(const Array&, const Array&, Array&, const Stream&);
template void cuda_subtract<double>(const Array&, const Array&, Array&, const Stream&);

}  // namespace cuskimage::transform::detail
