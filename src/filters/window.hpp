// Private pieces of filters::window: the per-pixel rotation of the 1-D window (shared by the CPU loop
// and the CUDA kernel) and the CUDA entry point.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "cuskimage/array.hpp"
#include "src/core/hd.hpp"
#include "src/core/rn.hpp"

namespace cuskimage::filters::detail {

constexpr int kWindowMaxDims = 8;

// Products and sums rounded separately (no FMA contraction on the device), as NumPy computes.
using cuskimage::detail::add_rn;
using cuskimage::detail::mul_rn;

struct WindowGeom {
  int ndim = 1;
  std::int64_t shape[kWindowMaxDims] = {};
  std::int64_t ms = 0;     // max(shape): the 1-D window's length
  double lo = 0, hi = 0;   // warp's clip range: [min(w, 0), max(w, 0)]
};

/// skimage.filters.window's value at C-order element `i`: the distance from the centre computed in
/// float64 (scikit-image's coordinates are float64 because max_size is a NumPy integer), stored as
/// float32 (its coords array), then scipy's order-1 'grid-constant' interpolation of w[0..ms) and
/// warp's clip.
CUSK_HD double window_value(std::int64_t i, const WindowGeom& g, const double* w) {
  std::int64_t c[kWindowMaxDims];
  for (int d = g.ndim - 1; d >= 0; --d) {
    c[d] = i % g.shape[d];
    i /= g.shape[d];
  }
  const double ms = static_cast<double>(g.ms), center = ms / 2.0 - 0.5;
  double dist = 0.0;
  for (int d = 0; d < g.ndim; ++d) {
    const double gd = add_rn(mul_rn(static_cast<double>(c[d]), ms / static_cast<double>(g.shape[d])), -center);
    dist = add_rn(dist, mul_rn(gd, gd));
  }
  const double cc = static_cast<double>(static_cast<float>(add_rn(sqrt(dist), center)));
  const double f = floor(cc), t = add_rn(cc, -f);
  const std::int64_t k = static_cast<std::int64_t>(f);
  const double a = (k >= 0 && k < g.ms) ? w[k] : 0.0;
  const double b = (k + 1 >= 0 && k + 1 < g.ms) ? w[k + 1] : 0.0;
  double v = add_rn(mul_rn(a, add_rn(1.0, -t)), mul_rn(b, t));
  v = v < g.lo ? g.lo : v;
  return v > g.hi ? g.hi : v;
}

/// CUDA: fills contiguous float64 `out` (shape in g) from the 1-D window `w` (host values).
void cuda_window(Array& out, const WindowGeom& g, const std::vector<double>& w, const Stream& stream);

}  // namespace cuskimage::filters::detail
