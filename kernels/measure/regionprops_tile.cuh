// Pass 1 of measure.regionprops on 16 x 128 tiles combined in shared memory: the fallback for
// images past the warp-strip kernel's 32-bit strip geometry (strip_geo count 0: an axis of
// 2^31 - 1024 pixels or more). Three times slower than the warp strips (1.01 ms against 0.33 at
// 8192^2 on the H200); tuning::RegionpropsPass1::tiles forces it (tests). Included by
// kernels/measure/regionprops.cu inside its anonymous namespace, after regionprops_warp.cuh.
//
// One block per tile of one plane (grid-stride over tiles). The block stages the tile's labels
// (and, when small, its intensities) in shared memory with coalesced loads; each thread folds the
// runs of 8 consecutive pixels of one tile row in registers and adds each run into a per-block
// hash table keyed by slot (shared-memory atomics on tile-local 32-bit fields); at the end of the
// tile each occupied table entry is flushed with one set of global atomics. A run whose slot does
// not fit the table (more than kSlots labels in a tile, a probe sequence longer than kProbes, a
// slot index >= 2^31) is flushed straight to the global accumulators, so any label image is
// measured exactly.
#pragma once

constexpr int kTileH = 16, kTileW = 128, kChunk = 8;
constexpr int kTileThreads = kTileH * kTileW / kChunk;  // 256: 16 threads per tile row
constexpr int kRowPitch = kTileW + kTileW / 32;          // skewed rows: conflict-free chunk reads
constexpr int kTileElems = kTileH * kRowPitch;
constexpr int kSlots = kTileThreads;                     // thread i flushes table entry i
constexpr int kSlotBits = 8;
constexpr int kProbes = 16;
constexpr int kEmptyKey = -1;
constexpr int kStageBytes = 16 << 10;  // intensities staged in shared memory up to this size
static_assert(kSlots == 1 << kSlotBits);

/// Shared-memory index of tile pixel (r, x): rows of kRowPitch, one skip every 32 pixels, so the
/// 32 lanes of a warp reading pixel k of their chunks (x = 8 t + k, two rows) hit 32 banks.
__device__ __forceinline__ int tile_at(int r, int x) { return r * kRowPitch + x + (x >> 5); }

/// Tiles of the label image: planes of ny x nx (2-D: one plane), kTileH x kTileW each.
struct Tiles {
  std::int64_t nz, ny, nx, tx, ty, count;
  int nd;
};

/// Byte offsets of the block's shared arrays (-1: absent); `bytes` in all.
struct TileLayout {
  int key, u32, isum, imin, imax, wy, wx, inten, bytes;
};

/// What one run, or a table entry, adds to a slot: tile-local geometry (32-bit: a tile has 2048
/// pixels) and per channel sum I, sum I*y, sum I*x (global y, x) and the min / max keys.
template <int CH>
struct Part : Geom {
  double s[CH], wy[CH], wx[CH];
  u64 kmn[CH], kmx[CH];
};

/// Global atomics of one part (the old per-run flush): the geometry (geometry_atomics), per
/// channel the intensity sum, extremes and weighted sums.
template <int CH>
__device__ __forceinline__ void global_add(const Pass1Acc& acc, int nd, std::int64_t sl, const Part<CH>& p,
                                           std::int64_t z, std::int64_t y0, std::int64_t x0) {
  if (acc.geometry) geometry_atomics(acc, nd, sl, p, z, y0, x0);
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    if (c >= acc.cc) break;
    const std::int64_t k = sl * acc.nch + acc.c0 + c;
    if (acc.sum) atomicAdd(acc.isum + k, p.s[c]);
    if (acc.minmax) {
      atomicMax(acc.imin + k, ~p.kmn[c]);
      atomicMax(acc.imax + k, p.kmx[c]);
    }
    if (acc.weighted) {
      double* w = acc.iwsum + k * nd;
      if (nd == 3) atomicAdd(w, p.s[c] * static_cast<double>(z));
      atomicAdd(w + nd - 2, p.wy[c]);
      atomicAdd(w + nd - 1, p.wx[c]);
    }
  }
}

/// The block's table (pointers into dynamic shared memory).
template <int CH>
struct Table {
  int* key;
  unsigned *n, *ymin, *ymax, *xmin, *xmax, *ysum, *xsum;
  double *isum, *wy, *wx;  // [c * kSlots + i]
  u64 *imin, *imax;        // keys (imin: plain key, atomicMin)

