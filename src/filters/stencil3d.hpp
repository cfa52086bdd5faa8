// CUDA entry point of the fused 3-D edge filters (kernels/filters/edges.cu): sobel/scharr/prewitt/
// farid gradients (one axis or the magnitude over several) and laplace on 3-D float volumes in one
// pass, instead of one convolution per axis plus the element-wise steps.
#pragma once

#include "cuskimage/array.hpp"

namespace cuskimage::filters::detail {

/// scikit-image's 3-D edge kernels are outer products: the gradient along axis a correlates with
/// edge[i_a] * prod_{d != a} smooth[i_d] (correlation weights, i.e. scipy's flipped convolution
/// kernel; tap i sits at offset i - R). `laplace` instead computes the 7-point laplace (centre 6,
/// faces -1).
struct Stencil3d {
  int R = 1;                            // 1 (3 taps) or 2 (5 taps)
  double edge[5] = {}, smooth[5] = {};  // 2R + 1 used
  int axes = 0;                         // bit a: the gradient along axis a (0 = the slowest)
  bool magnitude = false;               // sqrt(sum of the squared gradients) / root_ndim; else the single one
  bool laplace = false;
  double root_ndim = 1;  // rounded to T in the kernel
  int mode = 0;          // ndimage::Mode
  double cval = 0;
};

/// `in`, `out` contiguous 3-D float/double, `mask` empty or a contiguous (eroded) bool array of the
/// same shape multiplied in. Returns false (nothing launched) when the plan does not fit: cval not
/// exact in T, grid limits. Sums are in T (float32: ~1e-6 of sum|w| * max|input| from scipy's).
template <class T>
bool cuda_stencil3d(const Array& in, Array& out, const Stencil3d& s, const Array& mask, const Stream& stream);

}  // namespace cuskimage::filters::detail
