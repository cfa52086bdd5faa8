// Private interface of transform.radon: one sinogram value as scikit-image computes it (warp's
// _warp_fast with the rotation matrix in the image's float type, scikit-image's bilinear sampling,
// mode constant 0, then the column sum down the rows in order), shared by the CPU backend and the
// CUDA kernel so that both give the same bits; and the CUDA entry.
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"
#include "src/transform/interpolation.hpp"

namespace cuskimage::transform::detail {

/// The first two rows of radon's 3x3 rotation about the centre, cast to F as _warp_fast casts its
/// matrix; `metric` when the off-diagonal entries are zero (its _transform_metric).
template <class F>
struct RadonAngle {
  F m[6];
  bool metric;
};

/// radon_image[c, angle] for the n x n row-major padded image: sum over rows r of the rotated
/// image's (r, c), accumulated in F in row order (numpy's axis-0 sum).
template <class F, class J>
CUSK_HD F radon_column(const F* img, J n, const RadonAngle<F>& a, J c) {
  using cuskimage::detail::add_rn;
  using cuskimage::detail::mul_rn;
  const F x = static_cast<F>(c);
  const F xm = mul_rn(a.m[0], x), ym = mul_rn(a.m[3], x);
  F s = F(0);
  for (J r = 0; r < n; ++r) {
    const F y = static_cast<F>(r);
    F xs, ys;
    if (a.metric) {
      xs = add_rn(xm, a.m[2]);
      ys = add_rn(mul_rn(a.m[4], y), a.m[5]);
    } else {
      xs = add_rn(add_rn(xm, mul_rn(a.m[1], y)), a.m[2]);
      ys = add_rn(add_rn(ym, mul_rn(a.m[4], y)), a.m[5]);
    }
    s = add_rn(s, static_cast<F>(bilinear_t<F, F, J>(img, n, n, ys, xs, 'C', F(0))));
  }
  return s;
}

/// out (n x nangles, F) from the contiguous n x n padded device image; `angles` a device array of
/// RadonAngle<F> (as bytes).
template <class F>
void cuda_radon(const Array& padded, const Array& angles, Array& out, const Stream& stream);

}  // namespace cuskimage::transform::detail
