// CUDA backend of the colour differences and of label2rgb.
//
// deltaE: one thread per pixel over the broadcast pixel layout (compute-bound in float64; not a
// bandwidth target).
// label2rgb: the labels are radix-sorted once (CUB), the heads of equal runs counted by an
// inclusive scan, and each pixel's rank is a binary search in the sorted copy; no host round trip
// (avg reads the label count back once to size its sums). Overlay: one read of ranks (+ image),
// one write of the float64 RGB result. Avg: per-label sums with float64 atomics (exact for
// integer images), then one write.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include "kernels/color/pixel.cuh"
#include "kernels/core/buffers.cuh"
#include "src/color/backend.hpp"
#include "src/core/convert.hpp"
#include "src/core/dispatch.hpp"

namespace cuskimage::color::detail {

using cuskimage::detail::Indexer;
using cuskimage::detail::Layout;
using cuskimage::detail::layout_of;
using cuskimage::detail::Types;

namespace {

using cuskimage::detail::buf::scratch;

template <class T>
__global__ void __launch_bounds__(kPixThreads) delta_kernel(DeltaKind kind, DeltaParams p, const T* a, Indexer ai,
                                                            std::int64_t ca, const T* b, Indexer bi, std::int64_t cb,
                                                            T* out, Indexer oi, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T* pa = a + ai.offset(i);
    const T* pb = b + bi.offset(i);
    const T l1[3] = {pa[0], pa[ca], pa[2 * ca]};
    const T l2[3] = {pb[0], pb[cb], pb[2 * cb]};
    out[oi.offset(i)] = delta_e(kind, p, l1, l2);
  }
}

__device__ __forceinline__ std::int64_t lower_bound(const std::int64_t* s, std::int64_t n, std::int64_t v) {
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (s[mid] < v)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

__global__ void run_heads_kernel(const std::int64_t* sorted, std::int64_t* heads, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    heads[i] = (i == 0 || sorted[i] != sorted[i - 1]) ? 1 : 0;
}

__global__ void rank_kernel(const std::int64_t* labels, const std::int64_t* sorted, const std::int64_t* count,
                            std::int64_t* ranks, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    ranks[i] = count[lower_bound(sorted, n, labels[i])] - 1;
}

__global__ void bg_rank_kernel(const std::int64_t* sorted, const std::int64_t* count, std::int64_t n,
                               std::int64_t bg_label, std::int64_t* bg_rank) {
  const std::int64_t k = lower_bound(sorted, n, bg_label);
  const bool present = k < n && sorted[k] == bg_label;
  bg_rank[0] = present ? count[k] - 1 : -1;
  bg_rank[1] = present ? bg_label - (sorted[0] < bg_label ? sorted[0] : bg_label) : -1;
}

__device__ __forceinline__ std::int64_t mapped_label(std::int64_t rank, std::int64_t bg_rank) {
  if (bg_rank < 0) return rank + 1;
  if (rank == bg_rank) return 0;
  return rank < bg_rank ? rank + 1 : rank;
}

/// T = image float type; `has_image` false: the colours alone (alpha is 1).
template <class T, bool has_image>
__global__ void __launch_bounds__(kPixThreads) overlay_kernel(const std::int64_t* ranks, const std::int64_t* bg_rank,
                                                              const double* pal, const T* img, Indexer ii,
                                                              std::int64_t cs, double* out, std::int64_t n,
                                                              OverlayParams p) {
  const std::int64_t bg = bg_rank[0], keep_m = bg_rank[1];
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const T one_minus_alpha = static_cast<T>(1 - p.alpha);
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::int64_t m = mapped_label(ranks[i], bg);
    const double* c = m == 0 ? pal : pal + 3 * (1 + (m - 1) % p.n_colors);
    const bool keep = p.keep_image_on_bg && m == keep_m;
    if constexpr (has_image) {
      const T* px = img + ii.offset(i);
      for (int k = 0; k < 3; ++k) {
        const T v = px[k * cs];
        out[3 * i + k] = keep ? double(v) : __dadd_rn(__dmul_rn(c[k], p.alpha), double(v * one_minus_alpha));
      }
    } else {
      for (int k = 0; k < 3; ++k)
        out[3 * i + k] = keep ? 0.0 : __dadd_rn(__dmul_rn(c[k], p.alpha), 0.0 * (1 - p.alpha));
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kPixThreads) sums_kernel(const std::int64_t* ranks, const T* img, Indexer ii,
                                                           std::int64_t cs, double* sums, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const T* px = img + ii.offset(i);
    double* d = sums + 4 * ranks[i];
    for (int k = 0; k < 3; ++k) atomicAdd(d + k, double(px[k * cs]));
    atomicAdd(d + 3, 1.0);
  }
}

struct Bg3 {
  double v[3];
};

template <class T>
__global__ void __launch_bounds__(kPixThreads) avg_kernel(const std::int64_t* ranks, const std::int64_t* bg_rank,
                                                          const double* sums, Bg3 bg, T* out, std::int64_t n) {
  const std::int64_t b = bg_rank[0];
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::int64_t r = ranks[i];
    for (int k = 0; k < 3; ++k) {
      const double v = r == b ? bg.v[k] : sums[4 * r + k] / sums[4 * r + 3];
      out[3 * i + k] = cuskimage::detail::convert<T>(v);
    }
  }
}

/// Pixel indexer of a channel-last image view walked in the C order of `ranks` (contiguous).
Indexer pixel_indexer(const Array& ranks, const Array& image) {
  const Array px = image.index(image.ndim() - 1, 0);
  return layout_of({&ranks, &px}).indexer(1);
}

}  // namespace

