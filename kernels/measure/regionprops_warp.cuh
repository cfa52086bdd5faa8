// measure.regionprops pass 1, warp strips: the kernel of kernels/measure/regionprops.cu and what
// it shares with the tile kernel there (u64, dkey, SlotMap, Pass1Acc).
//
// A FRAGMENT, not a self-contained header: it is included inside a namespace, by
// kernels/measure/regionprops.cu (nvcc, an anonymous namespace) and by
// tests/measure/test_regionprops_emu.cpp, which compiles the same source on the host under a SIMT
// emulator (tests/measure/warp_emu.hpp: lanes as fibers, shuffles and ballots as exchange points,
// every lane checked to reach the same call) and compares it with a per-pixel oracle. The includer
// provides <cstdint>, <cstring>, <type_traits>, <algorithm>, and CUSK_RP_DYN_SMEM when emulating.

#ifndef CUSK_RP_DYN_SMEM
#define CUSK_RP_DYN_SMEM(name) extern __shared__ __align__(16) unsigned char name[]
#endif

using u64 = unsigned long long;

/// Monotone map of doubles to unsigned keys (for atomicMin/Max of doubles).
__device__ __forceinline__ u64 dkey(double v) {
  const u64 b = static_cast<u64>(__double_as_longlong(v));
  return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}
__host__ __device__ __forceinline__ double dkey_inv(u64 k) {
  const u64 b = (k >> 63) ? (k & 0x7fffffffffffffffull) : ~k;
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(b));
#else
  double d;
  std::memcpy(&d, &b, sizeof d);
  return d;
#endif
}

/// Label -> slot: the label itself (dense), its row (dense after packing), or its index in the
/// sorted unique labels (sparse).
struct SlotMap {
  const std::int64_t* keys = nullptr;  // sparse
  std::int64_t nkeys = 0;
  const std::int64_t* row_of = nullptr;  // dense rows (pass 2)
  std::int64_t max_label = 0;
  __device__ __forceinline__ std::int64_t slot(std::int64_t l) const {
    if (l <= 0) return -1;
    if (keys) {
      std::int64_t lo = 0, hi = nkeys;
      while (lo < hi) {
        const std::int64_t mid = (lo + hi) >> 1;
        if (keys[mid] < l) lo = mid + 1; else hi = mid;
      }
      return (lo < nkeys && keys[lo] == l) ? lo : -1;
    }
    if (l > max_label) return -1;
    return row_of ? row_of[l] : l;
  }
};

struct Pass1Acc {
  u64 *cnt, *lo, *hi, *csum;  // cnt[S], lo/hi/csum[S*nd]
  double *isum, *iwsum;       // [S*C], [S*C*nd]
  u64 *imin, *imax;           // [S*C] (imin holds ~key)
  int nch, c0, cc;            // channels, this launch's first channel and count
  bool geometry, sum, minmax, weighted;
};

// ---- pass 1: warp strips (the default) -----------------------------------------------------------
// Each warp owns a strip of TH rows x TW = 32 V columns of one plane and a private hash table in
// shared memory (Q entries keyed by label). Row by row (the next row's loads in flight while one
// is processed) each lane holds V consecutive pixels (one or two 16-byte loads of labels, one
// vector of intensities); the warp turns its 32 V pixels into runs without shared memory:
//   heads   pixel k is a head when its label differs from pixel k - 1 (lane 0's first: always);
//   carry   a segmented inclusive scan over lanes (shuffles, 5 steps) of the partial sums of the
//           run that contains each lane's last pixel (segments start at lanes that hold a head),
//           so a run that crosses lanes arrives whole at the lane that holds its last pixel;
//   emit    each lane adds the foreground runs that end in it (usually 0 or 1, at most V; in
//           rounds) to the table: 5 native 32-bit shared atomics for count, x extremes and
//           coordinate sums (ymin / ymax are plain stores: rows come in order), one per field
//           and channel for the intensities (32-bit integer sums for uint8 / uint16, exact).
// At the end of the strip the occupied entries are flushed (one set of global atomics each, or,
// with the fused max, one record each: see run_pass1) and cleared. Runs that find no room within
// kWarpProbes slots take the global atomics directly (records: the records are dropped, the host
// falls back to the direct pass), so any label image is measured exactly. No block barriers: the
// warps of a block share nothing but the allocation.

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarpProbes = 16;
constexpr int kMaxStripPixels = 16384;  // TH * TW: keeps the table's 32-bit sums and box bytes exact
constexpr int kQS = 128;  // field stride of a warp table (entries): fixed, so fields sit at immediate offsets

