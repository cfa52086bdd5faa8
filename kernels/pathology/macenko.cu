// Macenko stain extraction and normalisation on the device, with no host round trip.
//
// Pipeline (all on `stream`; the host only queues launches whose sizes it knows from the shape):
//   0. optical density source: uint8 / uint16 images read through a 256 / 65536-entry float32 table
//      built on the device (exactly the CPU's per-value function); other dtypes and absorbance input
//      are converted once into a planar (3, n) float32 buffer.
//   1. moments: one block per chunk of 4096 pixels sums od_c, od_a * od_b and the opaque count in
//      double, lanes and tree in the fixed order of hd_math.hpp (so the CPU reproduces the bits);
//      further levels fold the chunk partials the same way.
//   2. fit (one thread): covariance, 3x3 Jacobi eigen-decomposition, percentile ranks.
//   3. angle percentiles: radix selection of the 4 order statistics (ranks lo/lo+1 of alpha and
//      100 - alpha) of the pseudo-angle keys of the opaque pixels: 3 histogram passes over the
//      pixels (11 + 11 + 10 bits), each followed by a one-block scan that narrows every target's
//      prefix. Only the keys that still match a target's prefix touch the histograms after pass 1.
//   4. stains (one thread): angles -> unit H/E vectors -> pseudo-inverse.
//   5. concentration percentiles: the same selection on the two concentration channels of every
//      pixel (100 - alpha).
//   6. apply: concentrations -> scaled -> reference absorbance -> uint8.
//
// Cost for a 4096^2 RGB uint8 tile (n = 16.8 M pixels, 50.3 MB in, 50.3 MB out):
//  * floor of any fit + apply: read the tile twice and write it once, 151 MB -> 36 us at 4.2 TB/s;
//  * this pipeline: passes 1, 3 (x3), 5 (x3) and 6 read the tile (8 x 50.3 MB) and 6 writes it:
//    453 MB -> 108 us of traffic. On top: the fp64 work (moments ~16 ops/pixel; apply 3 exp_hd of
//    ~30 fp64 ops/pixel: ~1.5 GFLOP, ~45 us at 34 TFLOP/s, partly hidden behind memory), the
//    shared-memory histogram atomics (warp-aggregated: keys of one tissue share their top bits), four
//    one-thread kernels (~5-15 us each: Jacobi, atan2/sincos) and ~20 launches back to back.
//  Predicted: ~0.3 ms for fit + apply, 2.8x the traffic floor of this design, ~6x inside the issue's
//  2 ms target. stain_extraction_pca alone (passes 1-4): ~0.12 ms.
#include <cuda_runtime.h>

#include <cub/block/block_scan.cuh>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "src/core/cuda_check.hpp"
#include "kernels/pathology/fixed_reduce.cuh"
#include "src/pathology/common.hpp"

namespace cuskimage::pathology::detail {
namespace {

constexpr int kBins = 2048;     // 11-bit digits
constexpr int kTargets = 4;

/// Where pixel i's optical density comes from.
struct OdLut8 {
  const std::uint8_t* p;
  PixelGeom g;
  const float* lut;
  __device__ __forceinline__ void operator()(std::int64_t i, float od[3]) const {
    const std::int64_t o = g.px(i);
    od[0] = __ldg(lut + p[o]);
    od[1] = __ldg(lut + p[o + g.cs]);
    od[2] = __ldg(lut + p[o + 2 * g.cs]);
  }
};
struct OdLut16 {
  const std::uint16_t* p;
  PixelGeom g;
  const float* lut;
  __device__ __forceinline__ void operator()(std::int64_t i, float od[3]) const {
    const std::int64_t o = g.px(i);
    od[0] = __ldg(lut + p[o]);
    od[1] = __ldg(lut + p[o + g.cs]);
    od[2] = __ldg(lut + p[o + 2 * g.cs]);
  }
};
struct OdPlanar {
  const float* p;
  std::int64_t n;
  __device__ __forceinline__ void operator()(std::int64_t i, float od[3]) const {
    od[0] = p[i];
    od[1] = p[n + i];
    od[2] = p[2 * n + i];
  }
};

/// Radix-selection state of up to 4 targets (order statistics of one of two key sources).
struct Select {
  int source[kTargets];
  std::uint32_t prefix[kTargets];
  long long rank[kTargets];  // rank within the current prefix bucket
  int slot[kTargets];        // histogram used by the target this pass
  int nslots;
  int slot_source[kTargets];
  std::uint32_t slot_prefix[kTargets];
};

struct State {
  double moments[kMoments + 1];
  MacenkoFit fit;
  Select sel;
  double factor[2];
};

__global__ void lut_kernel(float* lut, int size, float lo, float hi) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < size) lut[v] = absorbance_hd<float>(static_cast<float>(v), lo, hi);
}

