// CUDA marching cubes for measure.marching_cubes. The per-cube rules (classification, face and
// interior tests, loop triangulation, vertex interpolation, normal and value accumulation) are the
// __host__ __device__ functions of src/measure/marching_cubes.hpp, shared with the CPU backend, so
// both return the same arrays bit for bit. Work is per lattice point (a point owns its +x, +y, +z
// edges and the centre of the cube it is the low corner of), in three passes of reduce-then-scan:
//  1. count:    each block counts the vertices and triangles of its 1024 points (256 threads x 4
//               consecutive points); an exclusive CUB scan of the block counts gives every block its
//               first vertex and first triangle (the totals are read back to size the outputs);
//  2. vertices: each block recounts, ranks its points with a block scan and writes the vertex keys
//               (point * 4 + slot, increasing) and each vertex's position, normal and value (the up
//               to four cubes that share the edge are re-triangulated, in raster order);
//  3. faces:    each block re-triangulates its cubes, ranks them and writes the faces; a local
//               vertex becomes its owner's key, found by binary search in the sorted key array.
// Output order: vertices by key, faces by cube raster order then triangle order: deterministic,
// identical to the CPU backend.
//
// Bandwidth floor, 256^3 float32 sphere of radius 102 at a given level (volume 67 MB, surface
// ~0.2 M vertices / 0.4 M faces): three passes read the volume (the 8 corners of a cube come through
// L1/L2, so ~1x per pass) = 201 MB, plus the outputs (36 B per vertex with its key, 12 B per face)
// ~12 MB: ~213 MB / 4.2 TB/s = ~0.051 ms (the default level adds a float32 min/max pass, 67 MB).
// Beyond the floor: the per-cube rule (~1-2k instructions, divergent) for the ~1% of cubes the
// surface crosses, run once in passes 1 and 3 and up to 4 times per vertex in pass 2, and the one
// host synchronisation that sizes the outputs. Predicted ~0.25 ms on an H200 (input already
// float32).
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

#include "kernels/core/buffers.cuh"
#include "kernels/core/iota.cuh"
#include "src/core/cuda_check.hpp"
#include "src/measure/marching_cubes.hpp"

