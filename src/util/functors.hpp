// Per-pixel functors of random_noise, montage, compare_images, map_array, apply_parallel's halo
// gather and the small generators, shared by the CPU backend and the CUDA kernels.
#pragma once

#include <cstdint>
#include <type_traits>

#include "src/core/convert.hpp"
#include "src/core/hd.hpp"
#include "src/core/indexer.hpp"
#include "src/util/rn_names.hpp"
#include "src/util/rng.hpp"

namespace cuskimage::util::detail {

// ---- random_noise --------------------------------------------------------------------------------

enum class NoiseKind : std::int32_t { gaussian, poisson, salt_pepper, speckle };

struct NoiseParams {
  NoiseKind kind = NoiseKind::gaussian;
  std::uint64_t seed = 0;
  bool clip = true;
  double low_clip = 0.0;
  double mean = 0.0;
  double sd = 0.1;
  double amount = 0.05;
  double salt_vs_pepper = 0.5;
  double vals = 1.0;            // poisson: 2^ceil(log2(#distinct values))
  bool shift_negative = false;  // poisson with negative input: work on (x + 1) / (old_max + 1)
  double old_max = 0.0;
};

/// Noise on img_as_float(image) of type T, computed in float64, result T. Depends on (seed, i).
template <class T>
struct NoiseFn {
  using in_type = T;
  using out_type = T;
  NoiseParams p;

