// CUDA remove_objects_by_distance: scikit-image's greedy removal, exactly, all on the device.
//
// scikit-image visits objects by decreasing priority; an object still present is kept and removes
// every other object with a boundary pixel within min_distance. The distance relation is symmetric,
// so an object is kept exactly when none of its higher-priority neighbours is kept (a greedy
// independent set). The device builds the relation once and resolves the order in rounds:
//   labels      min/max of the labels (negative labels are rejected), read by the host. (One
//               grid-stride block reduction per block, atomics into LLONG_MAX / LLONG_MIN, so an
//               idle block adds nothing; the host reads the pair after a stream sync. The caller
//               orders inputs made on other streams: labels read unsynchronised from another
//               stream are a labeller's half-written output.)
//   boundary    the boundary pixels (a neighbour in the footprint holds another label, as the CPU's
//               maximum_filter != minimum_filter test; cub::DeviceSelect, C order).
//   objects     the boundary labels sorted (stable radix sort) and numbered in label order; the
//               priority of each object (given, or its pixel count: warp-aggregated atomics, labels
//               mapped through a dense table or a binary search) as an order key (rod_before).
//   grid        points in cells of > min_distance / spacing + 1 pixels (the CPU's grid, widened
//               when it would have more cells than 2x the points), sorted by (cell, object, pixel);
//               a run is one object's points in one cell, with its bounding box.
//   pairs       one thread per (run of object a, adjacent cell) (per run above 3-D) visits the runs
//               of objects b > a there (rod_run_pairs, shared with the tests): boxes farther apart
//               than min_distance are skipped, boxes whose farthest corners are within it are
//               neighbours without a point test, the rest are tested point by point with the CPU's
//               arithmetic (RodMetric;
//               p other than 1, 2, inf: exact for integer powers, else pairs within 1e-12 of the
//               bound are decided on the host with glibc's pow). Pairs (a, b) are appended with
//               warp-aggregated atomics, then sorted and made unique.
//   rounds      each pair becomes an edge from the later object to the earlier one (CSR by the
//               later); an object is removed when an earlier neighbour is kept and kept when all of
//               them are removed. The earliest undecided object can always be decided, so every
//               launch decides at least one; each block loops over its 1024 objects until it makes
//               no progress (chains of equal priorities follow label order, i.e. stay in a block).
//   clear       one pass writes the labels of removed objects as 0.
// Bytes (the benchmark: labels of 4096^2 blobs, int32, 21 k objects, 3.6 M boundary pixels; 337 k
// runs at min_distance 5, 58 k at 20): the label image is read ~4x (stats, boundary, sizes, clear:
// 268 MB) and written once (67 MB); the boundary list (n x 8 B written by the selection: 134 MB)
// and the points' sorts and arrays (~110 B per point: 400 MB): ~0.85 GB, floor ~0.2 ms. The pair
// search is compute bound (a host core needs 160 ms at 5 and 260 ms at 20 for it) and uneven per
// thread; predicted ~2-4 ms at min_distance 5 and ~3-6 ms at 20, with ~8 host round trips.
// Scaling caveat: the relation has one entry per pair of objects within min_distance, so for a
// min_distance spanning many objects it grows quadratically, unlike the CPU's greedy scan.
//
// The kernels are in kernels/morphology/rod_kernels.cuh; this file is the host side, one function
// per step above.
#include <cuda_runtime.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <type_traits>
#include <vector>

#include "kernels/core/buffers.cuh"
#include "kernels/morphology/rod_kernels.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/dispatch.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/remove_by_distance_ops.hpp"

namespace cuskimage::morphology::detail {
namespace rod {
namespace {

// ---- host --------------------------------------------------------------------------------------------

void sort_pairs_u64_u32(Array& keys, Array& vals, std::int64_t m, int end_bit, const Stream& s) {
  const Device dev = keys.device();
  Array k2 = Array::empty({m}, DType::uint64, dev, s);
  Array v2 = Array::empty({m}, DType::uint32, dev, s);
  cub::DoubleBuffer<u64> dk(ptr<u64>(keys), ptr<u64>(k2));
  cub::DoubleBuffer<std::uint32_t> dv(ptr<std::uint32_t>(vals), ptr<std::uint32_t>(v2));
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, dk, dv, m, 0, end_bit, s.handle()));
  Array tmp = scratch(bytes, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, dk, dv, m, 0, end_bit, s.handle()));
  if (dk.Current() != ptr<u64>(keys)) keys = std::move(k2);
  if (dv.Current() != ptr<std::uint32_t>(vals)) vals = std::move(v2);
}

