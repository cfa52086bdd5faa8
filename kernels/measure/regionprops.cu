// measure.regionprops on CUDA: every region measured together in batched passes over the label
// image, never a launch per region.
//
//   pass 1  (default) the warp-strip kernel of kernels/measure/regionprops_warp.cuh: each warp
//           walks strips of TH rows x 32 V columns (V = 8 for int32 labels, else 4), one or two
//           16-byte label loads per lane and row with the next row in flight; runs are found
//           and merged across lanes in registers (heads by shuffle, a segmented shuffle scan
//           carries a run's partial sums to the lane that holds its last pixel) and each
//           foreground run adds once to the warp's private shared-memory table (label keys,
//           32-bit strip-local fields, native shared atomics). At a strip's end each occupied
//           entry becomes one record (fused mode) or one set of global atomics (direct mode):
//           count, bbox (min as atomicMax of ~x, max as atomicMax of x + 1), integer coordinate
//           sums, and per channel the intensity sum, extremes (order-preserving integer keys of
//           the doubles) and sum I*x.
//           fused (default, <= 4 channels): no max-label pass; the kernel also reduces the max
//           label, the host reads it with the record count, sizes the slots (the labels up to
//           kDenseLimit; sparse: the sorted unique record labels) and records_kernel adds the
//           records. Records that overflow (capacity, a table without room) fall back to the
//           direct mode with the max already known.
//           direct: cub::DeviceReduce::Max, slots (sparse: sorted unique labels of the image),
//           the kernel with runs that find no room going straight to the global atomics.
//           fallback: images past the warp strips' 32-bit geometry take the 16 x 128 tile kernel
//           of regionprops_tile.cuh (the tile staged in shared memory, 8 px per thread, a
//           256-entry table per block).
//   pack    flags -> exclusive scan -> row of each present label; one kernel gathers the rows
//           into two packed buffers (int64, double) that cross to the host in two copies
//           (regionprops; tables of pass-1 columns are built from the columns instead).
//   local   (euler_number, perimeter, perimeter_crofton only) one thread per 2x2(x2) window or
//           per pixel, adding scikit-image's configuration coefficients to the labels' rows.
//   pass 2  (moments / intensity_std only) the same run walk with per-row bbox origin and
//           centroids uploaded from pass 1: per run the sums of X^q and (X - c)^q along the row
//           (q <= 3), weighted per channel, expanded over the row's Y^p (Z^r) powers at the flush.
//
// Cost at the issue's case (8192^2 int32 labels of ~35% blobs, 145,316 regions, uint8
// intensity; area, centroid, bbox, intensity_mean): pass 1 reads 256 + 64 MiB, a floor of
// 0.08 ms at 4.2 TB/s (the direct mode's max pass reads the labels again: 0.144 ms). The blobs
// make ~3.5 M runs (~6.7 px) and 261 k (label, 32 x 256 strip) records (8.4 MB written and read
// back, 2.1 M global atomics). The tile kernel measured 0.814 ms (434 GB/s): a shared
// fp64 atomicAdd is a CAS loop (ATOMS.CAST.SPIN.64) and its 16 threads per tile row, most of
// one label, contended on it; 48 registers and 20.8 KB per 256-thread block, each block a load
// phase then a compute phase. The warp kernel: ~150 instructions per 256-px row segment plus
// ~90 per run added (~2.5 rounds per segment) = ~105 M warp instructions, 80 registers (3
// blocks of 8 warps per SM, 1.3 KB of loads in flight per warp). Prediction: pass 1 0.13-0.2
// ms (issue-bound), 0.25-0.4 ms end to end (target 1.0 ms, stretch 0.5).
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "cuskimage/tuning.hpp"
#include "kernels/core/buffers.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/measure/moments_math.hpp"
#include "src/measure/regionprops.hpp"
#include "src/measure/regionprops_luts.hpp"

