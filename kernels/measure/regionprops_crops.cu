// measure.regionprops on CUDA, per-region crops: a region's mask (label == l) and its masked
// intensity, from strided crops of the label and intensity images.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/measure/regionprops.hpp"

namespace cuskimage::measure::detail {
namespace {

int blocks_for(std::int64_t n) {
  return static_cast<int>(std::min<std::int64_t>((n + 255) / 256, std::int64_t(1) << 20));
}

struct Geo4 {
  std::int64_t shape[4];
  std::int64_t stride[4];
};

Geo4 geo_of(const Array& a) {
  Geo4 g{};
  const int pad = 4 - a.ndim();
  for (int k = 0; k < 4; ++k) {
    g.shape[k] = k < pad ? 1 : a.shape(k - pad);
    g.stride[k] = k < pad ? 0 : a.strides()[k - pad];
  }
  return g;
}

/// Element offset of the i-th element (C order) of a view of geometry g.
__device__ __forceinline__ std::int64_t offset_of(const Geo4& g, std::int64_t i) {
  std::int64_t r = i, off = 0;
  for (int k = 3; k >= 0; --k) {
    off += (r % g.shape[k]) * g.stride[k];
    r /= g.shape[k];
  }
  return off;
}

template <class L>
__global__ void mask_kernel(const L* __restrict__ in, Geo4 g, std::int64_t label, std::int64_t n, bool* __restrict__ out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = static_cast<std::int64_t>(in[offset_of(g, i)]) == label;
}

template <class T>
__global__ void masked_kernel(const T* __restrict__ in, Geo4 g, const bool* __restrict__ mask, std::int64_t per_mask,
                              std::int64_t n, T* __restrict__ out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = mask[i / per_mask] ? in[offset_of(g, i)] : T(0);
}

}  // namespace

void cuda_region_mask(const Array& label_crop, std::int64_t label, Array& out, const Stream& s) {
  const std::int64_t n = out.size();
  if (n == 0) return;
  cuskimage::detail::dispatch<cuskimage::detail::IntegerTypes>(label_crop.dtype(), "measure.regionprops", [&]<class L>() {
    mask_kernel<L><<<blocks_for(n), 256, 0, s.handle()>>>(static_cast<const L*>(label_crop.data()), geo_of(label_crop), label, n,
                                                 static_cast<bool*>(out.data()));
  });
  CUSK_CUDA_CHECK(cudaGetLastError());
}

void cuda_masked_intensity(const Array& crop, const Array& mask, Array& out, const Stream& s) {
  const std::int64_t n = out.size();
  if (n == 0) return;
  const std::int64_t per = n / std::max<std::int64_t>(mask.size(), 1);
  cuskimage::detail::dispatch<cuskimage::detail::AllTypes>(crop.dtype(), "measure.regionprops", [&]<class T>() {
    masked_kernel<T><<<blocks_for(n), 256, 0, s.handle()>>>(static_cast<const T*>(crop.data()), geo_of(crop),
                                                   static_cast<const bool*>(mask.data()), per, n,
                                                   static_cast<T*>(out.data()));
  });
  CUSK_CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuskimage::measure::detail