  __device__ __forceinline__ void clear(int i, const Pass1Acc& acc) const {
    key[i] = kEmptyKey;
    n[i] = ymax[i] = xmax[i] = ysum[i] = xsum[i] = 0;
    ymin[i] = xmin[i] = 0xffffffffu;
    for (int c = 0; c < acc.cc; ++c) {
      if (isum) isum[c * kSlots + i] = 0;
      if (imin) {
        imin[c * kSlots + i] = ~0ull;
        imax[c * kSlots + i] = 0;
      }
      if (wy) wy[c * kSlots + i] = wx[c * kSlots + i] = 0;
    }
  }

  /// The entry of `k` (claimed when absent), or -1 when it has no room within kProbes.
  __device__ __forceinline__ int find(int k) const {
    const unsigned h = (static_cast<unsigned>(k) * 2654435761u) >> (32 - kSlotBits);
    for (int p = 0; p < kProbes; ++p) {
      const int i = static_cast<int>((h + p) & (kSlots - 1));
      int cur = reinterpret_cast<volatile int*>(key)[i];
      if (cur == kEmptyKey) cur = atomicCAS(key + i, kEmptyKey, k);
      if (cur == kEmptyKey || cur == k) return i;
    }
    return -1;
  }

  __device__ __forceinline__ void add(int i, const Part<CH>& p, const Pass1Acc& acc) const {
    if (acc.geometry) {
      atomicAdd(n + i, p.n);
      atomicMin(ymin + i, p.ymin);
      atomicMax(ymax + i, p.ymax);
      atomicMin(xmin + i, p.xmin);
      atomicMax(xmax + i, p.xmax);
      atomicAdd(ysum + i, p.ysum);
      atomicAdd(xsum + i, p.xsum);
    }
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      if (c >= acc.cc) break;
      if (isum) atomicAdd(isum + c * kSlots + i, p.s[c]);
      if (acc.minmax) {
        atomicMin(imin + c * kSlots + i, p.kmn[c]);
        atomicMax(imax + c * kSlots + i, p.kmx[c]);
      }
      if (acc.weighted) {
        atomicAdd(wy + c * kSlots + i, p.wy[c]);
        atomicAdd(wx + c * kSlots + i, p.wx[c]);
      }
    }
  }

  __device__ __forceinline__ Part<CH> part(int i, const Pass1Acc& acc) const {
    Part<CH> p;
    static_cast<Geom&>(p) = table_geom(*this, i);
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      const bool on = c < acc.cc;
      p.s[c] = on && isum ? isum[c * kSlots + i] : 0;
      p.kmn[c] = on && imin ? imin[c * kSlots + i] : 0;
      p.kmx[c] = on && imax ? imax[c * kSlots + i] : 0;
      p.wy[c] = on && wy ? wy[c * kSlots + i] : 0;
      p.wx[c] = on && wx ? wx[c * kSlots + i] : 0;
    }
    return p;
  }
};

__device__ __forceinline__ double warp_sum(double v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

/// Full-warp reductions of 32-bit fields (one REDUX on sm_80+, shuffles before).
template <int Op>  // 0 add, 1 min, 2 max
__device__ __forceinline__ unsigned warp_u32(unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (Op == 0) return __reduce_add_sync(0xffffffffu, v);
  if constexpr (Op == 1) return __reduce_min_sync(0xffffffffu, v);
  if constexpr (Op == 2) return __reduce_max_sync(0xffffffffu, v);
#else
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned w = __shfl_xor_sync(0xffffffffu, v, o);
    v = Op == 0 ? v + w : Op == 1 ? min(v, w) : max(v, w);
  }
  return v;
#endif
}

