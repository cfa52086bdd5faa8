// regionprops pass 1, warp strips: the kernel (account and data in regionprops_warp_table.cuh).
//
// A FRAGMENT like kernels/measure/regionprops_warp.cuh, which includes it inside the includer's
// namespace (no includes of its own).
#pragma once

/// One warp's pass 1 over its strips: the strip walk (run), a row's runs (scan_row, emit_runs),
/// the table's inserts and flushes. The kernel below only binds the warp's table. Every member is
/// force-inlined: the steps share the row's registers as one function would.
/// FULL: extremes and weighted sums as asked (runtime flags); else count, bbox, coordinate sums
/// and (cc <= 1) the intensity sum only: the registers of issue 6's table.
template <class L, class T, int V, int CH, bool FULL>
struct WarpPass1 {
  using Tr = ITraits<T>;
  using Sum = typename Tr::Sum;
  using Val = typename Tr::Val;
  using SegT = Seg<L, T, V, CH>;

  /// A row after the warp scan: each lane's run heads and foreground run ends, its run-local
  /// prefix sums, and the carry from earlier lanes into its first run.
  struct RowScan {
    unsigned hm, em, pos0, xs_prev;
    Sum ps[CH][V];
    Sum cs[CH], cw[CH];
    Val cn[CH], cx[CH];
  };

  const L* __restrict__ lab;
  const T* __restrict__ inten;
  const StripGeo& g;
  const SlotMap& map;
  const Pass1Acc& acc;
  const WarpLayout& lay;
  const Records& rec;
  WTable<L, T, CH>& tb;
  int lane, q, cc, nd;
  bool use_s, use_mm, use_w;
  // Each lane keeps the entry of the last label it added (a region's runs in consecutive rows
  // usually end in the same lane): a repeat skips the probe.
  L last_key = L(0);
  int last_at = 0;

  /// Row y of plane z from column x0: this lane's V pixels (xb: its first column, pix: its index).
  __device__ __forceinline__ void load(SegT& sg, std::int64_t pix, int xb) const {
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
  }

  /// Adds run [xs, xe] of row r (strip-local) to the table; false when it finds no room.
  __device__ __forceinline__ bool insert(L k, unsigned r, unsigned xs, unsigned xe, const Sum* s, const Sum* wx,
                                         const Val* mn, const Val* mx) {
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
  }

  /// FULL: the weighted sum and extremes of pixels [a, b] of channel c, folded onto w, n, x.
  __device__ __forceinline__ void fold(const SegT& sg, unsigned pos0, int c, int a, int b, Sum& w, Val& n,
                                       Val& x) const {
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
  }

