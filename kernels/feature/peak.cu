// feature.peak_local_max, CUDA backend: every step on the device, host round trips only for counts.
//   candidates  without labels: ndimage::maximum_filter (mode 'nearest') and one comparison pass;
//               with labels: one thread per labelled pixel takes the window maximum with positions
//               clamped to its label's bounding box (scikit-image crops each label's box and fills
//               it 'nearest') and other labels' pixels read as the dtype's lowest value; a label
//               whose pixels all equal their maximum keeps mask xor opening(mask) instead. 2-D
//               images read the window from a shared-memory tile; boxes and flags are reduced per
//               warp before their atomics.
//   order       cub::DeviceSelect in C order, then stable radix sorts by the wrapped negated
//               intensity (and then by label): scikit-image's stable argsort, ties included.
//   spacing     ensure_spacing is a sequential greedy in that order, i.e. the lexicographically
//               first maximal independent set of the "closer than min_distance" graph. It is
//               computed exactly in rounds: a candidate is kept once every earlier candidate within
//               min_distance (same label) is rejected, rejected once one of them is kept. A rank
//               image finds the earlier neighbours in the (2 min_distance - 1)^ndim window. The
//               earliest undecided candidate is always decided, so the rounds end; on peak images
//               the dependency chains are short.
//   limits      num_peaks_per_label by a scan of the kept flags per label segment; num_peaks over
//               labels re-ranks the kept peaks over the whole image, as scikit-image does.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdint>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cstring>
#include <thrust/iterator/counting_iterator.h>
#include <type_traits>
#include <vector>

#include "cuskimage/ndimage.hpp"
#include "kernels/core/buffers.cuh"
#include "kernels/core/launch.cuh"
#include "src/core/cuda_check.hpp"
#include "src/feature/peak.hpp"