namespace cuskimage::measure::detail {
namespace {

constexpr int kThreads = 256;
constexpr int kItems = 4;  // consecutive lattice points per thread
constexpr std::int64_t kTile = std::int64_t(kThreads) * kItems;

struct Spacing {
  double s[3];
};

__device__ __forceinline__ void point_of(const McGrid& g, std::int64_t p, std::int64_t& i, std::int64_t& j,
                                         std::int64_t& k) {
  i = p % g.px;
  const std::int64_t r = p / g.px;
  j = r % g.py;
  k = r / g.py;
}

struct Pair {
  std::int64_t v, t;
};
struct PairSum {
  __device__ __forceinline__ Pair operator()(const Pair& a, const Pair& b) const { return {a.v + b.v, a.t + b.t}; }
};

__device__ __forceinline__ int popc4(int bits) { return __popc(bits & 15); }

__global__ void __launch_bounds__(kThreads) count_kernel(McGrid g, std::int64_t n, std::int64_t* __restrict__ bv,
                                                         std::int64_t* __restrict__ bt) {
  using Reduce = cub::BlockReduce<Pair, kThreads>;
  __shared__ typename Reduce::TempStorage tmp;
  const std::int64_t first = std::int64_t(blockIdx.x) * kTile + std::int64_t(threadIdx.x) * kItems;
  Pair c{0, 0};
  for (int q = 0; q < kItems; ++q) {
    const std::int64_t p = first + q;
    if (p >= n) break;
    std::int64_t i, j, k;
    point_of(g, p, i, j, k);
    int nt = 0;
    c.v += popc4(mc_point(g, i, j, k, nt));
    c.t += nt;
  }
  const Pair total = Reduce(tmp).Reduce(c, PairSum{});
  if (threadIdx.x == 0) {
    bv[blockIdx.x] = total.v;
    bt[blockIdx.x] = total.t;
  }
}

__global__ void __launch_bounds__(kThreads) vertex_kernel(McGrid g, std::int64_t n, Spacing sp,
                                                          const std::int64_t* __restrict__ block_v,
                                                          std::int64_t* __restrict__ keys, float* __restrict__ verts,
                                                          float* __restrict__ normals, float* __restrict__ values) {
  using Scan = cub::BlockScan<std::int64_t, kThreads>;
  __shared__ typename Scan::TempStorage tmp;
  const std::int64_t first = std::int64_t(blockIdx.x) * kTile + std::int64_t(threadIdx.x) * kItems;
  int bits[kItems];
  std::int64_t count = 0;
  for (int q = 0; q < kItems; ++q) {
    const std::int64_t p = first + q;
    bits[q] = 0;
    if (p >= n) continue;
    std::int64_t i, j, k;
    point_of(g, p, i, j, k);
    int nt = 0;
    bits[q] = mc_point(g, i, j, k, nt);
    count += popc4(bits[q]);
  }
  std::int64_t rank = 0;
  Scan(tmp).ExclusiveSum(count, rank);
  if (count == 0) return;
  std::int64_t out = block_v[blockIdx.x] + rank;
  for (int q = 0; q < kItems; ++q) {
    if (!bits[q]) continue;
    std::int64_t i, j, k;
    point_of(g, first + q, i, j, k);
    for (int slot = 0; slot < 4; ++slot) {
      if (!((bits[q] >> slot) & 1)) continue;
      const McVertex v = mc_vertex(g, i, j, k, slot, sp.s);
      keys[out] = mc_key(g, i, j, k, slot);
      for (int a = 0; a < 3; ++a) {
        verts[3 * out + a] = v.pos[a];
        normals[3 * out + a] = v.normal[a];
      }
      values[out] = v.value;
      ++out;
    }
  }
}

__device__ __forceinline__ std::int64_t find_key(const std::int64_t* __restrict__ keys, std::int64_t nv,
                                                  std::int64_t key) {
  std::int64_t lo = 0, hi = nv;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) >> 1;
    if (keys[mid] < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

__global__ void __launch_bounds__(kThreads) face_kernel(McGrid g, std::int64_t n, bool descent,
                                                        const std::int64_t* __restrict__ block_t,
                                                        const std::int64_t* __restrict__ keys, std::int64_t nv,
                                                        std::int32_t* __restrict__ faces) {
  using Scan = cub::BlockScan<std::int64_t, kThreads>;
  __shared__ typename Scan::TempStorage tmp;
  const std::int64_t first = std::int64_t(blockIdx.x) * kTile + std::int64_t(threadIdx.x) * kItems;
  std::int64_t count = 0;
  double v[8];
  unsigned char tri[36];
  for (int q = 0; q < kItems; ++q) {
    const std::int64_t p = first + q;
    if (p >= n) break;
    std::int64_t i, j, k;
    point_of(g, p, i, j, k);
    count += mc_cube(g, i, j, k, v, tri);
  }
  std::int64_t rank = 0;
  Scan(tmp).ExclusiveSum(count, rank);
  if (count == 0) return;
  std::int64_t f = block_t[blockIdx.x] + rank;
  for (int q = 0; q < kItems; ++q) {
    const std::int64_t p = first + q;
    if (p >= n) break;
    std::int64_t i, j, k;
    point_of(g, p, i, j, k);
    const int nt = mc_cube(g, i, j, k, v, tri);
    for (int t = 0; t < nt; ++t, ++f)
      for (int c = 0; c < 3; ++c) {
        int di, dj, dk, slot;
        mc_local_owner(tri[3 * t + c], di, dj, dk, slot);
        const std::int64_t idx = find_key(keys, nv, mc_key(g, i + di, j + dj, k + dk, slot));
        faces[3 * f + (descent ? 2 - c : c)] = static_cast<std::int32_t>(idx);
      }
  }
}

void exclusive_scan(std::int64_t* in, std::int64_t* out, std::int64_t n, Device device, const Stream& s) {
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, in, out, n, s.handle()));
  Array tmp = cuskimage::detail::buf::scratch(bytes, device, s);
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, in, out, n, s.handle()));
}

// ---- degenerate faces: union-find over the vertices a zero-length face edge joins ----------------

__device__ __forceinline__ bool same_point(const float* __restrict__ v, std::int64_t a, std::int64_t b) {
  return v[3 * a] == v[3 * b] && v[3 * a + 1] == v[3 * b + 1] && v[3 * a + 2] == v[3 * b + 2];
}

