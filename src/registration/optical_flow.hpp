// optical_flow_tvl1 / optical_flow_ilk: the per-pixel steps of scikit-image 0.26's solvers as CUSK_HD
// functors, run by a plain loop on the CPU (optical_flow.cpp) and by one grid-stride kernel per step
// on CUDA (kernels/registration/optical_flow.cu), so both backends compute the same function. Each
// reproduces NumPy's evaluation order in T (float32 / float64), Python-float constants rounded to T
// as NumPy 2 does with weak scalars. Arrays are contiguous; a flow is (ndim, *shape).
#pragma once

#include <cmath>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::registration::detail {

inline constexpr int kMaxFlowDims = 3;

struct Grid3 {
  int nd = 0;
  std::int64_t shape[kMaxFlowDims] = {1, 1, 1};
  std::int64_t stride[kMaxFlowDims] = {0, 0, 0};  // C-order strides in elements
  std::int64_t size = 0;

  CUSK_HD std::int64_t coord(std::int64_t i, int d) const { return (i / stride[d]) % shape[d]; }
};

/// The warped moving image clipped to the moving image's range (skimage.transform.warp's clip).
template <class T>
struct Clipped {
  const T* w;
  T lo, hi;
  CUSK_HD T operator[](std::int64_t i) const {
    const T v = w[i];
    return v < lo ? lo : (v > hi ? hi : v);
  }
};

/// np.gradient along axis d at pixel i (central inside, one-sided at the ends).
template <class T>
CUSK_HD T gradient(const Clipped<T>& f, const Grid3& g, std::int64_t i, int d) {
  const std::int64_t c = g.coord(i, d), s = g.stride[d], n = g.shape[d];
  if (c == 0) return f[i + s] - f[i];
  if (c == n - 1) return f[i] - f[i - s];
  return (f[i + s] - f[i - s]) / T(2);
}

/// The warped image's gradient at pixel i (into gr) and its dot product with the flow there,
/// summed over axes in order as NumPy's (grad * flow).sum(0).
template <class T>
CUSK_HD T gradient_dot(const Clipped<T>& w, const Grid3& g, const T* flow, std::int64_t i, T (&gr)[kMaxFlowDims]) {
  T dot = 0;
  for (int d = 0; d < g.nd; ++d) {
    gr[d] = gradient(w, g, i, d);
    dot = d == 0 ? gr[d] * flow[i] : dot + gr[d] * flow[d * g.size + i];
  }
  return dot;
}

/// coords[d] = flow[d] + grid_d (the warp's sample points).
template <class T>
struct WarpCoords {
  Grid3 g;
  const T* flow;
  T* coords;
  CUSK_HD void operator()(std::int64_t i) const {
    for (int d = 0; d < g.nd; ++d) coords[d * g.size + i] = flow[d * g.size + i] + static_cast<T>(g.coord(i, d));
  }
};

/// coords[d] = index_d * zoom[d]: scipy.ndimage.zoom's sample points (grid_mode False), double.
struct ZoomCoords {
  Grid3 g;
  double zoom[kMaxFlowDims];
  double* coords;
  CUSK_HD void operator()(std::int64_t i) const {
    for (int d = 0; d < g.nd; ++d) coords[d * g.size + i] = static_cast<double>(g.coord(i, d)) * zoom[d];
  }
};

/// flow[d] *= scale[d] (the flow resized to a finer level, values rescaled to its pixels).
template <class T>
struct ScaleFlow {
  Grid3 g;
  T scale[kMaxFlowDims];
  T* flow;
  CUSK_HD void operator()(std::int64_t i) const {
    for (int d = 0; d < g.nd; ++d) flow[d * g.size + i] = scale[d] * flow[d * g.size + i];
  }
};

// ---- iterative Lucas-Kanade ------------------------------------------------------------------------

/// Index of the (i, j) product, i <= j, in combinations_with_replacement order.
CUSK_HD int pair_index(int i, int j, int nd) { return i * nd - i * (i - 1) / 2 + (j - i); }

