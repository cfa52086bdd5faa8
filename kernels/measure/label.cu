// CUDA measure.label: a block-based union-find in a fixed number of passes (Playne & Hawick 2018's
// family), numbering labels in raster order of each region's first pixel as scikit-image does.
//
//  1. local:   each block loads a tile (512 pixels: 512 x 1, 32 x 16 or 32 x 4 x 4) into shared
//              memory, joins equal-valued neighbours inside the tile with shared-memory atomics and
//              writes parent[i] = the tile component's first pixel (global index).
//  2. border:  pixels with a backward neighbour in another tile join the global trees, one thread
//              per such face pixel (a launch over every pixel kept each block alive for its
//              slowest face warp: 2.0 ms of 4.1 on 8192^2 blobs on the H200)
//              (kernels/filters/ccl.cuh: the root is always the smaller index, so a region's root
//              is its first pixel in raster order).
//  3. flatten: parent[i] = root; roots are counted per image row (z, y).
//  4. number:  an exclusive scan of the row counts, then one block per row ranks its roots
//              (block scan) and writes their labels; finally every other pixel copies its root's.
// Traffic for 8192^2 uint8 -> int32 labels: input 1 B, parents ~4 B written + ~8 B read, labels
// 4 B written + the root gathers (L2): ~20 B/pixel = 1.3 GB, floor ~0.32 ms at 4.2 TB/s; the
// border pass touches ~9% of the pixels (32 x 16 tiles). Indices are int32 below 2^31 pixels,
// int64 above.
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

#include "kernels/filters/ccl.cuh"
#include "src/core/cuda_check.hpp"
#include "src/measure/label.hpp"