template <class L, class T, int CH>
__global__ void __launch_bounds__(kTileThreads) pass1_tile_kernel(const L* __restrict__ lab,
                                                                  const T* __restrict__ inten, Tiles tg, SlotMap map,
                                                                  Pass1Acc acc, TileLayout lay) {
  extern __shared__ __align__(16) unsigned char smem[];
  L* s_lab = reinterpret_cast<L*>(smem);
  Table<CH> tb;
  tb.key = reinterpret_cast<int*>(smem + lay.key);
  unsigned* u = reinterpret_cast<unsigned*>(smem + lay.u32);
  tb.n = u;
  tb.ymin = u + kSlots;
  tb.ymax = u + 2 * kSlots;
  tb.xmin = u + 3 * kSlots;
  tb.xmax = u + 4 * kSlots;
  tb.ysum = u + 5 * kSlots;
  tb.xsum = u + 6 * kSlots;
  tb.isum = lay.isum >= 0 ? reinterpret_cast<double*>(smem + lay.isum) : nullptr;
  tb.imin = lay.imin >= 0 ? reinterpret_cast<u64*>(smem + lay.imin) : nullptr;
  tb.imax = lay.imax >= 0 ? reinterpret_cast<u64*>(smem + lay.imax) : nullptr;
  tb.wy = lay.wy >= 0 ? reinterpret_cast<double*>(smem + lay.wy) : nullptr;
  tb.wx = lay.wx >= 0 ? reinterpret_cast<double*>(smem + lay.wx) : nullptr;
  T* s_int = lay.inten >= 0 ? reinterpret_cast<T*>(smem + lay.inten) : nullptr;

  const int tid = threadIdx.x, lane = tid & 31;
  const int r = tid / (kTileW / kChunk), cx = (tid % (kTileW / kChunk)) * kChunk;  // this thread's chunk
  const int nd = tg.nd, cc = acc.cc;
  tb.clear(tid, acc);

  for (std::int64_t t = blockIdx.x; t < tg.count; t += gridDim.x) {
    const std::int64_t bx = t % tg.tx, rest = t / tg.tx;
    const std::int64_t z = rest / tg.ty, y0 = (rest % tg.ty) * kTileH, x0 = bx * kTileW;
    const std::int64_t plane = z * tg.ny;
    // Stage the tile (pixels outside the image are background).
    for (int e = tid; e < kTileH * kTileW; e += kTileThreads) {
      const int rr = e / kTileW, xx = e % kTileW;
      const std::int64_t y = y0 + rr, x = x0 + xx;
      const bool in = y < tg.ny && x < tg.nx;
      const std::int64_t g = (plane + y) * tg.nx + x;
      s_lab[tile_at(rr, xx)] = in ? lab[g] : L(0);
      if (s_int && in)
        for (int c = 0; c < cc; ++c) s_int[c * kTileElems + tile_at(rr, xx)] = inten[g * acc.nch + acc.c0 + c];
    }
    __syncthreads();

    const std::int64_t y = y0 + r;
    const std::int64_t gx0 = (plane + y) * tg.nx + x0;  // global index of the tile row's first pixel
    std::int64_t cur = 0;
    int n = 0, xs = 0;
    double s[CH], wx[CH], mn[CH], mx[CH];
    auto reset = [&] {
      n = 0;
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        s[c] = 0;
        wx[c] = 0;
        mn[c] = __longlong_as_double(0x7ff0000000000000ll);
        mx[c] = -mn[c];
      }
    };
    auto make = [&](int xe) {
      Part<CH> p;
      p.n = static_cast<unsigned>(n);
      p.ymin = p.ymax = static_cast<unsigned>(r);
      p.xmin = static_cast<unsigned>(xs);
      p.xmax = static_cast<unsigned>(xe);
      p.ysum = static_cast<unsigned>(r * n);
      p.xsum = static_cast<unsigned>(n * xs + n * (n - 1) / 2);
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        p.s[c] = s[c];
        p.wy[c] = s[c] * static_cast<double>(y);
        p.wx[c] = wx[c];
        p.kmn[c] = dkey(mn[c]);
        p.kmx[c] = dkey(mx[c]);
      }
      return p;
    };
    auto emit = [&](std::int64_t sl, const Part<CH>& p) {
      const int i = sl < 0x7fffffff ? tb.find(static_cast<int>(sl)) : -1;
      if (i >= 0)
        tb.add(i, p, acc);
      else
        global_add(acc, nd, sl, p, z, y0, x0);
    };
    reset();
    for (int k = 0; k < kChunk; ++k) {
      const int x = cx + k;
      const std::int64_t l = static_cast<std::int64_t>(s_lab[tile_at(r, x)]);
      if (l != cur || n == 0) {
        if (n > 0) {
          const std::int64_t sl = map.slot(cur);
          if (sl >= 0) emit(sl, make(x - 1));
        }
        reset();
        cur = l;
        xs = x;
      }
      ++n;
      if (cc > 0 && l > 0) {
#pragma unroll
        for (int c = 0; c < CH; ++c) {
          if (c >= cc) break;
          const double d = static_cast<double>(s_int ? s_int[c * kTileElems + tile_at(r, x)]
                                                     : inten[(gx0 + x) * acc.nch + acc.c0 + c]);
          s[c] += d;
          wx[c] += d * static_cast<double>(x0 + x);
          mn[c] = fmin(mn[c], d);
          mx[c] = fmax(mx[c], d);
        }
      }
    }
    // The chunk's last run, every lane together: a warp whose 32 last runs are one region (the
    // inside of a large one) reduces them first and adds once.
    const std::int64_t sl = map.slot(cur);  // n > 0 here
    if (__match_any_sync(0xffffffffu, static_cast<long long>(sl)) == 0xffffffffu) {
      if (sl >= 0) {
        Part<CH> p = make(cx + kChunk - 1);
        constexpr unsigned full = 0xffffffffu;
        p.n = warp_u32<0>(p.n);
        p.ymin = warp_u32<1>(p.ymin);
        p.ymax = warp_u32<2>(p.ymax);
        p.xmin = warp_u32<1>(p.xmin);
        p.xmax = warp_u32<2>(p.xmax);
        p.ysum = warp_u32<0>(p.ysum);
        p.xsum = warp_u32<0>(p.xsum);
#pragma unroll
        for (int c = 0; c < CH; ++c) {
          if (c >= cc) break;
          p.s[c] = warp_sum(p.s[c]);
          p.wy[c] = warp_sum(p.wy[c]);
          p.wx[c] = warp_sum(p.wx[c]);
#pragma unroll
          for (int o = 16; o > 0; o >>= 1) {
            p.kmn[c] = min(p.kmn[c], __shfl_xor_sync(full, p.kmn[c], o));
            p.kmx[c] = max(p.kmx[c], __shfl_xor_sync(full, p.kmx[c], o));
          }
        }
        if (lane == 0) emit(sl, p);
      }
    } else if (sl >= 0) {
      emit(sl, make(cx + kChunk - 1));
    }
    __syncthreads();
    // Flush entry tid and clear it for the next tile (the next tile's runs start after its
    // staging barrier).
    const int key = tb.key[tid];
    if (key != kEmptyKey) {
      global_add(acc, nd, static_cast<std::int64_t>(key), tb.part(tid, acc), z, y0, x0);
      tb.clear(tid, acc);
    }
  }
}