namespace cuskimage::feature::detail {
namespace {

using cuskimage::detail::grid_blocks;
using cuskimage::detail::buf::cptr;
using cuskimage::detail::buf::ptr;
using cuskimage::detail::buf::scratch;
using cuskimage::detail::buf::upload;
using i64 = std::int64_t;
using u64 = unsigned long long;

constexpr int kThreads = 256;
constexpr i64 kCap = 65535LL * 8;

/// Shape padded to 3 axes (leading 1s) and the excluded border per axis.
struct G3 {
  i64 n;
  int s[3];
  int b[3];
};

__device__ __forceinline__ void unravel(i64 i, const G3& g, int c[3]) {
  c[2] = static_cast<int>(i % g.s[2]);
  i /= g.s[2];
  c[1] = static_cast<int>(i % g.s[1]);
  c[0] = static_cast<int>(i / g.s[1]);
}
__device__ __forceinline__ i64 ravel(const int c[3], const G3& g) {
  return (static_cast<i64>(c[0]) * g.s[1] + c[1]) * g.s[2] + c[2];
}
__device__ __forceinline__ bool inner(const int c[3], const G3& g) {
  for (int a = 0; a < 3; ++a)
    if (c[a] < g.b[a] || c[a] >= g.s[a] - g.b[a]) return false;
  return true;
}

/// ensure_spacing's test: Minkowski distance < r (the CPU's arithmetic).
__device__ bool closer(const int d[3], double r, double p) {
  double s = 0;
  if (isinf(p)) {
    for (int a = 0; a < 3; ++a) s = fmax(s, static_cast<double>(abs(d[a])));
    return s < r;
  }
  for (int a = 0; a < 3; ++a) {
    const double x = static_cast<double>(abs(d[a]));
    s += p == 1 ? x : p == 2 ? x * x : pow(x, p);
  }
  const double dist = p == 1 ? s : p == 2 ? sqrt(s) : pow(s, 1.0 / p);
  return dist < r;
}

template <class T, class C>
__global__ void k_cand_plain(const T* img, const T* mx, G3 g, C thr, bool single, std::uint8_t* flag, int* noteq) {
  for (i64 i = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; i < g.n; i += static_cast<i64>(gridDim.x) * blockDim.x) {
    int c[3];
    unravel(i, g, c);
    bool eq = true;
    if (!single) {
      eq = img[i] == mx[i];
      if (!eq) *noteq = 1;
    }
    flag[i] = eq && static_cast<C>(img[i]) > thr && inner(c, g);
  }
}

__device__ __forceinline__ int label_at(const int* lab, const int c[3], const G3& g, i64 i) {
  return inner(c, g) ? lab[i] : 0;
}

/// Label bounding boxes. Lanes of a warp holding the same label reduce their box first: labels
/// are regions, and one atomic per pixel on a label's six words serialises at L2.
__global__ void k_bbox(const int* lab, G3 g, int* box, int* any) {
  const int lane = static_cast<int>(threadIdx.x & 31);
  const i64 stride = static_cast<i64>(gridDim.x) * blockDim.x;
  bool seen = false;
  // Warp-uniform trip count (blockDim is a multiple of 32): the warp intrinsics see every lane.
  for (i64 b = blockIdx.x * static_cast<i64>(blockDim.x) + (threadIdx.x & ~31u); b < g.n; b += stride) {
    const i64 i = b + lane;
    int c[3] = {0, 0, 0};
    int l = 0;
    if (i < g.n) {
      unravel(i, g, c);
      l = label_at(lab, c, g, i);
    }
    const unsigned grp = __match_any_sync(0xffffffffu, l > 0 ? l : 0);
    if (l <= 0) continue;
    seen = true;
    const bool leader = lane == __ffs(grp) - 1;
    for (int a = 0; a < 3; ++a) {
      const int lo = __reduce_min_sync(grp, c[a]), hi = __reduce_max_sync(grp, c[a]);
      if (leader) {
        atomicMin(&box[(l - 1) * 6 + a], lo);
        atomicMax(&box[(l - 1) * 6 + 3 + a], hi);
      }
    }
  }
  if (__any_sync(0xffffffffu, seen) && lane == 0) *any = 1;
}

/// In label l's box and of label l (scikit-image's label_mask of the cropped box).
__device__ __forceinline__ bool in_label(const int* lab, const int* bx, const G3& g, int l, const int q[3]) {
  for (int a = 0; a < 3; ++a)
    if (q[a] < bx[a] || q[a] > bx[3 + a]) return false;
  return lab[ravel(q, g)] == l;
}

template <class T>
__global__ void k_label_max(const T* img, const int* lab, G3 g, const int* box, const int* offs, int noff, T bg,
                            bool single, std::uint8_t* eq, int* noteq) {
  for (i64 i = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; i < g.n; i += static_cast<i64>(gridDim.x) * blockDim.x) {
    int c[3];
    unravel(i, g, c);
    const int l = label_at(lab, c, g, i);
    if (l <= 0) {
      eq[i] = 0;
      continue;
    }
    if (single) {
      eq[i] = 1;
      continue;
    }
    const int* bx = box + (l - 1) * 6;
    T m = bg;
    bool first = true;
    for (int k = 0; k < noff; ++k) {
      int q[3];
      for (int a = 0; a < 3; ++a) q[a] = min(max(c[a] + offs[k * 3 + a], bx[a]), bx[3 + a]);
      const i64 j = ravel(q, g);
      const T v = lab[j] == l ? img[j] : bg;
      if (first || v > m) m = v;
      first = false;
    }
    eq[i] = img[i] == m;
    if (!eq[i]) noteq[l - 1] = 1;
  }
}

/// k_label_max for 2-D images, one 32x32 tile per block with its window halo (R pixels) of labels
/// and values in shared memory: the window is ~(2 min_distance + 1)^2 reads per pixel. Same
/// arithmetic as k_label_max, including the first-value rule for NaN. Lanes set noteq once per
/// label and warp (most pixels are below their window maximum).
template <class T>
__global__ void __launch_bounds__(256) k_label_max_tile(const T* img, const int* lab, G3 g, const int* box,
                                                        const int* offs, int noff, int R, T bg, std::uint8_t* eq,
                                                        int* noteq) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int W = 32 + 2 * R;
  int* slab = reinterpret_cast<int*>(smem);
  T* simg = reinterpret_cast<T*>(smem + ((static_cast<std::size_t>(W) * W * sizeof(int) + 15) / 16) * 16);
  const int ny = g.s[1], nx = g.s[2];
  const int y0 = static_cast<int>(blockIdx.y) * 32, x0 = static_cast<int>(blockIdx.x) * 32;
  for (int t = static_cast<int>(threadIdx.x); t < W * W; t += blockDim.x) {
    const int y = y0 + t / W - R, x = x0 + t % W - R;
    const bool in = y >= 0 && y < ny && x >= 0 && x < nx;
    const i64 j = static_cast<i64>(y) * nx + x;
    slab[t] = in ? lab[j] : 0;
    simg[t] = in ? img[j] : bg;
  }
  __syncthreads();
  const int tx = static_cast<int>(threadIdx.x & 31), ty = static_cast<int>(threadIdx.x >> 5);
  for (int r = 0; r < 4; ++r) {
    const int y = y0 + ty + 8 * r, x = x0 + tx;
    const bool valid = y < ny && x < nx;
    const int c[3] = {0, y, x};
    const i64 i = static_cast<i64>(y) * nx + x;
    const int l = valid ? label_at(lab, c, g, i) : 0;
    bool e = false;
    if (l > 0) {
      const int* bx = box + (l - 1) * 6;
      const int by0 = bx[1], by1 = bx[4], bx0 = bx[2], bx1 = bx[5];
      T m = bg;
      for (int k = 0; k < noff; ++k) {
        const int qy = min(max(y + offs[k * 3 + 1], by0), by1), qx = min(max(x + offs[k * 3 + 2], bx0), bx1);
        const int q = (qy - y0 + R) * W + (qx - x0 + R);
        const T v = slab[q] == l ? simg[q] : bg;
        if (k == 0 || v > m) m = v;
      }
      e = simg[(y - y0 + R) * W + (x - x0 + R)] == m;
    }
    if (valid) eq[i] = e;
    const int nl = l > 0 && !e ? l : 0;
    const unsigned grp = __match_any_sync(0xffffffffu, nl);
    if (nl > 0 && tx == __ffs(grp) - 1 && !noteq[nl - 1]) noteq[nl - 1] = 1;
  }
}

/// Candidates of the labels: equal to the window maximum, or for a label with no other pixel,
/// its pixels outside its opening (cross structure, border 0, inside its box); above the threshold.
template <class T, class C>
__global__ void k_label_cand(const T* img, const int* lab, G3 g, const int* box, const std::uint8_t* eq,
                             const int* noteq, C thr, bool single, std::uint8_t* flag) {
  for (i64 i = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; i < g.n; i += static_cast<i64>(gridDim.x) * blockDim.x) {
    int c[3];
    unravel(i, g, c);
    const int l = label_at(lab, c, g, i);
    bool f = l > 0 && static_cast<C>(img[i]) > thr;
    if (f && !single && !noteq[l - 1]) {
      const int* bx = box + (l - 1) * 6;
      auto eroded = [&](const int q[3]) {
        if (!in_label(lab, bx, g, l, q)) return false;
        for (int a = 0; a < 3; ++a)
          for (int s = -1; s <= 1; s += 2) {
            int r[3] = {q[0], q[1], q[2]};
            r[a] += s;
            if (!in_label(lab, bx, g, l, r)) return false;
          }
        return true;
      };
      bool opened = eroded(c);
      for (int a = 0; a < 3 && !opened; ++a)
        for (int s = -1; s <= 1 && !opened; s += 2) {
          int r[3] = {c[0], c[1], c[2]};
          r[a] += s;
          opened = eroded(r);
        }
      f = !opened;
    } else if (f && !single) {
      f = eq[i] != 0;
    }
    flag[i] = f;
  }
}

/// Radix key of scikit-image's sort key -v (wrapping for integers): ascending key = its order.
template <class T>
__device__ __forceinline__ u64 order_key(T v) {
  if constexpr (std::is_floating_point_v<T>) {
    T w = -v;
    if (w == T(0)) w = T(0);  // -0.0 and 0.0 tie, as in NumPy's sort
    using U = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    U b;
    memcpy(&b, &w, sizeof(T));
    const U sign = U(1) << (sizeof(T) * 8 - 1);
    return static_cast<u64>((b & sign) ? ~b : (b | sign));
  } else {
    using U = std::make_unsigned_t<T>;
    const U w = static_cast<U>(U(0) - static_cast<U>(v));
    if constexpr (std::is_signed_v<T>) return static_cast<u64>(static_cast<U>(w ^ (U(1) << (sizeof(T) * 8 - 1))));
    else return static_cast<u64>(w);
  }
}

template <class T>
__global__ void k_keys(const T* img, const i64* idx, i64 m, u64* key) {
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < m; k += static_cast<i64>(gridDim.x) * blockDim.x)
    key[k] = order_key(img[idx[k]]);
}

