// feature.match_template, CUDA backend: one pass pads the image region R onto the FFT grid beside
// the mean-subtracted template and writes R and R^2 in float64; transform's integral_image scans
// those; cuFFT transforms both grids in one batched R2C, one pass multiplies by the conjugate, a C2R
// returns the correlation, and one pass normalises each window (src/feature/template.hpp).
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "cuskimage/transform/integral.hpp"
#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/fft.hpp"
#include "src/feature/template.hpp"

namespace cuskimage::feature::detail {
namespace {

using cuskimage::detail::grid_blocks;
using i64 = std::int64_t;
constexpr int kThreads = 256;
constexpr i64 kCap = 65535LL * 8;

struct Strides3 {
  i64 s[3];
};

/// Slot 0 of `buf`: R at the origin of the FFT grid, zeros beyond; slot 1: the template likewise.
/// r1 / r2: R and R^2 (float64, contiguous on R).
template <class T>
__global__ void build_kernel(const T* __restrict__ img, Strides3 st, const T* __restrict__ tmpl, TemplateGeom g,
                             T* __restrict__ buf, double* __restrict__ r1, double* __restrict__ r2) {
  const i64 P = g.l_size();
  for (i64 i = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; i < P;
       i += static_cast<i64>(gridDim.x) * blockDim.x) {
    const i64 c = i % g.L[2], ab = i / g.L[2], b = ab % g.L[1], a = ab / g.L[1];
    T v = T(0);
    if (a < g.r[0] && b < g.r[1] && c < g.r[2]) {
      const double x = padded_value(img, st.s, g, a, b, c);
      const i64 ri = (a * g.r[1] + b) * g.r[2] + c;
      r1[ri] = x;
      r2[ri] = x * x;
      v = static_cast<T>(x);
    }
    buf[i] = v;
    buf[P + i] = (a < g.m[0] && b < g.m[1] && c < g.m[2]) ? tmpl[(a * g.m[1] + b) * g.m[2] + c] : T(0);
  }
}

template <class T>
struct Cx {
  T re, im;
};

/// spec0 *= conj(spec1) / P: the correlation's spectrum, scaled for cuFFT's unnormalised inverse.
template <class T>
__global__ void conj_product_kernel(Cx<T>* __restrict__ spec, i64 H, T scale) {
  for (i64 i = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; i < H;
       i += static_cast<i64>(gridDim.x) * blockDim.x) {
    const Cx<T> a = spec[i], b = spec[H + i];
    spec[i] = {(a.re * b.re + a.im * b.im) * scale, (a.im * b.re - a.re * b.im) * scale};
  }
}

template <class T>
__global__ void normalise_kernel(const T* __restrict__ corr, const double* __restrict__ ii1,
                                 const double* __restrict__ ii2, TemplateGeom g, T* __restrict__ out) {
  const i64 n = g.out_size();
  for (i64 i = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<i64>(gridDim.x) * blockDim.x) {
    const i64 c = i % g.out[2], ab = i / g.out[2], b = ab % g.out[1], a = ab / g.out[1];
    const double x = static_cast<double>(corr[(a * g.L[1] + b) * g.L[2] + c]);
    out[i] = static_cast<T>(ncc_response(ii1, ii2, g, a, b, c, x));
  }
}

}  // namespace

template <class T>
Array cuda_match_template(const Array& image, const Array& tmpl0, const TemplateGeom& g, const Stream& s) {
#if CUSK_HAVE_CUFFT
  namespace fft = cuskimage::detail::fft;
  const Device dev = image.device();
  const int lead = 3 - g.nd;
  Strides3 st{{0, 0, 0}};
  for (int a = 0; a < g.nd; ++a) st.s[lead + a] = image.strides()[a];
  const i64 P = g.l_size(), H = g.spec_size();
  const Array tdev = tmpl0.to(dev, s);
  Array buf = Array::empty({2 * P}, dtype_v<T>, dev, s);
  Array r1 = Array::empty({g.r[0], g.r[1], g.r[2]}, DType::float64, dev, s);
  Array r2 = Array::empty({g.r[0], g.r[1], g.r[2]}, DType::float64, dev, s);
  build_kernel<T><<<grid_blocks(P, kThreads, kCap), kThreads, 0, s.handle()>>>(
      image.data<T>(), st, tdev.data<T>(), g, buf.data<T>(), r1.data<double>(), r2.data<double>());
  CUSK_CUDA_CHECK(cudaGetLastError());
  // A 2-D region is scanned as 2-D (a leading axis of 1 would cost the scan a pass); same layout.
  const Shape rs = g.nd == 2 ? Shape{g.r[1], g.r[2]} : Shape{g.r[0], g.r[1], g.r[2]};
  const Array ii1 = transform::integral_image(r1.reshape(rs), {}, s);
  const Array ii2 = transform::integral_image(r2.reshape(rs), {}, s);
  std::vector<long long> ext;
  for (int a = lead; a < 3; ++a) ext.push_back(g.L[a]);
  Array spec = Array::empty({2 * H, 2}, dtype_v<T>, dev, s);
  fft::cufft_run(fft::cufft_plan(fft::Cufft<T>::r2c, ext, 2), s, [&](cufftHandle h) {
    fft::cufft_check(fft::Cufft<T>::fwd(h, buf.data<T>(), spec.data<T>()), "R2C (match_template)");
  });
  conj_product_kernel<T><<<grid_blocks(H, kThreads, kCap), kThreads, 0, s.handle()>>>(
      reinterpret_cast<Cx<T>*>(spec.data<T>()), H, static_cast<T>(1.0 / static_cast<double>(P)));
  CUSK_CUDA_CHECK(cudaGetLastError());
  fft::cufft_run(fft::cufft_plan(fft::Cufft<T>::c2r, ext, 1), s, [&](cufftHandle h) {
    fft::cufft_check(fft::Cufft<T>::inv(h, spec.data<T>(), buf.data<T>()), "C2R (match_template)");
  });
  Shape os;
  for (int a = lead; a < 3; ++a) os.push_back(g.out[a]);
  Array out = Array::empty(os, dtype_v<T>, dev, s);
  normalise_kernel<T><<<grid_blocks(g.out_size(), kThreads, kCap), kThreads, 0, s.handle()>>>(
      buf.data<T>(), ii1.data<double>(), ii2.data<double>(), g, out.data<T>());
  CUSK_CUDA_CHECK(cudaGetLastError());
  return out;
#else
  (void)image, (void)tmpl0, (void)g, (void)s;
  throw NotSupported("feature.match_template: this build has no cuFFT for CUDA arrays");
#endif
}

template Array cuda_match_template<float>(const Array&, const Array&, const TemplateGeom&, const Stream&);
template Array cuda_match_template<double>(const Array&, const Array&, const TemplateGeom&, const Stream&);

}  // namespace cuskimage::feature::detail
