// Internal: multiscale_basic_features' per-pixel code (np.gradient twice, the Hessian eigenvalues,
// the feature writes), shared by the CPU backend (basic_features.cpp) and
// kernels/feature/basic_features.cu.
#pragma once

#include <cmath>
#include <cstdint>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::feature::detail {

/// A contiguous 2-D or 3-D float32 image padded to 3 axes (leading 1).
struct FeatGrid {
  std::int64_t s[3];
  std::int64_t st[3];
  int nd;  // spatial axes: 2 or 3
};

/// What one sigma writes: channels at out[i * stride + base + ...].
struct FeatLayer {
  std::int64_t stride, base;
  bool intensity, edges, texture;
};

/// np.gradient along axis a (0..2 of the padded grid) of g at c: central differences / 2 inside,
/// one-sided differences at the ends (edge_order 1).
CUSK_HD float feat_grad1(const float* g, const FeatGrid& G, const std::int64_t c[3], int a) {
  const std::int64_t i = (c[0] * G.s[1] + c[1]) * G.s[2] + c[2], n = G.s[a], st = G.st[a];
  if (c[a] == 0) return g[i + st] - g[i];
  if (c[a] == n - 1) return g[i] - g[i - st];
  return (g[i + st] - g[i - st]) / 2.0f;
}

/// np.gradient along b of np.gradient(g)[a], at c.
CUSK_HD float feat_grad2(const float* g, const FeatGrid& G, const std::int64_t c[3], int a, int b) {
  std::int64_t p[3] = {c[0], c[1], c[2]}, q[3] = {c[0], c[1], c[2]};
  const std::int64_t n = G.s[b];
  if (c[b] == 0) {
    ++p[b];
    return feat_grad1(g, G, p, a) - feat_grad1(g, G, c, a);
  }
  if (c[b] == n - 1) {
    --q[b];
    return feat_grad1(g, G, c, a) - feat_grad1(g, G, q, a);
  }
  ++p[b];
  --q[b];
  return (feat_grad1(g, G, p, a) - feat_grad1(g, G, q, a)) / 2.0f;
}

CUSK_HD float feat_sqrt(float x) {
#if defined(__CUDA_ARCH__)
  return __fsqrt_rn(x);
#else
  return std::sqrt(x);
#endif
}

/// The features of pixel i (C order) of one sigma: G, the Sobel magnitude, the eigenvalues. ND (the
/// grid's nd) is a template argument so that every axis index is a constant (registers, not a
/// local-memory array, on the device).
template <int ND>
CUSK_HD void feat_pixel(const float* g, const float* sob, const FeatGrid& G, const FeatLayer& L, std::int64_t i,
                        float* out) {
  using cuskimage::detail::add_rn;
  using cuskimage::detail::mul_rn;
  float* o = out + i * L.stride + L.base;
  int k = 0;
  if (L.intensity) o[k++] = g[i];
  if (L.edges) o[k++] = sob[i];
  if (!L.texture) return;
  std::int64_t c[3];
  c[2] = i % G.s[2];
  c[1] = (i / G.s[2]) % G.s[1];
  c[0] = i / (G.s[2] * G.s[1]);
  if constexpr (ND == 2) {
    constexpr int off = 1;  // the first spatial axis in the padded grid
    const float m00 = feat_grad2(g, G, c, off, off), m01 = feat_grad2(g, G, c, off, off + 1);
    const float m11 = feat_grad2(g, G, c, off + 1, off + 1);
    const float mean = add_rn(m00, m11) / 2.0f;
    const float h = (m00 - m11) / 2.0f;
    const float hs = feat_sqrt(add_rn(mul_rn(m01, m01), mul_rn(h, h)));
    o[k++] = mean + hs;
    o[k++] = mean - hs;
    return;
  } else {
    // 3-D: the symmetric 3x3 eigenvalues by the trigonometric closed form, in double.
    const double a00 = feat_grad2(g, G, c, 0, 0), a01 = feat_grad2(g, G, c, 0, 1), a02 = feat_grad2(g, G, c, 0, 2);
    const double a11 = feat_grad2(g, G, c, 1, 1), a12 = feat_grad2(g, G, c, 1, 2), a22 = feat_grad2(g, G, c, 2, 2);
    const double p1 = a01 * a01 + a02 * a02 + a12 * a12;
    const double q = (a00 + a11 + a22) / 3;
    double e0, e1, e2;
    if (p1 == 0) {
      e0 = a00, e1 = a11, e2 = a22;
      if (e0 < e1) { const double t = e0; e0 = e1; e1 = t; }
      if (e1 < e2) { const double t = e1; e1 = e2; e2 = t; }
      if (e0 < e1) { const double t = e0; e0 = e1; e1 = t; }
    } else {
      const double b00 = a00 - q, b11 = a11 - q, b22 = a22 - q;
      const double p2 = b00 * b00 + b11 * b11 + b22 * b22 + 2 * p1;
      const double p = sqrt(p2 / 6);
      const double det = b00 * (b11 * b22 - a12 * a12) - a01 * (a01 * b22 - a12 * a02) + a02 * (a01 * a12 - b11 * a02);
      double r = det / (2 * p * p * p);
      r = r < -1 ? -1 : (r > 1 ? 1 : r);
      const double phi = acos(r) / 3;
      e0 = q + 2 * p * cos(phi);
      e2 = q + 2 * p * cos(phi + 2.0943951023931954923);  // + 2 pi / 3
      e1 = 3 * q - e0 - e2;
    }
    o[k++] = static_cast<float>(e0);
    o[k++] = static_cast<float>(e1);
    o[k++] = static_cast<float>(e2);
  }
}

/// CUDA backend: the features of one sigma for every pixel (g, sob contiguous float32 on the device;
/// sob unused without edges).
void cuda_basic_features(const Array& g, const Array& sob, const FeatGrid& G, const FeatLayer& L, Array& out,
                         const Stream& stream);

}  // namespace cuskimage::feature::detail