__global__ void k_label_keys(const int* lab, const i64* idx, i64 m, u64* key) {
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < m; k += static_cast<i64>(gridDim.x) * blockDim.x)
    key[k] = static_cast<u64>(lab[idx[k]]);
}

__global__ void k_rank(const i64* idx, i64 m, int* rank) {
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < m; k += static_cast<i64>(gridDim.x) * blockDim.x)
    rank[idx[k]] = static_cast<int>(k);
}

/// One round of the ordered greedy (status: 0 undecided, 1 kept, 2 rejected).
__global__ void k_round(const i64* idx, i64 m, const int* rank, std::uint8_t* status, const int* lab, G3 g, int w,
                        double r, double p, int* undecided) {
  volatile std::uint8_t* st = status;
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < m; k += static_cast<i64>(gridDim.x) * blockDim.x) {
    if (st[k] != 0) continue;
    int c[3];
    const i64 i = idx[k];
    unravel(i, g, c);
    const int l = lab ? lab[i] : 0;
    int lo[3], hi[3];
    for (int a = 0; a < 3; ++a) {
      lo[a] = max(c[a] - w, 0);
      hi[a] = min(c[a] + w, g.s[a] - 1);
    }
    bool pending = false, rejected = false;
    for (int z = lo[0]; z <= hi[0] && !rejected; ++z)
      for (int y = lo[1]; y <= hi[1] && !rejected; ++y)
        for (int x = lo[2]; x <= hi[2]; ++x) {
          const int q[3] = {z, y, x};
          const i64 j = ravel(q, g);
          const int rk = rank[j];
          if (rk < 0 || rk >= k || (lab && lab[j] != l)) continue;
          const int d[3] = {z - c[0], y - c[1], x - c[2]};
          if (!closer(d, r, p)) continue;
          const std::uint8_t s = st[rk];
          if (s == 1) {
            rejected = true;
            break;
          }
          pending |= s == 0;
        }
    if (rejected) st[k] = 2;
    else if (!pending) st[k] = 1;
    else atomicAdd(undecided, 1);
  }
}

