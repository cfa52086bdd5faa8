// Grey erosion / dilation by a flat footprint whose rows are nested runs: the "row chain" kernel
// (kernels/morphology/row_chain.cu launches it). This header holds the plan (built on the host
// from the footprint's runs) and the per-warp body, written once for the device and for a host
// emulation of a warp (tests/morphology/test_fastpaths.cpp runs it on the CPU tier).
//
// Footprints taken: 1-3-D, every row (dz, dy) one run [lo, hi] with lo <= 0 <= hi, |dy| <= 15, at
// most 31 planes, and per plane the rows visited in the order dy = +H, -H, +(H-1), ..., 0 (the
// smaller run of each +d/-d pair first) have non-decreasing nested runs. Disk, ellipse, diamond,
// octagon, rectangle, star, ball planes and their even (padded) and mirrored forms qualify; a
// footprint that does not keeps the sparse-table kernel (rows2d.cu).
//
// erosion(z, y, x) = min over planes dz, rows dy of G_{dz,dy}(z + dz, y + dy, x), where
// G_{dz,dy}(row)(x) = min(row[x + lo .. x + hi]). A warp owns a strip of columns (32 lanes x P
// pixels; the outer hg lanes of each side are halo) and a segment of output rows of one plane; it
// streams the input rows down the strip, M = 4 rows at a time. For each input row (and each plane)
// the row's values are grown in registers from the run [0, 0] to each row's run in turn by unit
// steps -- a symmetric step x -> min(x - 1, x, x + 1) is one 3-input min per word (VIMNMX3.U16x2
// on sm_90), a one-sided step a 2-input min, the pixels across the lane's edges coming from the
// neighbour lanes by one shuffle each -- and each time the value reaches a row's run it is min-ed
// into the accumulator of the output row that footprint row belongs to: a register ring of
// 2*HMAX + M output rows in flight, so every index is a compile-time constant. The chain visits
// the levels d = HMAX .. 0 (rows +d and -d) in a fixed, unrolled order; per level the plan gives
// the step counts and which of the two rows to update, so any footprint of the family runs the
// same code. An output row leaves the ring (is stored) once the input row y + HMAX has been added.
// The M rows of a block share the per-level control and interleave their shuffles (latency); M
// rows with 2 words per lane, not one row with 4 words, keeps the ring within the registers (a
// 4-word ring for HMAX 10 needs 96 registers of its own and spilled).
//
// Cost per input row and lane of 4 pixels (2 words): per unit step 2 VIMNMX3 + 2 SHFL + 2 PRMT,
// per footprint row 2 VIMNMX, plus the level control (~10 per level and block of M rows), the
// ring's shift (2 moves per slot every M rows) and the load/unpack/store. No shared memory.
//
// Packing: uint8 (and bool) samples sit in the high bytes of the two 16-bit halves of a word (the
// low bytes hold don't-care bits: the high byte of a 16-bit min/max is the min/max of the high
// bytes), uint16 samples fill the halves, int32 one sample per word. Word i of a lane holds its
// pixels i and i + 2, so a shift by one pixel is the other word except at the two seams (one PRMT
// each). __vminu4 (8-bit lanes) is a 6-instruction emulation on sm_90 (LOP3/SHF/IADD/PRMT);
// __vminu2 and its 3-input fusion are native.
//
// Boundary handling is scipy's per-axis index map (map32: map_index in 32-bit arithmetic): rows
// and planes map as a whole (one compare when inside the image), each lane's columns once at the
// warp's start (edge lanes then gather through them), so every mode sees the CPU backend's taps.
// (The first version mapped every column of the edge lanes per row with the 64-bit map_index, a
// 64-bit remainder subroutine per pixel under reflect: the two edge strips' warps ran several times
// longer than the others, and the kernel, one wave of warps, waited for them.)
// Integer min/max are order-free, so the result equals the CPU backend's bit for bit; floats keep
// the sparse-table kernel (their tie and NaN rules follow the tap order).
#pragma once

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "src/core/hd.hpp"
#include "src/morphology/morph_ops.hpp"
#include "src/ndimage/boundary.hpp"

#if defined(__CUDA_ARCH__)
#define CUSK_CHAIN_NO_UNROLL _Pragma("unroll 1")
#else
#define CUSK_CHAIN_NO_UNROLL
#endif

