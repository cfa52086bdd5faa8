// CUDA backend of ndimage::distance_transform_edt (1-D, 2-D, 3-D).
//
// Pass 0 (axis 0): the nearest zero along axis 0, ties to the smaller row (scipy's walk), from
// 32-row bit words: edt_words packs each 32-row chunk of a column into one uint32 of zero bits,
// edt_links finds per chunk the last zero above it and the first zero below it, and then any element
// finds its nearest zero in O(1) (__clz / __ffs on its word, else the chunk links).
// Last axis (rows of a 2-D image, x-lines of a volume): edt_last_axis, one block per line, the line in
// shared memory: the sites (features of the previous passes) are loaded, each of the 512 threads
// builds Maurer's envelope of its band of positions, log2(512) merge rounds join neighbouring bands
// (src/ndimage/edt_line.hpp), every surviving site scatters the first position it owns, a block max-
// scan fills the ownership, and the block writes float64 distances (and int32 features) coalesced.
// For 2-D the sites come straight from the pass-0 words, so no per-pixel intermediate is stored.
// Middle axes (axis 1 of a volume) and lines too long for shared memory run scipy's sequential walk,
// one thread per line (edt_line_pass), out of place.
//
// Bytes and time, 8192^2 binary blobs, distances only (H200, 4.8 TB/s nominal, ~4.2 TB/s reachable):
// mask read 64 MiB (words) + words/links ~24 MiB + distances written 512 MiB = ~0.6 GB: floor
// 0.14 ms (the float64 write alone is 0.128 ms). With return_indices another 512 MiB (0.26 ms floor).
// Work in edt_last_axis: ~60 double operations per pixel (envelope tests, interval starts, the
// distance) = ~4 GFLOP fp64, ~0.1 ms at the H200's fp64 rate; the sequential band builds and merge
// walks are latency bound, hidden by 2 resident blocks (32 warps) per SM. Prediction: ~0.5 ms for
// distances (3.5x the floor), ~0.7 ms with indices; target <= 1.0 ms.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "src/core/cuda_check.hpp"
#include "src/ndimage/edt_backend.hpp"
#include "src/ndimage/edt_line.hpp"

namespace cuskimage::ndimage::detail {

namespace {


struct Samp {
  double s[3];
};

// ---- pass 0: zero-bit words along axis 0 ------------------------------------------------------------
__global__ void edt_words(const unsigned char* mask, std::int64_t n0, std::int64_t inner, std::int64_t nchunks,
                          std::uint32_t* words) {
  const std::int64_t t = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= nchunks * inner) return;
  const std::int64_t c = t / inner, q = t - c * inner;
  const std::int64_t r0 = c * 32;
  const int rn = static_cast<int>(n0 - r0 < 32 ? n0 - r0 : 32);
  const unsigned char* p = mask + r0 * inner + q;
  std::uint32_t w = 0;
#pragma unroll 8
  for (int r = 0; r < rn; ++r) w |= (p[r * inner] == 0 ? 1u : 0u) << r;
  words[t] = w;
}

__global__ void edt_links(const std::uint32_t* __restrict__ words, std::int64_t inner, std::int64_t nchunks,
                          std::int32_t* __restrict__ above, std::int32_t* __restrict__ below) {
  const std::int64_t q = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (q >= inner) return;
  // Loads do not depend on the carried value: unrolled, they are in flight together.
  std::int32_t last = -1;
#pragma unroll 4
  for (std::int64_t c = 0; c < nchunks; ++c) {
    above[c * inner + q] = last;
    const std::uint32_t w = words[c * inner + q];
    if (w) last = static_cast<std::int32_t>(c * 32 + 31 - __clz(w));
  }
  std::int32_t first = -1;
#pragma unroll 4
  for (std::int64_t c = nchunks - 1; c >= 0; --c) {
    below[c * inner + q] = first;
    const std::uint32_t w = words[c * inner + q];
    if (w) first = static_cast<std::int32_t>(c * 32 + __ffs(w) - 1);
  }
}

struct Pass0 {
  const std::uint32_t* words;
  const std::int32_t* above;
  const std::int32_t* below;
  std::int64_t inner;
  /// Row of the zero nearest to (r, q) along axis 0 (ties: the smaller row), -1 if none.
  __device__ std::int32_t nearest(std::int64_t r, std::int64_t q) const {
    const std::int64_t c = r >> 5;
    const int b = static_cast<int>(r & 31);
    const std::int64_t at = c * inner + q;
    return edt_nearest_zero(words[at], b, c, above[at], below[at], r);
  }
};

__global__ void edt_pass0_write(Pass0 p0, std::int64_t size, std::int32_t* f0) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= size) return;
  const std::int64_t r = i / p0.inner;
  f0[i] = p0.nearest(r, i - r * p0.inner);
}