void sort_keys_u64(Array& keys, std::int64_t m, int end_bit, const Stream& s) {
  const Device dev = keys.device();
  Array k2 = Array::empty({m}, DType::uint64, dev, s);
  cub::DoubleBuffer<u64> dk(ptr<u64>(keys), ptr<u64>(k2));
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, bytes, dk, m, 0, end_bit, s.handle()));
  Array tmp = scratch(bytes, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(tmp.data(), bytes, dk, m, 0, end_bit, s.handle()));
  if (dk.Current() != ptr<u64>(keys)) keys = std::move(k2);
}

/// Inclusive sum of uint32 flags; returns the total (synchronises).
std::int64_t inclusive_ids(const Array& flags, Array& ids, std::int64_t m, const Stream& s) {
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes, cptr<std::uint32_t>(flags), ptr<std::uint32_t>(ids), m,
                                                s.handle()));
  {
    Array tmp = scratch(bytes, flags.device(), s);
    CUSK_CUDA_CHECK(cub::DeviceScan::InclusiveSum(tmp.data(), bytes, cptr<std::uint32_t>(flags),
                                                  ptr<std::uint32_t>(ids), m, s.handle()));
  }
  return read_back<std::uint32_t>(cptr<std::uint32_t>(ids) + (m - 1), s);
}

int bits_for(std::uint64_t max_value) { return std::max(1, static_cast<int>(std::bit_width(max_value))); }

/// The largest label; negative ones (or above 2^63 - 1) are rejected, as on the CPU.
template <class T>
std::int64_t label_max(const T* lab, std::int64_t n, Device dev, const Stream& s) {
  const cudaStream_t h = s.handle();
  Array mm = Array::empty({2}, DType::int64, dev, s);
  minmax_init<<<1, 1, 0, h>>>(ptr<long long>(mm));
  CUSK_CUDA_CHECK_LAUNCH();
  minmax_kernel<T><<<std::min<unsigned>(blocks_for(n), 1024), kThreads, 0, h>>>(lab, n, ptr<long long>(mm));
  CUSK_CUDA_CHECK_LAUNCH();
  long long host_mm[2];
  CUSK_CUDA_CHECK(cudaMemcpyAsync(host_mm, mm.data(), sizeof(host_mm), cudaMemcpyDeviceToHost, h));
  s.synchronize();
  if (host_mm[0] < 0) {
    if constexpr (std::is_same_v<T, std::uint64_t>)
      fail(kFn, "argument 'label_image' labels above 2^63 - 1 are not supported");
    else
      fail(kFn, "argument 'label_image' found object with negative ID ", host_mm[0]);
  }
  return host_mm[1];
}

/// The boundary test's neighbourhood: the cross for isotropic spacing and p <= 2, else the full
/// 3^nd block, as linear offsets and per-axis steps.
struct Footprint {
  std::vector<std::int64_t> off_lin;
  std::vector<std::int8_t> off_ax;
};

Footprint boundary_footprint(const Shape& shape, const RodDeviceArgs& args) {
  const int nd = static_cast<int>(shape.size());
  const std::vector<double>& sp = args.spacing;
  const bool isotropic = std::all_of(sp.begin(), sp.end(), [&](double v) { return v == sp[0]; });
  const int fp_conn = (isotropic && args.p_norm <= 2) ? 1 : nd;
  Footprint fp;
  std::vector<std::int64_t> cstr(nd, 1);
  for (int d = nd - 2; d >= 0; --d) cstr[d] = cstr[d + 1] * shape[d + 1];
  int total = 1;
  for (int d = 0; d < nd; ++d) total *= 3;
  for (int t = 0; t < total; ++t) {
    std::vector<std::int8_t> o(nd);
    int rem = t, steps = 0;
    std::int64_t lin = 0;
    for (int d = nd - 1; d >= 0; --d) {
      o[d] = static_cast<std::int8_t>(rem % 3 - 1);
      rem /= 3;
      steps += o[d] != 0;
      lin += o[d] * cstr[d];
    }
    if (steps == 0 || steps > fp_conn) continue;
    fp.off_lin.push_back(lin);
    fp.off_ax.insert(fp.off_ax.end(), o.begin(), o.end());
  }
  return fp;
}

