// feature.local_binary_pattern and graycomatrix, CUDA backend.
//   LBP          one fused kernel, one thread per pixel: the P bilinear samples, the threshold and
//                the method's code (src/feature/texture.hpp, shared with the CPU backend: equal bit
//                for bit, every rounding step explicit).
//   graycomatrix one launch for all (distance, angle) pairs, grid (blocks per pair, pairs). For
//                levels <= 256 each block counts its share of the pair's pixels into a privatised
//                shared-memory histogram (uint32 bins for levels <= 64; beyond, two 16-bit bins per
//                word, safe because a block counts at most 65535 pixels), then adds its non-zero
//                bins to the output with global atomics. levels > 256: global atomics directly.
//                The output is written in scikit-image's (levels, levels, distances, angles) order.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/texture.hpp"

namespace cuskimage::feature::detail {
namespace {

using cuskimage::detail::grid_blocks;
using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
using i64 = std::int64_t;

constexpr int kMaxInlineP = 64;  // circles up to this many points travel in the kernel's parameters
constexpr int kThreads = 256;

struct InlineCircle {
  int P;
  double v[2 * kMaxInlineP];
};

template <class T>
__global__ void k_lbp(const T* __restrict__ img, i64 rows, i64 cols, InlineCircle ic, const double* far,
                      LbpKind kind, double* __restrict__ out) {
  // The circle goes to shared memory: a pointer into the parameter block would make every thread
  // copy it to local memory.
  __shared__ double sh[2 * kMaxInlineP];
  const bool inline_circle = ic.P <= kMaxInlineP;
  if (inline_circle)
    for (int k = threadIdx.x; k < 2 * ic.P; k += blockDim.x) sh[k] = ic.v[k];
  __syncthreads();
  const LbpCircle k{ic.P, inline_circle ? sh : far};
  const i64 n = rows * cols;
  for (i64 i = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<i64>(gridDim.x) * blockDim.x) {
    const i64 r = i / cols, c = i - r * cols;
    out[i] = lbp_at(img, rows, cols, r, c, k, kind);
  }
}

/// The pair's geometry as the kernel reads it.
struct PairDev {
  int dr, dc, r0, c0, w;  // offset, first row/column, width of the counted region
  i64 n;                  // pixels counted
};
constexpr int kMaxPairs = 64;  // pairs per launch (more: several launches)
struct Pairs {
  PairDev p[kMaxPairs];
  int base;  // index of p[0] in the output's pair axis
  int np;    // pairs in the output
};

template <class T>
__device__ __forceinline__ void pair_values(const T* img, i64 cols, const PairDev& q, i64 k, unsigned& i,
                                            unsigned& j) {
  // 32-bit division where the pair's region allows it (64-bit division is a long sequence).
  i64 r, c;
  if (q.n <= 0xffffffffLL) {
    const auto kk = static_cast<unsigned>(k), w = static_cast<unsigned>(q.w);
    r = q.r0 + kk / w;
    c = q.c0 + kk % w;
  } else {
    r = q.r0 + k / q.w;
    c = q.c0 + k % q.w;
  }
  i = img[r * cols + c];
  j = img[(r + q.dr) * cols + c + q.dc];
}

/// Shared-memory privatised counts (levels <= 256). Packed: two 16-bit bins per 32-bit word.
template <class T, bool Packed>
__global__ void k_glcm_shared(const T* __restrict__ img, i64 cols, Pairs pairs, int levels, i64 chunk,
                              unsigned* __restrict__ out) {
  extern __shared__ unsigned hist[];
  const int bins = levels * levels;
  const int words = Packed ? (bins + 1) / 2 : bins;
  for (int w = threadIdx.x; w < words; w += blockDim.x) hist[w] = 0;
  __syncthreads();
  const PairDev q = pairs.p[blockIdx.y];
  const i64 lo = blockIdx.x * chunk, hi = min(q.n, lo + chunk);
  for (i64 k = lo + threadIdx.x; k < hi; k += blockDim.x) {
    unsigned i, j;
    pair_values(img, cols, q, k, i, j);
    const unsigned b = i * levels + j;
    if (Packed)
      atomicAdd(&hist[b >> 1], 1u << (16 * (b & 1)));
    else
      atomicAdd(&hist[b], 1u);
  }
  __syncthreads();
  const i64 np = pairs.np, slot = pairs.base + blockIdx.y;
  for (int w = threadIdx.x; w < words; w += blockDim.x) {
    const unsigned v = hist[w];
    if (!v) continue;
    if (Packed) {
      const int b = 2 * w;
      if (v & 0xffffu) atomicAdd(&out[b * np + slot], v & 0xffffu);
      if ((v >> 16) && b + 1 < bins) atomicAdd(&out[(b + 1) * np + slot], v >> 16);
    } else {
      atomicAdd(&out[w * np + slot], v);
    }
  }
}

template <class T>
__global__ void k_glcm_global(const T* __restrict__ img, i64 cols, Pairs pairs, int levels,
                              unsigned* __restrict__ out) {
  const PairDev q = pairs.p[blockIdx.y];
  const i64 np = pairs.np, slot = pairs.base + blockIdx.y;
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < q.n;
       k += static_cast<i64>(gridDim.x) * blockDim.x) {
    unsigned i, j;
    pair_values(img, cols, q, k, i, j);
    atomicAdd(&out[(static_cast<i64>(i) * levels + j) * np + slot], 1u);
  }
}

template <class T>
__global__ void k_max(const T* __restrict__ img, i64 n, unsigned* __restrict__ mx) {
  unsigned m = 0;
  for (i64 i = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<i64>(gridDim.x) * blockDim.x)
    m = max(m, static_cast<unsigned>(img[i]));
  for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(0xffffffffu, m, o));
  if ((threadIdx.x & 31) == 0) atomicMax(mx, m);
}

