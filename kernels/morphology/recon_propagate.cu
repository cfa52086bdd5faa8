// CUDA morphological reconstruction by propagation (reconstruction, h_maxima/h_minima, flood).
//
// rec converges to the fixed point rec(q) = min(mask(q), max(rec(q), max_o rec(q - o))) (max and
// min swapped for erosion) for the push offsets o, starting from rec = seed <= mask. Every update
// only raises rec and never above the reconstruction, so the order of updates, races between
// blocks and stale reads do not change the result: a sweep that changes nothing certifies the
// fixed point.
//
// A sweep is one launch over tiles of the volume. A block loads its tile of rec plus the halo the
// offsets reach, and its mask tile, into shared memory, then repeats rounds of line scans along
// each axis in both directions (each line owned by one thread, so a value carried along a line
// crosses the whole tile in one scan) until a round changes nothing; it writes the tile back only
// if it changed. A tile runs only when a tile within reach changed in the previous sweep (stamps).
// The host launches sweeps in batches (8, 16, ... 256); a sweep whose predecessor changed nothing
// returns at once on the device, and the host reads one counter per batch.
//
// Bytes per sweep: each active tile reads rec (+halo) and mask and writes rec once: 8192^2 float64
// -> ~1.1 GB (0.26 ms at 4.2 TB/s); the floor of the whole operation is one read of seed and mask
// and one write (0.4 ms for float64 with the conversions). Sweeps needed: ~2-4 for blob-like
// images (most of the propagation happens inside tiles), more for paths that wind across tiles;
// later sweeps touch only the tiles near the moving front.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "src/core/cuda_check.hpp"
#include "src/core/validate.hpp"
#include "src/morphology/recon_common.hpp"