// ---- any axis: scipy's sequential walk, one thread per line, out of place ---------------------------
struct Geom {
  int nd;
  std::int64_t shape[3];
  std::int64_t st[3];
  std::int64_t size;
};

__global__ void edt_line_pass(const std::int32_t* fin, std::int32_t* fout, std::int32_t* stack, Geom g, int d,
                              Samp s) {
  const std::int64_t len = g.shape[d];
  const std::int64_t lines = g.size / len;
  const std::int64_t L = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (L >= lines) return;
  std::int64_t coor[3] = {0, 0, 0};
  std::int64_t rest = L, base = 0;
  for (int a = g.nd - 1; a >= 0; --a) {
    if (a == d) continue;
    coor[a] = rest % g.shape[a];
    rest /= g.shape[a];
    base += coor[a] * g.st[a];
  }
  const std::int64_t sd = g.st[d], size = g.size;
  const auto in = [&](std::int64_t i, int jj) -> std::int64_t { return fin[jj * size + base + i * sd]; };
  const auto out = [&](std::int64_t i, int jj, std::int64_t v) {
    fout[jj * size + base + i * sd] = static_cast<std::int32_t>(v);
  };
  struct Stk {
    std::int32_t* p;
    std::int64_t sd;
    __device__ std::int64_t get(std::int64_t k) const { return p[k * sd]; }
    __device__ void set(std::int64_t k, std::int64_t v) { p[k * sd] = static_cast<std::int32_t>(v); }
  } stk{stack + base, sd};
  edt_voronoi_line(in, out, stk, len, d, coor, s.s);
}

__global__ void edt_distances(const std::int32_t* f, Geom g, Samp s, double* dist) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= g.size) return;
  std::int64_t c[3] = {0, 0, 0};
  std::int64_t rest = i;
  for (int a = g.nd - 1; a >= 0; --a) {
    c[a] = rest % g.shape[a];
    rest /= g.shape[a];
  }
  const std::int64_t size = g.size;
  dist[i] = edt_distance([&](int jj) -> std::int64_t { return f[jj * size + i]; }, c, s.s, g.nd);
}

// ---- last axis: one block per line, banded envelope in shared memory --------------------------------
__device__ __forceinline__ int pad(int j) { return j + (j >> 5); }  // spreads bands over the banks

/// Site features of the previous passes: P planes per position (plane 0 < 0: no site).
template <int P>
struct LineSites {
  const std::int32_t* feat;  // shared, P arrays of padded length np
  int np;
  std::int64_t coor[P];
  double s[P];
  __device__ bool is_site(std::int64_t j) const { return feat[pad(static_cast<int>(j))] >= 0; }
  __device__ double wr(std::int64_t j) const {
    double w = 0.0;
#pragma unroll
    for (int jj = 0; jj < P; ++jj) w = add_rn(w, edt_term(feat[jj * np + pad(static_cast<int>(j))], coor[jj], s[jj]));
    return w;
  }
};