namespace cuskimage::measure::detail {
namespace {

using cuskimage::filters::detail::ccl_find;
using cuskimage::filters::detail::ccl_union;

struct Geom {
  std::int64_t nz, ny, nx;
  std::int64_t tiles_y, tiles_z;  // tile counts along y and z (the grid may be smaller: loops)
};

// Shared-memory find with path halving (safe beside local_union's atomics for the reasons given at
// ccl_find_halve: parents only move to smaller members of the same set; roots are never written).
__device__ __forceinline__ int local_find(volatile int* p, int x) {
  int q = p[x];
  while (q != x) {
    const int g = p[q];
    if (g != q) p[x] = g;
    x = q;
    q = g;
  }
  return x;
}

__device__ __forceinline__ void local_union(int* p, int a, int b) {
  bool done = false;
  do {
    a = local_find(p, a);
    b = local_find(p, b);
    if (a < b) {
      const int old = atomicMin(&p[b], a);
      done = old == b;
      b = old;
    } else if (b < a) {
      const int old = atomicMin(&p[a], b);
      done = old == a;
      a = old;
    } else {
      done = true;
    }
  } while (!done);
}

/// Whether offset (dz, dy, dx) is a neighbour under `conn` hops (|d| <= 1 per axis, not zero).
__device__ __forceinline__ bool is_neighbour(int dz, int dy, int dx, int conn) {
  const int az = dz < 0 ? -dz : dz, ay = dy < 0 ? -dy : dy, ax = dx < 0 ? -dx : dx;
  const int h = az + ay + ax;
  return az <= 1 && ay <= 1 && ax <= 1 && h > 0 && h <= conn;
}

// Redundant unions. A union of pixel l with its backward neighbour m is implied by others, and
// skipped, when
//   (a) m - x is foreground with m's key and is itself a neighbour of l (l joins m - x, and m - x
//       joins m along the row), or
//   (b) l - x is foreground with l's key and m is a neighbour of l - x (l - x joins m, and l joins
//       l - x along the row).
// Only steps along x are used: the pair (l, l - x) is then never skipped, and induction on l, then
// on m, shows every skipped pair is implied by performed ones. For foreground blobs this leaves
// about one union per row run instead of one per neighbour pair (13 per pixel in 3-D).

template <class T, class I>
__global__ void __launch_bounds__(512)
    local_kernel(const T* __restrict__ in, I* __restrict__ parent, Geom g, LabelKey key, LabelNeighbours nb, int conn) {
  __shared__ std::int64_t s_key[512];
  __shared__ int s_par[512];
  const int TX = blockDim.x, TY = blockDim.y, TZ = blockDim.z;
  const int lx = threadIdx.x, ly = threadIdx.y, lz = threadIdx.z;
  const int l = (lz * TY + ly) * TX + lx;
  const int lane = l & 31;  // TX is 32 or 512: a warp is 32 consecutive pixels of one tile row
  const std::int64_t x = std::int64_t(blockIdx.x) * TX + lx;
  for (std::int64_t bz = blockIdx.z; bz < g.tiles_z; bz += gridDim.z) {
    for (std::int64_t by = blockIdx.y; by < g.tiles_y; by += gridDim.y) {
      const std::int64_t y = by * TY + ly, z = bz * TZ + lz;
      const bool inb = x < g.nx && y < g.ny && z < g.nz;
      const std::int64_t i = (z * g.ny + y) * g.nx + x;
      std::int64_t k = 0;
      bool fg = false;
      if (inb) {
        k = key(in[i]);
        fg = k != key.background;
      }
      s_key[l] = k;
      __syncwarp();
      // Row runs inside the warp at once: each pixel points at the first pixel of its run.
      const bool cont = fg && lane > 0 && s_key[l - 1] == k;  // out-of-image pixels are background
      const unsigned starts = ~__ballot_sync(0xffffffffu, cont);
      const int run0 = 31 - __clz(starts & (0xffffffffu >> (31 - lane)));
      s_par[l] = fg ? l - (lane - run0) : -1;
      __syncthreads();
      if (fg) {
        for (int e = 0; e < nb.n; ++e) {
          const int dz = nb.d[e][0], dy = nb.d[e][1], dx = nb.d[e][2];
          if (dz == 0 && dy == 0 && dx == -1 && lane > 0) continue;  // joined by the run step
          const int mx = lx + dx, my = ly + dy, mz = lz + dz;
          if (mx < 0 || mx >= TX || my < 0 || my >= TY || mz < 0 || mz >= TZ) continue;
          const int m = (mz * TY + my) * TX + mx;  // out-of-image pixels hold -1
          if (s_par[m] < 0 || s_key[m] != k) continue;
          if (mx > 0 && s_par[m - 1] >= 0 && s_key[m - 1] == k && is_neighbour(dz, dy, dx - 1, conn)) continue;  // (a)
          if (lx > 0 && s_par[l - 1] >= 0 && s_key[l - 1] == k && is_neighbour(dz, dy, dx + 1, conn)) continue;  // (b)
          local_union(s_par, l, m);
        }
      }
      __syncthreads();
      if (inb) {
        I v = I(-1);
        if (fg) {
          const int r = local_find(s_par, l);
          const int rx = r % TX, ry = (r / TX) % TY, rz = r / (TX * TY);
          v = static_cast<I>(((bz * TZ + rz) * g.ny + (by * TY + ry)) * g.nx + (std::int64_t(blockIdx.x) * TX + rx));
        }
        parent[i] = v;
      }
      __syncthreads();  // the tile's shared arrays are reused by the next (y, z) tile
    }
  }
}

/// The tile positions whose pixels have a backward neighbour in another tile (the same for every
/// tile): the border pass runs one thread per such pixel instead of one per pixel of the image.
struct FaceList {
  int n = 0;
  int tx = 1, ty = 1, tz = 1;       // tile extents
  std::int16_t pos[512][3] = {};    // (lz, ly, lx)
};

/// Pixel (x, y, z) at tile position (lx, ly, lz) of a tx x ty tile joins its foreground backward
/// neighbours that lie in other tiles, skipping the unions rules (a) and (b) imply.
template <class T, class I>
__device__ __forceinline__ void join_across_tiles(const T* __restrict__ in, I* parent, const Geom& g, const LabelKey& key,
                                                  const LabelNeighbours& nb, int conn, std::int64_t x, std::int64_t y,
                                                  std::int64_t z, int lx, int ly, int lz, int tx, int ty) {
  auto same = [&](std::int64_t j, std::int64_t k) { return parent[j] >= 0 && key(in[j]) == k; };
  const std::int64_t i = (z * g.ny + y) * g.nx + x;
  if (parent[i] < 0) return;
  const std::int64_t k = key(in[i]);
  const bool left = x > 0 && same(i - 1, k);  // for rule (b)
  for (int e = 0; e < nb.n; ++e) {
    const int dz = nb.d[e][0], dy = nb.d[e][1], dx = nb.d[e][2];
    const int mx = lx + dx, my = ly + dy, mz = lz + dz;
    if (!(mx < 0 || mx >= tx || my < 0 || my >= ty || mz < 0)) continue;  // same tile: pass 1
    const std::int64_t jx = x + dx, jy = y + dy, jz = z + dz;
    if (jx < 0 || jx >= g.nx || jy < 0 || jy >= g.ny || jz < 0) continue;
    const std::int64_t j = (jz * g.ny + jy) * g.nx + jx;
    if (!same(j, k)) continue;
    if (left && is_neighbour(dz, dy, dx + 1, conn)) continue;                       // (b)
    if (jx > 0 && is_neighbour(dz, dy, dx - 1, conn) && same(j - 1, k)) continue;  // (a)
    ccl_union<I>(parent, static_cast<I>(i), static_cast<I>(j));
  }
}

template <class T, class I>
__global__ void __launch_bounds__(256)
    border_kernel(const T* __restrict__ in, I* parent, Geom g, LabelKey key, LabelNeighbours nb, int conn, FaceList f,
                  std::int64_t tiles_x) {
  const std::int64_t total = tiles_x * g.tiles_y * g.tiles_z * f.n, stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < total; t += stride) {
    const std::int64_t tile = t / f.n;
    const int fi = static_cast<int>(t - tile * f.n);
    const int lz = f.pos[fi][0], ly = f.pos[fi][1], lx = f.pos[fi][2];
    const std::int64_t bx = tile % tiles_x, rest = tile / tiles_x, by = rest % g.tiles_y, bz = rest / g.tiles_y;
    const std::int64_t x = bx * f.tx + lx, y = by * f.ty + ly, z = bz * f.tz + lz;
    if (x < g.nx && y < g.ny && z < g.nz) join_across_tiles(in, parent, g, key, nb, conn, x, y, z, lx, ly, lz, f.tx, f.ty);
  }
}

// 3-D: nearly every pixel of a 32 x 4 x 4 tile is on a face, so one thread per pixel with the
// tile's own coordinates beats the face list (whose index arithmetic cost more on 512^3).
template <class T, class I>
__global__ void __launch_bounds__(512)
    border_grid_kernel(const T* __restrict__ in, I* parent, Geom g, LabelKey key, LabelNeighbours nb, int conn) {
  const int TX = blockDim.x, TY = blockDim.y, TZ = blockDim.z;
  const int lx = threadIdx.x, ly = threadIdx.y, lz = threadIdx.z;
  const std::int64_t x = std::int64_t(blockIdx.x) * TX + lx;
  if (x >= g.nx) return;
  // Only pixels on a tile's faces (low faces, and the high x/y faces for the +1 offsets of the
  // diagonal neighbours) have a backward neighbour in another tile.
  auto outside = [&](int e) {
    const int mx = lx + nb.d[e][2], my = ly + nb.d[e][1], mz = lz + nb.d[e][0];
    return mx < 0 || mx >= TX || my < 0 || my >= TY || mz < 0;
  };
  bool cross = false;
  for (int e = 0; e < nb.n; ++e) cross |= outside(e);
  if (!cross) return;
  for (std::int64_t bz = blockIdx.z; bz < g.tiles_z; bz += gridDim.z) {
    for (std::int64_t by = blockIdx.y; by < g.tiles_y; by += gridDim.y) {
      const std::int64_t y = by * TY + ly, z = bz * TZ + lz;
      if (y < g.ny && z < g.nz) join_across_tiles(in, parent, g, key, nb, conn, x, y, z, lx, ly, lz, TX, TY);
    }
  }
}

/// parent[i] = root; row_count[z * ny + y] += roots in that row.
template <class I>
__global__ void __launch_bounds__(256) flatten_kernel(I* parent, I* __restrict__ row_count, std::int64_t nrows,
                                                      std::int64_t nx) {
  using Reduce = cub::BlockReduce<I, 256>;
  __shared__ typename Reduce::TempStorage tmp;
  for (std::int64_t row = blockIdx.x; row < nrows; row += gridDim.x) {
    I roots = 0;
    for (std::int64_t x = threadIdx.x; x < nx; x += blockDim.x) {
      const std::int64_t i = row * nx + x;
      const I p = parent[i];
      if (p < 0) continue;
      if (p == static_cast<I>(i)) {
        ++roots;
      } else {
        // A read-only find: halving here could overwrite another pixel's flattened parent with an
        // intermediate node after that pixel was flattened (spread reads parents as roots).
        const I r = ccl_find<I>(parent, p);
        if (r != p) parent[i] = r;
      }
    }
    const I total = Reduce(tmp).Sum(roots);
    if (threadIdx.x == 0) row_count[row] = total;
    __syncthreads();
  }
}

/// One block per row with roots: labels of the roots in raster order.
template <class I, class L>
__global__ void __launch_bounds__(256)
    number_kernel(const I* __restrict__ parent, const I* __restrict__ row_off, L* __restrict__ out, std::int64_t nrows,
                  std::int64_t nx) {
  using Scan = cub::BlockScan<I, 256>;
  __shared__ typename Scan::TempStorage tmp;
  for (std::int64_t row = blockIdx.x; row < nrows; row += gridDim.x) {
    I running = row_off[row];
    if (row_off[row + 1] == running) continue;  // uniform per block
    for (std::int64_t x0 = 0; x0 < nx; x0 += 256) {
      const std::int64_t x = x0 + threadIdx.x, i = row * nx + x;
      const I flag = (x < nx && parent[i] == static_cast<I>(i)) ? 1 : 0;
      I pre, agg;
      Scan(tmp).ExclusiveSum(flag, pre, agg);
      if (flag) out[i] = static_cast<L>(running + pre + 1);
      running += agg;
      __syncthreads();
    }
  }
}

template <class I, class L>
__global__ void __launch_bounds__(256) spread_kernel(const I* __restrict__ parent, L* out, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const I p = parent[i];
    if (p < 0)
      out[i] = 0;
    else if (p != static_cast<I>(i))
      out[i] = out[p];  // roots were numbered by number_kernel
  }
}