/// Per intensity type: segment and table sums (32-bit integers for uint8 / uint16: a strip of
/// 16384 px sums below 2^30), extremes in the value domain and as order-preserving 32/64-bit keys
/// (NaN ignored as fmin / fmax ignore it, like the CPU's std::min / std::max).
template <class T>
struct ITraits {
  static constexpr bool kInt = std::is_integral_v<T>;
  using Sum = std::conditional_t<kInt, unsigned, double>;
  using Val = std::conditional_t<kInt, unsigned, T>;
  using Key = std::conditional_t<std::is_same_v<T, double>, u64, unsigned>;
  __device__ static Val lo_id() {
    if constexpr (kInt) return 0xffffffffu;
    else if constexpr (std::is_same_v<T, float>) return __int_as_float(0x7f800000);
    else return __longlong_as_double(0x7ff0000000000000ll);
  }
  __device__ static Val hi_id() {
    if constexpr (kInt) return 0u;
    else return -lo_id();
  }
  __device__ static Val vmin(Val a, Val b) {
    if constexpr (kInt) return a < b ? a : b;
    else if constexpr (std::is_same_v<T, float>) return fminf(a, b);
    else return fmin(a, b);
  }
  __device__ static Val vmax(Val a, Val b) {
    if constexpr (kInt) return a > b ? a : b;
    else if constexpr (std::is_same_v<T, float>) return fmaxf(a, b);
    else return fmax(a, b);
  }
  __device__ static Key key(Val v) {
    if constexpr (kInt) {
      return v;
    } else if constexpr (std::is_same_v<T, float>) {
      const unsigned b = __float_as_uint(v);
      return (b >> 31) ? ~b : (b | 0x80000000u);
    } else {
      return dkey(v);
    }
  }
  __device__ static double value(Key k) {
    if constexpr (kInt) {
      return static_cast<double>(k);
    } else if constexpr (std::is_same_v<T, float>) {
      const unsigned b = (k >> 31) ? (k & 0x7fffffffu) : ~k;
      return static_cast<double>(__uint_as_float(b));
    } else {
      return dkey_inv(k);
    }
  }
};

/// Strips of the label image: planes of ny x nx, TH x TW each, x fastest (adjacent warps read
/// adjacent row pieces). 32-bit axes and strip indices (the host takes the tile kernel past them).
struct StripGeo {
  int nz, ny, nx, tx, ty, count;
  int th, tw, nd;
  bool lab_vec, int_vec;  // vector loads allowed (row length and base pointers aligned)
};

__host__ __device__ __forceinline__ void strip_origin(const StripGeo& g, unsigned s, int& z, int& y0, int& x0) {
  const unsigned tx = static_cast<unsigned>(g.tx), ty = static_cast<unsigned>(g.ty);
  const unsigned bx = s % tx, rest = s / tx;
  z = static_cast<int>(rest / ty);
  y0 = static_cast<int>(rest % ty) * g.th;
  x0 = static_cast<int>(bx) * g.tw;
}

/// Byte offsets in one warp's shared region (-1: absent) and the region's size.
struct WarpLayout {
  int key, u32, s, mn, mx, wy, wx, stride, q, qbits;
};

/// Fused-max mode: one record per occupied table entry (structure of arrays, `cap` rows).
struct Records {
  u64* ctr = nullptr;  // [0] records reserved, [1] overflow, [2] max label (as long long)
  std::int64_t cap = 0;
  void* label = nullptr;  // L[cap]
  unsigned *strip = nullptr, *n = nullptr, *box = nullptr, *ysum = nullptr, *xsum = nullptr;
  double *s = nullptr, *mn = nullptr, *mx = nullptr, *wy = nullptr, *wx = nullptr;  // [c * cap + i]
  bool on = false;
};

/// A run's or table entry's geometry in local coordinates (32-bit: a strip or tile is small): count,
/// bbox, coordinate sums.
struct Geom {
  unsigned n, ymin, ymax, xmin, xmax, ysum, xsum;
};

/// Entry i of a shared table of geometry columns (both pass-1 kernels' tables).
template <class Tab>
__device__ __forceinline__ Geom table_geom(const Tab& t, int i) {
  return Geom{t.n[i], t.ymin[i], t.ymax[i], t.xmin[i], t.xmax[i], t.ysum[i], t.xsum[i]};
}

/// A table entry or run in strip-local coordinates, channel values as doubles (exact for integer
/// intensities).
template <int CH>
struct GEntry : Geom {
  double s[CH], mn[CH], mx[CH], wy[CH], wx[CH];
};

/// Slot sl's geometry atomics for n pixels given in local coordinates from origin (z, y0, x0):
/// count, bbox (min as atomicMax of ~v), coordinate sums. Shared by both pass-1 kernels.
template <class G>
__device__ __forceinline__ void geometry_atomics(const Pass1Acc& acc, int nd, std::int64_t sl, const G& e,
                                                 std::int64_t z, std::int64_t y0, std::int64_t x0) {
  const u64 n = e.n;
  atomicAdd(acc.cnt + sl, n);
  u64* lo = acc.lo + sl * nd;
  u64* hi = acc.hi + sl * nd;
  u64* cs = acc.csum + sl * nd;
  if (nd == 3) {
    atomicMax(lo, ~static_cast<u64>(z));
    atomicMax(hi, static_cast<u64>(z + 1));
    atomicAdd(cs, static_cast<u64>(z) * n);
    ++lo, ++hi, ++cs;
  }
  atomicMax(lo, ~static_cast<u64>(y0 + e.ymin));
  atomicMax(hi, static_cast<u64>(y0 + e.ymax + 1));
  atomicAdd(cs, static_cast<u64>(y0) * n + e.ysum);
  atomicMax(lo + 1, ~static_cast<u64>(x0 + e.xmin));
  atomicMax(hi + 1, static_cast<u64>(x0 + e.xmax + 1));
  atomicAdd(cs + 1, static_cast<u64>(x0) * n + e.xsum);
}