struct SmemLinks {
  std::int16_t* nx;
  std::int16_t* pv;
  __device__ std::int32_t prv(std::int32_t j) const { return pv[pad(j)]; }
  __device__ std::int32_t nxt(std::int32_t j) const { return nx[pad(j)]; }
  __device__ void set_prv(std::int32_t j, std::int32_t v) { pv[pad(j)] = static_cast<std::int16_t>(v); }
  __device__ void set_nxt(std::int32_t j, std::int32_t v) { nx[pad(j)] = static_cast<std::int16_t>(v); }
  __device__ void drop(std::int32_t j) { nx[pad(j)] = -2; }
  __device__ bool dropped(std::int32_t j) const { return nx[pad(j)] == -2; }
};

template <int P, int kThreads>
constexpr std::size_t last_axis_smem(int n) {
  const std::size_t np = static_cast<std::size_t>(n) + n / 32 + 1;
  return np * (4 * P + 2 + 2 + 4) + 2 * kThreads * sizeof(std::int32_t) + 32 * sizeof(int);
}

/// Source of the sites: 2-D from the pass-0 words, 3-D from the feature planes of pass 1.
struct SrcWords {
  Pass0 p0;
  __device__ void load(std::int64_t line, std::int64_t x, std::int32_t* f) const { f[0] = p0.nearest(line, x); }
  __device__ void coords(std::int64_t line, std::int64_t* c) const { c[0] = line; }
};
struct SrcPlanes {
  const std::int32_t* fin;
  std::int64_t size, n, ny;
  __device__ void load(std::int64_t line, std::int64_t x, std::int32_t* f) const {
    f[0] = fin[line * n + x];
    f[1] = fin[size + line * n + x];
  }
  __device__ void coords(std::int64_t line, std::int64_t* c) const {
    c[0] = line / ny;
    c[1] = line - c[0] * ny;
  }
};

template <int P, int kThreads, class Src>
__global__ void __launch_bounds__(kThreads) edt_last_axis(Src src, int n, std::int64_t size, Samp samp,
                                                         double* dist, std::int32_t* fout) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int np = n + n / 32 + 1;
  std::int32_t* feat = reinterpret_cast<std::int32_t*>(smem);
  std::int32_t* own = feat + P * np;
  std::int32_t* heads = own + np;
  std::int32_t* tails = heads + kThreads;
  int* warp_tot = tails + kThreads;
  std::int16_t* nx = reinterpret_cast<std::int16_t*>(warp_tot + 32);
  std::int16_t* pv = nx + np;
  const int t = threadIdx.x;
  const std::int64_t line = blockIdx.x;

  LineSites<P> sites;
  sites.feat = feat;
  sites.np = np;
  src.coords(line, sites.coor);
#pragma unroll
  for (int jj = 0; jj < P; ++jj) sites.s[jj] = samp.s[jj];
  const double sd = samp.s[P];
  SmemLinks links{nx, pv};

  for (int x = t; x < n; x += kThreads) {
    std::int32_t f[P];
    src.load(line, x, f);
#pragma unroll
    for (int jj = 0; jj < P; ++jj) feat[jj * np + pad(x)] = f[jj];
    own[pad(x)] = -1;
  }
  __syncthreads();

  // 1. Envelope of each band.
  const int W = (n + kThreads - 1) / kThreads;
  const int lo = min(n, t * W), hi = min(n, lo + W);
  EdtBandList mine = edt_band_build(sites, links, lo, hi, sd);
  heads[t] = mine.head;
  tails[t] = mine.tail;
  // 2. Merge rounds.
  for (int step = 1; step < kThreads; step *= 2) {
    __syncthreads();
    if (t % (2 * step) == 0 && t + step < kThreads) {
      const EdtBandList m = edt_merge(sites, links, EdtBandList{heads[t], tails[t]},
                                      EdtBandList{heads[t + step], tails[t + step]}, sd);
      heads[t] = m.head;
      tails[t] = m.tail;
    }
  }
  __syncthreads();
  // 3. Each survivor marks the first position it owns (the walk's boundary with its predecessor).
  const std::int32_t head = heads[0];
  for (int j = lo; j < hi; ++j) {
    if (!sites.is_site(j) || links.dropped(j)) continue;
    std::int64_t start = 0;
    if (j != head) {
      const std::int32_t p = links.prv(j);
      start = edt_interval_start(p, sites.wr(p), j, sites.wr(j), sd, n);
    }
    if (start < n) atomicMax(&own[pad(static_cast<int>(start))], j);
  }
  __syncthreads();
  // 4. Inclusive max-scan: the owner of x is the last survivor whose interval starts at or before x.
  int run = -1;
  for (int j = lo; j < hi; ++j) {
    run = max(run, own[pad(j)]);
    own[pad(j)] = run;
  }
  const int lane = t & 31, warp = t >> 5;
  int v = run;
