// CUDA iradon: the filter in the frequency domain as scikit-image applies it
// (each projection zero-padded to p, cuFFT D2Z batched over the angles, times
// the filter's even half, Z2D), the cubic splines (one thread per angle) and
// the back-projection (one thread per output pixel walking the angles in order)
// through src/transform/radon_iradon.hpp, as the CPU backend; the FFTs (cuFFT
// here, FFTW there) agree to ~1e-15 relative, not bit for bit.
// 512^2 reconstruction from a 725-row, 180-angle sinogram (p = 2048): pad 180 x
// 2048 doubles (2.9 MB), D2Z + Z2D of 180 x 2048 (~5.9 MB through each), the
// product (2.9 MB): ~15 MB, a few microseconds of bandwidth but ~5 launches
// (~30 us); back-projection 512^2 x 180 = 47 M linear interpolations (~10 FP64
// operations and 2 L1/L2 loads each): ~0.2-0.3 ms. Was: the filter as a direct
// circular convolution (725^2 x 180 multiply-adds, two int64 modulos each) and
// its kernel built on the host by two O(p^2) cosine sums: 33.7 ms.
#include <cuda_runtime.h>

#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/fft.hpp"
#include "src/transform/radon_iradon.hpp"

namespace cuskimage::transform::detail {
namespace {

/// buf (na x p) <- the rows x na sinogram transposed, zero-padded along each
/// projection.
template <class F>
__global__ void iradon_pad_kernel(const F *__restrict__ sino, std::int64_t rows,
                                  std::int64_t na, std::int64_t p,
                                  double *__restrict__ buf) {
  const std::int64_t total = na * p;
  for (std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
       q < total; q += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t a = q / p, i = q - a * p;
    buf[q] = i < rows ? static_cast<double>(sino[i * na + a]) : 0.0;
  }
}

/// spec (na x nh complex) *= half[k].
__global__ void iradon_weight_kernel(double2 *__restrict__ spec,
                                     std::int64_t na, std::int64_t nh,
                                     const double *__restrict__ half) {
  const std::int64_t total = na * nh;
  for (std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
       q < total; q += std::int64_t(gridDim.x) * blockDim.x) {
    const double w = half[q % nh];
    double2 v = spec[q];
    v.x *= w;
    v.y *= w;
    spec[q] = v;
  }
}

__global__ void iradon_spline_kernel(const double *filt, std::int64_t ld,
                                     std::int64_t rows, std::int64_t na,
                                     double *m, double *w) {
  const std::int64_t a = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (a < na)
    iradon_cubic_prepare(filt + a * ld, rows, m + a * rows, w + a * rows);
}

template <class F>
__global__ void iradon_backproject_kernel(const double *filt, std::int64_t ld,
                                          const double *m, std::int64_t rows,
                                          const double *cs, const double *sn,
                                          std::int64_t na, std::int64_t size,
                                          std::int64_t radius, int interp,
                                          bool circle, F *out) {
  const std::int64_t total = size * size;
  for (std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
       q < total; q += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t i = q / size, k = q - i * size;
    out[q] = iradon_pixel<F>(filt, ld, m, rows, cs, sn, na, i, k, radius,
                             interp, circle);
  }
}

} // namespace

template <class F>
bool cuda_iradon_filter(const Array &sino, const Array &half, Array &filt,
                        const Stream &stream) {
#if CUSK_HAVE_CUFFT
  namespace fft = cuskimage::detail::fft;
  const cudaStream_t s = stream.handle();
  const std::int64_t rows = sino.shape(0), na = sino.shape(1),
                     p = filt.shape(1), nh = half.size();
  if (na == 0)
    return true;
  double *buf = static_cast<double *>(filt.data());
  iradon_pad_kernel<F>
      <<<cuskimage::detail::grid_blocks(na * p, 256, 65535), 256, 0, s>>>(
          static_cast<const F *>(sino.data()), rows, na, p, buf);
  CUSK_CUDA_CHECK_LAUNCH();
  Array spec =
      Array::empty({na * nh, 2}, DType::float64, filt.device(), stream);
  auto *sp = static_cast<double *>(spec.data());
  const std::vector<long long> ext = {static_cast<long long>(p)};
  fft::cufft_run(fft::cufft_plan(fft::Cufft<double>::r2c, ext, na), stream,
                 [&](cufftHandle h) {
                   fft::cufft_check(fft::Cufft<double>::fwd(h, buf, sp),
                                    "D2Z (iradon)");
                 });
  iradon_weight_kernel<<<cuskimage::detail::grid_blocks(na * nh, 256, 65535),
                         256, 0, s>>>(reinterpret_cast<double2 *>(sp), na, nh,
                                      static_cast<const double *>(half.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  fft::cufft_run(fft::cufft_plan(fft::Cufft<double>::c2r, ext, na), stream,
                 [&](cufftHandle h) {
                   fft::cufft_check(fft::Cufft<double>::inv(h, sp, buf),
                                    "Z2D (iradon)");
                 });
  return true;
#else
  (void)sino, (void)half, (void)filt, (void)stream;
  return false;
#endif
}

template <class F>
void cuda_iradon_backproject(const Array &filt, std::int64_t rows,
                             const Array &cs, const Array &sn, Array &m,
                             Array &w, Array &out, std::int64_t radius,
                             int interp, bool circle, const Stream &stream) {
  const cudaStream_t s = stream.handle();
  const std::int64_t na = cs.size(), ld = filt.shape(1), size = out.shape(0);
  const auto *fp = static_cast<const double *>(filt.data());
  auto *mp = static_cast<double *>(m.data());
  if (interp == 2 && na > 0) {
    iradon_spline_kernel<<<static_cast<unsigned>((na + 63) / 64), 64, 0, s>>>(
        fp, ld, rows, na, mp, static_cast<double *>(w.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  if (size == 0)
    return;
  iradon_backproject_kernel<F>
      <<<cuskimage::detail::grid_blocks(size * size, 256, 65535), 256, 0, s>>>(
          fp, ld, mp, rows, static_cast<const double *>(cs.data()),
          static_cast<const double *>(sn.data()), na, size, radius, interp,
          circle, static_cast<F *>(out.data()));
  CUSK_CUDA_CHECK_LAUNCH();
}

template bool cuda_iradon_filter<float>(const Array &, const Array &, Array &,
                                        const Stream &);
template bool cuda_iradon_filter<double>(const Array &, const Array &, Array &,
                                         const Stream &);
template void cuda_iradon_backproject<float>(const Array &, std::int64_t,
                                             const Array &, const Array &,
                                             Array &, Array &, Array &,
                                             std::int64_t, int, bool,
                                             const Stream &);
template void cuda_iradon_backproject<double>(const Array &, std::int64_t,
                                              const Array &, const Array &,
                                              Array &, Array &, Array &,
                                              std::int64_t, int, bool,
                                              const Stream &);

} // namespace cuskimage::transform::detail