/// One entry's global atomics: the geometry, then per channel the intensity sum, extremes (keys of
/// the doubles) and weighted sums (sum I*y = wy + y0 * sum I).
template <int CH, bool FULL = true>
__device__ __forceinline__ void global_entry(const Pass1Acc& acc, int nd, std::int64_t sl, const GEntry<CH>& e,
                                             std::int64_t z, std::int64_t y0, std::int64_t x0) {
  if (acc.geometry) geometry_atomics(acc, nd, sl, e, z, y0, x0);
#pragma unroll
  for (int c = 0; c < CH; ++c) {
    if (c >= acc.cc) break;
    const std::int64_t k = sl * acc.nch + acc.c0 + c;
    if (acc.sum) atomicAdd(acc.isum + k, e.s[c]);
    if (!FULL) continue;
    if (acc.minmax) {
      atomicMax(acc.imin + k, ~dkey(e.mn[c]));
      atomicMax(acc.imax + k, dkey(e.mx[c]));
    }
    if (acc.weighted) {
      double* w = acc.iwsum + k * nd;
      if (nd == 3) atomicAdd(w, e.s[c] * static_cast<double>(z));
      atomicAdd(w + nd - 2, e.wy[c] + e.s[c] * static_cast<double>(y0));
      atomicAdd(w + nd - 1, e.wx[c] + e.s[c] * static_cast<double>(x0));
    }
  }
}

template <class L>
__device__ __forceinline__ unsigned label_hash(L k) {
  const auto u = static_cast<unsigned long long>(k);
  return (static_cast<unsigned>(u) ^ static_cast<unsigned>(u >> 32)) * 2654435761u;
}

template <class L>
__device__ __forceinline__ L cas_key(L* p, L expect, L desired) {
  if constexpr (sizeof(L) == 4) {
    return static_cast<L>(atomicCAS(reinterpret_cast<int*>(p), static_cast<int>(expect), static_cast<int>(desired)));
  } else {
    return static_cast<L>(atomicCAS(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(expect),
                                    static_cast<unsigned long long>(desired)));
  }
}

/// One warp's table (pointers into its shared region). Keys: labels (0: empty).
template <class L, class T, int CH>
struct WTable {
  using Tr = ITraits<T>;
  L* key;
  unsigned *n, *ymin, *ymax, *xmin, *xmax, *ysum, *xsum;
  typename Tr::Sum* s;  // [c * kQS + i]
  typename Tr::Key *mn, *mx;
  double *wy, *wx;
  int q;

  __device__ void bind(unsigned char* base, const WarpLayout& lay) {
    key = reinterpret_cast<L*>(base + lay.key);
    unsigned* u = reinterpret_cast<unsigned*>(base + lay.u32);
    q = lay.q;
    n = u;
    ymin = u + kQS;
    ymax = u + 2 * kQS;
    xmin = u + 3 * kQS;
    xmax = u + 4 * kQS;
    ysum = u + 5 * kQS;
    xsum = u + 6 * kQS;
    s = lay.s >= 0 ? reinterpret_cast<typename Tr::Sum*>(base + lay.s) : nullptr;
    mn = lay.mn >= 0 ? reinterpret_cast<typename Tr::Key*>(base + lay.mn) : nullptr;
    mx = lay.mx >= 0 ? reinterpret_cast<typename Tr::Key*>(base + lay.mx) : nullptr;
    wy = lay.wy >= 0 ? reinterpret_cast<double*>(base + lay.wy) : nullptr;
    wx = lay.wx >= 0 ? reinterpret_cast<double*>(base + lay.wx) : nullptr;
  }

  __device__ void clear(int i, int cc) const {
    key[i] = L(0);
    n[i] = xmax[i] = ysum[i] = xsum[i] = 0;
    xmin[i] = 0xffffffffu;
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      if (c >= cc) break;
      if (s) s[c * kQS + i] = 0;
      if (mn) {
        mn[c * kQS + i] = ~typename Tr::Key(0);
        mx[c * kQS + i] = 0;
      }
      if (wy) wy[c * kQS + i] = wx[c * kQS + i] = 0;
    }
  }

  template <bool FULL>
  __device__ GEntry<CH> entry(int i, int cc) const {
    GEntry<CH> e;
    static_cast<Geom&>(e) = table_geom(*this, i);
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      const bool on = c < cc;
      e.s[c] = on && s ? static_cast<double>(s[c * kQS + i]) : 0.0;
      e.mn[c] = FULL && on && mn ? Tr::value(mn[c * kQS + i]) : 0.0;
      e.mx[c] = FULL && on && mx ? Tr::value(mx[c * kQS + i]) : 0.0;
      e.wy[c] = FULL && on && wy ? wy[c * kQS + i] : 0.0;
      e.wx[c] = FULL && on && wx ? wx[c * kQS + i] : 0.0;
    }
    return e;
  }
};