namespace cuskimage::morphology::detail::chain {

constexpr int kMaxPlanes = 31;
constexpr int kMaxH = 15;      // largest |dy|
constexpr int kMaxSteps = 63;  // largest horizontal half extent (6-bit step counts)
constexpr int kWarpsPerBlock = 4;
constexpr int kBlockRows = 4;  // M: input rows that go through the chain together

struct Geom {
  std::int64_t nz, ny, nx;
};

/// One (plane, level d) of the chain, packed in 32 bits: two moves, each `sym` symmetric unit steps
/// then |one| one-sided steps (one > 0: rightwards, hi += 1 each; one < 0: leftwards), then
/// min-updates of the rows dy = +d and/or dy = -d. Bits 0-5 sym0, 6-12 one0 (7-bit two's
/// complement), 13-18 sym1, 19-25 one1, 26/27 move 0 updates +d/-d, 28/29 move 1 updates +d/-d.
struct Level {
  static constexpr std::uint32_t kUp0 = 1u << 26, kUm0 = 1u << 27, kUp1 = 1u << 28, kUm1 = 1u << 29;
  CUSK_HD static int sym(std::uint32_t w, int k) { return static_cast<int>((w >> (k ? 13 : 0)) & 63u); }
  CUSK_HD static int one(std::uint32_t w, int k) {
    const int v = static_cast<int>((w >> (k ? 19 : 6)) & 127u);
    return v >= 64 ? v - 128 : v;
  }
  static std::uint32_t pack(int sym0, int one0, int sym1, int one1) {
    return static_cast<std::uint32_t>(sym0) | (static_cast<std::uint32_t>(one0 & 127) << 6) |
           (static_cast<std::uint32_t>(sym1) << 13) | (static_cast<std::uint32_t>(one1 & 127) << 19);
  }
};

/// Everything a launch needs besides the pointers (a kernel parameter: < 2.1 KB for HMAX = 15).
template <int HMAX>
struct Plan {
  int npl;             // planes with a run
  int sym;             // every level: symmetric steps only, and rows +d, -d both or neither
  int dy_min, dy_max;  // over every plane's rows
  int hg;              // halo groups (lanes) on each side of a warp's strip
  std::int64_t strips, segs, seg_rows;
  std::int8_t dz[kMaxPlanes];
  std::uint32_t lv[kMaxPlanes][HMAX + 1];
};

// ---- word operations (device intrinsics, exact host twins for the emulation) ----------------------

CUSK_HD std::uint32_t bperm(std::uint32_t a, std::uint32_t b, std::uint32_t s) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(a, b, s);
#else
  const std::uint64_t x = static_cast<std::uint64_t>(a) | (static_cast<std::uint64_t>(b) << 32);
  std::uint32_t r = 0;
  for (int k = 0; k < 4; ++k) r |= static_cast<std::uint32_t>((x >> (8 * ((s >> (4 * k)) & 7u))) & 0xFFu) << (8 * k);
  return r;
#endif
}

template <bool Max>
CUSK_HD std::uint32_t op2_u16x2(std::uint32_t a, std::uint32_t b) {
#if defined(__CUDA_ARCH__)
  if constexpr (Max) return __vmaxu2(a, b);
  else return __vminu2(a, b);
#else
  std::uint32_t r = 0;
  for (int h = 0; h < 2; ++h) {
    const std::uint32_t x = (a >> (16 * h)) & 0xFFFFu, y = (b >> (16 * h)) & 0xFFFFu;
    r |= (Max ? (x > y ? x : y) : (x < y ? x : y)) << (16 * h);
  }
  return r;
#endif
}

/// Lane policy per sample type: L samples per word, NR = 2 words per lane and row, RAWW raw 32-bit
/// words holding the lane's P = L * NR samples as they lie in memory. With L = 2 word i holds the
/// lane's samples i and i + NR; int32 words are the samples in order.
template <class T>
struct Lanes;

/// What the two 16-bit-lane policies (uint8 and uint16 samples) share: two samples per 32-bit
/// word in its 16-bit halves, combined with the paired min / max.
struct U16x2Lanes {
  static constexpr int L = 2, NR = 2, P = 4;
  using W = std::uint32_t;
  template <bool Max>
  CUSK_HD static W op(W a, W b) { return op2_u16x2<Max>(a, b); }
  template <bool Max>
  CUSK_HD static W op3(W a, W b, W c) { return op2_u16x2<Max>(op2_u16x2<Max>(a, b), c); }
  template <bool Max>
  CUSK_HD static W identity() { return Max ? 0u : 0xFFFFFFFFu; }
};