template <class T>
__global__ void planar_kernel(const T* __restrict__ p, PixelGeom g, float* __restrict__ od, float lo, float hi,
                              bool absorbance_input) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < g.n; i += stride) {
    const std::int64_t o = g.px(i);
    for (int c = 0; c < 3; ++c) {
      const float v = static_cast<float>(p[o + c * g.cs]);
      od[c * g.n + i] = absorbance_input ? v : absorbance_hd<float>(v, lo, hi);
    }
  }
}

constexpr int kW = kMoments + 1;

/// Moments of pixel i (+ the opaque count as a 10th exact double).
template <class Od>
struct MomentItem {
  Od od;
  float beta;
  __device__ __forceinline__ void operator()(std::int64_t i, double* m) const {
    float v[3];
    od(i, v);
    const bool keep = opaque(v, beta);
    pixel_moments(v, keep, m);
    m[kMoments] = keep ? 1.0 : 0.0;
  }
};

template <class Od>
__global__ void __launch_bounds__(kLanes) moments_kernel(Od od, std::int64_t n, float beta, double* __restrict__ part) {
  chunk_reduce<kW>(n, MomentItem<Od>{od, beta}, part);
}

__device__ void init_slots(Select& s, int nt) {
  s.nslots = 0;
  for (int t = 0; t < nt; ++t) {
    int found = -1;
    for (int k = 0; k < s.nslots; ++k)
      if (s.slot_source[k] == s.source[t] && s.slot_prefix[k] == s.prefix[t]) found = k;
    if (found < 0) {
      found = s.nslots++;
      s.slot_source[found] = s.source[t];
      s.slot_prefix[found] = s.prefix[t];
    }
    s.slot[t] = found;
  }
}

__global__ void fit_axes_kernel(State* st, double alpha) {
  MacenkoFit& f = st->fit;
  const std::int64_t count = static_cast<std::int64_t>(st->moments[kMoments]);
  if (count > 0) {
    fit_axes(st->moments, count, alpha, f);
  } else {
    f = MacenkoFit{};
    f.valid = false;
  }
  for (int t = 0; t < kTargets; ++t) {
    st->sel.source[t] = 0;
    st->sel.prefix[t] = 0;
    st->sel.rank[t] = f.valid ? f.rank[t] : 0;
  }
  init_slots(st->sel, kTargets);
}

/// Keys of pixel i: source 0/1. Angle mode: the pseudo-angle of opaque pixels (source 0 only).
/// Concentration mode: the two concentrations of every pixel.
template <bool kConc, class Od>
__device__ __forceinline__ int pixel_keys(const Od& od, std::int64_t i, const MacenkoFit& f, float beta,
                                          std::uint32_t key[2]) {
  float v[3];
  od(i, v);
  if constexpr (kConc) {
    float c[2];
    concentrations(f.pinv, v, c);
    key[0] = order_key(c[0]);
    key[1] = order_key(c[1]);
    return 2;
  } else {
    if (!opaque(v, beta)) return 0;
    float x, y;
    project(f.ev, v, x, y);
    key[0] = order_key(pseudo_angle(x, y));
    return 1;
  }
}

