// CUDA measure.label: tiles labelled in shared memory, a sparse union-find across tile faces, and
// labels numbered in raster order of each region's first pixel as scikit-image numbers them.
// The kernels are in kernels/measure/label_kernels.cuh.
//
// Tiles are 32 x 32 pixels in 1-D and 2-D, 32 x 8 x 4 in 3-D, one warp each (a row per lane).
//  1. local:  each warp labels its tile over row runs (ballots, a union-find over runs with shared
//             atomics, roots = first runs) and writes only sparse data: parent[R] = R and bit R of
//             a root bitmap for each tile-local root R (its first pixel, so also the component's
//             smallest global index), the in-tile position of every face pixel's root (uint16)
//             into per-axis face buffers, and the tile's record for pass 5: per row the foreground and run-start
//             masks (8 B), per run the ordinal of its tile-local root run (uint16). Bool, uint8
//             and int8 images with 16-byte aligned rows are read a row per lane in two 16-byte
//             words (masks by byte arithmetic, neighbour rows' bytes by shuffles, no ballots);
//             other images a pixel per lane and row (keys compared in shared memory). The parent array is not initialised:
//             only roots are ever read.
//  2. faces:  a warp per tile joins the roots of touching pixels across the tile's backward z, y
//             and x faces (kernels/core/union_find.cuh: atomicMin, the smaller index wins, so a
//             region's root is its first pixel), skipping unions of a root pair already handled
//             by the previous lane or an earlier offset; the next face row is loaded while the
//             current one's unions run.
//  3. roots:  each tile-local root that lost its root status takes its final root as parent and
//             leaves the bitmap, which then marks exactly the regions' first pixels.
//  4. scan:   exclusive scan of the bitmap words' popcounts (CUB): label of root r = the roots
//             before it + 1, read off the scan and one popcount.
//  5. final:  from the tile's record alone (the image is not read again), the root runs fetch
//             their region's label, every run takes its root's, and the warp writes every pixel
//             of the tile in 16-byte words (rows of a multiple of 16 bytes), else a label per lane.
// The count, when asked for, is the scan's last entry (the only host synchronisation).
//
// Traffic, 8192^2 bool -> int32 (blobs, ~1.2 M tile-local roots, 65,536 tiles): pass 1 reads
// 67 MB and writes ~16 MB of faces, ~40 MB of sparse roots (sectors), 16 MB of row masks and
// ~8 MB of run records; faces read 16 MB plus their finds; roots and scan ~8 MB each; pass 5 reads
// ~25 MB of records and the roots' parents (~40 MB of sectors) and writes 268 MB: ~0.5 GB in
// all, 0.12 ms at 4.2 TB/s, against the 0.08 ms floor of one read and one write. Predicted
// (H200): local 0.10, faces 0.05, roots 0.03, scan 0.016, final 0.09 ms: ~0.3 ms. 512^3
// (32 x 8 x 4 tiles) adds face entries of 0.81 per pixel (2 B each, written once, read once).
// Indices are int32 below 2^31 pixels, int64 above; the parent array is the output itself when
// the two have the same width.
//
// One variant per image: the sweeps' alternatives (column loads for aligned 1-byte rows, a grid of
// resident blocks, the next tile's words prefetched, a label per lane in pass 5, face rows loaded
// after the previous row's unions) were all slower (8192^2 blobs on the H200: within 0.445-0.48 ms,
// column loads 0.570) and are gone. Column loads and per-lane stores remain the paths of the
// images the 16-byte words do not fit.
#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "kernels/measure/label_kernels.cuh"
#include "src/core/cuda_check.hpp"
#include "src/core/validate.hpp"