template <>
struct Lanes<std::uint8_t> : U16x2Lanes {
  static constexpr int RAWW = 1;
  CUSK_HD static std::uint32_t splat_raw(std::uint8_t v) { return 0x01010101u * v; }
  CUSK_HD static void put(std::uint32_t (&raw)[RAWW], int j, std::uint8_t v) {
    raw[0] |= static_cast<std::uint32_t>(v) << (8 * j);
  }
  CUSK_HD static std::uint8_t get(const std::uint32_t (&raw)[RAWW], int j) {
    return static_cast<std::uint8_t>(raw[0] >> (8 * j));
  }
  // Samples in the high bytes of the 16-bit halves: word 0 = (s0, s2), word 1 = (s1, s3).
  CUSK_HD static void unpack(const std::uint32_t (&raw)[RAWW], W (&r)[NR]) {
    r[0] = bperm(raw[0], 0u, 0x2200u);
    r[1] = bperm(raw[0], 0u, 0x3311u);
  }
  CUSK_HD static void pack(const W (&r)[NR], std::uint32_t (&raw)[RAWW]) { raw[0] = bperm(r[0], r[1], 0x7351u); }
};

template <>
struct Lanes<std::uint16_t> : U16x2Lanes {
  static constexpr int RAWW = 2;
  CUSK_HD static std::uint32_t splat_raw(std::uint16_t v) { return 0x00010001u * v; }
  CUSK_HD static void put(std::uint32_t (&raw)[RAWW], int j, std::uint16_t v) {
    raw[j >> 1] |= static_cast<std::uint32_t>(v) << (16 * (j & 1));
  }
  CUSK_HD static std::uint16_t get(const std::uint32_t (&raw)[RAWW], int j) {
    return static_cast<std::uint16_t>(raw[j >> 1] >> (16 * (j & 1)));
  }
  // Word 0 = (s0, s2), word 1 = (s1, s3) in the low / high halves.
  CUSK_HD static void unpack(const std::uint32_t (&raw)[RAWW], W (&r)[NR]) {
    r[0] = bperm(raw[0], raw[1], 0x5410u);
    r[1] = bperm(raw[0], raw[1], 0x7632u);
  }
  CUSK_HD static void pack(const W (&r)[NR], std::uint32_t (&raw)[RAWW]) {
    raw[0] = bperm(r[0], r[1], 0x5410u);
    raw[1] = bperm(r[0], r[1], 0x7632u);
  }
};

template <>
struct Lanes<std::int32_t> {
  static constexpr int L = 1, NR = 2, P = 2, RAWW = 2;
  using W = std::int32_t;
  template <bool Max>
  CUSK_HD static W op(W a, W b) {
    if constexpr (Max) return a > b ? a : b;
    else return a < b ? a : b;
  }
  template <bool Max>
  CUSK_HD static W op3(W a, W b, W c) { return op<Max>(op<Max>(a, b), c); }
  template <bool Max>
  CUSK_HD static W identity() { return Max ? INT_MIN : INT_MAX; }
  CUSK_HD static std::uint32_t splat_raw(std::int32_t v) { return static_cast<std::uint32_t>(v); }
  CUSK_HD static void put(std::uint32_t (&raw)[RAWW], int j, std::int32_t v) { raw[j] = static_cast<std::uint32_t>(v); }
  CUSK_HD static std::int32_t get(const std::uint32_t (&raw)[RAWW], int j) { return static_cast<std::int32_t>(raw[j]); }
  CUSK_HD static void unpack(const std::uint32_t (&raw)[RAWW], W (&r)[NR]) {
    r[0] = static_cast<std::int32_t>(raw[0]);
    r[1] = static_cast<std::int32_t>(raw[1]);
  }
  CUSK_HD static void pack(const W (&r)[NR], std::uint32_t (&raw)[RAWW]) {
    raw[0] = static_cast<std::uint32_t>(r[0]);
    raw[1] = static_cast<std::uint32_t>(r[1]);
  }
};

/// Left neighbour's view of word 0 (pixels shifted right by one: lane pixel j sees pixel j - 1)
/// from `left_last` (the left lane's word NR - 1) and this lane's word NR - 1; the right
/// neighbour's view of word NR - 1 from this lane's word 0 and `right_first` (the right lane's
/// word 0). Other words shift by reindexing.
template <class Ln>
CUSK_HD typename Ln::W seam_left(typename Ln::W left_last, typename Ln::W own_last) {
  if constexpr (Ln::L == 2) return bperm(left_last, own_last, 0x5432u);
  else return left_last;
}
template <class Ln>
CUSK_HD typename Ln::W seam_right(typename Ln::W own_first, typename Ln::W right_first) {
  if constexpr (Ln::L == 2) return bperm(own_first, right_first, 0x5432u);
  else return right_first;
}

