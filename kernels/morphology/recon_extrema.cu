// CUDA local_maxima / local_minima (scikit-image's plateau semantics, symmetric footprints).
//
// On the (padded, when borders are allowed) image P: union-find labels of the plateaus (equal
// neighbours through the footprint, border cells excluded: recon_ccl.cuh), then one pass marks a
// plateau bad when a neighbour is greater (for minima: smaller) or is a border cell of equal
// value; the output is !bad per pixel. When both last-axis neighbours are in the footprint,
// scikit-image first keeps only plateaus with a row run that is a 1-D maximum: for a symmetric
// neighbourhood every run of a true maximum is one, except next to NaN, so the same scan runs here
// (run starts walk their run: O(n)) to match NaN handling too.
// Bytes per pixel: P read ~3x plus the neighbours (cached), 4-byte parents ~5x, 1-byte marks:
// 8192^2 float32 -> ~2.2 GB, ~0.5 ms at 4.2 TB/s (plus find() hops on big plateaus).
#include <cuda_runtime.h>

#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "kernels/core/buffers.cuh"
#include "kernels/morphology/recon_ccl.cuh"
#include "src/core/cuda_check.hpp"
#include "src/morphology/recon_common.hpp"

namespace cuskimage::morphology::detail {
namespace {

struct Border {
  Geom3 g;
  int nd;
  __device__ bool operator()(std::int64_t i) const {
    const std::int64_t x = i % g.nx, r = i / g.nx, y = r % g.ny, z = r / g.ny;
    if (x == 0 || x == g.nx - 1) return true;
    if (nd >= 2 && (y == 0 || y == g.ny - 1)) return true;
    return nd >= 3 && (z == 0 || z == g.nz - 1);
  }
};

struct Interior {
  Border b;
  __device__ bool operator()(std::int64_t i) const { return !b(i); }
};

template <class T>
struct Equal {
  const T* p;
  __device__ bool operator()(std::int64_t i, std::int64_t j) const { return p[i] == p[j]; }
};

/// a "greater" than b in the extremum's order.
template <class T, bool Min>
__device__ __forceinline__ bool gt(T a, T b) {
  return Min ? a < b : a > b;
}

template <class T, bool Min, class I>
__global__ void __launch_bounds__(256)
    mark_kernel(const T* __restrict__ p, const I* __restrict__ parent, Border border, DevOffsets offs,
                std::uint8_t* __restrict__ bad, bool row_scan, std::uint8_t* __restrict__ good) {
  const Geom3 g = border.g;
  const std::int64_t total = g.size(), stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    if (parent[i] < 0) continue;
    const I r = parent[i];
    const T v = p[i];
    const std::int64_t x = i % g.nx, q = i / g.nx, y = q % g.ny, z = q / g.ny;
    bool is_bad = false;
    for (int k = 0; k < offs.n && !is_bad; ++k) {
      const std::int64_t j = ((z + offs.d[k][0]) * g.ny + y + offs.d[k][1]) * g.nx + x + offs.d[k][2];
      const T u = p[j];
      is_bad = gt<T, Min>(u, v) || (u == v && border(j));
    }
    if (is_bad) bad[r] = 1;
    if (!row_scan) continue;
    // Row run start with a lower left neighbour: walk the run; a lower right end makes it a 1-D
    // maximum, and every pixel of the run is a candidate of its plateau.
    if (!gt<T, Min>(v, p[i - 1])) continue;  // a lower left neighbour also makes i a run start
    std::int64_t e = i;
    while (!border(e) && p[e] == v) ++e;
    if (gt<T, Min>(v, p[e]))
      for (std::int64_t c = i; c < e; ++c) good[parent[c]] = 1;
  }
}

template <class I>
__global__ void __launch_bounds__(256)
    output_kernel(const I* __restrict__ parent, const std::uint8_t* __restrict__ bad,
                  const std::uint8_t* __restrict__ good, bool row_scan, Geom3 pg, Geom3 ig, int pad,
                  bool* __restrict__ out) {
  const std::int64_t total = ig.size(), stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total; i += stride) {
    const std::int64_t x = i % ig.nx, q = i / ig.nx, y = q % ig.ny, z = q / ig.ny;
    const int pz = pg.nz > ig.nz ? pad : 0, py = pg.ny > ig.ny ? pad : 0;
    const std::int64_t j = ((z + pz) * pg.ny + y + py) * pg.nx + x + pad;
    const I r = parent[j];
    out[i] = r >= 0 && !bad[r] && (!row_scan || good[r]);
  }
}

