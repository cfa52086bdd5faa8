// CUDA backend of ndimage::distance_transform_edt (1-D, 2-D, 3-D).
//
// Pass 0 (axis 0): the nearest zero along axis 0, ties to the smaller row (scipy's walk), from 32-row
// bit words: edt_pass0 (a block per 32 columns, a warp per segment of chunks, all accesses 32 columns
// wide) packs each 32-row chunk of a column into one uint32 of zero bits and links every chunk to the
// last zero row above it and the first below it; any element then finds its nearest zero in O(1)
// (__clz / __ffs on its word; a link is loaded only when the word has no zero on that side).
//
// Later axes with unit sampling (the default): all squared distances are integers, and the walk's owner
// of position x is the smallest site k minimising g(k) + (k - x)^2 (g: the site's squared distance
// across the line), found by testing the sites at distance 1, 2, ... from x until d^2 exceeds the best
// value (edt_window_owner, src/ndimage/edt_line.hpp; tie rule and proof there). Work is proportional to
// the distance, there are no sequential chains, and no intermediate goes through global memory in 2-D:
// - last axis: edt_last_axis_window, a block per line, the sites' g in shared memory (4 B per position,
//   64 sentinels each side), each position searched and its float64 distance (sqrt_rn of the exact
//   integer, which is scipy's sum of squared terms) and int32 features written at once, coalesced;
// - 3-D middle axis: edt_mid_axis_window, a block per 32 x-lines along y, g as [y][32] in shared memory.
// A line with a position the search cannot settle within 64 (a site farther off could still win) is
// listed, and the general kernels below redo exactly those lines after it on the stream.
//
// General kernels (any sampling, and the listed lines): the last axis by edt_last_axis, a block per
// line in shared memory: each of 512 (128) threads builds Maurer's envelope of its band of positions,
// log2 merge rounds join neighbouring bands, every surviving site scatters the first position it owns,
// a block max-scan fills the ownership (src/ndimage/edt_line.hpp); middle axes and lines too long for
// shared memory by scipy's sequential walk, one thread per line (edt_line_pass), out of place.
//
// Bytes and time, 8192^2 binary blobs (bench_edt), distances only, H200 (4.8 TB/s nominal, ~4.2 reachable):
// mask read 64 MiB + words/links written 24 MiB (pass 0) + words read back ~8 MiB (a chunk's words serve
// its 32 rows from L2; links are rarely needed) + distances written 512 MiB = ~0.64 GB: floor 0.15 ms
// (the float64 write alone 0.128 ms). With return_indices 2 x 256 MiB more int32 (floor 0.28 ms).
// Work (from the SASS of edt_last_axis_window<1>, 40 registers, 6 blocks = 48 warps per SM by shared
// memory): per warp of 32 positions ~31 instructions to load and square the sites (8 word loads in
// flight per thread), ~22 of loop overhead, 19 per search step x 3.3 steps (the slowest lane; the
// image's distances are small: mean 1.3, max 17.7 pixels, 1.2 steps per position), ~17 for the sqrt
// (skipped for zero) and ~8 for the store: ~140 warp instructions = 290 M for the image, 0.28 ms at the
// full issue rate (132 SMs x 4 x 1.98 GHz) and ~0.35 ms at a realistic 3.2 per clock, so this kernel is
// issue bound with the 0.13 ms of writes under it.
// Prediction: pass 0 ~0.03 ms (one wave of 256 blocks, 8 batched 32-row chunks per thread) +
// edt_last_axis_window ~0.35 ms + an empty wave of edt_last_axis ~0.005 ms = ~0.4 ms for distances
// (2.7x the floor; was 1.75 ms), ~0.5 ms with indices; target <= 1.0 ms.
// Lines with distances beyond 64 pay the search and then the general kernel (bench_edt's
// SparseBackground, one background pixel in 4096, is the worst case: ~the former 1.75 ms or more).
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
/// One block per 32 columns, one warp per segment of chunks: each lane packs its column's chunks into
/// words (bit r: row 32c + r is a zero) and notes the segment's last / first zero row; the segments'
/// carries come through shared memory, and a second walk writes every chunk's links: the last zero
/// row before it and the first after it (-1: none). All loads and stores are 32 columns wide.
__global__ void __launch_bounds__(1024) edt_pass0(const unsigned char* __restrict__ mask, std::int64_t n0,
                                                  std::int64_t inner, std::int64_t nchunks, std::int64_t seg,
                                                  std::uint32_t* __restrict__ words, std::int32_t* __restrict__ above,
                                                  std::int32_t* __restrict__ below) {
  __shared__ std::int32_t seg_last[32][33], seg_first[32][33];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5, nseg = blockDim.x >> 5;
  const std::int64_t q = static_cast<std::int64_t>(blockIdx.x) * 32 + lane;
  const bool ok = q < inner;
  const std::int64_t c0 = w * seg, c1 = c0 + seg < nchunks ? c0 + seg : nchunks;
  std::int32_t last = -1, first = -1;
  if (ok) {
    for (std::int64_t c = c0; c < c1; ++c) {
      const std::int64_t r0 = c * 32;
      const int rn = static_cast<int>(n0 - r0 < 32 ? n0 - r0 : 32);
      const unsigned char* p = mask + r0 * inner + q;
      std::uint32_t bits = 0;
      if (rn == 32) {
#pragma unroll
        for (int r = 0; r < 32; ++r) bits |= (p[r * inner] == 0 ? 1u : 0u) << r;
      } else {
        for (int r = 0; r < rn; ++r) bits |= (p[r * inner] == 0 ? 1u : 0u) << r;
      }
      words[c * inner + q] = bits;
      if (bits) {
        last = static_cast<std::int32_t>(r0 + 31 - __clz(bits));
        if (first < 0) first = static_cast<std::int32_t>(r0 + __ffs(bits) - 1);
      }
    }
  }
  seg_last[w][lane] = last;
  seg_first[w][lane] = first;
  __syncthreads();
  std::int32_t up = -1, dn = -1;
  for (int v = 0; v < w; ++v) up = max(up, seg_last[v][lane]);  // rows grow with the segment
  for (int v = nseg - 1; v > w; --v)
    if (seg_first[v][lane] >= 0) dn = seg_first[v][lane];
  if (!ok) return;
  for (std::int64_t c = c0; c < c1; ++c) {
    above[c * inner + q] = up;
    const std::uint32_t bits = words[c * inner + q];  // this thread's own store
    if (bits) up = static_cast<std::int32_t>(c * 32 + 31 - __clz(bits));
  }
  for (std::int64_t c = c1 - 1; c >= c0; --c) {
    below[c * inner + q] = dn;
    const std::uint32_t bits = words[c * inner + q];
    if (bits) dn = static_cast<std::int32_t>(c * 32 + __ffs(bits) - 1);
  }
}