namespace cuskimage::measure::detail {
namespace {

constexpr int kSeg = 32;          // pixels per thread along a row
constexpr int kMaxCh = 4;         // channels per launch (more: several launches)
constexpr std::int64_t kDenseLimit = std::int64_t(1) << 24;

// u64, dkey, SlotMap, Pass1Acc and the warp-strip pass 1 (also compiled by the CPU emulator test).
#include "kernels/measure/regionprops_warp.cuh"

/// Row geometry shared by both passes: rows of length W, row -> (z, y).
struct Rows {
  std::int64_t nrows, W, ny, segs;
  int nd;
};

// The tile kernel, pass 1's fallback for images the warp strips do not fit.
#include "kernels/measure/regionprops_tile.cuh"

// Pass 2 and the local configurations.
#include "kernels/measure/regionprops_pass2.cuh"

__global__ void count_kernel(const std::int64_t* __restrict__ row_of, const std::int64_t* __restrict__ flags,
                             std::int64_t S, std::int64_t* __restrict__ n) {
  *n = row_of[S - 1] + flags[S - 1];
}

__global__ void flags_kernel(const u64* __restrict__ cnt, std::int64_t S, std::int64_t* __restrict__ flags) {
  const std::int64_t l = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (l < S) flags[l] = (l > 0 && cnt[l] > 0) ? 1 : 0;
}

/// Gathers present slots into packed rows: int64 (label, count, lo[nd], hi[nd], csum[nd]) and
/// double (isum[C], imin[C], imax[C], iwsum[C*nd]).
__global__ void pack_kernel(const u64* __restrict__ cnt, const u64* __restrict__ lo, const u64* __restrict__ hi,
                            const u64* __restrict__ csum, const double* __restrict__ isum,
                            const u64* __restrict__ imin, const u64* __restrict__ imax,
                            const double* __restrict__ iwsum, std::int64_t S, int nd, int C,
                            const std::int64_t* __restrict__ row_of, const std::int64_t* __restrict__ keys,
                            std::int64_t* __restrict__ pi, double* __restrict__ pd) {
  const std::int64_t l = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (l >= S || cnt[l] == 0 || (!keys && l == 0)) return;
  const std::int64_t r = row_of ? row_of[l] : l;
  const int ni = 2 + 3 * nd, ndb = C * (3 + nd);
  std::int64_t* o = pi + r * ni;
  o[0] = keys ? keys[l] : l;
  o[1] = static_cast<std::int64_t>(cnt[l]);
  for (int a = 0; a < nd; ++a) {
    o[2 + a] = static_cast<std::int64_t>(~lo[l * nd + a]);
    o[2 + nd + a] = static_cast<std::int64_t>(hi[l * nd + a]);
    o[2 + 2 * nd + a] = static_cast<std::int64_t>(csum[l * nd + a]);
  }
  if (C == 0) return;
  double* d = pd + r * ndb;
  for (int c = 0; c < C; ++c) {
    d[c] = isum ? isum[l * C + c] : 0.0;
    d[C + c] = imin ? dkey_inv(~imin[l * C + c]) : 0.0;
    d[2 * C + c] = imax ? dkey_inv(imax[l * C + c]) : 0.0;
    for (int a = 0; a < nd; ++a) d[3 * C + c * nd + a] = iwsum ? iwsum[(l * C + c) * nd + a] : 0.0;
  }
}

int blocks_for(std::int64_t n, int threads = 256) {
  return static_cast<int>(std::min<std::int64_t>((n + threads - 1) / threads, std::int64_t(1) << 20));
}

using cuskimage::detail::buf::ptr;
using cuskimage::detail::buf::scratch;
using cuskimage::detail::buf::upload;

Array dev_zeros(std::int64_t n, DType dt, Device dev, const Stream& s) {
  return Array::zeros({std::max<std::int64_t>(n, 1)}, dt, dev, s);
}

/// Pass 1's settings for one call, from the tuning policy (include/cuskimage/tuning.hpp, read once
/// per call; zero fields: the defaults). Fixed by the H200 sweep at 8192^2: 4 warps per block
/// (8: 0.355 ms against 0.334), the resident grid walking all strips (a block per 4 strips:
/// 0.399), 8 px per lane where the instance exists (4: 0.426), the fused max label (a cub max
/// first: 0.387). The direct mode stays the fallback for record overflow and more than 4 channels.
struct Pass1Options {
  bool tile = false;
  int th = 0, q = 0;
  std::int64_t reccap = 0;
};

constexpr int kWarps = 4;  // warps per block of the warp-strip kernel

Pass1Options pass1_options() {
  const tuning::RegionpropsPolicy p = tuning::regionprops_policy();
  Pass1Options o;
  o.tile = p.pass1 == tuning::RegionpropsPass1::tiles;
  o.th = std::clamp(p.strip_rows, 0, 128);
  o.q = p.table_entries;
  o.reccap = std::max<std::int64_t>(p.record_capacity, 0);
  return o;
}

/// Pixels per lane of this launch's kernel instance (V = 8 is instantiated for the sum-only
/// tables of int32 labels with uint8 / uint16 intensity or none).
template <class L, class T>
int warp_v(const Pass1Acc& a) {
  const bool full = a.minmax || a.weighted;
  constexpr bool v8 = sizeof(L) == 4 && (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>);
  return (v8 && !full && a.cc <= 1) ? 8 : 4;
}

/// Strip geometry of the labels for V pixels per lane (count 0 past 32-bit axes / strips).
template <class L, class T>
StripGeo strip_geo(const Array& labels, const Array& intensity, int nch, int v, const Pass1Options& o) {
  const int nd = labels.ndim();
  StripGeo g = make_strip_geo(nd, nd == 3 ? labels.shape(0) : 1, labels.shape(nd - 2), labels.shape(nd - 1), v, o.th);
  auto aligned = [](const void* p, std::size_t b) { return reinterpret_cast<std::uintptr_t>(p) % b == 0; };
  g.lab_vec = g.nx % v == 0 && aligned(labels.data(), v * sizeof(L));
  g.int_vec = nch == 1 && g.nx % v == 0 && intensity.valid() && aligned(intensity.data(), v * sizeof(T));
  return g;
}

int sm_count(Device dev) {
  int n = 0;
  CUSK_CUDA_CHECK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev.index()));
  return std::max(n, 1);
}

template <class L, class T, int V, int CH, bool FULL>
void launch_warp_inst(const L* lab, const T* in, const StripGeo& g, const SlotMap& map, const Pass1Acc& a,
                      const Records& rec, const Pass1Options& o, int sms, cudaStream_t s) {
  using Tr = ITraits<T>;
  const WarpLayout lay = warp_layout(warp_q(g, o.q), sizeof(L), sizeof(typename Tr::Sum), sizeof(typename Tr::Key), a);
  auto* kernel = pass1_warp_kernel<L, T, V, CH, FULL>;
  const int threads = 32 * kWarps;
  const int smem = lay.stride * kWarps;
  if (smem > 48 * 1024)
    CUSK_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int per_sm = 0;
  CUSK_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem));
  const std::int64_t need = (g.count + kWarps - 1) / kWarps;
  const std::int64_t resident = static_cast<std::int64_t>(std::max(per_sm, 1)) * sms;
  const auto grid = static_cast<unsigned>(std::max<std::int64_t>(1, std::min(need, resident)));
  kernel<<<grid, threads, smem, s>>>(lab, in, g, map, a, lay, rec);
  CUSK_CUDA_CHECK(cudaGetLastError());
}