/// The shared-memory layout of pass1_tile_kernel<L, T, *> for this launch.
TileLayout tile_layout(std::size_t lsize, std::size_t tsize, const Pass1Acc& a) {
  TileLayout t{};
  auto take = [&](std::size_t b) {
    const int at = t.bytes;
    t.bytes += static_cast<int>((b + 15) / 16 * 16);
    return at;
  };
  t.bytes = 0;
  take(kTileElems * lsize);  // labels at 0
  t.key = take(kSlots * sizeof(int));
  t.u32 = take(7 * kSlots * sizeof(unsigned));
  const std::size_t per = static_cast<std::size_t>(a.cc) * kSlots * 8;
  t.isum = (a.sum || a.weighted) && a.cc > 0 ? take(per) : -1;  // weighted: the 3-D z term
  t.imin = a.minmax && a.cc > 0 ? take(per) : -1;
  t.imax = a.minmax && a.cc > 0 ? take(per) : -1;
  t.wy = a.weighted && a.cc > 0 ? take(per) : -1;
  t.wx = a.weighted && a.cc > 0 ? take(per) : -1;
  const std::size_t stage = static_cast<std::size_t>(a.cc) * kTileElems * tsize;
  t.inten = a.cc > 0 && stage <= kStageBytes ? take(stage) : -1;
  return t;
}


template <class L, class T, int CH>
void launch_tile(const L* lab, const T* in, const Tiles& tg, const SlotMap& map, const Pass1Acc& a, cudaStream_t s) {
  const TileLayout lay = tile_layout(sizeof(L), sizeof(T), a);
  auto* kernel = pass1_tile_kernel<L, T, CH>;
  if (lay.bytes > 48 * 1024)
    CUSK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, lay.bytes));
  const auto grid = static_cast<unsigned>(std::min<std::int64_t>(tg.count, std::int64_t(1) << 20));
  kernel<<<grid, kTileThreads, lay.bytes, s>>>(lab, in, tg, map, a, lay);
  CUSK_CUDA_CHECK(cudaGetLastError());
}