namespace cuskimage::morphology::detail {
namespace {

constexpr int kThreads = 128;

struct TileGeom {
  int tz, ty, tx;         // tile extents
  int lz, ly, lx;         // halo before the tile (pull sources q - o with o > 0)
  int hz, hy, hx;         // halo after the tile
  int sz, sy, sx;         // shared-memory extents of the rec tile (tile + halos)
  int ntz, nty, ntx;      // tiles per axis
  int rz, ry, rx;         // reach in tiles (a tile depends on tiles this far away)
};

template <class T, bool Dil>
struct Order {
  __device__ static T lowest() {
    if constexpr (std::numeric_limits<T>::has_infinity)
      return Dil ? -std::numeric_limits<T>::infinity() : std::numeric_limits<T>::infinity();
    else
      return Dil ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  __device__ static bool better(T a, T b) { return Dil ? a > b : a < b; }
};

template <class T, bool Dil>
__global__ void __launch_bounds__(kThreads)
    sweep_kernel(T* __restrict__ rec, const T* __restrict__ mask, Geom3 g, const int* __restrict__ pull,
                 int noff, TileGeom tg, int* __restrict__ stamps, int k, const int* __restrict__ changed_prev,
                 int* __restrict__ changed_cur) {
  using O = Order<T, Dil>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* s = reinterpret_cast<T*>(smem_raw);
  const int s_size = tg.sz * tg.sy * tg.sx;
  T* m = s + s_size;
  // The offsets follow the two tiles, 8-byte aligned (T may be one byte).
  const std::size_t pull_at = ((static_cast<std::size_t>(s_size) + tg.tz * tg.ty * tg.tx) * sizeof(T) + 7) & ~std::size_t(7);
  int* spull = reinterpret_cast<int*>(smem_raw + pull_at);

  if (*changed_prev == 0) return;  // the previous sweep changed nothing: converged
  const int b = blockIdx.x;
  const int bx = b % tg.ntx, by = (b / tg.ntx) % tg.nty, bz = b / (tg.ntx * tg.nty);

  // Skip the tile unless a tile within reach (itself included) changed in the previous sweep.
  if (k > 0) {
    const int wz = 2 * tg.rz + 1, wy = 2 * tg.ry + 1, wx = 2 * tg.rx + 1;
    bool act = false;
    for (int i = threadIdx.x; i < wz * wy * wx && !act; i += blockDim.x) {
      const int nz = bz + i / (wy * wx) - tg.rz, ny = by + (i / wx) % wy - tg.ry, nx = bx + i % wx - tg.rx;
      if (nz < 0 || ny < 0 || nx < 0 || nz >= tg.ntz || ny >= tg.nty || nx >= tg.ntx) continue;
      act = stamps[(static_cast<std::int64_t>(nz) * tg.nty + ny) * tg.ntx + nx] >= k - 1;
    }
    if (!__syncthreads_or(act)) return;
  }

  const std::int64_t z0 = std::int64_t(bz) * tg.tz, y0 = std::int64_t(by) * tg.ty, x0 = std::int64_t(bx) * tg.tx;
  for (int i = threadIdx.x; i < s_size; i += blockDim.x) {
    const std::int64_t z = z0 - tg.lz + i / (tg.sy * tg.sx), y = y0 - tg.ly + (i / tg.sx) % tg.sy,
                       x = x0 - tg.lx + i % tg.sx;
    const bool in = z >= 0 && y >= 0 && x >= 0 && z < g.nz && y < g.ny && x < g.nx;
    s[i] = in ? rec[(z * g.ny + y) * g.nx + x] : O::lowest();
  }
  const int t_size = tg.tz * tg.ty * tg.tx;
  for (int i = threadIdx.x; i < t_size; i += blockDim.x) {
    const std::int64_t z = z0 + i / (tg.ty * tg.tx), y = y0 + (i / tg.tx) % tg.ty, x = x0 + i % tg.tx;
    const bool in = z < g.nz && y < g.ny && x < g.nx;
    m[i] = in ? mask[(z * g.ny + y) * g.nx + x] : O::lowest();  // outside: never raised
  }
  for (int i = threadIdx.x; i < noff; i += blockDim.x) spull[i] = pull[i];
  __syncthreads();

  // Line scans. A line runs along `axis` through the tile interior; cell (cz, cy, cx) of the
  // tile is s[(cz + lz) * sy * sx + (cy + ly) * sx + cx + lx] and m[(cz * ty + cy) * tx + cx].
  const int ext[3] = {tg.tz, tg.ty, tg.tx};
  const int sstr[3] = {tg.sy * tg.sx, tg.sx, 1};
  const int mstr[3] = {tg.ty * tg.tx, tg.tx, 1};
  bool tile_changed = false;
  for (int round = 0; round < 64; ++round) {
    bool changed = false;
    for (int axis = 2; axis >= 0; --axis) {
      if (ext[axis] == 1) continue;
      const int a1 = axis == 0 ? 1 : 0, a2 = axis == 2 ? 1 : 2;  // the other two axes
      const int lines = ext[a1] * ext[a2];
      for (int dir = 0; dir < 2; ++dir) {
        for (int line = threadIdx.x; line < lines; line += blockDim.x) {
          const int c1 = line / ext[a2], c2 = line % ext[a2];
          int sc = (c1 + (a1 == 0 ? tg.lz : tg.ly)) * sstr[a1] + (c2 + (a2 == 1 ? tg.ly : tg.lx)) * sstr[a2];
          int mc = c1 * mstr[a1] + c2 * mstr[a2];
          const int lead = axis == 0 ? tg.lz : axis == 1 ? tg.ly : tg.lx;
          const int step_s = dir == 0 ? sstr[axis] : -sstr[axis], step_m = dir == 0 ? mstr[axis] : -mstr[axis];
          sc += (dir == 0 ? lead : lead + ext[axis] - 1) * sstr[axis];
          mc += (dir == 0 ? 0 : ext[axis] - 1) * mstr[axis];
          for (int t = 0; t < ext[axis]; ++t, sc += step_s, mc += step_m) {
            const T cur = s[sc];
            T v = cur;
            for (int o = 0; o < noff; ++o) {
              const T u = s[sc + spull[o]];
              if (O::better(u, v)) v = u;
            }
            const T mv = m[mc];
            if (O::better(v, mv)) v = mv;
            if (O::better(v, cur)) {
              s[sc] = v;
              changed = true;
            }
          }
        }
        __syncthreads();
      }
    }
    if (!__syncthreads_or(changed)) break;
    tile_changed = true;
  }
  if (!tile_changed) return;

  for (int i = threadIdx.x; i < t_size; i += blockDim.x) {
    const int cz = i / (tg.ty * tg.tx), cy = (i / tg.tx) % tg.ty, cx = i % tg.tx;
    const std::int64_t z = z0 + cz, y = y0 + cy, x = x0 + cx;
    if (z < g.nz && y < g.ny && x < g.nx)
      rec[(z * g.ny + y) * g.nx + x] = s[((cz + tg.lz) * tg.sy + cy + tg.ly) * tg.sx + cx + tg.lx];
  }
  if (threadIdx.x == 0) {
    stamps[b] = k;
    *changed_cur = 1;
  }
}

__global__ void set_one(int* p) { *p = 1; }

template <class T, bool Dil>
__global__ void __launch_bounds__(256)
    violation_kernel(const T* __restrict__ seed, const T* __restrict__ mask, std::int64_t n, int* flag) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  bool bad = false;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    bad |= Dil ? seed[i] > mask[i] : seed[i] < mask[i];
  if (__syncthreads_or(bad) && threadIdx.x == 0) *flag = 1;
}

TileGeom make_tiles(const Geom3& g, const std::vector<Off3>& push, std::size_t elem, std::size_t& smem) {
  TileGeom t{};
  int lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
  for (const auto& o : push) {
    const int v[3] = {o.dz, o.dy, o.dx};
    for (int d = 0; d < 3; ++d) {
      lo[d] = std::max(lo[d], v[d]);   // pull source q - o lies o before q
      hi[d] = std::max(hi[d], -v[d]);
    }
  }
  int ext[3];
  if (g.nz > 1) {
    ext[0] = 8, ext[1] = 16, ext[2] = 32;
  } else if (g.ny > 1) {
    ext[0] = 1, ext[1] = 64, ext[2] = 64;
  } else {
    ext[0] = 1, ext[1] = 1, ext[2] = 1024;
  }
  const std::int64_t dims[3] = {g.nz, g.ny, g.nx};
  auto bytes = [&] {
    std::size_t s = elem;
    std::size_t halo = 1;
    for (int d = 0; d < 3; ++d) halo *= static_cast<std::size_t>(ext[d] + lo[d] + hi[d]);
    return ((s * (halo + static_cast<std::size_t>(ext[0]) * ext[1] * ext[2]) + 7) & ~std::size_t(7)) +
           sizeof(int) * push.size();
  };
  // Large footprints: shrink the tile along its longest axis until the shared memory fits.
  constexpr std::size_t kMaxSmem = 160 * 1024;
  while (bytes() > kMaxSmem) {
    int a = 0;
    for (int d = 1; d < 3; ++d)
      if (ext[d] > ext[a]) a = d;
    if (ext[a] <= 4)
      cuskimage::detail::fail<NotSupported>("morphology.reconstruction",
                                            "the footprint is too large for the CUDA backend's shared-memory tiles");
    ext[a] /= 2;
  }
  for (int d = 0; d < 3; ++d) ext[d] = static_cast<int>(std::min<std::int64_t>(ext[d], dims[d]));
  t.tz = ext[0], t.ty = ext[1], t.tx = ext[2];
  t.lz = lo[0], t.ly = lo[1], t.lx = lo[2];
  t.hz = hi[0], t.hy = hi[1], t.hx = hi[2];
  t.sz = t.tz + t.lz + t.hz, t.sy = t.ty + t.ly + t.hy, t.sx = t.tx + t.lx + t.hx;
  t.ntz = static_cast<int>((g.nz + t.tz - 1) / t.tz);
  t.nty = static_cast<int>((g.ny + t.ty - 1) / t.ty);
  t.ntx = static_cast<int>((g.nx + t.tx - 1) / t.tx);
  t.rz = (std::max(lo[0], hi[0]) + t.tz - 1) / t.tz;
  t.ry = (std::max(lo[1], hi[1]) + t.ty - 1) / t.ty;
  t.rx = (std::max(lo[2], hi[2]) + t.tx - 1) / t.tx;
  smem = bytes();
  return t;
}

template <class T, bool Dil>
void propagate(Array& rec, const Array& mask, const std::vector<Off3>& push, const Stream& stream) {
  const Geom3 g = geom3(rec.shape());
  if (g.size() == 0 || push.empty()) return;
  std::size_t smem = 0;
  const TileGeom tg = make_tiles(g, push, sizeof(T), smem);
  const std::int64_t ntiles = std::int64_t(tg.ntz) * tg.nty * tg.ntx;
  if (ntiles >= (std::int64_t(1) << 31))
    cuskimage::detail::fail<NotSupported>("morphology.reconstruction", "too many tiles for one launch");
  // Pull deltas in shared-memory elements of the rec tile.
  std::vector<int> pull;
  for (const auto& o : push) pull.push_back(-(o.dz * tg.sy * tg.sx + o.dy * tg.sx + o.dx));
  const Array dpull = Array::from_vector(pull, {static_cast<std::int64_t>(pull.size())}).to(rec.device(), stream);
  Array stamps = Array::empty({ntiles}, DType::int32, rec.device(), stream);
  CUSK_CUDA_CHECK(cudaMemsetAsync(stamps.data(), 0xFF, sizeof(int) * ntiles, stream.handle()));  // -1
  auto kern = sweep_kernel<T, Dil>;
  CUSK_CUDA_CHECK(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  T* r = static_cast<T*>(rec.data());
  const T* mp = static_cast<const T*>(mask.data());
  int k = 0;
  for (int batch = 8;; batch = std::min(batch * 2, 256)) {
    Array changed = Array::zeros({batch + 1}, DType::int32, rec.device(), stream);
    int* c = static_cast<int*>(changed.data());
    set_one<<<1, 1, 0, stream.handle()>>>(c);
    CUSK_CUDA_CHECK_LAUNCH();
    for (int i = 0; i < batch; ++i, ++k) {
      kern<<<static_cast<unsigned>(ntiles), kThreads, smem, stream.handle()>>>(
          r, mp, g, static_cast<const int*>(dpull.data()), static_cast<int>(pull.size()), tg,
          static_cast<int*>(stamps.data()), k, c + i, c + i + 1);
      CUSK_CUDA_CHECK_LAUNCH();
    }
    const Array last = changed.slice({Slice{.start = batch}}).to(Device::cpu(), stream);  // waits for `stream`
    if (last.data<std::int32_t>()[0] == 0) break;
  }
}

}  // namespace

template <class T>
void cuda_propagate(Array& rec, const Array& mask, const std::vector<Off3>& push, bool dilation,
                    const Stream& stream) {
  if constexpr (std::is_floating_point_v<T>) {
    if (!dilation) return propagate<T, false>(rec, mask, push, stream);
  }
  propagate<T, true>(rec, mask, push, stream);
}

template <class T>
bool cuda_any_violation(const Array& seed, const Array& mask, bool dilation, const Stream& stream) {
  const std::int64_t n = seed.size();
  if (n == 0) return false;
  Array flag = Array::zeros({1}, DType::int32, seed.device(), stream);
  const unsigned nb = static_cast<unsigned>(std::clamp<std::int64_t>((n + 255) / 256, 1, 4096));
  const T* sp = static_cast<const T*>(seed.data());
  const T* mp = static_cast<const T*>(mask.data());
  int* f = static_cast<int*>(flag.data());
  if (dilation)
    violation_kernel<T, true><<<nb, 256, 0, stream.handle()>>>(sp, mp, n, f);
  else
    violation_kernel<T, false><<<nb, 256, 0, stream.handle()>>>(sp, mp, n, f);
  CUSK_CUDA_CHECK_LAUNCH();
  const Array h = flag.to(Device::cpu(), stream);
  return h.data<std::int32_t>()[0] != 0;
}

template void cuda_propagate<float>(Array&, const Array&, const std::vector<Off3>&, bool, const Stream&);
template void cuda_propagate<double>(Array&, const Array&, const std::vector<Off3>&, bool, const Stream&);
template void cuda_propagate<std::uint8_t>(Array&, const Array&, const std::vector<Off3>&, bool, const Stream&);
template bool cuda_any_violation<float>(const Array&, const Array&, bool, const Stream&);
template bool cuda_any_violation<double>(const Array&, const Array&, bool, const Stream&);

}  // namespace cuskimage::morphology::detail