/// Loads V consecutive X with one or two 16-byte (or one 8- / 4-byte) streaming loads; `p` is
/// aligned to V * sizeof(X).
template <class X, int V>
__device__ __forceinline__ void load_vec(const X* p, X (&out)[V]) {
  constexpr int B = V * static_cast<int>(sizeof(X));
  if constexpr (B % 16 == 0) {
#pragma unroll
    for (int i = 0; i < B / 16; ++i) {
      const uint4 w = __ldcs(reinterpret_cast<const uint4*>(p) + i);
      memcpy(reinterpret_cast<unsigned char*>(out) + 16 * i, &w, 16);
    }
  } else if constexpr (B == 8) {
    const uint2 w = __ldcs(reinterpret_cast<const uint2*>(p));
    memcpy(out, &w, 8);
  } else {
    static_assert(B == 4, "load_vec: 4, 8 or a multiple of 16 bytes");
    const unsigned w = __ldcs(reinterpret_cast<const unsigned*>(p));
    memcpy(out, &w, 4);
  }
}

template <class L, class T, int V, int CH>
struct Seg {
  L l[V];
  T v[CH][V];
};

/// Blocks of 8 warps per SM that the register budget is held to (ptxas, sm_90, no spills): issue
/// 6's case (int32 labels, uint8 or no intensity, sum-only) 4 at V = 4 (64 registers), 3 at V = 8
/// (80); the other sum-only single-channel tables 3 (2 for uint16 at V = 8), the full ones of
/// int32 / uint8 3; the rest take what the compiler picks (up to 252 registers for 4 channels).
template <class L, class T, int V, int CH, bool FULL>
constexpr int kWarpMinBlocks =
    CH != 1                                           ? 1
    : FULL                                            ? (sizeof(L) == 4 && sizeof(T) == 1 ? 3 : 1)
    : (sizeof(L) == 4 && sizeof(T) == 1 && V == 4)    ? 4
    : (V == 8 && sizeof(T) == 2)                      ? 2
    : (sizeof(L) == 4 || sizeof(T) <= 2)              ? 3
                                                      : 1;