// ---- raw row I/O --------------------------------------------------------------------------------

template <int RAWW>
CUSK_HD void load_vec(const void* p, std::uint32_t (&raw)[RAWW]) {
#if defined(__CUDA_ARCH__)
  if constexpr (RAWW == 4) {
    const uint4 v = __ldg(static_cast<const uint4*>(p));
    raw[0] = v.x, raw[1] = v.y, raw[2] = v.z, raw[3] = v.w;
  } else if constexpr (RAWW == 2) {
    const uint2 v = __ldg(static_cast<const uint2*>(p));
    raw[0] = v.x, raw[1] = v.y;
  } else {
    raw[0] = __ldg(static_cast<const unsigned*>(p));
  }
#else
  for (int k = 0; k < RAWW; ++k) raw[k] = static_cast<const std::uint32_t*>(p)[k];
#endif
}

template <int RAWW>
CUSK_HD void store_vec(void* p, const std::uint32_t (&raw)[RAWW]) {
#if defined(__CUDA_ARCH__)
  if constexpr (RAWW == 4) *static_cast<uint4*>(p) = make_uint4(raw[0], raw[1], raw[2], raw[3]);
  else if constexpr (RAWW == 2) *static_cast<uint2*>(p) = make_uint2(raw[0], raw[1]);
  else *static_cast<unsigned*>(p) = raw[0];
#else
  for (int k = 0; k < RAWW; ++k) static_cast<std::uint32_t*>(p)[k] = raw[k];
#endif
}

/// scipy's index map (ndimage::detail::map_index) in 32-bit arithmetic: `n` in [1, 2^30) and `i` within
/// a few hundred of [0, n) (prepare_plan's limits), so 2n and every intermediate fit an int. The
/// in-range test comes first; the rest runs for the image's edge rows, planes and columns only.
CUSK_HD int map32(int i, int n, ndimage::Mode mode) {
  if (static_cast<unsigned>(i) < static_cast<unsigned>(n)) return i;
  if (mode == ndimage::Mode::constant) return -1;
  if (mode == ndimage::Mode::nearest) return i < 0 ? 0 : n - 1;
  if (mode == ndimage::Mode::wrap) {
    const int m = i % n;
    return m < 0 ? m + n : m;
  }
  if (mode == ndimage::Mode::mirror && n == 1) return 0;
  const int p = mode == ndimage::Mode::mirror ? 2 * n - 2 : 2 * n;  // reflect: period 2n, mirror 2n - 2
  int m = i % p;
  if (m < 0) m += p;
  if (m < n) return m;
  return mode == ndimage::Mode::mirror ? p - m : p - 1 - m;
}

/// The lane's P samples of each of M input rows (`rows[m]` = the row's first sample; `inside[m]`
/// false: the row lies outside under 'constant', every sample cval): in place for a vector lane,
/// else gathered through the lane's mapped columns `cx` (-1: outside under 'constant'), fixed for
/// the warp. The gather issues all M x P loads before it packs any (one memory latency per block
/// of rows, not one per row or per sample: the edge strips' warps keep pace with the others).
template <class T, class Ln, int M>
CUSK_HD void fetch_rows(const T* const (&rows)[M], const bool (&inside)[M], bool vec, int x, const int (&cx)[Ln::P],
                        T cval, std::uint32_t (&raw)[M][Ln::RAWW]) {
  if (vec) {
    CUSK_UNROLL
    for (int m = 0; m < M; ++m) {
      if (inside[m]) {
        load_vec<Ln::RAWW>(rows[m] + x, raw[m]);
      } else {
        CUSK_UNROLL
        for (int k = 0; k < Ln::RAWW; ++k) raw[m][k] = Ln::splat_raw(cval);
      }
    }
    return;
  }
  T t[M][Ln::P];
  CUSK_UNROLL
  for (int m = 0; m < M; ++m)
    CUSK_UNROLL
    for (int j = 0; j < Ln::P; ++j) t[m][j] = inside[m] && cx[j] >= 0 ? rows[m][cx[j]] : cval;
  CUSK_UNROLL
  for (int m = 0; m < M; ++m) {
    CUSK_UNROLL
    for (int k = 0; k < Ln::RAWW; ++k) raw[m][k] = 0;
    CUSK_UNROLL
    for (int j = 0; j < Ln::P; ++j) Ln::put(raw[m], j, t[m][j]);
  }
}

// ---- the per-warp body ----------------------------------------------------------------------------