  CUSK_HD T operator()(T xt, std::int64_t i) const {
    const Rn x = static_cast<double>(xt);
    Rn out = x;
    switch (p.kind) {
      case NoiseKind::gaussian: {
        PixelRng g(p.seed, static_cast<std::uint64_t>(i), kStreamNormal);
        out = x + (Rn(p.mean) + Rn(p.sd) * Rn(normal_hd(g)));
        break;
      }
      case NoiseKind::speckle: {
        PixelRng g(p.seed, static_cast<std::uint64_t>(i), kStreamNormal);
        out = x + x * (Rn(p.mean) + Rn(p.sd) * Rn(normal_hd(g)));
        break;
      }
      case NoiseKind::salt_pepper: {
        PixelRng g(p.seed, static_cast<std::uint64_t>(i), kStreamSaltPepper);
        double u_flip, u_salt;
        g.uniform2(u_flip, u_salt);
        const bool flipped = p.amount >= 1.0 || (p.amount > 0.0 && u_flip <= p.amount);
        const bool salted = p.salt_vs_pepper >= 1.0 || (p.salt_vs_pepper > 0.0 && u_salt <= p.salt_vs_pepper);
        if (flipped) out = salted ? 1.0 : p.low_clip;
        break;
      }
      case NoiseKind::poisson: {
        PixelRng g(p.seed, static_cast<std::uint64_t>(i), kStreamPoisson);
        Rn v = x;
        if (p.shift_negative) v = (v + Rn(1.0)) / (Rn(p.old_max) + Rn(1.0));
        out = Rn(poisson_hd((v * Rn(p.vals)).v, g)) / Rn(p.vals);
        if (p.shift_negative) out = out * (Rn(p.old_max) + Rn(1.0)) - Rn(1.0);
        break;
      }
    }
    double o = out.v;
    if (p.clip) o = o < p.low_clip ? p.low_clip : (o > 1.0 ? 1.0 : o);  // NaN passes, as np.clip
    return static_cast<T>(o);
  }
};

/// localvar: x + N(0, local_var) per pixel.
template <class T>
struct LocalVarNoiseFn {
  NoiseParams p;
  CUSK_HD T operator()(T xt, double local_var, std::int64_t i) const {
    PixelRng g(p.seed, static_cast<std::uint64_t>(i), kStreamNormal);
    const Rn x = static_cast<double>(xt);
    double o = (x + Rn(sqrt_rn(local_var)) * Rn(normal_hd(g))).v;
    if (p.clip) o = o < p.low_clip ? p.low_clip : (o > 1.0 ? 1.0 : o);
    return static_cast<T>(o);
  }
};

// ---- montage -------------------------------------------------------------------------------------

/// exposure.rescale_intensity(image) with its defaults, for one image of a stack: parameters per
/// image k in `params[4k..4k+3]` = (imin, imax, omin, omax) as float64.
template <class T>
struct RescaleStackFn {
  using in_type = T;
  using out_type = T;
  const double* params = nullptr;
  std::int64_t image_size = 1;  // elements per image
  CUSK_HD T operator()(T x, std::int64_t i) const {
    const double* p = params + 4 * (i / image_size);
    const double imin = p[0], imax = p[1], omin = p[2], omax = p[3];
    if constexpr (std::is_same_v<T, float>) {
      // float32 images: NumPy keeps float32 (Python scalars are weak), each step rounded to float.
      if (imin != imax) {
        float t = sub_rn(x, static_cast<float>(imin));
        t = div_rn(t, static_cast<float>(imax - imin));
        t = mul_rn(t, static_cast<float>(omax - omin));
        return add_rn(t, static_cast<float>(omin));
      }
      const float lo = static_cast<float>(omin), hi = static_cast<float>(omax);
      return x < lo ? lo : (x > hi ? hi : x);
    } else {
      const double v = static_cast<double>(x);
      double t;
      if (imin != imax) {
        t = div_rn(sub_rn(v, imin), imax - imin);
        t = add_rn(mul_rn(t, omax - omin), omin);
      } else {
        t = v < omin ? omin : (v > omax ? omax : v);
      }
      return cuskimage::detail::convert<T>(t);
    }
  }
};

/// Output pixel (row, col, chan) of a montage: the source image pixel or the fill value.
template <class T>
struct MontageFn {
  using out_type = T;
  const T* src = nullptr;  // (K, M, N, C) with strides s[4]
  std::int64_t s[4] = {};
  std::int64_t n_images = 0, n_rows = 0, n_cols = 0, n_chan = 1;
  std::int64_t pad = 0, ntiles_col = 1, out_cols = 1;
  const T* fill = nullptr;  // n_chan values
  CUSK_HD T operator()(std::int64_t i) const {
    const std::int64_t ch = i % n_chan;
    const std::int64_t pix = i / n_chan;
    const std::int64_t r = pix / out_cols, c = pix % out_cols;
    if (r < pad || c < pad) return fill[ch];
    const std::int64_t tr = (r - pad) / (n_rows + pad), ir = (r - pad) % (n_rows + pad);
    const std::int64_t tc = (c - pad) / (n_cols + pad), ic = (c - pad) % (n_cols + pad);
    if (ir >= n_rows || ic >= n_cols || tc >= ntiles_col) return fill[ch];
    const std::int64_t k = tr * ntiles_col + tc;
    if (k >= n_images) return fill[ch];
    return src[k * s[0] + ir * s[1] + ic * s[2] + ch * s[3]];
  }
};

// ---- compare_images ------------------------------------------------------------------------------

template <class T>
struct DiffFn {
  CUSK_HD T operator()(T a, T b) const {
    const T d = sub_rn(b, a);
    return d < T(0) ? -d : d;
  }
};

template <class T>
struct BlendFn {
  CUSK_HD T operator()(T a, T b) const { return mul_rn(T(0.5), add_rn(b, a)); }
};

/// Tile (i, j) with i + j even shows image0 (2-D, row-major linear index).
template <class T>
struct CheckerboardFn {
  std::int64_t cols = 1, stepx = 0, stepy = 0, tiles_x = 8, tiles_y = 8;
  CUSK_HD T operator()(T a, T b, std::int64_t i) const {
    const std::int64_t r = i / cols, c = i % cols;
    if (stepx <= 0 || stepy <= 0) return b;
    const std::int64_t ti = r / stepx, tj = c / stepy;
    const bool mask = ti < tiles_x && tj < tiles_y && ((ti + tj) & 1) == 0;
    return mask ? a : b;
  }
};

// ---- map_array -----------------------------------------------------------------------------------

/// Position of the last key equal to x in sorted `keys[0..n)`, or -1.
template <class K>
CUSK_HD std::int64_t find_last(const K* keys, std::int64_t n, K x) {
  std::int64_t lo = 0, hi = n;  // upper_bound
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] <= x)
      lo = mid + 1;
    else
      hi = mid;
  }
  return (lo > 0 && keys[lo - 1] == x) ? lo - 1 : -1;
}