template <bool kConc, class Od>
__global__ void __launch_bounds__(256) hist_kernel(Od od, std::int64_t n, float beta, const State* __restrict__ st,
                                                   int known_bits, int shift, int bits, unsigned* __restrict__ hist) {
  __shared__ unsigned h[kTargets * kBins];
  __shared__ Select sel;
  __shared__ MacenkoFit fit;
  for (int k = threadIdx.x; k < kTargets * kBins; k += blockDim.x) h[k] = 0;
  if (threadIdx.x == 0) {
    sel = st->sel;
    fit = st->fit;
  }
  __syncthreads();
  const int nslots = sel.nslots;
  const std::uint32_t dmask = (1u << bits) - 1u;
  const int lane = threadIdx.x & 31;
  // Keys cluster (angles of one tissue, concentrations of one stain share their top bits), so the
  // lanes of a warp that hit the same bin add once, with the count of their group.
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    std::uint32_t key[2] = {0, 0};
    const int nk = pixel_keys<kConc>(od, i, fit, beta, key);
    const unsigned active = __activemask();
    for (int s = 0; s < nslots; ++s) {
      const std::uint32_t k = key[sel.slot_source[s]];
      const bool hit = nk > 0 && (known_bits == 0 || (k >> (32 - known_bits)) == sel.slot_prefix[s]);
      const int bin = hit ? static_cast<int>(s * kBins + ((k >> shift) & dmask)) : -1;
      const unsigned peers = __match_any_sync(active, bin);
      if (hit && lane == __ffs(peers) - 1) atomicAdd(&h[bin], static_cast<unsigned>(__popc(peers)));
    }
  }
  __syncthreads();
  for (int k = threadIdx.x; k < nslots * kBins; k += blockDim.x)
    if (h[k]) atomicAdd(&hist[k], h[k]);
}

/// One block: every target finds the bucket holding its rank and extends its prefix.
__global__ void __launch_bounds__(256) scan_kernel(State* st, const unsigned* __restrict__ hist, int bits,
                                                   int ntargets, bool last) {
  using Scan = cub::BlockScan<unsigned long long, 256>;
  __shared__ typename Scan::TempStorage tmp;
  constexpr int kPer = kBins / 256;
  Select& sel = st->sel;
  const int nb = 1 << bits;
  for (int t = 0; t < ntargets; ++t) {
    const unsigned* h = hist + sel.slot[t] * kBins;
    unsigned long long local[kPer], sum = 0;
    for (int k = 0; k < kPer; ++k) {
      const int b = threadIdx.x * kPer + k;
      local[k] = b < nb ? h[b] : 0;
      sum += local[k];
    }
    unsigned long long before;
    Scan(tmp).ExclusiveSum(sum, before);
    const long long r = sel.rank[t];
    __syncthreads();
    if (static_cast<long long>(before) <= r && r < static_cast<long long>(before + sum)) {
      unsigned long long c = before;
      for (int k = 0; k < kPer; ++k) {
        if (r < static_cast<long long>(c + local[k])) {
          const int b = threadIdx.x * kPer + k;
          sel.prefix[t] = (sel.prefix[t] << bits) | static_cast<std::uint32_t>(b);
          sel.rank[t] = r - static_cast<long long>(c);
          break;
        }
        c += local[k];
      }
    }
    __syncthreads();
  }
  if (threadIdx.x == 0 && !last) init_slots(sel, ntargets);
}

__global__ void fit_stains_kernel(State* st, std::int64_t n, double alpha_conc, float* stain_out) {
  MacenkoFit& f = st->fit;
  if (f.valid) {
    float keys[kTargets];
    for (int t = 0; t < kTargets; ++t) keys[t] = key_value(st->sel.prefix[t]);
    fit_stains(keys, f);
  } else {
    const float nan = __int_as_float(0x7fc00000);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) f.stain[i][j] = nan;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) f.pinv[i][j] = nan;
  }
  if (stain_out)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) stain_out[i * 2 + j] = f.stain[i][j];
  // Concentration targets: ranks lo, lo + 1 of percentile (100 - alpha) of each channel.
  std::int64_t lo;
  double t;
  percentile_rank(sub_rn(100.0, alpha_conc), n, lo, t);
  const std::int64_t hi = lo + 1 < n ? lo + 1 : n - 1;
  f.t[0] = t;
  for (int c = 0; c < 2; ++c) {
    st->sel.source[2 * c] = c;
    st->sel.source[2 * c + 1] = c;
    st->sel.rank[2 * c] = lo;
    st->sel.rank[2 * c + 1] = hi;
    st->sel.prefix[2 * c] = st->sel.prefix[2 * c + 1] = 0;
  }
  init_slots(st->sel, kTargets);
}