/// The words a lane's row sees across its left and right edges (`sl`, `sr`), from the neighbour
/// lanes' words (one shuffle each way).
template <class Ln, class X>
CUSK_HD void seams(const typename Ln::W (&r)[Ln::NR], X& xchg, typename Ln::W& sl, typename Ln::W& sr) {
  const typename Ln::W ll = xchg.up(r[Ln::NR - 1]), rf = xchg.down(r[0]);
  sl = seam_left<Ln>(ll, r[Ln::NR - 1]);
  sr = seam_right<Ln>(r[0], rf);
}

/// One unit step of M rows' values: each word becomes f(left, word, right) of its neighbours in the
/// row, the pixels across the lane's edges from the neighbour lanes.
template <class Ln, int M, class X, class F>
CUSK_HD void step_rows(typename Ln::W (&v)[M][Ln::NR], X& xchg, F f) {
  using W = typename Ln::W;
  constexpr int NR = Ln::NR;
  CUSK_UNROLL
  for (int m = 0; m < M; ++m) {
    W sl, sr;
    seams<Ln>(v[m], xchg, sl, sr);
    W n[NR];
    CUSK_UNROLL
    for (int i = 0; i < NR; ++i) n[i] = f(i == 0 ? sl : v[m][i - 1], v[m][i], i == NR - 1 ? sr : v[m][i + 1]);
    CUSK_UNROLL
    for (int i = 0; i < NR; ++i) v[m][i] = n[i];
  }
}

/// A symmetric unit step (x -> op(x - 1, x, x + 1)).
template <class Ln, bool Max, int M, class X>
CUSK_HD void sym_step_rows(typename Ln::W (&v)[M][Ln::NR], X& xchg) {
  using W = typename Ln::W;
  step_rows<Ln, M>(v, xchg, [](W l, W c, W r) { return Ln::template op3<Max>(l, c, r); });
}

/// A one-sided unit step (asymmetric footprints only): rightwards (hi + 1: op(x, x + 1)) or
/// leftwards (lo - 1: op(x - 1, x)).
template <class Ln, bool Max, int M, class X>
CUSK_HD void one_step_rows(typename Ln::W (&v)[M][Ln::NR], bool right, X& xchg) {
  using W = typename Ln::W;
  step_rows<Ln, M>(v, xchg,
                   [right](W l, W c, W r) { return right ? Ln::template op<Max>(c, r) : Ln::template op<Max>(l, c); });
}

/// Stores the lane's P samples of one output row (`orow`: the row's first sample) from its ring
/// words `w`: one vector store where the rows allow, else sample by sample up to the image's edge.
template <class T, class Ln>
CUSK_HD void store_row(T* orow, int x, int nx, bool vec_ok, const typename Ln::W (&w)[Ln::NR]) {
  std::uint32_t raw[Ln::RAWW];
  Ln::pack(w, raw);
  if (vec_ok && x + Ln::P <= nx) {
    store_vec<Ln::RAWW>(orow + x, raw);
  } else {
    for (int j = 0; j < Ln::P; ++j)
      if (x + j < nx) orow[x + j] = Ln::get(raw, j);
  }
}