/// The boundary pixels in C order into pix (n slots); returns their count m (synchronises).
/// nsel: one int64 of device scratch, reused by the caller.
template <class T>
std::int64_t boundary_pixels(const T* lab, std::int64_t n, const Dims& g, const Footprint& fp, Array& pix, Array& nsel,
                             const Stream& s) {
  const Device dev = pix.device();
  const cudaStream_t h = s.handle();
  const Array d_off_lin = Array::from_vector(fp.off_lin, {static_cast<std::int64_t>(fp.off_lin.size())}).to(dev, s);
  const Array d_off_ax = Array::from_vector(fp.off_ax, {static_cast<std::int64_t>(fp.off_ax.size())}).to(dev, s);
  const IsBorder<T> pred{lab, g, cptr<std::int64_t>(d_off_lin), cptr<std::int8_t>(d_off_ax),
                         static_cast<int>(fp.off_lin.size())};
  const thrust::counting_iterator<std::int64_t> in(0);
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes, in, ptr<std::int64_t>(pix), ptr<std::int64_t>(nsel), n, pred, h));
  {
    Array tmp = scratch(bytes, dev, s);
    CUSK_CUDA_CHECK(
        cub::DeviceSelect::If(tmp.data(), bytes, in, ptr<std::int64_t>(pix), ptr<std::int64_t>(nsel), n, pred, h));
  }
  return read_back<std::int64_t>(nsel.data(), s);
}

/// The objects met on the boundary, numbered in label order: `order` holds the boundary points
/// sorted by (object, pixel), obj_of[point] its object, obj_label[object] its label; flags and ids
/// are m-slot scratch the later steps reuse.
struct Objects {
  Array order, flags, ids, obj_of, obj_label;
  std::int64_t k = 0;
};

template <class T>
Objects number_boundary_objects(const T* lab, const Array& pix, std::int64_t m, std::int64_t max_label,
                                const Stream& s) {
  const Device dev = pix.device();
  const cudaStream_t h = s.handle();
  Objects o;
  Array keys = Array::empty({m}, DType::uint64, dev, s);
  o.order = Array::empty({m}, DType::uint32, dev, s);
  gather_labels<T><<<blocks_for(m), kThreads, 0, h>>>(lab, cptr<std::int64_t>(pix), m, ptr<u64>(keys),
                                                      ptr<std::uint32_t>(o.order));
  CUSK_CUDA_CHECK_LAUNCH();
  sort_pairs_u64_u32(keys, o.order, m, bits_for(static_cast<std::uint64_t>(max_label)), s);
  o.flags = Array::empty({m}, DType::uint32, dev, s);
  o.ids = Array::empty({m}, DType::uint32, dev, s);
  head_flags<<<blocks_for(m), kThreads, 0, h>>>(cptr<u64>(keys), nullptr, m, ptr<std::uint32_t>(o.flags));
  CUSK_CUDA_CHECK_LAUNCH();
  o.k = inclusive_ids(o.flags, o.ids, m, s);
  o.obj_of = Array::empty({m}, DType::int32, dev, s);
  o.obj_label = Array::empty({o.k}, DType::uint64, dev, s);
  number_objects<<<blocks_for(m), kThreads, 0, h>>>(cptr<u64>(keys), cptr<std::uint32_t>(o.order),
                                                    cptr<std::uint32_t>(o.ids), m, ptr<std::int32_t>(o.obj_of),
                                                    ptr<u64>(o.obj_label));
  CUSK_CUDA_CHECK_LAUNCH();
  return o;
}

/// The boundary points in grid cells, sorted by (cell, object, pixel), and their runs (one
/// object's points in one cell) with bounding boxes and each cell's first run.
struct CellRuns {
  RodGrid grid;
  Array s_pos, s_pix, run_start, run_obj, run_cell, run_lo, run_hi, cell_first;
  std::int64_t nr = 0;
};