__device__ std::int64_t uf_find(std::int64_t* parent, std::int64_t x) {
  while (true) {
    const std::int64_t p = atomicAdd(reinterpret_cast<unsigned long long*>(parent + x), 0ull);
    if (p == x) return x;
    x = p;
  }
}

/// Links the roots of a and b, the larger under the smaller (so every set's root is its minimum).
__device__ void uf_union(std::int64_t* parent, std::int64_t a, std::int64_t b) {
  while (true) {
    a = uf_find(parent, a);
    b = uf_find(parent, b);
    if (a == b) return;
    if (a > b) {
      const std::int64_t t = a;
      a = b;
      b = t;
    }
    const auto old = static_cast<std::int64_t>(atomicCAS(reinterpret_cast<unsigned long long*>(parent + b),
                                                         static_cast<unsigned long long>(b),
                                                         static_cast<unsigned long long>(a)));
    if (old == b) return;
  }
}

__global__ void degenerate_faces_kernel(const float* __restrict__ v, const std::int32_t* __restrict__ f, std::int64_t nf,
                                        std::int64_t* parent, std::int64_t* __restrict__ face_ok) {
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= nf) return;
  const std::int64_t a = f[3 * t], b = f[3 * t + 1], c = f[3 * t + 2];
  bool ok = true;
  if (same_point(v, a, b)) uf_union(parent, a, b), ok = false;
  if (same_point(v, a, c)) uf_union(parent, a, c), ok = false;
  if (same_point(v, b, c)) uf_union(parent, b, c), ok = false;
  face_ok[t] = ok ? 1 : 0;
}

__global__ void roots_kernel(std::int64_t* parent, std::int64_t nv, std::int64_t* __restrict__ keep) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= nv) return;
  keep[i] = uf_find(parent, i) == i ? 1 : 0;
}

__global__ void compact_vertices_kernel(const float* __restrict__ v, const float* __restrict__ n,
                                        const float* __restrict__ val, std::int64_t nv,
                                        const std::int64_t* __restrict__ keep, const std::int64_t* __restrict__ pos,
                                        float* __restrict__ ov, float* __restrict__ on, float* __restrict__ oval) {
  const std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= nv || !keep[i]) return;
  const std::int64_t w = pos[i];
  for (int a = 0; a < 3; ++a) ov[3 * w + a] = v[3 * i + a], on[3 * w + a] = n[3 * i + a];
  oval[w] = val[i];
}

__global__ void compact_faces_kernel(const std::int32_t* __restrict__ f, std::int64_t nf,
                                     const std::int64_t* __restrict__ face_ok, const std::int64_t* __restrict__ fpos,
                                     const std::int64_t* parent, const std::int64_t* __restrict__ vpos,
                                     std::int64_t* __restrict__ of) {
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= nf || !face_ok[t]) return;
  for (int c = 0; c < 3; ++c) {
    std::int64_t x = f[3 * t + c];
    while (parent[x] != x) x = parent[x];  // roots are final here
    of[3 * fpos[t] + c] = vpos[x];
  }
}

unsigned grid_of(std::int64_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

}  // namespace

