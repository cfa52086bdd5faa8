// Internal: the per-pixel and per-corner code of skimage.feature.corner, shared by the CPU loops
// (src/feature/corner*.cpp) and the CUDA kernels (kernels/feature/corner.cu) as CUSK_HD functors
// over contiguous arrays. Every rounding step NumPy takes in the image's float type T is spelled
// with the rn helpers (nvcc would otherwise fuse multiply-adds), so both backends give equal bits
// for equal inputs.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/device_guard.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"
#include "src/filters/hessian_matrix.hpp"

namespace cuskimage::feature::detail {

using cuskimage::detail::add_rn;
using cuskimage::detail::div_rn;
using cuskimage::detail::mul_rn;
using cuskimage::detail::sub_rn;

inline constexpr int kMaxTensorDims = 5;  // structure_tensor: 2-D .. 5-D as scikit-image
inline constexpr int kMaxTensorElems = kMaxTensorDims * (kMaxTensorDims + 1) / 2;

/// Runs f(i) for i in [0, n): an OpenMP loop on the host, a grid-stride kernel on the device.
/// The CUDA side is instantiated in kernels/feature/corner.cu for the functors below.
template <class F>
void cpu_for_each(std::int64_t n, const F& f) {
#if !defined(__CUDACC__)
#pragma omp parallel for schedule(static) if (n > 16384)
#endif
  for (std::int64_t i = 0; i < n; ++i) f(i);
}
template <class F>
void cuda_for_each(std::int64_t n, const F& f, const Stream& stream);

/// f over n indices on `where`'s backend.
template <class F>
void for_each_index(const Array& where, std::int64_t n, const F& f, const Stream& stream) {
  if (n <= 0) return;
  cuskimage::detail::on_backend(
      where, stream, [&] { cpu_for_each(n, f); }, [&](const Stream& s) { cuda_for_each(n, f, s); });
}

// ---- element-wise maps ----------------------------------------------------------------------------

/// out[k] = d[a] * d[b] for the pairs a <= b in combinations_with_replacement order.
template <class T>
struct Products {
  const T* d[kMaxTensorDims];
  T* out[kMaxTensorElems];
  int n;
  CUSK_HD void operator()(std::int64_t i) const {
    int k = 0;
    for (int a = 0; a < n; ++a)
      for (int b = a; b < n; ++b) out[k++][i] = mul_rn(d[a][i], d[b][i]);
  }
};

/// numpy.gradient along one axis (unit spacing, edge_order 1): central differences halved inside,
/// one-sided differences at both ends. The axis has `len` >= 2 samples `stride` elements apart.
template <class T>
struct Gradient {
  const T* in;
  T* out;
  std::int64_t len, stride;
  CUSK_HD void operator()(std::int64_t i) const {
    const std::int64_t k = (i / stride) % len;
    if (k == 0)
      out[i] = sub_rn(in[i + stride], in[i]);
    else if (k == len - 1)
      out[i] = sub_rn(in[i], in[i - stride]);
    else
      out[i] = div_rn(sub_rn(in[i + stride], in[i - stride]), T(2));
  }
};

/// corner_harris, corner_shi_tomasi and corner_foerstner from (Arr, Arc, Acc), in NumPy's order.
enum class Response { harris_k, harris_eps, shi_tomasi, foerstner };

template <class T>
struct TensorResponse {
  const T *rr, *rc, *cc;
  T* out;
  T* out2;  // foerstner's q
  Response kind;
  T param;  // k or eps, rounded to T as NumPy rounds a Python float against a T array
  CUSK_HD static T det(T a, T b, T c) { return sub_rn(mul_rn(a, c), mul_rn(b, b)); }
  CUSK_HD static T respond(Response kind, T param, T a, T b, T c, T* q) {
    const T tr = add_rn(a, c);
    switch (kind) {
      case Response::harris_k:
        return sub_rn(det(a, b, c), mul_rn(param, mul_rn(tr, tr)));
      case Response::harris_eps:
        return div_rn(mul_rn(T(2), det(a, b, c)), add_rn(tr, param));
      case Response::shi_tomasi: {
        const T d = sub_rn(a, c);
        const T s = sqrt(add_rn(mul_rn(d, d), mul_rn(T(4), mul_rn(b, b))));
        return div_rn(sub_rn(tr, s), T(2));
      }
      default: {
        if (tr == T(0)) {
          *q = T(0);
          return T(0);
        }
        const T dt = det(a, b, c);
        *q = div_rn(mul_rn(T(4), dt), mul_rn(tr, tr));
        return div_rn(dt, tr);
      }
    }
  }
  CUSK_HD void operator()(std::int64_t i) const {
    T q = T(0);
    out[i] = respond(kind, param, rr[i], rc[i], cc[i], &q);
    if (out2) out2[i] = q;
  }
};

/// corner_kitchen_rosenfeld from the first (imx, imy) and second (imxx, imxy, imyy) derivatives.
template <class T>
struct KitchenRosenfeld {
  const T *imx, *imy, *imxx, *imxy, *imyy;
  T* out;
  CUSK_HD void operator()(std::int64_t i) const {
    const T x = imx[i], y = imy[i];
    const T den = add_rn(mul_rn(x, x), mul_rn(y, y));
    if (den == T(0)) {
      out[i] = T(0);
      return;
    }
    const T a = mul_rn(imxx[i], mul_rn(y, y));
    const T b = mul_rn(imyy[i], mul_rn(x, x));
    const T c = mul_rn(mul_rn(mul_rn(T(2), imxy[i]), x), y);
    out[i] = div_rn(sub_rn(add_rn(a, b), c), den);
  }
};

/// shape_index from the 2-D Hessian (Hrr, Hrc, Hcc): (2/pi) * arctan((l2 + l1) / (l2 - l1)).
template <class T>
struct ShapeIndex {
  const T *rr, *rc, *cc;
  T* out;
  CUSK_HD void operator()(std::int64_t i) const {
    T e[2];
    filters::detail::sym_eig2(rr[i], rc[i], cc[i], e);
    const T r = div_rn(add_rn(e[1], e[0]), sub_rn(e[1], e[0]));
    out[i] = mul_rn(static_cast<T>(2.0 / 3.141592653589793), static_cast<T>(atan(r)));
  }
};

/// Determinant of the symmetric n x n matrix from its upper elements (Gaussian elimination with
/// partial pivoting in double, as LAPACK's LU that numpy.linalg.det uses), rounded to T.
template <class T>
struct SymDet {
  const T* h[filters::detail::kMaxHessianElems];
  T* out;
  int n;
  CUSK_HD void operator()(std::int64_t i) const {
    double m[filters::detail::kMaxHessianDims * filters::detail::kMaxHessianDims];
    for (int r = 0, k = 0; r < n; ++r)
      for (int c = r; c < n; ++c, ++k) m[r * n + c] = m[c * n + r] = static_cast<double>(h[k][i]);
    double det = 1;
    for (int c = 0; c < n; ++c) {
      int p = c;
      for (int r = c + 1; r < n; ++r)
        if (fabs(m[r * n + c]) > fabs(m[p * n + c])) p = r;
      if (m[p * n + c] == 0) {
        det = 0;
        break;
      }
      if (p != c) {
        for (int k = 0; k < n; ++k) {
          const double t = m[c * n + k];
          m[c * n + k] = m[p * n + k];
          m[p * n + k] = t;
        }
        det = -det;
      }
      det *= m[c * n + c];
      for (int r = c + 1; r < n; ++r) {
        const double f = m[r * n + c] / m[c * n + c];
        for (int k = c; k < n; ++k) m[r * n + k] -= f * m[c * n + k];
      }
    }
    out[i] = static_cast<T>(det);
  }
};

/// hessian_matrix_det's SURF approximation: box sums over the inclusive integral image `ii`
/// (rows x cols, float64), windows clipped to the image, negative sums clamped to 0 (as
/// scikit-image's _integ does).
struct HessianDetAppx {
  const double* ii;
  double* out;
  std::int64_t rows, cols, s2, s3, w;
  double w_i;
  CUSK_HD double integ(std::int64_t r, std::int64_t c, std::int64_t rl, std::int64_t cl) const {
    auto clip = [](std::int64_t x, std::int64_t hi) { return x < 0 ? std::int64_t(0) : (x > hi ? hi : x); };
    r = clip(r, rows - 1);
    c = clip(c, cols - 1);
    const std::int64_t r2 = clip(r + rl, rows - 1), c2 = clip(c + cl, cols - 1);
    const double a = sub_rn(add_rn(ii[r * cols + c], ii[r2 * cols + c2]), ii[r * cols + c2]);
    const double ans = sub_rn(a, ii[r2 * cols + c]);
    return ans > 0 ? ans : 0.0;
  }
  CUSK_HD void operator()(std::int64_t i) const {
    const std::int64_t r = i / cols, c = i - r * cols;
    const double tl = integ(r - s3, c - s3, s3, s3), br = integ(r + 1, c + 1, s3, s3);
    const double bl = integ(r - s3, c + 1, s3, s3), tr = integ(r + 1, c - s3, s3, s3);
    const double dxy = mul_rn(-sub_rn(sub_rn(add_rn(bl, tr), tl), br), w_i);
    double mid = integ(r - s3 + 1, c - s2, 2 * s3 - 1, w);
    double side = integ(r - s3 + 1, c - s3 / 2, 2 * s3 - 1, s3);
    const double dxx = mul_rn(-sub_rn(mid, mul_rn(3.0, side)), w_i);
    mid = integ(r - s2, c - s3 + 1, w, 2 * s3 - 1);
    side = integ(r - s3 / 2, c - s3 + 1, s3, 2 * s3 - 1);
    const double dyy = mul_rn(-sub_rn(mid, mul_rn(3.0, side)), w_i);
    out[i] = sub_rn(mul_rn(dxx, dyy), mul_rn(0.81, mul_rn(dxy, dxy)));
  }
};

// ---- windowed detectors (2-D, contiguous rows x cols) ---------------------------------------------

/// corner_moravec: the minimum over the shifted windows of the summed squared differences (in T),
/// for pixels at least 2 * w from the border; 0 elsewhere.
template <class T>
struct Moravec {
  const T* img;
  T* out;
  std::int64_t rows, cols, w;
  CUSK_HD void operator()(std::int64_t i) const {
    const std::int64_t r = i / cols, c = i - r * cols;
    if (r < 2 * w || r >= rows - 2 * w || c < 2 * w || c >= cols - 2 * w) {
      out[i] = T(0);
      return;
    }
    T best = static_cast<T>(1.7976931348623157e308);  // DBL_MAX in T (inf for float32)
    for (std::int64_t br = r - w; br <= r + w; ++br)
      for (std::int64_t bc = c - w; bc <= c + w; ++bc) {
        if (br == r || bc == c) continue;
        T s = T(0);
        for (std::int64_t mr = -w; mr <= w; ++mr)
          for (std::int64_t mc = -w; mc <= w; ++mc) {
            const T t = sub_rn(img[(r + mr) * cols + c + mc], img[(br + mr) * cols + bc + mc]);
            s = add_rn(s, mul_rn(t, t));
          }
        best = s < best ? s : best;
      }
    out[i] = best;
  }
};

/// corner_fast: the FAST-n segment test on the radius-3 Bresenham circle; the response is the
/// summed absolute difference of the circle to the centre where n consecutive pixels are all
/// brighter (tested first) or all darker; 0 elsewhere and within 3 pixels of the border.
template <class T>
struct Fast {
  const T* img;
  T* out;
  std::int64_t rows, cols;
  int n;
  T threshold;
  CUSK_HD T segment(const T* ring, const signed char* bins, signed char state, T centre) const {
    int run = 0;
    for (int l = 0; l < 15 + n; ++l) {
      if (bins[l % 16] == state) {
        if (++run == n) {
          T s = T(0);
          for (int m = 0; m < 16; ++m) s = add_rn(s, static_cast<T>(fabs(sub_rn(ring[m], centre))));
          return s;
        }
      } else {
        run = 0;
      }
    }
    return T(0);
  }
  CUSK_HD void operator()(std::int64_t i) const {
    const std::int64_t r = i / cols, c = i - r * cols;
    out[i] = T(0);
    if (r < 3 || r >= rows - 3 || c < 3 || c >= cols - 3) return;
    const signed char rp[16] = {0, 1, 2, 3, 3, 3, 2, 1, 0, -1, -2, -3, -3, -3, -2, -1};
    const signed char cp[16] = {3, 3, 2, 1, 0, -1, -2, -3, -3, -3, -2, -1, 0, 1, 2, 3};
    const T centre = img[i];
    const T lo = sub_rn(centre, threshold), hi = add_rn(centre, threshold);
    if (n >= 12) {  // high-speed test on the four compass points
      int b = 0, d = 0;
      for (int k = 0; k < 16; k += 4) {
        const T v = img[i + rp[k] * cols + cp[k]];
        if (v > hi)
          ++b;
        else if (v < lo)
          ++d;
      }
      if (d < 3 && b < 3) return;
    }
    T ring[16];
    signed char bins[16];
    for (int k = 0; k < 16; ++k) {
      ring[k] = img[i + rp[k] * cols + cp[k]];
      bins[k] = ring[k] > hi ? 'b' : (ring[k] < lo ? 'd' : 's');
    }
    T resp = segment(ring, bins, 'b', centre);
    if (resp == T(0)) resp = segment(ring, bins, 'd', centre);
    out[i] = resp;
  }
};

// ---- per-corner estimators --------------------------------------------------------------------------

/// corner_orientations: atan2 of the first-order moments of the masked (mr x mc, odd) window
/// around each corner; the image is zero-padded as scikit-image pads it (np.pad(image, (mr//2,
/// mc//2)): mr//2 before and mc//2 after on both axes).
template <class T>
struct Orientation {
  const T* img;
  const std::int64_t* corners;  // (K, 2)
  const std::uint8_t* mask;     // (mr, mc)
  T* out;
  std::int64_t rows, cols, mr, mc;
  CUSK_HD T pixel(std::int64_t r, std::int64_t c) const {
    return (r < 0 || r >= rows || c < 0 || c >= cols) ? T(0) : img[r * cols + c];
  }
  CUSK_HD void operator()(std::int64_t k) const {
    const std::int64_t r0 = corners[2 * k], c0 = corners[2 * k + 1], h = mr / 2, hc = mc / 2;
    T m01 = T(0), m10 = T(0);
    for (std::int64_t r = 0; r < mr; ++r) {
      T row = T(0);
      for (std::int64_t c = 0; c < mc; ++c) {
        if (!mask[r * mc + c]) continue;
        const T v = pixel(r0 + r - h, c0 + c - h);
        m10 = add_rn(m10, mul_rn(v, static_cast<T>(c - hc)));
        row = add_rn(row, v);
      }
      m01 = add_rn(m01, mul_rn(row, static_cast<T>(r - h)));
    }
    out[k] = static_cast<T>(atan2(static_cast<double>(m01), static_cast<double>(m10)));
  }
};

/// corner_subpix for one corner: the Foerstner dot and edge estimates from the Sobel gradients of
/// the (window_size + 2)^2 neighbourhood (zero outside the image), their residual variances, and
/// the F-test against the critical values; NaN when unclassified or singular. Sums in double.
template <class T>
struct Subpix {
  const T* img;
  const std::int64_t* corners;
  T* out;  // (K, 2)
  std::int64_t rows, cols, wext;
  double t_dot, t_edge;
  CUSK_HD double px(std::int64_t r, std::int64_t c) const {
    return (r < 0 || r >= rows || c < 0 || c >= cols) ? 0.0 : static_cast<double>(img[r * cols + c]);
  }
  // Sobel of the window (mode constant 0 on the window's own edge, never reached inside): in T.
  CUSK_HD void grad(std::int64_t y, std::int64_t x, T* gy, T* gx) const {
    auto P = [&](std::int64_t dy, std::int64_t dx) { return px(y + dy, x + dx); };
    const T dy0 = static_cast<T>(P(1, -1) - P(-1, -1)), dy1 = static_cast<T>(P(1, 0) - P(-1, 0)),
            dy2 = static_cast<T>(P(1, 1) - P(-1, 1));
    const T dx0 = static_cast<T>(P(-1, 1) - P(-1, -1)), dx1 = static_cast<T>(P(0, 1) - P(0, -1)),
            dx2 = static_cast<T>(P(1, 1) - P(1, -1));
    *gy = static_cast<T>(add_rn(mul_rn(2.0, double(dy1)), add_rn(double(dy0), double(dy2))));
    *gx = static_cast<T>(add_rn(mul_rn(2.0, double(dx1)), add_rn(double(dx0), double(dx2))));
  }
  CUSK_HD void operator()(std::int64_t k) const {
    const std::int64_t y0 = corners[2 * k], x0 = corners[2 * k + 1];
    double axx = 0, axy = 0, ayy = 0, bxx_x = 0, bxx_y = 0, bxy_x = 0, bxy_y = 0, byy_x = 0, byy_y = 0;
    for (std::int64_t y = -wext; y <= wext; ++y)
      for (std::int64_t x = -wext; x <= wext; ++x) {
        T gy, gx;
        grad(y0 + y, x0 + x, &gy, &gx);
        const double xx = double(mul_rn(gx, gx)), xy = double(mul_rn(gx, gy)), yy = double(mul_rn(gy, gy));
        axx += xx, axy += xy, ayy += yy;
        bxx_x += xx * x, bxx_y += xx * y, bxy_x += xy * x, bxy_y += xy * y, byy_x += yy * x, byy_y += yy * y;
      }
    // normal equations: dot [[axx, -axy], [-axy, ayy]], edge [[ayy, axy], [axy, axx]] (Cramer)
    const double det = axx * ayy - axy * axy;
    T* o = out + 2 * k;
    if (det == 0 || !(det == det)) {
      o[0] = o[1] = T(NAN);
      return;
    }
    const double bd0 = bxx_y - bxy_x, bd1 = byy_x - bxy_y, be0 = byy_y + bxy_x, be1 = bxx_x + bxy_y;
    const double dot_y = (bd0 * ayy + axy * bd1) / det, dot_x = (axx * bd1 + axy * bd0) / det;
    const double edge_y = (be0 * axx - axy * be1) / det, edge_x = (ayy * be1 - axy * be0) / det;
    double var_dot = 0, var_edge = 0;
    for (std::int64_t y = -wext; y <= wext; ++y)
      for (std::int64_t x = -wext; x <= wext; ++x) {
        T gy, gx;
        grad(y0 + y, x0 + x, &gy, &gx);
        const double xx = double(mul_rn(gx, gx)), xy = double(mul_rn(gx, gy)), yy = double(mul_rn(gy, gy));
        const double ryd = y - dot_y, rxd = x - dot_x, rye = y - edge_y, rxe = x - edge_x;
        var_dot += xx * ryd * ryd - 2 * xy * rxd * ryd + yy * rxd * rxd;
        var_edge += yy * rye * rye + 2 * xy * rxe * rye + xx * rxe * rxe;
      }
    const double spacing = 2.220446049250313e-16;  // np.spacing(1)
    double t;
    if (var_dot < spacing && var_edge < spacing)
      t = NAN;
    else if (var_dot == 0)
      t = INFINITY;
    else
      t = var_edge / var_dot;
    const int cls = int(t < t_edge) - int(t > t_dot);
    if (cls == -1) {
      o[0] = static_cast<T>(y0 + dot_y);
      o[1] = static_cast<T>(x0 + dot_x);
    } else if (cls == 1) {
      o[0] = static_cast<T>(y0 + edge_y);
      o[1] = static_cast<T>(x0 + edge_x);
    } else {
      o[0] = o[1] = T(NAN);
    }
  }
};

// ---- host-side pieces shared by the .cpp files ----------------------------------------------------------

/// scipy.ndimage.sobel along `axis` (weights [-1, 0, 1] there, [1, 2, 1] along the others), in
/// the input's dtype, on either backend.
Array ndi_sobel(const Array& image, int axis, ndimage::Mode mode, double cval, const Stream& stream);

/// The float image scikit-image's corner functions work on: squeezed, `lo..hi` dimensions,
/// img_as_float (or a plain cast when !scale), float32 for float16/float32, else float64.
Array prepare_float(const Array& image, const char* fn, int lo, int hi, bool scale, const Stream& stream);

/// The upper elements of the 2-D structure tensor (Arr, Arc, Acc) of a prepared float image.
std::vector<Array> structure_tensor_2d(const Array& img, const std::vector<double>& sigma, ndimage::Mode mode,
                                       double cval, const Stream& stream);

/// The fused CUDA structure tensor of a contiguous 2-D float image (sigma per axis): writes the three
/// elements (outputs non-null) or, with `resp` set, only the response (`out`, and `out2` for
/// foerstner). Returns false when the case is not covered (the caller composes instead).
template <class T>
bool cuda_structure_tensor_2d(const Array& img, const std::vector<double>& sigma, ndimage::Mode mode, double cval,
                              T* out[3], const Response* resp, T param, T* r_out, T* r_out2, const Stream& stream);

/// stats.f.isf(q, d, d): the upper-q critical value of the F distribution with (d, d) degrees.
double f_isf_equal_dof(double q, double d);

}  // namespace cuskimage::feature::detail