  /// The warp scan of one row; false (warp-uniform) when no lane ends a foreground run.
  /// Run-local prefix sums over my pixels restart at each head (and at pixel 0): at pixel k the
  /// sum of the run through k from its start in this lane. A run ending at e takes entry e (plus
  /// the carry when it began in an earlier lane), my last run's partial is entry V - 1; sums stay
  /// in pixel order (no differences: floats lose nothing). The FULL fields (weighted sums,
  /// extremes) are folded over the run's pixels instead (fewer registers).
  __device__ __forceinline__ bool scan_row(const SegT& sg, RowScan& o) const {
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
    o.hm = hm;
    o.em = ((hm >> 1) | (ends ? 1u << (V - 1) : 0u)) & fg;  // bit k: a foreground run ends at k
    if (!__any_sync(kFull, o.em != 0)) return false;
    const unsigned HM = __ballot_sync(kFull, hm != 0);  // bit 0 always set
    const int j = 31 - __clz(HM & (kFull >> (31 - lane)));  // lane where my last run starts
    const int lh = hm ? 31 - __clz(hm) : 0;                 // its first pixel in my lane
    o.pos0 = static_cast<unsigned>(lane * V);
#pragma unroll
    for (int c = 0; c < CH; ++c) {
#pragma unroll
      for (int k = 0; k < V; ++k) {
        const Sum v = c < cc ? static_cast<Sum>(sg.v[c][k]) : Sum(0);
        const bool fresh = k == 0 || ((hm >> k) & 1u);
        o.ps[c][k] = (fresh ? Sum(0) : o.ps[c][k - (k > 0)]) + v;
      }
    }
    // Partials of my last run ([lh, V)), scanned over lanes j..lane.
    Sum ts[CH], tw[CH];
    Val tn[CH], tx[CH];
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      ts[c] = o.ps[c][V - 1];
      tw[c] = Sum(0);
      tn[c] = Tr::lo_id();
      tx[c] = Tr::hi_id();
      if (FULL && c < cc) fold(sg, o.pos0, c, lh, V - 1, tw[c], tn[c], tx[c]);
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
#pragma unroll
    for (int c = 0; c < CH; ++c) {
      o.cs[c] = o.cw[c] = Sum(0);
      o.cn[c] = Tr::lo_id();
      o.cx[c] = Tr::hi_id();
      if (c >= cc) continue;
      if (use_s) o.cs[c] = __shfl_up_sync(kFull, ts[c], 1);
      if constexpr (FULL) {
        if (use_w) o.cw[c] = __shfl_up_sync(kFull, tw[c], 1);
        if (use_mm) {
          o.cn[c] = __shfl_up_sync(kFull, tn[c], 1);
          o.cx[c] = __shfl_up_sync(kFull, tx[c], 1);
        }
      }
    }
    const unsigned xs_tail = __shfl_sync(kFull, o.pos0 + static_cast<unsigned>(lh), j);
    o.xs_prev = __shfl_up_sync(kFull, xs_tail, 1);
    return true;
  }

