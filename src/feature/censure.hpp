// Internal: CENSURE's per-pixel pieces (CUSK_HD, shared by censure.cpp and
// kernels/feature/censure.cu): the DoB response from the integral image and the keypoint test.
#pragma once

#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::feature::detail {

/// The integral image at (r, c); row or column -1 reads 0 (scikit-image's border special cases
/// drop those terms, which adding 0 reproduces exactly).
CUSK_HD double integral_at(const double* I, std::int64_t cols, std::int64_t r, std::int64_t c) {
  return r < 0 || c < 0 ? 0.0 : I[r * cols + c];
}

/// _censure_dob_loop at an interior pixel (2n <= i < rows - 2n, same for j).
CUSK_HD double censure_dob(const double* I, std::int64_t cols, std::int64_t i, std::int64_t j, std::int64_t n,
                           double inner_w, double outer_w) {
  const std::int64_t n2 = 2 * n;
  const double inner = integral_at(I, cols, i + n, j + n) + integral_at(I, cols, i - n - 1, j - n - 1) -
                       integral_at(I, cols, i + n, j - n - 1) - integral_at(I, cols, i - n - 1, j + n);
  const double outer = integral_at(I, cols, i + n2, j + n2) + integral_at(I, cols, i - n2 - 1, j - n2 - 1) -
                       integral_at(I, cols, i + n2, j - n2 - 1) - integral_at(I, cols, i - n2 - 1, j + n2);
  using cuskimage::detail::mul_rn;
  return cuskimage::detail::sub_rn(mul_rn(outer_w, outer), mul_rn(inner_w + outer_w, inner));
}

/// Products are rounded on their own on both backends (no fused multiply-add on the device).
/// A keypoint voxel: an extremum of its 3x3x3 neighbourhood, at least the threshold, not on a line.
CUSK_HD bool censure_keep(double v, double mn, double mx, double thr, double arr, double arc, double acc, double lt) {
  if (!(mn == v || mx == v) || v < thr) return false;
  using cuskimage::detail::mul_rn;
  const double tr = arr + acc;
  return !(mul_rn(tr, tr) > mul_rn(lt, cuskimage::detail::sub_rn(mul_rn(arr, acc), mul_rn(arc, arc))));
}

/// CUDA backend: one DoB plane (out: contiguous (rows, cols), zero-initialised) and one mask plane.
void cuda_censure_dob(const Array& integral, std::int64_t n, double inner_w, double outer_w, Array& out,
                      const Stream& stream);
void cuda_censure_mask(const Array& v, const Array& mn, const Array& mx, const Array& arr, const Array& arc,
                       const Array& acc, double thr, double lt, Array& mask, const Stream& stream);

}  // namespace cuskimage::feature::detail