__global__ void k_segstart(const int* lab, const i64* idx, i64 m, i64* start) {
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < m; k += static_cast<i64>(gridDim.x) * blockDim.x) {
    const int l = lab[idx[k]];
    if (k == 0 || lab[idx[k - 1]] != l) start[l] = k;
  }
}

__global__ void k_kept_u32(const std::uint8_t* status, i64 m, std::uint32_t* f) {
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < m; k += static_cast<i64>(gridDim.x) * blockDim.x)
    f[k] = status[k] == 1;
}

__global__ void k_per_label(const int* lab, const i64* idx, i64 m, const i64* start, const std::uint32_t* pos,
                            i64 limit, std::uint8_t* status) {
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < m; k += static_cast<i64>(gridDim.x) * blockDim.x)
    if (status[k] == 1 && static_cast<i64>(pos[k] - pos[start[lab[idx[k]]]]) >= limit) status[k] = 2;
}

__global__ void k_kept_flag(const std::uint8_t* status, i64 m, std::uint8_t* f) {
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < m; k += static_cast<i64>(gridDim.x) * blockDim.x)
    f[k] = status[k] == 1;
}

__global__ void k_coords(const i64* idx, i64 m, G3 g, int nd, i64* out) {
  for (i64 k = blockIdx.x * static_cast<i64>(blockDim.x) + threadIdx.x; k < m; k += static_cast<i64>(gridDim.x) * blockDim.x) {
    int c[3];
    unravel(idx[k], g, c);
    for (int a = 0; a < nd; ++a) out[k * nd + a] = c[3 - nd + a];
  }
}

unsigned blocks(i64 n) { return grid_blocks(n, kThreads, kCap); }

template <class X>
X read_one(const Array& a, const Stream& s) {
  X v{};
  CUSK_CUDA_CHECK(cudaMemcpyAsync(&v, a.data(), sizeof(X), cudaMemcpyDeviceToHost, s.handle()));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s.handle()));
  return v;
}