CellRuns cell_runs(const Array& pix, std::int64_t m, const Dims& g, const Shape& shape, const RodDeviceArgs& args,
                   Objects& ob, const Stream& s) {
  const Device dev = pix.device();
  const cudaStream_t h = s.handle();
  const int nd = g.nd;
  const std::vector<double>& sp = args.spacing;
  CellRuns c;
  c.grid = RodGrid::make(shape, args.min_distance, sp);
  c.grid.coarsen(shape, std::max<std::int64_t>(2 * m, 1 << 16));
  Spacing spv{};
  for (int d = 0; d < nd; ++d) spv.v[d] = sp[d];
  Array pos = Array::empty({m * nd}, DType::float64, dev, s);
  Array pcell = Array::empty({m}, DType::uint64, dev, s);
  point_cells<<<blocks_for(m), kThreads, 0, h>>>(cptr<std::int64_t>(pix), m, g, c.grid, spv, ptr<double>(pos),
                                                 ptr<u64>(pcell));
  CUSK_CUDA_CHECK_LAUNCH();
  // `order` is by (object, pixel) already: a sort by cell keeps that order within a cell.
  Array ckeys = Array::empty({m}, DType::uint64, dev, s);
  gather_cells<<<blocks_for(m), kThreads, 0, h>>>(cptr<u64>(pcell), cptr<std::uint32_t>(ob.order), m, ptr<u64>(ckeys));
  CUSK_CUDA_CHECK_LAUNCH();
  sort_pairs_u64_u32(ckeys, ob.order, m, bits_for(static_cast<std::uint64_t>(c.grid.cells - 1)), s);
  Array s_obj = Array::empty({m}, DType::int32, dev, s);
  c.s_pos = Array::empty({m * nd}, DType::float64, dev, s);
  c.s_pix = Array::empty({m}, DType::int64, dev, s);
  gather_points<<<blocks_for(m), kThreads, 0, h>>>(cptr<std::uint32_t>(ob.order), m, nd, cptr<std::int32_t>(ob.obj_of),
                                                   cptr<double>(pos), cptr<std::int64_t>(pix), ptr<std::int32_t>(s_obj),
                                                   ptr<double>(c.s_pos), ptr<std::int64_t>(c.s_pix));
  CUSK_CUDA_CHECK_LAUNCH();
  head_flags<<<blocks_for(m), kThreads, 0, h>>>(cptr<u64>(ckeys), cptr<std::int32_t>(s_obj), m,
                                                ptr<std::uint32_t>(ob.flags));
  CUSK_CUDA_CHECK_LAUNCH();
  const std::int64_t nr = c.nr = inclusive_ids(ob.flags, ob.ids, m, s);
  c.run_start = Array::empty({nr + 1}, DType::int64, dev, s);
  c.run_obj = Array::empty({nr}, DType::int32, dev, s);
  c.run_cell = Array::empty({nr}, DType::uint64, dev, s);
  make_runs<<<blocks_for(m), kThreads, 0, h>>>(cptr<u64>(ckeys), cptr<std::int32_t>(s_obj), cptr<std::uint32_t>(ob.ids),
                                               m, ptr<std::int64_t>(c.run_start), ptr<std::int32_t>(c.run_obj),
                                               ptr<u64>(c.run_cell));
  CUSK_CUDA_CHECK_LAUNCH();
  c.run_lo = Array::empty({nr * nd}, DType::float64, dev, s);
  c.run_hi = Array::empty({nr * nd}, DType::float64, dev, s);
  run_boxes<<<blocks_for(nr), kThreads, 0, h>>>(cptr<std::int64_t>(c.run_start), nr, nd, cptr<double>(c.s_pos),
                                                ptr<double>(c.run_lo), ptr<double>(c.run_hi));
  CUSK_CUDA_CHECK_LAUNCH();
  c.cell_first = Array::empty({c.grid.cells + 1}, DType::int64, dev, s);
  cell_first_runs<<<blocks_for(c.grid.cells + 1), kThreads, 0, h>>>(cptr<u64>(c.run_cell), nr, c.grid.cells,
                                                                    ptr<std::int64_t>(c.cell_first));
  CUSK_CUDA_CHECK_LAUNCH();
  return c;
}