namespace cuskimage::measure::detail {
namespace {

using lbl::Faces;
using lbl::Geom;
using lbl::Work;

/// Popcount of root-bitmap word i (0 past the end, so the scan's last entry is the total).
template <class I>
struct WordCount {
  const unsigned* roots;
  std::int64_t nwords;
  __device__ I operator()(std::int64_t i) const { return i < nwords ? static_cast<I>(__popc(roots[i])) : I(0); }
};

unsigned blocks_for(std::int64_t items, std::int64_t per_block) {
  return static_cast<unsigned>(std::clamp<std::int64_t>((items + per_block - 1) / per_block, 1, 1 << 24));
}

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

template <class T, class I, class L, int TY, int TZ>
void label_tiles(const Array& in, Array& out, Geom g, const LabelKey& key, int conn, std::int64_t* num,
                 const Stream& s) {
  const cudaStream_t stream = s.handle();
  const Device dev = in.device();
  const DType idt = sizeof(I) == 4 ? DType::int32 : DType::int64;
  const std::int64_t n = g.nz * g.ny * g.nx;
  g.tiles_x = (g.nx + 31) / 32;
  g.tiles_y = (g.ny + TY - 1) / TY;
  g.tiles_z = (g.nz + TZ - 1) / TZ;
  g.ntiles = g.tiles_x * g.tiles_y * g.tiles_z;
  if (g.ntiles >= (std::int64_t(1) << 31))  // 2^41 pixels: tile numbers are 32-bit in the kernels
    cuskimage::detail::fail<NotSupported>("measure.label", "image of ", n, " pixels is too large");
  constexpr int kMaxRuns = lbl::max_runs<T>();

  Array parent_buf;
  I* parent = nullptr;
  if constexpr (sizeof(I) == sizeof(L)) {
    parent = static_cast<I*>(out.data());  // only roots are written before pass 5 overwrites everything
  } else {
    parent_buf = Array::empty({n}, idt, dev, s);
    parent = static_cast<I*>(parent_buf.data());
  }
  const std::int64_t nwords = (n + 31) / 32;
  Array roots_buf = Array::empty({nwords}, DType::uint32, dev, s);
  Array first_buf = Array::empty({nwords + 1}, idt, dev, s);
  unsigned* roots = static_cast<unsigned*>(roots_buf.data());
  I* first = static_cast<I*>(first_buf.data());
  Array rows_buf = Array::empty({g.ntiles * 64}, DType::uint32, dev, s);
  Array runs_buf = Array::empty({g.ntiles * kMaxRuns}, DType::uint16, dev, s);
  const Work work{static_cast<uint2*>(rows_buf.data()), static_cast<std::uint16_t*>(runs_buf.data())};

  const lbl::FaceCounts fc = lbl::face_counts(g);
  Array face_buf = Array::empty({std::max<std::int64_t>(fc.total(), 1)}, DType::uint16, dev, s);
  const Faces f = lbl::carve_faces(static_cast<std::uint16_t*>(face_buf.data()), fc);

  const T* ip = static_cast<const T*>(in.data());
  L* op = static_cast<L*>(out.data());

  // 1. local
  CUSK_CUDA_CHECK(cudaMemsetAsync(roots, 0, static_cast<std::size_t>(nwords) * sizeof(unsigned), stream));
  {
    auto launch = [&]<int kMode>(std::integral_constant<int, kMode>) {
      constexpr int W = lbl::warps_for<lbl::LocalSmem<T, kMode>>();
      lbl::local_kernel<T, I, TY, TZ, kMode>
          <<<blocks_for(g.ntiles, W), 32 * W, 0, stream>>>(ip, parent, roots, f, work, g, key, conn);
      CUSK_CUDA_CHECK_LAUNCH();
    };
    bool done = false;
    if constexpr (sizeof(T) == 1 && std::is_integral_v<T>) {  // bool, uint8, int8
      if (g.nx % 16 == 0 && aligned16(ip)) {
        launch(std::integral_constant<int, lbl::kLoadWide>{});
        done = true;
      }
    }
    if (!done) launch(std::integral_constant<int, 0>{});
  }
  // 2. faces
  if (g.ntiles > 1) {
    lbl::face_kernel<T, I, TY, TZ>
        <<<blocks_for(g.ntiles, 8), 256, 0, stream>>>(ip, parent, f, g, key, conn);
    CUSK_CUDA_CHECK_LAUNCH();
  }
  // 3. roots
  lbl::roots_kernel<I><<<blocks_for(nwords, 256), 256, 0, stream>>>(parent, roots, nwords);
  CUSK_CUDA_CHECK_LAUNCH();
  // 4. scan
  {
    const auto counts = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0),
                                                        WordCount<I>{roots, nwords});
    const I items = static_cast<I>(nwords + 1);
    std::size_t tmp_bytes = 0;
    CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, counts, first, items, stream));
    Array tmp = Array::empty({static_cast<std::int64_t>(std::max<std::size_t>(tmp_bytes, 1))}, DType::uint8, dev, s);
    CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp.data(), tmp_bytes, counts, first, items, stream));
  }
  // 5. final
  {
    const int mode = g.nx % static_cast<std::int64_t>(16 / sizeof(L)) == 0 && aligned16(op)
                         ? lbl::kStoreWide
                         : 0;
    lbl::final_kernel<I, L, TY, TZ, kMaxRuns>
        <<<blocks_for(g.ntiles, 4), 128, 0, stream>>>(work, parent, roots, first, op, g, mode);
    CUSK_CUDA_CHECK_LAUNCH();
  }
  if (num) {
    I total = 0;
    CUSK_CUDA_CHECK(cudaMemcpyAsync(&total, first + nwords, sizeof(I), cudaMemcpyDeviceToHost, stream));
    CUSK_CUDA_CHECK(cudaStreamSynchronize(stream));
    *num = static_cast<std::int64_t>(total);
  }
}

