// CUDA iradon_sart: per projection (in golden-ratio order, one after another on the stream), one
// thread per ray computes its deviation from the current estimate, then one thread per pixel gathers
// the contributions scikit-image's ray-by-ray scatter would add to it, in the scatter's order
// (src/transform/radon_sart.hpp), and applies image += relaxation * update and the clip. The
// arithmetic is the CPU backend's step for step, except the Hamming window's cosine (the device's
// cos, within an ulp or two of the host's libm): results agree to ~1e-12 relative, not bit for bit.
// 512^2, 180 projections: per projection 512 rays of ~1000 samples (one thread each: ~20 us of
// latency), and 512^2 pixels x ~7 rays x ~15 candidate samples; ~360 launches in all.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/transform/radon_sart.hpp"

namespace cuskimage::transform::detail {
namespace {

template <class F>
__global__ void sart_deviation_kernel(const F* img, std::int64_t n, const F* values, std::int64_t stride, double c,
                                      double s, F shift, F* dev) {
  const std::int64_t p = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if (p >= n) return;
  const SartRay<F> g = sart_ray<F>(n, cuskimage::detail::add_rn(static_cast<F>(p), shift), c, s);
  dev[p] = sart_deviation(img, n, g, values[p * stride]);
}

template <class F>
__global__ void sart_apply_kernel(F* img, std::int64_t n, double c, double s, F shift, const F* dev, F relax,
                                  bool clip, F lo, F hi) {
  const std::int64_t total = n * n;
  for (std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; q < total;
       q += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t a = q / n, b = q - a * n;
    const F u = sart_pixel_update<F>(n, a, b, c, s, shift, dev);
    F v = cuskimage::detail::add_rn(img[q], cuskimage::detail::mul_rn(relax, u));
    if (clip) v = min(max(v, lo), hi);
    img[q] = v;
  }
}

}  // namespace

template <class F>
void cuda_iradon_sart(Array& image, const Array& sino, const std::int64_t* order, std::int64_t count,
                      const double* cs, const double* sn, const F* shifts, F relaxation, bool clip, F lo, F hi,
                      const Stream& stream) {
  const cudaStream_t st = stream.handle();
  const std::int64_t n = image.shape(0), na = sino.shape(1);
  if (n == 0) return;
  Array dev = Array::empty({n}, dtype_v<F>, image.device(), stream);
  F* img = static_cast<F*>(image.data());
  const F* values = static_cast<const F*>(sino.data());
  F* d = static_cast<F*>(dev.data());
  for (std::int64_t o = 0; o < count; ++o) {
    const std::int64_t a = order[o];
    sart_deviation_kernel<F><<<static_cast<unsigned>((n + 127) / 128), 128, 0, st>>>(img, n, values + a, na, cs[a],
                                                                                   sn[a], shifts[a], d);
    CUSK_CUDA_CHECK_LAUNCH();
    sart_apply_kernel<F><<<cuskimage::detail::grid_blocks(n * n, 256, 65535), 256, 0, st>>>(
        img, n, cs[a], sn[a], shifts[a], d, relaxation, clip, lo, hi);
    CUSK_CUDA_CHECK_LAUNCH();
  }
}

template void cuda_iradon_sart<float>(Array&, const Array&, const std::int64_t*, std::int64_t, const double*,
                                      const double*, const float*, float, bool, float, float, const Stream&);
template void cuda_iradon_sart<double>(Array&, const Array&, const std::int64_t*, std::int64_t, const double*,
                                       const double*, const double*, double, bool, double, double, const Stream&);

}  // namespace cuskimage::transform::detail
