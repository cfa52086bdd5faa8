// Backend entry points of skimage.transform._warps: _warp_fast (scikit-image's own interpolation
// under a homography), the float64 source coordinates of a homogeneous matrix (the map_coordinates
// path), and the min/max and np.clip of _clip_warp_output. CPU in warps_cpu.cpp, CUDA in
// kernels/transform/warps.cu; warps.cpp validates and picks.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/transform/warps_pixel.hpp"

namespace cuskimage::transform::detail {

/// `planes`: (channels, rows, cols) contiguous F; `out`: (orows, ocols, channels) contiguous F
/// (channels = 1 for a 2-D image, whose out is (orows, ocols)).
template <class F>
void cpu_warp_fast(const Array& planes, Array& out, const FastWarp<F>& p);

/// coords (2 or 3, orows, ocols[, channels]) float64 contiguous: the row / col source positions of
/// every output pixel under `q`, the channel index in the third plane for a 3-D output.
void cpu_source_coords(const SourceMap& q, Array& coords);
void cuda_source_coords(const SourceMap& q, Array& coords, const Stream& stream);

/// `a` contiguous, any dtype the warps produce.
MinMax cpu_minmax(const Array& a);
/// a = np.clip(a, lo, hi) in place (a contiguous; lo, hi already in a's dtype).
void cpu_clip(Array& a, double lo, double hi);

// The CUDA side keeps _clip_warp_output on the device (no host round trip): a small uint64 state
// array holds the input's and the output's min/max as order-preserving keys and NaN flags.
/// A fresh state on `dev`.
Array cuda_clip_state(Device dev, const Stream& stream);
/// Folds `a`'s min/max into the state's input (slot 0) or output (slot 1) half. With slot 1 the
/// kernel does nothing unless the input half says cval may widen the range (mode constant).
void cuda_minmax_into(const Array& a, Array& state, int slot, bool constant, double cval, const Stream& stream);
/// np.clip of `out` to clip_limits(state): in place, `out` contiguous. `fused`: the warp kernel
/// clipped already unless cval may widen the range (then only that case is left to do).
void cuda_clip_finish(Array& out, const Array& state, bool constant, double cval, double cv_in, bool fused,
                      const Stream& stream);

/// CUDA _warp_fast with _clip_warp_output: `state` (null without clip) holds the input's range
/// (cuda_minmax_into slot 0); the kernel clips on the way out where `cval` (the caller's, before any
/// cast) cannot widen the range, else keeps what the clip needs and clips after it (`cv_in`: cval
/// cast to the input's dtype). The kernel follows tuning::warp_policy().
template <class F>
void cuda_warp_fast(const Array& planes, Array& out, const FastWarp<F>& p, Array* state, double cval, double cv_in,
                    const Stream& stream);

/// A banded weight matrix along one axis (resize_local_mean): output j of the axis is
/// sum over t < count[j] of w[off[j] + t] * input[start[j] + t], accumulated with fused
/// multiply-adds in F as the BLAS tensordot does.
template <class F>
struct AxisWeights {
  std::vector<std::int64_t> start, count, off;
  std::vector<F> w;
};
/// `in` (outer, n, inner) and `out` (outer, m, inner) contiguous F, m = count.size().
template <class F>
void cpu_weighted_axis(const Array& in, Array& out, std::int64_t outer, std::int64_t inner, const AxisWeights<F>& aw);
template <class F>
void cuda_weighted_axis(const Array& in, Array& out, std::int64_t outer, std::int64_t inner, const AxisWeights<F>& aw,
                        const Stream& stream);

/// out = a - b elementwise (contiguous F arrays of one size; pyramid_laplacian's layers).
template <class F>
void cpu_subtract(const Array& a, const Array& b, Array& out);
template <class F>
void cuda_subtract(const Array& a, const Array& b, Array& out, const Stream& stream);

/// One output of the banded weighted sum (shared by both backends).
template <class F>
CUSK_HD F weighted_tap_sum(const F* in, std::int64_t stride, std::int64_t start, std::int64_t count, const F* w) {
  F acc = 0;
  for (std::int64_t t = 0; t < count; ++t) {
#if defined(__CUDA_ARCH__)
    acc = fma(w[t], in[(start + t) * stride], acc);
#else
    acc = std::fma(w[t], in[(start + t) * stride], acc);
#endif
  }
  return acc;
}

}  // namespace cuskimage::transform::detail