/// out = output_vals[order[last match]] or zero; U is an unsigned integer of the output's width.
template <class K, class U>
struct MapArrayFn {
  using in_type = K;
  using out_type = U;
  const K* keys = nullptr;            // sorted input_vals
  const std::int64_t* order = nullptr;  // original position of each sorted key
  const U* values = nullptr;          // output_vals (contiguous)
  std::int64_t n = 0;
  CUSK_HD U operator()(K x) const {
    const std::int64_t j = find_last(keys, n, x);
    return j < 0 ? U(0) : values[order[j]];
  }
};

// ---- apply_parallel: a chunk with its halo ------------------------------------------------------

enum class HaloMode : std::int32_t { reflect, periodic, nearest, constant };

/// Element i (C order) of a block of `shape` whose origin lies at `origin` in the source (may be
/// negative or past the end): the source element, mapped back inside by `mode`.
template <class T>
struct HaloGatherFn {
  using out_type = T;
  const T* src = nullptr;
  int ndim = 0;
  std::int64_t shape[cuskimage::detail::kMaxDims] = {};
  std::int64_t origin[cuskimage::detail::kMaxDims] = {};
  std::int64_t src_shape[cuskimage::detail::kMaxDims] = {};
  std::int64_t src_stride[cuskimage::detail::kMaxDims] = {};
  HaloMode mode = HaloMode::reflect;
  T cval = T(0);
  CUSK_HD T operator()(std::int64_t i) const {
    std::int64_t off = 0;
    for (int d = ndim - 1; d >= 0; --d) {
      const std::int64_t q = i / shape[d];
      std::int64_t g = origin[d] + (i - q * shape[d]);
      i = q;
      const std::int64_t n = src_shape[d];
      if (g < 0 || g >= n) {
        switch (mode) {
          case HaloMode::constant:
            return cval;
          case HaloMode::nearest:
            g = g < 0 ? 0 : n - 1;
            break;
          case HaloMode::periodic:
            g %= n;
            if (g < 0) g += n;
            break;
          case HaloMode::reflect: {  // mirrored with the edge repeated (NumPy's 'symmetric')
            const std::int64_t period = 2 * n;
            g %= period;
            if (g < 0) g += period;
            if (g >= n) g = period - 1 - g;
            break;
          }
        }
      }
      off += g * src_stride[d];
    }
    return src[off];
  }
};

// ---- small generators ----------------------------------------------------------------------------

/// value(i) = i + 1 (regular_seeds' labels).
template <class T>
struct IotaFn {
  using out_type = T;
  CUSK_HD T operator()(std::int64_t i) const { return cuskimage::detail::convert<T>(i + 1); }
};

/// Point i of (N, ndim) coordinates rounded half-to-even, as a C-order offset into `shape`.
template <class C>
CUSK_HD std::int64_t point_offset(const C* coords, std::int64_t row_stride, std::int64_t col_stride,
                                  std::int64_t i, int ndim, const std::int64_t* shape) {
  std::int64_t off = 0;
  for (int d = 0; d < ndim; ++d) {
    const C v = coords[i * row_stride + d * col_stride];
    std::int64_t q;
    if constexpr (std::is_floating_point_v<C>)
      q = static_cast<std::int64_t>(rint_rn(static_cast<double>(v)));
    else
      q = static_cast<std::int64_t>(v);
    off = off * shape[d] + q;
  }
  return off;
}

}  // namespace cuskimage::util::detail
