// regionprops pass 1, warp strips: the strip geometry, the per-warp hash table in shared memory and
// the global accumulation of its entries (the kernel is in regionprops_warp_kernel.cuh).
//
// A FRAGMENT like kernels/measure/regionprops_warp.cuh, which includes it inside the includer's
// namespace (no includes of its own).
#pragma once

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
