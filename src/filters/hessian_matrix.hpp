// Hessian matrix of an image and the eigenvalues of symmetric matrices, as skimage.feature's
// hessian_matrix (use_gaussian_derivatives=True) and hessian_matrix_eigvals. Internal to the ridge
// filters for now; they become feature::hessian_matrix later.
//
// The eigenvalue code is CUSK_HD, shared by the CPU loops and the CUDA kernels:
//  * 2x2: scikit-image's explicit formula operation by operation in the image's precision, every
//    product and sum rounded once (no fused multiply-add), so equal Hessians give bit-equal
//    eigenvalues on both backends and in NumPy.
//  * 3x3: the trigonometric (Cardano/Smith) solution in float64 after exact power-of-two scaling;
//    near a double eigenvalue (|det(B)/2| within 1e-6 of 1, where acos loses accuracy) and for
//    non-finite input it falls back to cyclic Jacobi. Against numpy.linalg.eigvalsh in float64 the
//    eigenvalues agree within ~1e-13 * max|H_ij| (Jacobi within ~1e-15 * ||H||_F). float32 input is
//    solved in float64 and rounded once, so it is closer to the exact result than NumPy's float32
//    LAPACK (which is off by a few float32 ulps of ||H||).
//  * other sizes (1x1, 4x4 .. 8x8, meijering is N-d): cyclic Jacobi in float64.
// Eigenvalues are returned in decreasing order, as hessian_matrix_eigvals does.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::filters::detail {

/// Largest ndim handled (the Indexer's axis limit); the Hessian has n(n+1)/2 distinct elements.
inline constexpr int kMaxHessianDims = 8;
inline constexpr int kMaxHessianElems = kMaxHessianDims * (kMaxHessianDims + 1) / 2;

CUSK_HD constexpr int hessian_elems(int n) { return n * (n + 1) / 2; }

// ---- symmetric eigenvalues ----------------------------------------------------------------------

/// 2x2 [[m00, m01], [m01, m11]]: scikit-image's (M00 + M11) / 2 +- sqrt(M01**2 + ((M00 - M11) / 2)**2)
/// in T, each operation rounded as NumPy does. e[0] >= e[1].
template <class T>
CUSK_HD void sym_eig2(T m00, T m01, T m11, T* e) {
  using namespace cuskimage::detail;
  const T half = div_rn(add_rn(m00, m11), T(2));
  const T d = div_rn(sub_rn(m00, m11), T(2));
  const T h = sqrt(add_rn(mul_rn(m01, m01), mul_rn(d, d)));
  e[0] = add_rn(half, h);
  e[1] = sub_rn(half, h);
}

/// Sorts n values in decreasing order (insertion sort; n <= 8). NaNs are handled by the callers.
CUSK_HD void sort_decreasing(double* e, int n) {
  for (int i = 1; i < n; ++i) {
    const double v = e[i];
    int j = i - 1;
    while (j >= 0 && e[j] < v) {
      e[j + 1] = e[j];
      --j;
    }
    e[j + 1] = v;
  }
}

/// Eigenvalues of the symmetric n x n matrix `a` (row-major, overwritten) by cyclic Jacobi
/// rotations in float64, decreasing into e[0..n). Converges quadratically; stops once the
/// off-diagonal mass is below 1e-30 of the total (eigenvalues then within ~1e-15 * ||a||_F).
CUSK_HD void sym_eig_jacobi(double* a, int n, double* e) {
  double total = 0;
  for (int i = 0; i < n * n; ++i) total += a[i] * a[i];
  for (int sweep = 0; sweep < 32; ++sweep) {
    double off = 0;
    for (int p = 0; p < n; ++p)
      for (int q = p + 1; q < n; ++q) off += a[p * n + q] * a[p * n + q];
    if (!(off > 1e-30 * total)) break;  // also stops on NaN
    for (int p = 0; p < n; ++p) {
      for (int q = p + 1; q < n; ++q) {
        const double apq = a[p * n + q];
        if (apq == 0) continue;
        const double theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const double t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1));
        const double c = 1 / sqrt(t * t + 1), s = t * c;
        for (int k = 0; k < n; ++k) {  // columns p, q
          const double akp = a[k * n + p], akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (int k = 0; k < n; ++k) {  // rows p, q
          const double apk = a[p * n + k], aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        a[p * n + q] = a[q * n + p] = 0;
      }
    }
  }
  for (int i = 0; i < n; ++i) e[i] = a[i * n + i];
  sort_decreasing(e, n);
}