McArrays cuda_remove_degenerate(const McArrays& m, Device device, const Stream& s) {
  const cudaStream_t stream = s.handle();
  const std::int64_t nv = m.verts.shape(0), nf = m.faces.shape(0);
  // One allocation per array; the scans read and write nv + 1 / nf + 1 entries (the last input
  // entry is a zero, so the last output entry is the total).
  auto i64 = [&](std::int64_t n) { return Array::empty({n}, DType::int64, device, s); };
  Array parent_a = i64(std::max<std::int64_t>(nv, 1)), keep_a = i64(nv + 1), vpos_a = i64(nv + 1),
        face_ok_a = i64(nf + 1), fpos_a = i64(nf + 1);
  auto* parent = static_cast<std::int64_t*>(parent_a.data());
  auto* keep = static_cast<std::int64_t*>(keep_a.data());
  auto* vpos = static_cast<std::int64_t*>(vpos_a.data());
  auto* face_ok = static_cast<std::int64_t*>(face_ok_a.data());
  auto* fpos = static_cast<std::int64_t*>(fpos_a.data());
  const auto* v = static_cast<const float*>(m.verts.data());
  const auto* f = static_cast<const std::int32_t*>(m.faces.data());
  CUSK_CUDA_CHECK(cudaMemsetAsync(keep + nv, 0, sizeof(std::int64_t), stream));
  CUSK_CUDA_CHECK(cudaMemsetAsync(face_ok + nf, 0, sizeof(std::int64_t), stream));
  cuskimage::detail::device_iota(parent, nv, s);
  if (nf > 0) degenerate_faces_kernel<<<grid_of(nf), kThreads, 0, stream>>>(v, f, nf, parent, face_ok);
  CUSK_CUDA_CHECK_LAUNCH();
  if (nv > 0) roots_kernel<<<grid_of(nv), kThreads, 0, stream>>>(parent, nv, keep);
  CUSK_CUDA_CHECK_LAUNCH();
  exclusive_scan(keep, vpos, nv + 1, device, s);
  exclusive_scan(face_ok, fpos, nf + 1, device, s);
  std::int64_t totals[2] = {0, 0};
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&totals[0], vpos + nv, sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream));
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&totals[1], fpos + nf, sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(stream));
  McArrays out;
  out.verts = Array::empty({totals[0], 3}, DType::float32, device, s);
  out.normals = Array::empty({totals[0], 3}, DType::float32, device, s);
  out.values = Array::empty({totals[0]}, DType::float32, device, s);
  out.faces = Array::empty({totals[1], 3}, DType::int64, device, s);
  if (nv > 0)
    compact_vertices_kernel<<<grid_of(nv), kThreads, 0, stream>>>(
        v, static_cast<const float*>(m.normals.data()), static_cast<const float*>(m.values.data()), nv, keep, vpos,
        static_cast<float*>(out.verts.data()), static_cast<float*>(out.normals.data()),
        static_cast<float*>(out.values.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  if (totals[1] > 0)
    compact_faces_kernel<<<grid_of(nf), kThreads, 0, stream>>>(f, nf, face_ok, fpos, parent, vpos,
                                                               static_cast<std::int64_t*>(out.faces.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  return out;
}

McArrays cuda_marching_cubes(const McGrid& g, const double spacing[3], bool descent, Device device,
                             const Stream& s) {
  const cudaStream_t stream = s.handle();
  const std::int64_t n = g.px * g.py * g.pz;
  const std::int64_t blocks = (n + kTile - 1) / kTile;
  Array counts = Array::empty({4 * (blocks + 1)}, DType::int64, device, s);
  auto* bv = static_cast<std::int64_t*>(counts.data());
  auto* bt = bv + (blocks + 1);
  auto* ov = bt + (blocks + 1);
  auto* ot = ov + (blocks + 1);
  CUSK_CUDA_CHECK(cudaMemsetAsync(bv + blocks, 0, sizeof(std::int64_t), stream));
  CUSK_CUDA_CHECK(cudaMemsetAsync(bt + blocks, 0, sizeof(std::int64_t), stream));
  count_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(g, n, bv, bt);
  CUSK_CUDA_CHECK_LAUNCH();
  exclusive_scan(bv, ov, blocks + 1, device, s);
  exclusive_scan(bt, ot, blocks + 1, device, s);
  std::int64_t totals[2] = {0, 0};
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&totals[0], ov + blocks, sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream));
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&totals[1], ot + blocks, sizeof(std::int64_t), cudaMemcpyDeviceToHost, stream));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::int64_t nv = totals[0], nf = totals[1];
  if (nv > INT32_MAX) throw NotSupported("measure.marching_cubes: more than 2^31 - 1 vertices (int32 faces)");
  McArrays out;
  out.verts = Array::empty({nv, 3}, DType::float32, device, s);
  out.normals = Array::empty({nv, 3}, DType::float32, device, s);
  out.values = Array::empty({nv}, DType::float32, device, s);
  out.faces = Array::empty({nf, 3}, DType::int32, device, s);
  if (nv == 0) return out;
  Array keys = Array::empty({nv}, DType::int64, device, s);
  Spacing sp{{spacing[0], spacing[1], spacing[2]}};
  vertex_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      g, n, sp, ov, static_cast<std::int64_t*>(keys.data()), static_cast<float*>(out.verts.data()),
      static_cast<float*>(out.normals.data()), static_cast<float*>(out.values.data()));
  CUSK_CUDA_CHECK_LAUNCH();
  if (nf > 0) {
    face_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
        g, n, descent, ot, static_cast<const std::int64_t*>(keys.data()), nv,
        static_cast<std::int32_t*>(out.faces.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  return out;
}

}  // namespace cuskimage::measure::detail