template <class T, class I, class L>
void label_typed(const Array& in, Array& out, const LabelKey& key, int connectivity, std::int64_t* num,
                 const Stream& stream) {
  const int nd = in.ndim();
  Geom g{1, 1, 1, 0, 0, 0, 0};
  std::int64_t* dims[3] = {&g.nz, &g.ny, &g.nx};
  for (int d = 0; d < nd; ++d) *dims[3 - nd + d] = in.shape()[d];
  if (nd == 3 && g.nz > 1) {
    label_tiles<T, I, L, 8, 4>(in, out, g, key, connectivity, num, stream);
  } else {
    // 1-D and 2-D; a single plane of a volume is a 2-D image (its z neighbours do not exist, and
    // connectivity 3 reaches no further than 2 inside a plane).
    label_tiles<T, I, L, 32, 1>(in, out, g, key, std::min(connectivity, 2), num, stream);
  }
}

}  // namespace

template <class T>
void cuda_label(const Array& in, Array& out, const LabelKey& key, int connectivity, std::int64_t* num,
                const Stream& stream) {
  if (in.size() == 0) {
    if (num) *num = 0;
    return;
  }
  const bool big = in.size() >= (std::int64_t(1) << 31);
  const bool l32 = out.dtype() == DType::int32;
  if (big) {
    if (l32)
      label_typed<T, std::int64_t, std::int32_t>(in, out, key, connectivity, num, stream);
    else
      label_typed<T, std::int64_t, std::int64_t>(in, out, key, connectivity, num, stream);
  } else {
    if (l32)
      label_typed<T, std::int32_t, std::int32_t>(in, out, key, connectivity, num, stream);
    else
      label_typed<T, std::int32_t, std::int64_t>(in, out, key, connectivity, num, stream);
  }
}

#define CUSK_LABEL_CUDA(T) \
  template void cuda_label<T>(const Array&, Array&, const LabelKey&, int, std::int64_t*, const Stream&);
CUSK_LABEL_CUDA(bool)
CUSK_LABEL_CUDA(std::uint8_t)
CUSK_LABEL_CUDA(std::int8_t)
CUSK_LABEL_CUDA(std::uint16_t)
CUSK_LABEL_CUDA(std::int16_t)
CUSK_LABEL_CUDA(std::uint32_t)
CUSK_LABEL_CUDA(std::int32_t)
CUSK_LABEL_CUDA(std::uint64_t)
CUSK_LABEL_CUDA(std::int64_t)
CUSK_LABEL_CUDA(float)
CUSK_LABEL_CUDA(double)
#undef CUSK_LABEL_CUDA

}  // namespace cuskimage::measure::detail