template <class L, class T>
void launch_warp(const L* lab, const T* in, const StripGeo& g, int v, const SlotMap& map, const Pass1Acc& a,
                 const Records& rec, const Pass1Options& o, int sms, cudaStream_t s) {
  const bool full = a.minmax || a.weighted;
  constexpr bool v8 = sizeof(L) == 4 && (std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::uint16_t>);
  if (!full && a.cc <= 1) {
    if constexpr (v8)
      if (v == 8) return launch_warp_inst<L, T, 8, 1, false>(lab, in, g, map, a, rec, o, sms, s);
    return launch_warp_inst<L, T, 4, 1, false>(lab, in, g, map, a, rec, o, sms, s);
  }
  if (a.cc <= 1) return launch_warp_inst<L, T, 4, 1, true>(lab, in, g, map, a, rec, o, sms, s);
  launch_warp_inst<L, T, 4, kMaxCh, true>(lab, in, g, map, a, rec, o, sms, s);
}

/// Pass 1's per-slot accumulators on the device, and the rows of the present labels.
struct Pass1 {
  Rows g;
  SlotMap map;
  Array keys, cnt, lo, hi, csum, isum, imin, imax, iwsum, row_of;
  std::int64_t S = 0, n = 0;  // slots; present labels (rows)
};

/// uniq[0, nu) ascending, nu = info[0]: info[1] = the index of its first value > 0.
__global__ void first_positive_kernel(const std::int64_t* __restrict__ uniq, std::int64_t* __restrict__ info) {
  std::int64_t lo = 0, hi = info[0];
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) >> 1;
    if (uniq[mid] <= 0) lo = mid + 1; else hi = mid;
  }
  info[1] = lo;
}

/// The sorted unique values of `k` (int64, n of them; sorted in place), their count and the index
/// of the first one > 0 (one host read of both).
Array unique_sorted(Array& k, std::int64_t n, std::int64_t& nu, std::int64_t& first_positive, const Stream& stream) {
  const cudaStream_t s = stream.handle();
  const Device dev = k.device();
  Array buf = Array::empty({std::max<std::int64_t>(n, 1)}, DType::int64, dev, stream);
  cub::DoubleBuffer<std::int64_t> db(ptr<std::int64_t>(k), ptr<std::int64_t>(buf));
  std::size_t b2 = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, b2, db, n, 0, 64, s));
  Array t2 = scratch(b2, dev, stream);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(t2.data(), b2, db, n, 0, 64, s));
  Array uniq = Array::empty({std::max<std::int64_t>(n, 1)}, DType::int64, dev, stream);
  Array nuniq = Array::empty({2}, DType::int64, dev, stream);
  std::size_t b3 = 0;
  CUSK_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, b3, db.Current(), ptr<std::int64_t>(uniq), ptr<std::int64_t>(nuniq),
                                            n, s));
  Array t3 = scratch(b3, dev, stream);
  CUSK_CUDA_CHECK(cub::DeviceSelect::Unique(t3.data(), b3, db.Current(), ptr<std::int64_t>(uniq),
                                            ptr<std::int64_t>(nuniq), n, s));
  first_positive_kernel<<<1, 1, 0, s>>>(ptr<std::int64_t>(uniq), ptr<std::int64_t>(nuniq));
  CUSK_CUDA_CHECK(cudaGetLastError());
  const Array hn = nuniq.to(Device::cpu(), stream);  // waits for the copy, so for the kernels before it
  nu = hn.data<std::int64_t>()[0];
  first_positive = hn.data<std::int64_t>()[1];
  return uniq;
}

/// The records of the fused pass in one allocation: labels, five u32 fields, then the channels'
/// doubles (`cap` of each). `rbuf` and `ctr` own the memory.
template <class L>
Records make_records(std::int64_t cap, const Pass1Acc& a, Device dev, const Stream& stream, Array& rbuf, Array& ctr) {
  const int cc = a.cc;
  std::int64_t bytes = 0;
  auto take = [&](std::int64_t b) {
    const std::int64_t at = bytes;
    bytes += (b + 255) / 256 * 256;
    return at;
  };
  const std::int64_t o_lab = take(cap * static_cast<std::int64_t>(sizeof(L)));
  std::int64_t o_u[5];
  for (auto& x : o_u) x = take(cap * 4);
  const std::int64_t per = cap * cc * 8;
  const std::int64_t o_s = (a.sum || a.weighted) && cc > 0 ? take(per) : -1;
  const std::int64_t o_mn = a.minmax && cc > 0 ? take(per) : -1, o_mx = a.minmax && cc > 0 ? take(per) : -1;
  const std::int64_t o_wy = a.weighted && cc > 0 ? take(per) : -1, o_wx = a.weighted && cc > 0 ? take(per) : -1;
  rbuf = Array::empty({bytes}, DType::uint8, dev, stream);
  ctr = Array::zeros({4}, DType::uint64, dev, stream);
  auto* b = static_cast<unsigned char*>(rbuf.data());
  Records rec;
  rec.on = true;
  rec.ctr = ptr<u64>(ctr);
  rec.cap = cap;
  rec.label = b + o_lab;
  rec.strip = reinterpret_cast<unsigned*>(b + o_u[0]);
  rec.n = reinterpret_cast<unsigned*>(b + o_u[1]);
  rec.box = reinterpret_cast<unsigned*>(b + o_u[2]);
  rec.ysum = reinterpret_cast<unsigned*>(b + o_u[3]);
  rec.xsum = reinterpret_cast<unsigned*>(b + o_u[4]);
  auto dptr = [&](std::int64_t o) { return o >= 0 ? reinterpret_cast<double*>(b + o) : nullptr; };
  rec.s = dptr(o_s);
  rec.mn = dptr(o_mn);
  rec.mx = dptr(o_mx);
  rec.wy = dptr(o_wy);
  rec.wx = dptr(o_wx);
  return rec;
}