/// The object pairs within min_distance as (a << 32 | b) records, duplicates included: the device
/// search (re-run with larger buffers when the first guess was short), then the borderline pairs
/// decided on the host. Returns the record count (rec holds at least that many).
std::int64_t neighbour_pairs(const CellRuns& c, int nd, const RodDeviceArgs& args, Array& rec, const Stream& s) {
  const Device dev = c.s_pos.device();
  const cudaStream_t h = s.handle();
  const std::int64_t nr = c.nr;
  Array counts = Array::empty({2}, DType::uint64, dev, s);
  const int split = nd == 1 ? 3 : nd == 2 ? 9 : nd == 3 ? 27 : 1;
  u64 rec_cap = static_cast<u64>(std::max<std::int64_t>(8 * nr, 1 << 20)), bl_cap = 1024;
  Array bl;
  u64 host_counts[2] = {0, 0};
  for (;;) {
    rec = Array::empty({static_cast<std::int64_t>(rec_cap)}, DType::uint64, dev, s);
    bl = Array::empty({static_cast<std::int64_t>(bl_cap * sizeof(Borderline))}, DType::uint8, dev, s);
    CUSK_CUDA_CHECK(cudaMemsetAsync(counts.data(), 0, 2 * sizeof(u64), h));
    const RodRuns runs{cptr<std::int32_t>(c.run_obj), cptr<std::int64_t>(c.run_start), cptr<std::uint64_t>(c.run_cell),
                       cptr<double>(c.run_lo),          cptr<double>(c.run_hi),         cptr<std::int64_t>(c.cell_first),
                       cptr<double>(c.s_pos),           nr};
    PairArgs pa{runs,          split,   cptr<std::int64_t>(c.s_pix), c.grid, RodMetric::make(args.p_norm, args.min_distance, nd),
                ptr<u64>(rec), rec_cap, ptr<u64>(counts),            ptr<Borderline>(bl), bl_cap, ptr<u64>(counts) + 1};
    pairs_kernel<<<exact_blocks(nr * split, kThreads), kThreads, 0, h>>>(pa);
    CUSK_CUDA_CHECK_LAUNCH();
    CUSK_CUDA_CHECK(cudaMemcpyAsync(host_counts, counts.data(), sizeof(host_counts), cudaMemcpyDeviceToHost, h));
    s.synchronize();
    if (host_counts[0] <= rec_cap && host_counts[1] <= bl_cap) break;
    rec_cap = std::max<u64>(rec_cap, host_counts[0]);
    bl_cap = std::max<u64>(bl_cap, host_counts[1]);
  }
  std::int64_t nrec = static_cast<std::int64_t>(host_counts[0]);
  if (host_counts[1] == 0) return nrec;
  // Pairs too close to the bound to call with the device's pow: the CPU's test decides.
  std::vector<Borderline> hb(static_cast<std::size_t>(host_counts[1]));
  CUSK_CUDA_CHECK(cudaMemcpyAsync(hb.data(), bl.data(), hb.size() * sizeof(Borderline), cudaMemcpyDeviceToHost, h));
  s.synchronize();
  std::vector<std::uint64_t> extra;
  for (const Borderline& b : hb)
    if (args.within(args.within_ctx, b.pa, b.pb)) extra.push_back((static_cast<u64>(b.a) << 32) | static_cast<std::uint32_t>(b.b));
  if (!extra.empty()) {
    Array all = Array::empty({nrec + static_cast<std::int64_t>(extra.size())}, DType::uint64, dev, s);
    if (nrec > 0)
      CUSK_CUDA_CHECK(cudaMemcpyAsync(all.data(), rec.data(), static_cast<std::size_t>(nrec) * sizeof(u64),
                                      cudaMemcpyDeviceToDevice, h));
    const Array up = Array::from_vector(extra, {static_cast<std::int64_t>(extra.size())}).to(dev, s);
    CUSK_CUDA_CHECK(cudaMemcpyAsync(ptr<u64>(all) + nrec, up.data(), extra.size() * sizeof(u64),
                                    cudaMemcpyDeviceToDevice, h));
    rec = std::move(all);
    nrec += static_cast<std::int64_t>(extra.size());
  }
  return nrec;
}

