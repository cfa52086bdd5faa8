// The one CUDA sampler of scipy.ndimage's interpolation (map_coordinates, zoom, shift,
// affine_transform, rotate, geometric_transform): a kernel templated on a coordinate functor
// (src/ndimage/spline.hpp) so that the coordinates are computed in-kernel, sampling through
// spline_sample_fixed, the code the CPU backend runs (GPU == CPU bit for bit).
//
// Layout: threads along the output's last axis (coalesced stores, neighbouring taps), blocks of
// the y grid over the remaining rows (one division per row, none per point). When the host has
// checked that every data offset and the output size fit in 32 bits, orders 0/1 (the input's dtype)
// and 2..5 (the float64 coefficients) run kernels with the order fixed at compile time and int32
// offsets: all weights and offsets in registers, loops of constant trip count; the rest run one
// kernel with a runtime order and int64 offsets.
//
// Floors (H200, ~4.2 TB/s) and predictions, 8192^2 float32, not measured yet:
//   order 1 (no prefilter): read 4 B + write 4 B per pixel = 0.54 GB -> 0.128 ms. shift/zoom walk
//   the input in order; rotate/affine read along a tilted line per warp (each warp touches ~2-3
//   input rows x 2 taps, re-used by the next output rows through L2), so DRAM traffic stays ~1x.
//   Predicted 0.15-0.2 ms for shift/zoom, 0.2-0.25 ms for rotate 30 degrees (the issue's target
//   0.25 ms).
//   order 3: scipy's float64 prefilter (two sequential line passes, ~63 B/px -> 4.2 GB, floor
//   ~1.0 ms; bound by its 8192 lines per axis, see spline.cu) dominates; the sampling reads 16
//   float64 taps (8 B/px from DRAM) -> predicted ~2.5-3 ms in all. The issue's 0.60 ms for warp
//   order 3 is below the exact prefilter's own floor; only a float32 or split-line prefilter (no
//   longer scipy's bits) could approach it.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "src/core/cuda_check.hpp"
#include "src/ndimage/spline.hpp"