/// 3x3 symmetric matrix from its upper elements (a00, a01, a02, a11, a12, a22), float64, decreasing.
CUSK_HD void sym_eig3(const double* u, double* e) {
  double big = 0;
  bool nan = false;
  for (int i = 0; i < 6; ++i) {
    big = fmax(big, fabs(u[i]));
    nan = nan || u[i] != u[i];
  }
  if (nan || !(big <= 1.7976931348623157e308)) {  // NaN or infinity (eigvalsh has no answer)
    e[0] = e[1] = e[2] = NAN;
    return;
  }
  if (big == 0) {
    e[0] = e[1] = e[2] = 0;
    return;
  }
  if (u[1] == 0 && u[2] == 0 && u[4] == 0) {  // diagonal: exact
    e[0] = u[0];
    e[1] = u[3];
    e[2] = u[5];
    sort_decreasing(e, 3);
    return;
  }
  // Power-of-two scaling (exact; ldexp also reaches subnormal inputs) keeps every square clear of
  // overflow and underflow.
  const int ex = ilogb(big);
  double b[6];
  for (int i = 0; i < 6; ++i) b[i] = ldexp(u[i], -ex);
  const double q = (b[0] + b[3] + b[5]) / 3;
  const double c00 = b[0] - q, c11 = b[3] - q, c22 = b[5] - q;
  const double p2 = c00 * c00 + c11 * c11 + c22 * c22 + 2 * (b[1] * b[1] + b[2] * b[2] + b[4] * b[4]);
  const double p = sqrt(p2 / 6);
  const double ip = 1 / p;
  const double d00 = c00 * ip, d01 = b[1] * ip, d02 = b[2] * ip, d11 = c11 * ip, d12 = b[4] * ip, d22 = c22 * ip;
  const double det = d00 * (d11 * d22 - d12 * d12) - d01 * (d01 * d22 - d12 * d02) + d02 * (d01 * d12 - d11 * d02);
  const double r = det / 2;
  if (fabs(r) < 1 - 1e-6) {
    const double phi = acos(r) / 3;
    const double two_pi_3 = 2.0943951023931954923;
    const double x0 = q + 2 * p * cos(phi);
    const double x2 = q + 2 * p * cos(phi + two_pi_3);
    const double x1 = 3 * q - x0 - x2;
    e[0] = ldexp(x0, ex);
    e[1] = ldexp(x1, ex);
    e[2] = ldexp(x2, ex);
    sort_decreasing(e, 3);  // x1 may cross a neighbour by rounding
    return;
  }
  // Near a double eigenvalue acos loses accuracy (d phi ~ d r / sqrt(1 - r^2)): Jacobi instead.
  double m[9] = {b[0], b[1], b[2], b[1], b[3], b[4], b[2], b[4], b[5]};
  sym_eig_jacobi(m, 3, e);
  for (int i = 0; i < 3; ++i) e[i] = ldexp(e[i], ex);
}

/// Eigenvalues (decreasing) of the symmetric n x n matrix whose upper elements, in scikit-image's
/// order (combinations_with_replacement of the axes: H00, H01, ..., H0n, H11, ...), are h[0..k).
/// T is float or double; 2x2 is computed in T, everything else in float64 and rounded once.
/// Any NaN element makes every eigenvalue NaN.
template <class T>
CUSK_HD void sym_eigvals(const T* h, int n, T* e) {
  if (n == 2) {
    sym_eig2(h[0], h[1], h[2], e);
    return;
  }
  if (n == 1) {
    e[0] = h[0];
    return;
  }
  double out[kMaxHessianDims];
  if (n == 3) {
    const double u[6] = {double(h[0]), double(h[1]), double(h[2]), double(h[3]), double(h[4]), double(h[5])};
    sym_eig3(u, out);
  } else {
    double m[kMaxHessianDims * kMaxHessianDims];
    bool nan = false;
    for (int r = 0, idx = 0; r < n; ++r)
      for (int c = r; c < n; ++c, ++idx) {
        m[r * n + c] = m[c * n + r] = double(h[idx]);
        nan = nan || h[idx] != h[idx];
      }
    if (nan) {
      for (int i = 0; i < n; ++i) e[i] = T(NAN);
      return;
    }
    sym_eig_jacobi(m, n, out);
  }
  for (int i = 0; i < n; ++i) e[i] = static_cast<T>(out[i]);
}

// ---- the Hessian ----------------------------------------------------------------------------------

struct HessianMatrixOptions {
  /// Standard deviation of the Gaussian: one value for every axis or one per axis (all > 0).
  std::vector<double> sigma = {1.0};
  ndimage::Mode mode = ndimage::Mode::constant;
  double cval = 0.0;
  /// "rc": elements in axis order (Hrr, Hrc, Hcc); "xy" (2-D only): last axis first (Hxx, Hxy, Hyy).
  bool order_xy = false;
};

/// skimage.feature.hessian_matrix(image, sigma, mode, cval, order, use_gaussian_derivatives=True):
/// img_as_float(image) (float32 stays float32, other types become float64, integers are scaled),
/// then for each axis a a Gaussian first derivative along a (sigma / sqrt(2) on every axis,
/// truncate 8, or 100 when some sigma <= 1), and for each b >= a another one along b. Returns the
/// n(n+1)/2 upper elements in scikit-image's order, contiguous, on the image's device.
/// `fn` names the public caller in error messages.
std::vector<Array> hessian_matrix(const Array& image, const HessianMatrixOptions& opts, const Stream& stream,
                                  const char* fn = "feature.hessian_matrix");

/// skimage.feature.hessian_matrix_eigvals: an array of shape (n, *image.shape) holding the
/// eigenvalues in decreasing order, in the elements' dtype (float32 or float64).
Array hessian_matrix_eigvals(const std::vector<Array>& elems, const Stream& stream = {});

/// Backends of hessian_matrix_eigvals: `elems` contiguous, of one float dtype T; `out` contiguous
/// (n, P) with P the pixel count.
template <class T>
void cpu_hessian_eigvals(const std::vector<Array>& elems, int n, Array& out);
template <class T>
void cuda_hessian_eigvals(const std::vector<Array>& elems, int n, Array& out, const Stream& stream);

}  // namespace cuskimage::filters::detail