/// Indices of the flagged pixels, C order; returns the count.
i64 select_flagged(const Array& flag, i64 n, Array& idx, const Stream& s) {
  const Device dev = flag.device();
  idx = Array::empty({std::max<i64>(n, 1)}, DType::int64, dev, s);
  Array cnt = Array::empty({1}, DType::int64, dev, s);
  thrust::counting_iterator<i64> it(0);
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, it, cptr<std::uint8_t>(flag), ptr<i64>(idx),
                                             ptr<i64>(cnt), n, s.handle()));
  Array tmp = scratch(bytes, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceSelect::Flagged(tmp.data(), bytes, it, cptr<std::uint8_t>(flag), ptr<i64>(idx),
                                             ptr<i64>(cnt), n, s.handle()));
  return read_one<i64>(cnt, s);
}

/// Stable radix sort of idx[0, m) by keys (end_bit significant bits); the result is back in idx.
void sort_by(Array& keys, Array& idx, i64 m, int end_bit, const Stream& s) {
  const Device dev = idx.device();
  Array k2 = Array::empty({m}, DType::uint64, dev, s);
  Array v2 = Array::empty({m}, DType::int64, dev, s);
  cub::DoubleBuffer<u64> dk(ptr<u64>(keys), ptr<u64>(k2));
  cub::DoubleBuffer<i64> dv(ptr<i64>(idx), ptr<i64>(v2));
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, dk, dv, static_cast<int>(m), 0, end_bit, s.handle()));
  Array tmp = scratch(bytes, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(tmp.data(), bytes, dk, dv, static_cast<int>(m), 0, end_bit, s.handle()));
  if (dv.Current() != ptr<i64>(idx))
    CUSK_CUDA_CHECK(cudaMemcpyAsync(idx.data(), dv.Current(), m * sizeof(i64), cudaMemcpyDeviceToDevice, s.handle()));
}

/// Sorts C-ordered candidate indices by scikit-image's key (then by label when given).
template <class T>
void order(const T* img, const int* lab, Array& idx, i64 m, const Stream& s) {
  Array keys = Array::empty({m}, DType::uint64, idx.device(), s);
  k_keys<T><<<blocks(m), kThreads, 0, s.handle()>>>(img, cptr<i64>(idx), m, ptr<u64>(keys));
  CUSK_CUDA_CHECK_LAUNCH();
  sort_by(keys, idx, m, static_cast<int>(sizeof(T) * 8), s);
  if (!lab) return;
  k_label_keys<<<blocks(m), kThreads, 0, s.handle()>>>(lab, cptr<i64>(idx), m, ptr<u64>(keys));
  CUSK_CUDA_CHECK_LAUNCH();
  sort_by(keys, idx, m, 32, s);
}

/// status[k] = 1 for the candidates the ordered greedy keeps, 2 for the others.
void spacing(const Array& idx, i64 m, const int* lab, const G3& g, const PeakPlan& plan, Array& status,
             const Stream& s) {
  const Device dev = idx.device();
  status = Array::empty({m}, DType::uint8, dev, s);
  if (plan.min_distance <= 1) {
    CUSK_CUDA_CHECK(cudaMemsetAsync(status.data(), 1, m, s.handle()));
    return;
  }
  CUSK_CUDA_CHECK(cudaMemsetAsync(status.data(), 0, m, s.handle()));
  Array rank = Array::empty({g.n}, DType::int32, dev, s);
  CUSK_CUDA_CHECK(cudaMemsetAsync(rank.data(), 0xff, g.n * sizeof(int), s.handle()));
  k_rank<<<blocks(m), kThreads, 0, s.handle()>>>(cptr<i64>(idx), m, ptr<int>(rank));
  CUSK_CUDA_CHECK_LAUNCH();
  Array und = Array::empty({1}, DType::int32, dev, s);
  const int w = static_cast<int>(plan.min_distance - 1);  // closer than min_distance: |d| < min_distance per axis
  for (;;) {
    for (int r = 0; r < 4; ++r) {
      CUSK_CUDA_CHECK(cudaMemsetAsync(und.data(), 0, sizeof(int), s.handle()));
      k_round<<<blocks(m), kThreads, 0, s.handle()>>>(cptr<i64>(idx), m, cptr<int>(rank), ptr<std::uint8_t>(status),
                                                     lab, g, w, static_cast<double>(plan.min_distance), plan.p_norm,
                                                     ptr<int>(und));
      CUSK_CUDA_CHECK_LAUNCH();
    }
    if (read_one<int>(und, s) == 0) break;
  }
}