/// FULL: extremes and weighted sums as asked (runtime flags); else count, bbox, coordinate sums
/// and (cc <= 1) the intensity sum only: the registers of issue 6's table.
template <class L, class T, int V, int CH, bool FULL>
__global__ void __launch_bounds__(256, (kWarpMinBlocks<L, T, V, CH, FULL>)) pass1_warp_kernel(const L* __restrict__ lab, const T* __restrict__ inten,
                                                         StripGeo g, SlotMap map, Pass1Acc acc, WarpLayout lay,
                                                         Records rec) {
  using Tr = ITraits<T>;
  using Sum = typename Tr::Sum;
  using Val = typename Tr::Val;
  using SegT = Seg<L, T, V, CH>;
  CUSK_RP_DYN_SMEM(smem);
  const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
  WTable<L, T, CH> tb;
  tb.bind(smem + static_cast<std::size_t>(wib) * lay.stride, lay);
  const int q = lay.q, cc = acc.cc, nd = g.nd;
  const bool use_s = cc > 0 && (acc.sum || acc.weighted);
  const bool use_mm = FULL && cc > 0 && acc.minmax;
  const bool use_w = FULL && cc > 0 && acc.weighted;
  for (int i = lane; i < q; i += 32) tb.clear(i, cc);
  __syncwarp();

  const unsigned wstride = gridDim.x * (blockDim.x >> 5);
  unsigned st = blockIdx.x * (blockDim.x >> 5) + static_cast<unsigned>(wib);
  if (st >= static_cast<unsigned>(g.count)) return;

  // Row y of plane z from column x0: this lane's V pixels (xb: its first column, pix: its index).
  auto load = [&](SegT& sg, std::int64_t pix, int xb) {
    if (g.lab_vec && xb < g.nx) {  // nx % V == 0: the lane's V pixels are all inside
      load_vec<L, V>(lab + pix, sg.l);
    } else {
#pragma unroll
      for (int k = 0; k < V; ++k) sg.l[k] = xb + k < g.nx ? lab[pix + k] : L(0);
    }
    if (cc == 0) return;
    if (CH == 1 && g.int_vec && xb < g.nx) {
      load_vec<T, V>(inten + pix, sg.v[0]);
    } else {
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        if (c >= cc) break;
#pragma unroll
        for (int k = 0; k < V; ++k) sg.v[c][k] = xb + k < g.nx ? inten[(pix + k) * acc.nch + acc.c0 + c] : T(0);
      }
    }
  };

  // Adds run [xs, xe] of row r (strip-local) to the table; false when it finds no room. Each lane
  // keeps the entry of the last label it added (a region's runs in consecutive rows usually end
  // in the same lane): a repeat skips the probe.
  L last_key = L(0);
  int last_at = 0;
  auto insert = [&](L k, unsigned r, unsigned xs, unsigned xe, const Sum* s, const Sum* wx, const Val* mn,
                    const Val* mx) -> bool {
    const unsigned h = label_hash(k) >> (32 - lay.qbits);
    int at = k == last_key ? last_at : -1;
    bool claimed = false;
#pragma unroll 1
    for (int p = 0; p < kWarpProbes && at < 0; ++p) {
      const int i = static_cast<int>((h + p) & static_cast<unsigned>(q - 1));
      L cur = *reinterpret_cast<volatile L*>(tb.key + i);
      if (cur == L(0)) {
        cur = cas_key(tb.key + i, L(0), k);
        if (cur == L(0)) {
          at = i;
          claimed = true;
          break;
        }
      }
      if (cur == k) {
        at = i;
        break;
      }
    }
    if (at < 0) return false;
    last_key = k;
    last_at = at;
    const unsigned n = xe - xs + 1;
    if (claimed) tb.ymin[at] = r;  // the strip's rows come in order: the first add is the top row
    tb.ymax[at] = r;
    atomicAdd(tb.n + at, n);
    atomicMin(tb.xmin + at, xs);
    atomicMax(tb.xmax + at, xe);
    atomicAdd(tb.ysum + at, r * n);
    atomicAdd(tb.xsum + at, n * xs + n * (n - 1) / 2);
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      if (c >= cc) break;
      if (use_s) atomicAdd(tb.s + c * kQS + at, s[c]);
      if constexpr (FULL) {
        if (use_mm) {
          atomicMin(tb.mn + c * kQS + at, Tr::key(mn[c]));
          atomicMax(tb.mx + c * kQS + at, Tr::key(mx[c]));
        }
        if (use_w) {
          atomicAdd(tb.wy + c * kQS + at, static_cast<double>(s[c]) * static_cast<double>(r));
          atomicAdd(tb.wx + c * kQS + at, static_cast<double>(wx[c]));
        }
      }
    }
    return true;
  };

  // One row of the strip (r: strip-local row) into the table; true when a run found no room and
  // the records are now incomplete.
  auto segment = [&](const SegT& sg, int r, unsigned st) -> bool {
    const L lp = __shfl_up_sync(kFull, sg.l[V - 1], 1);
    unsigned hm = (lane == 0 || sg.l[0] != lp) ? 1u : 0u;
    unsigned fg = sg.l[0] > L(0) ? 1u : 0u;
#pragma unroll
    for (int k = 1; k < V; ++k) {
      hm |= (sg.l[k] != sg.l[k - 1] ? 1u : 0u) << k;
      fg |= (sg.l[k] > L(0) ? 1u : 0u) << k;
    }
    const unsigned b0 = __ballot_sync(kFull, hm & 1u);
    const bool ends = lane == 31 || ((b0 >> (lane + 1)) & 1u);  // the next lane starts a run
    unsigned em = ((hm >> 1) | (ends ? 1u << (V - 1) : 0u)) & fg;  // bit k: a foreground run ends at k
    if (!__any_sync(kFull, em != 0)) return false;
    const unsigned HM = __ballot_sync(kFull, hm != 0);  // bit 0 always set
    const int j = 31 - __clz(HM & (kFull >> (31 - lane)));  // lane where my last run starts
    const int lh = hm ? 31 - __clz(hm) : 0;                 // its first pixel in my lane
    const unsigned pos0 = static_cast<unsigned>(lane * V);

    // Run-local prefix sums over my pixels, restarting at each head (and at pixel 0): at pixel k
    // the sum of the run through k from its start in this lane. A run ending at e takes entry e
    // (plus the carry when it began in an earlier lane), my last run's partial is entry V - 1;
    // sums stay in pixel order (no differences: floats lose nothing). The FULL fields (weighted
    // sums, extremes) are folded over the run's pixels instead (fewer registers).
    Sum ps[CH][V];
#pragma unroll
    for (int c = 0; c < CH; ++c) {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const Sum v = c < cc ? static_cast<Sum>(sg.v[c][k]) : Sum(0);
        const bool fresh = k == 0 || ((hm >> k) & 1u);
        ps[c][k] = (fresh ? Sum(0) : ps[c][k - (k > 0)]) + v;
      }
    }
    // FULL: the weighted sum and extremes of pixels [a, b] of channel c, folded onto w, n, x.
    auto fold = [&](int c, int a, int b, Sum& w, Val& n, Val& x) {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        if (k < a || k > b) continue;
        const Val v = static_cast<Val>(sg.v[c][k]);
        if (use_w) w += static_cast<Sum>(v) * static_cast<Sum>(pos0 + k);
        if (use_mm) {
          n = Tr::vmin(n, v);
          x = Tr::vmax(x, v);
        }
      }
    };
    // Partials of my last run ([lh, V)), scanned over lanes j..lane.
    Sum ts[CH], tw[CH];
    Val tn[CH], tx[CH];
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      ts[c] = ps[c][V - 1];
      tw[c] = Sum(0);
      tn[c] = Tr::lo_id();
      tx[c] = Tr::hi_id();
      if (FULL && c < cc) fold(c, lh, V - 1, tw[c], tn[c], tx[c]);
    }
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
      const bool in = lane - d >= j;
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        if (c >= cc) break;
        if (use_s) {
          const Sum t = __shfl_up_sync(kFull, ts[c], d);
          if (in) ts[c] += t;
        }
        if constexpr (FULL) {
          if (use_w) {
            const Sum t = __shfl_up_sync(kFull, tw[c], d);
            if (in) tw[c] += t;
          }
          if (use_mm) {
            const Val a = __shfl_up_sync(kFull, tn[c], d), b = __shfl_up_sync(kFull, tx[c], d);
            if (in) {
              tn[c] = Tr::vmin(tn[c], a);
              tx[c] = Tr::vmax(tx[c], b);
            }
          }
        }
      }
    }
    // The carry into my first pixel: the previous lane's scanned partials.
    Sum cs[CH], cw[CH];
    Val cn[CH], cx[CH];
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      cs[c] = cw[c] = Sum(0);
      cn[c] = Tr::lo_id();
      cx[c] = Tr::hi_id();
      if (c >= cc) continue;
      if (use_s) cs[c] = __shfl_up_sync(kFull, ts[c], 1);
      if constexpr (FULL) {
        if (use_w) cw[c] = __shfl_up_sync(kFull, tw[c], 1);
        if (use_mm) {
          cn[c] = __shfl_up_sync(kFull, tn[c], 1);
          cx[c] = __shfl_up_sync(kFull, tx[c], 1);
        }
      }
    }
    const unsigned xs_tail = __shfl_sync(kFull, pos0 + static_cast<unsigned>(lh), j);
    const unsigned xs_prev = __shfl_up_sync(kFull, xs_tail, 1);

    bool failed = false;
    while (__any_sync(kFull, em != 0)) {
      if (em == 0) continue;
      const int e = __ffs(em) - 1;
      em &= em - 1;
      const unsigned hb = hm & ((2u << e) - 1u);  // heads at or before e
      const bool inl = hb != 0;                   // the run starts in this lane
      const int s0 = inl ? 31 - __clz(hb) : 0;
      // Entry e of the run-local prefix sums, and the label (the same compares pick both).
      L k = sg.l[0];
      Sum rs[CH], rw[CH];
      Val rn[CH], rx[CH];
#pragma unroll
      for (int c = 0; c < CH; ++c) rs[c] = ps[c][0];
#pragma unroll
      for (int kk = 1; kk < V; ++kk) {
        if (kk != e) continue;
        k = sg.l[kk];
#pragma unroll
        for (int c = 0; c < CH; ++c) rs[c] = ps[c][kk];
      }
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        if (!inl) rs[c] += cs[c];  // the run began in an earlier lane: add the carry
        rw[c] = inl ? Sum(0) : cw[c];
        rn[c] = inl ? Tr::lo_id() : cn[c];
        rx[c] = inl ? Tr::hi_id() : cx[c];
        if (FULL && c < cc) fold(c, s0, e, rw[c], rn[c], rx[c]);
      }
      const unsigned xs = inl ? pos0 + static_cast<unsigned>(s0) : xs_prev;
      const unsigned xe = pos0 + static_cast<unsigned>(e);
      if (insert(k, static_cast<unsigned>(r), xs, xe, rs, rw, rn, rx)) continue;
      if (rec.on) {
        failed = true;
        continue;
      }
      // No room: this run's own global atomics.
      const std::int64_t sl = map.slot(static_cast<std::int64_t>(k));
      if (sl < 0) continue;
      GEntry<CH> ge;
      ge.n = xe - xs + 1;
      ge.ymin = ge.ymax = static_cast<unsigned>(r);
      ge.xmin = xs;
      ge.xmax = xe;
      ge.ysum = static_cast<unsigned>(r) * ge.n;
      ge.xsum = ge.n * xs + ge.n * (ge.n - 1) / 2;
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        ge.s[c] = static_cast<double>(rs[c]);
        ge.mn[c] = static_cast<double>(rn[c]);
        ge.mx[c] = static_cast<double>(rx[c]);
        ge.wy[c] = static_cast<double>(rs[c]) * static_cast<double>(r);
        ge.wx[c] = static_cast<double>(rw[c]);
      }
      int z, y0, x0;
      strip_origin(g, st, z, y0, x0);
      global_entry<CH, FULL>(acc, nd, sl, ge, z, y0, x0);
    }
    return __any_sync(kFull, failed);
  };

  // The table's occupied entries to the global accumulators or to records, then cleared.
  auto flush = [&](unsigned s) {
    int z, y0, x0;
    strip_origin(g, s, z, y0, x0);
    last_key = L(0);  // the entries are cleared below
    if (!rec.on) {
      for (int i = lane; i < q; i += 32) {
        const L k = tb.key[i];
        if (k == L(0)) continue;
        const std::int64_t sl = map.slot(static_cast<std::int64_t>(k));
        if (sl >= 0) global_entry<CH, FULL>(acc, nd, sl, tb.template entry<FULL>(i, cc), z, y0, x0);
        tb.clear(i, cc);
      }
      return;
    }
    for (int i0 = 0; i0 < q; i0 += 32) {
      const int i = i0 + lane;
      const L k = tb.key[i];
      const bool occ = k != L(0);
      const unsigned m = __ballot_sync(kFull, occ);
      if (m == 0) continue;
      u64 base = 0;
      if (lane == 0) base = atomicAdd(rec.ctr, static_cast<u64>(__popc(m)));
      base = __shfl_sync(kFull, base, 0);
      if (!occ) continue;
      const u64 at = base + static_cast<u64>(__popc(m & ((1u << lane) - 1u)));
      if (at < static_cast<u64>(rec.cap)) {
        static_cast<L*>(rec.label)[at] = k;
        rec.strip[at] = static_cast<unsigned>(s);
        rec.n[at] = tb.n[i];
        rec.box[at] = tb.ymin[i] | (tb.ymax[i] << 8) | (tb.xmin[i] << 16) | (tb.xmax[i] << 24);
        rec.ysum[at] = tb.ysum[i];
        rec.xsum[at] = tb.xsum[i];
        const GEntry<CH> e = tb.template entry<FULL>(i, cc);
#pragma unroll
        for (int c = 0; c < CH; ++c) {
          if (c >= cc) break;
          const std::int64_t o = c * rec.cap + static_cast<std::int64_t>(at);
          if (rec.s) rec.s[o] = e.s[c];
          if (FULL && rec.mn) {
            rec.mn[o] = e.mn[c];
            rec.mx[o] = e.mx[c];
          }
          if (FULL && rec.wy) {
            rec.wy[o] = e.wy[c];
            rec.wx[o] = e.wx[c];
          }
        }
      }
      tb.clear(i, cc);
    }
  };

  // One flat walk over (strip, row): the next row's loads (the next strip's first row at a
  // strip's end) are issued before the current row is processed and the table flushed.
  auto first_pixel = [&](unsigned s, int& rows) {
    int z, y0, x0;
    strip_origin(g, s, z, y0, x0);
    rows = min(g.th, g.ny - y0);
    return (static_cast<std::int64_t>(z) * g.ny + y0) * g.nx + x0 + lane * V;
  };
  auto column = [&](unsigned s) { return static_cast<int>(s % static_cast<unsigned>(g.tx)) * g.tw + lane * V; };
  int rows;
  std::int64_t pix = first_pixel(st, rows);
  int xb = column(st);
  SegT cur;
  load(cur, pix, xb);
  int r = 0;
  L lmax = L(0);
  // Another warp's overflow, read once per strip and made warp-uniform (lanes may read the flag
  // before and after it is set).
  auto overflowed = [&] { return __any_sync(kFull, *reinterpret_cast<volatile u64*>(rec.ctr + 1) != 0) != 0; };
  bool dead = rec.on && overflowed();
  for (;;) {
    unsigned st2 = st;
    int rows2 = rows, r2 = r + 1, xb2 = xb;
    std::int64_t pix2 = pix + g.nx;
    if (r2 >= rows) {
      st2 = st + wstride;
      r2 = 0;
      if (st2 < static_cast<unsigned>(g.count)) {
        pix2 = first_pixel(st2, rows2);
        xb2 = column(st2);
      }
    }
    const bool more = st2 < static_cast<unsigned>(g.count);
    SegT nxt;
    if (more) load(nxt, pix2, xb2);
    if (rec.on) {
#pragma unroll
      for (int k = 0; k < V; ++k) lmax = max(lmax, cur.l[k]);
    }
    if (!dead && segment(cur, r, st)) {
      dead = true;
      if (lane == 0) atomicExch(rec.ctr + 1, 1ull);
    }
    if (r2 == 0) {  // strip st is done
      __syncwarp();
      if (!dead) flush(st);
      __syncwarp();
      if (rec.on && !dead) dead = overflowed();
    }
    if (!more) break;
    cur = nxt;
    st = st2;
    rows = rows2;
    r = r2;
    pix = pix2;
    xb = xb2;
  }
  if (rec.on) {
    long long m = static_cast<long long>(lmax);
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_xor_sync(kFull, m, o));
    if (lane == 0 && m > 0) atomicMax(reinterpret_cast<long long*>(rec.ctr + 2), m);
  }
}