namespace cuskimage::ndimage::detail {
namespace sample_impl {

template <int ND>
struct Dims {
  std::int64_t shape[ND];
  std::int64_t stride[ND];
};

template <int DO>
struct OutDims {
  std::int64_t shape[DO];
};

/// out[k] = t stored as out_dt (a uniform branch; one kernel per (V, map) serves every output dtype).
template <class V>
__device__ __forceinline__ void store_any(void* out, std::int64_t k, double t, DType dt) {
  switch (dt) {
    case DType::float32: static_cast<float*>(out)[k] = interp_store<float>(t); return;
    case DType::float64: static_cast<double*>(out)[k] = interp_store<double>(t); return;
    default: break;
  }
  if constexpr (std::is_same_v<V, double>) {  // prefiltered or converted: any output dtype
    switch (dt) {
      case DType::bool_: static_cast<bool*>(out)[k] = interp_store<bool>(t); return;
      case DType::uint8: static_cast<std::uint8_t*>(out)[k] = interp_store<std::uint8_t>(t); return;
      case DType::int8: static_cast<std::int8_t*>(out)[k] = interp_store<std::int8_t>(t); return;
      case DType::uint16: static_cast<std::uint16_t*>(out)[k] = interp_store<std::uint16_t>(t); return;
      case DType::int16: static_cast<std::int16_t*>(out)[k] = interp_store<std::int16_t>(t); return;
      case DType::uint32: static_cast<std::uint32_t*>(out)[k] = interp_store<std::uint32_t>(t); return;
      case DType::int32: static_cast<std::int32_t*>(out)[k] = interp_store<std::int32_t>(t); return;
      case DType::uint64: static_cast<std::uint64_t*>(out)[k] = interp_store<std::uint64_t>(t); return;
      case DType::int64: static_cast<std::int64_t*>(out)[k] = interp_store<std::int64_t>(t); return;
      default: return;
    }
  } else {
    static_cast<V*>(out)[k] = interp_store<V>(t);  // the input's own dtype
  }
}

constexpr int kBlock = 256;

template <int ORDER, class I, class V, class Map>
__global__ void __launch_bounds__(kBlock)
    sample_kernel(const V* __restrict__ data, Dims<Map::kDims> d, Map map, OutDims<Map::kOut> o, std::int64_t rows,
                  void* __restrict__ out, DType out_dt, int order, InterpMode mode, double cval, std::int64_t npad) {
  constexpr int DO = Map::kOut;
  const I ncol = static_cast<I>(o.shape[DO - 1]);
  for (I row = static_cast<I>(blockIdx.y); row < static_cast<I>(rows); row += static_cast<I>(gridDim.y)) {
    I idx[DO];
    I r = row;
    CUSK_UNROLL
    for (int a = DO - 2; a >= 1; --a) {
      const I n = static_cast<I>(o.shape[a]), q = r / n;
      idx[a] = r - q * n;
      r = q;
    }
    if constexpr (DO >= 2) idx[0] = r;
    for (I col = static_cast<I>(blockIdx.x * blockDim.x + threadIdx.x); col < ncol;
         col += static_cast<I>(gridDim.x * blockDim.x)) {
      idx[DO - 1] = col;
      const std::int64_t k = static_cast<std::int64_t>(row) * ncol + col;
      double c[Map::kDims];
      const std::int64_t base = map(idx, k, c);
      const double t =
          spline_sample_fixed<Map::kDims, ORDER, I>(data + base, d.shape, d.stride, c, order, mode, cval, npad);
      store_any<V>(out, k, t, out_dt);
    }
  }
}

}  // namespace sample_impl

template <class V, class Map>
void cuda_sample(const V* data, const std::int64_t* shape, const std::int64_t* strides, const Map& map,
                 const SampleLaunch& l, const Stream& stream) {
  using namespace sample_impl;
  constexpr int ND = Map::kDims, DO = Map::kOut;
  Dims<ND> d;
  for (int a = 0; a < ND; ++a) d.shape[a] = shape[a], d.stride[a] = strides[a];
  OutDims<DO> o;
  std::int64_t total = 1;
  for (int a = 0; a < DO; ++a) {
    // CoordArrayMap walks the output flat; the others one entry per output axis.
    o.shape[a] = DO == 1 ? 1 : l.out_shape[a];
  }
  for (const auto s : l.out_shape) total *= s;
  if (DO == 1) o.shape[0] = total;
  if (total == 0) return;
  const std::int64_t ncol = o.shape[DO - 1], rows = total / ncol;
  const int gx = static_cast<int>(std::min<std::int64_t>((ncol + kBlock - 1) / kBlock, 1024));
  const int gy = static_cast<int>(std::clamp<std::int64_t>(132 * 16 / gx, 1, std::min<std::int64_t>(rows, 65535)));
  const dim3 grid(gx, gy);
  auto go = [&]<int ORDER, class I>() {
    sample_kernel<ORDER, I, V, Map><<<grid, kBlock, 0, stream.handle()>>>(data, d, map, o, rows, l.out, l.out_dt,
                                                                          l.order, l.mode, l.cval, l.npad);
    CUSK_CUDA_CHECK(cudaGetLastError());
  };
  if constexpr (ND >= 2) {
    if (l.idx32) {
      constexpr bool native01 = std::is_same_v<V, std::uint8_t> || std::is_same_v<V, std::uint16_t> ||
                                std::is_same_v<V, float> || std::is_same_v<V, double>;
      if constexpr (native01) {
        if (l.order == 0) return go.template operator()<0, std::int32_t>();
        if (l.order == 1) return go.template operator()<1, std::int32_t>();
      }
      if constexpr (std::is_same_v<V, double>) {
        switch (l.order) {
          case 2: return go.template operator()<2, std::int32_t>();
          case 3: return go.template operator()<3, std::int32_t>();
          case 4: return go.template operator()<4, std::int32_t>();
          case 5: return go.template operator()<5, std::int32_t>();
          default: break;
        }
      }
    }
  }
  go.template operator()<-1, std::int64_t>();
}

// The dtypes src/ndimage/spline.cpp's device_native lists; the others arrive as float64.
#define CUSK_SAMPLE_INST(MAP)                                                                                   \
  template void cuda_sample<std::uint8_t, MAP>(const std::uint8_t*, const std::int64_t*, const std::int64_t*, \
                                               const MAP&, const SampleLaunch&, const Stream&);                \
  template void cuda_sample<std::uint16_t, MAP>(const std::uint16_t*, const std::int64_t*, const std::int64_t*, \
                                                const MAP&, const SampleLaunch&, const Stream&);               \
  template void cuda_sample<std::int32_t, MAP>(const std::int32_t*, const std::int64_t*, const std::int64_t*, \
                                               const MAP&, const SampleLaunch&, const Stream&);                \
  template void cuda_sample<float, MAP>(const float*, const std::int64_t*, const std::int64_t*, const MAP&,    \
                                        const SampleLaunch&, const Stream&);                                   \
  template void cuda_sample<double, MAP>(const double*, const std::int64_t*, const std::int64_t*, const MAP&,  \
                                         const SampleLaunch&, const Stream&);

}  // namespace cuskimage::ndimage::detail