/// The unique pairs of rec[0, nrec) (sorted) into pairs; returns their count (synchronises).
std::int64_t unique_pairs(Array& rec, std::int64_t nrec, std::int64_t k, Array& pairs, Array& nsel, const Stream& s) {
  const Device dev = rec.device();
  const cudaStream_t h = s.handle();
  sort_keys_u64(rec, nrec, 32 + bits_for(static_cast<std::uint64_t>(k)), s);
  pairs = Array::empty({nrec}, DType::uint64, dev, s);
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceSelect::Unique(nullptr, bytes, cptr<u64>(rec), ptr<u64>(pairs), ptr<std::int64_t>(nsel),
                                            nrec, h));
  {
    Array tmp = scratch(bytes, dev, s);
    CUSK_CUDA_CHECK(cub::DeviceSelect::Unique(tmp.data(), bytes, cptr<u64>(rec), ptr<u64>(pairs),
                                              ptr<std::int64_t>(nsel), nrec, h));
  }
  return read_back<std::int64_t>(nsel.data(), s);
}

/// Each object's order key (rod_before): from the given priorities, or from its pixel count.
/// `lut` keeps the dense label table `look` points into.
template <class T>
Array order_keys(const T* lab, std::int64_t n, std::int64_t max_label, const Objects& ob, const RodDeviceArgs& args,
                 Array& lut, ObjLookup& look, const Stream& s) {
  const Device dev = ob.obj_label.device();
  const cudaStream_t h = s.handle();
  const std::int64_t K = ob.k;
  const bool dense = static_cast<std::int64_t>(max_label) < std::max<std::int64_t>(n, 1 << 20);
  if (dense) {
    lut = Array::empty({max_label + 1}, DType::int32, dev, s);
    CUSK_CUDA_CHECK(cudaMemsetAsync(lut.data(), 0xff, static_cast<std::size_t>(max_label + 1) * sizeof(std::int32_t), h));
    fill_lut<<<blocks_for(K), kThreads, 0, h>>>(cptr<u64>(ob.obj_label), K, ptr<std::int32_t>(lut));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  look = ObjLookup{dense ? cptr<std::int32_t>(lut) : nullptr, cptr<u64>(ob.obj_label), K};
  Array okey = Array::empty({K}, DType::uint64, dev, s);
  if (args.priority.valid()) {
    priority_keys<<<blocks_for(K), kThreads, 0, h>>>(cptr<u64>(ob.obj_label), K, cptr<double>(args.priority), nullptr,
                                                     ptr<u64>(okey));
  } else {
    Array cnt = Array::zeros({K}, DType::uint64, dev, s);
    count_pixels<T><<<blocks_for(n), kThreads, 0, h>>>(lab, n, look, ptr<u64>(cnt));
    CUSK_CUDA_CHECK_LAUNCH();
    priority_keys<<<blocks_for(K), kThreads, 0, h>>>(cptr<u64>(ob.obj_label), K, nullptr, cptr<u64>(cnt),
                                                     ptr<u64>(okey));
  }
  CUSK_CUDA_CHECK_LAUNCH();
  return okey;
}

/// The greedy order resolved: edges from the later object of each pair to the earlier (CSR by the
/// later), then rounds until no object is undecided. Returns each object's state (2: removed).
Array resolve_objects(const Array& pairs, std::int64_t E, std::int64_t K, const Array& okey, const Stream& s) {
  const Device dev = pairs.device();
  const cudaStream_t h = s.handle();
  Array edges = Array::empty({E}, DType::uint64, dev, s);
  direct_edges<<<blocks_for(E), kThreads, 0, h>>>(cptr<u64>(pairs), E, cptr<u64>(okey), ptr<u64>(edges));
  CUSK_CUDA_CHECK_LAUNCH();
  sort_keys_u64(edges, E, 32 + bits_for(static_cast<std::uint64_t>(K)), s);
  Array eoff = Array::empty({K + 1}, DType::int64, dev, s);
  edge_offsets<<<blocks_for(K + 1), kThreads, 0, h>>>(cptr<u64>(edges), E, K, ptr<std::int64_t>(eoff));
  CUSK_CUDA_CHECK_LAUNCH();
  Array state = Array::zeros({K}, DType::uint8, dev, s);
  Array und = Array::empty({1}, DType::uint64, dev, s);
  const unsigned rblocks = exact_blocks(K, kResolveThreads * kResolveItems);
  for (int batch = 1;; batch = std::min(batch * 2, 8)) {
    for (int b = 0; b < batch; ++b) {
      CUSK_CUDA_CHECK(cudaMemsetAsync(und.data(), 0, sizeof(u64), h));
      resolve_kernel<<<rblocks, kResolveThreads, 0, h>>>(cptr<u64>(edges), cptr<std::int64_t>(eoff), K,
                                                         ptr<std::uint8_t>(state), 2, ptr<u64>(und));
      CUSK_CUDA_CHECK_LAUNCH();
    }
    if (read_back<u64>(und.data(), s) == 0) break;
  }
  return state;
}

template <class T>
Array run(const Array& labels, const RodDeviceArgs& args, const Stream& s) {
  const Device dev = labels.device();
  const cudaStream_t h = s.handle();
  const Shape& shape = labels.shape();
  const int nd = labels.ndim();
  const std::int64_t n = labels.size();
  const T* lab = cptr<T>(labels);
  Array out = Array::empty(shape, labels.dtype(), dev, s);
  auto copy_input = [&] {
    CUSK_CUDA_CHECK(cudaMemcpyAsync(out.data(), labels.data(), static_cast<std::size_t>(n) * sizeof(T),
                                    cudaMemcpyDeviceToDevice, h));
    return std::move(out);
  };
  if (n == 0) return out;
  const std::int64_t max_label = label_max<T>(lab, n, dev, s);
  Dims g{};
  g.nd = nd;
  for (int d = 0; d < nd; ++d) g.shape[d] = shape[d];
  Array pix = Array::empty({n}, DType::int64, dev, s);
  Array nsel = Array::empty({1}, DType::int64, dev, s);
  const std::int64_t m = boundary_pixels<T>(lab, n, g, boundary_footprint(shape, args), pix, nsel, s);
  if (m == 0) return copy_input();  // no object, or one filling the image
  if (m >= (std::int64_t(1) << 31))
    fail<NotSupported>(kFn, "the CUDA backend handles up to 2^31 - 1 boundary pixels, got ", m);
  if (args.priority.valid())
    expect(args.priority.size() > max_label, kFn, "priority", "shape of `priority` must be (",
           "max(label_image) + 1,) = (", max_label + 1, ",), got (", args.priority.size(), ",)");
  Objects ob = number_boundary_objects<T>(lab, pix, m, max_label, s);
  if (ob.k == 1) return copy_input();  // a single object: nothing to remove
  const CellRuns cr = cell_runs(pix, m, g, shape, args, ob, s);
  Array rec;
  const std::int64_t nrec = neighbour_pairs(cr, nd, args, rec, s);
  if (nrec == 0) return copy_input();  // no two objects within min_distance
  Array pairs;
  const std::int64_t E = unique_pairs(rec, nrec, ob.k, pairs, nsel, s);
  Array lut;
  ObjLookup look{};
  const Array okey = order_keys<T>(lab, n, max_label, ob, args, lut, look, s);
  const Array state = resolve_objects(pairs, E, ob.k, okey, s);
  clear_kernel<T><<<blocks_for(n), kThreads, 0, h>>>(lab, n, look, cptr<std::uint8_t>(state), ptr<T>(out));
  CUSK_CUDA_CHECK_LAUNCH();
  return out;
}

}  // namespace
}  // namespace rod

Array cuda_remove_objects_by_distance(const Array& labels, const RodDeviceArgs& args, const Stream& stream) {
  return cuskimage::detail::dispatch<cuskimage::detail::IntegerTypes>(
      labels.dtype(), rod::kFn, [&]<class T>() { return rod::run<T>(labels, args, stream); });
}

}  // namespace cuskimage::morphology::detail
