// CUDA backend of the per-pixel pathology ops: optical density, intensity scaling, colour jitter
// and zoom. The arithmetic is src/pathology/hd_math.hpp's, shared with the CPU backend.
//
// Bandwidth notes (H200, ~4.0 TB/s achievable):
//  * image_to_absorbance uint8 -> float32 on 4096^2 x 3: 50 MB in + 201 MB out = 251 MB -> 63 us
//    floor; the core element-wise map moves it at ~1.1x the floor, but the double-precision log
//    (~25 fp64 FMA per value, 50 M values) costs ~40 us of fp64 issue, mostly hidden.
//  * colour jitter, 4 ops on a 4096^2 RGB uint8 image: each op reads and writes the image once
//    (100 MB) and contrast reads it once more for the luma mean: 450 MB -> 113 us floor for all four.
//  * zoom: the float32 working copy (astype) and the resampled plane; area mode reads each input
//    pixel ~1-4 times through L1/L2.
#include <cuda_runtime.h>

#include <cstdint>

#include "cuskimage/array.hpp"
#include "kernels/core/elementwise.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/pathology/common.hpp"

namespace cuskimage::pathology::detail {

using cuskimage::detail::cuda_map;
using cuskimage::detail::dispatch;
using cuskimage::detail::Types;

namespace {
using Reals = Types<std::uint8_t, std::int8_t, std::uint16_t, std::int16_t, std::uint32_t, std::int32_t,
                    std::uint64_t, std::int64_t, float, double>;

unsigned blocks_for(std::int64_t n) {
  const std::int64_t b = (n + 255) / 256;
  return static_cast<unsigned>(b < 1 ? 1 : (b > (1 << 20) ? (1 << 20) : b));
}
}  // namespace

namespace {
template <class T, class F>
struct AbsorbanceFn {
  F lo, hi;
  __device__ F operator()(T v) const { return absorbance_hd<F>(static_cast<F>(v), lo, hi); }
};
template <class F, class O>
struct ToImageFn {
  double source;
  __device__ O operator()(F v) const { return absorbance_to_image_hd<F, O>(v, source); }
};
}  // namespace

void cuda_absorbance(const Array& in, Array& out, double lo, double hi, const Stream& stream) {
  dispatch<Reals>(in.dtype(), "pathology.image_to_absorbance", [&]<class T>() {
    if (out.dtype() == DType::float32)
      cuda_map<T, float>(in, out, AbsorbanceFn<T, float>{static_cast<float>(lo), static_cast<float>(hi)},
                         stream.handle());
    else cuda_map<T, double>(in, out, AbsorbanceFn<T, double>{lo, hi}, stream.handle());
  });
}

void cuda_absorbance_to_image(const Array& in, Array& out, double source, const Stream& stream) {
  dispatch<Types<float, double>>(in.dtype(), "pathology.absorbance_to_image", [&]<class F>() {
    dispatch<Reals>(out.dtype(), "pathology.absorbance_to_image",
                    [&]<class O>() { cuda_map<F, O>(in, out, ToImageFn<F, O>{source}, stream.handle()); });
  });
}

void cuda_intensity(const Array& in, Array& out, int op, float a, float b, float lo, float hi, const Stream& stream) {
  cuda_map<float, float>(
      in, out, [=] __device__(float v) { return intensity_px(v, op, a, b, lo, hi); }, stream.handle());
}

// ---- colour jitter ------------------------------------------------------------------------------

namespace {

__global__ void brightness_kernel(std::uint8_t* p, PixelGeom g, float f) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < g.n; i += stride) {
    const std::int64_t o = g.px(i);
    for (int c = 0; c < 3; ++c) p[o + c * g.cs] = brightness_px(p[o + c * g.cs], f);
  }
}

/// Sum of the luma of each image (plane = pixels / per_image) into sums[image] (exact, atomics).
__global__ void luma_sum_kernel(const std::uint8_t* p, PixelGeom g, std::int64_t per_image,
                                unsigned long long* sums) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  std::int64_t cur = -1;
  unsigned long long acc = 0;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < g.n; i += stride) {
    const std::int64_t img = i / per_image;
    if (img != cur) {
      if (acc) atomicAdd(&sums[cur], acc);
      cur = img;
      acc = 0;
    }
    const std::int64_t o = g.px(i);
    acc += luma16(p[o], p[o + g.cs], p[o + 2 * g.cs]);
  }
  if (acc) atomicAdd(&sums[cur], acc);
}

