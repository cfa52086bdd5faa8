// CUDA iradon: the filter as a direct circular convolution (one thread per projection sample, the
// kernel and the projection read through L1/L2), the cubic splines (one thread per angle) and the
// back-projection (one thread per output
// pixel walking the angles in order), both through src/transform/radon_iradon.hpp: equal to the
// CPU backend bit for bit.
// 512^2 reconstruction from a 725-row, 180-angle sinogram: filter 725^2 x 180 = 95 M FP64
// multiply-adds; back-projection 512^2 x 180 = 47 M interpolations. Predicted ~0.2-0.4 ms.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/transform/radon_iradon.hpp"

namespace cuskimage::transform::detail {
namespace {

template <class F>
__global__ void iradon_filter_kernel(const F* sino, std::int64_t rows, std::int64_t na, const double* h,
                                     std::int64_t p, double* filt) {
  const std::int64_t total = rows * na;
  for (std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; q < total;
       q += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t a = q / rows, i = q - a * rows;
    filt[q] = iradon_filtered(sino, rows, na, a, i, h, p);
  }
}

__global__ void iradon_spline_kernel(const double* filt, std::int64_t rows, std::int64_t na, double* m, double* w) {
  const std::int64_t a = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (a < na) iradon_cubic_prepare(filt + a * rows, rows, m + a * rows, w + a * rows);
}

template <class F>
__global__ void iradon_backproject_kernel(const double* filt, const double* m, std::int64_t rows, const double* cs,
                                          const double* sn, std::int64_t na, std::int64_t size, std::int64_t radius,
                                          int interp, bool circle, F* out) {
  const std::int64_t total = size * size;
  for (std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; q < total;
       q += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = q / size, k = q - i * size;
    out[q] = iradon_pixel<F>(filt, m, rows, cs, sn, na, i, k, radius, interp, circle);
  }
}

}  // namespace

template <class F>
void cuda_iradon(const Array& sino, const Array& h, const Array& cs, const Array& sn, Array& filt, Array& m, Array& w,
                 Array& out, std::int64_t radius, int interp, bool circle, const Stream& stream) {
  const cudaStream_t s = stream.handle();
  const std::int64_t rows = sino.shape(0), na = sino.shape(1), size = out.shape(0);
  auto* fp = static_cast<double*>(filt.data());
  if (rows * na > 0) {
    iradon_filter_kernel<F><<<cuskimage::detail::grid_blocks(rows * na, 256, 65535), 256, 0, s>>>(
        static_cast<const F*>(sino.data()), rows, na, static_cast<const double*>(h.data()), h.size(), fp);
    CUSK_CUDA_CHECK_LAUNCH();
  }
  auto* mp = static_cast<double*>(m.data());
  if (interp == 2 && na > 0) {
    iradon_spline_kernel<<<static_cast<unsigned>((na + 63) / 64), 64, 0, s>>>(fp, rows, na, mp,
                                                                              static_cast<double*>(w.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  if (size == 0) return;
  iradon_backproject_kernel<F><<<cuskimage::detail::grid_blocks(size * size, 256, 65535), 256, 0, s>>>(
      fp, mp, rows, static_cast<const double*>(cs.data()), static_cast<const double*>(sn.data()), na, size, radius,
      interp, circle, static_cast<F*>(out.data()));
  CUSK_CUDA_CHECK_LAUNCH();
}

template void cuda_iradon<float>(const Array&, const Array&, const Array&, const Array&, Array&, Array&, Array&,
                                 Array&, std::int64_t, int, bool, const Stream&);
template void cuda_iradon<double>(const Array&, const Array&, const Array&, const Array&, Array&, Array&, Array&,
                                  Array&, std::int64_t, int, bool, const Stream&);

}  // namespace cuskimage::transform::detail