__global__ void factors_kernel(State* st, double ref_max0, double ref_max1) {
  const double t = st->fit.t[0];
  const double ref[2] = {ref_max0, ref_max1};
  for (int c = 0; c < 2; ++c) {
    const double mx = lerp_percentile(key_value(st->sel.prefix[2 * c]), key_value(st->sel.prefix[2 * c + 1]), t);
    st->factor[c] = div_rn(ref[c], mx);
  }
}

struct Ref {
  double m[3][2];
};

template <class Od>
__global__ void __launch_bounds__(256) apply_kernel(Od od, std::int64_t n, const State* __restrict__ st, Ref ref,
                                                    double source, std::uint8_t* __restrict__ out, PixelGeom go) {
  __shared__ float pinv[2][3];
  __shared__ double factor[2];
  if (threadIdx.x < 6) pinv[threadIdx.x / 3][threadIdx.x % 3] = st->fit.pinv[threadIdx.x / 3][threadIdx.x % 3];
  if (threadIdx.x < 2) factor[threadIdx.x] = st->factor[threadIdx.x];
  __syncthreads();
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    float v[3], c[2];
    od(i, v);
    concentrations(pinv, v, c);
    std::uint8_t px[3];
    reconstruct(c, factor, ref.m, source, px);
    const std::int64_t o = go.px(i);
    out[o] = px[0];
    out[o + go.cs] = px[1];
    out[o + 2 * go.cs] = px[2];
  }
}

unsigned grid_for(std::int64_t n, int per_thread = 4) {
  const std::int64_t b = (n + 256LL * per_thread - 1) / (256LL * per_thread);
  return static_cast<unsigned>(b < 1 ? 1 : (b > 8192 ? 8192 : b));
}

template <class Od>
void run(const Od& od, std::int64_t n, const MacenkoParams& p, Array* stain, Array* out, int channel_axis,
         const Stream& stream) {
  const Device dev = (stain ? *stain : *out).device();
  Array state_buf = Array::empty({static_cast<std::int64_t>(sizeof(State))}, DType::uint8, dev, stream);
  State* st = static_cast<State*>(state_buf.data());
  // 1. moments, folded level by level down to one partial.
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
  Array part = Array::empty({chunks * kW}, DType::float64, dev, stream);
  moments_kernel<<<static_cast<unsigned>(chunks), kLanes, 0, stream.handle()>>>(od, n, p.beta, part.data<double>());
  CUSK_CUDA_CHECK_LAUNCH();
  fold_to_one<kW>(part, chunks, stream);
  CUSK_CUDA_CHECK(cudaMemcpyAsync(st->moments, part.data<double>(), kW * sizeof(double), cudaMemcpyDeviceToDevice,
                                  stream.handle()));
  // 2. principal axes.
  fit_axes_kernel<<<1, 1, 0, stream.handle()>>>(st, p.alpha_fit);
  CUSK_CUDA_CHECK_LAUNCH();
  Array hist = Array::empty({kTargets * kBins}, DType::uint32, dev, stream);
  unsigned* h = hist.data<std::uint32_t>();
  const int shifts[3] = {21, 10, 0}, widths[3] = {11, 11, 10};
  auto select = [&]<bool kConc>() {
    for (int pass = 0; pass < 3; ++pass) {
      CUSK_CUDA_CHECK(cudaMemsetAsync(h, 0, kTargets * kBins * sizeof(unsigned), stream.handle()));
      hist_kernel<kConc><<<grid_for(n, 64), 256, 0, stream.handle()>>>(
          od, n, p.beta, st, 32 - shifts[pass] - widths[pass], shifts[pass], widths[pass], h);
      CUSK_CUDA_CHECK_LAUNCH();
      scan_kernel<<<1, 256, 0, stream.handle()>>>(st, h, widths[pass], kTargets, pass == 2);
      CUSK_CUDA_CHECK_LAUNCH();
    }
  };
  // 3. angle percentiles; 4. stains.
  select.template operator()<false>();
  fit_stains_kernel<<<1, 1, 0, stream.handle()>>>(st, n, p.alpha_conc, stain ? stain->data<float>() : nullptr);
  CUSK_CUDA_CHECK_LAUNCH();
  if (!out) return;
  // 5. concentration percentiles; 6. apply.
  select.template operator()<true>();
  factors_kernel<<<1, 1, 0, stream.handle()>>>(st, p.ref_max_conc[0], p.ref_max_conc[1]);
  CUSK_CUDA_CHECK_LAUNCH();
  Ref ref;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) ref.m[i][j] = p.ref[i][j];
  apply_kernel<<<grid_for(n), 256, 0, stream.handle()>>>(od, n, st, ref, p.source_intensity, out->data<std::uint8_t>(),
                                                         pixel_geom(*out, channel_axis));
  CUSK_CUDA_CHECK_LAUNCH();
}

}  // namespace