void cuda_delta_e(DeltaKind kind, const DeltaParams& p, const Array& lab1, const Array& lab2, Array& out,
                  const Stream& stream) {
  const std::int64_t n = out.size();
  if (n == 0) return;
  const Array a_px = lab1.index(lab1.ndim() - 1, 0);
  const Array b_px = lab2.index(lab2.ndim() - 1, 0);
  const Layout L = layout_of({&out, &a_px, &b_px});
  cuskimage::detail::dispatch<Types<float, double>>(out.dtype(), "color.deltaE", [&]<class T>() {
    delta_kernel<T><<<pixel_blocks(n), kPixThreads, 0, stream.handle()>>>(
        kind, p, static_cast<const T*>(lab1.data()), L.indexer(1), lab1.strides().back(),
        static_cast<const T*>(lab2.data()), L.indexer(2), lab2.strides().back(), static_cast<T*>(out.data()),
        L.indexer(0), n);
    CUSK_CUDA_CHECK_LAUNCH();
  });
}

void cuda_label_ranks(const Array& labels, std::int64_t bg_label, Array& ranks, Array& bg_rank, const Stream& s) {
  const std::int64_t n = labels.size();
  const Device dev = labels.device();
  const auto* lp = static_cast<const std::int64_t*>(labels.data());
  Array sorted = Array::empty({n}, DType::int64, dev, s);
  Array count = Array::empty({n}, DType::int64, dev, s);
  auto* sp = static_cast<std::int64_t*>(sorted.data());
  auto* cp = static_cast<std::int64_t*>(count.data());
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, lp, sp, n, 0, 64, s.handle()));
  {
    Array temp = scratch(bytes, dev, s);
    CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.data(), bytes, lp, sp, n, 0, 64, s.handle()));
  }
  {
    // heads[i] = 1 where a run of equal sorted labels starts; count = its inclusive sum.
    Array heads = Array::empty({n}, DType::int64, dev, s);
    auto* hp = static_cast<std::int64_t*>(heads.data());
    run_heads_kernel<<<pixel_blocks(n), kPixThreads, 0, s.handle()>>>(sp, hp, n);
    CUSK_CUDA_CHECK_LAUNCH();
    bytes = 0;
    CUSK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, hp, cp, n, s.handle()));
    Array temp = scratch(bytes, dev, s);
    CUSK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp.data(), bytes, hp, cp, n, s.handle()));
  }
  rank_kernel<<<pixel_blocks(n), kPixThreads, 0, s.handle()>>>(lp, sp, cp, static_cast<std::int64_t*>(ranks.data()), n);
  CUSK_CUDA_CHECK_LAUNCH();
  bg_rank_kernel<<<1, 1, 0, s.handle()>>>(sp, cp, n, bg_label, static_cast<std::int64_t*>(bg_rank.data()));
  CUSK_CUDA_CHECK_LAUNCH();
}