struct Pass0 {
  const std::uint32_t* words;
  const std::int32_t* above;
  const std::int32_t* below;
  std::int64_t inner;
  /// The word of (r, q): loaded first, so that a caller can have many loads in flight.
  __device__ std::uint32_t word(std::int64_t r, std::int64_t q) const { return words[(r >> 5) * inner + q]; }
  /// Row of the zero nearest to (r, q) along axis 0 (ties: the smaller row), -1 if none, given its word.
  __device__ std::int32_t nearest(std::uint32_t w, std::int64_t r, std::int64_t q) const {
    const std::int64_t c = r >> 5;
    const std::int64_t at = c * inner + q;
    // The links are loaded only where the word has no zero on that side.
    return edt_nearest_zero(
        w, static_cast<int>(r & 31), static_cast<std::int32_t>(c), [&] { return above[at]; },
        [&] { return below[at]; }, static_cast<std::int32_t>(r));
  }
  __device__ std::int32_t nearest(std::int64_t r, std::int64_t q) const { return nearest(word(r, q), r, q); }
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

/// Every line, or (list != null) the list[0] lines list[1..].
__global__ void edt_line_pass(const std::int32_t* fin, std::int32_t* fout, std::int32_t* stack, Geom g, int d,
                              Samp s, const std::int32_t* list) {
  const std::int64_t len = g.shape[d];
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= (list ? list[0] : g.size / len)) return;
  const std::int64_t L = list ? list[1 + i] : i;
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
/// Source of the sites: 2-D from the pass-0 words, 3-D from the feature planes of pass 1. pre() issues
/// the position's loads, finish() completes its features (batched by edt_last_axis_window).
struct SrcWords {
  Pass0 p0;
  using Pre = std::uint32_t;
  __device__ Pre pre(std::int64_t line, std::int64_t x) const { return p0.word(line, x); }
  __device__ void finish(Pre w, std::int64_t line, std::int64_t x, std::int32_t* f) const {
    f[0] = p0.nearest(w, line, x);
  }
  __device__ void load(std::int64_t line, std::int64_t x, std::int32_t* f) const { f[0] = p0.nearest(line, x); }
  __device__ void coords(std::int64_t line, std::int64_t* c) const { c[0] = line; }
};
struct SrcPlanes {
  const std::int32_t* fin;
  std::int64_t size, n, ny;
  using Pre = int2;
  __device__ Pre pre(std::int64_t line, std::int64_t x) const {
    return make_int2(fin[line * n + x], fin[size + line * n + x]);
  }
  __device__ void finish(Pre p, std::int64_t, std::int64_t, std::int32_t* f) const {
    f[0] = p.x;
    f[1] = p.y;
  }
  __device__ void load(std::int64_t line, std::int64_t x, std::int32_t* f) const { finish(pre(line, x), line, x, f); }
  __device__ void coords(std::int64_t line, std::int64_t* c) const {
    c[0] = line / ny;
    c[1] = line - c[0] * ny;
  }
};

template <int P, int kThreads, class Src>
__device__ void edt_last_axis_line(const Src& src, std::int64_t line, int n, std::int64_t size, const Samp& samp,
                                   double* dist, std::int32_t* fout, unsigned char* smem) {
  const int np = n + n / 32 + 1;
  std::int32_t* feat = reinterpret_cast<std::int32_t*>(smem);
  std::int32_t* own = feat + P * np;
  std::int32_t* heads = own + np;
  std::int32_t* tails = heads + kThreads;
  int* warp_tot = tails + kThreads;
  std::int16_t* nx = reinterpret_cast<std::int16_t*>(warp_tot + 32);
  std::int16_t* pv = nx + np;
  const int t = threadIdx.x;

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

/// Lines 0..lines-1, or (list != null) the list[0] lines list[1..], a block per line in turn.
template <int P, int kThreads, class Src>
__global__ void __launch_bounds__(kThreads) edt_last_axis(Src src, int n, std::int64_t lines, const std::int32_t* list,
                                                         std::int64_t size, Samp samp, double* dist,
                                                         std::int32_t* fout) {
  extern __shared__ __align__(16) unsigned char smem[];
  const std::int64_t count = list ? list[0] : lines;
  for (std::int64_t b = blockIdx.x; b < count; b += gridDim.x) {
    edt_last_axis_line<P, kThreads>(src, list ? list[1 + b] : b, n, size, samp, dist, fout, smem);
    __syncthreads();  // shared memory is reused by the next line
  }
}

// ---- last axis, unit sampling: outward search per position ------------------------------------------
constexpr int kWinMax = 64;  // search radius; a line needing more goes to edt_last_axis
constexpr int kWinThreads = 256;

/// One block per line: the sites' integer g in shared memory (kWinMax sentinels each side), every
/// position searched outward (edt_window_owner), its float64 distance and features written at once.
/// A line with a position not settled within kWinMax is appended to `hard` (count in hard[0]) and
/// redone whole by edt_last_axis, which runs after this kernel on the stream.
template <int P, class Src>
__global__ void __launch_bounds__(kWinThreads, P == 1 ? 6 : 4)  // 40 / 64 registers, no spills
    edt_last_axis_window(Src src, int n, std::int64_t size, double* dist, std::int32_t* fout, std::int32_t* hard) {
  extern __shared__ __align__(16) unsigned char smem[];
  std::uint32_t* g = reinterpret_cast<std::uint32_t*>(smem) + kWinMax;
  __shared__ int failed;
  const int t = threadIdx.x, nt = blockDim.x;
  const std::int64_t line = blockIdx.x;
  std::int64_t c[P];
  src.coords(line, c);
  if (t == 0) failed = 0;
  for (int i = t; i < kWinMax; i += nt) g[-1 - i] = g[n + i] = kEdtNoSite;
  int any = 0;
  // Sites in batches of 8 positions per thread: their loads in flight together.
  constexpr int kBatch = 8;
  for (int x0 = t; x0 < n; x0 += kBatch * nt) {
    typename Src::Pre pre[kBatch];
#pragma unroll
    for (int u = 0; u < kBatch; ++u) pre[u] = src.pre(line, min(x0 + u * nt, n - 1));  // past the end: a repeat
#pragma unroll
    for (int u = 0; u < kBatch; ++u) {
      const int x = x0 + u * nt;
      if (x >= n) continue;
      std::int32_t f[P];
      src.finish(pre[u], line, x, f);
      std::uint32_t v = 0;
#pragma unroll
      for (int jj = 0; jj < P; ++jj) {
        const std::uint32_t e = static_cast<std::uint32_t>(f[jj] - static_cast<std::int32_t>(c[jj]));
        v += e * e;  // exact: |e| < 2^16
      }
      g[x] = f[0] >= 0 ? v : kEdtNoSite;
      any |= f[0] >= 0;
    }
  }
  const std::int64_t row0 = line * n;
  if (!__syncthreads_or(any)) {  // no site on the line: scipy's untouched planes, as edt_last_axis
    for (int x = t; x < n; x += nt) {
      std::int32_t f[P + 1];
      src.load(line, x, f);
#pragma unroll
      for (int jj = 1; jj <= P; ++jj) f[jj] = 0;
      if (dist) {
        std::int64_t cc[P + 1];
#pragma unroll
        for (int jj = 0; jj < P; ++jj) cc[jj] = c[jj];
        cc[P] = x;
        double s1[P + 1];
#pragma unroll
        for (int jj = 0; jj <= P; ++jj) s1[jj] = 1.0;
        dist[row0 + x] = edt_distance([&](int jj) -> std::int64_t { return f[jj]; }, cc, s1, P + 1);
      }
      if (fout) {
#pragma unroll
        for (int jj = 0; jj <= P; ++jj) fout[jj * size + row0 + x] = f[jj];
      }
    }
    return;
  }
  volatile int* vfailed = &failed;
  for (int x = t; x < n; x += nt) {
    if (*vfailed) break;
    std::uint32_t best;
    int k;
    if (!edt_window_owner([&](int j) { return g[j]; }, x, kWinMax, best, k)) {
      *vfailed = 1;
      break;
    }
    // best = g(k) + (k - x)^2 exactly: scipy's sum of the squared axis terms, each exact in double.
    if (dist) {
      double v = 0.0;  // 0 would take the sqrt's special-case path
      if (best != 0) v = __dsqrt_rn(static_cast<double>(best));
      dist[row0 + x] = v;
    }
    if (fout) {
      std::int32_t f[P];
      src.load(line, k, f);
#pragma unroll
      for (int jj = 0; jj < P; ++jj) fout[jj * size + row0 + x] = f[jj];
      fout[P * size + row0 + x] = static_cast<std::int32_t>(k);
    }
  }
  __syncthreads();
  if (t == 0 && failed) hard[1 + atomicAdd(hard, 1)] = static_cast<std::int32_t>(line);
}


/// Axis 1 of a volume, unit sampling: a block per 32 x-lines (z, x0..x0+31) along y, their g in
/// shared memory as [y][32] (kWinMax sentinel rows each side, conflict-free), each position searched
/// as in edt_last_axis_window; features (plane 0 of the owner, its y) written for settled positions,
/// and lines with an unsettled one listed in `hard` (line index z * n2 + x, edt_line_pass's order).
__global__ void __launch_bounds__(kWinThreads) edt_mid_axis_window(const std::int32_t* __restrict__ fin,
                                                                   std::int32_t* __restrict__ fout, std::int64_t n1,
                                                                   std::int64_t n2, std::int64_t size,
                                                                   std::int32_t* hard) {
  extern __shared__ __align__(16) unsigned char smem[];
  std::uint32_t* g = reinterpret_cast<std::uint32_t*>(smem) + kWinMax * 32;
  __shared__ int failed[32];
  const int lane = threadIdx.x & 31, ty = threadIdx.x >> 5, nty = blockDim.x >> 5;
  const std::int64_t xblocks = (n2 + 31) / 32;
  const std::int64_t z = blockIdx.x / xblocks, x = (blockIdx.x - z * xblocks) * 32 + lane;
  const bool ok = x < n2;
  const std::int32_t* in = fin + z * n1 * n2 + x;
  if (ty == 0) failed[lane] = 0;
  for (int i = ty; i < kWinMax; i += nty) g[(-1 - i) * 32 + lane] = g[(n1 + i) * 32 + lane] = kEdtNoSite;
#pragma unroll 4
  for (std::int64_t y = ty; y < n1; y += nty) {
    const std::int32_t f = ok ? in[y * n2] : -1;
    const std::uint32_t e = static_cast<std::uint32_t>(f - static_cast<std::int32_t>(z));
    g[y * 32 + lane] = f >= 0 ? e * e : kEdtNoSite;
  }
  __syncthreads();
  volatile int* vfailed = failed;
  if (ok) {
    for (std::int64_t y = ty; y < n1; y += nty) {
      if (vfailed[lane]) break;
      std::uint32_t best;
      int k;
      if (!edt_window_owner([&](int j) { return g[j * 32 + lane]; }, static_cast<int>(y), kWinMax, best, k)) {
        vfailed[lane] = 1;
        break;
      }
      const std::int64_t o = (z * n1 + y) * n2 + x;
      fout[o] = in[k * n2];
      fout[size + o] = static_cast<std::int32_t>(k);
    }
  }
  __syncthreads();
  if (ty == 0 && ok && failed[lane]) hard[1 + atomicAdd(hard, 1)] = static_cast<std::int32_t>(z * n2 + x);
}

unsigned blocks_for(std::int64_t n, int threads = 256) { return static_cast<unsigned>((n + threads - 1) / threads); }

/// Long lines (the 8192^2 target) get 512 threads (bands of 16, 2 blocks and 32 warps per SM to hide
/// the latency of the sequential band builds); short lines 128.
constexpr int kLongLine = 2048;

int max_smem_optin() {
  int dev = 0, v = 0;
  CUSK_CUDA_CHECK(cudaGetDevice(&dev));
  CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  return v;
}

/// Whether edt_last_axis takes lines of n positions (positions are int16 in its shared memory).
template <int P>
bool last_axis_fits(std::int64_t n, std::int64_t lines) {
  if (n > 32000 || lines > 0x7fffffff) return false;
  const std::size_t bytes = n > kLongLine ? last_axis_smem<P, 512>(static_cast<int>(n))
                                          : last_axis_smem<P, 128>(static_cast<int>(n));
  return bytes <= static_cast<std::size_t>(max_smem_optin());
}

/// edt_last_axis over every line, or over the lines listed on the device (list[0] of them, at most
/// `lines`: a grid of one wave loops over the list, so an empty list costs one wave of no-ops).
template <int P, int kThreads, class Src>
void launch_last_axis_t(const Src& src, std::int64_t n, std::int64_t lines, const std::int32_t* list,
                        std::int64_t size, const Samp& s, double* dist, std::int32_t* fout, cudaStream_t stream) {
  const std::size_t bytes = last_axis_smem<P, kThreads>(static_cast<int>(n));
  auto kernel = edt_last_axis<P, kThreads, Src>;
  CUSK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  std::int64_t grid = lines;
  if (list) {
    int dev = 0, sms = 0, per_sm = 0;
    CUSK_CUDA_CHECK(cudaGetDevice(&dev));
    CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CUSK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads, bytes));
    grid = std::min<std::int64_t>(lines, static_cast<std::int64_t>(std::max(per_sm, 1)) * sms);
  }
  kernel<<<static_cast<unsigned>(grid), kThreads, bytes, stream>>>(src, static_cast<int>(n), lines, list, size, s,
                                                                   dist, fout);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <int P, class Src>
void launch_last_axis(const Src& src, std::int64_t n, std::int64_t lines, const std::int32_t* list, std::int64_t size,
                      const Samp& s, double* dist, std::int32_t* fout, cudaStream_t stream) {
  if (n > kLongLine)
    launch_last_axis_t<P, 512>(src, n, lines, list, size, s, dist, fout, stream);
  else
    launch_last_axis_t<P, 128>(src, n, lines, list, size, s, dist, fout, stream);
}

/// The last axis of a P + 1 dimensional image (lines of n positions, the sites' features from src).
/// Unit sampling: the outward search, then the banded envelope for the lines it could not settle;
/// else the banded envelope for all. False when the lines are too long for shared memory.
template <int P, class Src>
bool last_axis(const Src& src, const Shape& shape, const Samp& s, bool unit, std::int64_t size, double* dist,
               std::int32_t* fout, const Device& dev, const Stream& stream) {
  const std::int64_t n = shape[P], lines = size / n;
  if (!last_axis_fits<P>(n, lines)) return false;
  // The window's integers: every g(k) + (kWinMax + 1)^2 below kEdtNoSite.
  double gmax = 0;
  for (int jj = 0; jj < P; ++jj) gmax += static_cast<double>(shape[jj] - 1) * static_cast<double>(shape[jj] - 1);
  if (!unit || gmax >= 2147483648.0) {
    launch_last_axis<P>(src, n, lines, nullptr, size, s, dist, fout, stream.handle());
    return true;
  }
  Array hard = Array::empty({lines + 1}, DType::int32, dev, stream);
  CUSK_CUDA_CHECK(cudaMemsetAsync(hard.data(), 0, sizeof(std::int32_t), stream.handle()));
  const std::size_t bytes = static_cast<std::size_t>(n + 2 * kWinMax) * sizeof(std::uint32_t);
  auto kernel = edt_last_axis_window<P, Src>;
  CUSK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  const int threads = static_cast<int>(std::min<std::int64_t>(kWinThreads, (n + 31) / 32 * 32));
  kernel<<<static_cast<unsigned>(lines), threads, bytes, stream.handle()>>>(src, static_cast<int>(n), size, dist, fout,
                                                                            hard.data<std::int32_t>());
  CUSK_CUDA_CHECK_LAUNCH();
  launch_last_axis<P>(src, n, lines, hard.data<std::int32_t>(), size, s, dist, fout, stream.handle());
  return true;
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

  bool unit = true;
  for (int d = 0; d < nd; ++d) unit = unit && s.s[d] == 1.0;

  // Pass 0 words and links.
  const std::int64_t n0 = shape[0], inner = size / n0, nchunks = (n0 + 31) / 32;
  Array words = Array::empty({nchunks * inner}, DType::uint32, dev, stream);
  Array above = Array::empty({nchunks * inner}, DType::int32, dev, stream);
  Array below = Array::empty({nchunks * inner}, DType::int32, dev, stream);
  {
    const std::int64_t nseg = std::min<std::int64_t>(32, nchunks), seg = (nchunks + nseg - 1) / nseg;
    edt_pass0<<<static_cast<unsigned>((inner + 31) / 32), static_cast<unsigned>(32 * nseg), 0, cs>>>(
        static_cast<const unsigned char*>(mask.data()), n0, inner, nchunks, seg, words.data<std::uint32_t>(),
        above.data<std::int32_t>(), below.data<std::int32_t>());
    CUSK_CUDA_CHECK_LAUNCH();
  }
  const Pass0 p0{words.data<std::uint32_t>(), above.data<std::int32_t>(), below.data<std::int32_t>(), inner};

  if (nd == 2 && last_axis<1>(SrcWords{p0}, shape, s, unit, size, dist, fout, dev, stream)) return;
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
    if (d == 2 && last_axis<2>(SrcPlanes{cur.data<std::int32_t>(), size, shape[2], shape[1]}, shape, s, unit, size,
                               dist, fout, dev, stream))
      return;
    Array& next = cur.data() == fa.data() ? fb : fa;
    const std::int64_t lines = size / shape[d];
    // The middle axis of a volume, unit sampling: the outward search, the walk for the lines it left.
    const std::size_t mid_bytes = static_cast<std::size_t>(shape[1] + 2 * kWinMax) * 32 * sizeof(std::uint32_t);
    const bool mid = nd == 3 && d == 1 && unit && static_cast<double>(shape[0] - 1) * (shape[0] - 1) < 2147483648.0 &&
                     mid_bytes <= static_cast<std::size_t>(max_smem_optin()) && lines < 0x7fffffff;
    Array hard;
    if (mid) {
      hard = Array::empty({lines + 1}, DType::int32, dev, stream);
      CUSK_CUDA_CHECK(cudaMemsetAsync(hard.data(), 0, sizeof(std::int32_t), cs));
      CUSK_CUDA_CHECK(cudaFuncSetAttribute(edt_mid_axis_window, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           static_cast<int>(mid_bytes)));
      const std::int64_t blocks = shape[0] * ((shape[2] + 31) / 32);
      const int threads = static_cast<int>(std::min<std::int64_t>(kWinThreads, 32 * shape[1]));
      edt_mid_axis_window<<<static_cast<unsigned>(blocks), threads, mid_bytes, cs>>>(
          cur.data<std::int32_t>(), next.data<std::int32_t>(), shape[1], shape[2], size, hard.data<std::int32_t>());
      CUSK_CUDA_CHECK_LAUNCH();
    }
    edt_line_pass<<<blocks_for(lines, 128), 128, 0, cs>>>(cur.data<std::int32_t>(), next.data<std::int32_t>(),
                                                         stack.data<std::int32_t>(), g, d, s,
                                                         mid ? hard.data<std::int32_t>() : nullptr);
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