void cuda_macenko(const Array& image, int channel_axis, const MacenkoParams& p, Array* stain, Array* out,
                  const Stream& stream) {
  const PixelGeom g = pixel_geom(image, channel_axis);
  const bool is_float = is_floating(image.dtype());
  const float lo = static_cast<float>(is_float ? p.source_intensity / 255.0 : 1.0);
  const float hi = static_cast<float>(p.source_intensity);
  if (g.n == 0) {
    // Nothing to fit: a NaN matrix (the CPU raises).
    if (stain) stain->fill(std::numeric_limits<double>::quiet_NaN(), stream);
    return;
  }
  if (!p.absorbance_input && (image.dtype() == DType::uint8 || image.dtype() == DType::uint16)) {
    const int size = image.dtype() == DType::uint8 ? 256 : 65536;
    Array lut = Array::empty({size}, DType::float32, image.device(), stream);
    lut_kernel<<<(size + 255) / 256, 256, 0, stream.handle()>>>(lut.data<float>(), size, lo, hi);
    CUSK_CUDA_CHECK_LAUNCH();
    if (size == 256)
      run(OdLut8{static_cast<const std::uint8_t*>(image.data()), g, lut.data<float>()}, g.n, p, stain, out,
          channel_axis, stream);
    else
      run(OdLut16{static_cast<const std::uint16_t*>(image.data()), g, lut.data<float>()}, g.n, p, stain, out,
          channel_axis, stream);
    return;
  }
  Array od = Array::empty({3, g.n}, DType::float32, image.device(), stream);
  auto launch = [&]<class T>() {
    planar_kernel<T><<<grid_for(g.n, 1), 256, 0, stream.handle()>>>(static_cast<const T*>(image.data()), g,
                                                                    od.data<float>(), lo, hi, p.absorbance_input);
    CUSK_CUDA_CHECK_LAUNCH();
  };
  switch (image.dtype()) {
    case DType::uint8: launch.template operator()<std::uint8_t>(); break;
    case DType::int8: launch.template operator()<std::int8_t>(); break;
    case DType::uint16: launch.template operator()<std::uint16_t>(); break;
    case DType::int16: launch.template operator()<std::int16_t>(); break;
    case DType::uint32: launch.template operator()<std::uint32_t>(); break;
    case DType::int32: launch.template operator()<std::int32_t>(); break;
    case DType::uint64: launch.template operator()<std::uint64_t>(); break;
    case DType::int64: launch.template operator()<std::int64_t>(); break;
    case DType::float32: launch.template operator()<float>(); break;
    case DType::float64: launch.template operator()<double>(); break;
    default: throw InvalidArgument("pathology.stain_extraction_pca: unsupported dtype " + std::string(dtype_name(image.dtype())));
  }
  run(OdPlanar{od.data<float>(), g.n}, g.n, p, stain, out, channel_axis, stream);
}

}  // namespace cuskimage::pathology::detail