/// Fused-max mode, after the slots are known: each record's global atomics.
template <class L, int CH>
__global__ void __launch_bounds__(256) records_kernel(Records rec, std::int64_t nrec, StripGeo g, SlotMap map,
                                                      Pass1Acc acc) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < nrec;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t sl = map.slot(static_cast<std::int64_t>(static_cast<const L*>(rec.label)[i]));
    if (sl < 0) continue;
    int z, y0, x0;
    strip_origin(g, rec.strip[i], z, y0, x0);
    GEntry<CH> e;
    e.n = rec.n[i];
    const unsigned box = rec.box[i];
    e.ymin = box & 255u;
    e.ymax = (box >> 8) & 255u;
    e.xmin = (box >> 16) & 255u;
    e.xmax = box >> 24;
    e.ysum = rec.ysum[i];
    e.xsum = rec.xsum[i];
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      const bool on = c < acc.cc;
      const std::int64_t o = c * rec.cap + i;
      e.s[c] = on && rec.s ? rec.s[o] : 0.0;
      e.mn[c] = on && rec.mn ? rec.mn[o] : 0.0;
      e.mx[c] = on && rec.mx ? rec.mx[o] : 0.0;
      e.wy[c] = on && rec.wy ? rec.wy[o] : 0.0;
      e.wx[c] = on && rec.wx ? rec.wx[o] : 0.0;
    }
    global_entry<CH>(acc, g.nd, sl, e, z, y0, x0);
  }
}