/// One call of pass 1 (run_pass1): its inputs, settings and the Pass1 its steps fill.
template <class L, class T>
class Pass1Run {
 public:
  Pass1Run(const Array& labels, const Array& intensity, int nch, const StatsRequest& req, const Stream& stream)
      : labels_(labels), intensity_(intensity), stream_(stream), s_(stream.handle()), dev_(labels.device()),
        nd_(labels.ndim()), C_(nch), size_(labels.size()), lab_(static_cast<const L*>(labels.data())),
        in_(nch > 0 ? static_cast<const T*>(intensity.data()) : nullptr), opt_(pass1_options()), sms_(sm_count(dev_)),
        want_sum_(nch > 0 && (req.intensity_sum || req.weighted_first || req.intensity_sqdev)),
        want_mm_(nch > 0 && req.intensity_minmax), want_w_(nch > 0 && req.weighted_first) {
    Rows& g = P_.g;
    g.nd = nd_;
    g.W = labels.shape(nd_ - 1);
    g.nrows = size_ / std::max<std::int64_t>(g.W, 1);
    g.ny = labels.shape(nd_ - 2);
    g.segs = (g.W + kSeg - 1) / kSeg;
  }

  Pass1 run() {
    std::int64_t maxl = -1;  // unknown
    if (!fused(maxl)) direct(maxl);
    present_rows();
    return std::move(P_);
  }

 private:
  bool dense_ok(std::int64_t maxl) const { return maxl <= std::min(kDenseLimit, 4 * size_ + 1024); }

  // Sparse labels: the slots are the sorted unique labels of `sorted` (n int64 values) past the
  // `first` ones <= 0 that unique_sorted skips.
  void sparse_slots(Array& sorted, std::int64_t n) {
    std::int64_t nu = 0, first = 0;
    Array uniq = unique_sorted(sorted, n, nu, first, stream_);
    P_.S = nu - first;
    P_.keys = uniq.slice({Slice{first, nu}});
    P_.map.keys = ptr<std::int64_t>(P_.keys);
    P_.map.nkeys = P_.S;
  }

  void alloc_acc() {
    const std::int64_t S = P_.S;
    P_.cnt = dev_zeros(S, DType::uint64, dev_, stream_);
    P_.lo = dev_zeros(S * nd_, DType::uint64, dev_, stream_);
    P_.hi = dev_zeros(S * nd_, DType::uint64, dev_, stream_);
    P_.csum = dev_zeros(S * nd_, DType::uint64, dev_, stream_);
    if (want_sum_) P_.isum = dev_zeros(S * C_, DType::float64, dev_, stream_);
    if (want_mm_) {
      P_.imin = dev_zeros(S * C_, DType::uint64, dev_, stream_);
      P_.imax = dev_zeros(S * C_, DType::uint64, dev_, stream_);
    }
    if (want_w_) P_.iwsum = dev_zeros(S * C_ * nd_, DType::float64, dev_, stream_);
  }

  Pass1Acc acc_for(int c0) {
    Pass1Acc a{};
    a.cnt = P_.cnt.valid() ? ptr<u64>(P_.cnt) : nullptr;
    a.lo = P_.lo.valid() ? ptr<u64>(P_.lo) : nullptr;
    a.hi = P_.hi.valid() ? ptr<u64>(P_.hi) : nullptr;
    a.csum = P_.csum.valid() ? ptr<u64>(P_.csum) : nullptr;
    a.isum = P_.isum.valid() ? ptr<double>(P_.isum) : nullptr;
    a.iwsum = P_.iwsum.valid() ? ptr<double>(P_.iwsum) : nullptr;
    a.imin = P_.imin.valid() ? ptr<u64>(P_.imin) : nullptr;
    a.imax = P_.imax.valid() ? ptr<u64>(P_.imax) : nullptr;
    a.nch = C_;
    a.c0 = c0;
    a.cc = C_ > 0 ? std::min(kMaxCh, C_ - c0) : 0;
    a.geometry = c0 == 0;
    a.sum = want_sum_;
    a.minmax = want_mm_;
    a.weighted = want_w_;
    if (!a.sum && !a.minmax && !a.weighted) a.cc = 0;
    return a;
  }