std::int64_t cuda_label_count(const Array& ranks, const Stream& s) {
  const std::int64_t n = ranks.size();
  if (n == 0) return 0;
  Array mx = Array::empty({1}, DType::int64, ranks.device(), s);
  const auto* rp = static_cast<const std::int64_t*>(ranks.data());
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, bytes, rp, static_cast<std::int64_t*>(mx.data()), n, s.handle()));
  Array temp = scratch(bytes, ranks.device(), s);
  CUSK_CUDA_CHECK(cub::DeviceReduce::Max(temp.data(), bytes, rp, static_cast<std::int64_t*>(mx.data()), n, s.handle()));
  std::int64_t host = 0;
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&host, mx.data(), sizeof(host), cudaMemcpyDeviceToHost, s.handle()));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s.handle()));
  return host + 1;
}

void cuda_label_overlay(const Array& ranks, const Array& bg_rank, const Array& palette, const Array& image, Array& out,
                        const OverlayParams& p, const Stream& stream) {
  const std::int64_t n = ranks.size();
  if (n == 0) return;
  const auto* rp = static_cast<const std::int64_t*>(ranks.data());
  const auto* bp = static_cast<const std::int64_t*>(bg_rank.data());
  const auto* pal = static_cast<const double*>(palette.data());
  auto* op = static_cast<double*>(out.data());
  if (!image.valid()) {
    overlay_kernel<double, false>
        <<<pixel_blocks(n), kPixThreads, 0, stream.handle()>>>(rp, bp, pal, nullptr, Indexer{}, 0, op, n, p);
    CUSK_CUDA_CHECK_LAUNCH();
    return;
  }
  const Indexer ii = pixel_indexer(ranks, image);
  cuskimage::detail::dispatch<Types<float, double>>(image.dtype(), "color.label2rgb", [&]<class T>() {
    overlay_kernel<T, true><<<pixel_blocks(n), kPixThreads, 0, stream.handle()>>>(
        rp, bp, pal, static_cast<const T*>(image.data()), ii, image.strides().back(), op, n, p);
    CUSK_CUDA_CHECK_LAUNCH();
  });
}

void cuda_label_sums(const Array& ranks, const Array& image, Array& sums, const Stream& stream) {
  const std::int64_t n = ranks.size();
  if (n == 0) return;
  const Indexer ii = pixel_indexer(ranks, image);
  cuskimage::detail::dispatch<Types<std::uint8_t, std::uint16_t, float, double>>(
      image.dtype(), "color.label2rgb", [&]<class T>() {
        sums_kernel<T><<<pixel_blocks(n), kPixThreads, 0, stream.handle()>>>(
            static_cast<const std::int64_t*>(ranks.data()), static_cast<const T*>(image.data()), ii,
            image.strides().back(), static_cast<double*>(sums.data()), n);
        CUSK_CUDA_CHECK_LAUNCH();
      });
}

void cuda_label_avg(const Array& ranks, const Array& bg_rank, const Array& sums, const double bg[3], Array& out,
                    const Stream& stream) {
  const std::int64_t n = ranks.size();
  if (n == 0) return;
  const Bg3 b{{bg[0], bg[1], bg[2]}};
  cuskimage::detail::dispatch<Types<std::uint8_t, std::uint16_t, float, double>>(
      out.dtype(), "color.label2rgb", [&]<class T>() {
        avg_kernel<T><<<pixel_blocks(n), kPixThreads, 0, stream.handle()>>>(
            static_cast<const std::int64_t*>(ranks.data()), static_cast<const std::int64_t*>(bg_rank.data()),
            static_cast<const double*>(sums.data()), b, static_cast<T*>(out.data()), n);
        CUSK_CUDA_CHECK_LAUNCH();
      });
}

}  // namespace cuskimage::color::detail