  /// A run that found no room in the table (records off): its own global atomics.
  __device__ __forceinline__ void global_run(L k, unsigned r, unsigned xs, unsigned xe, const Sum* rs, const Sum* rw,
                                             const Val* rn, const Val* rx, unsigned st) const {
    const std::int64_t sl = map.slot(static_cast<std::int64_t>(k));
    if (sl < 0) return;
    GEntry<CH> ge;
    ge.n = xe - xs + 1;
    ge.ymin = ge.ymax = r;
    ge.xmin = xs;
    ge.xmax = xe;
    ge.ysum = r * ge.n;
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

  /// Each foreground run that ends in my pixels into the table; true (warp-uniform) when a run
  /// found no room and the records are now incomplete.
  __device__ __forceinline__ bool emit_runs(const SegT& sg, const RowScan& o, int r, unsigned st) {
    unsigned em = o.em;
    bool failed = false;
    while (__any_sync(kFull, em != 0)) {
      if (em == 0) continue;
      const int e = __ffs(em) - 1;
      em &= em - 1;
      const unsigned hb = o.hm & ((2u << e) - 1u);  // heads at or before e
      const bool inl = hb != 0;                     // the run starts in this lane
      const int s0 = inl ? 31 - __clz(hb) : 0;
      // Entry e of the run-local prefix sums, and the label (the same compares pick both).
      L k = sg.l[0];
      Sum rs[CH], rw[CH];
      Val rn[CH], rx[CH];
#pragma unroll
      for (int c = 0; c < CH; ++c) rs[c] = o.ps[c][0];
#pragma unroll
      for (int kk = 1; kk < V; ++kk) {
        if (kk != e) continue;
        k = sg.l[kk];
#pragma unroll
        for (int c = 0; c < CH; ++c) rs[c] = o.ps[c][kk];
      }
#pragma unroll
      for (int c = 0; c < CH; ++c) {
        if (!inl) rs[c] += o.cs[c];  // the run began in an earlier lane: add the carry
        rw[c] = inl ? Sum(0) : o.cw[c];
        rn[c] = inl ? Tr::lo_id() : o.cn[c];
        rx[c] = inl ? Tr::hi_id() : o.cx[c];
        if (FULL && c < cc) fold(sg, o.pos0, c, s0, e, rw[c], rn[c], rx[c]);
      }
      const unsigned xs = inl ? o.pos0 + static_cast<unsigned>(s0) : o.xs_prev;
      const unsigned xe = o.pos0 + static_cast<unsigned>(e);
      if (insert(k, static_cast<unsigned>(r), xs, xe, rs, rw, rn, rx)) continue;
      if (rec.on) {
        failed = true;
        continue;
      }
      global_run(k, static_cast<unsigned>(r), xs, xe, rs, rw, rn, rx, st);
    }
    return __any_sync(kFull, failed);
  }

  /// One row of the strip (r: strip-local row) into the table; true when a run found no room and
  /// the records are now incomplete.
  __device__ __forceinline__ bool segment(const SegT& sg, int r, unsigned st) {
    RowScan o;
    if (!scan_row(sg, o)) return false;
    return emit_runs(sg, o, r, st);
  }

  /// The table's occupied entries as records (rec.on), then cleared.
  __device__ __forceinline__ void flush_records(unsigned s) {
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
  }

  /// The table's occupied entries to the global accumulators or to records, then cleared.
  __device__ __forceinline__ void flush(unsigned s) {
    last_key = L(0);  // the entries are cleared below
    if (rec.on) {
      flush_records(s);
      return;
    }
    int z, y0, x0;
    strip_origin(g, s, z, y0, x0);
    for (int i = lane; i < q; i += 32) {
      const L k = tb.key[i];
      if (k == L(0)) continue;
      const std::int64_t sl = map.slot(static_cast<std::int64_t>(k));
      if (sl >= 0) global_entry<CH, FULL>(acc, nd, sl, tb.template entry<FULL>(i, cc), z, y0, x0);
      tb.clear(i, cc);
    }
  }

  __device__ __forceinline__ std::int64_t first_pixel(unsigned s, int& rows) const {
    int z, y0, x0;
    strip_origin(g, s, z, y0, x0);
    rows = min(g.th, g.ny - y0);
    return (static_cast<std::int64_t>(z) * g.ny + y0) * g.nx + x0 + lane * V;
  }
  __device__ __forceinline__ int column(unsigned s) const {
    return static_cast<int>(s % static_cast<unsigned>(g.tx)) * g.tw + lane * V;
  }
  /// Another warp's overflow, read once per strip and made warp-uniform (lanes may read the flag
  /// before and after it is set).
  __device__ __forceinline__ bool overflowed() const {
    return __any_sync(kFull, *reinterpret_cast<volatile u64*>(rec.ctr + 1) != 0) != 0;
  }

  /// One flat walk over (strip, row) from strip st: the next row's loads (the next strip's first
  /// row at a strip's end) are issued before the current row is processed and the table flushed.
  __device__ __forceinline__ void run(unsigned st, unsigned wstride) {
    int rows;
    std::int64_t pix = first_pixel(st, rows);
    int xb = column(st);
    SegT cur;
    load(cur, pix, xb);
    int r = 0;
    L lmax = L(0);
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
};

template <class L, class T, int V, int CH, bool FULL>
__global__ void __launch_bounds__(256, (kWarpMinBlocks<L, T, V, CH, FULL>))
    pass1_warp_kernel(const L* __restrict__ lab, const T* __restrict__ inten, StripGeo g, SlotMap map, Pass1Acc acc,
                      WarpLayout lay, Records rec) {
  CUSK_RP_DYN_SMEM(smem);
  const int lane = threadIdx.x & 31, wib = threadIdx.x >> 5;
  WTable<L, T, CH> tb;
  tb.bind(smem + static_cast<std::size_t>(wib) * lay.stride, lay);
  const int cc = acc.cc;
  for (int i = lane; i < lay.q; i += 32) tb.clear(i, cc);
  __syncwarp();
  const unsigned wstride = gridDim.x * (blockDim.x >> 5);
  const unsigned st = blockIdx.x * (blockDim.x >> 5) + static_cast<unsigned>(wib);
  if (st >= static_cast<unsigned>(g.count)) return;
  const bool use_s = cc > 0 && (acc.sum || acc.weighted);
  WarpPass1<L, T, V, CH, FULL> w{lab, inten, g, map, acc, lay, rec, tb, lane, lay.q, cc, g.nd, use_s,
                                 FULL && cc > 0 && acc.minmax, FULL && cc > 0 && acc.weighted};
  w.run(st, wstride);
}