/// Keeps the first `limit` kept candidates of every label segment.
void per_label_limit(const int* lab, const Array& idx, i64 m, int nlab, i64 limit, Array& status, const Stream& s) {
  const Device dev = idx.device();
  Array f = Array::empty({m}, DType::uint32, dev, s), pos = Array::empty({m}, DType::uint32, dev, s);
  Array start = Array::zeros({nlab + 1}, DType::int64, dev, s);
  k_kept_u32<<<blocks(m), kThreads, 0, s.handle()>>>(cptr<std::uint8_t>(status), m, ptr<std::uint32_t>(f));
  k_segstart<<<blocks(m), kThreads, 0, s.handle()>>>(lab, cptr<i64>(idx), m, ptr<i64>(start));
  CUSK_CUDA_CHECK_LAUNCH();
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, cptr<std::uint32_t>(f), ptr<std::uint32_t>(pos),
                                                static_cast<int>(m), s.handle()));
  Array tmp = scratch(bytes, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp.data(), bytes, cptr<std::uint32_t>(f), ptr<std::uint32_t>(pos),
                                                static_cast<int>(m), s.handle()));
  k_per_label<<<blocks(m), kThreads, 0, s.handle()>>>(lab, cptr<i64>(idx), m, cptr<i64>(start),
                                                     cptr<std::uint32_t>(pos), limit, ptr<std::uint8_t>(status));
  CUSK_CUDA_CHECK_LAUNCH();
}

/// The kept candidates, in order; returns their count.
i64 compact_kept(const Array& idx, const Array& status, i64 m, Array& kept, const Stream& s) {
  const Device dev = idx.device();
  Array f = Array::empty({m}, DType::uint8, dev, s);
  k_kept_flag<<<blocks(m), kThreads, 0, s.handle()>>>(cptr<std::uint8_t>(status), m, ptr<std::uint8_t>(f));
  CUSK_CUDA_CHECK_LAUNCH();
  kept = Array::empty({m}, DType::int64, dev, s);
  Array cnt = Array::empty({1}, DType::int64, dev, s);
  std::size_t bytes = 0;
  CUSK_CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, bytes, cptr<i64>(idx), cptr<std::uint8_t>(f), ptr<i64>(kept),
                                             ptr<i64>(cnt), m, s.handle()));
  Array tmp = scratch(bytes, dev, s);
  CUSK_CUDA_CHECK(cub::DeviceSelect::Flagged(tmp.data(), bytes, cptr<i64>(idx), cptr<std::uint8_t>(f),
                                             ptr<i64>(kept), ptr<i64>(cnt), m, s.handle()));
  return read_one<i64>(cnt, s);
}

template <class T>
void min_max(const T* v, i64 n, Array& out, const Stream& s) {
  std::size_t b1 = 0, b2 = 0;
  CUSK_CUDA_CHECK(cub::DeviceReduce::Min(nullptr, b1, v, ptr<T>(out), n, s.handle()));
  CUSK_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, b2, v, ptr<T>(out) + 1, n, s.handle()));
  Array tmp = scratch(std::max(b1, b2), out.device(), s);
  CUSK_CUDA_CHECK(cub::DeviceReduce::Min(tmp.data(), b1, v, ptr<T>(out), n, s.handle()));
  CUSK_CUDA_CHECK(cub::DeviceReduce::Max(tmp.data(), b2, v, ptr<T>(out) + 1, n, s.handle()));
}