/// The terms to smooth: grad_i * grad_j (i <= j) then grad_i * error, error = grad . flow + ref - warp.
template <class T>
struct IlkTerms {
  Grid3 g;
  const T* ref;
  Clipped<T> warp;
  const T* flow;
  T* terms;  // (nd (nd + 1) / 2 + nd, *shape)
  CUSK_HD void operator()(std::int64_t i) const {
    T gr[kMaxFlowDims];
    const T err = gradient_dot(warp, g, flow, i, gr) + ref[i] - warp[i];
    const int pairs = g.nd * (g.nd + 1) / 2;
    for (int a = 0; a < g.nd; ++a) {
      for (int b = a; b < g.nd; ++b) terms[pair_index(a, b, g.nd) * g.size + i] = gr[a] * gr[b];
      terms[(pairs + a) * g.size + i] = gr[a] * err;
    }
  }
};

/// Solves the smoothed local system A x = b (LU with partial pivoting, as LAPACK's gesv), the
/// identity and 0 where |det A| < 1e-14.
template <class T>
struct IlkSolve {
  Grid3 g;
  const T* terms[kMaxFlowDims * (kMaxFlowDims + 3) / 2];  // the smoothed terms, IlkTerms' order
  T* flow;
  CUSK_HD void operator()(std::int64_t i) const {
    const int n = g.nd, pairs = n * (n + 1) / 2;
    T A[kMaxFlowDims][kMaxFlowDims], b[kMaxFlowDims];
    for (int r = 0; r < n; ++r) {
      for (int c = 0; c < n; ++c)
        A[r][c] = terms[pair_index(r < c ? r : c, r < c ? c : r, n)][i];
      b[r] = terms[pairs + r][i];
    }
    T LU[kMaxFlowDims][kMaxFlowDims];
    int perm[kMaxFlowDims];
    T det = lu(A, LU, perm, n);
    if ((det < 0 ? -det : det) < T(1e-14)) {
      for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) A[r][c] = r == c ? T(1) : T(0);
        b[r] = 0;
      }
      det = lu(A, LU, perm, n);
    }
    T y[kMaxFlowDims];
    for (int r = 0; r < n; ++r) {  // forward substitution on the permuted b
      T s = b[perm[r]];
      for (int c = 0; c < r; ++c) s -= LU[r][c] * y[c];
      y[r] = s;
    }
    for (int r = n - 1; r >= 0; --r) {
      T s = y[r];
      for (int c = r + 1; c < n; ++c) s -= LU[r][c] * y[c];
      y[r] = s / LU[r][r];
    }
    for (int d = 0; d < n; ++d) flow[d * g.size + i] = y[d];
  }

  /// LU of A (unit lower L below the diagonal, U on and above) with row pivoting on the first
  /// largest |entry|; returns det A.
  CUSK_HD static T lu(const T (&A)[kMaxFlowDims][kMaxFlowDims], T (&LU)[kMaxFlowDims][kMaxFlowDims],
                      int (&perm)[kMaxFlowDims], int n) {
    for (int r = 0; r < n; ++r) {
      perm[r] = r;
      for (int c = 0; c < n; ++c) LU[r][c] = A[r][c];
    }
    T det = 1;
    for (int k = 0; k < n; ++k) {
      int p = k;
      for (int r = k + 1; r < n; ++r)
        if ((LU[r][k] < 0 ? -LU[r][k] : LU[r][k]) > (LU[p][k] < 0 ? -LU[p][k] : LU[p][k])) p = r;
      if (p != k) {
        for (int c = 0; c < n; ++c) {
          const T t = LU[k][c];
          LU[k][c] = LU[p][c], LU[p][c] = t;
        }
        const int t = perm[k];
        perm[k] = perm[p], perm[p] = t;
        det = -det;
      }
      det *= LU[k][k];
      if (LU[k][k] == T(0)) continue;
      for (int r = k + 1; r < n; ++r) {
        LU[r][k] /= LU[k][k];
        for (int c = k + 1; c < n; ++c) LU[r][c] -= LU[r][k] * LU[k][c];
      }
    }
    return det;
  }
};

// ---- TV-L1 ------------------------------------------------------------------------------------------