template <class T, bool Min, class I>
void extrema_typed(const Array& padded, Array& out, int nd, bool allow_borders, const std::vector<Off3>& offsets,
                   const Stream& stream) {
  const Geom3 pg = geom3(padded.shape()), ig = geom3(out.shape());
  const std::int64_t n = pg.size();
  const cudaStream_t s = stream.handle();
  Array parent = Array::empty({n}, sizeof(I) == 4 ? DType::int32 : DType::int64, padded.device(), stream);
  Array bad = Array::zeros({n}, DType::uint8, padded.device(), stream);
  // scikit-image's candidate scan along the last axis (when both last-axis neighbours are in the
  // footprint): it only matters for NaN, but keeps the result identical.
  bool row_scan = false, left = false, right = false;
  for (const auto& o : offsets) {
    left |= o.dz == 0 && o.dy == 0 && o.dx == -1;
    right |= o.dz == 0 && o.dy == 0 && o.dx == 1;
  }
  row_scan = left && right;
  Array good = Array::zeros({row_scan ? n : 1}, DType::uint8, padded.device(), stream);
  I* par = static_cast<I*>(parent.data());
  const T* p = static_cast<const T*>(padded.data());
  const Border border{pg, nd};
  ccl_label<I>(par, pg, dev_offsets(offsets, true), Interior{border}, Equal<T>{p}, s);
  auto* b = static_cast<std::uint8_t*>(bad.data());
  auto* gd = static_cast<std::uint8_t*>(good.data());
  mark_kernel<T, Min, I><<<ccl_blocks(n), 256, 0, s>>>(p, par, border, dev_offsets(offsets, false), b, row_scan, gd);
  CUSK_CUDA_CHECK_LAUNCH();
  output_kernel<I><<<ccl_blocks(ig.size()), 256, 0, s>>>(par, b, gd, row_scan, pg, ig, allow_borders ? 1 : 0,
                                                          static_cast<bool*>(out.data()));
  CUSK_CUDA_CHECK_LAUNCH();
}

__global__ void coords_kernel(const std::int64_t* __restrict__ flat, std::int64_t k, Geom3 g, int nd,
                              std::int64_t* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; t < k; t += stride) {
    const std::int64_t i = flat[t];
    const std::int64_t c[3] = {i / (g.ny * g.nx), (i / g.nx) % g.ny, i % g.nx};
    for (int d = 0; d < nd; ++d) out[t * nd + d] = c[3 - nd + d];
  }
}

}  // namespace

template <class T>
void cuda_local_extrema(const Array& padded, Array& out, int nd, bool allow_borders, bool minima,
                        const std::vector<Off3>& offsets, const Stream& stream) {
  if (out.size() == 0) return;
  const bool small = padded.size() < (std::int64_t(1) << 31);
  if (minima) {
    if (small) extrema_typed<T, true, std::int32_t>(padded, out, nd, allow_borders, offsets, stream);
    else extrema_typed<T, true, std::int64_t>(padded, out, nd, allow_borders, offsets, stream);
  } else {
    if (small) extrema_typed<T, false, std::int32_t>(padded, out, nd, allow_borders, offsets, stream);
    else extrema_typed<T, false, std::int64_t>(padded, out, nd, allow_borders, offsets, stream);
  }
}

Array cuda_nonzero_coords(const Array& mask, const Stream& stream) {
  const std::int64_t n = mask.size();
  const int nd = mask.ndim();
  const cudaStream_t s = stream.handle();
  Array flat = Array::empty({std::max<std::int64_t>(n, 1)}, DType::int64, mask.device(), stream);
  Array count = Array::zeros({1}, DType::int64, mask.device(), stream);
  const thrust::counting_iterator<std::int64_t> in(0);
  const bool* flags = static_cast<const bool*>(mask.data());
  auto* fo = static_cast<std::int64_t*>(flat.data());
  auto* co = static_cast<std::int64_t*>(count.data());
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, in, flags, fo, co, n, s));
  Array temp = cuskimage::detail::buf::scratch(bytes, mask.device(), stream);
  CUSK_CUDA_CHECK(cub::DeviceSelect::Flagged(temp.data(), bytes, in, flags, fo, co, n, s));
  const Array hc = count.to(Device::cpu(), stream);
  const std::int64_t k = hc.data<std::int64_t>()[0];
  Array out = Array::empty({k, nd}, DType::int64, mask.device(), stream);
  if (k > 0) {
    coords_kernel<<<ccl_blocks(k), 256, 0, s>>>(fo, k, geom3(mask.shape()), nd, static_cast<std::int64_t*>(out.data()));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  return out;
}

#define CUSK_EXTREMA(T)                                                                               \
  template void cuda_local_extrema<T>(const Array&, Array&, int, bool, bool, const std::vector<Off3>&, \
                                      const Stream&);
CUSK_EXTREMA(bool)
CUSK_EXTREMA(std::uint8_t)
CUSK_EXTREMA(std::uint16_t)
CUSK_EXTREMA(std::int32_t)
CUSK_EXTREMA(float)
CUSK_EXTREMA(double)
#undef CUSK_EXTREMA

}  // namespace cuskimage::morphology::detail