#pragma unroll
  for (int off = 1; off < 32; off *= 2) {
    const int y = __shfl_up_sync(0xffffffffu, v, off);
    if (lane >= off) v = max(v, y);
  }
  if (lane == 31) warp_tot[warp] = v;
  __syncthreads();
  if (warp == 0) {
    int w = lane < kThreads / 32 ? warp_tot[lane] : -1;
#pragma unroll
    for (int off = 1; off < 32; off *= 2) {
      const int y = __shfl_up_sync(0xffffffffu, w, off);
      if (lane >= off) w = max(w, y);
    }
    if (lane < kThreads / 32) warp_tot[lane] = w;
  }
  __syncthreads();
  int excl = __shfl_up_sync(0xffffffffu, v, 1);
  if (lane == 0) excl = -1;
  if (warp > 0) excl = max(excl, warp_tot[warp - 1]);
  for (int j = lo; j < hi; ++j) own[pad(j)] = max(own[pad(j)], excl);
  __syncthreads();
  // 5. Outputs, coalesced.
  const std::int64_t row0 = line * n;
  for (int x = t; x < n; x += kThreads) {
    const int k = own[pad(x)];
    std::int32_t f[P + 1];
    if (k < 0) {  // no feature on the line at all: scipy's untouched planes
      f[0] = feat[pad(x)];
#pragma unroll
      for (int jj = 1; jj <= P; ++jj) f[jj] = 0;
    } else {
#pragma unroll
      for (int jj = 0; jj < P; ++jj) f[jj] = feat[jj * np + pad(k)];
      f[P] = k;
    }
    if (dist) {
      std::int64_t c[P + 1];
#pragma unroll
      for (int jj = 0; jj < P; ++jj) c[jj] = sites.coor[jj];
      c[P] = x;
      dist[row0 + x] = edt_distance([&](int jj) -> std::int64_t { return f[jj]; }, c, samp.s, P + 1);
    }
    if (fout) {
#pragma unroll
      for (int jj = 0; jj <= P; ++jj) fout[jj * size + row0 + x] = f[jj];
    }
  }
}

unsigned blocks_for(std::int64_t n, int threads = 256) { return static_cast<unsigned>((n + threads - 1) / threads); }

template <int P, int kThreads, class Src>
bool launch_last_axis_t(const Src& src, std::int64_t n, std::int64_t lines, std::int64_t size, const Samp& s,
                        double* dist, std::int32_t* fout, cudaStream_t stream) {
  if (n > 32000) return false;  // positions are int16 in shared memory
  const std::size_t bytes = last_axis_smem<P, kThreads>(static_cast<int>(n));
  int dev = 0, max_optin = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&max_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  if (bytes > static_cast<std::size_t>(max_optin) || lines > 0x7fffffff) return false;
  auto kernel = edt_last_axis<P, kThreads, Src>;
  CUSK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  kernel<<<static_cast<unsigned>(lines), kThreads, bytes, stream>>>(src, static_cast<int>(n), size, s, dist, fout);
  CUSK_CUDA_CHECK_LAUNCH();
  return true;
}

/// Long lines (the 8192^2 target) get 512 threads (bands of 16, 2 blocks and 32 warps per SM to hide
/// the latency of the sequential band builds); short lines 128.
template <int P, class Src>
bool launch_last_axis(const Src& src, std::int64_t n, std::int64_t lines, std::int64_t size, const Samp& s, double* dist,
                      std::int32_t* fout, cudaStream_t stream) {
  if (n > 2048) return launch_last_axis_t<P, 512>(src, n, lines, size, s, dist, fout, stream);
  return launch_last_axis_t<P, 128>(src, n, lines, size, s, dist, fout, stream);
}

}  // namespace

