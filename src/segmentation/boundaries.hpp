// Private interface of segmentation.find_boundaries / mark_boundaries: the per-pixel rules both
// backends run (CUSK_HD), and the CUDA entry points (kernels/segmentation/boundaries.cu).
#pragma once

#include <cstdint>
#include <limits>
#include <type_traits>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"
#include "src/core/indexer.hpp"

namespace cuskimage::segmentation::detail {

/// A label value compared with an int64 as NumPy compares them (by value, any sign).
template <class T>
CUSK_HD bool label_equals(T v, std::int64_t b) {
  if constexpr (std::is_same_v<T, bool>) {
    return static_cast<std::int64_t>(v) == b;
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<double>(v) == static_cast<double>(b);
  } else if constexpr (std::is_unsigned_v<T>) {
    return b >= 0 && static_cast<std::uint64_t>(v) == static_cast<std::uint64_t>(b);
  } else {
    return static_cast<std::int64_t>(v) == b;
  }
}

/// The label grid: its extents and element strides (up to kMaxDims axes).
struct Grid {
  int nd = 0;
  std::int64_t shape[cuskimage::detail::kMaxDims] = {};
  std::int64_t stride[cuskimage::detail::kMaxDims] = {};
};

/// Element offset of the C-order element number `lin` of the grid.
CUSK_HD std::int64_t grid_offset(const Grid& g, std::int64_t lin) {
  std::int64_t off = 0;
  for (int a = g.nd - 1; a >= 0; --a) {
    off += (lin % g.shape[a]) * g.stride[a];
    lin /= g.shape[a];
  }
  return off;
}

/// The grid of an array (its extents and strides).
inline Grid grid_of(const Array& a) {
  Grid g;
  g.nd = a.ndim();
  for (int d = 0; d < g.nd; ++d) {
    g.shape[d] = a.shape(d);
    g.stride[d] = a.strides()[d];
  }
  return g;
}

/// find_boundaries for one output element (`lin`: its C-order number in the output grid).
/// thick: some neighbour under `conn` hops differs (the dilation != erosion of scikit-image; pixels
/// outside the image never count, which is what its 'reflect' edge gives for a 3^n footprint).
/// inner: thick and not background. outer: thick and (background, or the full-neighbourhood
/// maximum of the labels differs from the minimum with background read as the dtype's maximum).
/// subpixel: `lin` counts the (2s - 1) grid; an in-between element is a boundary when the original
/// pixels around it hold two labels other than the dtype's maximum (scikit-image's filler value).
template <class T, int ND = 0>  // ND > 0: the number of dimensions fixed at compile time
struct BoundaryRule {
  const T* img = nullptr;
  Grid g;
  int conn = 1;
  int mode = 0;  // 0 thick, 1 inner, 2 outer, 3 subpixel
  std::int64_t background = 0;

  using Big = std::conditional_t<std::is_same_v<T, bool>, std::uint8_t, T>;

  CUSK_HD int dims() const { return ND > 0 ? ND : g.nd; }

  CUSK_HD static Big top() {
    if constexpr (std::is_floating_point_v<T>) return Big(0);  // unused: outer/subpixel need integers
    else return std::numeric_limits<Big>::max();
  }

  CUSK_HD bool operator()(std::int64_t lin) const {
    std::int64_t c[cuskimage::detail::kMaxDims];
    const int nd = dims();
    if (mode == 3) {
      for (int a = nd - 1; a >= 0; --a) {
        const std::int64_t n = 2 * g.shape[a] - 1;
        c[a] = lin % n;
        lin /= n;
      }
      return subpixel(c);
    }
    std::int64_t off = 0;
    for (int a = nd - 1; a >= 0; --a) {
      c[a] = lin % g.shape[a];
      lin /= g.shape[a];
      off += c[a] * g.stride[a];
    }
    return at(c, off);
  }

  /// The thick / inner / outer rule at coordinates `c` (element offset `off`).
  CUSK_HD bool at(const std::int64_t* c, std::int64_t off) const {
    const Big v = static_cast<Big>(img[off]);
    const bool is_bg = label_equals(v, background);
    if (mode == 1 && is_bg) return false;
    bool thick = false;
    Big hi = v, lo = is_bg ? top() : v;
    const int steps = mode == 2 ? dims() : conn;  // outer needs the full neighbourhood
    walk(c, off, steps, [&](Big u, int hops) {
      if (hops <= conn && u != v) thick = true;
      if (mode == 2) {
        hi = u > hi ? u : hi;
        const Big w = label_equals(u, background) ? top() : u;
        lo = w < lo ? w : lo;
      }
    });
    if (mode != 2) return thick;
    if constexpr (sizeof(Big) == 8 && !std::is_floating_point_v<T>) {
      // scipy's separable minimum filter (a full footprint) runs per axis in double and stores each
      // pass in the dtype: the dtype's maximum, scikit-image's background filler, is 2^63 or 2^64 in
      // double and comes back as INT64_MIN or 0 wherever a first-axis window holds only filler;
      // later passes then keep that value.
      if (!is_bg && thick && axis0_all_filler(c, off)) lo = std::numeric_limits<Big>::min();
    }
    return thick && (is_bg || hi != lo);
  }