__global__ void contrast_kernel(std::uint8_t* p, PixelGeom g, std::int64_t per_image,
                                const unsigned long long* sums, float f) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < g.n; i += stride) {
    const float bc = contrast_constant(sums[i / per_image], per_image);
    const std::int64_t o = g.px(i);
    for (int c = 0; c < 3; ++c) p[o + c * g.cs] = blend_px(p[o + c * g.cs], bc, f);
  }
}

template <bool kHue>
__global__ void pixel_kernel(std::uint8_t* p, PixelGeom g, float f) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < g.n; i += stride) {
    const std::int64_t o = g.px(i);
    std::uint8_t rgb[3] = {p[o], p[o + g.cs], p[o + 2 * g.cs]};
    if constexpr (kHue)
      hue_px(rgb, f);
    else
      saturation_px(rgb, f);
    for (int c = 0; c < 3; ++c) p[o + c * g.cs] = rgb[c];
  }
}

}  // namespace

void cuda_adjust_colors(Array& img, int channel_axis, const ColorJitterParams& params, const Stream& s) {
  const PixelGeom g = pixel_geom(img, channel_axis);
  if (g.n == 0) return;
  const std::int64_t images = img.ndim() == 4 ? img.shape()[0] : 1;
  const std::int64_t per_image = g.n / images;
  std::uint8_t* p = img.data<std::uint8_t>();
  const unsigned grid = blocks_for(g.n);
  for (int op : params.order) {
    if (op == 0 && params.brightness) {
      brightness_kernel<<<grid, 256, 0, s.handle()>>>(p, g, static_cast<float>(*params.brightness));
    } else if (op == 1 && params.contrast) {
      Array sums = Array::zeros({images}, DType::uint64, img.device(), s);
      auto* sp = static_cast<unsigned long long*>(sums.data());
      luma_sum_kernel<<<grid, 256, 0, s.handle()>>>(p, g, per_image, sp);
      CUSK_CUDA_CHECK_LAUNCH();
      contrast_kernel<<<grid, 256, 0, s.handle()>>>(p, g, per_image, sp, static_cast<float>(*params.contrast));
    } else if (op == 2 && params.saturation) {
      pixel_kernel<false><<<grid, 256, 0, s.handle()>>>(p, g, static_cast<float>(*params.saturation));
    } else if (op == 3 && params.hue) {
      pixel_kernel<true><<<grid, 256, 0, s.handle()>>>(p, g, static_cast<float>(*params.hue));
    }
    CUSK_CUDA_CHECK_LAUNCH();
  }
}

// ---- zoom ---------------------------------------------------------------------------------------

namespace {

struct ZoomGeom {
  Indexer planes_in, planes_out;  // plane number -> plane origin
  std::int64_t h, w, isy, isx, osy, osx, nplanes;
};

__global__ void zoom_kernel(const float* __restrict__ in, float* __restrict__ out, ZoomGeom z, std::int64_t zh,
                            std::int64_t zw, int interp) {
  const std::int64_t total = z.nplanes * z.h * z.w;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t x = i % z.w, r = i / z.w, y = r % z.h, pl = r / z.h;
    const Plane P{in + z.planes_in.offset(pl), z.isy, z.isx, z.h, z.w};
    out[z.planes_out.offset(pl) + y * z.osy + x * z.osx] = zoom_px(P, y, x, zh, zw, interp);
  }
}

Indexer plane_indexer(const Array& a, int ah, int aw) {
  Indexer ix;
  for (int d = 0; d < a.ndim(); ++d) {
    if (d == ah || d == aw) continue;
    ix.shape[ix.ndim] = a.shape()[d];
    ix.stride[ix.ndim] = a.strides()[d];
    ++ix.ndim;
  }
  return ix;
}

}  // namespace

void cuda_zoom(const Array& in, Array& out, int ah, int aw, std::int64_t zh, std::int64_t zw, ZoomInterpolation interp,
               const Stream& s) {
  ZoomGeom z;
  z.planes_in = plane_indexer(in, ah, aw);
  z.planes_out = plane_indexer(out, ah, aw);
  z.h = in.shape()[ah];
  z.w = in.shape()[aw];
  z.isy = in.strides()[ah];
  z.isx = in.strides()[aw];
  z.osy = out.strides()[ah];
  z.osx = out.strides()[aw];
  z.nplanes = in.size() / (z.h * z.w);
  const std::int64_t total = in.size();
  if (total == 0) return;
  zoom_kernel<<<blocks_for(total), 256, 0, s.handle()>>>(
      static_cast<const float*>(in.data()), static_cast<float*>(out.data()), z, zh, zw, static_cast<int>(interp));
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::pathology::detail
