// CUDA morphsnakes: every step of an iteration is one stencil kernel over the int8 level set
// (threads along x, 32 x 8 blocks, one z plane per grid layer), using the per-pixel code of
// src/segmentation/morphsnakes.hpp, so each step's output equals the CPU backend's. MorphACWE's
// region means are a two-kernel device reduction (fixed-size per-block partials, then one block
// summing them in a fixed order: deterministic run to run) whose result the data step reads from
// device memory: no host round trip per iteration.
//
// Bytes per MorphACWE iteration at 1024^2 float32 (smoothing 1): means 5 B/px, data step ~6 B/px,
// IS and SI 2 B/px each (neighbours from L1/L2) -> ~15 MB -> ~4 us at 4 TB/s; the five launches per
// iteration (~2-3 us each) dominate: 50 iterations ~0.6-0.8 ms.
#include <algorithm>

#include "kernels/segmentation/block_sums.cuh"
#include "src/core/cuda_check.hpp"
#include "src/segmentation/morphsnakes.hpp"

namespace cuskimage::segmentation::detail {
namespace {

constexpr int kBX = 32, kBY = 8, kReduceThreads = 256, kReduceBlocks = 512;
using i8 = std::int8_t;
using i64 = std::int64_t;

dim3 stencil_grid(const LevelSetGrid& g) {
  return dim3(static_cast<unsigned>((g.nx + kBX - 1) / kBX), static_cast<unsigned>((g.ny + kBY - 1) / kBY),
              static_cast<unsigned>(g.nz));
}

#define CUSK_MS_PIXEL                                              \
  const i64 x = i64(blockIdx.x) * kBX + threadIdx.x;               \
  const i64 y = i64(blockIdx.y) * kBY + threadIdx.y;               \
  const i64 z = blockIdx.z;                                        \
  if (x >= g.nx || y >= g.ny) return;                              \
  const i64 i = (z * g.ny + y) * g.nx + x;

template <bool kSupInf, bool kThree>
__global__ void __launch_bounds__(kBX* kBY)
    curv_kernel(const i8* __restrict__ u, i8* __restrict__ out, LevelSetGrid g) {
  CUSK_MS_PIXEL
  out[i] = curv_op_n<kSupInf, kThree>(u, g, z, y, x);
}

template <bool kSupInf>
void launch_curv(const i8* u, i8* out, const LevelSetGrid& g, const Stream& s) {
  const dim3 grid = stencil_grid(g), block(kBX, kBY);
  if (g.three) curv_kernel<kSupInf, true><<<grid, block, 0, s.handle()>>>(u, out, g);
  else curv_kernel<kSupInf, false><<<grid, block, 0, s.handle()>>>(u, out, g);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class T>
__global__ void __launch_bounds__(kBX* kBY)
    cv_kernel(const i8* __restrict__ u, const T* __restrict__ img, i8* __restrict__ out, LevelSetGrid g,
              const T* __restrict__ c, T l1, T l2) {
  CUSK_MS_PIXEL
  out[i] = cv_step<T>(u, img, g, z, y, x, c[0], c[1], l1, l2);
}

template <class T>
__global__ void __launch_bounds__(kBX* kBY)
    gac_kernel(const i8* __restrict__ u, const T* __restrict__ gi, i8* __restrict__ out, LevelSetGrid g) {
  CUSK_MS_PIXEL
  out[i] = gac_step<T>(u, gi, g, z, y, x);
}

template <class T, bool kDilate>
__global__ void __launch_bounds__(kBX* kBY)
    balloon_kernel(const i8* __restrict__ u, const T* __restrict__ gi, i8* __restrict__ out, LevelSetGrid g, T thr) {
  CUSK_MS_PIXEL
  out[i] = gi[i] > thr ? cube_op<kDilate>(u, g, z, y, x) : u[i];
}

/// Per-block partial sums of the image inside / outside the level set and the inside count.
template <class T>
__global__ void __launch_bounds__(kReduceThreads)
    means_partial_kernel(const T* __restrict__ img, const i8* __restrict__ u, i64 n, double* __restrict__ part) {
  double s_in = 0.0, s_out = 0.0, n_in = 0.0;
  for (i64 i = i64(blockIdx.x) * kReduceThreads + threadIdx.x; i < n; i += i64(gridDim.x) * kReduceThreads) {
    const double v = static_cast<double>(img[i]);
    if (u[i]) {
      s_in += v;
      n_in += 1.0;
    } else {
      s_out += v;
    }
  }
  double v[3] = {s_in, s_out, n_in};
  levelset_block_store<kReduceThreads>(v, part);
}

/// c[0] = mean outside, c[1] = mean inside, as scikit-image's sum / float(count + 1e-8) in T.
template <class T>
__global__ void __launch_bounds__(kReduceThreads) means_final_kernel(const double* __restrict__ part, int nb, i64 n,
                                                                     T* __restrict__ c) {
  double v[3];
  levelset_sum_partials<kReduceThreads>(part, nb, v);
  const double s_in = v[0], s_out = v[1], n_in = v[2];
  if (threadIdx.x == 0) {
    using cuskimage::detail::add_rn;
    using cuskimage::detail::div_rn;
    c[0] = div_rn(T(s_out), T(add_rn(double(n) - n_in, 1e-8)));
    c[1] = div_rn(T(s_in), T(add_rn(n_in, 1e-8)));
  }
}

__global__ void binarize_kernel(const double* __restrict__ v, i8* __restrict__ u, i64 n) {
  for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += i64(gridDim.x) * blockDim.x)
    u[i] = v[i] > 0.0 ? 1 : 0;
}

struct PatternArgs {
  i64 shape[3];
  int nd;
  i64 square;
  double center[3];
  double radius;
};

__global__ void pattern_kernel(i8* __restrict__ out, i64 n, PatternArgs p) {
  for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += i64(gridDim.x) * blockDim.x) {
    i64 c[3], r = i;
    for (int k = p.nd - 1; k >= 0; --k) {
      c[k] = r % p.shape[k];
      r /= p.shape[k];
    }
    out[i] = p.square > 0 ? checker_at(c, p.nd, p.square) : disk_at(c, p.nd, p.center, p.radius);
  }
}

template <class T>
struct Derivatives {
  const T* p[3];
};

template <class T>
__global__ void inverse_gradient_kernel(Derivatives<T> d, int nd, T* __restrict__ out, i64 n, T alpha) {
  for (i64 i = i64(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += i64(gridDim.x) * blockDim.x) {
    T acc = T(0);
    for (int k = 0; k < nd; ++k) acc = sum_square(acc, d.p[k][i]);
    out[i] = inverse_gradient(T(sqrt(acc)), alpha);
  }
}

unsigned flat_blocks(i64 n) { return static_cast<unsigned>(std::clamp<i64>((n + 255) / 256, 1, 8192)); }

/// Ping-pong level set buffers: `a` holds the current state.
struct LevelSets {
  Array u, tmp;
  i8 *a, *b;
  LevelSets(Array& level, const Stream& s)
      : u(level.share()), tmp(Array::empty(level.shape(), DType::int8, level.device(), s)),
        a(static_cast<i8*>(level.data())), b(static_cast<i8*>(tmp.data())) {}
  void flip() { std::swap(a, b); }
  void callback(const std::function<void(const Array&)>& cb) const {
    if (cb) cb(Array::wrap(a, u.shape(), DType::int8, u.device()));
  }
  void finish(const Stream& s) {
    if (a != u.data())
      CUSK_CUDA_CHECK(cudaMemcpyAsync(u.data(), a, static_cast<std::size_t>(u.size()), cudaMemcpyDeviceToDevice,
                                      s.handle()));
  }
};

void smooth(LevelSets& ls, const LevelSetGrid& g, int smoothing, i64& k, const Stream& s) {
  for (int r = 0; r < smoothing; ++r, ++k) {
    const bool si_is = k % 2 == 0;  // SI∘IS applies IS first
    if (si_is) launch_curv<false>(ls.a, ls.b, g, s);
    else launch_curv<true>(ls.a, ls.b, g, s);
    ls.flip();
    if (si_is) launch_curv<true>(ls.a, ls.b, g, s);
    else launch_curv<false>(ls.a, ls.b, g, s);
    ls.flip();
  }
}

}  // namespace

template <class T>
void cuda_morph_chan_vese(const Array& img, Array& u, const LevelSetGrid& g, int num_iter, int smoothing, double l1,
                          double l2,
                          const std::function<void(const Array&)>& cb, const Stream& stream) {
  LevelSets ls(u, stream);
  const i64 n = g.size();
  const i64 per_block = kReduceThreads * 8;
  const int nb = static_cast<int>(std::clamp<i64>((n + per_block - 1) / per_block, 1, kReduceBlocks));
  Array part = Array::empty({3 * i64(nb)}, DType::float64, u.device(), stream);
  Array means = Array::empty({2}, dtype_v<T>, u.device(), stream);
  const T* im = static_cast<const T*>(img.data());
  T* c = static_cast<T*>(means.data());
  const dim3 grid = stencil_grid(g), block(kBX, kBY);
  i64 k = 0;
  ls.callback(cb);
  for (int it = 0; it < num_iter; ++it) {
    means_partial_kernel<T><<<nb, kReduceThreads, 0, stream.handle()>>>(im, ls.a, n, static_cast<double*>(part.data()));
    CUSK_CUDA_CHECK_LAUNCH();
    means_final_kernel<T><<<1, kReduceThreads, 0, stream.handle()>>>(static_cast<const double*>(part.data()), nb, n, c);
    CUSK_CUDA_CHECK_LAUNCH();
    cv_kernel<T><<<grid, block, 0, stream.handle()>>>(ls.a, im, ls.b, g, c, T(l1), T(l2));
    CUSK_CUDA_CHECK_LAUNCH();
    ls.flip();
    smooth(ls, g, smoothing, k, stream);
    ls.callback(cb);
  }
  ls.finish(stream);
}

template <class T>
void cuda_morph_gac(const Array& gimage, Array& u, const LevelSetGrid& g, int num_iter, int smoothing, double balloon,
                    T thr_balloon, const std::function<void(const Array&)>& cb, const Stream& stream) {
  LevelSets ls(u, stream);
  const T* gi = static_cast<const T*>(gimage.data());
  const dim3 grid = stencil_grid(g), block(kBX, kBY);
  i64 k = 0;
  ls.callback(cb);
  for (int it = 0; it < num_iter; ++it) {
    if (balloon != 0.0) {
      if (balloon > 0.0) balloon_kernel<T, true><<<grid, block, 0, stream.handle()>>>(ls.a, gi, ls.b, g, thr_balloon);
      else balloon_kernel<T, false><<<grid, block, 0, stream.handle()>>>(ls.a, gi, ls.b, g, thr_balloon);
      CUSK_CUDA_CHECK_LAUNCH();
      ls.flip();
    }
    gac_kernel<T><<<grid, block, 0, stream.handle()>>>(ls.a, gi, ls.b, g);
    CUSK_CUDA_CHECK_LAUNCH();
    ls.flip();
    smooth(ls, g, smoothing, k, stream);
    ls.callback(cb);
  }
  ls.finish(stream);
}

void cuda_binarize(const Array& level, Array& u, const Stream& stream) {
  const i64 n = u.size();
  if (n == 0) return;
  binarize_kernel<<<flat_blocks(n), 256, 0, stream.handle()>>>(static_cast<const double*>(level.data()),
                                                               static_cast<i8*>(u.data()), n);
  CUSK_CUDA_CHECK_LAUNCH();
}

void cuda_level_set_pattern(Array& out, std::int64_t square, const double* center, double radius,
                            const Stream& stream) {
  const i64 n = out.size();
  if (n == 0) return;
  PatternArgs p{};
  p.nd = out.ndim();
  p.square = square;
  p.radius = radius;
  for (int k = 0; k < p.nd; ++k) {
    p.shape[k] = out.shape()[k];
    if (square <= 0) p.center[k] = center[k];
  }
  pattern_kernel<<<flat_blocks(n), 256, 0, stream.handle()>>>(static_cast<i8*>(out.data()), n, p);
  CUSK_CUDA_CHECK_LAUNCH();
}

template <class T>
void cuda_inverse_gradient(const std::vector<Array>& d, Array& out, double alpha, const Stream& stream) {
  const i64 n = out.size();
  if (n == 0) return;
  Derivatives<T> ptrs{};
  for (std::size_t k = 0; k < d.size(); ++k) ptrs.p[k] = static_cast<const T*>(d[k].data());
  inverse_gradient_kernel<T><<<flat_blocks(n), 256, 0, stream.handle()>>>(ptrs, static_cast<int>(d.size()),
                                                                           static_cast<T*>(out.data()), n, T(alpha));
  CUSK_CUDA_CHECK_LAUNCH();
}

#define CUSK_MS_INSTANTIATE(T)                                                                         \
  template void cuda_morph_chan_vese<T>(const Array&, Array&, const LevelSetGrid&, int, int, double, double, \
                                        const std::function<void(const Array&)>&, const Stream&);            \
  template void cuda_morph_gac<T>(const Array&, Array&, const LevelSetGrid&, int, int, double, T,            \
                                  const std::function<void(const Array&)>&, const Stream&);                  \
  template void cuda_inverse_gradient<T>(const std::vector<Array>&, Array&, double, const Stream&);
CUSK_MS_INSTANTIATE(float)
CUSK_MS_INSTANTIATE(double)
#undef CUSK_MS_INSTANTIATE

}  // namespace cuskimage::segmentation::detail