  /// The fused pass: false (nothing measured) when it does not apply or its records overflowed;
  /// `maxl` is then the max label when the records found it, else -1.
  bool fused(std::int64_t& maxl) {
    if (opt_.tile || C_ > kMaxCh || size_ == 0) return false;
    const Pass1Acc a = acc_for(0);  // flags only: the accumulators come after the max
    const int v = warp_v<L, T>(a);
    const StripGeo sg = strip_geo<L, T>(labels_, intensity_, C_, v, opt_);
    if (sg.count == 0) return false;
    const std::int64_t cap = opt_.reccap > 0 ? opt_.reccap : std::max<std::int64_t>(65536, size_ / 32);
    Array rbuf, ctr;
    const Records rec = make_records<L>(cap, a, dev_, stream_, rbuf, ctr);
    launch_warp<L, T>(lab_, in_, sg, v, SlotMap{}, a, rec, opt_, sms_, s_);
    const Array hc = ctr.to(Device::cpu(), stream_);
    const auto* c = static_cast<const u64*>(hc.data());
    const auto nrec = static_cast<std::int64_t>(c[0]);
    maxl = std::max<std::int64_t>(0, static_cast<std::int64_t>(c[2]));
    if (c[1] != 0 || nrec > cap) return false;
    if (dense_ok(maxl) || nrec == 0) {
      P_.map.max_label = maxl;
      P_.S = maxl + 1;
    } else {
      // Sparse labels: the sorted unique record labels (records hold labels > 0 only).
      Array k64 = Array::empty({std::max<std::int64_t>(nrec, 1)}, DType::int64, dev_, stream_);
      widen_kernel<L><<<blocks_for(nrec), 256, 0, s_>>>(static_cast<const L*>(rec.label), nrec, ptr<std::int64_t>(k64));
      CUSK_CUDA_CHECK(cudaGetLastError());
      sparse_slots(k64, nrec);
    }
    alloc_acc();
    const Pass1Acc fa = acc_for(0);
    if (nrec > 0) {
      if (fa.cc <= 1)
        records_kernel<L, 1><<<blocks_for(nrec), 256, 0, s_>>>(rec, nrec, sg, P_.map, fa);
      else
        records_kernel<L, kMaxCh><<<blocks_for(nrec), 256, 0, s_>>>(rec, nrec, sg, P_.map, fa);
      CUSK_CUDA_CHECK(cudaGetLastError());
    }
    return true;
  }

  /// The direct pass: slots from the max label (`maxl`, or a cub max when -1), then global atomics
  /// at each strip's flush, one launch per group of kMaxCh channels.
  void direct(std::int64_t maxl) {
    if (maxl < 0) {
      // Max label: sizes a dense table, else the sparse path sorts the labels.
      Array maxv = Array::empty({1}, dtype_v<L>, dev_, stream_);
      std::size_t bytes = 0;
      CUSK_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, bytes, lab_, ptr<L>(maxv), size_, s_));
      Array temp = scratch(bytes, dev_, stream_);
      CUSK_CUDA_CHECK(cub::DeviceReduce::Max(temp.data(), bytes, lab_, ptr<L>(maxv), size_, s_));
      const Array hmax = maxv.to(Device::cpu(), stream_);
      maxl = std::max<std::int64_t>(0, static_cast<std::int64_t>(hmax.data<L>()[0]));
    }
    P_.map = SlotMap{};
    P_.keys = Array();
    if (dense_ok(maxl)) {
      P_.map.max_label = maxl;
      P_.S = maxl + 1;
    } else {
      // Sparse labels: the sorted unique positive labels are the slots.
      Array sorted = labels_.astype(DType::int64, stream_);  // copy, sorted in place
      sparse_slots(sorted, size_);
    }
    alloc_acc();

    Tiles tg{};
    tg.nd = nd_;
    tg.nz = nd_ == 3 ? labels_.shape(0) : 1;
    tg.ny = labels_.shape(nd_ - 2);
    tg.nx = labels_.shape(nd_ - 1);
    tg.tx = (tg.nx + kTileW - 1) / kTileW;
    tg.ty = (tg.ny + kTileH - 1) / kTileH;
    tg.count = tg.nz * tg.ty * tg.tx;
    for (int c0 = 0; c0 < std::max(C_, 1); c0 += kMaxCh) {
      const Pass1Acc a = acc_for(c0);
      if (!a.geometry && a.cc == 0) continue;
      if (tg.count == 0) continue;
      const int v = warp_v<L, T>(a);
      const StripGeo sg = opt_.tile ? StripGeo{} : strip_geo<L, T>(labels_, intensity_, C_, v, opt_);
      if (sg.count == 0) {  // the tile kernel: asked for, or past the warp kernel's 32-bit strips
        if (a.cc <= 1)
          launch_tile<L, T, 1>(lab_, in_, tg, P_.map, a, s_);
        else
          launch_tile<L, T, kMaxCh>(lab_, in_, tg, P_.map, a, s_);
      } else {
        launch_warp<L, T>(lab_, in_, sg, v, P_.map, a, Records{}, opt_, sms_, s_);
      }
    }
  }

  /// Rows of the present labels, in increasing label order (dense slots: a scan of the flags).
  void present_rows() {
    const std::int64_t S = P_.S;
    P_.n = S;
    if (P_.map.keys) return;
    Array flags = Array::empty({S}, DType::int64, dev_, stream_);
    Array& row_of = P_.row_of;
    row_of = Array::empty({S}, DType::int64, dev_, stream_);
    flags_kernel<<<blocks_for(S), 256, 0, s_>>>(ptr<u64>(P_.cnt), S, ptr<std::int64_t>(flags));
    CUSK_CUDA_CHECK(cudaGetLastError());
    std::size_t b4 = 0;
    CUSK_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(nullptr, b4, ptr<std::int64_t>(flags), ptr<std::int64_t>(row_of), S, s_));
    Array t4 = scratch(b4, dev_, stream_);
    CUSK_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(t4.data(), b4, ptr<std::int64_t>(flags), ptr<std::int64_t>(row_of), S, s_));
    Array count = Array::empty({1}, DType::int64, dev_, stream_);
    count_kernel<<<1, 1, 0, s_>>>(ptr<std::int64_t>(row_of), ptr<std::int64_t>(flags), S, ptr<std::int64_t>(count));
    CUSK_CUDA_CHECK(cudaGetLastError());
    const Array hc = count.to(Device::cpu(), stream_);
    P_.n = hc.data<std::int64_t>()[0];
  }

  const Array& labels_;
  const Array& intensity_;
  const Stream& stream_;
  const cudaStream_t s_;
  const Device dev_;
  const int nd_, C_;
  const std::int64_t size_;
  const L* lab_;
  const T* in_;
  const Pass1Options opt_;
  const int sms_;
  const bool want_sum_, want_mm_, want_w_;
  Pass1 P_;
};