/// One warp's work item `warp_id` (strip, row segment, plane); `lane` in [0, 32). `xchg.up(v)`
/// returns v of lane - 1 and `xchg.down(v)` v of lane + 1 (any value at the warp's ends); every
/// lane of the warp must make the same calls. M input rows go through the chain together (they
/// share its per-level control and interleave their shuffles); the ring holds R + M - 1 rows and
/// shifts by M once per M input rows. `Multi`: the footprint may have several planes (else plane 0
/// only: the plan's level words are then constant-bank operands and the plane loop disappears).
///
/// Code layout (the instruction cache holds the loop): the boundary maps are hoisted or 32-bit and
/// off the common path -- the lane's columns are mapped once (a lane inside the image loads its
/// P samples as one vector, an edge lane gathers through its mapped columns), a row or plane index
/// inside the image costs one compare -- there is one fetch site in the loop, and each level's
/// step loop is rolled (one copy of the step per level).
template <class T, bool Max, int HMAX, int M, bool Sym, bool Multi, class X>
CUSK_HD void chain_warp(const T* __restrict__ in, T* __restrict__ out, const Geom& g, ndimage::Mode mode, T cval,
                        const Plan<HMAX>& plan, bool vec_ok, std::int64_t warp_id, int lane, X& xchg) {
  using Ln = Lanes<T>;
  using W = typename Ln::W;
  constexpr int NR = Ln::NR, P = Ln::P, R = 2 * HMAX + 1, NS = R + M - 1;
  static_assert(M >= 1 && M <= R);

  const std::int64_t strip = warp_id % plan.strips, rest = warp_id / plan.strips;
  const std::int64_t seg = rest % plan.segs, z = rest / plan.segs;
  if (z >= g.nz) return;  // whole warp
  // Rows, columns and planes are below 2^30 (prepare_plan): 32-bit row and column arithmetic.
  const int hg = plan.hg, nx = static_cast<int>(g.nx), ny = static_cast<int>(g.ny), nz = static_cast<int>(g.nz);
  const int x = static_cast<int>(strip) * ((32 - 2 * hg) * P) + (lane - hg) * P;
  const bool out_lane = lane >= hg && lane < 32 - hg && x < nx;
  const int ys = static_cast<int>(seg * plan.seg_rows);
  const int ye = ys + static_cast<int>(plan.seg_rows) < ny ? ys + static_cast<int>(plan.seg_rows) : ny;  // [ys, ye)
  if (ys >= ye) return;

  // The lane's columns, mapped once: a lane wholly inside the image (and aligned) loads in place.
  const bool vec = vec_ok && x >= 0 && x + P <= nx;
  int cx[P];
  CUSK_UNROLL
  for (int j = 0; j < P; ++j) cx[j] = map32(x + j, nx, mode);
  const std::int64_t plane_size = g.ny * g.nx;

  // During the block of input rows r0 .. r0 + M - 1, ring slot s holds output row
  // r0 + HMAX + M - 1 - s: row r0 + m adds its footprint row dy to slot dy + HMAX + M - 1 - m.
  W acc[NS][NR];
  CUSK_UNROLL
  for (int s = 0; s < NS; ++s)
    CUSK_UNROLL
    for (int i = 0; i < NR; ++i) acc[s][i] = Ln::template identity<Max>();

  // Input rows from r_first on contribute to the segment's outputs; the ring runs on to
  // r_end = ye - 1 + HMAX, where the last output row leaves it. Rows past ye - 1 + dy_max (footprints
  // shorter than the ring) go through the chain too: they feed only output rows >= ye, which are
  // never stored, and the loop body keeps no branch around the chain. Every row read is mapped
  // (at most ny - 1 + HMAX + 2M - 1, within map32's range).
  const int r_first = ys + plan.dy_min, r_end = ye - 1 + HMAX;
  const int npl = Multi ? plan.npl : 1;

  // One-ahead prefetch of the next (row block, plane) into registers.
  std::uint32_t nxt[M][Ln::RAWW];
  const int zz0 = map32(static_cast<int>(z) + plan.dz[0], nz, mode);  // the plane of a single-plane footprint
  auto fetch_block = [&](int r, int p) {
    const int zz = Multi ? map32(static_cast<int>(z) + plan.dz[p], nz, mode) : zz0;
    const T* base = in + (zz < 0 ? 0 : zz) * plane_size;
    const T* rows[M];
    bool inside[M];
    CUSK_UNROLL
    for (int m = 0; m < M; ++m) {
      const int yy = map32(r + m, ny, mode);
      rows[m] = base + static_cast<std::int64_t>(yy < 0 ? 0 : yy) * nx;
      inside[m] = zz >= 0 && yy >= 0;
    }
    fetch_rows<T, Ln, M>(rows, inside, vec, x, cx, cval, nxt);
  };
  fetch_block(r_first, 0);

  for (int r0 = r_first; r0 <= r_end; r0 += M) {
    // Outputs r0 + m + HMAX enter the ring.
    CUSK_UNROLL
    for (int m = 0; m < M; ++m)
      CUSK_UNROLL
      for (int i = 0; i < NR; ++i) acc[M - 1 - m][i] = Ln::template identity<Max>();
    {
      CUSK_CHAIN_NO_UNROLL
      for (int p = 0; p < npl; ++p) {
        W v[M][NR];
        CUSK_UNROLL
        for (int m = 0; m < M; ++m) Ln::unpack(nxt[m], v[m]);
        {  // the next (row block, plane): one fetch site
          int nr = r0, np = p + 1;
          if (np == npl) np = 0, nr = r0 + M;
          fetch_block(nr, np);  // past r_end on the last pass: read, unused
        }

        auto sym_step = [&] { sym_step_rows<Ln, Max, M>(v, xchg); };
        auto one_step = [&](bool right) { one_step_rows<Ln, Max, M>(v, right, xchg); };
        auto move = [&](std::uint32_t w, int k) {
          const int ns = Level::sym(w, k), no = Level::one(w, k);
          CUSK_CHAIN_NO_UNROLL
          for (int t = 0; t < ns; ++t) sym_step();
          // |no| one-sided steps, rightwards when no > 0 (one loop: the direction is uniform).
          const bool right = no > 0;
          const int cnt = right ? no : -no;
          CUSK_CHAIN_NO_UNROLL
          for (int t = 0; t < cnt; ++t) one_step(right);
        };
        // Row r0 + m, footprint row dy: slot dy + HMAX + M - 1 - m.
        auto update = [&](int d, bool plus) {
          CUSK_UNROLL
          for (int m = 0; m < M; ++m) {
            const int s = HMAX + M - 1 - m + (plus ? d : -d);
            CUSK_UNROLL
            for (int i = 0; i < NR; ++i) acc[s][i] = Ln::template op<Max>(acc[s][i], v[m][i]);
          }
        };

        CUSK_UNROLL
        for (int d = HMAX; d >= 0; --d) {
          const std::uint32_t w = plan.lv[p][d];
          if (w == 0) continue;
          if constexpr (Sym) {
            // Symmetric plan (Plan::sym): symmetric steps only, rows +d and -d both present.
            const int ns = Level::sym(w, 0);
            CUSK_CHAIN_NO_UNROLL
            for (int t = 0; t < ns; ++t) sym_step();
            update(d, true);
            if (d > 0) update(d, false);
          } else {
            move(w, 0);
            if (w & Level::kUp0) update(d, true);
            if (w & Level::kUm0) update(d, false);
            if (w & (Level::kUp1 | Level::kUm1)) {
              move(w, 1);
              if (w & Level::kUp1) update(d, true);
              if (w & Level::kUm1) update(d, false);
            }
          }
        }
      }
    }
    // Outputs r0 + m - HMAX have seen their last input row (dy = +HMAX): slot R - 1 + M - 1 - m.
    if (out_lane) {
      CUSK_UNROLL
      for (int m = 0; m < M; ++m) {
        const int y = r0 + m - HMAX;
        if (y < ys || y >= ye) continue;
        store_row<T, Ln>(out + z * plane_size + static_cast<std::int64_t>(y) * nx, x, nx, vec_ok,
                         acc[R - 1 + M - 1 - m]);
      }
    }
    // Every output row moves M slots along the ring.
    CUSK_UNROLL
    for (int s = NS - 1; s >= M; --s)
      CUSK_UNROLL
      for (int i = 0; i < NR; ++i) acc[s][i] = acc[s - M][i];
  }
}

}  // namespace cuskimage::morphology::detail::chain