unsigned clamp_blocks(std::int64_t want) { return static_cast<unsigned>(std::clamp<std::int64_t>(want, 1, 1 << 20)); }

template <class T, class I, class L>
void label_typed(const Array& in, Array& out, const LabelKey& key, int connectivity, std::int64_t* num,
                 cudaStream_t stream) {
  const Stream s(stream);
  const int nd = in.ndim();
  Geom g{1, 1, 1, 1, 1};
  std::int64_t* dims[3] = {&g.nz, &g.ny, &g.nx};
  for (int d = 0; d < nd; ++d) *dims[3 - nd + d] = in.shape()[d];
  const std::int64_t n = in.size(), nrows = g.nz * g.ny;
  const dim3 block = nd == 1 ? dim3(512, 1, 1) : nd == 2 ? dim3(32, 16, 1) : dim3(32, 4, 4);
  g.tiles_y = (g.ny + block.y - 1) / block.y;
  g.tiles_z = (g.nz + block.z - 1) / block.z;
  const dim3 grid(static_cast<unsigned>((g.nx + block.x - 1) / block.x),
                  static_cast<unsigned>(std::min<std::int64_t>(g.tiles_y, 65535)),
                  static_cast<unsigned>(std::min<std::int64_t>(g.tiles_z, 65535)));
  const LabelNeighbours nb = backward_neighbours(nd, connectivity);
  const DType idt = sizeof(I) == 4 ? DType::int32 : DType::int64;
  Array parent = Array::empty({n}, idt, in.device(), s);
  Array rows = Array::empty({2 * (nrows + 1)}, idt, in.device(), s);
  I* p = static_cast<I*>(parent.data());
  I* row_count = static_cast<I*>(rows.data());
  I* row_off = row_count + (nrows + 1);
  const T* ip = static_cast<const T*>(in.data());
  L* op = static_cast<L*>(out.data());

  local_kernel<T, I><<<grid, block, 0, stream>>>(ip, p, g, key, nb, connectivity);
  CUSK_CUDA_CHECK_LAUNCH();
  FaceList faces;  // filled for the face kernel (1-D and 2-D) only
  faces.tx = static_cast<int>(block.x), faces.ty = static_cast<int>(block.y), faces.tz = static_cast<int>(block.z);
  for (int lz = 0; lz < (nd == 3 ? 0 : faces.tz); ++lz)
    for (int ly = 0; ly < faces.ty; ++ly)
      for (int lx = 0; lx < faces.tx; ++lx) {
        bool cross = false;
        for (int e = 0; e < nb.n; ++e) {
          const int mx = lx + nb.d[e][2], my = ly + nb.d[e][1], mz = lz + nb.d[e][0];
          cross |= mx < 0 || mx >= faces.tx || my < 0 || my >= faces.ty || mz < 0;
        }
        if (!cross) continue;
        faces.pos[faces.n][0] = static_cast<std::int16_t>(lz);
        faces.pos[faces.n][1] = static_cast<std::int16_t>(ly);
        faces.pos[faces.n][2] = static_cast<std::int16_t>(lx);
        ++faces.n;
      }
  const std::int64_t tiles_x = (g.nx + block.x - 1) / block.x;
  const std::int64_t face_threads = tiles_x * g.tiles_y * g.tiles_z * faces.n;
  if (nd == 3) {
    border_grid_kernel<T, I><<<grid, block, 0, stream>>>(ip, p, g, key, nb, connectivity);
    CUSK_CUDA_CHECK_LAUNCH();
  } else if (face_threads > 0) {
    border_kernel<T, I><<<clamp_blocks((face_threads + 255) / 256), 256, 0, stream>>>(ip, p, g, key, nb, connectivity,
                                                                                      faces, tiles_x);
    CUSK_CUDA_CHECK_LAUNCH();
  }
  CUSK_CUDA_CHECK(cudaMemsetAsync(row_count + nrows, 0, sizeof(I), stream));
  flatten_kernel<I><<<clamp_blocks(nrows), 256, 0, stream>>>(p, row_count, nrows, g.nx);
  CUSK_CUDA_CHECK_LAUNCH();
  std::size_t tmp_bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, tmp_bytes, row_count, row_off, nrows + 1, stream));
  Array tmp = Array::empty({static_cast<std::int64_t>(std::max<std::size_t>(tmp_bytes, 1))}, DType::uint8, in.device(), s);
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp.data(), tmp_bytes, row_count, row_off, nrows + 1, stream));
  number_kernel<I, L><<<clamp_blocks(nrows), 256, 0, stream>>>(p, row_off, op, nrows, g.nx);
  CUSK_CUDA_CHECK_LAUNCH();
  spread_kernel<I, L><<<clamp_blocks((n + 255) / 256), 256, 0, stream>>>(p, op, n);
  CUSK_CUDA_CHECK_LAUNCH();
  if (num) {
    I total = 0;
    CUSK_CUDA_CHECK(cudaMemcpyAsync(&total, row_off + nrows, sizeof(I), cudaMemcpyDeviceToHost, stream));
    CUSK_CUDA_CHECK(cudaStreamSynchronize(stream));
    *num = static_cast<std::int64_t>(total);
  }
}

}  // namespace

template <class T>
void cuda_label(const Array& in, Array& out, const LabelKey& key, int connectivity, std::int64_t* num,
                cudaStream_t stream) {
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
  template void cuda_label<T>(const Array&, Array&, const LabelKey&, int, std::int64_t*, cudaStream_t);
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