template <class L>
__global__ void widen_kernel(const L* __restrict__ in, std::int64_t n, std::int64_t* __restrict__ out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = static_cast<std::int64_t>(in[i]);
}

/// The shared-memory layout of one warp of pass1_warp_kernel: q entries used of kQS per field.
WarpLayout warp_layout(int q, std::size_t lsize, std::size_t sum_size, std::size_t key_size, const Pass1Acc& a) {
  WarpLayout w{};
  int bytes = 0;
  auto take = [&](std::size_t b) {
    const int at = bytes;
    bytes += static_cast<int>((b + 15) / 16 * 16);
    return at;
  };
  const std::size_t per = static_cast<std::size_t>(std::max(a.cc, 0)) * kQS;
  const bool full = a.minmax || a.weighted;
  w.wy = full && a.weighted && a.cc > 0 ? take(per * 8) : -1;
  w.wx = full && a.weighted && a.cc > 0 ? take(per * 8) : -1;
  w.s = (a.sum || a.weighted) && a.cc > 0 ? take(per * sum_size) : -1;
  w.mn = full && a.minmax && a.cc > 0 ? take(per * key_size) : -1;
  w.mx = full && a.minmax && a.cc > 0 ? take(per * key_size) : -1;
  w.key = take(static_cast<std::size_t>(q) * lsize);
  w.u32 = take(7 * static_cast<std::size_t>(kQS) * sizeof(unsigned));
  w.stride = bytes;
  w.q = q;
  w.qbits = 0;
  while ((1 << w.qbits) < q) ++w.qbits;
  return w;
}