/// Pass 1: slots, accumulators, the kernel(s), and the rows of the present labels (two host reads
/// in all: the max label (with the fused max: the record count too) and the row count).
///   fused (default, <= 4 channels): the warp kernel writes one record per (label, strip) and the
///     max label; the host reads both, sizes the slots (dense: max + 1; sparse: the sorted unique
///     record labels) and records_kernel adds the records. A record overflow (more than the
///     capacity, or a run without room in its table) falls back to the direct pass with the max
///     already known.
///   direct: cub max (unless known), slots (sparse: sorted unique labels of the whole image), the
///     kernel with global atomics at each strip's flush (one launch per group of 4 channels).
template <class L, class T>
Pass1 run_pass1(const Array& labels, const Array& intensity, int nch, const StatsRequest& req, const Stream& stream) {
  return Pass1Run<L, T>(labels, intensity, nch, req, stream).run();
}

template <class L, class T>
void run_stats(const Array& labels, const Array& intensity, int nch, const std::vector<double>& spacing,
               const StatsRequest& req, RegionStats& st, const Stream& stream) {
  const cudaStream_t s = stream.handle();
  const Device dev = labels.device();
  const int nd = labels.ndim();
  const L* lab = static_cast<const L*>(labels.data());
  const T* in = nch > 0 ? static_cast<const T*>(intensity.data()) : nullptr;
  Pass1 p1 = run_pass1<L, T>(labels, intensity, nch, req, stream);
  const Rows& g = p1.g;
  const SlotMap& map = p1.map;
  const std::int64_t S = p1.S, n = p1.n;
  const int C = nch;
  const int grid = blocks_for(g.nrows * g.segs);
  Array &cnt = p1.cnt, &lo = p1.lo, &hi = p1.hi, &csum = p1.csum, &isum = p1.isum, &imin = p1.imin,
        &imax = p1.imax, &iwsum = p1.iwsum, &row_of = p1.row_of;
  // One packed buffer (int64 rows, then the double rows bit for bit) crosses in one copy.
  const int ni = 2 + 3 * nd, ndb = C * (3 + nd);
  Array packed = Array::empty({std::max<std::int64_t>(n * (ni + ndb), 1)}, DType::int64, dev, stream);
  if (S > 0) {
    pack_kernel<<<blocks_for(S), 256, 0, s>>>(
        ptr<u64>(cnt), ptr<u64>(lo), ptr<u64>(hi), ptr<u64>(csum), isum.valid() ? ptr<double>(isum) : nullptr,
        imin.valid() ? ptr<u64>(imin) : nullptr, imax.valid() ? ptr<u64>(imax) : nullptr,
        iwsum.valid() ? ptr<double>(iwsum) : nullptr, S, nd, C, row_of.valid() ? ptr<std::int64_t>(row_of) : nullptr,
        map.keys, ptr<std::int64_t>(packed), reinterpret_cast<double*>(ptr<std::int64_t>(packed) + n * ni));
    CUSK_CUDA_CHECK(cudaGetLastError());
  }
  const Array hpacked = packed.to(Device::cpu(), stream);

  st = RegionStats{};
  st.ndim = nd;
  st.nch = C;
  st.n = n;
  st.label.resize(n);
  st.count.resize(n);
  st.lo.resize(n * nd);
  st.hi.resize(n * nd);
  st.coord_sum.resize(n * nd);
  const std::int64_t* P = hpacked.data<std::int64_t>();
  for (std::int64_t r = 0; r < n; ++r) {
    const std::int64_t* o = P + r * ni;
    st.label[r] = o[0];
    st.count[r] = o[1];
    for (int a = 0; a < nd; ++a) {
      st.lo[r * nd + a] = o[2 + a];
      st.hi[r * nd + a] = o[2 + nd + a];
      st.coord_sum[r * nd + a] = static_cast<double>(o[2 + 2 * nd + a]);
    }
  }
  if (C > 0) {
    st.isum.resize(n * C);
    st.imin.resize(n * C);
    st.imax.resize(n * C);
    st.iwsum.resize(n * C * nd);
    const double* D = reinterpret_cast<const double*>(P + n * ni);
    for (std::int64_t r = 0; r < n; ++r) {
      const double* d = D + r * ndb;
      for (int c = 0; c < C; ++c) {
        st.isum[r * C + c] = d[c];
        st.imin[r * C + c] = d[C + c];
        st.imax[r * C + c] = d[2 * C + c];
        for (int a = 0; a < nd; ++a) st.iwsum[(r * C + c) * nd + a] = d[3 * C + c * nd + a];
      }
    }
  }
  auto fetch = [&](const Array& a, std::vector<double>& v, std::int64_t len) {
    if (!a.valid()) return;
    const Array h = a.to(Device::cpu(), stream);
    v.assign(h.data<double>(), h.data<double>() + len);
  };
  SlotMap map2 = map;
  if (!map.keys) map2.row_of = row_of.valid() ? ptr<std::int64_t>(row_of) : nullptr;

  if (req.any_local() && n > 0) {
    const Vol v{nd == 3 ? labels.shape(0) : 1, labels.shape(nd - 2), labels.shape(nd - 1), nd};
    Array eu, cr, pe;
    if (req.euler) eu = dev_zeros(n, DType::float64, dev, stream);
    if (req.crofton && nd == 2) cr = dev_zeros(n, DType::float64, dev, stream);
    if (req.perimeter && nd == 2) pe = dev_zeros(n, DType::float64, dev, stream);
    if (eu.valid() || cr.valid()) {
      const std::int64_t windows = (nd == 3 ? v.nz + 1 : 1) * (v.ny + 1) * (v.nx + 1);
      windows_kernel<L><<<blocks_for(windows), 256, 0, s>>>(lab, v, map2, eu.valid() ? ptr<double>(eu) : nullptr,
                                                            cr.valid() ? ptr<double>(cr) : nullptr);
      CUSK_CUDA_CHECK(cudaGetLastError());
    }
    if (pe.valid()) {
      perimeter_kernel<L><<<blocks_for(v.ny * v.nx), 256, 0, s>>>(lab, v, map2, ptr<double>(pe));
      CUSK_CUDA_CHECK(cudaGetLastError());
    }
    fetch(eu, st.euler, n);
    fetch(cr, st.crofton, n);
    fetch(pe, st.perimeter, n);
  }
  if (!req.any_pass2() || n == 0) return;

  // Pass 2: moments and squared deviations about pass 1's centroids and means.
  const Pass2Params p2 = pass2_params(st, spacing);
  const int M = st.monomials();
  Array d_lo = upload(p2.lo, dev, stream), d_cen = upload(p2.cen, dev, stream);
  Array d_wcen = upload(p2.wcen, dev, stream), d_mean = upload(p2.mean, dev, stream);
  Array d_sp = upload(spacing, dev, stream);
  Array m_raw, m_cen, wm_raw, wm_cen, sq;
  if (req.moments) {
    m_raw = dev_zeros(n * M, DType::float64, dev, stream);
    m_cen = dev_zeros(n * M, DType::float64, dev, stream);
  }
  const bool weighted = req.weighted_moments && C > 0, sqd = req.intensity_sqdev && C > 0;
  if (weighted) {
    wm_raw = dev_zeros(n * C * M, DType::float64, dev, stream);
    wm_cen = dev_zeros(n * C * M, DType::float64, dev, stream);
  }
  if (sqd) sq = dev_zeros(n * C, DType::float64, dev, stream);
  for (int c0 = 0; c0 < std::max(C, 1); c0 += kMaxCh) {
    Pass2Acc a{};
    a.lo = ptr<std::int64_t>(d_lo);
    a.cen = ptr<double>(d_cen);
    a.wcen = ptr<double>(d_wcen);
    a.mean = ptr<double>(d_mean);
    a.m_raw = m_raw.valid() ? ptr<double>(m_raw) : nullptr;
    a.m_cen = m_cen.valid() ? ptr<double>(m_cen) : nullptr;
    a.wm_raw = weighted ? ptr<double>(wm_raw) : nullptr;
    a.wm_cen = weighted ? ptr<double>(wm_cen) : nullptr;
    a.sqdev = sqd ? ptr<double>(sq) : nullptr;
    a.sp = ptr<double>(d_sp);
    a.nch = C;
    a.c0 = c0;
    a.moments = req.moments && c0 == 0;
    a.weighted = weighted;
    a.sq = sqd;
    a.cc = (weighted || sqd) ? std::min(kMaxCh, C - c0) : 0;
    if (!a.moments && a.cc == 0) continue;
    pass2_kernel<L, T><<<grid, 256, 0, s>>>(lab, in, g, map2, a);
    CUSK_CUDA_CHECK(cudaGetLastError());
  }
  fetch(m_raw, st.m_raw, n * M);
  fetch(m_cen, st.m_cen, n * M);
  fetch(wm_raw, st.wm_raw, n * C * M);
  fetch(wm_cen, st.wm_cen, n * C * M);
  fetch(sq, st.isqdev, n * C);
}