// ---- the plan (host) ------------------------------------------------------------------------------

namespace cuskimage::morphology::detail::chain {

/// Largest |dy| of the runs (the ring's half height), or -1 when they cannot be a chain footprint
/// by their extents alone (|dy| > kMaxH, more than kMaxPlanes planes, |dz| > 127, a run without
/// column 0, a half extent above kMaxSteps).
inline int rows_half_extent(const std::vector<RowRun>& runs) {
  if (runs.empty()) return -1;
  int h = 0, planes = 0, last_dz = INT_MIN;
  for (const RowRun& r : runs) {
    if (r.lo > 0 || r.hi < 0 || -r.lo > kMaxSteps || r.hi > kMaxSteps) return -1;
    if (r.dy < -kMaxH || r.dy > kMaxH || r.dz < -127 || r.dz > 127) return -1;
    h = std::max(h, std::abs(r.dy));
    if (r.dz != last_dz) ++planes, last_dz = r.dz;
  }
  return planes <= kMaxPlanes ? h : -1;
}

/// Fills the footprint part of `plan` (npl, dy range, dz, lv) from the runs (C order, as
/// footprint_runs returns them) and the largest half extent `wh`; false when the runs are not a
/// chain footprint (see the file comment) or do not fit HMAX.
template <int HMAX>
bool build_plan(const std::vector<RowRun>& runs, Plan<HMAX>& plan, int& wh) {
  if (rows_half_extent(runs) < 0 || rows_half_extent(runs) > HMAX) return false;
  struct Run {
    int lo, hi;
    bool ok;
  };
  auto contains = [](const Run& outer, const Run& inner) { return outer.lo <= inner.lo && outer.hi >= inner.hi; };
  plan.npl = 0;
  plan.sym = 1;
  plan.dy_min = INT_MAX, plan.dy_max = INT_MIN;
  wh = 0;
  std::size_t i = 0;
  while (i < runs.size()) {
    const int dz = runs[i].dz;
    Run row[2 * HMAX + 1] = {};
    for (; i < runs.size() && runs[i].dz == dz; ++i) {
      const RowRun& r = runs[i];
      row[r.dy + HMAX] = {r.lo, r.hi, true};
      plan.dy_min = std::min(plan.dy_min, r.dy), plan.dy_max = std::max(plan.dy_max, r.dy);
      wh = std::max({wh, -r.lo, r.hi});
    }
    const int p = plan.npl++;
    plan.dz[p] = static_cast<std::int8_t>(dz);
    Run cur{0, 0, true};
    for (int d = HMAX; d >= 0; --d) {
      const Run a = row[HMAX + d], b = d > 0 ? row[HMAX - d] : Run{0, 0, false};
      // The moves of this level: (target run, update +d, update -d), smaller run first.
      struct Mv {
        Run to;
        bool up, um;
      } mv[2];
      int n = 0;
      if (a.ok && b.ok) {
        if (a.lo == b.lo && a.hi == b.hi) mv[n++] = {a, true, true};
        else if (contains(b, a)) mv[n++] = {a, true, false}, mv[n++] = {b, false, true};
        else if (contains(a, b)) mv[n++] = {b, false, true}, mv[n++] = {a, true, false};
        else return false;
      } else if (a.ok) {
        mv[n++] = {a, true, false};
      } else if (b.ok) {
        mv[n++] = {b, false, true};
      }
      int sym[2] = {0, 0}, one[2] = {0, 0};
      std::uint32_t w = 0;
      for (int k = 0; k < n; ++k) {
        if (!contains(mv[k].to, cur)) return false;
        const int left = cur.lo - mv[k].to.lo, right = mv[k].to.hi - cur.hi;
        sym[k] = std::min(left, right), one[k] = right - left;
        if (mv[k].up) w |= k == 0 ? Level::kUp0 : Level::kUp1;
        if (mv[k].um) w |= k == 0 ? Level::kUm0 : Level::kUm1;
        cur = mv[k].to;
      }
      plan.lv[p][d] = w | Level::pack(sym[0], one[0], sym[1], one[1]);
      const std::uint32_t both = d > 0 ? Level::kUp0 | Level::kUm0 : Level::kUp0;
      if (n == 2 || one[0] != 0 || (n == 1 && w != both)) plan.sym = 0;
    }
  }
  return plan.npl > 0;
}


/// The ring's half height for the runs (2, 5, 10 or 15: the kernels instantiated), or -1.
inline int chain_bucket(const std::vector<RowRun>& runs) {
  const int h = rows_half_extent(runs);
  if (h < 0) return -1;
  return h <= 2 ? 2 : h <= 5 ? 5 : h <= 10 ? 10 : 15;
}

/// build_plan plus the strip layout for P pixels per lane: false when not a chain footprint or
/// when the halo lanes would outnumber the working ones.
template <int HMAX>
bool prepare_plan(const std::vector<RowRun>& runs, int P, const Geom& g, Plan<HMAX>& plan) {
  constexpr std::int64_t kMaxExtent = std::int64_t(1) << 30;  // map32's limit: every extent below it
  if (g.nx >= kMaxExtent || g.ny >= kMaxExtent || g.nz >= kMaxExtent) return false;
  int wh = 0;
  if (!build_plan<HMAX>(runs, plan, wh)) return false;
  plan.hg = (wh + P - 1) / P;
  if (32 - 2 * plan.hg < 8) return false;
  const std::int64_t strip_w = static_cast<std::int64_t>(32 - 2 * plan.hg) * P;
  plan.strips = (g.nx + strip_w - 1) / strip_w;
  return true;
}

/// Splits each strip into `segs` row segments (at most ny; equal lengths but the last).
template <int HMAX>
void set_segments(Plan<HMAX>& plan, const Geom& g, std::int64_t segs) {
  segs = std::max<std::int64_t>(1, std::min(segs, g.ny));
  plan.seg_rows = (g.ny + segs - 1) / segs;
  plan.segs = (g.ny + plan.seg_rows - 1) / plan.seg_rows;
}

/// Whether rows take the vector loads/stores: every lane's P samples aligned in both buffers.
template <class S>
bool vector_ok(int P, std::int64_t nx, const void* in, const void* out) {
  const std::uintptr_t align = static_cast<std::uintptr_t>(P) * sizeof(S);
  return nx % P == 0 && reinterpret_cast<std::uintptr_t>(in) % align == 0 &&
         reinterpret_cast<std::uintptr_t>(out) % align == 0;
}

}  // namespace cuskimage::morphology::detail::chain