/// Per warp: the warped image's gradient, NI = |grad|^2 (1 where 0) and rho_0 = warp - ref - grad . flow.
template <class T>
struct Tvl1Warp {
  Grid3 g;
  const T* ref;
  Clipped<T> warp;
  const T* flow;
  T* grad;  // (nd, *shape)
  T* ni;
  T* rho0;
  CUSK_HD void operator()(std::int64_t i) const {
    T gr[kMaxFlowDims];
    const T dot = gradient_dot(warp, g, flow, i, gr);
    T n2 = 0;
    for (int d = 0; d < g.nd; ++d) {
      grad[d * g.size + i] = gr[d];
      n2 = d == 0 ? gr[d] * gr[d] : n2 + gr[d] * gr[d];
    }
    ni[i] = n2 == T(0) ? T(1) : n2;
    rho0[i] = warp[i] - ref[i] - dot;
  }
};

/// The data step (thresholding): updates cur in place and copies it to aux (and to prev, the
/// stopping test's reference, on a warp's first iteration).
template <class T>
struct Tvl1Data {
  Grid3 g;
  const T* grad;
  const T* ni;
  const T* rho0;
  T f0;
  T* cur;
  T* aux;
  T* prev;  // null after the first iteration
  CUSK_HD void operator()(std::int64_t i) const {
    T dot = 0;
    for (int d = 0; d < g.nd; ++d) dot = d == 0 ? grad[i] * cur[i] : dot + grad[d * g.size + i] * cur[d * g.size + i];
    const T rho = rho0[i] + dot;
    const bool small = (rho < 0 ? -rho : rho) <= f0 * ni[i];
    const T srho = f0 * (rho > 0 ? T(1) : (rho < 0 ? T(-1) : T(0)));
    for (int d = 0; d < g.nd; ++d) {
      const std::int64_t k = d * g.size + i;
      const T v = small ? cur[k] - rho * grad[k] / ni[i] : cur[k] - srho * grad[k];
      cur[k] = v, aux[k] = v;
      if (prev) prev[k] = v;
    }
  }
};

/// Regularization, first half: forward differences of cur[idx] (0 at the far edge), then the dual
/// variable proj[idx] = (proj[idx] - dt g) / (1 + f1 |g|).
template <class T>
struct Tvl1Proj {
  Grid3 g;
  const T* u;  // cur[idx]
  T* proj;     // proj[idx]: (nd, *shape)
  T dt, f1;
  CUSK_HD void operator()(std::int64_t i) const {
    T gr[kMaxFlowDims];
    T n2 = 0;
    for (int d = 0; d < g.nd; ++d) {
      gr[d] = g.coord(i, d) + 1 < g.shape[d] ? u[i + g.stride[d]] - u[i] : T(0);
      n2 = d == 0 ? gr[d] * gr[d] : n2 + gr[d] * gr[d];
    }
    T norm = static_cast<T>(::sqrt(static_cast<double>(n2)));
    norm *= f1;
    norm += T(1);
    for (int d = 0; d < g.nd; ++d) {
      const std::int64_t k = d * g.size + i;
      proj[k] = (proj[k] - dt * gr[d]) / norm;
    }
  }
};

/// Regularization, second half: cur[idx] = aux[idx] + div proj[idx] (backward differences).
template <class T>
struct Tvl1Div {
  Grid3 g;
  const T* proj;
  const T* aux;
  T* u;
  CUSK_HD void operator()(std::int64_t i) const {
    T s = 0;
    for (int d = 0; d < g.nd; ++d) s = d == 0 ? proj[i] : s + proj[d * g.size + i];
    T dv = -s;
    for (int d = 0; d < g.nd; ++d)
      if (g.coord(i, d) >= 1) dv += proj[d * g.size + i - g.stride[d]];
    u[i] = aux[i] + dv;
  }
};

// ---- backends -----------------------------------------------------------------------------------------

/// Runs f(i) for i in [0, n) on the CUDA stream (one grid-stride kernel).
template <class F>
void cuda_each(const F& f, std::int64_t n, const Stream& stream);

/// min and max of a contiguous float T array (CUDA; NaN handling as fmin/fmax).
void cuda_minmax(const Array& a, double& lo, double& hi, const Stream& stream);
/// sum of (a - b)^2 over two contiguous float T arrays of one size (CUDA), in double.
double cuda_sq_diff(const Array& a, const Array& b, const Stream& stream);

}  // namespace cuskimage::registration::detail