__global__ void k_finish(const unsigned* __restrict__ c, i64 L, i64 np, const double* __restrict__ sums,
                         bool symmetric, bool normed, void* out) {
  const i64 n = L * L * np;
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < n;
       k += static_cast<i64>(gridDim.x) * blockDim.x) {
    const i64 p = k % np, ij = k / np, i = ij / L, j = ij - i * L;
    unsigned v = c[k];
    if (symmetric) v += c[(j * L + i) * np + p];
    if (normed)
      static_cast<double*>(out)[k] = __ddiv_rn(static_cast<double>(v), sums[p]);
    else
      static_cast<unsigned*>(out)[k] = v;
  }
}

template <class T>
void launch_glcm(const Array& image, const std::vector<GlcmPair>& pairs, int levels, Array& out, const Stream& s) {
  const i64 cols = image.shape(1);
  const T* img = cptr<T>(image);
  unsigned* o = ptr<unsigned>(out);
  const bool shared = levels <= 256, packed = levels > 64;
  const i64 chunk = packed ? 65535 : 32768;  // pixels per block: a 16-bit bin cannot overflow
  const int words = packed ? (levels * levels + 1) / 2 : levels * levels;
  const std::size_t smem = shared ? static_cast<std::size_t>(words) * sizeof(unsigned) : 0;
  if (shared && packed) {
    CUSK_CUDA_CHECK(cudaFuncSetAttribute(k_glcm_shared<T, true>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(smem)));
  }
  for (std::size_t first = 0; first < pairs.size(); first += kMaxPairs) {
    Pairs pd{};
    pd.base = static_cast<int>(first);
    pd.np = static_cast<int>(pairs.size());
    const int m = static_cast<int>(std::min<std::size_t>(kMaxPairs, pairs.size() - first));
    i64 most = 0;
    for (int k = 0; k < m; ++k) {
      const auto& q = pairs[first + k];
      const i64 h = std::max<i64>(0, q.r1 - q.r0), w = std::max<i64>(0, q.c1 - q.c0);
      pd.p[k] = {static_cast<int>(q.dr), static_cast<int>(q.dc), static_cast<int>(q.r0), static_cast<int>(q.c0),
                 static_cast<int>(std::max<i64>(w, 1)), h * w};
      most = std::max(most, h * w);
    }
    if (most == 0) continue;
    if (shared) {
      const dim3 grid(static_cast<unsigned>((most + chunk - 1) / chunk), static_cast<unsigned>(m));
      if (packed)
        k_glcm_shared<T, true><<<grid, 512, smem, s.handle()>>>(img, cols, pd, levels, chunk, o);
      else
        k_glcm_shared<T, false><<<grid, 512, smem, s.handle()>>>(img, cols, pd, levels, chunk, o);
    } else {
      const dim3 grid(grid_blocks(most, kThreads, 4096), static_cast<unsigned>(m));
      k_glcm_global<T><<<grid, kThreads, 0, s.handle()>>>(img, cols, pd, levels, o);
    }
    CUSK_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

void cuda_local_binary_pattern(const Array& image, const std::vector<double>& circle, LbpKind kind, Array& out,
                               const Stream& stream) {
  const i64 rows = image.shape(0), cols = image.shape(1), n = rows * cols;
  const int P = static_cast<int>(circle.size() / 2);
  InlineCircle ic{};
  ic.P = P;
  Array far;
  if (P <= kMaxInlineP) {
    for (int i = 0; i < 2 * P; ++i) ic.v[i] = circle[i];
  } else {
    far = cuskimage::detail::buf::upload(circle, image.device(), stream);
  }
  const double* fp = far.valid() ? cptr<double>(far) : nullptr;
  const unsigned blocks = grid_blocks(n, kThreads, 65535LL * 16);
  double* o = ptr<double>(out);
  auto go = [&](auto tag) {
    using T = decltype(tag);
    k_lbp<T><<<blocks, kThreads, 0, stream.handle()>>>(cptr<T>(image), rows, cols, ic, fp, kind, o);
  };
  switch (image.dtype()) {
    case DType::uint8: go(std::uint8_t{}); break;
    case DType::uint16: go(std::uint16_t{}); break;
    case DType::int32: go(std::int32_t{}); break;
    case DType::float32: go(float{}); break;
    default: go(double{}); break;
  }
  CUSK_CUDA_CHECK_LAUNCH();
}

void cuda_glcm(const Array& image, const std::vector<GlcmPair>& pairs, std::int64_t levels, std::int64_t,
               Array& out, const Stream& stream) {
  if (image.dtype() == DType::uint8)
    launch_glcm<std::uint8_t>(image, pairs, static_cast<int>(levels), out, stream);
  else
    launch_glcm<std::uint16_t>(image, pairs, static_cast<int>(levels), out, stream);
}

std::uint32_t cuda_glcm_max(const Array& image, const Stream& stream) {
  Array m = Array::zeros({1}, DType::uint32, image.device(), stream);
  const unsigned blocks = grid_blocks(image.size(), kThreads, 1024);
  if (image.dtype() == DType::uint8)
    k_max<<<blocks, kThreads, 0, stream.handle()>>>(cptr<std::uint8_t>(image), image.size(), ptr<unsigned>(m));
  else
    k_max<<<blocks, kThreads, 0, stream.handle()>>>(cptr<std::uint16_t>(image), image.size(), ptr<unsigned>(m));
  CUSK_CUDA_CHECK_LAUNCH();
  return m.to(Device::cpu(), stream).to_vector<std::uint32_t>()[0];
}

void cuda_glcm_finish(const Array& counts, const std::vector<double>& sums, bool symmetric, Array& out,
                      const Stream& stream) {
  const i64 L = counts.shape(0), np = static_cast<i64>(sums.size());
  const Array s = cuskimage::detail::buf::upload(sums, counts.device(), stream);
  const i64 n = L * L * np;
  if (n == 0) return;
  k_finish<<<grid_blocks(n, kThreads, 65535LL * 16), kThreads, 0, stream.handle()>>>(
      cptr<unsigned>(counts), L, np, cptr<double>(s), symmetric, out.dtype() == DType::float64, out.data());
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace cuskimage::feature::detail