// ---- columns left on the device (regionprops_table_device) ------------------------------------

constexpr int kMaxCols = 48;
struct ColParams {
  DeviceColumnSpec c[kMaxCols];
  void* out[kMaxCols];
  int ncols, nd, C;
  double sp[3], off[3], pixel_area;
};

/// One thread per slot: the present label's row of every requested column.
__global__ void columns_kernel(const u64* __restrict__ cnt, const u64* __restrict__ lo, const u64* __restrict__ hi,
                               const u64* __restrict__ csum, const double* __restrict__ isum,
                               const u64* __restrict__ imin, const u64* __restrict__ imax, std::int64_t S,
                               const std::int64_t* __restrict__ row_of, const std::int64_t* __restrict__ keys,
                               ColParams p) {
  const std::int64_t l = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (l >= S || cnt[l] == 0 || (!keys && l == 0)) return;
  const std::int64_t r = row_of ? row_of[l] : l;
  const double count = static_cast<double>(cnt[l]);
  const int nd = p.nd, C = p.C;
  for (int j = 0; j < p.ncols; ++j) {
    const int i = p.c[j].index;
    double v = 0;
    std::int64_t iv = 0;
    switch (p.c[j].kind) {
      case kColLabel: iv = keys ? keys[l] : l; v = static_cast<double>(iv); break;
      case kColArea: v = count * p.pixel_area; iv = static_cast<std::int64_t>(v); break;
      case kColNumPixels: iv = static_cast<std::int64_t>(cnt[l]); v = count; break;
      case kColBboxLo: iv = static_cast<std::int64_t>(~lo[l * nd + i]); v = static_cast<double>(iv); break;
      case kColBboxHi: iv = static_cast<std::int64_t>(hi[l * nd + i]); v = static_cast<double>(iv); break;
      case kColCentroid: v = static_cast<double>(csum[l * nd + i]) / count * p.sp[i] + p.off[i]; break;
      case kColCentroidLocal:
        v = (static_cast<double>(csum[l * nd + i]) / count - static_cast<double>(~lo[l * nd + i])) * p.sp[i];
        break;
      case kColIntensityMean: v = isum[l * C + i] / count; break;
      case kColIntensityMin: v = dkey_inv(~imin[l * C + i]); break;
      case kColIntensityMax: v = dkey_inv(imax[l * C + i]); break;
      default: break;
    }
    if (p.c[j].integer)
      static_cast<std::int64_t*>(p.out[j])[r] = iv;
    else
      static_cast<double*>(p.out[j])[r] = v;
  }
}

