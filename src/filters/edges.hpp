// Private pieces of the edge and smoothing filters (src/filters/{edges,gaussian}.cpp): the
// element-wise steps scikit-image runs after its convolutions, written once as CUSK_HD functors for
// both backends, and the CUDA entry points of kernels/filters/edges.cu.
#pragma once

#include <cmath>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::filters::detail {

/// difference_of_gaussians: im1 - im2.
struct SubOp {
  template <class T>
  CUSK_HD T operator()(T a, T b) const { return a - b; }
};

/// unsharp_mask: image + (image - blurred) * amount, then np.clip to [lo, hi] when `clip`.
/// `negative` (device backend): a flag set on the device when the image holds a negative value,
/// which lowers the clip to -1 there without bringing the answer to the host.
template <class T>
struct UnsharpOp {
  T amount, lo, hi;
  bool clip;
  const int* negative = nullptr;
  CUSK_HD T operator()(T x, T blurred) const {
    T r = x + (x - blurred) * amount;
    const T low = negative && *negative ? T(-1) : lo;
    if (clip) r = r < low ? low : (r > hi ? hi : r);  // NaN passes through, as np.clip
    return r;
  }
};

/// The magnitude's running sum: acc + ax * ax, each step rounded in T as NumPy's in-place ops.
struct AddSquareOp {
  template <class T>
  CUSK_HD T operator()(T acc, T ax) const {
    const T sq = ax * ax;
    return acc + sq;
  }
};

/// np.sqrt(sum) / np.sqrt(ndim, dtype=T).
template <class T>
struct MagnitudeOp {
  T root_ndim;
  CUSK_HD T operator()(T s) const { return std::sqrt(s) / root_ndim; }
};

/// result *= mask (bool mask as 0/1 in T).
struct MaskOp {
  template <class T>
  CUSK_HD T operator()(T x, bool m) const { return x * static_cast<T>(m); }
};

/// The float image scikit-image's smoothing and edge filters work on: float32/float64 as is (shared);
/// other dtypes through img_as_float (float64), or their values as float64 when preserve_range.
Array float_image(const Array& image, bool preserve_range, const Stream& stream);

// ---- CUDA entry points (kernels/filters/edges.cu) ----------------------------------------------------
/// One or two dense (2R+1)^2 correlation windows (R <= 2) over a 2-D float image. `wa`/`wb` are
/// row-major: w[(dy + R) * (2R + 1) + dx + R] multiplies input[y + dy][x + dx].
struct Stencil2d {
  int R = 1;
  bool two = false;      // two windows: output sqrt((a^2 + b^2) / 2), root_ndim must be sqrt(2); else a
  double wa[25] = {}, wb[25] = {};
  double root_ndim = 1;  // rounded to T in the kernel
  int mode = 0;          // ndimage::Mode
  double cval = 0;
};

/// `in`, `out` contiguous 2-D (or a batch of planes), float or double; `mask` empty or a contiguous
/// bool array of the input's shape (already eroded) multiplied in. Returns false when the plan does
/// not fit (cval not exact in T, a magnitude root other than sqrt(2), grid limits); the caller then
/// takes the generic path. The magnitude is computed as sqrt((a^2 + b^2) * 0.5), the correctly
/// rounded value of NumPy's sqrt(a^2 + b^2) / sqrt(2) (which rounds twice): within ~1.5 ulp.
template <class T>
bool cuda_stencil2d(const Array& in, Array& out, const Stencil2d& s, const Array& mask, const Stream& stream);

/// out = f(a, b) / f(a) on the device for the functors above (any strides, same shape).
template <class T>
void cuda_sub(const Array& a, const Array& b, Array& out, const Stream& stream);
template <class T>
void cuda_unsharp(const Array& x, const Array& blurred, Array& out, const UnsharpOp<T>& op, const Stream& stream);
template <class T>
void cuda_add_square(const Array& acc, const Array& ax, Array& out, const Stream& stream);
template <class T>
void cuda_magnitude(const Array& s, Array& out, T root_ndim, const Stream& stream);
template <class T>
void cuda_mask(const Array& x, const Array& mask, Array& out, const Stream& stream);

/// np.any(a < 0) on the device, as a one-element int32 device array (1: yes), stream-ordered.
template <class T>
Array cuda_any_negative(const Array& a, const Stream& stream);

}  // namespace cuskimage::filters::detail