void cuda_edt(const Array& mask, const std::vector<double>& sampling, Array& distances, Array& features,
              const Stream& stream) {
  const cudaStream_t cs = stream.handle();
  const int nd = mask.ndim();
  const Shape& shape = mask.shape();
  const std::int64_t size = mask.size();
  const Device dev = mask.device();
  Samp s{{1.0, 1.0, 1.0}};
  for (int d = 0; d < nd; ++d) s.s[d] = sampling[d];
  Geom g{nd, {1, 1, 1}, {0, 0, 0}, size};
  const Strides st = contiguous_strides(shape);
  for (int d = 0; d < nd; ++d) g.shape[d] = shape[d], g.st[d] = st[d];
  double* dist = distances.valid() ? distances.data<double>() : nullptr;
  std::int32_t* fout = features.valid() ? features.data<std::int32_t>() : nullptr;
  Shape fshape{nd};
  fshape.insert(fshape.end(), shape.begin(), shape.end());

  // Pass 0 words and links.
  const std::int64_t n0 = shape[0], inner = size / n0, nchunks = (n0 + 31) / 32;
  Array words = Array::empty({nchunks * inner}, DType::uint32, dev, stream);
  Array above = Array::empty({nchunks * inner}, DType::int32, dev, stream);
  Array below = Array::empty({nchunks * inner}, DType::int32, dev, stream);
  edt_words<<<blocks_for(nchunks * inner), 256, 0, cs>>>(static_cast<const unsigned char*>(mask.data()), n0, inner,
                                                         nchunks, words.data<std::uint32_t>());
  CUSK_CUDA_CHECK_LAUNCH();
  edt_links<<<blocks_for(inner, 128), 128, 0, cs>>>(words.data<std::uint32_t>(), inner, nchunks,
                                                     above.data<std::int32_t>(), below.data<std::int32_t>());
  CUSK_CUDA_CHECK_LAUNCH();
  const Pass0 p0{words.data<std::uint32_t>(), above.data<std::int32_t>(), below.data<std::int32_t>(), inner};

  if (nd == 2) {
    const SrcWords src{p0};
    if (launch_last_axis<1>(src, shape[1], shape[0], size, s, dist, fout, cs)) return;
  }
  // Features plane by plane: pass 0 written out, then one walk per further axis.
  Array fa = Array::empty(fshape, DType::int32, dev, stream);
  edt_pass0_write<<<blocks_for(size), 256, 0, cs>>>(p0, size, fa.data<std::int32_t>());
  CUSK_CUDA_CHECK_LAUNCH();
  Array cur = fa.share();
  Array stack, fb;
  if (nd >= 2) {
    stack = Array::empty({size}, DType::int32, dev, stream);
    fb = Array::empty(fshape, DType::int32, dev, stream);
  }
  for (int d = 1; d < nd; ++d) {
    if (d == 2) {
      const SrcPlanes src{cur.data<std::int32_t>(), size, shape[2], shape[1]};
      if (launch_last_axis<2>(src, shape[2], shape[0] * shape[1], size, s, dist, fout, cs)) return;
    }
    Array& next = cur.data() == fa.data() ? fb : fa;
    edt_line_pass<<<blocks_for(size / shape[d], 128), 128, 0, cs>>>(cur.data<std::int32_t>(), next.data<std::int32_t>(),
                                                                    stack.data<std::int32_t>(), g, d, s);
    CUSK_CUDA_CHECK_LAUNCH();
    cur = next.share();
  }
  if (dist) {
    edt_distances<<<blocks_for(size), 256, 0, cs>>>(cur.data<std::int32_t>(), g, s, dist);
    CUSK_CUDA_CHECK_LAUNCH();
  }
  if (fout) features.copy_from(cur, stream);
}

}  // namespace cuskimage::ndimage::detail
