// Internal helpers of reconstruction.cpp, extrema.cpp, flood.cpp, remove_small.cpp and their CUDA
// kernels (kernels/morphology/recon_*.cu): footprints as offset lists, padded flat grids for the
// CPU oracles, a CPU union-find, and the CUDA entry points.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "cuskimage/array.hpp"
#include "cuskimage/stream.hpp"
#include "src/core/hd.hpp"

namespace cuskimage::morphology::detail {

using Offset = std::vector<std::int64_t>;

/// Host bool copy of a footprint; throws InvalidArgument unless valid with `ndim` dimensions.
Array footprint_bool(std::string_view fn, const Array& footprint, int ndim);
/// scipy's generate_binary_structure(ndim, connectivity): 3^ndim, true where the city-block
/// distance to the centre is <= connectivity (connectivity < 1: the centre only).
Array binary_structure(int ndim, int connectivity);
/// Offsets (index - centre) of the true elements of a host bool footprint, in C order.
std::vector<Offset> true_offsets(const Array& footprint_bool, const Offset& centre);
/// scikit-image's _offsets_to_raveled_neighbors: the true offsets sorted by Euclidean length
/// (stable) with the first one dropped (the centre when it is set; else, as scikit-image does,
/// the first shortest offset).
std::vector<Offset> neighbour_offsets(const Array& footprint_bool, const Offset& centre);
/// True when the offset set is closed under negation.
bool symmetric(const std::vector<Offset>& offsets);

/// A C-order grid padded by lo[d] / hi[d] cells on each axis, for the CPU oracles: flat indices
/// and flat deltas of N-d offsets without bounds checks.
struct PaddedGrid {
  Shape shape, padded;
  Shape lo;
  Strides strides;  // of the padded grid
  PaddedGrid(const Shape& shape, const Shape& lo, const Shape& hi);
  std::int64_t size() const { return shape_size(padded); }
  std::int64_t delta(const Offset& o) const;
  /// Padded flat index of every image element, in C order.
  std::vector<std::int64_t> interior() const;
};

/// Padding that keeps every pixel + o (o in offsets) inside the grid.
void pad_for(const std::vector<Offset>& offsets, int ndim, Shape& lo, Shape& hi);

/// Contiguous host copy of `a` converted to double.
std::vector<double> host_doubles(const Array& a, const Stream& stream);

/// Union-find over flat indices (CPU). find() halves paths; unite() keeps the smaller root.
struct UnionFind {
  std::vector<std::int64_t> parent;
  explicit UnionFind(std::int64_t n);
  std::int64_t find(std::int64_t x);
  void unite(std::int64_t a, std::int64_t b);
};

// ---- reconstruction (reconstruction.cpp), reused by h_maxima / h_minima ---------------------------

/// The push offsets of reconstruction's footprint/offset arguments (validated as scikit-image).
std::vector<Offset> reconstruction_offsets(std::string_view fn, int ndim, const Array& footprint,
                                           const std::vector<std::int64_t>& offset);
/// reconstruction without validation, in float type `ft` (float32 or float64), on seed's device.
Array reconstruct(const Array& seed, const Array& mask, const std::vector<Offset>& push, bool dilation, DType ft,
                  const Stream& stream);
/// float32 for a float32 mask, else float64.
DType reconstruction_float_type(DType mask);

// ---- CUDA ----------------------------------------------------------------------------------------

/// A C-order volume (nz, ny, nx); 1-D and 2-D images use leading extents of 1.
struct Geom3 {
  std::int64_t nz = 1, ny = 1, nx = 1;
  CUSK_HD std::int64_t size() const { return nz * ny * nx; }
};
Geom3 geom3(const Shape& shape);
/// A 3-D offset (leading zeros for 1-D and 2-D).
struct Off3 {
  int dz = 0, dy = 0, dx = 0;
};
std::vector<Off3> offsets3(const std::vector<Offset>& offsets);

/// Reconstruction on the device, in place on `rec` (contiguous, dtype T = float, double or
/// uint8, every rec <= mask for dilation / >= for erosion): every pixel pushes to p + o for the
/// `push` offsets until nothing changes. `mask` contiguous, same type.
template <class T>
void cuda_propagate(Array& rec, const Array& mask, const std::vector<Off3>& push, bool dilation,
                    const Stream& stream);

/// Any seed[i] > mask[i] (dilation) / < (erosion), both contiguous of type T (float or double) on
/// the device; reads the flag back (synchronises the stream).
template <class T>
bool cuda_any_violation(const Array& seed, const Array& mask, bool dilation, const Stream& stream);

/// Local maxima (minima) on the device: `padded` is the contiguous image, padded by one cell of
/// the pad value on every axis when allow_borders; `out` the contiguous bool result of the image's
/// shape; `offsets` symmetric, within 3^nd.
template <class T>
void cuda_local_extrema(const Array& padded, Array& out, int nd, bool allow_borders, bool minima,
                        const std::vector<Off3>& offsets, const Stream& stream);
/// np.transpose(np.nonzero(mask)) of a contiguous bool device array, int64 (k, ndim) on the
/// device; reads k back.
Array cuda_nonzero_coords(const Array& mask, const Stream& stream);

}  // namespace cuskimage::morphology::detail