  /// Whether some pixel p = c + (0, d1, ...) (in the image) has a first-axis window of background
  /// (or the dtype's maximum) only.
  CUSK_HD bool axis0_all_filler(const std::int64_t* c, std::int64_t off) const {
    const int nd = dims();
    int total = 1;
    for (int a = 1; a < nd; ++a) total *= 3;
    for (int m = 0; m < total; ++m) {
      int r = m;
      bool inside = true;
      std::int64_t o = off;
      for (int a = nd - 1; a >= 1; --a) {
        const int d = r % 3 - 1;
        r /= 3;
        const std::int64_t q = c[a] + d;
        inside = inside && q >= 0 && q < g.shape[a];
        o += d * g.stride[a];
      }
      if (!inside) continue;
      bool all = true;
      for (int d = -1; d <= 1 && all; ++d) {
        const std::int64_t q = c[0] + d;
        if (q < 0 || q >= g.shape[0]) continue;
        const Big u = static_cast<Big>(img[o + d * g.stride[0]]);
        all = label_equals(u, background) || u == top();
      }
      if (all) return true;
    }
    return false;
  }

  /// Calls f(value, hops) for every in-image neighbour within `steps` orthogonal hops (the 3^nd
  /// offsets in order; unrolled to constants when ND is fixed).
  template <class F>
  CUSK_HD void walk(const std::int64_t* c, std::int64_t off, int steps, F&& f) const {
    const int nd = dims();
    int total = 1;
    for (int a = 0; a < nd; ++a) total *= 3;
CUSK_UNROLL
    for (int m = 0; m < (ND > 0 ? pow3(ND) : total); ++m) {
      int r = m, hops = 0;
      bool inside = true;
      std::int64_t o = off;
      for (int a = nd - 1; a >= 0; --a) {
        const int d = r % 3 - 1;
        r /= 3;
        hops += d != 0;
        const std::int64_t q = c[a] + d;
        inside = inside && q >= 0 && q < g.shape[a];
        o += d * g.stride[a];
      }
      if (inside && hops > 0 && hops <= steps) f(static_cast<Big>(img[o]), hops);
    }
  }

  CUSK_HD static constexpr int pow3(int n) { return n == 0 ? 1 : 3 * pow3(n - 1); }

  CUSK_HD bool subpixel(const std::int64_t* c) const {
    const int nd = dims();
    bool odd_any = false;
    for (int a = 0; a < nd; ++a) odd_any = odd_any || (c[a] & 1);
    if (!odd_any) return false;
    // The original pixels around: per odd axis (c-1)/2 and (c+1)/2, per even axis c/2.
    bool have = false;
    Big first = Big(0);
    for (unsigned m = 0; m < (1u << nd); ++m) {
      std::int64_t o = 0;
      bool skip = false;
      for (int a = 0; a < nd; ++a) {
        const unsigned bit = (m >> a) & 1u;
        if (!(c[a] & 1) && bit) skip = true;
        o += ((c[a] + (bit ? 1 : -1) * (c[a] & 1)) / 2) * g.stride[a];
      }
      if (skip) continue;
      const Big u = static_cast<Big>(img[o]);
      if (u == top()) continue;
      if (!have) {
        first = u;
        have = true;
      } else if (u != first) {
        return true;
      }
    }
    return false;
  }
};

/// mark_boundaries' painting of one pixel of the (H, W, 3) float image from the (H, W) bool
/// boundaries: the colour on a boundary, else the outline colour where a boundary lies in the
/// clamped 3x3 window (scikit-image's 3x3 dilation), else unchanged.
template <class F>
struct PaintRule {
  F* rgb = nullptr;
  const bool* bnd = nullptr;
  std::int64_t h = 0, w = 0;
  F color[3] = {};
  F outline[3] = {};
  bool has_outline = false;

  CUSK_HD void operator()(std::int64_t i) const {
    const std::int64_t r = i / w, c = i - r * w;
    const F* src = nullptr;
    if (bnd[i]) {
      src = color;
    } else if (has_outline) {
      bool near = false;
      for (std::int64_t y = r > 0 ? r - 1 : 0; y <= (r + 1 < h ? r + 1 : r); ++y)
        for (std::int64_t x = c > 0 ? c - 1 : 0; x <= (c + 1 < w ? c + 1 : c); ++x) near = near || bnd[y * w + x];
      if (near) src = outline;
    }
    if (src) {
      rgb[3 * i] = src[0];
      rgb[3 * i + 1] = src[1];
      rgb[3 * i + 2] = src[2];
    }
  }
};

/// Writes the rule over the contiguous bool `out` (n elements) on `stream`; 2-D and 3-D images in
/// modes thick / inner / outer take a fixed-dimension kernel without per-pixel divisions.
template <class T>
void cuda_find_boundaries(const BoundaryRule<T>& rule, Array& out, const Stream& stream);
template <class F>
void cuda_paint(const PaintRule<F>& rule, std::int64_t n, const Stream& stream);

}  // namespace cuskimage::segmentation::detail