/// Window offsets (3 ints each, padded) of the footprint (centre size // 2) or the box.
std::vector<int> window_offsets(const Array& footprint, const PeakPlan& plan, int nd, const Stream& s) {
  std::vector<int> o;
  Shape fs = footprint.valid() ? footprint.shape() : Shape(nd, plan.box);
  std::vector<std::uint8_t> in;
  if (footprint.valid()) {
    // A device footprint comes back on the caller's stream (the copy waits for it).
    const Array f = footprint.to(Device::cpu(), s).astype(DType::bool_).contiguous();
    const bool* p = f.data<bool>();
    in.assign(p, p + f.size());
  } else {
    in.assign(static_cast<std::size_t>(shape_size(fs)), 1);
  }
  const Strides st = contiguous_strides(fs);
  for (std::size_t i = 0; i < in.size(); ++i) {
    if (!in[i]) continue;
    int c[3] = {0, 0, 0};
    for (int a = 0; a < nd; ++a) c[3 - nd + a] = static_cast<int>((static_cast<i64>(i) / st[a]) % fs[a] - fs[a] / 2);
    o.insert(o.end(), c, c + 3);
  }
  return o;
}

}  // namespace

template <class T>
Array cuda_peak_local_max(const Array& image, const Array& labels, const Array& footprint, const PeakPlan& plan,
                          const Stream& s) {
  using C = std::conditional_t<std::is_same_v<T, float>, float, double>;
  const Device dev = image.device();
  const int nd = image.ndim();
  G3 g{image.size(), {1, 1, 1}, {0, 0, 0}};
  for (int a = 0; a < nd; ++a) {
    g.s[3 - nd + a] = static_cast<int>(image.shape(a));
    g.b[3 - nd + a] = static_cast<int>(std::min<i64>(plan.border[a], INT_MAX / 4));
  }
  const T* img = cptr<T>(image);
  const int* lab = labels.valid() ? cptr<int>(labels) : nullptr;
  Array mm = Array::empty({3}, image.dtype(), dev, s);
  min_max(img, g.n, mm, s);
  int nlab = 0;
  if (lab) {
    Array lm = Array::empty({1}, DType::int32, dev, s);
    std::size_t bytes = 0;
    CUSK_CUDA_CHECK(cub::DeviceReduce::Max(nullptr, bytes, lab, ptr<int>(lm), g.n, s.handle()));
    Array tmp = scratch(bytes, dev, s);
    CUSK_CUDA_CHECK(cub::DeviceReduce::Max(tmp.data(), bytes, lab, ptr<int>(lm), g.n, s.handle()));
    nlab = std::max(0, read_one<int>(lm, s));
  }
  T h[2];
  CUSK_CUDA_CHECK(cudaMemcpyAsync(h, mm.data(), sizeof(h), cudaMemcpyDeviceToHost, s.handle()));
  CUSK_CUDA_CHECK(cudaStreamSynchronize(s.handle()));
  const C thr = peak_threshold<C>(plan, static_cast<C>(h[0]), static_cast<C>(h[1]));
  const T bg = std::numeric_limits<T>::lowest();
  if (lab && static_cast<C>(bg) > thr) return {};  // background pixels would be peaks: the host's case
  const bool single = (footprint.valid() ? footprint.size() == 1 : plan.box == 1) || g.n == 1;

  Array flag = Array::empty({g.n}, DType::uint8, dev, s);
  if (!lab) {
    Array mx, noteq = Array::zeros({1}, DType::int32, dev, s);
    if (!single) {
      ndimage::RankFilterOptions ro;
      ro.mode = ndimage::Mode::nearest;
      if (footprint.valid()) ro.footprint = footprint.share();
      else ro.size = {plan.box};
      mx = ndimage::maximum_filter(image, ro, s);
    }
    k_cand_plain<T, C><<<blocks(g.n), kThreads, 0, s.handle()>>>(img, single ? img : cptr<T>(mx), g, thr, single,
                                                                 ptr<std::uint8_t>(flag), ptr<int>(noteq));
    CUSK_CUDA_CHECK_LAUNCH();
    if (!single && read_one<int>(noteq, s) == 0) return Array::empty({0, nd}, DType::int64, dev, s);
  } else {
    if (nlab == 0) return Array::empty({0, 2}, DType::int64, dev, s);
    std::vector<int> init(static_cast<std::size_t>(nlab) * 6);
    for (int l = 0; l < nlab; ++l)
      for (int a = 0; a < 3; ++a) init[l * 6 + a] = INT_MAX, init[l * 6 + 3 + a] = -1;
    Array box = upload(init, dev, s);
    Array any = Array::zeros({1}, DType::int32, dev, s);
    k_bbox<<<blocks(g.n), kThreads, 0, s.handle()>>>(lab, g, ptr<int>(box), ptr<int>(any));
    CUSK_CUDA_CHECK_LAUNCH();
    if (read_one<int>(any, s) == 0) return Array::empty({0, 2}, DType::int64, dev, s);  // no label box
    const std::vector<int> offs = window_offsets(footprint, plan, nd, s);
    Array doffs = upload(offs, dev, s);
    Array eq = Array::empty({g.n}, DType::uint8, dev, s);
    Array noteq = Array::zeros({nlab}, DType::int32, dev, s);
    const int noff = static_cast<int>(offs.size() / 3);
    int R = 0;  // the window's reach in y and x
    for (std::size_t k = 0; k < offs.size(); k += 3) R = std::max({R, std::abs(offs[k + 1]), std::abs(offs[k + 2])});
    const int W = 32 + 2 * R;
    const std::size_t smem = ((static_cast<std::size_t>(W) * W * sizeof(int) + 15) / 16) * 16 + std::size_t(W) * W * sizeof(T);
    if (g.s[0] == 1 && !single && smem <= 48 * 1024) {
      const dim3 grid((g.s[2] + 31) / 32, (g.s[1] + 31) / 32);
      k_label_max_tile<T><<<grid, kThreads, smem, s.handle()>>>(img, lab, g, cptr<int>(box), cptr<int>(doffs), noff, R, bg,
                                                               ptr<std::uint8_t>(eq), ptr<int>(noteq));
    } else {
      k_label_max<T><<<blocks(g.n), kThreads, 0, s.handle()>>>(img, lab, g, cptr<int>(box), cptr<int>(doffs), noff, bg,
                                                               single, ptr<std::uint8_t>(eq), ptr<int>(noteq));
    }
    k_label_cand<T, C><<<blocks(g.n), kThreads, 0, s.handle()>>>(img, lab, g, cptr<int>(box), cptr<std::uint8_t>(eq),
                                                                 cptr<int>(noteq), thr, single, ptr<std::uint8_t>(flag));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  Array idx;
  i64 m = select_flagged(flag, g.n, idx, s);
  Array kept;
  i64 count = 0;
  if (m > 0) {
    order<T>(img, lab, idx, m, s);
    Array status;
    spacing(idx, m, lab, g, plan, status, s);
    if (lab && plan.per_label < m) per_label_limit(lab, idx, m, nlab, plan.per_label, status, s);
    count = compact_kept(idx, status, m, kept, s);
    if (lab && count > plan.num_peaks) {  // re-rank the kept peaks over the whole image
      Array keys = Array::empty({count}, DType::uint64, dev, s);
      CUSK_CUDA_CHECK(cudaMemcpyAsync(keys.data(), kept.data(), count * sizeof(i64), cudaMemcpyDeviceToDevice,
                                      s.handle()));
      sort_by(keys, kept, count, 64, s);  // C order
      order<T>(img, nullptr, kept, count, s);
      Array st2, kept2;
      spacing(kept, count, nullptr, g, plan, st2, s);
      count = compact_kept(kept, st2, count, kept2, s);
      kept = std::move(kept2);
    }
  }
  const i64 n = std::min(count, plan.num_peaks);
  Array out = Array::empty({n, nd}, DType::int64, dev, s);
  if (n > 0) {
    k_coords<<<blocks(n), kThreads, 0, s.handle()>>>(cptr<i64>(kept), n, g, nd, ptr<i64>(out));
    CUSK_CUDA_CHECK_LAUNCH();
  }
  return out;
}

#define CUSK_PEAK_INST(T)                                                                                \
  template Array cuda_peak_local_max<T>(const Array&, const Array&, const Array&, const PeakPlan&, \
                                        const Stream&);
CUSK_PEAK_INST(std::uint8_t)
CUSK_PEAK_INST(std::int8_t)
CUSK_PEAK_INST(std::uint16_t)
CUSK_PEAK_INST(std::int16_t)
CUSK_PEAK_INST(std::uint32_t)
CUSK_PEAK_INST(std::int32_t)
CUSK_PEAK_INST(std::uint64_t)
CUSK_PEAK_INST(std::int64_t)
CUSK_PEAK_INST(float)
CUSK_PEAK_INST(double)

}  // namespace cuskimage::feature::detail
