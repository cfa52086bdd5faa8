// Internal helpers shared by gray.cpp, binary.cpp and kernels/morphology/tophat.cu.
#pragma once

#include <cstdint>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cuskimage/morphology.hpp"
#include "cuskimage/ndimage.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"


namespace cuskimage::morphology::detail {

/// The footprint as host (footprint, num_iter) pairs of the image's ndim, each zero-padded to odd
/// sizes (at the end or the front of even axes); None becomes the connectivity-1 cross.
std::vector<FootprintElement> normalize_footprint(std::string_view fn, const Array& image, const Footprint& fp,
                                                  bool pad_end);
/// Each element reversed along every axis (order kept, as scikit-image's mirror_footprint).
std::vector<FootprintElement> mirror_elements(const std::vector<FootprintElement>& els);
/// True when a host footprint has a non-zero element.
bool any_nonzero(const Array& footprint);
/// `out` must be a valid array of `shape`, `dtype` and the image's device.
void expect_out(std::string_view fn, const Array& image, const Array& out, DType dtype);

/// scikit-image's tophat difference: a - b wrapping for integers, a != b for bool.
struct TophatSubOp {
  template <class T>
  CUSK_HD T operator()(T a, T b) const {
    if constexpr (std::is_same_v<T, bool>) {
      return a != b;
    } else if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
    } else {
      return a - b;
    }
  }
};

/// CUDA backend of out = TophatSubOp(a, b) (same shape, dtype T, any strides).
template <class T>
void cuda_tophat_sub(const Array& a, const Array& b, Array& out, const Stream& stream);

// ---- fast flat-footprint passes (kernels/morphology/rows2d.cu, binary3x3.cu) ----------------------
/// One row of a flat footprint that is a single contiguous run: taps (dz, dy, dx) for lo <= dx <= hi,
/// offsets after scipy's origin rule (index - size // 2). 2-D footprints have dz = 0, 1-D dz = dy = 0.
struct RowRun {
  std::int32_t dz, dy, lo, hi;
};

/// The runs of a host footprint in C order (dz, dy ascending), or an empty vector when some row's
/// non-zero entries are not one contiguous run (or the footprint is all zero).
std::vector<RowRun> footprint_runs(const Array& footprint);

/// One min (erosion) / max (dilation) filter pass over a flat footprint given as runs, on CUDA,
/// computing exactly what ndimage::minimum_filter / maximum_filter computes over the same taps with
/// window semantics (tap order, first-tap NaN rule). `in` and `out` contiguous, distinct, 1-3-D with
/// the runs' dimensionality; `cval` exact in T. Returns false (launching nothing) when the tile of
/// this footprint does not fit in shared memory or the grid is too large; the caller falls back.
template <class T>
bool cuda_rows_minmax(const Array& in, Array& out, const std::vector<RowRun>& runs, bool is_max, ndimage::Mode mode,
                      T cval, const Stream& stream);

/// The same pass by the row-chain kernel (kernels/morphology/row_chain.cu) for integer and bool
/// images: footprints whose rows are runs containing column 0, |dy| <= 15, that nest in the chain
/// order of row_chain.cuh (disk, ellipse, diamond, octagon, rectangle, ball, ...). Returns false
/// (launching nothing) for any other footprint; the caller then tries cuda_rows_minmax.
template <class T>
bool cuda_chain_minmax(const Array& in, Array& out, const std::vector<RowRun>& runs, bool is_max, ndimage::Mode mode,
                       T cval, const Stream& stream);

/// A full 3x3 binary erosion (AND, is_max false) or dilation (OR) of a contiguous 2-D or 3-D (per
/// plane) bool image with a constant border `border`.
void cuda_binary3x3(const Array& in, Array& out, bool is_max, bool border, const Stream& stream);

/// One grey/binary min-max pass through the fast kernels when they take it: device image of ndim
/// 1-3, footprint rows that are single runs, cval exact in the dtype, and for floating types a
/// footprint that is not full (a full one runs scipy's separable passes, whose tie and NaN order
/// differ from the window's). Returns an invalid Array when not taken.
Array fast_minmax_pass(bool is_max, const Array& image, const Array& footprint, ndimage::Mode mode, double cval,
                       const Stream& stream);

}  // namespace cuskimage::morphology::detail