template <class L, class T>
std::vector<Array> run_columns(const Array& labels, const Array& intensity, int nch, const std::vector<double>& spacing,
                               const std::vector<std::int64_t>& offset, const std::vector<DeviceColumnSpec>& specs,
                               const Stream& stream) {
  StatsRequest req;
  for (const auto& c : specs) {
    req.intensity_sum |= c.kind == kColIntensityMean;
    req.intensity_minmax |= c.kind == kColIntensityMin || c.kind == kColIntensityMax;
  }
  Pass1 p1 = run_pass1<L, T>(labels, intensity, nch, req, stream);
  const Device dev = labels.device();
  std::vector<Array> out;
  for (const auto& c : specs) out.push_back(Array::empty({p1.n}, c.integer ? DType::int64 : DType::float64, dev, stream));
  ColParams p{};
  p.nd = labels.ndim();
  p.C = nch;
  p.pixel_area = 1;
  for (int a = 0; a < p.nd; ++a) {
    p.sp[a] = spacing[static_cast<std::size_t>(a)];
    p.off[a] = static_cast<double>(offset[static_cast<std::size_t>(a)]);
    p.pixel_area *= p.sp[a];
  }
  for (std::size_t j0 = 0; j0 < specs.size() && p1.n > 0; j0 += kMaxCols) {
    p.ncols = static_cast<int>(std::min<std::size_t>(kMaxCols, specs.size() - j0));
    for (int j = 0; j < p.ncols; ++j) {
      p.c[j] = specs[j0 + static_cast<std::size_t>(j)];
      p.out[j] = out[j0 + static_cast<std::size_t>(j)].data();
    }
    columns_kernel<<<blocks_for(p1.S), 256, 0, stream.handle()>>>(
        ptr<u64>(p1.cnt), ptr<u64>(p1.lo), ptr<u64>(p1.hi), ptr<u64>(p1.csum),
        p1.isum.valid() ? ptr<double>(p1.isum) : nullptr, p1.imin.valid() ? ptr<u64>(p1.imin) : nullptr,
        p1.imax.valid() ? ptr<u64>(p1.imax) : nullptr, p1.S, p1.row_of.valid() ? ptr<std::int64_t>(p1.row_of) : nullptr,
        p1.map.keys, p);
    CUSK_CUDA_CHECK(cudaGetLastError());
  }
  // The accumulators are freed on the stream (stream-ordered pool): no synchronisation needed.
  return out;
}

}  // namespace

void cuda_region_stats(const Array& labels, const Array& intensity, int nch, const std::vector<double>& spacing,
                       const StatsRequest& req, RegionStats& stats, const Stream& stream) {
  auto with_labels = [&]<class T>() {
    if (labels.dtype() == DType::int32)
      run_stats<std::int32_t, T>(labels, intensity, nch, spacing, req, stats, stream);
    else
      run_stats<std::int64_t, T>(labels, intensity, nch, spacing, req, stats, stream);
  };
  if (nch == 0) {
    with_labels.template operator()<std::uint8_t>();
    return;
  }
  cuskimage::detail::dispatch<cuskimage::detail::Types<std::uint8_t, std::uint16_t, float, double>>(
      intensity.dtype(), "measure.regionprops", with_labels);
}

std::vector<Array> cuda_region_columns(const Array& labels, const Array& intensity, int nch,
                                       const std::vector<double>& spacing, const std::vector<std::int64_t>& offset,
                                       const std::vector<DeviceColumnSpec>& specs, const Stream& stream) {
  std::vector<Array> out;
  auto with_labels = [&]<class T>() {
    if (labels.dtype() == DType::int32)
      out = run_columns<std::int32_t, T>(labels, intensity, nch, spacing, offset, specs, stream);
    else
      out = run_columns<std::int64_t, T>(labels, intensity, nch, spacing, offset, specs, stream);
  };
  if (nch == 0)
    with_labels.template operator()<std::uint8_t>();
  else
    cuskimage::detail::dispatch<cuskimage::detail::Types<std::uint8_t, std::uint16_t, float, double>>(
        intensity.dtype(), "measure.regionprops_table_device", with_labels);
  return out;
}

}  // namespace cuskimage::measure::detail