/// Strip geometry of an nz x ny x nx label image for V pixels per lane (th 0: 32 rows, halved
/// down to 4 while the image has fewer than 8192 strips); count 0 past 32-bit axes or strips.
/// The caller sets lab_vec / int_vec.
StripGeo make_strip_geo(int nd, std::int64_t nz, std::int64_t ny, std::int64_t nx, int v, int th) {
  StripGeo g{};
  constexpr std::int64_t kAxis = (std::int64_t(1) << 31) - 1024;
  if (nz >= kAxis || ny >= kAxis || nx >= kAxis || nz * ny * nx == 0) return g;
  const int tw = 32 * v;
  const std::int64_t tx = (nx + tw - 1) / tw;
  auto count = [&](int h) { return nz * ((ny + h - 1) / h) * tx; };
  if (th <= 0) {
    th = 32;
    while (th > 4 && count(th) < 8192) th /= 2;
  }
  th = std::clamp(th, 1, kMaxStripPixels / tw);
  if (count(th) >= (std::int64_t(1) << 31)) return g;
  g.nd = nd;
  g.nz = static_cast<int>(nz);
  g.ny = static_cast<int>(ny);
  g.nx = static_cast<int>(nx);
  g.tw = tw;
  g.th = th;
  g.tx = static_cast<int>(tx);
  g.ty = static_cast<int>((ny + th - 1) / th);
  g.count = static_cast<int>(count(th));
  return g;
}

/// Table entries per warp: a power of 2 in [32, 128], TH * TW / 64 unless asked (<= 41 labels
/// met a 32 x 128 strip of the 8192^2 blobs).
int warp_q(const StripGeo& g, int q) {
  if (q <= 0) q = g.th * g.tw / 64;
  int p = 32;
  while (p < q && p < 128) p *= 2;
  return p;
}
